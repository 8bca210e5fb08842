// The converter of older Karpenter APIs (json/convert_old_api.h): dispatch per kind, the
// helpers the per-kind conversions share, and the cross-object steps of Finish.

#include "json/convert_old_api.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_util.h"
#include "json/encoders.h"
#include "json/field_reader.h"
#include "karp/labels.h"

namespace karp::json::codec_internal {

void ConversionContext::Warn(std::string_view field_path, std::string_view what) const {
  warnings->push_back(internal::StrCat(field_path, ": ", what));
}

void ConversionContext::Emit(Json object, std::optional<Json> kubelet,
                             bool take_pool_expire_after) const {
  PendingConversion p;
  p.converted.object = std::move(object);
  p.converted.path = path;
  p.kubelet = std::move(kubelet);
  p.take_pool_expire_after = take_pool_expire_after;
  out->push_back(std::move(p));
}

std::string SourcePath(std::string_view source, std::string_view path) {
  return path.empty() ? std::string(source) : internal::StrCat(source, ": ", path);
}

bool IsOldApiObject(std::string_view kind, std::string_view api_version) {
  if (api_version == "karpenter.sh/v1alpha5") return kind == "Provisioner";
  if (api_version == "karpenter.k8s.aws/v1alpha1") return kind == "AWSNodeTemplate";
  if (api_version == "karpenter.sh/v1beta1") return kind == "NodePool" || kind == "NodeClaim";
  if (api_version == "karpenter.k8s.aws/v1beta1") return kind == "EC2NodeClass";
  return false;
}

std::string DescribeObject(const FieldReader& item, std::string_view kind,
                           std::string_view api_version) {
  std::string name, ns;
  if (const Json* meta = item.Get("metadata"); meta != nullptr && meta->is_object()) {
    if (auto it = meta->find("name"); it != meta->end() && it->is_string()) name = *it;
    if (auto it = meta->find("namespace"); it != meta->end() && it->is_string()) ns = *it;
  }
  if (name.empty()) name = "(unnamed)";
  if (!ns.empty()) name = internal::StrCat(ns, "/", name);
  return internal::StrCat(api_version.empty() ? "(no apiVersion)" : api_version, " ", kind, " ",
                          name);
}

absl::StatusOr<const Json*> ObjectField(const Json& parent, const std::string& path,
                                        std::string_view key) {
  const auto it = parent.find(std::string(key));
  if (it == parent.end() || it->is_null()) return nullptr;
  if (!it->is_object()) return WrongType(JoinPath(path, key), "an object", *it);
  return &*it;
}

void WarnUnknownFields(const Json& object, const std::string& path,
                       std::initializer_list<std::string_view> known, std::string_view what,
                       std::vector<std::string>* warnings) {
  for (const auto& [key, value] : object.items()) {
    bool found = value.is_null();
    for (std::string_view k : known) found = found || k == key;
    if (!found) {
      warnings->push_back(
          internal::StrCat(JoinPath(path, key), ": not a field of ", what, "; dropped"));
    }
  }
}

namespace {

bool HasType(const Json& v, std::string_view type) {
  if (type == "string") return v.is_string();
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "boolean") return v.is_boolean();
  if (type == "number") return v.is_number();
  if (!v.is_object()) return false;  // "string map"
  for (const auto& [key, value] : v.items()) {
    if (!value.is_string()) return false;
  }
  return true;
}

}  // namespace

absl::Status CopyField(const Json& from, const std::string& path, std::string_view key,
                       std::string_view type, Json* to, std::string_view to_key) {
  const auto it = from.find(std::string(key));
  if (it == from.end() || it->is_null()) return absl::OkStatus();
  if (!HasType(*it, type)) {
    const std::string expected =
        type == "string map" ? "an object of strings" : internal::StrCat("a ", type);
    return WrongType(JoinPath(path, key),
                     type == "object" || type == "array" ? internal::StrCat("an ", type) : expected,
                     *it);
  }
  if (to_key.empty()) {
    *to = *it;
  } else {
    (*to)[std::string(to_key)] = *it;
  }
  return absl::OkStatus();
}

absl::Status SetAnnotation(Json* meta, std::string_view key, std::string_view value,
                           const std::string& path) {
  Json& annotations = (*meta)["annotations"];
  if (annotations.is_null()) annotations = Json::object();
  if (!annotations.is_object()) {
    return WrongType(JoinPath(path, "annotations"), "an object", annotations);
  }
  annotations[std::string(key)] = value;
  return absl::OkStatus();
}

absl::StatusOr<Json> NameLabelsAnnotations(const FieldReader& item) {
  const Json* meta = item.Get("metadata");
  Json out = Json::object();
  const std::string path = item.At("metadata");
  // Every v1 object a conversion writes is read back by name (EC2NodeClasses included).
  if (meta == nullptr) return PathError(JoinPath(path, "name"), "required");
  if (!meta->is_object()) return WrongType(path, "an object", *meta);
  KARP_RETURN_IF_ERROR(CopyField(*meta, path, "name", "string", &out, "name"));
  if (!out.contains("name") || out["name"].get_ref<const std::string&>().empty()) {
    return PathError(JoinPath(path, "name"), "required");
  }
  KARP_RETURN_IF_ERROR(CopyField(*meta, path, "labels", "string map", &out, "labels"));
  KARP_RETURN_IF_ERROR(CopyField(*meta, path, "annotations", "string map", &out, "annotations"));
  return out;
}

absl::Status OldApiConverter::Add(const FieldReader& item, const std::string& kind,
                                  const std::string& api_version, const std::string& source) {
  const size_t first = pending_.size();
  std::vector<std::string> warnings;
  const ConversionContext ctx{item, item.path(), &pending_, &warnings};
  if (kind == "Provisioner") {
    KARP_RETURN_IF_ERROR(ConvertProvisioner(ctx));
  } else if (kind == "AWSNodeTemplate") {
    KARP_RETURN_IF_ERROR(ConvertNodeTemplate(ctx));
  } else if (kind == "NodePool") {
    KARP_RETURN_IF_ERROR(ConvertBetaNodePool(ctx));
  } else if (kind == "NodeClaim") {
    KARP_RETURN_IF_ERROR(ConvertBetaNodeClaim(ctx));
  } else {
    KARP_RETURN_IF_ERROR(ConvertBetaNodeClass(ctx));
  }
  const std::string from = DescribeObject(item, kind, api_version);
  for (size_t i = first; i < pending_.size(); ++i) {
    pending_[i].converted.source = source;
    pending_[i].converted.from = from;
  }
  for (const std::string& w : warnings) warnings_.push_back(internal::StrCat(source, ": ", w));
  return absl::OkStatus();
}

void OldApiConverter::AddAsIs(const Json& object, const std::string& source,
                              const std::string& path) {
  PendingConversion p;
  p.converted.object = object;
  p.converted.source = source;
  p.converted.path = path;
  pending_.push_back(std::move(p));
}

namespace {

std::string StringAt(const Json& o, std::initializer_list<std::string_view> keys) {
  const Json* v = &o;
  for (std::string_view k : keys) {
    if (!v->is_object()) return "";
    const auto it = v->find(std::string(k));
    if (it == v->end()) return "";
    v = &*it;
  }
  return v->is_string() ? v->get<std::string>() : "";
}

}  // namespace

absl::Status OldApiConverter::PlaceKubelet(PendingConversion& pool,
                                           std::map<std::string, Json*>& classes) {
  Json& object = pool.converted.object;
  const std::string where = SourcePath(pool.converted.source, pool.converted.path);
  const Json& ref = object["spec"]["template"]["spec"].value("nodeClassRef", Json::object());
  const std::string name = StringAt(ref, {"name"});
  const auto it = classes.find(name);
  const bool ec2 =
      StringAt(ref, {"group"}) == kGroupAws && StringAt(ref, {"kind"}) == "EC2NodeClass";
  if (ec2 && it != classes.end()) {
    Json& spec = (*it->second)["spec"];
    if (!spec.contains("kubelet")) spec["kubelet"] = *pool.kubelet;
    if (spec["kubelet"] == *pool.kubelet) return absl::OkStatus();
    warnings_.push_back(internal::StrCat(
        where, ": kubelet settings differ from those already moved to EC2NodeClass ", name,
        " by another NodePool: kept in annotation ", kKubeletAnnotation,
        "; give this NodePool its own EC2NodeClass"));
  } else {
    const std::string why =
        name.empty() ? "the NodePool refers to no EC2NodeClass"
                     : internal::StrCat("EC2NodeClass \"", name, "\" is not in the input");
    warnings_.push_back(internal::StrCat(where, ": kubelet settings kept in annotation ",
                                         kKubeletAnnotation,
                                         " (as the reference's webhook "
                                         "does): ",
                                         why, "; move them to its spec.kubelet"));
  }
  return SetAnnotation(&object["metadata"], kKubeletAnnotation, Dump(*pool.kubelet, -1),
                       JoinPath(pool.converted.path, "metadata"));
}

absl::StatusOr<std::vector<ConvertedObject>> OldApiConverter::Finish(
    const std::function<std::optional<std::string>(const std::string&)>& native_expire_after) {
  std::map<std::string, Json*> classes;            // converted EC2NodeClasses by name
  std::map<std::string, std::string> pool_expiry;  // converted NodePools' expireAfter
  for (PendingConversion& p : pending_) {
    Json& o = p.converted.object;
    const std::string name = StringAt(o, {"metadata", "name"});
    if (o["kind"] == "EC2NodeClass") classes.emplace(name, &o);
    if (o["kind"] == "NodePool") {
      const std::string expire = StringAt(o, {"spec", "template", "spec", "expireAfter"});
      pool_expiry.emplace(name, expire.empty() ? "720h" : expire);  // the v1 default
    }
  }
  for (PendingConversion& p : pending_) {
    if (p.kubelet) KARP_RETURN_IF_ERROR(PlaceKubelet(p, classes));
  }
  for (PendingConversion& p : pending_) {
    if (!p.take_pool_expire_after) continue;
    Json& o = p.converted.object;
    const std::string pool = StringAt(o, {"metadata", "labels", std::string(kLabelNodePool)});
    if (pool.empty()) continue;  // no NodePool to look up: the v1 default applies
    std::optional<std::string> expire;
    if (auto it = pool_expiry.find(pool); it != pool_expiry.end()) expire = it->second;
    if (!expire) expire = native_expire_after(pool);
    if (expire) {
      o["spec"]["expireAfter"] = *expire;
    } else {
      warnings_.push_back(internal::StrCat(SourcePath(p.converted.source, p.converted.path),
                                           ": NodePool \"", pool,
                                           "\" is not in the input: "
                                           "expireAfter left to the v1 default 720h"));
    }
  }
  std::vector<ConvertedObject> out;
  out.reserve(pending_.size());
  for (PendingConversion& p : pending_) out.push_back(std::move(p.converted));
  pending_.clear();
  return out;
}

absl::Status DecodeConverted(
    OldApiConverter& converter, ClusterSnapshot* snap,
    const std::function<absl::Status(const ConvertedObject&, const FieldReader&)>& decode) {
  KARP_ASSIGN_OR_RETURN(
      std::vector<ConvertedObject> converted,
      converter.Finish([&](const std::string& pool) -> std::optional<std::string> {
        const NodePool* np = snap->FindNodePool(pool);
        if (np == nullptr) return std::nullopt;
        return FormatGoDurationOrNever(np->expire_after);
      }));
  snap->warnings.insert(snap->warnings.end(), converter.warnings().begin(),
                        converter.warnings().end());
  for (const ConvertedObject& c : converted) {
    const std::string kind = c.object.value("kind", "");
    const std::string api_version = c.object.value("apiVersion", "");
    KARP_ASSIGN_OR_RETURN(FieldReader item, FieldReader::Make(c.object, ""));
    if (absl::Status s = decode(c, item); !s.ok()) {
      const std::string what =
          internal::StrCat("as converted to ", api_version, " ", kind, ": ", internal::Message(s));
      return absl::InvalidArgumentError(internal::StrCat(SourcePath(c.source, c.path), ": ", what));
    }
  }
  return absl::OkStatus();
}

}  // namespace karp::json::codec_internal
