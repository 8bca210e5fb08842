// The first-fit solver of one Solve (docs/design.md §5): the Solver that places pods in queue
// order (existing nodes, then this solve's claims, then a new claim per NodePool) with
// preference relaxation, and finalizes the claims into a SolveResult. Its parts, one concept per
// file: the pod's working data (pod_data.h), existing nodes (existing_node.h/.cc), the claims it
// opens (node_claim.h/.cc), the walk over open claims (open_claims.cc), new claims
// (new_claim.cc), the queue (queue.cc), relaxation (preferences.h/.cc), finalize.cc.

#ifndef KARP_SRC_SCHEDULING_SOLVER_H_
#define KARP_SRC_SCHEDULING_SOLVER_H_

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/scheduler.h"
#include "scheduling/existing_node.h"
#include "scheduling/first_fit_index.h"
#include "scheduling/node_claim.h"
#include "scheduling/pod_data.h"
#include "scheduling/preferences.h"
#include "scheduling/scheduler_internal.h"
#include "scheduling/topology.h"
#include "scheduling/volume_topology.h"

namespace karp::scheduling {

// Reserved-offering errors (docs/design.md §5.15) are not relaxed and stop the NodePool fallback.
constexpr absl::StatusCode kReservedOfferingError = absl::StatusCode::kResourceExhausted;

// Finalize's type lists shared by equivalent claims (finalize.cc).
struct PlanCache;
// The cost mode's rules (cost_packing.h).
class CostPolicy;

// A pod of a Solve, in input order: one of the solver's own contexts, or a context shared with
// the scheduler's PreparedPods (prepared_pods.h) that the solver copies when it first places
// the pod (a simulation that stops early never copies most pending pods).
struct PodInput {
  const PodData* shared = nullptr;  // null: the context is the solver's own
  size_t own = 0;                   // index into the solver's own contexts
  // Shared only: the pod's key is the key of a bound pod of the snapshot (Topology then must
  // not count that pod; keys of pending pods are otherwise never looked up).
  bool bound_key = false;
};

class Solver {
 public:
  // `cost` selects the cost mode's placement rules (null: faithful).
  Solver(const scheduling::SchedulerState& state, std::vector<PodData> pods,
         const Simulation* simulation = nullptr, const CostPolicy* cost = nullptr);
  // The pods `inputs` in that order: own contexts from `pods`, shared ones by pointer (the
  // shared contexts must outlive the solver).
  Solver(const scheduling::SchedulerState& state, std::vector<PodData>&& pods,
         std::vector<PodInput> inputs, const Simulation* simulation);

  // Places the pods in queue order (docs/design.md §5.5) and finalizes the result.
  SolveResult Run();
  // After Run: the pods placed with fewer preferences than they asked for (relaxed), by key.
  std::vector<std::string> RelaxedPods() const;
  // The pod's own copy of its working spec, to relax (copied on first change).
  static Pod& MutableWorking(PodData& pod);

 private:
  // Places one pod (no relaxation): existing nodes, this solve's claims, a new claim.
  absl::Status Add(PodData& pod);
  // Step 1: the first existing node or in-flight NodeClaim that takes the pod.
  bool PlaceOnExisting(PodData& pod);
  // Step 2: the first of this solve's claims (fewest pods first) that takes the pod.
  bool PlaceOnClaim(PodData& pod);
  // Step 3: a new claim from the first NodePool (by weight) that can take the pod; else the
  // joined reasons of every NodePool.
  absl::Status PlaceOnNewClaim(PodData& pod);
  // Step 2 in the cost mode: the admitted claim with the least cpu room that takes the pod.
  bool PlaceOnClaimCost(PodData& pod, const std::vector<Topology::HostnameCheck>& host_checks,
                        const std::vector<std::vector<int>>& zone_check_ids);
  // Step 2 in the cost mode for a pod of the exact plan: its node's claim, once opened.
  bool PlaceOnPlannedClaim(PodData& pod, const std::vector<Topology::HostnameCheck>& host_checks,
                           const std::vector<std::vector<int>>& zone_check_ids);
  // Step 2's per-claim pre-check: a hostname or pinned-zone check rejects the claim.
  bool ClaimBlocked(const ClaimState& claim,
                    const std::vector<Topology::HostnameCheck>& host_checks,
                    const std::vector<std::vector<int>>& zone_check_ids) const;
  // Cost mode: files `claim` under its (template, rank) by the room left in its target.
  void IndexOpenClaim(const ClaimState& claim, bool insert);
  // Step 2's pre-checks: true if a hostname or pinned-zone check rejects every claim.
  bool AllClaimsBlocked(const std::vector<Topology::HostnameCheck>& host_checks,
                        const std::vector<std::vector<std::string>>& zone_checks) const;
  // Step 3's candidate types of `t` within its NodePool's remaining limits (all types when the
  // pool has none): the types, or the reason the NodePool is skipped.
  std::vector<int> LimitedCandidates(const Template& t, std::string* skip_reason) const;
  // Step 3's commit: registers `claim` (which took `fit`) and subtracts its maximum capacity
  // from the NodePool's remaining limits.
  void OpenClaim(std::unique_ptr<ClaimState> claim, PodData& pod, ClaimFit fit);

  absl::Status CanAddExisting(ExistingNodeState& node, PodData& pod, Requirements* out_reqs);
  // Records a pod CanAddExisting accepted (with its requirements `reqs`) on `node`.
  void CommitExisting(ExistingNodeState& node, PodData& pod, Requirements reqs);
  // Volume limits of an existing node (docs/design.md §5.13): OK or the reference's error.
  absl::Status ExistingVolumeUsage(const ExistingNodeState& node, const PodData& pod) const;
  // CanAddExisting's topology step on the node requirements `reqs` (pod and volume included).
  absl::Status AddExistingTopology(ExistingNodeState& node, PodData& pod, Requirements reqs,
                                   Requirements* out_reqs);
  // Whether `claim` can take `pod`, and what taking it changes.
  absl::StatusOr<ClaimFit> CanAddClaim(ClaimState& claim, PodData& pod, bool relax_min_values,
                                       bool explain);
  // CanAddClaim with one volume topology alternative (null: none).
  absl::StatusOr<ClaimFit> CanAddClaimWith(ClaimState& claim, PodData& pod,
                                           const Requirements* volume_reqs, bool relax_min_values,
                                           bool explain);
  // CanAddClaimWith's requirement step: merges the pod's, the volume alternative's and the
  // topology requirements into `*merged` (copied from the claim's only when something
  // narrows), noting the changed keys.
  absl::Status MergeClaimRequirements(const ClaimState& claim, PodData& pod,
                                      const Requirements* volume_reqs, bool explain,
                                      std::optional<Requirements>* merged,
                                      std::vector<std::string>* changed);
  // CanAddClaimWith's reservation step (docs/design.md §5.15): the reservations the claim can hold
  // with `kept` types, or the reserved-offering error.
  absl::Status Reservations(const ClaimState& claim, const std::vector<int>& kept,
                            const Requirements& reqs, std::set<std::string>* to_reserve) const;
  void CommitClaim(ClaimState& claim, PodData& pod, ClaimFit fit);
  SolveResult Finalize(std::map<std::string, std::string> errors, bool timed_out);
  // Finalize's result for one claim, or nullopt when its pods fail minValues (into `errors`).
  // Moves the claim's pod list and requests into the result (Finalize is the claims' last use).
  std::optional<NewNodeClaim> FinalizeClaim(ClaimState& claim, PlanCache& plans,
                                            std::map<std::string, int>& per_pool_count,
                                            std::map<std::string, std::string>& errors) const;
  // Finalize's placements on existing nodes (by name), with the consolidation errors.
  std::vector<ExistingPlacement> ExistingPlacements(
      std::map<std::string, std::string>& errors) const;

  // The queue order of the pods (docs/design.md §5.5), by input index.
  std::vector<size_t> QueueOrder() const;
  bool QueueBefore(size_t a, size_t b) const;
  // The positions of `indices` in queue order (sorted by keys gathered once per pod).
  std::vector<uint32_t> QueuePermutation(const std::vector<size_t>& indices) const;
  // The queue order of the inputs `shared` (shared contexts), kept by PreparedPods.
  std::vector<size_t> SharedQueueOrder(const std::vector<size_t>& shared) const;
  // Input `i`'s context to read, and to change (a shared one is copied first).
  const PodData& View(size_t i) const {
    const PodRef& r = refs_[i];
    return r.own != nullptr ? *r.own : *r.shared;
  }
  PodData& Own(size_t i);

  const scheduling::SchedulerState& state_;
  std::vector<PodData> pods_;
  // Every pod in input order: its own context (in pods_ or copied_) or a shared one.
  struct PodRef {
    const PodData* shared = nullptr;
    PodData* own = nullptr;
  };
  std::vector<PodRef> refs_;
  std::deque<PodData> copied_;  // shared contexts copied by Own (stable addresses)
  std::vector<Topology::RecordCache> label_caches_;  // by PodData::label_class
  const Simulation* simulation_ = nullptr;
  // Keys of the pods it schedules (lookups only): views of the contexts' keys, which stay in
  // place while the Solver lives (refs_ points at them).
  absl::flat_hash_set<std::string_view> scheduling_;
  std::unique_ptr<Topology> topology_;
  std::map<std::string, ResourceList> remaining_limits_;
  // LimitedCandidates' last answer per template, and the largest capacity in it.
  struct LimitMemo {
    bool valid = false;
    std::vector<int> candidates;
    ResourceList max_capacity;
  };
  mutable std::map<const Template*, LimitMemo> limit_memo_;
  std::vector<ExistingNodeState> existing_;
  std::vector<std::unique_ptr<ClaimState>> claims_;
  // Type-list buffers handed back by CommitClaim (a claim's previous list, the dropped
  // types) and by failed fits, reused by the next FastFilter call: the filter allocates
  // nothing in the steady state.
  std::vector<int> spare_kept_;
  std::vector<int> spare_dropped_;
  std::vector<uint64_t> spare_bits_;
  // PlaceOnClaim's per-pod checks, kept between pods for their capacity.
  std::vector<Topology::HostnameCheck> scratch_host_checks_;
  std::vector<std::vector<std::string>> scratch_zone_checks_;
  std::vector<std::vector<int>> scratch_zone_ids_;
  std::vector<char> scratch_tolerated_;
  // Hands the spare type-list buffers to `fit` (for FastFilter to fill), and gives `fit`'s
  // buffers back (after CommitClaim swapped the claim's old list in, or after a refusal).
  void TakeBuffers(ClaimFit& fit);
  void Recycle(ClaimFit& fit);
  // First-fit pre-filters on free cpu, memory and pod slots (first_fit_index.h): existing_
  // by index (rank 0); claims by seq ranked by pod count (first fit's order: fewest pods
  // first, then creation order), one index per taint set below.
  FirstFitIndex existing_index_;
  void IndexExisting(size_t i);
  void IndexClaim(ClaimState& claim);
  static FirstFitIndex::Room RoomOf(const ClaimState& claim);
  // Faithful mode: hostname groups that block many claims (anti-affinity, or spread that a pod
  // may join only where the group counts none), each with an index of the claims where it
  // counts no pod, kept in first-fit order as claim_index_by_taints_. A pod that such a group
  // limits to 0 walks that index instead of skipping the blocked claims one by one; the first
  // claim that takes it is the same. Added once a walk skipped
  // SolverTuning::free_index_min_blocked claims.
  struct FreeIndex {
    const TopologyGroup* group;
    FirstFitIndex index;
  };
  static constexpr size_t kMaxFreeIndexes = 32;
  std::vector<FreeIndex> free_indexes_;
  void IndexFreeClaim(const ClaimState& claim);
  const FirstFitIndex* FreeIndexFor(const std::vector<Topology::HostnameCheck>& host_checks) const;
  // Added once a walk skipped tuning.free_index_min_blocked blocked claims, for its groups blocking
  // that many claims.
  void AddFreeIndexes(const std::vector<Topology::HostnameCheck>& host_checks);
  // The claims again, one index per distinct taint set of the templates (a pod that does not
  // tolerate a set fails every claim of it first thing) and zone the claim is pinned to (a
  // pod whose zonal groups exclude that zone is blocked there): step 2 merges the indexes of
  // the sets the pod tolerates and the zones it may use, in first-fit order.
  std::vector<const std::vector<Taint>*> taint_sets_;
  // Per taint set, per pinned zone (bucket ZoneId + 1; bucket 0: claims not pinned to a zone).
  std::vector<std::vector<FirstFitIndex>> claim_index_by_taints_;
  // The claim's taint set (ClaimState::taint_set when known), added when new.
  size_t TaintSetOf(const ClaimState& claim);
  // The claims with room for `need` in first-fit order, over the indexes of the `tolerated`
  // taint sets and of the zones every list of `zone_check_ids` allows (plus unpinned claims):
  // a merge of one FirstFitIndex::Cursor per index. Claim changes invalidate it.
  class ClaimCursor {
   public:
    ClaimCursor(const Solver& solver, const std::vector<char>& tolerated,
                const std::vector<std::vector<int>>& zone_check_ids,
                const FirstFitIndex::Room& need);
    int64_t id() const {  // the claim's seq; -1 past the last
      return best_ < 0 ? -1 : cursors_[static_cast<size_t>(best_)].id();
    }
    void Advance();

   private:
    void Pick();
    absl::InlinedVector<FirstFitIndex::Cursor, 2> cursors_;
    int64_t best_ = -1;  // index into cursors_
  };
  std::map<std::string, int64_t> pinned_claims_;  // zone -> claims pinned to it ("" = unpinned)
  // Small integer ids of zones that pin claims, so the first-fit loop compares ints.
  absl::flat_hash_map<std::string, int> zone_ids_;
  int ZoneId(const std::string& zone) {
    return zone_ids_.emplace(zone, static_cast<int>(zone_ids_.size())).first->second;
  }
  std::map<std::string, int64_t> reservation_capacity_;  // reservation id -> instances left
  int64_t next_seq_ = 0;
  // Cost mode: the rules, and the claims with a target by (template, capacity rank) — looked
  // up, never iterated — each ordered by (cpu room left in the target, creation order) with
  // the room left in cpu, memory and pod slots (CostClaimRoom).
  const CostPolicy* cost_ = nullptr;
  std::map<std::pair<const Template*, int>, FirstFitIndex> open_claims_;
  std::map<int, int64_t> group_claims_;  // exact plan node -> the claim opened for it
  // Claims opened from a NodePool without minValues (never dropped by Finalize), for
  // Simulation::stop_at_new_claims.
  int certain_claims_ = 0;
};

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_SOLVER_H_
