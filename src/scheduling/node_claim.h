// A NodeClaim this Solve opens (karpenter's NodeClaim): its template, narrowed requirements,
// remaining instance types and pods, and the headroom maxima that let first fit skip it without
// running the instance-type filter; ClaimFit, what committing one more pod changes.

#ifndef KARP_SRC_SCHEDULING_NODE_CLAIM_H_
#define KARP_SRC_SCHEDULING_NODE_CLAIM_H_

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "scheduling/pod_data.h"
#include "scheduling/scheduler_internal.h"

namespace karp::scheduling {

struct ClaimState {
  const Template* claim_template = nullptr;
  std::string hostname;
  Requirements requirements;
  std::vector<int> types;  // indexes into claim_template->instance_types, ascending
  // `types` as a bit set over the template's types (Template::words words), or empty when not
  // built yet: the filter then keeps and drops types by words (FastFilter's candidate_bits).
  std::vector<uint64_t> type_bits;
  ResourceList requests;
  std::vector<ContainerPort> ports;  // host ports of the pods placed here
  std::vector<std::string> pods;
  bool min_values_relaxed = false;
  int64_t seq = 0;
  std::string pinned_zone;  // the zone when the requirements allow exactly one, else ""
  int pinned_zone_id = -1;  // Solver::ZoneId(pinned_zone), -1 when unpinned
  int index_bucket = -1;    // Solver::claim_index_by_taints_ bucket holding it (-1: none yet)
  // Per-resource maximum of the headroom (allocatable minus daemon overhead) of the types in
  // `types`, or more (exact on the well-known resources when `types` shrinks, an upper bound on
  // others; see KeepsMax): a pod whose requests plus `requests` exceed it on any resource fits
  // none of them, so first fit can skip the claim without running the filter (same decision,
  // less work).
  ResourceList max_allocatable;
  bool max_allocatable_valid = false;  // false: not computed yet
  // Per well-known resource (cpu, memory, ephemeral-storage, pods), how many types of `types`
  // attain max_allocatable's value (counted when a dropped type first ties the maximum): a
  // maximum stays exact while some type still attains it, so ties need no recomputation over
  // every type. The maxima of other resources are left as upper bounds (see Attains).
  std::array<int64_t, 4> max_attainers{};
  bool max_attainers_valid = false;
  std::set<std::string> reserved_ids;  // reservations this claim holds (docs/design.md §5.15)
  int taint_set = -1;  // Solver::taint_sets_ index of the template's taints (-1: look it up)
  // Cost mode (cost_packing.h): the index of the type the claim is packed toward (-1: none),
  // its allocatable less daemon overhead, and the capacity type (rank) the claim launches.
  int target = -1;
  ResourceList target_room;
  int capacity_rank = -1;
  double current_price = 0;  // what the claim would launch at now (claims with a target)
  int current_type = -1;     // and as which type
};

// A pod fits a claim (Solver::CanAddClaim): what committing it changes.
struct ClaimFit {
  std::optional<Requirements> requirements;  // the narrowed requirements; none when unchanged
  std::vector<int> instance_types;           // the claim's remaining types
  // The claim's types that instance_types left out, when `dropped_known` (the types came
  // straight from FastFilter over the claim's list): then CommitClaim checks only these
  // against the claim's largest headroom.
  std::vector<int> dropped;
  bool dropped_known = false;
  // instance_types as a bit set when the filter produced it from the claim's bits (else
  // empty): the claim's type_bits after the commit.
  std::vector<uint64_t> instance_bits;
  // Every type of the claim stays (the filter wrote no list): instance_types is empty and
  // the remaining types are the claim's own, `claim.types`.
  bool all_kept = false;
  // The claim's remaining types.
  const std::vector<int>& types(const ClaimState& claim) const {
    return all_kept ? claim.types : instance_types;
  }
  bool relaxed_min_values = false;     // minValues lowered (BestEffort)
  std::set<std::string> reservations;  // reservations the claim holds after the pod
};

// False when `pod` certainly fits none of `claim`'s instance types: its requests plus the
// claim's exceed the largest allocatable of some resource (daemon overhead only adds).
bool MayFit(const ClaimState& claim, const PodData& pod);

// The four well-known resources of `v` (absent as 0): cpu, memory, ephemeral-storage, pods.
inline std::array<int64_t, 4> WellKnown(const ResourceList& v) {
  return {v.cpu(), v.memory(), v.ephemeral_storage(), v.pods()};
}

// Whether a type's value `x` may attain the claim's maximum `m` of a resource. Only the
// well-known resources are followed, and a maximum of 0 or less is left as it is: the other
// maxima stay as they were when a type attaining them drops, so the claim's maximum is exact on
// the well-known resources and an upper bound on the others, which is all its uses (pre-filters
// of the exact check: MayFit, the first-fit index's room) need.
inline bool Attains(int64_t x, int64_t m) { return m > 0 && x >= m; }

// Whether `v` is strictly below `max` on each followed resource (false also when it ties: a
// dropped type that ties a maximum may have been the one attaining it).
inline bool BelowMax(const ResourceList& v, const ResourceList& max) {
  const std::array<int64_t, 4> x = WellKnown(v);
  const std::array<int64_t, 4> m = WellKnown(max);
  for (size_t k = 0; k < 4; ++k) {
    if (Attains(x[k], m[k])) return false;
  }
  return true;
}

// True when `max` (the per-resource maximum of `value(i)` over the types `i` of `before`) is
// still the maximum over `after`, a subsequence of `before`: every type `after` drops is
// strictly below `max` on each of its resources, so none of them attained a maximum. The
// dropped types are mostly the small ones (a claim's growing requests filter them out), so the
// maximum rarely needs a recomputation over every remaining type. False (recompute) when
// `after` is not a subsequence of `before`.
template <typename ValueOf>
bool KeepsMax(const std::vector<int>& before, const std::vector<int>& after, ValueOf value,
              const ResourceList& max) {
  if (after.size() == before.size()) return after == before;
  size_t a = 0;
  for (int i : before) {
    if (a < after.size() && after[a] == i) {
      ++a;
      continue;
    }
    if (!BelowMax(value(i), max)) return false;
  }
  return a == after.size();
}

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_NODE_CLAIM_H_
