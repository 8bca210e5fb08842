// Tests of the fast JSON reader (src/json/fast_json.h) and the streaming writer
// (src/json/json_writer.h) against nlohmann/json, whose values and text they must reproduce
// exactly: the reader gives the same value (numbers typed alike) or declines so that nlohmann
// reports the error; the writer gives the same bytes as nlohmann's dump for the same value.

#include <catch2/catch.hpp>

#include "absl/time/time.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "json/document.h"
#include "json/fast_json.h"
#include "json/field_reader.h"
#include "json/json_writer.h"

namespace {

using karp::json::codec_internal::FastParseJson;
using karp::json::codec_internal::Json;
using karp::json::codec_internal::JsonWriter;
using karp::json::codec_internal::LoadDocuments;
using ordered = nlohmann::ordered_json;

// Same value, same JSON types all the way down (nlohmann's == equates 1 and 1u and 1.0).
bool SameTyped(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(), jt = b.begin(); it != a.end(); ++it, ++jt) {
      if (it.key() != jt.key() || !SameTyped(*it, *jt)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameTyped(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_number_float()) {
    return std::signbit(a.get<double>()) == std::signbit(b.get<double>()) && a == b;
  }
  return a == b;
}

TEST_CASE("The fast reader builds the value nlohmann builds", "[json][fast-json]") {
  const std::vector<std::string> texts = {
      R"({})",
      R"([])",
      R"( {"a": 1, "b": [true, false, null], "c": {"d": "e"}} )",
      R"([0, -0, 1, -1, 9223372036854775807, -9223372036854775808, 18446744073709551615])",
      R"([18446744073709551616, -9223372036854775809, 1.5, -0.0, 1e2, 1E-2, 2.5e+3, 0.1376])",
      R"([1e-320, 123456789012345678901234567890])",
      R"(["", "plain", "quote \" backslash \\ slash \/", "\b\f\n\r\t", "\u0000\u001f\u007f"])",
      R"(["é ü 漢字 😀", "\u00e9\u6f22\ud83d\ude00", {"ключ": "значение"}])",
      "[\n\t1 ,\r\n 2 ]",
      R"({"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"containers": []}})",
  };
  for (const std::string& text : texts) {
    INFO(text);
    std::optional<Json> fast = FastParseJson(text);
    REQUIRE(fast.has_value());
    CHECK(SameTyped(*fast, Json::parse(text)));
  }
  // Number types as nlohmann gives them: unsigned without a sign, integer with one.
  std::optional<Json> numbers = FastParseJson("[5, -5, 5.0]");
  REQUIRE(numbers.has_value());
  CHECK((*numbers)[0].is_number_unsigned());
  CHECK((*numbers)[1].is_number_integer());
  CHECK_FALSE((*numbers)[1].is_number_unsigned());
  CHECK((*numbers)[2].is_number_float());
}

TEST_CASE("The fast reader builds containers larger than its arena blocks", "[json][fast-json]") {
  // Arrays and objects around and beyond the reader's 64 KiB blocks (16-byte elements,
  // 32-byte members), at sizes that are not multiples of a block, streamed or not; run under
  // ASan or valgrind this also checks that nothing is written past a block.
  for (int n : {4095, 4096, 4097, 5001, 21001}) {
    INFO(n);
    std::string array = "[";
    std::string object = "{";
    for (int i = 0; i < n; ++i) {
      array += (i ? "," : "") + std::to_string(i);
      object +=
          std::string(i ? "," : "") + "\"k" + std::to_string(i) + "\": [" + std::to_string(i) + "]";
    }
    array += "]";
    object += "}";
    const std::string text = R"({"a": )" + array + R"(, "items": [)" + object + "," + array +
                             R"(], "o": )" + object + "}";
    std::optional<Json> fast = FastParseJson(text);
    REQUIRE(fast.has_value());
    CHECK(SameTyped(*fast, Json::parse(text)));
    std::vector<Json> items;
    std::optional<Json> root = karp::json::codec_internal::FastParseJsonStreamingItems(
        text, [&](const karp::json::codec_internal::LiteValue& v, size_t) {
          items.push_back(karp::json::codec_internal::ToJson(v));
        });
    REQUIRE(root.has_value());
    REQUIRE(items.size() == 2);
    CHECK(SameTyped(items[0], Json::parse(object)));
    CHECK(SameTyped(items[1], Json::parse(array)));
    CHECK(SameTyped((*root)["o"], Json::parse(object)));
  }
}

TEST_CASE("The fast reader declines what it leaves to nlohmann", "[json][fast-json]") {
  const std::vector<std::string> texts = {
      R"({"a": 1, "a": 2})",         // duplicate key (nlohmann's path names it)
      R"({"a": {"b": 1, "b": 1}})",  // nested duplicate
      "[\"\xff\"]",                  // invalid UTF-8
      "[\"\xc0\xaf\"]",              // overlong
      R"(["\udc00"])",               // lone low surrogate
      R"(["\ud800"])",               // lone high surrogate
      R"([1e400])",                  // out of the double range
      R"([-1e400])",
      R"([1, ])",       // trailing comma
      R"({"a": 1} x)",  // trailing text
      R"([01])",
      R"([1.])",
      R"([NaN])",
      R"({"a" 1})",
      R"([1)",
      std::string("[1]\0", 4),       // NUL after the value
      std::string("[\"a\0b\"]", 7),  // raw NUL in a string
      "[\"tab\there\"]",             // raw control character in a string
  };
  for (const std::string& text : texts) {
    INFO(text);
    CHECK_FALSE(FastParseJson(text).has_value());
  }
}

TEST_CASE("The streaming reader hands out the root's items and keeps the rest",
          "[json][fast-json]") {
  const std::string text =
      R"({"a": {"items": [1]}, "items": [{"x": [1, {"items": [2]}]}, 7, "s", [], null], "z": 1})";
  std::vector<Json> items;
  std::optional<Json> root = karp::json::codec_internal::FastParseJsonStreamingItems(
      text, [&](const karp::json::codec_internal::LiteValue& v, size_t i) {
        CHECK(i == items.size());
        items.push_back(karp::json::codec_internal::ToJson(v));
      });
  REQUIRE(root.has_value());
  Json whole = Json::parse(text);
  // Every element, in order, typed as nlohmann types it; the value keeps an empty "items".
  REQUIRE(items.size() == whole["items"].size());
  for (size_t i = 0; i < items.size(); ++i) CHECK(SameTyped(items[i], whole["items"][i]));
  whole["items"] = Json::array();
  CHECK(SameTyped(*root, whole));
  // What FastParseJson declines, the streaming reader declines too (after handing out items).
  size_t seen = 0;
  CHECK_FALSE(karp::json::codec_internal::FastParseJsonStreamingItems(
                  R"({"items": [1, 2], "k": 1, "k": 2})",
                  [&](const karp::json::codec_internal::LiteValue&, size_t) { ++seen; })
                  .has_value());
  CHECK(seen == 2);
}

TEST_CASE("Errors keep naming the file and the JSON path after the fast reader declines",
          "[json][fast-json]") {
  auto error = [](const std::string& text) {
    auto docs = LoadDocuments(text, "f.json");
    REQUIRE_FALSE(docs.ok());
    return std::string(docs.status().message());
  };
  CHECK(error(R"({"items": [{"metadata": {"name": "a", "name": "b"}}]})") ==
        "f.json: items[0].metadata.name: duplicate key \"name\"");
  CHECK(error(R"({"spec": {"cpu": 1e400}})").rfind("f.json: spec.cpu: ", 0) == 0);
  CHECK(error(R"({"a": [1, 2,]})").rfind("f.json: ", 0) == 0);
  // Valid input of the slow path's exotic kind still parses (underflow to a denormal).
  auto docs = LoadDocuments(R"({"tiny": 1e-400})", "f.json");
  REQUIRE(docs.ok());
  CHECK((*docs)[0].value["tiny"].get<double>() == 0.0);
}

// Writes `v` through JsonWriter, in the key order of the ordered value.
void WriteValue(JsonWriter& w, const ordered& v) {
  switch (v.type()) {
    case ordered::value_t::object:
      w.BeginObject();
      for (auto it = v.begin(); it != v.end(); ++it) {
        w.Key(it.key());
        WriteValue(w, *it);
      }
      w.EndObject();
      break;
    case ordered::value_t::array:
      w.BeginArray();
      for (const ordered& e : v) WriteValue(w, e);
      w.EndArray();
      break;
    case ordered::value_t::string:
      w.String(v.get_ref<const std::string&>());
      break;
    case ordered::value_t::boolean:
      w.Bool(v.get<bool>());
      break;
    case ordered::value_t::number_integer:
      w.Int(v.get<int64_t>());
      break;
    case ordered::value_t::number_unsigned:
      w.Int(static_cast<int64_t>(v.get<uint64_t>()));
      break;
    case ordered::value_t::number_float:
      w.Double(v.get<double>());
      break;
    default:
      FAIL("unsupported type");
      break;
  }
}

TEST_CASE("The streaming writer writes nlohmann's text byte for byte", "[json][json-writer]") {
  ordered v = ordered::object();
  v["empty object"] = ordered::object();
  v["empty array"] = ordered::array();
  v["nested empties"] = ordered::array({ordered::object(), ordered::array(), ordered::array({1})});
  v["strings"] = {"",
                  "plain",
                  "quote \" and \\",
                  "\b\f\n\r\t",
                  std::string("\x01\x1f\x7f", 3),
                  std::string("nul \0 inside", 12),
                  "é 漢字 😀",
                  "\xff invalid \xc3",
                  "\xe2\x82"};
  v["ints"] = {0, -1, 42, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  v["unsigned"] = static_cast<uint64_t>(7);
  v["doubles"] = {0.1376, 5.0, -0.0, 0.0, 1e-7, 1e21, 123456.789, 1.0 / 3, 2.5e-5, 1e15, 1e16};
  v["not finite"] = {std::nan(""), HUGE_VAL};
  v["bools"] = {true, false};
  v["deep"] = {{"a", {{"b", {{"c", ordered::array({"d"})}}}}}};
  v["\"key\" with\nescapes"] = "x";
  for (int indent : {-1, 0, 1, 2, 4}) {
    INFO("indent " << indent);
    JsonWriter w(indent);
    WriteValue(w, v);
    CHECK(w.Take() == v.dump(indent, ' ', false, ordered::error_handler_t::replace));
  }
  for (const ordered& scalar : {ordered("top"), ordered(1), ordered(2.5), ordered(true)}) {
    JsonWriter w(1);
    WriteValue(w, scalar);
    CHECK(w.Take() == scalar.dump(1));
  }
}

TEST_CASE("The streaming writer's conveniences write arrays and objects of strings",
          "[json][json-writer]") {
  JsonWriter w(1);
  w.BeginObject();
  w.Key("list");
  w.StringList({"a", "b"});
  w.Key("map");
  w.StringMap({{"k1", "v1"}, {"k2", "v2"}});
  w.Key("none");
  w.StringList({});
  w.EndObject();
  CHECK(w.Take() ==
        "{\n \"list\": [\n  \"a\",\n  \"b\"\n ],\n \"map\": {\n  \"k1\": \"v1\",\n  \"k2\": "
        "\"v2\"\n },\n \"none\": []\n}");
}

// Writes the same document of recurring lists (equal lists at several depths, more distinct
// lists than the writer keeps, empty ones) with StringList or RecurringStringList.
void WriteLists(JsonWriter& w, bool recurring) {
  auto list = [&](const std::vector<std::string>& v) {
    if (recurring) {
      w.RecurringStringList(v);
    } else {
      w.StringList(v);
    }
  };
  w.BeginArray();
  for (int i = 0; i < 400; ++i) {
    std::vector<std::string> v;
    for (int j = 0; j < i % 45; ++j)
      v.push_back("type-" + std::to_string(j) + (j == 3 ? "\"" : ""));
    w.BeginObject();
    w.Key("types");
    list(v);
    w.Key("nested");
    w.BeginArray();
    list(v);
    w.EndArray();
    w.Member("name", "claim-" + std::to_string(i));
    w.EndObject();
  }
  w.EndArray();
}

TEST_CASE("Recurring lists are written as plain lists", "[json][json-writer]") {
  for (int indent : {-1, 1, 2}) {
    INFO("indent " << indent);
    JsonWriter plain(indent);
    WriteLists(plain, false);
    JsonWriter recurring(indent);
    WriteLists(recurring, true);
    CHECK(recurring.Take() == plain.Take());
  }
}

TEST_CASE("The streamed writer writes the same text in chunks", "[json][json-writer]") {
  // Several chunks: the text is larger than JsonWriter::kChunkBytes.
  JsonWriter whole(1);
  std::ostringstream streamed_out;
  JsonWriter streamed(1, streamed_out);
  for (JsonWriter* w : {&whole, &streamed}) {
    w->BeginArray();
    for (int i = 0; i < 30; ++i) WriteLists(*w, true);
    w->EndArray();
  }
  streamed.Finish();
  const std::string text = whole.Take();
  REQUIRE(text.size() > 2 * JsonWriter::kChunkBytes);
  CHECK(streamed_out.str() == text);
}

TEST_CASE("Timestamps read as absl::ParseTime reads them, or with its error",
          "[json][field-reader]") {
  // The plain UTC form has a fast path; everything else (and every out-of-range field) goes
  // through absl::ParseTime, so both must agree on every text.
  const std::vector<std::string> texts = {"2026-11-26T18:02:22Z",
                                          "1970-01-01T00:00:00Z",
                                          "0000-01-01T00:00:00Z",
                                          "9999-12-31T23:59:59Z",
                                          "2024-02-29T12:00:00Z",
                                          "2023-02-29T12:00:00Z",
                                          "2026-04-31T00:00:00Z",
                                          "2026-13-01T00:00:00Z",
                                          "2026-00-10T00:00:00Z",
                                          "2026-01-00T00:00:00Z",
                                          "2026-01-01T24:00:00Z",
                                          "2026-01-01T23:60:00Z",
                                          "2026-01-01T23:59:60Z",
                                          "2026-01-01T00:00:00z",
                                          "2026-01-01 00:00:00Z",
                                          "2026-01-01T00:00:00+02:00",
                                          "2026-01-01T00:00:00.5Z",
                                          "2026-1-01T00:00:00Z",
                                          "+026-01-01T00:00:00Z",
                                          "2026-01-01T00:0a:00Z",
                                          "",
                                          "not a time"};
  for (const std::string& text : texts) {
    INFO(text);
    absl::Time want;
    std::string err;
    const bool ok = absl::ParseTime(absl::RFC3339_full, text, &want, &err) &&
                    want != absl::InfiniteFuture() && want != absl::InfinitePast();
    absl::StatusOr<absl::Time> got = karp::json::codec_internal::ParseTimestamp(text, "at");
    REQUIRE(got.ok() == ok);
    if (ok) {
      CHECK(*got == want);
    } else {
      CHECK(got.status().message() == "at: invalid RFC 3339 timestamp \"" + text + "\"");
    }
  }
}

}  // namespace
