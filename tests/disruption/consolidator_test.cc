// Unit tests of Consolidator::Plan (karp/consolidator.h), one or more per disruption rule of
// docs/design.md §6 and the output contract of docs/formats.md §4. Expectations are derived
// from the spec, not from the implementation.
//
// Most tests use the catalog SmallMediumLarge() (support/disruption_builders.h): small (2 cpu)
// $0.10, medium (4 cpu) $0.20, large (8 cpu) $0.40, on-demand in three zones, no overhead; and
// NodePools with a 100% budget so that only the rule under test limits disruption. The clock is
// DisruptionNow() = 2026-03-04T12:00:00Z, a Wednesday; nodes were created a day earlier.
//
// A recurring layout: `lone` is a medium node with one 500m pod and `busy` a medium node with
// three 1-cpu pods. The lone pod fits on busy, so lone can be deleted; busy's pods (3 cpu) fit
// on lone too, but lone is disrupted first (higher price / disruption-cost ratio).

#include "karp/consolidator.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
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
#include "support/disruption_builders.h"
#include "support/plan_checks.h"

namespace {

using karp::Budget;
using karp::ClusterSnapshot;
using karp::ConsolidationOptions;
using karp::ConsolidationPlan;
using karp::ConsolidationPolicy;
using karp::Consolidator;
using karp::DisruptionCommand;
using karp::DisruptionDecision;
using karp::DisruptionReason;
using karp::InstanceCatalog;
using karp::InstanceType;
using karp::InterruptionEvent;
using karp::NewNodeClaim;
using karp::Offering;
using karp::Operator;
using karp::Pod;
using karp::testing::AddManagedNode;
using karp::testing::BoundPod;
using karp::testing::CommandIndexOf;
using karp::testing::DaemonPod;
using karp::testing::Describe;
using karp::testing::DisruptionNow;
using karp::testing::DisruptionPool;
using karp::testing::Expr;
using karp::testing::FindClaimMutable;
using karp::testing::FindNodeMutable;
using karp::testing::KeptOr;
using karp::testing::KeptReason;
using karp::testing::MakeBudget;
using karp::testing::MakeCatalog;
using karp::testing::MakeOffering;
using karp::testing::MakePdb;
using karp::testing::MustPlan;
using karp::testing::SamePlan;
using karp::testing::SetClaimCondition;
using karp::testing::SmallMediumLarge;
using karp::testing::TypeWithOfferings;

const std::string kZ1(karp::testing::kZone1);
const std::string kZ2(karp::testing::kZone2);
const std::string kZ3(karp::testing::kZone3);
const std::string kOD(karp::kCapacityTypeOnDemand);
const std::string kSpot(karp::kCapacityTypeSpot);
const std::string kDnd(karp::kAnnotationDoNotDisrupt);

std::shared_ptr<const InstanceCatalog> Sml() { return MakeCatalog(SmallMediumLarge()); }

// Structural invariants of every plan (docs/formats.md §4): candidates sorted and in at most one
// command, deletes have no replacements, every node of the snapshot is either in a command or
// kept (never both), kept ordered by node name, totals consistent.
void CheckPlanShape(const ClusterSnapshot& snap, const ConsolidationPlan& plan) {
  INFO(Describe(plan));
  CHECK(plan.node_count == static_cast<int>(snap.nodes.size()));
  std::set<std::string> disrupted;
  double savings = 0;
  for (const DisruptionCommand& c : plan.commands) {
    CHECK_FALSE(c.candidates.empty());
    CHECK(std::is_sorted(c.candidates.begin(), c.candidates.end()));
    for (const std::string& n : c.candidates) CHECK(disrupted.insert(n).second);
    if (c.decision == DisruptionDecision::kDelete) CHECK(c.replacements.empty());
    if (c.decision == DisruptionDecision::kReplace) CHECK_FALSE(c.replacements.empty());
    savings += c.savings_per_hour;
  }
  CHECK(plan.savings_per_hour == Approx(savings).margin(1e-9));
  std::set<std::string> kept;
  for (size_t i = 0; i < plan.kept.size(); ++i) {
    if (i > 0) CHECK(plan.kept[i - 1].node < plan.kept[i].node);
    CHECK_FALSE(plan.kept[i].reason.empty());
    CHECK(kept.insert(plan.kept[i].node).second);
    CHECK(disrupted.count(plan.kept[i].node) == 0);
  }
  for (const karp::Node& n : snap.nodes) {
    const std::string& name = n.metadata.name;
    INFO("node " << name);
    CHECK(disrupted.count(name) + kept.count(name) == 1);
  }
}

ConsolidationPlan PlanOf(const ClusterSnapshot& snap,
                         std::shared_ptr<const InstanceCatalog> catalog,
                         const ConsolidationOptions& options = {},
                         absl::Time now = DisruptionNow()) {
  ConsolidationPlan plan = MustPlan(snap, std::move(catalog), options, now);
  CheckPlanShape(snap, plan);
  return plan;
}

// A snapshot with one NodePool "default" (100% budget).
ClusterSnapshot OnePool() {
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool("default"));
  return snap;
}

// `lone` (medium, one 500m pod) and `busy` (medium, three 1-cpu pods) of the header.
void AddLoneAndBusy(ClusterSnapshot& snap, const InstanceCatalog& catalog,
                    const std::string& pool = "default") {
  AddManagedNode(snap, catalog, "lone", pool, "medium");
  AddManagedNode(snap, catalog, "busy", pool, "medium");
  snap.pods.push_back(BoundPod("lone-0", "lone", "500m").Label("app", "lone"));
  for (int i = 0; i < 3; ++i)
    snap.pods.push_back(BoundPod("busy-" + std::to_string(i), "busy", "1"));
}

// A medium node whose four 1-cpu pods fill it: never empty, never cheaper elsewhere.
void AddFullNode(ClusterSnapshot& snap, const InstanceCatalog& catalog, const std::string& name,
                 const std::string& pool = "default") {
  AddManagedNode(snap, catalog, name, pool, "medium");
  for (int i = 0; i < 4; ++i)
    snap.pods.push_back(BoundPod(name + "-" + std::to_string(i), name, "1"));
}

// ---------------------------------------------------------------------------------------------
// Emptiness (docs/design.md §6.4)

TEST_CASE("emptiness deletes every empty node in one command", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  for (const char* n : {"empty-a", "empty-b", "empty-c"})
    AddManagedNode(snap, *catalog, n, "default", "medium");
  AddFullNode(snap, *catalog, "full");
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  const DisruptionCommand& c = plan.commands[0];
  CHECK(c.decision == DisruptionDecision::kDelete);
  CHECK(c.reason == DisruptionReason::kEmpty);
  CHECK(c.candidates == std::vector<std::string>{"empty-a", "empty-b", "empty-c"});
  CHECK(c.replacements.empty());
  CHECK(c.savings_per_hour == Approx(0.60));
  CHECK(plan.savings_per_hour == Approx(0.60));
  CHECK(KeptReason(plan, "full").has_value());
  CHECK(plan.node_count == 4);
}

TEST_CASE("a node with only DaemonSet pods is empty", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "daemons-only", "default", "medium");
  snap.pods.push_back(DaemonPod("logger-1", "daemons-only", "200m"));
  AddFullNode(snap, *catalog, "full");
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
  CHECK(plan.commands[0].decision == DisruptionDecision::kDelete);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"daemons-only"});
}

TEST_CASE("a node whose only pods are terminal is empty", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "done", "default", "medium");
  snap.pods.push_back(BoundPod("job-1", "done", "1").Phase("Succeeded"));
  snap.pods.push_back(BoundPod("job-2", "done", "1").Phase("Failed"));
  AddFullNode(snap, *catalog, "full");
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"done"});
}

TEST_CASE(
    "mirror pods and terminating pods do not make a node non-empty, a terminating "
    "StatefulSet pod does",
    "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "mirror", "default", "medium");
  snap.pods.push_back(BoundPod("kube-proxy", "mirror", "100m").OwnedBy("Node", "mirror"));
  AddManagedNode(snap, *catalog, "terminating", "default", "medium");
  karp::testing::PodBuilder leaving =
      BoundPod("leaving", "terminating", "1").OwnedBy("ReplicaSet", "web");
  leaving.pod().metadata.deletion_timestamp = DisruptionNow() - absl::Seconds(10);
  snap.pods.push_back(leaving);
  AddManagedNode(snap, *catalog, "sts", "default", "medium");
  karp::testing::PodBuilder db = BoundPod("db-0", "sts", "1").OwnedBy("StatefulSet", "db");
  db.pod().metadata.deletion_timestamp = DisruptionNow() - absl::Seconds(10);
  snap.pods.push_back(db);
  // Keep sts's pod from moving anywhere: the other nodes are tainted.
  for (const char* n : {"mirror", "terminating"}) {
    FindNodeMutable(snap, n)->taints.push_back(karp::testing::MakeTaint("dedicated", "x"));
  }
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE_FALSE(plan.commands.empty());
  CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"mirror", "terminating"});
  const int sts = CommandIndexOf(plan, "sts");
  if (sts >= 0) CHECK(plan.commands[static_cast<size_t>(sts)].reason != DisruptionReason::kEmpty);
}

TEST_CASE("a static NodePool (replicas) is not consolidated", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].replicas = 2;
  AddManagedNode(snap, *catalog, "e1", "default", "medium");
  AddLoneAndBusy(snap, *catalog);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(plan.commands.empty());
}

TEST_CASE("a node whose pods all have a negative eviction cost counts as empty (v1.14)",
          "[consolidator]") {
  // RescheduleDisruptionCost = 1 + sum max(0, EvictionCost): priority -1e8 gives
  // EvictionCost = 1 - 1e8/2^25 < 0, so the node is empty (docs/design.md §6.2).
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "low-prio", "default", "medium");
  karp::testing::PodBuilder p = BoundPod("batch-0", "low-prio", "1");
  p.pod().priority = -100000000;
  snap.pods.push_back(p);
  AddFullNode(snap, *catalog, "full");
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE_FALSE(plan.commands.empty());
  CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"low-prio"});
}

TEST_CASE("emptiness also runs for the WhenEmpty policy", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].consolidation_policy = ConsolidationPolicy::kWhenEmpty;
  AddManagedNode(snap, *catalog, "empty", "default", "medium");
  AddFullNode(snap, *catalog, "full");
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"empty"});
}

// ---------------------------------------------------------------------------------------------
// Budgets (docs/design.md §6.3)

TEST_CASE("a budget of 1 over three empty nodes yields exactly one command of one node",
          "[consolidator]") {
  // Commands are applied between loops: the deleted node still counts as disrupting, so the
  // second loop has no budget left.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("1")};
  for (const char* n : {"e1", "e2", "e3"}) AddManagedNode(snap, *catalog, n, "default", "medium");
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
  REQUIRE(plan.commands[0].candidates.size() == 1);
  int budget_kept = 0;
  for (const char* n : {"e1", "e2", "e3"}) {
    if (CommandIndexOf(plan, n) < 0) {
      INFO(n);
      CHECK_THAT(KeptOr(plan, n), Catch::Contains("budget"));
      ++budget_kept;
    }
  }
  CHECK(budget_kept == 2);
}

TEST_CASE("a percentage budget rounds up", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  for (int i = 0; i < 5; ++i)
    AddManagedNode(snap, *catalog, "e" + std::to_string(i), "default", "medium");
  auto deleted = [&](const std::string& nodes) {
    snap.node_pools[0].budgets = {MakeBudget(nodes)};
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    size_t n = 0;
    for (const DisruptionCommand& c : plan.commands) {
      CHECK(c.reason == DisruptionReason::kEmpty);
      n += c.candidates.size();
    }
    return n;
  };
  CHECK(deleted("30%") == 2);  // ceil(1.5)
  CHECK(deleted("10%") == 1);  // ceil(0.5)
  CHECK(deleted("1%") == 1);   // ceil(0.05)
  CHECK(deleted("41%") == 3);  // ceil(2.05)
  CHECK(deleted("0%") == 0);
  CHECK(deleted("100%") == 5);
}

TEST_CASE("a percentage budget counts every initialized node of the pool", "[consolidator]") {
  // 3 empty + 7 full nodes: 20% of 10 = 2 (20% of the 3 candidates would be 1).
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("20%")};
  for (int i = 0; i < 3; ++i)
    AddManagedNode(snap, *catalog, "empty-" + std::to_string(i), "default", "medium");
  for (int i = 0; i < 7; ++i) AddFullNode(snap, *catalog, "full-" + std::to_string(i));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
  CHECK(plan.commands[0].candidates.size() == 2);
}

TEST_CASE("an uninitialized node does not count in a percentage budget", "[consolidator]") {
  // numNodes = managed, initialized nodes: 50% of 2 = 1 (not 50% of 3 = 2).
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("50%")};
  AddManagedNode(snap, *catalog, "e1", "default", "medium");
  AddManagedNode(snap, *catalog, "e2", "default", "medium");
  AddManagedNode(snap, *catalog, "booting", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Minutes(2), /*initialized=*/false);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].candidates.size() == 1);
}

TEST_CASE("a node that is not Ready counts as disrupting against the budget", "[consolidator]") {
  // budget 2, one node NotReady: 2 - 1 = 1 more disruption allowed.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("2")};
  for (const char* n : {"e1", "e2", "e3"}) AddManagedNode(snap, *catalog, n, "default", "medium");
  AddFullNode(snap, *catalog, "sick");
  FindNodeMutable(snap, "sick")->conditions[0].status = "False";
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].candidates.size() == 1);
}

TEST_CASE("a node being deleted counts as disrupting against the budget", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("2")};
  for (const char* n : {"e1", "e2", "e3"}) AddManagedNode(snap, *catalog, n, "default", "medium");
  AddFullNode(snap, *catalog, "leaving");
  FindNodeMutable(snap, "leaving")->metadata.deletion_timestamp =
      DisruptionNow() - absl::Minutes(1);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].candidates.size() == 1);
}

TEST_CASE("budgets scoped to reasons apply only to those reasons", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "empty", "default", "medium");
  // Tainted, so that no pod can move onto it and it stays empty in every loop.
  FindNodeMutable(snap, "empty")->taints.push_back(karp::testing::MakeTaint("dedicated", "x"));
  AddFullNode(snap, *catalog, "full");
  SECTION("a zero Empty budget blocks emptiness") {
    snap.node_pools[0].budgets = {MakeBudget("0", {"Empty"}), MakeBudget("100%")};
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
    CHECK_THAT(KeptOr(plan, "empty"), Catch::Contains("budget"));
  }
  SECTION("a zero Drifted budget does not block emptiness") {
    snap.node_pools[0].budgets = {MakeBudget("0", {"Drifted"}), MakeBudget("100%")};
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"empty"});
  }
  SECTION("a zero Underutilized budget does not block emptiness") {
    snap.node_pools[0].budgets = {MakeBudget("0", {"Underutilized"})};
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
  }
  SECTION("a zero Underutilized budget blocks consolidation but not emptiness") {
    ClusterSnapshot s2 = OnePool();
    s2.node_pools[0].budgets = {MakeBudget("0", {"Underutilized"}), MakeBudget("100%")};
    AddLoneAndBusy(s2, *catalog);
    AddManagedNode(s2, *catalog, "empty", "default", "medium");
    FindNodeMutable(s2, "empty")->taints.push_back(karp::testing::MakeTaint("dedicated", "x"));
    const ConsolidationPlan plan = PlanOf(s2, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"empty"});
    CHECK_THAT(KeptOr(plan, "lone"), Catch::Contains("budget"));
  }
}

TEST_CASE("a zero budget blocks every voluntary disruption", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("0")};
  AddManagedNode(snap, *catalog, "empty", "default", "medium");
  AddLoneAndBusy(snap, *catalog);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(plan.commands.empty());
  for (const char* n : {"empty", "lone", "busy"}) {
    INFO(n);
    CHECK_THAT(KeptOr(plan, n), Catch::Contains("budget"));
  }
}

TEST_CASE("a scheduled budget applies only inside its window", "[consolidator]") {
  // Weekdays 09:00 + 8h no disruption; outside, no budget limits disruption.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("0", {}, "0 9 * * 1-5", absl::Hours(8))};
  AddManagedNode(snap, *catalog, "e1", "default", "medium");
  AddManagedNode(snap, *catalog, "e2", "default", "medium");
  SECTION("Wednesday 12:00 is inside the window") {
    const ConsolidationPlan plan = PlanOf(snap, catalog, {}, DisruptionNow());
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
    CHECK_THAT(KeptOr(plan, "e1"), Catch::Contains("budget"));
  }
  SECTION("Wednesday 19:30 is outside the window") {
    const ConsolidationPlan plan = PlanOf(snap, catalog, {}, karp::testing::At(2026, 3, 4, 19, 30));
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].candidates.size() == 2);
  }
  SECTION("Saturday 12:00 is outside the window") {
    const ConsolidationPlan plan = PlanOf(snap, catalog, {}, karp::testing::At(2026, 3, 7, 12, 0));
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].candidates.size() == 2);
  }
}

TEST_CASE("with several budgets the most restrictive active one wins", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  for (int i = 0; i < 5; ++i)
    AddManagedNode(snap, *catalog, "e" + std::to_string(i), "default", "medium");
  auto deleted = [&](std::vector<Budget> budgets) {
    snap.node_pools[0].budgets = std::move(budgets);
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    size_t n = 0;
    for (const DisruptionCommand& c : plan.commands) n += c.candidates.size();
    return n;
  };
  CHECK(deleted({MakeBudget("100%"), MakeBudget("2"), MakeBudget("50%")}) == 2);
  CHECK(deleted({MakeBudget("4"), MakeBudget("50%")}) == 3);  // ceil(2.5)
  // An inactive scheduled budget (Sundays) does not restrict anything.
  CHECK(deleted({MakeBudget("100%"), MakeBudget("0", {}, "0 0 * * 0", absl::Hours(1))}) == 5);
  // A budget for another reason does not restrict emptiness.
  CHECK(deleted({MakeBudget("3"), MakeBudget("1", {"Drifted", "Underutilized"})}) == 3);
}

TEST_CASE("budgets are per NodePool", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool("a"));
  snap.node_pools.push_back(DisruptionPool("b"));
  snap.node_pools[0].budgets = {MakeBudget("1")};
  snap.node_pools[1].budgets = {MakeBudget("1")};
  for (const char* n : {"a1", "a2"}) AddManagedNode(snap, *catalog, n, "a", "medium");
  for (const char* n : {"b1", "b2"}) AddManagedNode(snap, *catalog, n, "b", "medium");
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  const std::vector<std::string>& c = plan.commands[0].candidates;
  REQUIRE(c.size() == 2);
  CHECK(c[0][0] == 'a');
  CHECK(c[1][0] == 'b');
}

TEST_CASE("an invalid cron schedule in a budget makes Create fail naming the NodePool",
          "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].metadata.name = "batch";
  snap.node_pools[0].budgets = {MakeBudget("0", {}, "0 25 * * *", absl::Hours(1))};
  AddManagedNode(snap, *catalog, "e1", "batch", "medium");
  absl::StatusOr<Consolidator> c = Consolidator::Create(snap, catalog, DisruptionNow());
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(c.status().message()), Catch::Contains("batch"));
  CHECK_THAT(std::string(c.status().message()), Catch::Contains("0 25 * * *"));
}

// ---------------------------------------------------------------------------------------------
// consolidateAfter (docs/design.md §6.6)

TEST_CASE("consolidateAfter Never disables emptiness and consolidation", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].consolidate_after = std::nullopt;
  AddManagedNode(snap, *catalog, "empty", "default", "medium");
  AddLoneAndBusy(snap, *catalog);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(plan.commands.empty());
  for (const char* n : {"empty", "lone", "busy"}) {
    INFO(n);
    CHECK_THAT(KeptOr(plan, n), Catch::Contains("consolidateAfter"));
  }
}

TEST_CASE("a node whose last pod event is within consolidateAfter is kept", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].consolidate_after = absl::Minutes(10);
  AddManagedNode(snap, *catalog, "recent", "default", "medium");
  AddManagedNode(snap, *catalog, "settled", "default", "medium");
  AddManagedNode(snap, *catalog, "never-had-pods", "default", "medium");  // Initialized 24h ago
  FindClaimMutable(snap, "recent")->last_pod_event_time = DisruptionNow() - absl::Minutes(5);
  FindClaimMutable(snap, "settled")->last_pod_event_time = DisruptionNow() - absl::Minutes(15);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"never-had-pods", "settled"});
  CHECK_THAT(KeptOr(plan, "recent"), Catch::Contains("consolidateAfter"));
}

TEST_CASE("consolidateAfter also holds back underutilized nodes", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].consolidate_after = absl::Hours(1);
  AddLoneAndBusy(snap, *catalog);
  FindClaimMutable(snap, "lone")->last_pod_event_time = DisruptionNow() - absl::Minutes(30);
  FindClaimMutable(snap, "busy")->last_pod_event_time = DisruptionNow() - absl::Minutes(30);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(plan.commands.empty());
  CHECK_THAT(KeptOr(plan, "lone"), Catch::Contains("consolidateAfter"));
}

// ---------------------------------------------------------------------------------------------
// do-not-disrupt and PDBs (docs/design.md §6.2)

TEST_CASE("the node annotation do-not-disrupt blocks only with the value \"true\"",
          "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "pinned", "default", "medium");
  AddManagedNode(snap, *catalog, "not-pinned", "default", "medium");
  AddManagedNode(snap, *catalog, "yes-pinned", "default", "medium");
  FindNodeMutable(snap, "pinned")->metadata.annotations[kDnd] = "true";
  FindNodeMutable(snap, "not-pinned")->metadata.annotations[kDnd] = "false";
  FindNodeMutable(snap, "yes-pinned")->metadata.annotations[kDnd] = "yes";
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"not-pinned", "yes-pinned"});
  CHECK_THAT(KeptOr(plan, "pinned"), Catch::Contains("do-not-disrupt"));
  CHECK(plan.candidate_count == 2);
}

TEST_CASE("a pod with do-not-disrupt blocks its node", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddLoneAndBusy(snap, *catalog);
  Pod& lone_pod = snap.pods[0];
  REQUIRE(lone_pod.metadata.name == "lone-0");
  const absl::Time now = DisruptionNow();

  auto blocked = [&]() {
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    if (CommandIndexOf(plan, "lone") >= 0) return false;
    CHECK_THAT(KeptOr(plan, "lone"), Catch::Contains("do-not-disrupt"));
    return true;
  };

  SECTION("without the annotation the node is deleted") {
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE_FALSE(plan.commands.empty());
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"lone"});
    CHECK(plan.commands[0].decision == DisruptionDecision::kDelete);
    CHECK(plan.commands[0].reason == DisruptionReason::kUnderutilized);
  }
  SECTION("\"true\" blocks") {
    lone_pod.metadata.annotations[kDnd] = "true";
    CHECK(blocked());
  }
  SECTION("a duration still running since status.startTime blocks") {
    lone_pod.metadata.annotations[kDnd] = "1h";
    lone_pod.start_time = now - absl::Minutes(10);
    CHECK(blocked());
  }
  SECTION("an elapsed duration does not block") {
    lone_pod.metadata.annotations[kDnd] = "1h";
    lone_pod.start_time = now - absl::Hours(2);
    CHECK_FALSE(blocked());
  }
  SECTION("a compound Go duration is understood") {
    lone_pod.metadata.annotations[kDnd] = "1h30m";
    lone_pod.start_time = now - absl::Minutes(80);
    CHECK(blocked());
    lone_pod.start_time = now - absl::Minutes(100);
    CHECK_FALSE(blocked());
  }
  SECTION("a duration without a startTime blocks") {
    lone_pod.metadata.annotations[kDnd] = "5m";
    lone_pod.start_time = std::nullopt;
    CHECK(blocked());
  }
  SECTION("an unparsable value is ignored") {
    lone_pod.metadata.annotations[kDnd] = "forever";
    CHECK_FALSE(blocked());
  }
  SECTION("a zero or negative duration is ignored") {
    lone_pod.metadata.annotations[kDnd] = "0s";
    CHECK_FALSE(blocked());
    lone_pod.metadata.annotations[kDnd] = "-5m";
    CHECK_FALSE(blocked());
  }
  SECTION("a terminating pod does not block") {
    lone_pod.metadata.annotations[kDnd] = "true";
    lone_pod.metadata.deletion_timestamp = now - absl::Seconds(5);
    CHECK_FALSE(blocked());
  }
  SECTION("a terminal pod does not block") {
    lone_pod.metadata.annotations[kDnd] = "true";
    lone_pod.phase = "Succeeded";
    CHECK_FALSE(blocked());
  }
}

TEST_CASE("do-not-disrupt on a pod also blocks emptiness of a DaemonSet-only node",
          "[consolidator]") {
  // Active pods with do-not-disrupt block, whether reschedulable or not.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "daemons", "default", "medium");
  snap.pods.push_back(DaemonPod("agent", "daemons", "100m").Annotation(kDnd, "true"));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(plan.commands.empty());
  CHECK_THAT(KeptOr(plan, "daemons"), Catch::Contains("do-not-disrupt"));
}

TEST_CASE("a PDB that allows no disruption blocks the node", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddLoneAndBusy(snap, *catalog);
  SECTION("disruptionsAllowed 0 blocks") {
    snap.pdbs.push_back(MakePdb("lone-pdb", {{"app", "lone"}}, 0));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(CommandIndexOf(plan, "lone") < 0);
    CHECK_THAT(KeptOr(plan, "lone"), Catch::Contains("pdb") && Catch::Contains("lone-pdb"));
  }
  SECTION("disruptionsAllowed 1 does not block") {
    snap.pdbs.push_back(MakePdb("lone-pdb", {{"app", "lone"}}, 1));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE_FALSE(plan.commands.empty());
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"lone"});
  }
  SECTION("a PDB of another namespace does not select the pod") {
    karp::PodDisruptionBudget pdb = MakePdb("lone-pdb", {{"app", "lone"}}, 0);
    pdb.metadata.namespace_ = "other";
    snap.pdbs.push_back(pdb);
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE_FALSE(plan.commands.empty());
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"lone"});
  }
  SECTION("without a status, maxUnavailable 0 blocks") {
    karp::PodDisruptionBudget pdb = MakePdb("lone-pdb", {{"app", "lone"}}, std::nullopt);
    pdb.max_unavailable = "0";
    snap.pdbs.push_back(pdb);
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(CommandIndexOf(plan, "lone") < 0);
    CHECK_THAT(KeptOr(plan, "lone"), Catch::Contains("lone-pdb"));
  }
  SECTION("without a status, minAvailable 100% blocks") {
    karp::PodDisruptionBudget pdb = MakePdb("lone-pdb", {{"app", "lone"}}, std::nullopt);
    pdb.min_available = "100%";
    snap.pdbs.push_back(pdb);
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(CommandIndexOf(plan, "lone") < 0);
  }
  SECTION("without a status, maxUnavailable 1 does not block") {
    karp::PodDisruptionBudget pdb = MakePdb("lone-pdb", {{"app", "lone"}}, std::nullopt);
    pdb.max_unavailable = "1";
    snap.pdbs.push_back(pdb);
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE_FALSE(plan.commands.empty());
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"lone"});
  }
  SECTION("unhealthyPodEvictionPolicy AlwaysAllow lets a not-ready pod go") {
    karp::PodDisruptionBudget pdb = MakePdb("lone-pdb", {{"app", "lone"}}, 0);
    pdb.unhealthy_pod_eviction_policy = "AlwaysAllow";
    snap.pdbs.push_back(pdb);
    snap.pods[0].phase = "Pending";  // bound, containers not ready
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE_FALSE(plan.commands.empty());
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"lone"});
  }
  SECTION("unhealthyPodEvictionPolicy AlwaysAllow does not help a running pod") {
    karp::PodDisruptionBudget pdb = MakePdb("lone-pdb", {{"app", "lone"}}, 0);
    pdb.unhealthy_pod_eviction_policy = "AlwaysAllow";
    snap.pdbs.push_back(pdb);
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(CommandIndexOf(plan, "lone") < 0);
  }
  SECTION("a PDB on a pod that tolerates the disrupted taint does not block") {
    // Such a pod is not evictable (docs/design.md §6.2).
    snap.pdbs.push_back(MakePdb("lone-pdb", {{"app", "lone"}}, 0));
    snap.pods[0].tolerations.push_back(karp::testing::TolerateExists(""));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE_FALSE(plan.commands.empty());
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"lone"});
  }
}

TEST_CASE("a pod selected by several PDBs blocks its node", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddLoneAndBusy(snap, *catalog);
  snap.pdbs.push_back(MakePdb("pdb-a", {{"app", "lone"}}, 5));
  snap.pdbs.push_back(MakePdb("pdb-b", {}, 5));  // empty selector: every pod of the namespace
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(CommandIndexOf(plan, "lone") < 0);
  CHECK_THAT(KeptOr(plan, "lone"), Catch::Contains("multiple PDBs"));
  // busy's pods are selected by pdb-b alone (which allows disruptions): not blocked.
  CHECK_THAT(KeptOr(plan, "busy"), !Catch::Contains("multiple PDBs"));
}

// ---------------------------------------------------------------------------------------------
// Candidates (docs/design.md §6.2)

TEST_CASE("uninitialized and unmanaged nodes are not candidates", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "booting", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(1), /*initialized=*/false);
  snap.nodes.push_back(
      karp::testing::MakeNode("byo", "4", "8Gi", 40, {{std::string(karp::kLabelZone), kZ1}}));
  AddManagedNode(snap, *catalog, "orphan", "ghost-pool", "medium");
  AddManagedNode(snap, *catalog, "empty", "default", "medium");
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"empty"});
  CHECK_THAT(KeptOr(plan, "booting"), Catch::Contains("not initialized"));
  CHECK_THAT(KeptOr(plan, "byo"), Catch::Contains("managed"));
  CHECK_THAT(KeptOr(plan, "orphan"), Catch::Contains("not found"));
  CHECK(plan.candidate_count == 1);
}

TEST_CASE("a node being deleted is not a candidate", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "leaving", "default", "medium");
  FindNodeMutable(snap, "leaving")->metadata.deletion_timestamp =
      DisruptionNow() - absl::Minutes(1);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(plan.commands.empty());
  CHECK(KeptReason(plan, "leaving").has_value());
}

// ---------------------------------------------------------------------------------------------
// Consolidation decisions (docs/design.md §6.6 - §6.8)

TEST_CASE("WhenEmpty keeps underutilized nodes", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].consolidation_policy = ConsolidationPolicy::kWhenEmpty;
  AddLoneAndBusy(snap, *catalog);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(plan.commands.empty());
  CHECK_THAT(KeptOr(plan, "lone"), Catch::Contains("consolidationPolicy WhenEmpty"));
  CHECK_THAT(KeptOr(plan, "busy"), Catch::Contains("consolidationPolicy WhenEmpty"));
}

TEST_CASE("a node whose pods fit on other nodes is deleted", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddLoneAndBusy(snap, *catalog);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  const DisruptionCommand& c = plan.commands[0];
  CHECK(c.decision == DisruptionDecision::kDelete);
  CHECK(c.reason == DisruptionReason::kUnderutilized);
  CHECK(c.candidates == std::vector<std::string>{"lone"});
  CHECK(c.replacements.empty());
  CHECK(c.savings_per_hour == Approx(0.20));
  // busy now holds 3.5 cpu: no cheaper type fits, and deleting it has nowhere to go.
  CHECK(KeptReason(plan, "busy").has_value());
}

TEST_CASE("pending pods take part in the consolidation simulation", "[consolidator]") {
  // A pending 1-cpu pod is placed first (larger) and takes busy's last free cpu, so lone's pod
  // needs a new node: lone is replaced by a small instead of deleted.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddLoneAndBusy(snap, *catalog);
  snap.pods.push_back(karp::testing::MakePod("waiting", "1"));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE_FALSE(plan.commands.empty());
  const DisruptionCommand& c = plan.commands[0];
  CHECK(c.candidates == std::vector<std::string>{"lone"});
  CHECK(c.decision == DisruptionDecision::kReplace);
  REQUIRE(c.replacements.size() == 1);
  REQUIRE(c.replacements[0].launch.has_value());
  CHECK(c.replacements[0].launch->instance_type == "small");
  CHECK(std::find(c.replacements[0].pods.begin(), c.replacements[0].pods.end(), "default/lone-0") !=
        c.replacements[0].pods.end());
}

TEST_CASE("moved pods skip nodes still inside consolidateAfter", "[consolidator]") {
  // Semantics §5.8: busy had a pod event 5 minutes ago (consolidateAfter 10m), so the
  // simulation does not move lone's pod there: lone is replaced by a small, not deleted.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].consolidate_after = absl::Minutes(10);
  AddLoneAndBusy(snap, *catalog);
  FindClaimMutable(snap, "busy")->last_pod_event_time = DisruptionNow() - absl::Minutes(5);
  FindClaimMutable(snap, "lone")->last_pod_event_time = DisruptionNow() - absl::Minutes(30);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"lone"});
  CHECK(plan.commands[0].decision == DisruptionDecision::kReplace);
  CHECK_THAT(KeptOr(plan, "busy"), Catch::Contains("consolidateAfter"));
}

TEST_CASE("a node is not deleted when its pods do not fit elsewhere and no cheaper type exists",
          "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddFullNode(snap, *catalog, "full-1");
  AddFullNode(snap, *catalog, "full-2");
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(plan.commands.empty());
}

TEST_CASE("a node is replaced only by a strictly cheaper one", "[consolidator]") {
  SECTION("large with one 1-cpu pod is replaced by small") {
    auto catalog = Sml();
    ClusterSnapshot snap = OnePool();
    AddManagedNode(snap, *catalog, "big", "default", "large");
    snap.pods.push_back(BoundPod("web-0", "big", "1"));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    const DisruptionCommand& c = plan.commands[0];
    CHECK(c.decision == DisruptionDecision::kReplace);
    CHECK(c.reason == DisruptionReason::kUnderutilized);
    CHECK(c.candidates == std::vector<std::string>{"big"});
    REQUIRE(c.replacements.size() == 1);
    const NewNodeClaim& r = c.replacements[0];
    CHECK(r.node_pool == "default");
    REQUIRE(r.launch.has_value());
    CHECK(r.launch->instance_type == "small");
    CHECK(r.launch->price == Approx(0.10));
    CHECK(std::find(r.instance_types.begin(), r.instance_types.end(), "large") ==
          r.instance_types.end());
    CHECK(r.instance_types.front() == "small");
    CHECK(std::find(r.pods.begin(), r.pods.end(), "default/web-0") != r.pods.end());
    CHECK(c.savings_per_hour == Approx(0.30));
    CHECK(plan.savings_per_hour == Approx(0.30));
  }
  SECTION("an equally priced type gives no command") {
    auto catalog = MakeCatalog({
        karp::testing::MakeInstanceType("small", "2", "4Gi", 20, karp::testing::AllZones(), {kOD},
                                        0.10),
        karp::testing::MakeInstanceType("small-twin", "2", "4Gi", 20, karp::testing::AllZones(),
                                        {kOD}, 0.10),
    });
    ClusterSnapshot snap = OnePool();
    AddManagedNode(snap, *catalog, "node", "default", "small");
    snap.pods.push_back(BoundPod("web-0", "node", "1"));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
    CHECK_THAT(KeptOr(plan, "node"), Catch::Contains("cheaper"));
  }
}

TEST_CASE("the price check uses the worst launch price across the allowed zones",
          "[consolidator]") {
  // "zonal" (2 cpu) is $0.05 in zone 1; the node is a $0.20 medium in zone 1.
  auto catalog_with = [](double zone2_price) {
    return MakeCatalog({
        karp::testing::MakeInstanceType("medium", "4", "8Gi", 40, karp::testing::AllZones(), {kOD},
                                        0.20),
        TypeWithOfferings("zonal", "2", "4Gi", 20,
                          {MakeOffering(kZ1, kOD, 0.05), MakeOffering(kZ2, kOD, zone2_price)}),
    });
  };
  SECTION("dearer in another allowed zone: no replacement") {
    auto catalog = catalog_with(0.50);
    ClusterSnapshot snap = OnePool();
    AddManagedNode(snap, *catalog, "node", "default", "medium");
    snap.pods.push_back(BoundPod("web-0", "node", "1"));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
  }
  SECTION("cheaper in every allowed zone: replaced, launched at the cheapest offering") {
    auto catalog = catalog_with(0.15);
    ClusterSnapshot snap = OnePool();
    AddManagedNode(snap, *catalog, "node", "default", "medium");
    snap.pods.push_back(BoundPod("web-0", "node", "1"));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    REQUIRE(plan.commands[0].replacements.size() == 1);
    const NewNodeClaim& r = plan.commands[0].replacements[0];
    REQUIRE(r.launch.has_value());
    CHECK(r.launch->instance_type == "zonal");
    CHECK(r.launch->zone == kZ1);
    CHECK(plan.commands[0].savings_per_hour == Approx(0.15));
  }
  SECTION("a pod pinned to the cheap zone makes the replacement priced there") {
    auto catalog = catalog_with(0.50);
    ClusterSnapshot snap = OnePool();
    AddManagedNode(snap, *catalog, "node", "default", "medium");
    snap.pods.push_back(
        BoundPod("web-0", "node", "1").NodeSelector(std::string(karp::kLabelZone), kZ1));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision == DisruptionDecision::kReplace);
    REQUIRE(plan.commands[0].replacements.size() == 1);
    REQUIRE(plan.commands[0].replacements[0].launch.has_value());
    CHECK(plan.commands[0].replacements[0].launch->instance_type == "zonal");
  }
}

TEST_CASE("when spot is allowed the price check uses the worst spot price", "[consolidator]") {
  // small: on-demand $0.10 but spot $0.45. A replacement allowing spot would launch spot, whose
  // worst price is above the $0.40 node: no replacement, although on-demand small is cheaper.
  std::vector<Offering> offerings;
  for (const std::string& z : karp::testing::AllZones())
    offerings.push_back(MakeOffering(z, kOD, 0.10));
  offerings.push_back(MakeOffering(kZ1, kSpot, 0.45));
  auto catalog = MakeCatalog({
      TypeWithOfferings("small", "2", "4Gi", 20, offerings),
      karp::testing::MakeInstanceType("large", "8", "16Gi", 80, karp::testing::AllZones(), {kOD},
                                      0.40),
  });
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "node", "default", "large", kZ1, kOD);
  snap.pods.push_back(BoundPod("web-0", "node", "1"));
  SECTION("pool allows both capacity types") {
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
  }
  SECTION("pool requires on-demand: the on-demand price is the one checked") {
    snap.node_pools[0].requirements = {
        Expr(std::string(karp::kLabelCapacityType), Operator::kIn, {kOD})};
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    REQUIRE(plan.commands[0].replacements.size() == 1);
    REQUIRE(plan.commands[0].replacements[0].launch.has_value());
    CHECK(plan.commands[0].replacements[0].launch->instance_type == "small");
    CHECK(plan.commands[0].replacements[0].launch->capacity_type == kOD);
  }
}

TEST_CASE("an on-demand node may be replaced by a cheaper spot node, restricted to spot",
          "[consolidator]") {
  // small: on-demand $0.10, spot $0.04. Only the spot price is cheaper than the node.
  std::vector<Offering> offerings;
  for (const std::string& z : karp::testing::AllZones())
    offerings.push_back(MakeOffering(z, kOD, 0.10));
  offerings.push_back(MakeOffering(kZ1, kSpot, 0.04));
  offerings.push_back(MakeOffering(kZ2, kSpot, 0.04));
  auto catalog = MakeCatalog({TypeWithOfferings("small", "2", "4Gi", 20, offerings)});
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "node", "default", "small", kZ1, kOD);
  snap.pods.push_back(BoundPod("web-0", "node", "1"));
  SECTION("the pool allows spot") {
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    const DisruptionCommand& c = plan.commands[0];
    CHECK(c.decision == DisruptionDecision::kReplace);
    REQUIRE(c.replacements.size() == 1);
    const NewNodeClaim& r = c.replacements[0];
    REQUIRE(r.launch.has_value());
    CHECK(r.launch->capacity_type == kSpot);
    CHECK(r.launch->price == Approx(0.04));
    const karp::Requirement* ct = r.requirements.Find(karp::kLabelCapacityType);
    REQUIRE(ct != nullptr);
    CHECK(ct->Has(kSpot));
    CHECK_FALSE(ct->Has(kOD));
    CHECK(c.savings_per_hour == Approx(0.06));
  }
  SECTION("the pool requires on-demand: no cheaper option") {
    snap.node_pools[0].requirements = {
        Expr(std::string(karp::kLabelCapacityType), Operator::kIn, {kOD})};
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
  }
}

// A catalog with a spot-only 8-cpu "big" at $0.40 and `cheaper` spot-only 2-cpu types
// s00, s01, ... at $0.01, $0.02, ...
std::shared_ptr<const InstanceCatalog> SpotCatalog(int cheaper) {
  std::vector<InstanceType> types;
  types.push_back(TypeWithOfferings(
      "big", "8", "16Gi", 80, {MakeOffering(kZ1, kSpot, 0.40), MakeOffering(kZ2, kSpot, 0.40)}));
  for (int i = 0; i < cheaper; ++i) {
    const double price = 0.01 * (i + 1);
    const std::string name = std::string(i < 10 ? "s0" : "s") + std::to_string(i);
    types.push_back(TypeWithOfferings(
        name, "2", "4Gi", 20, {MakeOffering(kZ1, kSpot, price), MakeOffering(kZ2, kSpot, price)}));
  }
  return MakeCatalog(std::move(types));
}

ClusterSnapshot OneBigSpotNode(const InstanceCatalog& catalog) {
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, catalog, "spot-node", "default", "big", kZ1, kSpot);
  snap.pods.push_back(BoundPod("web-0", "spot-node", "1"));
  return snap;
}

TEST_CASE("spot-to-spot consolidation is off by default", "[consolidator]") {
  auto catalog = SpotCatalog(20);
  const ClusterSnapshot snap = OneBigSpotNode(*catalog);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(plan.commands.empty());
  CHECK_THAT(KeptOr(plan, "spot-node"), Catch::Contains("SpotToSpot"));
}

TEST_CASE("spot-to-spot replacement needs 15 cheaper types and keeps the 15 cheapest",
          "[consolidator]") {
  ConsolidationOptions options;
  options.spot_to_spot = true;
  SECTION("14 cheaper types: no command") {
    auto catalog = SpotCatalog(14);
    const ClusterSnapshot snap = OneBigSpotNode(*catalog);
    const ConsolidationPlan plan = PlanOf(snap, catalog, options);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
    CHECK_THAT(KeptOr(plan, "spot-node"), Catch::Contains("15"));
  }
  SECTION("15 cheaper types: replaced") {
    auto catalog = SpotCatalog(15);
    const ClusterSnapshot snap = OneBigSpotNode(*catalog);
    const ConsolidationPlan plan = PlanOf(snap, catalog, options);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    REQUIRE(plan.commands[0].replacements.size() == 1);
    const NewNodeClaim& r = plan.commands[0].replacements[0];
    CHECK(r.instance_types.size() == 15);
    REQUIRE(r.launch.has_value());
    CHECK(r.launch->instance_type == "s00");
    CHECK(r.launch->capacity_type == kSpot);
    CHECK(plan.commands[0].savings_per_hour == Approx(0.39));
  }
  SECTION("20 cheaper types: truncated to the 15 cheapest") {
    auto catalog = SpotCatalog(20);
    const ClusterSnapshot snap = OneBigSpotNode(*catalog);
    const ConsolidationPlan plan = PlanOf(snap, catalog, options);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    REQUIRE(plan.commands[0].replacements.size() == 1);
    const NewNodeClaim& r = plan.commands[0].replacements[0];
    REQUIRE(r.instance_types.size() == 15);
    std::set<std::string> types(r.instance_types.begin(), r.instance_types.end());
    CHECK(types.count("s00") == 1);
    CHECK(types.count("s14") == 1);
    CHECK(types.count("s15") == 0);
    CHECK(types.count("s19") == 0);
  }
}

TEST_CASE("multi-node spot-to-spot needs the gate but not 15 cheaper types", "[consolidator]") {
  // Two big spot nodes ($0.80) with a 1-cpu pod each fit one s00 ($0.01). The nodes are
  // tainted so that neither pod can move to the other node.
  auto catalog = SpotCatalog(2);
  ClusterSnapshot snap = OnePool();
  for (const char* n : {"spot-a", "spot-b"}) {
    AddManagedNode(snap, *catalog, n, "default", "big", kZ1, kSpot);
    FindNodeMutable(snap, n)->taints.push_back(karp::testing::MakeTaint("dedicated", n));
    snap.pods.push_back(BoundPod(std::string(n) + "-0", n, "1"));
  }
  SECTION("gate off") {
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
  }
  SECTION("gate on") {
    ConsolidationOptions options;
    options.spot_to_spot = true;
    const ConsolidationPlan plan = PlanOf(snap, catalog, options);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    const DisruptionCommand& c = plan.commands[0];
    CHECK(c.candidates == std::vector<std::string>{"spot-a", "spot-b"});
    CHECK(c.decision == DisruptionDecision::kReplace);
    REQUIRE(c.replacements.size() == 1);
    REQUIRE(c.replacements[0].launch.has_value());
    CHECK(c.replacements[0].launch->capacity_type == kSpot);
    CHECK(c.replacements[0].launch->instance_type == "s00");
  }
}

TEST_CASE("multi-node consolidation merges several nodes into one cheaper replacement",
          "[consolidator]") {
  // Three mediums ($0.60) each with a 1.5-cpu pod: 4.5 cpu fit one large ($0.40).
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  for (int i = 1; i <= 3; ++i) {
    const std::string n = "m" + std::to_string(i);
    AddManagedNode(snap, *catalog, n, "default", "medium");
    snap.pods.push_back(BoundPod("p" + std::to_string(i), n, "1500m"));
  }
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  const DisruptionCommand& c = plan.commands[0];
  CHECK(c.decision == DisruptionDecision::kReplace);
  CHECK(c.reason == DisruptionReason::kUnderutilized);
  CHECK(c.candidates == std::vector<std::string>{"m1", "m2", "m3"});
  REQUIRE(c.replacements.size() == 1);
  REQUIRE(c.replacements[0].launch.has_value());
  CHECK(c.replacements[0].launch->instance_type == "large");
  CHECK(c.replacements[0].pods.size() == 3);
  CHECK(c.savings_per_hour == Approx(0.20));
  CHECK(plan.kept.empty());
}

TEST_CASE("multi-node filterOutSameInstanceType compares worst launch prices as the reference does",
          "[consolidator]") {
  // Two smalls in zone 2 ($0.60 each), 900m each: one small would hold both pods. The small's
  // cheapest offering ($0.40 in zone 1) is below the candidates' $0.60 but its worst launch
  // price ($0.60) is not, so the reference drops it from the merged replacement and the 2 -> 1
  // merge is invalid; single-node consolidation then deletes one node instead.
  using karp::testing::MakeOffering;
  using karp::testing::TypeWithOfferings;
  auto catalog = karp::testing::MakeCatalog(std::vector<karp::InstanceType>{
      TypeWithOfferings("small", "2", "4Gi", 20,
                        {MakeOffering(kZ1, kOD, 0.40), MakeOffering(kZ2, kOD, 0.60)}),
      TypeWithOfferings("big", "4", "8Gi", 40,
                        {MakeOffering(kZ1, kOD, 1.00), MakeOffering(kZ2, kOD, 1.00)}),
  });
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "n1", "default", "small", kZ2);
  AddManagedNode(snap, *catalog, "n2", "default", "small", kZ2);
  snap.pods.push_back(BoundPod("p1", "n1", "900m"));
  snap.pods.push_back(BoundPod("p2", "n2", "900m"));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  const DisruptionCommand& c = plan.commands[0];
  CHECK(c.decision == DisruptionDecision::kDelete);
  CHECK(c.candidates.size() == 1);
  CHECK(c.savings_per_hour == Approx(0.60));
}

TEST_CASE("multi-node consolidation deletes several nodes when their pods fit elsewhere",
          "[consolidator]") {
  // Two lone nodes (500m each) and one node with 3 free cpus: both lone nodes go at once.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  for (const char* n : {"lone-a", "lone-b"}) {
    AddManagedNode(snap, *catalog, n, "default", "medium");
    snap.pods.push_back(BoundPod(std::string(n) + "-0", n, "500m"));
  }
  AddManagedNode(snap, *catalog, "host", "default", "large");
  for (int i = 0; i < 5; ++i)
    snap.pods.push_back(BoundPod("host-" + std::to_string(i), "host", "1"));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE_FALSE(plan.commands.empty());
  const DisruptionCommand& c = plan.commands[0];
  CHECK(c.decision == DisruptionDecision::kDelete);
  CHECK(c.reason == DisruptionReason::kUnderutilized);
  CHECK(c.candidates == std::vector<std::string>{"lone-a", "lone-b"});
  CHECK(c.savings_per_hour == Approx(0.40));
}

TEST_CASE("multi-node batches can exceed max_multi_node_candidates by one (reference quirk)",
          "[consolidator]") {
  // Semantics §6.7 / §10.10: hi = min(max, len - 1) indexes the last element, so the prefix
  // [0..hi] holds max + 1 nodes.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  for (int i = 1; i <= 3; ++i) {
    const std::string n = "m" + std::to_string(i);
    AddManagedNode(snap, *catalog, n, "default", "medium");
    snap.pods.push_back(BoundPod("p" + std::to_string(i), n, "1500m"));
  }
  ConsolidationOptions options;
  options.max_multi_node_candidates = 1;
  const ConsolidationPlan plan = PlanOf(snap, catalog, options);
  INFO(Describe(plan));
  REQUIRE_FALSE(plan.commands.empty());
  CHECK(plan.commands[0].candidates.size() == 2);
}

TEST_CASE("candidates are ordered by savings ratio, or by disruption cost before v1.14",
          "[consolidator]") {
  // Budget 1 over two empty nodes: a $0.40 node with two DaemonSet pods and a $0.10 node
  // without pods. Savings ratio (price / 1) prefers the large one; disruption cost (sum of
  // eviction costs of all pods) prefers the one without pods.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("1")};
  AddManagedNode(snap, *catalog, "a-large", "default", "large");
  snap.pods.push_back(DaemonPod("ds-1", "a-large", "100m"));
  snap.pods.push_back(DaemonPod("ds-2", "a-large", "100m"));
  AddManagedNode(snap, *catalog, "b-small", "default", "small");
  SECTION("savings ratio (default)") {
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"a-large"});
  }
  SECTION("disruption cost") {
    ConsolidationOptions options;
    options.candidate_order = karp::CandidateOrder::kDisruptionCost;
    const ConsolidationPlan plan = PlanOf(snap, catalog, options);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"b-small"});
  }
}

TEST_CASE("savings per hour is the candidates' price minus the replacement's launch price",
          "[consolidator]") {
  // An empty small deleted ($0.10), then a large replaced by a small ($0.40 - $0.10).
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "empty", "default", "small");
  AddManagedNode(snap, *catalog, "big", "default", "large");
  snap.pods.push_back(BoundPod("web-0", "big", "1"));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 2);
  CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
  CHECK(plan.commands[0].savings_per_hour == Approx(0.10));
  CHECK(plan.commands[1].reason == DisruptionReason::kUnderutilized);
  REQUIRE(plan.commands[1].replacements.size() == 1);
  REQUIRE(plan.commands[1].replacements[0].launch.has_value());
  CHECK(plan.commands[1].savings_per_hour ==
        Approx(0.40 - plan.commands[1].replacements[0].launch->price));
  CHECK(plan.savings_per_hour == Approx(0.10 + 0.30));
}

TEST_CASE("Balanced policy rejects moves whose savings do not justify the disruption",
          "[consolidator]") {
  // Semantics §6.9: one $0.11 node with nine pods could be replaced by a $0.10 node. Savings
  // 0.01 of a $0.11 pool (9%) for all of its disruption (100%): score 0.09 < 0.5.
  auto catalog = MakeCatalog({
      karp::testing::MakeInstanceType("small", "2", "4Gi", 20, karp::testing::AllZones(), {kOD},
                                      0.10),
      karp::testing::MakeInstanceType("medium", "4", "8Gi", 40, karp::testing::AllZones(), {kOD},
                                      0.11),
  });
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "node", "default", "medium");
  for (int i = 0; i < 9; ++i)
    snap.pods.push_back(BoundPod("p" + std::to_string(i), "node", "100m"));
  SECTION("WhenEmptyOrUnderutilized takes any cheaper move") {
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision == DisruptionDecision::kReplace);
  }
  SECTION("Balanced does not") {
    snap.node_pools[0].consolidation_policy = ConsolidationPolicy::kBalanced;
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
  }
}

TEST_CASE("Balanced policy approves moves with a score of at least 0.5", "[consolidator]") {
  // Deleting lone saves $0.20 of a $0.40 pool (0.5) for a disruption of 2 out of 2 + 4
  // (1/3): score 1.5.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].consolidation_policy = ConsolidationPolicy::kBalanced;
  AddLoneAndBusy(snap, *catalog);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].decision == DisruptionDecision::kDelete);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"lone"});
}

// ---------------------------------------------------------------------------------------------
// Drift (docs/design.md §6.5)

TEST_CASE("a node with the Drifted condition is replaced with reason drifted", "[consolidator]") {
  // small is the cheapest type, so consolidation alone would keep the node.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "old", "default", "small");
  snap.pods.push_back(BoundPod("web-0", "old", "1"));
  SetClaimCondition(*FindClaimMutable(snap, "old"), "Drifted", "True", "NodePoolDrifted",
                    DisruptionNow() - absl::Hours(1));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  const DisruptionCommand& c = plan.commands[0];
  CHECK(c.reason == DisruptionReason::kDrifted);
  CHECK(c.decision == DisruptionDecision::kReplace);
  CHECK(c.candidates == std::vector<std::string>{"old"});
  REQUIRE(c.replacements.size() == 1);
  CHECK(std::find(c.replacements[0].pods.begin(), c.replacements[0].pods.end(), "default/web-0") !=
        c.replacements[0].pods.end());
}

TEST_CASE("a drifted node whose pods fit elsewhere is deleted with reason drifted",
          "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "old", "default", "small");
  snap.pods.push_back(BoundPod("web-0", "old", "1"));
  AddManagedNode(snap, *catalog, "roomy", "default", "medium");
  snap.pods.push_back(BoundPod("roomy-0", "roomy", "3"));
  SetClaimCondition(*FindClaimMutable(snap, "old"), "Drifted", "True", "NodePoolDrifted",
                    DisruptionNow() - absl::Hours(1));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE_FALSE(plan.commands.empty());
  CHECK(plan.commands[0].reason == DisruptionReason::kDrifted);
  CHECK(plan.commands[0].decision == DisruptionDecision::kDelete);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"old"});
}

TEST_CASE("NodePool requirements that no longer match the NodeClaim labels are drift",
          "[consolidator]") {
  // RequirementsDrifted: the pool now requires spot; the node is on-demand.
  std::vector<Offering> offerings;
  for (const std::string& z : karp::testing::AllZones())
    offerings.push_back(MakeOffering(z, kOD, 0.10));
  offerings.push_back(MakeOffering(kZ1, kSpot, 0.04));
  auto catalog = MakeCatalog({TypeWithOfferings("small", "2", "4Gi", 20, offerings)});
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool(
      "default", {Expr(std::string(karp::kLabelCapacityType), Operator::kIn, {kSpot})}));
  AddManagedNode(snap, *catalog, "od-node", "default", "small", kZ1, kOD);
  snap.pods.push_back(BoundPod("web-0", "od-node", "1"));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE_FALSE(plan.commands.empty());
  const DisruptionCommand& c = plan.commands[0];
  CHECK(c.reason == DisruptionReason::kDrifted);
  CHECK(c.candidates == std::vector<std::string>{"od-node"});
  REQUIRE(c.replacements.size() == 1);
  REQUIRE(c.replacements[0].launch.has_value());
  CHECK(c.replacements[0].launch->capacity_type == kSpot);
}

TEST_CASE("a node whose instance type left the catalog is drift (InstanceTypeNotFound)",
          "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "retired", "default", "retired.xlarge");
  snap.pods.push_back(BoundPod("web-0", "retired", "1"));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE_FALSE(plan.commands.empty());
  CHECK(plan.commands[0].reason == DisruptionReason::kDrifted);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"retired"});
  REQUIRE(plan.commands[0].replacements.size() == 1);
}

TEST_CASE("a Drifted budget of 0 blocks drift", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("0", {"Drifted"}), MakeBudget("100%")};
  AddManagedNode(snap, *catalog, "old", "default", "small");
  snap.pods.push_back(BoundPod("web-0", "old", "1"));
  SetClaimCondition(*FindClaimMutable(snap, "old"), "Drifted", "True", "NodePoolDrifted",
                    DisruptionNow() - absl::Hours(1));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  // small is the cheapest type, so consolidation cannot take over either; the explanation
  // names both the drift budget and why consolidation kept the node.
  CHECK(plan.commands.empty());
  const std::string reason = KeptReason(plan, "old").value_or("");
  CHECK_THAT(reason, Catch::StartsWith("drifted (NodePoolDrifted) but budget: nodepool \"default\" "
                                       "allows no more Drifted disruptions; "));
  CHECK_THAT(reason, Catch::EndsWith("can't replace with a cheaper node"));
}

TEST_CASE("a drifted node blocked by the Drifted budget may still be consolidated",
          "[consolidator]") {
  // Semantics §6.1/§6.6: a method without commands hands over to the next one; the
  // consolidation filter does not exclude drifted nodes. The medium node's 1-cpu pod fits a
  // cheaper small, and the Underutilized budget allows it.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("0", {"Drifted"}), MakeBudget("100%")};
  AddManagedNode(snap, *catalog, "old", "default", "medium");
  snap.pods.push_back(BoundPod("web-0", "old", "1"));
  SetClaimCondition(*FindClaimMutable(snap, "old"), "Drifted", "True", "NodePoolDrifted",
                    DisruptionNow() - absl::Hours(1));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].reason == DisruptionReason::kUnderutilized);
  CHECK(plan.commands[0].decision == DisruptionDecision::kReplace);
}

TEST_CASE("drift replaces the oldest drifted node first, one node per loop", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  for (const char* n : {"a-recent", "b-old"}) {
    AddManagedNode(snap, *catalog, n, "default", "small");
    snap.pods.push_back(BoundPod(std::string(n) + "-0", n, "1500m"));
  }
  SetClaimCondition(*FindClaimMutable(snap, "a-recent"), "Drifted", "True", "NodePoolDrifted",
                    DisruptionNow() - absl::Hours(1));
  SetClaimCondition(*FindClaimMutable(snap, "b-old"), "Drifted", "True", "NodePoolDrifted",
                    DisruptionNow() - absl::Hours(5));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() >= 2);
  CHECK(plan.commands[0].reason == DisruptionReason::kDrifted);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"b-old"});
  CHECK(plan.commands[1].reason == DisruptionReason::kDrifted);
  CHECK(plan.commands[1].candidates == std::vector<std::string>{"a-recent"});
}

TEST_CASE("drift ignores blocking pods only when the NodeClaim has a terminationGracePeriod",
          "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "old", "default", "small");
  snap.pods.push_back(BoundPod("web-0", "old", "1").Annotation(kDnd, "true"));
  SetClaimCondition(*FindClaimMutable(snap, "old"), "Drifted", "True", "NodePoolDrifted",
                    DisruptionNow() - absl::Hours(1));
  SECTION("without terminationGracePeriod the pod blocks") {
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
    CHECK_THAT(KeptOr(plan, "old"), Catch::Contains("do-not-disrupt"));
  }
  SECTION("with terminationGracePeriod the node is replaced") {
    FindClaimMutable(snap, "old")->termination_grace_period = absl::Hours(1);
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].reason == DisruptionReason::kDrifted);
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"old"});
  }
}

// ---------------------------------------------------------------------------------------------
// Expiration (docs/design.md §6.14) and interruption

TEST_CASE("an expired node is deleted regardless of budgets", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("0")};
  AddManagedNode(snap, *catalog, "ancient", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(721));
  snap.pods.push_back(BoundPod("web-0", "ancient", "1"));
  AddManagedNode(snap, *catalog, "young", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(719));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  const DisruptionCommand& c = plan.commands[0];
  CHECK(c.reason == DisruptionReason::kExpired);
  CHECK(c.decision == DisruptionDecision::kDelete);
  CHECK(c.candidates == std::vector<std::string>{"ancient"});
  CHECK(c.replacements.empty());
  CHECK_THAT(KeptOr(plan, "young"), Catch::Contains("budget"));
}

TEST_CASE("an expired delete saves the node's price", "[consolidator]") {
  // DisruptionCommand::savings_per_hour is "candidate price - replacement launch price"; an
  // expired node is deleted without replacement.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "ancient", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(721));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].reason == DisruptionReason::kExpired);
  CHECK(plan.commands[0].savings_per_hour == Approx(0.20));
}

TEST_CASE("expiration does not wait for do-not-disrupt pods", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "ancient", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(800));
  snap.pods.push_back(BoundPod("web-0", "ancient", "1").Annotation(kDnd, "true"));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE_FALSE(plan.commands.empty());
  CHECK(plan.commands[0].reason == DisruptionReason::kExpired);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"ancient"});
}

TEST_CASE("expireAfter Never and a longer expireAfter do not expire", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("0")};
  AddManagedNode(snap, *catalog, "forever", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(5000));
  FindClaimMutable(snap, "forever")->expire_after = std::nullopt;
  AddManagedNode(snap, *catalog, "long", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(5000));
  FindClaimMutable(snap, "long")->expire_after = absl::Hours(6000);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(plan.commands.empty());
}

TEST_CASE("a node whose age nothing says is never expired", "[consolidator][age]") {
  // Neither the Node nor its NodeClaim carries a creationTimestamp (the epoch is the codec's
  // "absent"): the age is unknown, not 56 years (docs/design.md §6.2).
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("0")};
  AddManagedNode(snap, *catalog, "undated", "default", "medium", kZ1, kOD, absl::UnixEpoch());
  snap.pods.push_back(BoundPod("web-0", "undated", "1"));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(plan.commands.empty());
}

TEST_CASE("a NodeClaim without creationTimestamp takes its Node's", "[consolidator][age]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("0")};
  AddManagedNode(snap, *catalog, "old", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(800));
  FindClaimMutable(snap, "old")->metadata.creation_timestamp = absl::UnixEpoch();
  AddManagedNode(snap, *catalog, "young", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(24));
  FindClaimMutable(snap, "young")->metadata.creation_timestamp = absl::UnixEpoch();
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].reason == DisruptionReason::kExpired);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"old"});
}

TEST_CASE("a NodeClaim's creationTimestamp wins over its Node's", "[consolidator][age]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("0")};
  AddManagedNode(snap, *catalog, "n", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(24));
  // The Node registered long after an old claim was created: the claim's age counts.
  FindClaimMutable(snap, "n")->metadata.creation_timestamp = DisruptionNow() - absl::Hours(800);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].reason == DisruptionReason::kExpired);
}

TEST_CASE("interruption notices produce interrupted commands first, without budgets",
          "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].budgets = {MakeBudget("0")};
  AddManagedNode(snap, *catalog, "doomed", "default", "small", kZ1, kSpot);
  snap.pods.push_back(BoundPod("web-0", "doomed", "1"));
  AddManagedNode(snap, *catalog, "other", "default", "medium");
  ConsolidationOptions options;
  InterruptionEvent ev;
  ev.node = "doomed";
  ev.kind = "spot-interruption";
  ev.deadline = DisruptionNow() + absl::Minutes(2);
  options.interruptions.push_back(ev);
  InterruptionEvent unknown;
  unknown.node = "no-such-node";
  unknown.kind = "stopping";
  options.interruptions.push_back(unknown);
  const ConsolidationPlan plan = PlanOf(snap, catalog, options);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  const DisruptionCommand& c = plan.commands[0];
  CHECK(c.reason == DisruptionReason::kInterrupted);
  CHECK(c.candidates == std::vector<std::string>{"doomed"});
  // The pod moves to the other node or a replacement; either way it is placed.
  if (c.decision == DisruptionDecision::kReplace) {
    REQUIRE(c.replacements.size() == 1);
    CHECK(c.replacements[0].pods == std::vector<std::string>{"default/web-0"});
  }
  CHECK_THAT(KeptOr(plan, "other"), Catch::Contains("budget"));
}

TEST_CASE("an interrupted node whose pods cannot move is still deleted", "[consolidator]") {
  // The capacity goes away either way; the pinned pod will be pending.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "doomed", "default", "medium", kZ1, kOD);
  snap.pods.push_back(
      BoundPod("pinned", "doomed", "1").NodeSelector(std::string(karp::kLabelHostname), "doomed"));
  ConsolidationOptions options;
  InterruptionEvent ev;
  ev.node = "doomed";
  ev.kind = "terminating";
  options.interruptions.push_back(ev);
  const ConsolidationPlan plan = PlanOf(snap, catalog, options);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  const DisruptionCommand& c = plan.commands[0];
  CHECK(c.reason == DisruptionReason::kInterrupted);
  CHECK(c.decision == DisruptionDecision::kDelete);
  CHECK(c.candidates == std::vector<std::string>{"doomed"});
  CHECK(c.replacements.empty());
  CHECK(c.savings_per_hour == Approx(0.20));
}

// ---------------------------------------------------------------------------------------------
// Loops, once, kept, determinism, options

TEST_CASE("once stops after the first command", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "ancient", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(721));
  AddFullNode(snap, *catalog, "full");
  AddManagedNode(snap, *catalog, "empty", "default", "medium");
  SECTION("without once: expiration, then emptiness") {
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 2);
    CHECK(plan.commands[0].reason == DisruptionReason::kExpired);
    CHECK(plan.commands[1].reason == DisruptionReason::kEmpty);
    CHECK(plan.commands[1].candidates == std::vector<std::string>{"empty"});
  }
  SECTION("with once") {
    ConsolidationOptions options;
    options.once = true;
    const ConsolidationPlan plan = PlanOf(snap, catalog, options);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].reason == DisruptionReason::kExpired);
    CHECK(KeptReason(plan, "empty").has_value());
    CHECK(KeptReason(plan, "full").has_value());
    CHECK(plan.kept.size() == 2);
  }
}

TEST_CASE("later loops see the pods moved by earlier commands", "[consolidator]") {
  // Only mediums exist. host (pinned by its annotation) has 1 free cpu; a and b each hold an
  // 800m pod. Either one can be deleted onto host, but not both: once a's pod has moved, b's
  // pod no longer fits and a new medium would not be cheaper.
  auto catalog = MakeCatalog({karp::testing::MakeInstanceType(
      "medium", "4", "8Gi", 40, karp::testing::AllZones(), {kOD}, 0.20)});
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "host", "default", "medium");
  FindNodeMutable(snap, "host")->metadata.annotations[kDnd] = "true";
  for (int i = 0; i < 3; ++i)
    snap.pods.push_back(BoundPod("host-" + std::to_string(i), "host", "1"));
  for (const char* n : {"a", "b"}) {
    AddManagedNode(snap, *catalog, n, "default", "medium");
    snap.pods.push_back(BoundPod(std::string(n) + "-0", n, "800m"));
  }
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() == 1);
  CHECK(plan.commands[0].decision == DisruptionDecision::kDelete);
  CHECK(plan.commands[0].reason == DisruptionReason::kUnderutilized);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"a"});
  CHECK(KeptReason(plan, "b").has_value());
}

TEST_CASE("kept lists every node outside the commands, sorted by name", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  // Insert in reverse name order.
  AddFullNode(snap, *catalog, "z-full");
  AddFullNode(snap, *catalog, "m-pinned");
  FindNodeMutable(snap, "m-pinned")->metadata.annotations[kDnd] = "true";
  AddManagedNode(snap, *catalog, "k-empty", "default", "medium");
  AddManagedNode(snap, *catalog, "c-booting", "default", "medium", kZ1, kOD,
                 DisruptionNow() - absl::Hours(1), false);
  AddFullNode(snap, *catalog, "a-full");
  const ConsolidationPlan plan = PlanOf(snap, catalog);  // CheckPlanShape checks order/coverage
  INFO(Describe(plan));
  REQUIRE(plan.kept.size() == 4);
  CHECK(plan.kept[0].node == "a-full");
  CHECK(plan.kept[1].node == "c-booting");
  CHECK(plan.kept[2].node == "m-pinned");
  CHECK(plan.kept[3].node == "z-full");
  CHECK(plan.node_count == 5);
}

TEST_CASE("the same input gives the same plan, also from concurrent threads",
          "[consolidator][threads]") {
  auto catalog = Sml();
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool("a"));
  snap.node_pools.push_back(DisruptionPool("b"));
  snap.node_pools[1].budgets = {MakeBudget("50%")};
  const char* types[] = {"small", "medium", "large"};
  for (int i = 0; i < 9; ++i) {
    const std::string n = "n" + std::to_string(i);
    AddManagedNode(snap, *catalog, n, i % 2 == 0 ? "a" : "b", types[i % 3], i % 3 == 0 ? kZ1 : kZ2);
    for (int j = 0; j < i % 4; ++j) {
      snap.pods.push_back(BoundPod(n + "-" + std::to_string(j), n, j == 0 ? "700m" : "300m"));
    }
  }
  snap.pods.push_back(karp::testing::MakePod("pending-0", "500m"));
  const ConsolidationPlan first = PlanOf(snap, catalog);
  INFO(Describe(first));
  REQUIRE_FALSE(first.commands.empty());
  const ConsolidationPlan second = PlanOf(snap, catalog);
  CHECK(SamePlan(first, second));

  absl::StatusOr<Consolidator> c = Consolidator::Create(snap, catalog, DisruptionNow());
  REQUIRE(c.ok());
  std::optional<absl::StatusOr<ConsolidationPlan>> r1, r2;
  std::thread t1([&] { r1 = c->Plan(); });
  std::thread t2([&] { r2 = c->Plan(); });
  t1.join();
  t2.join();
  REQUIRE(r1.has_value());
  REQUIRE(r2.has_value());
  REQUIRE(r1->ok());
  REQUIRE(r2->ok());
  CHECK(SamePlan(**r1, **r2));
  CHECK(SamePlan(first, **r1));
}

TEST_CASE("ConsolidationOptions::Validate rejects bad options and Create reports them",
          "[consolidator]") {
  ConsolidationOptions ok;
  CHECK(ok.Validate().ok());
  ConsolidationOptions zero_batch;
  zero_batch.max_multi_node_candidates = 0;
  CHECK(zero_batch.Validate().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(zero_batch.Validate().message()),
             Catch::Contains("max_multi_node_candidates"));
  ConsolidationOptions bad_scheduler;
  bad_scheduler.scheduler.max_instance_types = 0;
  CHECK(bad_scheduler.Validate().code() == absl::StatusCode::kInvalidArgument);

  auto catalog = Sml();
  const ClusterSnapshot snap = OnePool();
  absl::StatusOr<Consolidator> c = Consolidator::Create(snap, catalog, DisruptionNow(), zero_batch);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
  absl::StatusOr<Consolidator> no_catalog = Consolidator::Create(snap, nullptr, DisruptionNow());
  CHECK(no_catalog.status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("an invalid snapshot makes Create fail", "[consolidator]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools.push_back(DisruptionPool("default"));  // duplicate NodePool
  absl::StatusOr<Consolidator> c = Consolidator::Create(snap, catalog, DisruptionNow());
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("decision and reason names", "[consolidator]") {
  CHECK(karp::DisruptionDecisionName(DisruptionDecision::kDelete) == "delete");
  CHECK(karp::DisruptionDecisionName(DisruptionDecision::kReplace) == "replace");
  CHECK(karp::DisruptionReasonName(DisruptionReason::kEmpty) == "empty");
  CHECK(karp::DisruptionReasonName(DisruptionReason::kUnderutilized) == "underutilized");
  CHECK(karp::DisruptionReasonName(DisruptionReason::kDrifted) == "drifted");
  CHECK(karp::DisruptionReasonName(DisruptionReason::kExpired) == "expired");
  CHECK(karp::DisruptionReasonName(DisruptionReason::kInterrupted) == "interrupted");
}

}  // namespace
