// karp::json: Service (`v1`) objects of a snapshot, of which karp reads what selects pods (the
// default topology spread selectors kube-scheduler deduces, karp/topology_defaults.h), and the
// reference's --scheduler-config document (karp::json::ParseSchedulerConfig).

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_fields.h"
#include "json/document.h"
#include "json/encoders.h"
#include "karp/json/command_io.h"
#include "karp/topology_defaults.h"

namespace karp::json {
namespace codec_internal {

absl::Status DecodeService(const FieldReader& item, Service* out) {
  KARP_ASSIGN_OR_RETURN(FieldReader meta, item.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(meta, &out->metadata));
  if (out->metadata.namespace_.empty()) out->metadata.namespace_ = "default";
  KARP_ASSIGN_OR_RETURN(FieldReader spec, item.Object("spec"));
  if (spec.Get("selector") != nullptr) {
    std::map<std::string, std::string> selector;
    KARP_RETURN_IF_ERROR(spec.StringMap("selector", &selector));
    out->selector = std::move(selector);
  }
  return absl::OkStatus();
}

Json ServiceJson(const Service& s) {
  Json o = Json::object();
  o["apiVersion"] = "v1";
  o["kind"] = "Service";
  o["metadata"] = ObjectMetaJson(s.metadata, true);
  Json spec = Json::object();
  if (s.selector) {
    Json selector = Json::object();
    for (const auto& [k, v] : *s.selector) selector[k] = v;
    spec["selector"] = std::move(selector);
  }
  o["spec"] = std::move(spec);
  return o;
}

}  // namespace codec_internal

namespace {

using codec_internal::FieldReader;
using codec_internal::Json;

absl::StatusOr<SchedulerConfig> DecodeSchedulerConfig(const Json& v) {
  SchedulerConfig config;
  if (v.is_null()) return config;  // an empty document: no overrides
  KARP_ASSIGN_OR_RETURN(FieldReader root, FieldReader::MakeStrict(v, "", {"podTopologySpread"}));
  const Json* spread = root.Get("podTopologySpread");
  if (spread == nullptr || spread->is_null()) return config;
  KARP_ASSIGN_OR_RETURN(
      FieldReader pts,
      FieldReader::MakeStrict(*spread, root.At("podTopologySpread"), {"defaultConstraints"}));
  KARP_RETURN_IF_ERROR(pts.Objects("defaultConstraints", [&](const FieldReader& o) -> absl::Status {
    KARP_ASSIGN_OR_RETURN(
        FieldReader c, FieldReader::MakeStrict(*o.value(), o.path(),
                                               {"maxSkew", "topologyKey", "whenUnsatisfiable",
                                                "labelSelector", "minDomains", "nodeAffinityPolicy",
                                                "nodeTaintsPolicy", "matchLabelKeys"}));
    TopologySpreadConstraint tsc;
    KARP_RETURN_IF_ERROR(codec_internal::DecodeTopologySpread(c, &tsc));
    config.default_topology_spread.push_back(std::move(tsc));
    return absl::OkStatus();
  }));
  KARP_RETURN_IF_ERROR(ValidateDefaultTopologySpread(config.default_topology_spread));
  return config;
}

}  // namespace

namespace {

// The documents of `text`; a YAML flow mapping (`{podTopologySpread: ...}`, which the
// reference's YAML decoder takes) is read as YAML when it is not JSON.
absl::StatusOr<std::vector<codec_internal::Document>> LoadConfig(std::string_view text,
                                                                 std::string_view source) {
  absl::StatusOr<std::vector<codec_internal::Document>> docs =
      codec_internal::LoadDocuments(text, source);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (docs.ok() || first == std::string_view::npos || text[first] != '{') return docs;
  absl::StatusOr<std::vector<codec_internal::Document>> yaml =
      codec_internal::LoadDocuments(internal::StrCat("---\n", text), source);
  return yaml.ok() ? yaml : docs;
}

}  // namespace

absl::StatusOr<SchedulerConfig> ParseSchedulerConfig(std::string_view text,
                                                     std::string_view source) {
  try {
    KARP_ASSIGN_OR_RETURN(std::vector<codec_internal::Document> docs, LoadConfig(text, source));
    if (docs.empty()) return SchedulerConfig{};
    if (docs.size() != 1) {
      return absl::InvalidArgumentError(
          internal::StrCat(source, ": expected one scheduler configuration document"));
    }
    absl::StatusOr<SchedulerConfig> config = DecodeSchedulerConfig(docs[0].value);
    if (!config.ok()) {
      return absl::InvalidArgumentError(
          internal::StrCat(source, ": ", internal::Message(config.status())));
    }
    return config;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": ", e.what()));
  }
}

absl::StatusOr<SchedulerConfig> SchedulerConfigFromFlag(std::string_view value) {
  constexpr std::string_view kFlag = "--scheduler-config";
  bool document = false;
  try {
    absl::StatusOr<std::vector<codec_internal::Document>> docs = LoadConfig(value, kFlag);
    // A plain string is a path; anything else (a mapping, or text that does not parse) is
    // a document, whose errors ParseSchedulerConfig names.
    document = !docs.ok() || docs->empty() || !docs->front().value.is_string();
  } catch (const std::exception&) {
    document = true;  // reported by ParseSchedulerConfig
  }
  if (document) return ParseSchedulerConfig(value, kFlag);
  const std::string path(value);
  absl::StatusOr<std::string> text = codec_internal::ReadWholeFile(path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(internal::StrCat(
        kFlag, ": \"", value, "\" is neither a scheduler configuration document nor a file: ",
        internal::Message(text.status())));
  }
  return ParseSchedulerConfig(*text, path);
}

}  // namespace karp::json
