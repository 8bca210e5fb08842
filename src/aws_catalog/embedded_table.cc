// The embedded AWS table (docs/aws.md §1): per family and size, the facts of every instance type
// and its on-demand price per region, generated into aws_table.inc by
// scripts/gen_aws_catalog.py, and the catalogs built from it.

#include "karp/aws_catalog.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
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

enum class TableArch : uint8_t { kX86, kArm };
constexpr TableArch kX86 = TableArch::kX86;
constexpr TableArch kArm = TableArch::kArm;

enum class DeviceKind : uint8_t { kNone, kGpu, kNeuron, kAccelerator };
constexpr DeviceKind kNoDevice = DeviceKind::kNone;
constexpr DeviceKind kGpu = DeviceKind::kGpu;
constexpr DeviceKind kNeuron = DeviceKind::kNeuron;
[[maybe_unused]] constexpr DeviceKind kAccelerator =
    DeviceKind::kAccelerator;  // other inference accelerators (no table row uses it yet)

// A region with embedded prices: one price column of kSizes.
struct RegionRow {
  const char* name;
  const char* currency;  // "USD", "CNY"
};

// Facts shared by every size of a family.
struct FamilyRow {
  const char* name;
  TableArch arch;
  const char* cpu_manufacturer;
  bool encryption_in_transit;
  const char* hypervisor;  // of the virtualized sizes; "metal*" sizes have ""
  DeviceKind device;
  const char* device_name;
  const char* device_manufacturer;
  int neuron_cores;  // per neuron device
  int sizes;         // number of consecutive rows in kSizes
};

// Facts of one size and its price per region. Zero means "none" for nvme_gb, network_mbps
// and ebs_mbps; -1 means unknown for clock_mhz and "no price in that region" for a price.
template <size_t kPriceColumns>
struct SizeRow {
  const char* size;
  int vcpus;
  int memory_mib;
  int enis;  // max ENIs of the default network card
  int ipv4_per_eni;
  int pod_enis;  // branch ENIs; 0 when not trunking-compatible
  int efa;
  int devices;            // GPUs, neuron devices or accelerators
  int device_memory_mib;  // per GPU
  int nvme_gb;
  int network_mbps;
  int ebs_mbps;
  int clock_mhz;
  double prices[kPriceColumns];  // per region of kRegions, per hour in its currency
};

#include "aws_catalog/aws_table.inc"

constexpr size_t TotalFamilySizes() {
  size_t total = 0;
  for (const FamilyRow& f : kFamilies) total += static_cast<size_t>(f.sizes);
  return total;
}
static_assert(TotalFamilySizes() == std::size(kSizes),
              "aws_table.inc: family size counts must add up to the number of size rows");
static_assert(kRegionCount > 0, "aws_table.inc: at least one region has prices");

AwsInstanceTypeInfo InfoFromRows(const FamilyRow& f, const SizeRow<kRegionCount>& s) {
  AwsInstanceTypeInfo info;
  const size_t family_length = std::char_traits<char>::length(f.name);
  const size_t size_length = std::char_traits<char>::length(s.size);
  info.name.reserve(family_length + 1 + size_length);
  info.name.append(f.name, family_length).append(1, '.').append(s.size, size_length);
  info.vcpus = s.vcpus;
  info.memory_mib = s.memory_mib;
  info.architectures = {f.arch == TableArch::kArm ? "arm64" : "x86_64"};
  info.cpu_manufacturer = f.cpu_manufacturer;
  if (s.clock_mhz >= 0) info.sustained_clock_speed_mhz = s.clock_mhz;
  info.hypervisor = std::string_view(s.size).substr(0, 5) == "metal" ? "" : f.hypervisor;
  info.encryption_in_transit_supported = f.encryption_in_transit;
  if (s.ebs_mbps > 0) info.ebs_bandwidth_mbps = s.ebs_mbps;
  if (s.network_mbps > 0) info.network_bandwidth_mbps = s.network_mbps;
  if (s.nvme_gb > 0) info.local_nvme_gb = s.nvme_gb;
  // A family's device model is listed even at count 0 (fractional GPUs such as g6f.large
  // carry the GPU labels with count 0, as the reference's page shows).
  switch (f.device) {
    case DeviceKind::kGpu:
      info.gpus.push_back({f.device_name, f.device_manufacturer, s.devices, s.device_memory_mib});
      break;
    case DeviceKind::kNeuron:
      info.neuron_devices.push_back({f.device_name, s.devices, f.neuron_cores});
      break;
    case DeviceKind::kAccelerator:
      info.inference_accelerators.push_back({f.device_name, f.device_manufacturer, s.devices});
      break;
    case DeviceKind::kNone:
      break;
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
  // prices[r][i]: price of infos[i] in kRegions[r]; unset when the type is not sold there.
  std::vector<std::vector<std::optional<double>>> prices;
  std::vector<std::pair<std::string_view, size_t>> by_name;  // sorted; views into infos
};

const EmbeddedTable& Table() {
  static const EmbeddedTable* const table = [] {
    auto* t = new EmbeddedTable;
    t->infos.reserve(std::size(kSizes));
    t->prices.assign(kRegionCount, {});
    for (auto& column : t->prices) column.reserve(std::size(kSizes));
    size_t row = 0;
    for (const FamilyRow& f : kFamilies) {
      for (int i = 0; i < f.sizes; ++i, ++row) {
        const SizeRow<kRegionCount>& s = kSizes[row];
        t->infos.push_back(InfoFromRows(f, s));
        for (size_t r = 0; r < kRegionCount; ++r) {
          t->prices[r].push_back(s.prices[r] >= 0 ? std::optional<double>(s.prices[r])
                                                  : std::nullopt);
        }
      }
    }
    t->by_name.reserve(t->infos.size());
    for (size_t i = 0; i < t->infos.size(); ++i) t->by_name.emplace_back(t->infos[i].name, i);
    std::sort(t->by_name.begin(), t->by_name.end());
    return t;
  }();
  return *table;
}

// Index of `region` in kRegions, or -1.
int RegionIndex(std::string_view region) {
  for (size_t r = 0; r < kRegionCount; ++r) {
    if (region == kRegions[r].name) return static_cast<int>(r);
  }
  return -1;
}

}  // namespace

const std::vector<AwsInstanceTypeInfo>& EmbeddedAwsInstanceTypeInfos() { return Table().infos; }

const std::vector<std::string>& EmbeddedAwsRegions() {
  static const std::vector<std::string>* const regions = [] {
    auto* out = new std::vector<std::string>;
    for (const RegionRow& r : kRegions) out->emplace_back(r.name);
    std::sort(out->begin(), out->end());
    return out;
  }();
  return *regions;
}

std::string_view EmbeddedAwsCurrency(std::string_view region) {
  const int r = RegionIndex(region);
  return r < 0 ? std::string_view() : kRegions[static_cast<size_t>(r)].currency;
}

std::optional<double> EmbeddedAwsOnDemandPrice(std::string_view instance_type,
                                               std::string_view region) {
  const int r = RegionIndex(region);
  if (r < 0) return std::nullopt;
  const EmbeddedTable& table = Table();
  auto it = std::lower_bound(
      table.by_name.begin(), table.by_name.end(), instance_type,
      [](const std::pair<std::string_view, size_t>& e, std::string_view n) { return e.first < n; });
  if (it == table.by_name.end() || it->first != instance_type) return std::nullopt;
  return table.prices[static_cast<size_t>(r)][it->second];
}

absl::StatusOr<InstanceCatalog> EmbeddedAwsCatalog(const AwsCatalogOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  const int region = RegionIndex(options.region);
  if (region < 0) {
    std::string known;
    for (const std::string& r : EmbeddedAwsRegions()) {
      internal::StrAppend(&known, known.empty() ? "" : ", ", r);
    }
    return aws_catalog_internal::OptionsError(internal::StrCat(
        "region \"", options.region, "\" has no embedded prices (known regions: ", known, ")"));
  }
  const EmbeddedTable& table = Table();
  const std::vector<std::optional<double>>& prices = table.prices[static_cast<size_t>(region)];
  std::vector<InstanceType> types;
  types.reserve(table.infos.size());
  for (size_t i = 0; i < table.infos.size(); ++i) {
    if (!prices[i].has_value()) continue;  // not sold in the region
    absl::StatusOr<InstanceType> it =
        aws_catalog_internal::MakeWithValidOptions(table.infos[i], prices[i], options);
    if (!it.ok()) return it.status();
    types.push_back(*std::move(it));
  }
  // Every label key MakeAwsInstanceType sets is core or AWS well-known already (a test checks
  // it), so registering each type's keys again would only cost lookups.
  return InstanceCatalog::Create(std::move(types), AwsWellKnownLabels(),
                                 /*register_label_keys=*/false);
}

}  // namespace karp
