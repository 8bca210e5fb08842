// The first-fit solver of one Solve (docs/design.md §5): per-pod working data, the per-solve state
// of existing nodes and new NodeClaims, and the Solver that places pods in queue order
// (existing nodes, then this solve's claims, then a new claim per NodePool) with preference
// relaxation, and finalizes the claims into a SolveResult.

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
#include "scheduling/first_fit_index.h"
#include "scheduling/scheduler_internal.h"
#include "scheduling/topology.h"
#include "scheduling/volume_topology.h"

namespace karp::scheduling {

// Per-pod working data (karpenter PodData), recomputed after each relaxation.
struct PodCtx {
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
  bool pinned_dear = false;
};

// Recomputes the pod's requests, requirements and host ports from `working`; `full` is
// PodRequirements(working) when the caller has it (read under PreferencePolicy::kRespect only).
inline void Refresh(PodCtx& c, PreferencePolicy policy, Requirements full) {
  const Pod& w = c.working();
  c.requests = w.Requests();
  c.strict = StrictPodRequirements(w);
  c.requirements = policy == PreferencePolicy::kRespect ? std::move(full) : c.strict;
  c.ports = HostPorts(w);
}
inline void Refresh(PodCtx& c, PreferencePolicy policy) {
  Refresh(c, policy,
          policy == PreferencePolicy::kRespect ? PodRequirements(c.working()) : Requirements());
}

// One relaxation step (docs/design.md §5.7). Returns false when nothing could be relaxed.
bool Relax(Pod& pod, bool tolerate_prefer_no_schedule);

struct ExistingNodeState {
  const ExistingNodeInit* init = nullptr;
  std::optional<Requirements> narrowed;  // set once a pod narrowed the node's requirements
  ResourceList remaining;
  std::vector<ContainerPort> added_ports;  // host ports of pods placed by this solve
  std::vector<std::string> pods;
  // Claims in use once this solve placed a pod with volumes here (nodes with limits only).
  std::optional<VolumeUsage> volumes;

  const Requirements& requirements() const { return narrowed ? *narrowed : init->requirements; }
};

struct ClaimState {
  const Template* tmpl = nullptr;
  std::string hostname;
  Requirements requirements;
  std::vector<int> its;  // indexes into tmpl->instance_types, ascending
  // `its` as a bit set over the template's types (Template::words words), or empty when not
  // built yet: the filter then keeps and drops types by words (FastFilter's candidate_bits).
  std::vector<uint64_t> its_bits;
  ResourceList requests;
  std::vector<ContainerPort> ports;  // host ports of the pods placed here
  std::vector<std::string> pods;
  bool min_values_relaxed = false;
  int64_t seq = 0;
  std::string pinned_zone;  // the zone when the requirements allow exactly one, else ""
  int pinned_zone_id = -1;  // Solver::ZoneId(pinned_zone), -1 when unpinned
  int index_bucket = -1;    // Solver::claim_index_by_taints_ bucket holding it (-1: none yet)
  // Per-resource maximum of the headroom (allocatable minus daemon overhead) of the types in
  // `its`, or more (exact on the well-known resources when `its` shrinks, an upper bound on
  // others; see KeepsMax): a pod whose requests plus `requests` exceed it on any resource fits
  // none of them, so first fit can skip the claim without running the filter (same decision,
  // less work).
  ResourceList max_allocatable;
  bool max_allocatable_valid = false;  // false: not computed yet
  // Per well-known resource (cpu, memory, ephemeral-storage, pods), how many types of `its`
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
  // empty): the claim's its_bits after the commit.
  std::vector<uint64_t> instance_bits;
  // Every type of the claim stays (the filter wrote no list): instance_types is empty and
  // the remaining types are the claim's own, `claim.its`.
  bool all_kept = false;
  // The claim's remaining types.
  const std::vector<int>& types(const ClaimState& claim) const {
    return all_kept ? claim.its : instance_types;
  }
  bool relaxed_min_values = false;     // minValues lowered (BestEffort)
  std::set<std::string> reservations;  // reservations the claim holds after the pod
};

// Finalize's type lists shared by equivalent claims (finalize.cc).
struct PlanCache;
// The cost mode's rules (cost_packing.h).
class CostPolicy;

// A pod of a Solve, in input order: one of the solver's own contexts, or a context shared with
// the scheduler's PreparedPods (prepared_pods.h) that the solver copies when it first places
// the pod (a simulation that stops early never copies most pending pods).
struct PodInput {
  const PodCtx* shared = nullptr;  // null: the context is the solver's own
  size_t own = 0;                  // index into the solver's own contexts
  // Shared only: the pod's key is the key of a bound pod of the snapshot (Topology then must
  // not count that pod; keys of pending pods are otherwise never looked up).
  bool bound_key = false;
};

// How many blocked claims a first-fit walk skips before the hostname groups that blocked them
// get a free-claim index (Solver::FreeIndex): kFreeIndexMinBlocked unless a test set it.
// Decisions do not depend on it; tests set it low (1) or high to compare the two walks.
// Thread-safe.
inline constexpr int64_t kFreeIndexMinBlocked = 64;
int64_t FreeIndexMinBlocked();
void SetFreeIndexMinBlockedForTesting(int64_t n);

class Solver {
 public:
  // `cost` selects the cost mode's placement rules (null: faithful).
  Solver(const Scheduler::State& state, std::vector<PodCtx> pods,
         const Simulation* simulation = nullptr, const CostPolicy* cost = nullptr);
  // The pods `inputs` in that order: own contexts from `pods`, shared ones by pointer (the
  // shared contexts must outlive the solver).
  Solver(const Scheduler::State& state, std::vector<PodCtx>&& pods, std::vector<PodInput> inputs,
         const Simulation* simulation);

  // Places the pods in queue order (docs/design.md §5.5) and finalizes the result.
  SolveResult Run();
  // After Run: the pods placed with fewer preferences than they asked for (relaxed), by key.
  std::vector<std::string> RelaxedPods() const;
  // The pod's own copy of its working spec, to relax (copied on first change).
  static Pod& MutableWorking(PodCtx& pod);

 private:
  // Places one pod (no relaxation): existing nodes, this solve's claims, a new claim.
  absl::Status Add(PodCtx& pod);
  // Step 1: the first existing node or in-flight NodeClaim that takes the pod.
  bool PlaceOnExisting(PodCtx& pod);
  // Step 2: the first of this solve's claims (fewest pods first) that takes the pod.
  bool PlaceOnClaim(PodCtx& pod);
  // Step 3: a new claim from the first NodePool (by weight) that can take the pod; else the
  // joined reasons of every NodePool.
  absl::Status PlaceOnNewClaim(PodCtx& pod);
  // Step 2 in the cost mode: the admitted claim with the least cpu room that takes the pod.
  bool PlaceOnClaimCost(PodCtx& pod, const std::vector<Topology::HostnameCheck>& host_checks,
                        const std::vector<std::vector<int>>& zone_check_ids);
  // Step 2 in the cost mode for a pod of the exact plan: its node's claim, once opened.
  bool PlaceOnPlannedClaim(PodCtx& pod, const std::vector<Topology::HostnameCheck>& host_checks,
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
  void OpenClaim(std::unique_ptr<ClaimState> claim, PodCtx& pod, ClaimFit fit);

  absl::Status CanAddExisting(ExistingNodeState& node, PodCtx& pod, Requirements* out_reqs);
  // Records a pod CanAddExisting accepted (with its requirements `reqs`) on `node`.
  void CommitExisting(ExistingNodeState& node, PodCtx& pod, Requirements reqs);
  // Volume limits of an existing node (docs/design.md §5.13): OK or the reference's error.
  absl::Status ExistingVolumeUsage(const ExistingNodeState& node, const PodCtx& pod) const;
  // CanAddExisting's topology step on the node requirements `reqs` (pod and volume included).
  absl::Status AddExistingTopology(ExistingNodeState& node, PodCtx& pod, Requirements reqs,
                                   Requirements* out_reqs);
  // Whether `claim` can take `pod`, and what taking it changes.
  absl::StatusOr<ClaimFit> CanAddClaim(ClaimState& claim, PodCtx& pod, bool relax_min_values,
                                       bool explain);
  // CanAddClaim with one volume topology alternative (null: none).
  absl::StatusOr<ClaimFit> CanAddClaimWith(ClaimState& claim, PodCtx& pod,
                                           const Requirements* volume_reqs, bool relax_min_values,
                                           bool explain);
  // CanAddClaimWith's requirement step: merges the pod's, the volume alternative's and the
  // topology requirements into `*merged` (copied from the claim's only when something
  // narrows), noting the changed keys.
  absl::Status MergeClaimRequirements(const ClaimState& claim, PodCtx& pod,
                                      const Requirements* volume_reqs, bool explain,
                                      std::optional<Requirements>* merged,
                                      std::vector<std::string>* changed);
  // CanAddClaimWith's reservation step (docs/design.md §5.15): the reservations the claim can hold
  // with `kept` types, or the reserved-offering error.
  absl::Status Reservations(const ClaimState& claim, const std::vector<int>& kept,
                            const Requirements& reqs, std::set<std::string>* to_reserve) const;
  void CommitClaim(ClaimState& claim, PodCtx& pod, ClaimFit fit);
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
  const PodCtx& View(size_t i) const {
    const PodRef& r = refs_[i];
    return r.own != nullptr ? *r.own : *r.shared;
  }
  PodCtx& Own(size_t i);

  const Scheduler::State& state_;
  std::vector<PodCtx> pods_;
  // Every pod in input order: its own context (in pods_ or copied_) or a shared one.
  struct PodRef {
    const PodCtx* shared = nullptr;
    PodCtx* own = nullptr;
  };
  std::vector<PodRef> refs_;
  std::deque<PodCtx> copied_;  // shared contexts copied by Own (stable addresses)
  std::vector<Topology::RecordCache> label_caches_;  // by PodCtx::label_class
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
  // claim that takes it is the same. Added once a walk skipped kFreeIndexMinBlocked claims.
  struct FreeIndex {
    const TopologyGroup* group;
    FirstFitIndex index;
  };
  static constexpr size_t kMaxFreeIndexes = 32;
  std::vector<FreeIndex> free_indexes_;
  void IndexFreeClaim(const ClaimState& claim);
  const FirstFitIndex* FreeIndexFor(const std::vector<Topology::HostnameCheck>& host_checks) const;
  // Added once a walk skipped FreeIndexMinBlocked() blocked claims, for its groups blocking
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
