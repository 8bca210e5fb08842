// Internal state of karp::Scheduler (see karp/scheduler.h): the prepared NodeClaim templates,
// the NodePool-level state shared between schedulers, and the scheduler's prepared state
// (scheduling::SchedulerState). Only files of src/scheduling/ include it; other modules use
// scheduling/access.h.

#ifndef KARP_SRC_SCHEDULING_SCHEDULER_INTERNAL_H_
#define KARP_SRC_SCHEDULING_SCHEDULER_INTERNAL_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/scheduler.h"
#include "karp/taints.h"
#include "karp/volumes.h"
#include "scheduling/access.h"
#include "scheduling/topology.h"
#include "scheduling/volume_topology.h"

namespace karp::scheduling {

inline constexpr char kNoDynamicNodePools[] = "no dynamic nodepools found";

// The reference provisioner's per-pod Validate: "" when `pod` may be scheduled, else the pod
// error `ignoring pod, <reason>[; <reason>...]` (the nodepool DoesNotExist requirement,
// restricted or invalid nodeSelector / required node-affinity keys and values, matchFields,
// and fields no API server would accept). Such a pod stays pending; the others are scheduled.
// `check_fields` also runs ValidatePod (off for pods of a validated snapshot).
// `full`, when given, is PodRequirements(pod) already built by the caller.
std::string PodValidationError(const Pod& pod, const LabelSet& well_known, bool check_fields,
                               const Requirements* full = nullptr);

// DaemonSet pods that would run on a node of a (template, instance type) pair.
struct DaemonGroup {
  ResourceList overhead;  // summed requests, including `pods`
  std::vector<ContainerPort> ports;
};

// Sets type `i`'s bit in a bit set over a template's types (bit i of word i / 64).
inline void SetTypeBit(std::vector<uint64_t>& bits, size_t i) {
  bits[i / 64] |= uint64_t{1} << (i % 64);
}

// A NodeClaimTemplate: one eligible NodePool with its prefiltered instance types.
struct Template {
  const NodePool* pool = nullptr;
  std::shared_ptr<const InstanceCatalog> catalog;
  Requirements requirements;
  std::vector<const InstanceType*> instance_types;
  std::vector<ResourceList> allocatable;  // parallel to instance_types
  std::vector<int> daemon_group;          // parallel to instance_types
  std::vector<DaemonGroup> daemon_groups;
  // Parallel to instance_types: allocatable minus the type's daemon overhead, what pods can
  // use (a type takes pods totalling `r` iff r fits its headroom and its allocatable is valid).
  std::vector<ResourceList> headroom;
  ResourceList max_headroom;  // per-resource maximum of `headroom` over every type
  // Parallel to instance_types: allocatable minus the type's daemon overhead in cpu, memory,
  // ephemeral storage and pods (absent: 0), contiguous for the filter's inner loop: requests
  // without extended resources fit iff each is at most these (when the overhead has none).
  std::vector<std::array<int64_t, 4>> headroom_wk;
  bool overhead_has_extended = false;  // some daemon group's overhead has extended resources
  std::vector<Taint> taints;
  bool min_values_relaxed = false;  // minValues lowered by the prefilter (BestEffort)
  // Distinct (zone, capacity type) pairs of the offerings, and for each type and offering
  // the index of its pair: offering compatibility becomes a lookup in a per-claim mask.
  std::vector<std::pair<std::string, std::string>> offering_keys;
  std::vector<std::vector<int>> offering_key_of;  // parallel to instance_types
  // With at most 64 pairs: bit k of available_offering_bits[i] set iff type i has an
  // available offering of pair k (an offering check is one AND with a mask of pairs).
  std::vector<uint64_t> available_offering_bits;  // parallel to instance_types, or empty

  // The same facts as bit sets over the types (bit i of word i / 64, `words` words each), so
  // that the filter intersects a few rows instead of testing every type (IndexHeadroomBits):
  // per well-known resource k of headroom_wk, `values` holds the distinct headrooms
  // ascending and row j of `at_least` the types whose headroom is at least values[j]; per
  // offering pair (with available_offering_bits), the types with an available offering of it.
  // Empty when the template has too many distinct headrooms for the rows to pay off.
  struct HeadroomRows {
    std::vector<int64_t> values;
    std::vector<uint64_t> at_least;  // values.size() rows of `words` words
  };
  size_t words = 0;
  std::array<HeadroomRows, 4> headroom_rows;
  std::vector<std::vector<uint64_t>> offering_pair_types;
  std::vector<std::vector<uint64_t>> daemon_group_types;  // per daemon group, its types
  bool has_headroom_rows() const { return !headroom_rows[0].values.empty(); }

  // Per label key, the types' requirements on it grouped into classes of equal requirements
  // (class_of[i] = -1 when type i does not define the key): filters memoize per class.
  struct KeyClasses {
    std::vector<int> class_of;
    std::vector<const Requirement*> representative;
    // Per class, the bit set of its types (bit i of word i / 64): a filter that rejects a
    // few classes rejects their types with a handful of word operations.
    std::vector<std::vector<uint64_t>> members;
  };
  std::map<std::string, KeyClasses, std::less<>> key_classes;

  // mask[k] != 0 iff offering pair k is allowed by `reqs` (karp::OfferingCompatible).
  std::vector<char> OfferingMask(const Requirements& reqs) const;
};

// An existing node or in-flight NodeClaim, as prepared once per Scheduler.
struct ExistingNodeInit {
  std::string name;
  bool in_flight = false;
  bool initialized = true;
  std::string node_pool;  // "" when not managed
  Requirements requirements;
  std::vector<Taint> taints;  // the taints that count for scheduling
  ResourceList remaining;     // allocatable - bound pods - remaining daemon overhead
  std::vector<ContainerPort> host_ports;
  ResourceList capacity;  // with nodes: 1, for NodePool limits
  // CSI attach limits and the claims in use (volume_topology.h); null: no limits to check.
  std::shared_ptr<const NodeVolumes> volumes;
};

}  // namespace karp::scheduling

namespace karp {

namespace scheduling {

// The snapshot's pods as prepared for consolidation simulations (prepared_pods.h).
class PreparedPods;

// What depends only on the NodePools, DaemonSets and catalogs (not on nodes or pods): shared
// by the schedulers of successive consolidation loops.
struct PoolsState {
  LabelSet well_known;
  std::vector<Template> templates;  // weight desc, name desc
  bool has_node_pools = false;
  DomainUniverse universe;
  bool tolerate_prefer_no_schedule = false;
  // The pod each DaemonSet stands for (DaemonPods of the snapshot these pools were prepared
  // from, docs/design.md §2.4): the daemon groups' overhead and the existing nodes' missing
  // daemon overhead both come from it.
  std::vector<Pod> daemon_pods;
};

// Thresholds of the solver's indexes. Decisions never depend on them: tests set them to run
// the indexed and the plain walks on the same snapshot (Access::WithTuning) and compare.
struct SolverTuning {
  // How many blocked claims a first-fit walk skips before the hostname groups that blocked
  // them get a free-claim index (Solver::FreeIndex).
  int64_t free_index_min_blocked = 64;
  // Cost mode: the open-claim walk asks for the pod's memory and slots as well as its cpu
  // (CostClaimNeed); false: cpu alone (the scan over every claim with room for the cpu).
  bool cost_claim_index = true;
};

// The prepared state of a Scheduler (karp/scheduler.h), immutable and shared between its
// copies.
struct SchedulerState {
  SchedulerOptions options;
  scheduling::SolverTuning tuning;  // defaults; tests set it (scheduling::Access::WithTuning)
  std::shared_ptr<const ClusterSnapshot> snapshot;
  std::shared_ptr<const scheduling::PoolsState> pools;
  std::vector<scheduling::ExistingNodeInit> existing;    // initialized first, then by name
  std::map<std::string, ResourceList> remaining_limits;  // pools with limits only
  // Indexes over the snapshot for per-solve work.
  std::map<std::string, const Node*> nodes_by_name;
  std::vector<const Pod*> bound_anti_affinity_pods;  // bound pods with required anti-affinity
  // The snapshot's storage objects (docs/design.md §5.3, §5.13).
  std::shared_ptr<const StorageIndex> storage;
  // For Update (karp/scheduler.h): the catalogs the scheduler was created with, and the
  // snapshot whose NodePools `pools` points into when it is not `snapshot` (null: it is).
  std::shared_ptr<const InstanceCatalog> catalog;
  std::map<std::string, std::shared_ptr<const InstanceCatalog>> catalogs_by_node_pool;
  std::shared_ptr<const ClusterSnapshot> pools_snapshot;
  // Bound-pod counts of topology groups shared by the consolidation simulations over this
  // state (bound_counts.h); thread-safe.
  std::shared_ptr<scheduling::BoundCountCache> bound_counts;
  // The snapshot's pods prepared once for those simulations (prepared_pods.h); thread-safe.
  std::shared_ptr<scheduling::PreparedPods> prepared_pods;
};

}  // namespace scheduling

}  // namespace karp

#endif  // KARP_SRC_SCHEDULING_SCHEDULER_INTERNAL_H_
