// The bound-pod counts that consolidation simulations share (src/scheduling/bound_counts.h):
// a simulation over a scheduler whose cache earlier simulations filled (with other pods
// moving) must place pods exactly as a plain Solve of the same pods, which counts every group
// from scratch.

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
using karp::testing::FakeCatalog;
using karp::testing::MakeNode;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;
using karp::testing::SameResult;
using karp::testing::SpreadConstraint;

constexpr char kZone[] = "topology.kubernetes.io/zone";

auto Web(const std::string& name) {
  return MakePod(name, "1", "1Gi")
      .Label("app", "web")
      .Spread(SpreadConstraint(kZone, 1, {{"app", "web"}}));
}

auto Db(const std::string& name) {
  return MakePod(name, "500m", "1Gi")
      .Label("app", "db")
      .AntiAffinity("kubernetes.io/hostname", {{"app", "db"}});
}

// Hostname spread over the nodes of one zone only (a node filter with a term).
auto Cache(const std::string& name) {
  return MakePod(name, "250m", "512Mi")
      .Label("app", "cache")
      .NodeSelector(kZone, "test-zone-1")
      .Spread(SpreadConstraint("kubernetes.io/hostname", 1, {{"app", "cache"}}));
}

// Six nodes in three zones, bound web pods (zonal spread), db pods (hostname anti-affinity)
// and cache pods (hostname spread in one zone) spread unevenly, and pending pods of each.
ClusterSnapshot Cluster() {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  for (int i = 0; i < 6; ++i) {
    const std::string node = "node-" + std::to_string(i);
    const std::string zone = "test-zone-" + std::to_string(1 + i / 2);
    snap.nodes.push_back(MakeNode(node, "4", "16Gi", 110, {{kZone, zone}}));
    for (int j = 0; j < (i < 2 ? 3 : 1); ++j) {
      snap.pods.push_back(Web("web-" + std::to_string(i) + "-" + std::to_string(j)).BoundTo(node));
    }
    if (i % 2 == 0) snap.pods.push_back(Db("db-" + std::to_string(i)).BoundTo(node));
  }
  snap.pods.push_back(Cache("cache-0").BoundTo("node-0"));
  snap.pods.push_back(Cache("cache-1").BoundTo("node-0"));
  for (int i = 0; i < 3; ++i) snap.pods.push_back(Cache("cache-pending-" + std::to_string(i)));
  for (int i = 0; i < 5; ++i) {
    snap.pods.push_back(Web("web-pending-" + std::to_string(i)));
    snap.pods.push_back(Db("db-pending-" + std::to_string(i)));
  }
  return snap;
}

}  // namespace

TEST_CASE("simulations sharing bound-pod counts place pods as a plain Solve",
          "[scheduler][consolidation]") {
  const ClusterSnapshot snap = Cluster();
  absl::StatusOr<Scheduler> scheduler = Scheduler::Create(snap, FakeCatalog(30));
  REQUIRE(scheduler.ok());
  // Sets of bound pods to move (unbound copies scheduled with the pending pods), each
  // simulated after the previous ones filled the cache.
  const std::vector<std::vector<std::string>> moves = {{},
                                                       {"web-0-0", "web-0-1"},
                                                       {"db-0", "web-2-0"},
                                                       {"db-0", "db-2", "db-4"},
                                                       {"web-1-2"},
                                                       {"cache-0"},
                                                       {"cache-0", "cache-1", "db-2"},
                                                       {}};
  for (const std::vector<std::string>& names : moves) {
    std::vector<Pod> moved;
    for (const Pod& p : snap.pods) {
      if (std::find(names.begin(), names.end(), p.metadata.name) == names.end()) continue;
      moved.push_back(p);
      moved.back().node_name.clear();
    }
    REQUIRE(moved.size() == names.size());
    std::vector<const Pod*> pods = snap.PendingPods();
    for (const Pod& p : moved) pods.push_back(&p);
    karp::scheduling::Simulation sim;
    sim.consolidation = false;
    absl::StatusOr<SolveResult> simulated = karp::scheduling::Simulate(*scheduler, pods, sim);
    absl::StatusOr<SolveResult> solved = scheduler->Solve(pods);
    REQUIRE(simulated.ok());
    REQUIRE(solved.ok());
    INFO("moved " << names.size() << " pod(s)\nsimulated:\n"
                  << Describe(*simulated) << "solved:\n"
                  << Describe(*solved));
    CHECK(SameResult(*simulated, *solved));
    CHECK(simulated->pod_errors.size() < pods.size());
  }
}
