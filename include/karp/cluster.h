// File: karp/cluster.h
//
// ClusterSnapshot: everything karp decides over at one instant, tied together — NodePools,
// nodes with their bound pods, in-flight NodeClaims, pending pods, DaemonSets and PDBs, and the
// storage objects of stateful pods (PersistentVolumeClaims, PersistentVolumes, StorageClasses,
// CSINodes; karp/storage.h). It is what `kubectl get nodepools,nodeclaims,nodes,pods,
// daemonsets,pdb,pvc,pv,storageclasses,csinodes -A -o json` shows (formats.md §1,
// docs/formats-storage.md), decoded by karp::json or built in memory by a host program.
//
// Pod states (formats.md §1): a pod with spec.nodeName is bound to that node; a pod without
// it, not terminating and not Succeeded/Failed, is pending; a pod owned by a DaemonSet is a
// daemon pod; pods for another scheduler are not karp's.
//
// Example:
//   karp::ClusterSnapshot snap;
//   snap.node_pools.push_back(pool);
//   snap.pods.push_back(pod);
//   KARP_RETURN_IF_ERROR(snap.Validate());
//   for (const karp::Pod* p : snap.PendingPods()) ...
//
// Thread-safety: a value type; thread-compatible. Const methods may run concurrently.

#ifndef KARP_CLUSTER_H_
#define KARP_CLUSTER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karp/objects.h"
#include "karp/storage.h"

namespace karp {

struct ClusterSnapshot {
  std::vector<NodePool> node_pools;
  std::vector<Node> nodes;
  std::vector<NodeClaim> node_claims;
  std::vector<Pod> pods;
  std::vector<DaemonSet> daemon_sets;
  std::vector<PodDisruptionBudget> pdbs;
  // Storage (karp/storage.h, karp/volumes.h): what pods' volumes refer to.
  std::vector<PersistentVolumeClaim> persistent_volume_claims;
  std::vector<PersistentVolume> persistent_volumes;
  std::vector<StorageClass> storage_classes;
  std::vector<CSINode> csi_nodes;
  // Objects of kinds karp does not read, and pods for another scheduler (codec bookkeeping).
  int skipped_objects = 0;

  // Checks cross-object invariants: unique names per kind (pods and claims per namespace),
  // valid NodePool requirements (ValidateRequirement), well-formed PersistentVolume node
  // affinity (operators In, NotIn, Exists, DoesNotExist, Gt, Lt with their arity) and
  // non-negative CSINode counts. Errors: InvalidArgument naming the object, e.g.
  // `pod default/web-1: duplicate object`.
  [[nodiscard]] absl::Status Validate() const;

  // Pending pods that are karp's to place: not bound, not terminal, not terminating, not
  // daemon pods, scheduled by the default scheduler. In input order.
  std::vector<const Pod*> PendingPods() const;
  // Pods bound to `node_name` (any state).
  std::vector<const Pod*> PodsOnNode(std::string_view node_name) const;
  const NodePool* FindNodePool(std::string_view name) const;
  const Node* FindNode(std::string_view name) const;
  // The NodeClaim whose status.nodeName is `node_name`, or nullptr.
  const NodeClaim* FindNodeClaimForNode(std::string_view node_name) const;
  // NodeClaims without status.nodeName: launched or launching, not yet nodes.
  std::vector<const NodeClaim*> InFlightNodeClaims() const;

  // Appends every object of `other` (used to merge several input files).
  void Merge(ClusterSnapshot other);
};

}  // namespace karp

#endif  // KARP_CLUSTER_H_
