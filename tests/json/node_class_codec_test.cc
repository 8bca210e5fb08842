// Tests of EC2NodeClass decoding and encoding (src/json/codec_node_class.cc, karp/node_class.h):
// the fields that change instance types, their errors with JSON paths, the round trip, and the
// older AWSNodeTemplate read as its v1 form.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "karp/cluster.h"
#include "karp/json/codec.h"
#include "karp/node_class.h"
#include "karp/resources.h"
#include "support/snapshot_checks.h"

namespace karp {
namespace {

using testing::MustParse;
using testing::ParseError;

constexpr int64_t kGi = int64_t{1} << 30;

constexpr char kFull[] = R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
  labels: {team: web}
spec:
  amiFamily: Bottlerocket
  amiSelectorTerms:
    - alias: bottlerocket@v1.20.3
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  tags: {team: web}
  userData: "[settings]"
  kubelet:
    maxPods: 58
    podsPerCore: 4
    kubeReserved: {cpu: 200m, memory: 1Gi, pid: "100"}
    systemReserved: {memory: 200Mi, ephemeral-storage: 1}
    evictionHard: {memory.available: 5%, nodefs.available: 10%}
    evictionSoft: {memory.available: 500Mi}
    evictionSoftGracePeriod: {memory.available: 1m}
    clusterDNS: [10.0.0.10]
  blockDeviceMappings:
    - deviceName: /dev/xvda
      ebs: {volumeSize: 4Gi, volumeType: gp3}
    - deviceName: /dev/xvdb
      rootVolume: true
      ebs: {volumeSize: 100Gi, encrypted: true}
    - deviceName: /dev/xvdc
      ebs: {snapshotID: snap-1}
  instanceStorePolicy: RAID0
)";

TEST_CASE("EC2NodeClass: the fields that change instance types are read", "[json][node_class]") {
  const ClusterSnapshot snap = MustParse(kFull, "nodeclass.yaml");
  CHECK(snap.skipped.empty());
  REQUIRE(snap.node_classes.size() == 1);
  const NodeClass& nc = snap.node_classes[0];
  CHECK(nc.api_version == "karpenter.k8s.aws/v1");
  CHECK(nc.kind == "EC2NodeClass");
  CHECK(nc.metadata.name == "default");
  CHECK(nc.metadata.labels.at("team") == "web");
  CHECK(nc.ami_family == "Bottlerocket");
  CHECK(nc.ami_alias == "bottlerocket@v1.20.3");
  CHECK(nc.kubelet.max_pods == 58);
  CHECK(nc.kubelet.pods_per_core == 4);
  CHECK(nc.kubelet.kube_reserved ==
        std::map<std::string, std::string>{{"cpu", "200m"}, {"memory", "1Gi"}, {"pid", "100"}});
  // A number (YAML's `1`) is kept as its text.
  CHECK(nc.kubelet.system_reserved ==
        std::map<std::string, std::string>{{"ephemeral-storage", "1"}, {"memory", "200Mi"}});
  CHECK(nc.kubelet.eviction_hard.at("memory.available") == "5%");
  CHECK(nc.kubelet.eviction_soft.at("memory.available") == "500Mi");
  REQUIRE(nc.block_device_mappings.size() == 3);
  CHECK(nc.block_device_mappings[0].device_name == "/dev/xvda");
  CHECK_FALSE(nc.block_device_mappings[0].root_volume);
  CHECK(nc.block_device_mappings[0].volume_size == 4 * kGi);
  CHECK(nc.block_device_mappings[1].root_volume);
  CHECK(nc.block_device_mappings[1].volume_size == 100 * kGi);
  CHECK_FALSE(nc.block_device_mappings[2].volume_size.has_value());
  CHECK(nc.instance_store_policy == "RAID0");
}

TEST_CASE("EC2NodeClass: a class without spec, and the first alias", "[json][node_class]") {
  ClusterSnapshot snap = MustParse(R"({"apiVersion": "karpenter.k8s.aws/v1",
      "kind": "EC2NodeClass", "metadata": {"name": "bare"}})");
  REQUIRE(snap.node_classes.size() == 1);
  CHECK(snap.node_classes[0] == NodeClass{"karpenter.k8s.aws/v1",
                                          "EC2NodeClass",
                                          snap.node_classes[0].metadata,
                                          "",
                                          "",
                                          {},
                                          {},
                                          ""});
  snap = MustParse(R"(
kind: EC2NodeClass
metadata: {name: ids}
spec:
  amiFamily: AL2023
  amiSelectorTerms: [{id: ami-1}, {alias: al2023@latest}]
)");
  REQUIRE(snap.node_classes.size() == 1);
  CHECK(snap.node_classes[0].api_version == "karpenter.k8s.aws/v1");  // defaulted
  CHECK(snap.node_classes[0].ami_alias == "al2023@latest");
}

TEST_CASE("EC2NodeClass: errors name the field's path", "[json][node_class]") {
  auto error = [](const std::string& spec) {
    return ParseError(
        "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\n"
        "metadata: {name: nc}\nspec:\n" +
            spec,
        "nc.yaml");
  };
  CHECK(error("  kubelet: {maxPods: -1}\n") ==
        "nc.yaml: spec.kubelet.maxPods: must be >= 0, got -1");
  CHECK_THAT(error("  kubelet: {maxPods: two}\n"),
             Catch::StartsWith("nc.yaml: spec.kubelet.maxPods: expected an integer"));
  CHECK_THAT(error("  kubelet: {podsPerCore: -1}\n"),
             Catch::StartsWith("nc.yaml: spec.kubelet.podsPerCore: must be >= 0"));
  CHECK_THAT(error("  kubelet: {kubeReserved: {cpu: abc}}\n"),
             Catch::StartsWith("nc.yaml: spec.kubelet.kubeReserved.cpu: "));
  CHECK_THAT(error("  kubelet: {kubeReserved: {gpu: '1'}}\n"),
             Catch::StartsWith("nc.yaml: spec.kubelet.kubeReserved.gpu: unsupported key"));
  CHECK_THAT(error("  kubelet: {kubeReserved: [cpu]}\n"),
             Catch::StartsWith("nc.yaml: spec.kubelet.kubeReserved: expected an object"));
  CHECK_THAT(error("  kubelet: {systemReserved: {memory: {a: b}}}\n"),
             Catch::StartsWith("nc.yaml: spec.kubelet.systemReserved.memory: expected a quantity"));
  CHECK_THAT(error("  kubelet: {evictionHard: {memory.available: 120%}}\n"),
             Catch::StartsWith("nc.yaml: spec.kubelet.evictionHard.memory.available: "
                               "invalid percentage \"120%\""));
  CHECK_THAT(error("  kubelet: {evictionHard: {memory.free: 1Gi}}\n"),
             Catch::StartsWith("nc.yaml: spec.kubelet.evictionHard.memory.free: unsupported "
                               "eviction signal"));
  CHECK_THAT(error("  kubelet: {evictionSoft: {nodefs.available: lots}}\n"),
             Catch::StartsWith("nc.yaml: spec.kubelet.evictionSoft.nodefs.available: "));
  CHECK_THAT(error("  amiFamily: Ubuntu\n"),
             Catch::StartsWith("nc.yaml: spec.amiFamily: unknown AMI family \"Ubuntu\""));
  CHECK_THAT(error("  amiSelectorTerms: [{id: ami-1}, {alias: al3@latest}]\n"),
             Catch::StartsWith("nc.yaml: spec.amiSelectorTerms[1].alias: family \"al3\""));
  CHECK_THAT(error("  amiSelectorTerms: [{alias: windows2022@v1}]\n"),
             Catch::Contains("windows families may only specify version 'latest'"));
  CHECK_THAT(error("  amiFamily: AL2\n  amiSelectorTerms: [{alias: al2023@latest}]\n"),
             Catch::StartsWith("nc.yaml: spec.amiFamily: \"AL2\" must be \"AL2023\" or "
                               "\"Custom\""));
  CHECK_THAT(error("  blockDeviceMappings:\n"
                   "    - {deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 1Gi}}\n"
                   "    - {deviceName: /dev/xvdb, rootVolume: true, ebs: {volumeSize: 1Gi}}\n"),
             Catch::StartsWith("nc.yaml: spec.blockDeviceMappings[1].rootVolume: must have only "
                               "one"));
  CHECK_THAT(error("  blockDeviceMappings: [{deviceName: /dev/xvda, ebs: {volumeSize: big}}]\n"),
             Catch::StartsWith("nc.yaml: spec.blockDeviceMappings[0].ebs.volumeSize: "));
  CHECK_THAT(error("  blockDeviceMappings: [{deviceName: /dev/xvda, ebs: {volumeSize: 0}}]\n"),
             Catch::StartsWith("nc.yaml: spec.blockDeviceMappings[0].ebs.volumeSize: must be > 0"));
  CHECK_THAT(error("  blockDeviceMappings: [{deviceName: /dev/xvda, rootVolume: yes please}]\n"),
             Catch::StartsWith("nc.yaml: spec.blockDeviceMappings[0].rootVolume: expected a "
                               "boolean"));
  CHECK_THAT(error("  instanceStorePolicy: RAID1\n"),
             Catch::StartsWith("nc.yaml: spec.instanceStorePolicy: unsupported value \"RAID1\""));
  // In a List, the path starts at the item.
  CHECK_THAT(ParseError(R"({"kind": "List", "items": [{"kind": "EC2NodeClass",
      "apiVersion": "karpenter.k8s.aws/v1", "metadata": {"name": "x"},
      "spec": {"kubelet": {"maxPods": -3}}}]})"),
             Catch::StartsWith("objects.json: items[0].spec.kubelet.maxPods: must be >= 0"));
  CHECK_THAT(ParseError("kind: EC2NodeClass\napiVersion: karpenter.k8s.aws/v1\nmetadata: {}\n"),
             Catch::Contains("metadata.name: required"));
  CHECK_THAT(ParseError("kind: EC2NodeClass\napiVersion: karpenter.k8s.aws/v1\n"
                        "metadata: {name: a}\n---\n"
                        "kind: EC2NodeClass\napiVersion: karpenter.k8s.aws/v1\n"
                        "metadata: {name: a}\n"),
             Catch::Contains("duplicate ec2nodeclass \"a\""));
}

TEST_CASE("EC2NodeClass: WriteSnapshot then ParseSnapshot gives the same classes",
          "[json][node_class]") {
  const ClusterSnapshot snap = MustParse(kFull, "nodeclass.yaml");
  const std::string written = json::WriteSnapshot(snap);
  const ClusterSnapshot again = MustParse(written, "written.json");
  CHECK(again.node_classes == snap.node_classes);
  CHECK(json::WriteSnapshot(again) == written);

  ClusterSnapshot bare;
  NodeClass nc;
  nc.api_version = "karpenter.k8s.aws/v1";
  nc.kind = "EC2NodeClass";
  nc.metadata.name = "bare";
  nc.block_device_mappings.push_back({"", true, std::nullopt});
  bare.node_classes.push_back(nc);
  CHECK(MustParse(json::WriteSnapshot(bare)).node_classes == bare.node_classes);
}

TEST_CASE("EC2NodeClass: an older AWSNodeTemplate and Provisioner kubelet are read as v1",
          "[json][node_class]") {
  const ClusterSnapshot snap = MustParse(R"(
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec:
  providerRef: {name: small}
  kubeletConfiguration: {maxPods: 2, systemReserved: {memory: 100Mi}}
---
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: small}
spec:
  amiFamily: Bottlerocket
  subnetSelector: {karpenter.sh/discovery: demo}
  securityGroupSelector: {karpenter.sh/discovery: demo}
  blockDeviceMappings:
    - deviceName: /dev/xvdb
      ebs: {volumeSize: 60Gi}
)");
  CHECK(snap.skipped.empty());
  REQUIRE(snap.node_pools.size() == 1);
  CHECK(snap.node_pools[0].node_class_ref.kind == "EC2NodeClass");
  CHECK(snap.node_pools[0].node_class_ref.name == "small");
  REQUIRE(snap.node_classes.size() == 1);
  const NodeClass& nc = snap.node_classes[0];
  CHECK(nc.metadata.name == "small");
  CHECK(nc.ami_alias == "bottlerocket@latest");
  CHECK(nc.kubelet.max_pods == 2);
  CHECK(nc.kubelet.system_reserved.at("memory") == "100Mi");
  REQUIRE(nc.block_device_mappings.size() == 1);
  CHECK(nc.block_device_mappings[0].volume_size == 60 * kGi);

  // An error in a converted class names the old object and the v1 field.
  CHECK_THAT(ParseError(R"(
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: bad}
spec:
  amiFamily: AL2
  blockDeviceMappings: [{deviceName: /dev/xvda, ebs: {volumeSize: -1Gi}}]
)",
                        "old.yaml"),
             Catch::Contains("as converted to karpenter.k8s.aws/v1 EC2NodeClass: "
                             "spec.blockDeviceMappings[0].ebs.volumeSize: "));
}

}  // namespace
}  // namespace karp
