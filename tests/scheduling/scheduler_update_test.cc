// Scheduler::Update (karp/scheduler.h): a scheduler over the next state of a cluster, reusing
// the NodePool-level preparation when NodePools and DaemonSets are unchanged. Its Solve must
// return exactly what a scheduler created from scratch over the same snapshot returns.

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "karp/scheduler.h"
#include "support/builders.h"

namespace {

using karp::ClusterSnapshot;
using karp::Scheduler;
using karp::SolveResult;
using karp::testing::Describe;
using karp::testing::FakeCatalog;
using karp::testing::MakeDaemonSet;
using karp::testing::MakeNode;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;
using karp::testing::SameResult;

// A running cluster: one NodePool, a DaemonSet, two nodes with bound pods (one spread group),
// and pending pods with zonal spread and hostname anti-affinity.
ClusterSnapshot Cluster() {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.daemon_sets.push_back(MakeDaemonSet("agent", MakePod("agent", "100m", "64Mi")));
  for (const char* n : {"node-a", "node-b"}) {
    snap.nodes.push_back(
        MakeNode(n, "4", "16Gi", 110, {{"topology.kubernetes.io/zone", "test-zone-1"}}));
    snap.pods.push_back(
        MakePod(std::string(n) + "-web", "1", "1Gi").Label("app", "web").BoundTo(n));
  }
  for (int i = 0; i < 6; ++i) {
    snap.pods.push_back(MakePod("web-" + std::to_string(i), "1", "1Gi")
                            .Label("app", "web")
                            .Spread(karp::testing::SpreadConstraint("topology.kubernetes.io/zone",
                                                                    1, {{"app", "web"}})));
    snap.pods.push_back(MakePod("db-" + std::to_string(i), "500m", "2Gi")
                            .Label("app", "db")
                            .AntiAffinity("kubernetes.io/hostname", {{"app", "db"}}));
  }
  return snap;
}

SolveResult MustSolve(const absl::StatusOr<Scheduler>& s) {
  INFO(std::string(s.status().message()));
  REQUIRE(s.ok());
  absl::StatusOr<SolveResult> r = s->Solve();
  REQUIRE(r.ok());
  return *r;
}

void CheckSameAsCreate(const Scheduler& base, const ClusterSnapshot& next) {
  const SolveResult updated = MustSolve(base.Update(next));
  const SolveResult fresh = MustSolve(Scheduler::Create(next, FakeCatalog(30)));
  INFO("updated:\n" << Describe(updated) << "fresh:\n" << Describe(fresh));
  CHECK(SameResult(updated, fresh));
}

}  // namespace

TEST_CASE("Update gives the result of Create when pods, nodes or NodePools change",
          "[scheduler][update]") {
  const ClusterSnapshot snap = Cluster();
  absl::StatusOr<Scheduler> base = Scheduler::Create(snap, FakeCatalog(30));
  REQUIRE(base.ok());

  SECTION("pods added and removed, one bound") {
    ClusterSnapshot next = snap;
    next.pods.erase(next.pods.begin() + 3);
    next.pods.push_back(MakePod("web-new", "2", "1Gi").Label("app", "web"));
    for (karp::Pod& p : next.pods) {
      if (p.metadata.name == "db-0")
        p = MakePod("db-0", "500m", "2Gi").Label("app", "db").BoundTo("node-b");
    }
    CheckSameAsCreate(*base, next);
  }
  SECTION("a node joins and one leaves") {
    ClusterSnapshot next = snap;
    next.nodes.push_back(
        MakeNode("node-c", "8", "32Gi", 110, {{"topology.kubernetes.io/zone", "test-zone-2"}}));
    next.nodes.erase(next.nodes.begin());
    next.pods.erase(next.pods.begin());  // node-a's pod
    CheckSameAsCreate(*base, next);
  }
  SECTION("a NodePool or DaemonSet change prepares from scratch") {
    ClusterSnapshot next = snap;
    next.node_pools[0].requirements.push_back(
        karp::testing::Expr("size", karp::Operator::kIn, {"small"}));
    CheckSameAsCreate(*base, next);
    ClusterSnapshot other = snap;
    other.daemon_sets[0] = MakeDaemonSet("agent", MakePod("agent", "1", "64Mi"));
    CheckSameAsCreate(*base, other);
  }
  SECTION("successive updates chain") {
    ClusterSnapshot next = snap;
    absl::StatusOr<Scheduler> current = base;
    for (int i = 0; i < 5; ++i) {
      next.pods.push_back(MakePod("extra-" + std::to_string(i), "1500m", "3Gi"));
      current = current->Update(next);
      REQUIRE(current.ok());
    }
    base = Scheduler::Create(snap, FakeCatalog(30));  // the first scheduler may go away
    CheckSameAsCreate(*current, next);
  }
}

TEST_CASE("Update validates the new snapshot", "[scheduler][update]") {
  absl::StatusOr<Scheduler> base = Scheduler::Create(Cluster(), FakeCatalog(30));
  REQUIRE(base.ok());
  ClusterSnapshot bad = Cluster();
  bad.pods.push_back(bad.pods.back());  // a duplicate pod
  absl::StatusOr<Scheduler> s = base->Update(bad);
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
}
