// The commitment PricingModel (karp/pricing.h, docs/commitments.md): Reserved Instances,
// Savings Plans and capacity reservations applied to instances one at a time.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/catalog.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/pricing.h"

namespace karp {
namespace {

// Below this, a remaining commitment or an uncovered fraction counts as used up.
constexpr double kEpsilon = 1e-12;

std::string FamilyOf(const std::string& type) { return type.substr(0, type.find('.')); }

std::string SizeOf(const std::string& type) {
  const size_t dot = type.find('.');
  return dot == std::string::npos ? "" : type.substr(dot + 1);
}

// A zone of `region`: its name is the region's followed by something ("us-east-1a").
bool InRegion(const std::string& zone, const std::string& region) {
  return zone.size() > region.size() && zone.compare(0, region.size(), region) == 0;
}

absl::Status Invalid(std::string_view kind, size_t index, std::string_view field,
                     std::string_view what) {
  return absl::InvalidArgumentError(internal::StrCat(kind, "[", index, "].", field, ": ", what));
}

bool BadPrice(double v) { return !std::isfinite(v) || v < 0; }

absl::Status ValidateReservedInstance(const ReservedInstance& ri, size_t i) {
  constexpr std::string_view kKind = "reservedInstances";
  if (ri.instance_type.empty()) return Invalid(kKind, i, "instanceType", "required");
  if (ri.region.empty() == ri.zone.empty()) {
    return Invalid(kKind, i, "region", "exactly one of region and availabilityZone is required");
  }
  if (ri.size_flexible && !ri.zone.empty()) {
    return Invalid(kKind, i, "sizeFlexible", "zonal reservations are not size-flexible");
  }
  if (ri.count <= 0) return Invalid(kKind, i, "count", "must be > 0");
  if (BadPrice(ri.hourly_price)) {
    return Invalid(kKind, i, "hourlyPrice", "must be a finite number >= 0");
  }
  return absl::OkStatus();
}

absl::Status ValidateSavingsPlan(const SavingsPlan& sp, size_t i) {
  constexpr std::string_view kKind = "savingsPlans";
  if (BadPrice(sp.hourly_commitment)) {
    return Invalid(kKind, i, "hourlyCommitment", "must be a finite number >= 0");
  }
  if (sp.type == SavingsPlanType::kEc2Instance && (sp.region.empty() || sp.family.empty())) {
    return Invalid(kKind, i, sp.region.empty() ? "region" : "instanceFamily",
                   "required for an EC2Instance plan");
  }
  auto bad = [](double d) { return !std::isfinite(d) || d < 0 || d >= 1; };
  if (bad(sp.default_discount)) return Invalid(kKind, i, "discount", "must be in [0, 1)");
  for (const auto& [key, d] : sp.discounts) {
    if (bad(d)) return Invalid(kKind, i, internal::StrCat("discounts.", key), "must be in [0, 1)");
  }
  return absl::OkStatus();
}

absl::Status ValidateCapacityReservation(const CapacityReservation& cr, size_t i) {
  constexpr std::string_view kKind = "capacityReservations";
  if (cr.instance_type.empty()) return Invalid(kKind, i, "instanceType", "required");
  if (cr.zone.empty()) return Invalid(kKind, i, "availabilityZone", "required");
  if (cr.count <= 0) return Invalid(kKind, i, "count", "must be > 0");
  if (cr.available < 0 || cr.available > cr.count) {
    return Invalid(kKind, i, "available", "must be from 0 to count");
  }
  if (BadPrice(cr.hourly_price)) {
    return Invalid(kKind, i, "hourlyPrice", "must be a finite number >= 0");
  }
  return absl::OkStatus();
}

// Ids non-empty and unique within one kind.
template <typename T>
absl::Status CheckIds(std::string_view kind, const std::vector<T>& items) {
  std::set<std::string> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].id.empty()) {
      return absl::InvalidArgumentError(internal::StrCat(kind, "[", i, "].id: required"));
    }
    if (!seen.insert(items[i].id).second) {
      return Invalid(kind, i, "id", internal::StrCat("duplicate \"", items[i].id, "\""));
    }
  }
  return absl::OkStatus();
}

template <typename T>
void KeepActive(std::vector<T>* items, absl::Time now) {
  items->erase(std::remove_if(items->begin(), items->end(),
                              [&](const T& c) { return c.end && *c.end <= now; }),
               items->end());
  std::sort(items->begin(), items->end(), [](const T& a, const T& b) { return a.id < b.id; });
}

// What is left of each commitment.
struct Remaining {
  std::vector<double> ri;   // instances (type-specific) or normalized units (flexible)
  std::vector<double> sp;   // dollars per hour
  std::vector<int64_t> cr;  // instances
};

class CommitmentLedger : public PricingLedger {
 public:
  // Shares the commitments, so the ledger may outlive its model.
  CommitmentLedger(std::shared_ptr<const Commitments> c, CostBreakdown fixed) : c_(std::move(c)) {
    for (const ReservedInstance& ri : c_->reserved_instances) {
      double units = static_cast<double>(ri.count);
      if (ri.size_flexible) {
        units *= NormalizationFactor(ri.instance_type, c_->normalization_factors).value_or(0);
      }
      left_.ri.push_back(units);
    }
    for (const SavingsPlan& sp : c_->savings_plans) left_.sp.push_back(sp.hourly_commitment);
    for (const CapacityReservation& cr : c_->capacity_reservations) left_.cr.push_back(cr.count);
    bill_ = fixed;
  }

  double Marginal(const PricedInstance& p) const override {
    Remaining copy = left_;
    CostBreakdown ignored;
    return Charge(p, &copy, &ignored);
  }
  void Add(const PricedInstance& p) override { bill_.effective += Charge(p, &left_, &bill_); }
  CostBreakdown Bill() const override { return bill_; }

 private:
  // Applies `p` to the commitments in `left`, adds its usage to `bill`, returns its cost.
  double Charge(const PricedInstance& p, Remaining* left, CostBreakdown* bill) const {
    if (p.capacity_type == kCapacityTypeSpot) {
      bill->spot += p.list_price;
      return p.list_price;
    }
    if (p.capacity_type == kCapacityTypeReserved && TakeReservation(p, left)) return 0;
    double uncovered = 1.0;
    if (p.capacity_type == kCapacityTypeOnDemand) uncovered = CoverByRis(p, left);
    double cost = 0;
    if (uncovered > kEpsilon && p.capacity_type == kCapacityTypeOnDemand) {
      cost = CoverBySavingsPlans(p, left, &uncovered);
      bill->discounted += cost;
    }
    if (uncovered > kEpsilon) {
      bill->on_demand += uncovered * p.list_price;
      cost += uncovered * p.list_price;
    }
    return cost;
  }

  bool TakeReservation(const PricedInstance& p, Remaining* left) const {
    const auto& crs = c_->capacity_reservations;
    for (size_t i = 0; i < crs.size(); ++i) {
      const bool match = p.reservation_id.empty()
                             ? crs[i].instance_type == p.instance_type && crs[i].zone == p.zone
                             : crs[i].id == p.reservation_id;
      if (match && left->cr[i] > 0) {
        --left->cr[i];
        return true;
      }
    }
    return false;
  }

  // The uncovered fraction of `p` after zonal, regional and size-flexible RIs.
  double CoverByRis(const PricedInstance& p, Remaining* left) const {
    const auto& ris = c_->reserved_instances;
    // Whole instances: zonal RIs first, then regional ones of the type.
    for (bool zonal : {true, false}) {
      for (size_t i = 0; i < ris.size(); ++i) {
        const ReservedInstance& ri = ris[i];
        if (left->ri[i] < 1 || ri.size_flexible || ri.instance_type != p.instance_type) continue;
        if (zonal ? ri.zone != p.zone : !ri.zone.empty() || !InRegion(p.zone, ri.region)) continue;
        left->ri[i] -= 1;
        return 0;
      }
    }
    std::optional<double> nf = NormalizationFactor(p.instance_type, c_->normalization_factors);
    if (!nf) return 1.0;
    double uncovered = 1.0;
    for (size_t i = 0; i < ris.size() && uncovered > kEpsilon; ++i) {
      const ReservedInstance& ri = ris[i];
      if (!ri.size_flexible || left->ri[i] <= kEpsilon ||
          FamilyOf(ri.instance_type) != FamilyOf(p.instance_type) || !InRegion(p.zone, ri.region)) {
        continue;
      }
      const double taken = std::min(left->ri[i], *nf * uncovered);
      left->ri[i] -= taken;
      uncovered -= taken / *nf;
    }
    return uncovered;
  }

  // Draws `p`'s uncovered fraction from the plans; returns what it costs at their rates.
  double CoverBySavingsPlans(const PricedInstance& p, Remaining* left, double* uncovered) const {
    double cost = 0;
    const auto& sps = c_->savings_plans;
    for (SavingsPlanType type : {SavingsPlanType::kEc2Instance, SavingsPlanType::kCompute}) {
      for (size_t i = 0; i < sps.size() && *uncovered > kEpsilon; ++i) {
        const SavingsPlan& sp = sps[i];
        if (sp.type != type || left->sp[i] <= kEpsilon) continue;
        if (type == SavingsPlanType::kEc2Instance &&
            (sp.family != FamilyOf(p.instance_type) || !InRegion(p.zone, sp.region))) {
          continue;
        }
        const double rate = p.list_price * (1 - DiscountOf(sp, p.instance_type));
        if (rate <= 0) {
          *uncovered = 0;
          break;
        }
        const double taken = std::min(left->sp[i], rate * *uncovered);
        left->sp[i] -= taken;
        cost += taken;
        *uncovered -= taken / rate;
      }
    }
    return cost;
  }

  static double DiscountOf(const SavingsPlan& sp, const std::string& type) {
    auto it = sp.discounts.find(type);
    if (it == sp.discounts.end()) it = sp.discounts.find(FamilyOf(type));
    return it == sp.discounts.end() ? sp.default_discount : it->second;
  }

  std::shared_ptr<const Commitments> c_;
  Remaining left_;
  CostBreakdown bill_;
};

class CommitmentPricing : public PricingModel {
 public:
  explicit CommitmentPricing(Commitments c)
      : c_(std::make_shared<const Commitments>(std::move(c))) {
    for (const ReservedInstance& ri : c_->reserved_instances) {
      fixed_.committed += static_cast<double>(ri.count) * ri.hourly_price;
    }
    for (const SavingsPlan& sp : c_->savings_plans) fixed_.committed += sp.hourly_commitment;
    for (const CapacityReservation& cr : c_->capacity_reservations) {
      fixed_.committed += static_cast<double>(cr.count) * cr.hourly_price;
    }
  }

  std::unique_ptr<PricingLedger> Start(std::vector<PricedInstance> running) const override {
    CanonicalOrder(running);
    auto ledger = std::make_unique<CommitmentLedger>(c_, fixed_);
    for (const PricedInstance& p : running) ledger->Add(p);
    return ledger;
  }

 private:
  std::shared_ptr<const Commitments> c_;
  CostBreakdown fixed_;
};

}  // namespace

std::optional<double> NormalizationFactor(const std::string& instance_type,
                                          const std::map<std::string, double>& overrides) {
  if (auto it = overrides.find(instance_type); it != overrides.end()) return it->second;
  const std::string size = SizeOf(instance_type);
  if (auto it = overrides.find(size); it != overrides.end()) return it->second;
  static const std::map<std::string, double> kTable = {
      {"nano", 0.25}, {"micro", 0.5}, {"small", 1}, {"medium", 2}, {"large", 4}, {"xlarge", 8}};
  if (auto it = kTable.find(size); it != kTable.end()) return it->second;
  constexpr std::string_view kXlarge = "xlarge";
  if (size.size() > kXlarge.size() &&
      size.compare(size.size() - kXlarge.size(), kXlarge.size(), kXlarge) == 0) {
    const std::string n = size.substr(0, size.size() - kXlarge.size());
    char* end = nullptr;
    const long v = std::strtol(n.c_str(), &end, 10);
    if (end != n.c_str() && *end == '\0' && v > 0 && v <= 1024) return 8.0 * static_cast<double>(v);
  }
  return std::nullopt;
}

absl::Status Commitments::Validate() const {
  KARP_RETURN_IF_ERROR(CheckIds("reservedInstances", reserved_instances));
  KARP_RETURN_IF_ERROR(CheckIds("savingsPlans", savings_plans));
  KARP_RETURN_IF_ERROR(CheckIds("capacityReservations", capacity_reservations));
  for (size_t i = 0; i < reserved_instances.size(); ++i) {
    KARP_RETURN_IF_ERROR(ValidateReservedInstance(reserved_instances[i], i));
  }
  for (size_t i = 0; i < savings_plans.size(); ++i) {
    KARP_RETURN_IF_ERROR(ValidateSavingsPlan(savings_plans[i], i));
  }
  for (size_t i = 0; i < capacity_reservations.size(); ++i) {
    KARP_RETURN_IF_ERROR(ValidateCapacityReservation(capacity_reservations[i], i));
  }
  for (const auto& [key, f] : normalization_factors) {
    if (!std::isfinite(f) || f <= 0) {
      return absl::InvalidArgumentError(
          internal::StrCat("normalizationFactors.", key, ": must be a finite number > 0"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const PricingModel>> MakeCommitmentPricing(Commitments commitments,
                                                                          absl::Time now) {
  KARP_RETURN_IF_ERROR(commitments.Validate());
  KeepActive(&commitments.reserved_instances, now);
  KeepActive(&commitments.savings_plans, now);
  KeepActive(&commitments.capacity_reservations, now);
  return std::shared_ptr<const PricingModel>(
      std::make_shared<CommitmentPricing>(std::move(commitments)));
}

std::vector<std::string> UnmatchedCommitments(const Commitments& commitments,
                                              const InstanceCatalog& catalog) {
  std::set<std::string, std::less<>> zones, families;
  for (const InstanceType& it : catalog.instance_types()) {
    families.insert(it.name.substr(0, it.name.find('.')));
    for (const Offering& o : it.offerings) zones.insert(o.zone);
  }
  auto region_known = [&](const std::string& region) {
    // A zone is its region and a letter (us-east-1a) or a local zone suffix (us-east-1-bos-1a).
    auto it = zones.lower_bound(region);
    return it != zones.end() && it->compare(0, region.size(), region) == 0 &&
           it->size() > region.size();
  };
  auto family_of = [](const std::string& type) { return type.substr(0, type.find('.')); };
  std::vector<std::string> out;
  auto note = [&](std::string_view what, size_t i, const std::string& id, std::string_view why) {
    out.push_back(internal::StrCat(what, "[", i, "] (", id, "): ", why, "; it lowers no price"));
  };
  for (size_t i = 0; i < commitments.reserved_instances.size(); ++i) {
    const ReservedInstance& ri = commitments.reserved_instances[i];
    if (ri.size_flexible && families.count(family_of(ri.instance_type)) == 0) {
      note("reservedInstances", i, ri.id,
           internal::StrCat("no instance type of family ", family_of(ri.instance_type),
                            " is in the catalog"));
    } else if (!ri.size_flexible && catalog.Find(ri.instance_type) == nullptr) {
      note("reservedInstances", i, ri.id,
           internal::StrCat("instance type ", ri.instance_type, " is not in the catalog"));
    } else if (!ri.zone.empty() && zones.count(ri.zone) == 0) {
      note("reservedInstances", i, ri.id,
           internal::StrCat("zone ", ri.zone, " has no offering in the catalog"));
    } else if (!ri.region.empty() && !region_known(ri.region)) {
      note("reservedInstances", i, ri.id,
           internal::StrCat("region ", ri.region, " has no zone in the catalog"));
    }
  }
  for (size_t i = 0; i < commitments.savings_plans.size(); ++i) {
    const SavingsPlan& sp = commitments.savings_plans[i];
    if (sp.type != SavingsPlanType::kEc2Instance) continue;
    if (families.count(sp.family) == 0) {
      note("savingsPlans", i, sp.id,
           internal::StrCat("no instance type of family ", sp.family, " is in the catalog"));
    } else if (!region_known(sp.region)) {
      note("savingsPlans", i, sp.id,
           internal::StrCat("region ", sp.region, " has no zone in the catalog"));
    }
  }
  for (size_t i = 0; i < commitments.capacity_reservations.size(); ++i) {
    const CapacityReservation& cr = commitments.capacity_reservations[i];
    if (catalog.Find(cr.instance_type) == nullptr) {
      note("capacityReservations", i, cr.id,
           internal::StrCat("instance type ", cr.instance_type, " is not in the catalog"));
    } else if (zones.count(cr.zone) == 0) {
      note("capacityReservations", i, cr.id,
           internal::StrCat("zone ", cr.zone, " has no offering in the catalog"));
    }
  }
  return out;
}

}  // namespace karp
