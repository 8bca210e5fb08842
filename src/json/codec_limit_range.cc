// karp::json: LimitRange (`v1`) objects of a snapshot (karp/limit_range.h), read and written
// in their Kubernetes form.

#include <map>
#include <string>
#include <utility>

#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_fields.h"
#include "json/encoders.h"
#include "karp/resources.h"

namespace karp::json::codec_internal {
namespace {

// maxLimitRequestRatio: plain ratios, kept in thousandths whatever the resource.
absl::Status ReadRatios(const FieldReader& item, ResourceList* out) {
  std::map<std::string, std::string> ratios;
  if (const Json* v = item.Get("maxLimitRequestRatio"); v != nullptr && v->is_object()) {
    for (const auto& [name, value] : v->items()) {
      const std::string path = JoinPath(item.At("maxLimitRequestRatio"), name);
      KARP_ASSIGN_OR_RETURN(std::string text, QuantityText(value, path));
      absl::StatusOr<int64_t> milli = ParseQuantity(text, kResourceCpu);
      if (!milli.ok()) return PathError(path, internal::Message(milli.status()));
      out->Set(name, *milli);
    }
    return absl::OkStatus();
  }
  return item.StringMap("maxLimitRequestRatio", &ratios);  // absent, or the type error
}

Json RatiosJson(const ResourceList& ratios) {
  Json o = Json::object();
  ratios.ForEach([&](std::string_view name, int64_t milli) {
    o[std::string(name)] = FormatQuantity(milli, kResourceCpu);
  });
  return o;
}

}  // namespace

absl::Status DecodeLimitRange(const FieldReader& item, LimitRange* out) {
  KARP_ASSIGN_OR_RETURN(FieldReader meta, item.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(meta, &out->metadata));
  if (out->metadata.namespace_.empty()) out->metadata.namespace_ = "default";
  KARP_ASSIGN_OR_RETURN(FieldReader spec, item.Object("spec"));
  KARP_RETURN_IF_ERROR(spec.Objects("limits", [&](const FieldReader& l) -> absl::Status {
    LimitRangeItem li;
    KARP_RETURN_IF_ERROR(l.RequiredString("type", &li.type));
    KARP_RETURN_IF_ERROR(l.Resources("max", &li.max));
    KARP_RETURN_IF_ERROR(l.Resources("min", &li.min));
    KARP_RETURN_IF_ERROR(l.Resources("default", &li.default_limit));
    KARP_RETURN_IF_ERROR(l.Resources("defaultRequest", &li.default_request));
    KARP_RETURN_IF_ERROR(ReadRatios(l, &li.max_limit_request_ratio));
    out->limits.push_back(std::move(li));
    return absl::OkStatus();
  }));
  absl::Status valid = ValidateLimitRange(*out);
  if (!valid.ok()) {
    return absl::InvalidArgumentError(JoinPath(item.path(), internal::Message(valid)));
  }
  return absl::OkStatus();
}

Json LimitRangeJson(const LimitRange& lr) {
  Json o = Json::object();
  o["apiVersion"] = "v1";
  o["kind"] = "LimitRange";
  o["metadata"] = ObjectMetaJson(lr.metadata, true);
  Json limits = Json::array();
  for (const LimitRangeItem& li : lr.limits) {
    Json l = Json::object();
    l["type"] = li.type;
    if (!li.max.empty()) l["max"] = ResourcesJson(li.max);
    if (!li.min.empty()) l["min"] = ResourcesJson(li.min);
    if (!li.default_limit.empty()) l["default"] = ResourcesJson(li.default_limit);
    if (!li.default_request.empty()) l["defaultRequest"] = ResourcesJson(li.default_request);
    if (!li.max_limit_request_ratio.empty()) {
      l["maxLimitRequestRatio"] = RatiosJson(li.max_limit_request_ratio);
    }
    limits.push_back(std::move(l));
  }
  o["spec"] = Json{{"limits", std::move(limits)}};
  return o;
}

}  // namespace karp::json::codec_internal
