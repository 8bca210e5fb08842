// RapidJSON SAX -> nlohmann::json (see fast_json.h). Whatever nlohmann would type, reject or
// report differently is left to nlohmann: the handler stops (returns false) and the caller falls
// back, so the fast path changes speed, never results or messages.

#include "json/fast_json.h"

#include <rapidjson/error/error.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace karp::json::codec_internal {
namespace {

bool ValidString(const char* s, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<unsigned char>(s[i]) >= 0x80) {
      return IsValidUtf8(std::string_view(s + i, n - i));
    }
  }
  return true;
}

// A number token as nlohmann's lexer types it: without '.', 'e' or 'E' an unsigned (no sign) or
// signed (leading '-') integer when it fits, a double otherwise; doubles must be finite.
bool NumberValue(const char* s, size_t n, Json* out) {
  const char* end = s + n;
  const bool integral = std::memchr(s, '.', n) == nullptr && std::memchr(s, 'e', n) == nullptr &&
                        std::memchr(s, 'E', n) == nullptr;
  if (integral) {
    if (s[0] == '-') {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(s, end, v);
      if (ec == std::errc() && p == end) {
        *out = v;
        return true;
      }
    } else {
      uint64_t v = 0;
      auto [p, ec] = std::from_chars(s, end, v);
      if (ec == std::errc() && p == end) {
        *out = v;
        return true;
      }
    }
  }
  double d = 0;
  auto [p, ec] = std::from_chars(s, end, d);
  if (ec != std::errc() || p != end || !std::isfinite(d)) return false;
  *out = d;
  return true;
}

// Builds the value from RapidJSON's events. The open containers are kept as pointers: an
// open container is the last element of its parent array or a node of its parent's map, which
// do not move while it is open.
class DomBuilder {
 public:
  explicit DomBuilder(const ItemSink* sink) : sink_(sink) {}
  Json TakeRoot() { return std::move(root_); }

  bool Null() { return Add(Json(nullptr)) != nullptr; }
  bool Bool(bool b) { return Add(Json(b)) != nullptr; }
  // Unused: numbers arrive as text (kParseNumbersAsStringsFlag).
  bool Int(int) { return false; }
  bool Uint(unsigned) { return false; }
  bool Int64(int64_t) { return false; }
  bool Uint64(uint64_t) { return false; }
  bool Double(double) { return false; }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    Json v;
    return n > 0 && NumberValue(s, n, &v) && Add(std::move(v)) != nullptr;
  }
  bool String(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    return ValidString(s, n) && Add(Json(std::string(s, n))) != nullptr;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    if (!ValidString(s, n)) return false;
    key_.assign(s, n);
    return true;
  }
  bool StartObject() { return Open(Json::value_t::object); }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool StartArray() { return Open(Json::value_t::array); }
  bool EndArray(rapidjson::SizeType) { return Close(); }

 private:
  bool Open(Json::value_t type) {
    if (open_.size() >= static_cast<size_t>(kMaxDepth)) return false;  // left to nlohmann's path
    // The root object's "items" array, when its elements are streamed.
    const bool items = sink_ != nullptr && type == Json::value_t::array && open_.size() == 1 &&
                       open_[0]->is_object() && key_ == "items";
    Json* slot = Add(Json(type));
    if (slot == nullptr) return false;
    open_.push_back(slot);
    if (items) items_ = slot;
    return true;
  }
  bool Close() {
    open_.pop_back();
    if (open_.size() == 2 && open_[1] == items_) Stream();  // an element of items is complete
    if (open_.size() == 1) items_ = nullptr;                 // (items itself closed)
    return true;
  }

  // Hands the last element of the streamed items array to the sink and drops it.
  void Stream() {
    Json::array_t& a = *items_->get_ptr<Json::array_t*>();
    Json item = std::move(a.back());
    a.pop_back();
    (*sink_)(std::move(item), streamed_++);
  }

  // Places `v` in the open container (under the pending key of an object); nullptr on a
  // repeated key.
  Json* Add(Json&& v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Json& parent = *open_.back();
    if (Json::array_t* a = parent.get_ptr<Json::array_t*>()) {
      a->push_back(std::move(v));
      if (&parent == items_ && !a->back().is_structured()) {
        Stream();  // a scalar element: complete at once
        return &root_;  // not null (success); never used for a scalar
      }
      return &a->back();
    }
    // Keys often come in order (as nlohmann and Go write them): hinted at the end, such a key
    // is placed without a search; any other is placed by one, as emplace would.
    Json::object_t& object = *parent.get_ptr<Json::object_t*>();
    const size_t before = object.size();
    auto it = object.emplace_hint(object.end(), std::move(key_), std::move(v));
    return object.size() > before ? &it->second : nullptr;
  }

  Json root_;
  std::vector<Json*> open_;
  std::string key_;
  const ItemSink* sink_;     // streams the root's items when not null
  Json* items_ = nullptr;    // the root's "items" array while it is open and streamed
  size_t streamed_ = 0;      // elements handed to the sink
};

}  // namespace

namespace {

std::optional<Json> Parse(std::string_view text, const ItemSink* sink) {
  // RapidJSON's memory stream reads a NUL as the end of the text; nlohmann rejects it.
  if (std::memchr(text.data(), '\0', text.size()) != nullptr) return std::nullopt;
  // In-situ parsing on a NUL-terminated copy: strings and numbers are decoded in the buffer,
  // never through the reader's internal stack (whose first push offsets a null pointer, which
  // UBSan rejects).
  std::string buffer(text);
  rapidjson::InsituStringStream stream(buffer.data());
  rapidjson::Reader reader;
  DomBuilder builder(sink);
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseNumbersAsStringsFlag;
  if (reader.Parse<kFlags>(stream, builder).IsError()) return std::nullopt;
  // The stream stops at the first NUL: the whole text must have been read.
  if (static_cast<size_t>(stream.Tell()) != text.size()) {
    // Trailing white space is all a complete document may leave.
    for (size_t i = stream.Tell(); i < text.size(); ++i) {
      if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r') return std::nullopt;
    }
  }
  return builder.TakeRoot();
}

}  // namespace

std::optional<Json> FastParseJson(std::string_view text) { return Parse(text, nullptr); }

std::optional<Json> FastParseJsonStreamingItems(std::string_view text, const ItemSink& sink) {
  return Parse(text, &sink);
}

}  // namespace karp::json::codec_internal
