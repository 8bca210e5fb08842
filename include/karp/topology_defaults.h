// File: karp/topology_defaults.h
//
// Cluster-level default topology spread constraints, as the reference mirrors kube-scheduler's
// PodTopologySpread plugin (`--scheduler-config`, podTopologySpread.defaultConstraints;
// kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/defaultconstraints.go): a
// pod that declares no topologySpreadConstraints of its own gets the defaults, each with the
// label selector kube-scheduler deduces for it — the selectors of the Services of its namespace
// that select it (merged as equality matches), then its controller's: a ReplicationController's
// map overwrites those labels, a ReplicaSet's or StatefulSet's selector is ANDed on as
// expressions. A pod without such a Service or controller gets none (an empty selector would
// count every pod of the namespace). docs/design.md §5.10 has the rules and their sources.
//
// Example:
//   absl::StatusOr<karp::SchedulerConfig> config =
//       karp::json::ParseSchedulerConfig(text, "--scheduler-config");
//   karp::SchedulerOptions options;
//   options.default_topology_spread = config->default_topology_spread;
//   // Scheduler::Create and Consolidator::Create apply them to the snapshot's pods.
//
// Thread-safety: value types and pure functions; ApplyDefaultTopologySpread mutates only its
// argument.

#ifndef KARP_TOPOLOGY_DEFAULTS_H_
#define KARP_TOPOLOGY_DEFAULTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "karp/cluster.h"
#include "karp/objects.h"

namespace karp {

// The parts of the reference's SchedulerConfiguration karp reads.
struct SchedulerConfig {
  // podTopologySpread.defaultConstraints.
  std::vector<TopologySpreadConstraint> default_topology_spread;
};

// The reference's validation of defaultConstraints (kube-scheduler's
// ValidatePodTopologySpreadArgs): maxSkew > 0, a qualified topologyKey, whenUnsatisfiable
// DoNotSchedule or ScheduleAnyway, no labelSelector and no matchLabelKeys (selectors are
// deduced per pod), no two constraints with the same topologyKey and whenUnsatisfiable.
// Errors: InvalidArgument `podTopologySpread.defaultConstraints[i].<field> ...`.
[[nodiscard]] absl::Status ValidateDefaultTopologySpread(
    const std::vector<TopologySpreadConstraint>& constraints);

// The selector kube-scheduler deduces for `pod`'s default constraints from `snapshot`'s
// Services and workloads (its controller, found by namespace, kind and name among
// snapshot.workloads: ReplicationController, ReplicaSet or StatefulSet; another kind, or one
// not in the snapshot, contributes nothing), or nullopt when it deduces none. O(Services of
// the namespace + workloads).
std::optional<LabelSelector> DefaultSpreadSelector(const ClusterSnapshot& snapshot, const Pod& pod);

// What ApplyDefaultTopologySpread did.
struct DefaultSpreadReport {
  int64_t defaulted = 0;    // pods that got the defaults
  int64_t own = 0;          // pods with constraints of their own (left as they are)
  int64_t no_selector = 0;  // pods for which no selector could be deduced (left without)
  // Of those, pods whose controller (ReplicaSet, StatefulSet or ReplicationController) is not
  // in the snapshot: with it, kube-scheduler might have deduced a selector.
  int64_t owner_missing = 0;
};

// Gives every pod of `snapshot` that has no topologySpreadConstraints `defaults`, each with
// the pod's DefaultSpreadSelector (pods without one are left as they are). Bound pods are
// defaulted too: their constraints matter only when consolidation moves them, as the
// reference injects into every pod it schedules. Nothing is done when `defaults` is empty.
// O(pods x (Services per namespace + workloads)) with the selector cached per (namespace,
// controller, labels).
DefaultSpreadReport ApplyDefaultTopologySpread(
    ClusterSnapshot* snapshot, const std::vector<TopologySpreadConstraint>& defaults);

}  // namespace karp

#endif  // KARP_TOPOLOGY_DEFAULTS_H_
