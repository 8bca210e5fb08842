// RapidJSON SAX -> LiteValue trees (see fast_json.h). Whatever nlohmann would type, reject or
// report differently is left to nlohmann: the handler stops (returns false) and the caller falls
// back, so the fast path changes speed, never results or messages.

#include "json/fast_json.h"

#include <rapidjson/error/error.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
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
bool NumberValue(const char* s, size_t n, LiteValue* out) {
  const char* end = s + n;
  const bool integral = std::memchr(s, '.', n) == nullptr && std::memchr(s, 'e', n) == nullptr &&
                        std::memchr(s, 'E', n) == nullptr;
  if (integral) {
    if (s[0] == '-') {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(s, end, v);
      if (ec == std::errc() && p == end) {
        *out = LiteValue::Integer(v);
        return true;
      }
    } else {
      uint64_t v = 0;
      auto [p, ec] = std::from_chars(s, end, v);
      if (ec == std::errc() && p == end) {
        *out = LiteValue::Unsigned(v);
        return true;
      }
    }
  }
  double d = 0;
  auto [p, ec] = std::from_chars(s, end, d);
  if (ec != std::errc() || p != end || !std::isfinite(d)) return false;
  *out = LiteValue::Float(d);
  return true;
}

// A bump allocator for the containers of one parse; Release frees what was allocated after a
// Mark (the streamed items of a List, once the sink has seen them).
class Arena {
 public:
  struct Mark {
    size_t blocks;
    size_t used;
  };
  template <typename T>
  T* Allocate(size_t n) {
    static_assert(alignof(T) <= alignof(Unit));
    const size_t units = (n * sizeof(T) + sizeof(Unit) - 1) / sizeof(Unit);
    if (blocks_.empty() || used_ + units > blocks_.back().units) {
      const size_t size = std::max(units, kBlockUnits);
      blocks_.push_back({std::make_unique<Unit[]>(size), size});
      used_ = 0;
    }
    void* p = blocks_.back().data.get() + used_;
    used_ += units;
    return static_cast<T*>(p);
  }
  Mark mark() const { return {blocks_.size(), used_}; }
  void Release(Mark m) {
    if (blocks_.size() > m.blocks) blocks_.resize(std::max<size_t>(m.blocks, 1));
    used_ = m.blocks == 0 ? 0 : m.used;
  }

 private:
  // What the arena hands out is counted in units of the strictest alignment.
  struct alignas(std::max_align_t) Unit {
    unsigned char bytes[alignof(std::max_align_t)];
  };
  static_assert(sizeof(Unit) == alignof(std::max_align_t));
  static constexpr size_t kBlockUnits = 64 * 1024 / sizeof(Unit);
  struct Block {
    std::unique_ptr<Unit[]> data;
    size_t units;
  };
  std::vector<Block> blocks_;
  size_t used_ = 0;  // units of the last block in use
};

// Builds the value from RapidJSON's events. The values of the open containers wait on a
// stack; a closed container moves its own into the arena (members sorted by key).
class LiteBuilder {
 public:
  LiteBuilder(Arena* arena, const LiteItemSink* sink) : arena_(arena), sink_(sink) {}
  const LiteValue& root() const { return root_; }

  bool Null() { return Add(LiteValue(), key_); }
  bool Bool(bool b) { return Add(LiteValue::Boolean(b), key_); }
  // Unused: numbers arrive as text (kParseNumbersAsStringsFlag).
  bool Int(int) { return false; }
  bool Uint(unsigned) { return false; }
  bool Int64(int64_t) { return false; }
  bool Uint64(uint64_t) { return false; }
  bool Double(double) { return false; }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    LiteValue v;
    return n > 0 && NumberValue(s, n, &v) && Add(v, key_);
  }
  bool String(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    return ValidString(s, n) && Add(LiteValue::String(s, n), key_);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    if (!ValidString(s, n)) return false;
    key_ = std::string_view(s, n);
    return true;
  }
  bool StartObject() { return Open(true); }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool StartArray() { return Open(false); }
  bool EndArray(rapidjson::SizeType) { return Close(); }

 private:
  struct Frame {
    size_t first;          // its first value on the stack
    std::string_view key;  // its key in the parent object
    bool object;
    bool items;  // the root object's "items" array, streamed
  };

  bool Open(bool object) {
    if (open_.size() >= static_cast<size_t>(kMaxDepth)) return false;  // left to nlohmann's path
    const bool items =
        sink_ != nullptr && !object && open_.size() == 1 && open_[0].object && key_ == "items";
    if (items) items_mark_ = arena_->mark();
    open_.push_back({stack_.size(), key_, object, items});
    return true;
  }

  bool Close() {
    const Frame f = open_.back();
    open_.pop_back();
    const size_t n = stack_.size() - f.first;
    if (n > std::numeric_limits<uint32_t>::max()) return false;  // beyond LiteValue's sizes
    LiteValue v;
    if (f.object) {
      LiteValue::Member* members = n == 0 ? nullptr : arena_->Allocate<LiteValue::Member>(n);
      std::uninitialized_copy(stack_.begin() + f.first, stack_.end(), members);
      // Keys often come in order (as nlohmann and Go write them).
      auto before = [](const LiteValue::Member& a, const LiteValue::Member& b) {
        return a.key < b.key;
      };
      if (!std::is_sorted(members, members + n, before)) std::sort(members, members + n, before);
      for (size_t i = 1; i < n; ++i) {
        if (members[i - 1].key == members[i].key) return false;  // a repeated key
      }
      v = LiteValue::Object(members, n);
    } else {
      LiteValue* elements = n == 0 ? nullptr : arena_->Allocate<LiteValue>(n);
      for (size_t i = 0; i < n; ++i) new (elements + i) LiteValue(stack_[f.first + i].value);
      v = LiteValue::Array(elements, n);
    }
    stack_.resize(f.first);
    return Add(v, f.key);
  }

  // Places `v` in the open container (under `key` in an object), or hands it to the sink.
  bool Add(const LiteValue& v, std::string_view key) {
    if (open_.empty()) {
      root_ = v;
      return true;
    }
    if (open_.back().items) {
      (*sink_)(v, streamed_++);
      arena_->Release(items_mark_);
      return true;
    }
    stack_.push_back({open_.back().object ? key : std::string_view(), v});
    return true;
  }

  Arena* arena_;
  const LiteItemSink* sink_;  // streams the root's items when not null
  LiteValue root_;
  std::vector<Frame> open_;
  std::vector<LiteValue::Member> stack_;
  std::string_view key_;
  Arena::Mark items_mark_{0, 0};  // the arena before the first streamed item
  size_t streamed_ = 0;           // elements handed to the sink
};

// Parses `text` into a LiteValue tree, then hands its root to `done` while the tree lives;
// false when the text is declined.
template <typename Done>
bool Parse(std::string_view text, const LiteItemSink* sink, Done&& done) {
  // RapidJSON's memory stream reads a NUL as the end of the text; nlohmann rejects it.
  if (std::memchr(text.data(), '\0', text.size()) != nullptr) return false;
  // In-situ parsing on a NUL-terminated copy: strings and numbers are decoded in the buffer,
  // never through the reader's internal stack (whose first push offsets a null pointer, which
  // UBSan rejects).
  std::string buffer(text);
  rapidjson::InsituStringStream stream(buffer.data());
  rapidjson::Reader reader;
  Arena arena;
  LiteBuilder builder(&arena, sink);
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseNumbersAsStringsFlag;
  if (reader.Parse<kFlags>(stream, builder).IsError()) return false;
  // The stream stops at the first NUL: the whole text must have been read.
  if (static_cast<size_t>(stream.Tell()) != text.size()) {
    // Trailing white space is all a complete document may leave.
    for (size_t i = stream.Tell(); i < text.size(); ++i) {
      if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r') return false;
    }
  }
  done(builder.root());
  return true;
}

std::optional<Json> ParseToJson(std::string_view text, const LiteItemSink* sink) {
  std::optional<Json> out;
  if (!Parse(text, sink, [&](const LiteValue& root) { out = ToJson(root); })) return std::nullopt;
  return out;
}

}  // namespace

const LiteValue::Member* LiteValue::begin() const { return is_object() ? members_ : nullptr; }
const LiteValue::Member* LiteValue::end() const { return is_object() ? members_ + size_ : nullptr; }

const LiteValue* LiteValue::Find(std::string_view key) const {
  if (!is_object()) return nullptr;
  // Objects are small: a linear scan of the sorted keys.
  for (const Member& m : *this) {
    if (m.key.size() == key.size() && m.key == key) return &m.value;
  }
  return nullptr;
}

Json ToJson(const LiteValue& v) {
  switch (v.type()) {
    case LiteValue::Type::kNull:
      return Json(nullptr);
    case LiteValue::Type::kBoolean:
      return Json(v.get<bool>());
    case LiteValue::Type::kUnsigned:
      return Json(v.get<uint64_t>());
    case LiteValue::Type::kInteger:
      return Json(v.get<int64_t>());
    case LiteValue::Type::kFloat:
      return Json(v.get<double>());
    case LiteValue::Type::kString:
      return Json(std::string(v.str()));
    case LiteValue::Type::kArray: {
      Json a = Json::array();
      Json::array_t& elements = *a.get_ptr<Json::array_t*>();
      elements.reserve(v.size());
      for (size_t i = 0; i < v.size(); ++i) elements.push_back(ToJson(v[i]));
      return a;
    }
    case LiteValue::Type::kObject: {
      Json o = Json::object();
      Json::object_t& members = *o.get_ptr<Json::object_t*>();
      for (const LiteValue::Member& m : v) {
        members.emplace_hint(members.end(), std::string(m.key), ToJson(m.value));
      }
      return o;
    }
  }
  return Json();
}

std::optional<Json> FastParseJson(std::string_view text) { return ParseToJson(text, nullptr); }

bool FastParseJsonRoot(std::string_view text, const std::function<void(const LiteValue&)>& use) {
  return Parse(text, nullptr, use);
}

std::optional<Json> FastParseJsonStreamingItems(std::string_view text, const LiteItemSink& sink) {
  return ParseToJson(text, &sink);
}

}  // namespace karp::json::codec_internal
