// Tests of node classes and each NodePool's instance types (karp/node_class_catalog.h).
// The "reference:" cases port the Overhead, max-pods and Ephemeral Storage cases of the
// reference provider's instance-type suite (aws/karpenter-provider-aws v1.14.1,
// pkg/providers/instancetype/suite_test.go): same scenarios, same expected numbers, over the
// embedded table instead of the suite's fake EC2 API (whose facts for these types agree).

#include "karp/node_class_catalog.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "karp/aws_catalog.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/instance_type.h"
#include "karp/pricing.h"
#include "karp/resources.h"

namespace karp {
namespace {

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;

// The suite's default EC2NodeClass: an al2023@latest alias and nothing else.
NodeClass DefaultClass(std::string name = "default") {
  NodeClass nc;
  nc.api_version = "karpenter.k8s.aws/v1";
  nc.kind = "EC2NodeClass";
  nc.metadata.name = std::move(name);
  nc.ami_alias = "al2023@latest";
  return nc;
}

const AwsInstanceTypeInfo& Info(std::string_view name) {
  for (const AwsInstanceTypeInfo& info : EmbeddedAwsInstanceTypeInfos()) {
    if (info.name == name) return info;
  }
  FAIL("no embedded type " << name);
  std::abort();
}

AwsCatalogOptions OptionsFor(const NodeClass& nc, AwsCatalogOptions base = {}) {
  absl::StatusOr<AwsCatalogOptions> o = AwsCatalogOptionsForNodeClass(nc, std::move(base));
  INFO(o.status().message());
  REQUIRE(o.ok());
  return *o;
}

// The reference's NewInstanceType(info, ..., nodeClass settings) for one type.
InstanceType Build(const NodeClass& nc, std::string_view type, AwsCatalogOptions base = {}) {
  const AwsCatalogOptions o = OptionsFor(nc, std::move(base));
  absl::StatusOr<InstanceType> it =
      MakeAwsInstanceType(Info(type), EmbeddedAwsOnDemandPrice(type, o.region), o);
  INFO(it.status().message());
  REQUIRE(it.ok());
  return *it;
}

// Every embedded type under the class (the suite's `for _, info := range instanceInfo`).
std::vector<InstanceType> BuildAll(const NodeClass& nc, AwsCatalogOptions base = {}) {
  const AwsCatalogOptions o = OptionsFor(nc, std::move(base));
  std::vector<InstanceType> out;
  for (const AwsInstanceTypeInfo& info : EmbeddedAwsInstanceTypeInfos()) {
    absl::StatusOr<InstanceType> it = MakeAwsInstanceType(info, std::nullopt, o);
    REQUIRE(it.ok());
    out.push_back(*std::move(it));
  }
  return out;
}

AwsCatalogOptions NoVmOverhead() {  // the suite's Eviction Thresholds context
  AwsCatalogOptions o;
  o.vm_memory_overhead_percent = 0;
  return o;
}

// The Eviction Thresholds cases all reserve 20Gi system and 10Gi kube memory.
NodeClass ReservedClass() {
  NodeClass nc = DefaultClass();
  nc.kubelet.system_reserved = {{"memory", "20Gi"}};
  nc.kubelet.kube_reserved = {{"memory", "10Gi"}};
  return nc;
}

bool Near(int64_t value, double expected, double tolerance) {
  return std::abs(static_cast<double>(value) - expected) <= tolerance;
}

// ---------------------------------------------------------------------------------------------
// Overhead (m5.xlarge)

TEST_CASE("reference: system reserved defaults to nothing and takes the kubelet values",
          "[node_class]") {
  NodeClass nc = DefaultClass();
  InstanceType it = Build(nc, "m5.xlarge");
  CHECK(it.overhead.system_reserved.cpu() == 0);
  CHECK(it.overhead.system_reserved.memory() == 0);
  CHECK(it.overhead.system_reserved.ephemeral_storage() == 0);

  nc.kubelet.system_reserved = {{"cpu", "2"}, {"memory", "20Gi"}, {"ephemeral-storage", "10Gi"}};
  it = Build(nc, "m5.xlarge");
  CHECK(it.overhead.system_reserved.cpu() == 2000);
  CHECK(it.overhead.system_reserved.memory() == 20 * kGi);
  CHECK(it.overhead.system_reserved.ephemeral_storage() == 10 * kGi);
}

TEST_CASE("reference: kube reserved defaults and overrides", "[node_class]") {
  NodeClass nc = DefaultClass();
  InstanceType it = Build(nc, "m5.xlarge");
  CHECK(it.overhead.kube_reserved.cpu() == 80);
  CHECK(it.overhead.kube_reserved.memory() == 893 * kMi);
  CHECK(it.overhead.kube_reserved.ephemeral_storage() == 1 * kGi);

  nc.kubelet.system_reserved = {{"cpu", "1"}, {"memory", "20Gi"}, {"ephemeral-storage", "1Gi"}};
  nc.kubelet.kube_reserved = {{"cpu", "2"}, {"memory", "10Gi"}, {"ephemeral-storage", "2Gi"}};
  it = Build(nc, "m5.xlarge");
  CHECK(it.overhead.kube_reserved.cpu() == 2000);
  CHECK(it.overhead.kube_reserved.memory() == 10 * kGi);
  CHECK(it.overhead.kube_reserved.ephemeral_storage() == 2 * kGi);
}

TEST_CASE("reference: evictionHard overrides the memory threshold", "[node_class]") {
  NodeClass nc = ReservedClass();
  SECTION("as a quantity") {
    nc.kubelet.eviction_hard = {{"memory.available", "500Mi"}};
    CHECK(Build(nc, "m5.xlarge", NoVmOverhead()).overhead.eviction_threshold.memory() == 500 * kMi);
  }
  SECTION("as a percentage of the memory capacity") {
    nc.kubelet.eviction_hard = {{"memory.available", "10%"}};
    const InstanceType it = Build(nc, "m5.xlarge", NoVmOverhead());
    CHECK(Near(it.overhead.eviction_threshold.memory(),
               static_cast<double>(it.capacity.memory()) * 0.1, 10));
  }
  SECTION("100% disables it") {
    nc.kubelet.eviction_hard = {{"memory.available", "100%"}};
    CHECK(Build(nc, "m5.xlarge", NoVmOverhead()).overhead.eviction_threshold.memory() == 0);
  }
  SECTION("the default 100Mi when only evictionSoft is given") {
    nc.kubelet.eviction_soft = {{"memory.available", "50Mi"}};
    CHECK(Build(nc, "m5.xlarge", NoVmOverhead()).overhead.eviction_threshold.memory() == 100 * kMi);
  }
}

TEST_CASE("reference: evictionSoft does not reduce allocatable", "[node_class]") {
  NodeClass nc = ReservedClass();
  auto threshold = [&nc] {
    return Build(nc, "m5.xlarge", NoVmOverhead()).overhead.eviction_threshold.memory();
  };
  SECTION("only evictionSoft: the default threshold") {
    nc.kubelet.eviction_soft = {{"memory.available", "500Mi"}};
    CHECK(threshold() == 100 * kMi);
    nc.kubelet.eviction_soft = {{"memory.available", "100%"}};
    CHECK(threshold() == 100 * kMi);
  }
  SECTION("evictionHard percentage, evictionSoft percentage ignored") {
    nc.kubelet.eviction_hard = {{"memory.available", "5%"}};
    nc.kubelet.eviction_soft = {{"memory.available", "10%"}};
    const InstanceType it = Build(nc, "m5.xlarge", NoVmOverhead());
    CHECK(Near(it.overhead.eviction_threshold.memory(),
               static_cast<double>(it.capacity.memory()) * 0.05, 10));
    nc.kubelet.eviction_soft = {{"memory.available", "2%"}};
    CHECK(Near(threshold(), static_cast<double>(it.capacity.memory()) * 0.05, 10));
  }
  SECTION("evictionHard quantity, larger evictionSoft ignored") {
    nc.kubelet.eviction_hard = {{"memory.available", "1Gi"}};
    nc.kubelet.eviction_soft = {{"memory.available", "3Gi"}};
    CHECK(threshold() == 1 * kGi);
    nc.kubelet.eviction_soft = {{"memory.available", "10%"}};
    CHECK(threshold() == 1 * kGi);
  }
  SECTION("Bottlerocket takes evictionHard too") {
    nc.ami_alias = "bottlerocket@latest";
    nc.kubelet.eviction_hard = {{"memory.available", "1Gi"}};
    nc.kubelet.eviction_soft = {{"memory.available", "10Gi"}};
    CHECK(threshold() == 1 * kGi);
  }
  SECTION("allocatable is the same with and without evictionSoft") {
    const ResourceList without = Build(nc, "m5.xlarge").Allocatable();
    nc.kubelet.eviction_soft = {{"memory.available", "3Gi"}, {"nodefs.available", "50%"}};
    CHECK(Build(nc, "m5.xlarge").Allocatable() == without);
  }
}

TEST_CASE("reference: the default eviction thresholds", "[node_class]") {
  const InstanceType it = Build(DefaultClass(), "m5.xlarge", NoVmOverhead());
  CHECK(it.overhead.eviction_threshold.cpu() == 0);
  CHECK(it.overhead.eviction_threshold.memory() == 100 * kMi);
  CHECK(Near(it.overhead.eviction_threshold.ephemeral_storage(), 2.0 * kGi, 1));
}

// ---------------------------------------------------------------------------------------------
// max-pods

TEST_CASE("reference: max pods default to the ENI limit", "[node_class]") {
  NodeClass nc = DefaultClass();
  CHECK(Build(nc, "t3.large").capacity.pods() == 35);
  CHECK(Build(nc, "m6idn.32xlarge").capacity.pods() == 394);
  nc.kubelet.pods_per_core = 0;  // podsPerCore 0 changes nothing
  CHECK(Build(nc, "t3.large").capacity.pods() == 35);
  CHECK(Build(nc, "m6idn.32xlarge").capacity.pods() == 394);
}

TEST_CASE("reference: maxPods replaces the pods of every type", "[node_class]") {
  NodeClass nc = DefaultClass();
  nc.kubelet.max_pods = 10;
  for (const InstanceType& it : BuildAll(nc)) {
    INFO(it.name);
    CHECK(it.capacity.pods() == 10);
  }
}

TEST_CASE("reference: maxPods per AMI family, and the kube-reserved memory it gives",
          "[node_class]") {
  struct Row {
    const char* alias;
    const char* family;
    int64_t memory_mib;  // 11 x pods + 255: ENI-limited pods (35) on AL2, AL2023, Custom
  };
  const Row rows[] = {
      {"al2@latest", "AL2", 640},
      {"al2023@latest", "AL2023", 640},
      {"bottlerocket@latest", "Bottlerocket", 365},
      {"windows2019@latest", "Windows2019", 365},
      {"windows2022@latest", "Windows2022", 365},
      {"windows2025@latest", "Windows2025", 365},
      {"", "Custom", 640},  // the suite's Custom entry selects an AMI id, not an alias
  };
  for (const Row& row : rows) {
    INFO(row.family);
    NodeClass nc = DefaultClass();
    nc.ami_alias = row.alias;
    nc.ami_family = row.family;
    nc.kubelet.max_pods = 10;
    const InstanceType it = Build(nc, "t3.large");
    CHECK(it.capacity.pods() == 10);
    CHECK(it.overhead.kube_reserved.memory() == row.memory_mib * kMi);
  }
}

TEST_CASE("reference: reserved ENIs lower max pods per AMI family", "[node_class]") {
  struct Row {
    const char* alias;
    const char* family;
    int64_t pods;
    int64_t memory_mib;
  };
  const Row rows[] = {
      {"al2@latest", "AL2", 24, 640},
      {"al2023@latest", "AL2023", 24, 640},
      {"bottlerocket@latest", "Bottlerocket", 24, 519},
      {"windows2019@latest", "Windows2019", 110, 1465},
      {"windows2022@latest", "Windows2022", 110, 1465},
      {"windows2025@latest", "Windows2025", 110, 1465},
      {"", "Custom", 24, 640},
  };
  AwsCatalogOptions base;
  base.reserved_enis = 1;
  for (const Row& row : rows) {
    INFO(row.family);
    NodeClass nc = DefaultClass();
    nc.ami_alias = row.alias;
    nc.ami_family = row.family;
    const InstanceType it = Build(nc, "t3.large", base);
    CHECK(it.capacity.pods() == row.pods);
    CHECK(it.overhead.kube_reserved.memory() == row.memory_mib * kMi);
  }
  base.reserved_enis = 1000000;  // never below 0 ENIs: 0 pods
  CHECK(Build(DefaultClass(), "t3.large", base).capacity.pods() == 0);
}

TEST_CASE("reference: podsPerCore caps pods, except on Bottlerocket", "[node_class]") {
  NodeClass nc = DefaultClass();
  nc.kubelet.pods_per_core = 1;
  // The suite's types all have more ENI-limited pods than vCPUs; a few of the embedded table's
  // (p5.48xlarge: 192 vCPUs, 100 pods) have fewer, and keep them.
  const std::vector<InstanceType> eni_limited = BuildAll(DefaultClass());
  const std::vector<InstanceType> per_core = BuildAll(nc);
  REQUIRE(per_core.size() == eni_limited.size());
  for (size_t i = 0; i < per_core.size(); ++i) {
    INFO(per_core[i].name);
    CHECK(per_core[i].capacity.pods() ==
          std::min(per_core[i].capacity.cpu() / 1000, eni_limited[i].capacity.pods()));
  }
  CHECK(Build(nc, "m5.xlarge").capacity.pods() == 4);
  nc.kubelet.pods_per_core = 4;
  nc.kubelet.max_pods = 20;
  for (const InstanceType& it : BuildAll(nc)) {
    INFO(it.name);
    CHECK(it.capacity.pods() == std::min<int64_t>(20, 4 * it.capacity.cpu() / 1000));
  }
  NodeClass br = DefaultClass();
  br.ami_alias = "bottlerocket@latest";
  br.kubelet.pods_per_core = 1;
  const std::vector<InstanceType> bottlerocket = BuildAll(br);
  REQUIRE(bottlerocket.size() == eni_limited.size());
  for (size_t i = 0; i < bottlerocket.size(); ++i) {
    INFO(bottlerocket[i].name);
    CHECK(bottlerocket[i].capacity.pods() == eni_limited[i].capacity.pods());
  }
}

TEST_CASE("reference: pods are 110 where the AMI family has no ENI-limited density",
          "[node_class]") {
  NodeClass windows = DefaultClass();
  windows.ami_alias = "windows2022@latest";
  for (const InstanceType& it : BuildAll(windows)) {
    INFO(it.name);
    CHECK(it.capacity.pods() == 110);
  }
  // With ENI-limited density no type gets 110 (nor does any of the suite's).
  for (const InstanceType& it : BuildAll(DefaultClass())) {
    INFO(it.name);
    CHECK(it.capacity.pods() != 110);
  }
}

// ---------------------------------------------------------------------------------------------
// Ephemeral storage

NodeClassBlockDeviceMapping Mapping(std::string device, std::optional<int64_t> size,
                                    bool root = false) {
  NodeClassBlockDeviceMapping m;
  m.device_name = std::move(device);
  m.volume_size = size;
  m.root_volume = root;
  return m;
}

int64_t EphemeralOf(const NodeClass& nc, std::string_view type = "m5.large") {
  return Build(nc, type).capacity.ephemeral_storage();
}

TEST_CASE("reference: a mapping without volumeSize leaves the EBS default", "[node_class]") {
  // The suite's context: an al2@latest class with a snapshot-only mapping on /dev/xvda.
  NodeClass nc = DefaultClass();
  nc.ami_alias = "al2@latest";
  nc.block_device_mappings = {Mapping("/dev/xvda", std::nullopt)};
  CHECK(EphemeralOf(nc) == 20 * kGi);  // AL2 root volume
  nc.ami_alias = "al2023@latest";
  CHECK(EphemeralOf(nc) == 20 * kGi);  // AL2023 root volume
  NodeClass custom = nc;               // Custom with an AMI selected by tags
  custom.ami_alias.clear();
  custom.ami_family = "Custom";
  CHECK(EphemeralOf(custom) == 20 * kGi);
  nc.ami_alias = "bottlerocket@latest";
  nc.block_device_mappings = {Mapping("/dev/xvdb", std::nullopt)};
  CHECK(EphemeralOf(nc) == 20 * kGi);  // Bottlerocket data volume
}

TEST_CASE("reference: RAID0 makes the local NVMe the ephemeral storage", "[node_class]") {
  NodeClass nc = DefaultClass();
  // Without it no type holds a 5000Gi ephemeral-storage request (the suite's pod stays
  // pending); with it m6idn.32xlarge does, at 7600G.
  const int64_t request = 5000 * kGi;
  bool fits = false;
  for (const InstanceType& it : BuildAll(nc)) {
    fits = fits || it.Allocatable().ephemeral_storage() >= request;
  }
  CHECK_FALSE(fits);
  nc.instance_store_policy = "RAID0";
  const InstanceType it = Build(nc, "m6idn.32xlarge");
  CHECK(it.capacity.ephemeral_storage() == int64_t{7600} * 1000 * 1000 * 1000);
  CHECK(it.Allocatable().ephemeral_storage() >= request);
}

TEST_CASE("ephemeral storage: which mapping holds it", "[node_class]") {
  NodeClass nc = DefaultClass();
  SECTION("a sized rootVolume mapping wins over the family's device") {
    nc.block_device_mappings = {Mapping("/dev/xvda", 100 * kGi),
                                Mapping("/dev/sdf", 50 * kGi, true)};
    CHECK(EphemeralOf(nc) == 50 * kGi);
  }
  SECTION("a rootVolume mapping without volumeSize falls through to the family's device") {
    nc.block_device_mappings = {Mapping("/dev/sdf", std::nullopt, true),
                                Mapping("/dev/xvda", 100 * kGi)};
    CHECK(EphemeralOf(nc) == 100 * kGi);
  }
  SECTION("Custom takes the last mapping's size, or the 20Gi EBS default") {
    nc.ami_alias.clear();
    nc.ami_family = "Custom";
    nc.block_device_mappings = {Mapping("/dev/xvda", 100 * kGi), Mapping("/dev/xvdb", 30 * kGi)};
    CHECK(EphemeralOf(nc) == 30 * kGi);
    nc.block_device_mappings[1].volume_size.reset();
    CHECK(EphemeralOf(nc) == 20 * kGi);
    nc.block_device_mappings = {Mapping("/dev/xvdb", std::nullopt, true),
                                Mapping("/dev/xvdz", 70 * kGi)};
    CHECK(EphemeralOf(nc) == 70 * kGi);
  }
  SECTION("Bottlerocket keeps it on /dev/xvdb, not on the root device") {
    nc.ami_alias = "bottlerocket@latest";
    nc.block_device_mappings = {Mapping("/dev/xvda", 100 * kGi)};
    CHECK(EphemeralOf(nc) == 20 * kGi);
    nc.block_device_mappings.push_back(Mapping("/dev/xvdb", 60 * kGi));
    CHECK(EphemeralOf(nc) == 60 * kGi);
  }
  SECTION("Windows: /dev/sda1, 50Gi by default") {
    nc.ami_alias = "windows2022@latest";
    CHECK(EphemeralOf(nc) == 50 * kGi);
    nc.block_device_mappings = {Mapping("/dev/xvda", 100 * kGi)};
    CHECK(EphemeralOf(nc) == 50 * kGi);
    nc.block_device_mappings.push_back(Mapping("/dev/sda1", 80 * kGi));
    CHECK(EphemeralOf(nc) == 80 * kGi);
  }
  SECTION("RAID0 on a type without local NVMe keeps the volume") {
    nc.instance_store_policy = "RAID0";
    nc.block_device_mappings = {Mapping("/dev/xvda", 100 * kGi)};
    CHECK(EphemeralOf(nc, "m5.large") == 100 * kGi);
    CHECK(EphemeralOf(nc, "m5d.large") == int64_t{75} * 1000 * 1000 * 1000);
  }
  SECTION("the nodefs threshold follows the volume") {
    nc.block_device_mappings = {Mapping("/dev/xvda", 100 * kGi)};
    CHECK(Build(nc, "m5.large").overhead.eviction_threshold.ephemeral_storage() == 10 * kGi);
    nc.kubelet.eviction_hard = {{"nodefs.available", "5%"}};
    CHECK(Build(nc, "m5.large").overhead.eviction_threshold.ephemeral_storage() == 5 * kGi);
  }
}

// ---------------------------------------------------------------------------------------------
// Options, families and errors

TEST_CASE("the AMI family comes from amiFamily, else the alias, else Custom", "[node_class]") {
  NodeClass nc = DefaultClass();
  CHECK(*NodeClassAmiFamily(nc) == AwsAmiFamily::kAl2023);
  nc.ami_alias = "bottlerocket@v1.20.3";
  CHECK(*NodeClassAmiFamily(nc) == AwsAmiFamily::kBottlerocket);
  nc.ami_family = "Custom";  // allowed beside any alias
  CHECK(*NodeClassAmiFamily(nc) == AwsAmiFamily::kCustom);
  CHECK(ValidateNodeClass(nc).ok());
  nc.ami_alias.clear();
  nc.ami_family.clear();
  CHECK(*NodeClassAmiFamily(nc) == AwsAmiFamily::kCustom);
  CHECK(*AwsAmiFamilyOfAlias("windows2025@latest") == AwsAmiFamily::kWindows2025);
  CHECK_FALSE(AwsAmiFamilyOfAlias("windows2025@v1").ok());
  CHECK_FALSE(AwsAmiFamilyOfAlias("ubuntu@latest").ok());
  CHECK_FALSE(AwsAmiFamilyOfAlias("al2023").ok());
  CHECK_FALSE(AwsAmiFamilyOfAlias("al2023@").ok());
  CHECK_FALSE(AwsAmiFamilyOfAlias("AL2023@latest").ok());  // the CRD's families are lower case
}

TEST_CASE("class settings become catalog options", "[node_class]") {
  NodeClass nc = DefaultClass();
  nc.ami_alias = "bottlerocket@latest";
  nc.kubelet.max_pods = 58;
  nc.kubelet.pods_per_core = 4;
  nc.kubelet.kube_reserved = {{"cpu", "200m"}, {"memory", "1Gi"}, {"pid", "100"}};
  nc.kubelet.system_reserved = {{"memory", "200Mi"}};
  nc.kubelet.eviction_hard = {{"memory.available", "5%"}, {"nodefs.inodesFree", "5%"}};
  nc.kubelet.eviction_soft = {{"memory.available", "10%"}};
  nc.block_device_mappings = {Mapping("/dev/xvdb", 100 * kGi)};
  nc.instance_store_policy = "RAID0";
  AwsCatalogOptions base;
  base.region = "us-gov-west-1";
  base.kube_reserved.Set("ephemeral-storage", 3 * kGi);
  const AwsCatalogOptions o = OptionsFor(nc, base);
  CHECK(o.region == "us-gov-west-1");
  CHECK(o.ami_family == AwsAmiFamily::kBottlerocket);
  CHECK(o.max_pods == 58);
  CHECK(o.pods_per_core == 4);
  CHECK(o.kube_reserved.cpu() == 200);
  CHECK(o.kube_reserved.memory() == 1 * kGi);
  CHECK(o.kube_reserved.ephemeral_storage() == 3 * kGi);  // base keys the class leaves stay
  CHECK_FALSE(o.kube_reserved.Has("pid"));
  CHECK(o.system_reserved.memory() == 200 * kMi);
  CHECK(o.eviction_hard.size() == 2);
  CHECK(o.eviction_hard.at("memory.available") == "5%");
  CHECK(o.ephemeral_volume_bytes == 100 * kGi);
  CHECK(o.instance_store_raid0);
}

TEST_CASE("invalid classes are errors naming the class and the field", "[node_class]") {
  struct Case {
    void (*mutate)(NodeClass*);
    const char* message;
  };
  const Case cases[] = {
      {[](NodeClass* c) { c->kubelet.max_pods = -1; }, "spec.kubelet.maxPods: must be >= 0"},
      {[](NodeClass* c) { c->kubelet.pods_per_core = -2; },
       "spec.kubelet.podsPerCore: must be >= 0"},
      {[](NodeClass* c) {
         c->kubelet.kube_reserved = {{"gpu", "1"}};
       },
       "spec.kubelet.kubeReserved.gpu: unsupported key"},
      {[](NodeClass* c) {
         c->kubelet.system_reserved = {{"memory", "lots"}};
       },
       "spec.kubelet.systemReserved.memory: "},
      {[](NodeClass* c) {
         c->kubelet.kube_reserved = {{"cpu", "-1"}};
       },
       "spec.kubelet.kubeReserved.cpu: "},
      {[](NodeClass* c) {
         c->kubelet.eviction_hard = {{"memory.free", "1Gi"}};
       },
       "spec.kubelet.evictionHard.memory.free: unsupported eviction signal"},
      {[](NodeClass* c) {
         c->kubelet.eviction_hard = {{"memory.available", "120%"}};
       },
       "spec.kubelet.evictionHard.memory.available: invalid percentage \"120%\""},
      {[](NodeClass* c) {
         c->kubelet.eviction_soft = {{"nodefs.available", "x%"}};
       },
       "spec.kubelet.evictionSoft.nodefs.available: invalid percentage"},
      {[](NodeClass* c) { c->ami_family = "Ubuntu"; }, "spec.amiFamily: unknown AMI family"},
      {[](NodeClass* c) { c->ami_family = "Bottlerocket"; },
       "spec.amiFamily: \"Bottlerocket\" must be \"AL2023\" or \"Custom\""},
      {[](NodeClass* c) { c->ami_alias = "al3@latest"; },
       "spec.amiSelectorTerms.alias: family \"al3\""},
      {[](NodeClass* c) {
         c->block_device_mappings = {Mapping("/dev/xvda", 1 * kGi, true),
                                     Mapping("/dev/xvdb", 1 * kGi, true)};
       },
       "spec.blockDeviceMappings[1].rootVolume: must have only one"},
      {[](NodeClass* c) { c->block_device_mappings = {Mapping("/dev/xvda", 0)}; },
       "spec.blockDeviceMappings[0].ebs.volumeSize: must be > 0"},
      {[](NodeClass* c) { c->instance_store_policy = "RAID1"; },
       "spec.instanceStorePolicy: unsupported value \"RAID1\""},
  };
  for (const Case& c : cases) {
    INFO(c.message);
    NodeClass nc = DefaultClass("broken");
    c.mutate(&nc);
    absl::StatusOr<AwsCatalogOptions> o = AwsCatalogOptionsForNodeClass(nc, {});
    REQUIRE_FALSE(o.ok());
    CHECK(o.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(o.status().message()),
               Catch::StartsWith(std::string("ec2nodeclass \"broken\": ") + c.message));
    CHECK_THAT(std::string(ValidateNodeClass(nc).message()), Catch::StartsWith(c.message));
  }
}

// ---------------------------------------------------------------------------------------------
// Catalogs

std::shared_ptr<const InstanceCatalog> Embedded(const AwsCatalogOptions& options = {}) {
  absl::StatusOr<InstanceCatalog> c = EmbeddedAwsCatalog(options);
  REQUIRE(c.ok());
  return std::make_shared<const InstanceCatalog>(*std::move(c));
}

NodePoolCatalogOptions EmbeddedMode(const AwsCatalogOptions& options = {}) {
  NodePoolCatalogOptions o;
  o.embedded = options;
  return o;
}

TEST_CASE("embedded catalog: a class's catalog is the embedded catalog of its options",
          "[node_class]") {
  AwsCatalogOptions base;
  base.region = "us-gov-east-1";
  base.zones = {"us-gov-east-1b"};
  const auto catalog = Embedded(base);
  NodeClass nc = DefaultClass();
  nc.ami_alias = "al2@latest";  // a1 is offered again (AL2023 excludes it)
  nc.kubelet.max_pods = 12;
  nc.block_device_mappings = {Mapping("/dev/xvda", 80 * kGi)};
  absl::StatusOr<InstanceCatalog> rebuilt = NodeClassCatalog(*catalog, nc, EmbeddedMode(base));
  REQUIRE(rebuilt.ok());
  absl::StatusOr<InstanceCatalog> expected = EmbeddedAwsCatalog(OptionsFor(nc, base));
  REQUIRE(expected.ok());
  CHECK(rebuilt->instance_types() == expected->instance_types());

  NodeClass windows = DefaultClass();
  windows.ami_alias = "windows2022@latest";
  rebuilt = NodeClassCatalog(*catalog, windows, EmbeddedMode(base));
  REQUIRE(rebuilt.ok());
  const InstanceType* m5 = rebuilt->Find("m5.large");
  REQUIRE(m5 != nullptr);
  CHECK(m5->labels.at("kubernetes.io/os") == "windows");
  CHECK(m5->labels.at("node.kubernetes.io/windows-build") == "10.0.20348");
  CHECK(m5->capacity.pods() == 110);
}

TEST_CASE("embedded catalog: reserved offerings of the base are kept", "[node_class]") {
  Commitments commitments;
  CapacityReservation cr;
  cr.id = "cr-1";
  cr.instance_type = "m5.large";
  cr.zone = "us-east-1a";
  cr.available = 2;
  commitments.capacity_reservations.push_back(cr);
  absl::StatusOr<InstanceCatalog> with = WithCapacityReservations(*Embedded(), commitments);
  REQUIRE(with.ok());
  NodeClass nc = DefaultClass();
  nc.kubelet.max_pods = 3;
  absl::StatusOr<InstanceCatalog> rebuilt = NodeClassCatalog(*with, nc, EmbeddedMode());
  REQUIRE(rebuilt.ok());
  const InstanceType* m5 = rebuilt->Find("m5.large");
  REQUIRE(m5 != nullptr);
  CHECK(m5->capacity.pods() == 3);
  REQUIRE_FALSE(m5->offerings.empty());
  CHECK(m5->offerings.back().reservation_id == "cr-1");
  CHECK(m5->offerings.back().reservation_capacity == 2);
  CHECK(m5->requirements.Find("karpenter.sh/capacity-type")->Has("reserved"));
}

TEST_CASE("catalog file: known types are rebuilt, keeping the file's labels and offerings",
          "[node_class]") {
  // A catalog file: m5.large with the file's own prices and an extra label, and a type the
  // embedded table does not have.
  std::vector<InstanceType> types;
  InstanceType m5 = *Embedded()->Find("m5.large");
  m5.labels["team"] = "web";
  for (Offering& o : m5.offerings) o.price = 1.25;
  m5.RebuildRequirements();
  types.push_back(m5);
  Overhead custom_overhead;
  custom_overhead.kube_reserved = ResourceList{{"cpu", 100}, {"memory", 500 * kMi}};
  custom_overhead.eviction_threshold = ResourceList{{"memory", 100 * kMi}};
  Offering offering;
  offering.zone = "zone-a";
  offering.capacity_type = "on-demand";
  offering.price = 0.5;
  types.push_back(InstanceType::Make(
      "custom.large", {{"kubernetes.io/arch", "amd64"}},
      ResourceList{
          {"cpu", 4000}, {"memory", 8 * kGi}, {"pods", 50}, {"ephemeral-storage", 40 * kGi}},
      custom_overhead, {offering}));
  absl::StatusOr<InstanceCatalog> file = InstanceCatalog::Create(types);
  REQUIRE(file.ok());

  NodeClass nc = DefaultClass();
  nc.ami_alias = "bottlerocket@latest";
  nc.kubelet.max_pods = 10;
  nc.kubelet.kube_reserved = {{"memory", "1Gi"}};
  nc.kubelet.eviction_hard = {{"memory.available", "10%"}, {"nodefs.available", "1Gi"}};
  absl::StatusOr<InstanceCatalog> rebuilt = NodeClassCatalog(*file, nc);
  REQUIRE(rebuilt.ok());

  const InstanceType* got = rebuilt->Find("m5.large");
  REQUIRE(got != nullptr);
  const InstanceType built = Build(nc, "m5.large");
  CHECK(got->capacity == built.capacity);
  CHECK(got->overhead == built.overhead);
  CHECK(got->capacity.pods() == 10);
  CHECK(got->labels == m5.labels);
  CHECK(got->offerings == m5.offerings);
  CHECK(got->requirements == m5.requirements);

  const InstanceType* custom = rebuilt->Find("custom.large");
  REQUIRE(custom != nullptr);
  CHECK(custom->capacity.pods() == 10);
  CHECK(custom->capacity.memory() == 8 * kGi);
  CHECK(custom->overhead.kube_reserved.cpu() == 100);  // kept
  CHECK(custom->overhead.kube_reserved.memory() == 1 * kGi);
  CHECK(custom->overhead.eviction_threshold.memory() ==
        static_cast<int64_t>(std::ceil(8.0 * kGi / 10)));
  CHECK(custom->overhead.eviction_threshold.ephemeral_storage() == 1 * kGi);

  NodeClass per_core = DefaultClass();  // podsPerCore x whole cores caps the file's pods
  per_core.kubelet.pods_per_core = 3;
  rebuilt = NodeClassCatalog(*file, per_core);
  REQUIRE(rebuilt.ok());
  CHECK(rebuilt->Find("custom.large")->capacity.pods() == 12);
}

ClusterSnapshot PoolsAndClasses() {
  ClusterSnapshot snap;
  auto pool = [&snap](std::string name, std::string class_name, std::string kind) {
    NodePool np;
    np.metadata.name = std::move(name);
    np.node_class_ref = {"karpenter.k8s.aws", std::move(kind), std::move(class_name)};
    snap.node_pools.push_back(std::move(np));
  };
  pool("a", "small", "EC2NodeClass");
  pool("b", "small", "EC2NodeClass");
  pool("c", "same-as-small", "EC2NodeClass");
  pool("d", "plain", "EC2NodeClass");
  pool("e", "missing", "EC2NodeClass");
  pool("f", "", "");
  pool("g", "missing", "EC2NodeClass");
  pool("h", "small", "KWOKNodeClass");
  NodeClass small = DefaultClass("small");
  small.kubelet.max_pods = 2;
  NodeClass same = small;
  same.metadata.name = "same-as-small";
  snap.node_classes = {small, DefaultClass("plain"), same};
  return snap;
}

TEST_CASE("each NodePool gets its class's catalog, shared where the settings agree",
          "[node_class]") {
  const auto base = Embedded();
  const ClusterSnapshot snap = PoolsAndClasses();
  absl::StatusOr<NodePoolCatalogs> c = CatalogsByNodePool(snap, base, EmbeddedMode());
  INFO(c.status().message());
  REQUIRE(c.ok());
  REQUIRE(c->by_node_pool.size() == 8);
  const auto& by = c->by_node_pool;
  CHECK(by.at("a") != base);
  CHECK(by.at("a")->Find("t4g.nano")->capacity.pods() == 2);
  CHECK(by.at("b") == by.at("a"));
  CHECK(by.at("c") == by.at("a"));  // another class with the same settings
  CHECK(by.at("d") == base);        // a class that changes nothing
  CHECK(by.at("e") == base);        // missing class
  CHECK(by.at("f") == base);        // no nodeClassRef
  CHECK(by.at("h") == base);        // not an EC2NodeClass
  CHECK(c->missing_classes ==
        std::map<std::string, std::vector<std::string>>{{"missing", {"e", "g"}}});
  CHECK(c->Uniform() == nullptr);

  ClusterSnapshot one;
  one.node_pools = {snap.node_pools[0], snap.node_pools[1]};
  one.node_classes = snap.node_classes;
  c = CatalogsByNodePool(one, base, EmbeddedMode());
  REQUIRE(c.ok());
  CHECK(c->Uniform() == c->by_node_pool.at("a"));
  CHECK(c->missing_classes.empty());

  CHECK_FALSE(CatalogsByNodePool(snap, nullptr).ok());
  ClusterSnapshot broken = snap;
  broken.node_classes[1].kubelet.max_pods = -1;  // "plain": referred to by d
  c = CatalogsByNodePool(broken, base, EmbeddedMode());
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(std::string(c.status().message()),
             Catch::StartsWith("ec2nodeclass \"plain\": spec.kubelet.maxPods: must be >= 0"));
}

}  // namespace
}  // namespace karp
