// The expiration method: a node past its expireAfter is deleted, forcefully and without
// budgets (docs/design.md §6.14); one node per command.

#include "disruption/loop.h"

namespace karp::disruption {

std::optional<DisruptionCommand> Loop::Expiration(SolveResult* placement) const {
  for (const NodeView& v : views_) {
    if (!v.expired || v.deleting) continue;
    *placement = SolveResult();
    return DeleteNodeCommand(v, DisruptionReason::kExpired);
  }
  return std::nullopt;
}

}  // namespace karp::disruption
