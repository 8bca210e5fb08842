// Disruption rules where karp used to differ from the reference (ported from its Go suites):
// drift without the consolidateAfter rule, an explicit Consolidatable condition, NodeClaims
// being deleted, pending pods that need new nodes during consolidation, invalid pods on a
// candidate, and the minValues message. Catalog and clock of support/disruption_builders.h:
// small (2 cpu) $0.10, medium (4 cpu) $0.20, large (8 cpu) $0.40, on-demand.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/labels.h"
#include "support/builders.h"
#include "support/disruption_builders.h"
#include "support/plan_checks.h"

namespace {

using karp::ClusterSnapshot;
using karp::ConsolidationPlan;
using karp::DisruptionDecision;
using karp::DisruptionReason;
using karp::InstanceCatalog;
using karp::testing::AddManagedNode;
using karp::testing::BoundPod;
using karp::testing::Describe;
using karp::testing::DisruptionNow;
using karp::testing::DisruptionPool;
using karp::testing::FindClaimMutable;
using karp::testing::KeptOr;
using karp::testing::MakeCatalog;
using karp::testing::MakePod;
using karp::testing::MustPlan;
using karp::testing::SetClaimCondition;
using karp::testing::SmallMediumLarge;

std::shared_ptr<const InstanceCatalog> Sml() { return MakeCatalog(SmallMediumLarge()); }

ConsolidationPlan PlanOf(const ClusterSnapshot& snap,
                         std::shared_ptr<const InstanceCatalog> catalog) {
  return MustPlan(snap, std::move(catalog));
}

ClusterSnapshot OnePool() {
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool("default"));
  return snap;
}

TEST_CASE("drift does not apply the consolidation-only consolidateAfter rule",
          "[consolidator][reference]") {
  // `drifted` (small, one 1-cpu pod) is drifted; its pod fits on `recent` (medium, 1 cpu used),
  // which had a pod event a minute ago while consolidateAfter is 10m. Consolidation would skip
  // `recent` as a destination; drift must not, so the drifted node is deleted, not replaced.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].consolidate_after = absl::Minutes(10);
  AddManagedNode(snap, *catalog, "drifted", "default", "small");
  AddManagedNode(snap, *catalog, "recent", "default", "medium");
  snap.pods.push_back(BoundPod("moving", "drifted", "1"));
  snap.pods.push_back(BoundPod("resident", "recent", "1"));
  SetClaimCondition(*FindClaimMutable(snap, "drifted"), "Drifted", "True", "NodePoolDrifted",
                    DisruptionNow() - absl::Hours(1));
  FindClaimMutable(snap, "recent")->last_pod_event_time = DisruptionNow() - absl::Minutes(1);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  REQUIRE_FALSE(plan.commands.empty());
  CHECK(plan.commands[0].reason == DisruptionReason::kDrifted);
  CHECK(plan.commands[0].candidates == std::vector<std::string>{"drifted"});
  CHECK(plan.commands[0].decision == DisruptionDecision::kDelete);
  CHECK(plan.commands[0].replacements.empty());
}

TEST_CASE("consolidation still skips destinations under consolidateAfter",
          "[consolidator][reference]") {
  // The same cluster without drift: `drifted` is now an underutilized candidate, and its pod may
  // not go to `recent` in a consolidation simulation, so no delete is proposed.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  snap.node_pools[0].consolidate_after = absl::Minutes(10);
  AddManagedNode(snap, *catalog, "lone", "default", "small");
  AddManagedNode(snap, *catalog, "recent", "default", "medium");
  snap.pods.push_back(BoundPod("moving", "lone", "1"));
  snap.pods.push_back(BoundPod("resident", "recent", "1"));
  FindClaimMutable(snap, "recent")->last_pod_event_time = DisruptionNow() - absl::Minutes(1);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  for (const karp::DisruptionCommand& c : plan.commands) {
    CHECK_FALSE((c.decision == DisruptionDecision::kDelete &&
                 c.candidates == std::vector<std::string>{"lone"}));
  }
}

TEST_CASE("an explicit Consolidatable condition is honoured", "[consolidator][reference]") {
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "empty", "default", "medium");
  SECTION("False: neither emptiness nor consolidation takes the node") {
    SetClaimCondition(*FindClaimMutable(snap, "empty"), "Consolidatable", "False", "",
                      DisruptionNow() - absl::Hours(1));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
    CHECK_THAT(KeptOr(plan, "empty"),
               Catch::Contains("nodeclaim condition Consolidatable is False"));
  }
  SECTION("True: consolidatable even when consolidateAfter has not elapsed") {
    snap.node_pools[0].consolidate_after = absl::Hours(2);
    FindClaimMutable(snap, "empty")->last_pod_event_time = DisruptionNow() - absl::Minutes(5);
    SetClaimCondition(*FindClaimMutable(snap, "empty"), "Consolidatable", "True", "",
                      DisruptionNow() - absl::Hours(1));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].reason == DisruptionReason::kEmpty);
  }
  SECTION("absent: derived from consolidateAfter") {
    snap.node_pools[0].consolidate_after = absl::Hours(2);
    FindClaimMutable(snap, "empty")->last_pod_event_time = DisruptionNow() - absl::Minutes(5);
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
    CHECK_THAT(KeptOr(plan, "empty"), Catch::Contains("consolidateAfter"));
  }
}

TEST_CASE("a node whose NodeClaim is being deleted is no candidate and no destination",
          "[consolidator][reference]") {
  // Disruption suite "Candidate Filtering > should not consider candidates that are deleting":
  // only the NodeClaim carries the deletionTimestamp.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "going", "default", "large");
  AddManagedNode(snap, *catalog, "lone", "default", "small");
  snap.pods.push_back(BoundPod("lone-0", "lone", "1"));
  FindClaimMutable(snap, "going")->metadata.deletion_timestamp = DisruptionNow() - absl::Minutes(1);
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK(KeptOr(plan, "going") ==
        "already being deleted (nodeclaim nc-going has a deletionTimestamp)");
  // `lone`'s pod would fit on the (empty, large) deleting node; it must not count as capacity.
  for (const karp::DisruptionCommand& c : plan.commands) {
    CHECK(std::find(c.candidates.begin(), c.candidates.end(), "going") == c.candidates.end());
    CHECK_FALSE(
        (c.decision == DisruptionDecision::kDelete &&
         std::find(c.candidates.begin(), c.candidates.end(), "lone") != c.candidates.end()));
  }
}

TEST_CASE("pending pods that need new nodes of their own block consolidation",
          "[consolidator][reference]") {
  // `lone` (medium, 500m) fits on `busy` and would be deleted. Two pending 5-cpu pods need two
  // new (large) nodes: the reference's simulation then yields more than one new NodeClaim and
  // proposes nothing ("Can't remove without creating 2 candidates"). karp stops the simulation at
  // the second new claim when the NodePool has no minValues (a claim without minValues is never
  // dropped, so the count can only grow) and says so instead of giving the count.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "lone", "default", "medium");
  AddManagedNode(snap, *catalog, "busy", "default", "medium");
  snap.pods.push_back(BoundPod("lone-0", "lone", "500m"));
  for (int i = 0; i < 3; ++i)
    snap.pods.push_back(BoundPod("busy-" + std::to_string(i), "busy", "1"));
  SECTION("two pending pods needing two nodes: nothing is consolidated") {
    snap.pods.push_back(MakePod("pending-0", "5"));
    snap.pods.push_back(MakePod("pending-1", "5"));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
    CHECK(KeptOr(plan, "lone") == "pending pods and the moved pods need at least 2 new nodes");
  }
  SECTION("three pending pods: the same decision and reason") {
    for (int i = 0; i < 3; ++i) snap.pods.push_back(MakePod("pending-" + std::to_string(i), "5"));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
    CHECK(KeptOr(plan, "lone") == "pending pods and the moved pods need at least 2 new nodes");
  }
  SECTION("a NodePool with minValues: the simulation runs to the end and counts the claims") {
    karp::NodeSelectorRequirement types;
    types.key = std::string(karp::kLabelInstanceType);
    types.op = karp::Operator::kExists;
    types.min_values = 1;
    snap.node_pools[0].requirements.push_back(types);
    for (int i = 0; i < 3; ++i) snap.pods.push_back(MakePod("pending-" + std::to_string(i), "5"));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
    CHECK_THAT(KeptOr(plan, "lone"), Catch::Contains("can't remove without creating 3 candidates"));
  }
  SECTION("one pending pod needing one node: the reference judges that claim by price") {
    snap.pods.push_back(MakePod("pending-0", "5"));
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    CHECK(plan.commands.empty());
    CHECK_THAT(KeptOr(plan, "lone"), Catch::Contains("can't replace with a cheaper node"));
  }
  SECTION("without pending pods lone is deleted") {
    const ConsolidationPlan plan = PlanOf(snap, catalog);
    INFO(Describe(plan));
    REQUIRE_FALSE(plan.commands.empty());
    CHECK(plan.commands[0].candidates == std::vector<std::string>{"lone"});
    CHECK(plan.commands[0].decision == DisruptionDecision::kDelete);
  }
}

TEST_CASE("a candidate whose pod the reference would ignore is kept", "[consolidator][reference]") {
  // The consolidator's simulation validates pods as the provisioner does: a pod pinned with a
  // hostname selector cannot be rescheduled, so its node stays.
  auto catalog = Sml();
  ClusterSnapshot snap = OnePool();
  AddManagedNode(snap, *catalog, "pinned", "default", "medium");
  AddManagedNode(snap, *catalog, "busy", "default", "medium");
  snap.pods.push_back(
      BoundPod("pinned-0", "pinned", "500m").NodeSelector("kubernetes.io/hostname", "pinned"));
  for (int i = 0; i < 3; ++i)
    snap.pods.push_back(BoundPod("busy-" + std::to_string(i), "busy", "1"));
  // A pending pod with the same typo does not stop anything else.
  snap.pods.push_back(MakePod("typo", "1").NodeSelector("kubernetes.io/hostname", "red-node"));
  const ConsolidationPlan plan = PlanOf(snap, catalog);
  INFO(Describe(plan));
  CHECK_THAT(KeptOr(plan, "pinned"), Catch::Contains("ignoring pod"));
}

TEST_CASE("the minValues error uses the reference's words, then the detail",
          "[consolidator][reference]") {
  std::vector<karp::InstanceType> types = SmallMediumLarge();
  std::vector<const karp::InstanceType*> ptrs;
  for (const karp::InstanceType& t : types) ptrs.push_back(&t);
  karp::Requirements reqs;
  karp::Requirement r =
      karp::Requirement::In(karp::kLabelInstanceType, {"small", "medium", "large"});
  r.set_min_values(5);
  reqs.Add(r);
  absl::StatusOr<size_t> n = karp::SatisfiesMinValues(ptrs, reqs);
  REQUIRE_FALSE(n.ok());
  CHECK(std::string(n.status().message()) ==
        "minValues requirement is not met for label(s) (label(s)=[node.kubernetes.io/"
        "instance-type]): node.kubernetes.io/instance-type has 3 of 5");
}

}  // namespace
