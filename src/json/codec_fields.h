// Internal to karp::json: what the decoders and encoders of the storage kinds
// (codec_storage.cc: PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode) share with
// the snapshot codec (codec.cc, writer.cc), so that every kind follows the same conventions —
// absent or null fields keep their defaults, wrong JSON types and bad values are errors
// naming the JSON path.

#ifndef KARP_SRC_JSON_CODEC_FIELDS_H_
#define KARP_SRC_JSON_CODEC_FIELDS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "json/document.h"
#include "karp/cluster.h"
#include "karp/objects.h"

namespace karp::json::codec_internal {

// A view of one JSON object of a snapshot document at `path`, reading fields with the snapshot
// decoder's rules (implemented in codec.cc over its field reader). Cheap to copy; `v` must
// outlive it.
class Fields {
 public:
  // `v` must be an object or null (null reads as absent). Errors: InvalidArgument
  // `<path>: expected an object, got ...`.
  static absl::StatusOr<Fields> Make(const Json& v, std::string path);

  bool present() const { return v_ != nullptr; }
  const std::string& path() const { return path_; }
  // `<path>.<key>`.
  std::string At(std::string_view key) const;

  // The sub-object `key` (absent: an absent view).
  absl::StatusOr<Fields> Object(std::string_view key) const;
  absl::Status String(std::string_view key, std::string* out) const;
  absl::Status RequiredString(std::string_view key, std::string* out) const;
  absl::Status StringList(std::string_view key, std::vector<std::string>* out) const;
  absl::Status Int32(std::string_view key, std::optional<int32_t>* out) const;
  // Calls fn for each element of the array `key` (each an object).
  absl::Status Objects(std::string_view key,
                       const std::function<absl::Status(const Fields&)>& fn) const;
  // This object's `metadata` (name, namespace, uid, labels, annotations, timestamps, owners).
  absl::Status Meta(ObjectMeta* out) const;
  // This object as a node selector term (matchExpressions with the pod operators; matchFields
  // noted). Arity is not checked here.
  absl::Status NodeSelectorTerm(karp::NodeSelectorTerm* out) const;
  // InvalidArgument `<path>.<key>: <what>` (`<path>: <what>` when key is empty).
  absl::Status Error(std::string_view key, std::string_view what) const;

 private:
  Fields(const Json* v, std::string path) : v_(v), path_(std::move(path)) {}
  const Json* v_;
  std::string path_;
};

// The storage kinds of a snapshot (codec_storage.cc).
struct StorageKind {
  std::string_view kind;         // "PersistentVolumeClaim", ...
  std::string_view api_version;  // "v1" or "storage.k8s.io/v1"
  std::string_view what;         // "persistentvolumeclaim", ... (for duplicate errors)
  bool namespaced;
};
// The storage kind named `kind`, or nullptr.
const StorageKind* FindStorageKind(std::string_view kind);
// Decodes one object of a storage kind and appends it to `snap`; *meta points at its metadata
// (valid until the next append).
absl::Status DecodeStorageObject(const StorageKind& kind, const Fields& item,
                                 ClusterSnapshot* snap, const ObjectMeta** meta);
// Appends the snapshot's storage objects to the items of a List, in the order claims,
// volumes, classes, CSINodes (WriteSnapshot).
void AppendStorageObjects(const ClusterSnapshot& snap, Json* items);

// Encoders shared with writer.cc.
Json ObjectMetaJson(const ObjectMeta& meta, bool with_namespace);
Json NodeSelectorTermToJson(const karp::NodeSelectorTerm& term);

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_CODEC_FIELDS_H_
