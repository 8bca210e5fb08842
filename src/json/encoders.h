// Internal to karp::json: the encoders of karp's value types for the snapshot writer
// (writer.cc, nlohmann::json: keys sorted). Each is a template over the JSON type (nlohmann::json
// by default). The `karp solve` outputs stream the same shapes (solve_output.cc, JsonWriter).

#ifndef KARP_SRC_JSON_ENCODERS_H_
#define KARP_SRC_JSON_ENCODERS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/taints.h"

namespace karp::json::codec_internal {

// Never throws: invalid UTF-8 in host-provided strings is replaced rather than rejected.
// A negative indent writes one line.
template <typename J>
std::string Dump(const J& j, int indent) {
  return j.dump(indent < 0 ? -1 : indent, ' ', /*ensure_ascii=*/false, J::error_handler_t::replace);
}

template <typename J = nlohmann::json>
J StringListJson(const std::vector<std::string>& v) {
  J a = J::array();
  for (const std::string& s : v) a.push_back(s);
  return a;
}

// {name: quantity text} (karp::FormatQuantity).
template <typename J = nlohmann::json>
J ResourcesJson(const ResourceList& r) {
  J o = J::object();
  r.ForEach([&](std::string_view name, int64_t value) {
    o[std::string(name)] = FormatQuantity(value, name);
  });
  return o;
}

// [{key, value (when not empty), effect}].
template <typename J = nlohmann::json>
J TaintsJson(const std::vector<Taint>& taints) {
  J a = J::array();
  for (const Taint& t : taints) {
    J o = J::object();
    o["key"] = t.key;
    if (!t.value.empty()) o["value"] = t.value;
    o["effect"] = std::string(TaintEffectName(t.effect));
    a.push_back(std::move(o));
  }
  return a;
}

// {key, operator, values (when not empty), minValues (when set)}.
template <typename J = nlohmann::json>
J RequirementJson(const NodeSelectorRequirement& r) {
  J o = J::object();
  o["key"] = r.key;
  o["operator"] = std::string(OperatorName(r.op));
  if (!r.values.empty()) o["values"] = StringListJson<J>(r.values);
  if (r.min_values) o["minValues"] = *r.min_values;
  return o;
}

template <typename J = nlohmann::json>
J RequirementsJson(const std::vector<NodeSelectorRequirement>& reqs) {
  J a = J::array();
  for (const NodeSelectorRequirement& r : reqs) a.push_back(RequirementJson<J>(r));
  return a;
}

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_ENCODERS_H_
