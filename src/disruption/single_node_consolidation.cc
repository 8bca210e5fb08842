// The single-node consolidation method: each candidate alone, interleaved round-robin by
// NodePool; the first that can be deleted or replaced by a cheaper node is the command.

#include "disruption/loop.h"

namespace karp::disruption {
namespace {

// `candidates` interleaved by NodePool: the first of each pool (pools in order of first
// appearance), then the second of each, and so on.
std::vector<const NodeView*> RoundRobinByPool(const std::vector<const NodeView*>& candidates) {
  std::map<std::string, std::vector<const NodeView*>> by_pool;
  std::vector<std::string> pool_order;
  for (const NodeView* v : candidates) {
    if (by_pool[v->pool->name()].empty()) pool_order.push_back(v->pool->name());
    by_pool[v->pool->name()].push_back(v);
  }
  std::vector<const NodeView*> order;
  for (size_t round = 0; order.size() < candidates.size(); ++round) {
    for (const std::string& p : pool_order) {
      if (round < by_pool[p].size()) order.push_back(by_pool[p][round]);
    }
  }
  return order;
}

}  // namespace

std::optional<DisruptionCommand> Loop::SingleNodeConsolidation(
    const std::vector<const NodeView*>& candidates, KeptReasons* kept,
    SolveResult* placement) const {
  for (const NodeView* v : RoundRobinByPool(candidates)) {
    Evaluation e = Evaluate({v}, false, DisruptionReason::kUnderutilized, placement);
    if (e.command) return e.command;
    AddKeptReason(kept, v->name, e.why_not.empty() ? "no cheaper placement found" : e.why_not);
  }
  return std::nullopt;
}

}  // namespace karp::disruption
