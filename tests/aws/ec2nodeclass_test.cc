// EC2NodeClass: parsing (JSON and YAML, mixed with other kinds), validation errors naming the
// object and field, catalog options from kubelet settings, the static hash, tags, AMI and
// subnet choice, and NodeClass drift for each cause.

#include "karp/aws/ec2nodeclass.h"

#include <catch2/catch.hpp>

#include "nodeclass_test_util.h"

#include <string>
#include <vector>

#include "karp/aws/ec2nodeclass_status.h"
#include "karp/aws_catalog.h"
#include "karp/json/codec.h"
#include "karp/node_class_catalog.h"
#include "support/source_dir.h"

namespace karp::aws {
namespace {

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;

constexpr const char* kValid = R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-prod
  amiSelectorTerms:
    - alias: al2023@latest
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: prod
    - id: subnet-0123
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: prod
    - name: eks-cluster-sg
  tags:
    team: web
  metadataOptions:
    httpPutResponseHopLimit: 2
  blockDeviceMappings:
    - deviceName: /dev/xvda
      rootVolume: true
      ebs:
        volumeSize: 100Gi
        volumeType: gp3
        encrypted: true
  kubelet:
    maxPods: 58
    kubeReserved:
      cpu: 200m
      memory: 1Gi
    systemReserved:
      memory: 200Mi
      pid: "1000"
    evictionHard:
      memory.available: 5%
      nodefs.available: 15%
  associatePublicIPAddress: false
  detailedMonitoring: true
)";

std::vector<Ec2NodeClass> MustParse(const std::string& text) {
  absl::StatusOr<std::vector<Ec2NodeClass>> r = ParseEc2NodeClasses(text, "nodeclass.yaml");
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

std::string ParseError(const std::string& text) {
  absl::StatusOr<std::vector<Ec2NodeClass>> r = ParseEc2NodeClasses(text, "nodeclass.yaml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(r.status().message());
}

// kValid with `from` replaced by `to` (which must occur).
std::string Edit(const std::string& from, const std::string& to) {
  std::string s = kValid;
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  s.replace(at, from.size(), to);
  return s;
}

TEST_CASE("an EC2NodeClass is read with every field", "[ec2nodeclass]") {
  std::vector<Ec2NodeClass> classes = MustParse(kValid);
  REQUIRE(classes.size() == 1);
  const Ec2NodeClass& nc = classes[0];
  CHECK(nc.name() == "default");
  CHECK(nc.role == "KarpenterNodeRole-prod");
  REQUIRE(nc.ami_selector_terms.size() == 1);
  CHECK(nc.ami_selector_terms[0].alias == "al2023@latest");
  CHECK(nc.ResolvedAmiFamily() == AwsAmiFamily::kAl2023);
  REQUIRE(nc.subnet_selector_terms.size() == 2);
  CHECK(nc.subnet_selector_terms[0].tags.at("karpenter.sh/discovery") == "prod");
  CHECK(nc.subnet_selector_terms[1].id == "subnet-0123");
  REQUIRE(nc.security_group_selector_terms.size() == 2);
  CHECK(nc.security_group_selector_terms[1].name == "eks-cluster-sg");
  CHECK(nc.tags.at("team") == "web");
  CHECK(nc.metadata_options.http_put_response_hop_limit == 2);
  CHECK(nc.metadata_options.http_tokens == "required");  // CRD default kept
  REQUIRE(nc.block_device_mappings.size() == 1);
  CHECK(nc.block_device_mappings[0].root_volume);
  CHECK(nc.block_device_mappings[0].ebs.volume_size == 100 * kGi);
  CHECK(nc.kubelet.max_pods == 58);
  CHECK(nc.kubelet.kube_reserved.at("memory") == "1Gi");
  CHECK(nc.kubelet.eviction_hard.at("nodefs.available") == "15%");
  CHECK(nc.associate_public_ip_address == false);
  CHECK(nc.detailed_monitoring);
}

TEST_CASE("EC2NodeClasses are picked out of a snapshot that also holds NodePools",
          "[ec2nodeclass]") {
  const std::string mixed = std::string(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
---
)") + kValid;
  std::vector<Ec2NodeClass> classes = MustParse(mixed);
  REQUIRE(classes.size() == 1);
  CHECK(classes[0].name() == "default");

  // The core snapshot codec reads the fields of the EC2NodeClass that change instance types,
  // and both readers give the same catalog options.
  absl::StatusOr<ClusterSnapshot> snap = json::ParseSnapshot(mixed, "mixed.yaml");
  REQUIRE(snap.ok());
  CHECK(snap->node_pools.size() == 1);
  CHECK(snap->skipped_objects == 0);
  REQUIRE(snap->node_classes.size() == 1);
  absl::StatusOr<AwsCatalogOptions> from_snapshot =
      AwsCatalogOptionsForNodeClass(snap->node_classes[0], AwsCatalogOptions{});
  absl::StatusOr<AwsCatalogOptions> from_adapter =
      CatalogOptionsFor(classes[0], AwsCatalogOptions{});
  REQUIRE(from_snapshot.ok());
  REQUIRE(from_adapter.ok());
  CHECK(from_snapshot->max_pods == from_adapter->max_pods);
  CHECK(from_snapshot->kube_reserved == from_adapter->kube_reserved);
  CHECK(from_snapshot->system_reserved == from_adapter->system_reserved);
  CHECK(from_snapshot->eviction_hard == from_adapter->eviction_hard);
  CHECK(from_snapshot->ephemeral_volume_bytes == from_adapter->ephemeral_volume_bytes);
  CHECK(from_snapshot->ami_family == from_adapter->ami_family);

  // JSON List form.
  const std::string list = R"({"apiVersion":"v1","kind":"List","items":[
    {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}},
    {"apiVersion":"karpenter.k8s.aws/v1","kind":"EC2NodeClass","metadata":{"name":"gpu"},
     "spec":{"amiFamily":"Bottlerocket","amiSelectorTerms":[{"name":"bottlerocket-*","owner":"amazon"}],
             "subnetSelectorTerms":[{"tags":{"karpenter.sh/discovery":"*"}}],
             "securityGroupSelectorTerms":[{"id":"sg-1"}],"instanceProfile":"prof"}}]})";
  classes = MustParse(list);
  REQUIRE(classes.size() == 1);
  CHECK(classes[0].ResolvedAmiFamily() == AwsAmiFamily::kBottlerocket);
  CHECK(classes[0].instance_profile == "prof");
}

TEST_CASE("the example under examples/aws reads as a NodePool and its EC2NodeClass",
          "[ec2nodeclass]") {
  const std::string path = karp::testing::SourceDir() + "/examples/aws/nodeclass-nodepool.yaml";
  absl::StatusOr<std::vector<Ec2NodeClass>> classes = ReadEc2NodeClassFiles({path});
  INFO(classes.status().ToString());
  REQUIRE(classes.ok());
  REQUIRE(classes->size() == 1);
  absl::StatusOr<ClusterSnapshot> snap = json::ReadSnapshotFiles({path});
  INFO(snap.status().ToString());
  REQUIRE(snap.ok());
  REQUIRE(snap->node_pools.size() == 1);
  const NodeClassRef& ref = snap->node_pools[0].node_class_ref;
  CHECK(ref.group == kEc2NodeClassGroup);
  CHECK(ref.kind == kEc2NodeClassKind);
  CHECK(FindEc2NodeClass(*classes, ref.name) == &(*classes)[0]);
  CHECK(CatalogOptionsFor((*classes)[0], AwsCatalogOptions{}).ok());
  CHECK(ReadEc2NodeClassFiles({"/nonexistent/nodeclass.yaml"}).status().code() ==
        absl::StatusCode::kNotFound);
}

TEST_CASE("invalid EC2NodeClasses are rejected naming the file, object path and field",
          "[ec2nodeclass]") {
  CHECK(ParseError(Edit("  subnetSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: "
                        "prod\n    - id: subnet-0123\n",
                        "")) ==
        "nodeclass.yaml: spec.subnetSelectorTerms: required: at least one selector term");
  CHECK(ParseError(Edit("alias: al2023@latest", "alias: al3@latest")) ==
        "nodeclass.yaml: spec.amiSelectorTerms[0].alias: unknown AMI family \"al3\" in alias "
        "\"al3@latest\" (want al2, al2023, bottlerocket, windows2019, windows2022 or "
        "windows2025)");
  CHECK_THAT(ParseError(Edit("team: web", "karpenter.sh/nodepool: x")),
             Catch::StartsWith("nodeclass.yaml: spec.tags.karpenter.sh/nodepool: the tag key "
                               "\"karpenter.sh/nodepool\" is restricted"));
  CHECK_THAT(ParseError(Edit("team: web", "kubernetes.io/cluster/prod: owned")),
             Catch::Contains("spec.tags.kubernetes.io/cluster/prod: the tag key"));
  CHECK(ParseError(Edit("alias: al2023@latest", "alias: al2023")) ==
        "nodeclass.yaml: spec.amiSelectorTerms[0].alias: invalid alias \"al2023\": expected "
        "<family>@<version>, e.g. al2023@latest");
  CHECK(ParseError(Edit("- alias: al2023@latest", "- alias: al2023@latest\n    - id: ami-1")) ==
        "nodeclass.yaml: spec.amiSelectorTerms[0].alias: an alias must be the only term of "
        "spec.amiSelectorTerms");
  CHECK(ParseError(Edit("- alias: al2023@latest", "- id: ami-1")) ==
        "nodeclass.yaml: spec.amiFamily: required when spec.amiSelectorTerms has no alias");
  CHECK(ParseError(Edit("spec:\n", "spec:\n  amiFamily: Bottlerocket\n")) ==
        "nodeclass.yaml: spec.amiFamily: \"Bottlerocket\" does not match the alias family "
        "\"AL2023\"");
  CHECK(ParseError(Edit("role: KarpenterNodeRole-prod", "instanceProfile: p\n  role: r")) ==
        "nodeclass.yaml: spec.instanceProfile: exactly one of role and instanceProfile must be "
        "set");
  CHECK(ParseError(Edit("- id: subnet-0123", "- id: subnet-0123\n      tags: {a: b}")) ==
        "nodeclass.yaml: spec.subnetSelectorTerms[1].id: id cannot be combined with other "
        "fields");
  CHECK(ParseError(Edit("httpPutResponseHopLimit: 2", "httpPutResponseHopLimit: 65")) ==
        "nodeclass.yaml: spec.metadataOptions.httpPutResponseHopLimit: must be in [1, 64]");
  CHECK(ParseError(Edit("volumeType: gp3", "volumeType: gp9")) ==
        "nodeclass.yaml: spec.blockDeviceMappings[0].ebs.volumeType: invalid volume type "
        "\"gp9\" (want standard, io1, io2, gp2, sc1, st1 or gp3)");
  CHECK(ParseError(Edit("volumeSize: 100Gi", "volumeSize: 100Zi")) ==
        "nodeclass.yaml: spec.blockDeviceMappings[0].ebs.volumeSize: invalid quantity \"100Zi\": "
        "unknown suffix");
  CHECK_THAT(ParseError(Edit("nodefs.available: 15%", "nodefs.available: 150%")),
             Catch::StartsWith("nodeclass.yaml: spec.kubelet.evictionHard.nodefs.available: "
                               "invalid percentage \"150%\""));
  CHECK_THAT(ParseError(Edit("cpu: 200m", "gpu: \"1\"")),
             Catch::StartsWith("nodeclass.yaml: spec.kubelet.kubeReserved.gpu: unsupported key"));
  CHECK(ParseError(Edit("maxPods: 58", "maxPods: many")) ==
        "nodeclass.yaml: spec.kubelet.maxPods: expected an integer, got a string");
  CHECK(ParseError(
            Edit("apiVersion: karpenter.k8s.aws/v1", "apiVersion: karpenter.k8s.aws/v1beta1")) ==
        "nodeclass.yaml: apiVersion: unsupported apiVersion \"karpenter.k8s.aws/v1beta1\" for "
        "kind EC2NodeClass (expected karpenter.k8s.aws/v1)");
  // In a multi-document file the document is named.
  CHECK_THAT(ParseError(std::string(kValid) + "---\n" + Edit("name: default", "name: other") +
                        "  instanceProfile: x\n"),
             Catch::StartsWith("nodeclass.yaml: documents[1].spec.instanceProfile: exactly one"));
  CHECK_THAT(ParseError(std::string(kValid) + "---\n" + kValid),
             Catch::Contains("duplicate ec2nodeclass \"default\""));

  // The value-type validation names the object.
  Ec2NodeClass nc = MustParse(kValid)[0];
  nc.tags["eks:eks-cluster-name"] = "x";
  absl::Status s = ValidateEc2NodeClass(nc);
  CHECK_THAT(std::string(s.message()),
             Catch::StartsWith("ec2nodeclass \"default\": spec.tags.eks:eks-cluster-name: "));
}

TEST_CASE("aliases name a family and a version", "[ec2nodeclass]") {
  absl::StatusOr<AmiAlias> a = ParseAmiAlias("bottlerocket@v1.20.3");
  REQUIRE(a.ok());
  CHECK(a->family == AwsAmiFamily::kBottlerocket);
  CHECK(a->version == "v1.20.3");
  CHECK_FALSE(ParseAmiAlias("windows2022@v1").ok());  // Windows: latest only
  CHECK_FALSE(ParseAmiAlias("al2023@@latest").ok());
  CHECK_FALSE(ParseAmiAlias("@latest").ok());
  CHECK_FALSE(ParseAmiAlias("al2023@lat est").ok());
}

TEST_CASE("kubelet settings and volumes feed the catalog overhead", "[ec2nodeclass]") {
  const Ec2NodeClass nc = MustParse(kValid)[0];
  absl::StatusOr<AwsCatalogOptions> options = CatalogOptionsFor(nc, AwsCatalogOptions{});
  REQUIRE(options.ok());
  CHECK(options->ami_family == AwsAmiFamily::kAl2023);
  CHECK(options->max_pods == 58);
  CHECK(options->ephemeral_volume_bytes == 100 * kGi);
  CHECK(options->kube_reserved.cpu() == 200);
  CHECK(options->kube_reserved.memory() == 1 * kGi);
  CHECK(options->system_reserved.memory() == 200 * kMi);
  CHECK_FALSE(options->system_reserved.Has("pid"));

  absl::StatusOr<InstanceCatalog> catalog = EmbeddedAwsCatalog(*options);
  REQUIRE(catalog.ok());
  const InstanceType* m5 = catalog->Find("m5.large");
  REQUIRE(m5 != nullptr);
  // capacity: memory 7577Mi, 58 pods, 100Gi storage.
  CHECK(m5->capacity.pods() == 58);
  CHECK(m5->capacity.ephemeral_storage() == 100 * kGi);
  CHECK(m5->overhead.kube_reserved.cpu() == 200);
  CHECK(m5->overhead.kube_reserved.memory() == 1 * kGi);
  CHECK(m5->overhead.system_reserved.memory() == 200 * kMi);
  CHECK(m5->overhead.eviction_threshold.memory() ==
        static_cast<int64_t>(std::ceil(7577.0 * kMi * 5 / 100)));
  CHECK(m5->overhead.eviction_threshold.ephemeral_storage() == 15 * kGi);
  CHECK(m5->Allocatable().cpu() == 2000 - 200);

  // Bottlerocket keeps ephemeral storage on /dev/xvdb; a root-volume mapping is not it unless
  // marked rootVolume.
  Ec2NodeClass br = nc;
  br.ami_selector_terms = {testing::AliasTerm("bottlerocket@latest")};
  br.block_device_mappings = {testing::Volume("/dev/xvdb", 60 * kGi)};
  options = CatalogOptionsFor(br, AwsCatalogOptions{});
  REQUIRE(options.ok());
  CHECK(options->ami_family == AwsAmiFamily::kBottlerocket);
  CHECK(options->ephemeral_volume_bytes == 60 * kGi);

  // The reference's rules (karp/node_class_catalog.h): a rootVolume mapping without a size
  // falls through to the family's device; Custom takes the last mapping's size; evictionSoft
  // does not reduce allocatable.
  Ec2NodeClass fall = nc;
  fall.block_device_mappings = {testing::Volume("/dev/sdf", 0),
                                testing::Volume("/dev/xvda", 80 * kGi)};
  fall.block_device_mappings[0].root_volume = true;
  fall.block_device_mappings[0].ebs.volume_size.reset();
  options = CatalogOptionsFor(fall, AwsCatalogOptions{});
  REQUIRE(options.ok());
  CHECK(options->ephemeral_volume_bytes == 80 * kGi);
  Ec2NodeClass custom = nc;
  custom.ami_selector_terms = {testing::AmiIdTerm("ami-1")};
  custom.ami_family = AwsAmiFamily::kCustom;
  custom.block_device_mappings = {testing::Volume("/dev/xvda", 80 * kGi),
                                  testing::Volume("/dev/xvdb", 30 * kGi)};
  options = CatalogOptionsFor(custom, AwsCatalogOptions{});
  REQUIRE(options.ok());
  CHECK(options->ephemeral_volume_bytes == 30 * kGi);
  Ec2NodeClass soft = nc;
  soft.kubelet.eviction_soft = {{"memory.available", "3Gi"}};
  soft.kubelet.eviction_soft_grace_period = {{"memory.available", "1m"}};
  options = CatalogOptionsFor(soft, AwsCatalogOptions{});
  REQUIRE(options.ok());
  CHECK(options->eviction_hard == std::map<std::string, std::string, std::less<>>{
                                      {"memory.available", "5%"}, {"nodefs.available", "15%"}});
}

TEST_CASE("the static hash changes with static fields only", "[ec2nodeclass]") {
  const Ec2NodeClass nc = MustParse(kValid)[0];
  const std::string h = Ec2NodeClassHash(nc);
  CHECK(h == Ec2NodeClassHash(MustParse(kValid)[0]));
  CHECK(h.find_first_not_of("0123456789") == std::string::npos);

  Ec2NodeClass selectors = nc;
  selectors.subnet_selector_terms.push_back(testing::SubnetId("subnet-9"));
  selectors.security_group_selector_terms.push_back(testing::GroupId("sg-9"));
  CHECK(Ec2NodeClassHash(selectors) == h);  // selector terms are not static

  for (auto mutate : std::vector<void (*)(Ec2NodeClass*)>{
           [](Ec2NodeClass* c) { c->tags["team"] = "api"; },
           [](Ec2NodeClass* c) { c->user_data = "#!/bin/bash\n"; },
           [](Ec2NodeClass* c) { c->kubelet.max_pods = 59; },
           [](Ec2NodeClass* c) { c->metadata_options.http_tokens = "optional"; },
           [](Ec2NodeClass* c) { c->block_device_mappings[0].ebs.volume_size = 1; },
           [](Ec2NodeClass* c) { c->detailed_monitoring = false; },
           [](Ec2NodeClass* c) { c->associate_public_ip_address.reset(); },
           [](Ec2NodeClass* c) {
             c->ami_selector_terms = {testing::AliasTerm("bottlerocket@latest")};
           },
       }) {
    Ec2NodeClass changed = nc;
    mutate(&changed);
    CHECK(Ec2NodeClassHash(changed) != h);
  }
}

TEST_CASE("tags carry the cluster, pool, class and claim and reject restricted keys",
          "[ec2nodeclass]") {
  Ec2NodeClass nc = MustParse(kValid)[0];
  absl::StatusOr<std::map<std::string, std::string>> tags = Ec2Tags(nc, "prod", "web", "web-1");
  REQUIRE(tags.ok());
  CHECK(*tags == std::map<std::string, std::string>{{"eks:eks-cluster-name", "prod"},
                                                    {"karpenter.k8s.aws/ec2nodeclass", "default"},
                                                    {"karpenter.sh/nodeclaim", "web-1"},
                                                    {"karpenter.sh/nodepool", "web"},
                                                    {"kubernetes.io/cluster/prod", "owned"},
                                                    {"team", "web"}});
  CHECK(Ec2Tags(nc, "prod", "web", "")->count("karpenter.sh/nodeclaim") == 0);
  CHECK_FALSE(Ec2Tags(nc, "", "web", "").ok());
  nc.tags["karpenter.sh/nodeclaim"] = "mine";
  absl::StatusOr<std::map<std::string, std::string>> bad = Ec2Tags(nc, "prod", "web", "");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(std::string(bad.status().message()),
             Catch::Contains("spec.tags.karpenter.sh/nodeclaim"));
}

// ---- Status decisions and drift

InstanceType TypeWith(const std::string& name, const std::string& arch, int gpus = 0) {
  std::map<std::string, std::string> labels = {{"kubernetes.io/arch", arch}};
  ResourceList capacity{{"cpu", 2000}, {"pods", 29}};
  if (gpus > 0) capacity.Set("nvidia.com/gpu", gpus);
  return InstanceType::Make(name, labels, capacity, {}, {});
}

Ec2NodeClassStatus SampleStatus() {
  Ec2NodeClassStatus s;
  s.subnets = {{"subnet-b", "us-east-1a", "use1-az1", 100},
               {"subnet-a", "us-east-1a", "use1-az1", 100},
               {"subnet-c", "us-east-1a", "use1-az1", 5000},
               {"subnet-d", "us-east-1b", "use1-az2", 10}};
  s.security_groups = {{"sg-2", "b"}, {"sg-1", "a"}, {"sg-1", "a"}};
  s.amis = NormalizeAmis({
      {"ami-old", "al2023-1", "amd64", "2024-01-01T00:00:00.000Z", false, AmiVariant::kStandard},
      {"ami-new", "al2023-2", "amd64", "2024-06-01T00:00:00.000Z", false, AmiVariant::kStandard},
      {"ami-newest-deprecated", "al2023-3", "amd64", "2024-09-01T00:00:00.000Z", true,
       AmiVariant::kStandard},
      {"ami-arm", "al2023-arm", "arm64", "2024-05-01T00:00:00.000Z", false, AmiVariant::kStandard},
      {"ami-gpu", "al2023-gpu", "amd64", "2024-02-01T00:00:00.000Z", false, AmiVariant::kNvidia},
  });
  NormalizeSubnetsAndGroups(&s);
  return s;
}

TEST_CASE("one subnet per zone, the newest AMI per architecture and variant", "[ec2nodeclass]") {
  const Ec2NodeClassStatus s = SampleStatus();
  std::map<std::string, ResolvedSubnet> per_zone = SubnetPerZone(s);
  REQUIRE(per_zone.size() == 2);
  CHECK(per_zone.at("us-east-1a").id == "subnet-c");
  CHECK(per_zone.at("us-east-1b").id == "subnet-d");
  // Ties on IPs go to the smaller id.
  Ec2NodeClassStatus tie;
  tie.subnets = {{"subnet-b", "z", "", 7}, {"subnet-a", "z", "", 7}};
  CHECK(SubnetPerZone(tie).at("z").id == "subnet-a");

  REQUIRE(s.security_groups.size() == 2);
  CHECK(s.security_groups[0].id == "sg-1");
  // Non-deprecated beats deprecated, then newest: ami-new for amd64 standard.
  REQUIRE(s.amis.size() == 3);
  CHECK(s.amis[0].id == "ami-new");
  CHECK(s.amis[1].id == "ami-arm");
  CHECK(s.amis[2].id == "ami-gpu");
  CHECK(AmiFor(s, TypeWith("m5.large", "amd64"))->id == "ami-new");
  CHECK(AmiFor(s, TypeWith("m7g.large", "arm64"))->id == "ami-arm");
  CHECK(AmiFor(s, TypeWith("g5.xlarge", "amd64", 1))->id == "ami-gpu");
  // No arm64 GPU image: the type is left out.
  std::vector<InstanceType> kept =
      TypesWithAmi({TypeWith("m5.large", "amd64"), TypeWith("g5g.xlarge", "arm64", 1)}, s);
  REQUIRE(kept.size() == 1);
  CHECK(kept[0].name == "m5.large");
  // Input order does not matter.
  const Ec2NodeClassStatus sample = SampleStatus();
  std::vector<ResolvedAmi> reversed(sample.amis.rbegin(), sample.amis.rend());
  CHECK(NormalizeAmis(reversed) == s.amis);
}

TEST_CASE("NodeClass drift reports each cause, static hash first", "[ec2nodeclass]") {
  const Ec2NodeClass nc = MustParse(kValid)[0];
  const Ec2NodeClassStatus s = SampleStatus();
  const InstanceType m5 = TypeWith("m5.large", "amd64");
  NodeClaim claim;
  claim.image_id = "ami-new";
  claim.metadata.annotations = {
      {std::string(kAnnotationEc2NodeClassHash), Ec2NodeClassHash(nc)},
      {std::string(kAnnotationEc2NodeClassHashVersion), std::string(kEc2NodeClassHashVersion)}};
  const InstanceNetwork ok{"subnet-d", {"sg-2", "sg-1"}};
  CHECK(NodeClassDriftReason(nc, s, claim, &m5, ok).empty());

  Ec2NodeClass changed = nc;
  changed.tags["team"] = "api";
  CHECK(NodeClassDriftReason(changed, s, claim, &m5, ok) == "NodeClassDrift");
  // Another controller's hash version is not compared.
  NodeClaim foreign = claim;
  foreign.metadata.annotations[std::string(kAnnotationEc2NodeClassHashVersion)] = "v6";
  CHECK(NodeClassDriftReason(changed, s, foreign, &m5, ok).empty());

  NodeClaim old_image = claim;
  old_image.image_id = "ami-old";
  CHECK(NodeClassDriftReason(nc, s, old_image, &m5, ok) == "AMIDrift");
  CHECK(NodeClassDriftReason(nc, s, old_image, nullptr, ok).empty());  // type unknown

  CHECK(NodeClassDriftReason(nc, s, claim, &m5, {"subnet-d", {"sg-1"}}) == "SecurityGroupDrift");
  CHECK(NodeClassDriftReason(nc, s, claim, &m5, {"subnet-d", {"sg-1", "sg-2", "sg-3"}}) ==
        "SecurityGroupDrift");
  CHECK(NodeClassDriftReason(nc, s, claim, &m5, {"subnet-zzz", {"sg-1", "sg-2"}}) == "SubnetDrift");
  // First hit wins.
  CHECK(NodeClassDriftReason(changed, s, old_image, &m5, {"subnet-zzz", {}}) == "NodeClassDrift");
}

}  // namespace
}  // namespace karp::aws
