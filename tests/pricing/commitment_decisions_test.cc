// Decisions under the commitment pricing model (karp/pricing.h): Scheduler::Solve launches
// what is already paid for when it fits, and the Consolidator neither deletes nor replaces a
// node whose cost is prepaid and reports savings as the change in marginal cost. Each bill is
// computed by hand in the comments. Catalog: c5.large (2 cpu) $0.08/h, m5.large (2 cpu)
// $0.10/h, m5.xlarge (4 cpu) $0.20/h, on demand in us-east-1a and us-east-1b.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "karp/cloud_provider.h"
#include "karp/consolidator.h"
#include "karp/pricing.h"
#include "karp/scheduler.h"
#include "support/builders.h"
#include "support/disruption_builders.h"
#include "support/plan_checks.h"

namespace {

using karp::ClusterSnapshot;
using karp::Commitments;
using karp::ConsolidationOptions;
using karp::ConsolidationPlan;
using karp::DisruptionDecision;
using karp::InstanceCatalog;
using karp::SchedulerOptions;
using karp::SolveResult;
using karp::testing::AddManagedNode;
using karp::testing::BoundPod;
using karp::testing::DisruptionNow;
using karp::testing::DisruptionPool;
using karp::testing::KeptOr;
using karp::testing::MakeOffering;
using karp::testing::MustPlan;
using karp::testing::TypeWithOfferings;

const std::string kA = "us-east-1a";
const std::string kB = "us-east-1b";
const std::string kOD(karp::kCapacityTypeOnDemand);
const std::string kPrepaid = "its cost is prepaid by commitments (removing it saves nothing)";

std::shared_ptr<const InstanceCatalog> Catalog() {
  auto offerings = [](double price) {
    return std::vector<karp::Offering>{MakeOffering(kA, kOD, price), MakeOffering(kB, kOD, price)};
  };
  std::vector<karp::InstanceType> types = {
      TypeWithOfferings("c5.large", "2", "4Gi", 29, offerings(0.08)),
      TypeWithOfferings("m5.large", "2", "8Gi", 29, offerings(0.10)),
      TypeWithOfferings("m5.xlarge", "4", "16Gi", 58, offerings(0.20)),
  };
  auto c = InstanceCatalog::Create(std::move(types));
  REQUIRE(c.ok());
  return std::make_shared<const InstanceCatalog>(*std::move(c));
}

std::shared_ptr<const karp::PricingModel> Pricing(Commitments c) {
  auto m = karp::MakeCommitmentPricing(std::move(c), DisruptionNow());
  INFO(m.status().message());
  REQUIRE(m.ok());
  return *m;
}

karp::ReservedInstance Ri(std::string type, int64_t count, std::string zone = "") {
  karp::ReservedInstance ri;
  ri.id = "ri-" + type;
  ri.instance_type = std::move(type);
  ri.count = count;
  if (zone.empty()) ri.region = "us-east-1";
  ri.zone = std::move(zone);
  return ri;
}

karp::SavingsPlan Sp(karp::SavingsPlanType type, double commitment, double discount) {
  karp::SavingsPlan sp;
  sp.id = "sp-1";
  sp.type = type;
  sp.hourly_commitment = commitment;
  sp.default_discount = discount;
  if (type == karp::SavingsPlanType::kEc2Instance) {
    sp.family = "m5";
    sp.region = "us-east-1";
  }
  return sp;
}

// Pending pods of 1500m: each needs a node of its own (2-cpu types; m5.xlarge excluded).
ClusterSnapshot PendingPods(int n) {
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool(
      "default", {karp::testing::Expr(std::string(karp::kLabelInstanceType), karp::Operator::kIn,
                                      {"c5.large", "m5.large"})}));
  for (int i = 0; i < n; ++i) {
    snap.pods.push_back(karp::testing::MakePod("p" + std::to_string(i), "1500m"));
  }
  return snap;
}

SolveResult Solve(const ClusterSnapshot& snap, std::shared_ptr<const karp::PricingModel> pricing) {
  SchedulerOptions options;
  options.pricing = std::move(pricing);
  auto s = karp::Scheduler::Create(snap, Catalog(), options);
  INFO(s.status().message());
  REQUIRE(s.ok());
  auto r = s->Solve();
  REQUIRE(r.ok());
  return *std::move(r);
}

std::vector<std::string> Launches(const SolveResult& r) {
  std::vector<std::string> out;
  for (const auto& nc : r.node_claims) {
    out.push_back(nc.launch->instance_type + " " + nc.launch->zone + " " +
                  std::to_string(nc.launch->price));
  }
  return out;
}

TEST_CASE("solve launches the RI-covered type while an RI is unused", "[pricing][solve]") {
  ClusterSnapshot snap = PendingPods(2);
  // Blind: two c5.large (the cheapest list price), $0.16/h.
  CHECK(Launches(Solve(snap, nullptr)) ==
        std::vector<std::string>{"c5.large us-east-1a 0.080000", "c5.large us-east-1a 0.080000"});
  // One zonal m5.large RI in us-east-1b: the first claim takes it ($0), the second pays c5.large
  // list ($0.08); the bill is $0.08/h of usage instead of $0.16/h.
  Commitments c;
  c.reserved_instances.push_back(Ri("m5.large", 1, kB));
  SolveResult r = Solve(snap, Pricing(c));
  CHECK(Launches(r) ==
        std::vector<std::string>{"m5.large us-east-1b 0.000000", "c5.large us-east-1a 0.080000"});
  CHECK(r.node_claims[0].launch->list_price == Approx(0.10));
  CHECK(r.LaunchPricePerHour() == Approx(0.08));
}

TEST_CASE("solve counts the RIs running nodes already use", "[pricing][solve]") {
  ClusterSnapshot snap = PendingPods(1);
  auto catalog = Catalog();
  // A full m5.large node (its 1500m pod leaves no room) already holds the only RI.
  AddManagedNode(snap, *catalog, "n1", "default", "m5.large", kA);
  snap.pods.push_back(BoundPod("n1-0", "n1", "1500m"));
  Commitments c;
  c.reserved_instances.push_back(Ri("m5.large", 1));
  CHECK(Launches(Solve(snap, Pricing(c))) ==
        std::vector<std::string>{"c5.large us-east-1a 0.080000"});
}

TEST_CASE("solve: Savings Plan rates until the commitment is used up", "[pricing][solve]") {
  ClusterSnapshot snap = PendingPods(3);
  // EC2 Instance plan for m5, 30% off, $0.14/h: m5.large at 0.07 beats c5.large's 0.08 twice
  // (0.14 used up), then c5.large at list. Usage bill 0.07 + 0.07 + 0.08 = $0.22/h.
  Commitments c;
  c.savings_plans.push_back(Sp(karp::SavingsPlanType::kEc2Instance, 0.14, 0.30));
  SolveResult r = Solve(snap, Pricing(c));
  CHECK(Launches(r) == std::vector<std::string>{"m5.large us-east-1a 0.070000",
                                                "m5.large us-east-1a 0.070000",
                                                "c5.large us-east-1a 0.080000"});
  CHECK(r.LaunchPricePerHour() == Approx(0.22));
  // With $0.10/h the second m5.large would cost 0.03 + (1 - 0.03/0.07) x 0.10 = 0.0871 > 0.08.
  c.savings_plans[0].hourly_commitment = 0.10;
  CHECK(Launches(Solve(snap, Pricing(c))) ==
        std::vector<std::string>{"m5.large us-east-1a 0.070000", "c5.large us-east-1a 0.080000",
                                 "c5.large us-east-1a 0.080000"});
}

TEST_CASE("solve without a pricing model or with no commitments is unchanged", "[pricing][solve]") {
  ClusterSnapshot snap = PendingPods(3);
  SolveResult blind = Solve(snap, nullptr);
  SolveResult empty = Solve(snap, Pricing(Commitments{}));
  CHECK(karp::testing::SameResult(blind, empty));
  SolveResult list = Solve(snap, std::make_shared<karp::PricingModel>());
  CHECK(karp::testing::SameResult(blind, list));
}

TEST_CASE("the Launcher tries the launch a pricing model chose first", "[pricing][solve]") {
  ClusterSnapshot snap = PendingPods(1);
  Commitments c;
  c.reserved_instances.push_back(Ri("m5.large", 1, kB));
  SolveResult r = Solve(snap, Pricing(c));
  REQUIRE(r.node_claims.size() == 1);
  karp::UnavailableOfferings cache;
  karp::Launcher launcher(nullptr, &cache);
  auto first = [&](const karp::NewNodeClaim& nc) {
    auto options = launcher.Options(nc, *Catalog(), DisruptionNow());
    REQUIRE_FALSE(options.empty());
    return options.front().instance_type + " " + options.front().zone;
  };
  CHECK(first(r.node_claims[0]) == "m5.large us-east-1b");
  // Blind, the cheapest list price first.
  CHECK(first(Solve(snap, nullptr).node_claims[0]) == "c5.large us-east-1a");
}

// One m5.xlarge node `big` with a 500m pod: blind, it is replaced by a c5.large.
ClusterSnapshot OneBigNode(const InstanceCatalog& catalog) {
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool("default"));
  AddManagedNode(snap, catalog, "big", "default", "m5.xlarge", kA);
  snap.pods.push_back(BoundPod("big-0", "big", "500m"));
  return snap;
}

// Two m5.xlarge nodes `a` and `b` in us-east-1a, without pods.
ClusterSnapshot TwoBigNodes() {
  auto catalog = Catalog();
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool("default"));
  AddManagedNode(snap, *catalog, "a", "default", "m5.xlarge", kA);
  AddManagedNode(snap, *catalog, "b", "default", "m5.xlarge", kA);
  return snap;
}

ConsolidationPlan Plan(const ClusterSnapshot& snap,
                       std::shared_ptr<const karp::PricingModel> pricing) {
  ConsolidationOptions options;
  options.pricing = std::move(pricing);
  return MustPlan(snap, Catalog(), options);
}

TEST_CASE("consolidation keeps a node whose cost is prepaid", "[pricing][consolidation]") {
  auto catalog = Catalog();
  ClusterSnapshot snap = OneBigNode(*catalog);
  ConsolidationPlan blind = Plan(snap, nullptr);
  REQUIRE(blind.commands.size() == 1);
  CHECK(blind.commands[0].decision == DisruptionDecision::kReplace);
  CHECK(blind.commands[0].replacements[0].launch->instance_type == "c5.large");
  CHECK(blind.commands[0].savings_per_hour == Approx(0.12));  // 0.20 - 0.08
  // An m5.xlarge RI covers it: replacing it would save nothing (the RI is paid anyway).
  Commitments c;
  c.reserved_instances.push_back(Ri("m5.xlarge", 1, kA));
  ConsolidationPlan aware = Plan(snap, Pricing(c));
  CHECK(aware.commands.empty());
  CHECK(KeptOr(aware, "big") == kPrepaid);
}

TEST_CASE("consolidation savings are the change in marginal cost", "[pricing][consolidation]") {
  ClusterSnapshot snap = TwoBigNodes();
  snap.pods.push_back(BoundPod("a-0", "a", "500m"));
  snap.pods.push_back(BoundPod("b-0", "b", "500m"));
  // Blind: both replaced by one c5.large, savings 0.40 - 0.08 = 0.32 by list prices.
  ConsolidationPlan blind = Plan(snap, nullptr);
  REQUIRE(blind.commands.size() == 1);
  CHECK(blind.commands[0].replacements[0].launch->instance_type == "c5.large");
  CHECK(blind.savings_per_hour == Approx(0.32));
  // One regional m5.xlarge RI: the fleet's usage costs $0.20 (one node covered), and would
  // still cost the c5.large's $0.08 after the blind plan (the RI unused). Aware: both go onto
  // one m5.xlarge that the RI covers, usage $0, savings 0.20 - 0 = $0.20.
  Commitments c;
  c.reserved_instances.push_back(Ri("m5.xlarge", 1));
  ConsolidationPlan aware = Plan(snap, Pricing(c));
  INFO(karp::testing::Describe(aware));
  REQUIRE(aware.commands.size() == 1);
  CHECK(aware.commands[0].decision == DisruptionDecision::kReplace);
  CHECK(aware.commands[0].candidates == std::vector<std::string>{"a", "b"});
  const karp::Launch& launch = *aware.commands[0].replacements[0].launch;
  CHECK(launch.instance_type == "m5.xlarge");
  CHECK(launch.price == 0);
  CHECK(launch.list_price == Approx(0.20));
  CHECK(aware.savings_per_hour == Approx(0.20));
}

TEST_CASE("consolidation deletes an uncovered node, then keeps the covered one",
          "[pricing][consolidation]") {
  ClusterSnapshot snap = TwoBigNodes();
  snap.pods.push_back(BoundPod("b-0", "b", "3"));
  // `a` is empty. One RI for the two: removing either saves $0.20 (the other keeps the RI),
  // so the empty one goes; `b` is then covered, and nothing cheaper than $0 replaces it.
  Commitments c;
  c.reserved_instances.push_back(Ri("m5.xlarge", 1));
  ConsolidationPlan aware = Plan(snap, Pricing(c));
  INFO(karp::testing::Describe(aware));
  REQUIRE(aware.commands.size() == 1);
  CHECK(aware.commands[0].candidates == std::vector<std::string>{"a"});
  CHECK(aware.commands[0].decision == DisruptionDecision::kDelete);
  CHECK(aware.commands[0].savings_per_hour == Approx(0.20));
  CHECK(KeptOr(aware, "b") == kPrepaid);
  // Blind, `b` (3 cpu on a $0.20 node) stays too: no 2-cpu type fits 3 cpu.
  CHECK(Plan(snap, nullptr).commands.size() == 1);
}

TEST_CASE("consolidation prices a replacement at its Savings Plan rate",
          "[pricing][consolidation]") {
  auto catalog = Catalog();
  ClusterSnapshot snap = OneBigNode(*catalog);
  // Compute plan, 25% off, $0.15/h: big (m5.xlarge) uses all of it at 0.15. Removing big saves
  // 0.15 of usage; a c5.large replacement then costs 0.06 (0.08 x 0.75) from the freed plan.
  // Savings: 0.15 - 0.06 = 0.09 (blind: 0.20 - 0.08 = 0.12).
  Commitments c;
  c.savings_plans.push_back(Sp(karp::SavingsPlanType::kCompute, 0.15, 0.25));
  ConsolidationPlan aware = Plan(snap, Pricing(c));
  INFO(karp::testing::Describe(aware));
  REQUIRE(aware.commands.size() == 1);
  CHECK(aware.commands[0].decision == DisruptionDecision::kReplace);
  const karp::Launch& launch = *aware.commands[0].replacements[0].launch;
  CHECK(launch.instance_type == "c5.large");
  CHECK(launch.price == Approx(0.06));
  CHECK(launch.list_price == Approx(0.08));
  CHECK(aware.commands[0].savings_per_hour == Approx(0.09));
}

TEST_CASE("consolidation without commitments is unchanged", "[pricing][consolidation]") {
  auto catalog = Catalog();
  ClusterSnapshot snap = OneBigNode(*catalog);
  AddManagedNode(snap, *catalog, "empty", "default", "m5.large", kB);
  CHECK(karp::testing::SamePlan(Plan(snap, nullptr), Plan(snap, Pricing(Commitments{}))));
}

}  // namespace
