// Consolidation under a pricing model (see marginal.h).

#include "disruption/marginal.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "karp/labels.h"

namespace karp::disruption {
namespace {

constexpr std::string_view kLabelCapacityReservationId =
    "karpenter.k8s.aws/capacity-reservation-id";

PricedInstance PricedOf(const InstanceType& it, const Offering& o) {
  return {it.name, o.zone, o.capacity_type, o.price, o.reservation_id};
}

// Whether (cost, list, rank, type, zone) of `o` sorts before the current best.
bool Before(double cost, const Offering& o, const InstanceType& it, double best_cost,
            const Offering* best, const InstanceType* best_it) {
  if (best == nullptr) return true;
  return std::make_tuple(cost, o.price, CapacityTypeRank(o.capacity_type), it.name, o.zone) <
         std::make_tuple(best_cost, best->price, CapacityTypeRank(best->capacity_type),
                         best_it->name, best->zone);
}

}  // namespace

MarginalPrices::MarginalPrices(const PricingModel& model, const std::vector<NodeView>& views)
    : model_(model), views_(views) {
  for (const NodeView& v : views) {
    const bool priced = !v.instance_type.empty();
    in_fleet_.push_back(priced ? 1 : 0);
    if (!priced) continue;
    PricedInstance p{v.instance_type, v.zone, v.capacity_type, v.price, ""};
    if (v.node != nullptr) {
      auto r = v.node->metadata.labels.find(std::string(kLabelCapacityReservationId));
      if (r != v.node->metadata.labels.end()) p.reservation_id = r->second;
    }
    fleet_.push_back(std::move(p));
  }
  total_ = model_.EffectiveCost(fleet_);
}

std::vector<PricedInstance> MarginalPrices::Remaining(
    const std::vector<const NodeView*>& cands) const {
  std::vector<char> removed(views_.size(), 0);
  for (const NodeView* c : cands) removed[static_cast<size_t>(c - views_.data())] = 1;
  std::vector<PricedInstance> out;
  size_t f = 0;
  for (size_t i = 0; i < views_.size(); ++i) {
    if (!in_fleet_[i]) continue;
    if (!removed[i]) out.push_back(fleet_[f]);
    ++f;
  }
  return out;
}

double MarginalPrices::RemovalSavings(const std::vector<const NodeView*>& cands) const {
  return total_ - model_.EffectiveCost(Remaining(cands));
}

std::unique_ptr<PricingLedger> MarginalPrices::Without(
    const std::vector<const NodeView*>& cands) const {
  return model_.Start(Remaining(cands));
}

void MarginalPrices::SetViewPrices(std::vector<NodeView>* views) const {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, double> by_key;
  size_t f = 0;
  for (size_t i = 0; i < views->size(); ++i) {
    if (!in_fleet_[i]) continue;
    const PricedInstance& p = fleet_[f++];
    auto key = std::make_tuple(p.instance_type, p.zone, p.capacity_type, p.reservation_id);
    auto found = by_key.find(key);
    if (found == by_key.end()) {
      found = by_key.emplace(key, RemovalSavings({&(*views)[i]})).first;
    }
    (*views)[i].price = found->second;
  }
}

double WorstMarginalPrice(const InstanceType& it, const Requirements& reqs,
                          const PricingLedger& ledger) {
  std::map<int, double> worst_by_rank;
  for (const Offering& o : it.offerings) {
    if (!o.available || !OfferingCompatible(reqs, o)) continue;
    const double cost = ledger.Marginal(PricedOf(it, o));
    auto [pos, inserted] = worst_by_rank.emplace(CapacityTypeRank(o.capacity_type), cost);
    if (!inserted) pos->second = std::max(pos->second, cost);
  }
  double best = kNoPrice;
  for (const auto& [rank, worst] : worst_by_rank) best = std::min(best, worst);
  return best;
}

std::optional<Launch> CheapestMarginalLaunch(const std::vector<const InstanceType*>& types,
                                             const Requirements& reqs,
                                             const PricingLedger& ledger) {
  const Offering* best = nullptr;
  const InstanceType* best_it = nullptr;
  double best_cost = kNoPrice;
  for (const InstanceType* it : types) {
    for (const Offering& o : it->offerings) {
      if (!o.available || !OfferingCompatible(reqs, o)) continue;
      const double cost = ledger.Marginal(PricedOf(*it, o));
      if (Before(cost, o, *it, best_cost, best, best_it)) {
        best = &o;
        best_it = it;
        best_cost = cost;
      }
    }
  }
  if (best == nullptr) return std::nullopt;
  return Launch{best_it->name,         best->zone, best->capacity_type, best_cost,
                best->price_estimated, best->price};
}

double RepriceLaunch(NewNodeClaim* nc, const InstanceCatalog& catalog, PricingLedger* ledger) {
  std::vector<const InstanceType*> types;
  for (const std::string& name : nc->instance_types) {
    if (const InstanceType* it = catalog.Find(name)) types.push_back(it);
  }
  std::optional<Launch> launch = CheapestMarginalLaunch(types, nc->requirements, *ledger);
  if (!launch) return 0;
  ledger->Add({launch->instance_type, launch->zone, launch->capacity_type, launch->list_price, ""});
  nc->launch = std::move(launch);
  return nc->launch->price;
}

}  // namespace karp::disruption
