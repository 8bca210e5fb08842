// karp::json: node classes (EC2NodeClass `karpenter.k8s.aws/v1`) of a snapshot
// (karp/node_class.h): the fields that change instance types are read and checked
// (karp::ValidateNodeClass); the others (selector terms other than an alias, role, tags, user
// data, metadata options...) are not read.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_fields.h"
#include "karp/node_class_catalog.h"

namespace karp::json::codec_internal {
namespace {

// The object `key` of `r` whose values are quantities or percentages, kept as text (numbers as
// their JSON text: YAML readily turns `cpu: 1` into a number).
absl::Status QuantityMap(const FieldReader& r, std::string_view key,
                         std::map<std::string, std::string>* out) {
  const Json* f = r.Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_object()) return WrongType(r.At(key), "an object", *f);
  for (const auto& [name, value] : f->items()) {
    KARP_ASSIGN_OR_RETURN(std::string text, QuantityText(value, JoinPath(r.At(key), name)));
    (*out)[name] = std::move(text);
  }
  return absl::OkStatus();
}

absl::Status ReadKubelet(const FieldReader& spec, NodeClassKubelet* k) {
  KARP_ASSIGN_OR_RETURN(FieldReader r, spec.Object("kubelet"));
  KARP_RETURN_IF_ERROR(r.Int32("maxPods", &k->max_pods));
  KARP_RETURN_IF_ERROR(r.Int32("podsPerCore", &k->pods_per_core));
  KARP_RETURN_IF_ERROR(QuantityMap(r, "kubeReserved", &k->kube_reserved));
  KARP_RETURN_IF_ERROR(QuantityMap(r, "systemReserved", &k->system_reserved));
  KARP_RETURN_IF_ERROR(QuantityMap(r, "evictionHard", &k->eviction_hard));
  return QuantityMap(r, "evictionSoft", &k->eviction_soft);
}

// spec.amiSelectorTerms: the first alias, checked where it stands (the other terms select
// AMIs, which decides nothing karp computes).
absl::Status ReadAlias(const FieldReader& spec, std::string* alias) {
  return spec.Objects("amiSelectorTerms", [&](const FieldReader& term) -> absl::Status {
    std::string a;
    KARP_RETURN_IF_ERROR(term.String("alias", &a));
    if (a.empty() || !alias->empty()) return absl::OkStatus();
    if (absl::StatusOr<AwsAmiFamily> f = AwsAmiFamilyOfAlias(a); !f.ok()) {
      return PathError(term.At("alias"), internal::Message(f.status()));
    }
    *alias = std::move(a);
    return absl::OkStatus();
  });
}

absl::Status ReadBlockDeviceMappings(const FieldReader& spec,
                                     std::vector<NodeClassBlockDeviceMapping>* out) {
  return spec.Objects("blockDeviceMappings", [&](const FieldReader& b) -> absl::Status {
    NodeClassBlockDeviceMapping m;
    KARP_RETURN_IF_ERROR(b.String("deviceName", &m.device_name));
    KARP_RETURN_IF_ERROR(b.Bool("rootVolume", &m.root_volume));
    KARP_ASSIGN_OR_RETURN(FieldReader ebs, b.Object("ebs"));
    if (const Json* size = ebs.Get("volumeSize")) {
      const std::string path = ebs.At("volumeSize");
      KARP_ASSIGN_OR_RETURN(std::string text, QuantityText(*size, path));
      absl::StatusOr<int64_t> bytes = ParseQuantity(text, kResourceStorage);
      if (!bytes.ok()) return PathError(path, internal::Message(bytes.status()));
      m.volume_size = *bytes;
    }
    out->push_back(std::move(m));
    return absl::OkStatus();
  });
}

Json StringMapJson(const std::map<std::string, std::string>& m) {
  Json o = Json::object();
  for (const auto& [k, v] : m) o[k] = v;
  return o;
}

Json KubeletJson(const NodeClassKubelet& k) {
  Json o = Json::object();
  if (k.max_pods.has_value()) o["maxPods"] = *k.max_pods;
  if (k.pods_per_core.has_value()) o["podsPerCore"] = *k.pods_per_core;
  if (!k.kube_reserved.empty()) o["kubeReserved"] = StringMapJson(k.kube_reserved);
  if (!k.system_reserved.empty()) o["systemReserved"] = StringMapJson(k.system_reserved);
  if (!k.eviction_hard.empty()) o["evictionHard"] = StringMapJson(k.eviction_hard);
  if (!k.eviction_soft.empty()) o["evictionSoft"] = StringMapJson(k.eviction_soft);
  return o;
}

Json BlockDeviceMappingJson(const NodeClassBlockDeviceMapping& m) {
  Json o = Json::object();
  if (!m.device_name.empty()) o["deviceName"] = m.device_name;
  if (m.root_volume) o["rootVolume"] = true;
  if (m.volume_size.has_value()) {
    o["ebs"] = Json{{"volumeSize", FormatQuantity(*m.volume_size, kResourceStorage)}};
  }
  return o;
}

}  // namespace

absl::Status DecodeNodeClass(const FieldReader& item, const std::string& kind,
                             const std::string& api_version, NodeClass* out) {
  out->kind = kind;
  out->api_version = api_version.empty() ? "karpenter.k8s.aws/v1" : api_version;
  KARP_ASSIGN_OR_RETURN(FieldReader meta, item.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(meta, &out->metadata));
  KARP_ASSIGN_OR_RETURN(FieldReader spec, item.Object("spec"));
  KARP_RETURN_IF_ERROR(spec.String("amiFamily", &out->ami_family));
  KARP_RETURN_IF_ERROR(ReadAlias(spec, &out->ami_alias));
  KARP_RETURN_IF_ERROR(ReadKubelet(spec, &out->kubelet));
  KARP_RETURN_IF_ERROR(ReadBlockDeviceMappings(spec, &out->block_device_mappings));
  KARP_RETURN_IF_ERROR(spec.String("instanceStorePolicy", &out->instance_store_policy));
  // The rules of the fields read; ValidateNodeClass names them relative to the object.
  if (absl::Status s = ValidateNodeClass(*out); !s.ok()) {
    return absl::InvalidArgumentError(JoinPath(item.path(), internal::Message(s)));
  }
  return absl::OkStatus();
}

Json NodeClassJson(const NodeClass& nc) {
  Json o = Json::object();
  o["apiVersion"] = nc.api_version;
  o["kind"] = nc.kind;
  o["metadata"] = ObjectMetaJson(nc.metadata, false);
  Json spec = Json::object();
  if (!nc.ami_family.empty()) spec["amiFamily"] = nc.ami_family;
  if (!nc.ami_alias.empty()) {
    spec["amiSelectorTerms"] = Json::array({Json{{"alias", nc.ami_alias}}});
  }
  if (Json k = KubeletJson(nc.kubelet); !k.empty()) spec["kubelet"] = std::move(k);
  if (!nc.block_device_mappings.empty()) {
    Json mappings = Json::array();
    for (const NodeClassBlockDeviceMapping& m : nc.block_device_mappings) {
      mappings.push_back(BlockDeviceMappingJson(m));
    }
    spec["blockDeviceMappings"] = std::move(mappings);
  }
  if (!nc.instance_store_policy.empty()) spec["instanceStorePolicy"] = nc.instance_store_policy;
  if (!spec.empty()) o["spec"] = std::move(spec);
  return o;
}

}  // namespace karp::json::codec_internal
