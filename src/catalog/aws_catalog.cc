// The AWS instance-type conversion (aws-provider.md §1-2) and the embedded default table.

#include "karp/aws_catalog.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "internal/strings.h"
#include "karp/requirements.h"

namespace karp {
namespace {

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;

// Defaults of aws-provider.md §1.3-1.5.
constexpr int64_t kDefaultEphemeralBytes = 20 * kGi;  // AL2, AL2023, Bottlerocket
constexpr int64_t kWindowsEphemeralBytes = 50 * kGi;  // Windows root volume
constexpr int64_t kKubeReservedEphemeralBytes = 1 * kGi;
constexpr int64_t kEvictionMemoryBytes = 100 * kMi;  // memory.available
constexpr double kEvictionNodefsPercent = 10;        // nodefs.available
constexpr int64_t kArm64CmaMib = 64;                 // Graviton CMA reservation
constexpr int64_t kKubeReservedMibPerPod = 11;
constexpr int64_t kKubeReservedMibBase = 255;
constexpr int64_t kWindowsMaxPods = 110;

// ---------------------------------------------------------------------------------------------
// The embedded table (rows in aws_table.inc).

enum class TableArch : uint8_t { kX86, kArm };
constexpr TableArch kX86 = TableArch::kX86;
constexpr TableArch kArm = TableArch::kArm;

enum class DeviceKind : uint8_t { kNone, kGpu, kNeuron };
constexpr DeviceKind kNoDevice = DeviceKind::kNone;
constexpr DeviceKind kGpu = DeviceKind::kGpu;
constexpr DeviceKind kNeuron = DeviceKind::kNeuron;

// Facts shared by every size of a family.
struct FamilyRow {
  const char* name;
  TableArch arch;
  const char* cpu_manufacturer;
  int clock_mhz;
  bool encryption_in_transit;
  const char* hypervisor;  // of the virtualized sizes; "metal*" sizes have ""
  DeviceKind device;
  const char* device_name;
  const char* device_manufacturer;
  int device_memory_mib;  // per GPU
  int neuron_cores;       // per neuron device
  int sizes;              // number of consecutive rows in kSizes
};

// Facts of one size. Zero means "none" for nvme_gb, network_mbps, ebs_mbps and clock_mhz
// (which defaults to the family's).
struct SizeRow {
  const char* size;
  int vcpus;
  int memory_mib;
  int enis;  // max ENIs of the default network card
  int ipv4_per_eni;
  int pod_enis;  // branch ENIs; 0 when not trunking-compatible
  int efa;
  int devices;  // GPUs or neuron devices
  int nvme_gb;
  int network_mbps;
  int ebs_mbps;
  int clock_mhz;
  double price;  // us-east-1 on-demand, USD/hour
};

#include "catalog/aws_table.inc"

constexpr size_t TotalFamilySizes() {
  size_t total = 0;
  for (const FamilyRow& f : kFamilies) total += static_cast<size_t>(f.sizes);
  return total;
}
static_assert(TotalFamilySizes() == std::size(kSizes),
              "aws_table.inc: family size counts must add up to the number of size rows");

AwsInstanceTypeInfo InfoFromRows(const FamilyRow& f, const SizeRow& s) {
  AwsInstanceTypeInfo info;
  info.name = internal::StrCat(f.name, ".", s.size);
  info.vcpus = s.vcpus;
  info.memory_mib = s.memory_mib;
  info.architectures = {f.arch == TableArch::kArm ? "arm64" : "x86_64"};
  info.cpu_manufacturer = f.cpu_manufacturer;
  info.sustained_clock_speed_mhz = s.clock_mhz != 0 ? s.clock_mhz : f.clock_mhz;
  info.hypervisor = std::string_view(s.size).substr(0, 5) == "metal" ? "" : f.hypervisor;
  info.encryption_in_transit_supported = f.encryption_in_transit;
  if (s.ebs_mbps > 0) info.ebs_bandwidth_mbps = s.ebs_mbps;
  if (s.network_mbps > 0) info.network_bandwidth_mbps = s.network_mbps;
  if (s.nvme_gb > 0) info.local_nvme_gb = s.nvme_gb;
  if (s.devices > 0) {
    if (f.device == DeviceKind::kGpu) {
      info.gpus.push_back({f.device_name, f.device_manufacturer, s.devices, f.device_memory_mib});
    } else if (f.device == DeviceKind::kNeuron) {
      info.neuron_devices.push_back({f.device_name, s.devices, f.neuron_cores});
    }
  }
  info.max_network_interfaces = s.enis;
  info.ipv4_addresses_per_interface = s.ipv4_per_eni;
  info.trunking_compatible = s.pod_enis > 0;
  info.branch_interfaces = s.pod_enis;
  info.efa_max_interfaces = s.efa;
  return info;
}

struct EmbeddedTable {
  std::vector<AwsInstanceTypeInfo> infos;
  std::vector<double> prices;                                // parallel to infos
  std::vector<std::pair<std::string_view, double>> by_name;  // sorted; views into infos
};

const EmbeddedTable& Table() {
  static const EmbeddedTable* const table = [] {
    auto* t = new EmbeddedTable;
    t->infos.reserve(std::size(kSizes));
    size_t row = 0;
    for (const FamilyRow& f : kFamilies) {
      for (int i = 0; i < f.sizes; ++i, ++row) {
        t->infos.push_back(InfoFromRows(f, kSizes[row]));
        t->prices.push_back(kSizes[row].price);
      }
    }
    t->by_name.reserve(t->infos.size());
    for (size_t i = 0; i < t->infos.size(); ++i) {
      t->by_name.emplace_back(t->infos[i].name, t->prices[i]);
    }
    std::sort(t->by_name.begin(), t->by_name.end());
    return t;
  }();
  return *table;
}

// ---------------------------------------------------------------------------------------------
// Conversion helpers.

bool IsWindows(AwsAmiFamily family) {
  return family == AwsAmiFamily::kWindows2019 || family == AwsAmiFamily::kWindows2022 ||
         family == AwsAmiFamily::kWindows2025;
}

std::string_view WindowsBuild(AwsAmiFamily family) {
  switch (family) {
    case AwsAmiFamily::kWindows2019:
      return "10.0.17763";
    case AwsAmiFamily::kWindows2022:
      return "10.0.20348";
    case AwsAmiFamily::kWindows2025:
      return "10.0.26100";
    default:
      return "";
  }
}

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

// aws-provider.md §1.5: U x (IPv4 per ENI - 1) + 2, with U = usable ENIs of the default card;
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

absl::Status OptionsError(std::string_view message) {
  return absl::InvalidArgumentError(internal::StrCat("aws catalog options: ", message));
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

// ---------------------------------------------------------------------------------------------

std::string_view AwsAmiFamilyName(AwsAmiFamily family) {
  switch (family) {
    case AwsAmiFamily::kAl2023:
      return "AL2023";
    case AwsAmiFamily::kAl2:
      return "AL2";
    case AwsAmiFamily::kBottlerocket:
      return "Bottlerocket";
    case AwsAmiFamily::kCustom:
      return "Custom";
    case AwsAmiFamily::kWindows2019:
      return "Windows2019";
    case AwsAmiFamily::kWindows2022:
      return "Windows2022";
    case AwsAmiFamily::kWindows2025:
      return "Windows2025";
  }
  return "";
}

absl::StatusOr<AwsAmiFamily> ParseAwsAmiFamily(std::string_view text) {
  for (AwsAmiFamily f : {AwsAmiFamily::kAl2023, AwsAmiFamily::kAl2, AwsAmiFamily::kBottlerocket,
                         AwsAmiFamily::kCustom, AwsAmiFamily::kWindows2019,
                         AwsAmiFamily::kWindows2022, AwsAmiFamily::kWindows2025}) {
    if (AwsAmiFamilyName(f) == text) return f;
  }
  return absl::InvalidArgumentError(internal::StrCat(
      "unknown AMI family \"", text,
      "\" (want AL2023, AL2, Bottlerocket, Custom, Windows2019, Windows2022 or Windows2025)"));
}

absl::Status AwsCatalogOptions::Validate() const {
  if (region.empty()) return OptionsError("region is empty");
  for (size_t i = 0; i < zones.size(); ++i) {
    if (zones[i].empty()) return OptionsError(internal::StrCat("zones[", i, "] is empty"));
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
      return OptionsError(internal::StrCat("eviction_hard[\"", signal, "\"]: ",
                                           std::string_view(v.status().message().data(),
                                                            v.status().message().size())));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> AwsCatalogOptions::ResolvedZones() const {
  if (!zones.empty()) return zones;
  return {region + "a", region + "b", region + "c"};
}

namespace {

// MakeAwsInstanceType once `options` are known to be valid.
absl::StatusOr<InstanceType> MakeWithValidOptions(const AwsInstanceTypeInfo& info,
                                                  std::optional<double> on_demand_price,
                                                  const AwsCatalogOptions& options) {
  if (absl::Status s = ValidateInfo(info, on_demand_price); !s.ok()) return s;

  const bool windows = IsWindows(options.ami_family);
  const std::string_view arch = KubeArch(info.architectures);
  const size_t dot = info.name.find('.');
  const std::string family = info.name.substr(0, dot);

  // ---- Labels (§1.2) and DoesNotExist for the optional ones a type lacks.
  std::map<std::string, std::string> labels;
  Requirements extra;
  labels[std::string(kLabelArch)] = std::string(arch);
  labels[std::string(kLabelRegion)] = options.region;
  if (!windows) {
    labels[std::string(kLabelOs)] = "linux";
  } else if (arch == kArchAmd64) {
    labels[std::string(kLabelOs)] = "windows";
    labels[std::string(kLabelWindowsBuild)] = std::string(WindowsBuild(options.ami_family));
  } else {
    extra.Add(Requirement::In(kLabelOs, {}));  // Windows AMIs run on amd64 only
  }
  auto set = [&labels](std::string_view key, std::string value) {
    labels[std::string(key)] = std::move(value);
  };
  set(kAwsLabelInstanceCpu, internal::StrCat(info.vcpus));
  set(kAwsLabelInstanceMemory, internal::StrCat(info.memory_mib));
  if (!info.cpu_manufacturer.empty()) {
    set(kAwsLabelInstanceCpuManufacturer, LowerKebab(info.cpu_manufacturer));
  }
  if (info.sustained_clock_speed_mhz.has_value()) {
    set(kAwsLabelInstanceCpuSustainedClockSpeedMhz,
        internal::StrCat(*info.sustained_clock_speed_mhz));
  }
  std::string category, generation;
  if (ParseCategoryGeneration(info.name, &category, &generation)) {
    set(kAwsLabelInstanceCategory, std::move(category));
    set(kAwsLabelInstanceGeneration, std::move(generation));
  }
  if (dot != std::string::npos && info.name.find('.', dot + 1) == std::string::npos) {
    set(kAwsLabelInstanceFamily, family);
    set(kAwsLabelInstanceSize, info.name.substr(dot + 1));
  }
  set(kAwsLabelInstanceCapabilityFlex,
      family.find("-flex") != std::string::npos ? "true" : "false");
  set(kAwsLabelInstanceHypervisor, info.hypervisor);
  set(kAwsLabelInstanceEncryptionInTransitSupported,
      info.encryption_in_transit_supported ? "true" : "false");
  if (info.ebs_bandwidth_mbps.has_value()) {
    set(kAwsLabelInstanceEbsBandwidth, internal::StrCat(*info.ebs_bandwidth_mbps));
  }
  if (info.network_bandwidth_mbps.has_value()) {
    set(kAwsLabelInstanceNetworkBandwidth, internal::StrCat(*info.network_bandwidth_mbps));
  }
  if (info.local_nvme_gb.has_value()) {
    set(kAwsLabelInstanceLocalNvme, internal::StrCat(*info.local_nvme_gb));
  }
  if (info.gpus.size() == 1) {
    const AwsGpuInfo& g = info.gpus.front();
    set(kAwsLabelInstanceGpuName, LowerKebab(g.name));
    set(kAwsLabelInstanceGpuManufacturer, LowerKebab(g.manufacturer));
    set(kAwsLabelInstanceGpuCount, internal::StrCat(g.count));
    set(kAwsLabelInstanceGpuMemory, internal::StrCat(g.memory_mib));
  }
  if (info.neuron_devices.empty() && info.inference_accelerators.size() == 1) {
    const AwsAcceleratorInfo& a = info.inference_accelerators.front();
    set(kAwsLabelInstanceAcceleratorName, LowerKebab(a.name));
    set(kAwsLabelInstanceAcceleratorManufacturer, LowerKebab(a.manufacturer));
    set(kAwsLabelInstanceAcceleratorCount, internal::StrCat(a.count));
  } else if (info.neuron_devices.size() == 1) {
    const AwsNeuronDeviceInfo& n = info.neuron_devices.front();
    set(kAwsLabelInstanceAcceleratorName, LowerKebab(n.name));
    set(kAwsLabelInstanceAcceleratorManufacturer, "aws");
    set(kAwsLabelInstanceAcceleratorCount, internal::StrCat(n.count));
  }
  for (std::string_view key : kOptionalLabels) {
    if (labels.find(std::string(key)) == labels.end()) extra.Add(Requirement::DoesNotExist(key));
  }

  // ---- Capacity (§1.3, §1.5).
  ResourceList capacity;
  const int64_t cpu_millis = int64_t{info.vcpus} * 1000;
  capacity.Set(kResourceCpu, cpu_millis);

  int64_t memory_mib = info.memory_mib;
  if (!info.architectures.empty() && info.architectures.front() == "arm64") {
    memory_mib -= kArm64CmaMib;
  }
  memory_mib -= static_cast<int64_t>(
      std::ceil(static_cast<double>(memory_mib) * options.vm_memory_overhead_percent));
  if (memory_mib <= 0) {
    return InfoError(info, internal::StrCat("memory_mib ", info.memory_mib,
                                            " leaves no memory after the VM overhead"));
  }
  capacity.Set(kResourceMemory, memory_mib * kMi);

  int64_t ephemeral_bytes = windows ? kWindowsEphemeralBytes : kDefaultEphemeralBytes;
  if (options.instance_store_raid0 && info.local_nvme_gb.value_or(0) > 0) {
    ephemeral_bytes = *info.local_nvme_gb * 1000 * 1000 * 1000;
  } else if (options.ephemeral_volume_bytes.has_value()) {
    ephemeral_bytes = *options.ephemeral_volume_bytes;
  }
  capacity.Set(kResourceEphemeralStorage, ephemeral_bytes);

  int64_t pods = 0;
  if (options.max_pods.has_value()) {
    pods = *options.max_pods;
  } else if (!windows) {
    pods = EniLimitedPods(info, options.reserved_enis);
  } else {
    pods = kWindowsMaxPods;
  }
  if (options.pods_per_core.value_or(0) > 0 && options.ami_family != AwsAmiFamily::kBottlerocket) {
    pods = std::min(pods, int64_t{*options.pods_per_core} * info.vcpus);
  }
  capacity.Set(kResourcePods, pods);

  auto set_positive = [&capacity](std::string_view resource, int64_t value) {
    if (value > 0) capacity.Set(resource, value);
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

  // ---- Overhead (§1.4).
  Overhead overhead;
  const bool eni_limited_memory = options.ami_family == AwsAmiFamily::kAl2023 ||
                                  options.ami_family == AwsAmiFamily::kAl2 ||
                                  options.ami_family == AwsAmiFamily::kCustom;
  const int64_t reserved_for_pods = eni_limited_memory ? EniLimitedPods(info, 0) : pods;
  overhead.kube_reserved.Set(kResourceCpu, KubeReservedCpuMillis(cpu_millis));
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
          std::ceil(static_cast<double>(ephemeral_bytes) / 100 * kEvictionNodefsPercent)));
  // evictionHard overrides (validated by AwsCatalogOptions::Validate).
  if (auto it = options.eviction_hard.find("memory.available"); it != options.eviction_hard.end()) {
    absl::StatusOr<int64_t> v =
        EvictionThreshold(it->second, capacity.Get(kResourceMemory), kResourceMemory);
    if (!v.ok()) return v.status();
    overhead.eviction_threshold.Set(kResourceMemory, *v);
  }
  if (auto it = options.eviction_hard.find("nodefs.available"); it != options.eviction_hard.end()) {
    absl::StatusOr<int64_t> v =
        EvictionThreshold(it->second, ephemeral_bytes, kResourceEphemeralStorage);
    if (!v.ok()) return v.status();
    overhead.eviction_threshold.Set(kResourceEphemeralStorage, *v);
  }

  // ---- Offerings (§1.7, §2): every zone x capacity type the type supports.
  const bool excluded = options.ami_family == AwsAmiFamily::kAl2023 && family == "a1";
  std::vector<Offering> offerings;
  for (const std::string& zone : options.ResolvedZones()) {
    const bool offered = info.offered_zones.empty() || Contains(info.offered_zones, zone);
    for (const std::string& capacity_type : options.capacity_types) {
      if (!Contains(info.usage_classes, capacity_type)) continue;
      // A missing price leaves the offering unavailable at price 0.
      bool has_price = on_demand_price.has_value();
      double price = on_demand_price.value_or(0);
      if (capacity_type == kCapacityTypeSpot && options.spot_prices.has_value()) {
        has_price = false;
        price = 0;
        auto by_type = options.spot_prices->find(info.name);
        if (by_type != options.spot_prices->end()) {
          auto by_zone = by_type->second.find(zone);
          if (by_zone != by_type->second.end()) {
            has_price = true;
            price = by_zone->second;
          }
        }
      }
      Offering o;
      o.zone = zone;
      o.capacity_type = capacity_type;
      o.price = price;
      o.available = has_price && offered && !excluded;
      offerings.push_back(std::move(o));
    }
  }

  InstanceType it = InstanceType::Make(info.name, std::move(labels), std::move(capacity),
                                       std::move(overhead), std::move(offerings));
  it.RebuildRequirements(extra);
  return it;
}

}  // namespace

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
        kAwsLabelInstanceCapabilityFlex,  kAwsLabelInstanceCpu,
        kAwsLabelInstanceMemory,          kAwsLabelInstanceHypervisor,
        kAwsLabelInstanceEncryptionInTransitSupported, kAwsLabelTopologyZoneId,
    };
    for (std::string_view key : kOptionalLabels) set->Insert(key);
    return set;
  }();
  return *labels;
}

const std::vector<AwsInstanceTypeInfo>& EmbeddedAwsInstanceTypeInfos() { return Table().infos; }

std::optional<double> EmbeddedAwsOnDemandPrice(std::string_view instance_type) {
  const auto& by_name = Table().by_name;
  auto it = std::lower_bound(
      by_name.begin(), by_name.end(), instance_type,
      [](const std::pair<std::string_view, double>& e, std::string_view n) { return e.first < n; });
  if (it == by_name.end() || it->first != instance_type) return std::nullopt;
  return it->second;
}

absl::StatusOr<InstanceCatalog> EmbeddedAwsCatalog(const AwsCatalogOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  const EmbeddedTable& table = Table();
  std::vector<InstanceType> types;
  types.reserve(table.infos.size());
  for (size_t i = 0; i < table.infos.size(); ++i) {
    absl::StatusOr<InstanceType> it =
        MakeWithValidOptions(table.infos[i], table.prices[i], options);
    if (!it.ok()) return it.status();
    types.push_back(*std::move(it));
  }
  return InstanceCatalog::Create(std::move(types), AwsWellKnownLabels());
}

}  // namespace karp
