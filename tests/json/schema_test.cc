// Strict decoding from the published schemas (issue 36, group 1): a field that the kind's
// schema (Kubernetes' OpenAPI document, the Karpenter CRDs, karp's catalog schema) lacks is an
// error naming the file, the path and the nearest known field; --validate=warn lists them;
// what a real API server returns (managedFields, status, annotations) still decodes.

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "json/schema.h"
#include "karp/json/codec.h"
#include "karp/json/command_io.h"
#include "support/snapshot_checks.h"
#include "support/source_dir.h"

namespace {

using karp::ClusterSnapshot;
using karp::json::FieldValidation;
using karp::testing::MustParse;
using karp::testing::ParseError;

constexpr char kNodePool[] = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirments:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
)";

TEST_CASE("An unknown field is an error naming the path and the nearest field", "[json][schema]") {
  // Without the check, `requirments` dropped every requirement: arm64 nodes for amd64 images.
  CHECK(ParseError(kNodePool, "pools.yaml") ==
        "pools.yaml: spec.template.spec.requirments: unknown field; did you mean requirements?");
  // Kubernetes kinds, at any depth, in arrays and in maps of objects.
  CHECK(ParseError(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "spec": {"containers": [{"name": "c", "resoures": {"requests": {"cpu": "1"}}}]}})") ==
        "objects.json: spec.containers[0].resoures: unknown field; did you mean resources?");
  CHECK(ParseError(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "spec": {"nodeSelecter": {"a": "b"}}})") ==
        "objects.json: spec.nodeSelecter: unknown field; did you mean nodeSelector?");
  CHECK(ParseError(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p",
      "lables": {"a": "b"}}})") ==
        "objects.json: metadata.lables: unknown field; did you mean labels?");
  CHECK(ParseError(R"({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
      "spec": {"replica": 3, "template": {}}})") ==
        "objects.json: spec.replica: unknown field; did you mean replicas?");
  // No suggestion when nothing is near.
  CHECK(ParseError(R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
      "spec": {"completelyDifferent": 1}})") ==
        "objects.json: spec.completelyDifferent: unknown field");
  // Case differences are near.
  CHECK(ParseError(R"({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
      "metadata": {"name": "b", "namespace": "x"}, "spec": {"MinAvailable": 1}})") ==
        "objects.json: spec.MinAvailable: unknown field; did you mean minAvailable?");
  // An object without apiVersion is checked as its kind's karp version.
  CHECK(ParseError(R"({"kind": "Pod", "metadata": {"name": "p"}, "spce": {}})") ==
        "objects.json: spce: unknown field; did you mean spec?");
  // EC2NodeClass (karpenter.k8s.aws/v1).
  CHECK(ParseError(R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerm: [{alias: al2023@latest}]
)") == "objects.json: spec.amiSelectorTerm: unknown field; did you mean amiSelectorTerms?");
  // Objects of kinds karp does not read are not checked (they are skipped).
  ClusterSnapshot other = MustParse(R"({"apiVersion": "v1", "kind": "ConfigMap",
      "metadata": {"name": "s"}, "spec": {"anything": 1}})");
  CHECK(other.skipped_objects == 1);
}

TEST_CASE("Items of a JSON List and of YAML fail with the same unknown-field message",
          "[json][schema]") {
  // A JSON List's Pods are read in place by the fast reader; YAML through nlohmann.
  const std::string list = R"({"apiVersion": "v1", "kind": "List", "items": [
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}},
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"},
       "spec": {"containers": [{"name": "c", "image": "x", "imagePullPolicy": "Always",
                                "resources": {}, "sidecar": true}]}}]})";
  const std::string want = "items[1].spec.containers[0].sidecar: unknown field";
  CHECK(ParseError(list) == "objects.json: " + want);
  CHECK(ParseError("---\n" + list, "objects.yaml") == "objects.yaml: " + want);
}

TEST_CASE("Older API versions are checked against their own schemas", "[json][schema]") {
  CHECK(ParseError(R"(apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: default}
spec:
  disruption: {consolidationPolicy: WhenUnderutilized, expireAftr: 720h}
  template: {spec: {nodeClassRef: {name: default}}}
)") == "objects.json: spec.disruption.expireAftr: unknown field; did you mean expireAfter?");
  CHECK(ParseError(R"(apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: default}
spec:
  subnetSelecter: {karpenter.sh/discovery: c}
)") == "objects.json: spec.subnetSelecter: unknown field; did you mean subnetSelector?");
}

TEST_CASE("Unknown fields are warnings under validate=warn and dropped under ignore",
          "[json][schema]") {
  ClusterSnapshot warned = MustParse(kNodePool, "pools.yaml", FieldValidation::kWarn);
  CHECK(warned.warnings == std::vector<std::string>{
                               "pools.yaml: spec.template.spec.requirments: unknown field; did you "
                               "mean requirements? (ignored)"});
  REQUIRE(warned.node_pools.size() == 1);
  ClusterSnapshot ignored = MustParse(kNodePool, "pools.yaml", FieldValidation::kIgnore);
  CHECK(ignored.warnings.empty());
  // At most kMaxFieldWarnings lines, then one count.
  std::string labels;
  for (int i = 0; i < 25; ++i) {
    labels += std::string(i == 0 ? "" : ", ") + "\"x" + std::to_string(i) + "\": 1";
  }
  ClusterSnapshot many = MustParse(
      R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {)" + labels + "}}",
      "objects.json", FieldValidation::kWarn);
  REQUIRE(many.warnings.size() == karp::json::codec_internal::kMaxFieldWarnings + 1);
  CHECK(many.warnings.back() == "and 5 more unknown fields (ignored)");
  // ReadSnapshotFiles and the C API's options take the same setting.
  absl::StatusOr<karp::json::RunOptions> o =
      karp::json::ParseRunOptions(R"({"validate": "warn"})", "options");
  REQUIRE(o.ok());
  CHECK(o->validation == FieldValidation::kWarn);
  CHECK(karp::json::ParseRunOptions(R"({"validte": "warn"})", "options").status().message() ==
        "options: validte: unknown option; did you mean validate?");
  CHECK(karp::json::ParseRunOptions(R"({"validate": "lenient"})", "options").status().message() ==
        "options: validate: must be one of strict, warn, ignore, got \"lenient\"");
}

TEST_CASE("A key of any length is named by its first 200 bytes", "[json][schema]") {
  const std::string key(100000, 'k');
  const std::string error = ParseError(R"({"apiVersion": "v1", "kind": "Pod", "metadata":
      {"name": "p"}, ")" + key + R"(": 1})");
  CHECK(error ==
        "objects.json: " + std::string(200, 'k') + "... (99800 more bytes): unknown field");
}

TEST_CASE("Catalog files are checked against karp's catalog schema", "[json][schema]") {
  absl::StatusOr<std::vector<karp::InstanceType>> types = karp::json::ParseInstanceTypes(
      R"({"instanceTypes": [{"name": "m.large", "capacity": {"cpu": "2"}, "offerings": [
          {"zone": "z1", "capacityType": "spot", "prise": 0.1}]}]})",
      "catalog.json");
  REQUIRE_FALSE(types.ok());
  // The schema runs before the decoder: the typo is named, not the missing price.
  CHECK(types.status().message() ==
        "catalog.json: instanceTypes[0].offerings[0].prise: unknown field; did you mean price?");
  types = karp::json::ParseInstanceTypes(
      R"({"instanceTypes": [{"name": "m.large", "overhead": {"kubeReserve": {}}}]})",
      "catalog.json");
  REQUIRE_FALSE(types.ok());
  CHECK(types.status().message() ==
        "catalog.json: instanceTypes[0].overhead.kubeReserve: unknown field; did you mean "
        "kubeReserved?");
}

TEST_CASE("What a real API server returns decodes strictly", "[json][schema]") {
  // managedFields (free-form fieldsV1), status of every kind, ownerReferences, annotations,
  // projected service-account volumes, probes: `kubectl get pods,nodes,nodepools -o json`.
  absl::StatusOr<ClusterSnapshot> snap = karp::json::ReadSnapshotFiles(
      {karp::testing::SourceDir() + "/tests/json/testdata/kubectl-dump.json"});
  INFO(snap.status().message());
  REQUIRE(snap.ok());
  CHECK(snap->pods.size() == 1);
  CHECK(snap->nodes.size() == 1);
  CHECK(snap->node_pools.size() == 1);
  CHECK(snap->warnings.empty());
}

TEST_CASE("The generated schema tables are well formed", "[json][schema]") {
  using karp::json::codec_internal::FindSchema;
  using karp::json::codec_internal::kSchemaFields;
  using karp::json::codec_internal::kSchemaNodes;
  using karp::json::codec_internal::kSchemaRootCount;
  using karp::json::codec_internal::kSchemaRoots;
  using karp::json::codec_internal::SchemaShape;
  // Every kind karp decodes has a schema.
  for (const char* kind : {"Pod", "Node", "ReplicationController", "LimitRange", "PersistentVolume",
                           "PersistentVolumeClaim"}) {
    CHECK(FindSchema("v1", kind) > 0);
  }
  CHECK(FindSchema("karpenter.sh/v1", "NodePool") > 0);
  CHECK(FindSchema("karpenter.sh/v1alpha5", "Provisioner") > 0);
  CHECK(FindSchema("", "karp.catalog") > 0);
  CHECK(FindSchema("v1", "ConfigMap") == -1);
  // The check merges sorted members with sorted fields: the fields must be strictly ascending.
  std::set<int> seen;
  std::vector<int> todo;
  for (size_t i = 0; i < kSchemaRootCount; ++i) todo.push_back(kSchemaRoots[i].node);
  while (!todo.empty()) {
    const int n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    const auto& node = kSchemaNodes[n];
    if (node.shape == SchemaShape::kObject) {
      for (int f = node.a; f < node.a + node.b; ++f) {
        if (f > node.a) CHECK(kSchemaFields[f - 1].name < kSchemaFields[f].name);
        todo.push_back(kSchemaFields[f].node);
      }
    } else if (node.shape != SchemaShape::kLeaf) {
      todo.push_back(node.a);
    }
  }
  CHECK(seen.size() > 300);
}

}  // namespace
