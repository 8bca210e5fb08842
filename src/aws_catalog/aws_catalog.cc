// The AWS instance-type conversion (docs/aws.md §1-2): labels, capacity, overhead and offerings
// of an instance type from its EC2 facts and the options. The embedded table is in
// embedded_table.cc.

#include "karp/aws_catalog.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "aws_catalog/aws_catalog_internal.h"
#include "internal/strings.h"
#include "karp/requirements.h"

namespace karp {
namespace {

using aws_catalog_internal::MakeWithValidOptions;
using aws_catalog_internal::OptionsError;

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;

// Defaults of docs/aws.md §1.3-1.5.
constexpr int64_t kDefaultEphemeralBytes = 20 * kGi;  // AL2, AL2023, Bottlerocket
constexpr int64_t kWindowsEphemeralBytes = 50 * kGi;  // Windows root volume
constexpr int64_t kKubeReservedEphemeralBytes = 1 * kGi;
constexpr int64_t kEvictionMemoryBytes = 100 * kMi;  // memory.available
constexpr double kEvictionNodefsPercent = 10;        // nodefs.available
constexpr int64_t kArm64CmaMib = 64;                 // Graviton CMA reservation
constexpr int64_t kKubeReservedMibPerPod = 11;
constexpr int64_t kKubeReservedMibBase = 255;
constexpr int64_t kWindowsMaxPods = 110;

// The AMI families: the name options and EC2NodeClass use, and the Windows Server build of
// the Windows ones ("" for the others).
struct AmiFamilyRow {
  AwsAmiFamily family;
  std::string_view name;
  std::string_view windows_build;
};
constexpr AmiFamilyRow kAmiFamilies[] = {
    {AwsAmiFamily::kAl2023, "AL2023", ""},
    {AwsAmiFamily::kAl2, "AL2", ""},
    {AwsAmiFamily::kBottlerocket, "Bottlerocket", ""},
    {AwsAmiFamily::kCustom, "Custom", ""},
    {AwsAmiFamily::kWindows2019, "Windows2019", "10.0.17763"},
    {AwsAmiFamily::kWindows2022, "Windows2022", "10.0.20348"},
    {AwsAmiFamily::kWindows2025, "Windows2025", "10.0.26100"},
};

const AmiFamilyRow* FindAmiFamily(AwsAmiFamily family) {
  for (const AmiFamilyRow& row : kAmiFamilies) {
    if (row.family == family) return &row;
  }
  return nullptr;
}

std::string_view WindowsBuild(AwsAmiFamily family) {
  const AmiFamilyRow* row = FindAmiFamily(family);
  return row == nullptr ? "" : row->windows_build;
}

bool IsWindows(AwsAmiFamily family) { return !WindowsBuild(family).empty(); }

// Karpenter `lowerKabobCase`: lower case, spaces -> '-'.
std::string LowerKebab(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == ' ') {
      c = '-';
    } else if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && LowerKebab(a) == LowerKebab(b);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Karpenter's `(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.` on the instance-type name: the category
// (leading letters) and the generation (the digits after it and an optional `-<n>tb`).
bool ParseCategoryGeneration(std::string_view name, std::string* category,
                             std::string* generation) {
  size_t letters = 0;
  while (letters < name.size() && name[letters] >= 'a' && name[letters] <= 'z') ++letters;
  if (letters == 0) return false;
  auto digits_end = [&](size_t from) {
    while (from < name.size() && IsDigit(name[from])) ++from;
    return from;
  };
  auto try_generation_at = [&](size_t start) {
    size_t end = digits_end(start);
    if (end == start || name.find('.', end) == std::string_view::npos) return false;
    *category = std::string(name.substr(0, letters));
    *generation = std::string(name.substr(start, end - start));
    return true;
  };
  if (letters < name.size() && name[letters] == '-') {
    size_t tb_digits_end = digits_end(letters + 1);
    if (tb_digits_end > letters + 1 && name.substr(tb_digits_end, 2) == "tb" &&
        try_generation_at(tb_digits_end + 2)) {
      return true;
    }
  }
  return try_generation_at(letters);
}

// The Kubernetes architecture: the first EC2 architecture that maps, or "".
std::string_view KubeArch(const std::vector<std::string>& architectures) {
  for (const std::string& a : architectures) {
    if (a == "x86_64") return kArchAmd64;
    if (a == "arm64") return kArchArm64;
  }
  return "";
}

// docs/aws.md §1.5: U x (IPv4 per ENI - 1) + 2, with U = usable ENIs of the default card;
// 0 when no ENI is usable.
int64_t EniLimitedPods(const AwsInstanceTypeInfo& info, int reserved_enis) {
  int64_t usable = std::max<int64_t>(0, int64_t{info.max_network_interfaces} - reserved_enis);
  if (usable == 0) return 0;
  return usable * (int64_t{info.ipv4_addresses_per_interface} - 1) + 2;
}

// Karpenter's tiered kube-reserved CPU (millicores), computed as the reference does: each tier
// truncated to an integer.
int64_t KubeReservedCpuMillis(int64_t cpu_millis) {
  struct Tier {
    int64_t start;
    int64_t end;
    double percentage;
  };
  static constexpr Tier kTiers[] = {
      {0, 1000, 0.06}, {1000, 2000, 0.01}, {2000, 4000, 0.005}, {4000, int64_t{1} << 31, 0.0025}};
  int64_t total = 0;
  for (const Tier& t : kTiers) {
    if (cpu_millis < t.start) continue;
    double span = static_cast<double>(cpu_millis < t.end ? cpu_millis - t.start : t.end - t.start);
    total += static_cast<int64_t>(span * t.percentage);
  }
  return total;
}

// Labels that get a DoesNotExist requirement when a type has no value for them (Karpenter
// `computeRequirements`), so pods selecting them cannot land on types that lack them.
constexpr std::string_view kOptionalLabels[] = {
    kLabelWindowsBuild,
    kAwsLabelInstanceCpuManufacturer,
    kAwsLabelInstanceCpuSustainedClockSpeedMhz,
    kAwsLabelInstanceEbsBandwidth,
    kAwsLabelInstanceNetworkBandwidth,
    kAwsLabelInstanceCategory,
    kAwsLabelInstanceFamily,
    kAwsLabelInstanceGeneration,
    kAwsLabelInstanceLocalNvme,
    kAwsLabelInstanceSize,
    kAwsLabelInstanceGpuName,
    kAwsLabelInstanceGpuManufacturer,
    kAwsLabelInstanceGpuCount,
    kAwsLabelInstanceGpuMemory,
    kAwsLabelInstanceAcceleratorName,
    kAwsLabelInstanceAcceleratorManufacturer,
    kAwsLabelInstanceAcceleratorCount,
    kAwsLabelCapacityReservationId,
    kAwsLabelCapacityReservationType,
    kAwsLabelCapacityReservationInterruptible,
};

// The label keys MakeAwsInstanceType may set, as slots.
enum LabelSlot : uint8_t {
  kSlotArch,
  kSlotRegion,
  kSlotOs,
  kSlotWindowsBuild,
  kSlotCpu,
  kSlotMemory,
  kSlotCpuManufacturer,
  kSlotClock,
  kSlotCategory,
  kSlotGeneration,
  kSlotFamily,
  kSlotSize,
  kSlotFlex,
  kSlotHypervisor,
  kSlotEncryptionInTransit,
  kSlotEbsBandwidth,
  kSlotNetworkBandwidth,
  kSlotLocalNvme,
  kSlotGpuName,
  kSlotGpuManufacturer,
  kSlotGpuCount,
  kSlotGpuMemory,
  kSlotAcceleratorName,
  kSlotAcceleratorManufacturer,
  kSlotAcceleratorCount,
  kSlotCount,
};

constexpr std::string_view kSlotKeys[kSlotCount] = {
    kLabelArch,
    kLabelRegion,
    kLabelOs,
    kLabelWindowsBuild,
    kAwsLabelInstanceCpu,
    kAwsLabelInstanceMemory,
    kAwsLabelInstanceCpuManufacturer,
    kAwsLabelInstanceCpuSustainedClockSpeedMhz,
    kAwsLabelInstanceCategory,
    kAwsLabelInstanceGeneration,
    kAwsLabelInstanceFamily,
    kAwsLabelInstanceSize,
    kAwsLabelInstanceCapabilityFlex,
    kAwsLabelInstanceHypervisor,
    kAwsLabelInstanceEncryptionInTransitSupported,
    kAwsLabelInstanceEbsBandwidth,
    kAwsLabelInstanceNetworkBandwidth,
    kAwsLabelInstanceLocalNvme,
    kAwsLabelInstanceGpuName,
    kAwsLabelInstanceGpuManufacturer,
    kAwsLabelInstanceGpuCount,
    kAwsLabelInstanceGpuMemory,
    kAwsLabelInstanceAcceleratorName,
    kAwsLabelInstanceAcceleratorManufacturer,
    kAwsLabelInstanceAcceleratorCount,
};

// Slots in key order, and the optional labels in key order with their slot (kSlotCount when
// no slot sets them, as for the capacity-reservation labels). Computed once.
struct SlotOrder {
  std::vector<LabelSlot> by_key;
  std::vector<std::pair<std::string_view, LabelSlot>> optional_by_key;
};

const SlotOrder& Order() {
  static const SlotOrder* const order = [] {
    auto* o = new SlotOrder;
    for (int s = 0; s < kSlotCount; ++s) o->by_key.push_back(static_cast<LabelSlot>(s));
    std::sort(o->by_key.begin(), o->by_key.end(),
              [](LabelSlot a, LabelSlot b) { return kSlotKeys[a] < kSlotKeys[b]; });
    for (std::string_view key : kOptionalLabels) {
      LabelSlot slot = kSlotCount;
      for (int s = 0; s < kSlotCount; ++s) {
        if (kSlotKeys[s] == key) slot = static_cast<LabelSlot>(s);
      }
      o->optional_by_key.emplace_back(key, slot);
    }
    std::sort(o->optional_by_key.begin(), o->optional_by_key.end());
    return o;
  }();
  return *order;
}

// The labels of one type, by slot; turned into the map in key order, so that every insertion
// lands at the end of the tree (no search, no string comparisons beyond the hint's).
class LabelSlots {
 public:
  void Set(LabelSlot slot, std::string value) {
    values_[slot] = std::move(value);
    set_[slot] = true;
  }

  // DoesNotExist for every optional label without a value, in key order.
  Requirements MissingOptional() const {
    Requirements out;
    for (const auto& [key, slot] : Order().optional_by_key) {
      if (slot == kSlotCount || !set_[slot]) out.Add(Requirement::DoesNotExist(key));
    }
    return out;
  }

  std::map<std::string, std::string> TakeMap() {
    std::map<std::string, std::string> out;
    for (LabelSlot slot : Order().by_key) {
      if (set_[slot]) out.emplace_hint(out.end(), kSlotKeys[slot], std::move(values_[slot]));
    }
    return out;
  }

 private:
  std::string values_[kSlotCount];
  bool set_[kSlotCount] = {};
};

bool Contains(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

absl::Status InfoError(const AwsInstanceTypeInfo& info, std::string_view message) {
  return absl::InvalidArgumentError(
      internal::StrCat("instance type \"", info.name, "\": ", message));
}

absl::Status ValidateInfo(const AwsInstanceTypeInfo& info, std::optional<double> price) {
  if (info.name.empty()) return absl::InvalidArgumentError("instance type: name is empty");
  if (info.vcpus <= 0)
    return InfoError(info, internal::StrCat("vcpus must be > 0, got ", info.vcpus));
  if (info.memory_mib <= 0) {
    return InfoError(info, internal::StrCat("memory_mib must be > 0, got ", info.memory_mib));
  }
  if (KubeArch(info.architectures).empty()) {
    std::string archs;
    for (const std::string& a : info.architectures) {
      internal::StrAppend(&archs, archs.empty() ? "" : " ", a);
    }
    return InfoError(info,
                     internal::StrCat("architectures [", archs, "] has neither x86_64 nor arm64"));
  }
  const std::pair<const char*, int64_t> counts[] = {
      {"max_network_interfaces", info.max_network_interfaces},
      {"ipv4_addresses_per_interface", info.ipv4_addresses_per_interface},
      {"branch_interfaces", info.branch_interfaces},
      {"efa_max_interfaces", info.efa_max_interfaces},
      {"sustained_clock_speed_mhz", info.sustained_clock_speed_mhz.value_or(0)},
      {"ebs_bandwidth_mbps", info.ebs_bandwidth_mbps.value_or(0)},
      {"network_bandwidth_mbps", info.network_bandwidth_mbps.value_or(0)},
      {"local_nvme_gb", info.local_nvme_gb.value_or(0)},
  };
  for (const auto& [field, value] : counts) {
    if (value < 0) return InfoError(info, internal::StrCat(field, " must be >= 0, got ", value));
  }
  if (info.max_network_interfaces > 0 && info.ipv4_addresses_per_interface < 1) {
    return InfoError(info, "ipv4_addresses_per_interface must be >= 1 when the type has ENIs");
  }
  for (const AwsGpuInfo& g : info.gpus) {
    if (g.count < 0 || g.memory_mib < 0) {
      return InfoError(info,
                       internal::StrCat("gpu \"", g.name, "\" has a negative count or memory"));
    }
  }
  for (const AwsAcceleratorInfo& a : info.inference_accelerators) {
    if (a.count < 0) {
      return InfoError(info, internal::StrCat("accelerator \"", a.name, "\" has a negative count"));
    }
  }
  for (const AwsNeuronDeviceInfo& n : info.neuron_devices) {
    if (n.count < 0 || n.core_count < 0) {
      return InfoError(info, internal::StrCat("neuron device \"", n.name,
                                              "\" has a negative count or core count"));
    }
  }
  if (price.has_value() && !(*price >= 0 && std::isfinite(*price))) {
    return InfoError(info,
                     internal::StrCat("on-demand price must be finite and >= 0, got ", *price));
  }
  return absl::OkStatus();
}

// AWS zone names extend their region's: "us-east-1a", Local Zones "us-east-1-bos-1a",
// Wavelength Zones "us-east-1-wl1-bos-wlz-1".
bool IsZoneOfRegion(std::string_view zone, std::string_view region) {
  if (zone.size() <= region.size() || zone.substr(0, region.size()) != region) return false;
  const char next = zone[region.size()];
  return next == '-' || (next >= 'a' && next <= 'z');
}

// An evictionHard threshold against `capacity` (canonical units of `resource`): a quantity, or
// a percentage p of the capacity rounded up (p = 100 disables the threshold, as kubelet does).
absl::StatusOr<int64_t> EvictionThreshold(std::string_view text, int64_t capacity,
                                          std::string_view resource) {
  if (!text.empty() && text.back() == '%') {
    const std::string_view number = text.substr(0, text.size() - 1);
    bool digits = !number.empty(), dot = false;
    for (char c : number) {
      if (c == '.' && !dot) {
        dot = true;
      } else if (c < '0' || c > '9') {
        digits = false;
      }
    }
    const double p =
        digits && number != "." ? std::strtod(std::string(number).c_str(), nullptr) : -1;
    if (!(p >= 0 && p <= 100)) {
      return absl::InvalidArgumentError(internal::StrCat(
          "invalid percentage \"", text, "\": expected a number in [0, 100] followed by %"));
    }
    if (p == 100) return int64_t{0};
    return static_cast<int64_t>(std::ceil(static_cast<double>(capacity) / 100 * p));
  }
  return ParseQuantity(text, resource);
}

}  // namespace

std::string_view AwsAmiFamilyName(AwsAmiFamily family) {
  const AmiFamilyRow* row = FindAmiFamily(family);
  return row == nullptr ? "" : row->name;
}

absl::StatusOr<AwsAmiFamily> ParseAwsAmiFamily(std::string_view text) {
  for (const AmiFamilyRow& row : kAmiFamilies) {
    if (row.name == text) return row.family;
  }
  return absl::InvalidArgumentError(internal::StrCat(
      "unknown AMI family \"", text,
      "\" (want AL2023, AL2, Bottlerocket, Custom, Windows2019, Windows2022 or Windows2025)"));
}

absl::Status AwsCatalogOptions::Validate() const {
  if (region.empty()) return OptionsError("region is empty");
  for (size_t i = 0; i < zones.size(); ++i) {
    if (zones[i].empty()) return OptionsError(internal::StrCat("zones[", i, "] is empty"));
    if (!IsZoneOfRegion(zones[i], region)) {
      return OptionsError(internal::StrCat("zones[", i, "] \"", zones[i],
                                           "\" is not a zone of region \"", region, "\""));
    }
    for (size_t j = 0; j < i; ++j) {
      if (zones[j] == zones[i]) {
        return OptionsError(internal::StrCat("zones[", i, "] \"", zones[i], "\" is repeated"));
      }
    }
  }
  if (!(vm_memory_overhead_percent >= 0 && vm_memory_overhead_percent < 1)) {
    return OptionsError(internal::StrCat("vm_memory_overhead_percent must be in [0, 1), got ",
                                         vm_memory_overhead_percent));
  }
  if (reserved_enis < 0) {
    return OptionsError(internal::StrCat("reserved_enis must be >= 0, got ", reserved_enis));
  }
  if (max_pods.has_value() && *max_pods < 0) {
    return OptionsError(internal::StrCat("max_pods must be >= 0, got ", *max_pods));
  }
  if (pods_per_core.has_value() && *pods_per_core < 0) {
    return OptionsError(internal::StrCat("pods_per_core must be >= 0, got ", *pods_per_core));
  }
  if (capacity_types.empty()) return OptionsError("capacity_types is empty");
  for (size_t i = 0; i < capacity_types.size(); ++i) {
    const std::string& ct = capacity_types[i];
    if (ct != kCapacityTypeOnDemand && ct != kCapacityTypeSpot) {
      return OptionsError(internal::StrCat("capacity_types[", i, "] \"", ct,
                                           "\" is not \"on-demand\" or \"spot\""));
    }
    for (size_t j = 0; j < i; ++j) {
      if (capacity_types[j] == ct) {
        return OptionsError(internal::StrCat("capacity_types[", i, "] \"", ct, "\" is repeated"));
      }
    }
  }
  if (spot_prices.has_value()) {
    for (const auto& [type, by_zone] : *spot_prices) {
      for (const auto& [zone, price] : by_zone) {
        if (!(price >= 0 && std::isfinite(price))) {
          return OptionsError(internal::StrCat("spot price of \"", type, "\" in \"", zone,
                                               "\" must be finite and >= 0, got ", price));
        }
      }
    }
  }
  if (ephemeral_volume_bytes.has_value() && *ephemeral_volume_bytes <= 0) {
    return OptionsError(
        internal::StrCat("ephemeral_volume_bytes must be > 0, got ", *ephemeral_volume_bytes));
  }
  if (kube_reserved.AnyNegative()) return OptionsError("kube_reserved has a negative quantity");
  if (system_reserved.AnyNegative()) {
    return OptionsError("system_reserved has a negative quantity");
  }
  for (const auto& [signal, threshold] : eviction_hard) {
    if (absl::StatusOr<int64_t> v = EvictionThreshold(threshold, 0, kResourceMemory); !v.ok()) {
      return OptionsError(internal::StrCat(
          "eviction_hard[\"", signal,
          "\"]: ", std::string_view(v.status().message().data(), v.status().message().size())));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> AwsCatalogOptions::ResolvedZones() const {
  if (!zones.empty()) return zones;
  return {region + "a", region + "b", region + "c"};
}

namespace {

// The labels of one type (§1.2), and the requirements its missing optional labels add.
struct TypeLabels {
  std::map<std::string, std::string> labels;
  Requirements extra;  // DoesNotExist per missing optional label; os In {} when none runs
};

// The GPU and accelerator labels of `info` (one device model each).
void SetDeviceLabels(const AwsInstanceTypeInfo& info, LabelSlots* slots) {
  if (info.gpus.size() == 1) {
    const AwsGpuInfo& g = info.gpus.front();
    slots->Set(kSlotGpuName, LowerKebab(g.name));
    slots->Set(kSlotGpuManufacturer, LowerKebab(g.manufacturer));
    slots->Set(kSlotGpuCount, internal::StrCat(g.count));
    slots->Set(kSlotGpuMemory, internal::StrCat(g.memory_mib));
  }
  if (info.neuron_devices.empty() && info.inference_accelerators.size() == 1) {
    const AwsAcceleratorInfo& a = info.inference_accelerators.front();
    slots->Set(kSlotAcceleratorName, LowerKebab(a.name));
    slots->Set(kSlotAcceleratorManufacturer, LowerKebab(a.manufacturer));
    slots->Set(kSlotAcceleratorCount, internal::StrCat(a.count));
  } else if (info.neuron_devices.size() == 1) {
    const AwsNeuronDeviceInfo& n = info.neuron_devices.front();
    slots->Set(kSlotAcceleratorName, LowerKebab(n.name));
    slots->Set(kSlotAcceleratorManufacturer, "aws");
    slots->Set(kSlotAcceleratorCount, internal::StrCat(n.count));
  }
}

TypeLabels LabelsOf(const AwsInstanceTypeInfo& info, const AwsCatalogOptions& options) {
  const std::string_view arch = KubeArch(info.architectures);
  const size_t dot = info.name.find('.');
  const std::string family = info.name.substr(0, dot);
  LabelSlots slots;
  slots.Set(kSlotArch, std::string(arch));
  slots.Set(kSlotRegion, options.region);
  bool no_os = false;
  if (!IsWindows(options.ami_family)) {
    slots.Set(kSlotOs, "linux");
  } else if (arch == kArchAmd64) {
    slots.Set(kSlotOs, "windows");
    slots.Set(kSlotWindowsBuild, std::string(WindowsBuild(options.ami_family)));
  } else {
    no_os = true;  // Windows AMIs run on amd64 only
  }
  slots.Set(kSlotCpu, internal::StrCat(info.vcpus));
  slots.Set(kSlotMemory, internal::StrCat(info.memory_mib));
  if (!info.cpu_manufacturer.empty()) {
    slots.Set(kSlotCpuManufacturer, LowerKebab(info.cpu_manufacturer));
  }
  if (info.sustained_clock_speed_mhz.has_value()) {
    slots.Set(kSlotClock, internal::StrCat(*info.sustained_clock_speed_mhz));
  }
  std::string category, generation;
  if (ParseCategoryGeneration(info.name, &category, &generation)) {
    slots.Set(kSlotCategory, std::move(category));
    slots.Set(kSlotGeneration, std::move(generation));
  }
  if (dot != std::string::npos && info.name.find('.', dot + 1) == std::string::npos) {
    slots.Set(kSlotFamily, family);
    slots.Set(kSlotSize, info.name.substr(dot + 1));
  }
  slots.Set(kSlotFlex, family.find("-flex") != std::string::npos ? "true" : "false");
  slots.Set(kSlotHypervisor, info.hypervisor);
  slots.Set(kSlotEncryptionInTransit, info.encryption_in_transit_supported ? "true" : "false");
  if (info.ebs_bandwidth_mbps.has_value()) {
    slots.Set(kSlotEbsBandwidth, internal::StrCat(*info.ebs_bandwidth_mbps));
  }
  if (info.network_bandwidth_mbps.has_value()) {
    slots.Set(kSlotNetworkBandwidth, internal::StrCat(*info.network_bandwidth_mbps));
  }
  if (info.local_nvme_gb.has_value()) {
    slots.Set(kSlotLocalNvme, internal::StrCat(*info.local_nvme_gb));
  }
  SetDeviceLabels(info, &slots);
  TypeLabels out;
  out.extra = slots.MissingOptional();
  if (no_os) out.extra.Add(Requirement::In(kLabelOs, {}));
  out.labels = slots.TakeMap();
  return out;
}

// The capacity of one type (§1.3, §1.5) and the figures its overhead is computed from.
struct TypeCapacity {
  ResourceList resources;
  int64_t ephemeral_bytes = 0;
  int64_t pods = 0;
};

// Memory in MiB after the arm64 CMA reservation and the VM overhead (may be <= 0).
int64_t UsableMemoryMib(const AwsInstanceTypeInfo& info, const AwsCatalogOptions& options) {
  int64_t memory_mib = info.memory_mib;
  if (!info.architectures.empty() && info.architectures.front() == "arm64") {
    memory_mib -= kArm64CmaMib;
  }
  memory_mib -= static_cast<int64_t>(
      std::ceil(static_cast<double>(memory_mib) * options.vm_memory_overhead_percent));
  return memory_mib;
}

// The ephemeral storage: the RAID0 of the instance stores when asked for and present, else the
// configured volume size, else the AMI family's root volume.
int64_t EphemeralBytes(const AwsInstanceTypeInfo& info, const AwsCatalogOptions& options) {
  int64_t ephemeral_bytes =
      IsWindows(options.ami_family) ? kWindowsEphemeralBytes : kDefaultEphemeralBytes;
  if (options.instance_store_raid0 && info.local_nvme_gb.value_or(0) > 0) {
    ephemeral_bytes = *info.local_nvme_gb * 1000 * 1000 * 1000;
  } else if (options.ephemeral_volume_bytes.has_value()) {
    ephemeral_bytes = *options.ephemeral_volume_bytes;
  }
  return ephemeral_bytes;
}

// max-pods: configured, else ENI-limited (110 on Windows), capped by pods-per-core.
int64_t MaxPods(const AwsInstanceTypeInfo& info, const AwsCatalogOptions& options) {
  int64_t pods = 0;
  if (options.max_pods.has_value()) {
    pods = *options.max_pods;
  } else if (!IsWindows(options.ami_family)) {
    pods = EniLimitedPods(info, options.reserved_enis);
  } else {
    pods = kWindowsMaxPods;
  }
  if (options.pods_per_core.value_or(0) > 0 && options.ami_family != AwsAmiFamily::kBottlerocket) {
    pods = std::min(pods, int64_t{*options.pods_per_core} * info.vcpus);
  }
  return pods;
}

// The extended resources (pod ENIs, GPUs, Neuron, EFA, Windows private IPv4), positive only.
void SetExtendedResources(const AwsInstanceTypeInfo& info, bool windows, ResourceList* capacity) {
  auto set_positive = [capacity](std::string_view resource, int64_t value) {
    if (value > 0) capacity->Set(resource, value);
  };
  set_positive(kAwsResourcePodEni, info.trunking_compatible ? info.branch_interfaces : 0);
  int64_t nvidia = 0, amd = 0, habana = 0;
  for (const AwsGpuInfo& g : info.gpus) {
    if (EqualsIgnoreCase(g.manufacturer, "nvidia")) nvidia += g.count;
    if (EqualsIgnoreCase(g.manufacturer, "amd")) amd += g.count;
    if (EqualsIgnoreCase(g.manufacturer, "habana")) habana += g.count;
  }
  set_positive(kAwsResourceNvidiaGpu, nvidia);
  set_positive(kAwsResourceAmdGpu, amd);
  set_positive(kAwsResourceHabanaGaudi, habana);
  int64_t neuron_devices = 0;
  for (const AwsNeuronDeviceInfo& n : info.neuron_devices) neuron_devices += n.count;
  set_positive(kAwsResourceNeuron, neuron_devices);
  if (!info.neuron_devices.empty()) {
    set_positive(kAwsResourceNeuronCore, neuron_devices * info.neuron_devices.front().core_count);
  }
  set_positive(kAwsResourceEfa, info.efa_max_interfaces);
  if (windows) {
    set_positive(kAwsResourcePrivateIpv4Address, int64_t{info.ipv4_addresses_per_interface} - 1);
  }
}

// Errors: InvalidArgument when the VM overhead leaves no memory.
absl::StatusOr<TypeCapacity> CapacityOf(const AwsInstanceTypeInfo& info,
                                        const AwsCatalogOptions& options) {
  TypeCapacity out;
  out.resources.Set(kResourceCpu, int64_t{info.vcpus} * 1000);
  const int64_t memory_mib = UsableMemoryMib(info, options);
  if (memory_mib <= 0) {
    return InfoError(info, internal::StrCat("memory_mib ", info.memory_mib,
                                            " leaves no memory after the VM overhead"));
  }
  out.resources.Set(kResourceMemory, memory_mib * kMi);
  out.ephemeral_bytes = EphemeralBytes(info, options);
  out.resources.Set(kResourceEphemeralStorage, out.ephemeral_bytes);
  out.pods = MaxPods(info, options);
  out.resources.Set(kResourcePods, out.pods);
  SetExtendedResources(info, IsWindows(options.ami_family), &out.resources);
  return out;
}

// The overhead (§1.4): kube-reserved, system-reserved and the eviction thresholds.
// Errors: those of the evictionHard overrides (none once the options are validated).
absl::StatusOr<Overhead> OverheadOf(const AwsInstanceTypeInfo& info,
                                    const AwsCatalogOptions& options,
                                    const TypeCapacity& capacity) {
  Overhead overhead;
  const bool eni_limited_memory = options.ami_family == AwsAmiFamily::kAl2023 ||
                                  options.ami_family == AwsAmiFamily::kAl2 ||
                                  options.ami_family == AwsAmiFamily::kCustom;
  const int64_t reserved_for_pods = eni_limited_memory ? EniLimitedPods(info, 0) : capacity.pods;
  overhead.kube_reserved.Set(kResourceCpu, KubeReservedCpuMillis(int64_t{info.vcpus} * 1000));
  overhead.kube_reserved.Set(
      kResourceMemory, (kKubeReservedMibPerPod * reserved_for_pods + kKubeReservedMibBase) * kMi);
  overhead.kube_reserved.Set(kResourceEphemeralStorage, kKubeReservedEphemeralBytes);
  options.kube_reserved.ForEach([&overhead](std::string_view name, int64_t value) {
    overhead.kube_reserved.Set(name, value);
  });
  overhead.system_reserved = options.system_reserved;
  overhead.eviction_threshold.Set(kResourceMemory, kEvictionMemoryBytes);
  overhead.eviction_threshold.Set(
      kResourceEphemeralStorage,
      static_cast<int64_t>(
          std::ceil(static_cast<double>(capacity.ephemeral_bytes) / 100 * kEvictionNodefsPercent)));
  // evictionHard overrides (validated by AwsCatalogOptions::Validate).
  if (auto it = options.eviction_hard.find("memory.available"); it != options.eviction_hard.end()) {
    absl::StatusOr<int64_t> v =
        EvictionThreshold(it->second, capacity.resources.Get(kResourceMemory), kResourceMemory);
    if (!v.ok()) return v.status();
    overhead.eviction_threshold.Set(kResourceMemory, *v);
  }
  if (auto it = options.eviction_hard.find("nodefs.available"); it != options.eviction_hard.end()) {
    absl::StatusOr<int64_t> v =
        EvictionThreshold(it->second, capacity.ephemeral_bytes, kResourceEphemeralStorage);
    if (!v.ok()) return v.status();
    overhead.eviction_threshold.Set(kResourceEphemeralStorage, *v);
  }
  return overhead;
}

// The price of one offering; unpriced offerings are unavailable at price 0.
struct OfferingPrice {
  double price = 0;
  bool known = false;
  bool estimated = false;
};

// The price of `info` as `capacity_type` in `zone`: the on-demand price, or for spot the
// zone's spot price when spot prices are given, else the estimate when asked for, else the
// on-demand price.
OfferingPrice PriceOf(const AwsInstanceTypeInfo& info, std::optional<double> on_demand_price,
                      const AwsCatalogOptions& options, const std::string& capacity_type,
                      const std::string& zone) {
  OfferingPrice out;
  out.known = on_demand_price.has_value();
  out.price = on_demand_price.value_or(0);
  if (capacity_type != kCapacityTypeSpot) return out;
  if (!options.spot_prices.has_value()) {
    if (options.estimate_spot_prices && out.known) {
      out.price = EstimatedAwsSpotPrice(info.name, *on_demand_price);
      out.estimated = true;
    }
    return out;
  }
  out.known = false;
  out.price = 0;
  auto by_type = options.spot_prices->find(info.name);
  if (by_type != options.spot_prices->end()) {
    auto by_zone = by_type->second.find(zone);
    if (by_zone != by_type->second.end()) {
      out.known = true;
      out.price = by_zone->second;
    }
  }
  return out;
}

// The offerings (§1.7, §2): every zone x capacity type the type supports.
std::vector<Offering> OfferingsOf(const AwsInstanceTypeInfo& info,
                                  std::optional<double> on_demand_price,
                                  const AwsCatalogOptions& options) {
  const std::string family = info.name.substr(0, info.name.find('.'));
  const bool excluded = options.ami_family == AwsAmiFamily::kAl2023 && family == "a1";
  std::vector<Offering> offerings;
  for (const std::string& zone : options.ResolvedZones()) {
    const bool offered = info.offered_zones.empty() || Contains(info.offered_zones, zone);
    for (const std::string& capacity_type : options.capacity_types) {
      if (!Contains(info.usage_classes, capacity_type)) continue;
      const OfferingPrice price = PriceOf(info, on_demand_price, options, capacity_type, zone);
      Offering o;
      o.zone = zone;
      o.capacity_type = capacity_type;
      o.price = price.price;
      o.available = price.known && offered && !excluded;
      o.price_estimated = price.estimated;
      offerings.push_back(std::move(o));
    }
  }
  return offerings;
}

}  // namespace

namespace aws_catalog_internal {

absl::Status OptionsError(std::string_view message) {
  return absl::InvalidArgumentError(internal::StrCat("aws catalog options: ", message));
}

absl::StatusOr<InstanceType> MakeWithValidOptions(const AwsInstanceTypeInfo& info,
                                                  std::optional<double> on_demand_price,
                                                  const AwsCatalogOptions& options) {
  if (absl::Status s = ValidateInfo(info, on_demand_price); !s.ok()) return s;
  TypeLabels labels = LabelsOf(info, options);
  absl::StatusOr<TypeCapacity> capacity = CapacityOf(info, options);
  if (!capacity.ok()) return capacity.status();
  absl::StatusOr<Overhead> overhead = OverheadOf(info, options, *capacity);
  if (!overhead.ok()) return overhead.status();

  // InstanceType::Make followed by RebuildRequirements(extra), building the requirements once.
  InstanceType it;
  it.name = info.name;
  it.labels = std::move(labels.labels);
  it.capacity = std::move(capacity->resources);
  it.overhead = *std::move(overhead);
  it.offerings = OfferingsOf(info, on_demand_price, options);
  it.extra_requirements = std::move(labels.extra);
  it.RebuildRequirements();
  return it;
}

}  // namespace aws_catalog_internal

absl::StatusOr<InstanceType> MakeAwsInstanceType(const AwsInstanceTypeInfo& info,
                                                 std::optional<double> on_demand_price,
                                                 const AwsCatalogOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  return MakeWithValidOptions(info, on_demand_price, options);
}

const LabelSet& AwsWellKnownLabels() {
  // The labels every type carries, plus the optional ones (which get DoesNotExist when absent).
  static const LabelSet* const labels = [] {
    auto* set = new LabelSet{
        kAwsLabelInstanceCapabilityFlex,
        kAwsLabelInstanceCpu,
        kAwsLabelInstanceMemory,
        kAwsLabelInstanceHypervisor,
        kAwsLabelInstanceEncryptionInTransitSupported,
        kAwsLabelTopologyZoneId,
    };
    for (std::string_view key : kOptionalLabels) set->Insert(key);
    return set;
  }();
  return *labels;
}

double EstimatedAwsSpotDiscount(std::string_view instance_type) {
  size_t letters = 0;
  while (letters < instance_type.size() && instance_type[letters] >= 'a' &&
         instance_type[letters] <= 'z') {
    ++letters;
  }
  const std::string_view category = instance_type.substr(0, letters);
  // See the header for the basis of these figures (and docs/aws-catalog.md).
  struct Discount {
    std::string_view category;
    double discount;
  };
  static constexpr Discount kDiscounts[] = {
      {"c", 0.55},                                              // compute optimized
      {"r", 0.65},   {"x", 0.65}, {"z", 0.65},   {"u", 0.65},   // memory optimized
      {"dl", 0.50},  {"f", 0.50}, {"g", 0.50},   {"gr", 0.50},  // accelerated
      {"inf", 0.50}, {"p", 0.50}, {"trn", 0.50}, {"vt", 0.50},
  };
  for (const Discount& d : kDiscounts) {
    if (d.category == category) return d.discount;
  }
  return 0.60;  // general purpose, storage optimized and any other category
}

double EstimatedAwsSpotPrice(std::string_view instance_type, double on_demand_price) {
  return std::round(on_demand_price * (1 - EstimatedAwsSpotDiscount(instance_type)) * 1e6) / 1e6;
}

}  // namespace karp
