// The cost packing mode (docs/design.md §13): the rules a Solver follows when
// SchedulerOptions::packing is kCost, and the driver that builds several such packings beside
// the faithful one and keeps the cheapest that gives up nothing the faithful one achieves.
//
// A cost-mode Solver differs from the faithful one only in which claims a pod is offered and
// in the queue order; every check of a pod against a node or claim (taints, requirements,
// resources with daemon overhead, limits, topology, affinity, host ports, minValues, volumes,
// reservations) is the same code, and finalization launches each claim as its cheapest
// fitting type:
//  - a new claim is packed toward a target instance type: of the claim's candidate types, the
//    one that buys the strategy's demand (the pod's demand class, below, or the pod itself)
//    most cheaply per unit; a pod joins a claim only while the target still holds it;
//  - a pod is offered only the claims launching the capacity type it would launch alone
//    (spot-tolerant pods never ride on on-demand claims, and an on-demand pod never turns a
//    spot claim into an on-demand one), by target room left (best fit decreasing), and of the
//    first few that take it the one whose launch price rises least;
//  - some strategies place pods that need a node of their own (hostname anti-affinity) first,
//    and one plans small groups exactly (exact_packing.h).
//
// Demand classes: pods whose first eligible NodePool, capacity type and requirements are the
// same. The class's summed requests are the mix a target is chosen for: a class of
// memory-heavy pods targets memory-optimised types, a class of 1-GPU pods a 1-GPU type.

#ifndef KARP_SRC_SCHEDULING_COST_PACKING_H_
#define KARP_SRC_SCHEDULING_COST_PACKING_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "karp/labels.h"
#include "karp/scheduler.h"
#include "scheduling/solver.h"

namespace karp::scheduling {

// Capacity types in launch preference order: a claim allowing several launches the first.
inline constexpr int kRankReserved = 0;
inline constexpr int kRankSpot = 1;
inline constexpr int kRankOnDemand = 2;
inline constexpr int kNoRank = 3;
// The capacity type of each rank (indexed by rank, kNoRank excluded).
inline constexpr std::string_view kRankNames[] = {kCapacityTypeReserved, kCapacityTypeSpot,
                                                  kCapacityTypeOnDemand};

// What a claim's target is chosen for.
enum class TargetDemand {
  kClass,         // the summed requests of the opening pod's demand class
  kClassNoSlots,  // the same without the "pods" resource (slots rarely bind on large types)
  kPod,           // the opening pod's own requests
};

// One candidate packing's parameters.
struct CostStrategy {
  TargetDemand demand = TargetDemand::kClass;
  // Types whose cost per unit of demand is within this fraction of the best are equally
  // good; among them the largest (prefer_large) or the smallest is the target.
  double tolerance = 0.02;
  bool prefer_large = true;
  // Small groups are packed exactly first (exact_packing.h).
  bool exact_small_groups = false;
  // Pods with required hostname anti-affinity (each needs a node of its own) are placed
  // first, so the claims they force exist before the other pods are packed into them.
  bool exclusive_first = false;
  // The pods are first planned onto whole nodes near the assignment LP's solution
  // (quality::LpPlanGroups; one catalog only), replayed like an exact plan.
  bool lp_plan = false;
};

// The cost mode's rules for one Solver. Its rules are immutable during a solve; it memoizes
// price tables, so one policy serves one Solver (one thread) at a time.
class CostPolicy {
 public:
  // Chooses each pod's PodData::demand_class, dearer_than_template, pool_order and cost_template
  // (set on a copy of `pods` by Apply), and sums the classes' demand. None of that depends on the
  // strategy: SolveCostMode builds one policy, and each attempt a copy (WithStrategy).
  CostPolicy(const scheduling::SchedulerState& state, const std::vector<PodData>& pods,
             CostStrategy strategy = {});

  // A copy of this policy with `strategy`.
  CostPolicy WithStrategy(const CostStrategy& strategy) const;
  // Sets on `pods` (the pods this policy was built from, in the same order) the fields the
  // constructor set. O(pods).
  void Apply(std::vector<PodData>& pods) const;

  // The cheapest capacity type (rank) a claim of template `t` with requirements `reqs` can
  // launch, kNoRank when none.
  int Rank(const Template& t, const Requirements& reqs) const;
  // For a claim about to be opened by `pod` with `fit`: chooses the claim's target type for
  // the strategy's demand and sets the claim's capacity rank. The claim keeps every type of
  // the fit (launch flexibility and NodePool limits as in the faithful mode); it never grows
  // past the target, so it launches as the target or a cheaper type.
  void ChooseTarget(ClaimState& claim, const ClaimFit& fit, const PodData& pod) const;
  const CostStrategy& strategy() const { return strategy_; }
  // The templates `pod` tries for a new claim, in order: by weight (PoolOrder::kWeight), or
  // those it can use by its best unit price, weights breaking ties, then the others by
  // weight (PoolOrder::kPrice).
  const std::vector<const Template*>& Order(const PodData& pod) const {
    return orders_[static_cast<size_t>(pod.pool_order)];
  }
  // The cheap admission checks of a pod into a claim (rank, and room left in the target).
  bool Admits(const ClaimState& claim, const PodData& pod) const;
  // The price a claim of template `t` with types `types` and requirements `reqs` launches at,
  // and (when `type` is set) the type index that launch uses (the lowest index among ties).
  double LaunchPrice(const Template& t, const std::vector<int>& types, const Requirements& reqs,
                     int* type = nullptr) const;

 private:
  size_t TemplateIndex(const Template& t) const;
  // PoolOrder::kPrice: sets `*order_id`, the pod's order (orders shared by pods with the
  // same usable templates, requirements and requests, through `ids`), and returns the first
  // usable template of the order (null: none).
  const Template* PriceOrder(const PodData& pod, std::map<std::string, int>& ids, int* order_id);
  // The least price per unit of `requests` over the types of `t` that hold them under
  // `reqs` (the template's requirements merged with them); infinity when none does.
  double BestUnitPrice(const Template& t, Requirements reqs, const ResourceList& requests,
                       const std::vector<ContainerPort>& ports) const;
  // Type `i`'s cheapest offering (`prices`, from TypePrices) per unit of `demand` in its
  // room; infinity when it has no such offering or no room for the demand.
  double UnitPrice(const Template& t, int i, const std::vector<double>& prices,
                   const ResourceList& demand) const;
  // Per type of `t`, the price of its cheapest available offering allowed by `mask`
  // (infinity: none); computed once per template and mask, then looked up.
  const std::vector<double>& TypePrices(const Template& t, const std::vector<char>& mask) const;
  // Per type of `t`, UnitPrice of `demand` with the offerings allowed by `mask`; computed
  // once per template, mask and demand (a claim's target is chosen from it), then looked up.
  const std::vector<double>& UnitPrices(const Template& t, const std::vector<char>& mask,
                                        const ResourceList& demand) const;
  // Allocatable less daemon overhead of each type of each template (by TemplateIndex).
  const ResourceList& Room(const Template& t, int type) const {
    return rooms_[TemplateIndex(t)][static_cast<size_t>(type)];
  }

  // The fields the constructor set on each pod (Apply).
  struct PodFields {
    int demand_class = -1;
    int pool_order = 0;
    const Template* cost_template = nullptr;
    bool dearer_than_template = false;
  };

  const scheduling::SchedulerState* state_;
  CostStrategy strategy_;
  std::vector<PodFields> pod_fields_;
  std::vector<ResourceList> class_demand_;
  std::vector<uint8_t> template_ranks_;  // per template: bit r set if it offers rank r
  std::vector<std::vector<ResourceList>> rooms_;
  std::vector<std::vector<const Template*>> orders_;  // [0]: every template by weight
  // TypePrices' memo, by template index and offering mask.
  mutable std::map<std::pair<size_t, std::vector<char>>, std::vector<double>> type_prices_;
  // UnitPrices' memo, by template index, offering mask and demand (exact quantities by name).
  mutable std::map<std::tuple<size_t, std::vector<char>, std::string>, std::vector<double>>
      unit_prices_;
};

// The claim search of a cost-mode Solver (Solver::PlaceOnClaimCost) walks, per (template,
// capacity rank), the claims with a target in the order of (cpu room left in the target,
// creation order), from the first with room for the pod's cpu, and counts toward its budgets
// (at most a few claims that take the pod, a few full checks) only the claims that pass
// CostPolicy::Admits and the cheap pre-checks. The claims sit in a FirstFitIndex keyed by
// (cpu room, seq) with their room left in cpu, memory and pod slots (CostClaimRoom), and the
// walk asks for the pod's cpu, memory and slots (CostClaimNeed). Why the answer is the same as
// the scan over every claim with room for the pod's cpu:
//  - the index returns exactly the claims whose cpu room covers the pod's cpu (the scan's
//    start), minus those whose memory or slot room is below a positive request of the pod,
//    in the same key order (ascending (cpu room, seq); the key's first part is room[0]);
//  - a claim left out is one Admits refuses on its first test (`used + want > room` for
//    memory or pods with `want > 0`, the same integers as `room - used < want`), and a refused
//    claim changes no counter, no best and no state: the scan would have passed over it;
//  - so the claims that reach the counters, their order, and therefore the winner, the
//    budget cut-offs and the early stop on a free fit are those of the scan.
// tests/scheduling/cost_claim_index_test.cc solves random snapshots both ways.
FirstFitIndex::Room CostClaimRoom(const ClaimState& claim);
// `memory_and_slots` false (SolverTuning::cost_claim_index, tests only): the cpu alone, the
// scan over every claim with room for the pod's cpu.
FirstFitIndex::Room CostClaimNeed(const PodData& pod, bool memory_and_slots);

// The first template (by weight) whose taints the pod tolerates and whose requirements its
// own are compatible with (where a new claim for it would most likely open); null when none.
const Template* FirstTemplate(const PoolsState& pools, const PodData& pod);

// Returns the pods' contexts exactly as the caller prepared the ones it gave SolveCostMode
// (same order, same contents); called once per solve after the first, from several threads.
using PreparePodsFn = std::function<std::vector<PodData>()>;

// Runs the faithful packing of `pods` and up to options.cost_attempts cost packings, and
// returns the cheapest acceptable one (PackingReport says which). Each solve owns its pods'
// contexts: the first takes `pods`, the others a fresh set from `prepare` (preparing costs
// about what a copy does, and no set is kept beside the ones being solved).
SolveResult SolveCostMode(const scheduling::SchedulerState& state, std::vector<PodData> pods,
                          const PreparePodsFn& prepare);

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_COST_PACKING_H_
