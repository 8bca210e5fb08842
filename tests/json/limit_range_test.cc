// Tests of LimitRange admission (karp/limit_range.h; docs/design.md §2.6): pods created
// without requests in a namespace with a LimitRange get its defaults as the LimitRanger
// admission plugin gives them (after the API server's requests-from-limits defaulting), pods
// that break its min/max/ratio are refused with the plugin's message, and pods admitted before
// (with a uid) are left alone. Self-contained: every input is written inline.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "karp/cluster.h"
#include "karp/json/codec.h"
#include "karp/json/command_io.h"
#include "karp/limit_range.h"
#include "karp/resources.h"
#include "support/snapshot_checks.h"

namespace {

using karp::ClusterSnapshot;
using karp::Pod;

ClusterSnapshot Read(const std::string& text) {
  absl::StatusOr<ClusterSnapshot> snap = karp::json::ParseSnapshotInputs({{"objects.yaml", text}});
  INFO(snap.status().message());
  REQUIRE(snap.ok());
  return *std::move(snap);
}

const Pod* FindPod(const ClusterSnapshot& snap, const std::string& name) {
  for (const Pod& p : snap.pods) {
    if (p.metadata.name == name) return &p;
  }
  return nullptr;
}

// The EKS best-practices defaults for a Karpenter cluster's namespaces.
const char kDefaults[] = R"(
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: team}
spec:
  limits:
    - type: Container
      defaultRequest: {cpu: 500m, memory: 512Mi}
      default: {cpu: "1", memory: 1Gi}
)";

TEST_CASE("Containers without requests get the namespace's LimitRange defaults", "[limitrange]") {
  ClusterSnapshot snap = Read(std::string(kDefaults) + R"(
---
apiVersion: v1
kind: Pod
metadata: {name: bare, namespace: team}
spec:
  containers: [{name: app}]
  initContainers: [{name: init, resources: {requests: {cpu: 100m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: limited, namespace: team}
spec: {containers: [{name: app, resources: {limits: {cpu: "2"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: admitted, namespace: team, uid: u-1}
spec: {containers: [{name: app}]}
---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: default}
spec: {containers: [{name: app}]}
)");
  const Pod* bare = FindPod(snap, "bare");
  REQUIRE(bare != nullptr);
  CHECK(bare->containers[0].requests.ToString() == R"({"cpu":"500m","memory":"512Mi"})");
  CHECK(bare->containers[0].limits.ToString() == R"({"cpu":"1","memory":"1Gi"})");
  CHECK(bare->init_containers[0].requests.ToString() == R"({"cpu":"100m","memory":"512Mi"})");
  CHECK(bare->Requests().ToString() == R"({"cpu":"500m","memory":"512Mi","pods":"1"})");
  CHECK(bare->metadata.annotations.at("kubernetes.io/limit-ranger") ==
        "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for "
        "container app; memory request for init container init; cpu, memory limit for init "
        "container init");
  // Requests defaulted from limits by the API server come first: cpu stays at the limit.
  const Pod* limited = FindPod(snap, "limited");
  CHECK(limited->containers[0].requests.ToString() == R"({"cpu":"2","memory":"512Mi"})");
  // Admitted before (a uid), or in another namespace: unchanged.
  CHECK(FindPod(snap, "admitted")->containers[0].requests.empty());
  CHECK(FindPod(snap, "other")->containers[0].requests.empty());
  REQUIRE(snap.notes.size() == 1);
  CHECK(snap.notes[0].rfind("LimitRange defaults set for 2 pods: pod team/bare: ", 0) == 0);
}

TEST_CASE("LimitRange defaults fill in from max and min as the API server stores them",
          "[limitrange]") {
  karp::LimitRangeItem item;
  item.type = "Container";
  item.max.Set("cpu", 2000);
  item.min.Set("memory", 64LL << 20);
  item.default_limit.Set("memory", 1LL << 30);
  const karp::LimitRangeItem d = karp::DefaultedLimitRangeItem(item);
  CHECK(d.default_limit.ToString() == R"({"cpu":"2","memory":"1Gi"})");
  // defaultRequest: default first (cpu 2, memory 1Gi); min only where neither set one.
  CHECK(d.default_request.ToString() == R"({"cpu":"2","memory":"1Gi"})");
  karp::LimitRangeItem pod_item = item;
  pod_item.type = "Pod";
  CHECK(karp::DefaultedLimitRangeItem(pod_item) == pod_item);
}

TEST_CASE("Pods breaking a LimitRange's min, max or ratio are refused with the plugin's message",
          "[limitrange]") {
  ClusterSnapshot snap = Read(R"(
apiVersion: v1
kind: LimitRange
metadata: {name: bounds, namespace: team}
spec:
  limits:
    - type: Container
      min: {cpu: 100m}
      max: {cpu: "2", memory: 4Gi}
      maxLimitRequestRatio: {memory: "2"}
    - type: Pod
      max: {cpu: "3"}
---
apiVersion: v1
kind: Pod
metadata: {name: ok, namespace: team}
spec: {containers: [{name: app, resources: {requests: {cpu: 200m, memory: 1Gi}, limits: {memory: 2Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: too-big, namespace: team}
spec: {containers: [{name: app, resources: {limits: {cpu: "4"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: too-small, namespace: team}
spec: {containers: [{name: app, resources: {requests: {cpu: 50m}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: ratio, namespace: team}
spec: {containers: [{name: app, resources: {requests: {cpu: 1, memory: 1Gi}, limits: {memory: 3Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: pod-sum, namespace: team}
spec:
  containers:
    - {name: a, resources: {requests: {cpu: "2"}}}
    - {name: b, resources: {requests: {cpu: "2"}}}
)");
  CHECK(snap.pods.size() == 1);
  CHECK(snap.pods[0].metadata.name == "ok");
  // Defaults from max: the ok pod's cpu limit is the max, its request stays.
  CHECK(snap.pods[0].containers[0].limits.ToString() == R"({"cpu":"2","memory":"2Gi"})");
  CHECK(snap.skipped ==
        std::vector<std::string>{
            "v1 Pod team/too-big (rejected by LimitRange team/bounds: maximum cpu usage per "
            "Container "
            "is 2, but limit is 4)",
            "v1 Pod team/too-small (rejected by LimitRange team/bounds: minimum cpu usage per "
            "Container is 100m, but request is 50m)",
            "v1 Pod team/ratio (rejected by LimitRange team/bounds: memory max limit to request "
            "ratio "
            "per Container is 2, but provided ratio is 3.000000)",
            "v1 Pod team/pod-sum (rejected by LimitRange team/bounds: maximum cpu usage per Pod is "
            "3, "
            "but limit is 4)"});
  CHECK(snap.skipped_objects == 4);
}

TEST_CASE("Pods a Deployment creates are admitted against the LimitRange too", "[limitrange]") {
  ClusterSnapshot snap = Read(std::string(kDefaults) + R"(
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: nginx}]}
)");
  REQUIRE(snap.pods.size() == 2);
  for (const Pod& p : snap.pods) {
    CHECK(p.Requests().ToString() == R"({"cpu":"500m","memory":"512Mi","pods":"1"})");
  }
}

TEST_CASE("LimitRange errors name the field, and a LimitRange round-trips", "[limitrange]") {
  CHECK(karp::testing::ParseError(R"({"apiVersion": "v1", "kind": "LimitRange",
      "metadata": {"name": "lr"}, "spec": {"limits": [{"type": "Node"}]}})") ==
        "objects.json: spec.limits[0].type: unsupported value \"Node\"; expected Container, Pod "
        "or PersistentVolumeClaim");
  CHECK(karp::testing::ParseError(R"({"apiVersion": "v1", "kind": "LimitRange",
      "metadata": {"name": "lr"}, "spec": {"limits": [{"type": "Container",
      "min": {"cpu": "1"}, "defaultRequest": {"cpu": "500m"}}]}})") ==
        "objects.json: spec.limits[0].defaultRequest.cpu: 500m is below min 1");
  CHECK(karp::testing::ParseError(R"({"apiVersion": "v1", "kind": "LimitRange",
      "metadata": {"name": "lr"}, "spec": {"limits": [{"type": "Container",
      "maxLimitRequestRatio": {"cpu": "0.5"}}]}})") ==
        "objects.json: spec.limits[0].maxLimitRequestRatio.cpu: ratio must be >= 1");
  CHECK(karp::testing::ParseError(R"({"apiVersion": "v1", "kind": "LimitRange",
      "metadata": {"name": "lr"}, "spec": {"limits": [{"type": "Container",
      "max": {"cpu": "lots"}}]}})")
            .find("spec.limits[0].max.cpu") != std::string::npos);
  // A name a container cannot request would reach every pod of the namespace as a default
  // (found by snapshot_fuzz): refused as the API server refuses it.
  CHECK(karp::testing::ParseError(R"({"apiVersion": "v1", "kind": "LimitRange",
      "metadata": {"name": "lr"}, "spec": {"limits": [{"type": "Container",
      "defaultRequest": {"cpx": "1"}}]}})") ==
        "objects.json: spec.limits[0].defaultRequest.cpx: must be a standard resource for "
        "containers (cpu, memory, ephemeral-storage, hugepages-<size>) or fully qualified "
        "(example.com/name)");
  CHECK(karp::testing::ParseError(R"({"apiVersion": "v1", "kind": "LimitRange",
      "metadata": {"name": "lr"}, "spec": {"limits": [{"type": "Pod",
      "maxLimitRequestRatio": {"gpu": "2"}}]}})")
            .find("spec.limits[0].maxLimitRequestRatio.gpu: must be a standard resource") !=
        std::string::npos);
  CHECK(karp::testing::MustParse(R"({"apiVersion": "v1", "kind": "LimitRange",
      "metadata": {"name": "lr"}, "spec": {"limits": [{"type": "Container",
      "defaultRequest": {"example.com/dongle": "1", "hugepages-2Mi": "2Mi"}}]}})")
            .limit_ranges.size() == 1);

  ClusterSnapshot snap = karp::testing::MustParse(std::string(kDefaults) + R"(
---
apiVersion: v1
kind: LimitRange
metadata: {name: ratio, namespace: team}
spec: {limits: [{type: Container, maxLimitRequestRatio: {memory: "1.5"}}]}
)");
  REQUIRE(snap.limit_ranges.size() == 2);
  CHECK(snap.limit_ranges[1].limits[0].max_limit_request_ratio.Get("memory") == 1500);
  ClusterSnapshot back = karp::testing::MustParse(karp::json::WriteSnapshot(snap));
  CHECK(back.limit_ranges == snap.limit_ranges);
}

}  // namespace
