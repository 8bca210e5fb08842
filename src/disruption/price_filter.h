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

// Under a pricing model (disruption/marginal.h): the fleet without the candidates and what
// removing them saves.
struct MarginalInput {
  const PricingLedger* ledger = nullptr;
  double candidate_price = 0;
};

struct PriceFilterResult {
  std::optional<NewNodeClaim> claim;  // the restricted, priced replacement
  std::string why_not;                // when no claim
};

// Restricts replacement `nc` of `cands` to types strictly cheaper (worst launch price) than
// the candidates, and to spot when both capacity types are allowed; `multi` also drops types
// some candidate already has unless cheaper than that candidate (filterOutSameInstanceType).
// With `marginal`, prices are marginal costs in its ledger (WorstMarginalPrice per type, the
// candidates' price is marginal->candidate_price), the capacity type is not narrowed to spot,
// and the launch is CheapestMarginalLaunch.
PriceFilterResult RestrictAndPrice(const NewNodeClaim& nc,
                                   const std::vector<const NodeView*>& cands, bool multi,
                                   const InstanceCatalog& catalog,
                                   const ConsolidationOptions& options,
                                   const MarginalInput* marginal = nullptr);

}  // namespace karp::disruption

#endif  // KARP_SRC_DISRUPTION_PRICE_FILTER_H_
