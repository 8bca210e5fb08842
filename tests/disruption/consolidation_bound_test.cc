// Bounded consolidation passes and progress (karp/consolidator.h: ConsolidationOptions::
// max_simulations, deadline, progress; ConsolidationPlan::simulations, stopped_early). A
// bounded plan's commands must be the first commands of the unbounded plan.

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "karp/consolidator.h"
#include "karp/pricing.h"
#include "support/builders.h"
#include "support/disruption_builders.h"
#include "support/plan_checks.h"

namespace {

using karp::ClusterSnapshot;
using karp::ConsolidationOptions;
using karp::ConsolidationPlan;
using karp::ConsolidationProgress;
using karp::DisruptionCommand;
using karp::testing::AddManagedNode;
using karp::testing::BoundPod;
using karp::testing::Describe;
using karp::testing::DisruptionNow;
using karp::testing::DisruptionPool;
using karp::testing::FindClaimMutable;
using karp::testing::MakeCatalog;
using karp::testing::MustPlan;
using karp::testing::SetClaimCondition;
using karp::testing::SmallMediumLarge;

// Two drifted small nodes (one loop and one simulation each), then loops that find nothing.
ClusterSnapshot TwoDrifted() {
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool("default"));
  auto catalog = MakeCatalog(SmallMediumLarge());
  for (const char* n : {"a-recent", "b-old"}) {
    AddManagedNode(snap, *catalog, n, "default", "small");
    snap.pods.push_back(BoundPod(std::string(n) + "-0", n, "1500m"));
  }
  SetClaimCondition(*FindClaimMutable(snap, "a-recent"), "Drifted", "True", "NodePoolDrifted",
                    DisruptionNow() - absl::Hours(1));
  SetClaimCondition(*FindClaimMutable(snap, "b-old"), "Drifted", "True", "NodePoolDrifted",
                    DisruptionNow() - absl::Hours(5));
  return snap;
}

void CheckSameCommand(const DisruptionCommand& a, const DisruptionCommand& b) {
  CHECK(a.reason == b.reason);
  CHECK(a.decision == b.decision);
  CHECK(a.candidates == b.candidates);
  CHECK(a.savings_per_hour == b.savings_per_hour);
  REQUIRE(a.replacements.size() == b.replacements.size());
  for (size_t i = 0; i < a.replacements.size(); ++i) {
    CHECK(a.replacements[i].name == b.replacements[i].name);
    CHECK(a.replacements[i].instance_types == b.replacements[i].instance_types);
  }
}

}  // namespace

TEST_CASE("an unbounded plan counts its simulations and does not stop early",
          "[consolidator][bound]") {
  const ConsolidationPlan plan = MustPlan(TwoDrifted(), MakeCatalog(SmallMediumLarge()));
  INFO(Describe(plan));
  REQUIRE(plan.commands.size() >= 2);
  CHECK(plan.simulations >= 2);
  CHECK_FALSE(plan.stopped_early);
}

TEST_CASE("a plan bounded by a simulation count returns a prefix of the unbounded plan",
          "[consolidator][bound]") {
  const ClusterSnapshot snap = TwoDrifted();
  auto catalog = MakeCatalog(SmallMediumLarge());
  const ConsolidationPlan full = MustPlan(snap, catalog);
  for (int64_t k = 1; k <= full.simulations + 1; ++k) {
    ConsolidationOptions options;
    options.max_simulations = k;
    const ConsolidationPlan bounded = MustPlan(snap, catalog, options);
    INFO("max_simulations " << k << "\n" << Describe(bounded));
    CHECK(bounded.simulations <= k);
    CHECK(bounded.stopped_early == (k < full.simulations));
    REQUIRE(bounded.commands.size() <= full.commands.size());
    for (size_t i = 0; i < bounded.commands.size(); ++i) {
      CheckSameCommand(bounded.commands[i], full.commands[i]);
    }
    if (!bounded.stopped_early) CHECK(bounded.commands.size() == full.commands.size());
  }
  // One simulation finds the first drift command but cannot finish the second loop.
  ConsolidationOptions one;
  one.max_simulations = 1;
  const ConsolidationPlan first = MustPlan(snap, catalog, one);
  REQUIRE(first.commands.size() == 1);
  CHECK(first.commands[0].candidates == std::vector<std::string>{"b-old"});
  CHECK(first.stopped_early);
}

TEST_CASE("a plan past its deadline stops before its first simulation", "[consolidator][bound]") {
  ConsolidationOptions options;
  options.deadline = absl::Now() - absl::Seconds(1);
  const ConsolidationPlan plan = MustPlan(TwoDrifted(), MakeCatalog(SmallMediumLarge()), options);
  INFO(Describe(plan));
  CHECK(plan.stopped_early);
  CHECK(plan.simulations == 0);
  CHECK(plan.commands.empty());
  bool said_why = false;
  for (const karp::KeptNode& k : plan.kept)
    said_why |= k.reason.find("not evaluated") != std::string::npos;
  CHECK(said_why);
}

TEST_CASE("progress reports every simulation in order, then the end of the plan",
          "[consolidator][bound]") {
  std::vector<ConsolidationProgress> seen;
  std::vector<std::string> methods;
  ConsolidationOptions options;
  options.progress = [&](const ConsolidationProgress& p) {
    seen.push_back(p);
    methods.emplace_back(p.method);
  };
  const ConsolidationPlan plan = MustPlan(TwoDrifted(), MakeCatalog(SmallMediumLarge()), options);
  REQUIRE(seen.size() == static_cast<size_t>(plan.simulations) + 1);
  for (size_t i = 0; i + 1 < seen.size(); ++i) {
    CHECK(seen[i].simulations == static_cast<int64_t>(i) + 1);
    CHECK_FALSE(methods[i].empty());
    if (i > 0) CHECK(seen[i].loop >= seen[i - 1].loop);
  }
  CHECK(methods[0] == "drifted");
  CHECK(methods.back().empty());
  CHECK(seen.back().command_count == static_cast<int>(plan.commands.size()));
  CHECK(seen.back().simulations == plan.simulations);
}

TEST_CASE("a negative simulation bound is refused", "[consolidator][bound]") {
  ConsolidationOptions options;
  options.max_simulations = -1;
  absl::StatusOr<karp::Consolidator> c = karp::Consolidator::Create(
      TwoDrifted(), MakeCatalog(SmallMediumLarge()), DisruptionNow(), options);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(c.status().message()).find("max_simulations") != std::string::npos);
}

TEST_CASE("a pricing model in the simulations' scheduler options is refused, not dropped",
          "[consolidator][options]") {
  ConsolidationOptions options;
  options.scheduler.pricing = std::make_shared<karp::PricingModel>();
  absl::StatusOr<karp::Consolidator> c = karp::Consolidator::Create(
      TwoDrifted(), MakeCatalog(SmallMediumLarge()), DisruptionNow(), options);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(c.status().message()).find("ConsolidationOptions::pricing") !=
        std::string::npos);
  // The same model as the consolidator's own is accepted.
  options.pricing = std::move(options.scheduler.pricing);
  options.scheduler.pricing = nullptr;
  CHECK(karp::Consolidator::Create(TwoDrifted(), MakeCatalog(SmallMediumLarge()), DisruptionNow(),
                                   options)
            .ok());
}

TEST_CASE("Consolidator::Update plans as Create over the next snapshot", "[consolidator][update]") {
  auto catalog = MakeCatalog(SmallMediumLarge());
  const ClusterSnapshot snap = TwoDrifted();
  absl::StatusOr<karp::Consolidator> first =
      karp::Consolidator::Create(snap, catalog, DisruptionNow());
  REQUIRE(first.ok());
  auto check = [&](const ClusterSnapshot& next, const ConsolidationOptions& options) {
    const absl::Time later = DisruptionNow() + absl::Minutes(5);
    absl::StatusOr<karp::Consolidator> updated = first->Update(next, later, options);
    REQUIRE(updated.ok());
    absl::StatusOr<ConsolidationPlan> a = updated->Plan();
    REQUIRE(a.ok());
    const ConsolidationPlan b = MustPlan(next, catalog, options, later);
    INFO("updated:\n" << Describe(*a) << "created:\n" << Describe(b));
    CHECK(karp::testing::SamePlan(*a, b));
  };
  SECTION("pods change") {
    ClusterSnapshot next = snap;
    next.pods.push_back(BoundPod("b-old-1", "b-old", "250m"));
    check(next, {});
  }
  SECTION("options other than the scheduler's change") {
    ConsolidationOptions once;
    once.once = true;
    check(snap, once);
  }
  SECTION("a NodePool changes") {
    ClusterSnapshot next = snap;
    next.node_pools[0].weight = 7;
    check(next, {});
  }
  SECTION("scheduler options change") {
    ConsolidationOptions options;
    options.scheduler.max_instance_types = 1;
    check(snap, options);
  }
}
