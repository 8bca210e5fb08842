// Instance types and offerings (see karp/instance_type.h).

#include "karp/instance_type.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "karp/labels.h"

namespace karp {

Requirements Offering::ToRequirements() const {
  Requirements r;
  r.Add(Requirement::In(kLabelZone, {zone}));
  r.Add(Requirement::In(kLabelCapacityType, {capacity_type}));
  return r;
}

bool OfferingCompatible(const Requirements& reqs, const Offering& offering) {
  // Equivalent to reqs.IsCompatible(offering.ToRequirements(), well-known): both keys are
  // well-known, so only the intersection check applies, and an In [v] incoming requirement
  // intersects exactly when the existing requirement admits v.
  if (const Requirement* z = reqs.Find(kLabelZone); z != nullptr && !z->Has(offering.zone)) {
    return false;
  }
  if (const Requirement* c = reqs.Find(kLabelCapacityType);
      c != nullptr && !c->Has(offering.capacity_type)) {
    return false;
  }
  return true;
}

bool InstanceType::PriceOverlayApplied() const {
  for (const Offering& o : offerings) {
    if (o.price_overlay_applied) return true;
  }
  return false;
}

int CapacityTypeRank(std::string_view capacity_type) {
  if (capacity_type == kCapacityTypeReserved) return 0;
  if (capacity_type == kCapacityTypeSpot) return 1;
  if (capacity_type == kCapacityTypeOnDemand) return 2;
  return 3;
}

ResourceList Overhead::Total() const {
  ResourceList t = kube_reserved;
  t.Add(system_reserved);
  t.Add(eviction_threshold);
  return t;
}

InstanceType InstanceType::Make(std::string name, std::map<std::string, std::string> labels,
                                ResourceList capacity, Overhead overhead,
                                std::vector<Offering> offerings) {
  InstanceType it;
  it.name = std::move(name);
  it.labels = std::move(labels);
  it.capacity = std::move(capacity);
  it.overhead = std::move(overhead);
  it.offerings = std::move(offerings);
  it.RebuildRequirements();
  return it;
}

void InstanceType::RebuildRequirements(const Requirements& extra) {
  extra_requirements = extra;
  RebuildRequirements();
}

void InstanceType::RebuildRequirements() {
  Requirements r;
  for (const auto& [k, v] : labels) {
    if (k == kLabelZone || k == kLabelCapacityType || k == kLabelInstanceType) continue;
    r.Add(Requirement::In(k, {v}));
  }
  r.Add(Requirement::In(kLabelInstanceType, {name}));
  // Requirement::In sorts; the sets keep each value once as it is seen (a linear search per
  // offering made a type with 100,000 zones quadratic).
  std::vector<std::string> zones, capacity_types;
  absl::flat_hash_set<std::string_view> seen_zones, seen_capacity_types;
  for (const Offering& o : offerings) {
    if (!o.available) continue;
    if (seen_zones.insert(o.zone).second) zones.push_back(o.zone);
    if (seen_capacity_types.insert(o.capacity_type).second) {
      capacity_types.push_back(o.capacity_type);
    }
  }
  r.Add(Requirement::In(kLabelZone, std::move(zones)));
  r.Add(Requirement::In(kLabelCapacityType, std::move(capacity_types)));
  r.Add(extra_requirements);
  requirements = std::move(r);
}

ResourceList InstanceType::Allocatable() const {
  ResourceList a = capacity;
  a.Subtract(overhead.Total());
  int64_t hugepages = 0;
  capacity.ForEach([&](std::string_view resource, int64_t value) {
    if (resource.substr(0, 10) == "hugepages-") hugepages += value;
  });
  if (hugepages > 0 && a.Has(kResourceMemory)) {
    a.Set(kResourceMemory, std::max<int64_t>(0, a.memory() - hugepages));
  }
  return a;
}

const Offering* InstanceType::CheapestOffering(const Requirements& reqs) const {
  const Offering* best = nullptr;
  for (const Offering& o : offerings) {
    if (!o.available || !OfferingCompatible(reqs, o)) continue;
    if (best == nullptr || o.price < best->price ||
        (o.price == best->price &&
         (CapacityTypeRank(o.capacity_type) < CapacityTypeRank(best->capacity_type) ||
          (CapacityTypeRank(o.capacity_type) == CapacityTypeRank(best->capacity_type) &&
           o.zone < best->zone)))) {
      best = &o;
    }
  }
  return best;
}

double InstanceType::WorstLaunchPrice(const Requirements& reqs) const {
  int best_rank = 4;
  double worst = kNoPrice;
  for (const Offering& o : offerings) {
    if (!o.available || !OfferingCompatible(reqs, o)) continue;
    const int rank = CapacityTypeRank(o.capacity_type);
    if (rank < best_rank) {
      best_rank = rank;
      worst = o.price;
    } else if (rank == best_rank) {
      worst = std::max(worst, o.price);
    }
  }
  return worst;
}

bool InstanceType::HasCompatibleOffering(const Requirements& reqs) const {
  for (const Offering& o : offerings) {
    if (o.available && OfferingCompatible(reqs, o)) return true;
  }
  return false;
}

}  // namespace karp
