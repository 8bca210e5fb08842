// EC2NodeClass: decoding from the documents of karp::json's document layer, validation with
// the reference CRD's rules, catalog options, the static hash and the tag set.

#include "karp/aws/ec2nodeclass.h"

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "aws/nodeclass_internal.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_util.h"
#include "json/document.h"
#include "json/field_reader.h"
#include "karp/node_class_catalog.h"
#include "karp/resources.h"

namespace karp::aws {

using internal::Message;
using internal::StrAppend;
using internal::StrCat;
using json::codec_internal::FieldReader;
using json::codec_internal::ForEachObject;
using json::codec_internal::IndexPath;
using json::codec_internal::JoinPath;
using json::codec_internal::KubernetesObject;
using json::codec_internal::PathError;
using json::codec_internal::WrongType;

// ---------------------------------------------------------------------------------------------
// Alias and AMI family

namespace {

bool IsWindows(AwsAmiFamily f) {
  return f == AwsAmiFamily::kWindows2019 || f == AwsAmiFamily::kWindows2022 ||
         f == AwsAmiFamily::kWindows2025;
}

}  // namespace

absl::StatusOr<AmiAlias> ParseAmiAlias(std::string_view text) {
  const size_t at = text.find('@');
  if (at == std::string_view::npos || at == 0 || at + 1 == text.size() ||
      text.find('@', at + 1) != std::string_view::npos) {
    return absl::InvalidArgumentError(
        StrCat("invalid alias \"", text, "\": expected <family>@<version>, e.g. al2023@latest"));
  }
  const std::string_view family = text.substr(0, at);
  const std::string_view version = text.substr(at + 1);
  const std::optional<AwsAmiFamily> found = AwsAmiFamilyOfAliasPrefix(family);
  if (!found) {
    return absl::InvalidArgumentError(
        StrCat("unknown AMI family \"", family, "\" in alias \"", text,
               "\" (want al2, al2023, bottlerocket, windows2019, windows2022 or windows2025)"));
  }
  for (char c : version) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_';
    if (!ok) {
      return absl::InvalidArgumentError(
          StrCat("invalid version \"", version, "\" in alias \"", text, "\""));
    }
  }
  if (IsWindows(*found) && version != "latest") {
    return absl::InvalidArgumentError(
        StrCat("alias \"", text, "\": Windows aliases support only the version \"latest\""));
  }
  return AmiAlias{*found, std::string(version)};
}

bool KubeletConfiguration::empty() const { return *this == KubeletConfiguration{}; }

bool operator==(const KubeletConfiguration& a, const KubeletConfiguration& b) {
  return a.max_pods == b.max_pods && a.pods_per_core == b.pods_per_core &&
         a.kube_reserved == b.kube_reserved && a.system_reserved == b.system_reserved &&
         a.eviction_hard == b.eviction_hard && a.eviction_soft == b.eviction_soft &&
         a.eviction_soft_grace_period == b.eviction_soft_grace_period &&
         a.eviction_max_pod_grace_period == b.eviction_max_pod_grace_period &&
         a.image_gc_high_threshold_percent == b.image_gc_high_threshold_percent &&
         a.image_gc_low_threshold_percent == b.image_gc_low_threshold_percent &&
         a.cpu_cfs_quota == b.cpu_cfs_quota && a.cluster_dns == b.cluster_dns;
}

bool operator==(const Ec2NodeClass& a, const Ec2NodeClass& b) {
  return a.metadata == b.metadata && a.subnet_selector_terms == b.subnet_selector_terms &&
         a.security_group_selector_terms == b.security_group_selector_terms &&
         a.ami_selector_terms == b.ami_selector_terms && a.ami_family == b.ami_family &&
         a.role == b.role && a.instance_profile == b.instance_profile &&
         a.user_data == b.user_data && a.tags == b.tags &&
         a.metadata_options == b.metadata_options &&
         a.block_device_mappings == b.block_device_mappings && a.kubelet == b.kubelet &&
         a.associate_public_ip_address == b.associate_public_ip_address &&
         a.detailed_monitoring == b.detailed_monitoring &&
         a.instance_store_policy == b.instance_store_policy;
}

std::optional<AmiAlias> Ec2NodeClass::Alias() const {
  for (const AmiSelectorTerm& t : ami_selector_terms) {
    if (t.alias.empty()) continue;
    absl::StatusOr<AmiAlias> a = ParseAmiAlias(t.alias);
    if (a.ok()) return *a;
  }
  return std::nullopt;
}

AwsAmiFamily Ec2NodeClass::ResolvedAmiFamily() const {
  if (ami_family.has_value()) return *ami_family;
  if (std::optional<AmiAlias> a = Alias()) return a->family;
  return AwsAmiFamily::kCustom;
}

// ---------------------------------------------------------------------------------------------
// Validation. Errors carry the field path relative to the object ("spec.tags.x: ...").

namespace {

constexpr size_t kMaxSelectorTerms = 30;
constexpr size_t kMaxBlockDeviceMappings = 50;
constexpr int64_t kMaxVolumeSize = int64_t{64} << 40;  // 64Ti

bool IsRestrictedTag(std::string_view key) {
  return key.rfind(kTagKeyClusterPrefix, 0) == 0 || key == kTagKeyNodePool ||
         key == kTagKeyNodeClaim || key == kTagKeyEc2NodeClass || key == kTagKeyEksClusterName;
}

absl::Status CheckSelectorTags(const std::map<std::string, std::string>& tags,
                               std::string_view path) {
  for (const auto& [k, v] : tags) {
    if (k.empty() || v.empty()) {
      return PathError(StrCat(path, ".", k), "empty tag keys or values are not supported");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckTermCount(size_t n, std::string_view path) {
  if (n == 0) return PathError(path, "required: at least one selector term");
  if (n > kMaxSelectorTerms) {
    return PathError(path, StrCat("at most ", kMaxSelectorTerms, " selector terms, got ", n));
  }
  return absl::OkStatus();
}

bool IsPercent(std::string_view v) { return !v.empty() && v.back() == '%'; }

absl::Status CheckPercent(std::string_view v, std::string_view path) {
  std::string_view n = v.substr(0, v.size() - 1);
  bool ok = !n.empty() && n != ".";
  bool dot = false;
  for (char c : n) {
    if (c == '.' && !dot) {
      dot = true;
    } else if (c < '0' || c > '9') {
      ok = false;
    }
  }
  if (ok && std::strtod(std::string(n).c_str(), nullptr) > 100) ok = false;
  if (!ok) return PathError(path, StrCat("invalid percentage \"", v, "\""));
  return absl::OkStatus();
}

const std::set<std::string, std::less<>>& ReservedKeys() {
  static const auto* const keys =
      new std::set<std::string, std::less<>>{"cpu", "memory", "ephemeral-storage", "pid"};
  return *keys;
}

const std::set<std::string, std::less<>>& EvictionSignals() {
  static const auto* const keys = new std::set<std::string, std::less<>>{
      "memory.available",  "nodefs.available",   "nodefs.inodesFree",
      "imagefs.available", "imagefs.inodesFree", "pid.available"};
  return *keys;
}

// The resource a reserved key or eviction signal is measured in.
std::string_view ResourceOfKey(std::string_view key) {
  if (key == "cpu") return kResourceCpu;
  if (key == "memory" || key == "memory.available") return kResourceMemory;
  if (key == "ephemeral-storage" || key == "nodefs.available" || key == "imagefs.available") {
    return kResourceEphemeralStorage;
  }
  return kResourcePods;  // counts: pid, inodes
}

absl::Status CheckReserved(const std::map<std::string, std::string>& m, std::string_view path) {
  for (const auto& [k, v] : m) {
    const std::string p = StrCat(path, ".", k);
    if (ReservedKeys().count(k) == 0) {
      return PathError(p, "unsupported key (want cpu, memory, ephemeral-storage or pid)");
    }
    if (absl::StatusOr<int64_t> q = ParseQuantity(v, ResourceOfKey(k)); !q.ok()) {
      return PathError(p, Message(q.status()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckEviction(const std::map<std::string, std::string>& m, std::string_view path) {
  for (const auto& [k, v] : m) {
    const std::string p = StrCat(path, ".", k);
    if (EvictionSignals().count(k) == 0) {
      return PathError(p,
                       "unsupported eviction signal (want memory.available, nodefs.available, "
                       "nodefs.inodesFree, imagefs.available, imagefs.inodesFree or "
                       "pid.available)");
    }
    if (IsPercent(v)) {
      KARP_RETURN_IF_ERROR(CheckPercent(v, p));
    } else if (absl::StatusOr<int64_t> q = ParseQuantity(v, ResourceOfKey(k)); !q.ok()) {
      return PathError(p, Message(q.status()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckKubelet(const KubeletConfiguration& k) {
  if (k.max_pods.has_value() && *k.max_pods < 0) {
    return PathError("spec.kubelet.maxPods", "must be >= 0");
  }
  if (k.pods_per_core.has_value() && *k.pods_per_core < 0) {
    return PathError("spec.kubelet.podsPerCore", "must be >= 0");
  }
  KARP_RETURN_IF_ERROR(CheckReserved(k.kube_reserved, "spec.kubelet.kubeReserved"));
  KARP_RETURN_IF_ERROR(CheckReserved(k.system_reserved, "spec.kubelet.systemReserved"));
  KARP_RETURN_IF_ERROR(CheckEviction(k.eviction_hard, "spec.kubelet.evictionHard"));
  KARP_RETURN_IF_ERROR(CheckEviction(k.eviction_soft, "spec.kubelet.evictionSoft"));
  for (const auto& [signal, d] : k.eviction_soft_grace_period) {
    const std::string p = StrCat("spec.kubelet.evictionSoftGracePeriod.", signal);
    if (EvictionSignals().count(signal) == 0) return PathError(p, "unsupported eviction signal");
    if (k.eviction_soft.count(signal) == 0) {
      return PathError(p, "has no matching spec.kubelet.evictionSoft entry");
    }
    if (absl::StatusOr<absl::Duration> dur = json::codec_internal::ParseGoDuration(d); !dur.ok()) {
      return PathError(p, Message(dur.status()));
    }
  }
  for (const auto& [signal, v] : k.eviction_soft) {
    if (k.eviction_soft_grace_period.count(signal) == 0) {
      return PathError(StrCat("spec.kubelet.evictionSoft.", signal),
                       "requires a matching spec.kubelet.evictionSoftGracePeriod entry");
    }
  }
  if (k.eviction_max_pod_grace_period.has_value() && *k.eviction_max_pod_grace_period < 0) {
    return PathError("spec.kubelet.evictionMaxPodGracePeriod", "must be >= 0");
  }
  for (const auto& [name, v] :
       {std::pair{"imageGCHighThresholdPercent", k.image_gc_high_threshold_percent},
        std::pair{"imageGCLowThresholdPercent", k.image_gc_low_threshold_percent}}) {
    if (v.has_value() && (*v < 0 || *v > 100)) {
      return PathError(StrCat("spec.kubelet.", name), "must be in [0, 100]");
    }
  }
  if (k.image_gc_high_threshold_percent.has_value() &&
      k.image_gc_low_threshold_percent.has_value() &&
      *k.image_gc_low_threshold_percent >= *k.image_gc_high_threshold_percent) {
    return PathError("spec.kubelet.imageGCLowThresholdPercent",
                     "must be less than imageGCHighThresholdPercent");
  }
  for (size_t i = 0; i < k.cluster_dns.size(); ++i) {
    if (k.cluster_dns[i].empty()) {
      return PathError(IndexPath("spec.kubelet.clusterDNS", i), "must not be empty");
    }
  }
  return absl::OkStatus();
}

// spec.subnetSelectorTerms.
absl::Status CheckSubnetTerms(const Ec2NodeClass& nc) {
  KARP_RETURN_IF_ERROR(CheckTermCount(nc.subnet_selector_terms.size(), "spec.subnetSelectorTerms"));
  for (size_t i = 0; i < nc.subnet_selector_terms.size(); ++i) {
    const SubnetSelectorTerm& t = nc.subnet_selector_terms[i];
    const std::string p = IndexPath("spec.subnetSelectorTerms", i);
    if (t.id.empty() && t.tags.empty()) return PathError(p, "expected one of tags or id");
    if (!t.id.empty() && !t.tags.empty()) {
      return PathError(StrCat(p, ".id"), "id cannot be combined with other fields");
    }
    KARP_RETURN_IF_ERROR(CheckSelectorTags(t.tags, StrCat(p, ".tags")));
  }
  return absl::OkStatus();
}

// spec.securityGroupSelectorTerms.
absl::Status CheckSecurityGroupTerms(const Ec2NodeClass& nc) {
  KARP_RETURN_IF_ERROR(
      CheckTermCount(nc.security_group_selector_terms.size(), "spec.securityGroupSelectorTerms"));
  for (size_t i = 0; i < nc.security_group_selector_terms.size(); ++i) {
    const SecurityGroupSelectorTerm& t = nc.security_group_selector_terms[i];
    const std::string p = IndexPath("spec.securityGroupSelectorTerms", i);
    const int set = !t.id.empty() + !t.name.empty() + !t.tags.empty();
    if (set == 0) return PathError(p, "expected one of tags, id or name");
    if (!t.id.empty() && set > 1) {
      return PathError(StrCat(p, ".id"), "id cannot be combined with other fields");
    }
    if (!t.name.empty() && set > 1) {
      return PathError(StrCat(p, ".name"), "name cannot be combined with other fields");
    }
    KARP_RETURN_IF_ERROR(CheckSelectorTags(t.tags, StrCat(p, ".tags")));
  }
  return absl::OkStatus();
}

// spec.amiSelectorTerms and spec.amiFamily (required unless an alias names the family).
absl::Status CheckAmiTerms(const Ec2NodeClass& nc) {
  KARP_RETURN_IF_ERROR(CheckTermCount(nc.ami_selector_terms.size(), "spec.amiSelectorTerms"));
  std::optional<AmiAlias> alias;
  for (size_t i = 0; i < nc.ami_selector_terms.size(); ++i) {
    const AmiSelectorTerm& t = nc.ami_selector_terms[i];
    const std::string p = IndexPath("spec.amiSelectorTerms", i);
    const int others = !t.id.empty() + !t.name.empty() + !t.tags.empty() + !t.ssm_parameter.empty();
    if (!t.alias.empty()) {
      if (others > 0 || !t.owner.empty()) {
        return PathError(StrCat(p, ".alias"), "alias cannot be combined with other fields");
      }
      if (nc.ami_selector_terms.size() > 1) {
        return PathError(StrCat(p, ".alias"),
                         "an alias must be the only term of spec.amiSelectorTerms");
      }
      absl::StatusOr<AmiAlias> a = ParseAmiAlias(t.alias);
      if (!a.ok()) return PathError(StrCat(p, ".alias"), Message(a.status()));
      alias = *a;
      continue;
    }
    if (others == 0) {
      return PathError(p, "expected one of alias, id, name, tags or ssmParameter");
    }
    if (!t.id.empty() && (others > 1 || !t.owner.empty())) {
      return PathError(StrCat(p, ".id"), "id cannot be combined with other fields");
    }
    KARP_RETURN_IF_ERROR(CheckSelectorTags(t.tags, StrCat(p, ".tags")));
  }
  if (alias.has_value() && nc.ami_family.has_value() && *nc.ami_family != alias->family) {
    return PathError("spec.amiFamily", StrCat("\"", AwsAmiFamilyName(*nc.ami_family),
                                              "\" does not match the alias family \"",
                                              AwsAmiFamilyName(alias->family), "\""));
  }
  if (!alias.has_value() && !nc.ami_family.has_value()) {
    return PathError("spec.amiFamily", "required when spec.amiSelectorTerms has no alias");
  }
  return absl::OkStatus();
}

// spec.role / spec.instanceProfile and spec.tags.
absl::Status CheckRoleAndTags(const Ec2NodeClass& nc) {
  if (nc.role.empty() == nc.instance_profile.empty()) {
    return PathError(nc.role.empty() ? "spec.role" : "spec.instanceProfile",
                     "exactly one of role and instanceProfile must be set");
  }

  for (const auto& [k, v] : nc.tags) {
    const std::string p = StrCat("spec.tags.", k);
    if (k.empty()) return PathError("spec.tags", "empty tag keys are not supported");
    if (IsRestrictedTag(k)) {
      return PathError(p, StrCat("the tag key \"", k,
                                 "\" is restricted: karp sets it itself (restricted: "
                                 "kubernetes.io/cluster/*, karpenter.sh/nodepool, "
                                 "karpenter.sh/nodeclaim, karpenter.k8s.aws/ec2nodeclass, "
                                 "eks:eks-cluster-name)"));
    }
  }
  return absl::OkStatus();
}

// spec.metadataOptions.
absl::Status CheckMetadataOptions(const MetadataOptions& m) {
  auto enum2 = [](const std::string& v, std::string_view a, std::string_view b,
                  std::string_view path) -> absl::Status {
    if (v == a || v == b) return absl::OkStatus();
    return PathError(path, StrCat("invalid value \"", v, "\" (want ", a, " or ", b, ")"));
  };
  KARP_RETURN_IF_ERROR(
      enum2(m.http_endpoint, "enabled", "disabled", "spec.metadataOptions.httpEndpoint"));
  KARP_RETURN_IF_ERROR(
      enum2(m.http_protocol_ipv6, "enabled", "disabled", "spec.metadataOptions.httpProtocolIPv6"));
  KARP_RETURN_IF_ERROR(
      enum2(m.http_tokens, "required", "optional", "spec.metadataOptions.httpTokens"));
  if (m.http_put_response_hop_limit < 1 || m.http_put_response_hop_limit > 64) {
    return PathError("spec.metadataOptions.httpPutResponseHopLimit", "must be in [1, 64]");
  }
  return absl::OkStatus();
}

// spec.blockDeviceMappings.
absl::Status CheckBlockDeviceMappings(const Ec2NodeClass& nc) {
  if (nc.block_device_mappings.size() > kMaxBlockDeviceMappings) {
    return PathError("spec.blockDeviceMappings",
                     StrCat("at most ", kMaxBlockDeviceMappings, " mappings"));
  }
  int roots = 0;
  for (size_t i = 0; i < nc.block_device_mappings.size(); ++i) {
    const BlockDeviceMapping& b = nc.block_device_mappings[i];
    const std::string p = IndexPath("spec.blockDeviceMappings", i);
    if (b.device_name.empty()) return PathError(StrCat(p, ".deviceName"), "required");
    for (size_t j = 0; j < i; ++j) {
      if (nc.block_device_mappings[j].device_name == b.device_name) {
        return PathError(StrCat(p, ".deviceName"),
                         StrCat("duplicate device \"", b.device_name, "\""));
      }
    }
    if (b.root_volume && ++roots > 1) {
      return PathError(StrCat(p, ".rootVolume"), "at most one mapping may be the root volume");
    }
    const std::string& vt = b.ebs.volume_type;
    if (!vt.empty() && vt != "standard" && vt != "io1" && vt != "io2" && vt != "gp2" &&
        vt != "sc1" && vt != "st1" && vt != "gp3") {
      return PathError(StrCat(p, ".ebs.volumeType"),
                       StrCat("invalid volume type \"", vt,
                              "\" (want standard, io1, io2, gp2, sc1, st1 or gp3)"));
    }
    if (b.ebs.volume_size.has_value() &&
        (*b.ebs.volume_size <= 0 || *b.ebs.volume_size > kMaxVolumeSize)) {
      return PathError(StrCat(p, ".ebs.volumeSize"), "must be > 0 and at most 64Ti");
    }
    if (b.ebs.iops.has_value() && *b.ebs.iops < 0) {
      return PathError(StrCat(p, ".ebs.iops"), "must be >= 0");
    }
    if (b.ebs.throughput.has_value() && *b.ebs.throughput < 0) {
      return PathError(StrCat(p, ".ebs.throughput"), "must be >= 0");
    }
  }
  return absl::OkStatus();
}

// Every field rule of the reference CRD; paths are relative to the object.
absl::Status CheckFields(const Ec2NodeClass& nc) {
  if (nc.metadata.name.empty()) return PathError("metadata.name", "required");
  KARP_RETURN_IF_ERROR(CheckSubnetTerms(nc));
  KARP_RETURN_IF_ERROR(CheckSecurityGroupTerms(nc));
  KARP_RETURN_IF_ERROR(CheckAmiTerms(nc));
  KARP_RETURN_IF_ERROR(CheckRoleAndTags(nc));
  KARP_RETURN_IF_ERROR(CheckMetadataOptions(nc.metadata_options));
  KARP_RETURN_IF_ERROR(CheckBlockDeviceMappings(nc));
  KARP_RETURN_IF_ERROR(CheckKubelet(nc.kubelet));

  if (!nc.instance_store_policy.empty() && nc.instance_store_policy != "RAID0") {
    return PathError("spec.instanceStorePolicy",
                     StrCat("invalid value \"", nc.instance_store_policy, "\" (want RAID0)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateEc2NodeClass(const Ec2NodeClass& node_class) {
  absl::Status s = CheckFields(node_class);
  if (s.ok()) return s;
  return absl::InvalidArgumentError(
      StrCat("ec2nodeclass \"", node_class.metadata.name, "\": ", Message(s)));
}

// ---------------------------------------------------------------------------------------------
// Decoding

namespace {

using json::codec_internal::Document;
using json::codec_internal::Json;

absl::Status ReadVolumeSize(const FieldReader& r, std::optional<int64_t>* out) {
  const Json* f = r.Get("volumeSize");
  if (f == nullptr) return absl::OkStatus();
  std::string text;
  if (f->is_string()) {
    text = f->get_ref<const std::string&>();
  } else if (f->is_number_integer() || f->is_number_unsigned()) {
    text = f->dump();
  } else {
    return WrongType(r.At("volumeSize"), "a quantity string", *f);
  }
  absl::StatusOr<int64_t> q = ParseQuantity(text, kResourceStorage);
  if (!q.ok()) return PathError(r.At("volumeSize"), Message(q.status()));
  *out = *q;
  return absl::OkStatus();
}

absl::Status ReadSpec(const FieldReader& spec, Ec2NodeClass* nc) {
  KARP_RETURN_IF_ERROR(spec.Objects("subnetSelectorTerms", [&](const FieldReader& t) {
    SubnetSelectorTerm term;
    KARP_RETURN_IF_ERROR(t.StringMap("tags", &term.tags));
    KARP_RETURN_IF_ERROR(t.String("id", &term.id));
    nc->subnet_selector_terms.push_back(std::move(term));
    return absl::OkStatus();
  }));
  KARP_RETURN_IF_ERROR(spec.Objects("securityGroupSelectorTerms", [&](const FieldReader& t) {
    SecurityGroupSelectorTerm term;
    KARP_RETURN_IF_ERROR(t.StringMap("tags", &term.tags));
    KARP_RETURN_IF_ERROR(t.String("id", &term.id));
    KARP_RETURN_IF_ERROR(t.String("name", &term.name));
    nc->security_group_selector_terms.push_back(std::move(term));
    return absl::OkStatus();
  }));
  KARP_RETURN_IF_ERROR(spec.Objects("amiSelectorTerms", [&](const FieldReader& t) {
    AmiSelectorTerm term;
    KARP_RETURN_IF_ERROR(t.String("alias", &term.alias));
    KARP_RETURN_IF_ERROR(t.StringMap("tags", &term.tags));
    KARP_RETURN_IF_ERROR(t.String("id", &term.id));
    KARP_RETURN_IF_ERROR(t.String("name", &term.name));
    KARP_RETURN_IF_ERROR(t.String("owner", &term.owner));
    KARP_RETURN_IF_ERROR(t.String("ssmParameter", &term.ssm_parameter));
    nc->ami_selector_terms.push_back(std::move(term));
    return absl::OkStatus();
  }));
  std::optional<std::string> family;
  KARP_RETURN_IF_ERROR(spec.String("amiFamily", &family));
  if (family.has_value()) {
    absl::StatusOr<AwsAmiFamily> f = ParseAwsAmiFamily(*family);
    if (!f.ok()) return PathError(spec.At("amiFamily"), Message(f.status()));
    nc->ami_family = *f;
  }
  KARP_RETURN_IF_ERROR(spec.String("role", &nc->role));
  KARP_RETURN_IF_ERROR(spec.String("instanceProfile", &nc->instance_profile));
  KARP_RETURN_IF_ERROR(spec.String("userData", &nc->user_data));
  KARP_RETURN_IF_ERROR(spec.StringMap("tags", &nc->tags));

  KARP_ASSIGN_OR_RETURN(FieldReader mo, spec.Object("metadataOptions"));
  KARP_RETURN_IF_ERROR(mo.String("httpEndpoint", &nc->metadata_options.http_endpoint));
  KARP_RETURN_IF_ERROR(mo.String("httpProtocolIPv6", &nc->metadata_options.http_protocol_ipv6));
  std::optional<int32_t> hop;
  KARP_RETURN_IF_ERROR(mo.Int32("httpPutResponseHopLimit", &hop));
  if (hop.has_value()) nc->metadata_options.http_put_response_hop_limit = *hop;
  KARP_RETURN_IF_ERROR(mo.String("httpTokens", &nc->metadata_options.http_tokens));

  KARP_RETURN_IF_ERROR(spec.Objects("blockDeviceMappings", [&](const FieldReader& b) {
    BlockDeviceMapping m;
    KARP_RETURN_IF_ERROR(b.String("deviceName", &m.device_name));
    std::optional<bool> root;
    KARP_RETURN_IF_ERROR(b.Bool("rootVolume", &root));
    m.root_volume = root.value_or(false);
    KARP_ASSIGN_OR_RETURN(FieldReader ebs, b.Object("ebs"));
    KARP_RETURN_IF_ERROR(ebs.Bool("deleteOnTermination", &m.ebs.delete_on_termination));
    KARP_RETURN_IF_ERROR(ebs.Bool("encrypted", &m.ebs.encrypted));
    KARP_RETURN_IF_ERROR(ebs.Int64("iops", &m.ebs.iops));
    KARP_RETURN_IF_ERROR(ebs.Int64("throughput", &m.ebs.throughput));
    KARP_RETURN_IF_ERROR(ebs.String("kmsKeyID", &m.ebs.kms_key_id));
    KARP_RETURN_IF_ERROR(ebs.String("snapshotID", &m.ebs.snapshot_id));
    KARP_RETURN_IF_ERROR(ebs.String("volumeType", &m.ebs.volume_type));
    KARP_RETURN_IF_ERROR(ReadVolumeSize(ebs, &m.ebs.volume_size));
    nc->block_device_mappings.push_back(std::move(m));
    return absl::OkStatus();
  }));

  KARP_ASSIGN_OR_RETURN(FieldReader k, spec.Object("kubelet"));
  KubeletConfiguration& kc = nc->kubelet;
  KARP_RETURN_IF_ERROR(k.Int32("maxPods", &kc.max_pods));
  KARP_RETURN_IF_ERROR(k.Int32("podsPerCore", &kc.pods_per_core));
  KARP_RETURN_IF_ERROR(k.StringMap("kubeReserved", &kc.kube_reserved));
  KARP_RETURN_IF_ERROR(k.StringMap("systemReserved", &kc.system_reserved));
  KARP_RETURN_IF_ERROR(k.StringMap("evictionHard", &kc.eviction_hard));
  KARP_RETURN_IF_ERROR(k.StringMap("evictionSoft", &kc.eviction_soft));
  KARP_RETURN_IF_ERROR(k.StringMap("evictionSoftGracePeriod", &kc.eviction_soft_grace_period));
  KARP_RETURN_IF_ERROR(k.Int32("evictionMaxPodGracePeriod", &kc.eviction_max_pod_grace_period));
  KARP_RETURN_IF_ERROR(k.Int32("imageGCHighThresholdPercent", &kc.image_gc_high_threshold_percent));
  KARP_RETURN_IF_ERROR(k.Int32("imageGCLowThresholdPercent", &kc.image_gc_low_threshold_percent));
  KARP_RETURN_IF_ERROR(k.Bool("cpuCFSQuota", &kc.cpu_cfs_quota));
  KARP_RETURN_IF_ERROR(k.StringList("clusterDNS", &kc.cluster_dns));

  KARP_RETURN_IF_ERROR(spec.Bool("associatePublicIPAddress", &nc->associate_public_ip_address));
  std::optional<bool> monitoring;
  KARP_RETURN_IF_ERROR(spec.Bool("detailedMonitoring", &monitoring));
  nc->detailed_monitoring = monitoring.value_or(false);
  KARP_RETURN_IF_ERROR(spec.String("instanceStorePolicy", &nc->instance_store_policy));
  return absl::OkStatus();
}

class Decoder {
 public:
  absl::Status Document(const Json& v, const std::string& path) {
    return ForEachObject(
        v, path, [&](const KubernetesObject& o) { return Item(o.item, o.kind, o.api_version); });
  }

  std::vector<Ec2NodeClass> Take() { return std::move(out_); }

 private:
  // One object that is not a List.
  absl::Status Item(const FieldReader& item, const std::string& kind,
                    const std::string& api_version) {
    const std::string& path = item.path();
    if (kind != kEc2NodeClassKind) return absl::OkStatus();  // another kind: not ours
    if (!api_version.empty() && api_version != kEc2NodeClassApiVersion) {
      return PathError(item.At("apiVersion"),
                       StrCat("unsupported apiVersion \"", api_version, "\" for kind ", kind,
                              " (expected ", kEc2NodeClassApiVersion, ")"));
    }
    Ec2NodeClass nc;
    KARP_ASSIGN_OR_RETURN(FieldReader meta, item.Object("metadata"));
    KARP_RETURN_IF_ERROR(meta.String("name", &nc.metadata.name));
    KARP_RETURN_IF_ERROR(meta.StringMap("labels", &nc.metadata.labels));
    KARP_RETURN_IF_ERROR(meta.StringMap("annotations", &nc.metadata.annotations));
    KARP_RETURN_IF_ERROR(meta.String("uid", &nc.metadata.uid));
    KARP_ASSIGN_OR_RETURN(FieldReader spec, item.Object("spec"));
    KARP_RETURN_IF_ERROR(ReadSpec(spec, &nc));
    if (absl::Status s = CheckFields(nc); !s.ok()) {
      // Field paths are relative to the object; make them relative to the document.
      return absl::InvalidArgumentError(path.empty() ? std::string(Message(s))
                                                     : StrCat(path, ".", Message(s)));
    }
    for (const auto& [name, first] : seen_) {
      if (name == nc.metadata.name) {
        return PathError(JoinPath(item.At("metadata"), "name"),
                         StrCat("duplicate ec2nodeclass \"", name, "\" (first defined at ",
                                first.empty() ? "the top level" : first, ")"));
      }
    }
    seen_.emplace_back(nc.metadata.name, path);
    out_.push_back(std::move(nc));
    return absl::OkStatus();
  }

  std::vector<Ec2NodeClass> out_;
  std::vector<std::pair<std::string, std::string>> seen_;  // name -> path of definition
};

}  // namespace

absl::StatusOr<std::vector<Ec2NodeClass>> ParseEc2NodeClasses(std::string_view text,
                                                              std::string_view source) {
  try {
    KARP_ASSIGN_OR_RETURN(std::vector<Document> docs,
                          json::codec_internal::LoadDocuments(text, source));
    Decoder decoder;
    for (const Document& doc : docs) {
      if (absl::Status s = decoder.Document(doc.value, doc.path); !s.ok()) {
        return absl::Status(s.code(), StrCat(source, ": ", Message(s)));
      }
    }
    return decoder.Take();
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(StrCat(source, ": ", e.what()));
  } catch (...) {
    return absl::InvalidArgumentError(StrCat(source, ": unreadable input"));
  }
}

absl::StatusOr<std::vector<Ec2NodeClass>> ReadEc2NodeClassFiles(
    const std::vector<std::string>& paths) {
  std::vector<Ec2NodeClass> all;
  std::map<std::string, std::string> file_of;
  for (const std::string& path : paths) {
    KARP_ASSIGN_OR_RETURN(std::string text, json::codec_internal::ReadWholeFile(path));
    KARP_ASSIGN_OR_RETURN(std::vector<Ec2NodeClass> classes, ParseEc2NodeClasses(text, path));
    for (Ec2NodeClass& nc : classes) {
      auto [it, inserted] = file_of.emplace(nc.metadata.name, path);
      if (!inserted) {
        return absl::InvalidArgumentError(StrCat(path, ": duplicate ec2nodeclass \"",
                                                 nc.metadata.name, "\" (first defined in ",
                                                 it->second, ")"));
      }
      all.push_back(std::move(nc));
    }
  }
  return all;
}

const Ec2NodeClass* FindEc2NodeClass(const std::vector<Ec2NodeClass>& classes,
                                     std::string_view name) {
  for (const Ec2NodeClass& nc : classes) {
    if (nc.metadata.name == name) return &nc;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Derived values

namespace {

// The fields of `node_class` that change instance types, as karp::NodeClass: the same rules
// (karp/node_class_catalog.h) then apply here and to snapshots with EC2NodeClasses.
NodeClass AsNodeClass(const Ec2NodeClass& nc) {
  NodeClass out;
  out.api_version = std::string(kEc2NodeClassApiVersion);
  out.kind = std::string(kEc2NodeClassKind);
  out.metadata = nc.metadata;
  if (nc.ami_family.has_value()) out.ami_family = std::string(AwsAmiFamilyName(*nc.ami_family));
  for (const AmiSelectorTerm& t : nc.ami_selector_terms) {
    if (t.alias.empty()) continue;
    out.ami_alias = t.alias;
    break;
  }
  const KubeletConfiguration& k = nc.kubelet;
  out.kubelet.max_pods = k.max_pods;
  out.kubelet.pods_per_core = k.pods_per_core;
  out.kubelet.kube_reserved = k.kube_reserved;
  out.kubelet.system_reserved = k.system_reserved;
  out.kubelet.eviction_hard = k.eviction_hard;
  out.kubelet.eviction_soft = k.eviction_soft;
  for (const BlockDeviceMapping& m : nc.block_device_mappings) {
    out.block_device_mappings.push_back({m.device_name, m.root_volume, m.ebs.volume_size});
  }
  out.instance_store_policy = nc.instance_store_policy;
  return out;
}

}  // namespace

absl::StatusOr<AwsCatalogOptions> CatalogOptionsFor(const Ec2NodeClass& node_class,
                                                    AwsCatalogOptions base) {
  KARP_RETURN_IF_ERROR(ValidateEc2NodeClass(node_class));
  return AwsCatalogOptionsForNodeClass(AsNodeClass(node_class), std::move(base));
}

std::string Ec2NodeClassHash(const Ec2NodeClass& nc) {
  CanonicalWriter w;
  w.Field("amiFamily", AwsAmiFamilyName(nc.ResolvedAmiFamily()));
  w.Field("role", nc.role);
  w.Field("instanceProfile", nc.instance_profile);
  w.Field("userData", nc.user_data.has_value() ? StrCat("+", *nc.user_data) : "-");
  w.Map("tags", nc.tags);
  const MetadataOptions& m = nc.metadata_options;
  w.Field("metadata", StrCat(m.http_endpoint, ",", m.http_protocol_ipv6, ",",
                             m.http_put_response_hop_limit, ",", m.http_tokens));
  for (const BlockDeviceMapping& b : nc.block_device_mappings) w.Field("bdm", CanonicalBdm(b));
  w.Field("kubelet", CanonicalKubelet(nc.kubelet));
  w.Field("publicIP", nc.associate_public_ip_address.has_value()
                          ? (*nc.associate_public_ip_address ? "true" : "false")
                          : "-");
  w.Field("monitoring", nc.detailed_monitoring ? "true" : "false");
  w.Field("instanceStorePolicy", nc.instance_store_policy);
  return std::to_string(Fnv1a64(w.text()));
}

absl::StatusOr<std::map<std::string, std::string>> Ec2Tags(const Ec2NodeClass& node_class,
                                                           std::string_view cluster_name,
                                                           std::string_view node_pool,
                                                           std::string_view node_claim) {
  if (cluster_name.empty()) return absl::InvalidArgumentError("ec2 tags: cluster name is empty");
  for (const auto& [k, v] : node_class.tags) {
    if (IsRestrictedTag(k)) {
      return absl::InvalidArgumentError(StrCat("ec2nodeclass \"", node_class.metadata.name,
                                               "\": spec.tags.", k, ": the tag key \"", k,
                                               "\" is restricted: karp sets it itself"));
    }
  }
  std::map<std::string, std::string> tags = node_class.tags;
  tags[StrCat(kTagKeyClusterPrefix, cluster_name)] = "owned";
  tags[std::string(kTagKeyEksClusterName)] = std::string(cluster_name);
  tags[std::string(kTagKeyNodePool)] = std::string(node_pool);
  tags[std::string(kTagKeyEc2NodeClass)] = node_class.metadata.name;
  if (!node_claim.empty()) tags[std::string(kTagKeyNodeClaim)] = std::string(node_claim);
  return tags;
}

// ---------------------------------------------------------------------------------------------
// Internal helpers shared with the launch-template and user-data code.

uint64_t Fnv1a64(std::string_view data) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

void CanonicalWriter::Field(std::string_view key, std::string_view value) {
  StrAppend(&text_, key.size(), ":", key, "=", value.size(), ":", value, ";");
}

void CanonicalWriter::Map(std::string_view key, const std::map<std::string, std::string>& m) {
  std::string inner;
  for (const auto& [k, v] : m) StrAppend(&inner, k.size(), ":", k, "=", v.size(), ":", v, ";");
  Field(key, inner);
}

std::string CanonicalBdm(const BlockDeviceMapping& b) {
  CanonicalWriter w;
  auto opt_bool = [](const std::optional<bool>& v) -> std::string {
    return v.has_value() ? (*v ? "true" : "false") : "-";
  };
  auto opt_int = [](const std::optional<int64_t>& v) -> std::string {
    return v.has_value() ? std::to_string(*v) : "-";
  };
  w.Field("device", b.device_name);
  w.Field("root", b.root_volume ? "true" : "false");
  w.Field("deleteOnTermination", opt_bool(b.ebs.delete_on_termination));
  w.Field("encrypted", opt_bool(b.ebs.encrypted));
  w.Field("iops", opt_int(b.ebs.iops));
  w.Field("throughput", opt_int(b.ebs.throughput));
  w.Field("kms", b.ebs.kms_key_id);
  w.Field("snapshot", b.ebs.snapshot_id);
  w.Field("type", b.ebs.volume_type);
  w.Field("size", opt_int(b.ebs.volume_size));
  return w.text();
}

std::string CanonicalKubelet(const KubeletConfiguration& k) {
  CanonicalWriter w;
  auto opt = [](const auto& v) -> std::string {
    if (!v.has_value()) return "-";
    return StrCat(*v);
  };
  w.Field("maxPods", opt(k.max_pods));
  w.Field("podsPerCore", opt(k.pods_per_core));
  w.Map("kubeReserved", k.kube_reserved);
  w.Map("systemReserved", k.system_reserved);
  w.Map("evictionHard", k.eviction_hard);
  w.Map("evictionSoft", k.eviction_soft);
  w.Map("evictionSoftGracePeriod", k.eviction_soft_grace_period);
  w.Field("evictionMaxPodGracePeriod", opt(k.eviction_max_pod_grace_period));
  w.Field("imageGCHigh", opt(k.image_gc_high_threshold_percent));
  w.Field("imageGCLow", opt(k.image_gc_low_threshold_percent));
  w.Field("cpuCFSQuota", k.cpu_cfs_quota.has_value() ? (*k.cpu_cfs_quota ? "true" : "false") : "-");
  std::string dns;
  for (const std::string& d : k.cluster_dns) StrAppend(&dns, d.size(), ":", d, ";");
  w.Field("clusterDNS", dns);
  return w.text();
}

}  // namespace karp::aws
