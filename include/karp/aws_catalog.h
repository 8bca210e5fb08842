// File: karp/aws_catalog.h
//
// AWS instance types with the semantics of Karpenter's AWS provider (docs/aws.md §1-2):
// how the facts EC2 reports for one instance type (DescribeInstanceTypes) become an
// InstanceType -- labels, capacity, kubelet overhead and offerings -- and the embedded default
// catalog, usable without any AWS access: every EC2 type of Karpenter's v1.14 instance-type
// reference that has a price (1,345 types in 169 families: every generation from a1/c3/m4 to
// the eighth and ninth, bare metal, GPU, Neuron, HPC; amd64 and arm64) with the Linux
// on-demand prices of us-east-1, us-gov-east-1, us-gov-west-1 (USD) and cn-north-1 (CNY).
// The table is generated from the data set by scripts/gen_aws_catalog.py (docs/aws-catalog.md).
//
// The embedded table and a live EC2 adapter share one conversion, MakeAwsInstanceType(): the
// adapter fills an AwsInstanceTypeInfo from the API, the embedded table from its own rows.
//
// Defaults reproduce the published Karpenter instance-type reference (AL2023, no kubelet
// overrides, 7.5% VM memory overhead). For m5.large: capacity cpu 2, memory 7577Mi, pods 29,
// ephemeral-storage 20Gi; allocatable cpu 1930m, memory 6903Mi, ephemeral-storage 17Gi.
//
// Example:
//   absl::StatusOr<karp::InstanceCatalog> catalog = karp::EmbeddedAwsCatalog();
//   if (!catalog.ok()) return catalog.status();
//   const karp::InstanceType* m5 = catalog->Find("m5.large");
//   m5->Allocatable().ToString();
//   // {"cpu":"1930m","ephemeral-storage":"17Gi","memory":"6903Mi","pods":"29",
//   //  "vpc.amazonaws.com/pod-eni":"9"}
//
//   karp::AwsCatalogOptions options;
//   options.region = "us-gov-west-1";
//   options.zones = {"us-gov-west-1a", "us-gov-west-1b"};
//   options.capacity_types = {"on-demand"};
//   absl::StatusOr<karp::InstanceCatalog> gov = karp::EmbeddedAwsCatalog(options);
//   // The types sold in us-gov-west-1, at its prices. A region without embedded prices
//   // ("eu-west-1") is an InvalidArgument error naming the known ones.
//
// Thread-safety: the structs are value types (thread-compatible); the functions are
// thread-safe (the embedded table is immutable and built once, on first use).

#ifndef KARP_AWS_CATALOG_H_
#define KARP_AWS_CATALOG_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/catalog.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/resources.h"

namespace karp {

// Label keys the AWS provider sets on instance types (group karpenter.k8s.aws).
inline constexpr std::string_view kAwsLabelInstanceCategory = "karpenter.k8s.aws/instance-category";
inline constexpr std::string_view kAwsLabelInstanceFamily = "karpenter.k8s.aws/instance-family";
inline constexpr std::string_view kAwsLabelInstanceGeneration =
    "karpenter.k8s.aws/instance-generation";
inline constexpr std::string_view kAwsLabelInstanceSize = "karpenter.k8s.aws/instance-size";
inline constexpr std::string_view kAwsLabelInstanceCapabilityFlex =
    "karpenter.k8s.aws/instance-capability-flex";
inline constexpr std::string_view kAwsLabelInstanceCpu = "karpenter.k8s.aws/instance-cpu";
inline constexpr std::string_view kAwsLabelInstanceCpuManufacturer =
    "karpenter.k8s.aws/instance-cpu-manufacturer";
inline constexpr std::string_view kAwsLabelInstanceCpuSustainedClockSpeedMhz =
    "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz";
inline constexpr std::string_view kAwsLabelInstanceMemory = "karpenter.k8s.aws/instance-memory";
inline constexpr std::string_view kAwsLabelInstanceHypervisor =
    "karpenter.k8s.aws/instance-hypervisor";
inline constexpr std::string_view kAwsLabelInstanceEncryptionInTransitSupported =
    "karpenter.k8s.aws/instance-encryption-in-transit-supported";
inline constexpr std::string_view kAwsLabelInstanceEbsBandwidth =
    "karpenter.k8s.aws/instance-ebs-bandwidth";
inline constexpr std::string_view kAwsLabelInstanceNetworkBandwidth =
    "karpenter.k8s.aws/instance-network-bandwidth";
inline constexpr std::string_view kAwsLabelInstanceLocalNvme =
    "karpenter.k8s.aws/instance-local-nvme";
inline constexpr std::string_view kAwsLabelInstanceGpuName = "karpenter.k8s.aws/instance-gpu-name";
inline constexpr std::string_view kAwsLabelInstanceGpuManufacturer =
    "karpenter.k8s.aws/instance-gpu-manufacturer";
inline constexpr std::string_view kAwsLabelInstanceGpuCount =
    "karpenter.k8s.aws/instance-gpu-count";
inline constexpr std::string_view kAwsLabelInstanceGpuMemory =
    "karpenter.k8s.aws/instance-gpu-memory";
inline constexpr std::string_view kAwsLabelInstanceAcceleratorName =
    "karpenter.k8s.aws/instance-accelerator-name";
inline constexpr std::string_view kAwsLabelInstanceAcceleratorManufacturer =
    "karpenter.k8s.aws/instance-accelerator-manufacturer";
inline constexpr std::string_view kAwsLabelInstanceAcceleratorCount =
    "karpenter.k8s.aws/instance-accelerator-count";
inline constexpr std::string_view kAwsLabelCapacityReservationId =
    "karpenter.k8s.aws/capacity-reservation-id";
inline constexpr std::string_view kAwsLabelCapacityReservationType =
    "karpenter.k8s.aws/capacity-reservation-type";
inline constexpr std::string_view kAwsLabelCapacityReservationInterruptible =
    "karpenter.k8s.aws/capacity-reservation-interruptible";
inline constexpr std::string_view kAwsLabelTopologyZoneId = "topology.k8s.aws/zone-id";

// Extended resources the AWS provider advertises in capacity.
inline constexpr std::string_view kAwsResourcePodEni = "vpc.amazonaws.com/pod-eni";
inline constexpr std::string_view kAwsResourceEfa = "vpc.amazonaws.com/efa";
inline constexpr std::string_view kAwsResourcePrivateIpv4Address =
    "vpc.amazonaws.com/PrivateIPv4Address";
inline constexpr std::string_view kAwsResourceNvidiaGpu = "nvidia.com/gpu";
inline constexpr std::string_view kAwsResourceAmdGpu = "amd.com/gpu";
inline constexpr std::string_view kAwsResourceHabanaGaudi = "habana.ai/gaudi";
inline constexpr std::string_view kAwsResourceNeuron = "aws.amazon.com/neuron";
inline constexpr std::string_view kAwsResourceNeuronCore = "aws.amazon.com/neuroncore";

// One GPU model of an instance type (EC2 GpuInfo.Gpus[i]).
struct AwsGpuInfo {
  std::string name;          // "T4", "A10G", "Radeon Pro V520" (labels use lower-kebab case)
  std::string manufacturer;  // "NVIDIA", "AMD", "Habana"
  int count = 0;
  int64_t memory_mib = 0;  // per GPU
};

// One inference accelerator model (EC2 InferenceAcceleratorInfo.Accelerators[i]).
struct AwsAcceleratorInfo {
  std::string name;
  std::string manufacturer;
  int count = 0;
};

// One Neuron device model (EC2 NeuronInfo.NeuronDevices[i]): Inferentia and Trainium.
struct AwsNeuronDeviceInfo {
  std::string name;  // "Inferentia2", "Trainium"
  int count = 0;
  int core_count = 0;  // NeuronCores per device (CoreInfo.Count)
};

// The raw facts of one EC2 instance type, as DescribeInstanceTypes (plus the provider's
// bandwidth table) reports them. Optional fields are unset when EC2 reports nothing.
struct AwsInstanceTypeInfo {
  std::string name;        // "m5.large"
  int vcpus = 0;           // VCpuInfo.DefaultVCpus
  int64_t memory_mib = 0;  // MemoryInfo.SizeInMiB, before any overhead
  // ProcessorInfo.SupportedArchitectures in EC2 spelling ("x86_64", "arm64", "i386"...). The
  // first one that maps to a Kubernetes architecture (x86_64 -> amd64, arm64 -> arm64) is used.
  std::vector<std::string> architectures;
  std::string cpu_manufacturer;  // ProcessorInfo.Manufacturer ("Intel", "AMD", "AWS")
  // round(ProcessorInfo.SustainedClockSpeedInGhz * 1000).
  std::optional<int> sustained_clock_speed_mhz;
  std::string hypervisor;                        // "nitro", "xen"; "" on bare metal
  bool encryption_in_transit_supported = false;  // NetworkInfo.EncryptionInTransitSupported
  // EbsOptimizedInfo.MaximumBandwidthInMbps, set only if EbsOptimizedSupport is "default".
  std::optional<int64_t> ebs_bandwidth_mbps;
  // Baseline network bandwidth in Mbit/s (unset for types with only a text rating).
  std::optional<int64_t> network_bandwidth_mbps;
  // InstanceStorageInfo.TotalSizeInGB, set only when NVMe is supported.
  std::optional<int64_t> local_nvme_gb;
  std::vector<AwsGpuInfo> gpus;
  std::vector<AwsAcceleratorInfo> inference_accelerators;
  std::vector<AwsNeuronDeviceInfo> neuron_devices;
  // NetworkInfo: MaximumNetworkInterfaces of the default network card, and
  // Ipv4AddressesPerInterface. They give the ENI-limited max pods.
  int max_network_interfaces = 0;
  int ipv4_addresses_per_interface = 0;
  // From the provider's VPC-limits table: trunking (security groups for pods) support and the
  // number of branch interfaces (the vpc.amazonaws.com/pod-eni capacity).
  bool trunking_compatible = false;
  int branch_interfaces = 0;
  int efa_max_interfaces = 0;  // NetworkInfo.EfaInfo.MaximumEfaInterfaces (0: no EFA)
  // SupportedUsageClasses; only "on-demand" and "spot" are used.
  std::vector<std::string> usage_classes = {"on-demand", "spot"};
  // Zones where DescribeInstanceTypeOfferings lists the type; empty means every zone of the
  // options. Offerings in other zones exist but are unavailable.
  std::vector<std::string> offered_zones;
};

// AMI families that change capacity or overhead (docs/aws.md §1.3-1.5).
enum class AwsAmiFamily {
  kAl2023,        // ENI-limited pods; kube-reserved memory from ENI-limited pods; 20Gi root
  kAl2,           // same as AL2023
  kBottlerocket,  // ENI-limited pods; kube-reserved memory from pods capacity; 20Gi data
                  // volume; podsPerCore ignored
  kCustom,        // same as AL2023
  kWindows2019,   // 110 pods; windows OS and build label; 50Gi; amd64 only
  kWindows2022,
  kWindows2025,
};

// "AL2023", "AL2", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025".
std::string_view AwsAmiFamilyName(AwsAmiFamily family);
// Parses a name printed by AwsAmiFamilyName (case-sensitive).
// Errors: InvalidArgument naming the text.
[[nodiscard]] absl::StatusOr<AwsAmiFamily> ParseAwsAmiFamily(std::string_view text);

// How instance types are built: the settings an EC2NodeClass, the controller flags and the
// price feeds contribute.
struct AwsCatalogOptions {
  // The topology.kubernetes.io/region label. EmbeddedAwsCatalog() accepts only a region of
  // EmbeddedAwsRegions() and prices its types with that region's table; MakeAwsInstanceType()
  // (the AWS adapter's path, with live prices) accepts any region. Default: "us-east-1".
  std::string region = "us-east-1";

  // Zones to create offerings in (every type gets one offering per zone and capacity type).
  // Each must be a zone of `region`: the region's name followed by a letter ("us-east-1a") or
  // by '-' (Local and Wavelength Zones, "us-east-1-bos-1a"). Empty means `region` + "a", "b",
  // "c". Default: empty.
  std::vector<std::string> zones;

  // Fraction of memory the hypervisor keeps (--vm-memory-overhead-percent); must be in
  // [0, 1). Default: 0.075.
  double vm_memory_overhead_percent = 0.075;

  // ENIs kept out of pod networking (--reserved-enis); lowers ENI-limited max pods.
  // Default: 0.
  int reserved_enis = 0;

  // kubelet maxPods: replaces the computed max pods when set. Default: unset.
  std::optional<int> max_pods;

  // kubelet podsPerCore: when > 0, pods = min(pods, podsPerCore * vCPUs) (ignored by
  // Bottlerocket). Default: unset.
  std::optional<int> pods_per_core;

  // Capacity types to create offerings for; each must be "on-demand" or "spot".
  // Default: {"on-demand", "spot"}.
  std::vector<std::string> capacity_types = {"on-demand", "spot"};

  // Spot prices per instance type, then per zone (a DescribeSpotPriceHistory result). Set: a
  // spot offering without an entry is unavailable. Unset: see estimate_spot_prices.
  // Default: unset.
  std::optional<std::map<std::string, std::map<std::string, double>, std::less<>>> spot_prices;

  // How spot offerings are priced while `spot_prices` is unset. true: at
  // EstimatedAwsSpotPrice() of the on-demand price, marked Offering::price_estimated (the
  // embedded catalog has no spot prices). false: at the on-demand price itself, as the
  // reference seeds spot until its first spot-price update succeeds (the AWS adapter sets
  // this). Default: true.
  bool estimate_spot_prices = true;

  // The EC2NodeClass amiFamily. Default: AL2023.
  AwsAmiFamily ami_family = AwsAmiFamily::kAl2023;

  // Size in bytes of the volume that holds ephemeral storage (a block device mapping on the
  // family's ephemeral device, or the root volume). Unset: the family default, 20Gi (50Gi on
  // Windows). Default: unset.
  std::optional<int64_t> ephemeral_volume_bytes;

  // instanceStorePolicy RAID0: types with local NVMe get ephemeral-storage = the NVMe total
  // in decimal gigabytes (GB, not GiB). Default: false.
  bool instance_store_raid0 = false;

  // kubelet kubeReserved: each key replaces the computed default of that key.
  // Default: empty.
  ResourceList kube_reserved;

  // kubelet systemReserved. Default: empty.
  ResourceList system_reserved;

  // kubelet evictionHard, signal -> threshold: "memory.available" replaces the 100Mi memory
  // threshold and "nodefs.available" the 10% ephemeral-storage threshold; other signals do not
  // change allocatable. A threshold is a quantity ("500Mi") or a percentage of the capacity
  // ("5%", rounded up to a whole byte; "100%" disables the threshold: 0). Default: empty.
  std::map<std::string, std::string, std::less<>> eviction_hard;

  // OK, or InvalidArgument naming the first bad field (empty region or zone, a zone not of
  // the region, duplicate zone, overhead percent outside [0, 1), negative counts or sizes,
  // unknown capacity type, negative or NaN spot price, an eviction threshold that is neither
  // a quantity nor a percentage in [0, 100]).
  [[nodiscard]] absl::Status Validate() const;

  // `zones`, or the three default zones of `region` when empty.
  std::vector<std::string> ResolvedZones() const;
};

// Builds the InstanceType for one EC2 instance type (Karpenter `NewInstanceType`):
//   labels: arch, os, region and every karpenter.k8s.aws label the facts support; optional
//     AWS labels the type lacks (GPU, accelerator, local NVMe, bandwidth...) and the capacity
//     reservation labels get DoesNotExist requirements, as the reference does;
//   capacity: cpu (vCPUs), memory (after VM overhead; arm64 loses 64Mi first),
//     ephemeral-storage, pods, and the non-zero extended resources (pod-eni, efa, GPUs,
//     neuron devices and cores; PrivateIPv4Address on Windows);
//   overhead: tiered kube-reserved cpu, 11*pods+255Mi kube-reserved memory, 1Gi kube-reserved
//     ephemeral-storage, eviction 100Mi memory and 10% of ephemeral-storage (each replaced by
//     options.kube_reserved / system_reserved / eviction_hard where set);
//   offerings: one per zone x capacity type of options.capacity_types that the type's
//     usage_classes include, in zone order; on-demand at `on_demand_price`; spot at
//     options.spot_prices when set, else at EstimatedAwsSpotPrice(name, on_demand_price)
//     (price_estimated) or, with estimate_spot_prices false, at `on_demand_price`;
//     unavailable (at price 0) without a price, and unavailable outside `offered_zones` and
//     for a1.* on AL2023.
// Errors: InvalidArgument naming the instance type and the field (empty name, non-positive
// vCPUs or memory, memory exhausted by the VM overhead, no x86_64/arm64 architecture,
// negative counts, a negative or NaN price) or the invalid option.
[[nodiscard]] absl::StatusOr<InstanceType> MakeAwsInstanceType(
    const AwsInstanceTypeInfo& info, std::optional<double> on_demand_price,
    const AwsCatalogOptions& options = {});

// The label keys the AWS provider registers as well-known: every karpenter.k8s.aws label
// above plus topology.k8s.aws/zone-id and node.kubernetes.io/windows-build.
const LabelSet& AwsWellKnownLabels();

// Estimated spot prices, for catalogs without real ones (the embedded catalog). An estimate,
// not a measurement: spot = on-demand x (1 - discount), with one round discount per instance
// category (the leading letters of the family, as the instance-category label):
//   0.55  compute optimized (c)
//   0.60  general purpose (a, m, t, mac), storage optimized (d, h, i, im, is) and any other
//   0.65  memory optimized (r, x, z, u)
//   0.50  accelerated computing (dl, f, g, gr, inf, p, trn, vt)
// Basis: AWS advertises Spot at "up to 90%" below On-Demand; the EC2 Auto Scaling user guide's
// example table (example, not current, us-east-1 c5 prices) shows spot 44-62% below
// On-Demand; a 2023 analysis of US spot price history (MemVerge, WaveRadar data) found
// memory-optimized discounts larger than general-purpose ones, and those larger than
// compute-optimized ones. The figures are karp's own moderate round choices within that
// picture (lower for accelerated types, assuming scarcer spot capacity), not measured
// averages, and the same in every region, zone and hour; real spot prices vary by type, zone
// and time. A catalog file's prices or the AWS adapter's DescribeSpotPriceHistory prices
// replace them. docs/aws-catalog.md has the details. Deterministic; O(1).
double EstimatedAwsSpotDiscount(std::string_view instance_type);
// on_demand_price x (1 - EstimatedAwsSpotDiscount(instance_type)), rounded to 1e-6.
double EstimatedAwsSpotPrice(std::string_view instance_type, double on_demand_price);

// The embedded table, in table order (grouped by family): every type with a price in at least
// one region of EmbeddedAwsRegions(). Built once; never empty.
const std::vector<AwsInstanceTypeInfo>& EmbeddedAwsInstanceTypeInfos();

// The regions with embedded on-demand prices, sorted:
// {"cn-north-1", "us-east-1", "us-gov-east-1", "us-gov-west-1"}.
const std::vector<std::string>& EmbeddedAwsRegions();

// The currency of `region`'s embedded prices ("USD"; "CNY" for cn-north-1), or "" for a
// region without embedded prices.
std::string_view EmbeddedAwsCurrency(std::string_view region);

// The embedded Linux on-demand price per hour of `instance_type` in `region` (in
// EmbeddedAwsCurrency(region)), or unset if the type is not sold there or the region has no
// embedded prices. O(log n).
std::optional<double> EmbeddedAwsOnDemandPrice(std::string_view instance_type,
                                               std::string_view region = "us-east-1");

// The embedded catalog of options.region: every embedded type with a price there, through
// MakeAwsInstanceType with that price, as InstanceCatalog::Create(types, AwsWellKnownLabels()).
// Errors: InvalidArgument from AwsCatalogOptions::Validate(), or naming `region` and listing
// EmbeddedAwsRegions() when the region has no embedded prices.
[[nodiscard]] absl::StatusOr<InstanceCatalog> EmbeddedAwsCatalog(
    const AwsCatalogOptions& options = {});

}  // namespace karp

#endif  // KARP_AWS_CATALOG_H_
