// Disruption budgets (see budgets.h).

#include "disruption/budgets.h"

#include <algorithm>
#include <limits>

#include "absl/status/statusor.h"
#include "model/cron.h"

namespace karp::disruption {
namespace {

// A NodePool's nodes and how many of them are disrupting (not Ready, or being deleted),
// counting the managed, initialized nodes that are not InstanceTerminating.
struct PoolCounts {
  int64_t nodes = 0;
  int64_t disrupting = 0;
};

PoolCounts CountNodes(const NodePool& np, const std::vector<NodeView>& views,
                      int64_t already_deleting) {
  PoolCounts out{already_deleting, already_deleting};
  for (const NodeView& v : views) {
    if (v.pool != &np || !v.managed || !v.initialized) continue;
    if (v.claim != nullptr && v.claim->ConditionTrue("InstanceTerminating")) continue;
    ++out.nodes;
    bool ready = true;
    for (const NodeCondition& c : v.node->conditions) {
      if (c.type == "Ready") ready = c.status == "True";
    }
    if (!ready || v.deleting) ++out.disrupting;
  }
  return out;
}

// The smallest `nodes` of the NodePool's budgets that apply to `reason` and are active at
// `now` (out of `num_nodes` for percentages); unparsable schedules or counts allow 0.
int64_t AllowedByBudgets(const NodePool& np, std::string_view reason, int64_t num_nodes,
                         absl::Time now) {
  int64_t allowed = std::numeric_limits<int32_t>::max();
  for (const Budget& b : np.budgets) {
    if (!b.reasons.empty() &&
        std::find(b.reasons.begin(), b.reasons.end(), reason) == b.reasons.end()) {
      continue;
    }
    if (!b.schedule.empty()) {
      absl::StatusOr<CronSchedule> cron = CronSchedule::Parse(b.schedule);
      if (!cron.ok()) {
        allowed = 0;  // fail closed
        continue;
      }
      if (!BudgetWindowActive(*cron, b.duration.value_or(absl::ZeroDuration()), now)) continue;
    }
    absl::StatusOr<IntOrPercent> nodes = ParseIntOrPercent(b.nodes, /*max_percent_100=*/true);
    allowed = std::min(allowed, nodes.ok() ? nodes->Resolve(num_nodes) : 0);  // fail closed
  }
  return allowed;
}

}  // namespace

std::map<std::string, int64_t> BuildBudgets(const ClusterSnapshot& snap,
                                            const std::vector<NodeView>& views,
                                            std::string_view reason, absl::Time now,
                                            const std::map<std::string, int64_t>& deleting) {
  std::map<std::string, int64_t> out;
  for (const NodePool& np : snap.node_pools) {
    auto d = deleting.find(np.name());
    const PoolCounts counts = CountNodes(np, views, d == deleting.end() ? 0 : d->second);
    const int64_t allowed = AllowedByBudgets(np, reason, counts.nodes, now);
    out[np.name()] = std::max<int64_t>(allowed - counts.disrupting, 0);
  }
  return out;
}

}  // namespace karp::disruption
