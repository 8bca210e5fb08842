// libFuzzer target: the fast JSON reader (src/json/fast_json.h) and the streaming writer
// (src/json/json_writer.h) against nlohmann/json on arbitrary bytes. Whatever the fast reader
// accepts, nlohmann must accept with the same value, JSON types included; and the writer must
// print that value exactly as nlohmann's dump does (one line and indented).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "json/document.h"
#include "json/fast_json.h"
#include "json/json_writer.h"
#include "karp/json/codec.h"

namespace {

using karp::json::codec_internal::FastParseJson;
using karp::json::codec_internal::Json;
using karp::json::codec_internal::JsonWriter;

[[noreturn]] void Fail(const char* what, std::string_view input) {
  std::fprintf(stderr, "json_io_fuzz: %s\ninput: %.*s\n", what, static_cast<int>(input.size()),
               input.data());
  std::abort();
}

// Deeper than LoadDocuments allows (it rejects such text before any parser runs).
bool Nested(std::string_view s) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if ((c == '[' || c == '{') && ++depth > karp::json::kMaxDepth) {
      return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

bool SameTyped(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object() || a.is_array()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt) {
      if ((a.is_object() && it.key() != jt.key()) || !SameTyped(*it, *jt)) return false;
    }
    return true;
  }
  return a == b;
}

void Write(JsonWriter& w, const Json& v) {
  if (v.is_object()) {
    w.BeginObject();
    for (auto it = v.begin(); it != v.end(); ++it) {
      w.Key(it.key());
      Write(w, *it);
    }
    w.EndObject();
  } else if (v.is_array()) {
    w.BeginArray();
    for (const Json& e : v) Write(w, e);
    w.EndArray();
  } else if (v.is_string()) {
    w.String(v.get_ref<const std::string&>());
  } else if (v.is_boolean()) {
    w.Bool(v.get<bool>());
  } else if (v.is_number_unsigned()) {
    // The writer's integers are signed (karp writes counts); larger values are not written.
    if (v.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX))
      w.Int(v.get<int64_t>());
    else
      w.Int(0);
  } else if (v.is_number_integer()) {
    w.Int(v.get<int64_t>());
  } else if (v.is_number_float()) {
    w.Double(v.get<double>());
  }
}

bool HasHugeUnsigned(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX);
  if (v.is_object() || v.is_array()) {
    for (const Json& e : v) {
      if (HasHugeUnsigned(e)) return true;
    }
  }
  return v.is_null();  // the writer has no null
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (Nested(text)) return 0;
  std::optional<Json> fast = FastParseJson(text);
  if (!fast) return 0;
  Json slow;
  try {
    slow = Json::parse(text);
  } catch (const Json::exception&) {
    Fail("the fast reader accepted what nlohmann rejects", text);
  }
  if (!SameTyped(*fast, slow)) Fail("the fast reader's value differs from nlohmann's", text);
  if (HasHugeUnsigned(*fast)) return 0;
  for (int indent : {-1, 1}) {
    JsonWriter w(indent);
    Write(w, *fast);
    if (w.Take() != fast->dump(indent, ' ', false, Json::error_handler_t::replace)) {
      Fail("the writer's text differs from nlohmann's dump", text);
    }
  }
  return 0;
}
