// The list-price PricingModel, the canonical order of a fleet, the instances a snapshot runs,
// and capacity reservations as reserved offerings (karp/pricing.h).

#include "karp/pricing.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "internal/strings.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/labels.h"

namespace karp {
namespace {

constexpr std::string_view kLabelCapacityReservationId =
    "karpenter.k8s.aws/capacity-reservation-id";

// Every instance at its list price.
class ListPriceLedger : public PricingLedger {
 public:
  double Marginal(const PricedInstance& instance) const override { return instance.list_price; }
  void Add(const PricedInstance& instance) override {
    double& part = instance.capacity_type == kCapacityTypeSpot ? bill_.spot : bill_.on_demand;
    part += instance.list_price;
    bill_.effective += instance.list_price;
  }
  CostBreakdown Bill() const override { return bill_; }

 private:
  CostBreakdown bill_;
};

std::string LabelOf(const ObjectMeta& m, std::string_view key) {
  auto it = m.labels.find(std::string(key));
  return it == m.labels.end() ? "" : it->second;
}

double ListPrice(const std::vector<const InstanceCatalog*>& catalogs, const PricedInstance& p) {
  for (const InstanceCatalog* c : catalogs) {
    const InstanceType* it = c == nullptr ? nullptr : c->Find(p.instance_type);
    if (it == nullptr) continue;
    for (const Offering& o : it->offerings) {
      if (o.zone == p.zone && o.capacity_type == p.capacity_type) return o.price;
    }
    return 0;
  }
  return 0;
}

// The instance an object's labels describe; false without an instance-type label.
bool FromLabels(const ObjectMeta& m, const std::vector<const InstanceCatalog*>& catalogs,
                PricedInstance* out) {
  out->instance_type = LabelOf(m, kLabelInstanceType);
  if (out->instance_type.empty()) return false;
  out->zone = LabelOf(m, kLabelZone);
  out->capacity_type = LabelOf(m, kLabelCapacityType);
  out->reservation_id = LabelOf(m, kLabelCapacityReservationId);
  out->list_price = ListPrice(catalogs, *out);
  return true;
}

}  // namespace

std::unique_ptr<PricingLedger> PricingModel::Start(std::vector<PricedInstance> running) const {
  CanonicalOrder(running);
  auto ledger = std::make_unique<ListPriceLedger>();
  for (const PricedInstance& p : running) ledger->Add(p);
  return ledger;
}

CostBreakdown PricingModel::Bill(std::vector<PricedInstance> fleet) const {
  return Start(std::move(fleet))->Bill();
}

double PricingModel::EffectiveCost(std::vector<PricedInstance> fleet) const {
  return Bill(std::move(fleet)).effective;
}

void CanonicalOrder(std::vector<PricedInstance>& instances) {
  std::sort(
      instances.begin(), instances.end(), [](const PricedInstance& a, const PricedInstance& b) {
        return std::tie(a.capacity_type, a.instance_type, a.zone, a.reservation_id, a.list_price) <
               std::tie(b.capacity_type, b.instance_type, b.zone, b.reservation_id, b.list_price);
      });
}

std::vector<PricedInstance> RunningInstances(const ClusterSnapshot& snapshot,
                                             const std::vector<const InstanceCatalog*>& catalogs) {
  std::vector<PricedInstance> out;
  std::set<std::string> nodes;
  for (const Node& n : snapshot.nodes) {
    nodes.insert(n.metadata.name);
    PricedInstance p;
    if (FromLabels(n.metadata, catalogs, &p)) out.push_back(std::move(p));
  }
  for (const NodeClaim& c : snapshot.node_claims) {
    if (!c.node_name.empty() && nodes.count(c.node_name) > 0) continue;
    PricedInstance p;
    if (FromLabels(c.metadata, catalogs, &p)) out.push_back(std::move(p));
  }
  return out;
}

absl::StatusOr<InstanceCatalog> WithCapacityReservations(const InstanceCatalog& catalog,
                                                         const Commitments& commitments) {
  std::set<std::string> known;
  for (const InstanceType& it : catalog.instance_types()) {
    for (const Offering& o : it.offerings) {
      if (!o.reservation_id.empty()) known.insert(o.reservation_id);
    }
  }
  std::vector<InstanceType> types = catalog.instance_types();
  for (size_t i = 0; i < commitments.capacity_reservations.size(); ++i) {
    const CapacityReservation& cr = commitments.capacity_reservations[i];
    if (known.count(cr.id) > 0) continue;
    auto it = std::find_if(types.begin(), types.end(),
                           [&](const InstanceType& t) { return t.name == cr.instance_type; });
    if (it == types.end()) {
      return absl::InvalidArgumentError(internal::StrCat("capacityReservations[", i,
                                                         "].instanceType: \"", cr.instance_type,
                                                         "\" is not in the catalog"));
    }
    Offering o;
    o.zone = cr.zone;
    o.capacity_type = std::string(kCapacityTypeReserved);
    o.price = cr.hourly_price;
    if (o.price == 0) {
      for (const Offering& od : it->offerings) {
        if (od.zone == cr.zone && od.capacity_type == kCapacityTypeOnDemand) o.price = od.price;
      }
    }
    o.reservation_id = cr.id;
    o.reservation_capacity = cr.available;
    o.available = cr.available > 0;
    it->offerings.push_back(std::move(o));
    it->RebuildRequirements();
  }
  return InstanceCatalog::Create(std::move(types), catalog.well_known_labels(), false);
}

}  // namespace karp
