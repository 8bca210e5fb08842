// File: karp/storage.h
//
// Value types for the storage objects that decide where a stateful pod may run (docs/design.md
// §5.3 and §5.13; wire format in docs/formats-storage.md): PersistentVolumeClaim and
// PersistentVolume (`v1`), StorageClass and CSINode (`storage.k8s.io/v1`). Only the fields
// that change a decision are modelled. A pod refers to its claims through Pod::volumes
// (karp/objects.h); karp/volumes.h holds the rules that turn these objects into node
// requirements and attach limits.
//
// Example:
//   karp::PersistentVolume pv;
//   pv.metadata.name = "pv-data-0";
//   pv.csi_driver = "ebs.csi.aws.com";
//   karp::NodeSelectorTerm term;
//   term.match_expressions.push_back(
//       {"topology.kubernetes.io/zone", karp::Operator::kIn, {"us-east-1b"}, std::nullopt});
//   pv.node_affinity.push_back(term);
//
// Thread-safety: value types; thread-compatible.

#ifndef KARP_STORAGE_H_
#define KARP_STORAGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "karp/objects.h"

namespace karp {

// The annotation without which a PVC that names a volume is not yet bound (kube-scheduler and
// the reference treat it as unbound).
inline constexpr std::string_view kAnnotationBindCompleted = "pv.kubernetes.io/bind-completed";

// PersistentVolumeClaim phases (status.phase).
inline constexpr std::string_view kClaimPending = "Pending";
inline constexpr std::string_view kClaimBound = "Bound";
inline constexpr std::string_view kClaimLost = "Lost";

struct PersistentVolumeClaim {
  ObjectMeta metadata;  // namespaced; namespace defaults to "default"
  // spec
  std::string volume_name;         // spec.volumeName: the PersistentVolume; empty when unbound
  std::string storage_class_name;  // spec.storageClassName; empty (or unset): none
  // status
  std::string phase;  // Pending, Bound, Lost or empty

  // `namespace/name`.
  std::string Key() const;

  friend bool operator==(const PersistentVolumeClaim& a, const PersistentVolumeClaim& b) {
    return a.metadata == b.metadata && a.volume_name == b.volume_name &&
           a.storage_class_name == b.storage_class_name && a.phase == b.phase;
  }
};

struct PersistentVolume {
  ObjectMeta metadata;  // cluster-scoped
  // spec.nodeAffinity.required.nodeSelectorTerms: ORed terms, each a list of ANDed
  // expressions. Empty: the volume is reachable from every node.
  std::vector<NodeSelectorTerm> node_affinity;
  // The volume source, as far as it matters: spec.csi.driver, and whether the volume is an
  // in-tree EBS volume (spec.awsElasticBlockStore), a local volume (spec.local) or a hostPath
  // volume (spec.hostPath). Local and hostPath volumes have their hostname affinity ignored.
  std::string csi_driver;
  bool aws_elastic_block_store = false;
  bool local = false;
  bool host_path = false;

  friend bool operator==(const PersistentVolume& a, const PersistentVolume& b) {
    return a.metadata == b.metadata && a.node_affinity == b.node_affinity &&
           a.csi_driver == b.csi_driver && a.aws_elastic_block_store == b.aws_elastic_block_store &&
           a.local == b.local && a.host_path == b.host_path;
  }
};

enum class VolumeBindingMode { kImmediate, kWaitForFirstConsumer };
// "Immediate", "WaitForFirstConsumer".
std::string_view VolumeBindingModeName(VolumeBindingMode mode);

// One key of a StorageClass topology term: the node label `key` must be one of `values`.
struct TopologySelectorRequirement {
  std::string key;
  std::vector<std::string> values;

  friend bool operator==(const TopologySelectorRequirement& a,
                         const TopologySelectorRequirement& b) {
    return a.key == b.key && a.values == b.values;
  }
};

// allowedTopologies[]: ANDed expressions.
struct TopologySelectorTerm {
  std::vector<TopologySelectorRequirement> match_label_expressions;

  friend bool operator==(const TopologySelectorTerm& a, const TopologySelectorTerm& b) {
    return a.match_label_expressions == b.match_label_expressions;
  }
};

struct StorageClass {
  ObjectMeta metadata;  // cluster-scoped
  std::string provisioner;
  // volumeBindingMode. Unset is not treated as Immediate (the API server always sets it; the
  // reference reads the pointer and only rejects an explicit Immediate).
  std::optional<VolumeBindingMode> volume_binding_mode;
  std::vector<TopologySelectorTerm> allowed_topologies;  // ORed terms; empty: anywhere

  friend bool operator==(const StorageClass& a, const StorageClass& b) {
    return a.metadata == b.metadata && a.provisioner == b.provisioner &&
           a.volume_binding_mode == b.volume_binding_mode &&
           a.allowed_topologies == b.allowed_topologies;
  }
};

// One CSI driver registered on a node.
struct CSINodeDriver {
  std::string name;
  // spec.drivers[].allocatable.count: how many volumes of this driver the node can attach.
  // Unset: no allocatable (no limit). An allocatable without a count reads as 0, as the
  // reference does.
  std::optional<int32_t> allocatable_count;

  friend bool operator==(const CSINodeDriver& a, const CSINodeDriver& b) {
    return a.name == b.name && a.allocatable_count == b.allocatable_count;
  }
};

// The CSINode of a node has the node's name.
struct CSINode {
  ObjectMeta metadata;  // cluster-scoped
  std::vector<CSINodeDriver> drivers;

  friend bool operator==(const CSINode& a, const CSINode& b) {
    return a.metadata == b.metadata && a.drivers == b.drivers;
  }
};

}  // namespace karp

#endif  // KARP_STORAGE_H_
