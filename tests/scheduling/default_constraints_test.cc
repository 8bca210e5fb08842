// Scheduling with cluster-level default topology spread constraints
// (SchedulerOptions::default_topology_spread, karp/topology_defaults.h): the
// `Context("DefaultConstraints", ...)` of kubernetes-sigs/karpenter
// pkg/controllers/provisioning/scheduling/topology_test.go, each TEST_CASE named after its
// It(...), plus Scheduler::Update and consolidation with the defaults.
//
// As in the reference, the pods carry the labels {test: test} and are controlled by a
// ReplicaSet selecting them (in ClusterSnapshot::workloads), the NodePool allows every
// capacity type, and the catalog offers the three test zones. The reference's ExpectSkew
// (pods matching a selector per topology domain, any order) is SkewOf below: the zone of a pod
// on a new claim is its claim's single zone requirement, of a bound pod its node's label.

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/scheduler.h"
#include "karp/topology_defaults.h"
#include "karp/workloads.h"
#include "support/builders.h"
#include "support/disruption_builders.h"
#include "support/plan_checks.h"

namespace {

using karp::ClusterSnapshot;
using karp::ConsolidationOptions;
using karp::ConsolidationPlan;
using karp::DisruptionDecision;
using karp::LabelSelector;
using karp::NewNodeClaim;
using karp::NodePool;
using karp::Operator;
using karp::OwnerReference;
using karp::Pod;
using karp::Scheduler;
using karp::SchedulerOptions;
using karp::SolveResult;
using karp::TopologySpreadConstraint;
using karp::WhenUnsatisfiable;
using karp::Workload;
using karp::WorkloadKind;
using karp::testing::ClaimOf;
using karp::testing::Describe;
using karp::testing::Expr;
using karp::testing::FakeCatalog;
using karp::testing::MakeNode;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;
using karp::testing::PlacementOf;
using Labels = std::map<std::string, std::string>;

const std::string kZoneKey(karp::kLabelZone);
const std::string kHostKey(karp::kLabelHostname);
const std::string kZ1(karp::testing::kZone1);
const std::string kZ2(karp::testing::kZone2);
const std::string kZ3(karp::testing::kZone3);
const Labels kLabels = {{"test", "test"}};

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

// The Topology Describe's NodePool: capacity-type Exists, optionally restricted to `zones`.
NodePool Pool(std::vector<std::string> zones = {}) {
  std::vector<karp::NodeSelectorRequirement> reqs = {
      Expr(std::string(karp::kLabelCapacityType), Operator::kExists)};
  if (!zones.empty()) reqs.push_back(Expr(kZoneKey, Operator::kIn, std::move(zones)));
  return MakeNodePool("default", std::move(reqs));
}

// A default constraint (no selector: it is deduced per pod).
TopologySpreadConstraint Default(const std::string& key, int32_t max_skew = 1,
                                 WhenUnsatisfiable when = WhenUnsatisfiable::kDoNotSchedule,
                                 std::optional<int32_t> min_domains = std::nullopt) {
  TopologySpreadConstraint t;
  t.topology_key = key;
  t.max_skew = max_skew;
  t.when_unsatisfiable = when;
  t.min_domains = min_domains;
  return t;
}

// A ReplicaSet selecting `labels` (test.ReplicaSet(Selector: labels)).
Workload ReplicaSet(const std::string& name, const Labels& labels, int32_t replicas = 1) {
  Workload w;
  w.kind = WorkloadKind::kReplicaSet;
  w.metadata.name = name;
  w.metadata.namespace_ = "default";
  w.metadata.uid = name + "-uid";
  w.replicas = replicas;
  w.selector = LabelSelector{labels, {}};
  w.pod_template.metadata.namespace_ = "default";
  w.pod_template.metadata.labels = labels;
  return w;
}

OwnerReference ControllerRef(const std::string& api_version, const std::string& kind,
                             const std::string& name) {
  return OwnerReference{api_version, kind, name, name + "-uid", true};
}

// `n` pending pods `<prefix>-<i>` carrying `labels`, controlled by `owner` (ownedPods).
std::vector<Pod> OwnedPods(const std::string& prefix, int n, const Labels& labels,
                           const OwnerReference& owner, const std::string& cpu = "500m") {
  std::vector<Pod> pods;
  for (int i = 0; i < n; ++i) {
    karp::testing::PodBuilder b = MakePod(prefix + "-" + std::to_string(i), cpu);
    for (const auto& [k, v] : labels) b.Label(k, v);
    b.pod().metadata.owner_references.push_back(owner);
    pods.push_back(b.Build());
  }
  return pods;
}

// A snapshot of Pool(zones) with the ReplicaSet "test-rs" selecting kLabels and `pods`.
ClusterSnapshot Snap(std::vector<Pod> pods, std::vector<std::string> zones = {}) {
  ClusterSnapshot s;
  s.node_pools.push_back(Pool(std::move(zones)));
  s.workloads.push_back(ReplicaSet("test-rs", kLabels));
  s.pods = std::move(pods);
  return s;
}

std::vector<Pod> TestPods(int n) {
  return OwnedPods("test", n, kLabels, ControllerRef("apps/v1", "ReplicaSet", "test-rs"));
}

SchedulerOptions WithDefaults(std::vector<TopologySpreadConstraint> defaults) {
  SchedulerOptions o;
  o.default_topology_spread = std::move(defaults);
  return o;
}

SolveResult Solve(const ClusterSnapshot& snap, const SchedulerOptions& options) {
  absl::StatusOr<Scheduler> s = Scheduler::Create(snap, FakeCatalog(4), options);
  INFO("Create: " << Msg(s.status()));
  REQUIRE(s.ok());
  absl::StatusOr<SolveResult> r = s->Solve();
  INFO("Solve: " << Msg(r.status()));
  REQUIRE(r.ok());
  return *r;
}

std::string Key(const Pod& p) { return p.metadata.namespace_ + "/" + p.metadata.name; }

// The domain of `key` where `pod` ended up: its new claim's single In value of `key` (or the
// claim's name for the hostname), or its node's label; nullopt when it is not placed.
std::optional<std::string> DomainOf(const SolveResult& r, const ClusterSnapshot& snap,
                                    const Pod& pod, const std::string& key) {
  std::string node = pod.node_name;
  if (const NewNodeClaim* nc = ClaimOf(r, Key(pod))) {
    if (key == kHostKey) return nc->name;
    const karp::Requirement* req = nc->requirements.Find(key);
    INFO("claim " << nc->name << " of " << Key(pod) << " has no single " << key);
    REQUIRE(req != nullptr);
    REQUIRE(req->op() == Operator::kIn);
    REQUIRE(req->values().size() == 1);
    if (nc->launch) CHECK(nc->launch->zone == req->values()[0]);
    return req->values()[0];
  }
  if (const karp::ExistingPlacement* e = PlacementOf(r, Key(pod))) node = e->name;
  if (node.empty()) return std::nullopt;
  for (const karp::Node& n : snap.nodes) {
    if (n.metadata.name != node) continue;
    auto l = n.metadata.labels.find(key);
    return l == n.metadata.labels.end() ? std::nullopt : std::optional<std::string>(l->second);
  }
  return std::nullopt;
}

// ExpectSkew: the number of placed pods of the snapshot matching `selector` per domain of
// `key`, sorted ascending (ConsistOf).
std::vector<int> SkewOf(const SolveResult& r, const ClusterSnapshot& snap, const Labels& selector,
                        const std::string& key) {
  std::map<std::string, int> counts;
  const LabelSelector s{selector, {}};
  for (const Pod& p : snap.pods) {
    if (!s.Matches(p.metadata.labels)) continue;
    if (std::optional<std::string> d = DomainOf(r, snap, p, key)) ++counts[*d];
  }
  std::vector<int> out;
  for (const auto& [domain, n] : counts) out.push_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

bool Placed(const SolveResult& r, const Pod& p) {
  return ClaimOf(r, Key(p)) != nullptr || PlacementOf(r, Key(p)) != nullptr;
}

// The new claims or nodes holding `pods` (expectSharingOneNode counts them).
std::set<std::string> NodesOf(const SolveResult& r, const std::vector<Pod>& pods) {
  std::set<std::string> out;
  for (const Pod& p : pods) {
    const NewNodeClaim* nc = ClaimOf(r, Key(p));
    INFO("pod " << Key(p) << " is not on a new claim:\n" << Describe(r));
    REQUIRE(nc != nullptr);
    out.insert(nc->name);
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Context("DefaultConstraints")

TEST_CASE("should apply default zonal spread to a pod that declares no constraints of its own",
          "[default_constraints]") {
  const ClusterSnapshot snap = Snap(TestPods(4));
  const SolveResult r = Solve(snap, WithDefaults({Default(kZoneKey)}));
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  CHECK(SkewOf(r, snap, kLabels, kZoneKey) == std::vector<int>{1, 1, 2});
}

TEST_CASE("should apply default hostname spread to a pod that declares no constraints of its own",
          "[default_constraints]") {
  const ClusterSnapshot snap = Snap(TestPods(3));
  const SolveResult r = Solve(snap, WithDefaults({Default(kHostKey)}));
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  // maxSkew 1 over hostnames puts every pod on its own node.
  CHECK(SkewOf(r, snap, kLabels, kHostKey) == std::vector<int>{1, 1, 1});
}

TEST_CASE("should NOT apply the default to a pod that declares its own constraints",
          "[default_constraints]") {
  TopologySpreadConstraint own = Default(kHostKey, 3);
  own.label_selector = LabelSelector{kLabels, {}};
  std::vector<Pod> pods = TestPods(3);
  for (Pod& p : pods) p.topology_spread_constraints = {own};
  const ClusterSnapshot snap = Snap(pods);
  const SolveResult r = Solve(snap, WithDefaults({Default(kHostKey)}));
  INFO(Describe(r));
  CHECK(NodesOf(r, pods).size() == 1);
}

TEST_CASE("should carry minDomains through a synthesized default", "[default_constraints]") {
  // minDomains 3 over two zones: the global minimum counts as 0, so each zone holds one pod.
  const ClusterSnapshot snap = Snap(TestPods(3), {kZ1, kZ2});
  const SolveResult r =
      Solve(snap, WithDefaults({Default(kZoneKey, 1, WhenUnsatisfiable::kDoNotSchedule, 3)}));
  INFO(Describe(r));
  CHECK(SkewOf(r, snap, kLabels, kZoneKey) == std::vector<int>{1, 1});
  CHECK(r.pod_errors.size() == 1);
}

TEST_CASE("should NOT schedule past a synthesized DoNotSchedule default that can't be satisfied",
          "[default_constraints]") {
  const ClusterSnapshot snap = Snap(TestPods(3), {kZ1});
  const SolveResult r =
      Solve(snap, WithDefaults({Default(kZoneKey, 1, WhenUnsatisfiable::kDoNotSchedule, 3)}));
  INFO(Describe(r));
  int scheduled = 0;
  for (const Pod& p : snap.pods) scheduled += Placed(r, p) ? 1 : 0;
  CHECK(scheduled == 1);
  CHECK(r.pod_errors.size() == 2);
}

TEST_CASE("should relax a synthesized ScheduleAnyway default when it can't be satisfied",
          "[default_constraints]") {
  const ClusterSnapshot snap = Snap(TestPods(3), {kZ1});
  const SolveResult r =
      Solve(snap, WithDefaults({Default(kZoneKey, 1, WhenUnsatisfiable::kScheduleAnyway, 3)}));
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  for (const Pod& p : snap.pods) CHECK(Placed(r, p));
}

TEST_CASE("should be a no-op when no default constraints are configured", "[default_constraints]") {
  const ClusterSnapshot snap = Snap(TestPods(3));
  const SolveResult r = Solve(snap, SchedulerOptions{});
  INFO(Describe(r));
  CHECK(NodesOf(r, snap.pods).size() == 1);
}

TEST_CASE("should not apply the default to a pod with no owner and no matching service",
          "[default_constraints]") {
  std::vector<Pod> pods = TestPods(3);
  for (Pod& p : pods) p.metadata.owner_references.clear();
  const ClusterSnapshot snap = Snap(pods);
  const SolveResult r = Solve(snap, WithDefaults({Default(kHostKey)}));
  INFO(Describe(r));
  CHECK(NodesOf(r, pods).size() == 1);
}

TEST_CASE("should count pre-existing cluster pods through the deduced selector",
          "[default_constraints]") {
  // Two of the ReplicaSet's pods already run in test-zone-1: counted through the deduced
  // selector, zone-1 is over-full and both new pods go to zone-2 (2/2); counting nothing they
  // would balance one per zone (3/1).
  std::vector<Pod> pods;
  for (Pod p : OwnedPods("existing", 2, kLabels, ControllerRef("apps/v1", "ReplicaSet", "test-rs"),
                         "100m")) {
    p.node_name = "existing-node";
    p.phase = "Running";
    pods.push_back(p);
  }
  std::vector<Pod> fresh = TestPods(2);
  pods.insert(pods.end(), fresh.begin(), fresh.end());
  ClusterSnapshot snap = Snap(pods, {kZ1, kZ2});
  snap.nodes.push_back(MakeNode("existing-node", "8", "16Gi", 110, {{kZoneKey, kZ1}}));
  const SolveResult r = Solve(snap, WithDefaults({Default(kZoneKey)}));
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  for (const Pod& p : fresh) CHECK(DomainOf(r, snap, p, kZoneKey) == kZ2);
  CHECK(SkewOf(r, snap, kLabels, kZoneKey) == std::vector<int>{2, 2});
}

TEST_CASE("should spread each workload independently", "[default_constraints]") {
  const Labels other = {{"test", "other"}};
  std::vector<Pod> pods = TestPods(3);
  std::vector<Pod> others =
      OwnedPods("other", 3, other, ControllerRef("apps/v1", "ReplicaSet", "other-rs"));
  pods.insert(pods.end(), others.begin(), others.end());
  ClusterSnapshot snap = Snap(pods);
  snap.workloads.push_back(ReplicaSet("other-rs", other));
  const SolveResult r = Solve(snap, WithDefaults({Default(kZoneKey)}));
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  CHECK(SkewOf(r, snap, kLabels, kZoneKey) == std::vector<int>{1, 1, 1});
  CHECK(SkewOf(r, snap, other, kZoneKey) == std::vector<int>{1, 1, 1});
}

TEST_CASE("should spread each Deployment revision independently", "[default_constraints]") {
  const Labels old_labels = {{"test", "test"}, {"pod-template-hash", "old"}};
  const Labels new_labels = {{"test", "test"}, {"pod-template-hash", "new"}};
  std::vector<Pod> pods =
      OwnedPods("old", 3, old_labels, ControllerRef("apps/v1", "ReplicaSet", "old-rs"));
  std::vector<Pod> fresh =
      OwnedPods("new", 3, new_labels, ControllerRef("apps/v1", "ReplicaSet", "new-rs"));
  pods.insert(pods.end(), fresh.begin(), fresh.end());
  ClusterSnapshot snap = Snap(pods);
  snap.workloads = {ReplicaSet("old-rs", old_labels), ReplicaSet("new-rs", new_labels)};
  const SolveResult r = Solve(snap, WithDefaults({Default(kZoneKey)}));
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  CHECK(SkewOf(r, snap, old_labels, kZoneKey) == std::vector<int>{1, 1, 1});
  CHECK(SkewOf(r, snap, new_labels, kZoneKey) == std::vector<int>{1, 1, 1});
}

TEST_CASE("should deduce a selector from a matching service for a pod with no supported owner",
          "[default_constraints]") {
  karp::Service service;
  service.metadata.name = "test-svc";
  service.metadata.namespace_ = "default";
  service.selector = kLabels;
  ClusterSnapshot snap =
      Snap(OwnedPods("job", 4, kLabels, ControllerRef("batch/v1", "Job", "test-job")));
  snap.workloads.clear();
  snap.services.push_back(service);
  const SolveResult r = Solve(snap, WithDefaults({Default(kZoneKey)}));
  INFO(Describe(r));
  CHECK(r.pod_errors.empty());
  CHECK(SkewOf(r, snap, kLabels, kZoneKey) == std::vector<int>{1, 1, 2});
}

// ---------------------------------------------------------------------------------------------
// Scheduler::Create and Update with defaults

TEST_CASE("Scheduler::Create rejects invalid default constraints", "[default_constraints]") {
  TopologySpreadConstraint with_selector = Default(kZoneKey);
  with_selector.label_selector = LabelSelector{kLabels, {}};
  absl::StatusOr<Scheduler> s =
      Scheduler::Create(Snap(TestPods(1)), FakeCatalog(4), WithDefaults({with_selector}));
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(Msg(s.status()).find("default_topology_spread") != std::string::npos);
  CHECK(Msg(s.status()).find("labelSelector must not be set") != std::string::npos);
}

TEST_CASE("Scheduler::Update gives the defaults to the pods of the new snapshot",
          "[default_constraints]") {
  const SchedulerOptions options = WithDefaults({Default(kHostKey)});
  absl::StatusOr<Scheduler> first = Scheduler::Create(Snap({}), FakeCatalog(4), options);
  REQUIRE(first.ok());
  SECTION("same NodePools: the NodePool preparation is reused") {
    const ClusterSnapshot next = Snap(TestPods(3));
    absl::StatusOr<Scheduler> updated = first->Update(next);
    REQUIRE(updated.ok());
    absl::StatusOr<SolveResult> r = updated->Solve();
    REQUIRE(r.ok());
    INFO(Describe(*r));
    CHECK(SkewOf(*r, next, kLabels, kHostKey) == std::vector<int>{1, 1, 1});
    CHECK(karp::testing::SameResult(*r, Solve(next, options)));
  }
  SECTION("a Service added since: its selector is deduced for unowned pods") {
    std::vector<Pod> pods = TestPods(3);
    for (Pod& p : pods) p.metadata.owner_references.clear();
    ClusterSnapshot next = Snap(pods);
    karp::Service service;
    service.metadata.name = "test-svc";
    service.metadata.namespace_ = "default";
    service.selector = kLabels;
    next.services.push_back(service);
    absl::StatusOr<Scheduler> updated = first->Update(next);
    REQUIRE(updated.ok());
    absl::StatusOr<SolveResult> r = updated->Solve();
    REQUIRE(r.ok());
    INFO(Describe(*r));
    CHECK(SkewOf(*r, next, kLabels, kHostKey) == std::vector<int>{1, 1, 1});
  }
  SECTION("changed NodePools: prepared afresh, with the defaults") {
    const ClusterSnapshot next = Snap(TestPods(2), {kZ1, kZ2});
    absl::StatusOr<Scheduler> updated = first->Update(next);
    REQUIRE(updated.ok());
    absl::StatusOr<SolveResult> r = updated->Solve();
    REQUIRE(r.ok());
    INFO(Describe(*r));
    CHECK(SkewOf(*r, next, kLabels, kHostKey) == std::vector<int>{1, 1});
  }
  SECTION("without defaults the same pods share one node") {
    absl::StatusOr<Scheduler> plain = Scheduler::Create(Snap({}), FakeCatalog(4));
    REQUIRE(plain.ok());
    const ClusterSnapshot next = Snap(TestPods(3));
    absl::StatusOr<Scheduler> updated = plain->Update(next);
    REQUIRE(updated.ok());
    absl::StatusOr<SolveResult> r = updated->Solve();
    REQUIRE(r.ok());
    CHECK(NodesOf(*r, next.pods).size() == 1);
  }
}

// ---------------------------------------------------------------------------------------------
// Consolidation with defaults (the reference's disruption simulation schedules through
// Provisioner.NewScheduler, which injects the defaults: provisioner.go Inject before
// NewTopology)

namespace {

// Two small nodes ($0.10, the cheapest type) in test-zone-1 and test-zone-2, each running one
// 500m replica of a ReplicaSet that the Service "web" selects. Both pods fit on one small node.
ClusterSnapshot TwoZoneReplicas(const karp::InstanceCatalog& catalog) {
  ClusterSnapshot snap;
  snap.node_pools.push_back(karp::testing::DisruptionPool("default"));
  karp::testing::AddManagedNode(snap, catalog, "n1", "default", "small", kZ1);
  karp::testing::AddManagedNode(snap, catalog, "n2", "default", "small", kZ2);
  const Labels web = {{"app", "web"}};
  snap.workloads.push_back(ReplicaSet("web-rs", web, 2));
  karp::Service service;
  service.metadata.name = "web";
  service.metadata.namespace_ = "default";
  service.selector = web;
  snap.services.push_back(service);
  const OwnerReference owner = ControllerRef("apps/v1", "ReplicaSet", "web-rs");
  for (const char* node : {"n1", "n2"}) {
    karp::testing::PodBuilder b =
        karp::testing::BoundPod(std::string("web-") + node, node, "500m").Label("app", "web");
    b.pod().metadata.owner_references.push_back(owner);
    snap.pods.push_back(b.Build());
  }
  return snap;
}

}  // namespace

TEST_CASE("consolidation honours the default zonal spread", "[default_constraints]") {
  // Moving either replica next to the other puts 2 pods in one zone and 0 in the third zone
  // the NodePool offers: skew 2 > maxSkew 1. Both pods on one new node is the same, and one
  // pod on a new node of another zone saves nothing (small is the cheapest type).
  auto catalog = karp::testing::MakeCatalog(karp::testing::SmallMediumLarge());
  const ClusterSnapshot snap = TwoZoneReplicas(*catalog);
  SECTION("without defaults one node is deleted, its pod moving next to the other") {
    const ConsolidationPlan plan = karp::testing::MustPlan(snap, catalog);
    INFO(karp::testing::Describe(plan));
    REQUIRE(plan.commands.size() == 1);
    CHECK(plan.commands[0].decision == DisruptionDecision::kDelete);
    CHECK(plan.commands[0].candidates.size() == 1);
  }
  SECTION("with a DoNotSchedule zone spread by default both nodes are kept") {
    ConsolidationOptions options;
    options.scheduler.default_topology_spread = {Default(kZoneKey)};
    const ConsolidationPlan plan = karp::testing::MustPlan(snap, catalog, options);
    INFO(karp::testing::Describe(plan));
    CHECK(plan.commands.empty());
    CHECK(karp::testing::KeptReason(plan, "n1").has_value());
    CHECK(karp::testing::KeptReason(plan, "n2").has_value());
  }
  SECTION("a ScheduleAnyway default blocks too: it is met on a new node, never relaxed") {
    // The moved pod fits a new node in a zone without replicas, so the preference is not
    // relaxed (the reference relaxes only a pod that fails to schedule); that new node is no
    // cheaper than the candidate.
    ConsolidationOptions options;
    options.scheduler.default_topology_spread = {
        Default(kZoneKey, 1, WhenUnsatisfiable::kScheduleAnyway)};
    const ConsolidationPlan plan = karp::testing::MustPlan(snap, catalog, options);
    INFO(karp::testing::Describe(plan));
    CHECK(plan.commands.empty());
  }
}
