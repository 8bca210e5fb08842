// The cost packing mode (cost_packing.h, docs/design.md §13).

#include "scheduling/cost_packing.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "karp/labels.h"
#include "karp/resources.h"
#include "quality/lower_bound_internal.h"
#include "scheduling/exact_packing.h"
#include "scheduling/instance_filter.h"

namespace karp::scheduling {
namespace {

constexpr double kNoPriceYet = std::numeric_limits<double>::infinity();

int RankOf(std::string_view capacity_type) {
  if (capacity_type == kCapacityTypeReserved) return kRankReserved;
  if (capacity_type == kCapacityTypeSpot) return kRankSpot;
  if (capacity_type == kCapacityTypeOnDemand) return kRankOnDemand;
  return kNoRank;
}

// The capacity types template `t` can launch: offered by some type and allowed by the
// template's own requirements, as a bit per rank.
uint8_t TemplateRanks(const Template& t) {
  const Requirement* allowed = t.requirements.Find(kLabelCapacityType);
  uint8_t bits = 0;
  for (const auto& [zone, capacity_type] : t.offering_keys) {
    const int rank = RankOf(capacity_type);
    if (rank == kNoRank || (allowed != nullptr && !allowed->Has(capacity_type))) continue;
    bits = static_cast<uint8_t>(bits | (1u << rank));
  }
  return bits;
}

// The cheapest available offering of type `i` of `t` allowed by `mask`.
double CheapestOffering(const Template& t, size_t i, const std::vector<char>& mask) {
  const InstanceType* it = t.instance_types[i];
  const std::vector<int>& keys = t.offering_key_of[i];
  double best = kNoPriceYet;
  for (size_t o = 0; o < keys.size(); ++o) {
    const Offering& off = it->offerings[o];
    if (off.available && mask[static_cast<size_t>(keys[o])]) best = std::min(best, off.price);
  }
  return best;
}

// How many times `demand` fits in `room` (fractionally, over the resources `demand` uses);
// 0 when `room` lacks one of them.
double Units(const ResourceList& demand, const ResourceList& room) {
  double units = std::numeric_limits<double>::infinity();
  demand.ForEach([&](std::string_view name, int64_t want) {
    if (want <= 0) return;
    const int64_t have = room.Get(name);
    units =
        std::min(units, have <= 0 ? 0.0 : static_cast<double>(have) / static_cast<double>(want));
  });
  return std::isinf(units) ? 0.0 : units;
}

// A candidate target: type index, price per unit and room.
struct Candidate {
  int index = -1;
  double score = kNoPriceYet;  // price per unit of class demand
  const ResourceList* room = nullptr;
};

// Among candidates within `tolerance` of the best score, the largest or smallest by cpu,
// then memory, then index.
const Candidate* PickTarget(const std::vector<Candidate>& candidates, const CostStrategy& s) {
  double best = kNoPriceYet;
  for (const Candidate& c : candidates) best = std::min(best, c.score);
  const Candidate* pick = nullptr;
  for (const Candidate& c : candidates) {
    if (c.score > best * (1 + s.tolerance)) continue;
    if (pick == nullptr) {
      pick = &c;
      continue;
    }
    const auto size = [](const Candidate& x) {
      return std::make_pair(x.room->cpu(), x.room->memory());
    };
    if (s.prefer_large ? size(c) > size(*pick) : size(c) < size(*pick)) pick = &c;
  }
  return pick;
}

}  // namespace

FirstFitIndex::Room CostClaimRoom(const ClaimState& claim) {
  const ResourceList& room = claim.target_room;
  const ResourceList& used = claim.requests;
  return {room.cpu() - used.cpu(), room.memory() - used.memory(), room.pods() - used.pods()};
}

FirstFitIndex::Room CostClaimNeed(const PodData& pod, bool memory_and_slots) {
  const ResourceList& want = pod.requests;
  // Admits refuses memory and slots only for positive requests; the cpu is the scan's start.
  auto need = [](int64_t v) { return v > 0 ? v : FirstFitIndex::kAny; };
  if (!memory_and_slots) {
    return {want.cpu(), FirstFitIndex::kAny, FirstFitIndex::kAny};
  }
  return {want.cpu(), need(want.memory()), need(want.pods())};
}

const Template* FirstTemplate(const PoolsState& pools, const PodData& pod) {
  for (const Template& t : pools.templates) {
    if (!ToleratesAll(t.taints, pod.working().tolerations)) continue;
    if (!t.requirements.IsCompatible(pod.requirements, &pools.well_known)) continue;
    return &t;
  }
  return nullptr;
}

CostPolicy::CostPolicy(const scheduling::SchedulerState& state, const std::vector<PodData>& pods,
                       CostStrategy strategy)
    : state_(&state), strategy_(strategy) {
  const PoolsState& pools = *state_->pools;
  for (const Template& t : pools.templates) {
    template_ranks_.push_back(TemplateRanks(t));
    std::vector<ResourceList>& rooms = rooms_.emplace_back();
    rooms.reserve(t.instance_types.size());
    for (size_t i = 0; i < t.instance_types.size(); ++i) {
      rooms.push_back(t.allocatable[i]);
      rooms.back().Subtract(t.daemon_groups[static_cast<size_t>(t.daemon_group[i])].overhead);
    }
  }
  orders_.emplace_back();
  for (const Template& t : pools.templates) orders_[0].push_back(&t);
  const bool by_price = state_->options.cost_pool_order == PoolOrder::kPrice;
  std::map<std::string, int> order_ids;
  std::map<std::string, int> class_ids;
  std::map<std::string, bool> dear;  // by demand class and requests
  pod_fields_.reserve(pods.size());
  for (const PodData& pod : pods) {
    PodFields& f = pod_fields_.emplace_back();
    const Template* t =
        by_price ? PriceOrder(pod, order_ids, &f.pool_order) : FirstTemplate(pools, pod);
    f.cost_template = t;
    if (t == nullptr) continue;
    std::string key = std::to_string(TemplateIndex(*t));
    key += '/';
    key += std::to_string(Rank(*t, pod.requirements));
    key += '/';
    key += pod.requirements.ToString();
    auto [pos, inserted] = class_ids.emplace(std::move(key), static_cast<int>(class_ids.size()));
    if (inserted) class_demand_.emplace_back();
    f.demand_class = pos->second;
    class_demand_[static_cast<size_t>(pos->second)].Add(pod.requests);
    // Pinned pods whose own requirements cost them more than 5% per unit over what the
    // template offers go last: placed first, their claims would grow as their dear types to
    // hold other pods that cheaper types would take.
    const std::string dear_key = std::to_string(f.demand_class) + pod.requests.ToString();
    auto d = dear.find(dear_key);
    if (d == dear.end()) {
      const double own = BestUnitPrice(*t, pod.requirements, pod.requests, pod.ports);
      const double free = BestUnitPrice(*t, Requirements(), pod.requests, pod.ports);
      d = dear.emplace(dear_key, own > free * 1.05).first;
    }
    f.dearer_than_template = d->second;
  }
}

CostPolicy CostPolicy::WithStrategy(const CostStrategy& strategy) const {
  CostPolicy copy = *this;
  copy.strategy_ = strategy;
  return copy;
}

void CostPolicy::Apply(std::vector<PodData>& pods) const {
  for (size_t i = 0; i < pods.size() && i < pod_fields_.size(); ++i) {
    const PodFields& f = pod_fields_[i];
    pods[i].demand_class = f.demand_class;
    pods[i].pool_order = f.pool_order;
    pods[i].cost_template = f.cost_template;
    pods[i].dearer_than_template = f.dearer_than_template;
  }
}

const Template* CostPolicy::PriceOrder(const PodData& pod, std::map<std::string, int>& ids,
                                       int* order_id) {
  const PoolsState& pools = *state_->pools;
  std::string key;
  for (const Template& t : pools.templates) {
    const bool usable = ToleratesAll(t.taints, pod.working().tolerations) &&
                        t.requirements.IsCompatible(pod.requirements, &pools.well_known);
    key += usable ? '1' : '0';
  }
  key += pod.requirements.ToString();
  key += '|';
  key += pod.requests.ToString();
  auto [pos, inserted] = ids.emplace(key, static_cast<int>(orders_.size()));
  *order_id = pos->second;
  if (inserted) {
    // (unit price, weight position) of the usable templates; the others keep weight order.
    std::vector<std::pair<double, size_t>> usable;
    std::vector<const Template*> order;
    for (size_t i = 0; i < pools.templates.size(); ++i) {
      const Template& t = pools.templates[i];
      if (key[i] == '1') {
        usable.push_back({BestUnitPrice(t, pod.requirements, pod.requests, pod.ports), i});
      }
    }
    std::sort(usable.begin(), usable.end());
    for (const auto& [price, i] : usable) order.push_back(&pools.templates[i]);
    for (size_t i = 0; i < pools.templates.size(); ++i) {
      if (key[i] == '0') order.push_back(&pools.templates[i]);
    }
    orders_.push_back(std::move(order));
  }
  const std::vector<const Template*>& order = orders_[static_cast<size_t>(pos->second)];
  return !order.empty() && key[TemplateIndex(*order[0])] == '1' ? order[0] : nullptr;
}

size_t CostPolicy::TemplateIndex(const Template& t) const {
  return static_cast<size_t>(&t - state_->pools->templates.data());
}

int CostPolicy::Rank(const Template& t, const Requirements& reqs) const {
  const uint8_t bits = template_ranks_[TemplateIndex(t)];
  const Requirement* allowed = reqs.Find(kLabelCapacityType);
  for (int rank = kRankReserved; rank < kNoRank; ++rank) {
    if ((bits & (1u << rank)) == 0) continue;
    if (allowed == nullptr || allowed->Has(kRankNames[rank])) return rank;
  }
  return kNoRank;
}

void CostPolicy::ChooseTarget(ClaimState& claim, const ClaimFit& fit, const PodData& pod) const {
  const Template& t = *claim.claim_template;
  const Requirements& reqs = fit.requirements ? *fit.requirements : claim.requirements;
  ResourceList demand = pod.requests;
  if (strategy_.demand != TargetDemand::kPod && pod.demand_class >= 0) {
    demand = class_demand_[static_cast<size_t>(pod.demand_class)];
  }
  if (strategy_.demand != TargetDemand::kClass) demand.Erase(kResourcePods);
  const std::vector<double>& scores = UnitPrices(t, t.OfferingMask(reqs), demand);
  std::vector<Candidate> candidates;
  candidates.reserve(fit.types(claim).size());
  for (int i : fit.types(claim)) {
    Candidate c;
    c.index = i;
    c.room = &Room(t, i);
    c.score = scores[static_cast<size_t>(i)];
    if (c.score != kNoPriceYet) candidates.push_back(c);
  }
  claim.capacity_rank = Rank(t, reqs);
  const Candidate* pick = PickTarget(candidates, strategy_);
  if (pick == nullptr) return;  // no priced candidate: the claim packs as the faithful mode
  claim.target = pick->index;
  claim.target_room = *pick->room;
}

double CostPolicy::LaunchPrice(const Template& t, const std::vector<int>& types,
                               const Requirements& reqs, int* type) const {
  const std::vector<double>& prices = TypePrices(t, t.OfferingMask(reqs));
  double best = kNoPriceYet;
  for (int i : types) {
    const double price = prices[static_cast<size_t>(i)];
    if (price < best) {
      best = price;
      if (type != nullptr) *type = i;
    }
  }
  return best;
}

double CostPolicy::BestUnitPrice(const Template& t, Requirements reqs, const ResourceList& requests,
                                 const std::vector<ContainerPort>& ports) const {
  reqs.Add(t.requirements);
  std::vector<int> all(t.instance_types.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  const FilterOutcome kept =
      FilterInstanceTypes(t, all, reqs, requests, ports, {}, /*relax_min_values=*/true);
  const std::vector<double>& prices = TypePrices(t, t.OfferingMask(reqs));
  double best = kNoPriceYet;
  for (int i : kept.kept) best = std::min(best, UnitPrice(t, i, prices, requests));
  return best;
}

double CostPolicy::UnitPrice(const Template& t, int i, const std::vector<double>& prices,
                             const ResourceList& demand) const {
  const double cheapest = prices[static_cast<size_t>(i)];
  const double units = Units(demand, Room(t, i));
  return units <= 0 || cheapest == kNoPriceYet ? kNoPriceYet : cheapest / units;
}

const std::vector<double>& CostPolicy::UnitPrices(const Template& t, const std::vector<char>& mask,
                                                  const ResourceList& demand) const {
  // The demand's exact quantities, in name order.
  std::string key;
  demand.ForEach([&](std::string_view name, int64_t value) {
    key.append(name);
    key += '=';
    key += std::to_string(value);
    key += ';';
  });
  auto [pos, inserted] = unit_prices_.try_emplace({TemplateIndex(t), mask, std::move(key)});
  if (inserted) {
    const std::vector<double>& prices = TypePrices(t, mask);
    pos->second.resize(t.instance_types.size());
    for (size_t i = 0; i < t.instance_types.size(); ++i) {
      pos->second[i] = UnitPrice(t, static_cast<int>(i), prices, demand);
    }
  }
  return pos->second;
}

const std::vector<double>& CostPolicy::TypePrices(const Template& t,
                                                  const std::vector<char>& mask) const {
  auto [pos, inserted] = type_prices_.try_emplace({TemplateIndex(t), mask});
  if (inserted) {
    pos->second.resize(t.instance_types.size());
    for (size_t i = 0; i < t.instance_types.size(); ++i) {
      pos->second[i] = CheapestOffering(t, i, mask);
    }
  }
  return pos->second;
}

bool CostPolicy::Admits(const ClaimState& claim, const PodData& pod) const {
  if (claim.target < 0) return false;
  // Memory and pod slots first, without a lookup by name: most refusals are one of them.
  const ResourceList& room = claim.target_room;
  const ResourceList& used = claim.requests;
  const ResourceList& want = pod.requests;
  if ((want.memory() > 0 && used.memory() + want.memory() > room.memory()) ||
      (want.pods() > 0 && used.pods() + want.pods() > room.pods())) {
    return false;
  }
  bool fits = true;
  pod.requests.ForEach([&](std::string_view name, int64_t value) {
    if (fits && value > 0 && claim.requests.Get(name) + value > claim.target_room.Get(name)) {
      fits = false;
    }
  });
  return fits;
}

namespace {

// The strategies tried in order; the budget takes a prefix. Ordered by how often each gave
// the cheapest packing on the benchmark workloads (docs/design.md §13.2).
const std::vector<CostStrategy>& Strategies() {
  using D = TargetDemand;
  static const std::vector<CostStrategy> kStrategies = {
      {D::kPod, 0.02, false, false, true}, {D::kPod, 0.02, false, false, true, true},
      {D::kPod, 0.0, false, false, true},  {D::kClass, 0.02, true, true, false},
      {D::kPod, 0.02, true, false, false}, {D::kClassNoSlots, 0.05, false, false, true},
      {D::kPod, 0.05, false, false, true}, {D::kClassNoSlots, 0.02, true, false, true},
      {D::kPod, 0.10, false, false, true}, {D::kClass, 0.02, false, false, false},
  };
  return kStrategies;
}

// What the faithful packing achieved: a candidate must match it.
struct Baseline {
  int scheduled = 0;
  double price = 0;
  std::vector<std::string> relaxed;  // sorted
};

// The pods' contexts for each solve, so that no set is kept beside the ones being solved: the
// caller's set for the first solve, then sets handed back unused (a re-pack plan that gained
// nothing), else a fresh set from PreparePodsFn (the same contexts). Thread-safe.
class PodSource {
 public:
  PodSource(std::vector<PodData> first, const PreparePodsFn& prepare)
      : size_(first.size()), prepare_(prepare) {
    unused_.push_back(std::move(first));
  }
  size_t size() const { return size_; }
  // The caller's set, before any Take (the shared CostPolicy is built from it): no thread has
  // started, so no lock.
  const std::vector<PodData>& first() const ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return unused_.front();
  }
  std::vector<PodData> Take() {
    {
      absl::MutexLock lock(&mu_);
      if (!unused_.empty()) {
        std::vector<PodData> pods = std::move(unused_.back());
        unused_.pop_back();
        return pods;
      }
    }
    return prepare_();
  }
  // A set no solver ran on, with only plan_group changed (reset here, as prepared).
  void Return(std::vector<PodData> pods) {
    for (PodData& p : pods) p.plan_group = -1;
    absl::MutexLock lock(&mu_);
    unused_.push_back(std::move(pods));
  }

 private:
  const size_t size_;
  const PreparePodsFn& prepare_;
  absl::Mutex mu_;
  std::vector<std::vector<PodData>> unused_ ABSL_GUARDED_BY(mu_);
};

// Runs the faithful packing and keeps what a candidate must match. Its result is not kept: it
// is needed only when no candidate is accepted, and then built again (the same result).
Baseline FaithfulBaseline(const scheduling::SchedulerState& state, PodSource& source) {
  Solver solver(state, source.Take());
  const SolveResult result = solver.Run();
  Baseline b;
  b.scheduled = static_cast<int>(source.size()) - static_cast<int>(result.pod_errors.size());
  b.price = result.LaunchPricePerHour();
  b.relaxed = solver.RelaxedPods();
  return b;
}

// Sets plan_group from quality::LpPlanGroups when every template draws from one catalog
// (the LP's kinds come from it); otherwise, or when the LP fails, the pods stay unplanned.
void PlanFromLp(const scheduling::SchedulerState& state, std::vector<PodData>& pods) {
  const InstanceCatalog* catalog = nullptr;
  for (const Template& t : state.pools->templates) {
    if (catalog != nullptr && t.catalog.get() != catalog) return;
    catalog = t.catalog.get();
  }
  if (catalog == nullptr) return;
  std::vector<const Pod*> originals(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) originals[i] = pods[i].original;
  absl::StatusOr<std::vector<int>> groups =
      quality::LpPlanGroups(*state.snapshot, *catalog, originals);
  if (!groups.ok()) return;
  for (size_t i = 0; i < pods.size(); ++i) pods[i].plan_group = (*groups)[i];
}

// A finished candidate packing, before it is compared with the faithful one.
struct Packing {
  SolveResult result;
  int scheduled = 0;
  std::vector<std::string> relaxed;  // sorted
};

// One candidate packing. With `repack`, the packing replays `repack` with its small windows of
// claims packed exactly (PlanRepack); nullopt when that gains nothing, and then the pods'
// contexts go back to `source` unused (PlanRepack changes only plan_group).
std::optional<Packing> Build(const scheduling::SchedulerState& state, PodSource& source,
                             const CostPolicy& shared, const CostStrategy& strategy,
                             const SolveResult* repack = nullptr, int round = 0) {
  std::vector<PodData> copy = source.Take();
  // The re-pack plan needs nothing of the policy: when it gains nothing, no policy is built.
  if (repack != nullptr && PlanRepack(state, copy, *repack, ExactLimits{12, 20000}, round) <= 0) {
    source.Return(std::move(copy));
    return std::nullopt;
  }
  CostPolicy policy = shared.WithStrategy(strategy);
  policy.Apply(copy);
  if (repack == nullptr && strategy.exact_small_groups) PlanSmallGroups(state, copy, ExactLimits{});
  if (repack == nullptr && strategy.lp_plan) PlanFromLp(state, copy);
  Solver solver(state, std::move(copy), nullptr, &policy);
  Packing p;
  p.result = solver.Run();
  p.scheduled = static_cast<int>(source.size()) - static_cast<int>(p.result.pod_errors.size());
  p.relaxed = solver.RelaxedPods();
  return p;
}

// The candidate's result if it is acceptable: never fewer pods, never dearer, no preference
// dropped that the faithful packing kept.
std::optional<SolveResult> Accept(std::optional<Packing> p, const Baseline& baseline) {
  if (!p || p->scheduled < baseline.scheduled) return std::nullopt;
  if (p->result.LaunchPricePerHour() >= baseline.price * (1 - 1e-12)) return std::nullopt;
  if (!std::includes(baseline.relaxed.begin(), baseline.relaxed.end(), p->relaxed.begin(),
                     p->relaxed.end())) {
    return std::nullopt;
  }
  return std::move(p->result);
}

// The best accepted candidate: lowest price, then lowest attempt index (so the outcome does
// not depend on which thread ran what).
struct Best {
  std::optional<SolveResult> result;
  size_t index = 0;
  void Offer(std::optional<SolveResult> r, size_t k) {
    if (!r) return;
    if (result) {
      const double a = r->LaunchPricePerHour();
      const double b = result->LaunchPricePerHour();
      if (a > b || (a == b && k > index)) return;
    }
    result = std::move(r);
    index = k;
  }
};

// SchedulerOptions::cost_attempts, or when it is 0 (auto) as many strategies as
// kAutoPlacements pod placements allow (4 at most, 1 at least).
size_t AttemptBudget(const SchedulerOptions& options, size_t pods) {
  constexpr size_t kAutoPlacements = 40000;
  size_t n = static_cast<size_t>(options.cost_attempts);
  if (n == 0) n = std::clamp<size_t>(kAutoPlacements / std::max<size_t>(pods, 1), 1, 4);
  return std::min(Strategies().size(), n);
}

// Threads for `jobs` candidates: SchedulerOptions::cost_threads (0: one per hardware thread),
// at most one per candidate.
size_t Workers(const SchedulerOptions& options, size_t jobs) {
  size_t n = options.cost_threads > 0 ? static_cast<size_t>(options.cost_threads)
                                      : std::max(1u, std::thread::hardware_concurrency());
  return std::max<size_t>(1, std::min(n, jobs));
}

// The faithful packing and the candidates, as jobs for a few threads (at most one per
// candidate, so no more solves run at once than candidates alone would run). The faithful
// packing is usually the shortest job: with W >= 2 threads it is job W, after the first W
// candidates, so it runs beside the longest candidate rather than before every candidate (three
// jobs on two threads end at max(c1 + faithful, c2), not at faithful + c2); with one thread it is
// job 0, so that no finished candidate is held while it runs. A candidate that ends before the
// faithful packing is held, unjudged, until its baseline exists; threads never wait for it.
class CandidateSearch {
 public:
  CandidateSearch(const scheduling::SchedulerState& state, PodSource& pods, size_t budget)
      : state_(state), pods_(pods), budget_(budget) {}

  // Builds the faithful packing first when a deadline is set (the deadline counts from its
  // end, SchedulerOptions::cost_time_limit), else as one of the jobs. Then runs every job on
  // Workers() threads, the caller's included.
  void Run();
  // baseline() and best() after Run, when the threads are joined: no lock.
  const Baseline& baseline() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return *baseline_; }
  const CostPolicy& policy() const { return *policy_; }
  Best& best() ABSL_NO_THREAD_SAFETY_ANALYSIS { return best_; }
  int done() const { return done_; }
  bool stopped() const { return stopped_; }
  bool deadline_passed() const {
    return deadline_ != absl::InfiniteFuture() && absl::Now() > deadline_;
  }

 private:
  void Work();
  // Sets the baseline and judges the candidates that waited for it.
  void SetBaseline(Baseline b);
  // Judges candidate `index`'s packing, or holds it until the baseline exists.
  void Finish(size_t index, std::optional<Packing> p);

  const scheduling::SchedulerState& state_;
  PodSource& pods_;
  const size_t budget_;
  size_t faithful_job_ = 0;  // the job index of the faithful packing
  absl::Time deadline_ = absl::InfiniteFuture();
  std::optional<CostPolicy> policy_;  // set before the threads start
  std::atomic<size_t> next_{0};
  std::atomic<int> done_{0};
  std::atomic<bool> stopped_{false};
  absl::Mutex mu_;  // guards baseline_, pending_ and best_ while the jobs run
  std::optional<Baseline> baseline_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<size_t, Packing>> pending_ ABSL_GUARDED_BY(mu_);
  Best best_ ABSL_GUARDED_BY(mu_);
};

void CandidateSearch::Run() {
  const absl::Duration limit = state_.options.cost_time_limit;
  const size_t workers = Workers(state_.options, budget_);
  // What the candidates share: the pods' demand classes, template orders and price tables.
  policy_.emplace(state_, pods_.first());
  if (limit != absl::InfiniteDuration()) {
    SetBaseline(FaithfulBaseline(state_, pods_));
    deadline_ = absl::Now() + limit;
    next_ = 1;  // job 0, the faithful packing, is done
  } else if (workers >= 2) {
    faithful_job_ = workers;
  }
  std::vector<std::thread> threads;
  for (size_t w = 1; w < workers; ++w) threads.emplace_back([this] { Work(); });
  Work();
  for (std::thread& t : threads) t.join();
}

void CandidateSearch::Work() {
  for (size_t k = next_++; k <= budget_; k = next_++) {
    if (k == faithful_job_) {
      SetBaseline(FaithfulBaseline(state_, pods_));
      continue;
    }
    if (deadline_passed()) {
      stopped_ = true;
      return;
    }
    const size_t index = k < faithful_job_ ? k : k - 1;  // the candidate's strategy
    Finish(index, Build(state_, pods_, *policy_, Strategies()[index]));
  }
}

void CandidateSearch::SetBaseline(Baseline b) {
  absl::MutexLock lock(&mu_);
  baseline_ = std::move(b);
  for (auto& [index, p] : pending_) best_.Offer(Accept(std::move(p), *baseline_), index);
  pending_.clear();
}

void CandidateSearch::Finish(size_t index, std::optional<Packing> p) {
  ++done_;
  absl::MutexLock lock(&mu_);
  if (!p) return;
  if (baseline_) {
    best_.Offer(Accept(std::move(p), *baseline_), index);
  } else {
    pending_.emplace_back(index, std::move(*p));
  }
}

}  // namespace

SolveResult SolveCostMode(const scheduling::SchedulerState& state, std::vector<PodData> pods,
                          const PreparePodsFn& prepare) {
  const size_t budget = AttemptBudget(state.options, pods.size());
  PodSource source(std::move(pods), prepare);
  CandidateSearch search(state, source, budget);
  search.Run();
  const Baseline& baseline = search.baseline();
  Best& best = search.best();
  bool stopped = search.stopped();
  int done = search.done();
  // Local improvement of the best packing: small windows of its claims packed exactly and
  // the plan replayed, one round per window order (PlanRepack), under the strategy that
  // built it (for the pods its plan does not place).
  const size_t strategy = best.result ? best.index : 0;
  for (int round = 0; round < state.options.cost_repack_rounds && best.result && !stopped;
       ++round) {
    if (search.deadline_passed()) {
      stopped = true;
      break;
    }
    std::optional<SolveResult> improved =
        Accept(Build(state, source, search.policy(), Strategies()[strategy], &*best.result, round),
               baseline);
    if (improved) ++done;
    best.Offer(std::move(improved), budget + static_cast<size_t>(round));
  }

  PackingReport report;
  report.mode = PackingMode::kCost;
  report.faithful_price_per_hour = baseline.price;
  report.attempts = done;
  report.stopped_early = stopped;
  report.faithful_kept = !best.result;
  // No candidate accepted: the faithful packing again (its first result was not kept).
  SolveResult out = best.result ? std::move(*best.result) : Solver(state, source.Take()).Run();
  out.packing = report;
  return out;
}

}  // namespace karp::scheduling
