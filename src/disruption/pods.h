// Pod-level facts the disruption methods use: activity, reschedulability, the
// karpenter.sh/do-not-disrupt annotation, eviction costs, the PDBs that select a pod, and the
// per-plan PodCache of the facts no command changes.

#ifndef KARP_SRC_DISRUPTION_PODS_H_
#define KARP_SRC_DISRUPTION_PODS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "karp/cluster.h"
#include "karp/objects.h"

namespace karp::disruption {

// The value of an annotation or label, "" when absent.
std::string Annotation(const ObjectMeta& m, std::string_view key);
std::string Label(const ObjectMeta& m, std::string_view key);

bool IsActive(const Pod& p);
bool IsMirror(const Pod& p);
// Reschedulable: active (or a terminating StatefulSet pod), not a DaemonSet or mirror pod.
bool IsReschedulable(const Pod& p);

// karpenter.sh/do-not-disrupt on an active pod: "true", or a positive Go duration still
// running since status.startTime (no startTime: blocks). Unparsable values are ignored.
bool PodDoNotDisrupt(const Pod& p, absl::Time now);

// EvictionCost (docs/design.md §6.2): 1 + deletion-cost/2^27 + priority/2^25, clamped to ±10.
double EvictionCost(const Pod& p);

// Whether `pdb` selects `pod`: same namespace (empty = "default") and a selector matching
// the pod's labels (a PDB without a selector selects nothing).
bool PdbSelects(const PodDisruptionBudget& pdb, const Pod& pod);

// The disruptions each PDB allows: its status.disruptionsAllowed, or, when the snapshot has
// no status, derived from minAvailable/maxUnavailable over the active pods it selects (running
// pods count as healthy). Derived allowances are cached: one object per loop.
class PdbAllowances {
 public:
  explicit PdbAllowances(const ClusterSnapshot& snap) : snap_(snap) {}
  int64_t Of(const PodDisruptionBudget& pdb);

 private:
  int64_t Derive(const PodDisruptionBudget& pdb) const;

  const ClusterSnapshot& snap_;
  std::map<const PodDisruptionBudget*, int64_t> derived_;
};

// Facts about pods that no command changes (labels, annotations, priority, owners), computed
// once per plan.
struct PodFacts {
  std::vector<const PodDisruptionBudget*> pdbs;  // the PDBs selecting the pod
  double eviction_cost = 1.0;
  bool mirror = false;
  bool tolerates_disrupted = false;
  std::string key;
};

struct PodCache {
  std::unordered_map<std::string, PodFacts> by_key;        // reference-stable, across loops
  absl::flat_hash_map<const Pod*, const PodFacts*> facts;  // this loop's pods
  // Drift verdicts that depend only on a node's (immutable) labels and its NodePool:
  // node name -> reason ("" = not drifted).
  std::unordered_map<std::string, std::string> static_drift;

  // Valid for the loop that owns `p`; call Reset() when the snapshot mutates.
  const PodFacts& Of(const Pod& p, const ClusterSnapshot& snap);
  void Reset() { facts.clear(); }
};

}  // namespace karp::disruption

#endif  // KARP_SRC_DISRUPTION_PODS_H_
