#include "aws/support/fake_ec2.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/str_format.h"
#include "internal/strings.h"

namespace karp::aws::testing {
namespace {

using internal::StrCat;

std::string Tag(std::string_view name, std::string_view value) { return XmlElement(name, value); }
std::string Escape(std::string_view s) { return XmlEscape(s); }

std::string Items(std::string_view set, const std::vector<std::string>& values) {
  std::string inner;
  for (const std::string& v : values) inner += Tag("item", v);
  return Tag(set, inner);
}

std::string GroupSetXml(const std::vector<std::string>& ids) {
  std::string items;
  for (const std::string& id : ids) items += Tag("item", Tag("groupId", id));
  return Tag("groupSet", items);
}

std::string InstanceXml(const FakeInstance& i) {
  std::string tags;
  for (const auto& [k, v] : i.tags)
    tags += Tag("item", Tag("key", Escape(k)) + Tag("value", Escape(v)));
  return Tag(
      "item",
      StrCat(Tag("instanceId", i.id), Tag("imageId", i.image_id.empty() ? "ami-fake" : i.image_id),
             i.subnet_id.empty() ? "" : Tag("subnetId", i.subnet_id),
             GroupSetXml(i.security_group_ids),
             Tag("instanceState",
                 Tag("code", i.state == "running" ? "16" : "0") + Tag("name", i.state)),
             Tag("instanceType", i.type), Tag("launchTime", "2024-05-01T10:00:00.000Z"),
             Tag("placement", Tag("availabilityZone", i.zone) + Tag("tenancy", "default")),
             i.lifecycle.empty() ? "" : Tag("instanceLifecycle", i.lifecycle),
             i.capacity_reservation_id.empty()
                 ? ""
                 : Tag("capacityReservationId", i.capacity_reservation_id),
             Tag("tagSet", tags)));
}

}  // namespace

const AwsInstanceTypeInfo& EmbeddedInfo(const std::string& name) {
  for (const AwsInstanceTypeInfo& i : EmbeddedAwsInstanceTypeInfos()) {
    if (i.name == name) return i;
  }
  std::fprintf(stderr, "fake_ec2: no embedded instance type %s\n", name.c_str());
  std::abort();
}

std::string InstanceTypeItemXml(const AwsInstanceTypeInfo& info) {
  std::string x;
  x += Tag("instanceType", info.name);
  x += Items("supportedUsageClasses", info.usage_classes);
  x += Items("supportedVirtualizationTypes", {"hvm"});
  x += Tag("bareMetal", info.hypervisor.empty() ? "true" : "false");
  if (!info.hypervisor.empty()) x += Tag("hypervisor", info.hypervisor);
  std::string proc = Items("supportedArchitectures", info.architectures);
  if (info.sustained_clock_speed_mhz.has_value()) {
    proc += Tag("sustainedClockSpeedInGhz",
                absl::StrFormat("%.3f", *info.sustained_clock_speed_mhz / 1000.0));
  }
  if (!info.cpu_manufacturer.empty()) proc += Tag("manufacturer", Escape(info.cpu_manufacturer));
  x += Tag("processorInfo", proc);
  x += Tag("vCpuInfo", Tag("defaultVCpus", StrCat(info.vcpus)));
  x += Tag("memoryInfo", Tag("sizeInMiB", StrCat(info.memory_mib)));
  if (info.local_nvme_gb.has_value()) {
    x += Tag("instanceStorageInfo",
             Tag("totalSizeInGB", StrCat(*info.local_nvme_gb)) + Tag("nvmeSupport", "required"));
  }
  if (info.ebs_bandwidth_mbps.has_value()) {
    x += Tag("ebsInfo", Tag("ebsOptimizedSupport", "default") +
                            Tag("ebsOptimizedInfo",
                                Tag("maximumBandwidthInMbps", StrCat(*info.ebs_bandwidth_mbps))));
  } else {
    x += Tag("ebsInfo", Tag("ebsOptimizedSupport", "unsupported"));
  }
  std::string net;
  // The whole-type maximum deliberately differs from the default card's, which must win.
  net += Tag("maximumNetworkInterfaces", StrCat(info.max_network_interfaces * 2));
  net += Tag("defaultNetworkCardIndex", "0");
  net += Tag("networkCards",
             Tag("item", Tag("networkCardIndex", "0") +
                             Tag("maximumNetworkInterfaces", StrCat(info.max_network_interfaces))) +
                 Tag("item", Tag("networkCardIndex", "1") + Tag("maximumNetworkInterfaces", "99")));
  net += Tag("ipv4AddressesPerInterface", StrCat(info.ipv4_addresses_per_interface));
  if (info.efa_max_interfaces > 0) {
    net += Tag("efaInfo", Tag("maximumEfaInterfaces", StrCat(info.efa_max_interfaces)));
  }
  net +=
      Tag("encryptionInTransitSupported", info.encryption_in_transit_supported ? "true" : "false");
  x += Tag("networkInfo", net);
  if (!info.gpus.empty()) {
    std::string gpus;
    for (const AwsGpuInfo& g : info.gpus) {
      gpus +=
          Tag("item", Tag("name", Escape(g.name)) + Tag("manufacturer", Escape(g.manufacturer)) +
                          Tag("count", StrCat(g.count)) +
                          Tag("memoryInfo", Tag("sizeInMiB", StrCat(g.memory_mib))));
    }
    x += Tag("gpuInfo", Tag("gpus", gpus));
  }
  if (!info.inference_accelerators.empty()) {
    std::string accs;
    for (const AwsAcceleratorInfo& a : info.inference_accelerators) {
      accs +=
          Tag("item", Tag("name", Escape(a.name)) + Tag("manufacturer", Escape(a.manufacturer)) +
                          Tag("count", StrCat(a.count)));
    }
    x += Tag("inferenceAcceleratorInfo", Tag("accelerators", accs));
  }
  if (!info.neuron_devices.empty()) {
    std::string devs;
    for (const AwsNeuronDeviceInfo& n : info.neuron_devices) {
      devs += Tag("item", Tag("name", Escape(n.name)) + Tag("count", StrCat(n.count)) +
                              Tag("coreInfo", Tag("count", StrCat(n.core_count))));
    }
    x += Tag("neuronInfo", Tag("neuronDevices", devs));
  }
  return Tag("item", x);
}

FakeEc2::FakeEc2(FakeAwsServer* server) {
  server->On("DescribeInstanceTypes",
             [this](const FakeRequest& r) { return DescribeInstanceTypes(r); });
  server->On("DescribeInstanceTypeOfferings",
             [this](const FakeRequest& r) { return DescribeOfferings(r); });
  server->On("DescribeSpotPriceHistory",
             [this](const FakeRequest& r) { return DescribeSpotPrices(r); });
  server->On("GetProducts", [this](const FakeRequest& r) { return GetProducts(r); });
  server->On("CreateFleet", [this](const FakeRequest& r) { return CreateFleet(r); });
  server->On("DescribeInstances", [this](const FakeRequest& r) { return DescribeInstances(r); });
  server->On("TerminateInstances", [this](const FakeRequest& r) { return TerminateInstances(r); });
  server->On("CreateTags", [this](const FakeRequest& r) { return CreateTags(r); });
  server->On("CreateLaunchTemplate",
             [this](const FakeRequest& r) { return CreateLaunchTemplate(r); });
  server->On("DescribeLaunchTemplates",
             [this](const FakeRequest& r) { return DescribeLaunchTemplates(r); });
  server->On("DescribeSubnets", [this](const FakeRequest& r) { return DescribeSubnets(r); });
  server->On("DescribeSecurityGroups",
             [this](const FakeRequest& r) { return DescribeSecurityGroups(r); });
  server->On("DescribeImages", [this](const FakeRequest& r) { return DescribeImages(r); });
  server->On("DescribeReservedInstances",
             [this](const FakeRequest& r) { return DescribeReservedInstances(r); });
  server->On("DescribeCapacityReservations",
             [this](const FakeRequest& r) { return DescribeCapacityReservations(r); });
}

void FakeEc2::AddSubnet(const FakeSubnet& subnet) {
  std::lock_guard<std::mutex> lock(mu_);
  subnets_.push_back(subnet);
}

void FakeEc2::AddSecurityGroup(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  security_groups_.push_back(id);
}

void FakeEc2::AddImage(const FakeImage& image) {
  std::lock_guard<std::mutex> lock(mu_);
  images_.push_back(image);
}

namespace {

// The values of filter `name` (and of `<list>.N` when `list` is set); nullopt when absent.
std::optional<std::set<std::string>> IdFilter(const FakeRequest& r, const std::string& name,
                                              const std::string& list = "") {
  std::optional<std::set<std::string>> out;
  for (int f = 1; !r.Param(StrCat("Filter.", f, ".Name")).empty(); ++f) {
    if (r.Param(StrCat("Filter.", f, ".Name")) != name) continue;
    if (!out) out.emplace();
    for (int v = 1; !r.Param(StrCat("Filter.", f, ".Value.", v)).empty(); ++v) {
      out->insert(r.Param(StrCat("Filter.", f, ".Value.", v)));
    }
  }
  for (int i = 1; !list.empty() && !r.Param(StrCat(list, ".", i)).empty(); ++i) {
    if (!out) out.emplace();
    out->insert(r.Param(StrCat(list, ".", i)));
  }
  return out;
}

}  // namespace

void FakeEc2::AddReservedInstancesXml(const std::string& item_xml) {
  std::lock_guard<std::mutex> lock(mu_);
  reserved_instances_xml_.push_back(item_xml);
}

void FakeEc2::AddCapacityReservation(const FakeCapacityReservation& reservation) {
  std::lock_guard<std::mutex> lock(mu_);
  capacity_reservations_.push_back(reservation);
}

std::vector<FakeCapacityReservation> FakeEc2::capacity_reservations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return capacity_reservations_;
}

FakeResponse FakeEc2::DescribeReservedInstances(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (r.Param("Filter.1.Name") != "state" || r.Param("Filter.1.Value.1") != "active") {
    return FakeResponse::Ec2Error("InvalidParameterValue", "fake: expected Filter state=active");
  }
  std::string items;
  for (const std::string& x : reserved_instances_xml_) items += x;
  return FakeResponse::Xml(Ec2Xml("DescribeReservedInstances", Tag("reservedInstancesSet", items)));
}

// One reservation per page, to exercise pagination.
FakeResponse FakeEc2::DescribeCapacityReservations(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<const FakeCapacityReservation*> active;
  for (const FakeCapacityReservation& c : capacity_reservations_) {
    if (c.state == "active") active.push_back(&c);
  }
  const size_t at = r.Param("NextToken").empty() ? 0 : std::stoul(r.Param("NextToken"));
  std::string items, next;
  if (at < active.size()) {
    const FakeCapacityReservation& c = *active[at];
    items = Tag("item", Tag("capacityReservationId", c.id) + Tag("instanceType", c.type) +
                            Tag("availabilityZone", c.zone) +
                            Tag("totalInstanceCount", StrCat(c.total)) +
                            Tag("availableInstanceCount", StrCat(c.available)) +
                            Tag("instanceMatchCriteria", c.match) + Tag("state", c.state));
    if (at + 1 < active.size()) next = Tag("nextToken", StrCat(at + 1));
  }
  return FakeResponse::Xml(
      Ec2Xml("DescribeCapacityReservations", Tag("capacityReservationSet", items) + next));
}

std::vector<std::string> FakeEc2::LaunchReserved(const FakeInstance& proto,
                                                 const std::string& template_name, int count,
                                                 const std::string& id) {
  std::vector<std::string> ids;
  for (FakeCapacityReservation& c : capacity_reservations_) {
    if (c.state != "active" || c.type != proto.type || c.zone != proto.zone) continue;
    if (id.empty() ? c.match != "open" : c.id != id) continue;
    while (c.available > 0 && static_cast<int>(ids.size()) < count) {
      FakeInstance i = proto;
      i.capacity_reservation_id = c.id;
      ids.push_back(Launch(i, template_name));
      --c.available;
    }
  }
  return ids;
}

FakeResponse FakeEc2::DescribeSubnets(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto ids = IdFilter(r, "subnet-id");
  std::string items;
  for (const FakeSubnet& s : subnets_) {
    if (ids && ids->count(s.id) == 0) continue;
    items += Tag("item", Tag("subnetId", s.id) + Tag("availabilityZone", s.zone) +
                             Tag("availabilityZoneId", s.zone + "-id") +
                             Tag("availableIpAddressCount", std::to_string(s.free_ips)));
  }
  return FakeResponse::Xml(Ec2Xml("DescribeSubnets", Tag("subnetSet", items)));
}

FakeResponse FakeEc2::DescribeSecurityGroups(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto ids = IdFilter(r, "group-id");
  std::string items;
  for (const std::string& id : security_groups_) {
    if (ids && ids->count(id) == 0) continue;
    items += Tag("item", Tag("groupId", id) + Tag("groupName", id));
  }
  return FakeResponse::Xml(Ec2Xml("DescribeSecurityGroups", Tag("securityGroupInfo", items)));
}

FakeResponse FakeEc2::DescribeImages(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto ids = IdFilter(r, "image-id", "ImageId");
  std::string items;
  for (const FakeImage& im : images_) {
    if (ids && ids->count(im.id) == 0) continue;
    items += Tag("item", Tag("imageId", im.id) + Tag("name", im.id) +
                             Tag("architecture", im.architecture) +
                             Tag("creationDate", im.created) + Tag("imageState", "available"));
  }
  return FakeResponse::Xml(Ec2Xml("DescribeImages", Tag("imagesSet", items)));
}

std::map<std::string, FakeLaunchTemplate> FakeEc2::launch_templates() const {
  std::lock_guard<std::mutex> lock(mu_);
  return launch_templates_;
}

FakeResponse FakeEc2::CreateLaunchTemplate(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = r.Param("LaunchTemplateName");
  if (name.empty()) {
    return FakeResponse::Ec2Error("MissingParameter", "LaunchTemplateName is required");
  }
  if (launch_templates_.count(name) != 0) {
    return FakeResponse::Ec2Error("InvalidLaunchTemplateName.AlreadyExistsException",
                                  StrCat("Launch template name already in use: ", name));
  }
  FakeLaunchTemplate t;
  t.id = absl::StrFormat("lt-%017x", next_id_++);
  t.name = name;
  t.image_id = r.Param("LaunchTemplateData.ImageId");
  t.user_data = r.Param("LaunchTemplateData.UserData");
  t.capacity_reservation_id = r.Param(
      "LaunchTemplateData.CapacityReservationSpecification.CapacityReservationTarget."
      "CapacityReservationId");
  for (const char* prefix : {"LaunchTemplateData.SecurityGroupId.",
                             "LaunchTemplateData.NetworkInterface.1.SecurityGroupId."}) {
    for (int i = 1;; ++i) {
      const std::string g = r.Param(StrCat(prefix, i));
      if (g.empty()) break;
      t.security_group_ids.push_back(g);
    }
  }
  launch_templates_[name] = t;
  return FakeResponse::Xml(
      Ec2Xml("CreateLaunchTemplate",
             Tag("launchTemplate", Tag("launchTemplateId", t.id) + Tag("launchTemplateName", name) +
                                       Tag("latestVersionNumber", "1"))));
}

FakeResponse FakeEc2::DescribeLaunchTemplates(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string items;
  const std::string name = r.Param("LaunchTemplateName.1");
  for (const auto& [n, t] : launch_templates_) {
    if (!name.empty() && n != name) continue;
    items += Tag("item", Tag("launchTemplateId", t.id) + Tag("launchTemplateName", n));
  }
  if (!name.empty() && items.empty()) {
    return FakeResponse::Ec2Error(
        "InvalidLaunchTemplateName.NotFoundException",
        StrCat("At least one of the launch templates specified in the request does not exist."));
  }
  return FakeResponse::Xml(Ec2Xml("DescribeLaunchTemplates", Tag("launchTemplates", items)));
}

void FakeEc2::AddInstanceType(const AwsInstanceTypeInfo& info,
                              const std::vector<std::string>& zones) {
  std::lock_guard<std::mutex> lock(mu_);
  types_.emplace_back(info, zones);
}

void FakeEc2::SetSpotPrice(const std::string& type, const std::string& zone, double price) {
  std::lock_guard<std::mutex> lock(mu_);
  spot_[{type, zone}] = price;
}

void FakeEc2::SetOnDemandPrice(const std::string& type, double price) {
  std::lock_guard<std::mutex> lock(mu_);
  on_demand_[type] = price;
}

void FakeEc2::SetPageSize(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  page_size_ = std::max(1, n);
}

void FakeEc2::FailCapacity(const std::string& capacity_type, const std::string& type,
                           const std::string& zone) {
  std::lock_guard<std::mutex> lock(mu_);
  no_capacity_.insert({capacity_type, type, zone});
}

void FakeEc2::LimitCapacity(const std::string& capacity_type, const std::string& type,
                            const std::string& zone, int n) {
  std::lock_guard<std::mutex> lock(mu_);
  limits_[{capacity_type, type, zone}] = n;
}

void FakeEc2::AddInstance(const FakeInstance& instance) {
  std::lock_guard<std::mutex> lock(mu_);
  instances_[instance.id] = instance;
}

std::map<std::string, FakeInstance> FakeEc2::instances() const {
  std::lock_guard<std::mutex> lock(mu_);
  return instances_;
}

int FakeEc2::fleet_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fleet_calls_;
}

FakeResponse FakeEc2::DescribeInstanceTypes(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t start = r.Param("NextToken").empty()
                           ? 0
                           : static_cast<size_t>(std::atoi(r.Param("NextToken").c_str() + 4));
  std::string items;
  size_t i = start;
  for (; i < types_.size() && i < start + static_cast<size_t>(page_size_); ++i) {
    items += InstanceTypeItemXml(types_[i].first);
  }
  std::string inner = Tag("instanceTypeSet", items);
  if (i < types_.size()) inner += Tag("nextToken", StrCat("tok-", i));
  return FakeResponse::Xml(Ec2Xml("DescribeInstanceTypes", inner));
}

FakeResponse FakeEc2::DescribeOfferings(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& [info, zones] : types_) {
    for (const std::string& z : zones) all.emplace_back(info.name, z);
  }
  const size_t start = r.Param("NextToken").empty()
                           ? 0
                           : static_cast<size_t>(std::atoi(r.Param("NextToken").c_str() + 4));
  std::string items;
  size_t i = start;
  for (; i < all.size() && i < start + static_cast<size_t>(page_size_) * 2; ++i) {
    items +=
        Tag("item", Tag("instanceType", all[i].first) + Tag("locationType", "availability-zone") +
                        Tag("location", all[i].second));
  }
  std::string inner = Tag("instanceTypeOfferingSet", items);
  if (i < all.size()) inner += Tag("nextToken", StrCat("off-", i));
  return FakeResponse::Xml(Ec2Xml("DescribeInstanceTypeOfferings", inner));
}

FakeResponse FakeEc2::DescribeSpotPrices(const FakeRequest&) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string items;
  for (const auto& [key, price] : spot_) {
    // An older, different price first: the adapter must keep the latest.
    items += Tag("item", Tag("instanceType", key.first) + Tag("productDescription", "Linux/UNIX") +
                             Tag("spotPrice", absl::StrFormat("%.6f", price * 3)) +
                             Tag("timestamp", "2024-01-01T00:00:00.000Z") +
                             Tag("availabilityZone", key.second));
    items += Tag("item", Tag("instanceType", key.first) + Tag("productDescription", "Linux/UNIX") +
                             Tag("spotPrice", absl::StrFormat("%.6f", price)) +
                             Tag("timestamp", "2024-05-01T00:00:00.000Z") +
                             Tag("availabilityZone", key.second));
  }
  return FakeResponse::Xml(Ec2Xml("DescribeSpotPriceHistory", Tag("spotPriceHistorySet", items)));
}

FakeResponse FakeEc2::GetProducts(const FakeRequest& r) {
  nlohmann::json body = nlohmann::json::parse(r.body, nullptr, false);
  if (!body.is_object()) {
    return FakeResponse::Json(R"({"__type":"ValidationException","message":"bad body"})", 400);
  }
  bool metal = false;
  for (const auto& f : body.value("Filters", nlohmann::json::array())) {
    if (f.value("Field", "") == "productFamily") {
      metal = f.value("Value", "") == "Compute Instance (bare metal)";
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [type, price] : on_demand_) {
    if ((type.find("metal") != std::string::npos) != metal) continue;
    nlohmann::json doc = {
        {"product", {{"attributes", {{"instanceType", type}, {"regionCode", "us-east-1"}}}}},
        {"terms",
         {{"OnDemand",
           {{"SKU.JRTCKXETXF",
             {{"priceDimensions",
               {{"SKU.JRTCKXETXF.6YS6EN2CT7",
                 {{"pricePerUnit", {{"USD", absl::StrFormat("%.10f", price)}}}}}}}}}}}}}};
    list.push_back(doc.dump());
  }
  nlohmann::json out = {{"FormatVersion", "aws_v1"}, {"PriceList", list}};
  return FakeResponse::Json(out.dump());
}

std::string FakeEc2::Launch(FakeInstance instance, const std::string& template_name) {
  instance.id = absl::StrFormat("i-%017x", next_id_++);
  if (auto t = launch_templates_.find(template_name); t != launch_templates_.end()) {
    if (instance.image_id.empty()) instance.image_id = t->second.image_id;
    instance.security_group_ids = t->second.security_group_ids;
  }
  instances_[instance.id] = instance;
  return instance.id;
}

FakeResponse FakeEc2::CreateFleet(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  ++fleet_calls_;
  if (r.Param("Type") != "instant") {
    return FakeResponse::Ec2Error("InvalidParameterValue", "fake supports Type=instant only");
  }
  const std::string capacity = r.Param("TargetCapacitySpecification.DefaultTargetCapacityType");
  struct Override {
    std::string type, zone, subnet, image, template_name;
    double priority = 0;
    int order = 0;
  };
  std::vector<Override> overrides;
  for (int c = 1;; ++c) {
    const std::string prefix = StrCat("LaunchTemplateConfigs.", c);
    const std::string name =
        r.Param(StrCat(prefix, ".LaunchTemplateSpecification.LaunchTemplateName"));
    if (name.empty()) break;
    for (int m = 1;; ++m) {
      const std::string op = StrCat(prefix, ".Overrides.", m);
      Override o;
      o.type = r.Param(StrCat(op, ".InstanceType"));
      if (o.type.empty()) break;
      o.zone = r.Param(StrCat(op, ".AvailabilityZone"));
      o.subnet = r.Param(StrCat(op, ".SubnetId"));
      o.image = r.Param(StrCat(op, ".ImageId"));
      o.template_name = name;
      o.priority = std::atof(r.Param(StrCat(op, ".Priority")).c_str());
      o.order = static_cast<int>(overrides.size());
      overrides.push_back(o);
    }
  }
  if (overrides.empty()) {
    return FakeResponse::Ec2Error("InvalidParameterValue", "no launch template overrides");
  }
  std::stable_sort(overrides.begin(), overrides.end(),
                   [](const Override& a, const Override& b) { return a.priority < b.priority; });
  std::map<std::string, std::string> tags;
  for (int s = 1;; ++s) {
    const std::string type = r.Param(StrCat("TagSpecification.", s, ".ResourceType"));
    if (type.empty()) break;
    if (type != "instance") continue;
    for (int t = 1;; ++t) {
      const std::string key = r.Param(StrCat("TagSpecification.", s, ".Tag.", t, ".Key"));
      if (key.empty()) break;
      tags[key] = r.Param(StrCat("TagSpecification.", s, ".Tag.", t, ".Value"));
    }
  }
  auto lt = [](const Override& o) {
    return Tag("launchTemplateAndOverrides",
               Tag("launchTemplateSpecification",
                   Tag("launchTemplateName", o.template_name) + Tag("version", "1")) +
                   Tag("overrides", Tag("instanceType", o.type) + Tag("availabilityZone", o.zone) +
                                        (o.subnet.empty() ? "" : Tag("subnetId", o.subnet))));
  };
  int remaining = std::atoi(r.Param("TargetCapacitySpecification.TotalTargetCapacity").c_str());
  if (remaining < 1) {
    return FakeResponse::Ec2Error("InvalidParameterValue",
                                  "TargetCapacitySpecification.TotalTargetCapacity must be >= 1");
  }
  const std::string capacity_error = Tag("errorCode", "InsufficientInstanceCapacity") +
                                     Tag("errorMessage",
                                         "We currently do not have sufficient "
                                         "capacity in the Availability Zone you "
                                         "requested.");
  const bool reservations_first =
      capacity == "on-demand" &&
      r.Param("OnDemandOptions.CapacityReservationOptions.UsageStrategy") ==
          "use-capacity-reservations-first";
  std::string errors, launched;
  for (const Override& o : overrides) {
    if (remaining == 0) break;
    FakeInstance proto;
    proto.type = o.type;
    proto.zone = o.zone;
    proto.lifecycle = capacity == "spot" ? "spot" : "";
    proto.tags = tags;
    proto.subnet_id = o.subnet;
    proto.image_id = o.image;
    const auto lt_it = launch_templates_.find(o.template_name);
    if (lt_it != launch_templates_.end() && !lt_it->second.capacity_reservation_id.empty()) {
      // A template naming a reservation launches into it alone (targeted or open).
      const std::string& cr = lt_it->second.capacity_reservation_id;
      std::vector<std::string> ids = LaunchReserved(proto, o.template_name, remaining, cr);
      remaining -= static_cast<int>(ids.size());
      if (!ids.empty()) {
        launched += Tag("item", lt(o) + Tag("lifecycle", capacity) + Items("instanceIds", ids) +
                                    Tag("instanceType", o.type) + Tag("platform", "Linux/UNIX"));
      }
      if (remaining > 0) {
        errors += Tag("item", lt(o) + Tag("lifecycle", capacity) +
                                  Tag("errorCode", "ReservationCapacityExceeded") +
                                  Tag("errorMessage", StrCat("Insufficient capacity in the "
                                                             "Capacity Reservation ",
                                                             cr, ".")));
      }
      continue;
    }
    if (reservations_first) {
      std::vector<std::string> ids = LaunchReserved(proto, o.template_name, remaining);
      if (!ids.empty()) {
        remaining -= static_cast<int>(ids.size());
        launched += Tag("item", lt(o) + Tag("lifecycle", capacity) + Items("instanceIds", ids) +
                                    Tag("instanceType", o.type) + Tag("platform", "Linux/UNIX"));
        if (remaining == 0) continue;
      }
    }
    const auto pool = std::make_tuple(capacity, o.type, o.zone);
    int room = no_capacity_.count(pool) > 0 ? 0 : remaining;
    if (auto limit = limits_.find(pool); limit != limits_.end()) {
      room = std::min(room, limit->second);
      limit->second -= room;
    }
    if (room < remaining) {
      errors += Tag("item", lt(o) + Tag("lifecycle", capacity) + capacity_error);
    }
    if (room == 0) continue;
    std::vector<std::string> ids;
    for (int n = 0; n < room; ++n) ids.push_back(Launch(proto, o.template_name));
    remaining -= room;
    launched += Tag("item", lt(o) + Tag("lifecycle", capacity) + Items("instanceIds", ids) +
                                Tag("instanceType", o.type) + Tag("platform", "Linux/UNIX"));
  }
  return FakeResponse::Xml(Ec2Xml(
      "CreateFleet",
      Tag("fleetId", "fleet-fake") + Tag("errorSet", errors) + Tag("fleetInstanceSet", launched)));
}

FakeResponse FakeEc2::DescribeInstances(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> ids;
  for (int i = 1;; ++i) {
    std::string id = r.Param(StrCat("InstanceId.", i));
    if (id.empty()) break;
    if (instances_.count(id) == 0) {
      return FakeResponse::Ec2Error("InvalidInstanceID.NotFound",
                                    StrCat("The instance ID '", id, "' does not exist"));
    }
    ids.push_back(id);
  }
  struct Filter {
    std::string name;
    std::set<std::string> values;
  };
  std::vector<Filter> filters;
  for (int f = 1;; ++f) {
    Filter filter;
    filter.name = r.Param(StrCat("Filter.", f, ".Name"));
    if (filter.name.empty()) break;
    for (int v = 1;; ++v) {
      std::string value = r.Param(StrCat("Filter.", f, ".Value.", v));
      if (value.empty()) break;
      filter.values.insert(value);
    }
    filters.push_back(filter);
  }
  std::string items;
  for (const auto& [id, inst] : instances_) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), id) == ids.end()) continue;
    bool keep = true;
    for (const Filter& f : filters) {
      if (f.name == "instance-state-name") {
        keep = keep && f.values.count(inst.state) > 0;
      } else if (f.name == "tag-key") {
        bool any = false;
        for (const std::string& k : f.values) any = any || inst.tags.count(k) > 0;
        keep = keep && any;
      } else if (f.name.rfind("tag:", 0) == 0) {
        auto t = inst.tags.find(f.name.substr(4));
        keep = keep && t != inst.tags.end() && f.values.count(t->second) > 0;
      } else {
        return FakeResponse::Ec2Error("InvalidParameterValue",
                                      StrCat("fake: unsupported filter ", f.name));
      }
    }
    if (!keep) continue;
    items += Tag("item", Tag("reservationId", "r-fake") + Tag("instancesSet", InstanceXml(inst)));
  }
  return FakeResponse::Xml(Ec2Xml("DescribeInstances", Tag("reservationSet", items)));
}

FakeResponse FakeEc2::TerminateInstances(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string items;
  for (int i = 1;; ++i) {
    std::string id = r.Param(StrCat("InstanceId.", i));
    if (id.empty()) break;
    auto it = instances_.find(id);
    if (it == instances_.end()) {
      return FakeResponse::Ec2Error("InvalidInstanceID.NotFound",
                                    StrCat("The instance ID '", id, "' does not exist"));
    }
    const std::string previous = it->second.state;
    it->second.state = "terminated";
    items += Tag("item", Tag("instanceId", id) +
                             Tag("currentState", Tag("code", "48") + Tag("name", "terminated")) +
                             Tag("previousState", Tag("code", "16") + Tag("name", previous)));
  }
  return FakeResponse::Xml(Ec2Xml("TerminateInstances", Tag("instancesSet", items)));
}

FakeResponse FakeEc2::CreateTags(const FakeRequest& r) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> ids;
  for (int i = 1;; ++i) {
    std::string id = r.Param(StrCat("ResourceId.", i));
    if (id.empty()) break;
    if (instances_.count(id) == 0) {
      return FakeResponse::Ec2Error("InvalidInstanceID.NotFound",
                                    StrCat("The instance ID '", id, "' does not exist"));
    }
    ids.push_back(id);
  }
  for (int t = 1;; ++t) {
    const std::string key = r.Param(StrCat("Tag.", t, ".Key"));
    if (key.empty()) break;
    for (const std::string& id : ids)
      instances_[id].tags[key] = r.Param(StrCat("Tag.", t, ".Value"));
  }
  return FakeResponse::Xml(Ec2Xml("CreateTags", Tag("return", "true")));
}

}  // namespace karp::aws::testing
