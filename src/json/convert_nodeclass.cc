// Older AWS node classes to karpenter.k8s.aws/v1 EC2NodeClass (json/convert_old_api.h):
// v1alpha1 AWSNodeTemplate and inline v1alpha5 providers (the reference's karpenter-convert
// tool and pkg/utils/nodeclass of aws/karpenter-provider-aws v0.32, then the v1 webhook) and
// v1beta1 EC2NodeClass (the v1 webhook, v1.0 pkg/apis/v1/ec2nodeclass_conversion.go).

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/convert_old_api.h"
#include "json/field_reader.h"

namespace karp::json::codec_internal {
namespace {

// The role karpenter-convert wrote for a node template (to be substituted with envsubst).
constexpr std::string_view kRolePlaceholder = "$KARPENTER_NODE_ROLE";
constexpr std::string_view kUbuntuAnnotation = "compatibility.karpenter.sh/v1beta1-ubuntu";
constexpr std::string_view kAliasVersionAnnotation = "compatibility.karpenter.sh/v1-alias-version";
// Comma-delimited values multiply the terms of a selector; hostile input stops here.
constexpr size_t kMaxSelectorTerms = 1000;

// A comma-delimited selector value, each part trimmed of spaces.
std::vector<std::string> SplitList(std::string_view v) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = v.find(',', start);
    std::string_view part =
        v.substr(start, comma == std::string_view::npos ? v.npos : comma - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    out.emplace_back(part);
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

// A v1alpha1 selector map as v1 selector terms, as the reference's conversion expanded it:
// `aws::ids` (or `aws-ids`) one term per id; for AMIs `aws::name` and `aws::owners` one term per
// name and owner; every other key a tag whose comma-delimited values multiply the terms. v1
// takes no other field beside an id, so ids combined with other keys are an error.
absl::StatusOr<Json> SelectorTerms(const std::map<std::string, std::string>& selector,
                                   const std::string& path, bool ami) {
  std::vector<std::string> ids = {""}, names = {""}, owners = {""};
  std::vector<Json> tag_sets = {Json::object()};
  for (const auto& [key, value] : selector) {
    if (key == "aws-ids" || key == "aws::ids") {
      ids = SplitList(value);
    } else if (ami && key == "aws::name") {
      names = SplitList(value);
    } else if (ami && key == "aws::owners") {
      owners = SplitList(value);
    } else {
      std::vector<Json> next;
      for (const std::string& v : SplitList(value)) {
        for (const Json& tags : tag_sets) {
          next.push_back(tags);
          next.back()[key] = v;
        }
      }
      tag_sets = std::move(next);
    }
    if (tag_sets.size() * ids.size() * names.size() * owners.size() > kMaxSelectorTerms) {
      return PathError(
          path, internal::StrCat("expands to more than ", kMaxSelectorTerms, " selector terms"));
    }
  }
  const bool with_id = !ids.front().empty();
  if (with_id && (selector.size() > 1)) {
    return PathError(path,
                     "aws::ids cannot be combined with other keys: a v1 selector term with "
                     "an id takes no other field; split it into separate terms");
  }
  Json terms = Json::array();
  for (const std::string& owner : owners) {
    for (const std::string& id : ids) {
      for (const std::string& name : names) {
        for (const Json& tags : tag_sets) {
          Json term = Json::object();
          if (!id.empty()) term["id"] = id;
          if (!name.empty()) term["name"] = name;
          if (!owner.empty()) term["owner"] = owner;
          if (!tags.empty()) term["tags"] = tags;
          if (ami && !term.contains("id") && !term.contains("name") && !term.contains("tags")) {
            return PathError(path, "aws::owners needs aws::name or tags beside it in v1");
          }
          terms.push_back(std::move(term));
        }
      }
    }
  }
  return terms;
}

// The selector map `key` of `spec` as `out[out_key]` terms, when present.
absl::Status Selector(const Json& spec, const std::string& path, std::string_view key, bool ami,
                      std::string_view out_key, Json* out) {
  KARP_ASSIGN_OR_RETURN(FieldReader r, FieldReader::Make(spec, path));
  std::map<std::string, std::string> selector;
  KARP_RETURN_IF_ERROR(r.StringMap(key, &selector));
  if (selector.empty()) return absl::OkStatus();
  KARP_ASSIGN_OR_RETURN((*out)[std::string(out_key)], SelectorTerms(selector, r.At(key), ami));
  return absl::OkStatus();
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The v1 webhook's amiFamily step: a family with an alias and no AMI terms becomes an alias
// term `<family>@<version>`; Ubuntu becomes AL2 (with Ubuntu's root volume unless mappings are
// given) and needs AMI terms; anything else is Custom.
absl::Status AmiFamilyV1(const std::string& family, const std::string& alias_version,
                         const std::string& path, std::vector<std::string>* warnings, Json* spec,
                         Json* meta) {
  const bool has_terms = spec->contains("amiSelectorTerms");
  if (family == "AL2" || family == "AL2023" || family == "Bottlerocket" ||
      family == "Windows2019" || family == "Windows2022") {
    if (has_terms) {
      (*spec)["amiFamily"] = family;
    } else {
      (*spec)["amiSelectorTerms"] =
          Json::array({Json{{"alias", internal::StrCat(Lower(family), "@", alias_version)}}});
    }
    return absl::OkStatus();
  }
  if (family == "Ubuntu") {
    if (!has_terms) {
      return PathError(path,
                       "Ubuntu without AMI selectors has no v1 equivalent (v1 has no "
                       "Ubuntu family); select the AMIs explicitly");
    }
    std::string compat = "amiFamily";
    (*spec)["amiFamily"] = "AL2";
    if (!spec->contains("blockDeviceMappings")) {
      compat += ",blockDeviceMappings";
      (*spec)["blockDeviceMappings"] = Json::array({Json{
          {"deviceName", "/dev/sda1"},
          {"rootVolume", true},
          {"ebs", Json{{"encrypted", true}, {"volumeType", "gp3"}, {"volumeSize", "20Gi"}}}}});
    }
    KARP_RETURN_IF_ERROR(SetAnnotation(meta, kUbuntuAnnotation, compat, path));
    warnings->push_back(internal::StrCat(path, ": Ubuntu AMIs are bootstrapped as AL2 in v1"));
    return absl::OkStatus();
  }
  if (family != "Custom") {
    const std::string what =
        family.empty() ? "not set" : internal::StrCat("\"", family, "\" is not a v1 AMI family");
    warnings->push_back(
        internal::StrCat(path, ": ", what, "; Custom, as the reference's webhook converts it"));
  }
  (*spec)["amiFamily"] = "Custom";
  return absl::OkStatus();
}

// The v1alpha1 AWS fields shared by AWSNodeTemplate specs and inline providers.
absl::StatusOr<Json> AwsProviderSpec(const Json& from, const std::string& path, Json* meta,
                                     std::vector<std::string>* warnings) {
  if (from.contains("launchTemplate") && !from["launchTemplate"].is_null()) {
    return PathError(JoinPath(path, "launchTemplate"),
                     "has no v1 equivalent: v1 launches from launch templates it generates");
  }
  KARP_ASSIGN_OR_RETURN(FieldReader r, FieldReader::Make(from, path));
  std::string family = "AL2";  // karpenter-convert's default
  KARP_RETURN_IF_ERROR(r.String("amiFamily", &family));
  static constexpr std::string_view kFamilies[] = {
      "AL2", "AL2023", "Bottlerocket", "Ubuntu", "Windows2019", "Windows2022", "Custom"};
  if (std::find(std::begin(kFamilies), std::end(kFamilies), family) == std::end(kFamilies)) {
    return PathError(r.At("amiFamily"), internal::StrCat("unsupported amiFamily \"", family, "\""));
  }
  Json spec = Json::object();
  KARP_RETURN_IF_ERROR(Selector(from, path, "subnetSelector", false, "subnetSelectorTerms", &spec));
  KARP_RETURN_IF_ERROR(
      Selector(from, path, "securityGroupSelector", false, "securityGroupSelectorTerms", &spec));
  KARP_RETURN_IF_ERROR(Selector(from, path, "amiSelector", true, "amiSelectorTerms", &spec));
  static constexpr std::string_view kCopied[][2] = {{"context", "string"},
                                                    {"instanceProfile", "string"},
                                                    {"tags", "string map"},
                                                    {"userData", "string"},
                                                    {"detailedMonitoring", "boolean"},
                                                    {"metadataOptions", "object"},
                                                    {"blockDeviceMappings", "array"}};
  for (const auto& [key, type] : kCopied) {
    KARP_RETURN_IF_ERROR(CopyField(from, path, key, type, &spec, key));
  }
  if (!spec.contains("instanceProfile")) {
    spec["role"] = kRolePlaceholder;
    warnings->push_back(internal::StrCat(JoinPath(path, "instanceProfile"),
                                         ": not set: spec.role is ", kRolePlaceholder,
                                         " (as the reference's tool wrote it); "
                                         "substitute the node role"));
  }
  KARP_RETURN_IF_ERROR(
      AmiFamilyV1(family, "latest", JoinPath(path, "amiFamily"), warnings, &spec, meta));
  return spec;
}

Json NodeClassObject(Json meta, Json spec) {
  return Json{{"apiVersion", kApiAwsV1},
              {"kind", "EC2NodeClass"},
              {"metadata", std::move(meta)},
              {"spec", std::move(spec)}};
}

}  // namespace

absl::Status ConvertNodeTemplate(const ConversionContext& ctx) {
  KARP_ASSIGN_OR_RETURN(Json meta, NameLabelsAnnotations(ctx.item));
  const std::string path = ctx.item.At("spec");
  const Json empty = Json::object();
  const Json* from = ctx.item.Get("spec");
  if (from == nullptr) from = &empty;
  if (!from->is_object()) return WrongType(path, "an object", *from);
  WarnUnknownFields(*from, path,
                    {"amiFamily", "context", "instanceProfile", "subnetSelector",
                     "securityGroupSelector", "tags", "launchTemplate", "metadataOptions",
                     "blockDeviceMappings", "amiSelector", "userData", "detailedMonitoring"},
                    "a v1alpha1 AWSNodeTemplate", ctx.warnings);
  KARP_ASSIGN_OR_RETURN(Json spec, AwsProviderSpec(*from, path, &meta, ctx.warnings));
  ctx.Emit(NodeClassObject(std::move(meta), std::move(spec)));
  return absl::OkStatus();
}

absl::StatusOr<Json> ConvertInlineProvider(const Json& provider, const std::string& path,
                                           const std::string& name,
                                           std::vector<std::string>* warnings) {
  if (!provider.is_object()) return WrongType(path, "an object", provider);
  WarnUnknownFields(
      provider, path,
      {"apiVersion", "kind", "amiFamily", "context", "instanceProfile", "subnetSelector",
       "securityGroupSelector", "tags", "launchTemplate", "metadataOptions", "blockDeviceMappings"},
      "a v1alpha1 AWS provider", warnings);
  Json meta = Json{{"name", name}};
  KARP_ASSIGN_OR_RETURN(Json spec, AwsProviderSpec(provider, path, &meta, warnings));
  return NodeClassObject(std::move(meta), std::move(spec));
}

absl::Status ConvertBetaNodeClass(const ConversionContext& ctx) {
  const Json* m = ctx.item.Get("metadata");
  Json meta = m != nullptr ? *m : Json::object();
  if (!meta.is_object()) return WrongType(ctx.item.At("metadata"), "an object", meta);
  // The v1 EC2NodeClass is read back by name.
  if (auto name = meta.find("name");
      name == meta.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    return PathError(JoinPath(ctx.item.At("metadata"), "name"), "required");
  }
  const std::string path = ctx.item.At("spec");
  const Json empty = Json::object();
  const Json* from = ctx.item.Get("spec");
  if (from == nullptr) from = &empty;
  if (!from->is_object()) return WrongType(path, "an object", *from);
  static constexpr std::string_view kCopied[][2] = {{"subnetSelectorTerms", "array"},
                                                    {"securityGroupSelectorTerms", "array"},
                                                    {"amiSelectorTerms", "array"},
                                                    {"associatePublicIPAddress", "boolean"},
                                                    {"userData", "string"},
                                                    {"role", "string"},
                                                    {"instanceProfile", "string"},
                                                    {"tags", "string map"},
                                                    {"blockDeviceMappings", "array"},
                                                    {"instanceStorePolicy", "string"},
                                                    {"detailedMonitoring", "boolean"},
                                                    {"metadataOptions", "object"},
                                                    {"context", "string"}};
  Json spec = Json::object();
  for (const auto& [key, type] : kCopied) {
    KARP_RETURN_IF_ERROR(CopyField(*from, path, key, type, &spec, key));
  }
  WarnUnknownFields(*from, path,
                    {"amiFamily", "subnetSelectorTerms", "securityGroupSelectorTerms",
                     "amiSelectorTerms", "associatePublicIPAddress", "userData", "role",
                     "instanceProfile", "tags", "blockDeviceMappings", "instanceStorePolicy",
                     "detailedMonitoring", "metadataOptions", "context"},
                    "a v1beta1 EC2NodeClass", ctx.warnings);
  KARP_ASSIGN_OR_RETURN(FieldReader r, FieldReader::Make(*from, path));
  std::string family;
  KARP_RETURN_IF_ERROR(r.String("amiFamily", &family));
  // The alias version annotation pins `<family>@<version>`; the webhook removes it.
  std::string alias_version = "latest";
  if (meta.contains("annotations") && meta["annotations"].is_object()) {
    Json& annotations = meta["annotations"];
    if (auto it = annotations.find(std::string(kAliasVersionAnnotation));
        it != annotations.end() && it->is_string()) {
      alias_version = it->get<std::string>();
    }
    annotations.erase(std::string(kAliasVersionAnnotation));
  }
  KARP_RETURN_IF_ERROR(
      AmiFamilyV1(family, alias_version, r.At("amiFamily"), ctx.warnings, &spec, &meta));
  ctx.Emit(NodeClassObject(std::move(meta), std::move(spec)));
  return absl::OkStatus();
}

}  // namespace karp::json::codec_internal
