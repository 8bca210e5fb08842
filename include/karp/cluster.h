// File: karp/cluster.h
//
// ClusterSnapshot: everything karp decides over at one instant, tied together — NodePools,
// nodes with their bound pods, in-flight NodeClaims, pending pods, DaemonSets and PDBs, and the
// storage objects of stateful pods (PersistentVolumeClaims, PersistentVolumes, StorageClasses,
// CSINodes; karp/storage.h). It is what `kubectl get nodepools,nodeclaims,nodes,pods,
// daemonsets,pdb,pvc,pv,storageclasses,csinodes -A -o json` shows (docs/formats.md §1,
// docs/formats-storage.md), decoded by karp::json or built in memory by a host program.
//
// Pod states (docs/formats.md §1): a pod with spec.nodeName is bound to that node; a pod without
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
#include "karp/limit_range.h"
#include "karp/node_class.h"
#include "karp/node_overlay.h"
#include "karp/objects.h"
#include "karp/storage.h"
#include "karp/workloads.h"

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
  // Workload objects (karp/workloads.h): read by the codec, turned into the pods their
  // controllers would create by ExpandWorkloads.
  std::vector<Workload> workloads;
  // LimitRanges (karp/limit_range.h): the namespaces' defaults for pods not yet admitted.
  std::vector<LimitRange> limit_ranges;
  // Node classes (karp/node_class.h) that NodePools refer to through nodeClassRef.
  std::vector<NodeClass> node_classes;
  // NodeOverlays (karp/node_overlay.h): price and capacity changes of the NodePools' instance
  // types, applied by ApplyNodeOverlays (the CLI applies them unless the NodeOverlay feature
  // gate is off).
  std::vector<NodeOverlay> node_overlays;
  // Services: what kube-scheduler deduces default topology spread selectors from
  // (karp/topology_defaults.h).
  std::vector<Service> services;
  // Objects of kinds karp does not read, and pods for another scheduler (codec bookkeeping).
  int skipped_objects = 0;
  // What each skipped object was, e.g. `v1 Service default/web (not a kind karp reads)`, and
  // warnings of the codec (older-API fields the conversion to v1 dropped,
  // karp/json/convert.h), for hosts to show. Codec bookkeeping, in input order.
  std::vector<std::string> skipped;
  std::vector<std::string> warnings;
  // What reading added on the API server's and controllers' behalf (pods created from
  // workloads, CronJobs that create none yet, LimitRange defaults), for hosts to show.
  std::vector<std::string> notes;

  // Checks every object with the field validators of karp/objects.h (ValidatePod,
  // ValidateNodePool, ...; the same rules the JSON codec applies to files), well-formed
  // PersistentVolume node affinity (operators In, NotIn, Exists, DoesNotExist, Gt, Lt with
  // their arity), non-negative CSINode counts, and that names are unique per kind (pods,
  // claims, DaemonSets and PDBs per namespace). Pod scheduling constraints are not checked:
  // invalid ones become pod errors of Scheduler::Solve. Errors: InvalidArgument naming the
  // object and field, e.g. `nodepool default: spec.weight: must be between 1 and 100, got
  // 1000` or `pod default/web-1: duplicate object`; input text is escaped.
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

// True when `node` is going away: it or its NodeClaim (`claim`, may be null) carries a
// deletionTimestamp, or the NodeClaim's InstanceTerminating condition is True (the reference's
// StateNode.MarkedForDeletion, which looks at the NodeClaim; karp also honours the Node's own
// timestamp). Such a node is never capacity for other pods, its pods are rescheduled, and it
// is no disruption candidate.
bool NodeDeleting(const Node& node, const NodeClaim* claim);

}  // namespace karp

#endif  // KARP_CLUSTER_H_
