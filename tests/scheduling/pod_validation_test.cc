// One bad pod never stops a cluster: the reference provisioner's per-pod Validate. Pods that
// fail it stay pending with the pod error `ignoring pod, <reason>` and every other pod is
// scheduled, whether the snapshot is built in memory or read from a file.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "karp/cluster.h"
#include "karp/labels.h"
#include "karp/scheduler.h"
#include "support/builders.h"
#ifdef KARP_TEST_HAVE_JSON
#include "karp/json/codec.h"
#endif

namespace {

using karp::ClusterSnapshot;
using karp::Operator;
using karp::Scheduler;
using karp::SolveResult;
using karp::testing::Expr;
using karp::testing::FakeCatalog;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;

SolveResult SolveOk(const ClusterSnapshot& snap) {
  absl::StatusOr<Scheduler> s = Scheduler::Create(snap, FakeCatalog(4));
  INFO(std::string(s.status().message()));
  REQUIRE(s.ok());
  absl::StatusOr<SolveResult> r = s->Solve();
  REQUIRE(r.ok());
  return *r;
}

std::string ErrorOf(const SolveResult& r, const std::string& pod) {
  for (const karp::PodError& e : r.pod_errors) {
    if (e.pod == pod) return e.message;
  }
  return "<no error>";
}

bool Scheduled(const SolveResult& r, const std::string& pod) {
  for (const karp::NewNodeClaim& nc : r.node_claims) {
    for (const std::string& p : nc.pods) {
      if (p == pod) return true;
    }
  }
  return false;
}

std::string Restricted(const std::string& key) {
  std::string known;
  for (const std::string& k : karp::WellKnownLabels().keys())
    known += (known.empty() ? "" : " ") + k;
  return "using label " + key +
         " is not allowed as it might interfere with the internal provisioning logic; specify a "
         "well known label: [" +
         known + "], or a custom label that does not use a restricted domain: [karpenter.sh]";
}

TEST_CASE("Pods the reference ignores become pod errors and the rest is scheduled",
          "[scheduler][validation]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.pods.push_back(MakePod("good", "1"));
  snap.pods.push_back(MakePod("hostname", "1").NodeSelector("kubernetes.io/hostname", "red-node"));
  snap.pods.push_back(
      MakePod("restricted", "1").RequiredTerm({Expr("karpenter.sh/test", Operator::kIn, {"x"})}));
  karp::Pod fields = MakePod("fields", "1");
  fields.node_affinity.required.push_back({{}, /*has_match_fields=*/true});
  snap.pods.push_back(fields);
  snap.pods.push_back(
      MakePod("not-karpenter", "1")
          .RequiredTerm({Expr(std::string(karp::kLabelNodePool), Operator::kDoesNotExist, {})}));
  snap.pods.push_back(MakePod("two-reasons", "1")
                          .NodeSelector("kubernetes.io/hostname", "red-node")
                          .RequiredTerm({Expr("karpenter.sh/test", Operator::kIn, {"x"})}));
  snap.pods.push_back(MakePod("prefers-not-karpenter", "1")
                          .PreferredTerm(10, {Expr(std::string(karp::kLabelNodePool),
                                                   Operator::kDoesNotExist, {})}));
  // Preferred terms are not validated otherwise.
  snap.pods.push_back(MakePod("preferred", "1")
                          .PreferredTerm(10, {Expr("karpenter.sh/test", Operator::kIn, {"x"})}));

  const SolveResult r = SolveOk(snap);
  CHECK(Scheduled(r, "default/good"));
  CHECK(Scheduled(r, "default/preferred"));
  CHECK(ErrorOf(r, "default/hostname") == "ignoring pod, " + Restricted("kubernetes.io/hostname"));
  CHECK(ErrorOf(r, "default/restricted") == "ignoring pod, " + Restricted("karpenter.sh/test"));
  CHECK(ErrorOf(r, "default/fields") ==
        "ignoring pod, node selector term with matchFields is not supported");
  CHECK(ErrorOf(r, "default/not-karpenter") ==
        "ignoring pod, configured to not run on a Karpenter provisioned node "
        "(requirement=karpenter.sh/nodepool DoesNotExist)");
  CHECK(ErrorOf(r, "default/two-reasons") == "ignoring pod, " +
                                                 Restricted("kubernetes.io/hostname") + "; " +
                                                 Restricted("karpenter.sh/test"));
  CHECK(ErrorOf(r, "default/prefers-not-karpenter") ==
        "ignoring pod, configured to not run on a Karpenter provisioned node "
        "(requirement=karpenter.sh/nodepool DoesNotExist)");
  CHECK(r.pod_errors.size() == 6);
}

TEST_CASE("Pods handed to Solve directly are validated like snapshot pods",
          "[scheduler][validation]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  absl::StatusOr<Scheduler> s = Scheduler::Create(snap, FakeCatalog(4));
  REQUIRE(s.ok());
  karp::Pod negative = MakePod("negative", "1");
  negative.containers[0].requests.Set("cpu", -99000);
  karp::Pod good = MakePod("good", "1");
  absl::StatusOr<SolveResult> r = s->Solve({&negative, &good});
  REQUIRE(r.ok());
  CHECK(Scheduled(*r, "default/good"));
  CHECK(ErrorOf(*r, "default/negative") ==
        "ignoring pod, spec.containers[0].resources.requests.cpu: must not be negative, got "
        "-99000");
  CHECK(r->node_claims.size() == 1);
  CHECK(r->node_claims[0].requests.Get("cpu") == 1000);
}

#ifdef KARP_TEST_HAVE_JSON
TEST_CASE("A snapshot file with one tenant's typo still schedules everyone else",
          "[scheduler][validation][json]") {
  absl::StatusOr<ClusterSnapshot> snap = karp::json::ParseSnapshot(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: app, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: typo}
spec:
  nodeSelector: {kubernetes.io/hostname: red-node}
  containers: [{name: app, resources: {requests: {cpu: "1"}}}]
)",
                                                                   "cluster.yaml");
  INFO(std::string(snap.status().message()));
  REQUIRE(snap.ok());
  const SolveResult r = SolveOk(*snap);
  CHECK(Scheduled(r, "default/web"));
  CHECK(ErrorOf(r, "default/typo").rfind("ignoring pod, using label kubernetes.io/hostname", 0) ==
        0);
}
#endif

}  // namespace
