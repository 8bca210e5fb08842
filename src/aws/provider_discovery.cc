#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "aws/aws_provider_impl.h"
#include "aws/discovery.h"
#include "aws/instance_profile_manager.h"
#include "aws/nodeclass_discovery.h"
#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {

using internal::StrCat;

std::optional<double> EmbeddedPrice(std::string_view type, std::string_view region) {
  return EmbeddedAwsOnDemandPrice(type, EmbeddedAwsCurrency(region).empty() ? "us-east-1" : region);
}

namespace {

// The instance types of `raw` for `catalog` (region, zones and spot prices set), each offered
// in its offered zones that are in `zone_filter` (empty: every zone). Fills `prices` with the
// available offerings; counts skipped types and embedded prices when the pointers are set.
std::vector<InstanceType> BuildTypes(const RawDiscovery& raw, const AwsCatalogOptions& catalog,
                                     const std::set<std::string>& zone_filter, PriceMap* prices,
                                     int* skipped, int* embedded_prices) {
  std::vector<InstanceType> out;
  for (AwsInstanceTypeInfo info : raw.infos) {
    auto o = raw.offered.find(info.name);
    std::vector<std::string> type_zones;
    if (o != raw.offered.end()) {
      for (const std::string& z : o->second) {
        if (!zone_filter.empty() && zone_filter.count(z) == 0) continue;
        type_zones.push_back(z);
      }
    }
    if (type_zones.empty()) {
      if (skipped != nullptr) ++*skipped;  // offered nowhere we can launch
      continue;
    }
    info.offered_zones = std::move(type_zones);
    std::optional<double> price;
    if (auto p = raw.on_demand.find(info.name); p != raw.on_demand.end()) {
      price = p->second;
    } else {
      price = EmbeddedPrice(info.name, catalog.region);
      if (price.has_value() && embedded_prices != nullptr) ++*embedded_prices;
    }
    absl::StatusOr<InstanceType> it = MakeAwsInstanceType(info, price, catalog);
    if (!it.ok()) {
      if (skipped != nullptr) ++*skipped;
      continue;
    }
    for (const Offering& off : it->offerings) {
      if (off.available) (*prices)[{off.capacity_type, it->name, off.zone}] = off.price;
    }
    out.push_back(std::move(*it));
  }
  return out;
}

}  // namespace

absl::Time AwsProviderImpl::Now() const {
  return options_.client.clock ? options_.client.clock() : absl::Now();
}

absl::StatusOr<std::shared_ptr<const AwsProviderImpl::Discovery>> AwsProviderImpl::Discover()
    const {
  auto d = std::make_shared<Discovery>();
  const absl::Time now = Now();
  KARP_ASSIGN_OR_RETURN(d->raw.infos, DescribeInstanceTypes(*client_, &d->stats.describe_pages));
  KARP_ASSIGN_OR_RETURN(d->raw.offered, DescribeInstanceTypeOfferings(*client_));
  const auto& offered = d->raw.offered;

  // Zones: configured, else every zone some type is offered in; narrowed to subnet zones.
  std::set<std::string> zone_set(options_.zones.begin(), options_.zones.end());
  if (zone_set.empty()) {
    for (const auto& [type, zones] : offered) zone_set.insert(zones.begin(), zones.end());
  }
  std::vector<std::string> zones = options_.zones.empty()
                                       ? std::vector<std::string>(zone_set.begin(), zone_set.end())
                                       : options_.zones;
  if (zones.empty()) {
    return absl::FailedPreconditionError(
        "aws discovery: DescribeInstanceTypeOfferings reported no availability zone");
  }

  std::map<std::string, double>& on_demand = d->raw.on_demand;
  if (options_.use_pricing_api) {
    absl::StatusOr<std::map<std::string, double>> api =
        GetOnDemandPrices(*client_, options_.client.region);
    if (api.ok()) {
      on_demand = std::move(*api);
      d->stats.on_demand_prices_api = static_cast<int>(on_demand.size());
    } else {
      d->stats.pricing_error = std::string(api.status().message());
    }
  } else {
    d->stats.pricing_error = "the Price List API is disabled (use_pricing_api=false)";
  }
  std::optional<SpotPrices>& spot = d->raw.spot;
  if (options_.use_spot_price_history) {
    absl::StatusOr<SpotPrices> s = DescribeSpotPrices(*client_, now);
    if (s.ok()) {
      spot = std::move(*s);
      for (const auto& [type, by_zone] : *spot) d->stats.spot_prices += by_zone.size();
    } else {
      d->stats.spot_price_error = std::string(s.status().message());
    }
  } else {
    d->stats.spot_price_error = "spot price history is disabled";
  }

  AwsCatalogOptions catalog = options_.catalog;
  catalog.region = options_.client.region;
  catalog.zones = zones;
  // Spot at DescribeSpotPriceHistory prices; until that succeeds, at the on-demand price (the
  // reference's seeding), not at the embedded catalog's estimates.
  catalog.estimate_spot_prices = false;
  if (spot.has_value()) catalog.spot_prices = *spot;
  // Sorted by name for deterministic output whatever the API's order.
  std::sort(
      d->raw.infos.begin(), d->raw.infos.end(),
      [](const AwsInstanceTypeInfo& a, const AwsInstanceTypeInfo& b) { return a.name < b.name; });
  std::set<std::string> zone_filter;
  for (const auto& [zone, subnet] : options_.subnets) zone_filter.insert(zone);
  d->types = BuildTypes(d->raw, catalog, zone_filter, &d->prices, &d->stats.skipped_types,
                        &d->stats.on_demand_prices_embedded);
  d->stats.instance_types = static_cast<int>(d->types.size());
  d->stats.zones = zones;
  return std::shared_ptr<const Discovery>(std::move(d));
}

absl::StatusOr<std::shared_ptr<const AwsProviderImpl::Discovery>>
AwsProviderImpl::CurrentDiscovery() const {
  const absl::Time now = Now();
  {
    absl::MutexLock lock(&mu_);
    if (discovery_ != nullptr && now - discovered_at_ < options_.catalog_refresh_interval) {
      return discovery_;
    }
  }
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const Discovery> fresh, Discover());
  absl::MutexLock lock(&mu_);
  discovery_ = fresh;
  discovered_at_ = now;
  return fresh;
}

absl::Status AwsProviderImpl::Refresh() const {
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const Discovery> fresh, Discover());
  absl::MutexLock lock(&mu_);
  discovery_ = fresh;
  discovered_at_ = Now();
  return absl::OkStatus();
}

AwsDiscoveryStats AwsProviderImpl::LastDiscovery() const {
  absl::MutexLock lock(&mu_);
  return discovery_ == nullptr ? AwsDiscoveryStats() : discovery_->stats;
}

absl::StatusOr<const Ec2NodeClass*> AwsProviderImpl::ClassFor(const NodePool& pool) const {
  const NodeClassRef& ref = pool.node_class_ref;
  if (!ref.kind.empty() && ref.kind != kEc2NodeClassKind) {
    return absl::FailedPreconditionError(StrCat("nodepool ", pool.metadata.name,
                                                ": nodeClassRef.kind \"", ref.kind, "\" is not ",
                                                kEc2NodeClassKind));
  }
  if (ref.name.empty()) {
    if (options_.node_classes.size() == 1) return &options_.node_classes.front();
    return absl::FailedPreconditionError(StrCat(
        "nodepool ", pool.metadata.name, ": nodeClassRef.name is empty and the aws provider has ",
        options_.node_classes.size(), " node classes"));
  }
  const Ec2NodeClass* nc = FindEc2NodeClass(options_.node_classes, ref.name);
  if (nc == nullptr) {
    return absl::FailedPreconditionError(StrCat("nodepool ", pool.metadata.name,
                                                ": ec2nodeclass \"", ref.name,
                                                "\" is not known to the aws provider"));
  }
  return nc;
}

absl::StatusOr<const Ec2NodeClass*> AwsProviderImpl::ClassForPoolName(const std::string& pool_name,
                                                                      NodePool* pool) const {
  {
    absl::MutexLock lock(&mu_);
    if (auto it = pools_.find(pool_name); it != pools_.end()) *pool = it->second;
  }
  if (pool->metadata.name == pool_name) return ClassFor(*pool);
  if (options_.node_classes.size() == 1) return &options_.node_classes.front();
  return absl::FailedPreconditionError(
      StrCat("nodepool ", pool_name,
             ": unknown to the aws provider (pass it to GetInstanceTypes or Catalog first) and "
             "there is more than one node class"));
}

absl::StatusOr<std::shared_ptr<const AwsProviderImpl::ClassState>>
AwsProviderImpl::CurrentClassState(const Ec2NodeClass& node_class) const {
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const Discovery> base, CurrentDiscovery());
  {
    absl::MutexLock lock(&mu_);
    auto it = class_states_.find(node_class.name());
    if (it != class_states_.end() && it->second->base == base) return it->second;
  }
  auto state = std::make_shared<ClassState>();
  state->base = base;
  DiscoveryOptions discovery;
  discovery.kubernetes_version = options_.kubernetes_version;
  discovery.ssm = MakeSsmGetter(client_.get(), options_.ssm_endpoint);
  discovery.now = Now();
  KARP_ASSIGN_OR_RETURN(state->status, ResolveEc2NodeClass(*client_, node_class, discovery));
  if (!node_class.role.empty()) {
    KARP_ASSIGN_OR_RETURN(state->status.instance_profile, profiles_->Ensure(node_class));
  }
  state->subnets = SubnetPerZone(state->status);
  KARP_ASSIGN_OR_RETURN(AwsCatalogOptions catalog, CatalogOptionsFor(node_class, options_.catalog));
  catalog.region = options_.client.region;
  catalog.zones.clear();
  std::set<std::string> zone_filter;
  for (const auto& [zone, subnet] : state->subnets) {
    catalog.zones.push_back(zone);
    zone_filter.insert(zone);
  }
  if (catalog.zones.empty()) {
    return absl::FailedPreconditionError(
        StrCat("ec2nodeclass \"", node_class.name(), "\": no subnet in any zone"));
  }
  catalog.spot_prices.reset();
  catalog.estimate_spot_prices = false;  // as in Discover()
  if (base->raw.spot.has_value()) catalog.spot_prices = *base->raw.spot;
  std::vector<InstanceType> types =
      BuildTypes(base->raw, catalog, zone_filter, &state->prices, nullptr, nullptr);
  KARP_ASSIGN_OR_RETURN(state->catalog, InstanceCatalog::Create(TypesWithAmi(types, state->status),
                                                                AwsWellKnownLabels()));
  absl::MutexLock lock(&mu_);
  std::shared_ptr<const ClassState>& slot = class_states_[node_class.name()];
  // Another caller may have resolved against the same discovery meanwhile: keep one state.
  if (slot == nullptr || slot->base != base) slot = std::move(state);
  return slot;
}

absl::StatusOr<Ec2NodeClassStatus> AwsProviderImpl::NodeClassStatus(const std::string& name) const {
  const Ec2NodeClass* nc = FindEc2NodeClass(options_.node_classes, name);
  if (nc == nullptr) {
    return absl::NotFoundError(
        StrCat("ec2nodeclass \"", name, "\" is not known to the aws provider"));
  }
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const ClassState> state, CurrentClassState(*nc));
  return state->status;
}

absl::StatusOr<std::vector<InstanceType>> AwsProviderImpl::GetInstanceTypes(
    const NodePool& pool) const {
  if (options_.node_classes.empty()) {
    KARP_ASSIGN_OR_RETURN(std::shared_ptr<const Discovery> d, CurrentDiscovery());
    return d->types;
  }
  KARP_ASSIGN_OR_RETURN(const Ec2NodeClass* nc, ClassFor(pool));
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const ClassState> state, CurrentClassState(*nc));
  {
    absl::MutexLock lock(&mu_);
    pools_[pool.metadata.name] = pool;
  }
  return state->catalog.instance_types();
}

absl::StatusOr<InstanceCatalog> AwsProviderImpl::Catalog(const NodePool& pool) const {
  KARP_ASSIGN_OR_RETURN(std::vector<InstanceType> types, GetInstanceTypes(pool));
  return InstanceCatalog::Create(std::move(types), AwsWellKnownLabels());
}

std::shared_ptr<const AwsProviderImpl::Discovery> AwsProviderImpl::DiscoveryInUse() const {
  absl::MutexLock lock(&mu_);
  return discovery_;
}

}  // namespace karp::aws
