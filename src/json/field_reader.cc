// The JSON field reader of json/field_reader.h: paths, errors, scalar conversions and
// FieldReader.

#include "json/field_reader.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_util.h"
#include "json/schema.h"
#include "karp/resources.h"

namespace karp::json::codec_internal {

// ---------------------------------------------------------------------------------------------
// Paths and errors

std::string JoinPath(std::string_view base, std::string_view key) {
  if (base.empty()) return std::string(key);
  return internal::StrCat(base, ".", key);
}

std::string IndexPath(std::string_view base, size_t i) {
  return internal::StrCat(base, "[", i, "]");
}

absl::Status PathError(std::string_view path, std::string_view what) {
  if (path.empty()) return absl::InvalidArgumentError(std::string(what));
  return absl::InvalidArgumentError(internal::StrCat(path, ": ", what));
}

const char* TypeName(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "a number";
    case Json::value_t::binary:
      return "binary data";
    case Json::value_t::discarded:
      break;
  }
  return "an invalid value";
}

const char* TypeName(const LiteValue& v) {
  // The name of the nlohmann value of the same type (a container stands in empty).
  if (v.is_object()) return TypeName(Json::object());
  if (v.is_array()) return TypeName(Json::array());
  return TypeName(ToJson(v));
}

absl::Status WrongType(std::string_view path, std::string_view expected, const Json& got) {
  return PathError(path, internal::StrCat("expected ", expected, ", got ", TypeName(got)));
}

absl::Status WrongType(std::string_view path, std::string_view expected, const LiteValue& got) {
  return PathError(path, internal::StrCat("expected ", expected, ", got ", TypeName(got)));
}

// ---------------------------------------------------------------------------------------------
// Scalar conversions

absl::StatusOr<std::string> AsString(const Json& v, std::string_view path) {
  if (!v.is_string()) return WrongType(path, "a string", v);
  return v.get_ref<const std::string&>();
}

// The LiteValue forms: strings read in place, anything else as its nlohmann value (the same
// checks and messages; numbers only reach them when they do not read as plain integers).
absl::StatusOr<std::string> AsString(const LiteValue& v, std::string_view path) {
  if (!v.is_string()) return WrongType(path, "a string", v);
  return std::string(v.str());
}

absl::StatusOr<int64_t> AsInt64(const LiteValue& v, std::string_view path) {
  return AsInt64(ToJson(v), path);
}

absl::StatusOr<int32_t> AsInt32(const LiteValue& v, std::string_view path) {
  return AsInt32(ToJson(v), path);
}

absl::StatusOr<std::string> QuantityText(const LiteValue& v, std::string_view path) {
  if (v.is_string()) return std::string(v.str());
  return QuantityText(ToJson(v), path);
}

absl::StatusOr<int64_t> AsInt64(const Json& v, std::string_view path) {
  if (v.is_number_integer() && !v.is_number_unsigned()) return v.template get<int64_t>();
  if (v.is_number_unsigned()) {
    const uint64_t u = v.template get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return PathError(path, "integer out of range");
    }
    return static_cast<int64_t>(u);
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // 2^63 is exactly representable; every double below it in magnitude fits in an int64.
    if (!std::isfinite(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
      return PathError(path, "integer out of range");
    }
    if (d != std::trunc(d)) {
      return PathError(path, internal::StrCat("expected an integer, got ", v.dump()));
    }
    return static_cast<int64_t>(d);
  }
  return WrongType(path, "an integer", v);
}

absl::StatusOr<int32_t> AsInt32(const Json& v, std::string_view path) {
  KARP_ASSIGN_OR_RETURN(int64_t i, AsInt64(v, path));
  if (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()) {
    return PathError(path, "integer out of range for a 32-bit field");
  }
  return static_cast<int32_t>(i);
}

absl::StatusOr<std::string> QuantityText(const Json& v, std::string_view path) {
  if (v.is_string()) return v.get_ref<const std::string&>();
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number_float()) {
    if (!std::isfinite(v.get<double>())) return PathError(path, "invalid quantity");
    return v.dump();  // shortest text that reads back as the same double
  }
  return WrongType(path, "a quantity string", v);
}

namespace {

// Digits text[at, at + n) as a number; -1 if any is not a digit.
int Digits(const std::string& text, size_t at, size_t n) {
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

// The forms Kubernetes and karp write, "2006-01-02T15:04:05Z" and "2006-01-02T15:04:05+00:00"
// (any offset +hh:mm or -hh:mm), read without absl::ParseTime's general parser; false for any
// other text or a field out of its range (absl::ParseTime decides).
bool PlainTimestamp(const std::string& text, absl::Time* t) {
  const bool utc = text.size() == 20 && text[19] == 'Z';
  const bool offset = text.size() == 25 && (text[19] == '+' || text[19] == '-') && text[22] == ':';
  if ((!utc && !offset) || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':') {
    return false;
  }
  const int year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  const int hour = Digits(text, 11, 2), minute = Digits(text, 14, 2), second = Digits(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return false;
  const int offset_hours = offset ? Digits(text, 20, 2) : 0;
  const int offset_minutes = offset ? Digits(text, 23, 2) : 0;
  if (offset_hours < 0 || offset_hours > 23 || offset_minutes < 0 || offset_minutes > 59) {
    return false;
  }
  const absl::CivilSecond civil(year, month, day, hour, minute, second);
  // Unnormalized: every field in its range (no 31st of April, no leap second).
  if (civil.year() != year || civil.month() != month || civil.day() != day ||
      civil.hour() != hour || civil.minute() != minute || civil.second() != second) {
    return false;
  }
  const absl::Duration east = absl::Hours(offset_hours) + absl::Minutes(offset_minutes);
  *t = absl::FromCivil(civil, absl::UTCTimeZone()) - (text[19] == '-' ? -east : east);
  return true;
}

// An RFC 3339 timestamp into *t; false when invalid (the caller names the path).
bool TimestampValue(const std::string& text, absl::Time* t) {
  if (PlainTimestamp(text, t)) return true;
  std::string err;
  return absl::ParseTime(absl::RFC3339_full, text, t, &err) && *t != absl::InfiniteFuture() &&
         *t != absl::InfinitePast();
}

// The value of an integer JSON number within [lo, hi], or nullopt for anything else (a float,
// out of range, not a number): the checked conversions then name the path and the problem.
// The fast path of the readers below: no path is built for a field that reads fine.
template <typename V>
std::optional<int64_t> PlainInteger(const V& v, int64_t lo, int64_t hi) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.template get<uint64_t>();
    if (u > static_cast<uint64_t>(hi)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) {
    const int64_t i = v.template get<int64_t>();
    if (i < lo || i > hi) return std::nullopt;
    return i;
  }
  return std::nullopt;
}

constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// The text of a string value: a reference into the nlohmann value, or the LiteValue's view.
const std::string& Str(const Json& v) { return v.get_ref<const std::string&>(); }
std::string_view Str(const LiteValue& v) { return v.str(); }

// The member `key` of an object, or nullptr.
const Json* Member(const Json& o, std::string_view key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}
const LiteValue* Member(const LiteValue& o, std::string_view key) { return o.Find(key); }

// fn(key, value) for each member of an object, in key order, stopping at the first error.
template <typename Fn>
absl::Status ForMembers(const Json& o, Fn&& fn) {
  for (auto it = o.begin(); it != o.end(); ++it) {
    KARP_RETURN_IF_ERROR(fn(std::string_view(it.key()), *it));
  }
  return absl::OkStatus();
}
template <typename Fn>
absl::Status ForMembers(const LiteValue& o, Fn&& fn) {
  for (const LiteValue::Member& m : o) KARP_RETURN_IF_ERROR(fn(m.key, m.value));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<absl::Time> ParseTimestamp(const std::string& text, std::string_view path) {
  absl::Time t;
  if (!TimestampValue(text, &t)) {
    return PathError(path, internal::StrCat("invalid RFC 3339 timestamp \"", text, "\""));
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// FieldReader

template <typename V>
absl::StatusOr<BasicFieldReader<V>> BasicFieldReader<V>::Make(const V& v, std::string path) {
  if (v.is_null()) return BasicFieldReader(std::move(path));
  if (!v.is_object()) return WrongType(path, "an object", v);
  return BasicFieldReader(&v, std::move(path));
}

template <typename V>
absl::StatusOr<BasicFieldReader<V>> BasicFieldReader<V>::MakeStrict(
    const V& v, std::string path, std::initializer_list<std::string_view> known) {
  if (!v.is_object()) return PathError(path.empty() ? "(document)" : path, "expected an object");
  KARP_RETURN_IF_ERROR(ForMembers(v, [&](std::string_view key, const V&) -> absl::Status {
    bool ok = false;
    for (std::string_view k : known) ok |= key == k;
    if (ok) return absl::OkStatus();
    std::string what = "unknown field";
    if (std::string_view near = NearestName(key, std::vector<std::string_view>(known));
        !near.empty()) {
      what += internal::StrCat("; did you mean ", near, "?");
    }
    return PathError(JoinPath(path, key), what);
  }));
  return BasicFieldReader(&v, std::move(path));
}

template <typename V>
absl::StatusOr<BasicFieldReader<V>> BasicFieldReader<V>::Element(const V& array,
                                                                 std::string_view key,
                                                                 size_t i) const {
  const V& e = array[i];
  if (!e.is_object()) return WrongType(IndexPath(At(key), i), "an object", e);
  return BasicFieldReader(&e, this, key, i);
}

template <typename V>
void BasicFieldReader<V>::BuildPath() const {
  path_ = JoinPath(parent_->path(), key_);
  if (index_ != std::string::npos) path_ = IndexPath(path_, index_);
  path_known_ = true;
}

template <typename V>
absl::Status BasicFieldReader<V>::Error(std::string_view key, std::string_view what) const {
  return PathError(key.empty() ? path() : At(key), what);
}

template <typename V>
const V* BasicFieldReader<V>::Get(std::string_view key) const {
  if (v_ == nullptr) return nullptr;
  const V* f = Member(*v_, key);
  if (f == nullptr || f->is_null()) return nullptr;
  return f;
}

template <typename V>
absl::StatusOr<BasicFieldReader<V>> BasicFieldReader<V>::Object(std::string_view key) const {
  const V* f = Get(key);
  if (f == nullptr) return BasicFieldReader(nullptr, this, key);
  if (!f->is_object()) return WrongType(At(key), "an object", *f);
  return BasicFieldReader(f, this, key);
}

// The readers below build the field's path only for an error: most fields read fine.

template <typename V>
absl::Status BasicFieldReader<V>::String(std::string_view key, std::string* out) const {
  const V* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_string()) return WrongType(At(key), "a string", *f);
  *out = std::string(Str(*f));
  return absl::OkStatus();
}

template <typename V>
absl::Status BasicFieldReader<V>::String(std::string_view key,
                                         std::optional<std::string>* out) const {
  const V* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_string()) return WrongType(At(key), "a string", *f);
  *out = std::string(Str(*f));
  return absl::OkStatus();
}

template <typename V>
absl::Status BasicFieldReader<V>::RequiredString(std::string_view key, std::string* out) const {
  if (Get(key) == nullptr) return PathError(At(key), "required");
  return String(key, out);
}

template <typename V>
absl::Status BasicFieldReader<V>::Bool(std::string_view key, bool* out) const {
  std::optional<bool> b;
  KARP_RETURN_IF_ERROR(Bool(key, &b));
  if (b.has_value()) *out = *b;
  return absl::OkStatus();
}

template <typename V>
absl::Status BasicFieldReader<V>::Bool(std::string_view key, std::optional<bool>* out) const {
  const V* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_boolean()) return WrongType(At(key), "a boolean", *f);
  *out = f->template get<bool>();
  return absl::OkStatus();
}

template <typename V>
absl::Status BasicFieldReader<V>::Int32(std::string_view key, int32_t* out) const {
  const V* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (std::optional<int64_t> i = PlainInteger(*f, kInt32Min, kInt32Max)) {
    *out = static_cast<int32_t>(*i);
    return absl::OkStatus();
  }
  KARP_ASSIGN_OR_RETURN(*out, AsInt32(*f, At(key)));
  return absl::OkStatus();
}

template <typename V>
absl::Status BasicFieldReader<V>::Int32(std::string_view key, std::optional<int32_t>* out) const {
  const V* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (std::optional<int64_t> i = PlainInteger(*f, kInt32Min, kInt32Max)) {
    *out = static_cast<int32_t>(*i);
    return absl::OkStatus();
  }
  KARP_ASSIGN_OR_RETURN(*out, AsInt32(*f, At(key)));
  return absl::OkStatus();
}

template <typename V>
absl::Status BasicFieldReader<V>::Int64(std::string_view key, std::optional<int64_t>* out) const {
  const V* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (std::optional<int64_t> i = PlainInteger(*f, std::numeric_limits<int64_t>::min(),
                                              std::numeric_limits<int64_t>::max())) {
    *out = static_cast<int64_t>(*i);
    return absl::OkStatus();
  }
  KARP_ASSIGN_OR_RETURN(*out, AsInt64(*f, At(key)));
  return absl::OkStatus();
}

template <typename V>
absl::Status BasicFieldReader<V>::StringMap(std::string_view key,
                                            std::map<std::string, std::string>* out) const {
  const V* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_object()) return WrongType(At(key), "an object", *f);
  out->clear();
  return ForMembers(*f, [&](std::string_view name, const V& v) -> absl::Status {
    if (!v.is_string()) return WrongType(JoinPath(At(key), name), "a string", v);
    // Members come in key order, as the map keeps them: placed at the end without a search.
    out->emplace_hint(out->end(), std::string(name), std::string(Str(v)));
    return absl::OkStatus();
  });
}

template <typename V>
absl::Status BasicFieldReader<V>::StringList(std::string_view key,
                                             std::vector<std::string>* out) const {
  const V* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_array()) return WrongType(At(key), "an array", *f);
  out->clear();
  out->reserve(f->size());
  for (size_t i = 0; i < f->size(); ++i) {
    const V& e = (*f)[i];
    if (!e.is_string()) return WrongType(IndexPath(At(key), i), "a string", e);
    out->emplace_back(Str(e));
  }
  return absl::OkStatus();
}

template <typename V>
absl::Status BasicFieldReader<V>::Resources(std::string_view key, ResourceList* out) const {
  const V* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_object()) return WrongType(At(key), "an object", *f);
  ResourceList list;
  KARP_RETURN_IF_ERROR(ForMembers(*f, [&](std::string_view name, const V& v) -> absl::Status {
    if (v.is_null()) return absl::OkStatus();
    if (!name.empty() && v.is_string()) {
      // The common case, without a path; any error is reported by the checked reading below.
      absl::StatusOr<int64_t> q = ParseQuantity(Str(v), name);
      if (q.ok()) {
        list.Set(name, *q);
        return absl::OkStatus();
      }
    }
    const std::string path = JoinPath(At(key), name);
    if (name.empty()) return PathError(path, "empty resource name");
    KARP_ASSIGN_OR_RETURN(std::string text, QuantityText(v, path));
    absl::StatusOr<int64_t> q = ParseQuantity(text, name);
    if (!q.ok()) return PathError(path, internal::Message(q.status()));
    list.Set(name, *q);
    return absl::OkStatus();
  }));
  *out = std::move(list);
  return absl::OkStatus();
}

template <typename V>
absl::Status BasicFieldReader<V>::Time(std::string_view key, absl::Time* out) const {
  std::optional<absl::Time> t;
  KARP_RETURN_IF_ERROR(Time(key, &t));
  if (t.has_value()) *out = *t;
  return absl::OkStatus();
}

template <typename V>
absl::Status BasicFieldReader<V>::Time(std::string_view key, std::optional<absl::Time>* out) const {
  const V* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_string()) return WrongType(At(key), "a string", *f);
  const std::string text(Str(*f));
  absl::Time t;
  if (!TimestampValue(text, &t)) return ParseTimestamp(text, At(key)).status();
  *out = t;
  return absl::OkStatus();
}

template <typename V>
absl::Status BasicFieldReader<V>::Duration(std::string_view key, std::optional<absl::Duration>* out,
                                           bool allow_never) const {
  const V* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  KARP_ASSIGN_OR_RETURN(std::string text, AsString(*f, At(key)));
  if (allow_never && text == kNever) {
    *out = std::nullopt;
    return absl::OkStatus();
  }
  absl::StatusOr<absl::Duration> d = ParseGoDuration(text);
  if (!d.ok()) return PathError(At(key), internal::Message(d.status()));
  *out = *d;
  return absl::OkStatus();
}

template class BasicFieldReader<Json>;
template class BasicFieldReader<LiteValue>;

namespace {

absl::Status VisitItem(const Json& v, const std::string& path, int list_depth,
                       const std::function<absl::Status(const KubernetesObject&)>& visit,
                       int64_t* objects_seen) {
  if (objects_seen != nullptr) ++*objects_seen;
  KARP_ASSIGN_OR_RETURN(FieldReader item, FieldReader::Make(v, path));
  if (!item.present()) return WrongType(path, "an object", v);
  std::string kind;
  KARP_RETURN_IF_ERROR(item.RequiredString("kind", &kind));
  std::string api_version;
  KARP_RETURN_IF_ERROR(item.String("apiVersion", &api_version));
  const Json* items = item.Get("items");
  if (kind == "List" ||
      (items != nullptr && kind.size() > 4 && kind.compare(kind.size() - 4, 4, "List") == 0)) {
    if (list_depth >= 4) return PathError(path, "Lists nested too deeply");
    if (items == nullptr) return absl::OkStatus();
    if (!items->is_array()) return WrongType(item.At("items"), "an array", *items);
    for (size_t i = 0; i < items->size(); ++i) {
      KARP_RETURN_IF_ERROR(VisitItem((*items)[i], IndexPath(item.At("items"), i), list_depth + 1,
                                     visit, objects_seen));
    }
    return absl::OkStatus();
  }
  return visit(KubernetesObject{item, kind, api_version});
}

}  // namespace

absl::Status ForEachListItem(const Json& item, const std::string& path,
                             const std::function<absl::Status(const KubernetesObject&)>& visit,
                             int64_t* objects_seen) {
  return VisitItem(item, path, 1, visit, objects_seen);
}

absl::Status ForEachObject(const Json& doc, const std::string& path,
                           const std::function<absl::Status(const KubernetesObject&)>& visit,
                           int64_t* objects_seen) {
  if (doc.is_null()) return absl::OkStatus();
  if (doc.is_array()) {
    for (size_t i = 0; i < doc.size(); ++i) {
      KARP_RETURN_IF_ERROR(VisitItem(doc[i], IndexPath(path, i), 0, visit, objects_seen));
    }
    return absl::OkStatus();
  }
  if (!doc.is_object()) return WrongType(path, "an object or a List", doc);
  return VisitItem(doc, path, 0, visit, objects_seen);
}

}  // namespace karp::json::codec_internal
