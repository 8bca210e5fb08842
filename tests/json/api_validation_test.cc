// What the API server and the Karpenter CRDs refuse is refused here too (issue 36, group 1):
// names and namespaces that are not DNS-1123, label keys and values, annotation keys, container
// resource names, the NodePool CEL rules (restricted template labels, taints, nodeClassRef,
// static NodePools). Messages quote the reference's where it has one.

#include <catch2/catch.hpp>
#include <string>

#include "karp/cluster.h"
#include "support/snapshot_checks.h"

namespace {

using karp::testing::MustParse;
using karp::testing::ParseError;

std::string Pod(const std::string& meta, const std::string& spec = "{}") {
  return R"({"apiVersion": "v1", "kind": "Pod", "metadata": )" + meta + R"(, "spec": )" + spec +
         "}";
}

std::string PodRequesting(const std::string& requests) {
  return Pod(R"({"name": "p"})",
             R"({"containers": [{"name": "c", "resources": {"requests": )" + requests + "}}]}");
}

std::string Pool(const std::string& spec_extra, const std::string& template_extra = "",
                 const std::string& name = "default") {
  return R"({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": ")" + name +
         R"("}, "spec": {"template": {)" + template_extra +
         R"("spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
         "name": "default"}}})" +
         spec_extra + "}}";
}

constexpr char kSubdomain[] =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";

TEST_CASE("Names are DNS-1123 subdomains and namespaces DNS-1123 labels", "[json][api]") {
  CHECK(ParseError(Pool("", "", "Bad Name!")) ==
        std::string("objects.json: metadata.name: invalid value \"Bad Name!\": ") + kSubdomain);
  CHECK(ParseError(Pod(R"({"name": "Web_1"})")) ==
        std::string("objects.json: metadata.name: invalid value \"Web_1\": ") + kSubdomain);
  CHECK(ParseError(Pod(R"({"name": ")" + std::string(254, 'a') + R"("})"))
            .find("metadata.name: invalid value \"" + std::string(150, 'a')) != std::string::npos);
  CHECK(ParseError(Pod(R"({"name": "p", "namespace": "Bad_NS!!"})")) ==
        "objects.json: metadata.namespace: invalid value \"Bad_NS!!\": a lowercase RFC 1123 label "
        "must consist of lower case alphanumeric characters or '-', and must start and end with "
        "an alphanumeric character");
  CHECK(ParseError(Pod(R"({"name": "p", "namespace": "a.b"})"))
            .rfind("objects.json: metadata.namespace: invalid value \"a.b\"", 0) == 0);
  // What real clusters use is fine.
  karp::ClusterSnapshot ok = MustParse(Pod(R"({"name": "web-7c9d8b6f5d-x2x9q.v2",
      "namespace": "kube-system"})"));
  CHECK(ok.pods.size() == 1);
}

TEST_CASE("Label keys and values and annotation keys are checked", "[json][api]") {
  CHECK(ParseError(Pod(R"({"name": "p", "labels": {"team": "a b"}})")) ==
        "objects.json: metadata.labels.team: invalid label value \"a b\": must be 63 characters "
        "or less of [A-Za-z0-9_.-], starting and ending alphanumeric");
  CHECK(ParseError(Pod(R"({"name": "p", "labels": {"team": ")" + std::string(64, 'a') + R"("}})"))
            .rfind("objects.json: metadata.labels.team: invalid label value", 0) == 0);
  CHECK(ParseError(Pod(R"({"name": "p", "labels": {"Bad Key": "x"}})")) ==
        "objects.json: metadata.labels: invalid label key \"Bad Key\": name must be 63 "
        "characters or less of [A-Za-z0-9_.-], starting and ending alphanumeric");
  CHECK(ParseError(Pod(R"({"name": "p", "annotations": {"Not/A/Key": "x"}})"))
            .rfind("objects.json: metadata.annotations: invalid annotation key \"Not/A/Key\"", 0) ==
        0);
  // Annotation values are free text.
  CHECK(MustParse(Pod(R"({"name": "p", "annotations": {"note": "anything at all: {}"}})"))
            .pods.size() == 1);
}

TEST_CASE("Containers request standard or fully qualified resources", "[json][api]") {
  CHECK(ParseError(PodRequesting(R"({"memroy": "1Gi"})")) ==
        "objects.json: spec.containers[0].resources.requests.memroy: must be a standard resource "
        "for containers (cpu, memory, ephemeral-storage, hugepages-<size>) or fully qualified "
        "(example.com/name); did you mean memory?");
  // `pods` is a node's resource, not a container's (it was read as 1e18 pods, printed as 1).
  CHECK(ParseError(PodRequesting(R"({"pods": "1e18"})"))
            .rfind("objects.json: spec.containers[0].resources.requests.pods: must be a standard "
                   "resource for containers",
                   0) == 0);
  CHECK(MustParse(PodRequesting(R"({"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1Gi",
      "hugepages-2Mi": "2Mi", "nvidia.com/gpu": "1"})"))
            .pods.size() == 1);
}

TEST_CASE("The NodePool CRD's rules on template labels, taints and nodeClassRef", "[json][api]") {
  auto labels = [](const std::string& l) { return R"("metadata": {"labels": )" + l + "}, "; };
  CHECK(ParseError(Pool("", labels(R"({"karpenter.sh/nodepool": "other"})"))) ==
        "objects.json: spec.template.metadata.labels: label \"karpenter.sh/nodepool\" is "
        "restricted");
  CHECK(ParseError(Pool("", labels(R"({"kubernetes.io/hostname": "x"})"))) ==
        "objects.json: spec.template.metadata.labels: label \"kubernetes.io/hostname\" is "
        "restricted");
  CHECK(ParseError(Pool("", labels(R"({"team.karpenter.sh/x": "y"})"))) ==
        "objects.json: spec.template.metadata.labels: label domain \"karpenter.sh\" is "
        "restricted");
  CHECK(ParseError(Pool("", labels(R"({"team": "a b"})")))
            .rfind("objects.json: spec.template.metadata.labels.team: invalid label value", 0) ==
        0);
  CHECK(MustParse(Pool("", labels(R"({"karpenter.sh/capacity-type": "spot", "team": "web"})")))
            .node_pools.size() == 1);
  auto pool_spec = [](const std::string& spec) {
    return R"({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
        "spec": {"template": {"spec": )" +
           spec + "}}}";
  };
  CHECK(ParseError(pool_spec(R"({"taints": [{"key": "a b", "effect": "NoSchedule"}]})"))
            .rfind("objects.json: spec.template.spec.taints[0].key: invalid taint key \"a b\"",
                   0) == 0);
  CHECK(ParseError(pool_spec(R"({"startupTaints": [{"key": "a", "value": "x y",
      "effect": "NoSchedule"}]})"))
            .rfind("objects.json: spec.template.spec.startupTaints[0].value: invalid value \"x y\"",
                   0) == 0);
  CHECK(ParseError(pool_spec(R"({"nodeClassRef": {"group": "", "kind": "EC2NodeClass",
      "name": "default"}})")) ==
        "objects.json: spec.template.spec.nodeClassRef.group: group may not be empty");
  CHECK(ParseError(pool_spec(R"({"nodeClassRef": {"group": "karpenter.k8s.aws",
      "kind": "EC2NodeClass", "name": ""}})")) ==
        "objects.json: spec.template.spec.nodeClassRef.name: name may not be empty");
}

TEST_CASE("Static NodePools take no weight and only a nodes limit", "[json][api]") {
  CHECK(ParseError(Pool(R"(, "replicas": 2, "weight": 5)")) ==
        "objects.json: spec: 'weight' is not supported on static NodePools");
  CHECK(ParseError(Pool(R"(, "replicas": 2, "limits": {"cpu": "4"})")) ==
        "objects.json: spec: only 'limits.nodes' is supported on static NodePools");
  CHECK(MustParse(Pool(R"(, "replicas": 2, "limits": {"nodes": "4"})")).node_pools.size() == 1);
}

}  // namespace
