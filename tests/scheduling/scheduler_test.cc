// Unit tests of Scheduler::Solve (karp/scheduler.h), one or more per provisioning rule of
// docs/design.md §5 and the output contract of docs/formats.md §3. Expectations are
// derived from the spec, not from the implementation.
//
// Most tests use the fake catalog of docs/design.md §4.5 (FakeCatalog(n)): fake-it-<i> has
// allocatable cpu (i+1) - 100m, memory 2(i+1)Gi - 10Mi, pods 10(i+1), costs
// (i+1) * 0.3147483648 on spot/test-zone-1,2 and on-demand/test-zone-1,2,3.

#include "karp/scheduler.h"

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "support/builders.h"

namespace {

using karp::ClusterSnapshot;
using karp::ExistingPlacement;
using karp::InstanceType;
using karp::NewNodeClaim;
using karp::NodeClaim;
using karp::NodePool;
using karp::Offering;
using karp::Operator;
using karp::Pod;
using karp::Requirement;
using karp::Scheduler;
using karp::SchedulerOptions;
using karp::SolveResult;
using karp::Taint;
using karp::TaintEffect;
using karp::WhenUnsatisfiable;
using karp::testing::ClaimOf;
using karp::testing::Describe;
using karp::testing::ErrorOf;
using karp::testing::Expr;
using karp::testing::FakeCatalog;
using karp::testing::MakeCatalog;
using karp::testing::MakeDaemonSet;
using karp::testing::MakeInstanceType;
using karp::testing::MakeNode;
using karp::testing::MakeNodeClaim;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;
using karp::testing::MakeTaint;
using karp::testing::ManagedNodeLabels;
using karp::testing::PlacementOf;
using karp::testing::Res;
using karp::testing::Resources;
using karp::testing::SameResult;
using karp::testing::SpreadConstraint;
using karp::testing::TolerateEqual;
using karp::testing::TolerateExists;

const std::string kZoneKey(karp::kLabelZone);
const std::string kHostKey(karp::kLabelHostname);
const std::string kArchKey(karp::kLabelArch);
const std::string kTypeKey(karp::kLabelInstanceType);
const std::string kCapKey(karp::kLabelCapacityType);
const std::string kZ1(karp::testing::kZone1);
const std::string kZ2(karp::testing::kZone2);
const std::string kZ3(karp::testing::kZone3);
const std::string kTeam = "example.com/team";

std::string K(const std::string& name) { return "default/" + name; }
std::string Msg(const absl::Status& s) { return std::string(s.message()); }

SolveResult Solve(const ClusterSnapshot& snap, std::shared_ptr<const karp::InstanceCatalog> cat,
                  const SchedulerOptions& options = {}) {
  absl::StatusOr<Scheduler> s = Scheduler::Create(snap, std::move(cat), options);
  INFO("Create: " << Msg(s.status()));
  REQUIRE(s.ok());
  absl::StatusOr<SolveResult> r = s->Solve();
  INFO("Solve: " << Msg(r.status()));
  REQUIRE(r.ok());
  return *r;
}

ClusterSnapshot Snap(std::vector<NodePool> pools, std::vector<Pod> pods) {
  ClusterSnapshot s;
  s.node_pools = std::move(pools);
  s.pods = std::move(pods);
  return s;
}

// The claim of `pod`; fails the test when the pod is not on a new claim.
const NewNodeClaim& Claim(const SolveResult& r, const std::string& pod) {
  const NewNodeClaim* nc = ClaimOf(r, K(pod));
  INFO("pod " << pod << " not on a new claim:\n" << Describe(r));
  REQUIRE(nc != nullptr);
  return *nc;
}

// The values of `key` in the claim's requirements when it is an In requirement; else empty.
std::vector<std::string> InValues(const NewNodeClaim& nc, const std::string& key) {
  const Requirement* r = nc.requirements.Find(key);
  if (r == nullptr || r->op() != Operator::kIn) return {};
  return r->values();
}

std::vector<std::string> FakeNames(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i <= to; ++i) out.push_back("fake-it-" + std::to_string(i));
  return out;
}

double FakePrice(int i) { return (i + 1) * 0.3147483648; }

bool Scheduled(const SolveResult& r, const std::string& pod) {
  return ClaimOf(r, K(pod)) != nullptr || PlacementOf(r, K(pod)) != nullptr;
}

std::string Error(const SolveResult& r, const std::string& pod) {
  std::optional<std::string> e = ErrorOf(r, K(pod));
  INFO("pod " << pod << " has no error:\n" << Describe(r));
  REQUIRE(e.has_value());
  return *e;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Queue order (docs/design.md §5.5)

TEST_CASE("pods are placed biggest cpu first, then memory, creation time and uid", "[scheduler]") {
  SECTION("cpu descending") {
    ClusterSnapshot snap =
        Snap({MakeNodePool("default")},
             {MakePod("small", "500m"), MakePod("big", "1500m"), MakePod("medium", "1")});
    SolveResult r = Solve(snap, FakeCatalog(8));
    REQUIRE(r.node_claims.size() == 1);
    CHECK(r.node_claims[0].pods == std::vector<std::string>{K("big"), K("medium"), K("small")});
  }
  SECTION("effective requests: an init container's maximum counts") {
    ClusterSnapshot snap =
        Snap({MakeNodePool("default")},
             {MakePod("regular", "2"), MakePod("init", "100m").InitContainer("3")});
    SolveResult r = Solve(snap, FakeCatalog(8));
    REQUIRE(r.node_claims.size() == 1);
    CHECK(r.node_claims[0].pods == std::vector<std::string>{K("init"), K("regular")});
  }
  SECTION("memory descending among equal cpu") {
    ClusterSnapshot snap = Snap({MakeNodePool("default")},
                                {MakePod("low", "500m", "1Gi"), MakePod("high", "500m", "2Gi")});
    SolveResult r = Solve(snap, FakeCatalog(8));
    REQUIRE(r.node_claims.size() == 1);
    CHECK(r.node_claims[0].pods == std::vector<std::string>{K("high"), K("low")});
  }
  SECTION("creation time ascending among equal requests") {
    ClusterSnapshot snap =
        Snap({MakeNodePool("default")},
             {MakePod("late", "500m").CreatedAt(100), MakePod("early", "500m").CreatedAt(50)});
    SolveResult r = Solve(snap, FakeCatalog(8));
    REQUIRE(r.node_claims.size() == 1);
    CHECK(r.node_claims[0].pods == std::vector<std::string>{K("early"), K("late")});
  }
  SECTION("uid ascending among equal requests and creation time") {
    ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("alpha", "500m").Uid("uid-2"),
                                                            MakePod("zeta", "500m").Uid("uid-1")});
    SolveResult r = Solve(snap, FakeCatalog(8));
    REQUIRE(r.node_claims.size() == 1);
    CHECK(r.node_claims[0].pods == std::vector<std::string>{K("zeta"), K("alpha")});
  }
}

TEST_CASE("queue order decides which claim each pod lands on", "[scheduler]") {
  // Largest allocatable cpu is 1900m. Input order a, b, c would pair a with c; size order
  // places b first, a cannot join it (2300m), and c joins the claim with fewest pods, b's.
  ClusterSnapshot snap = Snap({MakeNodePool("default")},
                              {MakePod("a", "1"), MakePod("b", "1300m"), MakePod("c", "600m")});
  SolveResult r = Solve(snap, FakeCatalog(2));
  INFO(Describe(r));
  REQUIRE(r.node_claims.size() == 2);
  CHECK(r.node_claims[0].name == "default-1");
  CHECK(r.node_claims[0].pods == std::vector<std::string>{K("b"), K("c")});
  CHECK(r.node_claims[1].name == "default-2");
  CHECK(r.node_claims[1].pods == std::vector<std::string>{K("a")});
}

// ---------------------------------------------------------------------------------------------
// Packing and new claims (docs/design.md §5.8, §5.10, §5.16; docs/formats.md §3)

TEST_CASE("small pods pack onto one claim listing every type that fits, cheapest first",
          "[scheduler]") {
  std::vector<Pod> pods;
  for (int i = 0; i < 5; ++i) pods.push_back(MakePod("api-" + std::to_string(i), "500m", "256Mi"));
  SolveResult r = Solve(Snap({MakeNodePool("default")}, pods), FakeCatalog(8));
  INFO(Describe(r));
  REQUIRE(r.node_claims.size() == 1);
  const NewNodeClaim& nc = r.node_claims[0];
  CHECK(nc.name == "default-1");
  CHECK(nc.node_pool == "default");
  CHECK(nc.pods.size() == 5);
  // 2500m fits fake-it-2 (2900m allocatable) and up, never fake-it-1 (1900m).
  CHECK(nc.instance_types == FakeNames(2, 7));
  CHECK(nc.requests == Resources("2500m", "1280Mi", 5));
  REQUIRE(nc.launch.has_value());
  CHECK(nc.launch->instance_type == "fake-it-2");
  CHECK(nc.launch->capacity_type == "spot");  // same price: spot before on-demand
  CHECK(nc.launch->zone == kZ1);              // then zone name
  CHECK(nc.launch->price == Approx(FakePrice(2)));
  CHECK(r.LaunchPricePerHour() == Approx(FakePrice(2)));
  CHECK(InValues(nc, kTypeKey) == FakeNames(2, 7));
  CHECK(InValues(nc, kCapKey) == std::vector<std::string>{"on-demand", "spot"});
  CHECK_FALSE(nc.requirements.Has(kHostKey));
  CHECK_FALSE(nc.requirements.Has(karp::kLabelRegistered));
  CHECK_FALSE(nc.requirements.Has(karp::kLabelInitialized));
  CHECK(nc.labels.at(std::string(karp::kLabelNodePool)) == "default");
  CHECK(nc.annotations.at(std::string(karp::kAnnotationMinValuesRelaxed)) == "false");
  CHECK(r.pod_errors.empty());
  CHECK(r.existing_nodes.empty());
  CHECK(r.pod_count == 5);
}

TEST_CASE("a full claim makes the scheduler open a new one", "[scheduler]") {
  // Two 900m pods fill fake-it-1 (1900m); the third needs a second claim.
  std::vector<Pod> pods;
  for (int i = 0; i < 4; ++i) pods.push_back(MakePod("w-" + std::to_string(i), "900m"));
  SolveResult r = Solve(Snap({MakeNodePool("default")}, pods), FakeCatalog(2));
  INFO(Describe(r));
  REQUIRE(r.node_claims.size() == 2);
  CHECK(r.node_claims[0].name == "default-1");
  CHECK(r.node_claims[1].name == "default-2");
  CHECK(r.node_claims[0].pods == std::vector<std::string>{K("w-0"), K("w-1")});
  CHECK(r.node_claims[1].pods == std::vector<std::string>{K("w-2"), K("w-3")});
  for (const NewNodeClaim& nc : r.node_claims) {
    CHECK(nc.instance_types == std::vector<std::string>{"fake-it-1"});
    CHECK(nc.requests == Resources("1800m", "", 2));
  }
}

TEST_CASE("the pods resource limits how many pods share a claim", "[scheduler]") {
  auto catalog = MakeCatalog({MakeInstanceType("two-pods", "16", "64Gi", 2)});
  std::vector<Pod> pods;
  for (int i = 0; i < 5; ++i) pods.push_back(MakePod("p-" + std::to_string(i), "100m"));
  SolveResult r = Solve(Snap({MakeNodePool("default")}, pods), catalog);
  INFO(Describe(r));
  REQUIRE(r.node_claims.size() == 3);
  CHECK(r.node_claims[0].pods == std::vector<std::string>{K("p-0"), K("p-1")});
  CHECK(r.node_claims[1].pods == std::vector<std::string>{K("p-2"), K("p-3")});
  CHECK(r.node_claims[2].pods == std::vector<std::string>{K("p-4")});
  CHECK(r.node_claims[2].requests.pods() == 1);
}

TEST_CASE("init containers count as their maximum, sidecars add up", "[scheduler]") {
  SECTION("init container larger than the regular containers") {
    // max(3 cpu init, 1 cpu regular) = 3 cpu: fake-it-3 (3900m) is the smallest fit.
    SolveResult r =
        Solve(Snap({MakeNodePool("default")}, {MakePod("migrate", "1").InitContainer("3")}),
              FakeCatalog(8));
    const NewNodeClaim& nc = Claim(r, "migrate");
    CHECK(nc.requests == Resources("3", "", 1));
    CHECK(nc.instance_types == FakeNames(3, 7));
  }
  SECTION("sidecar adds to the regular containers") {
    // 1 cpu sidecar + 1 cpu regular = 2 cpu: fake-it-2 (2900m) is the smallest fit.
    SolveResult r =
        Solve(Snap({MakeNodePool("default")}, {MakePod("app", "1").InitContainer("1", "", true)}),
              FakeCatalog(8));
    const NewNodeClaim& nc = Claim(r, "app");
    CHECK(nc.requests == Resources("2", "", 1));
    CHECK(nc.instance_types == FakeNames(2, 7));
  }
}

// ---------------------------------------------------------------------------------------------
// Existing nodes and in-flight NodeClaims (docs/design.md §5.4, §5.8 step 2, §5.9)

TEST_CASE("existing nodes are used before new claims, managed or not", "[scheduler]") {
  SECTION("managed node") {
    ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("web", "1")});
    snap.nodes.push_back(
        MakeNode("node-a", "4", "8Gi", 40, ManagedNodeLabels("default", "fake-it-3", kZ1)));
    SolveResult r = Solve(snap, FakeCatalog(8));
    INFO(Describe(r));
    CHECK(r.node_claims.empty());
    const ExistingPlacement* e = PlacementOf(r, K("web"));
    REQUIRE(e != nullptr);
    CHECK(e->name == "node-a");
    CHECK_FALSE(e->in_flight);
  }
  SECTION("unmanaged node takes every pod that fits") {
    ClusterSnapshot snap =
        Snap({MakeNodePool("default")},
             {MakePod("api-0", "1"), MakePod("api-1", "1"), MakePod("api-2", "1")});
    snap.nodes.push_back(MakeNode("worker-1", "4", "8Gi", 110, {{kArchKey, "amd64"}}));
    SolveResult r = Solve(snap, FakeCatalog(8));
    INFO(Describe(r));
    CHECK(r.node_claims.empty());
    REQUIRE(r.existing_nodes.size() == 1);
    CHECK(r.existing_nodes[0].name == "worker-1");
    CHECK(r.existing_nodes[0].pods == std::vector<std::string>{K("api-0"), K("api-1"), K("api-2")});
  }
  SECTION("a pod that does not fit the node gets a new claim") {
    ClusterSnapshot snap =
        Snap({MakeNodePool("default")}, {MakePod("big", "5"), MakePod("small", "1")});
    snap.nodes.push_back(MakeNode("worker-1", "4", "8Gi"));
    SolveResult r = Solve(snap, FakeCatalog(8));
    INFO(Describe(r));
    CHECK(Claim(r, "big").pods.size() == 1);
    REQUIRE(PlacementOf(r, K("small")) != nullptr);
    CHECK(PlacementOf(r, K("small"))->name == "worker-1");
  }
}

TEST_CASE("existing nodes are tried initialized first, then by name", "[scheduler]") {
  SECTION("initialized before uninitialized") {
    ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("web", "1")});
    snap.nodes.push_back(MakeNode("a-node", "4", "8Gi", 40,
                                  ManagedNodeLabels("default", "fake-it-3", kZ1, "on-demand",
                                                    /*initialized=*/false)));
    snap.nodes.push_back(
        MakeNode("b-node", "4", "8Gi", 40, ManagedNodeLabels("default", "fake-it-3", kZ1)));
    SolveResult r = Solve(snap, FakeCatalog(8));
    REQUIRE(PlacementOf(r, K("web")) != nullptr);
    CHECK(PlacementOf(r, K("web"))->name == "b-node");
  }
  SECTION("by name") {
    ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("web", "1")});
    snap.nodes.push_back(MakeNode("node-b", "4", "8Gi"));
    snap.nodes.push_back(MakeNode("node-a", "4", "8Gi"));
    SolveResult r = Solve(snap, FakeCatalog(8));
    REQUIRE(PlacementOf(r, K("web")) != nullptr);
    CHECK(PlacementOf(r, K("web"))->name == "node-a");
  }
}

TEST_CASE("bound pods consume their node's capacity", "[scheduler]") {
  ClusterSnapshot snap =
      Snap({MakeNodePool("default")}, {MakePod("big", "1"), MakePod("small", "400m"),
                                       MakePod("running", "1500m").BoundTo("worker")});
  snap.nodes.push_back(MakeNode("worker", "2", "8Gi"));
  SolveResult r = Solve(snap, FakeCatalog(8));
  INFO(Describe(r));
  CHECK(r.pod_count == 2);  // the bound pod is not pending
  CHECK(Claim(r, "big").pods == std::vector<std::string>{K("big")});
  REQUIRE(PlacementOf(r, K("small")) != nullptr);
  CHECK(PlacementOf(r, K("small"))->name == "worker");
  CHECK(ErrorOf(r, K("running")) == std::nullopt);
}

TEST_CASE("placements on existing nodes consume capacity within one solve", "[scheduler]") {
  // 2 cpu node: the first 1200m pod fits, the second no longer does.
  ClusterSnapshot snap =
      Snap({MakeNodePool("default")}, {MakePod("a", "1200m"), MakePod("b", "1200m")});
  snap.nodes.push_back(MakeNode("worker", "2", "8Gi"));
  SolveResult r = Solve(snap, FakeCatalog(8));
  INFO(Describe(r));
  REQUIRE(r.existing_nodes.size() == 1);
  CHECK(r.existing_nodes[0].pods == std::vector<std::string>{K("a")});
  CHECK(Claim(r, "b").pods.size() == 1);
}

TEST_CASE("existing nodes must carry the labels a pod selects", "[scheduler]") {
  // Against real nodes compatibility is strict: an undefined label is not a match, even a
  // well-known one (docs/design.md §1.7, §5.9 step 5).
  ClusterSnapshot snap =
      Snap({MakeNodePool("default")},
           {MakePod("plain", "1"), MakePod("amd", "1").NodeSelector(kArchKey, "amd64")});
  snap.nodes.push_back(MakeNode("worker", "8", "16Gi"));  // no arch label
  SolveResult r = Solve(snap, FakeCatalog(8));
  INFO(Describe(r));
  REQUIRE(PlacementOf(r, K("plain")) != nullptr);
  CHECK(PlacementOf(r, K("plain"))->name == "worker");
  const NewNodeClaim& nc = Claim(r, "amd");
  CHECK(InValues(nc, kArchKey) == std::vector<std::string>{"amd64"});
}

TEST_CASE("in-flight NodeClaims absorb pods that fit and match", "[scheduler]") {
  ClusterSnapshot snap =
      Snap({MakeNodePool("default")}, {MakePod("big", "3"), MakePod("small", "1"),
                                       MakePod("in-z2", "500m").NodeSelector(kZoneKey, kZ2),
                                       MakePod("in-z1", "300m").NodeSelector(kZoneKey, kZ1)});
  NodeClaim nc = MakeNodeClaim(
      "default-abc12", "default", "2", "4Gi", 20,
      {{kTypeKey, "fake-it-1"}, {kZoneKey, kZ2}, {kCapKey, "spot"}, {kArchKey, "amd64"}});
  nc.allocatable = Resources("1900m", "4Gi", 20);
  snap.node_claims.push_back(nc);
  SolveResult r = Solve(snap, FakeCatalog(8));
  INFO(Describe(r));
  REQUIRE(r.existing_nodes.size() == 1);
  const ExistingPlacement& e = r.existing_nodes[0];
  CHECK(e.name == "default-abc12");
  CHECK(e.in_flight);
  CHECK(e.pods == std::vector<std::string>{K("small"), K("in-z2")});
  // in-z1 cannot use the in-flight claim (zone test-zone-2) but joins big's new claim,
  // narrowing its zone.
  REQUIRE(r.node_claims.size() == 1);
  CHECK(r.node_claims[0].pods == std::vector<std::string>{K("big"), K("in-z1")});
  const NewNodeClaim& z1 = Claim(r, "in-z1");
  CHECK(InValues(z1, kZoneKey) == std::vector<std::string>{kZ1});
  REQUIRE(z1.launch.has_value());
  CHECK(z1.launch->zone == kZ1);
}

// ---------------------------------------------------------------------------------------------
// Taints (docs/design.md §3, §5.7 step 6, §5.9 step 1, §5.10 step 1)

TEST_CASE("NodePool taints must be tolerated, NoSchedule and NoExecute alike", "[scheduler]") {
  const Taint special = MakeTaint("example.com/special-taint", "", TaintEffect::kNoSchedule);
  const Taint gpu = MakeTaint("dedicated", "gpu", TaintEffect::kNoExecute);
  SECTION("NoSchedule not tolerated") {
    SolveResult r =
        Solve(Snap({MakeNodePool("default", {}, {special})}, {MakePod("x", "1")}), FakeCatalog(4));
    CHECK(r.node_claims.empty());
    CHECK(Error(r, "x") ==
          "incompatible with nodepool \"default\", did not tolerate "
          "example.com/special-taint=:NoSchedule");
  }
  SECTION("NoExecute not tolerated, or tolerated with the wrong value") {
    SolveResult r = Solve(Snap({MakeNodePool("gpu", {}, {gpu})},
                               {MakePod("none", "1"),
                                MakePod("wrong", "1").Tolerate(TolerateEqual("dedicated", "cpu"))}),
                          FakeCatalog(4));
    CHECK(r.node_claims.empty());
    CHECK(Error(r, "none") ==
          "incompatible with nodepool \"gpu\", did not tolerate dedicated=gpu:NoExecute");
    CHECK(Error(r, "wrong").find("did not tolerate dedicated=gpu:NoExecute") != std::string::npos);
  }
  SECTION("tolerated by Equal, by Exists and by an empty-key Exists") {
    SolveResult r =
        Solve(Snap({MakeNodePool("gpu", {}, {gpu, special})},
                   {MakePod("equal", "1")
                        .Tolerate(TolerateEqual("dedicated", "gpu", TaintEffect::kNoExecute))
                        .Tolerate(TolerateExists("example.com/special-taint")),
                    MakePod("all", "1").Tolerate(TolerateExists(""))}),
              FakeCatalog(4));
    INFO(Describe(r));
    CHECK(r.pod_errors.empty());
    const NewNodeClaim& nc = Claim(r, "equal");
    CHECK(nc.taints == std::vector<Taint>{gpu, special});
    CHECK(Scheduled(r, "all"));
  }
}

TEST_CASE("PreferNoSchedule is tolerated by relaxation only when a NodePool has it",
          "[scheduler]") {
  const Taint soft = MakeTaint("example.com/soft", "", TaintEffect::kPreferNoSchedule);
  SECTION("NodePool with a PreferNoSchedule taint accepts an intolerant pod after relaxation") {
    SolveResult r =
        Solve(Snap({MakeNodePool("default", {}, {soft})}, {MakePod("web", "1")}), FakeCatalog(4));
    INFO(Describe(r));
    const NewNodeClaim& nc = Claim(r, "web");
    CHECK(nc.node_pool == "default");
    CHECK(nc.taints == std::vector<Taint>{soft});
  }
  SECTION("a PreferNoSchedule taint on an existing node alone is hard") {
    ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("web", "1")});
    snap.nodes.push_back(MakeNode("worker", "4", "8Gi", 110, {}, {soft}));
    SolveResult r = Solve(snap, FakeCatalog(4));
    INFO(Describe(r));
    CHECK(PlacementOf(r, K("web")) == nullptr);
    CHECK(Claim(r, "web").node_pool == "default");
  }
  SECTION("with a PreferNoSchedule NodePool the relaxed pod also fits the existing node") {
    ClusterSnapshot snap = Snap({MakeNodePool("default", {}, {soft})}, {MakePod("web", "1")});
    snap.nodes.push_back(MakeNode("worker", "4", "8Gi", 110, {}, {soft}));
    SolveResult r = Solve(snap, FakeCatalog(4));
    INFO(Describe(r));
    CHECK(r.node_claims.empty());
    REQUIRE(PlacementOf(r, K("web")) != nullptr);
    CHECK(PlacementOf(r, K("web"))->name == "worker");
  }
}

TEST_CASE("existing node taints must be tolerated", "[scheduler]") {
  const Taint t = MakeTaint("example.com/reserved", "db", TaintEffect::kNoSchedule);
  ClusterSnapshot snap =
      Snap({MakeNodePool("default")},
           {MakePod("tolerant", "1").Tolerate(TolerateEqual("example.com/reserved", "db")),
            MakePod("intolerant", "1")});
  snap.nodes.push_back(MakeNode("db-node", "4", "8Gi", 110, {}, {t}));
  SolveResult r = Solve(snap, FakeCatalog(4));
  INFO(Describe(r));
  REQUIRE(PlacementOf(r, K("tolerant")) != nullptr);
  CHECK(PlacementOf(r, K("tolerant"))->name == "db-node");
  CHECK(Claim(r, "intolerant").pods.size() == 1);
}

TEST_CASE("startup taints are not considered for new claims", "[scheduler]") {
  NodePool pool = MakeNodePool("default");
  pool.startup_taints = {MakeTaint("example.com/agent-not-ready", "", TaintEffect::kNoSchedule)};
  SolveResult r = Solve(Snap({pool}, {MakePod("web", "1")}), FakeCatalog(4));
  INFO(Describe(r));
  const NewNodeClaim& nc = Claim(r, "web");
  CHECK(nc.taints.empty());
  CHECK(nc.startup_taints == pool.startup_taints);
}

TEST_CASE("uninitialized managed nodes ignore ephemeral and startup taints", "[scheduler]") {
  const Taint not_ready = MakeTaint("node.kubernetes.io/not-ready", "", TaintEffect::kNoSchedule);
  const Taint startup = MakeTaint("example.com/agent", "", TaintEffect::kNoSchedule);
  auto snapshot = [&](bool initialized, bool managed, std::vector<Taint> taints) {
    ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("web", "1")});
    std::map<std::string, std::string> labels =
        managed ? ManagedNodeLabels("default", "fake-it-3", kZ1, "on-demand", initialized)
                : std::map<std::string, std::string>{{kArchKey, "amd64"}};
    snap.nodes.push_back(MakeNode("fresh", "4", "8Gi", 40, labels, std::move(taints)));
    if (managed) {
      NodeClaim nc = MakeNodeClaim("default-fresh", "default", "4", "8Gi", 40);
      nc.node_name = "fresh";
      nc.startup_taints = {startup};
      if (initialized) {
        for (karp::NodeCondition& c : nc.conditions) c.status = "True";
      }
      snap.node_claims.push_back(nc);
    }
    return snap;
  };
  SECTION("uninitialized managed node: not-ready and startup taints are ignored") {
    SolveResult r = Solve(snapshot(false, true, {not_ready, startup}), FakeCatalog(4));
    INFO(Describe(r));
    REQUIRE(PlacementOf(r, K("web")) != nullptr);
    CHECK(PlacementOf(r, K("web"))->name == "fresh");
    CHECK(r.node_claims.empty());
  }
  SECTION("uninitialized managed node: other taints still count") {
    SolveResult r =
        Solve(snapshot(false, true,
                       {not_ready, MakeTaint("example.com/other", "", TaintEffect::kNoSchedule)}),
              FakeCatalog(4));
    INFO(Describe(r));
    CHECK(PlacementOf(r, K("web")) == nullptr);
    CHECK(Claim(r, "web").pods.size() == 1);
  }
  SECTION("initialized managed node: not-ready counts") {
    SolveResult r = Solve(snapshot(true, true, {not_ready}), FakeCatalog(4));
    INFO(Describe(r));
    CHECK(PlacementOf(r, K("web")) == nullptr);
    CHECK(Claim(r, "web").pods.size() == 1);
  }
  SECTION("unmanaged node: not-ready counts") {
    SolveResult r = Solve(snapshot(true, false, {not_ready}), FakeCatalog(4));
    INFO(Describe(r));
    CHECK(PlacementOf(r, K("web")) == nullptr);
    CHECK(Claim(r, "web").pods.size() == 1);
  }
}

// ---------------------------------------------------------------------------------------------
// NodePool order (docs/design.md §5.3 step 5, §5.8 step 5)

TEST_CASE("the heaviest NodePool that can take a pod wins, ties by name descending",
          "[scheduler]") {
  SECTION("weight") {
    SolveResult r =
        Solve(Snap({MakeNodePool("low", {}, {}, {}, 10), MakeNodePool("high", {}, {}, {}, 50)},
                   {MakePod("web", "1")}),
              FakeCatalog(4));
    const NewNodeClaim& nc = Claim(r, "web");
    CHECK(nc.node_pool == "high");
    CHECK(nc.name == "high-1");
  }
  SECTION("equal weights: reverse name order") {
    SolveResult r = Solve(
        Snap({MakeNodePool("alpha"), MakeNodePool("beta")}, {MakePod("web", "1")}), FakeCatalog(4));
    CHECK(Claim(r, "web").node_pool == "beta");
  }
  SECTION("unset weight ranks below the lowest weight") {
    SolveResult r = Solve(
        Snap({MakeNodePool("alpha", {}, {}, {}, 1), MakeNodePool("beta")}, {MakePod("web", "1")}),
        FakeCatalog(4));
    CHECK(Claim(r, "web").node_pool == "alpha");
  }
  SECTION("falls back to a lighter NodePool when the heavier one is incompatible") {
    SolveResult r =
        Solve(Snap({MakeNodePool("high", {Expr(kZoneKey, Operator::kIn, {kZ1})}, {}, {}, 50),
                    MakeNodePool("low", {}, {}, {}, 10)},
                   {MakePod("anywhere", "1"), MakePod("pinned", "1").NodeSelector(kZoneKey, kZ2)}),
              FakeCatalog(4));
    INFO(Describe(r));
    CHECK(Claim(r, "anywhere").node_pool == "high");
    CHECK(Claim(r, "anywhere").name == "high-1");
    CHECK(Claim(r, "pinned").node_pool == "low");
    CHECK(Claim(r, "pinned").name == "low-1");
  }
}

// ---------------------------------------------------------------------------------------------
// Limits (docs/design.md §5.8 step 5, §5.11)

TEST_CASE("NodePool limits", "[scheduler]") {
  SECTION("a cpu limit drops the instance types whose capacity exceeds it") {
    SolveResult r = Solve(
        Snap({MakeNodePool("default", {}, {}, Res({{"cpu", "4"}}))}, {MakePod("web", "500m")}),
        FakeCatalog(8));
    CHECK(Claim(r, "web").instance_types == FakeNames(0, 3));
  }
  SECTION("each planned claim consumes the limit by its largest type") {
    // The first claim can only be fake-it-3 (cpu 4): the remaining cpu is 0.
    SolveResult r = Solve(Snap({MakeNodePool("default", {}, {}, Res({{"cpu", "4"}}))},
                               {MakePod("a", "3"), MakePod("b", "3")}),
                          FakeCatalog(8));
    INFO(Describe(r));
    CHECK(Claim(r, "a").instance_types == std::vector<std::string>{"fake-it-3"});
    const std::string e = Error(r, "b");
    CHECK(e.find("all available instance types exceed limits for nodepool") != std::string::npos);
    CHECK(e.find("default") != std::string::npos);
    CHECK(e.find("incompatible") == std::string::npos);
  }
  SECTION("a limit below every type's capacity") {
    SolveResult r = Solve(
        Snap({MakeNodePool("default", {}, {}, Res({{"cpu", "500m"}}))}, {MakePod("web", "100m")}),
        FakeCatalog(8));
    CHECK(r.node_claims.empty());
    CHECK(Error(r, "web").find("all available instance types exceed limits for nodepool") !=
          std::string::npos);
  }
  SECTION("existing nodes of the pool count against the limit") {
    ClusterSnapshot snap =
        Snap({MakeNodePool("default", {}, {}, Res({{"cpu", "10"}}))}, {MakePod("web", "500m")});
    snap.nodes.push_back(MakeNode("full", "8", "16Gi", 80,
                                  ManagedNodeLabels("default", "fake-it-7", kZ1),
                                  {MakeTaint("example.com/busy")}));
    SolveResult r = Solve(snap, FakeCatalog(8));
    CHECK(Claim(r, "web").instance_types == FakeNames(0, 1));
  }
  SECTION("nodes limit exhausted by existing nodes") {
    ClusterSnapshot snap =
        Snap({MakeNodePool("default", {}, {}, Res({{"nodes", "1"}}))}, {MakePod("web", "2")});
    snap.nodes.push_back(
        MakeNode("small", "1", "2Gi", 10, ManagedNodeLabels("default", "fake-it-0", kZ1)));
    SolveResult r = Solve(snap, FakeCatalog(8));
    CHECK(r.node_claims.empty());
    const std::string e = Error(r, "web");
    CHECK(StartsWith(e, "node limits have been exhausted for nodepool"));
    CHECK(e.find("default") != std::string::npos);
  }
  SECTION("claims planned in one solve do not decrement the nodes limit") {
    std::vector<Pod> pods;
    for (int i = 0; i < 3; ++i) {
      pods.push_back(MakePod("etcd-" + std::to_string(i), "1")
                         .Label("app", "etcd")
                         .AntiAffinity(kHostKey, {{"app", "etcd"}}));
    }
    SolveResult r =
        Solve(Snap({MakeNodePool("default", {}, {}, Res({{"nodes", "1"}}))}, pods), FakeCatalog(8));
    INFO(Describe(r));
    CHECK(r.node_claims.size() == 3);
    CHECK(r.pod_errors.empty());
  }
}

// ---------------------------------------------------------------------------------------------
// Requirements (docs/design.md §1.7, §1.9, §5.10)

TEST_CASE("custom label keys must be defined by the NodePool for positive selectors",
          "[scheduler]") {
  SECTION("undefined key: In and Exists fail, NotIn and DoesNotExist pass") {
    SolveResult r =
        Solve(Snap({MakeNodePool("default")},
                   {MakePod("in", "1").NodeSelector(kTeam, "a"),
                    MakePod("exists", "1").RequiredTerm({Expr(kTeam, Operator::kExists)}),
                    MakePod("notin", "1").RequiredTerm({Expr(kTeam, Operator::kNotIn, {"a"})}),
                    MakePod("dne", "1").RequiredTerm({Expr(kTeam, Operator::kDoesNotExist)})}),
              FakeCatalog(4));
    INFO(Describe(r));
    CHECK(Error(r, "in") ==
          "incompatible with nodepool \"default\", incompatible requirements, label "
          "\"example.com/team\" does not have known values");
    CHECK(Error(r, "exists").find("does not have known values") != std::string::npos);
    CHECK(Scheduled(r, "notin"));
    CHECK(Scheduled(r, "dne"));
  }
  SECTION("key defined by a NodePool requirement") {
    SolveResult r =
        Solve(Snap({MakeNodePool("default", {Expr(kTeam, Operator::kIn, {"a", "b"})})},
                   {MakePod("in-a", "1").NodeSelector(kTeam, "a"),
                    MakePod("in-c", "1").NodeSelector(kTeam, "c"),
                    MakePod("notin-a", "1").RequiredTerm({Expr(kTeam, Operator::kNotIn, {"a"})}),
                    MakePod("exists", "1").RequiredTerm({Expr(kTeam, Operator::kExists)}),
                    MakePod("dne", "1").RequiredTerm({Expr(kTeam, Operator::kDoesNotExist)})}),
              FakeCatalog(8));
    INFO(Describe(r));
    const NewNodeClaim& a = Claim(r, "in-a");
    CHECK(InValues(a, kTeam) == std::vector<std::string>{"a"});
    CHECK(a.labels.at(kTeam) == "a");
    CHECK(Error(r, "in-c").find("incompatible requirements, key example.com/team") !=
          std::string::npos);
    const NewNodeClaim& b = Claim(r, "notin-a");
    CHECK(InValues(b, kTeam) == std::vector<std::string>{"b"});
    CHECK(b.labels.at(kTeam) == "b");
    CHECK(Scheduled(r, "exists"));
    CHECK(Error(r, "dne").find("incompatible") != std::string::npos);
  }
  SECTION("key defined by a template label") {
    NodePool pool = MakeNodePool("default");
    pool.template_labels[kTeam] = "a";
    SolveResult r = Solve(Snap({pool}, {MakePod("a", "1").NodeSelector(kTeam, "a"),
                                        MakePod("b", "1").NodeSelector(kTeam, "b")}),
                          FakeCatalog(4));
    INFO(Describe(r));
    CHECK(Claim(r, "a").labels.at(kTeam) == "a");
    CHECK(Error(r, "b").find("incompatible") != std::string::npos);
  }
}

TEST_CASE("well-known keys may be constrained though the NodePool does not mention them",
          "[scheduler]") {
  SolveResult r = Solve(
      Snap({MakeNodePool("default")}, {MakePod("z2", "1").NodeSelector(kZoneKey, kZ2),
                                       MakePod("od", "1").NodeSelector(kCapKey, "on-demand")}),
      FakeCatalog(2));
  INFO(Describe(r));
  const NewNodeClaim& z2 = Claim(r, "z2");
  CHECK(InValues(z2, kZoneKey) == std::vector<std::string>{kZ2});
  REQUIRE(z2.launch.has_value());
  CHECK(z2.launch->zone == kZ2);
  CHECK(z2.launch->capacity_type == "spot");
  const NewNodeClaim& od = Claim(r, "od");
  CHECK(InValues(od, kCapKey) == std::vector<std::string>{"on-demand"});
  REQUIRE(od.launch.has_value());
  CHECK(od.launch->capacity_type == "on-demand");
}

TEST_CASE("a NodePool zone requirement rejects pods selecting another zone", "[scheduler]") {
  SolveResult r = Solve(Snap({MakeNodePool("default", {Expr(kZoneKey, Operator::kIn, {kZ1})})},
                             {MakePod("web", "1").NodeSelector(kZoneKey, kZ2)}),
                        FakeCatalog(4));
  CHECK(Error(r, "web") ==
        "incompatible with nodepool \"default\", incompatible requirements, key "
        "topology.kubernetes.io/zone, topology.kubernetes.io/zone In [test-zone-2] not in "
        "topology.kubernetes.io/zone In [test-zone-1]");
}

TEST_CASE("Gt, Lt and NotIn select instance types by label", "[scheduler]") {
  SolveResult r =
      Solve(Snap({MakeNodePool("default")},
                 {MakePod("big", "100m").RequiredTerm({Expr("integer", Operator::kGt, {"4"})}),
                  MakePod("small", "100m").RequiredTerm({Expr("integer", Operator::kLt, {"3"})})}),
            FakeCatalog(8));
  INFO(Describe(r));
  CHECK(r.node_claims.size() == 2);  // integer >= 5 and <= 2 cannot share a claim
  CHECK(Claim(r, "big").instance_types == FakeNames(4, 7));
  CHECK(Claim(r, "small").instance_types == FakeNames(0, 1));

  SolveResult n = Solve(
      Snap({MakeNodePool("default")},
           {MakePod("notin", "100m")
                .RequiredTerm({Expr(kTypeKey, Operator::kNotIn, {"fake-it-0", "fake-it-1"})})}),
      FakeCatalog(8));
  const NewNodeClaim& nc = Claim(n, "notin");
  CHECK(nc.instance_types == FakeNames(2, 7));
  REQUIRE(nc.launch.has_value());
  CHECK(nc.launch->instance_type == "fake-it-2");
}

TEST_CASE("multi-valued instance-type requirements: the os requirement of fake types",
          "[scheduler]") {
  // kubernetes.io/os is a multi-valued requirement of every fake type ({darwin, linux,
  // windows}); a pod selecting windows is compatible, one selecting ios is not.
  SolveResult r =
      Solve(Snap({MakeNodePool("default")},
                 {MakePod("win", "1").NodeSelector(std::string(karp::kLabelOs), "windows"),
                  MakePod("ios", "1").NodeSelector(std::string(karp::kLabelOs), "ios")}),
            FakeCatalog(2));
  INFO(Describe(r));
  CHECK(InValues(Claim(r, "win"), std::string(karp::kLabelOs)) ==
        std::vector<std::string>{"windows"});
  CHECK(
      StartsWith(Error(r, "ios"),
                 "incompatible with nodepool \"default\", no instance type met all requirements"));
}

// ---------------------------------------------------------------------------------------------
// Preferences (docs/design.md §1.9, §5.7)

TEST_CASE("under Respect the heaviest preferred node-affinity term is a requirement",
          "[scheduler]") {
  Pod pod = MakePod("web", "1")
                .PreferredTerm(10, {Expr(kZoneKey, Operator::kIn, {kZ2})})
                .PreferredTerm(50, {Expr(kZoneKey, Operator::kIn, {kZ3})});
  SECTION("Respect") {
    SolveResult r = Solve(Snap({MakeNodePool("default")}, {pod}), FakeCatalog(4));
    const NewNodeClaim& nc = Claim(r, "web");
    CHECK(InValues(nc, kZoneKey) == std::vector<std::string>{kZ3});
    REQUIRE(nc.launch.has_value());
    CHECK(nc.launch->zone == kZ3);
    CHECK(nc.launch->capacity_type == "on-demand");  // no spot offering in test-zone-3
  }
  SECTION("Ignore") {
    SchedulerOptions options;
    options.preference_policy = karp::PreferencePolicy::kIgnore;
    SolveResult r = Solve(Snap({MakeNodePool("default")}, {pod}), FakeCatalog(4), options);
    const NewNodeClaim& nc = Claim(r, "web");
    CHECK_FALSE(nc.requirements.Has(kZoneKey));
    REQUIRE(nc.launch.has_value());
    CHECK(nc.launch->zone == kZ1);
    CHECK(nc.launch->capacity_type == "spot");
  }
}

TEST_CASE("unsatisfiable preferences are dropped heaviest first", "[scheduler]") {
  SECTION("the only preferred term is unsatisfiable") {
    SolveResult r = Solve(
        Snap({MakeNodePool("default")},
             {MakePod("web", "1").PreferredTerm(50, {Expr(kZoneKey, Operator::kIn, {"nowhere"})})}),
        FakeCatalog(4));
    const NewNodeClaim& nc = Claim(r, "web");
    CHECK_FALSE(nc.requirements.Has(kZoneKey));
    CHECK(r.pod_errors.empty());
  }
  SECTION("the lighter term applies once the heavier is dropped") {
    SolveResult r =
        Solve(Snap({MakeNodePool("default")},
                   {MakePod("web", "1")
                        .PreferredTerm(10, {Expr(kZoneKey, Operator::kIn, {kZ2})})
                        .PreferredTerm(50, {Expr(kZoneKey, Operator::kIn, {"nowhere"})})}),
              FakeCatalog(4));
    const NewNodeClaim& nc = Claim(r, "web");
    CHECK(InValues(nc, kZoneKey) == std::vector<std::string>{kZ2});
  }
  SECTION("preferred pod affinity and anti-affinity are soft") {
    SolveResult r =
        Solve(Snap({MakeNodePool("default")},
                   {MakePod("lonely", "1").PreferredAffinity(50, kHostKey, {{"app", "missing"}}),
                    MakePod("needy", "1").Affinity(kHostKey, {{"app", "missing"}})}),
              FakeCatalog(4));
    INFO(Describe(r));
    CHECK(Scheduled(r, "lonely"));
    CHECK(Error(r, "needy").find("unsatisfiable topology constraint for pod affinity") !=
          std::string::npos);
  }
}

TEST_CASE("required node-affinity terms are tried in order", "[scheduler]") {
  SECTION("first term satisfiable: it is used even though the second is too") {
    SolveResult r = Solve(Snap({MakeNodePool("default")},
                               {MakePod("web", "1")
                                    .RequiredTerm({Expr(kZoneKey, Operator::kIn, {kZ1})})
                                    .RequiredTerm({Expr(kZoneKey, Operator::kIn, {kZ2})})}),
                          FakeCatalog(4));
    CHECK(InValues(Claim(r, "web"), kZoneKey) == std::vector<std::string>{kZ1});
  }
  SECTION("first term unsatisfiable: the next term is used") {
    SolveResult r = Solve(Snap({MakeNodePool("default")},
                               {MakePod("web", "1")
                                    .RequiredTerm({Expr(kZoneKey, Operator::kIn, {"nowhere"})})
                                    .RequiredTerm({Expr(kZoneKey, Operator::kIn, {kZ2})})}),
                          FakeCatalog(4));
    CHECK(InValues(Claim(r, "web"), kZoneKey) == std::vector<std::string>{kZ2});
  }
  SECTION("a single unsatisfiable term is never dropped") {
    SolveResult r = Solve(
        Snap({MakeNodePool("default")},
             {MakePod("web", "1").RequiredTerm({Expr(kZoneKey, Operator::kIn, {"nowhere"})})}),
        FakeCatalog(4));
    CHECK(r.node_claims.empty());
    CHECK(Error(r, "web").find("incompatible with nodepool \"default\"") != std::string::npos);
  }
  SECTION("Ignore still walks the required terms") {
    SchedulerOptions options;
    options.preference_policy = karp::PreferencePolicy::kIgnore;
    SolveResult r = Solve(Snap({MakeNodePool("default")},
                               {MakePod("web", "1")
                                    .RequiredTerm({Expr(kZoneKey, Operator::kIn, {"nowhere"})})
                                    .RequiredTerm({Expr(kZoneKey, Operator::kIn, {kZ3})})}),
                          FakeCatalog(4), options);
    CHECK(InValues(Claim(r, "web"), kZoneKey) == std::vector<std::string>{kZ3});
  }
}

// ---------------------------------------------------------------------------------------------
// Topology spread (docs/design.md §5.12)

namespace {

// Pods per zone over the new claims, requiring every claim holding one of `pods` to be pinned
// to a single zone that its launch uses.
std::map<std::string, int> ZoneCounts(const SolveResult& r, const std::vector<std::string>& pods) {
  std::map<std::string, int> counts;
  for (const std::string& p : pods) {
    const NewNodeClaim& nc = Claim(r, p);
    std::vector<std::string> zones = InValues(nc, kZoneKey);
    INFO("claim " << nc.name << " of " << p);
    REQUIRE(zones.size() == 1);
    REQUIRE(nc.launch.has_value());
    CHECK(nc.launch->zone == zones[0]);
    ++counts[zones[0]];
  }
  return counts;
}

std::vector<Pod> SpreadPods(const std::string& prefix, int n, const std::string& cpu,
                            karp::TopologySpreadConstraint tsc) {
  std::vector<Pod> pods;
  for (int i = 0; i < n; ++i) {
    pods.push_back(MakePod(prefix + "-" + std::to_string(i), cpu).Label("app", prefix).Spread(tsc));
  }
  return pods;
}

std::vector<std::string> Names(const std::string& prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + "-" + std::to_string(i));
  return out;
}

}  // namespace

TEST_CASE("zonal spread with maxSkew 1 balances pods over the three zones", "[scheduler]") {
  SolveResult r =
      Solve(Snap({MakeNodePool("default")},
                 SpreadPods("web", 6, "500m", SpreadConstraint(kZoneKey, 1, {{"app", "web"}}))),
            FakeCatalog(4));
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  std::map<std::string, int> counts = ZoneCounts(r, Names("web", 6));
  CHECK(counts == std::map<std::string, int>{{kZ1, 2}, {kZ2, 2}, {kZ3, 2}});
}

TEST_CASE("hostname spread bounds the matching pods per claim by maxSkew", "[scheduler]") {
  SECTION("maxSkew 1: one pod per claim") {
    SolveResult r =
        Solve(Snap({MakeNodePool("default")},
                   SpreadPods("web", 4, "100m", SpreadConstraint(kHostKey, 1, {{"app", "web"}}))),
              FakeCatalog(8));
    INFO(Describe(r));
    REQUIRE(r.node_claims.size() == 4);
    for (const NewNodeClaim& nc : r.node_claims) CHECK(nc.pods.size() == 1);
  }
  SECTION("maxSkew 2: two pods per claim") {
    SolveResult r =
        Solve(Snap({MakeNodePool("default")},
                   SpreadPods("web", 4, "100m", SpreadConstraint(kHostKey, 2, {{"app", "web"}}))),
              FakeCatalog(8));
    INFO(Describe(r));
    REQUIRE(r.node_claims.size() == 2);
    for (const NewNodeClaim& nc : r.node_claims) CHECK(nc.pods.size() == 2);
  }
  SECTION("pods the selector does not match are not limited") {
    std::vector<Pod> pods =
        SpreadPods("web", 2, "100m", SpreadConstraint(kHostKey, 1, {{"app", "other"}}));
    SolveResult r = Solve(Snap({MakeNodePool("default")}, pods), FakeCatalog(8));
    CHECK(r.node_claims.size() == 1);
  }
}

TEST_CASE("minDomains larger than the available zones caps each zone at maxSkew", "[scheduler]") {
  NodePool pool = MakeNodePool("default", {Expr(kZoneKey, Operator::kIn, {kZ1, kZ2})});
  karp::TopologySpreadConstraint tsc = SpreadConstraint(kZoneKey, 1, {{"app", "db"}});
  SECTION("minDomains 3 over two zones: the third pod is unschedulable") {
    tsc.min_domains = 3;
    SolveResult r = Solve(Snap({pool}, SpreadPods("db", 3, "1", tsc)), FakeCatalog(4));
    INFO(Describe(r));
    std::map<std::string, int> counts = ZoneCounts(r, {"db-0", "db-1"});
    CHECK(counts == std::map<std::string, int>{{kZ1, 1}, {kZ2, 1}});
    CHECK(Error(r, "db-2").find("unsatisfiable topology constraint for topology spread") !=
          std::string::npos);
  }
  SECTION("without minDomains all three schedule") {
    SolveResult r = Solve(Snap({pool}, SpreadPods("db", 3, "1", tsc)), FakeCatalog(4));
    INFO(Describe(r));
    CHECK(r.pod_errors.empty());
    std::map<std::string, int> counts = ZoneCounts(r, Names("db", 3));
    CHECK(counts.size() == 2);
  }
}

TEST_CASE("DoNotSchedule spread counts existing pods, ScheduleAnyway is relaxed", "[scheduler]") {
  // One matching pod fills a node in test-zone-1; the NodePool only offers test-zone-2.
  auto snapshot = [](WhenUnsatisfiable when) {
    karp::TopologySpreadConstraint tsc = SpreadConstraint(kZoneKey, 1, {{"app", "web"}}, when);
    ClusterSnapshot snap = Snap({MakeNodePool("default", {Expr(kZoneKey, Operator::kIn, {kZ2})})},
                                {MakePod("web-0", "2").Label("app", "web").BoundTo("worker-z1"),
                                 MakePod("web-1", "1200m").Label("app", "web").Spread(tsc),
                                 MakePod("web-2", "1100m").Label("app", "web").Spread(tsc),
                                 MakePod("web-3", "1").Label("app", "web").Spread(tsc)});
    snap.nodes.push_back(
        MakeNode("worker-z1", "2", "8Gi", 110, {{kZoneKey, kZ1}, {kArchKey, "amd64"}}));
    return snap;
  };
  SECTION("DoNotSchedule") {
    SolveResult r = Solve(snapshot(WhenUnsatisfiable::kDoNotSchedule), FakeCatalog(4));
    INFO(Describe(r));
    CHECK(ZoneCounts(r, {"web-1", "web-2"}) == std::map<std::string, int>{{kZ2, 2}});
    CHECK(Error(r, "web-3")
              .find("unsatisfiable topology constraint for topology spread, key=" + kZoneKey) !=
          std::string::npos);
  }
  SECTION("ScheduleAnyway") {
    SolveResult r = Solve(snapshot(WhenUnsatisfiable::kScheduleAnyway), FakeCatalog(4));
    INFO(Describe(r));
    CHECK(r.pod_errors.empty());
    CHECK(InValues(Claim(r, "web-3"), kZoneKey) == std::vector<std::string>{kZ2});
  }
}

TEST_CASE("nodeTaintsPolicy Honor leaves domains of untolerated NodePools out", "[scheduler]") {
  // "tainted" offers test-zone-2 behind a taint the pods do not tolerate; "general" offers
  // test-zone-1. Ignore counts test-zone-2 as an empty domain; Honor does not.
  std::vector<NodePool> pools = {
      MakeNodePool("general", {Expr(kZoneKey, Operator::kIn, {kZ1})}),
      MakeNodePool("tainted", {Expr(kZoneKey, Operator::kIn, {kZ2})},
                   {MakeTaint("dedicated", "x", TaintEffect::kNoSchedule)})};
  karp::TopologySpreadConstraint tsc = SpreadConstraint(kZoneKey, 1, {{"app", "web"}});
  SECTION("Ignore (default)") {
    SolveResult r = Solve(Snap(pools, SpreadPods("web", 2, "500m", tsc)), FakeCatalog(4));
    INFO(Describe(r));
    CHECK(ZoneCounts(r, {"web-0"}) == std::map<std::string, int>{{kZ1, 1}});
    CHECK(Error(r, "web-1").find("unsatisfiable topology constraint") != std::string::npos);
  }
  SECTION("Honor") {
    tsc.node_taints_policy = karp::NodeInclusionPolicy::kHonor;
    SolveResult r = Solve(Snap(pools, SpreadPods("web", 2, "500m", tsc)), FakeCatalog(4));
    INFO(Describe(r));
    CHECK(r.pod_errors.empty());
    CHECK(ZoneCounts(r, Names("web", 2)) == std::map<std::string, int>{{kZ1, 2}});
  }
}

// ---------------------------------------------------------------------------------------------
// Pod affinity and anti-affinity (docs/design.md §5.12)

TEST_CASE("hostname pod affinity colocates, even when the follower is queued first",
          "[scheduler]") {
  // cache is bigger, so it is tried first, fails (no db anywhere), and succeeds on retry.
  SolveResult r = Solve(
      Snap({MakeNodePool("default")}, {MakePod("db", "1").Label("app", "db"),
                                       MakePod("cache", "2").Affinity(kHostKey, {{"app", "db"}})}),
      FakeCatalog(8));
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  REQUIRE(r.node_claims.size() == 1);
  CHECK(Claim(r, "db").name == Claim(r, "cache").name);
}

TEST_CASE("zonal pod affinity follows a pod pinned to a zone", "[scheduler]") {
  std::vector<Pod> pods = {MakePod("api", "3").Label("app", "api").NodeSelector(kZoneKey, kZ2)};
  for (int i = 0; i < 3; ++i) {
    pods.push_back(
        MakePod("worker-" + std::to_string(i), "2").Affinity(kZoneKey, {{"app", "api"}}));
  }
  SolveResult r = Solve(Snap({MakeNodePool("default")}, pods), FakeCatalog(4));
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  CHECK(ZoneCounts(r, {"api", "worker-0", "worker-1", "worker-2"}) ==
        std::map<std::string, int>{{kZ2, 4}});
}

TEST_CASE("self-selecting pod affinity bootstraps one domain for the whole group", "[scheduler]") {
  SECTION("zone") {
    // 1 cpu pods on types of at most 1900m: one pod per claim, all in one zone.
    std::vector<Pod> pods;
    for (int i = 0; i < 3; ++i) {
      pods.push_back(MakePod("web-" + std::to_string(i), "1")
                         .Label("app", "web")
                         .Affinity(kZoneKey, {{"app", "web"}}));
    }
    SolveResult r = Solve(Snap({MakeNodePool("default")}, pods), FakeCatalog(2));
    INFO(Describe(r));
    CHECK(r.pod_errors.empty());
    CHECK(r.node_claims.size() == 3);
    CHECK(ZoneCounts(r, Names("web", 3)).size() == 1);
  }
  SECTION("hostname") {
    std::vector<Pod> pods;
    for (int i = 0; i < 3; ++i) {
      pods.push_back(MakePod("web-" + std::to_string(i), "500m")
                         .Label("app", "web")
                         .Affinity(kHostKey, {{"app", "web"}}));
    }
    SolveResult r = Solve(Snap({MakeNodePool("default")}, pods), FakeCatalog(8));
    INFO(Describe(r));
    CHECK(r.pod_errors.empty());
    CHECK(r.node_claims.size() == 1);
  }
}

TEST_CASE("hostname anti-affinity puts each replica on its own claim", "[scheduler]") {
  std::vector<Pod> pods;
  for (int i = 0; i < 3; ++i) {
    pods.push_back(MakePod("etcd-" + std::to_string(i), "500m")
                       .Label("app", "etcd")
                       .AntiAffinity(kHostKey, {{"app", "etcd"}}));
  }
  SolveResult r = Solve(Snap({MakeNodePool("default")}, pods), FakeCatalog(8));
  INFO(Describe(r));
  REQUIRE(r.node_claims.size() == 3);
  for (const NewNodeClaim& nc : r.node_claims) CHECK(nc.pods.size() == 1);
}

TEST_CASE("anti-affinity of bound pods keeps matching pods off their node", "[scheduler]") {
  ClusterSnapshot snap =
      Snap({MakeNodePool("default")},
           {MakePod("guard", "500m").AntiAffinity(kHostKey, {{"app", "web"}}).BoundTo("worker"),
            MakePod("web", "1").Label("app", "web"), MakePod("other", "1").Label("app", "batch")});
  snap.nodes.push_back(MakeNode("worker", "8", "16Gi"));
  SolveResult r = Solve(snap, FakeCatalog(8));
  INFO(Describe(r));
  CHECK(Claim(r, "web").pods.size() == 1);
  REQUIRE(PlacementOf(r, K("other")) != nullptr);
  CHECK(PlacementOf(r, K("other"))->name == "worker");
}

TEST_CASE("a pending pod's anti-affinity avoids nodes with matching bound pods", "[scheduler]") {
  ClusterSnapshot snap =
      Snap({MakeNodePool("default")},
           {MakePod("running", "500m").Label("app", "web").BoundTo("worker"),
            MakePod("web", "1").Label("app", "web").AntiAffinity(kHostKey, {{"app", "web"}})});
  snap.nodes.push_back(MakeNode("worker", "8", "16Gi"));
  SolveResult r = Solve(snap, FakeCatalog(8));
  INFO(Describe(r));
  CHECK(PlacementOf(r, K("web")) == nullptr);
  CHECK(Claim(r, "web").pods.size() == 1);
}

TEST_CASE("zonal anti-affinity needs a zone without matching pods", "[scheduler]") {
  auto zonal = [](const std::string& name, const std::string& zone) {
    return MakePod(name, "2").Label("security", "s2").NodeSelector(kZoneKey, zone).Build();
  };
  Pod loner = MakePod("loner", "100m").AntiAffinity(kZoneKey, {{"security", "s2"}});
  SECTION("every zone taken") {
    SolveResult r =
        Solve(Snap({MakeNodePool("default")},
                   {zonal("zonal-1", kZ1), zonal("zonal-2", kZ2), zonal("zonal-3", kZ3), loner}),
              FakeCatalog(4));
    INFO(Describe(r));
    CHECK(Scheduled(r, "zonal-1"));
    CHECK(Scheduled(r, "zonal-2"));
    CHECK(Scheduled(r, "zonal-3"));
    CHECK(Error(r, "loner").find("unsatisfiable topology constraint for pod anti-affinity") !=
          std::string::npos);
  }
  SECTION("one zone free") {
    SolveResult r = Solve(
        Snap({MakeNodePool("default")}, {zonal("zonal-1", kZ1), zonal("zonal-2", kZ2), loner}),
        FakeCatalog(4));
    INFO(Describe(r));
    CHECK(r.pod_errors.empty());
    const NewNodeClaim& nc = Claim(r, "loner");
    CHECK(nc.pods.size() == 1);
    CHECK(InValues(nc, kZoneKey) == std::vector<std::string>{kZ3});
    REQUIRE(nc.launch.has_value());
    CHECK(nc.launch->zone == kZ3);
    CHECK(nc.launch->capacity_type == "on-demand");
  }
}

// ---------------------------------------------------------------------------------------------
// Host ports (docs/design.md §5.14)

TEST_CASE("host ports conflict on the same port and protocol", "[scheduler]") {
  SECTION("TCP conflicts, UDP on the same port does not") {
    SolveResult r =
        Solve(Snap({MakeNodePool("default")}, {MakePod("ingress-a", "100m").HostPort(80),
                                               MakePod("ingress-b", "100m").HostPort(80),
                                               MakePod("statsd", "100m").HostPort(80, "UDP")}),
              FakeCatalog(8));
    INFO(Describe(r));
    REQUIRE(r.node_claims.size() == 2);
    CHECK(Claim(r, "ingress-a").name != Claim(r, "ingress-b").name);
    CHECK(Scheduled(r, "statsd"));
  }
  SECTION("different host IPs do not conflict, an unspecified IP conflicts with any") {
    SolveResult r = Solve(
        Snap({MakeNodePool("default")}, {MakePod("a", "100m").HostPort(8080, "TCP", "10.0.0.1"),
                                         MakePod("b", "100m").HostPort(8080, "TCP", "10.0.0.2")}),
        FakeCatalog(8));
    CHECK(r.node_claims.size() == 1);
    SolveResult r2 = Solve(
        Snap({MakeNodePool("default")}, {MakePod("a", "100m").HostPort(8080, "TCP", "10.0.0.1"),
                                         MakePod("b", "100m").HostPort(8080, "TCP", "0.0.0.0")}),
        FakeCatalog(8));
    CHECK(r2.node_claims.size() == 2);
  }
  SECTION("ports of bound pods block an existing node") {
    ClusterSnapshot snap =
        Snap({MakeNodePool("default")},
             {MakePod("agent", "100m").HostPort(9100).BoundTo("worker"),
              MakePod("exporter", "100m").HostPort(9100), MakePod("other", "100m").HostPort(9101)});
    snap.nodes.push_back(MakeNode("worker", "8", "16Gi"));
    SolveResult r = Solve(snap, FakeCatalog(8));
    INFO(Describe(r));
    CHECK(Claim(r, "exporter").pods.size() == 1);
    REQUIRE(PlacementOf(r, K("other")) != nullptr);
    CHECK(PlacementOf(r, K("other"))->name == "worker");
  }
  SECTION("init container ports are ignored") {
    Pod a = MakePod("a", "100m").HostPort(80);
    Pod b = MakePod("b", "100m").InitContainer("100m");
    b.init_containers[0].ports.push_back({80, 80, "TCP", ""});
    SolveResult r = Solve(Snap({MakeNodePool("default")}, {a, b}), FakeCatalog(8));
    CHECK(r.node_claims.size() == 1);
  }
}

// ---------------------------------------------------------------------------------------------
// DaemonSet overhead (docs/design.md §2.4, §5.10, §5.16)

TEST_CASE("DaemonSet overhead is counted per claim and in its requests", "[scheduler]") {
  ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("app", "1", "1Gi")});
  SECTION("without DaemonSets") {
    SolveResult r = Solve(snap, FakeCatalog(8));
    const NewNodeClaim& nc = Claim(r, "app");
    CHECK(nc.instance_types == FakeNames(1, 7));
    CHECK(nc.requests == Resources("1", "1Gi", 1));
  }
  SECTION("a DaemonSet that runs everywhere") {
    snap.daemon_sets.push_back(MakeDaemonSet("logger", MakePod("logger", "1", "512Mi")));
    SolveResult r = Solve(snap, FakeCatalog(8));
    const NewNodeClaim& nc = Claim(r, "app");
    CHECK(nc.instance_types == FakeNames(2, 7));  // 2 cpu no longer fits fake-it-1 (1900m)
    CHECK(nc.requests == Resources("2", "1536Mi", 2));
    REQUIRE(nc.launch.has_value());
    CHECK(nc.launch->instance_type == "fake-it-2");
  }
  SECTION("a DaemonSet that does not tolerate the NodePool taint is not counted") {
    snap.node_pools[0].taints = {MakeTaint("dedicated", "app", TaintEffect::kNoSchedule)};
    snap.pods[0].tolerations.push_back(TolerateExists("dedicated"));
    snap.daemon_sets.push_back(MakeDaemonSet("logger", MakePod("logger", "1", "512Mi")));
    SolveResult r = Solve(snap, FakeCatalog(8));
    const NewNodeClaim& nc = Claim(r, "app");
    CHECK(nc.instance_types == FakeNames(1, 7));
    CHECK(nc.requests == Resources("1", "1Gi", 1));
  }
  SECTION("a DaemonSet selecting another architecture is not counted") {
    snap.daemon_sets.push_back(
        MakeDaemonSet("arm-agent", MakePod("arm-agent", "1").NodeSelector(kArchKey, "arm64")));
    SolveResult r = Solve(snap, FakeCatalog(8));
    CHECK(Claim(r, "app").instance_types == FakeNames(1, 7));
  }
  SECTION("a DaemonSet whose first required term fails is retried with the next") {
    snap.daemon_sets.push_back(
        MakeDaemonSet("agent", MakePod("agent", "1")
                                   .RequiredTerm({Expr(kArchKey, Operator::kIn, {"arm64"})})
                                   .RequiredTerm({Expr(kArchKey, Operator::kIn, {"amd64"})})));
    SolveResult r = Solve(snap, FakeCatalog(8));
    CHECK(Claim(r, "app").instance_types == FakeNames(2, 7));
  }
  SECTION("DaemonSets selecting template labels") {
    snap.node_pools[0].template_labels[kTeam] = "a";
    snap.daemon_sets.push_back(
        MakeDaemonSet("team-a", MakePod("team-a", "1").NodeSelector(kTeam, "a")));
    snap.daemon_sets.push_back(
        MakeDaemonSet("team-b", MakePod("team-b", "1").NodeSelector(kTeam, "b")));
    SolveResult r = Solve(snap, FakeCatalog(8));
    const NewNodeClaim& nc = Claim(r, "app");
    CHECK(nc.instance_types == FakeNames(2, 7));  // team-a only
    CHECK(nc.requests == Resources("2", "1Gi", 2));
  }
  SECTION("a DaemonSet on some types only: requests carry the smallest overhead") {
    // Only size=large types (fake-it-4 and up) run the DaemonSet.
    snap.daemon_sets.push_back(
        MakeDaemonSet("big-agent", MakePod("big-agent", "2").NodeSelector("size", "large")));
    SolveResult r = Solve(snap, FakeCatalog(8));
    const NewNodeClaim& nc = Claim(r, "app");
    CHECK(nc.instance_types == FakeNames(1, 7));
    CHECK(nc.requests == Resources("1", "1Gi", 1));
  }
  SECTION("existing nodes reserve room for DaemonSet pods not yet running there") {
    ClusterSnapshot s2 =
        Snap({MakeNodePool("default")}, {MakePod("big", "1500m"), MakePod("small", "900m")});
    s2.nodes.push_back(MakeNode("worker", "2", "8Gi"));
    s2.daemon_sets.push_back(MakeDaemonSet("logger", MakePod("logger", "1")));
    SolveResult r = Solve(s2, FakeCatalog(8));
    INFO(Describe(r));
    CHECK(Claim(r, "big").pods.size() == 1);
    REQUIRE(PlacementOf(r, K("small")) != nullptr);
    CHECK(PlacementOf(r, K("small"))->name == "worker");
  }
}

TEST_CASE("DaemonSet host ports conflict with pod host ports", "[scheduler]") {
  ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("web", "100m").HostPort(9100)});
  snap.daemon_sets.push_back(MakeDaemonSet("exporter", MakePod("exporter", "100m").HostPort(9100)));
  SolveResult r = Solve(snap, FakeCatalog(4));
  CHECK(r.node_claims.empty());
  CHECK(Error(r, "web").find("incompatible with nodepool \"default\"") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// minValues (docs/design.md §1.10, §5.10, §5.16)

TEST_CASE("minValues: Strict fails a claim that cannot span it, BestEffort relaxes",
          "[scheduler]") {
  // instance-type In [fake-it-0..4] minValues 3; a 3 cpu pod fits only fake-it-3 and fake-it-4.
  NodePool pool =
      MakeNodePool("default", {Expr(kTypeKey, Operator::kIn, FakeNames(0, 4), /*min_values=*/3)});
  SECTION("Strict") {
    SolveResult r =
        Solve(Snap({pool}, {MakePod("big", "3"), MakePod("small", "500m")}), FakeCatalog(8));
    INFO(Describe(r));
    const std::string e = Error(r, "big");
    CHECK(StartsWith(e,
                     "incompatible with nodepool \"default\", "
                     "minValues requirement is not met for label(s)"));
    const NewNodeClaim& nc = Claim(r, "small");
    CHECK(nc.instance_types == FakeNames(0, 4));
    CHECK(nc.annotations.at(std::string(karp::kAnnotationMinValuesRelaxed)) == "false");
  }
  SECTION("BestEffort") {
    SchedulerOptions options;
    options.min_values_policy = karp::MinValuesPolicy::kBestEffort;
    SolveResult r = Solve(Snap({pool}, {MakePod("big", "3")}), FakeCatalog(8), options);
    INFO(Describe(r));
    const NewNodeClaim& nc = Claim(r, "big");
    CHECK(nc.instance_types == FakeNames(3, 4));
    CHECK(nc.annotations.at(std::string(karp::kAnnotationMinValuesRelaxed)) == "true");
    SolveResult small = Solve(Snap({pool}, {MakePod("small", "500m")}), FakeCatalog(8), options);
    CHECK(Claim(small, "small").annotations.at(std::string(karp::kAnnotationMinValuesRelaxed)) ==
          "false");
  }
  SECTION("truncation below minValues drops the claim under Strict") {
    SchedulerOptions options;
    options.max_instance_types = 2;
    SolveResult r = Solve(Snap({pool}, {MakePod("small", "500m")}), FakeCatalog(8), options);
    INFO(Describe(r));
    CHECK(r.node_claims.empty());
    CHECK(StartsWith(Error(r, "small"),
                     "pod didn\u2019t schedule because NodePool couldn\u2019t meet minValues "
                     "requirements, validating minValues, minValues requirement is not met"));
    options.min_values_policy = karp::MinValuesPolicy::kBestEffort;
    SolveResult best = Solve(Snap({pool}, {MakePod("small", "500m")}), FakeCatalog(8), options);
    CHECK(Claim(best, "small").instance_types == FakeNames(0, 1));
  }
}

TEST_CASE("max_instance_types keeps the cheapest types", "[scheduler]") {
  SchedulerOptions options;
  options.max_instance_types = 3;
  SolveResult r =
      Solve(Snap({MakeNodePool("default")}, {MakePod("web", "500m")}), FakeCatalog(10), options);
  const NewNodeClaim& nc = Claim(r, "web");
  CHECK(nc.instance_types == FakeNames(0, 2));
  CHECK(InValues(nc, kTypeKey) == FakeNames(0, 2));
}

// ---------------------------------------------------------------------------------------------
// Launch offering and price order (docs/formats.md §3, docs/design.md §5.16)

namespace {

InstanceType TypeWith(const std::string& name, std::vector<Offering> offerings) {
  return InstanceType::Make(name, {{kArchKey, "amd64"}, {std::string(karp::kLabelOs), "linux"}},
                            Resources("4", "16Gi", 50), karp::Overhead{}, std::move(offerings));
}

Offering Off(const std::string& zone, const std::string& ct, double price, bool available = true) {
  return Offering{zone, ct, price, available, "", 0};
}

// A copy: callers pass temporaries.
NewNodeClaim OnlyClaim(const SolveResult& r) {
  INFO(Describe(r));
  REQUIRE(r.node_claims.size() == 1);
  REQUIRE(r.node_claims[0].launch.has_value());
  return r.node_claims[0];
}

}  // namespace

TEST_CASE("launch picks the cheapest available compatible offering", "[scheduler]") {
  ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("web", "1")});
  SECTION("across types and capacity types") {
    auto cat = MakeCatalog(
        {TypeWith("od-cheap", {Off(kZ1, "on-demand", 0.10), Off(kZ2, "on-demand", 0.10)}),
         TypeWith("spot-cheaper", {Off(kZ1, "spot", 0.05), Off(kZ1, "on-demand", 0.20)})});
    const NewNodeClaim nc = OnlyClaim(Solve(snap, cat));
    CHECK(nc.instance_types == std::vector<std::string>{"spot-cheaper", "od-cheap"});
    CHECK(nc.launch->instance_type == "spot-cheaper");
    CHECK(nc.launch->capacity_type == "spot");
    CHECK(nc.launch->zone == kZ1);
    CHECK(nc.launch->price == 0.05);
  }
  SECTION("unavailable offerings are skipped") {
    auto cat = MakeCatalog({TypeWith("m", {Off(kZ1, "spot", 0.03, false), Off(kZ2, "spot", 0.035),
                                           Off(kZ1, "on-demand", 0.1)})});
    const NewNodeClaim nc = OnlyClaim(Solve(snap, cat));
    CHECK(nc.launch->zone == kZ2);
    CHECK(nc.launch->capacity_type == "spot");
    CHECK(nc.launch->price == 0.035);
  }
  SECTION("price order uses the cheapest offering compatible with the claim") {
    auto cat =
        MakeCatalog({TypeWith("x", {Off(kZ1, "spot", 0.05), Off(kZ2, "on-demand", 0.5)}),
                     TypeWith("y", {Off(kZ1, "on-demand", 0.2), Off(kZ2, "on-demand", 0.2)})});
    const NewNodeClaim any = OnlyClaim(Solve(snap, cat));
    CHECK(any.instance_types == std::vector<std::string>{"x", "y"});
    CHECK(any.launch->instance_type == "x");
    ClusterSnapshot z2 =
        Snap({MakeNodePool("default")}, {MakePod("web", "1").NodeSelector(kZoneKey, kZ2)});
    const NewNodeClaim nc = OnlyClaim(Solve(z2, cat));
    CHECK(nc.instance_types == std::vector<std::string>{"y", "x"});
    CHECK(nc.launch->instance_type == "y");
    CHECK(nc.launch->zone == kZ2);
    CHECK(nc.launch->price == 0.2);
  }
  SECTION("the NodePool's capacity type narrows the offerings") {
    ClusterSnapshot od =
        Snap({MakeNodePool("default", {Expr(kCapKey, Operator::kIn, {"on-demand"})})},
             {MakePod("web", "1")});
    const NewNodeClaim nc = OnlyClaim(Solve(od, FakeCatalog(4)));
    CHECK(nc.launch->instance_type == "fake-it-1");
    CHECK(nc.launch->capacity_type == "on-demand");
    CHECK(nc.launch->zone == kZ1);
    CHECK(InValues(nc, kCapKey) == std::vector<std::string>{"on-demand"});
  }
}

TEST_CASE("launch ties break by capacity type, then type name, then zone", "[scheduler]") {
  ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("web", "1")});
  SECTION("spot before on-demand") {
    auto cat = MakeCatalog({TypeWith("t", {Off(kZ1, "on-demand", 0.1), Off(kZ2, "spot", 0.1)})});
    const NewNodeClaim nc = OnlyClaim(Solve(snap, cat));
    CHECK(nc.launch->capacity_type == "spot");
    CHECK(nc.launch->zone == kZ2);
  }
  SECTION("reserved before spot") {
    Offering reserved = Off(kZ3, "reserved", 0.1);
    reserved.reservation_id = "r-1";
    reserved.reservation_capacity = 5;
    auto cat =
        MakeCatalog({TypeWith("t", {Off(kZ1, "on-demand", 0.1), Off(kZ2, "spot", 0.1), reserved})});
    const NewNodeClaim nc = OnlyClaim(Solve(snap, cat));
    CHECK(nc.launch->capacity_type == "reserved");
    CHECK(nc.launch->zone == kZ3);
  }
  SECTION("then instance type name") {
    auto cat = MakeCatalog(
        {TypeWith("b-type", {Off(kZ1, "spot", 0.1)}), TypeWith("a-type", {Off(kZ2, "spot", 0.1)})});
    const NewNodeClaim nc = OnlyClaim(Solve(snap, cat));
    CHECK(nc.instance_types == std::vector<std::string>{"a-type", "b-type"});
    CHECK(nc.launch->instance_type == "a-type");
    CHECK(nc.launch->zone == kZ2);
  }
  SECTION("then zone name") {
    auto cat = MakeCatalog({TypeWith("t", {Off(kZ3, "spot", 0.1), Off(kZ2, "spot", 0.1)})});
    const NewNodeClaim nc = OnlyClaim(Solve(snap, cat));
    CHECK(nc.launch->zone == kZ2);
  }
}

// ---------------------------------------------------------------------------------------------
// Error messages (docs/design.md §5.8, §5.10, §5.17; docs/formats.md §3)

TEST_CASE("instance-type filter errors name the failing dimension", "[scheduler]") {
  auto run = [](Pod pod) {
    return Solve(Snap({MakeNodePool("default")}, {std::move(pod)}), FakeCatalog(4));
  };
  const std::string np = "incompatible with nodepool \"default\", ";
  SECTION("not enough resources") {
    SolveResult r = run(MakePod("huge", "100"));
    const std::string e = Error(r, "huge");
    CHECK(StartsWith(e, np + "no instance type has enough resources, requirements="));
    CHECK(e.find(", resources={\"cpu\":\"100\",\"pods\":\"1\"}") != std::string::npos);
    CHECK(e.find("m vs M typo") == std::string::npos);
  }
  SECTION("a million cpus hints at an m vs M typo") {
    SolveResult r = run(MakePod("typo", "1M"));
    CHECK(StartsWith(Error(r, "typo"), np + "no instance type has enough resources (CPU request "
                                            ">= 1 Million, m vs M typo?), requirements="));
  }
  SECTION("requirements not met") {
    SolveResult r = run(MakePod("arm", "1").NodeSelector(kArchKey, "arm64"));
    CHECK(StartsWith(Error(r, "arm"), np + "no instance type met all requirements, requirements="));
  }
  SECTION("requirements not met and not enough resources") {
    SolveResult r = run(MakePod("arm", "100").NodeSelector(kArchKey, "arm64"));
    CHECK(StartsWith(Error(r, "arm"), np + "no instance type met the scheduling requirements or "
                                           "had enough resources, requirements="));
  }
  SECTION("nothing at all") {
    SolveResult r = run(MakePod("nowhere", "1").NodeSelector(kZoneKey, "nowhere"));
    CHECK(StartsWith(Error(r, "nowhere"),
                     np + "no instance type met the scheduling requirements or had enough "
                          "resources or had a required offering, requirements="));
  }
  SECTION("no offering, which also means no fit") {
    // Fake types have no spot offering in test-zone-3.
    SolveResult r =
        run(MakePod("spot-z3", "1").NodeSelector(kZoneKey, kZ3).NodeSelector(kCapKey, "spot"));
    CHECK(StartsWith(Error(r, "spot-z3"),
                     np + "no instance type had enough resources or had a required offering"));
  }
  SECTION("types that fit with an offering miss the requirements") {
    auto cat = MakeCatalog(
        {MakeInstanceType("amd-small", "1", "2Gi", 10),
         MakeInstanceType("arm-big", "8", "32Gi", 10, karp::testing::AllZones(), {"on-demand"}, 1.0,
                          {{kArchKey, "arm64"}, {std::string(karp::kLabelOs), "linux"}})});
    SolveResult r = Solve(
        Snap({MakeNodePool("default")}, {MakePod("web", "4").NodeSelector(kArchKey, "amd64")}),
        cat);
    CHECK(StartsWith(Error(r, "web"),
                     np + "no instance type which had enough resources and the required offering "
                          "met the scheduling requirements"));
  }
  SECTION("daemon overhead that differs by type is shown as min and max") {
    ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("huge", "100")});
    snap.daemon_sets.push_back(
        MakeDaemonSet("big-agent", MakePod("big-agent", "1").NodeSelector("size", "large")));
    SolveResult r = Solve(snap, FakeCatalog(8));
    CHECK(Error(r, "huge").find("resources=min={\"cpu\":\"100\",\"pods\":\"1\"}, "
                                "max={\"cpu\":\"101\",\"pods\":\"2\"}") != std::string::npos);
  }
}

TEST_CASE("errors of every NodePool are joined in weight order", "[scheduler]") {
  SolveResult r = Solve(Snap({MakeNodePool("b", {Expr(kZoneKey, Operator::kIn, {kZ1})}, {}, {}, 1),
                              MakeNodePool("a", {}, {MakeTaint("example.com/t")}, {}, 2)},
                             {MakePod("web", "1").NodeSelector(kZoneKey, kZ2)}),
                        FakeCatalog(4));
  CHECK(Error(r, "web") ==
        "incompatible with nodepool \"a\", did not tolerate example.com/t=:NoSchedule; "
        "incompatible with nodepool \"b\", incompatible requirements, key "
        "topology.kubernetes.io/zone, topology.kubernetes.io/zone In [test-zone-2] not in "
        "topology.kubernetes.io/zone In [test-zone-1]");
}

TEST_CASE("pods get an error when no NodePool can launch anything", "[scheduler]") {
  SECTION("no NodePools") {
    SolveResult r = Solve(Snap({}, {MakePod("web", "1")}), FakeCatalog(4));
    CHECK(Error(r, "web") == "no dynamic nodepools found");
  }
  SECTION("static NodePools are not dynamic") {
    NodePool pool = MakeNodePool("static");
    pool.replicas = 3;
    SolveResult r = Solve(Snap({pool}, {MakePod("web", "1")}), FakeCatalog(4));
    CHECK(Error(r, "web") == "no dynamic nodepools found");
  }
  SECTION("NodePool requirements filter out every instance type") {
    SolveResult r = Solve(Snap({MakeNodePool("arm", {Expr(kArchKey, Operator::kIn, {"arm64"})})},
                               {MakePod("web", "1")}),
                          FakeCatalog(4));
    CHECK(Error(r, "web") == "nodepool requirements filtered out all available instance types");
  }
  SECTION("every pod error is reported once, ordered by pod") {
    SolveResult r =
        Solve(Snap({}, {MakePod("c", "1"), MakePod("a", "2"), MakePod("b", "3")}), FakeCatalog(4));
    REQUIRE(r.pod_errors.size() == 3);
    CHECK(r.pod_errors[0].pod == K("a"));
    CHECK(r.pod_errors[1].pod == K("b"));
    CHECK(r.pod_errors[2].pod == K("c"));
  }
}

// ---------------------------------------------------------------------------------------------
// Options and API errors

TEST_CASE("SchedulerOptions::Validate names the bad field", "[scheduler]") {
  CHECK(SchedulerOptions{}.Validate().ok());
  SchedulerOptions o;
  o.max_instance_types = 0;
  absl::Status s = o.Validate();
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(Msg(s).find("max_instance_types") != std::string::npos);
  o.max_instance_types = -5;
  CHECK(o.Validate().code() == absl::StatusCode::kInvalidArgument);
  o.max_instance_types = 1;
  CHECK(o.Validate().ok());
  o.time_limit = absl::ZeroDuration();
  s = o.Validate();
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(Msg(s).find("time_limit") != std::string::npos);
  o.time_limit = absl::Seconds(-1);
  CHECK(o.Validate().code() == absl::StatusCode::kInvalidArgument);
  o.time_limit = absl::Seconds(1);
  CHECK(o.Validate().ok());
}

TEST_CASE("Scheduler::Create and Solve reject invalid input", "[scheduler]") {
  ClusterSnapshot snap = Snap({MakeNodePool("default")}, {MakePod("web", "1")});
  SECTION("invalid options") {
    SchedulerOptions o;
    o.max_instance_types = 0;
    absl::StatusOr<Scheduler> s = Scheduler::Create(snap, FakeCatalog(2), o);
    REQUIRE_FALSE(s.ok());
    CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(Msg(s.status()).find("max_instance_types") != std::string::npos);
  }
  SECTION("null catalog") {
    absl::StatusOr<Scheduler> s = Scheduler::Create(snap, nullptr);
    REQUIRE_FALSE(s.ok());
    CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
  }
  SECTION("invalid snapshot") {
    snap.pods.push_back(MakePod("web", "2"));
    absl::StatusOr<Scheduler> s = Scheduler::Create(snap, FakeCatalog(2));
    REQUIRE_FALSE(s.ok());
    CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
  }
  SECTION("duplicate pods given to Solve") {
    absl::StatusOr<Scheduler> s = Scheduler::Create(snap, FakeCatalog(2));
    REQUIRE(s.ok());
    Pod a = MakePod("dup", "1");
    Pod b = MakePod("dup", "2");
    absl::StatusOr<SolveResult> r = s->Solve({&a, &b});
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  }
  SECTION("Solve of pods outside the snapshot") {
    absl::StatusOr<Scheduler> s = Scheduler::Create(snap, FakeCatalog(4));
    REQUIRE(s.ok());
    Pod extra = MakePod("extra", "1");
    absl::StatusOr<SolveResult> r = s->Solve({&extra});
    REQUIRE(r.ok());
    CHECK(r->pod_count == 1);
    REQUIRE(r->node_claims.size() == 1);
    CHECK(r->node_claims[0].pods == std::vector<std::string>{K("extra")});
    CHECK(s->options().max_instance_types == 600);
  }
}

// ---------------------------------------------------------------------------------------------
// Determinism (docs/design.md §10, scheduler.h)

namespace {

ClusterSnapshot BusySnapshot() {
  std::vector<NodePool> pools = {
      MakeNodePool("general", {}, {}, Res({{"cpu", "64"}}), 10),
      MakeNodePool("spot", {Expr(kCapKey, Operator::kIn, {"spot"})},
                   {MakeTaint("spot", "true", TaintEffect::kPreferNoSchedule)}),
      MakeNodePool("zone3", {Expr(kZoneKey, Operator::kIn, {kZ3})})};
  std::vector<Pod> pods;
  for (int i = 0; i < 12; ++i) {
    pods.push_back(MakePod("web-" + std::to_string(i), "700m", "1Gi")
                       .Label("app", "web")
                       .Spread(SpreadConstraint(kZoneKey, 1, {{"app", "web"}})));
  }
  for (int i = 0; i < 5; ++i) {
    pods.push_back(MakePod("etcd-" + std::to_string(i), "1500m")
                       .Label("app", "etcd")
                       .AntiAffinity(kHostKey, {{"app", "etcd"}}));
  }
  for (int i = 0; i < 10; ++i) {
    pods.push_back(MakePod("batch-" + std::to_string(i), std::to_string(100 * (i + 1)) + "m")
                       .Tolerate(TolerateExists("spot"))
                       .PreferredTerm(10, {Expr(kZoneKey, Operator::kIn, {kZ2})}));
  }
  for (int i = 0; i < 4; ++i) {
    pods.push_back(
        MakePod("cache-" + std::to_string(i), "300m").Affinity(kHostKey, {{"app", "web"}}));
  }
  pods.push_back(MakePod("huge", "500"));
  ClusterSnapshot snap = Snap(pools, pods);
  snap.nodes.push_back(MakeNode("worker", "4", "8Gi", 110, {{kArchKey, "amd64"}, {kZoneKey, kZ1}}));
  snap.pods.push_back(MakePod("old-web", "1").Label("app", "web").BoundTo("worker"));
  snap.daemon_sets.push_back(MakeDaemonSet("logger", MakePod("logger", "100m", "128Mi")));
  return snap;
}

}  // namespace

TEST_CASE("Solve is deterministic across calls, schedulers and threads", "[scheduler][threads]") {
  ClusterSnapshot snap = BusySnapshot();
  auto catalog = FakeCatalog(12);
  absl::StatusOr<Scheduler> s1 = Scheduler::Create(snap, catalog);
  absl::StatusOr<Scheduler> s2 = Scheduler::Create(snap, FakeCatalog(12));
  REQUIRE(s1.ok());
  REQUIRE(s2.ok());
  absl::StatusOr<SolveResult> base = s1->Solve();
  REQUIRE(base.ok());
  INFO(Describe(*base));
  // The workload exercises more than one claim, an existing node and an error.
  CHECK(base->node_claims.size() > 3);
  CHECK_FALSE(base->existing_nodes.empty());
  CHECK(ErrorOf(*base, K("huge")).has_value());

  absl::StatusOr<SolveResult> again = s1->Solve();
  REQUIRE(again.ok());
  CHECK(SameResult(*base, *again));
  absl::StatusOr<SolveResult> other = s2->Solve();
  REQUIRE(other.ok());
  CHECK(SameResult(*base, *other));

  constexpr int kThreads = 4;
  std::vector<std::optional<SolveResult>> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<SolveResult> r = s1->Solve();
      if (r.ok()) results[static_cast<size_t>(i)] = std::move(*r);
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::optional<SolveResult>& r : results) {
    REQUIRE(r.has_value());
    CHECK(SameResult(*base, *r));
  }
}

// ---------------------------------------------------------------------------------------------
// More placement rules

TEST_CASE("a pod may select its NodePool by name", "[scheduler]") {
  SolveResult r =
      Solve(Snap({MakeNodePool("a", {}, {}, {}, 10), MakeNodePool("b")},
                 {MakePod("web", "1").NodeSelector(std::string(karp::kLabelNodePool), "b"),
                  MakePod("any", "1")}),
            FakeCatalog(4));
  INFO(Describe(r));
  CHECK(Claim(r, "web").node_pool == "b");
  CHECK(Claim(r, "any").node_pool == "a");
}

TEST_CASE("an unregistered managed node is judged by its NodeClaim's taints", "[scheduler]") {
  // Semantics §3: for unregistered managed nodes the NodeClaim's spec.taints are used instead
  // of the Node's (whose taints are not synced yet).
  std::map<std::string, std::string> labels =
      ManagedNodeLabels("default", "fake-it-3", kZ1, "on-demand", /*initialized=*/false);
  labels.erase(std::string(karp::kLabelRegistered));
  ClusterSnapshot snap = Snap(
      {MakeNodePool("default")},
      {MakePod("tolerant", "1").Tolerate(TolerateEqual("dedicated", "db")), MakePod("plain", "1")});
  snap.nodes.push_back(
      MakeNode("joining", "4", "8Gi", 40, labels,
               {MakeTaint("karpenter.sh/unregistered", "", TaintEffect::kNoExecute)}));
  NodeClaim nc = MakeNodeClaim("default-joining", "default", "4", "8Gi", 40);
  nc.node_name = "joining";
  nc.taints = {MakeTaint("dedicated", "db", TaintEffect::kNoSchedule)};
  snap.node_claims.push_back(nc);
  SolveResult r = Solve(snap, FakeCatalog(4));
  INFO(Describe(r));
  REQUIRE(PlacementOf(r, K("tolerant")) != nullptr);
  CHECK(PlacementOf(r, K("tolerant"))->name == "joining");
  CHECK(PlacementOf(r, K("plain")) == nullptr);
  CHECK(Claim(r, "plain").pods.size() == 1);
}

// ---------------------------------------------------------------------------------------------
// Reserved capacity (docs/design.md §5.15; scheduler.h ReservedCapacityMode)

namespace {

karp::ClusterSnapshot ReservedSnapshot(int pods) {
  std::vector<Pod> list;
  for (int i = 0; i < pods; ++i) {
    list.push_back(MakePod("r-" + std::to_string(i), "1")
                       .Label("app", "r")
                       .AntiAffinity(kHostKey, {{"app", "r"}}));
  }
  return Snap({MakeNodePool("default")}, list);
}

std::shared_ptr<const karp::InstanceCatalog> ReservedCatalog(int64_t capacity) {
  Offering reserved = Off(kZ1, "reserved", 0.01);
  reserved.reservation_id = "cr-1";
  reserved.reservation_capacity = capacity;
  return MakeCatalog(
      {TypeWith("t", {reserved, Off(kZ1, "on-demand", 0.1), Off(kZ2, "on-demand", 0.1)})});
}

}  // namespace

TEST_CASE("a claim holding a reservation is narrowed to reserved capacity",
          "[scheduler][reserved]") {
  // Finalization: capacity-type becomes In [reserved] when the claim holds a reservation.
  SolveResult r = Solve(ReservedSnapshot(1), ReservedCatalog(5));
  const NewNodeClaim nc = OnlyClaim(r);
  CHECK(nc.launch->capacity_type == "reserved");
  CHECK(InValues(nc, kCapKey) == std::vector<std::string>{"reserved"});
}

TEST_CASE("Strict reserved mode defers pods whose compatible reservations are used up",
          "[scheduler][reserved]") {
  // One reservation slot, two pods that cannot share a node: the first claim reserves it;
  // for the second, compatible reserved offerings exist but cannot be reserved, which in
  // Strict mode is an error (no fallback to on-demand in this solve).
  SolveResult r = Solve(ReservedSnapshot(2), ReservedCatalog(1));
  INFO(Describe(r));
  REQUIRE(r.node_claims.size() == 1);
  CHECK(r.node_claims[0].launch->capacity_type == "reserved");
  const std::string e = Error(r, "r-1");
  CHECK(e.find("one or more instance types with compatible reserved offerings are available, but "
               "could not be reserved") != std::string::npos);
}

TEST_CASE("Fallback reserved mode schedules everything, one claim holds the reservation",
          "[scheduler][reserved]") {
  // Fallback never errors; only a claim that holds the reservation is narrowed to reserved
  // capacity at finalization, and a one-slot reservation is held by one claim.
  SchedulerOptions options;
  options.reserved_capacity_mode = karp::ReservedCapacityMode::kFallback;
  SolveResult r = Solve(ReservedSnapshot(3), ReservedCatalog(1), options);
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  CHECK(r.node_claims.size() == 3);
  int narrowed = 0;
  for (const NewNodeClaim& nc : r.node_claims) {
    if (InValues(nc, kCapKey) == std::vector<std::string>{"reserved"}) ++narrowed;
  }
  CHECK(narrowed == 1);
}

TEST_CASE("an uninitialized node's missing resources come from its NodeClaim", "[scheduler]") {
  // Semantics §5.9 step 4: the allocatable of an uninitialized node is the NodeClaim's status
  // allocatable where the Node reports zero (e.g. a GPU before its device plugin runs).
  ClusterSnapshot snap =
      Snap({MakeNodePool("default")}, {MakePod("trainer", "1").Request("nvidia.com/gpu", "1")});
  snap.nodes.push_back(MakeNode("gpu-node", "4", "16Gi", 40,
                                ManagedNodeLabels("default", "gpu-type", kZ1, "on-demand",
                                                  /*initialized=*/false)));
  NodeClaim nc = MakeNodeClaim("default-gpu", "default", "4", "16Gi", 40);
  nc.node_name = "gpu-node";
  nc.allocatable.Set("nvidia.com/gpu", 1);
  nc.capacity.Set("nvidia.com/gpu", 1);
  snap.node_claims.push_back(nc);
  SolveResult r = Solve(snap, FakeCatalog(4));
  INFO(Describe(r));
  REQUIRE(PlacementOf(r, K("trainer")) != nullptr);
  CHECK(PlacementOf(r, K("trainer"))->name == "gpu-node");
}

TEST_CASE("matchLabelKeys split a spread group by the pods' label values", "[scheduler]") {
  karp::TopologySpreadConstraint tsc = SpreadConstraint(kHostKey, 1, {{"app", "web"}});
  tsc.match_label_keys = {"version"};
  std::vector<Pod> pods;
  for (const std::string v : {"v1", "v2"}) {
    for (int i = 0; i < 2; ++i) {
      pods.push_back(MakePod("web-" + v + "-" + std::to_string(i), "100m")
                         .Label("app", "web")
                         .Label("version", v)
                         .Spread(tsc));
    }
  }
  SolveResult r = Solve(Snap({MakeNodePool("default")}, pods), FakeCatalog(4));
  INFO(Describe(r));
  REQUIRE(r.node_claims.size() == 2);
  for (const NewNodeClaim& nc : r.node_claims) {
    REQUIRE(nc.pods.size() == 2);
    CHECK(nc.pods[0].find("-v1-") != std::string::npos);
    CHECK(nc.pods[1].find("-v2-") != std::string::npos);
  }
}

TEST_CASE("affinity terms only select pods of their own namespace by default", "[scheduler]") {
  SolveResult r =
      Solve(Snap({MakeNodePool("default")},
                 {MakePod("guard", "1").Namespace("a").AntiAffinity(kHostKey, {{"app", "web"}}),
                  MakePod("web", "1").Namespace("b").Label("app", "web"),
                  MakePod("web", "1").Label("app", "web")}),
            FakeCatalog(8));
  INFO(Describe(r));
  const NewNodeClaim* guard = ClaimOf(r, "a/guard");
  const NewNodeClaim* other_ns = ClaimOf(r, "b/web");
  const NewNodeClaim* same_default = ClaimOf(r, "default/web");
  REQUIRE(guard != nullptr);
  REQUIRE(other_ns != nullptr);
  REQUIRE(same_default != nullptr);
  CHECK(r.node_claims.size() == 1);  // namespace a selects neither web pod
  SolveResult same =
      Solve(Snap({MakeNodePool("default")},
                 {MakePod("guard", "1").Namespace("b").AntiAffinity(kHostKey, {{"app", "web"}}),
                  MakePod("web", "1").Namespace("b").Label("app", "web")}),
            FakeCatalog(8));
  CHECK(same.node_claims.size() == 2);
}

TEST_CASE("nodeAffinityPolicy decides whether non-matching nodes count for spread", "[scheduler]") {
  // An arm64 node in test-zone-1 is full of matching pods; the pending pods select amd64.
  auto run = [](karp::NodeInclusionPolicy policy) {
    karp::TopologySpreadConstraint tsc = SpreadConstraint(kZoneKey, 1, {{"app", "web"}});
    tsc.node_affinity_policy = policy;
    ClusterSnapshot snap = Snap(
        {MakeNodePool("default", {Expr(kZoneKey, Operator::kIn, {kZ1, kZ2})})},
        {MakePod("old-0", "1").Label("app", "web").BoundTo("arm-node"),
         MakePod("old-1", "1").Label("app", "web").BoundTo("arm-node"),
         MakePod("web-0", "1").Label("app", "web").NodeSelector(kArchKey, "amd64").Spread(tsc),
         MakePod("web-1", "1").Label("app", "web").NodeSelector(kArchKey, "amd64").Spread(tsc)});
    snap.nodes.push_back(
        MakeNode("arm-node", "2", "8Gi", 110, {{kZoneKey, kZ1}, {kArchKey, "arm64"}}));
    return Solve(snap, FakeCatalog(2));
  };
  SECTION("Honor (default): the arm64 node is not counted") {
    SolveResult r = run(karp::NodeInclusionPolicy::kHonor);
    INFO(Describe(r));
    CHECK(ZoneCounts(r, {"web-0", "web-1"}) == std::map<std::string, int>{{kZ1, 1}, {kZ2, 1}});
  }
  SECTION("Ignore: its two pods count, so both pods go to test-zone-2") {
    SolveResult r = run(karp::NodeInclusionPolicy::kIgnore);
    INFO(Describe(r));
    CHECK(ZoneCounts(r, {"web-0", "web-1"}) == std::map<std::string, int>{{kZ2, 2}});
  }
}

// ---------------------------------------------------------------------------------------------
// Builders

TEST_CASE("FakeInstanceTypes follows the reference fake provider", "[scheduler][builders]") {
  // Semantics §4.5 InstanceTypes(N).
  std::vector<InstanceType> types = karp::testing::FakeInstanceTypes(6);
  REQUIRE(types.size() == 6);
  const InstanceType& small = types[0];
  CHECK(small.name == "fake-it-0");
  CHECK(small.capacity == Resources("1", "2Gi", 10));
  CHECK(small.Allocatable() == Resources("900m", "2038Mi", 10));
  REQUIRE(small.offerings.size() == 5);
  for (const Offering& o : small.offerings) CHECK(o.price == Approx(0.3147483648));
  CHECK(small.requirements.Get("size").Has("small"));
  CHECK(small.requirements.Find("special")->op() == Operator::kDoesNotExist);
  CHECK(small.requirements.Get("integer").Has("1"));
  CHECK(small.requirements.Get(std::string(karp::kLabelOs)).values() ==
        std::vector<std::string>{"darwin", "linux", "windows"});
  CHECK(small.requirements.Get(kZoneKey).values() == std::vector<std::string>{kZ1, kZ2, kZ3});
  CHECK(small.requirements.Get(kCapKey).values() == std::vector<std::string>{"on-demand", "spot"});
  const InstanceType& large = types[4];
  CHECK(large.capacity == Resources("5", "10Gi", 50));
  CHECK(large.offerings[0].price == Approx(5 * 0.3147483648));
  CHECK(large.requirements.Get("size").Has("large"));
  CHECK(large.requirements.Get("special").Has("optional"));
  int spot = 0;
  for (const Offering& o : large.offerings) {
    if (o.capacity_type == "spot") {
      ++spot;
      CHECK(o.zone != kZ3);
    }
  }
  CHECK(spot == 2);
}
