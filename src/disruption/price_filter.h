// The price filter of a single replacement (docs/design.md §6.6): the types strictly cheaper than
// the candidates, spot-to-spot rules, and the launch the replacement would get.

#ifndef KARP_SRC_DISRUPTION_PRICE_FILTER_H_
#define KARP_SRC_DISRUPTION_PRICE_FILTER_H_

#include <optional>
#include <string>
#include <vector>

#include "disruption/candidates.h"
#include "karp/catalog.h"
#include "karp/consolidator.h"
#include "karp/scheduler.h"

namespace karp::disruption {

struct PriceFilterResult {
  std::optional<NewNodeClaim> claim;  // the restricted, priced replacement
  std::string why_not;                // when no claim
};

// Restricts replacement `nc` of `cands` to types strictly cheaper (worst launch price) than
// the candidates, and to spot when both capacity types are allowed; `multi` also drops types
// some candidate already has unless cheaper than that candidate (filterOutSameInstanceType).
PriceFilterResult RestrictAndPrice(const NewNodeClaim& nc,
                                   const std::vector<const NodeView*>& cands, bool multi,
                                   const InstanceCatalog& catalog,
                                   const ConsolidationOptions& options);

}  // namespace karp::disruption

#endif  // KARP_SRC_DISRUPTION_PRICE_FILTER_H_
