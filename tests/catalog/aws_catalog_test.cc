// Tests of the AWS instance-type conversion and the embedded catalog (docs/aws.md §1-2).
// They use only the embedded table, never the shared data files.

#include "karp/aws_catalog.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "karp/catalog.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/requirements.h"
#include "karp/resources.h"

namespace karp {
namespace {

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;

const InstanceCatalog& DefaultCatalog() {
  static const InstanceCatalog* const catalog = [] {
    absl::StatusOr<InstanceCatalog> c = EmbeddedAwsCatalog();
    REQUIRE(c.ok());
    return new InstanceCatalog(*std::move(c));
  }();
  return *catalog;
}

const InstanceType& Type(std::string_view name) {
  const InstanceType* it = DefaultCatalog().Find(name);
  INFO(std::string(name));
  REQUIRE(it != nullptr);
  return *it;
}

std::string Label(const InstanceType& it, std::string_view key) {
  auto found = it.labels.find(std::string(key));
  return found == it.labels.end() ? "<absent>" : found->second;
}

bool DoesNotExist(const InstanceType& it, std::string_view key) {
  const Requirement* r = it.requirements.Find(key);
  return r != nullptr && r->op() == Operator::kDoesNotExist;
}

// A plain x86 instance type with `vcpus` and `memory_mib`, 3 ENIs x 10 IPv4.
AwsInstanceTypeInfo SyntheticInfo(int vcpus, int64_t memory_mib) {
  AwsInstanceTypeInfo info;
  info.name = "m5.synthetic";
  info.vcpus = vcpus;
  info.memory_mib = memory_mib;
  info.architectures = {"x86_64"};
  info.cpu_manufacturer = "Intel";
  info.hypervisor = "nitro";
  info.max_network_interfaces = 3;
  info.ipv4_addresses_per_interface = 10;
  return info;
}

InstanceType MustMake(const AwsInstanceTypeInfo& info, std::optional<double> price = 0.1,
                      const AwsCatalogOptions& options = {}) {
  absl::StatusOr<InstanceType> it = MakeAwsInstanceType(info, price, options);
  INFO(it.status().ToString());
  REQUIRE(it.ok());
  return *std::move(it);
}

TEST_CASE("m5.large reproduces the worked example of the AWS provider", "[aws_catalog]") {
  const InstanceType& it = Type("m5.large");
  CHECK(it.capacity.cpu() == 2000);
  CHECK(it.capacity.memory() == 7577 * kMi);
  CHECK(it.capacity.pods() == 29);
  CHECK(it.capacity.ephemeral_storage() == 20 * kGi);
  CHECK(it.capacity.Get(kAwsResourcePodEni) == 9);

  CHECK(it.overhead.kube_reserved.cpu() == 70);
  CHECK(it.overhead.kube_reserved.memory() == 574 * kMi);
  CHECK(it.overhead.kube_reserved.ephemeral_storage() == 1 * kGi);
  CHECK(it.overhead.system_reserved.empty());
  CHECK(it.overhead.eviction_threshold.memory() == 100 * kMi);
  CHECK(it.overhead.eviction_threshold.ephemeral_storage() == 2 * kGi);

  ResourceList allocatable = it.Allocatable();
  CHECK(allocatable.cpu() == 1930);
  CHECK(allocatable.memory() == 6903 * kMi);
  CHECK(allocatable.ephemeral_storage() == 17 * kGi);
  CHECK(allocatable.pods() == 29);
  CHECK(FormatQuantity(allocatable.cpu(), kResourceCpu) == "1930m");
  CHECK(FormatQuantity(allocatable.memory(), kResourceMemory) == "6903Mi");
}

TEST_CASE("arm64 types lose 64Mi of CMA memory before the VM overhead", "[aws_catalog]") {
  // m6g.large: 8192 MiB -> 8128 - ceil(8128 * 0.075) = 8128 - 610 = 7518 MiB.
  const InstanceType& m6g = Type("m6g.large");
  CHECK(Label(m6g, kLabelArch) == "arm64");
  CHECK(m6g.capacity.memory() == 7518 * kMi);

  AwsInstanceTypeInfo amd = SyntheticInfo(2, 8192);
  AwsInstanceTypeInfo arm = amd;
  arm.architectures = {"arm64"};
  CHECK(MustMake(amd).capacity.memory() == 7577 * kMi);
  CHECK(MustMake(arm).capacity.memory() == 7518 * kMi);
}

TEST_CASE("kube-reserved cpu follows the tiers of the reference", "[aws_catalog]") {
  const std::pair<int, int64_t> cases[] = {{1, 60}, {2, 70},   {4, 80},
                                           {8, 90}, {96, 310}, {192, 550}};
  for (const auto& [vcpus, millis] : cases) {
    INFO(vcpus << " vCPUs");
    CHECK(MustMake(SyntheticInfo(vcpus, 4096)).overhead.kube_reserved.cpu() == millis);
  }
}

TEST_CASE("kube-reserved memory is 11Mi per ENI-limited pod plus 255Mi", "[aws_catalog]") {
  // m5.24xlarge: 15 ENIs x 50 IPv4 -> 737 pods -> 11 * 737 + 255 = 8362 MiB.
  const InstanceType& it = Type("m5.24xlarge");
  CHECK(it.capacity.pods() == 737);
  CHECK(it.overhead.kube_reserved.memory() == 8362 * kMi);

  SECTION("maxPods changes pods but not the ENI-limited memory reservation on AL2023") {
    AwsCatalogOptions options;
    options.max_pods = 110;
    InstanceType capped = MustMake(SyntheticInfo(2, 8192), 0.1, options);
    CHECK(capped.capacity.pods() == 110);
    CHECK(capped.overhead.kube_reserved.memory() == (11 * 29 + 255) * kMi);
  }
  SECTION("Bottlerocket reserves memory for the actual pods capacity") {
    AwsCatalogOptions options;
    options.ami_family = AwsAmiFamily::kBottlerocket;
    options.max_pods = 110;
    InstanceType br = MustMake(SyntheticInfo(2, 8192), 0.1, options);
    CHECK(br.capacity.pods() == 110);
    CHECK(br.overhead.kube_reserved.memory() == (11 * 110 + 255) * kMi);
  }
}

TEST_CASE("max pods honours reserved ENIs, maxPods and podsPerCore", "[aws_catalog]") {
  AwsInstanceTypeInfo info = SyntheticInfo(2, 8192);  // 3 ENIs x 10 IPv4
  CHECK(MustMake(info).capacity.pods() == 29);

  AwsCatalogOptions reserved;
  reserved.reserved_enis = 1;
  CHECK(MustMake(info, 0.1, reserved).capacity.pods() == 20);
  reserved.reserved_enis = 3;
  CHECK(MustMake(info, 0.1, reserved).capacity.pods() == 0);
  reserved.reserved_enis = 5;
  CHECK(MustMake(info, 0.1, reserved).capacity.pods() == 0);

  AwsCatalogOptions per_core;
  per_core.pods_per_core = 4;
  CHECK(MustMake(info, 0.1, per_core).capacity.pods() == 8);
  per_core.ami_family = AwsAmiFamily::kBottlerocket;
  CHECK(MustMake(info, 0.1, per_core).capacity.pods() == 29);
}

TEST_CASE("GPU types advertise their GPUs, other types exclude the GPU labels", "[aws_catalog]") {
  const InstanceType& g4dn = Type("g4dn.xlarge");
  CHECK(g4dn.capacity.Get(kAwsResourceNvidiaGpu) == 1);
  CHECK(Label(g4dn, kAwsLabelInstanceGpuName) == "t4");
  CHECK(Label(g4dn, kAwsLabelInstanceGpuManufacturer) == "nvidia");
  CHECK(Label(g4dn, kAwsLabelInstanceGpuCount) == "1");
  CHECK(Label(g4dn, kAwsLabelInstanceGpuMemory) == "16384");
  CHECK(g4dn.requirements.Get(kAwsLabelInstanceGpuName).Has("t4"));

  const InstanceType& p5 = Type("p5.48xlarge");
  CHECK(p5.capacity.Get(kAwsResourceNvidiaGpu) == 8);
  CHECK(p5.capacity.Get(kAwsResourceEfa) == 32);
  CHECK(Label(p5, kAwsLabelInstanceGpuName) == "h100");

  const InstanceType& g4ad = Type("g4ad.xlarge");
  CHECK(g4ad.capacity.Get(kAwsResourceAmdGpu) == 1);
  CHECK(Label(g4ad, kAwsLabelInstanceGpuName) == "radeon-pro-v520");

  const InstanceType& m5 = Type("m5.large");
  CHECK(!m5.capacity.Has(kAwsResourceNvidiaGpu));
  CHECK(Label(m5, kAwsLabelInstanceGpuName) == "<absent>");
  CHECK(DoesNotExist(m5, kAwsLabelInstanceGpuName));
  CHECK(DoesNotExist(m5, kAwsLabelInstanceGpuCount));
  CHECK(DoesNotExist(m5, kAwsLabelInstanceAcceleratorName));
  CHECK(DoesNotExist(m5, kAwsLabelInstanceLocalNvme));
  CHECK(DoesNotExist(m5, kAwsLabelCapacityReservationId));
  CHECK(DoesNotExist(m5, kLabelWindowsBuild));

  SECTION("a pod selecting a GPU name only matches types with that GPU") {
    Requirements wants_t4{Requirement::In(kAwsLabelInstanceGpuName, {"t4"})};
    std::vector<const InstanceType*> compatible = DefaultCatalog().Compatible(wants_t4);
    REQUIRE(!compatible.empty());
    for (const InstanceType* it : compatible) {
      INFO(it->name);
      CHECK(Label(*it, kAwsLabelInstanceFamily) == "g4dn");
    }
  }
}

TEST_CASE("Neuron types advertise devices, cores and accelerator labels", "[aws_catalog]") {
  const InstanceType& inf2 = Type("inf2.xlarge");
  CHECK(inf2.capacity.Get(kAwsResourceNeuron) == 1);
  CHECK(inf2.capacity.Get(kAwsResourceNeuronCore) == 2);
  CHECK(Label(inf2, kAwsLabelInstanceAcceleratorName) == "inferentia2");
  CHECK(Label(inf2, kAwsLabelInstanceAcceleratorManufacturer) == "aws");
  CHECK(Label(inf2, kAwsLabelInstanceAcceleratorCount) == "1");
  CHECK(DoesNotExist(inf2, kAwsLabelInstanceGpuName));

  const InstanceType& trn1 = Type("trn1.32xlarge");
  CHECK(trn1.capacity.Get(kAwsResourceNeuron) == 16);
  CHECK(trn1.capacity.Get(kAwsResourceNeuronCore) == 32);
  CHECK(Label(trn1, kAwsLabelInstanceAcceleratorName) == "trainium");
}

TEST_CASE("the embedded table has every current type, newest generations included",
          "[aws_catalog]") {
  const std::vector<AwsInstanceTypeInfo>& infos = EmbeddedAwsInstanceTypeInfos();
  CHECK(infos.size() >= 1300);
  CHECK(DefaultCatalog().size() >= 1300);
  CHECK(DefaultCatalog().size() <= infos.size());

  std::set<std::string> names, families, archs;
  size_t metal = 0, xen = 0, without_bandwidth = 0;
  for (const AwsInstanceTypeInfo& info : infos) {
    INFO(info.name);
    CHECK(names.insert(info.name).second);
    families.insert(info.name.substr(0, info.name.find('.')));
    CHECK(info.vcpus > 0);
    CHECK(info.memory_mib > 0);
    CHECK(info.max_network_interfaces > 0);
    CHECK(info.ipv4_addresses_per_interface > 1);
    const bool is_metal = info.name.find(".metal") != std::string::npos;
    CHECK((info.hypervisor.empty() == is_metal));
    metal += is_metal ? 1 : 0;
    xen += info.hypervisor == "xen" ? 1 : 0;
    // Only old Xen types have a text rating instead of a baseline bandwidth.
    if (!info.network_bandwidth_mbps.has_value()) {
      ++without_bandwidth;
      CHECK(info.hypervisor == "xen");
    }
  }
  CHECK(families.size() >= 150);
  CHECK(metal >= 70);
  CHECK(xen >= 50);
  CHECK(without_bandwidth < 50);
  for (const InstanceType& it : DefaultCatalog().instance_types()) {
    archs.insert(Label(it, kLabelArch));
    INFO(it.name);
    std::optional<double> price = EmbeddedAwsOnDemandPrice(it.name);
    REQUIRE(price.has_value());
    CHECK(*price > 0);
  }
  CHECK(archs == std::set<std::string>{"amd64", "arm64"});
  // Old, current and the eighth and ninth generations (Intel, AMD and Graviton), bare metal,
  // GPU, Neuron and HPC families.
  for (const char* family :
       {"a1",  "c3",  "c4",   "d2",   "d3",  "h1",  "m5",  "c6g",   "r7i", "t4g",
        "g5",  "p4d", "inf2", "trn1", "c8i", "c8a", "m8i", "m8a",   "r8i", "c8g",
        "m8g", "r8g", "c9g",  "m9g",  "i7i", "i8g", "x8g", "hpc7g", "g6f"}) {
    CHECK(families.count(family) == 1);
  }
  CHECK(names.count("m7i.metal-24xl") == 1);
  CHECK(names.count("c8g.metal-48xl") == 1);
}

TEST_CASE("new generations carry their facts and labels", "[aws_catalog]") {
  // c8i.large: 2 vCPUs, 4096 MiB, 3 ENIs x 20 IPv4 -> 3 * 19 + 2 = 59 pods; Intel, nitro.
  const InstanceType& c8i = Type("c8i.large");
  CHECK(Label(c8i, kAwsLabelInstanceGeneration) == "8");
  CHECK(Label(c8i, kAwsLabelInstanceCategory) == "c");
  CHECK(Label(c8i, kAwsLabelInstanceCpuManufacturer) == "intel");
  CHECK(Label(c8i, kAwsLabelInstanceHypervisor) == "nitro");
  CHECK(c8i.capacity.cpu() == 2000);
  CHECK(c8i.capacity.pods() == 59);
  CHECK(c8i.capacity.memory() == (4096 - 308) * kMi);  // ceil(4096 * 0.075) = 308

  const InstanceType& c9g = Type("c9g.medium");
  CHECK(Label(c9g, kAwsLabelInstanceGeneration) == "9");
  CHECK(Label(c9g, kLabelArch) == "arm64");
  CHECK(Label(c9g, kAwsLabelInstanceCpuManufacturer) == "aws");

  // Bare metal: empty hypervisor label.
  CHECK(Label(Type("c8g.metal-48xl"), kAwsLabelInstanceHypervisor) == "");
  CHECK(Label(Type("a1.metal"), kAwsLabelInstanceHypervisor) == "");
  // Old Xen types without a baseline bandwidth get DoesNotExist for that label.
  const InstanceType& c4 = Type("c4.large");
  CHECK(Label(c4, kAwsLabelInstanceHypervisor) == "xen");
  CHECK(DoesNotExist(c4, kAwsLabelInstanceNetworkBandwidth));
  // Fractional GPUs (g6f) carry the GPU labels with count 0 and no nvidia.com/gpu capacity.
  const InstanceType& g6f = Type("g6f.large");
  CHECK(Label(g6f, kAwsLabelInstanceGpuName) == "l4");
  CHECK(Label(g6f, kAwsLabelInstanceGpuCount) == "0");
  CHECK(Label(g6f, kAwsLabelInstanceGpuMemory) == "2861");
  CHECK(!g6f.capacity.Has(kAwsResourceNvidiaGpu));
  // a1 does not run AL2023 (the default AMI family): listed, but every offering unavailable.
  const InstanceType& a1 = Type("a1.large");
  REQUIRE(!a1.offerings.empty());
  for (const Offering& o : a1.offerings) CHECK(!o.available);
}

TEST_CASE("the embedded on-demand price is found by name", "[aws_catalog]") {
  REQUIRE(EmbeddedAwsOnDemandPrice("m5.large").has_value());
  CHECK(*EmbeddedAwsOnDemandPrice("m5.large") == Approx(0.096));
  CHECK(!EmbeddedAwsOnDemandPrice("m5.nonexistent").has_value());
  CHECK(!EmbeddedAwsOnDemandPrice("").has_value());
}

TEST_CASE("every type is offered in every zone for each capacity type, spot at an estimate",
          "[aws_catalog]") {
  const InstanceType& it = Type("m5.large");
  REQUIRE(it.offerings.size() == 6);
  std::set<std::pair<std::string, std::string>> seen;
  for (const Offering& o : it.offerings) {
    seen.emplace(o.zone, o.capacity_type);
    INFO(o.zone << " " << o.capacity_type);
    CHECK(o.available);
    if (o.capacity_type == "on-demand") {
      CHECK(o.price == 0.096);
      CHECK(!o.price_estimated);
    } else {
      CHECK(o.price == 0.0384);  // 0.096 x (1 - 0.60), general purpose
      CHECK(o.price_estimated);
    }
  }
  for (const char* zone : {"us-east-1a", "us-east-1b", "us-east-1c"}) {
    CHECK(seen.count({zone, "on-demand"}) == 1);
    CHECK(seen.count({zone, "spot"}) == 1);
  }
  CHECK(it.requirements.Get(kLabelZone).Has("us-east-1b"));
  CHECK(it.requirements.Get(kLabelCapacityType).Has("spot"));
  CHECK(it.requirements.Get(kLabelInstanceType).Has("m5.large"));
}

TEST_CASE("custom region, zones and capacity types shape the offerings", "[aws_catalog]") {
  AwsCatalogOptions options;
  options.region = "us-gov-west-1";
  options.zones = {"us-gov-west-1a", "us-gov-west-1b"};
  options.capacity_types = {"on-demand"};
  absl::StatusOr<InstanceCatalog> catalog = EmbeddedAwsCatalog(options);
  REQUIRE(catalog.ok());
  const InstanceType* it = catalog->Find("c6i.xlarge");
  REQUIRE(it != nullptr);
  CHECK(Label(*it, kLabelRegion) == "us-gov-west-1");
  REQUIRE(it->offerings.size() == 2);
  CHECK(it->offerings[0].zone == "us-gov-west-1a");
  CHECK(it->offerings[1].zone == "us-gov-west-1b");
  for (const Offering& o : it->offerings) CHECK(o.capacity_type == "on-demand");
  CHECK(!it->requirements.Get(kLabelZone).Has("us-east-1a"));
  CHECK(!it->requirements.Get(kLabelCapacityType).Has("spot"));

  AwsCatalogOptions defaults;
  defaults.region = "ap-south-1";
  CHECK(defaults.ResolvedZones() ==
        std::vector<std::string>{"ap-south-1a", "ap-south-1b", "ap-south-1c"});
}

TEST_CASE("each embedded region has its own prices and its own types", "[aws_catalog]") {
  CHECK(EmbeddedAwsRegions() ==
        std::vector<std::string>{"cn-north-1", "us-east-1", "us-gov-east-1", "us-gov-west-1"});
  CHECK(EmbeddedAwsCurrency("us-east-1") == "USD");
  CHECK(EmbeddedAwsCurrency("us-gov-west-1") == "USD");
  CHECK(EmbeddedAwsCurrency("cn-north-1") == "CNY");
  CHECK(EmbeddedAwsCurrency("mars-1").empty());

  CHECK(EmbeddedAwsOnDemandPrice("m5.large", "us-east-1") == std::optional<double>(0.096));
  CHECK(EmbeddedAwsOnDemandPrice("m5.large", "us-gov-west-1") == std::optional<double>(0.121));
  CHECK(EmbeddedAwsOnDemandPrice("m5.large", "cn-north-1") == std::optional<double>(1.013));
  CHECK(!EmbeddedAwsOnDemandPrice("c8i.large", "us-gov-west-1").has_value());  // not sold there
  CHECK(!EmbeddedAwsOnDemandPrice("m5.large", "mars-1").has_value());

  AwsCatalogOptions gov;
  gov.region = "us-gov-west-1";
  absl::StatusOr<InstanceCatalog> catalog = EmbeddedAwsCatalog(gov);
  REQUIRE(catalog.ok());
  CHECK(catalog->size() >= 500);
  CHECK(catalog->size() < DefaultCatalog().size());
  CHECK(catalog->Find("c8i.large") == nullptr);
  const InstanceType* m5 = catalog->Find("m5.large");
  REQUIRE(m5 != nullptr);
  REQUIRE(m5->offerings.size() == 6);
  CHECK(m5->offerings[0].zone == "us-gov-west-1a");
  for (const Offering& o : m5->offerings) {
    if (o.capacity_type == "on-demand") CHECK(o.price == 0.121);
  }
  for (const InstanceType& t : catalog->instance_types()) {
    INFO(t.name);
    CHECK(EmbeddedAwsOnDemandPrice(t.name, "us-gov-west-1").has_value());
  }

  AwsCatalogOptions cn;
  cn.region = "cn-north-1";
  absl::StatusOr<InstanceCatalog> china = EmbeddedAwsCatalog(cn);
  REQUIRE(china.ok());
  CHECK(china->size() >= 300);
  CHECK(Label(*china->Find("m5.large"), kLabelRegion) == "cn-north-1");
}

TEST_CASE("a region without embedded prices is an error listing the known ones", "[aws_catalog]") {
  AwsCatalogOptions options;
  options.region = "mars-1";
  absl::StatusOr<InstanceCatalog> catalog = EmbeddedAwsCatalog(options);
  REQUIRE(!catalog.ok());
  CHECK(catalog.status().code() == absl::StatusCode::kInvalidArgument);
  const std::string message(catalog.status().message());
  CHECK_THAT(message, Catch::Contains("region \"mars-1\""));
  CHECK_THAT(message, Catch::Contains("cn-north-1, us-east-1, us-gov-east-1, us-gov-west-1"));
  options.region = "eu-west-1";
  CHECK(EmbeddedAwsCatalog(options).status().code() == absl::StatusCode::kInvalidArgument);

  // MakeAwsInstanceType (the AWS adapter's path, with live prices) accepts any region.
  AwsCatalogOptions eu;
  eu.region = "eu-west-1";
  CHECK(Label(MustMake(SyntheticInfo(2, 8192), 0.1, eu), kLabelRegion) == "eu-west-1");
}

TEST_CASE("zones must belong to the region", "[aws_catalog]") {
  AwsCatalogOptions options;
  options.zones = {"us-east-1a", "us-west-2b"};
  absl::Status s = options.Validate();
  REQUIRE(!s.ok());
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(s.message()),
             Catch::Contains("zones[1] \"us-west-2b\" is not a zone of region \"us-east-1\""));
  CHECK(!EmbeddedAwsCatalog(options).ok());
  CHECK(!MakeAwsInstanceType(SyntheticInfo(2, 8192), 0.1, options).ok());

  for (const char* bad : {"us-east-1", "us-east-10a", "mars-1a", "us-east-"}) {
    options.zones = {bad};
    INFO(bad);
    CHECK(!options.Validate().ok());
  }
  // Availability, Local and Wavelength Zones of the region are accepted.
  for (const char* good : {"us-east-1f", "us-east-1-bos-1a", "us-east-1-wl1-bos-wlz-1"}) {
    options.zones = {good};
    INFO(good);
    CHECK(options.Validate().ok());
  }
}

TEST_CASE("spot prices, when given, replace the on-demand price per zone", "[aws_catalog]") {
  AwsCatalogOptions options;
  options.spot_prices.emplace();
  (*options.spot_prices)["m5.synthetic"]["us-east-1a"] = 0.035;
  InstanceType it = MustMake(SyntheticInfo(2, 8192), 0.096, options);
  for (const Offering& o : it.offerings) {
    INFO(o.zone << " " << o.capacity_type);
    if (o.capacity_type == "on-demand") {
      CHECK(o.available);
      CHECK(o.price == Approx(0.096));
    } else if (o.zone == "us-east-1a") {
      CHECK(o.available);
      CHECK(o.price == Approx(0.035));
      CHECK(!o.price_estimated);  // a real price, not an estimate
    } else {
      CHECK(!o.available);
    }
  }
}

TEST_CASE("estimated spot prices: a documented discount per instance category", "[aws_catalog]") {
  CHECK(EstimatedAwsSpotDiscount("c7i.large") == 0.55);
  CHECK(EstimatedAwsSpotDiscount("c8gn.metal-48xl") == 0.55);
  CHECK(EstimatedAwsSpotDiscount("m5.large") == 0.60);
  CHECK(EstimatedAwsSpotDiscount("t4g.nano") == 0.60);
  CHECK(EstimatedAwsSpotDiscount("i4i.large") == 0.60);
  CHECK(EstimatedAwsSpotDiscount("hpc7g.4xlarge") == 0.60);
  CHECK(EstimatedAwsSpotDiscount("r8g.large") == 0.65);
  CHECK(EstimatedAwsSpotDiscount("x2idn.16xlarge") == 0.65);
  CHECK(EstimatedAwsSpotDiscount("u-6tb1.112xlarge") == 0.65);
  CHECK(EstimatedAwsSpotDiscount("g5.xlarge") == 0.50);
  CHECK(EstimatedAwsSpotDiscount("gr6.4xlarge") == 0.50);
  CHECK(EstimatedAwsSpotDiscount("p5.48xlarge") == 0.50);
  CHECK(EstimatedAwsSpotDiscount("inf2.xlarge") == 0.50);
  CHECK(EstimatedAwsSpotDiscount("trn1.2xlarge") == 0.50);
  CHECK(EstimatedAwsSpotPrice("c6a.2xlarge", 0.306) == 0.1377);
  CHECK(EstimatedAwsSpotPrice("r6i.large", 0.126) == 0.0441);

  // Every embedded spot offering is estimated, below its on-demand price; on-demand never is.
  for (const InstanceType& t : DefaultCatalog().instance_types()) {
    double on_demand = -1;
    for (const Offering& o : t.offerings) {
      if (o.capacity_type == "on-demand") on_demand = o.price;
    }
    for (const Offering& o : t.offerings) {
      INFO(t.name << " " << o.zone << " " << o.capacity_type);
      CHECK(o.price_estimated == (o.capacity_type == "spot"));
      if (o.capacity_type == "spot") {
        CHECK(o.price < on_demand);
        CHECK(o.price == EstimatedAwsSpotPrice(t.name, on_demand));
      }
    }
  }
  // Spot no longer ties on-demand, so the cheapest spot offering is strictly cheaper.
  const InstanceType& c6a = Type("c6a.2xlarge");
  Requirements spot{Requirement::In(kLabelCapacityType, {"spot"})};
  Requirements on_demand{Requirement::In(kLabelCapacityType, {"on-demand"})};
  CHECK(c6a.CheapestOffering(spot)->price < c6a.CheapestOffering(on_demand)->price);
}

TEST_CASE("without estimates spot is seeded with the on-demand price, as the reference does",
          "[aws_catalog]") {
  AwsCatalogOptions options;
  options.estimate_spot_prices = false;
  InstanceType it = MustMake(SyntheticInfo(2, 8192), 0.096, options);
  for (const Offering& o : it.offerings) {
    CHECK(o.price == 0.096);
    CHECK(!o.price_estimated);
  }
  absl::StatusOr<InstanceCatalog> catalog = EmbeddedAwsCatalog(options);
  REQUIRE(catalog.ok());
  for (const Offering& o : catalog->Find("m5.large")->offerings) {
    CHECK(o.price == 0.096);
    CHECK(!o.price_estimated);
  }
  // With estimates (the default) the synthetic type gets the general-purpose estimate.
  for (const Offering& o : MustMake(SyntheticInfo(2, 8192), 0.096).offerings) {
    if (o.capacity_type == "spot") CHECK(o.price == 0.0384);
  }
}

TEST_CASE("a type without an on-demand price has only unavailable offerings", "[aws_catalog]") {
  InstanceType it = MustMake(SyntheticInfo(2, 8192), std::nullopt);
  REQUIRE(it.offerings.size() == 6);
  for (const Offering& o : it.offerings) CHECK(!o.available);
  CHECK(!it.requirements.Get(kLabelZone).Has("us-east-1a"));
}

TEST_CASE("offerings follow the type's usage classes and offered zones", "[aws_catalog]") {
  AwsInstanceTypeInfo info = SyntheticInfo(2, 8192);
  info.usage_classes = {"on-demand"};
  info.offered_zones = {"us-east-1b"};
  InstanceType it = MustMake(info);
  REQUIRE(it.offerings.size() == 3);
  for (const Offering& o : it.offerings) {
    CHECK(o.capacity_type == "on-demand");
    CHECK(o.available == (o.zone == "us-east-1b"));
  }
}

TEST_CASE("instance types carry the AWS labels with their exact keys", "[aws_catalog]") {
  const InstanceType& it = Type("m5.large");
  CHECK(Label(it, "kubernetes.io/arch") == "amd64");
  CHECK(Label(it, "kubernetes.io/os") == "linux");
  CHECK(Label(it, "topology.kubernetes.io/region") == "us-east-1");
  CHECK(Label(it, "karpenter.k8s.aws/instance-category") == "m");
  CHECK(Label(it, "karpenter.k8s.aws/instance-family") == "m5");
  CHECK(Label(it, "karpenter.k8s.aws/instance-generation") == "5");
  CHECK(Label(it, "karpenter.k8s.aws/instance-size") == "large");
  CHECK(Label(it, "karpenter.k8s.aws/instance-cpu") == "2");
  CHECK(Label(it, "karpenter.k8s.aws/instance-memory") == "8192");
  CHECK(Label(it, "karpenter.k8s.aws/instance-cpu-manufacturer") == "intel");
  CHECK(Label(it, "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz") == "3100");
  CHECK(Label(it, "karpenter.k8s.aws/instance-hypervisor") == "nitro");
  CHECK(Label(it, "karpenter.k8s.aws/instance-encryption-in-transit-supported") == "false");
  CHECK(Label(it, "karpenter.k8s.aws/instance-ebs-bandwidth") == "4750");
  CHECK(Label(it, "karpenter.k8s.aws/instance-network-bandwidth") == "750");
  CHECK(Label(it, "karpenter.k8s.aws/instance-capability-flex") == "false");
  CHECK(it.requirements.Get("karpenter.k8s.aws/instance-family").Has("m5"));

  CHECK(Label(Type("m5.metal"), kAwsLabelInstanceHypervisor) == "");
  CHECK(Label(Type("c7i-flex.large"), kAwsLabelInstanceCapabilityFlex) == "true");
  CHECK(Label(Type("c7i-flex.large"), kAwsLabelInstanceCategory) == "c");
  CHECK(Label(Type("c7i-flex.large"), kAwsLabelInstanceGeneration) == "7");
  CHECK(Label(Type("m5d.large"), kAwsLabelInstanceLocalNvme) == "75");
  CHECK(Label(Type("c6g.large"), kAwsLabelInstanceCpuManufacturer) == "aws");

  for (std::string_view key : {kAwsLabelInstanceFamily, kAwsLabelInstanceGpuName,
                               kAwsLabelInstanceCapabilityFlex, kAwsLabelTopologyZoneId}) {
    CHECK(AwsWellKnownLabels().Contains(key));
    CHECK(DefaultCatalog().well_known_labels().Contains(key));
  }
  CHECK(DefaultCatalog().well_known_labels().Contains(kLabelZone));
  // Every label key of every type is well-known (so none needs registering per type).
  for (const InstanceType& t : DefaultCatalog().instance_types()) {
    for (const auto& [key, value] : t.labels) {
      INFO(t.name << " " << key);
      CHECK(DefaultCatalog().well_known_labels().Contains(key));
    }
  }
  AwsCatalogOptions windows;
  windows.ami_family = AwsAmiFamily::kWindows2022;
  InstanceType w = MustMake(SyntheticInfo(2, 8192), 0.1, windows);
  CHECK(AwsWellKnownLabels().Contains(kLabelWindowsBuild));
  for (const auto& [key, value] : w.labels) {
    INFO(key);
    CHECK((AwsWellKnownLabels().Contains(key) || WellKnownLabels().Contains(key)));
  }
}

TEST_CASE("category and generation are parsed as the reference's regular expression does",
          "[aws_catalog]") {
  auto parse = [](const char* name) {
    AwsInstanceTypeInfo info = SyntheticInfo(2, 8192);
    info.name = name;
    InstanceType it = MustMake(info);
    return Label(it, kAwsLabelInstanceCategory) + "/" + Label(it, kAwsLabelInstanceGeneration) +
           "/" + Label(it, kAwsLabelInstanceFamily) + "/" + Label(it, kAwsLabelInstanceSize);
  };
  CHECK(parse("u-6tb1.metal") == "u/1/u-6tb1/metal");
  CHECK(parse("u7i-12tb.metal") == "u/7/u7i-12tb/metal");
  CHECK(parse("p6-b200.48xlarge") == "p/6/p6-b200/48xlarge");
  CHECK(parse("mac2-m2pro.metal") == "mac/2/mac2-m2pro/metal");
  CHECK(parse("x2iedn.32xlarge") == "x/2/x2iedn/32xlarge");
  CHECK(parse("nodigits.large") == "<absent>/<absent>/nodigits/large");
}

TEST_CASE("Windows AMI families change OS, pods and storage", "[aws_catalog]") {
  AwsCatalogOptions options;
  options.ami_family = AwsAmiFamily::kWindows2022;
  InstanceType it = MustMake(SyntheticInfo(2, 8192), 0.1, options);
  CHECK(Label(it, kLabelOs) == "windows");
  CHECK(Label(it, kLabelWindowsBuild) == "10.0.20348");
  CHECK(it.capacity.pods() == 110);
  CHECK(it.capacity.ephemeral_storage() == 50 * kGi);
  CHECK(it.capacity.Get(kAwsResourcePrivateIpv4Address) == 9);

  AwsInstanceTypeInfo arm = SyntheticInfo(2, 8192);
  arm.architectures = {"arm64"};
  InstanceType arm_it = MustMake(arm, 0.1, options);
  CHECK(!arm_it.requirements.Get(kLabelOs).Has("windows"));
  CHECK(!arm_it.requirements.Get(kLabelOs).Has("linux"));
}

TEST_CASE("ephemeral storage follows the volume size and RAID0 instance stores", "[aws_catalog]") {
  AwsInstanceTypeInfo info = SyntheticInfo(2, 8192);
  info.local_nvme_gb = 75;
  AwsCatalogOptions volume;
  volume.ephemeral_volume_bytes = 100 * kGi;
  InstanceType big = MustMake(info, 0.1, volume);
  CHECK(big.capacity.ephemeral_storage() == 100 * kGi);
  CHECK(big.overhead.eviction_threshold.ephemeral_storage() == 10 * kGi);

  AwsCatalogOptions raid;
  raid.instance_store_raid0 = true;
  CHECK(MustMake(info, 0.1, raid).capacity.ephemeral_storage() == 75'000'000'000);
}

TEST_CASE("evictionHard replaces the memory and nodefs thresholds", "[aws_catalog]") {
  AwsInstanceTypeInfo info = SyntheticInfo(2, 8192);  // memory capacity 7577Mi, storage 20Gi
  AwsCatalogOptions options;
  options.eviction_hard = {
      {"memory.available", "500Mi"}, {"nodefs.available", "5%"}, {"pid.available", "10%"}};
  InstanceType it = MustMake(info, 0.1, options);
  CHECK(it.overhead.eviction_threshold.memory() == 500 * kMi);
  // ceil(20Gi * 5 / 100) = 1073741824 bytes.
  CHECK(it.overhead.eviction_threshold.ephemeral_storage() == 1 * kGi);
  CHECK(it.Allocatable().memory() == (7577 - 574 - 500) * kMi);

  AwsCatalogOptions percent;
  percent.eviction_hard = {{"memory.available", "1.5%"}, {"nodefs.available", "100%"}};
  InstanceType p = MustMake(info, 0.1, percent);
  CHECK(p.overhead.eviction_threshold.memory() ==
        static_cast<int64_t>(std::ceil(7577.0 * kMi / 100 * 1.5)));
  CHECK(p.overhead.eviction_threshold.ephemeral_storage() == 0);  // 100% disables it

  for (const char* bad : {"abc", "101%", "-5%", "%", ".%", "1.2.3%"}) {
    AwsCatalogOptions b;
    b.eviction_hard = {{"memory.available", bad}};
    absl::StatusOr<InstanceType> r = MakeAwsInstanceType(info, 0.1, b);
    INFO(bad);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(std::string(r.status().message()),
               Catch::Contains("eviction_hard[\"memory.available\"]"));
  }
}

TEST_CASE("AMI family names round-trip", "[aws_catalog]") {
  for (AwsAmiFamily f : {AwsAmiFamily::kAl2023, AwsAmiFamily::kAl2, AwsAmiFamily::kBottlerocket,
                         AwsAmiFamily::kCustom, AwsAmiFamily::kWindows2019,
                         AwsAmiFamily::kWindows2022, AwsAmiFamily::kWindows2025}) {
    absl::StatusOr<AwsAmiFamily> parsed = ParseAwsAmiFamily(AwsAmiFamilyName(f));
    REQUIRE(parsed.ok());
    CHECK(*parsed == f);
  }
  CHECK(ParseAwsAmiFamily("Ubuntu").status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("invalid facts and options are rejected with a message naming them", "[aws_catalog]") {
  AwsInstanceTypeInfo bad = SyntheticInfo(0, 8192);
  absl::StatusOr<InstanceType> it = MakeAwsInstanceType(bad, 0.1, {});
  REQUIRE(!it.ok());
  CHECK(it.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(it.status().message()).find("m5.synthetic") != std::string::npos);
  CHECK(std::string(it.status().message()).find("vcpus") != std::string::npos);

  AwsInstanceTypeInfo no_arch = SyntheticInfo(2, 8192);
  no_arch.architectures = {"i386"};
  CHECK(!MakeAwsInstanceType(no_arch, 0.1, {}).ok());
  CHECK(!MakeAwsInstanceType(SyntheticInfo(2, 8192), -1.0, {}).ok());
  CHECK(!MakeAwsInstanceType(SyntheticInfo(2, 8192), std::nan(""), {}).ok());

  AwsCatalogOptions options;
  options.capacity_types = {"on-demand", "reserved"};
  CHECK(EmbeddedAwsCatalog(options).status().code() == absl::StatusCode::kInvalidArgument);
  options = {};
  options.zones = {"us-east-1a", "us-east-1a"};
  CHECK(!options.Validate().ok());
  options = {};
  options.vm_memory_overhead_percent = 1.5;
  CHECK(!options.Validate().ok());
  options = {};
  options.region = "";
  CHECK(!options.Validate().ok());
  CHECK(AwsCatalogOptions{}.Validate().ok());
}

}  // namespace
}  // namespace karp
