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

absl::Status WrongType(std::string_view path, std::string_view expected, const Json& got) {
  return PathError(path, internal::StrCat("expected ", expected, ", got ", TypeName(got)));
}

// ---------------------------------------------------------------------------------------------
// Scalar conversions

absl::StatusOr<std::string> AsString(const Json& v, std::string_view path) {
  if (!v.is_string()) return WrongType(path, "a string", v);
  return v.get_ref<const std::string&>();
}

absl::StatusOr<int64_t> AsInt64(const Json& v, std::string_view path) {
  if (v.is_number_integer() && !v.is_number_unsigned()) return v.get<int64_t>();
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
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

// The form Kubernetes writes, "2006-01-02T15:04:05Z", read without absl::ParseTime's general
// parser; false for any other text or a field out of its range (absl::ParseTime decides).
bool PlainUtcTimestamp(const std::string& text, absl::Time* t) {
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' ||
      text[13] != ':' || text[16] != ':' || text[19] != 'Z') {
    return false;
  }
  const int year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  const int hour = Digits(text, 11, 2), minute = Digits(text, 14, 2), second = Digits(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return false;
  const absl::CivilSecond civil(year, month, day, hour, minute, second);
  // Unnormalized: every field in its range (no 31st of April, no leap second).
  if (civil.year() != year || civil.month() != month || civil.day() != day ||
      civil.hour() != hour || civil.minute() != minute || civil.second() != second) {
    return false;
  }
  *t = absl::FromCivil(civil, absl::UTCTimeZone());
  return true;
}

// An RFC 3339 timestamp into *t; false when invalid (the caller names the path).
bool TimestampValue(const std::string& text, absl::Time* t) {
  if (PlainUtcTimestamp(text, t)) return true;
  std::string err;
  return absl::ParseTime(absl::RFC3339_full, text, t, &err) && *t != absl::InfiniteFuture() &&
         *t != absl::InfinitePast();
}

// The value of an integer JSON number within [lo, hi], or nullopt for anything else (a float,
// out of range, not a number): the checked conversions then name the path and the problem.
// The fast path of the readers below: no path is built for a field that reads fine.
std::optional<int64_t> PlainInteger(const Json& v, int64_t lo, int64_t hi) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(hi)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i < lo || i > hi) return std::nullopt;
    return i;
  }
  return std::nullopt;
}

constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

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

absl::StatusOr<FieldReader> FieldReader::Make(const Json& v, std::string path) {
  if (v.is_null()) return FieldReader(std::move(path));
  if (!v.is_object()) return WrongType(path, "an object", v);
  return FieldReader(&v, std::move(path));
}

absl::StatusOr<FieldReader> FieldReader::MakeStrict(const Json& v, std::string path,
                                                    std::initializer_list<std::string_view> known) {
  if (!v.is_object()) return PathError(path.empty() ? "(document)" : path, "expected an object");
  for (auto it = v.begin(); it != v.end(); ++it) {
    bool ok = false;
    for (std::string_view k : known) ok |= it.key() == k;
    if (!ok) return PathError(JoinPath(path, it.key()), "unknown field");
  }
  return FieldReader(&v, std::move(path));
}

absl::StatusOr<FieldReader> FieldReader::Element(const Json& array, size_t i,
                                                 std::string_view path) {
  const Json& e = array[i];
  std::string item_path = IndexPath(path, i);
  if (!e.is_object()) return WrongType(item_path, "an object", e);
  return FieldReader(&e, std::move(item_path));
}

absl::Status FieldReader::Error(std::string_view key, std::string_view what) const {
  return PathError(key.empty() ? path_ : At(key), what);
}

const Json* FieldReader::Get(std::string_view key) const {
  if (v_ == nullptr) return nullptr;
  auto it = v_->find(key);
  if (it == v_->end() || it->is_null()) return nullptr;
  return &*it;
}

absl::StatusOr<FieldReader> FieldReader::Object(std::string_view key) const {
  const Json* f = Get(key);
  if (f == nullptr) return FieldReader(At(key));
  return Make(*f, At(key));
}

// The readers below build the field's path only for an error: most fields read fine.

absl::Status FieldReader::String(std::string_view key, std::string* out) const {
  const Json* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_string()) return WrongType(At(key), "a string", *f);
  *out = f->get_ref<const std::string&>();
  return absl::OkStatus();
}

absl::Status FieldReader::String(std::string_view key, std::optional<std::string>* out) const {
  const Json* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_string()) return WrongType(At(key), "a string", *f);
  *out = f->get_ref<const std::string&>();
  return absl::OkStatus();
}

absl::Status FieldReader::RequiredString(std::string_view key, std::string* out) const {
  if (Get(key) == nullptr) return PathError(At(key), "required");
  return String(key, out);
}

absl::Status FieldReader::Bool(std::string_view key, bool* out) const {
  std::optional<bool> b;
  KARP_RETURN_IF_ERROR(Bool(key, &b));
  if (b.has_value()) *out = *b;
  return absl::OkStatus();
}

absl::Status FieldReader::Bool(std::string_view key, std::optional<bool>* out) const {
  const Json* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_boolean()) return WrongType(At(key), "a boolean", *f);
  *out = f->get<bool>();
  return absl::OkStatus();
}

absl::Status FieldReader::Int32(std::string_view key, int32_t* out) const {
  const Json* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (std::optional<int64_t> i = PlainInteger(*f, kInt32Min, kInt32Max)) {
    *out = static_cast<int32_t>(*i);
    return absl::OkStatus();
  }
  KARP_ASSIGN_OR_RETURN(*out, AsInt32(*f, At(key)));
  return absl::OkStatus();
}

absl::Status FieldReader::Int32(std::string_view key, std::optional<int32_t>* out) const {
  const Json* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (std::optional<int64_t> i = PlainInteger(*f, kInt32Min, kInt32Max)) {
    *out = static_cast<int32_t>(*i);
    return absl::OkStatus();
  }
  KARP_ASSIGN_OR_RETURN(*out, AsInt32(*f, At(key)));
  return absl::OkStatus();
}

absl::Status FieldReader::Int64(std::string_view key, std::optional<int64_t>* out) const {
  const Json* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (std::optional<int64_t> i = PlainInteger(*f, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max())) {
    *out = static_cast<int64_t>(*i);
    return absl::OkStatus();
  }
  KARP_ASSIGN_OR_RETURN(*out, AsInt64(*f, At(key)));
  return absl::OkStatus();
}

absl::Status FieldReader::StringMap(std::string_view key,
                                    std::map<std::string, std::string>* out) const {
  const Json* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_object()) return WrongType(At(key), "an object", *f);
  out->clear();
  for (auto it = f->begin(); it != f->end(); ++it) {
    if (!it->is_string()) return WrongType(JoinPath(At(key), it.key()), "a string", *it);
    out->emplace(it.key(), it->get_ref<const std::string&>());
  }
  return absl::OkStatus();
}

absl::Status FieldReader::StringList(std::string_view key, std::vector<std::string>* out) const {
  const Json* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_array()) return WrongType(At(key), "an array", *f);
  out->clear();
  out->reserve(f->size());
  for (size_t i = 0; i < f->size(); ++i) {
    const Json& e = (*f)[i];
    if (!e.is_string()) return WrongType(IndexPath(At(key), i), "a string", e);
    out->push_back(e.get_ref<const std::string&>());
  }
  return absl::OkStatus();
}

absl::Status FieldReader::Resources(std::string_view key, ResourceList* out) const {
  const Json* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_object()) return WrongType(At(key), "an object", *f);
  ResourceList list;
  for (auto it = f->begin(); it != f->end(); ++it) {
    const std::string& name = it.key();
    if (it->is_null()) continue;
    if (!name.empty() && it->is_string()) {
      // The common case, without a path; any error is reported by the checked reading below.
      absl::StatusOr<int64_t> q = ParseQuantity(it->get_ref<const std::string&>(), name);
      if (q.ok()) {
        list.Set(name, *q);
        continue;
      }
    }
    const std::string path = JoinPath(At(key), name);
    if (name.empty()) return PathError(path, "empty resource name");
    KARP_ASSIGN_OR_RETURN(std::string text, QuantityText(*it, path));
    absl::StatusOr<int64_t> q = ParseQuantity(text, name);
    if (!q.ok()) return PathError(path, internal::Message(q.status()));
    list.Set(name, *q);
  }
  *out = std::move(list);
  return absl::OkStatus();
}

absl::Status FieldReader::Time(std::string_view key, absl::Time* out) const {
  std::optional<absl::Time> t;
  KARP_RETURN_IF_ERROR(Time(key, &t));
  if (t.has_value()) *out = *t;
  return absl::OkStatus();
}

absl::Status FieldReader::Time(std::string_view key, std::optional<absl::Time>* out) const {
  const Json* f = Get(key);
  if (f == nullptr) return absl::OkStatus();
  if (!f->is_string()) return WrongType(At(key), "a string", *f);
  const std::string& text = f->get_ref<const std::string&>();
  absl::Time t;
  if (!TimestampValue(text, &t)) return ParseTimestamp(text, At(key)).status();
  *out = t;
  return absl::OkStatus();
}

absl::Status FieldReader::Duration(std::string_view key, std::optional<absl::Duration>* out,
                                   bool allow_never) const {
  const Json* f = Get(key);
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
