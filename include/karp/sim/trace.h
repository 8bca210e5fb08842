// File: karp/sim/trace.h
//
// A workload trace for the cluster simulator (karp/sim/simulator.h): the cluster's NodePools
// and DaemonSets, and what the workload does over simulated time — deployments scaling, jobs
// arriving and finishing, individual pods with arrival and departure times, spot interruption
// notices and insufficient-capacity windows. docs/simulator.md documents the file format;
// karp::json::ParseSimTrace (karp/json/sim_trace.h) reads it and karp::sim::LoadOpenbTrace
// (karp/sim/simulator.h) builds one from the Alibaba "openb" CSV files.
//
// Every time in a trace is an offset from the trace's `start`.
//
// Thread-safety: plain value types; thread-compatible. Header-only (no out-of-line code), so
// the JSON codec can fill it without linking the simulator.

#ifndef KARP_SIM_TRACE_H_
#define KARP_SIM_TRACE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "karp/cluster.h"
#include "karp/objects.h"
#include "karp/pricing.h"
#include "karp/resources.h"
#include "karp/taints.h"

namespace karp::sim {

// What every pod of a workload looks like.
struct PodShape {
  ResourceList requests;  // cpu, memory, nvidia.com/gpu, ... (canonical units)
  std::map<std::string, std::string> node_selector;
  std::vector<Toleration> tolerations;
  std::map<std::string, std::string> labels;  // app=<workload name> is always added
  // PersistentVolumeClaims (declared in Trace::cluster, in the workload's namespace) that
  // every pod mounts; a claim bound to a zonal PersistentVolume pins the workload's pods to
  // that zone.
  std::vector<std::string> claims;
};

// A Deployment whose replica count follows a step function.
struct DeploymentTrace {
  std::string name;
  std::string namespace_ = "default";
  PodShape pod;
  // (offset, replicas), ascending offsets; replicas before the first step: 0.
  std::vector<std::pair<absl::Duration, int64_t>> replicas;
};

// A Job: `parallelism` pods arrive at `at` (and again every `every` while < `until`); each runs
// for `run_for` once bound, then succeeds. An evicted job pod starts over.
struct JobTrace {
  std::string name;
  std::string namespace_ = "default";
  PodShape pod;
  absl::Duration at = absl::ZeroDuration();
  std::optional<absl::Duration> every;  // unset: one arrival
  absl::Duration until = absl::InfiniteDuration();
  int64_t parallelism = 1;
  absl::Duration run_for = absl::Minutes(10);
};

// One pod with its own arrival and departure (a replayed production trace). The pod leaves
// at `leave_at` whether or not it ever ran.
struct PodTrace {
  std::string name;
  std::string namespace_ = "default";
  PodShape pod;
  absl::Duration arrive_at = absl::ZeroDuration();
  absl::Duration leave_at = absl::InfiniteDuration();
};

// A cloud interruption notice (spot interruption warning): the node is reclaimed
// `SimOptions::interruption_notice` (two minutes) after `at`.
struct InterruptionTrace {
  absl::Duration at = absl::ZeroDuration();
  std::string node;           // a simulated node name ("<nodepool>-<n>"), or
  std::string capacity_type;  // when `node` is empty: the oldest running node of this type
};

// Insufficient capacity for an offering from `from` until `until`.
struct CapacityErrorTrace {
  absl::Duration from = absl::ZeroDuration();
  absl::Duration until = absl::InfiniteDuration();
  std::string capacity_type;
  std::string instance_type;
  std::string zone;  // empty: every zone
};

struct Trace {
  std::string name;
  absl::Time start = absl::FromCivil(absl::CivilSecond(2026, 1, 5, 0, 0, 0), absl::UTCTimeZone());
  absl::Duration duration = absl::Hours(1);
  uint64_t seed = 1;
  // NodePools, DaemonSets, storage objects (PersistentVolumeClaims, PersistentVolumes,
  // StorageClasses, CSINodes) and EC2NodeClasses (which `karp simulate` builds the NodePools'
  // instance types with: karp/node_class_catalog.h); other objects are ignored.
  ClusterSnapshot cluster;
  std::vector<DeploymentTrace> deployments;
  std::vector<JobTrace> jobs;
  std::vector<PodTrace> pods;
  std::vector<InterruptionTrace> interruptions;
  // Spot interruption notices per spot node-hour, drawn from `seed` (0: none).
  double spot_interruption_rate = 0;
  std::vector<CapacityErrorTrace> capacity_errors;
  // The static node-group baseline: per NodePool, the instance types of its node groups (one
  // fixed type per group; a scale-up picks the cheapest group that fits, like the
  // cluster-autoscaler's price expander).
  std::map<std::string, std::vector<std::string>> baseline_instance_types;
  // Reserved Instances, Savings Plans and capacity reservations (karp/pricing.h), as of
  // `start`: when present the cost is the commitment bill (Summary's split) and policies that
  // are commitment-aware decide by marginal cost. Capacity reservations become reserved
  // offerings of the catalog.
  std::optional<Commitments> commitments;
};

}  // namespace karp::sim

#endif  // KARP_SIM_TRACE_H_
