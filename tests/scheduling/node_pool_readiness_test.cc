// NodePool readiness (docs/design.md §5.3): the reference's NewScheduler provisions only from
// NodePools whose Ready condition is true; karp also treats a NodePool without a Ready
// condition (a manifest nobody has reconciled) as ready.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "karp/scheduler.h"
#include "support/builders.h"
#include "support/solve_checks.h"

namespace {

using karp::ClusterSnapshot;
using karp::NodeCondition;
using karp::NodePool;
using karp::SolveResult;
using karp::testing::FakeCatalog;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;

NodePool WithReady(NodePool np, const std::string& status) {
  NodeCondition ready;
  ready.type = "Ready";
  ready.status = status;
  ready.reason = status == "True" ? "" : "NodeClassNotReady";
  np.conditions.push_back(ready);
  return np;
}

SolveResult Solve(const ClusterSnapshot& snap) {
  return karp::testing::MustSolve(snap, FakeCatalog(10));
}

}  // namespace

TEST_CASE("NodePool::Ready reads the Ready condition and defaults to ready", "[nodepool]") {
  CHECK(MakeNodePool("a").Ready());
  CHECK(WithReady(MakeNodePool("a"), "True").Ready());
  CHECK_FALSE(WithReady(MakeNodePool("a"), "False").Ready());
  CHECK_FALSE(WithReady(MakeNodePool("a"), "Unknown").Ready());
  NodePool other = MakeNodePool("a");
  other.conditions.push_back(NodeCondition{"ValidationSucceeded", "False", "", "", {}});
  CHECK(other.Ready());  // only the Ready condition decides
}

TEST_CASE("a NodePool that is not ready launches nothing and the next one by weight does",
          "[nodepool]") {
  for (const std::string status : {"False", "Unknown"}) {
    INFO("Ready " << status);
    ClusterSnapshot snap;
    snap.node_pools.push_back(WithReady(MakeNodePool("heavy", {}, {}, {}, 100), status));
    snap.node_pools.push_back(MakeNodePool("light", {}, {}, {}, 1));
    snap.pods.push_back(MakePod("web", "1", "1Gi"));
    const SolveResult r = Solve(snap);
    CHECK(r.pod_errors.empty());
    REQUIRE(r.node_claims.size() == 1);
    CHECK(r.node_claims[0].node_pool == "light");
  }
}

TEST_CASE("a ready NodePool and one without conditions are both used by weight", "[nodepool]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(WithReady(MakeNodePool("heavy", {}, {}, {}, 100), "True"));
  snap.node_pools.push_back(MakeNodePool("light", {}, {}, {}, 1));
  snap.pods.push_back(MakePod("web", "1", "1Gi"));
  REQUIRE(Solve(snap).node_claims.size() == 1);
  CHECK(Solve(snap).node_claims[0].node_pool == "heavy");
  snap.node_pools[0].conditions.clear();
  CHECK(Solve(snap).node_claims[0].node_pool == "heavy");
}

TEST_CASE("when no NodePool is ready every pod fails as with no NodePool", "[nodepool]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(WithReady(MakeNodePool("default"), "False"));
  snap.pods.push_back(MakePod("web", "1", "1Gi"));
  const SolveResult r = Solve(snap);
  CHECK(r.node_claims.empty());
  REQUIRE(r.pod_errors.size() == 1);
  CHECK(r.pod_errors[0].message == "no dynamic nodepools found");
}
