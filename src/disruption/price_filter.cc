// The price filter of a single replacement (see price_filter.h).

#include "disruption/price_filter.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "disruption/marginal.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::disruption {
namespace {

constexpr double kMaxPrice = std::numeric_limits<double>::max();
constexpr int kMinSpotToSpotTypes = 15;
constexpr double kMarginalTolerance = 1e-6;  // $/h
constexpr std::string_view kNotCheaper = "can't replace with a cheaper node";

PriceFilterResult Rejected(std::string why) { return {std::nullopt, std::move(why)}; }

// The price a type's launch is compared by: its worst launch price, or its worst marginal
// cost under a pricing model.
double WorstPrice(const InstanceType& it, const Requirements& reqs, const MarginalInput* m) {
  return m == nullptr ? it.WorstLaunchPrice(reqs) : WorstMarginalPrice(it, reqs, *m->ledger);
}

std::vector<const InstanceType*> CatalogTypes(const NewNodeClaim& nc,
                                              const InstanceCatalog& catalog) {
  std::vector<const InstanceType*> types;
  for (const std::string& name : nc.instance_types) {
    if (const InstanceType* it = catalog.Find(name)) types.push_back(it);
  }
  return types;
}

// filterOutSameInstanceType: a replacement of a type some candidate already has must be
// cheaper than that candidate, else deleting the others is better. As the reference's
// RemoveInstanceTypeOptionsByPriceAndMinValues: an option stays when its worst launch price
// (the dearest available offering the claim could get) is below.
std::vector<const InstanceType*> FilterOutSameInstanceType(
    const std::vector<const InstanceType*>& types, const std::vector<const NodeView*>& cands,
    const Requirements& reqs, const MarginalInput* m) {
  double max_price = kMaxPrice;
  std::map<std::string, double> by_type;
  for (const NodeView* c : cands) {
    if (c->it == nullptr) continue;
    auto [pos, inserted] = by_type.emplace(c->it->name, c->price);
    if (!inserted) pos->second = std::min(pos->second, c->price);
  }
  for (const InstanceType* it : types) {
    auto f = by_type.find(it->name);
    if (f != by_type.end()) max_price = std::min(max_price, f->second);
  }
  std::vector<const InstanceType*> kept;
  for (const InstanceType* it : types) {
    if (WorstPrice(*it, reqs, m) < max_price) kept.push_back(it);
  }
  return kept;
}

std::vector<const InstanceType*> CheaperThan(const std::vector<const InstanceType*>& types,
                                             const Requirements& reqs, double price,
                                             const MarginalInput* m) {
  std::vector<const InstanceType*> cheaper;
  for (const InstanceType* it : types) {
    if (WorstPrice(*it, reqs, m) < price) cheaper.push_back(it);
  }
  return cheaper;
}

// Single-node spot-to-spot: at least kMinSpotToSpotTypes cheaper types, of which the cheapest
// kMinSpotToSpotTypes (or as many as minValues needs) are kept. Returns why not, "" when met.
std::string LimitSpotToSpot(std::vector<const InstanceType*>* cheaper, const Requirements& reqs) {
  if (static_cast<int>(cheaper->size()) < kMinSpotToSpotTypes) {
    return internal::StrCat("SpotToSpotConsolidation requires ", kMinSpotToSpotTypes,
                            " cheaper instance type options than the current candidate to "
                            "consolidate, got ",
                            cheaper->size());
  }
  OrderByPrice(*cheaper, reqs);
  size_t keep = kMinSpotToSpotTypes;
  if (reqs.HasMinValues()) {
    absl::StatusOr<size_t> mv = SatisfiesMinValues(*cheaper, reqs);
    if (mv.ok()) keep = std::max(keep, *mv);
  }
  if (cheaper->size() > keep) cheaper->resize(keep);
  return "";
}

// Whether offering `o` of `it` launches before `best` of `best_it` (`best` may be null):
// cheaper, then capacity type rank, then type name, then zone.
bool LaunchesBefore(const Offering& o, const InstanceType& it, const Offering* best,
                    const InstanceType* best_it) {
  if (best == nullptr) return true;
  if (o.price != best->price) return o.price < best->price;
  const int rank = CapacityTypeRank(o.capacity_type);
  const int best_rank = CapacityTypeRank(best->capacity_type);
  if (rank != best_rank) return rank < best_rank;
  if (it.name != best_it->name) return it.name < best_it->name;
  return o.zone < best->zone;
}

// The replacement over the `cheaper` types that have a compatible offering, in price order,
// launching the cheapest such offering.
PriceFilterResult PricedClaim(const NewNodeClaim& nc, std::vector<const InstanceType*> cheaper,
                              Requirements reqs, const MarginalInput* m) {
  OrderByPrice(cheaper, reqs);
  NewNodeClaim out = nc;
  std::vector<std::string> names;
  const Offering* best = nullptr;
  const InstanceType* best_it = nullptr;
  std::vector<const InstanceType*> kept;
  for (const InstanceType* it : cheaper) {
    if (!it->HasCompatibleOffering(reqs)) continue;
    names.push_back(it->name);
    kept.push_back(it);
    const Offering* o = it->CheapestOffering(reqs);
    if (o != nullptr && LaunchesBefore(*o, *it, best, best_it)) {
      best = o;
      best_it = it;
    }
  }
  if (best == nullptr) return Rejected(std::string(kNotCheaper));
  std::optional<Launch> marginal_launch;
  if (m != nullptr) marginal_launch = CheapestMarginalLaunch(kept, reqs, *m->ledger);
  Requirement it_req = Requirement::In(kLabelInstanceType, names);
  out.instance_types = std::move(names);
  if (const Requirement* prev = reqs.Find(kLabelInstanceType))
    it_req.set_min_values(prev->min_values());
  reqs.Set(it_req);
  out.requirements = std::move(reqs);
  out.launch = marginal_launch ? *marginal_launch : Launch{best_it->name,         best->zone,
                                                           best->capacity_type,   best->price,
                                                           best->price_estimated, best->price};
  return {std::move(out), ""};
}

}  // namespace

PriceFilterResult RestrictAndPrice(const NewNodeClaim& nc,
                                   const std::vector<const NodeView*>& cands, bool multi,
                                   const InstanceCatalog& catalog,
                                   const ConsolidationOptions& options,
                                   const MarginalInput* marginal) {
  double candidate_price = 0;
  bool all_spot = true;
  for (const NodeView* c : cands) {
    candidate_price += c->price;
    all_spot = all_spot && c->capacity_type == kCapacityTypeSpot;
  }
  // Marginal costs are sums of fractions of prices: ignore differences of rounding noise.
  if (marginal != nullptr) candidate_price = marginal->candidate_price - kMarginalTolerance;
  Requirements reqs = nc.requirements;
  const Requirement* ct = reqs.Find(kLabelCapacityType);
  const bool allows_spot = ct == nullptr || ct->Has(kCapacityTypeSpot);
  const bool allows_od = ct == nullptr || ct->Has(kCapacityTypeOnDemand);
  std::vector<const InstanceType*> types = CatalogTypes(nc, catalog);
  const bool spot_to_spot = all_spot && allows_spot;
  if (spot_to_spot) {
    if (!options.spot_to_spot) {
      return Rejected(
          "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node");
    }
    reqs.Set(Requirement::In(kLabelCapacityType, {std::string(kCapacityTypeSpot)}));
  }
  if (multi) types = FilterOutSameInstanceType(types, cands, reqs, marginal);
  std::vector<const InstanceType*> cheaper = CheaperThan(types, reqs, candidate_price, marginal);
  if (cheaper.empty()) return Rejected(std::string(kNotCheaper));
  if (reqs.HasMinValues()) {
    absl::StatusOr<size_t> mv = SatisfiesMinValues(cheaper, reqs);
    if (!mv.ok() && options.scheduler.min_values_policy == MinValuesPolicy::kStrict) {
      return Rejected(internal::StrCat("Filtering by price: ", mv.status().message()));
    }
  }
  if (spot_to_spot && !multi) {
    if (std::string why = LimitSpotToSpot(&cheaper, reqs); !why.empty()) return Rejected(why);
  }
  if (!spot_to_spot && allows_spot && allows_od && marginal == nullptr) {
    reqs.Set(Requirement::In(kLabelCapacityType, {std::string(kCapacityTypeSpot)}));
  }
  return PricedClaim(nc, std::move(cheaper), std::move(reqs), marginal);
}

}  // namespace karp::disruption
