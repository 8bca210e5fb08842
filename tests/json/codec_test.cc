// Tests of karp::json (karp/json/codec.h): snapshot and catalog decoding, the error paths
// promised by docs/formats.md §5, hostile input, and the write -> parse round trips.
// Self-contained: every input is written inline (nothing is read from ../shared).

#include "karp/json/codec.h"
#include "support/snapshot_checks.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karp/aws_catalog.h"
#include "karp/consolidator.h"
#include "karp/json/command_io.h"
#include "karp/scheduler.h"

namespace {

using karp::ClusterSnapshot;
using karp::json::WriteSnapshot;

std::string Message(const absl::Status& s) { return std::string(s.message()); }

// The error of parsing `text`, which must fail with InvalidArgument.
using karp::testing::MustParse;
using karp::testing::ParseError;

void RequireSameObjects(const ClusterSnapshot& a, const ClusterSnapshot& b) {
  REQUIRE(a.node_pools.size() == b.node_pools.size());
  REQUIRE(a.node_claims.size() == b.node_claims.size());
  REQUIRE(a.nodes.size() == b.nodes.size());
  REQUIRE(a.pods.size() == b.pods.size());
  REQUIRE(a.daemon_sets.size() == b.daemon_sets.size());
  REQUIRE(a.pdbs.size() == b.pdbs.size());
  for (size_t i = 0; i < a.node_pools.size(); ++i) CHECK(a.node_pools[i] == b.node_pools[i]);
  for (size_t i = 0; i < a.node_claims.size(); ++i) CHECK(a.node_claims[i] == b.node_claims[i]);
  for (size_t i = 0; i < a.nodes.size(); ++i) CHECK(a.nodes[i] == b.nodes[i]);
  for (size_t i = 0; i < a.pods.size(); ++i) CHECK(a.pods[i] == b.pods[i]);
  for (size_t i = 0; i < a.daemon_sets.size(); ++i) CHECK(a.daemon_sets[i] == b.daemon_sets[i]);
  for (size_t i = 0; i < a.pdbs.size(); ++i) CHECK(a.pdbs[i] == b.pdbs[i]);
}

// A List of one NodePool and one Pod; `pool_requirements` and `pod_spec_extra` are spliced in.
std::string PoolAndPod(const std::string& pool_requirements, const std::string& container_requests,
                       const std::string& pod_spec_extra = "") {
  return R"({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
     "spec": {"template": {"spec": {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
        "requirements": [)" +
         pool_requirements + R"(]}}}},
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "web-0", "namespace": "default", "creationTimestamp": "2026-01-01T00:00:01Z"},
     "spec": {"containers": [{"name": "app", "resources": {"requests": )" +
         container_requests + "}}]" + pod_spec_extra + R"(},
     "status": {"phase": "Pending"}}]})";
}

constexpr const char* kCapacityTypeReq =
    R"({"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand", "spot"]})";

// Every kind, most fields (YAML, several documents).
constexpr const char* kFullSnapshotYaml = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
  uid: np-uid
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {team: infra}
spec:
  template:
    metadata:
      labels: {example.com/team: a}
      annotations: {note: "x"}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
        - {key: karpenter.k8s.aws/instance-family, operator: Exists, minValues: 2}
        - {key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: ["3"]}
      taints: [{key: example.com/special, value: "true", effect: NoSchedule}]
      startupTaints: [{key: example.com/init, effect: NoExecute}]
      expireAfter: Never
      terminationGracePeriod: 1h30m
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 30s
    budgets:
      - nodes: "20%"
        reasons: [Empty, Drifted]
      - nodes: "0"
        schedule: "0 9 * * mon-fri"
        duration: 8h
  limits: {cpu: 1000, memory: 1000Gi}
  weight: 10
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: default-abc12
  labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: m5.large}
  creationTimestamp: "2026-01-01T00:10:00Z"
  ownerReferences:
    - {apiVersion: karpenter.sh/v1, kind: NodePool, name: default, uid: np-uid, blockOwnerDeletion: true}
spec:
  requirements:
    - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
    - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5], minValues: 2}
  resources: {requests: {cpu: 1500m, memory: 2Gi, pods: "5"}}
  taints: [{key: example.com/special, value: "true", effect: NoSchedule}]
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  expireAfter: 720h
status:
  nodeName: ip-10-0-1-5
  providerID: aws:///us-east-1a/i-0123
  imageID: ami-1
  capacity: {cpu: "2", memory: 7577Mi, pods: "29"}
  allocatable: {cpu: 1930m, memory: 6903Mi, pods: "29"}
  lastPodEventTime: "2026-01-01T00:20:00.5Z"
  conditions:
    - {type: Launched, status: "True", reason: Launched, message: "", lastTransitionTime: "2026-01-01T00:10:05Z"}
    - {type: Initialized, status: "False", lastTransitionTime: "2026-01-01T01:10:05+01:00"}
---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-5
  labels:
    karpenter.sh/nodepool: default
    topology.kubernetes.io/zone: us-east-1a
  annotations: {karpenter.sh/do-not-disrupt: "true"}
  creationTimestamp: "2026-01-01T00:11:00Z"
spec:
  providerID: aws:///us-east-1a/i-0123
  unschedulable: true
  taints: [{key: node.kubernetes.io/not-ready, effect: NoExecute}]
status:
  capacity: {cpu: "2", memory: 7577Mi, pods: "29", ephemeral-storage: 20Gi}
  allocatable: {cpu: 1930m, memory: 6903Mi, pods: "29"}
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-01-01T00:12:00Z"}]
---
apiVersion: v1
kind: Pod
metadata:
  name: web-0
  uid: pod-uid
  labels: {app: web, version: "1"}
  deletionTimestamp: "2026-01-02T00:00:00Z"
  ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, uid: rs-uid, controller: true}
spec:
  nodeName: ip-10-0-1-5
  priority: 1000
  schedulerName: default-scheduler
  nodeSelector: {kubernetes.io/arch: amd64}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: topology.kubernetes.io/zone, operator: NotIn, values: [us-east-1c]}
          - matchExpressions:
              - {key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: ["9"]}
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 50
          preference:
            matchExpressions: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector: {matchLabels: {app: db}}
          topologyKey: topology.kubernetes.io/zone
          namespaces: [data]
          matchLabelKeys: [pod-template-hash]
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          podAffinityTerm:
            labelSelector:
              matchExpressions: [{key: app, operator: In, values: [web]}]
            namespaceSelector: {}
            topologyKey: kubernetes.io/hostname
            mismatchLabelKeys: [tenant]
  tolerations:
    - {key: example.com/special, operator: Equal, value: "true", effect: NoSchedule}
    - {operator: Exists}
    - {key: example.com/gpu, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  topologySpreadConstraints:
    - maxSkew: 2
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
      labelSelector: {matchLabels: {app: web}}
      minDomains: 3
      nodeAffinityPolicy: Ignore
      nodeTaintsPolicy: Honor
      matchLabelKeys: [pod-template-hash]
  containers:
    - name: app
      resources: {requests: {cpu: 0.5, memory: 512Mi, nvidia.com/gpu: 1}}
      ports: [{containerPort: 8080, hostPort: 80, protocol: UDP, hostIP: 10.0.0.1}]
  initContainers:
    - {name: init, resources: {requests: {cpu: "1"}}}
    - {name: sidecar, restartPolicy: Always, resources: {requests: {memory: 64Mi}}}
  overhead: {cpu: 10m}
  resources: {requests: {cpu: "2"}}
  volumes:
    - {name: data, persistentVolumeClaim: {claimName: data-web-0}}
    - {name: config, configMap: {name: cfg}}
status:
  phase: Running
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: logging, namespace: kube-system}
spec:
  selector: {matchLabels: {app: logging}}
  template:
    metadata:
      labels: {app: logging}
      creationTimestamp: null
    spec:
      tolerations: [{operator: Exists}]
      containers: [{name: fluent, resources: {requests: {cpu: 100m, memory: 128Mi}}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  minAvailable: 1
  maxUnavailable: "25%"
  unhealthyPodEvictionPolicy: AlwaysAllow
status:
  disruptionsAllowed: 0
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web}
)";

}  // namespace

TEST_CASE("A snapshot with every kind decodes every field", "[json]") {
  ClusterSnapshot snap = MustParse(kFullSnapshotYaml, "all.yaml");
  CHECK(snap.skipped_objects == 1);  // the ConfigMap

  REQUIRE(snap.node_pools.size() == 1);
  const karp::NodePool& np = snap.node_pools[0];
  CHECK(np.name() == "default");
  CHECK(np.metadata.creation_timestamp == absl::FromUnixSeconds(1767225600));
  CHECK(np.template_labels.at("example.com/team") == "a");
  CHECK(np.template_annotations.at("note") == "x");
  REQUIRE(np.requirements.size() == 3);
  CHECK(np.requirements[0].values == std::vector<std::string>{"spot", "on-demand"});
  CHECK(np.requirements[1].op == karp::Operator::kExists);
  CHECK(np.requirements[1].min_values == 2);
  CHECK(np.requirements[2].op == karp::Operator::kGt);
  CHECK(np.taints ==
        std::vector<karp::Taint>{{"example.com/special", "true", karp::TaintEffect::kNoSchedule}});
  CHECK(np.startup_taints[0].effect == karp::TaintEffect::kNoExecute);
  CHECK(np.node_class_ref.kind == "EC2NodeClass");
  CHECK_FALSE(np.expire_after.has_value());  // Never
  CHECK(np.termination_grace_period == absl::Minutes(90));
  CHECK(np.consolidation_policy == karp::ConsolidationPolicy::kWhenEmpty);
  CHECK(np.consolidate_after == absl::Seconds(30));
  REQUIRE(np.budgets.size() == 2);
  CHECK(np.budgets[0].nodes == "20%");
  CHECK(np.budgets[0].reasons == std::vector<std::string>{"Empty", "Drifted"});
  CHECK(np.budgets[1].nodes == "0");
  CHECK(np.budgets[1].schedule == "0 9 * * mon-fri");
  CHECK(np.budgets[1].duration == absl::Hours(8));
  CHECK(np.limits.cpu() == 1000 * 1000);
  CHECK(np.limits.memory() == int64_t{1000} << 30);
  CHECK(np.weight == 10);
  CHECK_FALSE(np.replicas.has_value());

  REQUIRE(snap.node_claims.size() == 1);
  const karp::NodeClaim& nc = snap.node_claims[0];
  CHECK(nc.NodePoolName() == "default");
  CHECK(nc.metadata.owner_references[0].kind == "NodePool");
  CHECK(nc.requirements[1].min_values == 2);
  CHECK(nc.requests.cpu() == 1500);
  CHECK(nc.requests.pods() == 5);
  CHECK(nc.expire_after == absl::Hours(720));
  CHECK(nc.node_name == "ip-10-0-1-5");
  CHECK(nc.image_id == "ami-1");
  CHECK(nc.allocatable.cpu() == 1930);
  CHECK(nc.last_pod_event_time == absl::FromUnixMillis(1767226800500));
  REQUIRE(nc.conditions.size() == 2);
  CHECK(nc.ConditionTrue("Launched"));
  CHECK_FALSE(nc.ConditionTrue("Initialized"));
  CHECK(nc.conditions[1].last_transition_time == absl::FromUnixSeconds(1767229805 - 3600));

  REQUIRE(snap.nodes.size() == 1);
  const karp::Node& node = snap.nodes[0];
  CHECK(node.metadata.namespace_.empty());
  CHECK(node.unschedulable);
  CHECK(node.provider_id == "aws:///us-east-1a/i-0123");
  CHECK(node.capacity.ephemeral_storage() == int64_t{20} << 30);
  CHECK(node.conditions[0].type == "Ready");
  CHECK(node.metadata.annotations.at("karpenter.sh/do-not-disrupt") == "true");

  REQUIRE(snap.pods.size() == 1);
  const karp::Pod& pod = snap.pods[0];
  CHECK(pod.metadata.namespace_ == "default");
  CHECK(pod.metadata.labels.at("version") == "1");
  CHECK(pod.IsTerminating());
  CHECK(pod.metadata.owner_references[0].controller);
  CHECK(pod.node_name == "ip-10-0-1-5");
  CHECK(pod.priority == 1000);
  CHECK(pod.scheduler_name == "default-scheduler");
  CHECK(pod.node_selector.at("kubernetes.io/arch") == "amd64");
  REQUIRE(pod.node_affinity.required.size() == 2);
  CHECK(pod.node_affinity.required[1].match_expressions[0].op == karp::Operator::kLt);
  CHECK(pod.node_affinity.preferred[0].weight == 50);
  REQUIRE(pod.pod_affinity.required.size() == 1);
  CHECK(pod.pod_affinity.required[0].namespaces == std::vector<std::string>{"data"});
  CHECK(pod.pod_affinity.required[0].match_label_keys[0] == "pod-template-hash");
  REQUIRE(pod.pod_anti_affinity.preferred.size() == 1);
  const karp::PodAffinityTerm& anti = pod.pod_anti_affinity.preferred[0].term;
  CHECK(anti.label_selector->match_expressions[0].values == std::vector<std::string>{"web"});
  REQUIRE(anti.namespace_selector.has_value());
  CHECK(anti.namespace_selector->empty());
  CHECK(anti.mismatch_label_keys[0] == "tenant");
  REQUIRE(pod.tolerations.size() == 3);
  CHECK(pod.tolerations[1].op == karp::TolerationOperator::kExists);
  CHECK(pod.tolerations[1].effect == karp::TaintEffect::kNone);
  REQUIRE(pod.topology_spread_constraints.size() == 1);
  const karp::TopologySpreadConstraint& tsc = pod.topology_spread_constraints[0];
  CHECK(tsc.max_skew == 2);
  CHECK(tsc.when_unsatisfiable == karp::WhenUnsatisfiable::kScheduleAnyway);
  CHECK(tsc.min_domains == 3);
  CHECK(tsc.node_affinity_policy == karp::NodeInclusionPolicy::kIgnore);
  CHECK(tsc.node_taints_policy == karp::NodeInclusionPolicy::kHonor);
  CHECK(pod.containers[0].requests.cpu() == 500);
  CHECK(pod.containers[0].requests.Get("nvidia.com/gpu") == 1);
  CHECK(pod.containers[0].ports[0] == karp::ContainerPort{8080, 80, "UDP", "10.0.0.1"});
  REQUIRE(pod.init_containers.size() == 2);
  CHECK(pod.init_containers[1].restart_policy == "Always");
  CHECK(pod.overhead.cpu() == 10);
  CHECK(pod.pod_level_requests.cpu() == 2000);
  REQUIRE(pod.volumes.size() == 1);  // the configMap volume is not kept
  CHECK(pod.volumes[0] == karp::PodVolume{"data", "data-web-0", false});
  CHECK(pod.ClaimName(pod.volumes[0]) == "data-web-0");
  CHECK(pod.phase == "Running");

  REQUIRE(snap.daemon_sets.size() == 1);
  const karp::DaemonSet& ds = snap.daemon_sets[0];
  CHECK(ds.pod_template.metadata.namespace_ == "kube-system");
  CHECK(ds.pod_template.metadata.labels.at("app") == "logging");
  CHECK(ds.pod_template.containers[0].requests.memory() == int64_t{128} << 20);

  REQUIRE(snap.pdbs.size() == 1);
  const karp::PodDisruptionBudget& pdb = snap.pdbs[0];
  CHECK(pdb.selector->match_labels.at("app") == "web");
  CHECK(pdb.min_available == "1");
  CHECK(pdb.max_unavailable == "25%");
  CHECK(pdb.unhealthy_pod_eviction_policy == "AlwaysAllow");
  CHECK(pdb.disruptions_allowed == 0);
}

TEST_CASE("WriteSnapshot round-trips a snapshot with every kind", "[json]") {
  ClusterSnapshot snap = MustParse(kFullSnapshotYaml, "all.yaml");
  std::string text = WriteSnapshot(snap);
  ClusterSnapshot again = MustParse(text, "written.json");
  RequireSameObjects(snap, again);
  CHECK(again.skipped_objects == 0);
  // Deterministic and a fixed point.
  CHECK(WriteSnapshot(again) == text);
  CHECK(text.find(R"("kind": "List")") != std::string::npos);
}

TEST_CASE("WriteSnapshot round-trips objects built in memory", "[json]") {
  ClusterSnapshot snap;
  karp::NodePool np;
  np.metadata.name = "batch";
  np.requirements.push_back({"kubernetes.io/arch", karp::Operator::kIn, {"arm64"}, std::nullopt});
  np.consolidate_after = std::nullopt;  // Never
  np.budgets.clear();
  np.replicas = 3;
  np.limits.Set("nodes", 10);
  snap.node_pools.push_back(np);
  karp::Pod pod;
  pod.metadata.name = "p";
  pod.metadata.namespace_ = "ns";
  pod.metadata.creation_timestamp = absl::FromUnixNanos(1767225600123456789);
  karp::Container c;
  c.name = "c";
  c.requests.Set("cpu", 1);
  c.requests.Set("memory", 1);
  pod.containers.push_back(c);
  pod.node_affinity.required.push_back(karp::NodeSelectorTerm{{}, true});
  pod.node_name = "n1";  // bound: matchFields allowed
  snap.pods.push_back(pod);
  karp::PodDisruptionBudget pdb;
  pdb.metadata.name = "b";
  pdb.metadata.namespace_ = "ns";
  pdb.selector = karp::LabelSelector{};
  pdb.min_available = "007";
  snap.pdbs.push_back(pdb);

  ClusterSnapshot again = MustParse(WriteSnapshot(snap));
  RequireSameObjects(snap, again);
  CHECK(again.node_pools[0].budgets.empty());
  CHECK(again.pods[0].node_affinity.required[0].has_match_fields);
}

TEST_CASE("NodePool and pod defaults follow the Kubernetes and Karpenter APIs", "[json]") {
  ClusterSnapshot snap = MustParse(PoolAndPod(kCapacityTypeReq, R"({"cpu": "1"})"));
  const karp::NodePool& np = snap.node_pools[0];
  CHECK(np.expire_after == absl::Hours(720));
  CHECK(np.consolidate_after == absl::ZeroDuration());
  CHECK(np.consolidation_policy == karp::ConsolidationPolicy::kWhenEmptyOrUnderutilized);
  REQUIRE(np.budgets.size() == 1);
  CHECK(np.budgets[0].nodes == "10%");
  CHECK_FALSE(np.weight.has_value());

  ClusterSnapshot pod_only = MustParse(R"({"kind": "Pod", "apiVersion": "v1",
      "metadata": {"name": "x"}, "spec": {"containers": []}})");
  REQUIRE(pod_only.pods.size() == 1);
  CHECK(pod_only.pods[0].metadata.namespace_ == "default");
  CHECK(pod_only.pods[0].IsPending());
}

TEST_CASE("Single objects, Lists, typed Lists and JSON arrays are accepted", "[json]") {
  const std::string pod = R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}})";
  CHECK(MustParse(pod).pods.size() == 1);
  CHECK(MustParse(R"({"kind": "List", "items": [)" + pod + "]}").pods.size() == 1);
  CHECK(
      MustParse(R"({"kind": "PodList", "apiVersion": "v1", "items": [)" + pod + "]}").pods.size() ==
      1);
  CHECK(MustParse("[" + pod + "]").pods.size() == 1);
  CHECK(MustParse(R"({"kind": "List", "items": []})").pods.empty());
}

TEST_CASE("A JSON List decoded item by item reads and fails as the whole document does",
          "[json][json-stream]") {
  // JSON Lists take the streamed path (each item decoded as it is read); these are the cases
  // where it must hand over to the whole-document path or order its errors like it.
  auto pod = [](const std::string& name) {
    return R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": ")" + name + R"("}})";
  };
  // The List's own errors come before its items' (here items[0] has no name).
  CHECK(ParseError(R"({"apiVersion": 5, "items": [{"kind": "Pod"}], "kind": "List"})") ==
        "objects.json: apiVersion: expected a string, got a number");
  CHECK(ParseError(R"({"items": [{"kind": "Pod"}]})") == "objects.json: kind: required");
  // Then the first failing item, by its path.
  CHECK(ParseError(R"({"items": [)" + pod("a") + R"(, {"kind": "Pod"}, {"kind": 1}],
                      "kind": "List"})") == "objects.json: items[1].metadata.name: required");
  CHECK(ParseError(R"({"items": [)" + pod("a") + "," + pod("a") + R"(], "kind": "List"})") ==
        "objects.json: items[1].metadata.name: duplicate pod \"default/a\" (first defined at "
        "items[0])");
  // A syntax error after a bad item is the error.
  CHECK_THAT(ParseError(R"({"items": [{"kind": "Pod"}], "kind": "List",})"),
             Catch::StartsWith("objects.json: parse error at line 1, column 45: syntax error"));
  // An object with items that is not a List: its items are not objects of the snapshot (and
  // not a field of a Pod).
  const std::string pod_with_items =
      R"({"apiVersion": "v1", "items": [{"kind": "Node", "metadata": {"name": "n"}}],
          "kind": "Pod", "metadata": {"name": "p"}})";
  CHECK(ParseError(pod_with_items) == "objects.json: items: unknown field");
  ClusterSnapshot not_list =
      MustParse(pod_with_items, "objects.json", karp::json::FieldValidation::kIgnore);
  CHECK(not_list.pods.size() == 1);
  CHECK(not_list.nodes.empty());
  // Valid JSON the fast reader leaves to nlohmann (a number that underflows): read once, with
  // the objects of an earlier input kept, and no duplicate from the declined attempt.
  absl::StatusOr<ClusterSnapshot> merged = karp::json::ParseSnapshotInputs(
      {{"first.json", pod("a")},
       {"second.json", R"({"items": [)" + pod("b") + R"(], "kind": "List", "x": 1e-400})"}});
  REQUIRE(merged.ok());
  REQUIRE(merged->pods.size() == 2);
  CHECK(merged->pods[1].metadata.name == "b");
  // The same List read item by item and as YAML (never streamed) gives the same snapshot.
  const std::string list = R"({"items": [)" + pod("a") + "," + pod("b") +
                           R"(, {"kind": "Node", "metadata": {"name": "n"}}], "kind": "List"})";
  CHECK(WriteSnapshot(MustParse(list)) == WriteSnapshot(MustParse("---\n" + list, "objects.yaml")));
}

TEST_CASE("Items read in place by the fast reader fail as the whole document does",
          "[json][json-stream]") {
  // A JSON List's Pods, Nodes, NodePools, NodeClaims, DaemonSets and PDBs are decoded from the
  // fast reader's values; YAML input goes through nlohmann. Every error names the same path
  // with the same words either way.
  const std::vector<std::string> items = {
      R"({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c",
          "resources": {"requests": {"memory": "x", "cpu": "abc"}}}]}})",
      R"({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c",
          "ports": [{"containerPort": 70000}]}]}})",
      R"({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"tolerations": [{"key": 3}]}})",
      R"({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"affinity": {"nodeAffinity": {
          "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchFields": 3}]}}}}})",
      R"({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"topologySpreadConstraints": [
          {"maxSkew": 0, "topologyKey": "zone"}]}})",
      R"({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"priority": 1.5}})",
      R"({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"priority": 100000000000}})",
      R"({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c",
          "ports": [{"containerPort": -1}]}]}})",
      R"({"kind": "Pod", "metadata": {"name": "p", "labels": {"a": 1}}})",
      R"({"kind": "Pod", "metadata": {"name": "p", "creationTimestamp": "yesterday"}})",
      R"({"kind": "Pod", "metadata": null, "spec": null})",
      R"({"kind": "Pod", "metadata": "p"})",
      R"({"kind": "Pod", "apiVersion": "v2", "metadata": {"name": "p"}})",
      R"({"kind": "Node", "metadata": {"name": "n"}, "status": {"capacity": {"cpu": 2.5,
          "memory": -1}}})",
      R"({"kind": "Node", "metadata": {"name": "n"}, "spec": {"taints": [{"key": "k",
          "effect": "Sometimes"}]}})",
      R"({"kind": "NodePool", "apiVersion": "karpenter.sh/v1", "metadata": {"name": "np"},
          "spec": {"template": {"spec": {"requirements": [{"key": "k", "operator": "In",
          "values": ["a"], "minValues": 0}]}}}})",
      R"({"kind": "NodePool", "metadata": {"name": "np"}, "spec": {"disruption": {"budgets": [
          {"nodes": 1.5}]}}})",
      R"({"kind": "NodePool", "metadata": {"name": "np"}, "spec": {"weight": "heavy"}})",
      R"({"kind": "NodeClaim", "metadata": {"name": "nc"}, "spec": {"resources": {"requests":
          {"cpu": []}}}})",
      R"({"kind": "DaemonSet", "metadata": {"name": "ds"}, "spec": {"template": {"spec":
          {"containers": "c"}}}})",
      R"({"kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "spec": {
          "minAvailable": true}})",
      R"({"kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "spec": {
          "maxUnavailable": "150x"}})",
  };
  for (const std::string& item : items) {
    const std::string list = R"({"apiVersion": "v1", "kind": "List", "items": [)" + item + "]}";
    INFO(list);
    const std::string streamed = ParseError(list, "in");
    CHECK(streamed == ParseError("---\n" + list, "in"));
    CHECK_THAT(streamed, Catch::StartsWith("in: items[0]"));
  }
  // Catalogs in JSON are read in place too.
  const std::vector<std::string> catalogs = {
      R"({"instanceTypes": [{"name": "a", "capacity": {"cpu": "x"}}]})",
      R"({"instanceTypes": [{"name": "a", "offerings": [{"zone": "z", "capacityType": "spot",
          "price": "1"}]}]})",
      R"({"instanceTypes": [{"name": "a", "offerings": [{"zone": "z", "capacityType": "spot",
          "price": -1}]}]})",
      R"({"instanceTypes": [{"name": "a"}, {"name": "a"}]})",
      R"({"instanceTypes": [{"name": "a", "requirements": [{"key": "k", "operator": "Gt",
          "values": ["x"]}]}]})",
      R"({"instanceTypes": {}})",
      R"({"types": []})",
  };
  for (const std::string& catalog : catalogs) {
    INFO(catalog);
    auto error = [](const std::string& text) {
      absl::StatusOr<karp::InstanceCatalog> c = karp::json::ParseCatalog(text, "cat");
      REQUIRE_FALSE(c.ok());
      return std::string(c.status().message());
    };
    CHECK(error(catalog) == error("---\n" + catalog));
  }
  // What reads fine reads the same, skipped objects included.
  const std::string good = R"({"kind": "List", "items": [
      {"kind": "Pod", "metadata": {"name": "a", "labels": {"z": "1", "a": "2"}},
       "spec": {"priority": 7.0, "schedulerName": "default-scheduler", "containers": [
       {"name": "c", "resources": {"requests": {"cpu": 1, "memory": "1Gi"}}}]}},
      {"kind": "Pod", "metadata": {"name": "other"}, "spec": {"schedulerName": "mine"}},
      {"kind": "ConfigMap", "metadata": {"name": "cm"}},
      {"kind": "PodList", "items": [{"kind": "Pod", "metadata": {"name": "b"}}]},
      {"kind": "Node", "metadata": {"name": "n"}, "status": {"capacity": {"cpu": 2.5}}}]})";
  const ClusterSnapshot fast = MustParse(good);
  const ClusterSnapshot slow = MustParse("---\n" + good, "objects.yaml");
  CHECK(fast.pods.size() == 2);
  CHECK(fast.pods[0].priority == 7);
  CHECK(fast.skipped == slow.skipped);
  CHECK(fast.skipped.size() == 2);
  CHECK(WriteSnapshot(fast) == WriteSnapshot(slow));
}

TEST_CASE("An input without any object is an error, as for kubectl", "[json]") {
  CHECK(ParseError("") == "no objects in objects.json");
  CHECK(ParseError("# only a comment\n") == "no objects in objects.json");
  CHECK(ParseError("---\n---\n") == "no objects in objects.json");
  CHECK(ParseError("  \n\t\n") == "no objects in objects.json");
}

TEST_CASE("Unknown kinds and pods for other schedulers are skipped and counted", "[json]") {
  ClusterSnapshot snap = MustParse(R"({"kind": "List", "items": [
      {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}},
      {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"},
       "spec": {"schedulerName": "my-scheduler", "containers": [{"name": "c",
                "resources": {"requests": {"cpu": "not-a-quantity"}}}]}},
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"},
       "spec": {"schedulerName": "default-scheduler"}}]})");
  CHECK(snap.skipped_objects == 3);
  REQUIRE(snap.pods.size() == 1);
  CHECK(snap.pods[0].metadata.name == "b");
}

TEST_CASE("YAML input with several documents is merged and errors name the document", "[json]") {
  const std::string yaml = R"(---
apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  containers: [{name: c, resources: {requests: {cpu: 1, memory: "1Gi"}}}]
---
# an empty document
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: b, labels: {quoted: "123", yes: "true"}}
)";
  ClusterSnapshot snap = MustParse(yaml, "pods.yaml");
  REQUIRE(snap.pods.size() == 2);
  CHECK(snap.pods[0].containers[0].requests.cpu() == 1000);
  CHECK(snap.pods[0].containers[0].requests.memory() == int64_t{1} << 30);
  CHECK(snap.pods[1].metadata.labels.at("quoted") == "123");

  const std::string bad = R"(apiVersion: v1
kind: Pod
metadata: {name: a}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec:
  containers: [{name: c, resources: {requests: {cpu: 1.5.3}}}]
)";
  CHECK(
      ParseError(bad, "pods.yaml") ==
      R"(pods.yaml: documents[1].spec.containers[0].resources.requests.cpu: invalid quantity "1.5.3": unknown suffix)");
}

TEST_CASE("YAML scalars are typed as YAML types them", "[json]") {
  // An unquoted number is not a string: labels must be strings.
  CHECK(ParseError("kind: Pod\napiVersion: v1\nmetadata: {name: a, labels: {version: 1}}\n",
                   "p.yaml") == "p.yaml: metadata.labels.version: expected a string, got a number");
  CHECK(ParseError("kind: Pod\napiVersion: v1\nmetadata: {name: a, labels: {on: true}}\n",
                   "p.yaml") == "p.yaml: metadata.labels.on: expected a string, got a boolean");
  // Quoted scalars stay strings; null means absent.
  ClusterSnapshot snap = MustParse(
      "kind: Pod\napiVersion: v1\nmetadata: {name: '007', labels: {a: 'true', b: \"1.5\"}}\n"
      "spec: {nodeName: ~, priority: 0x10}\n",
      "p.yaml");
  CHECK(snap.pods[0].metadata.name == "007");
  CHECK(snap.pods[0].metadata.labels.at("a") == "true");
  CHECK(snap.pods[0].metadata.labels.at("b") == "1.5");
  CHECK(snap.pods[0].node_name.empty());
  CHECK(snap.pods[0].priority == 16);
}

TEST_CASE("A malformed cpu request names the JSON path and the text", "[json]") {
  CHECK(
      ParseError(PoolAndPod(kCapacityTypeReq, R"({"cpu": "1.5.3", "memory": "512Mi"})")) ==
      R"(objects.json: items[1].spec.containers[0].resources.requests.cpu: invalid quantity "1.5.3": unknown suffix)");
}

TEST_CASE("A negative memory request is rejected", "[json]") {
  CHECK(ParseError(PoolAndPod(kCapacityTypeReq, R"({"cpu": "500m", "memory": "-512Mi"})")) ==
        "objects.json: items[1].spec.containers[0].resources.requests.memory: "
        "invalid quantity \"-512Mi\": must not be negative");
}

TEST_CASE("Invalid NodePool requirements name the requirement", "[json]") {
  const std::string prefix = "objects.json: items[0].spec.template.spec.requirements[1]";
  SECTION("In without values") {
    std::string msg = ParseError(
        PoolAndPod(std::string(kCapacityTypeReq) +
                       R"(, {"key": "example.com/tier", "operator": "In", "values": []})",
                   R"({"cpu": "1"})"));
    CHECK(msg.rfind(prefix + ": ", 0) == 0);
    CHECK(msg.find("must have a value") != std::string::npos);
  }
  SECTION("Gt with a non-integer") {
    std::string msg = ParseError(PoolAndPod(
        std::string(kCapacityTypeReq) +
            R"(, {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["four"]})",
        R"({"cpu": "1"})"));
    CHECK(msg.rfind(prefix + ": ", 0) == 0);
    CHECK(msg.find("\"four\"") != std::string::npos);
  }
  SECTION("minValues out of range") {
    std::string msg = ParseError(PoolAndPod(
        std::string(kCapacityTypeReq) +
            R"(, {"key": "karpenter.k8s.aws/instance-family", "operator": "Exists", "minValues": 51})",
        R"({"cpu": "1"})"));
    CHECK(msg.rfind(prefix + ": ", 0) == 0);
    CHECK(msg.find("minValues 51") != std::string::npos);
  }
  SECTION("unknown operator") {
    CHECK(
        ParseError(PoolAndPod(
            std::string(kCapacityTypeReq) +
                R"(, {"key": "topology.kubernetes.io/zone", "operator": "Within", "values": ["a"]})",
            R"({"cpu": "1"})")) ==
        prefix +
            ".operator: unsupported operator \"Within\"; expected one of In, NotIn, "
            "Exists, DoesNotExist, Gt, Lt, Gte, Lte");
  }
  SECTION("restricted key") {
    std::string msg = ParseError(
        PoolAndPod(std::string(kCapacityTypeReq) +
                       R"(, {"key": "kubernetes.io/hostname", "operator": "In", "values": ["a"]})",
                   R"({"cpu": "1"})"));
    CHECK(msg.rfind(prefix + ": ", 0) == 0);
  }
}

TEST_CASE("A string where an object is expected names the field and both types", "[json]") {
  CHECK(ParseError(PoolAndPod(kCapacityTypeReq, R"({"cpu": "1"})",
                              R"(, "nodeSelector": "kubernetes.io/arch=amd64")")) ==
        "objects.json: items[1].spec.nodeSelector: expected an object, got a string");
  CHECK(ParseError(R"({"kind": "Pod", "apiVersion": "v1", "metadata": "x"})") ==
        "objects.json: metadata: expected an object, got a string");
  CHECK(ParseError(R"({"kind": "List", "items": {"a": 1}})") ==
        "objects.json: items: expected an array, got an object");
}

TEST_CASE("A number where a string is expected is rejected", "[json]") {
  CHECK(ParseError(R"({"kind": "List", "items": [{"kind": "Pod", "apiVersion": "v1",
      "metadata": {"name": 5}}]})") ==
        "objects.json: items[0].metadata.name: expected a string, got a number");
  CHECK(ParseError(R"({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n"},
      "spec": {"taints": [{"key": "k", "effect": 1}]}})") ==
        "objects.json: spec.taints[0].effect: expected a string, got a number");
}

TEST_CASE("Huge integers and fractions where an int32 is expected are errors", "[json]") {
  auto pod_with_priority = [](const std::string& p) {
    return R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}, "spec": {"priority": )" +
           p + "}}";
  };
  CHECK(ParseError(pod_with_priority("99999999999999999999999")) ==
        "objects.json: spec.priority: integer out of range");
  CHECK(ParseError(pod_with_priority("18446744073709551615")) ==
        "objects.json: spec.priority: integer out of range");
  CHECK(ParseError(pod_with_priority("3000000000")) ==
        "objects.json: spec.priority: integer out of range for a 32-bit field");
  CHECK(ParseError(pod_with_priority("1.5")) ==
        "objects.json: spec.priority: expected an integer, got 1.5");
  CHECK(ParseError(pod_with_priority("1e400")).rfind("objects.json: ", 0) == 0);
  CHECK(MustParse(pod_with_priority("-2147483648")).pods[0].priority == INT32_MIN);
  // A quantity given as a huge number is a quantity error, not undefined behaviour.
  CHECK(ParseError(R"({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n"},
      "status": {"capacity": {"cpu": 1e300}}})")
            .rfind("objects.json: status.capacity.cpu: invalid quantity", 0) == 0);
}

TEST_CASE("Duplicate objects in one file are rejected", "[json]") {
  const std::string pod =
      R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0", "namespace": "default"}})";
  std::string msg = ParseError(R"({"kind": "List", "items": [)" + pod + "," + pod + "]}");
  CHECK(msg ==
        "objects.json: items[1].metadata.name: duplicate pod \"default/web-0\" (first defined at "
        "items[0])");
  // Same name in another namespace, or another kind, is fine.
  CHECK(
      MustParse(
          R"({"kind": "List", "items": [)" + pod +
          R"(, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0", "namespace": "x"}},
                      {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "web-0"}}]})")
          .pods.size() == 2);
  CHECK(ParseError(
            R"([{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "a"}},
                       {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "a"}}])")
            .find("duplicate nodepool") != std::string::npos);
}

TEST_CASE("Objects without a name are rejected", "[json]") {
  CHECK(ParseError(R"({"kind": "Node", "apiVersion": "v1", "metadata": {}})") ==
        "objects.json: metadata.name: required");
}

TEST_CASE("Truncated JSON names the source", "[json]") {
  std::string full = PoolAndPod(kCapacityTypeReq, R"({"cpu": "1"})");
  std::string msg = ParseError(full.substr(0, full.size() / 2));
  CHECK(msg.rfind("objects.json: ", 0) == 0);
  CHECK(msg.find("parse error") != std::string::npos);
}

TEST_CASE("100,000-deep nesting is rejected quickly, JSON and YAML", "[json]") {
  const auto start = std::chrono::steady_clock::now();
  SECTION("JSON arrays") {
    std::string msg = ParseError(std::string(100000, '['));
    CHECK(msg.rfind("objects.json: ", 0) == 0);
    CHECK(msg.find("nesting deeper than 256") != std::string::npos);
  }
  SECTION("JSON objects inside a List") {
    std::string deep = R"({"kind": "List", "items": [)";
    for (int i = 0; i < 100000; ++i) deep += R"({"a": )";
    std::string msg = ParseError(deep);
    CHECK(msg.find("nesting deeper than 256") != std::string::npos);
  }
  SECTION("YAML flow sequences") {
    std::string msg = ParseError("items: " + std::string(100000, '['), "objects.yaml");
    CHECK(msg.rfind("objects.yaml: ", 0) == 0);
  }
  SECTION("YAML block sequences") {
    std::string yaml;
    for (int i = 0; i < 100000; ++i) yaml += "- ";
    yaml += "x\n";
    CHECK(ParseError(yaml, "objects.yaml").rfind("objects.yaml: ", 0) == 0);
  }
  SECTION("YAML block mappings") {
    std::string yaml;
    for (int i = 0; i < 3000; ++i) yaml += std::string(i, ' ') + "a:\n";
    CHECK(ParseError(yaml, "objects.yaml").rfind("objects.yaml: ", 0) == 0);
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(elapsed < std::chrono::seconds(5));
}

TEST_CASE("YAML alias bombs are rejected instead of expanded", "[json]") {
  std::string yaml = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'k'; ++c) {
    yaml += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) yaml += std::string(i ? ", *" : "*") + prev;
    yaml += "]\n";
    prev = c;
  }
  std::string msg = ParseError(yaml, "bomb.yaml");
  CHECK(msg.find("too large") != std::string::npos);
}

TEST_CASE("YAML that stalls yaml-cpp 0.7 is an error, not a hang", "[json]") {
  // A token the parser never consumes used to make YAML::LoadAll loop, allocating forever.
  for (const char* text : {",", ",[", ",{\"a\"", "- a\n,\n", "--- a\n---\n,"}) {
    INFO(text);
    CHECK(ParseError(text, "x.yaml").rfind("x.yaml: ", 0) == 0);
  }
}

TEST_CASE("YAML anchors and aliases are expanded", "[json]") {
  ClusterSnapshot snap = MustParse(R"(kind: List
items:
  - &pod
    kind: Pod
    apiVersion: v1
    metadata: {name: a, labels: &labels {app: web}}
    spec: {containers: &cs [{name: c, resources: {requests: {cpu: 250m}}}]}
  - kind: Pod
    apiVersion: v1
    metadata: {name: b, labels: *labels}
    spec: {containers: *cs}
)",
                                   "a.yaml");
  REQUIRE(snap.pods.size() == 2);
  CHECK(snap.pods[1].metadata.labels == snap.pods[0].metadata.labels);
  CHECK(snap.pods[1].containers == snap.pods[0].containers);
  CHECK(ParseError("a: &x [*x]\n", "x.yaml").find("alias") != std::string::npos);
  CHECK(ParseError("? [a]\n: b\n", "x.yaml").find("mapping keys must be scalars") !=
        std::string::npos);
}

TEST_CASE("Invalid UTF-8 is rejected in JSON and YAML", "[json]") {
  CHECK(ParseError("{\"kind\": \"Pod\", \"metadata\": {\"name\": \"\xff\"}}")
            .rfind("objects.json: ", 0) == 0);
  CHECK(ParseError("kind: Pod\nmetadata: {name: \"a\xc3\x28\"}\n", "p.yaml").rfind("p.yaml: ", 0) ==
        0);
}

TEST_CASE("Strict enumerations: effects, operators, policies", "[json]") {
  const std::string pod_prefix =
      R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}, "spec": )";
  CHECK(ParseError(pod_prefix + R"({"tolerations": [{"key": "k", "operator": "Like"}]}})") ==
        "objects.json: spec.tolerations[0].operator: unsupported toleration operator \"Like\"; "
        "expected Equal, Exists, Gt or Lt");
  CHECK(ParseError(pod_prefix + R"({"tolerations": [{"key": "k", "effect": "NoWay"}]}})")
            .rfind("objects.json: spec.tolerations[0].effect: unsupported taint effect", 0) == 0);
  CHECK(ParseError(pod_prefix + R"({"topologySpreadConstraints": [{"maxSkew": 1,
      "topologyKey": "z", "whenUnsatisfiable": "Sometimes"}]}})")
            .rfind("objects.json: spec.topologySpreadConstraints[0].whenUnsatisfiable: ", 0) == 0);
  CHECK(ParseError(pod_prefix + R"({"topologySpreadConstraints": [{"maxSkew": 1,
      "topologyKey": "z", "nodeTaintsPolicy": "honor"}]}})")
            .rfind("objects.json: spec.topologySpreadConstraints[0].nodeTaintsPolicy: ", 0) == 0);
  CHECK(ParseError(R"({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n"},
      "spec": {"taints": [{"key": "k", "effect": ""}]}})")
            .rfind("objects.json: spec.taints[0].effect: unsupported taint effect \"\"", 0) == 0);
  CHECK(
      ParseError(R"({"kind": "NodePool", "apiVersion": "karpenter.sh/v1", "metadata": {"name": "n"},
      "spec": {"disruption": {"consolidationPolicy": "Sometimes"}}})")
          .rfind("objects.json: spec.disruption.consolidationPolicy: ", 0) == 0);
  CHECK(
      ParseError(R"({"kind": "NodePool", "apiVersion": "karpenter.sh/v1", "metadata": {"name": "n"},
      "spec": {"disruption": {"budgets": [{"nodes": "150%"}]}}})")
          .rfind("objects.json: spec.disruption.budgets[0].nodes: ", 0) == 0);
  CHECK(
      ParseError(R"({"kind": "NodePool", "apiVersion": "karpenter.sh/v1", "metadata": {"name": "n"},
      "spec": {"template": {"spec": {"expireAfter": "5 days"}}}})") ==
      "objects.json: spec.template.spec.expireAfter: invalid duration \"5 days\": unknown unit");
  CHECK(ParseError(
            R"({"kind": "NodePool", "apiVersion": "karpenter.sh/v2", "metadata": {"name": "n"}})")
            .rfind("objects.json: apiVersion: unsupported apiVersion", 0) == 0);
}

TEST_CASE("Pod constraints the reference ignores a pod for are read, not rejected", "[json]") {
  // Such pods become pod errors of Solve ("ignoring pod, ..."); one tenant's typo must not stop
  // the whole snapshot.
  const std::string match_fields =
      R"("affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}})";
  ClusterSnapshot pending =
      MustParse(R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}, "spec": {)" +
                match_fields + "}}");
  CHECK(pending.pods[0].node_affinity.required[0].has_match_fields);
  ClusterSnapshot bound =
      MustParse(R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"},
      "spec": {"nodeName": "n1", )" +
                match_fields + "}}");
  CHECK(bound.pods[0].node_affinity.required[0].has_match_fields);

  ClusterSnapshot hostname =
      MustParse(R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"},
      "spec": {"nodeSelector": {"kubernetes.io/hostname": "n1"}}})");
  CHECK(hostname.pods[0].node_selector.at("kubernetes.io/hostname") == "n1");
  ClusterSnapshot restricted =
      MustParse(R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"},
      "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      {"nodeSelectorTerms": [{"matchExpressions": [{"key": "karpenter.sh/test", "operator": "In", "values": ["x"]}]}]}}}}})");
  CHECK(restricted.pods[0].node_affinity.required[0].match_expressions[0].key ==
        "karpenter.sh/test");

  // An operator the Kubernetes API does not have is still a decoding error.
  CHECK(ParseError(R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"},
      "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Gte", "values": ["1"]}]}]}}}}})")
            .rfind(
                "objects.json: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuring"
                "Execution.nodeSelectorTerms[0].matchExpressions[0].operator: unsupported operator",
                0) == 0);
}

TEST_CASE("Whole-second timestamps read as absl::ParseTime reads them", "[json]") {
  // The common forms take a fast path; every text must give absl's instant, or its error.
  const std::vector<std::string> texts = {
      "2026-01-01T00:00:00Z",      "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00-00:00",
      "2026-03-01T01:30:00+05:30", "2024-02-29T23:59:59-11:45", "1999-12-31T23:00:00+23:59",
      "2026-01-01T00:00:00+24:00", "2026-01-01T00:00:00+01:60", "2026-02-29T00:00:00+01:00",
      "2026-01-01T24:00:00+00:00", "2026-01-01T00:00:60Z",      "2026-01-01t00:00:00+01:00",
      "2026-01-01T00:00:00+0100",  "0000-01-01T00:00:00+00:00", "2026-01-01T00:00:00 01:00",
  };
  for (const std::string& text : texts) {
    INFO(text);
    const std::string pod =
        R"({"kind": "Pod", "metadata": {"name": "p", "creationTimestamp": ")" + text + R"("}})";
    absl::Time want;
    std::string err;
    if (absl::ParseTime(absl::RFC3339_full, text, &want, &err)) {
      CHECK(MustParse(pod).pods[0].metadata.creation_timestamp == want);
    } else {
      CHECK(ParseError(pod) ==
            "objects.json: metadata.creationTimestamp: invalid RFC 3339 "
            "timestamp \"" +
                text + "\"");
    }
  }
}

TEST_CASE("Timestamps and durations are parsed exactly", "[json]") {
  ClusterSnapshot snap = MustParse(R"({"kind": "NodePool", "apiVersion": "karpenter.sh/v1",
      "metadata": {"name": "n", "creationTimestamp": "2026-01-01T01:00:00.25+01:00"},
      "spec": {"template": {"spec": {"expireAfter": "1.5h", "terminationGracePeriod": "300ms"}},
               "disruption": {"consolidateAfter": "Never"}}})");
  const karp::NodePool& np = snap.node_pools[0];
  CHECK(np.metadata.creation_timestamp == absl::FromUnixMillis(1767225600250));
  CHECK(np.expire_after == absl::Minutes(90));
  CHECK(np.termination_grace_period == absl::Milliseconds(300));
  CHECK_FALSE(np.consolidate_after.has_value());
  CHECK(ParseError(R"({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n",
      "creationTimestamp": "yesterday"}})") ==
        "objects.json: metadata.creationTimestamp: invalid RFC 3339 timestamp \"yesterday\"");
  CHECK(
      ParseError(R"({"kind": "NodePool", "apiVersion": "karpenter.sh/v1", "metadata": {"name": "n"},
      "spec": {"template": {"spec": {"terminationGracePeriod": "Never"}}}})")
          .rfind("objects.json: spec.template.spec.terminationGracePeriod: invalid duration", 0) ==
      0);
}

TEST_CASE("ReadSnapshotFiles merges files and validates across them", "[json]") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("karp_codec_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string a = (dir / "a.json").string();
  const std::string b = (dir / "b.yaml").string();
  std::ofstream(a) << R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0"}})";
  std::ofstream(b) << "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n";

  absl::StatusOr<ClusterSnapshot> merged = karp::json::ReadSnapshotFiles({a, b});
  REQUIRE(merged.ok());
  CHECK(merged->pods.size() == 1);
  CHECK(merged->nodes.size() == 1);

  absl::StatusOr<ClusterSnapshot> dup = karp::json::ReadSnapshotFiles({a, b, a});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(Message(dup.status()).find("duplicate") != std::string::npos);

  const std::string missing = (dir / "missing.json").string();
  absl::StatusOr<ClusterSnapshot> none = karp::json::ReadSnapshotFiles({a, missing});
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().code() == absl::StatusCode::kNotFound);
  // The OS's reason is part of the message.
  CHECK(Message(none.status()) == missing + ": cannot read file: No such file or directory");

  absl::StatusOr<ClusterSnapshot> directory = karp::json::ReadSnapshotFiles({dir.string()});
  CHECK(directory.status().code() == absl::StatusCode::kNotFound);
  CHECK(Message(directory.status()) == dir.string() + ": cannot read file: Is a directory");

  std::ofstream(b) << "kind: Pod\napiVersion: v1\nmetadata: {name: x}\nspec: {priority: x}\n";
  absl::StatusOr<ClusterSnapshot> bad = karp::json::ReadSnapshotFiles({b});
  REQUIRE_FALSE(bad.ok());
  CHECK(Message(bad.status()) == b + ": spec.priority: expected an integer, got a string");
  fs::remove_all(dir);
}

// ---------------------------------------------------------------------------------------------
// Catalog

namespace {

constexpr const char* kCatalog = R"({"instanceTypes": [
  {"name": "m5.large",
   "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
              "karpenter.k8s.aws/instance-family": "m5", "karpenter.k8s.aws/instance-cpu": "2",
              "node.kubernetes.io/instance-type": "m5.large"},
   "capacity": {"cpu": "2", "memory": "7577Mi", "pods": "29", "ephemeral-storage": "20Gi"},
   "overhead": {"kubeReserved": {"cpu": "70m", "memory": "574Mi"},
                "systemReserved": {},
                "evictionThreshold": {"memory": "100Mi"}},
   "offerings": [
     {"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.096, "available": true},
     {"zone": "us-east-1a", "capacityType": "spot", "price": 0.035},
     {"zone": "us-east-1b", "capacityType": "spot", "price": 0.0351, "available": false},
     {"zone": "us-east-1a", "capacityType": "reserved", "price": 0.01,
      "reservationId": "cr-123", "reservationCapacity": 4}]},
  {"name": "c5.xlarge",
   "labels": {"kubernetes.io/arch": "amd64"},
   "capacity": {"cpu": 4, "memory": "8Gi", "pods": 58},
   "offerings": [{"zone": "us-east-1b", "capacityType": "on-demand", "price": 0.17}]}
]})";

}  // namespace

TEST_CASE("A catalog decodes labels, capacity, overhead and offerings", "[json]") {
  absl::StatusOr<karp::InstanceCatalog> cat = karp::json::ParseCatalog(kCatalog, "catalog.json");
  INFO(cat.status().message());
  REQUIRE(cat.ok());
  REQUIRE(cat->size() == 2);
  const karp::InstanceType* m5 = cat->Find("m5.large");
  REQUIRE(m5 != nullptr);
  CHECK(m5->labels.count("node.kubernetes.io/instance-type") == 0);  // derived from the name
  CHECK(m5->labels.at("karpenter.k8s.aws/instance-family") == "m5");
  CHECK(m5->capacity.memory() == int64_t{7577} << 20);
  CHECK(m5->overhead.kube_reserved.cpu() == 70);
  CHECK(m5->overhead.eviction_threshold.memory() == int64_t{100} << 20);
  REQUIRE(m5->offerings.size() == 4);
  CHECK(m5->offerings[1].available);
  CHECK_FALSE(m5->offerings[2].available);
  CHECK(m5->offerings[2].price == 0.0351);
  CHECK(m5->offerings[3].reservation_id == "cr-123");
  CHECK(m5->offerings[3].reservation_capacity == 4);
  CHECK(m5->Allocatable().cpu() == 1930);
  CHECK(cat->well_known_labels().Contains("karpenter.k8s.aws/instance-family"));
  CHECK(cat->Find("c5.xlarge")->capacity.cpu() == 4000);
}

TEST_CASE("WriteCatalog round-trips and is deterministic", "[json]") {
  absl::StatusOr<karp::InstanceCatalog> cat = karp::json::ParseCatalog(kCatalog, "catalog.json");
  REQUIRE(cat.ok());
  std::string text = karp::json::WriteCatalog(*cat);
  absl::StatusOr<karp::InstanceCatalog> again = karp::json::ParseCatalog(text, "written.json");
  INFO(text);
  REQUIRE(again.ok());
  CHECK(again->instance_types() == cat->instance_types());
  CHECK(karp::json::WriteCatalog(*again) == text);
  // Types in name order; prices in the shortest form; one line with indent < 0.
  CHECK(text.find("c5.xlarge") < text.find("m5.large"));
  CHECK(text.find("0.0351") != std::string::npos);
  std::string one_line = karp::json::WriteCatalog(*cat, -1);
  CHECK(one_line.find('\n') == std::string::npos);
  CHECK(karp::json::ParseCatalog(one_line, "x")->instance_types() == cat->instance_types());
}

TEST_CASE("Catalog errors name the instance type path", "[json]") {
  auto error = [](const std::string& text) {
    absl::StatusOr<std::vector<karp::InstanceType>> types =
        karp::json::ParseInstanceTypes(text, "catalog.json");
    REQUIRE_FALSE(types.ok());
    return Message(types.status());
  };
  CHECK(error(R"({"instanceTypes": [{"name": "a", "capacity": {"cpu": "x"}}]})") ==
        R"(catalog.json: instanceTypes[0].capacity.cpu: invalid quantity "x": expected a number)");
  CHECK(error(R"({"instanceTypes": [{"name": "a", "offerings": [{"zone": "z",
      "capacityType": "spot", "price": "cheap"}]}]})") ==
        "catalog.json: instanceTypes[0].offerings[0].price: expected a number, got a string");
  CHECK(error(R"({"instanceTypes": [{"name": "a", "offerings": [{"zone": "z",
      "capacityType": "spot", "price": -1}]}]})") ==
        "catalog.json: instanceTypes[0].offerings[0].price: must be a number between 0 and "
        "1000000, got -1");
  CHECK(error(R"({"instanceTypes": [{"name": "a"}, {"name": "a"}]})") ==
        "catalog.json: instanceTypes[1].name: duplicate instance type \"a\" (first defined at "
        "instanceTypes[0])");
  CHECK(error(R"({"types": []})") == "catalog.json: instanceTypes: required");
  CHECK(error(R"({"instanceTypes": [{"name": "a", "labels": {"k": 1}}]})") ==
        "catalog.json: instanceTypes[0].labels.k: expected a string, got a number");
  CHECK(error(std::string(100000, '[')).rfind("catalog.json: ", 0) == 0);
  absl::StatusOr<karp::InstanceCatalog> missing =
      karp::json::ReadCatalogFile("/nonexistent/c.json");
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("A catalog may be written in YAML", "[json]") {
  absl::StatusOr<karp::InstanceCatalog> cat = karp::json::ParseCatalog(R"(
instanceTypes:
  - name: t3.micro
    labels: {kubernetes.io/arch: amd64}
    capacity: {cpu: 2, memory: 1Gi, pods: 4}
    offerings:
      - {zone: us-east-1a, capacityType: spot, price: 0.0031}
)",
                                                                       "catalog.yaml");
  INFO(cat.status().message());
  REQUIRE(cat.ok());
  CHECK(cat->Find("t3.micro")->offerings[0].price == 0.0031);
}

TEST_CASE("priceEstimated marks estimated offering prices and round-trips", "[json]") {
  absl::StatusOr<karp::InstanceCatalog> cat = karp::json::ParseCatalog(R"({"instanceTypes": [
    {"name": "m5.large", "capacity": {"cpu": 2, "memory": "8Gi", "pods": 29},
     "offerings": [
       {"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.096},
       {"zone": "us-east-1a", "capacityType": "spot", "price": 0.0384, "priceEstimated": true},
       {"zone": "us-east-1b", "capacityType": "spot", "price": 0.03}]}]})",
                                                                       "catalog.json");
  INFO(cat.status().message());
  REQUIRE(cat.ok());
  const std::vector<karp::Offering>& offerings = cat->Find("m5.large")->offerings;
  CHECK(!offerings[0].price_estimated);
  CHECK(offerings[1].price_estimated);
  CHECK(!offerings[2].price_estimated);  // absent: a real price
  const std::string text = karp::json::WriteCatalog(*cat);
  CHECK(text.find("\"priceEstimated\": true") != std::string::npos);
  CHECK(text.find("priceEstimated") == text.rfind("priceEstimated"));  // only where true
  CHECK(karp::json::ParseCatalog(text, "x")->instance_types() == cat->instance_types());
  CHECK(Message(karp::json::ParseCatalog(R"({"instanceTypes": [{"name": "a", "offerings": [
      {"zone": "z", "capacityType": "spot", "price": 1, "priceEstimated": "yes"}]}]})",
                                         "catalog.json")
                    .status()) ==
        "catalog.json: instanceTypes[0].offerings[0].priceEstimated: expected a boolean, got a "
        "string");
}

TEST_CASE("a catalog file's spot price wins over the embedded estimate", "[json]") {
  constexpr const char* kObjects = R"({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
     "spec": {"template": {"spec": {"requirements": [
       {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
       {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large"]}]}}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
     "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
     "status": {"phase": "Pending"}}]})";
  absl::StatusOr<karp::ClusterSnapshot> snap = karp::json::ParseSnapshot(kObjects, "objects.json");
  INFO(snap.status().message());
  REQUIRE(snap.ok());
  auto solve = [&](karp::InstanceCatalog catalog) {
    absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(
        *snap, std::make_shared<const karp::InstanceCatalog>(std::move(catalog)));
    REQUIRE(s.ok());
    absl::StatusOr<karp::SolveResult> r = s->Solve();
    REQUIRE(r.ok());
    REQUIRE(r->node_claims.size() == 1);
    REQUIRE(r->node_claims[0].launch.has_value());
    return *r;
  };

  // The embedded catalog: the estimated spot price, marked in the launch and its JSON.
  absl::StatusOr<karp::InstanceCatalog> embedded = karp::EmbeddedAwsCatalog();
  REQUIRE(embedded.ok());
  karp::SolveResult estimated = solve(*embedded);
  CHECK(estimated.node_claims[0].launch->price == 0.0384);
  CHECK(estimated.node_claims[0].launch->price_estimated);
  CHECK(karp::json::WriteSolveResult(estimated, 0).find("\"priceEstimated\": true") !=
        std::string::npos);

  // The same type from a catalog file with an explicit spot price: that price, not marked.
  std::string text = karp::json::WriteCatalog(*embedded, -1);
  const std::string from = R"("capacityType":"spot","price":0.0384,"priceEstimated":true)";
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), R"("capacityType":"spot","price":0.0312)");
  }
  absl::StatusOr<karp::InstanceCatalog> file = karp::json::ParseCatalog(text, "catalog.json");
  REQUIRE(file.ok());
  karp::SolveResult real = solve(*file);
  CHECK(real.node_claims[0].launch->price == 0.0312);
  CHECK(!real.node_claims[0].launch->price_estimated);
  CHECK(karp::json::WriteSolveResult(real, 0).find("priceEstimated") == std::string::npos);
}

TEST_CASE("a consolidation plan says stoppedEarly only when a bound ended it", "[json]") {
  karp::ConsolidationPlan plan;
  plan.node_count = 3;
  plan.candidate_count = 2;
  const std::string full = karp::json::WriteConsolidationPlan(plan, -1);
  CHECK(full.find("stoppedEarly") == std::string::npos);
  CHECK(full.find(R"("summary":{"nodes":3,"candidates":2,"commands":0,"savingsPerHour":)") !=
        std::string::npos);
  plan.stopped_early = true;
  const std::string bounded = karp::json::WriteConsolidationPlan(plan, -1);
  INFO(bounded);
  CHECK(bounded.size() > full.size());
  CHECK(bounded.substr(0, full.size() - 2) == full.substr(0, full.size() - 2));
  CHECK(bounded.substr(full.size() - 2) == R"(,"stoppedEarly":true}})");
}

TEST_CASE("A NodePool's status.conditions are read, written back and decide readiness",
          "[json][nodepool]") {
  const std::string text = R"({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "broken"},
     "spec": {"template": {"spec": {"requirements": []}}},
     "status": {"conditions": [
       {"type": "ValidationSucceeded", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"},
       {"type": "Ready", "status": "False", "reason": "NodeClassNotReady",
        "message": "NodeClass not ready", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}},
    {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "fine"},
     "spec": {"template": {"spec": {"requirements": []}}}}]})";
  const ClusterSnapshot snap = MustParse(text);
  REQUIRE(snap.node_pools.size() == 2);
  REQUIRE(snap.node_pools[0].conditions.size() == 2);
  CHECK(snap.node_pools[0].conditions[1].reason == "NodeClassNotReady");
  CHECK_FALSE(snap.node_pools[0].Ready());
  CHECK(snap.node_pools[1].conditions.empty());
  CHECK(snap.node_pools[1].Ready());
  const ClusterSnapshot back = MustParse(WriteSnapshot(snap));
  RequireSameObjects(snap, back);
  CHECK_THAT(ParseError(R"({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
      "metadata": {"name": "x"}, "spec": {"template": {"spec": {"requirements": []}}},
      "status": {"conditions": [{"type": "Ready", "status": "Maybe"}]}})"),
             Catch::Contains("status.conditions[0].status"));
}
