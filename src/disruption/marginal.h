// Consolidation under a pricing model (karp/pricing.h, docs/commitments.md §4): what removing
// nodes saves and what replacements cost, as changes of the fleet's effective cost.

#ifndef KARP_SRC_DISRUPTION_MARGINAL_H_
#define KARP_SRC_DISRUPTION_MARGINAL_H_

#include <memory>
#include <vector>

#include "disruption/candidates.h"
#include "karp/catalog.h"
#include "karp/pricing.h"
#include "karp/scheduler.h"

namespace karp::disruption {

// The fleet of a loop's node views (index-aligned) under `model`.
class MarginalPrices {
 public:
  // `views` must outlive this object and not move.
  MarginalPrices(const PricingModel& model, const std::vector<NodeView>& views);

  // Effective cost of the fleet minus that of the fleet without `cands`. O(fleet).
  double RemovalSavings(const std::vector<const NodeView*>& cands) const;
  // A ledger holding the fleet without `cands`.
  std::unique_ptr<PricingLedger> Without(const std::vector<const NodeView*>& cands) const;
  // Sets every view's price to RemovalSavings of that view alone (computed once per
  // instance type, zone, capacity type and reservation).
  void SetViewPrices(std::vector<NodeView>* views) const;

 private:
  std::vector<PricedInstance> Remaining(const std::vector<const NodeView*>& cands) const;

  const PricingModel& model_;
  const std::vector<NodeView>& views_;
  std::vector<PricedInstance> fleet_;
  std::vector<char> in_fleet_;  // per view: it has an instance type
  double total_ = 0;
};

// The worst (highest) marginal cost in `ledger` over `it`'s available offerings compatible
// with `reqs` of the first capacity type that has any (as InstanceType::WorstLaunchPrice);
// +infinity if none.
double WorstMarginalPrice(const InstanceType& it, const Requirements& reqs,
                          const PricingLedger& ledger);

// The offering of least marginal cost in `ledger` over `types` (ties: list price, capacity type
// rank, type name, zone), compatible with `reqs`, as a Launch (price = marginal); nullopt if
// none. Does not change the ledger.
std::optional<Launch> CheapestMarginalLaunch(const std::vector<const InstanceType*>& types,
                                             const Requirements& reqs, const PricingLedger& ledger);

// Sets `nc`'s launch to CheapestMarginalLaunch over its instance types and adds it to
// `ledger`; returns its marginal cost (0 when it has no launch).
double RepriceLaunch(NewNodeClaim* nc, const InstanceCatalog& catalog, PricingLedger* ledger);

}  // namespace karp::disruption

#endif  // KARP_SRC_DISRUPTION_MARGINAL_H_
