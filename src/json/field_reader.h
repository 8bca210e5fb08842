// Internal to karp::json (and karp::aws, which links karp_json privately): the one reader of
// JSON object fields, over nlohmann::json (FieldReader) or the fast reader's LiteValue
// (LiteFieldReader, for the items of a large List and catalogs; the same fields, errors and
// paths), used by every decoder — the snapshot and catalog codec (codec.cc), the storage
// kinds (codec_storage.cc), simulator traces (sim_trace.cc) and EC2NodeClass
// (src/aws/ec2nodeclass.cc). Its conventions:
//  - paths name fields as `a.b[2].c` and errors read `<path>: <what>` (just `<what>` at the
//    top level);
//  - a field that is absent or JSON null keeps its default;
//  - a field of the wrong JSON type is `<path>: expected <type>, got <actual type>`;
//  - unknown fields are ignored (Kubernetes objects), or rejected in the strict mode of
//    MakeStrict (formats of karp's own, such as simulator traces).

#ifndef KARP_SRC_JSON_FIELD_READER_H_
#define KARP_SRC_JSON_FIELD_READER_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "internal/status_macros.h"
#include "json/document.h"
#include "json/fast_json.h"
#include "karp/resources.h"

namespace karp::json::codec_internal {

// ---------------------------------------------------------------------------------------------
// Paths and errors

// `<base>.<key>`, or `key` when base is empty.
std::string JoinPath(std::string_view base, std::string_view key);
// `<base>[i]`.
std::string IndexPath(std::string_view base, size_t i);
// InvalidArgument `<path>: <what>` (`<what>` when path is empty).
absl::Status PathError(std::string_view path, std::string_view what);
// "null", "an object", "an array", "a string", "a boolean", "a number", ...
const char* TypeName(const Json& v);
const char* TypeName(const LiteValue& v);
// PathError `expected <expected>, got <TypeName(got)>`.
absl::Status WrongType(std::string_view path, std::string_view expected, const Json& got);
absl::Status WrongType(std::string_view path, std::string_view expected, const LiteValue& got);

// ---------------------------------------------------------------------------------------------
// Scalar conversions (errors name `path`)

absl::StatusOr<std::string> AsString(const Json& v, std::string_view path);
absl::StatusOr<std::string> AsString(const LiteValue& v, std::string_view path);
// An integer, or a float with an integral value; out-of-range values are errors.
absl::StatusOr<int64_t> AsInt64(const Json& v, std::string_view path);
absl::StatusOr<int64_t> AsInt64(const LiteValue& v, std::string_view path);
absl::StatusOr<int32_t> AsInt32(const Json& v, std::string_view path);
absl::StatusOr<int32_t> AsInt32(const LiteValue& v, std::string_view path);
// The text of a quantity given as a string or a (finite) JSON number.
absl::StatusOr<std::string> QuantityText(const Json& v, std::string_view path);
absl::StatusOr<std::string> QuantityText(const LiteValue& v, std::string_view path);
// An RFC 3339 timestamp.
absl::StatusOr<absl::Time> ParseTimestamp(const std::string& text, std::string_view path);

// ---------------------------------------------------------------------------------------------
// FieldReader: typed access to the fields of one JSON object (or of an absent one, whose
// fields all read as absent), naming paths on error. Cheap to copy; the JSON value must
// outlive it, and a reader from Object or Objects must not outlive the reader it came from.
// `V` is Json or LiteValue (the members are instantiated for those two only). Not
// thread-safe (the path is built on first use); O(1) per field read (objects are small).

template <typename V>
class BasicFieldReader {
 public:
  // An absent object: every field reads as absent.
  explicit BasicFieldReader(std::string path)
      : v_(nullptr), path_(std::move(path)), path_known_(true) {}

  // `v` must be an object or null (null reads as absent).
  // Errors: `<path>: expected an object, got ...`.
  static absl::StatusOr<BasicFieldReader> Make(const V& v, std::string path);
  // The strict mode: `v` must be an object whose keys are all among `known`.
  // Errors: `<path>: expected an object` (`(document)` for the empty path) and
  // `<path>.<key>: unknown field`.
  static absl::StatusOr<BasicFieldReader> MakeStrict(const V& v, std::string path,
                                                     std::initializer_list<std::string_view> known);

  bool present() const { return v_ != nullptr; }
  // The object read (nullptr when absent).
  const V* value() const { return v_; }
  // Built when first asked for (a field that reads fine never needs it).
  const std::string& path() const {
    if (!path_known_) BuildPath();
    return path_;
  }
  // `<path>.<key>`.
  std::string At(std::string_view key) const { return JoinPath(path(), key); }
  // InvalidArgument `<path>.<key>: <what>` (`<path>: <what>` when key is empty).
  absl::Status Error(std::string_view key, std::string_view what) const;

  // The field, or nullptr when absent or null.
  const V* Get(std::string_view key) const;

  // The sub-object `key` (absent or null: an absent reader).
  absl::StatusOr<BasicFieldReader> Object(std::string_view key) const;

  absl::Status String(std::string_view key, std::string* out) const;
  absl::Status String(std::string_view key, std::optional<std::string>* out) const;
  // Errors: `<path>.<key>: required` when absent or null.
  absl::Status RequiredString(std::string_view key, std::string* out) const;
  absl::Status Bool(std::string_view key, bool* out) const;
  absl::Status Bool(std::string_view key, std::optional<bool>* out) const;
  absl::Status Int32(std::string_view key, int32_t* out) const;
  absl::Status Int32(std::string_view key, std::optional<int32_t>* out) const;
  absl::Status Int64(std::string_view key, std::optional<int64_t>* out) const;
  absl::Status StringMap(std::string_view key, std::map<std::string, std::string>* out) const;
  absl::Status StringList(std::string_view key, std::vector<std::string>* out) const;
  // An object of quantities (each through karp::ParseQuantity with its resource name).
  absl::Status Resources(std::string_view key, ResourceList* out) const;
  absl::Status Time(std::string_view key, absl::Time* out) const;
  absl::Status Time(std::string_view key, std::optional<absl::Time>* out) const;
  // A Go duration ("720h", "1h30m", "10s"); `Never` (-> nullopt) only when `allow_never`.
  absl::Status Duration(std::string_view key, std::optional<absl::Duration>* out,
                        bool allow_never) const;

  // Calls fn(const BasicFieldReader& item) for each element of the array field `key` (each an
  // object), stopping at the first error.
  template <typename Fn>
  absl::Status Objects(std::string_view key, Fn&& fn) const {
    const V* f = Get(key);
    if (f == nullptr) return absl::OkStatus();
    if (!f->is_array()) return WrongType(At(key), "an array", *f);
    for (size_t i = 0; i < f->size(); ++i) {
      KARP_ASSIGN_OR_RETURN(BasicFieldReader item, Element(*f, key, i));
      KARP_RETURN_IF_ERROR(fn(item));
    }
    return absl::OkStatus();
  }

 private:
  BasicFieldReader(const V* v, std::string path)
      : v_(v), path_(std::move(path)), path_known_(true) {}
  // The object `v` at `key` of `parent` (element `index` of that array unless npos), its path
  // left to build. The parent must outlive it, as it does when readers are locals of nested
  // scopes (Object, Objects); `key` likewise.
  BasicFieldReader(const V* v, const BasicFieldReader* parent, std::string_view key,
                   size_t index = std::string::npos)
      : v_(v), parent_(parent), key_(key), index_(index) {}
  // The object at `key[i]` of this object. Errors: `<path>[i]: expected an object, got ...`.
  absl::StatusOr<BasicFieldReader> Element(const V& array, std::string_view key, size_t i) const;
  void BuildPath() const;

  const V* v_;
  const BasicFieldReader* parent_ = nullptr;
  std::string_view key_;
  size_t index_ = std::string::npos;
  mutable std::string path_;
  mutable bool path_known_ = false;
};

using FieldReader = BasicFieldReader<Json>;
using LiteFieldReader = BasicFieldReader<LiteValue>;

// One Kubernetes object of a document, as ForEachObject hands it out.
struct KubernetesObject {
  const FieldReader& item;
  const std::string& kind;
  const std::string& api_version;
};

// Walks a document of Kubernetes objects as kubectl writes them: one object, a JSON array of
// objects, or Lists (`kind: List`, or `<Kind>List` with `items`), nested at most 4 deep, and
// calls `visit` for every object that is not a List. `*objects_seen` (when not null) counts
// every object met, Lists included. Errors: `<path>: expected an object ...`, `<path>.kind:
// required`, `<path>: Lists nested too deeply`, or visit's own.
absl::Status ForEachObject(const Json& doc, const std::string& path,
                           const std::function<absl::Status(const KubernetesObject&)>& visit,
                           int64_t* objects_seen = nullptr);

// What ForEachObject does for one element of the items of a top-level List, at `path`
// (`items[i]`): for a reader that hands out a List's items one at a time
// (LoadJsonStreamingItems).
absl::Status ForEachListItem(const Json& item, const std::string& path,
                             const std::function<absl::Status(const KubernetesObject&)>& visit,
                             int64_t* objects_seen = nullptr);

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_FIELD_READER_H_
