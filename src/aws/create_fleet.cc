#include "aws/create_fleet.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::aws {

using internal::StrCat;

namespace {

constexpr int kMaxFleetInstanceTypes = 60;

std::string FormatPrice(double p) { return absl::StrFormat("%.6f", p); }

constexpr std::string_view kCreateFleet = "EC2 CreateFleet";

}  // namespace

QueryParams FleetRequest::Encode(const std::string& client_token, size_t capacity) const {
  QueryParams params;
  params.emplace_back("Type", "instant");
  if (!client_token.empty()) params.emplace_back("ClientToken", client_token);
  params.emplace_back("TargetCapacitySpecification.TotalTargetCapacity", std::to_string(capacity));
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

void FleetRequest::EncodeConfig(const std::string& prefix,
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

std::string FleetKey(const FleetRequest& request) {
  FleetRequest shared = request;
  shared.tags.erase(std::string(kTagKeyNodeClaim));
  return FormEncode(shared.Encode(""));
}

}  // namespace karp::aws
