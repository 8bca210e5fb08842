// Tests of workload objects (karp/workloads.h; docs/design.md §2.6): Deployments,
// ReplicaSets, StatefulSets, Jobs, CronJobs and ReplicationControllers read from manifests and
// dumps become the pending pods their controllers would create — named, labelled and owned as
// the controllers do — and nothing more: a dump of a running cluster adds nothing, a scaled
// Deployment adds exactly the difference. Self-contained: every input is written inline.

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/json/codec.h"
#include "karp/json/command_io.h"
#include "karp/scheduler.h"
#include "karp/workloads.h"
#include "support/snapshot_checks.h"

namespace {

using karp::ClusterSnapshot;
using karp::Pod;
using karp::Workload;
using karp::WorkloadKind;

const char kPool[] = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
)";

const char kInflate[] = R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: inflate, namespace: default, uid: d-1}
spec:
  replicas: 5
  selector: {matchLabels: {app: inflate}}
  template:
    metadata: {labels: {app: inflate}}
    spec:
      containers:
        - name: inflate
          image: pause
          resources: {requests: {cpu: "1"}}
)";

// The snapshot of the given YAML documents, read as the CLI reads files (workloads expanded
// unless `expand` is false).
ClusterSnapshot Read(const std::vector<std::string>& docs, bool expand = true) {
  std::vector<karp::json::Input> inputs;
  for (size_t i = 0; i < docs.size(); ++i) {
    inputs.push_back({"doc" + std::to_string(i) + ".yaml", docs[i]});
  }
  karp::json::ReadOptions options;
  options.expand_workloads = expand;
  absl::StatusOr<ClusterSnapshot> snap = karp::json::ParseSnapshotInputs(inputs, options);
  INFO(snap.status().message());
  REQUIRE(snap.ok());
  return *std::move(snap);
}

std::vector<std::string> PendingNames(const ClusterSnapshot& snap) {
  std::vector<std::string> names;
  for (const Pod* p : snap.PendingPods()) names.push_back(p->metadata.name);
  return names;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// A dump of Deployment `inflate` (replicas `replicas`) with its ReplicaSet and three pods of it:
// two running on node-a, one pending.
std::string Dump(int replicas) {
  std::string out = R"(
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: inflate, namespace: default, uid: d-1}
  spec:
    replicas: )" + std::to_string(replicas) +
                    R"(
    selector: {matchLabels: {app: inflate}}
    template:
      metadata: {labels: {app: inflate}}
      spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: inflate-7d9c8b5f4
    namespace: default
    uid: rs-1
    annotations: {deployment.kubernetes.io/revision: "2"}
    labels: {app: inflate, pod-template-hash: 7d9c8b5f4}
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: inflate, uid: d-1, controller: true}]
  spec:
    replicas: 3
    selector: {matchLabels: {app: inflate, pod-template-hash: 7d9c8b5f4}}
    template:
      metadata: {labels: {app: inflate, pod-template-hash: 7d9c8b5f4}}
      spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: inflate-5f6b7c8d9
    namespace: default
    uid: rs-0
    annotations: {deployment.kubernetes.io/revision: "1"}
    labels: {app: inflate, pod-template-hash: 5f6b7c8d9}
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: inflate, uid: d-1, controller: true}]
  spec:
    replicas: 0
    selector: {matchLabels: {app: inflate, pod-template-hash: 5f6b7c8d9}}
    template:
      metadata: {labels: {app: inflate, pod-template-hash: 5f6b7c8d9}}
      spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
)";
  const char* pods[][2] = {{"inflate-7d9c8b5f4-abcde", "node-a"},
                           {"inflate-7d9c8b5f4-fghjk", "node-a"},
                           {"inflate-7d9c8b5f4-lmnpq", ""}};
  for (const auto& [name, node] : pods) {
    out += std::string(R"(
- apiVersion: v1
  kind: Pod
  metadata:
    name: )") +
           name + R"(
    namespace: default
    uid: u-)" +
           name + R"(
    labels: {app: inflate, pod-template-hash: 7d9c8b5f4}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: inflate-7d9c8b5f4, uid: rs-1, controller: true}]
  spec:
    )" + (std::string(node).empty() ? "" : std::string("nodeName: ") + node + "\n    ") +
           R"(containers: [{name: c, resources: {requests: {cpu: "1"}}}]
  status: {phase: )" +
           (std::string(node).empty() ? "Pending" : "Running") + "}\n";
  }
  return out;
}

TEST_CASE(
    "A Deployment becomes its ReplicaSet's pending pods, named and owned as the "
    "controllers do",
    "[workloads]") {
  ClusterSnapshot snap = Read({kPool, kInflate});
  REQUIRE(snap.pods.size() == 5);
  REQUIRE(snap.workloads.size() == 2);  // the Deployment and the ReplicaSet it creates
  const Workload& rs = snap.workloads[1];
  CHECK(rs.kind == WorkloadKind::kReplicaSet);
  const std::string hash = rs.metadata.labels.at("pod-template-hash");
  CHECK(hash.size() >= 8);
  CHECK(rs.metadata.name == "inflate-" + hash);
  REQUIRE(rs.metadata.owner_references.size() == 1);
  CHECK(rs.metadata.owner_references[0].kind == "Deployment");
  CHECK(rs.metadata.owner_references[0].uid == "d-1");
  std::set<std::string> names;
  for (const Pod& p : snap.pods) {
    names.insert(p.metadata.name);
    CHECK(StartsWith(p.metadata.name, rs.metadata.name + "-"));
    CHECK(p.metadata.name.size() == rs.metadata.name.size() + 6);  // "-" and 5 characters
    CHECK(p.metadata.namespace_ == "default");
    CHECK(p.metadata.uid.empty());
    CHECK(p.metadata.labels ==
          std::map<std::string, std::string>{{"app", "inflate"}, {"pod-template-hash", hash}});
    REQUIRE(p.metadata.owner_references.size() == 1);
    CHECK(p.metadata.owner_references[0].kind == "ReplicaSet");
    CHECK(p.metadata.owner_references[0].name == rs.metadata.name);
    CHECK(p.metadata.owner_references[0].controller);
    CHECK(p.IsPending());
    CHECK(p.Requests().ToString() == R"({"cpu":"1","pods":"1"})");
  }
  CHECK(names.size() == 5);
  REQUIRE(snap.notes.size() == 1);
  CHECK(snap.notes[0] == "created 5 pods from workloads: Deployment default/inflate: 5 pods");
  CHECK(snap.skipped.empty());
}

TEST_CASE("Workload expansion is deterministic and adds nothing when run again", "[workloads]") {
  ClusterSnapshot a = Read({kPool, kInflate});
  ClusterSnapshot b = Read({kPool, kInflate});
  CHECK(PendingNames(a) == PendingNames(b));
  CHECK(karp::json::WriteSnapshot(a) == karp::json::WriteSnapshot(b));
  absl::StatusOr<karp::WorkloadExpansion> again = karp::ExpandWorkloads(&a);
  REQUIRE(again.ok());
  CHECK(again->pods_created == 0);
  CHECK(a.pods.size() == 5);
  // The written snapshot reads back to the same objects and expands to nothing more.
  ClusterSnapshot round = Read({karp::json::WriteSnapshot(b)});
  CHECK(round.pods.size() == 5);
  CHECK(round.workloads == b.workloads);
  CHECK(round.notes.empty());
}

TEST_CASE("A dump of a running Deployment adds nothing, and scaled exactly the difference",
          "[workloads]") {
  ClusterSnapshot same = Read({kPool, Dump(3)});
  CHECK(same.pods.size() == 3);
  CHECK(same.notes.empty());
  CHECK(PendingNames(same) == std::vector<std::string>{"inflate-7d9c8b5f4-lmnpq"});

  ClusterSnapshot scaled = Read({kPool, Dump(5)});
  REQUIRE(scaled.pods.size() == 5);
  std::vector<std::string> pending = PendingNames(scaled);
  REQUIRE(pending.size() == 3);
  // The new pods belong to the newest ReplicaSet (revision 2), not the old one.
  for (const std::string& name : pending) CHECK(StartsWith(name, "inflate-7d9c8b5f4-"));
  CHECK(scaled.notes == std::vector<std::string>{
                            "created 2 pods from workloads: Deployment default/inflate: 2 pods"});

  ClusterSnapshot down = Read({kPool, Dump(1)});
  CHECK(down.pods.size() == 3);  // scaling down deletes pods; karp never adds any
}

TEST_CASE("Terminating and finished pods do not count as the workload's replicas", "[workloads]") {
  const std::string rs = R"(
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: web, namespace: shop}
  spec:
    replicas: 3
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-old1
    namespace: shop
    deletionTimestamp: "2026-01-01T00:00:00Z"
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, controller: true}]
  spec: {nodeName: n1, containers: [{name: c}]}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-old2
    namespace: shop
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, controller: true}]
  spec: {nodeName: n1, containers: [{name: c}]}
  status: {phase: Failed}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-live
    namespace: shop
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, controller: true}]
  spec: {nodeName: n1, containers: [{name: c}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-other-namespace
    namespace: default
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, controller: true}]
  spec: {nodeName: n1, containers: [{name: c}]}
)";
  ClusterSnapshot snap = Read({kPool, rs});
  std::vector<std::string> pending = PendingNames(snap);
  CHECK(pending.size() == 2);
  for (const std::string& name : pending) CHECK(StartsWith(name, "web-"));
  for (const Pod* p : snap.PendingPods()) CHECK(p->metadata.namespace_ == "shop");
}

TEST_CASE("A ReplicationController's map selector and a ReplicaSet of no Deployment",
          "[workloads]") {
  const std::string rc = R"(
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: legacy}}
    spec: {containers: [{name: c, resources: {limits: {cpu: 250m}}}]}
)";
  ClusterSnapshot snap = Read({kPool, rc});
  REQUIRE(snap.pods.size() == 2);
  REQUIRE(snap.workloads[0].selector.has_value());
  CHECK(snap.workloads[0].selector->match_labels ==
        std::map<std::string, std::string>{{"app", "legacy"}});
  for (const Pod& p : snap.pods) {
    CHECK(StartsWith(p.metadata.name, "legacy-"));
    CHECK(p.metadata.owner_references[0].kind == "ReplicationController");
    CHECK(p.Requests().ToString() == R"({"cpu":"250m","pods":"1"})");  // limits defaulted
  }
}

TEST_CASE("A StatefulSet gets its missing ordinals and one claim per template each",
          "[workloads]") {
  const std::string sts = R"(
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: db, namespace: data, uid: s-1}
  spec:
    replicas: 3
    selector: {matchLabels: {app: db}}
    template:
      metadata: {labels: {app: db}}
      spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
    volumeClaimTemplates:
      - metadata: {name: pgdata}
        spec: {storageClassName: gp3, accessModes: [ReadWriteOnce]}
- apiVersion: v1
  kind: Pod
  metadata:
    name: db-0
    namespace: data
    labels: {app: db}
    ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: s-1, controller: true}]
  spec:
    nodeName: n1
    containers: [{name: c, resources: {requests: {cpu: "1"}}}]
    volumes: [{name: pgdata, persistentVolumeClaim: {claimName: pgdata-db-0}}]
  status: {phase: Running}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: pgdata-db-0, namespace: data}
  spec: {storageClassName: gp3, volumeName: pv-0}
  status: {phase: Bound}
)";
  ClusterSnapshot snap = Read({kPool, sts});
  CHECK(PendingNames(snap) == std::vector<std::string>{"db-1", "db-2"});
  for (const Pod* p : snap.PendingPods()) {
    CHECK(p->metadata.labels.at("statefulset.kubernetes.io/pod-name") == p->metadata.name);
    CHECK(p->metadata.labels.at("apps.kubernetes.io/pod-index") == p->metadata.name.substr(3));
    REQUIRE(p->volumes.size() == 1);
    CHECK(p->volumes[0].name == "pgdata");
    CHECK(p->volumes[0].claim_name == "pgdata-" + p->metadata.name);
  }
  REQUIRE(snap.persistent_volume_claims.size() == 3);
  CHECK(snap.persistent_volume_claims[1].metadata.name == "pgdata-db-1");
  CHECK(snap.persistent_volume_claims[1].storage_class_name == "gp3");
  CHECK(snap.persistent_volume_claims[1].volume_name.empty());
  CHECK(snap.persistent_volume_claims[2].metadata.name == "pgdata-db-2");
}

TEST_CASE("Jobs run min(parallelism, completions left), and Indexed Jobs take the free indexes",
          "[workloads]") {
  const std::string jobs = R"(
apiVersion: v1
kind: List
items:
- apiVersion: batch/v1
  kind: Job
  metadata: {name: batch}
  spec:
    parallelism: 3
    completions: 5
    template:
      spec: {restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
  status: {succeeded: 3}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: indexed, uid: j-2}
  spec:
    parallelism: 2
    completions: 4
    completionMode: Indexed
    template:
      spec: {restartPolicy: Never, containers: [{name: c}]}
  status: {succeeded: 1, completedIndexes: "0"}
- apiVersion: v1
  kind: Pod
  metadata:
    name: indexed-1-xxxxx
    annotations: {batch.kubernetes.io/job-completion-index: "1"}
    ownerReferences: [{apiVersion: batch/v1, kind: Job, name: indexed, uid: j-2, controller: true}]
  spec: {nodeName: n1, containers: [{name: c}]}
  status: {phase: Running}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: queue}
  spec:
    parallelism: 4
    template:
      spec: {restartPolicy: Never, containers: [{name: c}]}
  status: {succeeded: 1}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: paused}
  spec:
    suspend: true
    template:
      spec: {restartPolicy: Never, containers: [{name: c}]}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: done}
  spec:
    template:
      spec: {restartPolicy: Never, containers: [{name: c}]}
  status:
    conditions: [{type: Complete, status: "True"}]
- apiVersion: batch/v1
  kind: CronJob
  metadata: {name: report}
  spec:
    schedule: "0 * * * *"
    jobTemplate:
      spec:
        template:
          spec: {restartPolicy: OnFailure, containers: [{name: c}]}
)";
  ClusterSnapshot snap = Read({kPool, jobs});
  std::vector<std::string> pending = PendingNames(snap);
  REQUIRE(pending.size() == 3);
  CHECK(StartsWith(pending[0], "batch-"));
  CHECK(StartsWith(pending[1], "batch-"));
  CHECK(StartsWith(pending[2], "indexed-2-"));  // 0 completed, 1 running
  for (const Pod* p : snap.PendingPods()) {
    CHECK(p->metadata.labels.count("batch.kubernetes.io/job-name") == 1);
    CHECK(p->metadata.labels.at("job-name") == p->metadata.owner_references[0].name);
  }
  CHECK(snap.PendingPods()[2]->metadata.labels.at("batch.kubernetes.io/controller-uid") == "j-2");
  REQUIRE(snap.notes.size() == 2);
  CHECK(snap.notes[1] == "CronJob default/report: no pods until its schedule \"0 * * * *\" fires");
}

TEST_CASE("Without expansion, workloads create nothing and are listed as skipped", "[workloads]") {
  ClusterSnapshot snap = Read({kPool, kInflate}, /*expand=*/false);
  CHECK(snap.pods.empty());
  CHECK(snap.skipped_objects == 1);
  CHECK(snap.skipped ==
        std::vector<std::string>{"apps/v1 Deployment default/inflate (workloads not expanded)"});
}

TEST_CASE("Workload errors name the object and field, and too many replicas are refused",
          "[workloads]") {
  CHECK(karp::testing::ParseError(R"({"apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "web"}, "spec": {"replicas": 2,
      "selector": {"matchLabels": {"app": "web"}},
      "template": {"metadata": {"labels": {"app": "other"}}, "spec": {"containers": []}}}})") ==
        "objects.json: spec.template.metadata.labels: do not match spec.selector (the API server "
        "rejects such a workload)");
  CHECK(karp::testing::ParseError(R"({"apiVersion": "apps/v1", "kind": "StatefulSet",
      "metadata": {"name": "db"}, "spec": {"replicas": -1,
      "selector": {"matchLabels": {"app": "db"}},
      "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": []}}}})") ==
        "objects.json: spec.replicas: must be greater than or equal to 0, got -1");
  CHECK(karp::testing::ParseError(R"({"apiVersion": "apps/v1", "kind": "ReplicaSet",
      "metadata": {"name": "rs"}, "spec": {"template": {"spec": {"containers": []}}}})") ==
        "objects.json: spec.selector: required (a non-empty label selector)");
  CHECK(karp::testing::ParseError(R"({"apiVersion": "extensions/v1beta1", "kind": "Deployment",
      "metadata": {"name": "old"}, "spec": {}})") ==
        "objects.json: apiVersion: unsupported apiVersion \"extensions/v1beta1\" for kind "
        "Deployment (expected apps/v1)");

  std::string huge = kInflate;
  huge.replace(huge.find("replicas: 5"), 11, "replicas: 2000000000");
  absl::StatusOr<ClusterSnapshot> snap = karp::json::ParseSnapshotInputs({{"big.yaml", huge}});
  REQUIRE_FALSE(snap.ok());
  CHECK(snap.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(snap.status().message() ==
        "deployment default/inflate: creating 2000000000 pods would exceed the limit of 1000000 "
        "pods created from workloads");
}

TEST_CASE("Topology spread and PDBs see the pods of a workload as they would see the real ones",
          "[workloads]") {
  // Three replicas spread across zones (maxSkew 1) land in three zones; a PDB selecting
  // app=web selects every generated pod.
  const std::string deployment = R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: topology.kubernetes.io/zone
          whenUnsatisfiable: DoNotSchedule
          labelSelector: {matchLabels: {app: web}}
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
)";
  ClusterSnapshot snap = Read({kPool, deployment});
  REQUIRE(snap.pods.size() == 3);
  for (const Pod& p : snap.pods) CHECK(snap.pdbs[0].Selects(p));

  absl::StatusOr<karp::InstanceCatalog> catalog = karp::json::ParseCatalog(R"({"instanceTypes": [
      {"name": "m.large", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
       "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
       "offerings": [
         {"zone": "z-a", "capacityType": "on-demand", "price": 0.1, "available": true},
         {"zone": "z-b", "capacityType": "on-demand", "price": 0.1, "available": true},
         {"zone": "z-c", "capacityType": "on-demand", "price": 0.1, "available": true}]}]})",
                                                                           "catalog.json");
  REQUIRE(catalog.ok());
  absl::StatusOr<karp::Scheduler> scheduler = karp::Scheduler::Create(
      snap, std::make_shared<const karp::InstanceCatalog>(*std::move(catalog)));
  REQUIRE(scheduler.ok());
  absl::StatusOr<karp::SolveResult> result = scheduler->Solve();
  REQUIRE(result.ok());
  CHECK(result->pod_errors.empty());
  REQUIRE(result->node_claims.size() == 3);  // one per zone, not one node for all three
}

TEST_CASE("Workloads whose pods the API server would refuse create none, and say why",
          "[json][workloads]") {
  // A generated name is cut to 58 characters before its 5-character suffix, as generateName.
  const std::string long_rs = std::string(40, 'r') + "." + std::string(29, 'r');
  ClusterSnapshot cut = Read({kPool, R"(
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: )" + long_rs + R"(, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec: {containers: [{name: c, image: pause}]}
)"});
  REQUIRE(cut.pods.size() == 1);
  CHECK(cut.pods[0].metadata.name.size() == 63);
  CHECK(StartsWith(cut.pods[0].metadata.name, long_rs.substr(0, 58)));
  // A Job's name is a label value of its pods (job-name): 70 characters cannot be one.
  const std::string long_job = std::string(40, 'j') + "." + std::string(29, 'j');
  ClusterSnapshot refused = Read({kPool, R"(
apiVersion: batch/v1
kind: Job
metadata: {name: )" + long_job + R"(, namespace: default}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: c, image: pause}]}
)"});
  CHECK(refused.pods.empty());
  bool noted = false;
  for (const std::string& n : refused.notes) {
    noted |= n.find("Job default/" + long_job +
                    ": creates no pods: the API server would refuse "
                    "them (metadata.labels.batch.kubernetes.io/job-name: invalid label value") !=
             std::string::npos;
  }
  CHECK(noted);
  CHECK(refused.Validate().ok());
}

}  // namespace
