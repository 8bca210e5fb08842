// karp::json run layer (karp/json/command_io.h): the C API's options, and the CLI's outputs in each
// format, written once for both.

#include "karp/json/command_io.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_util.h"
#include "json/schema.h"
#include "karp/json/codec.h"

namespace karp::json {
namespace {

using OJson = nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------
// YAML output

// Whether `s` reads back from plain (unquoted) YAML as this same string.
bool PlainSafe(const std::string& s) {
  if (s.empty()) return false;
  const char first = s[0];
  const bool first_ok = (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') ||
                        first == '_' || first == '/';
  if (!first_ok) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '/' || c == '.' || c == '-';
    if (!ok) return false;
  }
  std::string lower;
  for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  for (const char* word : {"true", "false", "yes", "no", "on", "off", "y", "n", "null"}) {
    if (lower == word) return false;
  }
  return true;
}

// A JSON string is a valid YAML double-quoted scalar.
std::string QuotedIfNeeded(const std::string& s) {
  return PlainSafe(s) ? s : OJson(s).dump(-1, ' ', false, OJson::error_handler_t::replace);
}

bool IsBlock(const OJson& v) { return (v.is_object() || v.is_array()) && !v.empty(); }

std::string Scalar(const OJson& v) {
  if (v.is_string()) return QuotedIfNeeded(v.get<std::string>());
  if (v.is_object()) return "{}";
  if (v.is_array()) return "[]";
  return v.dump();
}

void EmitBlock(const OJson& v, int indent, std::string* out);

// A block item of a sequence: its first line starts with "- " where its indentation was.
void EmitSequenceItem(const OJson& item, int indent, std::string* out) {
  const std::string pad(indent, ' ');
  if (!IsBlock(item)) {
    *out += pad + "- " + Scalar(item) + "\n";
    return;
  }
  std::string inner;
  EmitBlock(item, indent + 2, &inner);
  *out += pad + "- " + inner.substr(indent + 2);
}

void EmitBlock(const OJson& v, int indent, std::string* out) {
  const std::string pad(indent, ' ');
  if (v.is_array()) {
    for (const OJson& item : v) EmitSequenceItem(item, indent, out);
    return;
  }
  for (const auto& [key, value] : v.items()) {
    *out += pad + QuotedIfNeeded(key) + ":";
    if (IsBlock(value)) {
      *out += "\n";
      EmitBlock(value, value.is_array() ? indent : indent + 2, out);
    } else {
      *out += " " + Scalar(value) + "\n";
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Options

absl::Status FieldError(std::string_view source, std::string_view field, std::string_view what) {
  return absl::InvalidArgumentError(internal::StrCat(source, ": ", field, ": ", what));
}

absl::Status ReadString(const OJson& v, std::string_view source, std::string_view field,
                        std::initializer_list<std::string_view> allowed, std::string* out) {
  if (!v.is_string()) return FieldError(source, field, "must be a string");
  std::string s = v.get<std::string>();
  if (allowed.size() > 0) {
    bool found = false;
    std::string names;
    for (std::string_view a : allowed) {
      found = found || a == s;
      names += internal::StrCat(names.empty() ? "" : ", ", a);
    }
    if (!found) {
      return FieldError(source, field,
                        internal::StrCat("must be one of ", names, ", got \"",
                                         internal::EscapeForMessage(s), "\""));
    }
  }
  *out = std::move(s);
  return absl::OkStatus();
}

absl::Status ReadStrings(const OJson& v, std::string_view source, std::string_view field,
                         std::vector<std::string>* out) {
  if (!v.is_array()) return FieldError(source, field, "must be a list of strings");
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      return FieldError(source, internal::StrCat(field, "[", i, "]"), "must be a string");
    }
    out->push_back(v[i].get<std::string>());
  }
  return absl::OkStatus();
}

absl::Status ReadBool(const OJson& v, std::string_view source, std::string_view field, bool* out) {
  if (!v.is_boolean()) return FieldError(source, field, "must be true or false");
  *out = v.get<bool>();
  return absl::OkStatus();
}

absl::Status ReadDuration(const OJson& v, std::string_view source, std::string_view field,
                          std::optional<absl::Duration>* out) {
  if (!v.is_string()) return FieldError(source, field, "must be a duration such as \"60s\"");
  absl::StatusOr<absl::Duration> d = codec_internal::ParseGoDuration(v.get<std::string>());
  if (!d.ok()) return FieldError(source, field, std::string(d.status().message()));
  if (*d < absl::Seconds(1)) return FieldError(source, field, "must be at least 1s");
  *out = *d;
  return absl::OkStatus();
}

absl::Status ReadNow(const OJson& v, std::string_view source, RunOptions* o) {
  absl::Time t;
  std::string err;
  if (!v.is_string() || !absl::ParseTime(absl::RFC3339_full, v.get<std::string>(), &t, &err)) {
    return FieldError(source, "now", "must be an RFC3339 time such as \"2026-01-01T00:00:00Z\"");
  }
  o->now = t;
  return absl::OkStatus();
}

absl::Status ReadInt(const OJson& v, std::string_view source, std::string_view field, int lo,
                     int hi, int* out) {
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi) {
    return FieldError(source, field, internal::StrCat("must be an integer from ", lo, " to ", hi));
  }
  *out = static_cast<int>(v.get<int64_t>());
  return absl::OkStatus();
}

absl::Status ReadSchedulerField(const std::string& key, const OJson& v, std::string_view source,
                                SchedulerOptions* o, bool* known) {
  *known = true;
  std::string s;
  if (key == "preferencePolicy") {
    if (absl::Status st = ReadString(v, source, key, {"Respect", "Ignore"}, &s); !st.ok())
      return st;
    o->preference_policy = s == "Ignore" ? PreferencePolicy::kIgnore : PreferencePolicy::kRespect;
  } else if (key == "minValuesPolicy") {
    if (absl::Status st = ReadString(v, source, key, {"Strict", "BestEffort"}, &s); !st.ok()) {
      return st;
    }
    o->min_values_policy =
        s == "BestEffort" ? MinValuesPolicy::kBestEffort : MinValuesPolicy::kStrict;
  } else if (key == "maxInstanceTypes") {
    return ReadInt(v, source, key, 1, 100000, &o->max_instance_types);
  } else {
    *known = false;
  }
  return absl::OkStatus();
}

// The cost packing mode's options (karp solve --packing, --cost-*).
absl::Status ReadPackingField(const std::string& key, const OJson& v, std::string_view source,
                              SchedulerOptions* o, bool* known) {
  *known = true;
  if (key == "packing") {
    std::string s;
    if (absl::Status st = ReadString(v, source, key, {"faithful", "cost"}, &s); !st.ok()) {
      return st;
    }
    o->packing = s == "cost" ? PackingMode::kCost : PackingMode::kFaithful;
    return absl::OkStatus();
  }
  if (key == "costAttempts") return ReadInt(v, source, key, 0, 10, &o->cost_attempts);
  if (key == "costThreads") return ReadInt(v, source, key, 0, 1024, &o->cost_threads);
  if (key == "costRepackRounds") {
    return ReadInt(v, source, key, 0, 3, &o->cost_repack_rounds);
  }
  if (key == "costPoolOrder") {
    std::string s;
    if (absl::Status st = ReadString(v, source, key, {"weight", "price"}, &s); !st.ok()) {
      return st;
    }
    o->cost_pool_order = s == "price" ? PoolOrder::kPrice : PoolOrder::kWeight;
    return absl::OkStatus();
  }
  if (key == "costDeadline") {
    if (!v.is_string()) return FieldError(source, key, "must be a duration such as \"2s\"");
    absl::StatusOr<absl::Duration> parsed = codec_internal::ParseGoDuration(v.get<std::string>());
    if (!parsed.ok() || *parsed <= absl::ZeroDuration()) {
      return FieldError(source, key, "must be a positive duration such as \"2s\"");
    }
    o->cost_time_limit = *parsed;
    return absl::OkStatus();
  }
  *known = false;
  return absl::OkStatus();
}

absl::Status ReadField(const std::string& key, const OJson& v, std::string_view source,
                       RunOptions* o) {
  if (key == "output")
    return ReadString(v, source, key, {"json", "yaml", "nodeclaims"}, &o->output);
  if (key == "catalog") return ReadString(v, source, key, {"aws", "sim"}, &o->catalog);
  if (key == "region") return ReadString(v, source, key, {}, &o->region);
  if (key == "zones") return ReadStrings(v, source, key, &o->zones);
  if (key == "now") return ReadNow(v, source, o);
  if (key == "once") return ReadBool(v, source, key, &o->once);
  if (key == "spotToSpot") return ReadBool(v, source, key, &o->spot_to_spot);
  if (key == "legacyOrder") return ReadBool(v, source, key, &o->legacy_order);
  if (key == "repack") return ReadBool(v, source, key, &o->repack);
  if (key == "expandWorkloads") return ReadBool(v, source, key, &o->expand_workloads);
  if (key == "nodeOverlays") return ReadBool(v, source, key, &o->node_overlays);
  if (key == "schedulerConfig") {
    std::string doc;
    KARP_RETURN_IF_ERROR(ReadString(v, source, key, {}, &doc));
    absl::StatusOr<SchedulerConfig> config =
        ParseSchedulerConfig(doc, internal::StrCat(source, ": schedulerConfig"));
    if (!config.ok()) return config.status();
    o->scheduler.default_topology_spread = std::move(config->default_topology_spread);
    return absl::OkStatus();
  }
  if (key == "validate") {
    std::string mode;
    KARP_RETURN_IF_ERROR(ReadString(v, source, key, {"strict", "warn", "ignore"}, &mode));
    o->validation = mode == "strict" ? FieldValidation::kStrict
                    : mode == "warn" ? FieldValidation::kWarn
                                     : FieldValidation::kIgnore;
    return absl::OkStatus();
  }
  if (key == "policies") return ReadStrings(v, source, key, &o->policies);
  if (key == "sample") return ReadDuration(v, source, key, &o->sample);
  if (key == "disruptionInterval") return ReadDuration(v, source, key, &o->disruption_interval);
  if (key == "launchLatency") return ReadDuration(v, source, key, &o->launch_latency);
  bool known = false;
  absl::Status s = ReadSchedulerField(key, v, source, &o->scheduler, &known);
  if (!known) s = ReadPackingField(key, v, source, &o->scheduler, &known);
  if (!known) {
    // Every option ReadField and the readers it calls take (for the suggestion).
    static const std::vector<std::string_view> kOptions = {"catalog",
                                                           "costAttempts",
                                                           "costDeadline",
                                                           "costPoolOrder",
                                                           "costRepackRounds",
                                                           "costThreads",
                                                           "disruptionInterval",
                                                           "expandWorkloads",
                                                           "launchLatency",
                                                           "legacyOrder",
                                                           "maxInstanceTypes",
                                                           "minValuesPolicy",
                                                           "nodeOverlays",
                                                           "now",
                                                           "once",
                                                           "output",
                                                           "packing",
                                                           "policies",
                                                           "preferencePolicy",
                                                           "region",
                                                           "repack",
                                                           "sample",
                                                           "schedulerConfig",
                                                           "spotToSpot",
                                                           "validate",
                                                           "zones"};
    std::string what = "unknown option";
    if (std::string_view near = codec_internal::NearestName(key, kOptions); !near.empty()) {
      what += internal::StrCat("; did you mean ", near, "?");
    }
    return FieldError(source, internal::EscapeForMessage(key), what);
  }
  return s;
}

std::string WithNewline(std::string s) {
  s += "\n";
  return s;
}

absl::Status BadFormat(std::string_view format, std::string_view allowed) {
  return absl::InvalidArgumentError(internal::StrCat(
      "output format \"", internal::EscapeForMessage(format), "\" is not one of ", allowed));
}

}  // namespace

absl::StatusOr<std::string> JsonToYaml(std::string_view json_text) {
  OJson doc = OJson::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return absl::InvalidArgumentError("JsonToYaml: input is not JSON");
  if (!IsBlock(doc)) return WithNewline(Scalar(doc));
  std::string out;
  EmitBlock(doc, 0, &out);
  return out;
}

absl::StatusOr<RunOptions> ParseRunOptions(std::string_view text, std::string_view source) {
  RunOptions options;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return options;
  OJson doc = OJson::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return absl::InvalidArgumentError(
        internal::StrCat(source, ": must be a JSON object such as {\"region\": \"us-east-1\"}"));
  }
  for (const auto& [key, value] : doc.items()) {
    if (absl::Status s = ReadField(key, value, source, &options); !s.ok()) return s;
  }
  return options;
}

absl::StatusOr<std::string> SolveOutput(const SolveResult& result, const ClusterSnapshot& snapshot,
                                        std::string_view format) {
  if (format == "json") return WithNewline(WriteSolveResult(result, snapshot));
  if (format == "yaml") return JsonToYaml(WriteSolveResult(result, snapshot));
  if (format == "nodeclaims") return WithNewline(WriteNodeClaims(result, snapshot));
  return BadFormat(format, "json, yaml, nodeclaims");
}

absl::Status WriteSolveOutput(const SolveResult& result, const ClusterSnapshot& snapshot,
                              std::string_view format, std::ostream& out) {
  if (format == "json") {
    WriteSolveResult(result, snapshot, out);
    out << "\n";
    return absl::OkStatus();
  }
  KARP_ASSIGN_OR_RETURN(std::string text, SolveOutput(result, snapshot, format));
  out << text;
  return absl::OkStatus();
}

absl::StatusOr<std::string> ConsolidateOutput(const ConsolidationPlan& plan,
                                              const ClusterSnapshot& snapshot,
                                              std::string_view format) {
  if (format == "json") return WithNewline(WriteConsolidationPlan(plan));
  if (format == "yaml") return JsonToYaml(WriteConsolidationPlan(plan));
  if (format != "nodeclaims") return BadFormat(format, "json, yaml, nodeclaims");
  SolveResult replacements;
  for (const DisruptionCommand& cmd : plan.commands) {
    for (const NewNodeClaim& nc : cmd.replacements) replacements.node_claims.push_back(nc);
  }
  return WithNewline(WriteNodeClaims(replacements, snapshot));
}

absl::StatusOr<std::string> CatalogOutput(const InstanceCatalog& catalog, std::string_view format) {
  if (format == "json") return WithNewline(WriteCatalog(catalog));
  if (format == "yaml") return JsonToYaml(WriteCatalog(catalog));
  return BadFormat(format, "json, yaml");
}

}  // namespace karp::json
