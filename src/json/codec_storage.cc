// karp::json: the storage kinds of a snapshot — PersistentVolumeClaim and PersistentVolume
// (`v1`), StorageClass and CSINode (`storage.k8s.io/v1`) — decoded and encoded with the
// conventions of the other kinds (json/codec_fields.h, json/field_reader.h). The fields read are
// listed in docs/formats-storage.md; everything else in kubectl's output is ignored.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_fields.h"
#include "karp/requirements.h"
#include "karp/storage.h"

namespace karp::json::codec_internal {
namespace {

constexpr StorageKind kStorageKinds[] = {
    {"PersistentVolumeClaim", "v1", "persistentvolumeclaim", true},
    {"PersistentVolume", "v1", "persistentvolume", false},
    {"StorageClass", "storage.k8s.io/v1", "storageclass", false},
    {"CSINode", "storage.k8s.io/v1", "csinode", false},
};

// The `metadata` of the object `item`.
absl::Status ReadItemMeta(const FieldReader& item, ObjectMeta* out) {
  KARP_ASSIGN_OR_RETURN(FieldReader meta, item.Object("metadata"));
  return ReadMeta(meta, out);
}

absl::Status ReadClaim(const FieldReader& item, PersistentVolumeClaim* out) {
  KARP_RETURN_IF_ERROR(ReadItemMeta(item, &out->metadata));
  if (out->metadata.namespace_.empty()) out->metadata.namespace_ = "default";
  KARP_ASSIGN_OR_RETURN(FieldReader spec, item.Object("spec"));
  KARP_RETURN_IF_ERROR(spec.String("volumeName", &out->volume_name));
  KARP_RETURN_IF_ERROR(spec.String("storageClassName", &out->storage_class_name));
  KARP_ASSIGN_OR_RETURN(FieldReader status, item.Object("status"));
  KARP_RETURN_IF_ERROR(status.String("phase", &out->phase));
  if (!out->phase.empty() && out->phase != kClaimPending && out->phase != kClaimBound &&
      out->phase != kClaimLost) {
    return status.Error("phase", internal::StrCat("unsupported phase \"", out->phase,
                                                  "\"; expected Pending, Bound or Lost"));
  }
  return absl::OkStatus();
}

absl::Status ReadVolume(const FieldReader& item, PersistentVolume* out) {
  KARP_RETURN_IF_ERROR(ReadItemMeta(item, &out->metadata));
  KARP_ASSIGN_OR_RETURN(FieldReader spec, item.Object("spec"));
  KARP_ASSIGN_OR_RETURN(FieldReader affinity, spec.Object("nodeAffinity"));
  KARP_ASSIGN_OR_RETURN(FieldReader required, affinity.Object("required"));
  KARP_RETURN_IF_ERROR(
      required.Objects("nodeSelectorTerms", [&](const FieldReader& t) -> absl::Status {
        NodeSelectorTerm term;
        KARP_RETURN_IF_ERROR(ReadNodeSelectorTerm(t, &term));
        // Operators were checked by the term reader; their arity here (the API server's rule).
        for (size_t i = 0; i < term.match_expressions.size(); ++i) {
          absl::StatusOr<Requirement> r = Requirement::Create(term.match_expressions[i]);
          if (!r.ok()) {
            return t.Error(internal::StrCat("matchExpressions[", i, "]"),
                           internal::Message(r.status()));
          }
        }
        out->node_affinity.push_back(std::move(term));
        return absl::OkStatus();
      }));
  KARP_ASSIGN_OR_RETURN(FieldReader csi, spec.Object("csi"));
  if (csi.present()) KARP_RETURN_IF_ERROR(csi.RequiredString("driver", &out->csi_driver));
  KARP_ASSIGN_OR_RETURN(FieldReader ebs, spec.Object("awsElasticBlockStore"));
  out->aws_elastic_block_store = ebs.present();
  KARP_ASSIGN_OR_RETURN(FieldReader local, spec.Object("local"));
  out->local = local.present();
  KARP_ASSIGN_OR_RETURN(FieldReader host_path, spec.Object("hostPath"));
  out->host_path = host_path.present();
  return absl::OkStatus();
}

absl::Status ReadClass(const FieldReader& item, StorageClass* out) {
  KARP_RETURN_IF_ERROR(ReadItemMeta(item, &out->metadata));
  KARP_RETURN_IF_ERROR(item.String("provisioner", &out->provisioner));
  std::string mode;
  KARP_RETURN_IF_ERROR(item.String("volumeBindingMode", &mode));
  if (mode == VolumeBindingModeName(VolumeBindingMode::kImmediate)) {
    out->volume_binding_mode = VolumeBindingMode::kImmediate;
  } else if (mode == VolumeBindingModeName(VolumeBindingMode::kWaitForFirstConsumer)) {
    out->volume_binding_mode = VolumeBindingMode::kWaitForFirstConsumer;
  } else if (!mode.empty()) {
    return item.Error("volumeBindingMode",
                      internal::StrCat("unsupported volumeBindingMode \"", mode,
                                       "\"; expected Immediate or WaitForFirstConsumer"));
  }
  return item.Objects("allowedTopologies", [&](const FieldReader& t) -> absl::Status {
    TopologySelectorTerm term;
    KARP_RETURN_IF_ERROR(
        t.Objects("matchLabelExpressions", [&](const FieldReader& e) -> absl::Status {
          TopologySelectorRequirement r;
          KARP_RETURN_IF_ERROR(e.RequiredString("key", &r.key));
          if (r.key.empty()) return e.Error("key", "must not be empty");
          KARP_RETURN_IF_ERROR(e.StringList("values", &r.values));
          term.match_label_expressions.push_back(std::move(r));
          return absl::OkStatus();
        }));
    out->allowed_topologies.push_back(std::move(term));
    return absl::OkStatus();
  });
}

absl::Status ReadCsiNode(const FieldReader& item, CSINode* out) {
  KARP_RETURN_IF_ERROR(ReadItemMeta(item, &out->metadata));
  KARP_ASSIGN_OR_RETURN(FieldReader spec, item.Object("spec"));
  return spec.Objects("drivers", [&](const FieldReader& d) -> absl::Status {
    CSINodeDriver driver;
    KARP_RETURN_IF_ERROR(d.RequiredString("name", &driver.name));
    if (driver.name.empty()) return d.Error("name", "must not be empty");
    KARP_ASSIGN_OR_RETURN(FieldReader allocatable, d.Object("allocatable"));
    if (allocatable.present()) {
      std::optional<int32_t> count;
      KARP_RETURN_IF_ERROR(allocatable.Int32("count", &count));
      if (count && *count < 0) return allocatable.Error("count", "must be >= 0");
      driver.allocatable_count = count.value_or(0);  // no count: 0, as the reference
    }
    out->drivers.push_back(std::move(driver));
    return absl::OkStatus();
  });
}

// Metadata is written as read, namespace included even for the cluster-scoped kinds (as the
// other kinds do), so that ParseSnapshot(WriteSnapshot(s)) gives `s` back.
Json Object(const StorageKind& kind, Json metadata) {
  Json o = Json::object();
  o["apiVersion"] = std::string(kind.api_version);
  o["kind"] = std::string(kind.kind);
  o["metadata"] = std::move(metadata);
  return o;
}

Json ClaimJson(const PersistentVolumeClaim& c) {
  Json o = Object(kStorageKinds[0], ObjectMetaJson(c.metadata, true));
  Json spec = Json::object();
  if (!c.volume_name.empty()) spec["volumeName"] = c.volume_name;
  if (!c.storage_class_name.empty()) spec["storageClassName"] = c.storage_class_name;
  o["spec"] = std::move(spec);
  if (!c.phase.empty()) o["status"] = Json{{"phase", c.phase}};
  return o;
}

Json VolumeJson(const PersistentVolume& v) {
  Json o = Object(kStorageKinds[1], ObjectMetaJson(v.metadata, true));
  Json spec = Json::object();
  if (!v.node_affinity.empty()) {
    Json terms = Json::array();
    for (const NodeSelectorTerm& t : v.node_affinity) terms.push_back(NodeSelectorTermToJson(t));
    spec["nodeAffinity"] = Json{{"required", Json{{"nodeSelectorTerms", std::move(terms)}}}};
  }
  if (!v.csi_driver.empty()) spec["csi"] = Json{{"driver", v.csi_driver}};
  if (v.aws_elastic_block_store) spec["awsElasticBlockStore"] = Json::object();
  if (v.local) spec["local"] = Json::object();
  if (v.host_path) spec["hostPath"] = Json::object();
  o["spec"] = std::move(spec);
  return o;
}

Json ClassJson(const StorageClass& c) {
  Json o = Object(kStorageKinds[2], ObjectMetaJson(c.metadata, true));
  if (!c.provisioner.empty()) o["provisioner"] = c.provisioner;
  if (c.volume_binding_mode) {
    o["volumeBindingMode"] = std::string(VolumeBindingModeName(*c.volume_binding_mode));
  }
  if (!c.allowed_topologies.empty()) {
    Json terms = Json::array();
    for (const TopologySelectorTerm& t : c.allowed_topologies) {
      Json exprs = Json::array();
      for (const TopologySelectorRequirement& r : t.match_label_expressions) {
        exprs.push_back(Json{{"key", r.key}, {"values", r.values}});
      }
      terms.push_back(Json{{"matchLabelExpressions", std::move(exprs)}});
    }
    o["allowedTopologies"] = std::move(terms);
  }
  return o;
}

Json CsiNodeJson(const CSINode& n) {
  Json o = Object(kStorageKinds[3], ObjectMetaJson(n.metadata, true));
  Json drivers = Json::array();
  for (const CSINodeDriver& d : n.drivers) {
    Json driver = Json{{"name", d.name}};
    if (d.allocatable_count) driver["allocatable"] = Json{{"count", *d.allocatable_count}};
    drivers.push_back(std::move(driver));
  }
  o["spec"] = Json{{"drivers", std::move(drivers)}};
  return o;
}

}  // namespace

const StorageKind* FindStorageKind(std::string_view kind) {
  for (const StorageKind& k : kStorageKinds) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

absl::Status DecodeStorageObject(const StorageKind& kind, const FieldReader& item,
                                 ClusterSnapshot* snap, const ObjectMeta** meta) {
  if (kind.kind == kStorageKinds[0].kind) {
    PersistentVolumeClaim c;
    KARP_RETURN_IF_ERROR(ReadClaim(item, &c));
    snap->persistent_volume_claims.push_back(std::move(c));
    *meta = &snap->persistent_volume_claims.back().metadata;
  } else if (kind.kind == kStorageKinds[1].kind) {
    PersistentVolume v;
    KARP_RETURN_IF_ERROR(ReadVolume(item, &v));
    snap->persistent_volumes.push_back(std::move(v));
    *meta = &snap->persistent_volumes.back().metadata;
  } else if (kind.kind == kStorageKinds[2].kind) {
    StorageClass c;
    KARP_RETURN_IF_ERROR(ReadClass(item, &c));
    snap->storage_classes.push_back(std::move(c));
    *meta = &snap->storage_classes.back().metadata;
  } else {
    CSINode n;
    KARP_RETURN_IF_ERROR(ReadCsiNode(item, &n));
    snap->csi_nodes.push_back(std::move(n));
    *meta = &snap->csi_nodes.back().metadata;
  }
  return absl::OkStatus();
}

void AppendStorageObjects(const ClusterSnapshot& snap, Json* items) {
  for (const PersistentVolumeClaim& c : snap.persistent_volume_claims) {
    items->push_back(ClaimJson(c));
  }
  for (const PersistentVolume& v : snap.persistent_volumes) items->push_back(VolumeJson(v));
  for (const StorageClass& c : snap.storage_classes) items->push_back(ClassJson(c));
  for (const CSINode& n : snap.csi_nodes) items->push_back(CsiNodeJson(n));
}

}  // namespace karp::json::codec_internal
