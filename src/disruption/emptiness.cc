// The emptiness method: every consolidatable candidate without reschedulable pods is deleted
// in one command, within the Empty budgets.

#include <algorithm>
#include <cmath>

#include "disruption/budgets.h"
#include "disruption/loop.h"
#include "internal/strings.h"

namespace karp::disruption {

std::optional<DisruptionCommand> Loop::Emptiness(KeptReasons* kept, SolveResult* placement) const {
  std::map<std::string, int64_t> budget =
      BuildBudgets(snap_, views_, kReasonEmpty, state_.now, deleting_);
  std::vector<const NodeView*> cands;
  for (const NodeView& v : views_) {
    if (!v.reject.empty() || !v.empty()) continue;
    if (v.pool->replicas || !v.pool->consolidate_after) {
      (*kept)[v.name] = "consolidateAfter Never";
      continue;
    }
    if (!v.consolidatable) {
      (*kept)[v.name] = v.consolidatable_reason;
      continue;
    }
    if (marginal_ && v.price <= kPrepaidBelow) {
      (*kept)[v.name] = std::string(kPrepaidReason);
      continue;
    }
    cands.push_back(&v);
  }
  DisruptionCommand cmd;
  cmd.decision = DisruptionDecision::kDelete;
  cmd.reason = DisruptionReason::kEmpty;
  std::vector<const NodeView*> chosen;
  for (const NodeView* v : Sorted(cands)) {
    int64_t& b = budget[v->pool->name()];
    if (b <= 0) {
      (*kept)[v->name] = internal::StrCat("budget: nodepool \"", v->pool->name(),
                                          "\" allows no more Empty disruptions");
      continue;
    }
    --b;
    cmd.candidates.push_back(v->name);
    chosen.push_back(v);
    cmd.savings_per_hour += v->price;
  }
  if (cmd.candidates.empty()) return std::nullopt;
  if (marginal_) cmd.savings_per_hour = marginal_->RemovalSavings(chosen);
  std::sort(cmd.candidates.begin(), cmd.candidates.end());
  cmd.savings_per_hour = std::round(cmd.savings_per_hour * 1e9) / 1e9;
  *placement = SolveResult();
  return cmd;
}

}  // namespace karp::disruption
