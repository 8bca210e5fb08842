// Older core APIs to karpenter.sh/v1 (json/convert_old_api.h): v1alpha5 Provisioner (the
// reference's karpenter-convert tool, then the v1beta1 -> v1 webhook) and v1beta1 NodePool and
// NodeClaim (the v1 conversion webhooks, kubernetes-sigs/karpenter v1.0
// pkg/apis/v1/{nodepool,nodeclaim}_conversion.go).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_util.h"
#include "json/convert_old_api.h"
#include "json/encoders.h"
#include "json/field_reader.h"
#include "karp/labels.h"

namespace karp::json::codec_internal {
namespace {

constexpr std::string_view kWhenEmpty = "WhenEmpty";
constexpr std::string_view kWhenEmptyOrUnderutilized = "WhenEmptyOrUnderutilized";
// The largest whole number of seconds a Go duration holds.
constexpr int64_t kMaxSeconds = INT64_MAX / 1000000000;

// The v1alpha5 `ttlSeconds*` field `key` as a Go duration, or nullopt when absent.
absl::StatusOr<std::optional<std::string>> SecondsField(const Json& spec, const std::string& path,
                                                        std::string_view key) {
  const auto it = spec.find(std::string(key));
  if (it == spec.end() || it->is_null()) return std::optional<std::string>();
  const std::string at = JoinPath(path, key);
  KARP_ASSIGN_OR_RETURN(int64_t seconds, AsInt64(*it, at));
  if (seconds < 0 || seconds > kMaxSeconds) {
    return PathError(at, internal::StrCat("must be between 0 and ", kMaxSeconds, " seconds"));
  }
  return std::optional<std::string>(FormatGoDuration(absl::Seconds(seconds)));
}

// The v1alpha5 requirements with the defaults the reference's Provisioner webhook added and
// karpenter-convert kept (os linux, arch amd64, capacity type on-demand, and categories c, m, r
// of generation > 2 when nothing constrains the instance type).
absl::StatusOr<Json> ProvisionerRequirements(const Json& spec, const std::string& path) {
  Json reqs = Json::array();
  KARP_RETURN_IF_ERROR(CopyField(spec, path, "requirements", "array", &reqs, ""));
  std::vector<std::string> keys;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const std::string at = IndexPath(JoinPath(path, "requirements"), i);
    if (!reqs[i].is_object()) return WrongType(at, "an object", reqs[i]);
    KARP_ASSIGN_OR_RETURN(FieldReader r, FieldReader::Make(reqs[i], at));
    std::string key;
    KARP_RETURN_IF_ERROR(r.RequiredString("key", &key));
    keys.emplace_back(NormalizeLabelKey(key));
  }
  auto has = [&](std::string_view key) {
    for (const std::string& k : keys) {
      if (k == key) return true;
    }
    return false;
  };
  auto add = [&](std::string_view key, std::string_view op, std::vector<std::string> values) {
    reqs.push_back(Json{{"key", key}, {"operator", op}, {"values", std::move(values)}});
  };
  if (!has(kLabelOs)) add(kLabelOs, "In", {"linux"});
  if (!has(kLabelArch)) add(kLabelArch, "In", {"amd64"});
  if (!has(kLabelCapacityType)) add(kLabelCapacityType, "In", {"on-demand"});
  if (!has(kLabelInstanceType) && !has("karpenter.k8s.aws/instance-family") &&
      !has("karpenter.k8s.aws/instance-category") &&
      !has("karpenter.k8s.aws/instance-generation")) {
    add("karpenter.k8s.aws/instance-category", "In", {"c", "m", "r"});
    add("karpenter.k8s.aws/instance-generation", "Gt", {"2"});
  }
  return reqs;
}

// v1alpha5 ttlSecondsAfterEmpty / consolidation.enabled -> v1 disruption.
absl::Status ProvisionerDisruption(const Json& spec, const std::string& path,
                                   const ConversionContext& ctx, Json* disruption) {
  KARP_ASSIGN_OR_RETURN(std::optional<std::string> after_empty,
                        SecondsField(spec, path, "ttlSecondsAfterEmpty"));
  KARP_ASSIGN_OR_RETURN(const Json* consolidation, ObjectField(spec, path, "consolidation"));
  std::optional<bool> enabled;
  if (consolidation != nullptr) {
    const std::string cpath = JoinPath(path, "consolidation");
    WarnUnknownFields(*consolidation, cpath, {"enabled"}, "v1alpha5 consolidation", ctx.warnings);
    KARP_ASSIGN_OR_RETURN(FieldReader c, FieldReader::Make(*consolidation, cpath));
    KARP_RETURN_IF_ERROR(c.Bool("enabled", &enabled));
  }
  if (enabled.value_or(false)) {
    (*disruption)["consolidationPolicy"] = kWhenEmptyOrUnderutilized;
    (*disruption)["consolidateAfter"] = "0s";
    if (after_empty) {
      ctx.Warn(JoinPath(path, "ttlSecondsAfterEmpty"),
               "dropped: consolidation.enabled takes precedence, as in the reference's conversion");
    }
  } else if (after_empty) {
    (*disruption)["consolidationPolicy"] = kWhenEmpty;
    (*disruption)["consolidateAfter"] = *after_empty;
  } else {
    // karpenter-convert leaves the policy unset: the v1beta1 default WhenUnderutilized applies.
    (*disruption)["consolidationPolicy"] = kWhenEmptyOrUnderutilized;
    (*disruption)["consolidateAfter"] = "0s";
    ctx.Warn(path,
             "neither consolidation.enabled nor ttlSecondsAfterEmpty is set: v1alpha5 removed no "
             "nodes, the converted NodePool consolidates WhenEmptyOrUnderutilized (the "
             "reference's default); set spec.disruption.consolidateAfter: Never to keep them");
  }
  (*disruption)["budgets"] = Json::array({Json{{"nodes", "10%"}}});
  return absl::OkStatus();
}

// A reference {kind, name, apiVersion} (v1alpha5 providerRef, v1beta1 nodeClassRef) as a v1
// nodeClassRef {group, kind, name}: kind EC2NodeClass and group karpenter.k8s.aws by default
// (the webhooks' defaults); the v1alpha1 kind AWSNodeTemplate becomes EC2NodeClass.
absl::StatusOr<Json> NodeClassRefV1(const Json& ref, const std::string& path) {
  KARP_ASSIGN_OR_RETURN(FieldReader r, FieldReader::Make(ref, path));
  std::string name, kind, api_version;
  KARP_RETURN_IF_ERROR(r.RequiredString("name", &name));
  KARP_RETURN_IF_ERROR(r.String("kind", &kind));
  KARP_RETURN_IF_ERROR(r.String("apiVersion", &api_version));
  if (kind.empty() || kind == "AWSNodeTemplate") kind = "EC2NodeClass";
  std::string group(kGroupAws);
  if (!api_version.empty()) group = api_version.substr(0, api_version.find('/'));
  return Json{{"group", group}, {"kind", kind}, {"name", name}};
}

// v1alpha5 providerRef or inline provider -> v1 nodeClassRef (and the provider's EC2NodeClass).
absl::Status ProvisionerNodeClass(const Json& spec, const std::string& path, const Json& meta,
                                  const ConversionContext& ctx, Json* tspec,
                                  std::optional<Json>* provider_class) {
  KARP_ASSIGN_OR_RETURN(const Json* ref, ObjectField(spec, path, "providerRef"));
  const auto provider = spec.find("provider");
  const bool has_provider = provider != spec.end() && !provider->is_null();
  if (ref != nullptr && has_provider) {
    return PathError(JoinPath(path, "provider"), "cannot be combined with spec.providerRef");
  }
  if (ref != nullptr) {
    KARP_ASSIGN_OR_RETURN((*tspec)["nodeClassRef"],
                          NodeClassRefV1(*ref, JoinPath(path, "providerRef")));
  } else if (has_provider) {
    const std::string name = meta.value("name", "");
    KARP_ASSIGN_OR_RETURN(
        Json nodeclass,
        ConvertInlineProvider(*provider, JoinPath(path, "provider"), name, ctx.warnings));
    (*tspec)["nodeClassRef"] = Json{{"group", kGroupAws}, {"kind", "EC2NodeClass"}, {"name", name}};
    *provider_class = std::move(nodeclass);
  } else {
    ctx.Warn(JoinPath(path, "providerRef"),
             "not set: the v1 NodePool has no spec.template.spec.nodeClassRef, which v1 requires");
  }
  return absl::OkStatus();
}

// Kubelet settings (v1alpha5 kubeletConfiguration, v1beta1 kubelet) as v1 EC2NodeClass
// spec.kubelet: the same fields, containerRuntime dropped (as the reference did).
absl::StatusOr<Json> KubeletSettings(const Json& kubelet, const std::string& path,
                                     const ConversionContext& ctx) {
  static constexpr std::string_view kFields[][2] = {{"clusterDNS", "array"},
                                                    {"maxPods", "number"},
                                                    {"podsPerCore", "number"},
                                                    {"systemReserved", "object"},
                                                    {"kubeReserved", "object"},
                                                    {"evictionHard", "object"},
                                                    {"evictionSoft", "object"},
                                                    {"evictionSoftGracePeriod", "object"},
                                                    {"evictionMaxPodGracePeriod", "number"},
                                                    {"imageGCHighThresholdPercent", "number"},
                                                    {"imageGCLowThresholdPercent", "number"},
                                                    {"cpuCFSQuota", "boolean"}};
  Json out = Json::object();
  for (const auto& [key, type] : kFields) {
    KARP_RETURN_IF_ERROR(CopyField(kubelet, path, key, type, &out, key));
  }
  for (const auto& [key, value] : kubelet.items()) {
    bool known = false;
    for (const auto& f : kFields) known = known || f[0] == key;
    if (known || value.is_null()) continue;
    ctx.Warn(JoinPath(path, key), key == "containerRuntime"
                                      ? "dropped: v1 has no containerRuntime (containerd only)"
                                      : "not a kubelet setting of v1; dropped");
  }
  return out;
}

// The kubelet object `key` of `spec` as v1 settings, or nullopt when absent.
absl::StatusOr<std::optional<Json>> KubeletField(const Json& spec, const std::string& path,
                                                 std::string_view key,
                                                 const ConversionContext& ctx) {
  KARP_ASSIGN_OR_RETURN(const Json* kubelet, ObjectField(spec, path, key));
  if (kubelet == nullptr) return std::optional<Json>();
  KARP_ASSIGN_OR_RETURN(Json settings, KubeletSettings(*kubelet, JoinPath(path, key), ctx));
  return std::optional<Json>(std::move(settings));
}

// The object at `key` of the item (an empty object when absent). Errors: wrong type.
absl::StatusOr<Json> ItemObject(const FieldReader& item, std::string_view key) {
  const Json* v = item.Get(key);
  if (v == nullptr) return Json::object();
  if (!v->is_object()) return WrongType(item.At(key), "an object", *v);
  return *v;
}

Json NewObject(std::string_view api_version, std::string_view kind, Json meta) {
  return Json{{"apiVersion", api_version}, {"kind", kind}, {"metadata", std::move(meta)}};
}

// v1beta1 disruption -> v1 disruption (+ template expireAfter): WhenUnderutilized becomes
// WhenEmptyOrUnderutilized with consolidateAfter 0s; budgets keep nodes, schedule, duration.
absl::Status BetaDisruption(const Json& spec, const std::string& path, const ConversionContext& ctx,
                            Json* disruption, Json* tspec) {
  KARP_ASSIGN_OR_RETURN(const Json* d, ObjectField(spec, path, "disruption"));
  const Json empty = Json::object();
  const std::string dpath = JoinPath(path, "disruption");
  if (d == nullptr) d = &empty;
  WarnUnknownFields(*d, dpath,
                    {"consolidationPolicy", "consolidateAfter", "expireAfter", "budgets"},
                    "v1beta1 disruption", ctx.warnings);
  KARP_ASSIGN_OR_RETURN(FieldReader r, FieldReader::Make(*d, dpath));
  std::string policy = "WhenUnderutilized", expire = "720h";
  KARP_RETURN_IF_ERROR(r.String("consolidationPolicy", &policy));
  KARP_RETURN_IF_ERROR(r.String("expireAfter", &expire));
  (*tspec)["expireAfter"] = expire;
  if (policy == "WhenUnderutilized") {
    (*disruption)["consolidationPolicy"] = kWhenEmptyOrUnderutilized;
    (*disruption)["consolidateAfter"] = "0s";
    if (r.Get("consolidateAfter") != nullptr) {
      ctx.Warn(r.At("consolidateAfter"),
               "dropped: WhenUnderutilized converts to WhenEmptyOrUnderutilized with "
               "consolidateAfter 0s, as the reference's webhook does");
    }
  } else if (policy == kWhenEmpty) {
    if (r.Get("consolidateAfter") == nullptr) {
      return PathError(r.At("consolidateAfter"), "required with consolidationPolicy WhenEmpty");
    }
    (*disruption)["consolidationPolicy"] = kWhenEmpty;
    KARP_RETURN_IF_ERROR(
        CopyField(*d, dpath, "consolidateAfter", "string", disruption, "consolidateAfter"));
  } else {
    return PathError(r.At("consolidationPolicy"),
                     internal::StrCat("unsupported v1beta1 consolidationPolicy \"", policy,
                                      "\"; expected WhenEmpty or WhenUnderutilized"));
  }
  Json budgets = Json::array({Json{{"nodes", "10%"}}});
  if (r.Get("budgets") != nullptr) budgets = Json::array();
  KARP_RETURN_IF_ERROR(r.Objects("budgets", [&](const FieldReader& b) -> absl::Status {
    Json budget = Json{{"nodes", "10%"}};
    for (std::string_view key : {"nodes", "schedule", "duration"}) {
      if (const Json* v = b.Get(key); v != nullptr) budget[std::string(key)] = *v;
    }
    budgets.push_back(std::move(budget));
    return absl::OkStatus();
  }));
  (*disruption)["budgets"] = std::move(budgets);
  return absl::OkStatus();
}

// The v1beta1 template/NodeClaim spec fields that v1 keeps as they are.
absl::Status CopyClaimSpec(const Json& from, const std::string& path, Json* to) {
  for (std::string_view key : {"requirements", "taints", "startupTaints"}) {
    KARP_RETURN_IF_ERROR(CopyField(from, path, key, "array", to, key));
  }
  KARP_ASSIGN_OR_RETURN(const Json* ref, ObjectField(from, path, "nodeClassRef"));
  if (ref != nullptr) {
    KARP_ASSIGN_OR_RETURN((*to)["nodeClassRef"],
                          NodeClassRefV1(*ref, JoinPath(path, "nodeClassRef")));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ConvertProvisioner(const ConversionContext& ctx) {
  KARP_ASSIGN_OR_RETURN(Json meta, NameLabelsAnnotations(ctx.item));
  KARP_ASSIGN_OR_RETURN(Json spec, ItemObject(ctx.item, "spec"));
  const std::string path = ctx.item.At("spec");
  WarnUnknownFields(spec, path,
                    {"annotations", "labels", "taints", "startupTaints", "requirements",
                     "kubeletConfiguration", "provider", "providerRef", "ttlSecondsAfterEmpty",
                     "ttlSecondsUntilExpired", "limits", "weight", "consolidation"},
                    "a v1alpha5 Provisioner", ctx.warnings);
  Json tmeta = Json::object(), tspec = Json::object(), pool_spec = Json::object();
  KARP_RETURN_IF_ERROR(CopyField(spec, path, "labels", "string map", &tmeta, "labels"));
  KARP_RETURN_IF_ERROR(CopyField(spec, path, "annotations", "string map", &tmeta, "annotations"));
  KARP_ASSIGN_OR_RETURN(tspec["requirements"], ProvisionerRequirements(spec, path));
  KARP_RETURN_IF_ERROR(CopyField(spec, path, "taints", "array", &tspec, "taints"));
  KARP_RETURN_IF_ERROR(CopyField(spec, path, "startupTaints", "array", &tspec, "startupTaints"));
  std::optional<Json> provider_class;
  KARP_RETURN_IF_ERROR(ProvisionerNodeClass(spec, path, meta, ctx, &tspec, &provider_class));
  KARP_ASSIGN_OR_RETURN(std::optional<std::string> expire,
                        SecondsField(spec, path, "ttlSecondsUntilExpired"));
  tspec["expireAfter"] = expire.value_or(std::string(kNever));
  KARP_RETURN_IF_ERROR(ProvisionerDisruption(spec, path, ctx, &pool_spec["disruption"]));
  KARP_ASSIGN_OR_RETURN(const Json* limits, ObjectField(spec, path, "limits"));
  if (limits != nullptr) {
    const std::string lpath = JoinPath(path, "limits");
    WarnUnknownFields(*limits, lpath, {"resources"}, "v1alpha5 limits", ctx.warnings);
    KARP_RETURN_IF_ERROR(CopyField(*limits, lpath, "resources", "object", &pool_spec, "limits"));
  }
  KARP_RETURN_IF_ERROR(CopyField(spec, path, "weight", "number", &pool_spec, "weight"));
  KARP_ASSIGN_OR_RETURN(std::optional<Json> kubelet,
                        KubeletField(spec, path, "kubeletConfiguration", ctx));
  pool_spec["template"] = Json{{"metadata", std::move(tmeta)}, {"spec", std::move(tspec)}};
  Json pool = NewObject(kApiV1, "NodePool", std::move(meta));
  pool["spec"] = std::move(pool_spec);
  ctx.Emit(std::move(pool), std::move(kubelet));
  if (provider_class) ctx.Emit(std::move(*provider_class));
  return absl::OkStatus();
}

absl::Status ConvertBetaNodePool(const ConversionContext& ctx) {
  KARP_ASSIGN_OR_RETURN(Json meta, ItemObject(ctx.item, "metadata"));
  KARP_ASSIGN_OR_RETURN(Json spec, ItemObject(ctx.item, "spec"));
  const std::string path = ctx.item.At("spec");
  WarnUnknownFields(spec, path, {"template", "disruption", "limits", "weight"},
                    "a v1beta1 NodePool", ctx.warnings);
  KARP_ASSIGN_OR_RETURN(const Json* tmpl, ObjectField(spec, path, "template"));
  const Json empty = Json::object();
  const std::string tpath = JoinPath(path, "template");
  KARP_ASSIGN_OR_RETURN(const Json* from_spec, ObjectField(tmpl ? *tmpl : empty, tpath, "spec"));
  const std::string spath = JoinPath(tpath, "spec");
  if (from_spec == nullptr) from_spec = &empty;
  WarnUnknownFields(*from_spec, spath,
                    {"requirements", "taints", "startupTaints", "kubelet", "nodeClassRef"},
                    "a v1beta1 NodePool template", ctx.warnings);
  Json tspec = Json::object(), pool_spec = Json::object(), tmeta = Json::object();
  if (tmpl != nullptr) {
    KARP_RETURN_IF_ERROR(CopyField(*tmpl, tpath, "metadata", "object", &tmeta, ""));
  }
  KARP_RETURN_IF_ERROR(CopyClaimSpec(*from_spec, spath, &tspec));
  if (!tspec.contains("nodeClassRef")) {
    ctx.Warn(JoinPath(spath, "nodeClassRef"), "not set: v1 requires a nodeClassRef");
  }
  KARP_RETURN_IF_ERROR(BetaDisruption(spec, path, ctx, &pool_spec["disruption"], &tspec));
  KARP_RETURN_IF_ERROR(CopyField(spec, path, "limits", "object", &pool_spec, "limits"));
  KARP_RETURN_IF_ERROR(CopyField(spec, path, "weight", "number", &pool_spec, "weight"));
  KARP_ASSIGN_OR_RETURN(std::optional<Json> kubelet,
                        KubeletField(*from_spec, spath, "kubelet", ctx));
  pool_spec["template"] = Json{{"metadata", std::move(tmeta)}, {"spec", std::move(tspec)}};
  Json pool = NewObject(kApiV1, "NodePool", std::move(meta));
  pool["spec"] = std::move(pool_spec);
  ctx.Emit(std::move(pool), std::move(kubelet));
  return absl::OkStatus();
}

absl::Status ConvertBetaNodeClaim(const ConversionContext& ctx) {
  KARP_ASSIGN_OR_RETURN(Json meta, ItemObject(ctx.item, "metadata"));
  KARP_ASSIGN_OR_RETURN(Json spec, ItemObject(ctx.item, "spec"));
  const std::string path = ctx.item.At("spec");
  WarnUnknownFields(
      spec, path,
      {"requirements", "taints", "startupTaints", "kubelet", "nodeClassRef", "resources"},
      "a v1beta1 NodeClaim", ctx.warnings);
  Json out_spec = Json::object();
  KARP_RETURN_IF_ERROR(CopyClaimSpec(spec, path, &out_spec));
  KARP_RETURN_IF_ERROR(CopyField(spec, path, "resources", "object", &out_spec, "resources"));
  // The webhook keeps a NodeClaim's kubelet settings in the compatibility annotation.
  KARP_ASSIGN_OR_RETURN(std::optional<Json> kubelet, KubeletField(spec, path, "kubelet", ctx));
  if (kubelet) {
    KARP_RETURN_IF_ERROR(
        SetAnnotation(&meta, kKubeletAnnotation, Dump(*kubelet, -1), ctx.item.At("metadata")));
  }
  Json claim = NewObject(kApiV1, "NodeClaim", std::move(meta));
  claim["spec"] = std::move(out_spec);
  if (const Json* status = ctx.item.Get("status"); status != nullptr) claim["status"] = *status;
  ctx.Emit(std::move(claim), std::nullopt, /*take_pool_expire_after=*/true);
  return absl::OkStatus();
}

}  // namespace karp::json::codec_internal
