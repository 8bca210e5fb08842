// Unit tests of the cluster-level default topology spread constraints (karp/topology_defaults.h)
// and of the reference's --scheduler-config document (karp::json::ParseSchedulerConfig,
// SchedulerConfigFromFlag).
//
// The selector cases port kubernetes-sigs/karpenter
// pkg/controllers/provisioning/scheduling/defaultconstraints_test.go: each TEST_CASE is named
// after its It(...) and reads back the constraint ApplyDefaultTopologySpread stamps onto the
// pod, as the reference reads back what Inject stamps. The configuration cases port
// pkg/operator/options/suite_test.go (Describe "SchedulerConfiguration") and the rules of
// options.go's Validate / validateDefaultConstraint.

#include "karp/topology_defaults.h"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/cluster.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/workloads.h"
#ifdef KARP_TEST_HAVE_JSON
#include "karp/json/command_io.h"
#endif

namespace {

using karp::ClusterSnapshot;
using karp::DefaultSpreadReport;
using karp::LabelSelector;
using karp::LabelSelectorRequirement;
using karp::NodeInclusionPolicy;
using karp::Operator;
using karp::OwnerReference;
using karp::Pod;
using karp::Service;
using karp::TopologySpreadConstraint;
using karp::WhenUnsatisfiable;
using karp::Workload;
using karp::WorkloadKind;
using Labels = std::map<std::string, std::string>;

const std::string kZoneKey(karp::kLabelZone);
const std::string kHostKey(karp::kLabelHostname);

// The reference's zoneDefault: zone, DoNotSchedule, maxSkew 1, no selector.
TopologySpreadConstraint ZoneDefault() {
  TopologySpreadConstraint t;
  t.topology_key = kZoneKey;
  t.when_unsatisfiable = WhenUnsatisfiable::kDoNotSchedule;
  t.max_skew = 1;
  return t;
}

// The controller reference a controller of `kind` sets on its pods (controllerRef).
OwnerReference ControllerRef(std::string api_version, std::string kind, std::string name) {
  OwnerReference o;
  o.api_version = std::move(api_version);
  o.kind = std::move(kind);
  o.name = std::move(name);
  o.uid = o.name + "-uid";
  o.controller = true;
  return o;
}

// A workload of `kind` named `name` in "default" whose selector is `selector` (match labels)
// and whose template carries those labels.
Workload MakeWorkload(WorkloadKind kind, std::string name, const Labels& selector) {
  Workload w;
  w.kind = kind;
  w.metadata.name = std::move(name);
  w.metadata.namespace_ = "default";
  w.metadata.uid = w.metadata.name + "-uid";
  LabelSelector s;
  s.match_labels = selector;
  w.selector = s;
  w.pod_template.metadata.labels = selector;
  w.pod_template.metadata.namespace_ = "default";
  return w;
}

Service MakeService(std::string name, std::optional<Labels> selector, std::string ns = "default") {
  Service s;
  s.metadata.name = std::move(name);
  s.metadata.namespace_ = std::move(ns);
  s.selector = std::move(selector);
  return s;
}

// A pending pod in "default" with `labels` and `owners` (ownedPod).
Pod OwnedPod(std::string name, const Labels& labels, std::vector<OwnerReference> owners = {}) {
  Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  p.metadata.uid = std::move(name);
  p.metadata.labels = labels;
  p.metadata.owner_references = std::move(owners);
  p.phase = "Pending";
  return p;
}

LabelSelectorRequirement Req(std::string key, Operator op, std::vector<std::string> values) {
  return LabelSelectorRequirement{std::move(key), op, std::move(values)};
}

// Gomega's ConsistOf for requirements: the same elements in any order.
bool SameRequirements(const std::vector<LabelSelectorRequirement>& got,
                      const std::vector<LabelSelectorRequirement>& want) {
  return got.size() == want.size() && std::is_permutation(got.begin(), got.end(), want.begin());
}

// The reference's inject: applies ZoneDefault() to `pod` in `snap` and returns the selector it
// was given, or nullopt when the pod was not defaulted. DefaultSpreadSelector must agree.
std::optional<LabelSelector> Inject(ClusterSnapshot snap, const Pod& pod) {
  snap.pods = {pod};
  karp::ApplyDefaultTopologySpread(&snap, {ZoneDefault()});
  const Pod& got = snap.pods[0];
  CHECK(karp::DefaultSpreadSelector(snap, pod) ==
        (got.topology_spread_constraints.empty()
             ? std::nullopt
             : got.topology_spread_constraints[0].label_selector));
  if (got.topology_spread_constraints.empty()) return std::nullopt;
  REQUIRE(got.topology_spread_constraints.size() == 1);
  CHECK(got.topology_spread_constraints[0].topology_key == kZoneKey);
  REQUIRE(got.topology_spread_constraints[0].label_selector.has_value());
  return got.topology_spread_constraints[0].label_selector;
}

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// owner selectors

TEST_CASE("should deduce a ReplicaSet's selector, not the pod's labels", "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs",
                                        {{"app", "web"}, {"pod-template-hash", "abc123"}}));
  std::optional<LabelSelector> selector = Inject(
      snap, OwnedPod("web", {{"app", "web"}, {"pod-template-hash", "abc123"}, {"extra", "x"}},
                     {ControllerRef("apps/v1", "ReplicaSet", "web-rs")}));
  REQUIRE(selector.has_value());
  CHECK(selector->match_labels.empty());
  CHECK(SameRequirements(
      selector->match_expressions,
      {Req("app", Operator::kIn, {"web"}), Req("pod-template-hash", Operator::kIn, {"abc123"})}));
}

TEST_CASE("should deduce a StatefulSet's selector and ignore the pod's volatile labels",
          "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kStatefulSet, "db", {{"app", "db"}}));
  std::optional<LabelSelector> selector =
      Inject(snap, OwnedPod("db-0",
                            {{"app", "db"},
                             {"controller-revision-hash", "db-6f8c"},
                             {"statefulset.kubernetes.io/pod-name", "db-0"},
                             {"apps.kubernetes.io/pod-index", "0"}},
                            {ControllerRef("apps/v1", "StatefulSet", "db")}));
  REQUIRE(selector.has_value());
  CHECK(selector->match_labels.empty());
  CHECK(SameRequirements(selector->match_expressions, {Req("app", Operator::kIn, {"db"})}));
}

TEST_CASE("should carry a ReplicaSet's matchExpressions through verbatim", "[topology_defaults]") {
  ClusterSnapshot snap;
  Workload rs = MakeWorkload(WorkloadKind::kReplicaSet, "web-rs", {});
  rs.selector = LabelSelector{};
  rs.selector->match_expressions = {Req("app", Operator::kNotIn, {"other"})};
  rs.pod_template.metadata.labels = {{"app", "web"}};
  snap.workloads.push_back(rs);
  std::optional<LabelSelector> selector = Inject(
      snap, OwnedPod("web", {{"app", "web"}}, {ControllerRef("apps/v1", "ReplicaSet", "web-rs")}));
  REQUIRE(selector.has_value());
  CHECK(SameRequirements(selector->match_expressions, {Req("app", Operator::kNotIn, {"other"})}));
}

TEST_CASE("should deduce a ReplicationController's selector", "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(
      MakeWorkload(WorkloadKind::kReplicationController, "legacy", {{"app", "legacy"}}));
  std::optional<LabelSelector> selector =
      Inject(snap, OwnedPod("legacy-x", {{"app", "legacy"}},
                            {ControllerRef("v1", "ReplicationController", "legacy")}));
  REQUIRE(selector.has_value());
  // A ReplicationController's selector is merged into the labels, not ANDed on.
  CHECK(selector->match_labels == Labels{{"app", "legacy"}});
  CHECK(selector->match_expressions.empty());
}

TEST_CASE("should not deduce a selector from an unsupported owner kind", "[topology_defaults]") {
  // Even with the Job in the snapshot: kube-scheduler deduces only from rc/rs/ss.
  ClusterSnapshot snap;
  Workload job = MakeWorkload(WorkloadKind::kJob, "test-job", {{"app", "batch"}});
  snap.workloads.push_back(job);
  CHECK_FALSE(Inject(snap, OwnedPod("batch-x", {{"app", "batch"}},
                                    {ControllerRef("batch/v1", "Job", "test-job")}))
                  .has_value());
}

TEST_CASE("should ignore a non-controller owner reference", "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs", {{"app", "web"}}));
  OwnerReference owner = ControllerRef("apps/v1", "ReplicaSet", "web-rs");
  owner.controller = false;
  CHECK_FALSE(Inject(snap, OwnedPod("web", {{"app", "web"}}, {owner})).has_value());
}

TEST_CASE("should tolerate an owner that no longer exists", "[topology_defaults]") {
  ClusterSnapshot snap;
  CHECK_FALSE(Inject(snap, OwnedPod("web", {{"app", "web"}},
                                    {ControllerRef("apps/v1", "ReplicaSet", "does-not-exist")}))
                  .has_value());
}

TEST_CASE("an owner reference of another API group is not a ReplicaSet of apps/v1",
          "[topology_defaults]") {
  // defaultconstraints.go resolveOwnerContribution: gv.WithKind(owner.Kind) must equal
  // apps/v1 ReplicaSet; any other group contributes nothing.
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs", {{"app", "web"}}));
  CHECK_FALSE(Inject(snap, OwnedPod("web", {{"app", "web"}},
                                    {ControllerRef("extensions/v1beta1", "ReplicaSet", "web-rs")}))
                  .has_value());
}

// ---------------------------------------------------------------------------------------------
// service selectors

TEST_CASE("should deduce a selector from a matching service", "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.services.push_back(MakeService("web", Labels{{"app", "web"}}));
  std::optional<LabelSelector> selector =
      Inject(snap, OwnedPod("web", {{"app", "web"}, {"extra", "ignored"}}));
  REQUIRE(selector.has_value());
  CHECK(selector->match_labels == Labels{{"app", "web"}});
  CHECK(selector->match_expressions.empty());
}

TEST_CASE("should merge the selectors of every matching service", "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.services.push_back(MakeService("web", Labels{{"app", "web"}}));
  snap.services.push_back(MakeService("frontend", Labels{{"tier", "frontend"}}));
  std::optional<LabelSelector> selector =
      Inject(snap, OwnedPod("web", {{"app", "web"}, {"tier", "frontend"}}));
  REQUIRE(selector.has_value());
  CHECK(selector->match_labels == Labels{{"app", "web"}, {"tier", "frontend"}});
}

TEST_CASE("should not deduce a selector from a non-matching service", "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.services.push_back(MakeService("other", Labels{{"app", "other"}}));
  CHECK_FALSE(Inject(snap, OwnedPod("web", {{"app", "web"}})).has_value());
}

TEST_CASE("should skip a service with a nil selector", "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.services.push_back(MakeService("headless", std::nullopt));
  CHECK_FALSE(Inject(snap, OwnedPod("web", {{"app", "web"}})).has_value());
}

TEST_CASE("should contribute nothing for a service with an empty selector", "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.services.push_back(MakeService("everything", Labels{}));
  CHECK_FALSE(Inject(snap, OwnedPod("web", {{"app", "web"}})).has_value());
}

TEST_CASE("should ignore a matching service in another namespace", "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.services.push_back(MakeService("web", Labels{{"app", "web"}}, "elsewhere"));
  CHECK_FALSE(Inject(snap, OwnedPod("web", {{"app", "web"}})).has_value());
}

TEST_CASE("should combine a service selector with the owner's", "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs",
                                        {{"app", "web"}, {"pod-template-hash", "abc123"}}));
  snap.services.push_back(MakeService("frontend", Labels{{"tier", "frontend"}}));
  std::optional<LabelSelector> selector = Inject(
      snap, OwnedPod("web", {{"app", "web"}, {"pod-template-hash", "abc123"}, {"tier", "frontend"}},
                     {ControllerRef("apps/v1", "ReplicaSet", "web-rs")}));
  REQUIRE(selector.has_value());
  CHECK(selector->match_labels == Labels{{"tier", "frontend"}});
  CHECK(SameRequirements(
      selector->match_expressions,
      {Req("app", Operator::kIn, {"web"}), Req("pod-template-hash", Operator::kIn, {"abc123"})}));
}

// ---------------------------------------------------------------------------------------------
// conflicting service and owner selectors

TEST_CASE("should let a ReplicationController's selector overwrite a conflicting service label",
          "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(
      MakeWorkload(WorkloadKind::kReplicationController, "legacy", {{"app", "legacy"}}));
  snap.services.push_back(MakeService("web", Labels{{"app", "web"}}));
  std::optional<LabelSelector> selector = Inject(
      snap,
      OwnedPod("web", {{"app", "web"}}, {ControllerRef("v1", "ReplicationController", "legacy")}));
  REQUIRE(selector.has_value());
  CHECK(selector->match_labels == Labels{{"app", "legacy"}});
  CHECK(selector->match_expressions.empty());
}

TEST_CASE("should AND a ReplicaSet's conflicting selector, selecting nothing",
          "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs", {{"app", "other"}}));
  snap.services.push_back(MakeService("web", Labels{{"app", "web"}}));
  std::optional<LabelSelector> selector = Inject(
      snap, OwnedPod("web", {{"app", "web"}}, {ControllerRef("apps/v1", "ReplicaSet", "web-rs")}));
  REQUIRE(selector.has_value());
  CHECK(selector->match_labels == Labels{{"app", "web"}});
  CHECK(SameRequirements(selector->match_expressions, {Req("app", Operator::kIn, {"other"})}));
  // Unsatisfiable, as upstream: it matches neither label value.
  CHECK_FALSE(selector->Matches({{"app", "web"}}));
  CHECK_FALSE(selector->Matches({{"app", "other"}}));
}

// ---------------------------------------------------------------------------------------------
// selector caching

TEST_CASE("should not share a selector between pods of the same owner with different labels",
          "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs", {{"app", "web"}}));
  snap.services.push_back(MakeService("frontend", Labels{{"tier", "frontend"}}));
  const OwnerReference owner = ControllerRef("apps/v1", "ReplicaSet", "web-rs");
  // One pass over both pods, so they share one cache.
  snap.pods = {OwnedPod("frontend", {{"app", "web"}, {"tier", "frontend"}}, {owner}),
               OwnedPod("plain", {{"app", "web"}}, {owner})};
  karp::ApplyDefaultTopologySpread(&snap, {ZoneDefault()});
  REQUIRE(snap.pods[0].topology_spread_constraints.size() == 1);
  REQUIRE(snap.pods[1].topology_spread_constraints.size() == 1);
  CHECK(snap.pods[0].topology_spread_constraints[0].label_selector->match_labels ==
        Labels{{"tier", "frontend"}});
  CHECK(snap.pods[1].topology_spread_constraints[0].label_selector->match_labels.empty());
}

TEST_CASE("should not share a selector between identically-labeled pods in different namespaces",
          "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.services.push_back(MakeService("web", Labels{{"app", "web"}}));
  Pod selected = OwnedPod("selected", {{"app", "web"}});
  Pod other = OwnedPod("other", {{"app", "web"}});
  other.metadata.namespace_ = "elsewhere";
  snap.pods = {selected, other};
  karp::ApplyDefaultTopologySpread(&snap, {ZoneDefault()});
  CHECK(snap.pods[0].topology_spread_constraints.size() == 1);
  CHECK(snap.pods[1].topology_spread_constraints.empty());
}

// ---------------------------------------------------------------------------------------------
// injection

TEST_CASE("should leave a pod that declares its own constraints untouched", "[topology_defaults]") {
  TopologySpreadConstraint own;
  own.topology_key = kHostKey;
  own.when_unsatisfiable = WhenUnsatisfiable::kScheduleAnyway;
  own.label_selector = LabelSelector{{{"app", "web"}}, {}};
  own.max_skew = 5;
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs", {{"app", "web"}}));
  Pod pod = OwnedPod("web", {{"app", "web"}}, {ControllerRef("apps/v1", "ReplicaSet", "web-rs")});
  pod.topology_spread_constraints = {own};
  snap.pods = {pod};
  karp::ApplyDefaultTopologySpread(&snap, {ZoneDefault()});
  CHECK(snap.pods[0].topology_spread_constraints == std::vector<TopologySpreadConstraint>{own});
}

TEST_CASE("should be a no-op when no defaults are configured", "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs", {{"app", "web"}}));
  snap.pods = {
      OwnedPod("web", {{"app", "web"}}, {ControllerRef("apps/v1", "ReplicaSet", "web-rs")})};
  const ClusterSnapshot before = snap;
  const DefaultSpreadReport report = karp::ApplyDefaultTopologySpread(&snap, {});
  CHECK(snap.pods == before.pods);
  CHECK(report.defaulted == 0);
  CHECK(report.own == 0);
  CHECK(report.no_selector == 0);
  CHECK(report.owner_missing == 0);
}

TEST_CASE("should give each pod its own constraint slice so relaxation can't leak across pods",
          "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs", {{"app", "web"}}));
  const OwnerReference owner = ControllerRef("apps/v1", "ReplicaSet", "web-rs");
  snap.pods = {OwnedPod("web-0", {{"app", "web"}}, {owner}),
               OwnedPod("web-1", {{"app", "web"}}, {owner})};
  karp::ApplyDefaultTopologySpread(&snap, {ZoneDefault()});
  for (const Pod& p : snap.pods) REQUIRE(p.topology_spread_constraints.size() == 1);
  snap.pods[0].topology_spread_constraints[0].max_skew = 99;
  snap.pods[0].topology_spread_constraints[0].label_selector->match_labels = {{"mutated", "true"}};
  const TopologySpreadConstraint& other = snap.pods[1].topology_spread_constraints[0];
  CHECK(other.max_skew == ZoneDefault().max_skew);
  CHECK(other.label_selector->match_labels.count("mutated") == 0);
}

TEST_CASE("should preserve the configured constraint fields on the injected copy",
          "[topology_defaults]") {
  TopologySpreadConstraint configured;
  configured.topology_key = kZoneKey;
  configured.when_unsatisfiable = WhenUnsatisfiable::kScheduleAnyway;
  configured.max_skew = 4;
  configured.min_domains = 3;
  configured.node_taints_policy = NodeInclusionPolicy::kHonor;
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs", {{"app", "web"}}));
  snap.pods = {
      OwnedPod("web", {{"app", "web"}}, {ControllerRef("apps/v1", "ReplicaSet", "web-rs")})};
  karp::ApplyDefaultTopologySpread(&snap, {configured});
  REQUIRE(snap.pods[0].topology_spread_constraints.size() == 1);
  const TopologySpreadConstraint& tsc = snap.pods[0].topology_spread_constraints[0];
  CHECK(tsc.max_skew == 4);
  CHECK(tsc.when_unsatisfiable == WhenUnsatisfiable::kScheduleAnyway);
  CHECK(tsc.min_domains == std::optional<int32_t>(3));
  CHECK(tsc.node_taints_policy == NodeInclusionPolicy::kHonor);
  CHECK(tsc.label_selector.has_value());
}

TEST_CASE("should deduce independent selectors for pods of different workloads in one pass",
          "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs", {{"app", "web"}}));
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "api-rs", {{"app", "api"}}));
  snap.pods = {
      OwnedPod("web", {{"app", "web"}}, {ControllerRef("apps/v1", "ReplicaSet", "web-rs")}),
      OwnedPod("api", {{"app", "api"}}, {ControllerRef("apps/v1", "ReplicaSet", "api-rs")}),
      OwnedPod("undefaulted", {{"app", "orphan"}})};
  karp::ApplyDefaultTopologySpread(&snap, {ZoneDefault()});
  REQUIRE(snap.pods[0].topology_spread_constraints.size() == 1);
  REQUIRE(snap.pods[1].topology_spread_constraints.size() == 1);
  CHECK(SameRequirements(
      snap.pods[0].topology_spread_constraints[0].label_selector->match_expressions,
      {Req("app", Operator::kIn, {"web"})}));
  CHECK(SameRequirements(
      snap.pods[1].topology_spread_constraints[0].label_selector->match_expressions,
      {Req("app", Operator::kIn, {"api"})}));
  CHECK(snap.pods[2].topology_spread_constraints.empty());
}

// ---------------------------------------------------------------------------------------------
// DefaultSpreadReport (karp's account of what ApplyDefaultTopologySpread did)

TEST_CASE("the report counts defaulted, own, selector-less and owner-missing pods",
          "[topology_defaults]") {
  ClusterSnapshot snap;
  snap.workloads.push_back(MakeWorkload(WorkloadKind::kReplicaSet, "web-rs", {{"app", "web"}}));
  TopologySpreadConstraint own = ZoneDefault();
  own.label_selector = LabelSelector{{{"app", "web"}}, {}};
  Pod with_own =
      OwnedPod("own", {{"app", "web"}}, {ControllerRef("apps/v1", "ReplicaSet", "web-rs")});
  with_own.topology_spread_constraints = {own};
  Pod bound =
      OwnedPod("bound", {{"app", "web"}}, {ControllerRef("apps/v1", "ReplicaSet", "web-rs")});
  bound.node_name = "n1";
  bound.phase = "Running";
  snap.pods = {
      OwnedPod("web", {{"app", "web"}}, {ControllerRef("apps/v1", "ReplicaSet", "web-rs")}),
      bound,  // bound pods are defaulted too (consolidation moves them)
      with_own, OwnedPod("orphan", {{"app", "orphan"}}),
      OwnedPod("job", {{"app", "batch"}}, {ControllerRef("batch/v1", "Job", "j")}),
      // The ReplicaSet is not in the snapshot: with it a selector might have been deduced.
      OwnedPod("gone-0", {{"app", "gone"}}, {ControllerRef("apps/v1", "ReplicaSet", "gone-rs")}),
      OwnedPod("gone-1", {{"app", "gone"}}, {ControllerRef("apps/v1", "ReplicaSet", "gone-rs")})};
  const DefaultSpreadReport report = karp::ApplyDefaultTopologySpread(&snap, {ZoneDefault()});
  CHECK(report.defaulted == 2);
  CHECK(report.own == 1);
  CHECK(report.no_selector == 4);
  CHECK(report.owner_missing == 2);
  CHECK(snap.pods[1].topology_spread_constraints.size() == 1);
  CHECK(snap.pods[2].topology_spread_constraints == std::vector<TopologySpreadConstraint>{own});
}

TEST_CASE("a missing owner with a matching service is still defaulted from the service",
          "[topology_defaults]") {
  // Upstream proceeds without the owner's contribution (defaultconstraints.go
  // ownerContributionFor), keeping the service's labels.
  ClusterSnapshot snap;
  snap.services.push_back(MakeService("web", Labels{{"app", "web"}}));
  snap.pods = {OwnedPod("web", {{"app", "web"}},
                        {ControllerRef("apps/v1", "ReplicaSet", "does-not-exist")})};
  const DefaultSpreadReport report = karp::ApplyDefaultTopologySpread(&snap, {ZoneDefault()});
  CHECK(report.defaulted == 1);
  CHECK(report.no_selector == 0);
  CHECK(report.owner_missing == 0);
  REQUIRE(snap.pods[0].topology_spread_constraints.size() == 1);
  CHECK(snap.pods[0].topology_spread_constraints[0].label_selector ==
        LabelSelector{{{"app", "web"}}, {}});
}

// ---------------------------------------------------------------------------------------------
// ValidateDefaultTopologySpread (options.go Validate / validateDefaultConstraint)

namespace {

// The error of ValidateDefaultTopologySpread(constraints), "" when it accepts them.
std::string ValidationError(const std::vector<TopologySpreadConstraint>& constraints) {
  absl::Status s = karp::ValidateDefaultTopologySpread(constraints);
  if (s.ok()) return "";
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  return Msg(s);
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("ValidateDefaultTopologySpread accepts valid defaults and none", "[topology_defaults]") {
  CHECK(ValidationError({}).empty());
  TopologySpreadConstraint host = ZoneDefault();
  host.topology_key = kHostKey;
  host.max_skew = 3;
  CHECK(ValidationError({ZoneDefault(), host}).empty());
}

TEST_CASE("ValidateDefaultTopologySpread rejects a non-positive maxSkew", "[topology_defaults]") {
  for (int32_t skew : {0, -1}) {
    TopologySpreadConstraint t = ZoneDefault();
    t.max_skew = skew;
    CHECK(Contains(ValidationError({t}),
                   "podTopologySpread.defaultConstraints[0].maxSkew must be greater than 0"));
  }
  // The index is the offending constraint's.
  TopologySpreadConstraint bad = ZoneDefault();
  bad.topology_key = kHostKey;
  bad.max_skew = 0;
  CHECK(Contains(ValidationError({ZoneDefault(), bad}), "defaultConstraints[1].maxSkew"));
}

TEST_CASE("ValidateDefaultTopologySpread rejects a missing or invalid topologyKey",
          "[topology_defaults]") {
  TopologySpreadConstraint t = ZoneDefault();
  t.topology_key = "";
  CHECK(Contains(ValidationError({t}),
                 "podTopologySpread.defaultConstraints[0].topologyKey must be set"));
  t.topology_key = "not a valid label name";
  CHECK(Contains(ValidationError({t}),
                 "podTopologySpread.defaultConstraints[0].topologyKey \"not a valid label "
                 "name\" is not a valid label name"));
}

TEST_CASE("ValidateDefaultTopologySpread rejects a labelSelector and matchLabelKeys",
          "[topology_defaults]") {
  TopologySpreadConstraint with_selector = ZoneDefault();
  with_selector.label_selector = LabelSelector{{{"app", "test"}}, {}};
  CHECK(Contains(ValidationError({with_selector}),
                 "podTopologySpread.defaultConstraints[0].labelSelector must not be set"));
  // An empty selector is still a selector (the reference checks LabelSelector != nil).
  with_selector.label_selector = LabelSelector{};
  CHECK(Contains(ValidationError({with_selector}), ".labelSelector must not be set"));
  TopologySpreadConstraint with_keys = ZoneDefault();
  with_keys.match_label_keys = {"pod-template-hash"};
  CHECK(Contains(ValidationError({with_keys}),
                 "podTopologySpread.defaultConstraints[0].matchLabelKeys must not be set"));
}

TEST_CASE("ValidateDefaultTopologySpread rejects a duplicated topologyKey and whenUnsatisfiable",
          "[topology_defaults]") {
  TopologySpreadConstraint first = ZoneDefault();
  first.when_unsatisfiable = WhenUnsatisfiable::kScheduleAnyway;
  TopologySpreadConstraint second = first;
  second.max_skew = 3;
  CHECK(Contains(ValidationError({first, second}),
                 "podTopologySpread.defaultConstraints[1] is a duplicate of [0], "
                 "{topology.kubernetes.io/zone, ScheduleAnyway}"));
  // The same key with the other whenUnsatisfiable is allowed.
  second.when_unsatisfiable = WhenUnsatisfiable::kDoNotSchedule;
  CHECK(ValidationError({first, second}).empty());
}

#ifdef KARP_TEST_HAVE_JSON

// ---------------------------------------------------------------------------------------------
// ParseSchedulerConfig (options suite_test.go, Describe "SchedulerConfiguration")

namespace {

constexpr const char* kSource = "sched.yaml";

// The error of ParseSchedulerConfig(text), "" when it parses.
std::string ParseError(const std::string& text) {
  absl::StatusOr<karp::SchedulerConfig> c = karp::json::ParseSchedulerConfig(text, kSource);
  if (c.ok()) return "";
  CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(Contains(Msg(c.status()), kSource));
  return Msg(c.status());
}

karp::SchedulerConfig MustParse(const std::string& text) {
  absl::StatusOr<karp::SchedulerConfig> c = karp::json::ParseSchedulerConfig(text, kSource);
  INFO(Msg(c.status()));
  REQUIRE(c.ok());
  return *c;
}

// A YAML document of one default constraint with `extra` lines appended to it.
std::string OneConstraint(const std::string& fields) {
  return "podTopologySpread:\n  defaultConstraints:\n    - " + fields;
}

}  // namespace

TEST_CASE("should return a nil configuration for an empty value", "[topology_defaults]") {
  CHECK(MustParse("").default_topology_spread.empty());
  CHECK(MustParse("  \n").default_topology_spread.empty());
  // A document without podTopologySpread has no defaults either.
  CHECK(MustParse("{}").default_topology_spread.empty());
}

TEST_CASE("should parse a valid podTopologySpread.defaultConstraints document",
          "[topology_defaults]") {
  karp::SchedulerConfig c = MustParse(R"(
podTopologySpread:
  defaultConstraints:
    - maxSkew: 1
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
    - maxSkew: 3
      topologyKey: kubernetes.io/hostname
      whenUnsatisfiable: DoNotSchedule
)");
  REQUIRE(c.default_topology_spread.size() == 2);
  CHECK(c.default_topology_spread[0].max_skew == 1);
  CHECK(c.default_topology_spread[0].topology_key == kZoneKey);
  CHECK(c.default_topology_spread[0].when_unsatisfiable == WhenUnsatisfiable::kScheduleAnyway);
  CHECK_FALSE(c.default_topology_spread[0].label_selector.has_value());
  CHECK(c.default_topology_spread[1].max_skew == 3);
  CHECK(c.default_topology_spread[1].topology_key == kHostKey);
  CHECK(c.default_topology_spread[1].when_unsatisfiable == WhenUnsatisfiable::kDoNotSchedule);
}

TEST_CASE("should parse an equivalent JSON document", "[topology_defaults]") {
  karp::SchedulerConfig c =
      MustParse(R"({"podTopologySpread":{"defaultConstraints":[{"maxSkew":1,"topologyKey":)"
                R"("topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway"}]}})");
  REQUIRE(c.default_topology_spread.size() == 1);
  CHECK(c.default_topology_spread[0].when_unsatisfiable == WhenUnsatisfiable::kScheduleAnyway);
}

TEST_CASE("a YAML flow mapping document parses as the reference's YAML decoder does",
          "[topology_defaults]") {
  karp::SchedulerConfig c = MustParse(
      "{podTopologySpread: {defaultConstraints: [{maxSkew: 2, topologyKey: "
      "topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, minDomains: 3, "
      "nodeTaintsPolicy: Honor}]}}");
  REQUIRE(c.default_topology_spread.size() == 1);
  const TopologySpreadConstraint& t = c.default_topology_spread[0];
  CHECK(t.max_skew == 2);
  CHECK(t.topology_key == kZoneKey);
  CHECK(t.when_unsatisfiable == WhenUnsatisfiable::kDoNotSchedule);
  CHECK(t.min_domains == std::optional<int32_t>(3));
  CHECK(t.node_taints_policy == NodeInclusionPolicy::kHonor);
}

TEST_CASE("should fail fast on an unknown field", "[topology_defaults]") {
  CHECK(Contains(ParseError(OneConstraint("maxSkew: 1\n"
                                          "      topologyKey: topology.kubernetes.io/zone\n"
                                          "      whenUnsatisfiable: ScheduleAnyway\n"
                                          "notARealField: true\n")),
                 "notARealField"));
  // Inside a constraint, the error names the field's path.
  const std::string nested =
      ParseError(OneConstraint("maxSkew: 1\n"
                               "      topologyKey: kubernetes.io/hostname\n"
                               "      whenUnsatisfiable: DoNotSchedule\n"
                               "      maxSkw: 2\n"));
  INFO(nested);
  CHECK(Contains(nested, "podTopologySpread.defaultConstraints[0]"));
  CHECK(Contains(nested, "maxSkw"));
  CHECK(Contains(ParseError("podTopologySpread:\n  defaultConstraint: []\n"), "defaultConstraint"));
}

TEST_CASE("should fail on malformed YAML", "[topology_defaults]") {
  CHECK_FALSE(ParseError("podTopologySpread: {").empty());
}

TEST_CASE("should reject a non-positive maxSkew", "[topology_defaults]") {
  // The decoder rejects it before ValidateDefaultTopologySpread does, in its own words
  // (`<path>: must be greater than 0`); either way the error names the field.
  const std::string error =
      ParseError(OneConstraint("maxSkew: 0\n"
                               "      topologyKey: topology.kubernetes.io/zone\n"
                               "      whenUnsatisfiable: ScheduleAnyway\n"));
  INFO(error);
  CHECK(Contains(error, "podTopologySpread.defaultConstraints[0].maxSkew"));
  CHECK(Contains(error, "must be greater than 0"));
}

TEST_CASE("should reject a missing topologyKey", "[topology_defaults]") {
  CHECK(Contains(ParseError(OneConstraint("maxSkew: 1\n"
                                          "      whenUnsatisfiable: ScheduleAnyway\n")),
                 "topologyKey"));
}

TEST_CASE("should reject a labelSelector", "[topology_defaults]") {
  CHECK(Contains(ParseError(OneConstraint("maxSkew: 1\n"
                                          "      topologyKey: topology.kubernetes.io/zone\n"
                                          "      whenUnsatisfiable: ScheduleAnyway\n"
                                          "      labelSelector:\n"
                                          "        matchLabels:\n"
                                          "          app: test\n")),
                 "labelSelector must not be set"));
}

TEST_CASE("should reject matchLabelKeys", "[topology_defaults]") {
  CHECK(Contains(ParseError(OneConstraint("maxSkew: 1\n"
                                          "      topologyKey: topology.kubernetes.io/zone\n"
                                          "      whenUnsatisfiable: ScheduleAnyway\n"
                                          "      matchLabelKeys:\n"
                                          "        - pod-template-hash\n")),
                 "matchLabelKeys must not be set"));
}

TEST_CASE("should reject a topologyKey that isn't a valid label name", "[topology_defaults]") {
  CHECK(Contains(ParseError(OneConstraint("maxSkew: 1\n"
                                          "      topologyKey: \"not a valid label name\"\n"
                                          "      whenUnsatisfiable: ScheduleAnyway\n")),
                 "is not a valid label name"));
}

TEST_CASE("should reject a duplicated topologyKey and whenUnsatisfiable pair",
          "[topology_defaults]") {
  CHECK(Contains(ParseError(R"(
podTopologySpread:
  defaultConstraints:
    - maxSkew: 1
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
    - maxSkew: 3
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
)"),
                 "podTopologySpread.defaultConstraints[1] is a duplicate of [0]"));
}

TEST_CASE("should allow the same topologyKey with a different whenUnsatisfiable",
          "[topology_defaults]") {
  karp::SchedulerConfig c = MustParse(R"(
podTopologySpread:
  defaultConstraints:
    - maxSkew: 1
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
    - maxSkew: 3
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: DoNotSchedule
)");
  CHECK(c.default_topology_spread.size() == 2);
}

TEST_CASE("should reject an invalid whenUnsatisfiable", "[topology_defaults]") {
  const std::string error =
      ParseError(OneConstraint("maxSkew: 1\n"
                               "      topologyKey: topology.kubernetes.io/zone\n"
                               "      whenUnsatisfiable: Sometimes\n"));
  INFO(error);
  CHECK(Contains(error, "whenUnsatisfiable"));
  CHECK(Contains(error, "Sometimes"));
}

// ---------------------------------------------------------------------------------------------
// SchedulerConfigFromFlag: the flag's value is the document, or a file path

namespace {

// A file holding `text` under the temporary directory, removed with the object.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text)
      : path_(std::filesystem::temp_directory_path() /
              ("karp_topology_defaults_" + std::to_string(::getpid()) + "_" + name)) {
    std::ofstream(path_) << text;
  }
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace

TEST_CASE("SchedulerConfigFromFlag takes a document as the reference's flag does",
          "[topology_defaults]") {
  absl::StatusOr<karp::SchedulerConfig> c = karp::json::SchedulerConfigFromFlag(
      R"({"podTopologySpread":{"defaultConstraints":[{"maxSkew":1,)"
      R"("topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"DoNotSchedule"}]}})");
  INFO(Msg(c.status()));
  REQUIRE(c.ok());
  REQUIRE(c->default_topology_spread.size() == 1);
  CHECK(c->default_topology_spread[0].topology_key == kHostKey);
  absl::StatusOr<karp::SchedulerConfig> empty = karp::json::SchedulerConfigFromFlag("");
  REQUIRE(empty.ok());
  CHECK(empty->default_topology_spread.empty());
  absl::StatusOr<karp::SchedulerConfig> bad = karp::json::SchedulerConfigFromFlag(
      "{podTopologySpread: {defaultConstraints: [{maxSkew: 0, "
      "topologyKey: kubernetes.io/hostname, "
      "whenUnsatisfiable: DoNotSchedule}]}}");
  REQUIRE_FALSE(bad.ok());
  INFO(Msg(bad.status()));
  CHECK(Contains(Msg(bad.status()), "--scheduler-config"));
  CHECK(Contains(Msg(bad.status()), "podTopologySpread.defaultConstraints[0].maxSkew"));
  CHECK(Contains(Msg(bad.status()), "must be greater than 0"));
}

TEST_CASE("SchedulerConfigFromFlag reads a plain string as the path of a file",
          "[topology_defaults]") {
  TempFile good("good.yaml", OneConstraint("maxSkew: 2\n"
                                           "      topologyKey: topology.kubernetes.io/zone\n"
                                           "      whenUnsatisfiable: ScheduleAnyway\n"));
  absl::StatusOr<karp::SchedulerConfig> c = karp::json::SchedulerConfigFromFlag(good.path());
  INFO(Msg(c.status()));
  REQUIRE(c.ok());
  REQUIRE(c->default_topology_spread.size() == 1);
  CHECK(c->default_topology_spread[0].max_skew == 2);
  CHECK(c->default_topology_spread[0].when_unsatisfiable == WhenUnsatisfiable::kScheduleAnyway);

  // The errors of a file's document name the file.
  TempFile bad("bad.yaml", "podTopologySpread:\n  unknownField: 1\n");
  absl::StatusOr<karp::SchedulerConfig> b = karp::json::SchedulerConfigFromFlag(bad.path());
  REQUIRE_FALSE(b.ok());
  CHECK(Contains(Msg(b.status()), bad.path()));
  CHECK(Contains(Msg(b.status()), "unknownField"));

  // A path that does not exist.
  const std::string missing = good.path() + ".missing";
  absl::StatusOr<karp::SchedulerConfig> m = karp::json::SchedulerConfigFromFlag(missing);
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(Contains(Msg(m.status()), missing));
  CHECK(Contains(Msg(m.status()), "neither a scheduler configuration document nor a file"));
}

#endif  // KARP_TEST_HAVE_JSON
