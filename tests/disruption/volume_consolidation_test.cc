// Consolidator::Plan with stateful pods (docs/design.md §5.13, §6.6): the consolidation simulations
// see the same volume constraints as provisioning, so a pod with a zonal volume only moves
// within its zone and a consolidation that would strand it is not proposed.
//
// Catalog SmallMediumLarge() (support/disruption_builders.h): small (2 cpu) $0.10, medium
// (4 cpu) $0.20, large (8 cpu) $0.40, on-demand in the three test zones.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/labels.h"
#include "support/builders.h"
#include "support/disruption_builders.h"
#include "support/plan_checks.h"
#include "support/storage_builders.h"

namespace {

using karp::ClusterSnapshot;
using karp::ConsolidationPlan;
using karp::DisruptionCommand;
using karp::DisruptionDecision;
using karp::NewNodeClaim;
using karp::Operator;
using karp::testing::AddManagedNode;
using karp::testing::AddZonalClaim;
using karp::testing::BoundPod;
using karp::testing::CommandIndexOf;
using karp::testing::Describe;
using karp::testing::DisruptionPool;
using karp::testing::Expr;
using karp::testing::KeptReason;
using karp::testing::MakeCatalog;
using karp::testing::SmallMediumLarge;

const std::string kZ1(karp::testing::kZone1);
const std::string kZ2(karp::testing::kZone2);
const std::string kZ3(karp::testing::kZone3);

ConsolidationPlan PlanOf(const ClusterSnapshot& snap) {
  return karp::testing::MustPlan(snap, MakeCatalog(SmallMediumLarge()));
}

// Two medium nodes, `db-a` in zone 1 and `db-b` in zone 2, each running one 500m replica of
// a StatefulSet; with `volumes` each replica's claim is a volume in its node's zone.
ClusterSnapshot TwoZonalReplicas(bool volumes) {
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool("default"));
  auto catalog = MakeCatalog(SmallMediumLarge());
  AddManagedNode(snap, *catalog, "db-a", "default", "medium", kZ1);
  AddManagedNode(snap, *catalog, "db-b", "default", "medium", kZ2);
  const std::vector<std::pair<std::string, std::string>> replicas = {{"db-0", "db-a"},
                                                                     {"db-1", "db-b"}};
  for (const auto& [pod, node] : replicas) {
    karp::testing::PodBuilder b = BoundPod(pod, node, "500m").OwnedBy("StatefulSet", "db");
    if (volumes) {
      AddZonalClaim(snap, "data-" + pod, node == "db-a" ? kZ1 : kZ2);
      b.ClaimVolume("data", "data-" + pod);
    }
    snap.pods.push_back(b);
  }
  return snap;
}

TEST_CASE("without volumes two half-empty nodes in different zones are merged",
          "[consolidator][volumes]") {
  ConsolidationPlan plan = PlanOf(TwoZonalReplicas(false));
  INFO(Describe(plan));
  bool merged = false;
  for (const DisruptionCommand& c : plan.commands) {
    merged |= c.decision == DisruptionDecision::kDelete || c.candidates.size() == 2;
  }
  CHECK(merged);
}

TEST_CASE("replicas with zonal volumes are only replaced within their zones",
          "[consolidator][volumes]") {
  ConsolidationPlan plan = PlanOf(TwoZonalReplicas(true));
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 2);
  for (const DisruptionCommand& c : plan.commands) {
    CHECK(c.decision == DisruptionDecision::kReplace);
    REQUIRE(c.candidates.size() == 1);
    REQUIRE(c.replacements.size() == 1);
    const NewNodeClaim& nc = c.replacements[0];
    REQUIRE(nc.launch.has_value());
    const std::string zone = c.candidates[0] == "db-a" ? kZ1 : kZ2;
    CHECK(nc.launch->zone == zone);
    const karp::Requirement* z = nc.requirements.Find(karp::kLabelZone);
    REQUIRE(z != nullptr);
    CHECK(z->values() == std::vector<std::string>{zone});
    CHECK(nc.launch->instance_type == "small");
  }
}

TEST_CASE("a consolidation that would strand a pod away from its volume is not proposed",
          "[consolidator][volumes]") {
  // `old` runs in zone 3, which the NodePool no longer offers; `busy` in zone 1 has room.
  auto build = [](bool volume) {
    ClusterSnapshot snap;
    snap.node_pools.push_back(DisruptionPool(
        "default", {Expr(std::string(karp::kLabelZone), Operator::kIn, {kZ1, kZ2})}));
    auto catalog = MakeCatalog(SmallMediumLarge());
    AddManagedNode(snap, *catalog, "old", "default", "medium", kZ3);
    AddManagedNode(snap, *catalog, "busy", "default", "medium", kZ1);
    snap.pods.push_back(BoundPod("busy-0", "busy", "2"));
    karp::testing::PodBuilder db = BoundPod("db-0", "old", "1").OwnedBy("StatefulSet", "db");
    if (volume) {
      AddZonalClaim(snap, "data-db-0", kZ3);
      db.ClaimVolume("data", "data-db-0");
    }
    snap.pods.push_back(db);
    return snap;
  };
  ConsolidationPlan control = PlanOf(build(false));
  INFO(Describe(control));
  CHECK(CommandIndexOf(control, "old") >= 0);

  ConsolidationPlan plan = PlanOf(build(true));
  INFO(Describe(plan));
  CHECK(CommandIndexOf(plan, "old") < 0);
  CHECK(KeptReason(plan, "old").has_value());
}

}  // namespace
