// File: karp/volumes.h
//
// The volume rules of the reference over a snapshot's storage objects (karp/storage.h):
//
//  - Validation of a pending pod's claims (docs/design.md §5.3, karpenter
//    `ValidatePersistentVolumeClaims`): a pod whose claim is being deleted, Lost, bound to a
//    missing or deleting volume, bound without the `pv.kubernetes.io/bind-completed`
//    annotation, or unbound without a usable WaitForFirstConsumer StorageClass is ignored.
//  - Volume topology (§5.13, `volumetopology.go`): each claim of a pod contributes alternatives
//    — the node-affinity terms of its bound PersistentVolume (hostname expressions dropped for
//    local and hostPath volumes), or the allowedTopologies terms of the StorageClass of an
//    unbound claim; several volumes combine as the cross product of their alternatives,
//    keeping the combinations whose parts intersect (all of them when none does). The node
//    or NodeClaim that takes the pod must satisfy one alternative; the pod's own requirements
//    are unchanged.
//  - Volume limits (§5.13, `volumeusage.go`): per CSI driver, an existing node's CSINode
//    allocatable count bounds the distinct claims of its pods. A claim's driver is its
//    volume's CSI driver (in-tree EBS: ebs.csi.aws.com), or for an unbound claim its
//    StorageClass provisioner with in-tree plugin names translated to their CSI drivers.
//    New NodeClaims have no limit (the reference's: the embedded catalog has no attachment
//    limits per instance type).
//
// The EBS CSI driver's zone key `topology.ebs.csi.aws.com/zone` is read as
// `topology.kubernetes.io/zone` in volume topology, as the reference's AWS provider
// normalizes it; beta keys are normalized as everywhere (karp/labels.h).
//
// Messages keep the reference's words and add the objects they are about, e.g.
//   persistentvolumeclaim is being deleted (persistentvolumeclaim "default/data-web-0")
//
// Example:
//   karp::StorageIndex storage(snapshot);
//   if (absl::Status s = storage.ValidatePod(pod); !s.ok()) { ... "ignoring pod, " + message }
//   absl::StatusOr<karp::VolumeTopology> t = storage.Topology(pod);
//   for (const karp::Requirements& alt : t->alternatives) { ... node must satisfy one ... }
//
// Thread-safety: StorageIndex is immutable after construction; its const methods may run
// concurrently. The free functions are thread-safe.

#ifndef KARP_VOLUMES_H_
#define KARP_VOLUMES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/cluster.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/storage.h"

namespace karp {

// The CSI driver of in-tree EBS volumes (and of the kubernetes.io/aws-ebs provisioner).
inline constexpr std::string_view kEbsCsiDriver = "ebs.csi.aws.com";
// The zone key of the EBS CSI driver's topology; read as topology.kubernetes.io/zone.
inline constexpr std::string_view kLabelEbsCsiZone = "topology.ebs.csi.aws.com/zone";

// The CSI driver that replaces an in-tree volume plugin with a CSI migration
// (kubernetes.io/aws-ebs -> ebs.csi.aws.com, kubernetes.io/gce-pd -> pd.csi.storage.gke.io,
// kubernetes.io/cinder, azure-disk, azure-file, vsphere-volume, portworx-volume), or "" when
// `plugin` is not one of them.
std::string_view CsiDriverOfInTreePlugin(std::string_view plugin);

// Claims per CSI driver: driver -> claim keys ("namespace/name"). Ordered containers, so
// iteration (and every message built from it) is deterministic.
using VolumeUsage = std::map<std::string, std::set<std::string>, std::less<>>;
// Inserts every claim of `from` into `*into`.
void AddVolumeUsage(const VolumeUsage& from, VolumeUsage* into);

// Attach limits of one node: CSI driver -> number of volumes it can attach.
using VolumeLimits = std::map<std::string, int64_t, std::less<>>;

// karpenter `VolumeUsage.ExceedsLimits`: OK when, for every driver with a limit, the distinct
// claims of `node` and `pod` together are at most the limit (drivers without a limit are
// unbounded; a node already above a limit refuses every pod). Errors: FailedPrecondition
// `would exceed volume limit (provisioner <driver>, volume-count <n>, volume-limit <m>)` for
// the first failing driver in name order. Complexity: O(L · V log V) for L limits and V
// claims.
[[nodiscard]] absl::Status CheckVolumeLimits(const VolumeUsage& node, const VolumeUsage& pod,
                                             const VolumeLimits& limits);

// What a pod's volumes ask of the node it runs on.
struct VolumeTopology {
  // One of these must hold on the node (tried in order); empty: no constraint.
  std::vector<Requirements> alternatives;
  // The same for people, one clause per constraining claim, e.g.
  //   persistentvolumeclaim "default/data-web-0" is bound to persistentvolume "pv-web-0",
  //   whose node affinity requires topology.kubernetes.io/zone In [us-east-1b]
  // Empty when `alternatives` is.
  std::string explanation;
};

// Read-only lookups of a snapshot's storage objects by name, and the volume rules above.
class StorageIndex {
 public:
  // Indexes the storage objects of `snapshot`, which must outlive the index and stay
  // unchanged. When names repeat (an unvalidated snapshot) the first object wins.
  // Complexity: O(n log n) in the number of storage objects.
  explicit StorageIndex(const ClusterSnapshot& snapshot);

  const PersistentVolumeClaim* FindClaim(std::string_view namespace_, std::string_view name) const;
  const PersistentVolume* FindVolume(std::string_view name) const;
  const StorageClass* FindStorageClass(std::string_view name) const;
  const CSINode* FindCSINode(std::string_view node_name) const;

  // Semantics §5.3: OK, or FailedPrecondition with the reason the reference ignores the pod
  // (the caller prefixes `ignoring pod, `), checking the pod's claims in volume order:
  //   getting persistent volume claim, persistentvolumeclaims "<name>" not found
  //   persistentvolumeclaim is being deleted
  //   persistentvolumeclaim bound to non-existent persistentvolume
  //   failed to validate pvc, persistentvolumes "<name>" not found
  //   failed to validate pvc, persistentvolume is being deleted
  //   pvc is considered unbound because it does not contain annotation
  //   pv.kubernetes.io/bind-completed unbound pvc must define a storage class failed to validate
  //   pvc, failed to get storage class, storageclasses.storage.k8s.io "<name>" not found failed to
  //   validate pvc, pvc with immediate volume binding mode must be bound
  // each followed by the objects concerned in parentheses. Complexity: O(V log n).
  [[nodiscard]] absl::Status ValidatePod(const Pod& pod) const;

  // Semantics §5.13: the pod's volume topology. Errors: NotFound when a claim, its volume or
  // its StorageClass is missing; InvalidArgument for a malformed node-affinity expression
  // (both name the objects). The reference schedules such a pod without volume constraints;
  // ValidatePod() rejects pending pods before it gets here. Complexity: O(product of the
  // volumes' alternative counts).
  [[nodiscard]] absl::StatusOr<VolumeTopology> Topology(const Pod& pod) const;

  // karpenter `GetVolumes`: the pod's claims per CSI driver. Missing claims are skipped and
  // claims without a resolvable driver are not counted. Errors: NotFound when a bound claim's
  // volume is missing (the reference then keeps the pod off existing nodes).
  [[nodiscard]] absl::StatusOr<VolumeUsage> Usage(const Pod& pod) const;

  // karpenter `ResolveDriver`: bound claim -> its volume's CSI driver (in-tree EBS:
  // ebs.csi.aws.com; other sources: ""); unbound -> its StorageClass's provisioner translated
  // by CsiDriverOfInTreePlugin (no class name or a missing class: ""). Errors: NotFound when
  // the bound volume is missing.
  [[nodiscard]] absl::StatusOr<std::string> ResolveDriver(const PersistentVolumeClaim& claim) const;

  // The attach limits from the CSINode named `node_name` (drivers with an allocatable); empty
  // without a CSINode.
  VolumeLimits Limits(std::string_view node_name) const;

  // True when the snapshot has no storage objects at all.
  bool empty() const;

 private:
  std::map<std::string, const PersistentVolumeClaim*, std::less<>> claims_;  // "ns/name"
  std::map<std::string, const PersistentVolume*, std::less<>> volumes_;
  std::map<std::string, const StorageClass*, std::less<>> classes_;
  std::map<std::string, const CSINode*, std::less<>> csi_nodes_;
};

}  // namespace karp

#endif  // KARP_VOLUMES_H_
