// Unit tests of the volume rules (karp/volumes.h): PVC validation (docs/design.md §5.3), volume
// topology alternatives and their combination, driver resolution and attach limits (§5.13),
// and the snapshot invariants of the storage kinds (karp/cluster.h).

#include "karp/volumes.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karp/cluster.h"
#include "karp/labels.h"
#include "karp/requirements.h"
#include "karp/storage.h"
#include "support/builders.h"
#include "support/storage_builders.h"

namespace {

using karp::ClusterSnapshot;
using karp::Operator;
using karp::Pod;
using karp::Requirement;
using karp::Requirements;
using karp::StorageIndex;
using karp::VolumeBindingMode;
using karp::VolumeTopology;
using karp::VolumeUsage;
using karp::testing::AddZonalClaim;
using karp::testing::BoundClaim;
using karp::testing::Expr;
using karp::testing::MakeCsiNode;
using karp::testing::MakePod;
using karp::testing::MakeStorageClass;
using karp::testing::MakeVolume;
using karp::testing::Term;
using karp::testing::UnboundClaim;
using karp::testing::ZonalVolume;

const std::string kZone(karp::kLabelZone);
const std::string kHost(karp::kLabelHostname);

Requirements ZoneIn(std::vector<std::string> zones) {
  return Requirements{Requirement::In(karp::kLabelZone, std::move(zones))};
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

Pod DbPod(std::string claim) { return MakePod("db-0", "1").ClaimVolume("data", std::move(claim)); }

// ---------------------------------------------------------------------------------------------
// Validation (docs/design.md §5.3)

TEST_CASE("a pod whose claims are valid passes validation", "[volumes]") {
  ClusterSnapshot snap;
  AddZonalClaim(snap, "data-0", "z1");
  snap.storage_classes.push_back(MakeStorageClass("gp3"));
  snap.persistent_volume_claims.push_back(UnboundClaim("data-1", "gp3"));
  StorageIndex index(snap);
  Pod pod = MakePod("db-0", "1").ClaimVolume("a", "data-0").ClaimVolume("b", "data-1");
  CHECK(index.ValidatePod(pod).ok());
  CHECK(index.ValidatePod(MakePod("web-0", "1")).ok());
}

TEST_CASE("a missing claim is reported with the reference's words", "[volumes]") {
  ClusterSnapshot snap;
  StorageIndex index(snap);
  absl::Status s = index.ValidatePod(DbPod("data-0"));
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Message(s) ==
        "getting persistent volume claim, persistentvolumeclaims \"data-0\" not found");
}

TEST_CASE("a claim in another namespace is not the pod's", "[volumes]") {
  ClusterSnapshot snap;
  AddZonalClaim(snap, "data-0", "z1");
  StorageIndex index(snap);
  Pod pod = DbPod("data-0");
  pod.metadata.namespace_ = "other";
  CHECK_FALSE(index.ValidatePod(pod).ok());
}

TEST_CASE("a claim being deleted makes the pod ignored", "[volumes]") {
  ClusterSnapshot snap;
  AddZonalClaim(snap, "data-0", "z1");
  snap.persistent_volume_claims[0].metadata.deletion_timestamp = absl::UnixEpoch();
  absl::Status s = StorageIndex(snap).ValidatePod(DbPod("data-0"));
  CHECK(Message(s) ==
        "persistentvolumeclaim is being deleted (persistentvolumeclaim \"default/data-0\")");
}

TEST_CASE("a Lost claim makes the pod ignored", "[volumes]") {
  ClusterSnapshot snap;
  AddZonalClaim(snap, "data-0", "z1");
  snap.persistent_volume_claims[0].phase = "Lost";
  CHECK(Message(StorageIndex(snap).ValidatePod(DbPod("data-0"))) ==
        "persistentvolumeclaim bound to non-existent persistentvolume (persistentvolumeclaim "
        "\"default/data-0\", persistentvolume \"pv-data-0\")");
}

TEST_CASE("a bound claim whose volume is missing or deleting makes the pod ignored", "[volumes]") {
  ClusterSnapshot snap;
  snap.persistent_volume_claims.push_back(BoundClaim("data-0", "pv-gone", "gp3"));
  CHECK(Message(StorageIndex(snap).ValidatePod(DbPod("data-0"))) ==
        "failed to validate pvc, persistentvolumes \"pv-gone\" not found (persistentvolumeclaim "
        "\"default/data-0\", persistentvolume \"pv-gone\", storageclass \"gp3\")");
  snap.persistent_volumes.push_back(ZonalVolume("pv-gone", {"z1"}));
  snap.persistent_volumes[0].metadata.deletion_timestamp = absl::UnixEpoch();
  CHECK(Message(StorageIndex(snap).ValidatePod(DbPod("data-0")))
            .find("failed to validate pvc, persistentvolume is being deleted") == 0);
}

TEST_CASE("a bound claim without the bind-completed annotation is unbound", "[volumes]") {
  ClusterSnapshot snap;
  AddZonalClaim(snap, "data-0", "z1");
  snap.persistent_volume_claims[0].metadata.annotations.clear();
  CHECK(Message(StorageIndex(snap).ValidatePod(DbPod("data-0"))) ==
        "pvc is considered unbound because it does not contain annotation "
        "pv.kubernetes.io/bind-completed (persistentvolumeclaim \"default/data-0\", "
        "persistentvolume \"pv-data-0\")");
}

TEST_CASE("an unbound claim needs an existing WaitForFirstConsumer storage class", "[volumes]") {
  ClusterSnapshot snap;
  snap.persistent_volume_claims.push_back(UnboundClaim("data-0", ""));
  CHECK(Message(StorageIndex(snap).ValidatePod(DbPod("data-0"))) ==
        "unbound pvc must define a storage class (persistentvolumeclaim \"default/data-0\")");

  snap.persistent_volume_claims[0].storage_class_name = "gp3";
  CHECK(Message(StorageIndex(snap).ValidatePod(DbPod("data-0"))) ==
        "failed to validate pvc, failed to get storage class, storageclasses.storage.k8s.io "
        "\"gp3\" not found (persistentvolumeclaim \"default/data-0\")");

  snap.storage_classes.push_back(
      MakeStorageClass("gp3", std::string(karp::kEbsCsiDriver), VolumeBindingMode::kImmediate));
  CHECK(Message(StorageIndex(snap).ValidatePod(DbPod("data-0"))) ==
        "failed to validate pvc, pvc with immediate volume binding mode must be bound "
        "(persistentvolumeclaim \"default/data-0\", storageclass \"gp3\")");

  // An unset binding mode is not Immediate (the reference reads the pointer).
  snap.storage_classes[0].volume_binding_mode.reset();
  CHECK(StorageIndex(snap).ValidatePod(DbPod("data-0")).ok());
  snap.storage_classes[0].volume_binding_mode = VolumeBindingMode::kWaitForFirstConsumer;
  CHECK(StorageIndex(snap).ValidatePod(DbPod("data-0")).ok());
}

TEST_CASE("validation stops at the first invalid volume in spec order", "[volumes]") {
  ClusterSnapshot snap;
  snap.persistent_volume_claims.push_back(UnboundClaim("a", ""));
  Pod pod = MakePod("db-0", "1").ClaimVolume("x", "missing").ClaimVolume("y", "a");
  CHECK(Message(StorageIndex(snap).ValidatePod(pod)).find("\"missing\" not found") !=
        std::string::npos);
}

TEST_CASE("a generic ephemeral volume's claim is named after the pod and the volume", "[volumes]") {
  ClusterSnapshot snap;
  AddZonalClaim(snap, "web-0-scratch", "z2");
  StorageIndex index(snap);
  Pod pod = MakePod("web-0", "1").EphemeralVolume("scratch");
  CHECK(pod.ClaimName(pod.volumes[0]) == "web-0-scratch");
  CHECK(index.ValidatePod(pod).ok());
  absl::StatusOr<VolumeTopology> t = index.Topology(pod);
  REQUIRE(t.ok());
  REQUIRE(t->alternatives.size() == 1);
  CHECK(t->alternatives[0] == ZoneIn({"z2"}));
}

// ---------------------------------------------------------------------------------------------
// Topology (docs/design.md §5.13)

TEST_CASE("a bound claim gives its volume's node-affinity terms as alternatives", "[volumes]") {
  ClusterSnapshot snap;
  snap.persistent_volumes.push_back(MakeVolume(
      "pv-0", {Term({Expr(kZone, Operator::kIn, {"z1"}), Expr("disk", Operator::kExists)}),
               Term({Expr(kZone, Operator::kIn, {"z3"})})}));
  snap.persistent_volume_claims.push_back(BoundClaim("data-0", "pv-0"));
  absl::StatusOr<VolumeTopology> t = StorageIndex(snap).Topology(DbPod("data-0"));
  REQUIRE(t.ok());
  REQUIRE(t->alternatives.size() == 2);
  CHECK(t->alternatives[0] ==
        Requirements{Requirement::In(karp::kLabelZone, {"z1"}), Requirement::Exists("disk")});
  CHECK(t->alternatives[1] == ZoneIn({"z3"}));
  CHECK(t->explanation ==
        "persistentvolumeclaim \"default/data-0\" is bound to persistentvolume \"pv-0\", whose "
        "node affinity requires disk Exists, topology.kubernetes.io/zone In [z1] or "
        "topology.kubernetes.io/zone In [z3]");
}

TEST_CASE("a volume without node affinity does not constrain the node", "[volumes]") {
  ClusterSnapshot snap;
  snap.persistent_volumes.push_back(MakeVolume("pv-0", {}));
  snap.persistent_volume_claims.push_back(BoundClaim("data-0", "pv-0"));
  absl::StatusOr<VolumeTopology> t = StorageIndex(snap).Topology(DbPod("data-0"));
  REQUIRE(t.ok());
  CHECK(t->alternatives.empty());
  CHECK(t->explanation.empty());
}

TEST_CASE("local and hostPath volumes have their hostname affinity dropped", "[volumes]") {
  ClusterSnapshot snap;
  karp::PersistentVolume local = MakeVolume(
      "pv-local",
      {Term({Expr(kHost, Operator::kIn, {"node-a"}), Expr(kZone, Operator::kIn, {"z2"})})}, "");
  local.local = true;
  snap.persistent_volumes.push_back(local);
  snap.persistent_volume_claims.push_back(BoundClaim("data-0", "pv-local"));
  absl::StatusOr<VolumeTopology> t = StorageIndex(snap).Topology(DbPod("data-0"));
  REQUIRE(t.ok());
  REQUIRE(t->alternatives.size() == 1);
  CHECK(t->alternatives[0] == ZoneIn({"z2"}));

  // A hostname-only term becomes an unconstrained alternative: nothing to ask of the node.
  snap.persistent_volumes[0].node_affinity = {Term({Expr(kHost, Operator::kIn, {"node-a"})})};
  t = StorageIndex(snap).Topology(DbPod("data-0"));
  REQUIRE(t.ok());
  CHECK(t->alternatives.empty());

  // Other volumes keep their hostname affinity.
  snap.persistent_volumes[0].local = false;
  snap.persistent_volumes[0].csi_driver = "example.com/disk";
  t = StorageIndex(snap).Topology(DbPod("data-0"));
  REQUIRE(t.ok());
  REQUIRE(t->alternatives.size() == 1);
  CHECK(t->alternatives[0] == Requirements{Requirement::In(karp::kLabelHostname, {"node-a"})});
}

TEST_CASE("a hostname-only local term next to a zonal term keeps both alternatives", "[volumes]") {
  ClusterSnapshot snap;
  karp::PersistentVolume pv = MakeVolume(
      "pv-0",
      {Term({Expr(kHost, Operator::kIn, {"n"})}), Term({Expr(kZone, Operator::kIn, {"z1"})})}, "");
  pv.host_path = true;
  snap.persistent_volumes.push_back(pv);
  snap.persistent_volume_claims.push_back(BoundClaim("data-0", "pv-0"));
  absl::StatusOr<VolumeTopology> t = StorageIndex(snap).Topology(DbPod("data-0"));
  REQUIRE(t.ok());
  REQUIRE(t->alternatives.size() == 2);
  CHECK(t->alternatives[0].empty());
  CHECK(t->alternatives[1] == ZoneIn({"z1"}));
  CHECK(t->explanation.find("requires any node or topology.kubernetes.io/zone In [z1]") !=
        std::string::npos);
}

TEST_CASE("an unbound claim gives its storage class's allowed topologies", "[volumes]") {
  ClusterSnapshot snap;
  snap.storage_classes.push_back(MakeStorageClass("gp3", std::string(karp::kEbsCsiDriver),
                                                  VolumeBindingMode::kWaitForFirstConsumer,
                                                  {{"z1", "z2"}, {"z3"}}));
  snap.persistent_volume_claims.push_back(UnboundClaim("data-0", "gp3"));
  absl::StatusOr<VolumeTopology> t = StorageIndex(snap).Topology(DbPod("data-0"));
  REQUIRE(t.ok());
  REQUIRE(t->alternatives.size() == 2);
  CHECK(t->alternatives[0] == ZoneIn({"z1", "z2"}));
  CHECK(t->alternatives[1] == ZoneIn({"z3"}));
  CHECK(t->explanation ==
        "persistentvolumeclaim \"default/data-0\" will be provisioned by storageclass \"gp3\", "
        "which allows topology.kubernetes.io/zone In [z1 z2] or topology.kubernetes.io/zone In "
        "[z3]");

  // Without allowed topologies (or without a class) the claim adds nothing.
  snap.storage_classes[0].allowed_topologies.clear();
  t = StorageIndex(snap).Topology(DbPod("data-0"));
  REQUIRE(t.ok());
  CHECK(t->alternatives.empty());
}

TEST_CASE("the EBS CSI zone key is read as the zone", "[volumes]") {
  ClusterSnapshot snap;
  snap.persistent_volumes.push_back(MakeVolume(
      "pv-0", {Term({Expr(std::string(karp::kLabelEbsCsiZone), Operator::kIn, {"z2"})})}));
  snap.persistent_volume_claims.push_back(BoundClaim("data-0", "pv-0"));
  karp::StorageClass sc = MakeStorageClass("gp3");
  sc.allowed_topologies.push_back({{{std::string(karp::kLabelEbsCsiZone), {"z1"}}}});
  snap.storage_classes.push_back(sc);
  snap.persistent_volume_claims.push_back(UnboundClaim("data-1", "gp3"));
  StorageIndex index(snap);
  absl::StatusOr<VolumeTopology> t = index.Topology(DbPod("data-0"));
  REQUIRE(t.ok());
  CHECK(t->alternatives == std::vector<Requirements>{ZoneIn({"z2"})});
  t = index.Topology(DbPod("data-1"));
  REQUIRE(t.ok());
  CHECK(t->alternatives == std::vector<Requirements>{ZoneIn({"z1"})});
}

TEST_CASE("several volumes combine into the intersecting combinations of their terms",
          "[volumes]") {
  ClusterSnapshot snap;
  snap.persistent_volumes.push_back(MakeVolume(
      "pv-a",
      {Term({Expr(kZone, Operator::kIn, {"z1"})}), Term({Expr(kZone, Operator::kIn, {"z2"})})}));
  snap.persistent_volumes.push_back(MakeVolume(
      "pv-b",
      {Term({Expr(kZone, Operator::kIn, {"z2"})}), Term({Expr(kZone, Operator::kIn, {"z3"})})}));
  snap.persistent_volumes.push_back(
      MakeVolume("pv-c", {Term({Expr("disk", Operator::kIn, {"ssd"})}),
                          Term({Expr("disk", Operator::kIn, {"hdd"})})}));
  snap.persistent_volume_claims.push_back(BoundClaim("a", "pv-a"));
  snap.persistent_volume_claims.push_back(BoundClaim("b", "pv-b"));
  snap.persistent_volume_claims.push_back(BoundClaim("c", "pv-c"));
  StorageIndex index(snap);

  // z1|z2 x z2|z3: only z2 x z2 intersects.
  absl::StatusOr<VolumeTopology> t =
      index.Topology(MakePod("p", "1").ClaimVolume("x", "a").ClaimVolume("y", "b"));
  REQUIRE(t.ok());
  CHECK(t->alternatives == std::vector<Requirements>{ZoneIn({"z2"})});
  CHECK(t->explanation.find("; persistentvolumeclaim \"default/b\"") != std::string::npos);

  // Disjoint keys: the full product, in volume order.
  t = index.Topology(MakePod("p", "1").ClaimVolume("x", "a").ClaimVolume("y", "c"));
  REQUIRE(t.ok());
  REQUIRE(t->alternatives.size() == 4);
  CHECK(t->alternatives[0] ==
        Requirements{Requirement::In(karp::kLabelZone, {"z1"}), Requirement::In("disk", {"ssd"})});
  CHECK(t->alternatives[1] ==
        Requirements{Requirement::In(karp::kLabelZone, {"z1"}), Requirement::In("disk", {"hdd"})});
  CHECK(t->alternatives[3] ==
        Requirements{Requirement::In(karp::kLabelZone, {"z2"}), Requirement::In("disk", {"hdd"})});
}

TEST_CASE("when no combination intersects the whole product is kept", "[volumes]") {
  ClusterSnapshot snap;
  AddZonalClaim(snap, "a", "z1");
  AddZonalClaim(snap, "b", "z2");
  absl::StatusOr<VolumeTopology> t =
      StorageIndex(snap).Topology(MakePod("p", "1").ClaimVolume("x", "a").ClaimVolume("y", "b"));
  REQUIRE(t.ok());
  REQUIRE(t->alternatives.size() == 1);
  // z1 ∩ z2: the empty set, which no zoned node or claim satisfies.
  const Requirement* zone = t->alternatives[0].Find(karp::kLabelZone);
  REQUIRE(zone != nullptr);
  CHECK(zone->op() == Operator::kDoesNotExist);
  CHECK_FALSE(zone->Has("z1"));
  CHECK_FALSE(zone->Has("z2"));
}

TEST_CASE("topology lookups fail on missing objects, naming them", "[volumes]") {
  ClusterSnapshot snap;
  snap.persistent_volume_claims.push_back(BoundClaim("data-0", "pv-gone"));
  snap.persistent_volume_claims.push_back(UnboundClaim("data-1", "nope"));
  StorageIndex index(snap);
  absl::StatusOr<VolumeTopology> t = index.Topology(DbPod("missing"));
  CHECK(t.status().code() == absl::StatusCode::kNotFound);
  CHECK(Message(t.status()).find("persistentvolumeclaims \"missing\" not found") !=
        std::string::npos);
  t = index.Topology(DbPod("data-0"));
  CHECK(t.status().code() == absl::StatusCode::kNotFound);
  CHECK(Message(t.status()).find("persistentvolumes \"pv-gone\" not found") != std::string::npos);
  t = index.Topology(DbPod("data-1"));
  CHECK(Message(t.status()).find("storageclasses.storage.k8s.io \"nope\" not found") !=
        std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Drivers and limits (docs/design.md §5.13)

TEST_CASE("in-tree plugins translate to their CSI drivers", "[volumes]") {
  CHECK(karp::CsiDriverOfInTreePlugin("kubernetes.io/aws-ebs") == "ebs.csi.aws.com");
  CHECK(karp::CsiDriverOfInTreePlugin("kubernetes.io/gce-pd") == "pd.csi.storage.gke.io");
  CHECK(karp::CsiDriverOfInTreePlugin("kubernetes.io/azure-disk") == "disk.csi.azure.com");
  CHECK(karp::CsiDriverOfInTreePlugin("ebs.csi.aws.com").empty());
  CHECK(karp::CsiDriverOfInTreePlugin("kubernetes.io/no-provisioner").empty());
}

TEST_CASE("a claim's driver comes from its volume, else from its storage class", "[volumes]") {
  ClusterSnapshot snap;
  snap.persistent_volumes.push_back(ZonalVolume("pv-csi", {"z1"}, "example.com/block"));
  karp::PersistentVolume in_tree = MakeVolume("pv-ebs", {}, "");
  in_tree.aws_elastic_block_store = true;
  snap.persistent_volumes.push_back(in_tree);
  snap.persistent_volumes.push_back(MakeVolume("pv-nfs", {}, ""));
  snap.storage_classes.push_back(MakeStorageClass("legacy", "kubernetes.io/aws-ebs"));
  snap.storage_classes.push_back(MakeStorageClass("fast", "example.com/fast"));
  StorageIndex index(snap);
  CHECK(*index.ResolveDriver(BoundClaim("a", "pv-csi", "fast")) == "example.com/block");
  CHECK(*index.ResolveDriver(BoundClaim("a", "pv-ebs")) == "ebs.csi.aws.com");
  CHECK(index.ResolveDriver(BoundClaim("a", "pv-nfs", "fast"))->empty());  // not CSI
  CHECK(*index.ResolveDriver(UnboundClaim("a", "legacy")) == "ebs.csi.aws.com");
  CHECK(*index.ResolveDriver(UnboundClaim("a", "fast")) == "example.com/fast");
  CHECK(index.ResolveDriver(UnboundClaim("a", ""))->empty());
  CHECK(index.ResolveDriver(UnboundClaim("a", "deleted"))->empty());
  CHECK(index.ResolveDriver(BoundClaim("a", "pv-gone")).status().code() ==
        absl::StatusCode::kNotFound);
}

TEST_CASE("a pod's usage counts its claims per driver", "[volumes]") {
  ClusterSnapshot snap;
  AddZonalClaim(snap, "a", "z1");
  AddZonalClaim(snap, "b", "z1");
  snap.storage_classes.push_back(MakeStorageClass("other", "example.com/x"));
  snap.persistent_volume_claims.push_back(UnboundClaim("c", "other"));
  StorageIndex index(snap);
  Pod pod = MakePod("p", "1")
                .ClaimVolume("1", "a")
                .ClaimVolume("2", "b")
                .ClaimVolume("3", "a")  // the same claim twice counts once
                .ClaimVolume("4", "c")
                .ClaimVolume("5", "missing");  // deleted by hand: ignored
  absl::StatusOr<VolumeUsage> usage = index.Usage(pod);
  REQUIRE(usage.ok());
  CHECK(*usage == VolumeUsage{{"ebs.csi.aws.com", {"default/a", "default/b"}},
                              {"example.com/x", {"default/c"}}});
  snap.persistent_volume_claims.push_back(BoundClaim("d", "pv-gone"));
  CHECK_FALSE(StorageIndex(snap).Usage(MakePod("p", "1").ClaimVolume("1", "d")).ok());
}

TEST_CASE("limits come from the node's CSINode", "[volumes]") {
  ClusterSnapshot snap;
  karp::CSINode n = MakeCsiNode("node-a", 25);
  n.drivers.push_back({"example.com/x", std::nullopt});  // no allocatable: no limit
  n.drivers.push_back({"example.com/y", 0});
  snap.csi_nodes.push_back(n);
  StorageIndex index(snap);
  CHECK(index.Limits("node-a") ==
        karp::VolumeLimits{{"ebs.csi.aws.com", 25}, {"example.com/y", 0}});
  CHECK(index.Limits("node-b").empty());
}

TEST_CASE("limits count distinct claims of the node and the pod", "[volumes]") {
  const karp::VolumeLimits limits{{"ebs", 2}};
  const VolumeUsage node{{"ebs", {"ns/a", "ns/b"}}, {"other", {"ns/x", "ns/y", "ns/z"}}};
  CHECK(karp::CheckVolumeLimits(node, {}, limits).ok());
  CHECK(karp::CheckVolumeLimits(node, {{"ebs", {"ns/a"}}}, limits).ok());    // already attached
  CHECK(karp::CheckVolumeLimits(node, {{"other", {"ns/w"}}}, limits).ok());  // no limit
  absl::Status s = karp::CheckVolumeLimits(node, {{"ebs", {"ns/c"}}}, limits);
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Message(s) ==
        "would exceed volume limit (provisioner ebs, volume-count 3, volume-limit 2)");
  // A node already above its limit refuses even a pod without volumes.
  CHECK_FALSE(karp::CheckVolumeLimits(node, {}, {{"ebs", 1}}).ok());
}

// ---------------------------------------------------------------------------------------------
// Snapshot invariants

TEST_CASE("snapshot validation checks the storage kinds", "[volumes]") {
  ClusterSnapshot snap;
  AddZonalClaim(snap, "a", "z1");
  snap.storage_classes.push_back(MakeStorageClass("gp3"));
  snap.csi_nodes.push_back(MakeCsiNode("n", 3));
  CHECK(snap.Validate().ok());

  ClusterSnapshot dup = snap;
  dup.persistent_volume_claims.push_back(dup.persistent_volume_claims[0]);
  CHECK(Message(dup.Validate()) == "persistentvolumeclaim default/a: duplicate object");
  dup = snap;
  dup.persistent_volume_claims.push_back(dup.persistent_volume_claims[0]);
  dup.persistent_volume_claims.back().metadata.namespace_ = "other";  // another namespace
  CHECK(dup.Validate().ok());

  ClusterSnapshot bad = snap;
  bad.persistent_volumes[0].node_affinity[0].match_expressions.push_back(
      Expr(kZone, Operator::kGt, {"x"}));
  CHECK(Message(bad.Validate())
            .find("persistentvolume pv-a: spec.nodeAffinity.required."
                  "nodeSelectorTerms[0].matchExpressions[1]: ") == 0);
  bad = snap;
  bad.persistent_volumes[0].node_affinity[0].match_expressions[0].op = Operator::kGte;
  CHECK_FALSE(bad.Validate().ok());
  bad = snap;
  bad.csi_nodes[0].drivers[0].allocatable_count = -1;
  CHECK(Message(bad.Validate()) == "csinode n: spec.drivers[0].allocatable.count: must be >= 0");

  ClusterSnapshot merged;
  merged.Merge(snap);
  CHECK(merged.persistent_volume_claims.size() == 1);
  CHECK(merged.persistent_volumes.size() == 1);
  CHECK(merged.storage_classes.size() == 1);
  CHECK(merged.csi_nodes.size() == 1);
}

}  // namespace
