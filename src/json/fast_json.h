// Internal to karp::json: the fast path of JSON input. RapidJSON's SAX reader builds LiteValue
// trees (strings in the parsed buffer, containers in an arena: no allocation per node), which
// the decoders read directly (field_reader.h) or turn into the nlohmann::json value that
// nlohmann's own parser would give (ToJson). It gives up on anything it cannot reproduce
// exactly; document.cc then parses the text with nlohmann, whose error messages (with the JSON
// path) are the ones karp reports. RapidJSON is used only here.

#ifndef KARP_SRC_JSON_FAST_JSON_H_
#define KARP_SRC_JSON_FAST_JSON_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "json/document.h"

namespace karp::json::codec_internal {

// A JSON value of the fast reader, typed as nlohmann types it (numbers: unsigned for
// non-negative integers, integer for negative ones, float otherwise), with the part of
// nlohmann::json's interface the decoders use (is_object(), size(), get<double>(), ...), so
// that they read either. Objects hold their members sorted by key, as nlohmann's std::map
// does, without repeated keys. A value does not own what it points to: it lives as long as
// the parse that made it (see FastParseJsonStreamingItems).
class LiteValue {
 public:
  enum class Type : uint8_t {
    kNull,
    kBoolean,
    kUnsigned,
    kInteger,
    kFloat,
    kString,
    kArray,
    kObject
  };
  struct Member;

  LiteValue() = default;
  static LiteValue Boolean(bool b) { return Make<&LiteValue::boolean_>(Type::kBoolean, b); }
  static LiteValue Unsigned(uint64_t u) { return Make<&LiteValue::unsigned_>(Type::kUnsigned, u); }
  static LiteValue Integer(int64_t i) { return Make<&LiteValue::integer_>(Type::kInteger, i); }
  static LiteValue Float(double d) { return Make<&LiteValue::float_>(Type::kFloat, d); }
  // The text s[0, n) (which must outlive the value).
  static LiteValue String(const char* s, size_t n) {
    return Make<&LiteValue::string_>(Type::kString, s, n);
  }
  // n elements (which must outlive the value).
  static LiteValue Array(const LiteValue* elements, size_t n) {
    return Make<&LiteValue::elements_>(Type::kArray, elements, n);
  }
  // n members sorted by key, without repeats (which must outlive the value).
  static LiteValue Object(const Member* members, size_t n) {
    return Make<&LiteValue::members_>(Type::kObject, members, n);
  }

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_boolean() const { return type_ == Type::kBoolean; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }
  bool is_structured() const { return is_array() || is_object(); }
  bool is_number() const { return is_number_integer() || is_number_float(); }
  // As nlohmann: true for unsigned numbers too.
  bool is_number_integer() const { return type_ == Type::kUnsigned || type_ == Type::kInteger; }
  bool is_number_unsigned() const { return type_ == Type::kUnsigned; }
  bool is_number_float() const { return type_ == Type::kFloat; }

  // Elements of an array or members of an object; 0 for any other value.
  size_t size() const { return is_structured() ? size_ : 0; }
  bool empty() const { return size() == 0; }
  // The i-th element of an array (i < size()).
  const LiteValue& operator[](size_t i) const { return elements_[i]; }
  // The members of an object, sorted by key.
  const Member* begin() const;
  const Member* end() const;
  // The member `key` of an object, or nullptr (also for a value that is not an object).
  const LiteValue* Find(std::string_view key) const;
  // The text of a string.
  std::string_view str() const { return std::string_view(string_, size_); }
  // A boolean or a number converted to T (bool, int64_t, uint64_t or double), as nlohmann's get.
  template <typename T>
  T get() const {
    switch (type_) {
      case Type::kBoolean:
        return static_cast<T>(boolean_);
      case Type::kUnsigned:
        return static_cast<T>(unsigned_);
      case Type::kInteger:
        return static_cast<T>(integer_);
      case Type::kFloat:
        return static_cast<T>(float_);
      default:
        return T{};
    }
  }

 private:
  template <auto kField, typename T>
  static LiteValue Make(Type type, T payload, size_t size = 0) {
    LiteValue v;
    v.type_ = type;
    v.size_ = static_cast<uint32_t>(size);
    v.*kField = payload;
    return v;
  }

  Type type_ = Type::kNull;
  uint32_t size_ = 0;  // string length, elements or members
  union {
    bool boolean_;
    uint64_t unsigned_;
    int64_t integer_;
    double float_;
    const char* string_;
    const LiteValue* elements_;
    const Member* members_ = nullptr;
  };
};

struct LiteValue::Member {
  std::string_view key;
  LiteValue value;
};

// The nlohmann::json value equal to `v`.
Json ToJson(const LiteValue& v);

// The value of the JSON text `text`, equal to nlohmann::json::parse(text), or nullopt when the
// text is not valid JSON or holds what the fast path leaves to nlohmann: a duplicate key, a
// string that is not valid UTF-8, a NUL byte, a number that does not convert exactly (out of
// range), or nesting deeper than kMaxDepth (the reader recurses once per level and stops at
// the first level too deep, so no depth check is needed before it). Never throws (allocation
// failure aside).
// Complexity: linear in the size of the text.
std::optional<Json> FastParseJson(std::string_view text);

// Parses `text` as FastParseJson does and hands the root value to `use` while it lives,
// without building nlohmann values; false (`use` not called) when the text is declined.
// Throws only what `use` throws.
bool FastParseJsonRoot(std::string_view text, const std::function<void(const LiteValue&)>& use);

// FastParseJson, except that the elements of the root object's "items" array (when it is an
// array) go to `sink` (document.h) as they are completed, in order, instead of into the value,
// whose "items" stays an empty array: a large List is never held whole, nor built as nlohmann
// values. The sink sees elements of a text that may still turn out invalid (then nullopt is
// returned, as FastParseJson would). Throws only what `sink` throws.
std::optional<Json> FastParseJsonStreamingItems(std::string_view text, const LiteItemSink& sink);

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_FAST_JSON_H_
