// Tests of the storage kinds in karp::json snapshots (docs/formats-storage.md):
// PersistentVolumeClaim, PersistentVolume, StorageClass and CSINode as kubectl prints them,
// pods' claim and ephemeral volumes, the error paths, and the write -> parse round trip.
// Self-contained: every input is written inline.

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "karp/aws_catalog.h"
#include "karp/cluster.h"
#include "karp/json/codec.h"
#include "karp/scheduler.h"
#include "karp/storage.h"
#include "support/snapshot_checks.h"
#include "support/source_dir.h"

namespace {

using karp::ClusterSnapshot;
using karp::Operator;
using karp::json::WriteSnapshot;

std::string ParseError(const std::string& text) {
  return karp::testing::ParseError(text, "storage.json");
}
ClusterSnapshot MustParse(const std::string& text) {
  return karp::testing::MustParse(text, "storage.json");
}

// What `kubectl get pvc,pv,storageclass,csinode -A -o json` prints (trimmed), plus a pod.
const char kStorageList[] = R"({"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
   "metadata": {"name": "data-db-0", "namespace": "prod", "uid": "u1",
                "annotations": {"pv.kubernetes.io/bind-completed": "yes",
                                "volume.kubernetes.io/selected-node": "ip-10-0-1-5"},
                "finalizers": ["kubernetes.io/pvc-protection"]},
   "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}},
            "storageClassName": "gp3", "volumeMode": "Filesystem",
            "volumeName": "pvc-1234"},
   "status": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"},
              "phase": "Bound"}},
  {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
   "metadata": {"name": "data-db-1"},
   "spec": {"storageClassName": null},
   "status": {"phase": "Pending"}},
  {"apiVersion": "v1", "kind": "PersistentVolume",
   "metadata": {"name": "pvc-1234", "deletionTimestamp": "2026-01-01T00:00:00Z"},
   "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "10Gi"},
            "claimRef": {"name": "data-db-0", "namespace": "prod"},
            "csi": {"driver": "ebs.csi.aws.com", "fsType": "ext4", "volumeHandle": "vol-0abc"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [
              {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In",
                                     "values": ["us-east-1b"]}]},
              {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}]}},
            "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "gp3"},
   "status": {"phase": "Bound"}},
  {"apiVersion": "v1", "kind": "PersistentVolume",
   "metadata": {"name": "local-pv"},
   "spec": {"local": {"path": "/mnt/disks/ssd1"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [
              {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In",
                                     "values": ["node-a"]}]}]}}}},
  {"apiVersion": "v1", "kind": "PersistentVolume",
   "metadata": {"name": "legacy"},
   "spec": {"awsElasticBlockStore": {"volumeID": "vol-1"}}},
  {"apiVersion": "v1", "kind": "PersistentVolume",
   "metadata": {"name": "host"}, "spec": {"hostPath": {"path": "/data"}}},
  {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
   "metadata": {"name": "gp3", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
   "provisioner": "ebs.csi.aws.com", "parameters": {"type": "gp3"}, "reclaimPolicy": "Delete",
   "volumeBindingMode": "WaitForFirstConsumer", "allowVolumeExpansion": true,
   "allowedTopologies": [{"matchLabelExpressions": [
     {"key": "topology.ebs.csi.aws.com/zone", "values": ["us-east-1a", "us-east-1b"]}]}]},
  {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
   "metadata": {"name": "instant"}, "provisioner": "kubernetes.io/aws-ebs",
   "volumeBindingMode": "Immediate"},
  {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
   "metadata": {"name": "ip-10-0-1-5", "ownerReferences": [
     {"apiVersion": "v1", "kind": "Node", "name": "ip-10-0-1-5", "uid": "n1"}]},
   "spec": {"drivers": [
     {"name": "ebs.csi.aws.com", "nodeID": "i-0abc", "allocatable": {"count": 25},
      "topologyKeys": ["kubernetes.io/os", "topology.ebs.csi.aws.com/zone"]},
     {"name": "efs.csi.aws.com", "nodeID": "i-0abc"},
     {"name": "example.com/odd", "nodeID": "i-0abc", "allocatable": {}}]}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "db-0", "namespace": "prod"},
   "spec": {"containers": [{"name": "db"}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}},
                        {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {
                          "accessModes": ["ReadWriteOnce"], "storageClassName": "gp3"}}}},
                        {"name": "tmp", "emptyDir": {}}]}}
]})";

TEST_CASE("the storage kinds decode as kubectl prints them", "[json][volumes]") {
  ClusterSnapshot snap = MustParse(kStorageList);
  CHECK(snap.skipped_objects == 0);

  REQUIRE(snap.persistent_volume_claims.size() == 2);
  const karp::PersistentVolumeClaim& c0 = snap.persistent_volume_claims[0];
  CHECK(c0.Key() == "prod/data-db-0");
  CHECK(c0.volume_name == "pvc-1234");
  CHECK(c0.storage_class_name == "gp3");
  CHECK(c0.phase == "Bound");
  CHECK(c0.metadata.annotations.at("pv.kubernetes.io/bind-completed") == "yes");
  const karp::PersistentVolumeClaim& c1 = snap.persistent_volume_claims[1];
  CHECK(c1.Key() == "default/data-db-1");  // namespace defaults to "default"
  CHECK(c1.storage_class_name.empty());    // null reads as unset
  CHECK(c1.phase == "Pending");

  REQUIRE(snap.persistent_volumes.size() == 4);
  const karp::PersistentVolume& pv = snap.persistent_volumes[0];
  CHECK(pv.metadata.deletion_timestamp.has_value());
  CHECK(pv.csi_driver == "ebs.csi.aws.com");
  CHECK_FALSE(pv.local);
  REQUIRE(pv.node_affinity.size() == 2);
  CHECK(pv.node_affinity[0].match_expressions ==
        std::vector<karp::NodeSelectorRequirement>{
            {"topology.kubernetes.io/zone", Operator::kIn, {"us-east-1b"}, std::nullopt}});
  CHECK(pv.node_affinity[1].match_expressions[0].op == Operator::kExists);
  CHECK(snap.persistent_volumes[1].local);
  CHECK(snap.persistent_volumes[1].csi_driver.empty());
  CHECK(snap.persistent_volumes[2].aws_elastic_block_store);
  CHECK(snap.persistent_volumes[3].host_path);

  REQUIRE(snap.storage_classes.size() == 2);
  const karp::StorageClass& gp3 = snap.storage_classes[0];
  CHECK(gp3.provisioner == "ebs.csi.aws.com");
  CHECK(gp3.volume_binding_mode == karp::VolumeBindingMode::kWaitForFirstConsumer);
  REQUIRE(gp3.allowed_topologies.size() == 1);
  CHECK(gp3.allowed_topologies[0].match_label_expressions ==
        std::vector<karp::TopologySelectorRequirement>{
            {"topology.ebs.csi.aws.com/zone", {"us-east-1a", "us-east-1b"}}});
  CHECK(snap.storage_classes[1].volume_binding_mode == karp::VolumeBindingMode::kImmediate);

  REQUIRE(snap.csi_nodes.size() == 1);
  const karp::CSINode& n = snap.csi_nodes[0];
  CHECK(n.metadata.name == "ip-10-0-1-5");
  REQUIRE(n.drivers.size() == 3);
  CHECK(n.drivers[0] == karp::CSINodeDriver{"ebs.csi.aws.com", 25});
  CHECK(n.drivers[1] == karp::CSINodeDriver{"efs.csi.aws.com", std::nullopt});
  CHECK(n.drivers[2] == karp::CSINodeDriver{"example.com/odd", 0});  // allocatable, no count

  REQUIRE(snap.pods.size() == 1);
  const karp::Pod& pod = snap.pods[0];
  REQUIRE(pod.volumes.size() == 2);  // emptyDir is not kept
  CHECK(pod.volumes[0] == karp::PodVolume{"data", "data-db-0", false});
  CHECK(pod.volumes[1] == karp::PodVolume{"scratch", "", true});
  CHECK(pod.ClaimName(pod.volumes[1]) == "db-0-scratch");
  CHECK(snap.Validate().ok());
}

TEST_CASE("the storage kinds round-trip through WriteSnapshot", "[json][volumes]") {
  ClusterSnapshot snap = MustParse(kStorageList);
  const std::string written = WriteSnapshot(snap);
  ClusterSnapshot again = MustParse(written);
  CHECK(again.persistent_volume_claims == snap.persistent_volume_claims);
  CHECK(again.persistent_volumes == snap.persistent_volumes);
  CHECK(again.storage_classes == snap.storage_classes);
  CHECK(again.csi_nodes == snap.csi_nodes);
  CHECK(again.pods == snap.pods);
  CHECK(WriteSnapshot(again) == written);
}

// Found by fuzz/snapshot_fuzz: a namespace on a cluster-scoped storage object was dropped by
// WriteSnapshot, so the round trip changed the object.
TEST_CASE("cluster-scoped storage objects keep a namespace they were given", "[json][volumes]") {
  ClusterSnapshot snap = MustParse(R"({"kind": "List", "items": [
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
     "metadata": {"name": "s", "namespace": "kube-system"}},
    {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "v", "namespace": "x"}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
     "metadata": {"name": "n", "namespace": "y"}}]})");
  ClusterSnapshot again = MustParse(WriteSnapshot(snap));
  CHECK(again.storage_classes == snap.storage_classes);
  CHECK(again.persistent_volumes == snap.persistent_volumes);
  CHECK(again.csi_nodes == snap.csi_nodes);
  CHECK(again.storage_classes[0].metadata.namespace_ == "kube-system");
}

TEST_CASE("storage objects with wrong values name the path", "[json][volumes]") {
  auto one = [](const std::string& object) {
    return ParseError(R"({"apiVersion": "v1", "kind": "List", "items": [)" + object + "]}");
  };
  CHECK(one(R"({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
                "status": {"phase": "Gone"}})") ==
        "storage.json: items[0].status.phase: unsupported phase \"Gone\"; expected Pending, "
        "Bound or Lost");
  CHECK(one(R"({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
                "spec": {"volumeName": 3}})") ==
        "storage.json: items[0].spec.volumeName: expected a string, got a number");
  CHECK(one(R"({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "v"},
                "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [
                  {"matchExpressions": [{"key": "zone", "operator": "Gt", "values": ["a"]}]}]}}}})")
            .find("storage.json: items[0].spec.nodeAffinity.required.nodeSelectorTerms[0]."
                  "matchExpressions[0]: ") == 0);
  CHECK(one(R"({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "v"},
                "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [
                  {"matchExpressions": [{"key": "zone", "operator": "Gte", "values": ["1"]}]}]}}}})")
            .find("storage.json: items[0].spec.nodeAffinity.required.nodeSelectorTerms[0]."
                  "matchExpressions[0].operator: unsupported operator \"Gte\"") == 0);
  CHECK(one(R"({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "v"},
                "spec": {"csi": {"volumeHandle": "x"}}})") ==
        "storage.json: items[0].spec.csi.driver: required");
  CHECK(one(R"({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "v"},
                "spec": {"local": "yes"}})") ==
        "storage.json: items[0].spec.local: expected an object, got a string");
  CHECK(one(R"({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                "metadata": {"name": "s"}, "volumeBindingMode": "Later"})") ==
        "storage.json: items[0].volumeBindingMode: unsupported volumeBindingMode \"Later\"; "
        "expected Immediate or WaitForFirstConsumer");
  CHECK(one(R"({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                "metadata": {"name": "s"},
                "allowedTopologies": [{"matchLabelExpressions": [{"values": ["a"]}]}]})") ==
        "storage.json: items[0].allowedTopologies[0].matchLabelExpressions[0].key: required");
  CHECK(one(R"({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                "metadata": {"name": "n"},
                "spec": {"drivers": [{"name": "d", "allocatable": {"count": -1}}]}})") ==
        "storage.json: items[0].spec.drivers[0].allocatable.count: must be >= 0");
  CHECK(one(R"({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                "metadata": {"name": "n"}, "spec": {"drivers": [{"nodeID": "i"}]}})") ==
        "storage.json: items[0].spec.drivers[0].name: required");
  CHECK(one(R"({"apiVersion": "storage.k8s.io/v1beta1", "kind": "CSINode",
                "metadata": {"name": "n"}})") ==
        "storage.json: items[0].apiVersion: unsupported apiVersion \"storage.k8s.io/v1beta1\" "
        "for kind CSINode (expected storage.k8s.io/v1)");
  CHECK(one(R"({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {}})") ==
        "storage.json: items[0].metadata.name: required");
  CHECK(one(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"volumes": [{"ephemeral": {}}]}})") ==
        "storage.json: items[0].spec.volumes[0].name: required for an ephemeral volume");
  CHECK(one(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"volumes": [{"name": "d", "persistentVolumeClaim": {}}]}})") ==
        "storage.json: items[0].spec.volumes[0].persistentVolumeClaim.claimName: required");
}

TEST_CASE("duplicate storage objects are rejected, claims per namespace", "[json][volumes]") {
  const std::string claim_a =
      R"({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"}})";
  const std::string claim_b = R"({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                  "metadata": {"name": "c", "namespace": "other"}})";
  MustParse(R"({"kind": "List", "items": [)" + claim_a + "," + claim_b + "]}");
  CHECK(ParseError(R"({"kind": "List", "items": [)" + claim_a + "," + claim_a + "]}") ==
        "storage.json: items[1].metadata.name: duplicate persistentvolumeclaim \"default/c\" "
        "(first defined at items[0])");
  const std::string sc =
      R"({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "s"}})";
  CHECK(ParseError(R"({"kind": "List", "items": [)" + sc + "," + sc + "]}") ==
        "storage.json: items[1].metadata.name: duplicate storageclass \"s\" "
        "(first defined at items[0])");
}

TEST_CASE("the bundled StatefulSet example solves as its comment says", "[json][volumes]") {
  absl::StatusOr<ClusterSnapshot> snap =
      karp::json::ReadSnapshotFiles({karp::testing::SourceDir() + "/examples/statefulset.yaml"});
  INFO(snap.status().message());
  REQUIRE(snap.ok());
  absl::StatusOr<karp::InstanceCatalog> aws = karp::EmbeddedAwsCatalog();
  REQUIRE(aws.ok());
  absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(
      *snap, std::make_shared<const karp::InstanceCatalog>(std::move(*aws)));
  REQUIRE(s.ok());
  absl::StatusOr<karp::SolveResult> r = s->Solve();
  REQUIRE(r.ok());
  CHECK(r->pod_errors.empty());
  std::map<std::string, std::string> zone_of;
  for (const karp::NewNodeClaim& nc : r->node_claims) {
    REQUIRE(nc.launch.has_value());
    for (const std::string& p : nc.pods) zone_of[p] = nc.launch->zone;
  }
  CHECK(zone_of == std::map<std::string, std::string>{{"default/db-0", "us-east-1a"},
                                                      {"default/db-1", "us-east-1b"},
                                                      {"default/db-2", "us-east-1c"}});
  REQUIRE(r->existing_nodes.size() == 1);
  CHECK(r->existing_nodes[0].name == "ip-10-0-2-7");
  CHECK(r->existing_nodes[0].pods == std::vector<std::string>{"default/web"});
}

}  // namespace
