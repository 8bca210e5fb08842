// The multi-node consolidation method: a binary search over prefixes of the sorted candidates
// for the largest set that one replacement (or none) can take over.

#include <algorithm>
#include <utility>

#include "disruption/loop.h"

namespace karp::disruption {

std::optional<DisruptionCommand> Loop::MultiNodeConsolidation(
    const std::vector<const NodeView*>& candidates, SolveResult* placement) const {
  if (candidates.size() < 2) return std::nullopt;
  const size_t max = std::min<size_t>(
      candidates.size(), static_cast<size_t>(state_.options.max_multi_node_candidates));
  int64_t lo = 1, hi = static_cast<int64_t>(std::min(max, candidates.size() - 1));
  std::optional<DisruptionCommand> best;
  SolveResult best_placement;
  while (lo <= hi) {
    const int64_t mid = (lo + hi) / 2;
    std::vector<const NodeView*> prefix(candidates.begin(), candidates.begin() + mid + 1);
    SolveResult p;
    Evaluation e = Evaluate(prefix, /*multi=*/true, DisruptionReason::kUnderutilized, &p);
    if (e.command && !(e.command->decision == DisruptionDecision::kReplace &&
                       e.command->replacements[0].instance_types.empty())) {
      best = std::move(e.command);
      best_placement = std::move(p);
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (best) *placement = std::move(best_placement);
  return best;
}

}  // namespace karp::disruption
