// Step 2 of Solver::Add (docs/design.md §5.6): the claims this solve opened, walked in first-fit
// order (fewest pods first) through per-taint-set and per-zone indexes, the free-claim indexes
// of hostname groups, and the cost mode's walk by room left in the target type.

#include "scheduling/solver.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scheduling/cost_packing.h"

namespace karp::scheduling {

size_t Solver::TaintSetOf(const ClaimState& claim) {
  if (claim.taint_set >= 0) return static_cast<size_t>(claim.taint_set);
  const std::vector<Taint>& taints = claim.claim_template->taints;
  size_t set = 0;
  while (set < taint_sets_.size() && *taint_sets_[set] != taints) ++set;
  if (set == taint_sets_.size()) {
    taint_sets_.push_back(&taints);
    claim_index_by_taints_.emplace_back();
  }
  return set;
}

Solver::ClaimCursor::ClaimCursor(const Solver& solver, const std::vector<char>& tolerated,
                                 const std::vector<std::vector<int>>& zone_check_ids,
                                 const FirstFitIndex::Room& need) {
  // A claim pinned to a zone outside any of zone_check_ids' lists is blocked: its index is
  // left out (bucket 0, the unpinned claims, always stays).
  auto zone_allowed = [&](size_t bucket) {
    for (const std::vector<int>& allowed : zone_check_ids) {
      if (std::find(allowed.begin(), allowed.end(), static_cast<int>(bucket) - 1) ==
          allowed.end()) {
        return false;
      }
    }
    return true;
  };
  for (size_t set = 0; set < solver.claim_index_by_taints_.size(); ++set) {
    if (set >= tolerated.size() || tolerated[set] == 0) continue;
    const std::vector<FirstFitIndex>& by_zone = solver.claim_index_by_taints_[set];
    for (size_t bucket = 0; bucket < by_zone.size(); ++bucket) {
      if (bucket > 0 && !zone_allowed(bucket)) continue;
      cursors_.emplace_back(by_zone[bucket], need);
    }
  }
  Pick();
}

void Solver::ClaimCursor::Pick() {
  // The least key over the indexes' heads (a claim is in exactly one index).
  best_ = -1;
  for (size_t i = 0; i < cursors_.size(); ++i) {
    if (cursors_[i].id() < 0) continue;
    if (best_ < 0 || cursors_[i].key() < cursors_[static_cast<size_t>(best_)].key()) {
      best_ = static_cast<int64_t>(i);
    }
  }
}

void Solver::ClaimCursor::Advance() {
  cursors_[static_cast<size_t>(best_)].Advance();
  Pick();
}

void Solver::IndexOpenClaim(const ClaimState& claim, bool insert) {
  FirstFitIndex& bucket = open_claims_[{claim.claim_template, claim.capacity_rank}];
  if (!insert) {
    if (bucket.Contains(claim.seq)) bucket.Erase(claim.seq);
    return;
  }
  const FirstFitIndex::Room room = CostClaimRoom(claim);
  bucket.Insert(claim.seq, room[0], room);
}

bool Solver::AllClaimsBlocked(const std::vector<Topology::HostnameCheck>& host_checks,
                              const std::vector<std::vector<std::string>>& zone_checks) const {
  bool all_blocked = false;
  for (const std::vector<std::string>& allowed : zone_checks) {
    // Only unpinned claims and claims pinned inside `allowed` can pass.
    auto unpinned = pinned_claims_.find("");
    int64_t open = unpinned == pinned_claims_.end() ? 0 : unpinned->second;
    for (const std::string& z : allowed) {
      auto it = pinned_claims_.find(z);
      if (it != pinned_claims_.end()) open += it->second;
    }
    if (open == 0) all_blocked = true;
  }
  for (const auto& check : host_checks) {
    if (check.group->SlotsAbove(check.limit) == static_cast<int64_t>(claims_.size())) {
      all_blocked = true;  // every claim already exceeds this group's limit
      break;
    }
  }
  return all_blocked;
}

bool Solver::PlaceOnClaim(PodData& pod) {
  // Fewest pods first (ties: creation order). Claims that a hostname topology group certainly
  // rejects are skipped by slot in O(1).
  // The checks live in the solver's buffers (reused pod after pod; PlaceOnClaim does not
  // nest).
  std::vector<Topology::HostnameCheck>& host_checks = scratch_host_checks_;
  std::vector<std::vector<std::string>>& zone_checks = scratch_zone_checks_;
  topology_->HostnameChecks(pod.working(), pod.groups, &host_checks);
  topology_->PinnedZoneChecks(pod.working(), pod.groups, pod.strict, &zone_checks);
  if (AllClaimsBlocked(host_checks, zone_checks)) return false;
  // The allowed zones as ids; a zone no claim was ever pinned to cannot match one.
  std::vector<std::vector<int>>& zone_check_ids = scratch_zone_ids_;
  zone_check_ids.resize(zone_checks.size());
  for (size_t i = 0; i < zone_checks.size(); ++i) {
    zone_check_ids[i].clear();
    for (const std::string& z : zone_checks[i]) {
      auto id = zone_ids_.find(z);
      if (id != zone_ids_.end()) zone_check_ids[i].push_back(id->second);
    }
  }
  if (cost_ != nullptr) return PlaceOnClaimCost(pod, host_checks, zone_check_ids);
  // In first-fit order (fewest pods, then creation), only claims with room for the pod's cpu,
  // memory and pod slot (MayFit's own comparison).
  auto need_of = [](int64_t v) { return v > 0 ? v : FirstFitIndex::kAny; };
  const FirstFitIndex::Room need = {need_of(pod.requests.cpu()), need_of(pod.requests.memory()),
                                    need_of(pod.requests.pods())};
  // Claims whose taints the pod does not tolerate fail CanAddClaim first thing: skipped.
  std::vector<char>& tolerated = scratch_tolerated_;
  tolerated.resize(taint_sets_.size());
  for (size_t set = 0; set < taint_sets_.size(); ++set) {
    tolerated[set] = ToleratesAll(*taint_sets_[set], pod.working().tolerations) ? 1 : 0;
  }
  // One claim of the walk: false to go on, true when the pod was placed.
  auto try_claim = [&](ClaimState& claim) {
    if (ClaimBlocked(claim, host_checks, zone_check_ids) || !MayFit(claim, pod)) return false;
    absl::StatusOr<ClaimFit> fit =
        CanAddClaim(claim, pod, /*relax_min_values=*/false, /*explain=*/false);
    if (!fit.ok()) return false;
    CommitClaim(claim, pod, *std::move(fit));
    return true;
  };
  // A group that limits the pod to claims where it counts no pod and blocks many claims: walk
  // only its free claims (the same order, minus claims the walk below would skip as blocked).
  if (const FirstFitIndex* free = FreeIndexFor(host_checks); free != nullptr) {
    for (FirstFitIndex::Cursor cursor(*free, need); cursor.id() >= 0; cursor.Advance()) {
      ClaimState& claim = *claims_[static_cast<size_t>(cursor.id())];
      if (tolerated[static_cast<size_t>(claim.taint_set)] == 0) continue;
      if (try_claim(claim)) return true;
    }
    return false;
  }
  int64_t blocked = 0;
  for (ClaimCursor cursor(*this, tolerated, zone_check_ids, need); cursor.id() >= 0;
       cursor.Advance()) {
    ClaimState& claim = *claims_[static_cast<size_t>(cursor.id())];
    if (ClaimBlocked(claim, host_checks, zone_check_ids)) {
      ++blocked;
      continue;
    }
    if (try_claim(claim)) return true;
  }
  if (blocked >= state_.tuning.free_index_min_blocked) AddFreeIndexes(host_checks);
  return false;
}

void Solver::IndexFreeClaim(const ClaimState& claim) {
  if (free_indexes_.empty()) return;
  const FirstFitIndex::Room room = RoomOf(claim);
  const int64_t rank = static_cast<int64_t>(claim.pods.size());
  for (FreeIndex& f : free_indexes_) {
    if (f.index.Contains(claim.seq)) f.index.Erase(claim.seq);
    if (f.group->SlotCount(static_cast<int>(claim.seq)) == 0) f.index.Insert(claim.seq, rank, room);
  }
}

const FirstFitIndex* Solver::FreeIndexFor(
    const std::vector<Topology::HostnameCheck>& host_checks) const {
  for (const auto& check : host_checks) {
    if (check.limit != 0) continue;
    for (const FreeIndex& f : free_indexes_) {
      if (f.group == check.group) return &f.index;
    }
  }
  return nullptr;
}

void Solver::AddFreeIndexes(const std::vector<Topology::HostnameCheck>& host_checks) {
  for (const auto& check : host_checks) {
    if (free_indexes_.size() >= kMaxFreeIndexes) return;
    if (check.limit != 0 || check.group->SlotsAbove(0) < state_.tuning.free_index_min_blocked)
      continue;
    if (FreeIndexFor({check}) != nullptr) continue;  // the group has one already
    free_indexes_.push_back({check.group, FirstFitIndex()});
    FirstFitIndex& index = free_indexes_.back().index;
    for (const auto& claim : claims_) {
      if (check.group->SlotCount(static_cast<int>(claim->seq)) > 0) continue;
      index.Insert(claim->seq, static_cast<int64_t>(claim->pods.size()), RoomOf(*claim));
    }
  }
}

bool Solver::ClaimBlocked(const ClaimState& claim,
                          const std::vector<Topology::HostnameCheck>& host_checks,
                          const std::vector<std::vector<int>>& zone_check_ids) const {
  for (const auto& check : host_checks) {
    if (check.group->SlotCount(static_cast<int>(claim.seq)) > check.limit) return true;
  }
  if (claim.pinned_zone_id >= 0) {
    for (const std::vector<int>& allowed : zone_check_ids) {
      if (std::find(allowed.begin(), allowed.end(), claim.pinned_zone_id) == allowed.end()) {
        return true;
      }
    }
  }
  return false;
}

bool Solver::PlaceOnPlannedClaim(PodData& pod,
                                 const std::vector<Topology::HostnameCheck>& host_checks,
                                 const std::vector<std::vector<int>>& zone_check_ids) {
  auto group = group_claims_.find(pod.plan_group);
  if (group == group_claims_.end()) return false;  // the first pod of its node opens the claim
  ClaimState& claim = *claims_[static_cast<size_t>(group->second)];
  if (ClaimBlocked(claim, host_checks, zone_check_ids) || !MayFit(claim, pod)) return false;
  absl::StatusOr<ClaimFit> fit =
      CanAddClaim(claim, pod, /*relax_min_values=*/false, /*explain=*/false);
  if (!fit.ok()) return false;
  CommitClaim(claim, pod, *std::move(fit));
  return true;
}

bool Solver::PlaceOnClaimCost(PodData& pod, const std::vector<Topology::HostnameCheck>& host_checks,
                              const std::vector<std::vector<int>>& zone_check_ids) {
  if (pod.plan_group >= 0) return PlaceOnPlannedClaim(pod, host_checks, zone_check_ids);
  // Templates in the pod's order (by weight unless PoolOrder::kPrice); within one, the claims
  // launching the pod's capacity type whose target has at least the pod's cpu left, least room
  // first (best fit decreasing). Of the first kMaxFits claims that take the pod, the one whose
  // launch price rises least; a claim that takes it for free ends the search.
  constexpr int kMaxFits = 4;
  constexpr int kMaxChecks = 16;
  ClaimState* best = nullptr;
  std::optional<ClaimFit> best_fit;
  double best_delta = 0;
  int fits = 0;
  int checks = 0;
  for (const Template* tp : cost_->Order(pod)) {
    const Template& t = *tp;
    auto bucket = open_claims_.find({&t, cost_->Rank(t, pod.requirements)});
    if (bucket == open_claims_.end()) continue;
    // A template the pod cannot use would only spend the check budget on refusals.
    if (!ToleratesAll(t.taints, pod.working().tolerations) ||
        !t.requirements.IsCompatible(pod.requirements, &state_.pools->well_known)) {
      continue;
    }
    // The claims with room for the pod's cpu (and, indexed, memory and slots), in the order
    // of (cpu room, creation): see CostClaimNeed for why the walk's answer is the same.
    for (FirstFitIndex::Cursor it(bucket->second,
                                  CostClaimNeed(pod, state_.tuning.cost_claim_index));
         it.id() >= 0 && fits < kMaxFits && checks < kMaxChecks; it.Advance()) {
      ClaimState& claim = *claims_[static_cast<size_t>(it.id())];
      if (!cost_->Admits(claim, pod) || ClaimBlocked(claim, host_checks, zone_check_ids) ||
          !MayFit(claim, pod)) {
        continue;
      }
      ++checks;
      absl::StatusOr<ClaimFit> fit =
          CanAddClaim(claim, pod, /*relax_min_values=*/false, /*explain=*/false);
      if (!fit.ok() || std::find(fit->types(claim).begin(), fit->types(claim).end(),
                                 claim.target) == fit->types(claim).end()) {
        continue;
      }
      ++fits;
      // Free when the claim's current launch type still takes it with the same offerings.
      const bool same_type =
          !fit->requirements && std::find(fit->types(claim).begin(), fit->types(claim).end(),
                                          claim.current_type) != fit->types(claim).end();
      const double delta = same_type ? 0.0
                                     : cost_->LaunchPrice(t, fit->types(claim),
                                                          fit->requirements ? *fit->requirements
                                                                            : claim.requirements) -
                                           claim.current_price;
      if (best == nullptr || delta < best_delta - 1e-12) {
        best = &claim;
        best_fit = *std::move(fit);
        best_delta = delta;
      }
      if (best_delta <= 1e-12) break;
    }
    if ((best != nullptr && best_delta <= 1e-12) || fits >= kMaxFits || checks >= kMaxChecks) break;
  }
  if (best == nullptr) return false;
  CommitClaim(*best, pod, *std::move(best_fit));
  return true;
}

}  // namespace karp::scheduling
