// The snapshot's pods as prepared once per scheduler for consolidation simulations
// (src/scheduling/prepared_pods.h): a simulation copies a pending pod's context only when it
// places the pod and reuses the queue order of the last one, and must decide exactly as a plain
// Solve of the same pods (which prepares every pod afresh), whatever the order of the pods, with
// relaxed preferences, invalid pods and duplicates.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "karp/scheduler.h"
#include "scheduling/access.h"
#include "support/builders.h"

namespace {

using karp::ClusterSnapshot;
using karp::Pod;
using karp::Scheduler;
using karp::SolveResult;
using karp::testing::Describe;
using karp::testing::Expr;
using karp::testing::FakeCatalog;
using karp::testing::MakeNode;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;
using karp::testing::SameResult;
using karp::testing::SpreadConstraint;

constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kHostname[] = "kubernetes.io/hostname";

// Two nodes with bound pods; pending pods with zonal spread, hostname anti-affinity, a
// preference no node can meet (relaxed), equal requests (ties broken by creation and key) and
// one invalid pod.
ClusterSnapshot Cluster() {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  for (int i = 0; i < 2; ++i) {
    const std::string node = "node-" + std::to_string(i);
    snap.nodes.push_back(MakeNode(node, "4", "16Gi", 110, {{kZone, "test-zone-1"}}));
    snap.pods.push_back(
        MakePod("bound-" + std::to_string(i), "1", "1Gi").Label("app", "web").BoundTo(node));
  }
  for (int i = 0; i < 6; ++i) {
    const std::string n = std::to_string(i);
    snap.pods.push_back(MakePod("web-" + n, "1", "1Gi")
                            .Label("app", "web")
                            .CreatedAt(100 - i % 3)
                            .Spread(SpreadConstraint(kZone, 1, {{"app", "web"}})));
    snap.pods.push_back(
        MakePod("db-" + n, "500m", "1Gi")
            .Label("app", "db")
            .AntiAffinity(kHostname, {{"app", "db"}})
            .PreferredTerm(10, {Expr("no-such-label", karp::Operator::kIn, {"x"})}));
  }
  // Groups of the same id but for minDomains (not part of the id): the first pod in input
  // order creates the group, in a simulation as in a Solve.
  for (int i = 0; i < 2; ++i) {
    karp::TopologySpreadConstraint tsc = SpreadConstraint(kZone, 1, {{"app", "api"}});
    if (i == 1) tsc.min_domains = 3;
    snap.pods.push_back(
        MakePod("api-" + std::to_string(i), "2", "1Gi").Label("app", "api").Spread(tsc));
  }
  snap.pods.push_back(MakePod("bad", "1", "1Gi").NodeSelector("karpenter.sh/nodepool", "none"));
  return snap;
}

struct Outcome {
  absl::StatusOr<SolveResult> simulated;
  absl::StatusOr<SolveResult> solved;
};

Outcome Both(const Scheduler& scheduler, const std::vector<const Pod*>& pods) {
  karp::scheduling::Simulation sim;
  sim.consolidation = false;
  return {karp::scheduling::Simulate(scheduler, pods, sim), scheduler.Solve(pods)};
}

}  // namespace

TEST_CASE("simulations over prepared pods decide as plain Solves", "[scheduler][consolidation]") {
  const ClusterSnapshot snap = Cluster();
  absl::StatusOr<Scheduler> scheduler = Scheduler::Create(snap, FakeCatalog(30));
  REQUIRE(scheduler.ok());
  std::vector<const Pod*> pending = snap.PendingPods();
  REQUIRE(pending.size() == 15);
  std::vector<const Pod*> reversed(pending.rbegin(), pending.rend());
  std::vector<const Pod*> fewer(pending.begin() + 2, pending.end());
  Pod moved = snap.pods[0];  // bound-0, moving
  moved.node_name.clear();
  std::vector<const Pod*> with_moved = pending;
  with_moved.insert(with_moved.begin() + 3, &moved);
  // Each runs after the previous ones: the queue order kept from one is reused or replaced.
  for (const std::vector<const Pod*>* pods :
       {&pending, &pending, &reversed, &fewer, &with_moved, &with_moved, &pending}) {
    Outcome o = Both(*scheduler, *pods);
    REQUIRE(o.simulated.ok());
    REQUIRE(o.solved.ok());
    INFO("simulated:\n" << Describe(*o.simulated) << "solved:\n" << Describe(*o.solved));
    CHECK(SameResult(*o.simulated, *o.solved));
    CHECK(o.simulated->pod_errors.size() == o.solved->pod_errors.size());
    CHECK(o.simulated->pod_count == static_cast<int>(pods->size()));
    CHECK(!o.simulated->node_claims.empty());
  }
}

TEST_CASE("simulations over prepared pods reject duplicates as plain Solves",
          "[scheduler][consolidation]") {
  const ClusterSnapshot snap = Cluster();
  absl::StatusOr<Scheduler> scheduler = Scheduler::Create(snap, FakeCatalog(30));
  REQUIRE(scheduler.ok());
  std::vector<const Pod*> twice = snap.PendingPods();
  twice.push_back(twice[4]);
  Pod copy = *twice[1];  // not the snapshot's object, same key
  std::vector<const Pod*> copied = snap.PendingPods();
  copied.push_back(&copy);
  std::vector<const Pod*> copy_first = {&copy};
  for (const Pod* p : snap.PendingPods()) copy_first.push_back(p);
  for (const std::vector<const Pod*>* pods : {&twice, &copied, &copy_first}) {
    Outcome o = Both(*scheduler, *pods);
    REQUIRE(!o.simulated.ok());
    REQUIRE(!o.solved.ok());
    CHECK(o.simulated.status() == o.solved.status());
    CHECK(o.simulated.status().message().find(": duplicate") != std::string::npos);
  }
}
