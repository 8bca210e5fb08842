// Tests of the API server's defaulting that the codec applies before anything else sees an
// object (docs/design.md §2.1): container requests default from limits, pod-level requests
// from pod-level limits, and the reference's merge of limits into requests for DaemonSet
// templates (PodForDaemonSet). Self-contained: every input is written inline.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "karp/aws_catalog.h"
#include "karp/json/codec.h"
#include "karp/resources.h"
#include "karp/scheduler.h"
#include "support/snapshot_checks.h"

namespace {

using karp::ClusterSnapshot;
using karp::ParseQuantity;
using karp::testing::MustParse;

int64_t Q(const char* text, std::string_view resource) {
  absl::StatusOr<int64_t> v = ParseQuantity(text, resource);
  REQUIRE(v.ok());
  return *v;
}

const char kPool[] = R"({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
  "metadata": {"name": "default"}, "spec": {"template": {"spec": {
    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
    "requirements": []}}}})";

// A List of the default NodePool and one Pod with the given spec.
std::string PoolAndPod(const std::string& pod_spec) {
  return std::string(R"({"apiVersion": "v1", "kind": "List", "items": [)") + kPool +
         R"(, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
              "spec": )" +
         pod_spec + "}]}";
}

}  // namespace

TEST_CASE("a container's limits are its requests where it requests nothing", "[json][defaulting]") {
  const ClusterSnapshot snap = MustParse(PoolAndPod(R"({"containers": [
      {"name": "gpu", "resources": {"limits": {"nvidia.com/gpu": 1, "cpu": "2", "memory": "8Gi"}}},
      {"name": "mixed", "resources": {"requests": {"cpu": "100m"},
                                      "limits": {"cpu": "1", "memory": "1Gi"}}}],
    "initContainers": [
      {"name": "init", "resources": {"limits": {"cpu": "3"}}}]})"));
  REQUIRE(snap.pods.size() == 1);
  const karp::Pod& pod = snap.pods[0];
  REQUIRE(pod.containers.size() == 2);
  const karp::ResourceList& gpu = pod.containers[0].requests;
  CHECK(gpu.Get("nvidia.com/gpu") == 1);
  CHECK(gpu.cpu() == Q("2", karp::kResourceCpu));
  CHECK(gpu.memory() == Q("8Gi", karp::kResourceMemory));
  // A request that is present is kept; only the missing resource comes from the limit.
  const karp::ResourceList& mixed = pod.containers[1].requests;
  CHECK(mixed.cpu() == Q("100m", karp::kResourceCpu));
  CHECK(mixed.memory() == Q("1Gi", karp::kResourceMemory));
  REQUIRE(pod.init_containers.size() == 1);
  CHECK(pod.init_containers[0].requests.cpu() == Q("3", karp::kResourceCpu));
  // The pod's total: max(2 + 0.1, 3) cpu, 8Gi + 1Gi memory, one GPU.
  const karp::ResourceList total = pod.Requests();
  CHECK(total.cpu() == Q("3", karp::kResourceCpu));
  CHECK(total.memory() == Q("9Gi", karp::kResourceMemory));
  CHECK(total.Get("nvidia.com/gpu") == 1);
}

TEST_CASE("a malformed limit is an error naming its path", "[json][defaulting]") {
  const std::string error = karp::testing::ParseError(PoolAndPod(R"({"containers": [
      {"name": "c", "resources": {"limits": {"cpu": "two"}}}]})"));
  CHECK_THAT(error, Catch::Contains("containers[0].resources.limits"));
  CHECK_THAT(error, Catch::Contains("two"));
}

TEST_CASE("pod-level limits default the pod-level request only where no container requests",
          "[json][defaulting]") {
  SECTION("no container requests: the pod-level limit is the request") {
    const ClusterSnapshot snap = MustParse(PoolAndPod(R"({
        "resources": {"limits": {"cpu": "4", "memory": "2Gi"}},
        "containers": [{"name": "a"}, {"name": "b"}]})"));
    const karp::Pod& pod = snap.pods[0];
    CHECK(pod.pod_level_requests.cpu() == Q("4", karp::kResourceCpu));
    CHECK(pod.pod_level_requests.memory() == Q("2Gi", karp::kResourceMemory));
    CHECK(pod.Requests().cpu() == Q("4", karp::kResourceCpu));
  }
  SECTION("a container requests cpu: cpu is the containers' effective request") {
    const ClusterSnapshot snap = MustParse(PoolAndPod(R"({
        "resources": {"limits": {"cpu": "4", "memory": "2Gi"}},
        "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}, {"name": "b"}]})"));
    const karp::Pod& pod = snap.pods[0];
    CHECK_FALSE(pod.pod_level_requests.Has(karp::kResourceCpu));
    CHECK(pod.pod_level_requests.memory() == Q("2Gi", karp::kResourceMemory));
    CHECK(pod.Requests().cpu() == Q("1", karp::kResourceCpu));
    CHECK(pod.Requests().memory() == Q("2Gi", karp::kResourceMemory));
  }
  SECTION("a pod-level request is kept") {
    const ClusterSnapshot snap = MustParse(PoolAndPod(R"({
        "resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "4"}},
        "containers": [{"name": "a"}]})"));
    CHECK(snap.pods[0].pod_level_requests.cpu() == Q("500m", karp::kResourceCpu));
  }
}

TEST_CASE("a DaemonSet template's limits are merged into missing requests, as PodForDaemonSet",
          "[json][defaulting]") {
  const ClusterSnapshot snap = MustParse(std::string(R"({"apiVersion": "v1", "kind": "List",
    "items": [)") + kPool + R"(,
    {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
     "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
       "metadata": {"labels": {"app": "agent"}},
       "spec": {"resources": {"limits": {"cpu": "2"}},
                "containers": [{"name": "agent", "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}}}],
                "initContainers": [{"name": "setup", "resources": {"limits": {"memory": "1Gi"}}}]}}}}]})");
  REQUIRE(snap.daemon_sets.size() == 1);
  const karp::Pod& tmpl = snap.daemon_sets[0].pod_template;
  REQUIRE(tmpl.containers.size() == 1);
  CHECK(tmpl.containers[0].requests.cpu() == Q("500m", karp::kResourceCpu));
  CHECK(tmpl.containers[0].requests.memory() == Q("256Mi", karp::kResourceMemory));
  REQUIRE(tmpl.init_containers.size() == 1);
  CHECK(tmpl.init_containers[0].requests.memory() == Q("1Gi", karp::kResourceMemory));
  // The reference does not default a template's pod-level resources.
  CHECK(tmpl.pod_level_requests.empty());
  // The daemon is not free: its overhead is 500m cpu and max(256Mi, 1Gi) memory.
  CHECK(tmpl.Requests().cpu() == Q("500m", karp::kResourceCpu));
  CHECK(tmpl.Requests().memory() == Q("1Gi", karp::kResourceMemory));
}

TEST_CASE("a pod with GPU limits and no requests gets a GPU node from the embedded catalog",
          "[json][defaulting]") {
  const ClusterSnapshot snap = MustParse(PoolAndPod(R"({"containers": [
      {"name": "train", "resources": {"limits": {"nvidia.com/gpu": 1, "cpu": "2", "memory": "8Gi"}}}]})"));
  absl::StatusOr<karp::InstanceCatalog> aws = karp::EmbeddedAwsCatalog();
  REQUIRE(aws.ok());
  auto catalog = std::make_shared<const karp::InstanceCatalog>(std::move(*aws));
  absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(snap, catalog);
  REQUIRE(s.ok());
  absl::StatusOr<karp::SolveResult> r = s->Solve();
  REQUIRE(r.ok());
  CHECK(r->pod_errors.empty());
  REQUIRE(r->node_claims.size() == 1);
  const karp::NewNodeClaim& nc = r->node_claims[0];
  REQUIRE(nc.launch.has_value());
  const karp::InstanceType* launched = catalog->Find(nc.launch->instance_type);
  REQUIRE(launched != nullptr);
  CHECK(launched->capacity.Get("nvidia.com/gpu") >= 1);
  CHECK(launched->capacity.cpu() >= Q("2", karp::kResourceCpu));
  CHECK(nc.requests.Get("nvidia.com/gpu") == 1);
}

TEST_CASE("requests without limits decode as before", "[json][defaulting]") {
  const ClusterSnapshot snap = MustParse(PoolAndPod(R"({"containers": [
      {"name": "c", "resources": {"requests": {"cpu": "250m"}}}, {"name": "empty"}]})"));
  const karp::Pod& pod = snap.pods[0];
  CHECK(pod.containers[0].requests ==
        karp::ResourceList{{karp::kResourceCpu, Q("250m", karp::kResourceCpu)}});
  CHECK(pod.containers[1].requests.empty());
  CHECK(pod.pod_level_requests.empty());
}
