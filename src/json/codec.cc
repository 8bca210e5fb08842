// karp::json decoding: Kubernetes objects (docs/formats.md §1) and catalogs (§2) from the
// nlohmann::json documents of document.h into karp's value types, with `<path>: <what>` errors.
// Encoding lives in writer.cc.
// The core kinds' readers are in codec_core_kinds.cc, the catalog's in codec_catalog.cc.
//
//
// Conventions:
//  - a field that is absent or JSON null keeps its default;
//  - a field of the wrong JSON type is an error naming the path and the expected type;
//  - enumerations (operators, effects, policies, phases) are parsed strictly;
//  - quantities go through karp::ParseQuantity (negative values rejected), NodePool
//    requirements and the node selectors of pending pods through karp::ValidateRequirement.

#include "karp/json/codec.h"
#include "karp/json/command_io.h"

#include <string.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_fields.h"
#include "json/convert_old_api.h"
#include "json/document.h"
#include "json/fast_json.h"
#include "json/field_reader.h"
#include "json/schema.h"

namespace karp::json {
namespace {

using codec_internal::Document;
using codec_internal::FieldReader;
using codec_internal::ForEachObject;
using codec_internal::IndexPath;
using codec_internal::JoinPath;
using codec_internal::Json;
using codec_internal::KubernetesObject;
using codec_internal::LiteFieldReader;
using codec_internal::LiteValue;
using codec_internal::LoadDocuments;
using codec_internal::LoadJsonStreamingItems;
using codec_internal::PathError;
using codec_internal::ReadWholeFile;
using internal::Message;

// ---------------------------------------------------------------------------------------------
// Snapshot assembly

struct KindInfo {
  std::string_view kind;
  std::string_view api_version;
  bool core;  // read by SnapshotDecoder::CoreItem (by either reader)
};

constexpr KindInfo kKinds[] = {
    {"Pod", "v1", true},
    {"Node", "v1", true},
    {"NodePool", "karpenter.sh/v1", true},
    {"NodeClaim", "karpenter.sh/v1", true},
    {"DaemonSet", "apps/v1", true},
    {"PodDisruptionBudget", "policy/v1", true},
    // Storage kinds: decoded by codec_storage.cc.
    {"PersistentVolumeClaim", "v1", false},
    {"PersistentVolume", "v1", false},
    {"StorageClass", "storage.k8s.io/v1", false},
    {"CSINode", "storage.k8s.io/v1", false},
    // Workloads: codec_workloads.cc.
    {"Deployment", "apps/v1", false},
    {"ReplicaSet", "apps/v1", false},
    {"StatefulSet", "apps/v1", false},
    {"Job", "batch/v1", false},
    {"CronJob", "batch/v1", false},
    {"ReplicationController", "v1", false},
    // Namespace defaults: codec_limit_range.cc.
    {"LimitRange", "v1", false},
    // Node classes: codec_node_class.cc.
    {"EC2NodeClass", "karpenter.k8s.aws/v1", false},
    // Overlays: codec_node_overlay.cc.
    {"NodeOverlay", "karpenter.sh/v1alpha1", false},
    // Services (what default topology spread selectors come from): codec_service.cc.
    {"Service", "v1", false},
};

// codec_internal::DescribeObject of an object read by either reader.
std::string Describe(const FieldReader& item, std::string_view kind, std::string_view api_version) {
  return codec_internal::DescribeObject(item, kind, api_version);
}
std::string Describe(const LiteFieldReader& item, std::string_view kind,
                     std::string_view api_version) {
  const Json object = codec_internal::ToJson(*item.value());
  return codec_internal::DescribeObject(FieldReader::Make(object, item.path()).value(), kind,
                                        api_version);
}

class SnapshotDecoder {
 public:
  explicit SnapshotDecoder(FieldValidation validation) : validation_(validation) {}

  absl::Status Document(const Json& v, const std::string& path) {
    Reserve(v);
    return ForEachObject(
        v, path, [&](const KubernetesObject& o) { return Item(o.item, o.kind, o.api_version); },
        &objects_seen_);
  }
  // Room for the Pods and Nodes of a List read item by item: `"kind": "Pod"` and
  // `"kind": "Node"` (with or without the space) are counted in its text. Only a guess, as for
  // Reserve: what is read does not depend on it.
  void ReserveFromText(std::string_view text) {
    size_t pods = 0;
    size_t nodes = 0;
    constexpr std::string_view kKind = "\"kind\":";
    // memmem: string_view::find would stop at every quote of the text.
    auto find = [&](size_t from) -> size_t {
      const void* hit = memmem(text.data() + from, text.size() - from, kKind.data(), kKind.size());
      return hit == nullptr ? std::string_view::npos
                            : static_cast<size_t>(static_cast<const char*>(hit) - text.data());
    };
    for (size_t at = find(0); at != std::string_view::npos; at = find(at + kKind.size())) {
      std::string_view rest = text.substr(at + kKind.size());
      if (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
      constexpr std::string_view kPod = "\"Pod\"", kNode = "\"Node\"";
      pods += rest.substr(0, kPod.size()) == kPod;
      nodes += rest.substr(0, kNode.size()) == kNode;
    }
    snap_.pods.reserve(snap_.pods.size() + pods);
    snap_.nodes.reserve(snap_.nodes.size() + nodes);
  }

  // One element of the items of a top-level List (streamed), at `path` (`items[i]`).
  absl::Status ListItem(const Json& v, const std::string& path) {
    return codec_internal::ForEachListItem(
        v, path, [&](const KubernetesObject& o) { return Item(o.item, o.kind, o.api_version); },
        &objects_seen_);
  }

  // An element of a List's items as the fast reader gives it: the kinds of CoreItem are read
  // in place, anything else (other kinds, Lists, errors in kind or apiVersion) as its
  // nlohmann value, by the same code as a whole document.
  absl::Status LiteListItem(const LiteValue& v, const std::string& path) {
    const LiteValue* kind = v.Find("kind");
    const LiteValue* api_version = v.Find("apiVersion");
    const bool simple = kind != nullptr && kind->is_string() &&
                        (api_version == nullptr || api_version->is_string()) &&
                        !IsListKind(kind->str()) &&
                        IsCoreItem(kind->str(), api_version ? api_version->str() : "");
    if (!simple) return ListItem(codec_internal::ToJson(v), path);
    ++objects_seen_;
    KARP_RETURN_IF_ERROR(CheckFields(v, kind->str(), api_version ? api_version->str() : "", path));
    KARP_ASSIGN_OR_RETURN(LiteFieldReader item, LiteFieldReader::Make(v, path));
    return CoreItem(item, std::string(kind->str()),
                    api_version ? std::string(api_version->str()) : std::string());
  }

  // The input the next documents come from (named in duplicate-object errors).
  void SetSource(std::string_view source) {
    source_ = std::string(source);
    sources_.push_back(source_);
  }

  // Decodes the v1 form of the older-API objects met so far (json/convert_old_api.h).
  absl::Status FinishConversions() {
    return codec_internal::DecodeConverted(
        old_api_, &snap_, [&](const codec_internal::ConvertedObject& c, const FieldReader& item) {
          SetSource(c.source);
          // Written by the conversion (its input had its own schema checked).
          converted_ = true;
          absl::Status s = Item(item, c.object.value("kind", ""), c.object.value("apiVersion", ""));
          converted_ = false;
          return s;
        });
  }
  ClusterSnapshot Take() {
    for (std::string& w : field_warnings_) snap_.warnings.push_back(std::move(w));
    if (unreported_fields_ > 0) {
      snap_.warnings.push_back(internal::StrCat("and ", unreported_fields_, " more unknown field",
                                                unreported_fields_ == 1 ? "" : "s", " (ignored)"));
    }
    field_warnings_.clear();
    unreported_fields_ = 0;
    return std::move(snap_);
  }
  // How many objects (of any kind, Lists included) the documents so far held.
  int64_t objects_seen() const { return objects_seen_; }

 private:
  // One object that is not a List.
  absl::Status Item(const FieldReader& item, const std::string& kind,
                    const std::string& api_version) {
    if (!converted_ && item.value() != nullptr) {
      KARP_RETURN_IF_ERROR(CheckFields(*item.value(), kind, api_version, item.path()));
    }
    if (codec_internal::IsOldApiObject(kind, api_version)) {
      return old_api_.Add(item, kind, api_version, source_);
    }
    const KindInfo* info = FindKind(kind);
    if (info == nullptr) {
      Skip(internal::StrCat(codec_internal::DescribeObject(item, kind, api_version),
                            " (not a kind karp reads)"));
      return absl::OkStatus();
    }
    if (!api_version.empty() && api_version != info->api_version) {
      return PathError(item.At("apiVersion"),
                       internal::StrCat("unsupported apiVersion \"", api_version, "\" for kind ",
                                        kind, " (expected ", info->api_version, ")"));
    }
    if (const codec_internal::StorageKind* sk = codec_internal::FindStorageKind(kind)) {
      const ObjectMeta* meta = nullptr;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeStorageObject(*sk, item, &snap_, &meta));
      // The storage decoders apply their field rules while reading (codec_storage.cc).
      return CheckUnique(item, sk->what, *meta, sk->namespaced, absl::OkStatus());
    }
    if (std::optional<WorkloadKind> wk = ParseWorkloadKind(kind)) {
      Workload w;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeWorkload(item, *wk, &w));
      KARP_RETURN_IF_ERROR(
          CheckUnique(item, absl::AsciiStrToLower(kind), w.metadata, true, ValidateWorkload(w)));
      snap_.workloads.push_back(std::move(w));
      return absl::OkStatus();
    }
    if (kind == "LimitRange") {
      LimitRange lr;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeLimitRange(item, &lr));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "limitrange", lr.metadata, true, absl::OkStatus()));
      snap_.limit_ranges.push_back(std::move(lr));
      return absl::OkStatus();
    }
    if (kind == "EC2NodeClass") {
      NodeClass nc;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeNodeClass(item, kind, api_version, &nc));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "ec2nodeclass", nc.metadata, false, absl::OkStatus()));
      snap_.node_classes.push_back(std::move(nc));
      return absl::OkStatus();
    }
    if (kind == "Service") {
      Service svc;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeService(item, &svc));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "service", svc.metadata, true, absl::OkStatus()));
      snap_.services.push_back(std::move(svc));
      return absl::OkStatus();
    }
    if (kind == "NodeOverlay") {
      NodeOverlay o;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeNodeOverlay(item, &o));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "nodeoverlay", o.metadata, false, absl::OkStatus()));
      snap_.node_overlays.push_back(std::move(o));
      return absl::OkStatus();
    }
    return CoreItem(item, kind, api_version);
  }

  // The fields of an object of `kind` that its schema lacks, as validation_ says (an object
  // without apiVersion has its kind's).
  template <typename V>
  absl::Status CheckFields(const V& v, std::string_view kind, std::string_view api_version,
                           std::string_view path) {
    if (validation_ == FieldValidation::kIgnore) return absl::OkStatus();
    if (api_version.empty()) {
      const KindInfo* info = FindKind(kind);
      if (info == nullptr) return absl::OkStatus();
      api_version = info->api_version;
    }
    return codec_internal::CheckKnownFields(v, codec_internal::FindSchema(api_version, kind), path,
                                            validation_, source_, &field_warnings_,
                                            &unreported_fields_);
  }

  static const KindInfo* FindKind(std::string_view kind) {
    for (const KindInfo& k : kKinds) {
      if (k.kind == kind) return &k;
    }
    return nullptr;
  }

  // Whether `kind` may be a List's (the fast path leaves those to ForEachListItem).
  static bool IsListKind(std::string_view kind) {
    return kind.size() >= 4 && kind.substr(kind.size() - 4) == "List";
  }

  // Whether an object of `kind` and `api_version` is read by CoreItem.
  static bool IsCoreItem(std::string_view kind, std::string_view api_version) {
    const KindInfo* info = FindKind(kind);
    return info != nullptr && info->core && !codec_internal::IsOldApiObject(kind, api_version) &&
           (api_version.empty() || api_version == info->api_version);
  }

  // A Pod, Node, NodePool, NodeClaim, DaemonSet or PodDisruptionBudget.
  template <typename R>
  absl::Status CoreItem(const R& item, const std::string& kind, const std::string& api_version) {
    if (kind == "Pod") {
      return PodItem(item, kind, api_version);
    } else if (kind == "Node") {
      Node node;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeNode(item, &node));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "node", node.metadata, false, ValidateNode(node)));
      snap_.nodes.push_back(std::move(node));
    } else if (kind == "NodePool") {
      NodePool np;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeNodePool(item, &np));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "nodepool", np.metadata, false, ValidateNodePool(np)));
      snap_.node_pools.push_back(std::move(np));
    } else if (kind == "NodeClaim") {
      NodeClaim nc;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeNodeClaim(item, &nc));
      KARP_RETURN_IF_ERROR(
          CheckUnique(item, "nodeclaim", nc.metadata, false, ValidateNodeClaim(nc)));
      snap_.node_claims.push_back(std::move(nc));
    } else if (kind == "DaemonSet") {
      DaemonSet ds;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeDaemonSet(item, &ds));
      KARP_RETURN_IF_ERROR(
          CheckUnique(item, "daemonset", ds.metadata, true, ValidateDaemonSet(ds)));
      snap_.daemon_sets.push_back(std::move(ds));
    } else {
      PodDisruptionBudget pdb;
      KARP_RETURN_IF_ERROR(codec_internal::DecodePdb(item, &pdb));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "poddisruptionbudget", pdb.metadata, true,
                                       ValidatePodDisruptionBudget(pdb)));
      snap_.pdbs.push_back(std::move(pdb));
    }
    return absl::OkStatus();
  }

  // Room for the Pods and Nodes of a List document (kubectl's output), so that the large
  // vectors are not moved as they grow. Only a guess: the items are checked as they are read.
  void Reserve(const Json& v) {
    if (!v.is_object()) return;
    auto items = v.find("items");
    if (items == v.end() || !items->is_array()) return;
    size_t pods = 0;
    size_t nodes = 0;
    for (const Json& item : *items) {
      if (!item.is_object()) continue;
      auto kind = item.find("kind");
      if (kind == item.end() || !kind->is_string()) continue;
      const std::string& k = kind->get_ref<const std::string&>();
      pods += k == "Pod";
      nodes += k == "Node";
    }
    snap_.pods.reserve(snap_.pods.size() + pods);
    snap_.nodes.reserve(snap_.nodes.size() + nodes);
  }

  // A Pod, read in place at the end of the snapshot's pods (a Pod is large to move).
  template <typename R>
  absl::Status PodItem(const R& item, const std::string& kind, const std::string& api_version) {
    Pod& pod = snap_.pods.emplace_back();
    bool skip = false;
    absl::Status s = codec_internal::DecodePod(item, &pod, &skip);
    if (s.ok() && skip) {
      Skip(internal::StrCat(Describe(item, kind, api_version), " (schedulerName \"",
                            pod.scheduler_name, "\" is not karp's)"));
    } else if (s.ok()) {
      s = CheckUnique(item, "pod", pod.metadata, true, ValidatePod(pod));
      if (s.ok()) return s;
    }
    snap_.pods.pop_back();
    return s;
  }

  // Names are required and unique per kind (per namespace for namespaced kinds), across every
  // file read by this decoder; then the object passes its model validator (karp/objects.h).
  template <typename R>
  absl::Status CheckUnique(const R& item, std::string_view what, const ObjectMeta& meta,
                           bool namespaced, const absl::Status& valid) {
    auto name_path = [&] { return JoinPath(item.At("metadata"), "name"); };
    if (meta.name.empty()) return PathError(name_path(), "required");
    if (!valid.ok()) return absl::InvalidArgumentError(JoinPath(item.path(), Message(valid)));
    std::string key = namespaced ? internal::StrCat(meta.namespace_, "/", meta.name) : meta.name;
    auto [it, inserted] =
        seen_.emplace(internal::StrCat(what, " ", key), Origin{sources_.size() - 1, item.path()});
    if (!inserted) {
      const std::string at = it->second.path.empty() ? "the top level" : it->second.path;
      const std::string& first = sources_[it->second.source];
      const std::string where = first == source_ ? at : internal::StrCat(at, " of ", first);
      return PathError(name_path(), internal::StrCat("duplicate ", what, " \"", key,
                                                     "\" (first defined at ", where, ")"));
    }
    return absl::OkStatus();
  }

  void Skip(std::string what) {
    ++snap_.skipped_objects;
    snap_.skipped.push_back(std::move(what));
  }

  struct Origin {
    size_t source;  // in sources_
    std::string path;
  };
  std::string source_;
  std::vector<std::string> sources_ = {""};  // every source set, in order; source_ is the last
  int64_t objects_seen_ = 0;
  FieldValidation validation_;
  bool converted_ = false;                   // decoding what the older-API conversion wrote
  std::vector<std::string> field_warnings_;  // unknown fields (kWarn), source first
  size_t unreported_fields_ = 0;             // beyond kMaxFieldWarnings
  ClusterSnapshot snap_;
  codec_internal::OldApiConverter old_api_;
  // "<kind> <key>" -> where it was first defined (only looked up: no order to keep)
  absl::flat_hash_map<std::string, Origin> seen_;
};

}  // namespace

namespace codec_internal {

absl::Status WithSource(std::string_view source, const absl::Status& s) {
  return absl::Status(s.code(), internal::StrCat(source, ": ", Message(s)));
}

// The same status with control characters and invalid UTF-8 of the input escaped.
absl::Status Escaped(const absl::Status& s) {
  return absl::Status(s.code(), internal::EscapeForMessage(Message(s)));
}

}  // namespace codec_internal

namespace {

using codec_internal::Escaped;
using codec_internal::WithSource;

// The fast path of DecodeInto for a JSON List: each item is decoded as soon as it is read, and
// dropped, instead of after the whole document is built (less memory, less allocation). Then
// the root is decoded (its items already done): its own errors come first, as when the items
// are read from the whole document, then the first item's error. Returns false, with
// `decoder` as it was, when this path does not apply (not a JSON object, declined by the fast
// reader, or an object with items that is not a List): DecodeInto then reads the document.
bool DecodeStreamed(SnapshotDecoder& decoder, std::string_view text, std::string_view source,
                    absl::Status* status) {
  std::optional<SnapshotDecoder> saved;  // the decoder before the first item
  absl::Status item_error;
  std::optional<Json> root = LoadJsonStreamingItems(text, [&](const LiteValue& item, size_t i) {
    if (!saved) {
      saved.emplace(decoder);
      decoder.SetSource(source);
      decoder.ReserveFromText(text);
    }
    if (item_error.ok()) item_error = decoder.LiteListItem(item, IndexPath("items", i));
  });
  if (!root || (saved && !codec_internal::MayBeList(*root))) {
    if (saved) decoder = *std::move(saved);
    return false;
  }
  const int64_t before = saved ? saved->objects_seen() : decoder.objects_seen();
  if (!saved) decoder.SetSource(source);
  *status = decoder.Document(*root, "");
  if (status->ok()) *status = item_error;
  if (!status->ok()) {
    *status = Escaped(WithSource(source, *status));
  } else if (decoder.objects_seen() == before) {
    *status = absl::InvalidArgumentError(
        internal::EscapeForMessage(internal::StrCat("no objects in ", source)));
  }
  return true;
}

// DecodeStreamed for a YAML List (one document): each item is decoded as soon as yaml-cpp's
// events complete it (codec_internal::LoadYamlStreamingItems), so the List is never held
// whole; errors come in the same order. Returns false, with `decoder` as it was, when this
// path does not apply; *docs then holds the documents when they were read (nothing was
// streamed: no List, or a JSON text), or is left empty for DecodeInto to read them again.
bool DecodeStreamedYaml(SnapshotDecoder& decoder, std::string_view text, std::string_view source,
                        std::optional<absl::StatusOr<std::vector<Document>>>* docs,
                        absl::Status* status) {
  std::optional<SnapshotDecoder> saved;  // the decoder before the first item
  absl::Status item_error;
  *docs = codec_internal::LoadYamlStreamingItems(text, source, [&](const Json& item, size_t i) {
    if (!saved) {
      saved.emplace(decoder);
      decoder.SetSource(source);
    }
    if (item_error.ok()) item_error = decoder.ListItem(item, IndexPath("items", i));
  });
  if (!saved) return false;
  std::optional<absl::StatusOr<std::vector<Document>>>& read = *docs;
  const bool ok = read.has_value() && read->ok();
  if (!ok || (*read)->size() != 1 || !codec_internal::MayBeList((**read)[0].value)) {
    decoder = *std::move(saved);
    if (ok) read.reset();  // read again, without the sink (an error stays: it is the same)
    return false;
  }
  const int64_t before = saved->objects_seen();
  *status = decoder.Document((**read)[0].value, "");
  if (status->ok()) *status = item_error;
  if (!status->ok()) {
    *status = Escaped(WithSource(source, *status));
  } else if (decoder.objects_seen() == before) {
    *status = absl::InvalidArgumentError(
        internal::EscapeForMessage(internal::StrCat("no objects in ", source)));
  }
  return true;
}

// Several YAML documents (`---`-separated manifests), each decoded as soon as it is read and
// dropped, so that they never are all held as trees of values at once. Returns false when
// the text is JSON or certainly one YAML document (the other paths read those). A syntax error
// anywhere is the error, before a decoding error, as when the documents are read whole.
bool DecodeYamlDocuments(SnapshotDecoder& decoder, std::string_view text, std::string_view source,
                         absl::Status* status) {
  if (codec_internal::IsJsonText(text) || !codec_internal::MayHoldSeveralYamlDocuments(text)) {
    return false;
  }
  decoder.SetSource(source);
  const int64_t before = decoder.objects_seen();
  absl::Status decoded;
  const absl::Status read = codec_internal::LoadYamlDocuments(
      text, source, [&](const Json& doc, const std::string& path) {
        if (decoded.ok()) decoded = decoder.Document(doc, path);
      });
  if (!read.ok()) {
    *status = Escaped(read);
  } else if (!decoded.ok()) {
    *status = Escaped(WithSource(source, decoded));
  } else if (decoder.objects_seen() == before) {
    *status = absl::InvalidArgumentError(
        internal::EscapeForMessage(internal::StrCat("no objects in ", source)));
  }
  return true;
}

// Decodes one input into `decoder`; errors carry the source, input text escaped.
absl::Status DecodeInto(SnapshotDecoder& decoder, std::string_view text, std::string_view source) {
  if (absl::Status s = codec_internal::CheckNoNulByte(text, source); !s.ok()) return Escaped(s);
  try {
    if (absl::Status s; DecodeStreamed(decoder, text, source, &s)) return s;
    if (absl::Status s; DecodeYamlDocuments(decoder, text, source, &s)) return s;
    std::optional<absl::StatusOr<std::vector<Document>>> read;
    if (absl::Status s; DecodeStreamedYaml(decoder, text, source, &read, &s)) return s;
    absl::StatusOr<std::vector<Document>> docs =
        read.has_value() ? *std::move(read) : LoadDocuments(text, source);
    if (!docs.ok()) return Escaped(docs.status());
    decoder.SetSource(source);
    const int64_t before = decoder.objects_seen();
    for (const Document& doc : *docs) {
      if (absl::Status s = decoder.Document(doc.value, doc.path); !s.ok()) {
        return Escaped(WithSource(source, s));
      }
    }
    // An input without any object is a mistake (an empty file or stdin), as for kubectl.
    if (decoder.objects_seen() == before) {
      return absl::InvalidArgumentError(
          internal::EscapeForMessage(internal::StrCat("no objects in ", source)));
    }
    return absl::OkStatus();
  } catch (const std::exception& e) {
    return Escaped(absl::InvalidArgumentError(internal::StrCat(source, ": ", e.what())));
  } catch (...) {
    return Escaped(absl::InvalidArgumentError(internal::StrCat(source, ": unreadable input")));
  }
}

// The converted older-API objects of `decoder`; errors escaped.
absl::Status FinishConversions(SnapshotDecoder& decoder) {
  try {
    if (absl::Status s = decoder.FinishConversions(); !s.ok()) return Escaped(s);
    return absl::OkStatus();
  } catch (const std::exception& e) {
    return Escaped(absl::InvalidArgumentError(e.what()));
  }
}

// The names of the first `kNamed` entries of `items`, then how many more.
std::string NamedList(const std::vector<std::string>& items) {
  constexpr size_t kNamed = 10;
  std::string text;
  for (size_t i = 0; i < items.size() && i < kNamed; ++i) {
    if (i > 0) text += ", ";
    text += items[i];
  }
  if (items.size() > kNamed) text += internal::StrCat(" and ", items.size() - kNamed, " more");
  return text;
}

// What the API server and the controllers do before a controller sees the objects: workloads
// become the pods their controllers create (or are listed as skipped), then pods not yet
// admitted get their namespace's LimitRange defaults (or are refused and listed as skipped).
absl::Status Admit(ClusterSnapshot* snap, const ReadOptions& options) {
  if (!options.expand_workloads) {
    for (const Workload& w : snap->workloads) {
      ++snap->skipped_objects;
      snap->skipped.push_back(internal::StrCat(WorkloadApiVersion(w.kind), " ",
                                               WorkloadKindName(w.kind), " ", w.Key(),
                                               " (workloads not expanded)"));
    }
  } else {
    absl::StatusOr<WorkloadExpansion> e = ExpandWorkloads(snap);
    if (!e.ok()) return Escaped(e.status());
    if (!e->created.empty()) {
      snap->notes.push_back(internal::StrCat("created ", e->pods_created,
                                             e->pods_created == 1 ? " pod" : " pods",
                                             " from workloads: ", NamedList(e->created)));
    }
    for (std::string& note : e->notes) snap->notes.push_back(std::move(note));
  }
  LimitRangeAdmission admitted = ApplyLimitRanges(snap);
  if (!admitted.defaulted.empty()) {
    snap->notes.push_back(internal::StrCat(
        "LimitRange defaults set for ", admitted.defaulted.size(), " pod",
        admitted.defaulted.size() == 1 ? ": " : "s: ", NamedList(admitted.defaulted)));
  }
  for (const RejectedPod& r : admitted.rejected) {
    ++snap->skipped_objects;
    snap->skipped.push_back(internal::StrCat("v1 Pod ", r.pod, " (rejected by LimitRange ",
                                             r.limit_range, ": ", r.reason, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ClusterSnapshot> ParseSnapshot(std::string_view text, std::string_view source,
                                              FieldValidation validation) {
  SnapshotDecoder decoder(validation);
  if (absl::Status s = DecodeInto(decoder, text, source); !s.ok()) return s;
  KARP_RETURN_IF_ERROR(FinishConversions(decoder));
  return decoder.Take();
}

absl::StatusOr<std::string> ReadFile(const std::string& path, const ReadOptions& options) {
  return ReadWholeFile(path, options);
}

absl::StatusOr<ClusterSnapshot> ReadSnapshotFiles(const std::vector<std::string>& paths,
                                                  const ReadOptions& options) {
  // One decoder for every file: each object is validated as it is read, and a name defined
  // twice is reported with both places (the merged snapshot needs no second validation).
  SnapshotDecoder decoder(options.validation);
  for (const std::string& path : paths) {
    KARP_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, options));
    KARP_RETURN_IF_ERROR(DecodeInto(decoder, text, path));
  }
  KARP_RETURN_IF_ERROR(FinishConversions(decoder));
  ClusterSnapshot snap = decoder.Take();
  KARP_RETURN_IF_ERROR(Admit(&snap, options));
  return snap;
}

absl::StatusOr<ClusterSnapshot> ParseSnapshotInputs(const std::vector<Input>& inputs,
                                                    const ReadOptions& options) {
  SnapshotDecoder decoder(options.validation);
  for (const Input& input : inputs) {
    KARP_RETURN_IF_ERROR(DecodeInto(decoder, input.text, input.source));
  }
  KARP_RETURN_IF_ERROR(FinishConversions(decoder));
  ClusterSnapshot snap = decoder.Take();
  KARP_RETURN_IF_ERROR(Admit(&snap, options));
  return snap;
}
}  // namespace karp::json
