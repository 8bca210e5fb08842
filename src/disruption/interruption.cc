// The interruption method: a node whose capacity is being reclaimed (an InterruptionEvent)
// is replaced ahead of the deadline, without budgets.

#include "disruption/loop.h"

namespace karp::disruption {
namespace {

bool IsInterrupted(const NodeView& v, const ConsolidationOptions& options) {
  for (const InterruptionEvent& ev : options.interruptions) {
    if (ev.node == v.name) return true;
  }
  return false;
}

}  // namespace

std::optional<DisruptionCommand> Loop::Interruption(SolveResult* placement) const {
  for (const NodeView& v : views_) {
    if (!v.managed || !IsInterrupted(v, state_.options)) continue;
    Evaluation e = Evaluate({&v}, false, DisruptionReason::kInterrupted, placement);
    if (e.command) return e.command;
    // Even when pods cannot all move, the capacity is going away: delete.
    *placement = SolveResult();
    return DeleteNodeCommand(v, DisruptionReason::kInterrupted);
  }
  return std::nullopt;
}

}  // namespace karp::disruption
