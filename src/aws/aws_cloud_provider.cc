#include "karp/aws/aws_cloud_provider.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "aws/batcher.h"
#include "aws/discovery.h"
#include "aws/ec2_client.h"
#include "aws/instance_profile_manager.h"
#include "aws/launch_template_manager.h"
#include "aws/nodeclass_discovery.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/aws/instance_profile.h"
#include "karp/labels.h"

namespace karp::aws {

using internal::StrCat;

namespace {

using PriceMap = std::map<std::tuple<std::string, std::string, std::string>, double>;

// The embedded on-demand price of `type` for `region`: the region's own table when one is
// embedded, else the us-east-1 table (the reference's fallback for other regions).
std::optional<double> EmbeddedPrice(std::string_view type, std::string_view region) {
  return EmbeddedAwsOnDemandPrice(type, EmbeddedAwsCurrency(region).empty() ? "us-east-1" : region);
}

// What the EC2 and pricing calls of one discovery returned, before any catalog options.
struct RawDiscovery {
  std::vector<AwsInstanceTypeInfo> infos;                   // sorted by name
  std::map<std::string, std::vector<std::string>> offered;  // type -> zones
  std::map<std::string, double> on_demand;                  // from the Price List API
  std::optional<SpotPrices> spot;
};

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

// One discovery: the instance types and what is needed to price instances later.
struct AwsCloudProvider::Discovery {
  RawDiscovery raw;
  // The static-mode types (options.catalog, options.zones / subnets).
  std::vector<InstanceType> types;
  AwsDiscoveryStats stats;
  // (capacity type, type, zone) -> price of the offering.
  PriceMap prices;
};

// EC2NodeClass mode: one class resolved against one discovery.
struct AwsCloudProvider::ClassState {
  std::shared_ptr<const Discovery> base;
  Ec2NodeClassStatus status;
  std::map<std::string, ResolvedSubnet> subnets;  // zone -> subnet (SubnetPerZone)
  InstanceCatalog catalog;                        // CatalogOptionsFor + TypesWithAmi
  PriceMap prices;
};

namespace {

constexpr int kMaxFleetInstanceTypes = 60;
// How long an ensured instance profile is trusted (the reference's cache).
constexpr absl::Duration kInstanceProfileCacheTtl = absl::Minutes(15);
const std::vector<std::string> kLiveStates = {"pending", "running", "stopping", "stopped",
                                              "shutting-down"};

std::string ClusterTagKey(const std::string& cluster) {
  return StrCat(kTagKeyClusterPrefix, cluster);
}

bool IsReservedTagKey(const std::string& key) {
  return key.rfind(kTagKeyClusterPrefix, 0) == 0 || key == kTagKeyNodePool ||
         key == kTagKeyEksClusterName || key == kTagKeyEc2NodeClass || key == kTagKeyNodeClaim;
}

std::string FormatPrice(double p) { return absl::StrFormat("%.6f", p); }

// An instance as DescribeInstances reports it, with what the guard and pricing need.
struct Described {
  std::string id;
  std::string type;
  std::string zone;
  std::string state;
  std::string capacity_type;
  std::map<std::string, std::string> tags;
  absl::Time launched_at = absl::UnixEpoch();
  std::string image_id;
  std::string subnet_id;
  std::vector<std::string> security_group_ids;
};

absl::StatusOr<std::vector<Described>> ParseReservations(const XmlResponse& page, int page_no) {
  std::vector<Described> out;
  std::vector<pugi::xml_node> reservations = XmlItems(page.root(), "reservationSet");
  for (size_t r = 0; r < reservations.size(); ++r) {
    std::vector<pugi::xml_node> instances = XmlItems(reservations[r], "instancesSet");
    for (size_t i = 0; i < instances.size(); ++i) {
      const std::string where =
          StrCat("EC2 DescribeInstances: page ", page_no, " reservationSet/item[", r + 1,
                 "]/instancesSet/item[", i + 1, "]");
      Described d;
      KARP_ASSIGN_OR_RETURN(d.id, XmlRequiredText(instances[i], "instanceId", where));
      KARP_ASSIGN_OR_RETURN(d.type, XmlRequiredText(instances[i], "instanceType", where));
      KARP_ASSIGN_OR_RETURN(d.zone,
                            XmlRequiredText(instances[i], "placement/availabilityZone", where));
      KARP_ASSIGN_OR_RETURN(d.state, XmlRequiredText(instances[i], "instanceState/name", where));
      if (XmlText(instances[i], "instanceLifecycle") == "spot" ||
          !XmlText(instances[i], "spotInstanceRequestId").empty()) {
        d.capacity_type = "spot";
      } else if (!XmlText(instances[i], "capacityReservationId").empty()) {
        d.capacity_type = "reserved";
      } else {
        d.capacity_type = "on-demand";
      }
      d.image_id = XmlText(instances[i], "imageId");
      d.subnet_id = XmlText(instances[i], "subnetId");
      for (pugi::xml_node g : XmlItems(instances[i], "groupSet")) {
        const std::string id = XmlText(g, "groupId");
        if (!id.empty()) d.security_group_ids.push_back(id);
      }
      std::vector<pugi::xml_node> tags = XmlItems(instances[i], "tagSet");
      for (size_t t = 0; t < tags.size(); ++t) {
        KARP_ASSIGN_OR_RETURN(
            std::string key,
            XmlRequiredText(tags[t], "key", StrCat(where, "/tagSet/item[", t + 1, "]")));
        d.tags[key] = XmlText(tags[t], "value");
      }
      const std::string launch = XmlText(instances[i], "launchTime");
      if (!launch.empty()) {
        std::string err;
        if (!absl::ParseTime(absl::RFC3339_full, launch, &d.launched_at, &err)) {
          return absl::InternalError(StrCat(where, "/launchTime: not RFC 3339: \"", launch, "\""));
        }
      }
      out.push_back(std::move(d));
    }
  }
  return out;
}

// OK, or InvalidArgument naming the first bad window.
absl::Status ValidateBatching(const AwsBatchingOptions& batching) {
  for (const auto& [field, w] : {std::pair{"create_fleet", &batching.create_fleet},
                                 std::pair{"describe_instances", &batching.describe_instances},
                                 std::pair{"terminate_instances", &batching.terminate_instances}}) {
    if (w->idle < absl::ZeroDuration() || w->max < w->idle || w->max_items < 1 ||
        w->max_items > 1000) {
      return absl::InvalidArgumentError(
          StrCat("aws cloud provider options: batching.", field,
                 ": want idle >= 0, max >= idle and max_items in [1, 1000]"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<AwsProviderId> ParseAwsProviderId(std::string_view provider_id) {
  constexpr std::string_view kPrefix = "aws:///";
  if (provider_id.substr(0, kPrefix.size()) != kPrefix) {
    return absl::InvalidArgumentError(
        StrCat("provider id \"", provider_id, "\" does not start with aws:///"));
  }
  std::string_view rest = provider_id.substr(kPrefix.size());
  const size_t slash = rest.rfind('/');
  AwsProviderId id;
  id.zone = std::string(slash == std::string_view::npos ? "" : rest.substr(0, slash));
  id.instance_id = std::string(slash == std::string_view::npos ? rest : rest.substr(slash + 1));
  if (id.instance_id.rfind("i-", 0) != 0 || id.instance_id.size() < 3) {
    return absl::InvalidArgumentError(
        StrCat("provider id \"", provider_id, "\" does not end in an instance id (i-...)"));
  }
  return id;
}

absl::Status AwsCloudProviderOptions::Validate() const {
  if (cluster_name.empty()) {
    return absl::InvalidArgumentError("aws cloud provider options: cluster_name is empty");
  }
  KARP_RETURN_IF_ERROR(client.Validate());
  if (node_class_name.empty()) {
    return absl::InvalidArgumentError("aws cloud provider options: node_class_name is empty");
  }
  if (!node_classes.empty()) {
    if (!subnets.empty() || !zones.empty() || !launch_template_name.empty() ||
        launch_templates_for) {
      return absl::InvalidArgumentError(
          "aws cloud provider options: with node_classes, subnets, zones, launch_template_name "
          "and launch_templates_for must be empty (the node classes choose subnets, zones and "
          "launch templates)");
    }
    std::set<std::string> names;
    for (const Ec2NodeClass& nc : node_classes) {
      KARP_RETURN_IF_ERROR(ValidateEc2NodeClass(nc));
      if (!names.insert(nc.name()).second) {
        return absl::InvalidArgumentError(
            StrCat("aws cloud provider options: node_classes: duplicate name \"", nc.name(), "\""));
      }
      if (nc.Alias().has_value() && kubernetes_version.empty()) {
        return absl::InvalidArgumentError(
            StrCat("aws cloud provider options: kubernetes_version is empty but ec2nodeclass \"",
                   nc.name(), "\" selects its AMI by alias"));
      }
    }
    if (!cluster.name.empty() && cluster.name != cluster_name) {
      return absl::InvalidArgumentError(StrCat("aws cloud provider options: cluster.name \"",
                                               cluster.name, "\" differs from cluster_name \"",
                                               cluster_name, "\""));
    }
  } else if (!launch_templates_for && launch_template_name.empty()) {
    return absl::InvalidArgumentError(
        "aws cloud provider options: launch_template_name is empty and no launch_templates_for "
        "hook is set");
  }
  for (const auto& [key, value] : tags) {
    if (key.empty()) {
      return absl::InvalidArgumentError("aws cloud provider options: a tag has an empty key");
    }
    if (IsReservedTagKey(key)) {
      return absl::InvalidArgumentError(StrCat("aws cloud provider options: tag \"", key,
                                               "\" is set by karp and cannot be overridden"));
    }
  }
  for (const auto& [zone, subnet] : subnets) {
    if (zone.empty() || subnet.empty()) {
      return absl::InvalidArgumentError(
          "aws cloud provider options: subnets has an empty zone or subnet id");
    }
  }
  KARP_RETURN_IF_ERROR(ValidateBatching(batching));
  if (catalog_refresh_interval < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "aws cloud provider options: catalog_refresh_interval is negative");
  }
  AwsCatalogOptions c = catalog;
  c.region = client.region;
  c.zones = zones;
  c.spot_prices.reset();
  return c.Validate();
}

absl::StatusOr<std::unique_ptr<AwsCloudProvider>> AwsCloudProvider::Create(
    AwsCloudProviderOptions options) {
  KARP_RETURN_IF_ERROR(options.Validate());
  KARP_ASSIGN_OR_RETURN(std::unique_ptr<Ec2Client> client, Ec2Client::Create(options.client));
  return std::unique_ptr<AwsCloudProvider>(
      new AwsCloudProvider(std::move(options), std::move(client)));
}

AwsCloudProvider::AwsCloudProvider(AwsCloudProviderOptions options,
                                   std::unique_ptr<Ec2Client> client)
    : options_(std::move(options)),
      client_(std::move(client)),
      templates_(std::make_unique<LaunchTemplateManager>(client_.get(), options_.cluster_name)),
      profiles_(std::make_unique<InstanceProfileManager>(client_.get(), options_.cluster_name,
                                                         kInstanceProfileCacheTtl,
                                                         [this] { return Now(); })),
      batchers_(std::make_unique<Batchers>(this)) {
  if (options_.cluster.name.empty()) options_.cluster.name = options_.cluster_name;
}

AwsCloudProvider::~AwsCloudProvider() = default;

absl::Time AwsCloudProvider::Now() const {
  return options_.client.clock ? options_.client.clock() : absl::Now();
}

absl::StatusOr<std::shared_ptr<const AwsCloudProvider::Discovery>> AwsCloudProvider::Discover()
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

absl::StatusOr<std::shared_ptr<const AwsCloudProvider::Discovery>>
AwsCloudProvider::CurrentDiscovery() const {
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

absl::Status AwsCloudProvider::Refresh() const {
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const Discovery> fresh, Discover());
  absl::MutexLock lock(&mu_);
  discovery_ = fresh;
  discovered_at_ = Now();
  return absl::OkStatus();
}

AwsDiscoveryStats AwsCloudProvider::LastDiscovery() const {
  absl::MutexLock lock(&mu_);
  return discovery_ == nullptr ? AwsDiscoveryStats() : discovery_->stats;
}

absl::StatusOr<const Ec2NodeClass*> AwsCloudProvider::ClassFor(const NodePool& pool) const {
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

absl::StatusOr<const Ec2NodeClass*> AwsCloudProvider::ClassForPoolName(const std::string& pool_name,
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

absl::StatusOr<std::shared_ptr<const AwsCloudProvider::ClassState>>
AwsCloudProvider::CurrentClassState(const Ec2NodeClass& node_class) const {
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

absl::StatusOr<Ec2NodeClassStatus> AwsCloudProvider::NodeClassStatus(
    const std::string& name) const {
  const Ec2NodeClass* nc = FindEc2NodeClass(options_.node_classes, name);
  if (nc == nullptr) {
    return absl::NotFoundError(
        StrCat("ec2nodeclass \"", name, "\" is not known to the aws provider"));
  }
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const ClassState> state, CurrentClassState(*nc));
  return state->status;
}

absl::StatusOr<std::vector<InstanceType>> AwsCloudProvider::GetInstanceTypes(
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

absl::StatusOr<InstanceCatalog> AwsCloudProvider::Catalog(const NodePool& pool) const {
  KARP_ASSIGN_OR_RETURN(std::vector<InstanceType> types, GetInstanceTypes(pool));
  return InstanceCatalog::Create(std::move(types), AwsWellKnownLabels());
}

absl::StatusOr<Instance> AwsCloudProvider::Create(const LaunchRequest& request,
                                                  std::vector<LaunchOption>* failed) {
  KARP_ASSIGN_OR_RETURN(auto launched, CreateWithDetails(request, failed));
  return std::move(launched.first);
}

std::optional<AwsLaunchDetails> AwsCloudProvider::LaunchDetails(
    const std::string& provider_id) const {
  absl::MutexLock lock(&mu_);
  auto it = launches_.find(provider_id);
  if (it == launches_.end()) return std::nullopt;
  return it->second;
}

namespace {

// (launch template name, its overrides) per CreateFleet LaunchTemplateConfigs entry.
using LaunchTemplateConfigs = std::vector<std::pair<std::string, std::vector<FleetOverride>>>;

// The capacity type a request launches: reserved when its first option is (the Launcher puts
// reserved capacity first at equal price, and a pricing model's choice first), else spot when
// one of its options allows it, else on-demand (§3.1); "" when there is none of these.
std::string ChooseCapacityType(const std::vector<LaunchOption>& options) {
  if (!options.empty() && options.front().capacity_type == kCapacityTypeReserved) {
    return std::string(kCapacityTypeReserved);
  }
  std::string capacity_type;
  for (const LaunchOption& o : options) {
    if (o.capacity_type == "spot") capacity_type = "spot";
    if (o.capacity_type == "on-demand" && capacity_type.empty()) capacity_type = "on-demand";
  }
  return capacity_type;
}

// The options of `capacity_type`, in the given (cheapest-first) order, for at most 60 instance
// types, in zones for which `has_subnet` holds; each (type, zone) once.
std::vector<LaunchOption> ChooseOptions(const std::vector<LaunchOption>& options,
                                        const std::string& capacity_type,
                                        const std::function<bool(const std::string&)>& has_subnet) {
  std::vector<LaunchOption> chosen;
  std::vector<std::string> types;
  std::set<std::pair<std::string, std::string>> seen;
  for (const LaunchOption& o : options) {
    if (o.capacity_type != capacity_type) continue;
    if (!has_subnet(o.zone)) continue;
    if (!seen.insert({o.instance_type, o.zone}).second) continue;
    if (std::find(types.begin(), types.end(), o.instance_type) == types.end()) {
      if (static_cast<int>(types.size()) >= kMaxFleetInstanceTypes) continue;
      types.push_back(o.instance_type);
    }
    chosen.push_back(o);
  }
  return chosen;
}

// Keeps the reservation ids of `chosen` that name a targeted reservation of `reservations`
// and clears the others (open reservations need no naming). Errors: FailedPrecondition in
// static mode (`static_mode`) when an option names a targeted reservation, as karp cannot
// derive a launch template that targets it from the host's.
absl::Status KeepTargetedReservations(const std::vector<CapacityReservation>& reservations,
                                      bool static_mode, const std::string& claim_name,
                                      std::vector<LaunchOption>* chosen) {
  std::set<std::string> targeted;
  for (const CapacityReservation& r : reservations) {
    if (r.targeted) targeted.insert(r.id);
  }
  for (LaunchOption& o : *chosen) {
    if (targeted.count(o.reservation_id) == 0) {
      o.reservation_id.clear();
    } else if (static_mode) {
      return absl::FailedPreconditionError(
          StrCat("aws create nodeclaim ", claim_name, ": capacity reservation ", o.reservation_id,
                 " is targeted; launching into it needs EC2NodeClass mode "
                 "(karp creates the launch template naming it)"));
    }
  }
  return absl::OkStatus();
}

// Static mode: the overrides of template `t`, one per chosen option of a type it serves (every
// type when it names none), with the zone's subnet of `subnets` ("" when none).
std::vector<FleetOverride> StaticOverrides(const FleetLaunchTemplate& t,
                                           const std::vector<LaunchOption>& chosen,
                                           const std::map<std::string, std::string>& subnets) {
  std::vector<FleetOverride> overrides;
  for (const LaunchOption& o : chosen) {
    if (!t.instance_types.empty() && std::find(t.instance_types.begin(), t.instance_types.end(),
                                               o.instance_type) == t.instance_types.end()) {
      continue;
    }
    auto subnet = subnets.find(o.zone);
    overrides.push_back({o.instance_type, o.zone, subnet == subnets.end() ? "" : subnet->second,
                         t.image_id, o.price});
  }
  return overrides;
}

// One CreateFleet request: an instant fleet of one instance of `capacity_type` from the
// overrides of `configs`, tagging the instance, its volumes and the fleet with `tags`.
struct FleetRequest {
  std::string capacity_type;
  LaunchTemplateConfigs configs;
  std::map<std::string, std::string> tags;

  // The EC2 Query API parameters, with `client_token` as the idempotency token (omitted when
  // empty) and `capacity` instances.
  QueryParams Encode(const std::string& client_token, size_t capacity = 1) const {
    QueryParams params;
    params.emplace_back("Type", "instant");
    if (!client_token.empty()) params.emplace_back("ClientToken", client_token);
    params.emplace_back("TargetCapacitySpecification.TotalTargetCapacity",
                        std::to_string(capacity));
    // Reserved capacity: an on-demand fleet that uses open capacity reservations first.
    const bool reserved = capacity_type == kCapacityTypeReserved;
    params.emplace_back("TargetCapacitySpecification.DefaultTargetCapacityType",
                        reserved ? std::string(kCapacityTypeOnDemand) : capacity_type);
    if (capacity_type == "spot") {
      params.emplace_back("SpotOptions.AllocationStrategy", "price-capacity-optimized");
    } else {
      params.emplace_back("OnDemandOptions.AllocationStrategy", "lowest-price");
    }
    if (reserved) {
      params.emplace_back("OnDemandOptions.CapacityReservationOptions.UsageStrategy",
                          "use-capacity-reservations-first");
    }
    for (size_t c = 0; c < configs.size(); ++c) {
      EncodeConfig(StrCat("LaunchTemplateConfigs.", c + 1), configs[c], &params);
    }
    int spec = 0;
    for (const char* resource : {"instance", "volume", "fleet"}) {
      ++spec;
      params.emplace_back(StrCat("TagSpecification.", spec, ".ResourceType"), resource);
      int n = 0;
      for (const auto& [k, v] : tags) {
        ++n;
        params.emplace_back(StrCat("TagSpecification.", spec, ".Tag.", n, ".Key"), k);
        params.emplace_back(StrCat("TagSpecification.", spec, ".Tag.", n, ".Value"), v);
      }
    }
    return params;
  }

 private:
  // One LaunchTemplateConfigs entry under `prefix` ("LaunchTemplateConfigs.<n>").
  static void EncodeConfig(const std::string& prefix,
                           const std::pair<std::string, std::vector<FleetOverride>>& config,
                           QueryParams* params) {
    params->emplace_back(StrCat(prefix, ".LaunchTemplateSpecification.LaunchTemplateName"),
                         config.first);
    params->emplace_back(StrCat(prefix, ".LaunchTemplateSpecification.Version"), "$Latest");
    const std::vector<FleetOverride>& overrides = config.second;
    for (size_t m = 0; m < overrides.size(); ++m) {
      const std::string op = StrCat(prefix, ".Overrides.", m + 1);
      params->emplace_back(StrCat(op, ".InstanceType"), overrides[m].instance_type);
      if (!overrides[m].subnet_id.empty()) {
        params->emplace_back(StrCat(op, ".SubnetId"), overrides[m].subnet_id);
      }
      if (!overrides[m].image_id.empty()) {
        params->emplace_back(StrCat(op, ".ImageId"), overrides[m].image_id);
      }
      params->emplace_back(StrCat(op, ".AvailabilityZone"), overrides[m].zone);
      params->emplace_back(StrCat(op, ".Priority"), FormatPrice(overrides[m].priority));
    }
  }
};

constexpr std::string_view kCreateFleet = "EC2 CreateFleet";

// The errorSet of a CreateFleet response.
struct FleetErrors {
  std::vector<std::string> capacity;  // insufficient capacity: "code (type/zone)"
  std::vector<std::string> other;     // every other error: "code: message"
  std::string first_other_code;
};

// Reads the errorSet of `resp`; the chosen options an insufficient-capacity error names are
// added to `failed` (when set), each once. Errors: Internal for an item without errorCode.
absl::StatusOr<FleetErrors> ParseFleetErrors(const XmlResponse& resp,
                                             const std::vector<LaunchOption>& chosen,
                                             std::vector<LaunchOption>* failed) {
  FleetErrors out;
  std::set<std::tuple<std::string, std::string, std::string>> failed_keys;
  std::vector<pugi::xml_node> errors = XmlItems(resp.root(), "errorSet");
  for (size_t i = 0; i < errors.size(); ++i) {
    const std::string code = XmlText(errors[i], "errorCode");
    const std::string message = XmlText(errors[i], "errorMessage");
    const std::string type =
        XmlText(errors[i], "launchTemplateAndOverrides/overrides/instanceType");
    const std::string zone =
        XmlText(errors[i], "launchTemplateAndOverrides/overrides/availabilityZone");
    if (code.empty()) {
      return absl::InternalError(
          StrCat(kCreateFleet, ": errorSet/item[", i + 1, "]/errorCode: missing"));
    }
    if (!IsInsufficientCapacityCode(code)) {
      if (out.first_other_code.empty()) out.first_other_code = code;
      out.other.push_back(StrCat(code, ": ", message));
      continue;
    }
    std::string reservation;  // the targeted reservation of the failed option, if any
    for (const LaunchOption& o : chosen) {
      if (o.instance_type != type || (!zone.empty() && o.zone != zone)) continue;
      if (reservation.empty() && !o.reservation_id.empty()) {
        reservation = StrCat(", capacity reservation ", o.reservation_id);
      }
      if (failed_keys.insert({o.capacity_type, o.instance_type, o.zone}).second &&
          failed != nullptr) {
        failed->push_back(o);
      }
    }
    out.capacity.push_back(StrCat(code, " (", type.empty() ? "?" : type, "/",
                                  zone.empty() ? "?" : zone, reservation, ")"));
  }
  return out;
}

// The instance a CreateFleet response reports launched.
struct FleetInstance {
  std::string id;
  std::string instance_type;
  std::string zone;
  std::string lifecycle;  // "spot" for spot instances
};

// Every instance of the fleetInstanceSet of `resp` (one per instance id), in response order.
// Errors: Internal for an empty id or a missing type or zone.
absl::StatusOr<std::vector<FleetInstance>> ParseFleetInstances(const XmlResponse& resp) {
  std::vector<FleetInstance> out;
  std::vector<pugi::xml_node> launched = XmlItems(resp.root(), "fleetInstanceSet");
  for (size_t i = 0; i < launched.size(); ++i) {
    const std::string w = StrCat(kCreateFleet, ": fleetInstanceSet/item[", i + 1, "]");
    FleetInstance x;
    x.instance_type = XmlText(launched[i], "launchTemplateAndOverrides/overrides/instanceType");
    if (x.instance_type.empty()) x.instance_type = XmlText(launched[i], "instanceType");
    x.zone = XmlText(launched[i], "launchTemplateAndOverrides/overrides/availabilityZone");
    if (x.zone.empty()) x.zone = XmlText(launched[i], "availabilityZone");
    x.lifecycle = XmlText(launched[i], "lifecycle");
    std::vector<pugi::xml_node> ids = XmlItems(launched[i], "instanceIds");
    for (size_t j = 0; j < ids.size(); ++j) {
      x.id = ids[j].text().get();
      if (x.id.empty()) {
        return absl::InternalError(StrCat(w, "/instanceIds/item[", j + 1, "]: empty"));
      }
      if (x.instance_type.empty()) return absl::InternalError(StrCat(w, "/instanceType: missing"));
      if (x.zone.empty()) {
        return absl::InternalError(
            StrCat(w, "/launchTemplateAndOverrides/overrides/availabilityZone: missing"));
      }
      out.push_back(x);
    }
  }
  return out;
}

// The launched instance `x` of `claim` as a karp Instance: priced as its chosen option,
// labelled as the claim plus the well-known labels of what was launched.
Instance LaunchedInstance(const NewNodeClaim& claim, const FleetInstance& x,
                          const std::string& capacity_type, const std::vector<LaunchOption>& chosen,
                          const std::string& region, absl::Time launched_at) {
  const std::string launched_capacity = x.lifecycle == "spot" ? "spot" : capacity_type;
  Instance out;
  out.instance_type = x.instance_type;
  out.zone = x.zone;
  out.capacity_type = launched_capacity;
  out.provider_id = StrCat("aws:///", x.zone, "/", x.id);
  out.node_pool = claim.node_pool;
  for (const LaunchOption& o : chosen) {
    if (o.instance_type == x.instance_type && o.zone == x.zone) out.price = o.price;
  }
  out.labels = claim.labels;
  out.labels[std::string(kLabelInstanceType)] = x.instance_type;
  out.labels[std::string(kLabelZone)] = x.zone;
  out.labels[std::string(kLabelRegion)] = region;
  out.labels[std::string(kLabelCapacityType)] = launched_capacity;
  out.labels[std::string(kLabelNodePool)] = claim.node_pool;
  out.launched_at = launched_at;
  return out;
}

// Records in `details` the launch template and override of `configs` that launched `x`: the
// first that lists its type and zone.
void RecordLaunchTemplate(const LaunchTemplateConfigs& configs, const FleetInstance& x,
                          AwsLaunchDetails* details) {
  for (const auto& [name, overrides] : configs) {
    for (const FleetOverride& o : overrides) {
      if (o.instance_type != x.instance_type || o.zone != x.zone ||
          !details->launch_template.empty()) {
        continue;
      }
      details->launch_template = name;
      details->subnet_id = o.subnet_id;
      details->image_id = o.image_id;
    }
  }
}

// The status of a CreateFleet for `claim_name` that launched nothing: the code of the first
// other error (Internal instead of ResourceExhausted) quoting every error; else
// ResourceExhausted for capacity errors alone; else Internal.
absl::Status FleetFailure(const std::string& claim_name, const FleetErrors& errors) {
  if (!errors.other.empty()) {
    const absl::StatusCode code = StatusCodeForAwsError(errors.first_other_code, 400);
    return WithAwsErrorCode(
        absl::Status(
            code == absl::StatusCode::kResourceExhausted ? absl::StatusCode::kInternal : code,
            StrCat(kCreateFleet, " for nodeclaim ", claim_name,
                   " launched nothing: ", absl::StrJoin(errors.other, "; "),
                   errors.capacity.empty()
                       ? ""
                       : StrCat("; capacity: ", absl::StrJoin(errors.capacity, ", ")))),
        errors.first_other_code);
  }
  if (!errors.capacity.empty()) {
    return absl::ResourceExhaustedError(StrCat("insufficient capacity for nodeclaim ", claim_name,
                                               ": ", absl::StrJoin(errors.capacity, ", ")));
  }
  return absl::InternalError(StrCat(kCreateFleet, " for nodeclaim ", claim_name,
                                    ": the response has neither instances nor errors"));
}

// DescribeInstances with `params`, every page.
absl::StatusOr<std::vector<Described>> DescribeInstances(const Ec2Client& client,
                                                         const QueryParams& params) {
  std::vector<Described> out;
  int page_no = 0;
  KARP_RETURN_IF_ERROR(client.CallPaginated(
      "DescribeInstances", params, [&](const XmlResponse& page) -> absl::Status {
        KARP_ASSIGN_OR_RETURN(auto got, ParseReservations(page, ++page_no));
        out.insert(out.end(), got.begin(), got.end());
        return absl::OkStatus();
      }));
  return out;
}

// The live instances among `ids`.
absl::StatusOr<std::vector<Described>> DescribeByIds(const Ec2Client& client,
                                                     const std::vector<std::string>& ids) {
  QueryParams params;
  AddList(&params, "InstanceId", ids);
  AddFilter(&params, 1, "instance-state-name", kLiveStates);
  return DescribeInstances(client, params);
}

// TerminateInstances of one instance; OK once EC2 lists it in instancesSet.
absl::Status TerminateAlone(const Ec2Client& client, const std::string& id) {
  QueryParams params;
  AddList(&params, "InstanceId", {id});
  KARP_ASSIGN_OR_RETURN(XmlResponse r, client.Call("TerminateInstances", params));
  for (pugi::xml_node item : XmlItems(r.root(), "instancesSet")) {
    if (XmlText(item, "instanceId") == id) return absl::OkStatus();
  }
  return absl::InternalError(StrCat("EC2 TerminateInstances: instancesSet does not list ", id));
}

// One caller of a batched CreateFleet: its request (with its own nodeclaim tag), claim and the
// options it chose.
struct FleetCall {
  FleetRequest request;
  std::string claim_name;
  std::vector<LaunchOption> chosen;
};

// What a batched CreateFleet gave one caller.
struct FleetOutcome {
  absl::Status status;                    // the call failed or the response is malformed
  std::optional<FleetInstance> instance;  // launched for this caller
  FleetErrors errors;
  std::vector<LaunchOption> failed;  // capacity errors among its options
};

std::vector<std::string> SortedUnique(std::vector<std::string> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// Callers whose requests differ only in the nodeclaim tag share a key.
std::string FleetKey(const FleetRequest& request) {
  FleetRequest shared = request;
  shared.tags.erase(std::string(kTagKeyNodeClaim));
  return FormEncode(shared.Encode(""));
}

}  // namespace

// The batchers of CreateFleet, DescribeInstances by id and TerminateInstances.
struct AwsCloudProvider::Batchers {
  using DescribeResult = absl::StatusOr<std::vector<Described>>;
  explicit Batchers(AwsCloudProvider* p)
      : provider(p),
        fleet(p->options_.batching.create_fleet,
              [this](const std::vector<FleetCall>& calls) { return RunFleet(calls); }),
        describe(p->options_.batching.describe_instances,
                 [this](const std::vector<std::string>& ids) { return RunDescribe(ids); }),
        terminate(p->options_.batching.terminate_instances,
                  [this](const std::vector<std::string>& ids) { return RunTerminate(ids); }) {}

  // One CreateFleet for every call, TotalTargetCapacity = calls; instances in call order.
  std::vector<FleetOutcome> RunFleet(const std::vector<FleetCall>& calls);
  // One DescribeInstances for every id; ids it misses are described alone.
  std::vector<DescribeResult> RunDescribe(const std::vector<std::string>& ids);
  // One TerminateInstances for every id; ids it does not report terminating go alone.
  std::vector<absl::Status> RunTerminate(const std::vector<std::string>& ids);
  void Count(int64_t AwsBatchStats::*requests, int64_t AwsBatchStats::*calls, size_t n) {
    absl::MutexLock lock(&mu);
    stats.*requests += static_cast<int64_t>(n);
    ++(stats.*calls);
  }

  AwsCloudProvider* const provider;
  Batcher<FleetCall, FleetOutcome> fleet;
  Batcher<std::string, DescribeResult> describe;
  Batcher<std::string, absl::Status> terminate;
  absl::Mutex mu;
  AwsBatchStats stats ABSL_GUARDED_BY(mu);
};

// EC2NodeClass mode: the class a claim launches with, its current state and its pool (for the
// user data).
struct AwsCloudProvider::ClaimClass {
  const Ec2NodeClass* node_class = nullptr;
  std::shared_ptr<const ClassState> state;
  NodePool pool;
};

// The CreateFleet request of one launch (all but its capacity type) and what is known of the
// launch before it happens.
struct AwsCloudProvider::FleetPlan {
  FleetRequest request;
  AwsLaunchDetails details;
};

std::vector<AwsCloudProvider::Batchers::DescribeResult> AwsCloudProvider::Batchers::RunDescribe(
    const std::vector<std::string>& ids) {
  const Ec2Client& client = *provider->client_;
  const std::vector<std::string> unique = SortedUnique(ids);
  Count(&AwsBatchStats::describe_requests, &AwsBatchStats::describe_calls, ids.size());
  DescribeResult all = DescribeByIds(client, unique);
  std::map<std::string, DescribeResult> by_id;
  if (unique.size() == 1) by_id.emplace(unique.front(), all);
  if (all.ok()) {
    for (const Described& x : *all) by_id[x.id] = std::vector<Described>{x};
  }
  std::vector<DescribeResult> out;
  for (const std::string& id : ids) {
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      // Missing from the batch (gone, or the batch failed because of another id): alone.
      Count(&AwsBatchStats::describe_requests, &AwsBatchStats::describe_calls, 0);
      it = by_id.emplace(id, DescribeByIds(client, {id})).first;
    }
    out.push_back(it->second);
  }
  return out;
}

std::vector<absl::Status> AwsCloudProvider::Batchers::RunTerminate(
    const std::vector<std::string>& ids) {
  const Ec2Client& client = *provider->client_;
  const std::vector<std::string> unique = SortedUnique(ids);
  Count(&AwsBatchStats::terminate_requests, &AwsBatchStats::terminate_calls, ids.size());
  std::map<std::string, absl::Status> by_id;
  if (unique.size() == 1) {
    by_id.emplace(unique.front(), TerminateAlone(client, unique.front()));
  } else {
    QueryParams params;
    AddList(&params, "InstanceId", unique);
    absl::StatusOr<XmlResponse> r = client.Call("TerminateInstances", params);
    for (pugi::xml_node item :
         r.ok() ? XmlItems(r->root(), "instancesSet") : std::vector<pugi::xml_node>()) {
      const std::string state = XmlText(item, "currentState/name");
      if (state == "shutting-down" || state == "terminated") {
        by_id.emplace(XmlText(item, "instanceId"), absl::OkStatus());
      }
    }
  }
  std::vector<absl::Status> out;
  for (const std::string& id : ids) {
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      Count(&AwsBatchStats::terminate_requests, &AwsBatchStats::terminate_calls, 0);
      it = by_id.emplace(id, TerminateAlone(client, id)).first;
    }
    out.push_back(it->second);
  }
  return out;
}

std::vector<FleetOutcome> AwsCloudProvider::Batchers::RunFleet(
    const std::vector<FleetCall>& calls) {
  Count(&AwsBatchStats::fleet_requests, &AwsBatchStats::fleet_calls, calls.size());
  std::vector<FleetOutcome> out(calls.size());
  FleetRequest request = calls.front().request;
  // One tag set for the whole fleet: the claims' own tags are added after the launch.
  if (calls.size() > 1) request.tags.erase(std::string(kTagKeyNodeClaim));
  absl::StatusOr<XmlResponse> resp = provider->client_->Call(
      "CreateFleet",
      request.Encode(provider->NextClientToken(calls.front().claim_name), calls.size()));
  absl::StatusOr<std::vector<FleetInstance>> launched =
      resp.ok() ? ParseFleetInstances(*resp) : resp.status();
  for (size_t i = 0; i < calls.size(); ++i) {
    if (!launched.ok()) {
      out[i].status = launched.status();
      continue;
    }
    absl::StatusOr<FleetErrors> errors = ParseFleetErrors(*resp, calls[i].chosen, &out[i].failed);
    if (!errors.ok()) {
      out[i].status = errors.status();
      continue;
    }
    out[i].errors = std::move(*errors);
    if (i >= launched->size()) continue;
    out[i].instance = (*launched)[i];
    if (calls.size() == 1) continue;
    const std::string provider_id =
        StrCat("aws:///", out[i].instance->zone, "/", out[i].instance->id);
    if (!provider->TagInstance(provider_id, {{std::string(kTagKeyNodeClaim), calls[i].claim_name}})
             .ok()) {
      absl::MutexLock lock(&mu);
      ++stats.tag_errors;
    }
  }
  return out;
}

absl::StatusOr<AwsCloudProvider::ClaimClass> AwsCloudProvider::ClassForClaim(
    const NewNodeClaim& claim) const {
  ClaimClass out;
  KARP_ASSIGN_OR_RETURN(out.node_class, ClassForPoolName(claim.node_pool, &out.pool));
  if (out.pool.metadata.name != claim.node_pool) {
    // A pool never passed to GetInstanceTypes (single class): what the claim knows of it.
    out.pool.metadata.name = claim.node_pool;
    out.pool.template_labels = claim.labels;
    out.pool.taints = claim.taints;
    out.pool.startup_taints = claim.startup_taints;
  }
  KARP_ASSIGN_OR_RETURN(out.state, CurrentClassState(*out.node_class));
  return out;
}

absl::StatusOr<AwsCloudProvider::FleetPlan> AwsCloudProvider::NodeClassFleetPlan(
    const NewNodeClaim& claim, const ClaimClass& cls, const std::vector<LaunchOption>& chosen) {
  FleetLaunchInput in;
  in.node_class = cls.node_class;
  in.status = &cls.state->status;
  in.pool = &cls.pool;
  in.catalog = &cls.state->catalog;
  in.cluster = options_.cluster;
  in.node_claim = claim.name;
  in.options = chosen;
  absl::StatusOr<std::vector<NodeClassFleetTemplate>> built = BuildFleetLaunchTemplates(in);
  if (!built.ok()) {
    return absl::Status(built.status().code(), StrCat("aws create nodeclaim ", claim.name, ": ",
                                                      built.status().message()));
  }
  FleetPlan plan;
  for (const NodeClassFleetTemplate& t : *built) {
    KARP_ASSIGN_OR_RETURN(std::string name, templates_->Ensure(t.config));
    plan.request.configs.emplace_back(std::move(name), t.overrides);
  }
  using TagMap = std::map<std::string, std::string>;
  KARP_ASSIGN_OR_RETURN(TagMap class_tags, Ec2Tags(*cls.node_class, options_.cluster_name,
                                                   claim.node_pool, claim.name));
  plan.request.tags = options_.tags;
  for (auto& [k, v] : class_tags) plan.request.tags[k] = std::move(v);
  plan.details.node_class = cls.node_class->name();
  plan.details.annotations[std::string(kAnnotationEc2NodeClassHash)] =
      Ec2NodeClassHash(*cls.node_class);
  plan.details.annotations[std::string(kAnnotationEc2NodeClassHashVersion)] =
      std::string(kEc2NodeClassHashVersion);
  return plan;
}

absl::StatusOr<AwsCloudProvider::FleetPlan> AwsCloudProvider::StaticFleetPlan(
    const LaunchRequest& request, const std::vector<LaunchOption>& chosen) const {
  const NewNodeClaim& claim = request.claim;
  std::vector<FleetLaunchTemplate> templates;
  if (options_.launch_templates_for) {
    KARP_ASSIGN_OR_RETURN(templates, options_.launch_templates_for(request));
  } else {
    templates.push_back({options_.launch_template_name, {}, ""});
  }
  FleetPlan plan;
  for (const FleetLaunchTemplate& t : templates) {
    if (t.name.empty()) {
      return absl::InvalidArgumentError(
          StrCat("aws create nodeclaim ", claim.name, ": a launch template has an empty name"));
    }
    std::vector<FleetOverride> overrides = StaticOverrides(t, chosen, options_.subnets);
    if (!overrides.empty()) plan.request.configs.emplace_back(t.name, std::move(overrides));
  }
  std::map<std::string, std::string>& tags = plan.request.tags;
  tags = options_.tags;
  tags[ClusterTagKey(options_.cluster_name)] = "owned";
  tags[std::string(kTagKeyNodePool)] = claim.node_pool;
  tags[std::string(kTagKeyEksClusterName)] = options_.cluster_name;
  tags[std::string(kTagKeyEc2NodeClass)] = options_.node_class_name;
  tags[std::string(kTagKeyNodeClaim)] = claim.name;
  plan.details.node_class = options_.node_class_name;
  return plan;
}

std::string AwsCloudProvider::NextClientToken(const std::string& claim_name) {
  // At most 64 characters; unique per request, so a retried request cannot launch twice.
  return StrCat("karp-", fleet_requests_.fetch_add(1) + 1, "-", absl::ToUnixNanos(Now()), "-",
                claim_name)
      .substr(0, 64);
}

absl::StatusOr<std::pair<Instance, AwsLaunchDetails>> AwsCloudProvider::CreateWithDetails(
    const LaunchRequest& request, std::vector<LaunchOption>* failed) {
  const NewNodeClaim& claim = request.claim;
  if (request.options.empty()) {
    return absl::InvalidArgumentError(
        StrCat("aws create nodeclaim ", claim.name, ": the request has no launch options"));
  }
  if (claim.node_pool.empty()) {
    return absl::InvalidArgumentError(
        StrCat("aws create nodeclaim ", claim.name, ": node_pool is empty (needed for its tags)"));
  }
  const std::string capacity_type = ChooseCapacityType(request.options);
  if (capacity_type.empty()) {
    return absl::FailedPreconditionError(StrCat(
        "aws create nodeclaim ", claim.name, ": no spot, on-demand or reserved option was given"));
  }
  std::optional<ClaimClass> cls;
  if (!options_.node_classes.empty()) {
    KARP_ASSIGN_OR_RETURN(cls, ClassForClaim(claim));
  }
  std::vector<LaunchOption> chosen =
      ChooseOptions(request.options, capacity_type, [&](const std::string& zone) {
        if (cls.has_value()) return cls->state->subnets.count(zone) != 0;
        return options_.subnets.empty() || options_.subnets.count(zone) != 0;
      });
  if (chosen.empty()) {
    return absl::FailedPreconditionError(StrCat("aws create nodeclaim ", claim.name, ": no ",
                                                capacity_type,
                                                " option is in a zone with a configured subnet"));
  }
  KARP_RETURN_IF_ERROR(KeepTargetedReservations(options_.capacity_reservations, !cls.has_value(),
                                                claim.name, &chosen));
  FleetPlan plan;
  if (cls.has_value()) {
    KARP_ASSIGN_OR_RETURN(plan, NodeClassFleetPlan(claim, *cls, chosen));
  } else {
    KARP_ASSIGN_OR_RETURN(plan, StaticFleetPlan(request, chosen));
  }
  if (plan.request.configs.empty()) {
    return absl::FailedPreconditionError(
        StrCat("aws create nodeclaim ", claim.name,
               ": no capacity offerings are currently available given the constraints (no launch "
               "template serves the requested instance types)"));
  }
  plan.request.capacity_type = capacity_type;

  const std::string key = FleetKey(plan.request);
  FleetOutcome outcome = batchers_->fleet.Add(key, {plan.request, claim.name, chosen});
  if (failed != nullptr) {
    failed->insert(failed->end(), outcome.failed.begin(), outcome.failed.end());
  }
  if (!outcome.status.ok()) return outcome.status;
  const std::optional<FleetInstance>& launched = outcome.instance;
  if (!launched.has_value()) return FleetFailure(claim.name, outcome.errors);
  Instance instance =
      LaunchedInstance(claim, *launched, capacity_type, chosen, options_.client.region, Now());
  RecordLaunchTemplate(plan.request.configs, *launched, &plan.details);
  {
    absl::MutexLock lock(&mu_);
    launches_[instance.provider_id] = plan.details;
  }
  return std::make_pair(std::move(instance), std::move(plan.details));
}

namespace {

// `x` as a karp Instance, at its offering's price in `prices` (the discovery in use; null
// before the first) or, for on-demand, the embedded price of `region`.
Instance ToInstance(const Described& x, const PriceMap* prices, const std::string& region) {
  Instance out;
  out.provider_id = StrCat("aws:///", x.zone, "/", x.id);
  out.instance_type = x.type;
  out.zone = x.zone;
  out.capacity_type = x.capacity_type;
  if (auto t = x.tags.find(std::string(kTagKeyNodePool)); t != x.tags.end()) {
    out.node_pool = t->second;
  }
  if (prices != nullptr) {
    if (auto p = prices->find({x.capacity_type, x.type, x.zone}); p != prices->end()) {
      out.price = p->second;
    }
  }
  if (out.price == 0 && x.capacity_type == "on-demand") {
    out.price = EmbeddedPrice(x.type, region).value_or(0);
  }
  out.labels[std::string(kLabelInstanceType)] = x.type;
  out.labels[std::string(kLabelZone)] = x.zone;
  out.labels[std::string(kLabelRegion)] = region;
  out.labels[std::string(kLabelCapacityType)] = x.capacity_type;
  if (!out.node_pool.empty()) out.labels[std::string(kLabelNodePool)] = out.node_pool;
  out.launched_at = x.launched_at;
  return out;
}

}  // namespace

std::shared_ptr<const AwsCloudProvider::Discovery> AwsCloudProvider::DiscoveryInUse() const {
  absl::MutexLock lock(&mu_);
  return discovery_;
}

absl::StatusOr<Instance> AwsCloudProvider::Get(const std::string& provider_id) const {
  KARP_ASSIGN_OR_RETURN(AwsProviderId id, ParseAwsProviderId(provider_id));
  KARP_ASSIGN_OR_RETURN(std::vector<Described> found, batchers_->describe.Add("", id.instance_id));
  if (found.empty()) {
    return absl::NotFoundError(StrCat("aws instance ", id.instance_id, " not found"));
  }
  std::shared_ptr<const Discovery> d = DiscoveryInUse();
  return ToInstance(found.front(), d == nullptr ? nullptr : &d->prices, options_.client.region);
}

absl::StatusOr<std::vector<Instance>> AwsCloudProvider::List() const {
  QueryParams params;
  AddFilter(&params, 1, "tag-key", {std::string(kTagKeyNodePool)});
  AddFilter(&params, 2, "tag-key", {std::string(kTagKeyEc2NodeClass)});
  AddFilter(&params, 3, StrCat("tag:", kTagKeyEksClusterName), {options_.cluster_name});
  AddFilter(&params, 4, "instance-state-name", kLiveStates);
  params.emplace_back("MaxResults", "1000");
  KARP_ASSIGN_OR_RETURN(std::vector<Described> found, DescribeInstances(*client_, params));
  std::shared_ptr<const Discovery> d = DiscoveryInUse();
  std::vector<Instance> out;
  for (const Described& x : found) {
    out.push_back(ToInstance(x, d == nullptr ? nullptr : &d->prices, options_.client.region));
  }
  std::sort(out.begin(), out.end(),
            [](const Instance& a, const Instance& b) { return a.provider_id < b.provider_id; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const Instance& a, const Instance& b) {
                          return a.provider_id == b.provider_id;
                        }),
            out.end());
  return out;
}

absl::StatusOr<std::string> AwsCloudProvider::DriftReason(const NodeClaim& claim) const {
  if (options_.node_classes.empty()) return CloudProvider::DriftReason(claim);
  // Not launched yet: nothing to compare.
  if (claim.provider_id.empty()) return std::string();
  const Ec2NodeClass* nc = nullptr;
  if (claim.node_class_ref.name.empty()) {
    if (options_.node_classes.size() == 1) nc = &options_.node_classes.front();
  } else {
    nc = FindEc2NodeClass(options_.node_classes, claim.node_class_ref.name);
  }
  if (nc == nullptr) {
    return absl::FailedPreconditionError(StrCat("nodeclaim ", claim.metadata.name,
                                                ": ec2nodeclass \"", claim.node_class_ref.name,
                                                "\" is not known to the aws provider"));
  }
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const ClassState> state, CurrentClassState(*nc));
  KARP_ASSIGN_OR_RETURN(AwsProviderId id, ParseAwsProviderId(claim.provider_id));
  absl::StatusOr<std::vector<Described>> found = batchers_->describe.Add("", id.instance_id);
  if (absl::IsNotFound(found.status()) || (found.ok() && found->empty())) {
    return std::string();  // gone: garbage collection's business, not drift
  }
  if (!found.ok()) return found.status();
  const Described& x = found->front();
  InstanceNetwork network;
  network.subnet_id = x.subnet_id;
  network.security_group_ids = x.security_group_ids;
  const InstanceType* type = nullptr;
  if (auto t = claim.metadata.labels.find(std::string(kLabelInstanceType));
      t != claim.metadata.labels.end()) {
    type = state->catalog.Find(t->second);
  }
  if (type == nullptr) type = state->catalog.Find(x.type);
  if (claim.image_id.empty() && !x.image_id.empty()) {
    // The host did not record the image: compare the one EC2 reports.
    NodeClaim with_image = claim;
    with_image.image_id = x.image_id;
    return NodeClassDriftReason(*nc, state->status, with_image, type, network);
  }
  return NodeClassDriftReason(*nc, state->status, claim, type, network);
}

absl::Status AwsCloudProvider::Delete(const std::string& provider_id) {
  KARP_ASSIGN_OR_RETURN(AwsProviderId id, ParseAwsProviderId(provider_id));
  KARP_ASSIGN_OR_RETURN(std::vector<Described> found, batchers_->describe.Add("", id.instance_id));
  if (found.empty()) {
    return absl::NotFoundError(StrCat("aws instance ", id.instance_id, " not found"));
  }
  const Described& x = found.front();
  if (x.tags.count(std::string(kTagKeyNodePool)) == 0) {
    return absl::FailedPreconditionError(StrCat("refusing to terminate aws instance ", x.id,
                                                ": it does not carry the ", kTagKeyNodePool,
                                                " tag, so karp did not launch it"));
  }
  {
    absl::MutexLock lock(&mu_);
    launches_.erase(provider_id);
  }
  if (x.state == "shutting-down") return absl::OkStatus();  // already going away
  return batchers_->terminate.Add("", x.id);
}

AwsBatchStats AwsCloudProvider::BatchStats() const {
  absl::MutexLock lock(&batchers_->mu);
  return batchers_->stats;
}

absl::Status AwsCloudProvider::TagInstance(const std::string& provider_id,
                                           const std::map<std::string, std::string>& tags) {
  KARP_ASSIGN_OR_RETURN(AwsProviderId id, ParseAwsProviderId(provider_id));
  if (tags.empty()) {
    return absl::InvalidArgumentError(StrCat("aws tag instance ", id.instance_id, ": no tags"));
  }
  QueryParams params;
  AddList(&params, "ResourceId", {id.instance_id});
  int n = 0;
  for (const auto& [k, v] : tags) {
    if (k.empty()) {
      return absl::InvalidArgumentError(
          StrCat("aws tag instance ", id.instance_id, ": a tag has an empty key"));
    }
    ++n;
    params.emplace_back(StrCat("Tag.", n, ".Key"), k);
    params.emplace_back(StrCat("Tag.", n, ".Value"), v);
  }
  KARP_ASSIGN_OR_RETURN(XmlResponse r, client_->Call("CreateTags", params));
  if (XmlText(r.root(), "return") != "true") {
    return absl::InternalError(
        StrCat("EC2 CreateTags: return is \"", XmlText(r.root(), "return"), "\", want true"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> AwsCloudProvider::DeleteUnusedInstanceProfiles() {
  if (options_.node_classes.empty()) {
    return absl::FailedPreconditionError(
        "aws delete unused instance profiles: static mode (no node classes) manages no "
        "instance profiles");
  }
  std::set<std::string> keep;
  for (const Ec2NodeClass& nc : options_.node_classes) {
    if (!nc.role.empty()) {
      keep.insert(InstanceProfileName(options_.cluster_name, options_.client.region, nc.name()));
    }
  }
  // Classes whose instances still run keep their profile until the instances are gone.
  QueryParams params;
  AddFilter(&params, 1, "tag-key", {std::string(kTagKeyEc2NodeClass)});
  AddFilter(&params, 2, StrCat("tag:", kTagKeyEksClusterName), {options_.cluster_name});
  AddFilter(&params, 3, "instance-state-name", kLiveStates);
  KARP_ASSIGN_OR_RETURN(std::vector<Described> live, DescribeInstances(*client_, params));
  for (const Described& x : live) {
    auto tag = x.tags.find(std::string(kTagKeyEc2NodeClass));
    if (tag == x.tags.end()) continue;
    keep.insert(InstanceProfileName(options_.cluster_name, options_.client.region, tag->second));
  }
  return profiles_->DeleteExcept(keep);
}

absl::StatusOr<int> AwsCloudProvider::MarkInterruptedOfferings(
    const AwsInterruptionMessage& message, UnavailableOfferings* cache, absl::Time now) const {
  if (cache == nullptr) return absl::InvalidArgumentError("mark interrupted offerings: null cache");
  if (message.kind != AwsInterruptionKind::kSpotInterruption || message.instance_ids.empty()) {
    return 0;
  }
  KARP_ASSIGN_OR_RETURN(std::vector<Described> found,
                        DescribeByIds(*client_, message.instance_ids));
  int marked = 0;
  for (const Described& x : found) {
    cache->MarkUnavailable("spot", x.type, x.zone, now);
    ++marked;
  }
  return marked;
}

}  // namespace karp::aws
