// Dynamic resource allocation as the reference does by default (docs/design.md §5.19,
// `--ignore-dra-requests` true): the cases of the reference's scheduling suite, Describe
// "Dynamic Resource Allocation (DRA)" (pkg/controllers/provisioning/scheduling/suite_test.go):
// pods with resource claims in a container, an init container or both are not provisioned for
// and carry the DRA error; a pod without claims is; a DaemonSet whose pod has claims adds no
// daemon overhead.

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "karp/lower_bound.h"
#include "karp/scheduler.h"
#include "support/builders.h"

namespace {

using karp::ClusterSnapshot;
using karp::Pod;
using karp::SolveResult;
using karp::testing::ErrorOf;
using karp::testing::FakeCatalog;
using karp::testing::MakeDaemonSet;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;

constexpr char kDraError[] =
    "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter";

SolveResult SolveOne(const Pod& pod) {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.pods.push_back(pod);
  absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(snap, FakeCatalog(20));
  REQUIRE(s.ok());
  absl::StatusOr<SolveResult> r = s->Solve();
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("DRA: a container with resource claims is not provisioned for", "[dra]") {
  Pod pod = MakePod("dra-container-pod", "1", "1Gi");
  pod.containers[0].resource_claims = {"gpu-claim"};
  pod.resource_claims = {"gpu-claim"};
  CHECK(pod.HasResourceClaims());
  const SolveResult r = SolveOne(pod);
  CHECK(r.node_claims.empty());
  CHECK(ErrorOf(r, "default/dra-container-pod") == std::optional<std::string>(kDraError));
}

TEST_CASE("DRA: an init container with resource claims is not provisioned for", "[dra]") {
  Pod pod = MakePod("dra-init-container-pod", "1", "1Gi").InitContainer("500m", "512Mi");
  pod.init_containers[0].resource_claims = {"gpu-init-claim"};
  const SolveResult r = SolveOne(pod);
  CHECK(r.node_claims.empty());
  CHECK(ErrorOf(r, "default/dra-init-container-pod") == std::optional<std::string>(kDraError));
}

TEST_CASE("DRA: a pod with both container and init container claims is not provisioned for",
          "[dra]") {
  Pod pod = MakePod("dra-both-pod", "1", "1Gi").InitContainer("250m", "256Mi");
  pod.containers[0].resource_claims = {"gpu-claim"};
  pod.init_containers[0].resource_claims = {"storage-init-claim"};
  const SolveResult r = SolveOne(pod);
  CHECK(r.node_claims.empty());
  CHECK(ErrorOf(r, "default/dra-both-pod") == std::optional<std::string>(kDraError));
}

TEST_CASE("DRA: a pod without resource claims is provisioned for", "[dra]") {
  const Pod pod = MakePod("non-dra-pod", "1", "1Gi");
  CHECK_FALSE(pod.HasResourceClaims());
  const SolveResult r = SolveOne(pod);
  CHECK(r.node_claims.size() == 1);
  CHECK(r.pod_errors.empty());
}

TEST_CASE("DRA: a DaemonSet pod with claims adds no daemon overhead", "[dra]") {
  // The reference: with IgnoreDRARequests the 3-cpu daemon does not count, so the claim's
  // smallest type is smaller than when it counts.
  auto requests_with = [](bool claims) {
    ClusterSnapshot snap;
    snap.node_pools.push_back(MakeNodePool("default"));
    Pod daemon = MakePod("dra-daemon", "3");
    if (claims) daemon.containers[0].resource_claims = {"gpu-claim"};
    snap.daemon_sets.push_back(MakeDaemonSet("dra-daemon", daemon));
    snap.pods.push_back(MakePod("app", "1"));
    absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(snap, FakeCatalog(20));
    REQUIRE(s.ok());
    absl::StatusOr<SolveResult> r = s->Solve();
    REQUIRE(r.ok());
    REQUIRE(r->node_claims.size() == 1);
    return r->node_claims[0].requests.cpu();
  };
  CHECK(requests_with(true) == 1000);
  CHECK(requests_with(false) == 4000);
}

TEST_CASE("DRA: the lower bound counts pods with claims unplaceable", "[dra]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  Pod dra = MakePod("dra", "1");
  dra.resource_claims = {"gpu"};
  snap.pods.push_back(dra);
  snap.pods.push_back(MakePod("plain", "1"));
  absl::StatusOr<karp::CostLowerBound> lb = karp::PriceLowerBound(snap, *FakeCatalog(20));
  REQUIRE(lb.ok());
  CHECK(lb->unplaceable_pods == std::vector<std::string>{"default/dra"});
  CHECK(lb->price_per_hour > 0);
}
