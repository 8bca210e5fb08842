// Fixture builders for the storage kinds (karp/storage.h), header-only, on top of
// support/builders.h.
//
//   karp::ClusterSnapshot snap;
//   AddZonalClaim(snap, "data-db-0", "test-zone-2");   // PV pv-data-db-0 in zone 2, bound
//   snap.pods.push_back(MakePod("db-0", "1").ClaimVolume("data", "data-db-0"));
//
// Claims are in namespace "default"; bound claims carry pv.kubernetes.io/bind-completed and
// phase Bound; volumes use the EBS CSI driver unless told otherwise.

#ifndef KARP_TESTS_SUPPORT_STORAGE_BUILDERS_H_
#define KARP_TESTS_SUPPORT_STORAGE_BUILDERS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "karp/cluster.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/storage.h"
#include "karp/volumes.h"
#include "support/builders.h"

namespace karp::testing {

// A claim bound to the volume `pv` (annotation bind-completed, phase Bound).
inline PersistentVolumeClaim BoundClaim(std::string name, std::string pv,
                                        std::string storage_class = "") {
  PersistentVolumeClaim c;
  c.metadata.name = std::move(name);
  c.metadata.namespace_ = "default";
  c.metadata.annotations[std::string(kAnnotationBindCompleted)] = "yes";
  c.volume_name = std::move(pv);
  c.storage_class_name = std::move(storage_class);
  c.phase = std::string(kClaimBound);
  return c;
}

// A claim waiting for a volume of `storage_class` (phase Pending).
inline PersistentVolumeClaim UnboundClaim(std::string name, std::string storage_class) {
  PersistentVolumeClaim c;
  c.metadata.name = std::move(name);
  c.metadata.namespace_ = "default";
  c.storage_class_name = std::move(storage_class);
  c.phase = std::string(kClaimPending);
  return c;
}

// A node-selector term of ANDed expressions.
inline NodeSelectorTerm Term(std::vector<NodeSelectorRequirement> exprs) {
  NodeSelectorTerm t;
  t.match_expressions = std::move(exprs);
  return t;
}

// A CSI volume whose node affinity is the ORed `terms`.
inline PersistentVolume MakeVolume(std::string name, std::vector<NodeSelectorTerm> terms,
                                   std::string driver = std::string(kEbsCsiDriver)) {
  PersistentVolume v;
  v.metadata.name = std::move(name);
  v.node_affinity = std::move(terms);
  v.csi_driver = std::move(driver);
  return v;
}

// A CSI volume reachable from `zones` (one term, zone In zones).
inline PersistentVolume ZonalVolume(std::string name, std::vector<std::string> zones,
                                    std::string driver = std::string(kEbsCsiDriver)) {
  return MakeVolume(std::move(name),
                    {Term({Expr(std::string(kLabelZone), Operator::kIn, std::move(zones))})},
                    std::move(driver));
}

// A StorageClass; `allowed_zones` (each entry one ORed term) become allowedTopologies on the
// zone key.
inline StorageClass MakeStorageClass(
    std::string name, std::string provisioner = std::string(kEbsCsiDriver),
    std::optional<VolumeBindingMode> mode = VolumeBindingMode::kWaitForFirstConsumer,
    std::vector<std::vector<std::string>> allowed_zones = {}) {
  StorageClass c;
  c.metadata.name = std::move(name);
  c.provisioner = std::move(provisioner);
  c.volume_binding_mode = mode;
  for (std::vector<std::string>& zones : allowed_zones) {
    TopologySelectorTerm t;
    t.match_label_expressions.push_back({std::string(kLabelZone), std::move(zones)});
    c.allowed_topologies.push_back(std::move(t));
  }
  return c;
}

// The CSINode of `node` with one driver that can attach `count` volumes.
inline CSINode MakeCsiNode(std::string node, int32_t count,
                           std::string driver = std::string(kEbsCsiDriver)) {
  CSINode n;
  n.metadata.name = std::move(node);
  n.drivers.push_back(CSINodeDriver{std::move(driver), count});
  return n;
}

// Adds a zonal volume "pv-<claim>" in `zone` and the claim `claim` bound to it.
inline void AddZonalClaim(ClusterSnapshot& snap, const std::string& claim,
                          const std::string& zone) {
  snap.persistent_volumes.push_back(ZonalVolume("pv-" + claim, {zone}));
  snap.persistent_volume_claims.push_back(BoundClaim(claim, "pv-" + claim));
}

}  // namespace karp::testing

#endif  // KARP_TESTS_SUPPORT_STORAGE_BUILDERS_H_
