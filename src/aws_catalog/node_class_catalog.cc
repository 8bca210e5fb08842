// Node classes and the instance types of each NodePool (karp/node_class_catalog.h), after the
// reference provider's NewInstanceType (aws/karpenter-provider-aws v1.14
// pkg/providers/instancetype/types.go) and EC2NodeClass (pkg/apis/v1/ec2nodeclass.go).

#include "karp/node_class_catalog.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "internal/strings.h"
#include "karp/resources.h"

namespace karp {
namespace {

using internal::StrCat;

// The alias families of the CRD (`family@version`, family in lower case) and their AMI family.
struct AliasFamily {
  std::string_view alias;
  AwsAmiFamily family;
};
constexpr AliasFamily kAliasFamilies[] = {
    {"al2", AwsAmiFamily::kAl2},
    {"al2023", AwsAmiFamily::kAl2023},
    {"bottlerocket", AwsAmiFamily::kBottlerocket},
    {"windows2019", AwsAmiFamily::kWindows2019},
    {"windows2022", AwsAmiFamily::kWindows2022},
    {"windows2025", AwsAmiFamily::kWindows2025},
};
constexpr size_t kMaxAliasLength = 30;  // the CRD's MaxLength

constexpr std::string_view kReservedKeys[] = {"cpu", "memory", "ephemeral-storage", "pid"};
constexpr std::string_view kEvictionSignals[] = {"memory.available",   "nodefs.available",
                                                 "nodefs.inodesFree",  "imagefs.available",
                                                 "imagefs.inodesFree", "pid.available"};

bool IsWindows(AwsAmiFamily f) {
  return f == AwsAmiFamily::kWindows2019 || f == AwsAmiFamily::kWindows2022 ||
         f == AwsAmiFamily::kWindows2025;
}

template <size_t N>
bool OneOf(const std::string_view (&values)[N], std::string_view v) {
  return std::find(std::begin(values), std::end(values), v) != std::end(values);
}

absl::Status FieldError(std::string_view path, std::string_view what) {
  return absl::InvalidArgumentError(StrCat(path, ": ", what));
}

std::string_view MessageOf(const absl::Status& s) {
  return std::string_view(s.message().data(), s.message().size());
}

}  // namespace

std::optional<AwsAmiFamily> AwsAmiFamilyOfAliasPrefix(std::string_view family) {
  for (const AliasFamily& f : kAliasFamilies) {
    if (f.alias == family) return f.family;
  }
  return std::nullopt;
}

absl::StatusOr<AwsAmiFamily> AwsAmiFamilyOfAlias(std::string_view alias) {
  const size_t at = alias.find('@');
  bool well_formed = at != std::string_view::npos && at > 0 && at + 1 < alias.size();
  for (size_t i = 0; well_formed && i < at; ++i) {
    const char c = alias[i];
    well_formed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }
  if (!well_formed) {
    return absl::InvalidArgumentError(
        StrCat("\"", alias, "\" is improperly formatted, must match the format 'family@version'"));
  }
  if (alias.size() > kMaxAliasLength) {
    return absl::InvalidArgumentError(
        StrCat("\"", alias, "\" is longer than ", kMaxAliasLength, " characters"));
  }
  const std::string_view family = alias.substr(0, at);
  if (std::optional<AwsAmiFamily> f = AwsAmiFamilyOfAliasPrefix(family)) {
    if (IsWindows(*f) && alias.substr(at + 1) != "latest") {
      return absl::InvalidArgumentError(
          StrCat("\"", alias, "\": windows families may only specify version 'latest'"));
    }
    return *f;
  }
  return absl::InvalidArgumentError(
      StrCat("family \"", family, "\" of \"", alias,
             "\" is not supported (want al2, al2023, bottlerocket, windows2019, windows2022 or "
             "windows2025)"));
}

namespace {

// The resource a reserved key or an eviction signal is measured in (pid and inodes: counts).
std::string_view ResourceOfKey(std::string_view key) {
  if (key == "cpu") return kResourceCpu;
  if (key == "memory" || key == "memory.available") return kResourceMemory;
  if (key == "ephemeral-storage" || key == "nodefs.available" || key == "imagefs.available") {
    return kResourceEphemeralStorage;
  }
  return kResourcePods;
}

absl::Status CheckReserved(const std::map<std::string, std::string>& m, std::string_view path) {
  for (const auto& [key, value] : m) {
    const std::string p = StrCat(path, ".", key);
    if (!OneOf(kReservedKeys, key)) {
      return FieldError(p, "unsupported key (want cpu, memory, ephemeral-storage or pid)");
    }
    if (absl::StatusOr<int64_t> q = ParseQuantity(value, ResourceOfKey(key)); !q.ok()) {
      return FieldError(p, MessageOf(q.status()));
    }
  }
  return absl::OkStatus();
}

// A percentage "p%" with p a decimal number in [0, 100], or nullopt when `text` is not one.
std::optional<double> Percentage(std::string_view text) {
  if (text.empty() || text.back() != '%') return std::nullopt;
  const std::string_view number = text.substr(0, text.size() - 1);
  bool ok = !number.empty() && number != ".";
  bool dot = false;
  for (char c : number) {
    if (c == '.' && !dot) {
      dot = true;
    } else if (c < '0' || c > '9') {
      ok = false;
    }
  }
  const double p = ok ? std::strtod(std::string(number).c_str(), nullptr) : -1;
  if (!(p >= 0 && p <= 100)) return std::nullopt;
  return p;
}

absl::Status CheckEviction(const std::map<std::string, std::string>& m, std::string_view path) {
  for (const auto& [signal, value] : m) {
    const std::string p = StrCat(path, ".", signal);
    if (!OneOf(kEvictionSignals, signal)) {
      return FieldError(p,
                        "unsupported eviction signal (want memory.available, nodefs.available, "
                        "nodefs.inodesFree, imagefs.available, imagefs.inodesFree or "
                        "pid.available)");
    }
    if (!value.empty() && value.back() == '%') {
      if (!Percentage(value)) {
        return FieldError(p, StrCat("invalid percentage \"", value,
                                    "\": expected a number in [0, 100] followed by %"));
      }
    } else if (absl::StatusOr<int64_t> q = ParseQuantity(value, ResourceOfKey(signal)); !q.ok()) {
      return FieldError(p, MessageOf(q.status()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckKubelet(const NodeClassKubelet& k) {
  if (k.max_pods.value_or(0) < 0) {
    return FieldError("spec.kubelet.maxPods", StrCat("must be >= 0, got ", *k.max_pods));
  }
  if (k.pods_per_core.value_or(0) < 0) {
    return FieldError("spec.kubelet.podsPerCore", StrCat("must be >= 0, got ", *k.pods_per_core));
  }
  if (absl::Status s = CheckReserved(k.kube_reserved, "spec.kubelet.kubeReserved"); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckReserved(k.system_reserved, "spec.kubelet.systemReserved"); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckEviction(k.eviction_hard, "spec.kubelet.evictionHard"); !s.ok()) {
    return s;
  }
  return CheckEviction(k.eviction_soft, "spec.kubelet.evictionSoft");
}

absl::Status CheckBlockDeviceMappings(const std::vector<NodeClassBlockDeviceMapping>& mappings) {
  bool root = false;
  for (size_t i = 0; i < mappings.size(); ++i) {
    const NodeClassBlockDeviceMapping& m = mappings[i];
    const std::string p = StrCat("spec.blockDeviceMappings[", i, "]");
    if (m.root_volume && root) {
      return FieldError(StrCat(p, ".rootVolume"),
                        "must have only one blockDeviceMappings with rootVolume");
    }
    root = root || m.root_volume;
    if (m.volume_size.has_value() && *m.volume_size <= 0) {
      return FieldError(
          StrCat(p, ".ebs.volumeSize"),
          StrCat("must be > 0, got ", FormatQuantity(*m.volume_size, kResourceStorage)));
    }
  }
  return absl::OkStatus();
}

// The AMI family's ephemeral block device (the reference's EphemeralBlockDevice(); Custom has
// none).
std::string_view EphemeralDevice(AwsAmiFamily family) {
  if (family == AwsAmiFamily::kBottlerocket) return "/dev/xvdb";
  if (IsWindows(family)) return "/dev/sda1";
  return "/dev/xvda";
}

// The pid entries are left out: pid is not a resource karp schedules (and no capacity has it,
// so the reference's overhead entry for it never changes allocatable either).
void AddReserved(const std::map<std::string, std::string>& m, ResourceList* out) {
  for (const auto& [key, text] : m) {
    if (key == "pid") continue;
    if (absl::StatusOr<int64_t> q = ParseQuantity(text, key); q.ok()) out->Set(key, *q);
  }
}

}  // namespace

absl::Status ValidateNodeClass(const NodeClass& node_class) {
  std::optional<AwsAmiFamily> family;
  if (!node_class.ami_family.empty()) {
    absl::StatusOr<AwsAmiFamily> f = ParseAwsAmiFamily(node_class.ami_family);
    if (!f.ok()) return FieldError("spec.amiFamily", MessageOf(f.status()));
    family = *f;
  }
  if (!node_class.ami_alias.empty()) {
    absl::StatusOr<AwsAmiFamily> a = AwsAmiFamilyOfAlias(node_class.ami_alias);
    if (!a.ok()) return FieldError("spec.amiSelectorTerms.alias", MessageOf(a.status()));
    if (family.has_value() && *family != *a && *family != AwsAmiFamily::kCustom) {
      return FieldError("spec.amiFamily",
                        StrCat("\"", node_class.ami_family, "\" must be \"", AwsAmiFamilyName(*a),
                               "\" or \"Custom\" with the alias \"", node_class.ami_alias, "\""));
    }
  }
  if (absl::Status s = CheckKubelet(node_class.kubelet); !s.ok()) return s;
  if (absl::Status s = CheckBlockDeviceMappings(node_class.block_device_mappings); !s.ok()) {
    return s;
  }
  if (!node_class.instance_store_policy.empty() && node_class.instance_store_policy != "RAID0") {
    return FieldError(
        "spec.instanceStorePolicy",
        StrCat("unsupported value \"", node_class.instance_store_policy, "\" (want RAID0)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<AwsAmiFamily> NodeClassAmiFamily(const NodeClass& node_class) {
  if (!node_class.ami_family.empty()) {
    absl::StatusOr<AwsAmiFamily> f = ParseAwsAmiFamily(node_class.ami_family);
    if (!f.ok()) return FieldError("spec.amiFamily", MessageOf(f.status()));
    return *f;
  }
  if (!node_class.ami_alias.empty()) {
    absl::StatusOr<AwsAmiFamily> a = AwsAmiFamilyOfAlias(node_class.ami_alias);
    if (!a.ok()) return FieldError("spec.amiSelectorTerms.alias", MessageOf(a.status()));
    return *a;
  }
  return AwsAmiFamily::kCustom;  // the reference's fallback (its CRD requires one of the two)
}

std::optional<int64_t> NodeClassEphemeralVolumeBytes(const NodeClass& node_class,
                                                     AwsAmiFamily family) {
  const std::vector<NodeClassBlockDeviceMapping>& mappings = node_class.block_device_mappings;
  if (mappings.empty()) return std::nullopt;
  for (const NodeClassBlockDeviceMapping& m : mappings) {
    // A root volume without a size does not stop the search (the reference's lo.Find, then
    // `ok && VolumeSize != nil`).
    if (m.root_volume && m.volume_size.has_value()) return m.volume_size;
  }
  // "We can't know if a custom AMI is going to have a volume size": the last mapping's.
  if (family == AwsAmiFamily::kCustom) return mappings.back().volume_size;
  const std::string_view device = EphemeralDevice(family);
  for (const NodeClassBlockDeviceMapping& m : mappings) {
    if (m.device_name == device) return m.volume_size;  // the first one on the device
  }
  return std::nullopt;
}

absl::StatusOr<AwsCatalogOptions> AwsCatalogOptionsForNodeClass(const NodeClass& node_class,
                                                                AwsCatalogOptions base) {
  auto named = [&node_class](const absl::Status& s) {
    return absl::InvalidArgumentError(
        StrCat("ec2nodeclass \"", node_class.metadata.name, "\": ", MessageOf(s)));
  };
  if (absl::Status s = ValidateNodeClass(node_class); !s.ok()) return named(s);
  absl::StatusOr<AwsAmiFamily> family = NodeClassAmiFamily(node_class);
  if (!family.ok()) return named(family.status());
  const NodeClassKubelet& k = node_class.kubelet;
  base.ami_family = *family;
  if (k.max_pods.has_value()) base.max_pods = *k.max_pods;
  if (k.pods_per_core.has_value()) base.pods_per_core = *k.pods_per_core;
  AddReserved(k.kube_reserved, &base.kube_reserved);
  AddReserved(k.system_reserved, &base.system_reserved);
  for (const auto& [signal, text] : k.eviction_hard) base.eviction_hard[signal] = text;
  // evictionSoft is checked above but, as in the reference since aws/karpenter-provider-aws
  // #8565, does not reduce allocatable: only evictionHard is a hard reservation.
  if (std::optional<int64_t> bytes = NodeClassEphemeralVolumeBytes(node_class, *family)) {
    base.ephemeral_volume_bytes = *bytes;
  }
  if (node_class.instance_store_policy == "RAID0") base.instance_store_raid0 = true;
  if (absl::Status s = base.Validate(); !s.ok()) return named(s);
  return base;
}

// ---------------------------------------------------------------------------------------------
// Catalogs

namespace {

// The embedded table's types by name (sorted views into EmbeddedAwsInstanceTypeInfos()).
const std::vector<std::pair<std::string_view, const AwsInstanceTypeInfo*>>& EmbeddedByName() {
  static const auto* const index = [] {
    auto* out = new std::vector<std::pair<std::string_view, const AwsInstanceTypeInfo*>>;
    for (const AwsInstanceTypeInfo& info : EmbeddedAwsInstanceTypeInfos()) {
      out->emplace_back(info.name, &info);
    }
    std::sort(out->begin(), out->end());
    return out;
  }();
  return *index;
}

const AwsInstanceTypeInfo* EmbeddedInfo(std::string_view name) {
  const auto& index = EmbeddedByName();
  auto it = std::lower_bound(index.begin(), index.end(), name,
                             [](const std::pair<std::string_view, const AwsInstanceTypeInfo*>& e,
                                std::string_view n) { return e.first < n; });
  return it == index.end() || it->first != name ? nullptr : it->second;
}

// An eviction threshold against `capacity`: a quantity, or a percentage rounded up ("100%"
// disables it: 0), as the reference's computeEvictionSignal.
int64_t EvictionThreshold(const std::string& text, int64_t capacity, std::string_view resource) {
  if (std::optional<double> p = Percentage(text)) {
    if (*p == 100) return 0;
    return static_cast<int64_t>(std::ceil(static_cast<double>(capacity) / 100 * *p));
  }
  absl::StatusOr<int64_t> q = ParseQuantity(text, resource);
  return q.ok() ? *q : 0;  // validated by AwsCatalogOptions::Validate
}

// What applies to a type without EC2 facts (NodePoolCatalogOptions::embedded unset).
void ApplyGenerically(const AwsCatalogOptions& o, InstanceType* it) {
  if (o.max_pods.has_value()) it->capacity.Set(kResourcePods, *o.max_pods);
  if (o.pods_per_core.value_or(0) > 0 && o.ami_family != AwsAmiFamily::kBottlerocket) {
    const int64_t cores = it->capacity.Get(kResourceCpu) / 1000;
    const int64_t cap = int64_t{*o.pods_per_core} * cores;
    if (it->capacity.Get(kResourcePods) > cap) it->capacity.Set(kResourcePods, cap);
  }
  o.kube_reserved.ForEach(
      [it](std::string_view name, int64_t v) { it->overhead.kube_reserved.Set(name, v); });
  o.system_reserved.ForEach(
      [it](std::string_view name, int64_t v) { it->overhead.system_reserved.Set(name, v); });
  if (auto e = o.eviction_hard.find("memory.available"); e != o.eviction_hard.end()) {
    it->overhead.eviction_threshold.Set(
        kResourceMemory,
        EvictionThreshold(e->second, it->capacity.Get(kResourceMemory), kResourceMemory));
  }
  if (auto e = o.eviction_hard.find("nodefs.available"); e != o.eviction_hard.end()) {
    it->overhead.eviction_threshold.Set(
        kResourceEphemeralStorage,
        EvictionThreshold(e->second, it->capacity.Get(kResourceEphemeralStorage),
                          kResourceEphemeralStorage));
  }
}

// One type of `base` under the class options `o`.
absl::StatusOr<InstanceType> RebuildType(const InstanceType& base, const AwsCatalogOptions& o,
                                         bool embedded) {
  const AwsInstanceTypeInfo* info = EmbeddedInfo(base.name);
  if (info == nullptr) {
    InstanceType out = base;
    ApplyGenerically(o, &out);
    return out;
  }
  const std::optional<double> price =
      embedded ? EmbeddedAwsOnDemandPrice(info->name, o.region) : std::nullopt;
  absl::StatusOr<InstanceType> rebuilt = MakeAwsInstanceType(*info, price, o);
  if (!rebuilt.ok()) return rebuilt.status();
  if (!embedded) {
    InstanceType out = base;
    out.capacity = std::move(rebuilt->capacity);
    out.overhead = std::move(rebuilt->overhead);
    return out;
  }
  // The reserved offerings WithCapacityReservations added to the base type.
  bool reserved = false;
  for (const Offering& offering : base.offerings) {
    if (offering.reservation_id.empty()) continue;
    rebuilt->offerings.push_back(offering);
    reserved = true;
  }
  if (reserved) rebuilt->RebuildRequirements();
  return rebuilt;
}

// The settings a class can change, as one comparable text (classes with equal keys build equal
// catalogs from the same base).
std::string SettingsKey(const AwsCatalogOptions& o) {
  std::string key =
      StrCat(AwsAmiFamilyName(o.ami_family), "|", o.max_pods ? StrCat(*o.max_pods) : "-", "|",
             o.pods_per_core ? StrCat(*o.pods_per_core) : "-", "|",
             o.ephemeral_volume_bytes ? StrCat(*o.ephemeral_volume_bytes) : "-", "|",
             o.instance_store_raid0 ? "raid0" : "-", "|", o.kube_reserved.ToString(), "|",
             o.system_reserved.ToString());
  for (const auto& [signal, text] : o.eviction_hard) {
    internal::StrAppend(&key, "|", signal, "=", text);
  }
  return key;
}

bool RefersToEc2NodeClass(const NodeClassRef& ref) {
  return !ref.name.empty() && ref.kind == kNodeClassKind &&
         (ref.group.empty() || ref.group == kNodeClassGroup);
}

}  // namespace

absl::StatusOr<InstanceCatalog> NodeClassCatalog(const InstanceCatalog& base,
                                                 const NodeClass& node_class,
                                                 const NodePoolCatalogOptions& options) {
  const bool embedded = options.embedded.has_value();
  absl::StatusOr<AwsCatalogOptions> o =
      AwsCatalogOptionsForNodeClass(node_class, embedded ? *options.embedded : AwsCatalogOptions{});
  if (!o.ok()) return o.status();
  std::vector<InstanceType> types;
  types.reserve(base.size());
  for (const InstanceType& it : base.instance_types()) {
    absl::StatusOr<InstanceType> rebuilt = RebuildType(it, *o, embedded);
    if (!rebuilt.ok()) {
      return absl::InvalidArgumentError(
          StrCat("ec2nodeclass \"", node_class.metadata.name, "\": ", MessageOf(rebuilt.status())));
    }
    types.push_back(*std::move(rebuilt));
  }
  // The base's label keys are registered already; a rebuilt type sets only AWS well-known ones.
  return InstanceCatalog::Create(std::move(types), base.well_known_labels(),
                                 /*register_label_keys=*/false);
}

std::shared_ptr<const InstanceCatalog> NodePoolCatalogs::Uniform() const {
  if (by_node_pool.empty()) return nullptr;
  const std::shared_ptr<const InstanceCatalog>& first = by_node_pool.begin()->second;
  for (const auto& [pool, catalog] : by_node_pool) {
    if (catalog != first) return nullptr;
  }
  return first;
}

absl::StatusOr<NodePoolCatalogs> CatalogsByNodePool(const ClusterSnapshot& snapshot,
                                                    std::shared_ptr<const InstanceCatalog> base,
                                                    const NodePoolCatalogOptions& options) {
  if (base == nullptr) return absl::InvalidArgumentError("node class catalogs: base is null");
  const AwsCatalogOptions base_options = options.embedded.value_or(AwsCatalogOptions{});
  const std::string base_key = SettingsKey(base_options);
  std::map<std::string, std::shared_ptr<const InstanceCatalog>> by_key = {{base_key, base}};
  std::map<std::string, std::shared_ptr<const InstanceCatalog>> by_class;
  for (const NodeClass& nc : snapshot.node_classes) {
    absl::StatusOr<AwsCatalogOptions> o = AwsCatalogOptionsForNodeClass(nc, base_options);
    if (!o.ok()) return o.status();
    std::shared_ptr<const InstanceCatalog>& shared = by_key[SettingsKey(*o)];
    if (shared == nullptr) {
      absl::StatusOr<InstanceCatalog> c = NodeClassCatalog(*base, nc, options);
      if (!c.ok()) return c.status();
      shared = std::make_shared<const InstanceCatalog>(*std::move(c));
    }
    by_class.emplace(nc.metadata.name, shared);  // names are unique in a read snapshot
  }
  NodePoolCatalogs out;
  for (const NodePool& np : snapshot.node_pools) {
    const NodeClassRef& ref = np.node_class_ref;
    std::shared_ptr<const InstanceCatalog> catalog = base;
    if (RefersToEc2NodeClass(ref)) {
      if (auto it = by_class.find(ref.name); it != by_class.end()) {
        catalog = it->second;
      } else {
        out.missing_classes[ref.name].push_back(np.name());
      }
    }
    out.by_node_pool.emplace(np.name(), std::move(catalog));
  }
  for (auto& [name, pools] : out.missing_classes) std::sort(pools.begin(), pools.end());
  if (options.node_overlays && !snapshot.node_overlays.empty()) {
    absl::StatusOr<NodeOverlayResult> overlaid =
        ApplyNodeOverlays(snapshot.node_pools, snapshot.node_overlays, out.by_node_pool);
    if (!overlaid.ok()) return overlaid.status();
    out.by_node_pool = std::move(overlaid->by_node_pool);
    out.overlays = std::move(overlaid->overlays);
  }
  return out;
}

}  // namespace karp
