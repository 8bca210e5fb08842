#include "karp/aws/aws_cloud_provider.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "aws/discovery.h"
#include "aws/ec2_client.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::aws {

using internal::StrCat;

// One discovery: the instance types and what is needed to price instances later.
struct AwsCloudProvider::Discovery {
  std::vector<InstanceType> types;
  AwsDiscoveryStats stats;
  // (capacity type, type, zone) -> price of the offering.
  std::map<std::tuple<std::string, std::string, std::string>, double> prices;
};

namespace {

constexpr int kMaxFleetInstanceTypes = 60;
const std::vector<std::string> kLiveStates = {"pending", "running", "stopping", "stopped",
                                              "shutting-down"};

std::string ClusterTagKey(const std::string& cluster) {
  return StrCat("kubernetes.io/cluster/", cluster);
}

bool IsReservedTagKey(const std::string& key) {
  return key.rfind("kubernetes.io/cluster/", 0) == 0 || key == kTagNodePool ||
         key == kTagEksClusterName || key == kTagNodeClass || key == kTagNodeClaim;
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
      std::vector<pugi::xml_node> tags = XmlItems(instances[i], "tagSet");
      for (size_t t = 0; t < tags.size(); ++t) {
        KARP_ASSIGN_OR_RETURN(std::string key,
                              XmlRequiredText(tags[t], "key", StrCat(where, "/tagSet/item[",
                                                                     t + 1, "]")));
        d.tags[key] = XmlText(tags[t], "value");
      }
      const std::string launch = XmlText(instances[i], "launchTime");
      if (!launch.empty()) {
        std::string err;
        if (!absl::ParseTime(absl::RFC3339_full, launch, &d.launched_at, &err)) {
          return absl::InternalError(
              StrCat(where, "/launchTime: not RFC 3339: \"", launch, "\""));
        }
      }
      out.push_back(std::move(d));
    }
  }
  return out;
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
  id.instance_id =
      std::string(slash == std::string_view::npos ? rest : rest.substr(slash + 1));
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
  if (!launch_templates_for && launch_template_name.empty()) {
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
    : options_(std::move(options)), client_(std::move(client)) {}

AwsCloudProvider::~AwsCloudProvider() = default;

absl::StatusOr<std::shared_ptr<const AwsCloudProvider::Discovery>> AwsCloudProvider::Discover()
    const {
  auto d = std::make_shared<Discovery>();
  const absl::Time now = options_.client.clock ? options_.client.clock() : absl::Now();
  KARP_ASSIGN_OR_RETURN(std::vector<AwsInstanceTypeInfo> infos,
                        DescribeInstanceTypes(*client_, &d->stats.describe_pages));
  KARP_ASSIGN_OR_RETURN(auto offered, DescribeInstanceTypeOfferings(*client_));

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

  std::map<std::string, double> on_demand;
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
  std::optional<SpotPrices> spot;
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
  if (spot.has_value()) catalog.spot_prices = *spot;
  // Sorted by name for deterministic output whatever the API's order.
  std::sort(infos.begin(), infos.end(),
            [](const AwsInstanceTypeInfo& a, const AwsInstanceTypeInfo& b) {
              return a.name < b.name;
            });
  for (AwsInstanceTypeInfo& info : infos) {
    auto o = offered.find(info.name);
    std::vector<std::string> type_zones;
    if (o != offered.end()) {
      for (const std::string& z : o->second) {
        if (!options_.subnets.empty() && options_.subnets.count(z) == 0) continue;
        type_zones.push_back(z);
      }
    }
    if (type_zones.empty()) {
      ++d->stats.skipped_types;  // offered nowhere we can launch
      continue;
    }
    info.offered_zones = std::move(type_zones);
    std::optional<double> price;
    if (auto p = on_demand.find(info.name); p != on_demand.end()) {
      price = p->second;
    } else {
      price = EmbeddedAwsOnDemandPrice(info.name);
      if (price.has_value()) ++d->stats.on_demand_prices_embedded;
    }
    absl::StatusOr<InstanceType> it = MakeAwsInstanceType(info, price, catalog);
    if (!it.ok()) {
      ++d->stats.skipped_types;
      continue;
    }
    for (const Offering& off : it->offerings) {
      if (off.available) d->prices[{off.capacity_type, it->name, off.zone}] = off.price;
    }
    d->types.push_back(std::move(*it));
  }
  d->stats.instance_types = static_cast<int>(d->types.size());
  d->stats.zones = zones;
  return std::shared_ptr<const Discovery>(std::move(d));
}

absl::StatusOr<std::shared_ptr<const AwsCloudProvider::Discovery>>
AwsCloudProvider::CurrentDiscovery() const {
  const absl::Time now = options_.client.clock ? options_.client.clock() : absl::Now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (discovery_ != nullptr && now - discovered_at_ < options_.catalog_refresh_interval) {
      return discovery_;
    }
  }
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const Discovery> fresh, Discover());
  std::lock_guard<std::mutex> lock(mu_);
  discovery_ = fresh;
  discovered_at_ = now;
  return fresh;
}

absl::Status AwsCloudProvider::Refresh() const {
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const Discovery> fresh, Discover());
  std::lock_guard<std::mutex> lock(mu_);
  discovery_ = fresh;
  discovered_at_ = options_.client.clock ? options_.client.clock() : absl::Now();
  return absl::OkStatus();
}

AwsDiscoveryStats AwsCloudProvider::LastDiscovery() const {
  std::lock_guard<std::mutex> lock(mu_);
  return discovery_ == nullptr ? AwsDiscoveryStats() : discovery_->stats;
}

absl::StatusOr<std::vector<InstanceType>> AwsCloudProvider::GetInstanceTypes(
    const NodePool&) const {
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const Discovery> d, CurrentDiscovery());
  return d->types;
}

absl::StatusOr<InstanceCatalog> AwsCloudProvider::Catalog(const NodePool& pool) const {
  KARP_ASSIGN_OR_RETURN(std::vector<InstanceType> types, GetInstanceTypes(pool));
  return InstanceCatalog::Create(std::move(types), AwsWellKnownLabels());
}

absl::StatusOr<Instance> AwsCloudProvider::Create(const LaunchRequest& request,
                                                  std::vector<LaunchOption>* failed) {
  const NewNodeClaim& claim = request.claim;
  if (request.options.empty()) {
    return absl::InvalidArgumentError(
        StrCat("aws create nodeclaim ", claim.name, ": the request has no launch options"));
  }
  if (claim.node_pool.empty()) {
    return absl::InvalidArgumentError(
        StrCat("aws create nodeclaim ", claim.name, ": node_pool is empty (needed for its tags)"));
  }
  // Capacity type: spot when the request allows it, else on-demand (§3.1).
  std::string capacity_type;
  for (const LaunchOption& o : request.options) {
    if (o.capacity_type == "spot") capacity_type = "spot";
    if (o.capacity_type == "on-demand" && capacity_type.empty()) capacity_type = "on-demand";
  }
  if (capacity_type.empty()) {
    return absl::FailedPreconditionError(StrCat(
        "aws create nodeclaim ", claim.name,
        ": only reserved-capacity options were given; karp::aws does not launch into capacity "
        "reservations yet"));
  }
  // The options of that capacity type, in the given (cheapest-first) order, for at most 60
  // instance types, in zones that have a subnet.
  std::vector<LaunchOption> chosen;
  std::vector<std::string> types;
  std::set<std::pair<std::string, std::string>> seen;
  for (const LaunchOption& o : request.options) {
    if (o.capacity_type != capacity_type) continue;
    if (!options_.subnets.empty() && options_.subnets.count(o.zone) == 0) continue;
    if (!seen.insert({o.instance_type, o.zone}).second) continue;
    if (std::find(types.begin(), types.end(), o.instance_type) == types.end()) {
      if (static_cast<int>(types.size()) >= kMaxFleetInstanceTypes) continue;
      types.push_back(o.instance_type);
    }
    chosen.push_back(o);
  }
  if (chosen.empty()) {
    return absl::FailedPreconditionError(
        StrCat("aws create nodeclaim ", claim.name, ": no ", capacity_type,
               " option is in a zone with a configured subnet"));
  }

  std::vector<FleetLaunchTemplate> templates;
  if (options_.launch_templates_for) {
    KARP_ASSIGN_OR_RETURN(templates, options_.launch_templates_for(request));
  } else {
    templates.push_back({options_.launch_template_name, {}, ""});
  }

  QueryParams params;
  params.emplace_back("Type", "instant");
  // Idempotency token (at most 64 characters): a retried request cannot launch twice.
  params.emplace_back(
      "ClientToken",
      StrCat("karp-", fleet_requests_.fetch_add(1) + 1, "-",
             absl::ToUnixNanos(options_.client.clock ? options_.client.clock() : absl::Now()),
             "-", claim.name)
          .substr(0, 64));
  params.emplace_back("TargetCapacitySpecification.TotalTargetCapacity", "1");
  params.emplace_back("TargetCapacitySpecification.DefaultTargetCapacityType", capacity_type);
  if (capacity_type == "spot") {
    params.emplace_back("SpotOptions.AllocationStrategy", "price-capacity-optimized");
  } else {
    params.emplace_back("OnDemandOptions.AllocationStrategy", "lowest-price");
  }
  int config = 0;
  for (const FleetLaunchTemplate& t : templates) {
    if (t.name.empty()) {
      return absl::InvalidArgumentError(
          StrCat("aws create nodeclaim ", claim.name, ": a launch template has an empty name"));
    }
    std::vector<const LaunchOption*> overrides;
    for (const LaunchOption& o : chosen) {
      if (t.instance_types.empty() ||
          std::find(t.instance_types.begin(), t.instance_types.end(), o.instance_type) !=
              t.instance_types.end()) {
        overrides.push_back(&o);
      }
    }
    if (overrides.empty()) continue;
    ++config;
    const std::string prefix = StrCat("LaunchTemplateConfigs.", config);
    params.emplace_back(StrCat(prefix, ".LaunchTemplateSpecification.LaunchTemplateName"), t.name);
    params.emplace_back(StrCat(prefix, ".LaunchTemplateSpecification.Version"), "$Latest");
    for (size_t m = 0; m < overrides.size(); ++m) {
      const std::string op = StrCat(prefix, ".Overrides.", m + 1);
      params.emplace_back(StrCat(op, ".InstanceType"), overrides[m]->instance_type);
      if (auto s = options_.subnets.find(overrides[m]->zone); s != options_.subnets.end()) {
        params.emplace_back(StrCat(op, ".SubnetId"), s->second);
      }
      if (!t.image_id.empty()) params.emplace_back(StrCat(op, ".ImageId"), t.image_id);
      params.emplace_back(StrCat(op, ".AvailabilityZone"), overrides[m]->zone);
      params.emplace_back(StrCat(op, ".Priority"), FormatPrice(overrides[m]->price));
    }
  }
  if (config == 0) {
    return absl::FailedPreconditionError(StrCat(
        "aws create nodeclaim ", claim.name,
        ": no capacity offerings are currently available given the constraints (no launch "
        "template serves the requested instance types)"));
  }
  std::map<std::string, std::string> tags = options_.tags;
  tags[ClusterTagKey(options_.cluster_name)] = "owned";
  tags[std::string(kTagNodePool)] = claim.node_pool;
  tags[std::string(kTagEksClusterName)] = options_.cluster_name;
  tags[std::string(kTagNodeClass)] = options_.node_class_name;
  tags[std::string(kTagNodeClaim)] = claim.name;
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

  KARP_ASSIGN_OR_RETURN(XmlResponse resp, client_->Call("CreateFleet", params));
  const std::string where = "EC2 CreateFleet";

  // Errors per override.
  std::vector<std::string> ice_codes, other_errors;
  std::string first_other_code;
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
      return absl::InternalError(StrCat(where, ": errorSet/item[", i + 1, "]/errorCode: missing"));
    }
    if (IsInsufficientCapacityCode(code)) {
      ice_codes.push_back(StrCat(code, " (", type.empty() ? "?" : type, "/",
                                 zone.empty() ? "?" : zone, ")"));
      for (const LaunchOption& o : chosen) {
        if (o.instance_type != type || (!zone.empty() && o.zone != zone)) continue;
        if (failed_keys.insert({o.capacity_type, o.instance_type, o.zone}).second &&
            failed != nullptr) {
          failed->push_back(o);
        }
      }
    } else {
      if (first_other_code.empty()) first_other_code = code;
      other_errors.push_back(StrCat(code, ": ", message));
    }
  }

  std::vector<pugi::xml_node> launched = XmlItems(resp.root(), "fleetInstanceSet");
  for (size_t i = 0; i < launched.size(); ++i) {
    std::vector<pugi::xml_node> ids = XmlItems(launched[i], "instanceIds");
    if (ids.empty()) continue;
    const std::string w = StrCat(where, ": fleetInstanceSet/item[", i + 1, "]");
    const std::string id = ids.front().text().get();
    if (id.empty()) return absl::InternalError(StrCat(w, "/instanceIds/item[1]: empty"));
    std::string type = XmlText(launched[i], "launchTemplateAndOverrides/overrides/instanceType");
    if (type.empty()) type = XmlText(launched[i], "instanceType");
    std::string zone =
        XmlText(launched[i], "launchTemplateAndOverrides/overrides/availabilityZone");
    if (zone.empty()) zone = XmlText(launched[i], "availabilityZone");
    if (type.empty()) return absl::InternalError(StrCat(w, "/instanceType: missing"));
    if (zone.empty()) {
      return absl::InternalError(
          StrCat(w, "/launchTemplateAndOverrides/overrides/availabilityZone: missing"));
    }
    std::string lifecycle = XmlText(launched[i], "lifecycle");
    const std::string launched_capacity = lifecycle == "spot" ? "spot" : capacity_type;
    Instance out;
    out.instance_type = type;
    out.zone = zone;
    out.capacity_type = launched_capacity;
    out.provider_id = StrCat("aws:///", zone, "/", id);
    out.node_pool = claim.node_pool;
    for (const LaunchOption& o : chosen) {
      if (o.instance_type == type && o.zone == zone) out.price = o.price;
    }
    out.labels = claim.labels;
    out.labels[std::string(kLabelInstanceType)] = type;
    out.labels[std::string(kLabelZone)] = zone;
    out.labels[std::string(kLabelRegion)] = options_.client.region;
    out.labels[std::string(kLabelCapacityType)] = launched_capacity;
    out.labels[std::string(kLabelNodePool)] = claim.node_pool;
    out.launched_at = options_.client.clock ? options_.client.clock() : absl::Now();
    return out;
  }

  if (!other_errors.empty()) {
    const absl::StatusCode code = StatusCodeForAwsError(first_other_code, 400);
    return WithAwsErrorCode(
        absl::Status(code == absl::StatusCode::kResourceExhausted ? absl::StatusCode::kInternal
                                                                  : code,
                     StrCat(where, " for nodeclaim ", claim.name, " launched nothing: ",
                            absl::StrJoin(other_errors, "; "),
                            ice_codes.empty() ? "" : StrCat("; capacity: ",
                                                            absl::StrJoin(ice_codes, ", ")))),
        first_other_code);
  }
  if (!ice_codes.empty()) {
    return absl::ResourceExhaustedError(StrCat("insufficient capacity for nodeclaim ", claim.name,
                                               ": ", absl::StrJoin(ice_codes, ", ")));
  }
  return absl::InternalError(StrCat(where, " for nodeclaim ", claim.name,
                                    ": the response has neither instances nor errors"));
}

namespace {

absl::StatusOr<std::vector<Described>> DescribeByIds(const Ec2Client& client,
                                                     const std::vector<std::string>& ids) {
  QueryParams params;
  AddList(&params, "InstanceId", ids);
  AddFilter(&params, 1, "instance-state-name", kLiveStates);
  std::vector<Described> out;
  int page_no = 0;
  absl::Status s = client.CallPaginated("DescribeInstances", params,
                                        [&](const XmlResponse& page) -> absl::Status {
                                          KARP_ASSIGN_OR_RETURN(auto got,
                                                                ParseReservations(page, ++page_no));
                                          out.insert(out.end(), got.begin(), got.end());
                                          return absl::OkStatus();
                                        });
  if (!s.ok()) return s;
  return out;
}

}  // namespace

absl::StatusOr<Instance> AwsCloudProvider::Get(const std::string& provider_id) const {
  KARP_ASSIGN_OR_RETURN(AwsProviderId id, ParseAwsProviderId(provider_id));
  KARP_ASSIGN_OR_RETURN(std::vector<Described> found, DescribeByIds(*client_, {id.instance_id}));
  if (found.empty()) {
    return absl::NotFoundError(StrCat("aws instance ", id.instance_id, " not found"));
  }
  std::shared_ptr<const Discovery> d;
  {
    std::lock_guard<std::mutex> lock(mu_);
    d = discovery_;
  }
  const Described& x = found.front();
  Instance out;
  out.provider_id = StrCat("aws:///", x.zone, "/", x.id);
  out.instance_type = x.type;
  out.zone = x.zone;
  out.capacity_type = x.capacity_type;
  if (auto t = x.tags.find(std::string(kTagNodePool)); t != x.tags.end()) out.node_pool = t->second;
  if (d != nullptr) {
    if (auto p = d->prices.find({x.capacity_type, x.type, x.zone}); p != d->prices.end()) {
      out.price = p->second;
    }
  }
  if (out.price == 0 && x.capacity_type == "on-demand") {
    out.price = EmbeddedAwsOnDemandPrice(x.type).value_or(0);
  }
  out.labels[std::string(kLabelInstanceType)] = x.type;
  out.labels[std::string(kLabelZone)] = x.zone;
  out.labels[std::string(kLabelRegion)] = options_.client.region;
  out.labels[std::string(kLabelCapacityType)] = x.capacity_type;
  if (!out.node_pool.empty()) out.labels[std::string(kLabelNodePool)] = out.node_pool;
  out.launched_at = x.launched_at;
  return out;
}

absl::StatusOr<std::vector<Instance>> AwsCloudProvider::List() const {
  QueryParams params;
  AddFilter(&params, 1, "tag-key", {std::string(kTagNodePool)});
  AddFilter(&params, 2, "tag-key", {std::string(kTagNodeClass)});
  AddFilter(&params, 3, StrCat("tag:", kTagEksClusterName), {options_.cluster_name});
  AddFilter(&params, 4, "instance-state-name", kLiveStates);
  params.emplace_back("MaxResults", "1000");
  std::vector<Described> found;
  int page_no = 0;
  KARP_RETURN_IF_ERROR(client_->CallPaginated(
      "DescribeInstances", params, [&](const XmlResponse& page) -> absl::Status {
        KARP_ASSIGN_OR_RETURN(auto got, ParseReservations(page, ++page_no));
        found.insert(found.end(), got.begin(), got.end());
        return absl::OkStatus();
      }));
  std::shared_ptr<const Discovery> d;
  {
    std::lock_guard<std::mutex> lock(mu_);
    d = discovery_;
  }
  std::vector<Instance> out;
  for (const Described& x : found) {
    Instance i;
    i.provider_id = StrCat("aws:///", x.zone, "/", x.id);
    i.instance_type = x.type;
    i.zone = x.zone;
    i.capacity_type = x.capacity_type;
    if (auto t = x.tags.find(std::string(kTagNodePool)); t != x.tags.end()) i.node_pool = t->second;
    if (d != nullptr) {
      if (auto p = d->prices.find({x.capacity_type, x.type, x.zone}); p != d->prices.end()) {
        i.price = p->second;
      }
    }
    if (i.price == 0 && x.capacity_type == "on-demand") {
      i.price = EmbeddedAwsOnDemandPrice(x.type).value_or(0);
    }
    i.labels[std::string(kLabelInstanceType)] = x.type;
    i.labels[std::string(kLabelZone)] = x.zone;
    i.labels[std::string(kLabelRegion)] = options_.client.region;
    i.labels[std::string(kLabelCapacityType)] = x.capacity_type;
    if (!i.node_pool.empty()) i.labels[std::string(kLabelNodePool)] = i.node_pool;
    i.launched_at = x.launched_at;
    out.push_back(std::move(i));
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

absl::Status AwsCloudProvider::Delete(const std::string& provider_id) {
  KARP_ASSIGN_OR_RETURN(AwsProviderId id, ParseAwsProviderId(provider_id));
  KARP_ASSIGN_OR_RETURN(std::vector<Described> found, DescribeByIds(*client_, {id.instance_id}));
  if (found.empty()) {
    return absl::NotFoundError(StrCat("aws instance ", id.instance_id, " not found"));
  }
  const Described& x = found.front();
  if (x.tags.count(std::string(kTagNodePool)) == 0) {
    return absl::FailedPreconditionError(
        StrCat("refusing to terminate aws instance ", x.id, ": it does not carry the ",
               kTagNodePool, " tag, so karp did not launch it"));
  }
  if (x.state == "shutting-down") return absl::OkStatus();  // already going away
  QueryParams params;
  AddList(&params, "InstanceId", {x.id});
  absl::StatusOr<XmlResponse> r = client_->Call("TerminateInstances", params);
  if (!r.ok()) return r.status();
  for (pugi::xml_node item : XmlItems(r->root(), "instancesSet")) {
    if (XmlText(item, "instanceId") == x.id) return absl::OkStatus();
  }
  return absl::InternalError(StrCat("EC2 TerminateInstances: instancesSet does not list ", x.id));
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
