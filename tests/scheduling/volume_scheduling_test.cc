// Scheduler::Solve with stateful pods (docs/design.md §5.3, §5.13): volume topology constrains the
// node or NodeClaim that takes a pod, invalid claims become pod errors, and existing nodes
// respect their CSI attach limits. Expectations are derived from the spec.
//
// The fake catalog of docs/design.md §4.5 (FakeCatalog(n)) offers on-demand capacity in
// test-zone-1, 2 and 3; every zone costs the same, so without volumes a claim launches in
// test-zone-1 (ties by zone name).

#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karp/cluster.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/scheduler.h"
#include "karp/storage.h"
#include "support/builders.h"
#include "support/storage_builders.h"

namespace {

using karp::ClusterSnapshot;
using karp::NewNodeClaim;
using karp::Operator;
using karp::Scheduler;
using karp::SolveResult;
using karp::VolumeBindingMode;
using karp::testing::AddZonalClaim;
using karp::testing::BoundClaim;
using karp::testing::ClaimOf;
using karp::testing::Describe;
using karp::testing::ErrorOf;
using karp::testing::Expr;
using karp::testing::FakeCatalog;
using karp::testing::MakeCsiNode;
using karp::testing::MakeNode;
using karp::testing::MakeNodeClaim;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;
using karp::testing::MakeStorageClass;
using karp::testing::MakeVolume;
using karp::testing::PlacementOf;
using karp::testing::SpreadConstraint;
using karp::testing::Term;
using karp::testing::UnboundClaim;
using karp::testing::ZonalVolume;

const std::string kZ1(karp::testing::kZone1);
const std::string kZ2(karp::testing::kZone2);
const std::string kZ3(karp::testing::kZone3);
const std::string kZoneKey(karp::kLabelZone);

SolveResult SolveOrDie(const ClusterSnapshot& snap, int types = 10) {
  absl::StatusOr<Scheduler> s = Scheduler::Create(snap, FakeCatalog(types));
  INFO(std::string(s.status().message()));
  REQUIRE(s.ok());
  absl::StatusOr<SolveResult> r = s->Solve();
  INFO(std::string(r.status().message()));
  REQUIRE(r.ok());
  return *r;
}

// The zone values of the claim's requirements.
std::vector<std::string> ClaimZones(const NewNodeClaim& nc) {
  const karp::Requirement* z = nc.requirements.Find(karp::kLabelZone);
  if (z == nullptr || z->complement()) return {};
  return z->values();
}

// A StatefulSet replica: `<set>-<i>` with the claim `data-<set>-<i>`.
karp::testing::PodBuilder Replica(const std::string& set, int i, const std::string& cpu = "1") {
  const std::string name = set + "-" + std::to_string(i);
  return MakePod(name, cpu)
      .Label("app", set)
      .OwnedBy("StatefulSet", set)
      .ClaimVolume("data", "data-" + name);
}

// An existing unmanaged node in `zone` (4 cpu) with the zone label.
karp::Node ZonalNode(const std::string& name, const std::string& zone,
                     const std::string& cpu = "4") {
  return MakeNode(name, cpu, "16Gi", 110, {{kZoneKey, zone}});
}

TEST_CASE("a StatefulSet with zonal volumes launches each replica in its volume's zone",
          "[scheduler][volumes]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  const std::vector<std::string> zones = {kZ2, kZ3, kZ1, kZ3};
  for (int i = 0; i < 4; ++i) {
    AddZonalClaim(snap, "data-db-" + std::to_string(i), zones[static_cast<size_t>(i)]);
    snap.pods.push_back(Replica("db", i));
  }
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  for (int i = 0; i < 4; ++i) {
    const std::string pod = "default/db-" + std::to_string(i);
    const NewNodeClaim* nc = ClaimOf(r, pod);
    REQUIRE(nc != nullptr);
    CHECK(ClaimZones(*nc) == std::vector<std::string>{zones[static_cast<size_t>(i)]});
    REQUIRE(nc->launch.has_value());
    CHECK(nc->launch->zone == zones[static_cast<size_t>(i)]);
  }
  // Replicas in the same zone share a claim; the others cannot.
  CHECK(ClaimOf(r, "default/db-1") == ClaimOf(r, "default/db-3"));
  CHECK(r.node_claims.size() == 3);
}

TEST_CASE("a replica whose volume's zone no NodePool offers is never placed elsewhere",
          "[scheduler][volumes]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default", {Expr(kZoneKey, Operator::kIn, {kZ1, kZ2})}));
  AddZonalClaim(snap, "data-db-0", kZ3);
  AddZonalClaim(snap, "data-db-1", kZ2);
  snap.pods.push_back(Replica("db", 0));
  snap.pods.push_back(Replica("db", 1));
  // Room on an existing node in another zone does not help either.
  snap.nodes.push_back(ZonalNode("node-z1", kZ1));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  CHECK(ClaimOf(r, "default/db-0") == nullptr);
  CHECK(PlacementOf(r, "default/db-0") == nullptr);
  std::optional<std::string> err = ErrorOf(r, "default/db-0");
  REQUIRE(err.has_value());
  // The reference's words, then what a person can act on: which claim pins the pod where.
  CHECK(err->find("incompatible with nodepool \"default\", incompatible volume requirements, "
                  "key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [test-zone-3] "
                  "not in topology.kubernetes.io/zone In [test-zone-1 test-zone-2]") == 0);
  CHECK(err->find("the pod's volumes restrict where it can run: persistentvolumeclaim "
                  "\"default/data-db-0\" is bound to persistentvolume \"pv-data-db-0\", whose "
                  "node affinity requires topology.kubernetes.io/zone In [test-zone-3]") !=
        std::string::npos);
  // The rest of the solve is unaffected.
  const NewNodeClaim* nc = ClaimOf(r, "default/db-1");
  REQUIRE(nc != nullptr);
  CHECK(nc->launch->zone == kZ2);
}

TEST_CASE("existing nodes and in-flight claims take a pod only in its volume's zone",
          "[scheduler][volumes]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.nodes.push_back(ZonalNode("node-z1", kZ1));
  snap.nodes.push_back(ZonalNode("node-z2", kZ2));
  snap.node_claims.push_back(
      MakeNodeClaim("inflight-z3", "default", "4", "16Gi", 110, {{kZoneKey, kZ3}}));
  AddZonalClaim(snap, "data-db-0", kZ2);
  AddZonalClaim(snap, "data-db-1", kZ3);
  snap.pods.push_back(Replica("db", 0));
  snap.pods.push_back(Replica("db", 1));
  snap.pods.push_back(MakePod("web", "1"));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  REQUIRE(PlacementOf(r, "default/db-0") != nullptr);
  CHECK(PlacementOf(r, "default/db-0")->name == "node-z2");
  REQUIRE(PlacementOf(r, "default/db-1") != nullptr);
  CHECK(PlacementOf(r, "default/db-1")->name == "inflight-z3");
  REQUIRE(PlacementOf(r, "default/web") != nullptr);
  CHECK(PlacementOf(r, "default/web")->name == "node-z1");  // first fit, by name
  CHECK(r.node_claims.empty());
}

TEST_CASE("a node without a zone label cannot satisfy a zonal volume", "[scheduler][volumes]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.nodes.push_back(MakeNode("bare", "4", "16Gi"));
  AddZonalClaim(snap, "data-db-0", kZ1);
  snap.pods.push_back(Replica("db", 0));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  REQUIRE(ClaimOf(r, "default/db-0") != nullptr);  // not the unlabelled node
}

TEST_CASE("an unbound claim follows its storage class's allowed topologies",
          "[scheduler][volumes]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.storage_classes.push_back(MakeStorageClass("gp3", std::string(karp::kEbsCsiDriver),
                                                  VolumeBindingMode::kWaitForFirstConsumer,
                                                  {{kZ3}, {kZ2}}));
  snap.persistent_volume_claims.push_back(UnboundClaim("data-db-0", "gp3"));
  snap.pods.push_back(Replica("db", 0));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  const NewNodeClaim* nc = ClaimOf(r, "default/db-0");
  REQUIRE(nc != nullptr);
  CHECK(nc->launch->zone == kZ3);  // the first alternative that fits wins
}

TEST_CASE("alternatives are tried in order until one fits", "[scheduler][volumes]") {
  ClusterSnapshot snap;
  // The NodePool offers zones 2 and 3 only; the volume's first term (zone 1) cannot be used.
  snap.node_pools.push_back(MakeNodePool("default", {Expr(kZoneKey, Operator::kIn, {kZ2, kZ3})}));
  snap.persistent_volumes.push_back(
      MakeVolume("pv-0", {Term({Expr(kZoneKey, Operator::kIn, {kZ1})}),
                          Term({Expr(kZoneKey, Operator::kIn, {kZ3})})}));
  snap.persistent_volume_claims.push_back(BoundClaim("data-db-0", "pv-0"));
  snap.pods.push_back(Replica("db", 0));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  const NewNodeClaim* nc = ClaimOf(r, "default/db-0");
  REQUIRE(nc != nullptr);
  CHECK(ClaimZones(*nc) == std::vector<std::string>{kZ3});
}

TEST_CASE("several volumes pin a pod to the zone they share", "[scheduler][volumes]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.persistent_volumes.push_back(
      MakeVolume("pv-a", {Term({Expr(kZoneKey, Operator::kIn, {kZ1})}),
                          Term({Expr(kZoneKey, Operator::kIn, {kZ2})})}));
  snap.persistent_volumes.push_back(ZonalVolume("pv-b", {kZ2, kZ3}));
  snap.persistent_volume_claims.push_back(BoundClaim("a", "pv-a"));
  snap.persistent_volume_claims.push_back(BoundClaim("b", "pv-b"));
  snap.pods.push_back(MakePod("p", "1").ClaimVolume("x", "a").ClaimVolume("y", "b"));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  const NewNodeClaim* nc = ClaimOf(r, "default/p");
  REQUIRE(nc != nullptr);
  CHECK(nc->launch->zone == kZ2);
}

TEST_CASE("a generic ephemeral volume pins the pod like a claim", "[scheduler][volumes]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  AddZonalClaim(snap, "web-0-scratch", kZ2);
  snap.pods.push_back(MakePod("web-0", "1").EphemeralVolume("scratch"));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  const NewNodeClaim* nc = ClaimOf(r, "default/web-0");
  REQUIRE(nc != nullptr);
  CHECK(nc->launch->zone == kZ2);
}

TEST_CASE("a local volume's hostname affinity does not pin the pod", "[scheduler][volumes]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  karp::PersistentVolume local = MakeVolume(
      "pv-local", {Term({Expr(std::string(karp::kLabelHostname), Operator::kIn, {"gone"})})}, "");
  local.local = true;
  snap.persistent_volumes.push_back(local);
  snap.persistent_volume_claims.push_back(BoundClaim("data-db-0", "pv-local"));
  snap.pods.push_back(Replica("db", 0));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  CHECK(ClaimOf(r, "default/db-0") != nullptr);
}

TEST_CASE("volume zones narrow the node, not the pod: topology spread still counts every zone",
          "[scheduler][volumes]") {
  // One matching pod already runs in zone 1; zones 2 and 3 have none. A pod whose volume is
  // in zone 1 may not add a second one there (skew 2 over the empty zones): the volume
  // narrows the node, the pod's own domains stay all three zones.
  auto base = [] {
    ClusterSnapshot snap;
    snap.node_pools.push_back(MakeNodePool("default"));
    snap.nodes.push_back(ZonalNode("node-z1", kZ1, "8"));
    snap.pods.push_back(MakePod("web-0", "1").Label("app", "web").BoundTo("node-z1"));
    AddZonalClaim(snap, "data-web-1", kZ1);
    return snap;
  };
  const karp::TopologySpreadConstraint tsc = SpreadConstraint(kZoneKey, 1, {{"app", "web"}});

  ClusterSnapshot with_volume = base();
  with_volume.pods.push_back(
      MakePod("web-1", "1").Label("app", "web").Spread(tsc).ClaimVolume("data", "data-web-1"));
  SolveResult r = SolveOrDie(with_volume);
  INFO(Describe(r));
  std::optional<std::string> err = ErrorOf(r, "default/web-1");
  REQUIRE(err.has_value());
  CHECK(err->find("topology") != std::string::npos);

  // Control: the same zone as the pod's own node selector narrows the pod's domains, and the
  // spread is then counted over zone 1 alone.
  ClusterSnapshot with_selector = base();
  with_selector.pods.push_back(
      MakePod("web-1", "1").Label("app", "web").Spread(tsc).NodeSelector(kZoneKey, kZ1));
  SolveResult c = SolveOrDie(with_selector);
  INFO(Describe(c));
  CHECK_FALSE(ErrorOf(c, "default/web-1").has_value());
}

TEST_CASE("invalid claims make only their pods ignored", "[scheduler][volumes]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.storage_classes.push_back(
      MakeStorageClass("instant", std::string(karp::kEbsCsiDriver), VolumeBindingMode::kImmediate));
  AddZonalClaim(snap, "deleting", kZ1);
  snap.persistent_volume_claims.back().metadata.deletion_timestamp = absl::UnixEpoch();
  AddZonalClaim(snap, "lost", kZ1);
  snap.persistent_volume_claims.back().phase = "Lost";
  snap.persistent_volume_claims.push_back(BoundClaim("no-volume", "pv-gone"));
  AddZonalClaim(snap, "not-bound-yet", kZ1);
  snap.persistent_volume_claims.back().metadata.annotations.clear();
  snap.persistent_volume_claims.push_back(UnboundClaim("no-class", ""));
  snap.persistent_volume_claims.push_back(UnboundClaim("unknown-class", "gone"));
  snap.persistent_volume_claims.push_back(UnboundClaim("immediate", "instant"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"deleting", "ignoring pod, persistentvolumeclaim is being deleted"},
      {"lost", "ignoring pod, persistentvolumeclaim bound to non-existent persistentvolume"},
      {"no-volume",
       "ignoring pod, failed to validate pvc, persistentvolumes \"pv-gone\" not found"},
      {"not-bound-yet",
       "ignoring pod, pvc is considered unbound because it does not contain annotation"},
      {"no-class", "ignoring pod, unbound pvc must define a storage class"},
      {"unknown-class",
       "ignoring pod, failed to validate pvc, failed to get storage class, "
       "storageclasses.storage.k8s.io \"gone\" not found"},
      {"immediate",
       "ignoring pod, failed to validate pvc, pvc with immediate volume binding mode must be "
       "bound"},
      {"missing",
       "ignoring pod, getting persistent volume claim, persistentvolumeclaims \"missing\" not "
       "found"},
  };
  for (const auto& [claim, _] : cases) {
    snap.pods.push_back(MakePod("uses-" + claim, "1").ClaimVolume("data", claim));
  }
  snap.pods.push_back(MakePod("plain", "1"));
  absl::StatusOr<Scheduler> s = Scheduler::Create(snap, FakeCatalog(10));
  REQUIRE(s.ok());  // never a failure of Create or Solve
  absl::StatusOr<SolveResult> r = s->Solve();
  REQUIRE(r.ok());
  INFO(Describe(*r));
  for (const auto& [claim, words] : cases) {
    INFO(claim);
    std::optional<std::string> err = ErrorOf(*r, "default/uses-" + claim);
    REQUIRE(err.has_value());
    CHECK(err->find(words) == 0);
  }
  CHECK(r->pod_errors.size() == cases.size());
  CHECK(ClaimOf(*r, "default/plain") != nullptr);
  CHECK(r->pod_count == static_cast<int>(cases.size()) + 1);
}

TEST_CASE("pods of deleting nodes are not validated but keep their volume zone",
          "[scheduler][volumes]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  karp::Node old = ZonalNode("old", kZ2);
  old.metadata.deletion_timestamp = absl::UnixEpoch();
  snap.nodes.push_back(old);
  AddZonalClaim(snap, "data-db-0", kZ2);
  // Unbound per the annotation rule, which only pending pods are checked against.
  snap.persistent_volume_claims.back().metadata.annotations.clear();
  snap.pods.push_back(Replica("db", 0).BoundTo("old"));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  const NewNodeClaim* nc = ClaimOf(r, "default/db-0");
  REQUIRE(nc != nullptr);
  CHECK(nc->launch->zone == kZ2);
}

// ---------------------------------------------------------------------------------------------
// Attach limits of existing nodes (docs/design.md §5.13)

// `node-z1` (16 cpu, zone 1) whose CSINode allows `limit` EBS volumes, running pods that use
// `in_use` claims of zone 1.
ClusterSnapshot NodeWithVolumes(int limit, int in_use) {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.nodes.push_back(ZonalNode("node-z1", kZ1, "16"));
  snap.csi_nodes.push_back(MakeCsiNode("node-z1", limit));
  for (int i = 0; i < in_use; ++i) {
    const std::string claim = "data-running-" + std::to_string(i);
    AddZonalClaim(snap, claim, kZ1);
    snap.pods.push_back(MakePod("running-" + std::to_string(i), "100m")
                            .ClaimVolume("data", claim)
                            .BoundTo("node-z1"));
  }
  return snap;
}

TEST_CASE("an existing node at its attach limit sends a pod with a new volume to a new node",
          "[scheduler][volumes]") {
  ClusterSnapshot snap = NodeWithVolumes(2, 2);
  AddZonalClaim(snap, "data-db-0", kZ1);
  snap.pods.push_back(Replica("db", 0));
  snap.pods.push_back(MakePod("web", "1"));  // no volumes: the node still takes it
  // A pod sharing a claim the node already attached adds no volume.
  snap.pods.push_back(MakePod("reader", "1").ClaimVolume("data", "data-running-0"));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  const NewNodeClaim* nc = ClaimOf(r, "default/db-0");
  REQUIRE(nc != nullptr);
  CHECK(nc->launch->zone == kZ1);
  REQUIRE(PlacementOf(r, "default/web") != nullptr);
  CHECK(PlacementOf(r, "default/web")->name == "node-z1");
  REQUIRE(PlacementOf(r, "default/reader") != nullptr);
  CHECK(PlacementOf(r, "default/reader")->name == "node-z1");

  // With room for one more volume the node takes the replica.
  ClusterSnapshot roomy = NodeWithVolumes(3, 2);
  AddZonalClaim(roomy, "data-db-0", kZ1);
  roomy.pods.push_back(Replica("db", 0));
  SolveResult r2 = SolveOrDie(roomy);
  INFO(Describe(r2));
  REQUIRE(PlacementOf(r2, "default/db-0") != nullptr);
  CHECK(r2.node_claims.empty());
}

TEST_CASE("volumes placed within one solve count against the limit", "[scheduler][volumes]") {
  ClusterSnapshot snap = NodeWithVolumes(3, 1);
  for (int i = 0; i < 3; ++i) {
    AddZonalClaim(snap, "data-db-" + std::to_string(i), kZ1);
    snap.pods.push_back(Replica("db", i));
  }
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  int on_node = 0;
  for (int i = 0; i < 3; ++i) {
    const karp::ExistingPlacement* e = PlacementOf(r, "default/db-" + std::to_string(i));
    if (e != nullptr && e->name == "node-z1") ++on_node;
  }
  CHECK(on_node == 2);
  CHECK(r.node_claims.size() == 1);
}

TEST_CASE("limits apply per driver and only where the CSINode sets them", "[scheduler][volumes]") {
  ClusterSnapshot snap = NodeWithVolumes(1, 1);
  // Another driver without a limit on this node.
  snap.persistent_volumes.push_back(ZonalVolume("pv-files", {kZ1}, "efs.csi.aws.com"));
  snap.persistent_volume_claims.push_back(BoundClaim("files", "pv-files"));
  snap.pods.push_back(MakePod("files-user", "1").ClaimVolume("data", "files"));
  // A node without a CSINode has no limit.
  snap.nodes.push_back(ZonalNode("node-z1-b", kZ1, "16"));
  AddZonalClaim(snap, "data-db-0", kZ1);
  snap.pods.push_back(Replica("db", 0));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  REQUIRE(PlacementOf(r, "default/files-user") != nullptr);
  CHECK(PlacementOf(r, "default/files-user")->name == "node-z1");
  REQUIRE(PlacementOf(r, "default/db-0") != nullptr);
  CHECK(PlacementOf(r, "default/db-0")->name == "node-z1-b");
}

TEST_CASE("a node already above its attach limit takes no pod at all", "[scheduler][volumes]") {
  ClusterSnapshot snap = NodeWithVolumes(1, 2);
  snap.pods.push_back(MakePod("web", "1"));
  SolveResult r = SolveOrDie(snap);
  INFO(Describe(r));
  CHECK(ClaimOf(r, "default/web") != nullptr);
}

TEST_CASE("solves with volumes are deterministic", "[scheduler][volumes]") {
  ClusterSnapshot snap = NodeWithVolumes(4, 2);
  const std::vector<std::string> zones = {kZ1, kZ2, kZ3};
  for (int i = 0; i < 12; ++i) {
    AddZonalClaim(snap, "data-db-" + std::to_string(i), zones[static_cast<size_t>(i % 3)]);
    snap.pods.push_back(Replica("db", i, i % 2 == 0 ? "1" : "500m"));
  }
  SolveResult a = SolveOrDie(snap);
  SolveResult b = SolveOrDie(snap);
  CHECK(karp::testing::SameResult(a, b));
  for (int i = 0; i < 12; ++i) {
    const std::string pod = "default/db-" + std::to_string(i);
    const std::string& zone = zones[static_cast<size_t>(i % 3)];
    if (const NewNodeClaim* nc = ClaimOf(a, pod)) {
      CHECK(nc->launch->zone == zone);
    } else {
      REQUIRE(PlacementOf(a, pod) != nullptr);
      CHECK(PlacementOf(a, pod)->name == "node-z1");
      CHECK(zone == kZ1);
    }
  }
}

}  // namespace
