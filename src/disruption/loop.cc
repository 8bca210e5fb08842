// One disruption loop (see loop.h): setup and the method order.

#include "disruption/loop.h"

#include <utility>

#include "absl/time/clock.h"
#include "internal/strings.h"

namespace karp::disruption {

void AddKeptReason(KeptReasons* kept, const std::string& node, const std::string& reason) {
  auto [it, inserted] = kept->emplace(node, reason);
  if (!inserted) it->second = internal::StrCat(it->second, "; ", reason);
}

DisruptionCommand DeleteNodeCommand(const NodeView& v, DisruptionReason reason) {
  DisruptionCommand cmd;
  cmd.decision = DisruptionDecision::kDelete;
  cmd.reason = reason;
  cmd.candidates = {v.name};
  cmd.savings_per_hour = v.price;
  return cmd;
}

bool PassBudget::Take(std::string_view method) {
  if (exhausted_) return false;
  if ((max_simulations_ > 0 && simulations_ >= max_simulations_) ||
      (options_.deadline != absl::InfiniteFuture() && absl::Now() >= options_.deadline)) {
    exhausted_ = true;
    return false;
  }
  ++simulations_;
  if (options_.progress) {
    options_.progress({loop, command_count, candidate_count, simulations_, method});
  }
  return true;
}

void PassBudget::Report() {
  if (options_.progress)
    options_.progress({loop, command_count, candidate_count, simulations_, ""});
}

absl::Status Loop::Init() {
  views_ = BuildNodeViews(snap_, state_.catalogs, state_.now, state_.options, cache_);
  if (state_.options.pricing != nullptr) {
    marginal_.emplace(*state_.options.pricing, views_);
    marginal_->SetViewPrices(&views_);
  }
  SchedulerOptions options = state_.options.scheduler;
  options.pricing = nullptr;  // evaluations reprice the replacements (marginal.h)
  options.reserved_capacity_mode = ReservedCapacityMode::kFallback;
  absl::StatusOr<Scheduler> s =
      scheduling::CreateUnchecked(snap_ptr_, state_.catalogs, options, *pools_);
  if (!s.ok()) return s.status();
  scheduler_ = std::move(*s);
  *pools_ = scheduling::PoolsOf(*scheduler_);
  return absl::OkStatus();
}

int Loop::candidates() const {
  int n = 0;
  for (const NodeView& v : views_) n += v.reject.empty() ? 1 : 0;
  return n;
}

std::optional<DisruptionCommand> Loop::Next(KeptReasons* kept, SolveResult* placement) {
  kept->clear();
  for (const NodeView& v : views_) {
    if (!v.reject.empty()) (*kept)[v.name] = v.reject;
  }
  if (auto cmd = Interruption(placement)) return cmd;
  if (auto cmd = Expiration(placement)) return cmd;
  if (auto cmd = Emptiness(kept, placement)) return cmd;
  if (auto cmd = Drift(kept, placement)) return cmd;
  const std::vector<const NodeView*> candidates = ConsolidationCandidates(kept);
  // Re-pack mode replaces both consolidations (repack.cc), after the loops end.
  if (repack_) return std::nullopt;
  if (auto cmd = MultiNodeConsolidation(candidates, placement)) return cmd;
  return SingleNodeConsolidation(candidates, kept, placement);
}

}  // namespace karp::disruption
