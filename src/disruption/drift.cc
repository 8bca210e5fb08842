// The drift method: drifted candidates (eventual class), oldest drift first and nodes without
// reschedulable pods first, replaced with every claim their pods need, within the Drifted
// budgets; one node per command. (Drift itself is detected in candidates.cc.)

#include <algorithm>

#include "disruption/budgets.h"
#include "disruption/loop.h"
#include "internal/strings.h"

namespace karp::disruption {

std::optional<DisruptionCommand> Loop::Drift(KeptReasons* kept, SolveResult* placement) const {
  std::map<std::string, int64_t> budget =
      BuildBudgets(snap_, views_, kReasonDrifted, state_.now, deleting_);
  std::vector<const NodeView*> cands;
  for (const NodeView& v : views_) {
    if (v.drift_reason.empty() || !v.reject_eventual.empty() || v.pool->replicas) continue;
    cands.push_back(&v);
  }
  std::stable_sort(cands.begin(), cands.end(), [](const NodeView* a, const NodeView* b) {
    if (a->drift_time != b->drift_time) return a->drift_time < b->drift_time;
    return a->name < b->name;
  });
  std::stable_partition(cands.begin(), cands.end(),
                        [](const NodeView* v) { return v->reschedulable.empty(); });
  for (const NodeView* v : cands) {
    if (budget[v->pool->name()] <= 0) {
      (*kept)[v->name] = internal::StrCat("drifted (", v->drift_reason, ") but budget: nodepool \"",
                                          v->pool->name(), "\" allows no more Drifted disruptions");
      continue;
    }
    Evaluation e = Evaluate({v}, false, DisruptionReason::kDrifted, placement);
    if (e.command) return e.command;
    (*kept)[v->name] = internal::StrCat("drifted (", v->drift_reason, ") but ", e.why_not);
  }
  return std::nullopt;
}

}  // namespace karp::disruption
