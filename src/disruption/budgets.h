// Disruption budgets (docs/design.md §6.3): how many more nodes each NodePool lets one disruption
// reason take at a given time.

#ifndef KARP_SRC_DISRUPTION_BUDGETS_H_
#define KARP_SRC_DISRUPTION_BUDGETS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "disruption/candidates.h"
#include "karp/cluster.h"

namespace karp::disruption {

// The budget map of one reason: allowed disruptions per NodePool name.
// `deleting` counts, per NodePool, nodes that earlier commands of this plan are deleting: they
// still exist while they drain, so they count as nodes and as disrupting.
std::map<std::string, int64_t> BuildBudgets(const ClusterSnapshot& snap,
                                            const std::vector<NodeView>& views,
                                            std::string_view reason, absl::Time now,
                                            const std::map<std::string, int64_t>& deleting);

}  // namespace karp::disruption

#endif  // KARP_SRC_DISRUPTION_BUDGETS_H_
