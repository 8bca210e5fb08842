// A pod's working data in one Solve (karpenter's PodData): the spec as this attempt schedules
// it, its requests, requirements, host ports and topology groups, recomputed after relaxation.

#ifndef KARP_SRC_SCHEDULING_POD_DATA_H_
#define KARP_SRC_SCHEDULING_POD_DATA_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/scheduler.h"
#include "scheduling/scheduler_internal.h"
#include "scheduling/topology.h"
#include "scheduling/volume_topology.h"

namespace karp::scheduling {

// Per-pod working data (karpenter PodData), recomputed after each relaxation.
struct PodData {
  const Pod* original = nullptr;
  // The pod as this attempt schedules it: *original until relaxation (or the default
  // namespace) changes it, then an immutable copy that the contexts copied from this one
  // share. Most pods are never relaxed and cost no copy.
  std::shared_ptr<const Pod> changed;
  const Pod& working() const { return changed != nullptr ? *changed : *original; }
  // The fields the queue order reads (with original) first, on the context's first lines.
  std::string key;
  ResourceList requests;
  Topology::RecordCache record_cache;  // inverse groups it owns (per pod)
  // Pods with the same namespace and labels are selected by the same topology groups; they
  // share one RecordCache for that part (index into Solver::label_caches_).
  size_t label_class = 0;
  Requirements requirements;  // full (Respect) or strict (Ignore)
  Requirements strict;
  std::vector<ContainerPort> ports;
  // Topology groups of this attempt (refreshed before each Add).
  Topology::PodGroups groups;
  // The prototypes of the groups of the original spec (Topology::PrototypesOf), kept by the
  // scheduler across simulations; null: computed when needed.
  std::shared_ptr<const Topology::Prototypes> prototypes;
  // Volume topology and claims (docs/design.md §5.13); null for pods whose volumes change nothing.
  std::shared_ptr<const scheduling::PodVolumes> volumes;
  // Cost mode (cost_packing.h): the pod's demand class, and the node of the exact plan it
  // belongs to (exact_packing.h); -1 for none.
  int demand_class = -1;
  int plan_group = -1;
  // Cost mode: the order in which the pod's new claims try the templates (an index into
  // CostPolicy's orders), and the first of them the pod can use (null: none).
  int pool_order = 0;
  const Template* cost_template = nullptr;
  // Cost mode: the pod's own requirements make it dearer per unit than its template's best
  // type (a pinned family, say); such pods are placed last (CostPolicy::PlacedLast).
  bool dearer_than_template = false;
};

// Recomputes the pod's requests, requirements and host ports from `working`; `full` is
// PodRequirements(working) when the caller has it (read under PreferencePolicy::kRespect only).
inline void Refresh(PodData& c, PreferencePolicy policy, Requirements full) {
  const Pod& w = c.working();
  c.requests = w.Requests();
  c.strict = StrictPodRequirements(w);
  c.requirements = policy == PreferencePolicy::kRespect ? std::move(full) : c.strict;
  c.ports = HostPorts(w);
}
inline void Refresh(PodData& c, PreferencePolicy policy) {
  Refresh(c, policy,
          policy == PreferencePolicy::kRespect ? PodRequirements(c.working()) : Requirements());
}

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_POD_DATA_H_
