// Internal to karp::json: what the decoders and encoders of the storage kinds
// (codec_storage.cc: PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode) share with
// the snapshot codec (codec.cc, writer.cc), so that every kind follows the same conventions —
// those of the field reader (json/field_reader.h).

#ifndef KARP_SRC_JSON_CODEC_FIELDS_H_
#define KARP_SRC_JSON_CODEC_FIELDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "json/document.h"
#include "json/field_reader.h"
#include "karp/cluster.h"
#include "karp/limit_range.h"
#include "karp/node_class.h"
#include "karp/objects.h"
#include "karp/workloads.h"

namespace karp::json::codec_internal {

// The object `m` as a `metadata` (name, namespace, uid, labels, annotations, timestamps,
// owners). R is FieldReader or LiteFieldReader (instantiated in codec_core_kinds.cc for both).
template <typename R>
absl::Status ReadMeta(const R& m, ObjectMeta* meta);
// The object `o` as a node selector term (matchExpressions with the pod operators; matchFields
// noted). Arity is not checked here. R as for ReadMeta.
template <typename R>
absl::Status ReadNodeSelectorTerm(const R& o, karp::NodeSelectorTerm* out);

// A metav1.LabelSelector at `parent.key` (absent: nullopt).
absl::Status ReadSelector(const FieldReader& parent, std::string_view key,
                          std::optional<LabelSelector>* out);

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
absl::Status DecodeStorageObject(const StorageKind& kind, const FieldReader& item,
                                 ClusterSnapshot* snap, const ObjectMeta** meta);
// Appends the snapshot's storage objects to the items of a List, in the order claims,
// volumes, classes, CSINodes (WriteSnapshot).
void AppendStorageObjects(const ClusterSnapshot& snap, Json* items);

// Where a requirement list is read: NodePool requirements and pod node selectors are checked by
// karp::ValidateRequirement; NodeClaim requirements (and a catalog's) as they come.
enum class RequirementOwner { kNodePool, kNodeClaim, kPod };

// The core kinds (codec_core_kinds.cc), one object each, and a requirement list at
// `spec.requirements`. R is FieldReader or LiteFieldReader (instantiated for both). DecodePod
// sets *skip for pods the snapshot leaves out (finished or terminal phases).
template <typename R>
absl::Status DecodeRequirements(const R& spec, RequirementOwner owner,
                                std::vector<NodeSelectorRequirement>* out);
template <typename R>
absl::Status DecodePod(const R& item, Pod* pod, bool* skip);
// One topologySpreadConstraints entry (as a pod's, without the pod-level checks).
absl::Status DecodeTopologySpread(const FieldReader& o, TopologySpreadConstraint* out);
template <typename R>
absl::Status DecodeNode(const R& item, Node* node);
template <typename R>
absl::Status DecodeNodePool(const R& item, NodePool* np);
template <typename R>
absl::Status DecodeNodeClaim(const R& item, NodeClaim* nc);
template <typename R>
absl::Status DecodeDaemonSet(const R& item, DaemonSet* ds);
template <typename R>
absl::Status DecodePdb(const R& item, PodDisruptionBudget* pdb);

// `s` with its message prefixed by `source` ("<source>: <message>").
absl::Status WithSource(std::string_view source, const absl::Status& s);
// The same status with control characters and invalid UTF-8 of the input escaped.
absl::Status Escaped(const absl::Status& s);

// A pod template (`spec.template` of a DaemonSet or workload) as a pod of namespace `ns`:
// template metadata and pod spec, with the API server's defaults (codec_core_kinds.cc).
absl::Status ReadPodTemplate(const FieldReader& tmpl, const std::string& ns, Pod* pod);
// The pod spec part of a Pod object (writer.cc): what WriteSnapshot writes under `spec`.
Json PodSpecToJson(const Pod& pod);
Json LabelSelectorToJson(const LabelSelector& selector);

// Workloads (codec_workloads.cc): one object of `kind`, and its encoding for WriteSnapshot.
absl::Status DecodeWorkload(const FieldReader& item, WorkloadKind kind, Workload* out);
Json WorkloadJson(const Workload& w);

// LimitRange (codec_limit_range.cc).
absl::Status DecodeLimitRange(const FieldReader& item, LimitRange* out);
Json LimitRangeJson(const LimitRange& lr);

// Node classes (codec_node_class.cc): an EC2NodeClass (`karpenter.k8s.aws/v1`).
absl::Status DecodeNodeClass(const FieldReader& item, const std::string& kind,
                             const std::string& api_version, NodeClass* out);
Json NodeClassJson(const NodeClass& nc);

// NodeOverlay (codec_node_overlay.cc): `karpenter.sh/v1alpha1`, checked with the CRD's rules
// (karp::ValidateNodeOverlay, kSchema).
absl::Status DecodeNodeOverlay(const FieldReader& item, NodeOverlay* out);
Json NodeOverlayJson(const NodeOverlay& o);

// Service (codec_service.cc): `v1`, metadata and spec.selector.
absl::Status DecodeService(const FieldReader& item, Service* out);
Json ServiceJson(const Service& s);

// Encoders shared with writer.cc.
Json ObjectMetaJson(const ObjectMeta& meta, bool with_namespace);
Json NodeSelectorTermToJson(const karp::NodeSelectorTerm& term);

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_CODEC_FIELDS_H_
