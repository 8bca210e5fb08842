// Tests of the older-API conversion (karp/json/convert.h, docs/older-apis.md): the walkthrough
// pair of examples/older-api solving byte for byte as its hand-converted v1 pair, `karp convert`
// round trips, and the field rules of each kind (v1alpha5 Provisioner, v1alpha1 AWSNodeTemplate,
// v1beta1 NodePool, NodeClaim, EC2NodeClass), errors and warnings included.

#include "karp/json/convert.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/aws_catalog.h"
#include "karp/json/codec.h"
#include "karp/scheduler.h"
#include "support/snapshot_checks.h"
#include "support/source_dir.h"

namespace {

using karp::ClusterSnapshot;
using karp::json::Conversion;
using karp::json::ConvertFormat;
using karp::testing::MustParse;
using karp::testing::ParseError;

const std::string kExamples = karp::testing::SourceDir() + "/examples/older-api/";

Conversion MustConvert(const std::string& text, ConvertFormat format = ConvertFormat::kYaml) {
  absl::StatusOr<Conversion> c = karp::json::ConvertText(text, "old.yaml", format);
  INFO(c.status().message());
  REQUIRE(c.ok());
  return *std::move(c);
}

std::string ConvertError(const std::string& text) {
  absl::StatusOr<Conversion> c = karp::json::ConvertText(text, "old.yaml", ConvertFormat::kYaml);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(c.status().message());
}

bool Contains(const std::string& haystack, const std::string& needle) {
  INFO(haystack);
  INFO(needle);
  return haystack.find(needle) != std::string::npos;
}

bool AnyContains(const std::vector<std::string>& lines, const std::string& needle) {
  for (const std::string& l : lines) {
    if (l.find(needle) != std::string::npos) return true;
  }
  return false;
}

std::string SolveJson(const ClusterSnapshot& snap) {
  absl::StatusOr<karp::InstanceCatalog> catalog = karp::EmbeddedAwsCatalog();
  REQUIRE(catalog.ok());
  absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(
      snap, std::make_shared<const karp::InstanceCatalog>(std::move(*catalog)));
  REQUIRE(s.ok());
  absl::StatusOr<karp::SolveResult> r = s->Solve();
  REQUIRE(r.ok());
  return karp::json::WriteSolveResult(*r, snap.skipped_objects);
}

constexpr char kProvisionerHead[] = R"(apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  providerRef:
    name: default
)";

TEST_CASE("older API: the walkthrough Provisioner and AWSNodeTemplate solve as their v1 pair",
          "[convert]") {
  absl::StatusOr<ClusterSnapshot> old_snap =
      karp::json::ReadSnapshotFiles({kExamples + "provisioner.yaml", kExamples + "pods.yaml"});
  INFO(old_snap.status().message());
  REQUIRE(old_snap.ok());
  absl::StatusOr<ClusterSnapshot> v1_snap =
      karp::json::ReadSnapshotFiles({kExamples + "nodepool.yaml", kExamples + "pods.yaml"});
  REQUIRE(v1_snap.ok());
  REQUIRE(old_snap->node_pools.size() == 1);
  CHECK(old_snap->node_pools == v1_snap->node_pools);
  const std::string old_result = SolveJson(*old_snap);
  CHECK(old_result == SolveJson(*v1_snap));  // byte for byte
  // Not a trivial result: a claim for four pods, and the arm64 pod ruled out by the
  // Provisioner's defaulted arch requirement.
  CHECK(Contains(old_result, R"("scheduled": 4)"));
  CHECK(Contains(old_result, "default/arm-job"));
  // The node classes are read, the AWSNodeTemplate as its v1 form: the same settings as the
  // hand-converted EC2NodeClass (al2 alias, the Provisioner's kubelet maxPods).
  CHECK(old_snap->skipped.empty());
  CHECK(v1_snap->skipped.empty());
  REQUIRE(old_snap->node_classes.size() == 1);
  REQUIRE(v1_snap->node_classes.size() == 1);
  karp::NodeClass converted = old_snap->node_classes[0];
  converted.metadata = v1_snap->node_classes[0].metadata;
  CHECK(converted == v1_snap->node_classes[0]);
  CHECK(converted.ami_alias == "al2@latest");
  CHECK(converted.kubelet.max_pods == 110);
}

TEST_CASE(
    "older API: karp convert writes the hand-converted v1 objects, and its output round trips",
    "[convert]") {
  for (ConvertFormat format : {ConvertFormat::kJson, ConvertFormat::kYaml}) {
    absl::StatusOr<Conversion> old =
        karp::json::ConvertFiles({kExamples + "provisioner.yaml"}, format);
    REQUIRE(old.ok());
    absl::StatusOr<Conversion> hand =
        karp::json::ConvertFiles({kExamples + "nodepool.yaml"}, format);
    REQUIRE(hand.ok());
    CHECK(old->converted == 2);
    CHECK(hand->passed_through == 2);
    CHECK(old->output == hand->output);  // the same objects, written the same way
    CHECK(old->warnings.empty());
    // Converting the output again changes nothing (v1 objects pass through unchanged).
    CHECK(MustConvert(old->output, format).output == old->output);
    // The output reads back as the snapshot the old objects give.
    ClusterSnapshot from_output = MustParse(old->output);
    absl::StatusOr<ClusterSnapshot> from_old =
        karp::json::ReadSnapshotFiles({kExamples + "provisioner.yaml"});
    REQUIRE(from_old.ok());
    CHECK(from_output.node_pools == from_old->node_pools);
  }
}

TEST_CASE("older API: Provisioner disruption fields", "[convert]") {
  SECTION(
      "ttlSecondsAfterEmpty is WhenEmpty with consolidateAfter; no ttlSecondsUntilExpired "
      "is Never") {
    ClusterSnapshot snap =
        MustParse(std::string(kProvisionerHead) + "  ttlSecondsAfterEmpty: 90\n");
    REQUIRE(snap.node_pools.size() == 1);
    const karp::NodePool& np = snap.node_pools[0];
    CHECK(np.consolidation_policy == karp::ConsolidationPolicy::kWhenEmpty);
    CHECK(np.consolidate_after == absl::Seconds(90));
    CHECK_FALSE(np.expire_after.has_value());
    CHECK(snap.warnings.empty());
  }
  SECTION("consolidation.enabled is WhenEmptyOrUnderutilized after 0s; expiry in the template") {
    Conversion c = MustConvert(std::string(kProvisionerHead) +
                               "  consolidation: {enabled: true}\n  ttlSecondsUntilExpired: 3600\n"
                               "  ttlSecondsAfterEmpty: 30\n");
    CHECK(Contains(c.output,
                   "consolidateAfter: 0s\n    consolidationPolicy: WhenEmptyOrUnderutilized"));
    CHECK(Contains(c.output, "      expireAfter: 1h\n"));
    CHECK(AnyContains(c.warnings, "old.yaml: spec.ttlSecondsAfterEmpty: dropped"));
  }
  SECTION("neither is set: the reference's default, with a warning") {
    ClusterSnapshot snap = MustParse(kProvisionerHead);
    CHECK(snap.node_pools[0].consolidation_policy ==
          karp::ConsolidationPolicy::kWhenEmptyOrUnderutilized);
    CHECK(
        AnyContains(snap.warnings, "spec: neither consolidation.enabled nor ttlSecondsAfterEmpty"));
  }
  SECTION("wrong types and ranges name the field") {
    CHECK(ParseError(std::string(kProvisionerHead) + "  ttlSecondsAfterEmpty: 30s\n") ==
          "objects.json: spec.ttlSecondsAfterEmpty: expected an integer, got a string");
    CHECK(ParseError(std::string(kProvisionerHead) + "  ttlSecondsUntilExpired: -1\n") ==
          "objects.json: spec.ttlSecondsUntilExpired: must be between 0 and 9223372036 seconds");
    CHECK(ParseError(std::string(kProvisionerHead) + "  consolidation: {enabled: yes}\n") ==
          "objects.json: spec.consolidation.enabled: expected a boolean, got a string");
  }
}

TEST_CASE("older API: Provisioner requirements, labels, limits and weight", "[convert]") {
  SECTION("the defaults of the reference's Provisioner webhook fill what is missing") {
    ClusterSnapshot snap = MustParse(std::string(kProvisionerHead) + R"(  requirements:
    - {key: beta.kubernetes.io/arch, operator: In, values: [arm64]}
    - {key: node.kubernetes.io/instance-type, operator: In, values: [m6g.large]}
  labels: {team: a}
  annotations: {owner: b}
  limits: {resources: {cpu: "16", memory: 64Gi}}
  weight: 7
  taints: [{key: dedicated, value: a, effect: NoSchedule}]
  startupTaints: [{key: warming, effect: NoExecute}]
)");
    const karp::NodePool& np = snap.node_pools[0];
    REQUIRE(np.requirements.size() == 4);  // the two given, then os and capacity type
    CHECK(np.requirements[2].key == "kubernetes.io/os");
    CHECK(np.requirements[3].key == "karpenter.sh/capacity-type");
    CHECK(np.requirements[3].values == std::vector<std::string>{"on-demand"});
    CHECK(np.template_labels.at("team") == "a");
    CHECK(np.template_annotations.at("owner") == "b");
    CHECK(np.limits.Get("cpu") == 16000);
    CHECK(np.weight == 7);
    REQUIRE(np.taints.size() == 1);
    CHECK(np.startup_taints.size() == 1);
    CHECK(np.node_class_ref.kind == "EC2NodeClass");
    CHECK(np.node_class_ref.group == "karpenter.k8s.aws");
  }
  SECTION("with nothing given: os, arch, on-demand and categories c, m, r of generation > 2") {
    ClusterSnapshot snap = MustParse(kProvisionerHead);
    const auto& reqs = snap.node_pools[0].requirements;
    REQUIRE(reqs.size() == 5);
    CHECK(reqs[3].key == "karpenter.k8s.aws/instance-category");
    CHECK(reqs[4].op == karp::Operator::kGt);
  }
  SECTION("a converted NodePool breaking a v1 rule is reported as converted") {
    CHECK(ParseError(std::string(kProvisionerHead) + "  weight: 1000\n") ==
          "objects.json: as converted to karpenter.sh/v1 NodePool: spec.weight: must be between "
          "1 and 100, got 1000");
  }
  SECTION("unknown fields are errors, or warnings, never silent") {
    const std::string text = std::string(kProvisionerHead) + "  tmpfs: true\n  wieght: 3\n";
    CHECK(ParseError(text) == "objects.json: spec.tmpfs: unknown field");
    ClusterSnapshot warned = MustParse(text, "objects.json", karp::json::FieldValidation::kWarn);
    CHECK(AnyContains(warned.warnings, "objects.json: spec.tmpfs: unknown field (ignored)"));
    CHECK(AnyContains(warned.warnings,
                      "objects.json: spec.wieght: unknown field; did you mean weight? (ignored)"));
    // Not checked against the schema: the conversion still says what it dropped.
    ClusterSnapshot ignored = MustParse(text, "objects.json", karp::json::FieldValidation::kIgnore);
    CHECK(AnyContains(ignored.warnings, "objects.json: spec.wieght: not a field of"));
    CHECK(AnyContains(ignored.warnings,
                      "objects.json: spec.tmpfs: not a field of a v1alpha5 Provisioner; dropped"));
  }
}

TEST_CASE("older API: providers, kubelet settings and node classes", "[convert]") {
  SECTION("an inline provider becomes an EC2NodeClass named after the Provisioner") {
    Conversion c = MustConvert(R"(apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: gpu}
spec:
  provider:
    amiFamily: Bottlerocket
    subnetSelector: {aws::ids: "subnet-1, subnet-2"}
    securityGroupSelector: {"karpenter.sh/discovery": "c1,c2", team: x}
)");
    CHECK(Contains(c.output, "        kind: EC2NodeClass\n        name: gpu\n"));
    CHECK(Contains(c.output, "kind: EC2NodeClass\nmetadata:\n  name: gpu\n"));
    CHECK(Contains(c.output, "  amiSelectorTerms:\n    - alias: bottlerocket@latest\n"));
    CHECK(Contains(c.output, "  subnetSelectorTerms:\n    - id: subnet-1\n    - id: subnet-2\n"));
    CHECK(
        Contains(c.output,
                 "  securityGroupSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: c1\n"
                 "        team: x\n    - tags:\n        karpenter.sh/discovery: c2\n"));
    CHECK(Contains(c.output, "  role: $KARPENTER_NODE_ROLE\n"));
    CHECK(AnyContains(c.warnings, "spec.provider.instanceProfile: not set"));
  }
  SECTION("what has no v1 equivalent is an error naming the field") {
    CHECK(ConvertError(std::string(kProvisionerHead) + "  provider: {amiFamily: AL2}\n") ==
          "old.yaml: spec.provider: cannot be combined with spec.providerRef");
    const std::string tmpl =
        "apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\n"
        "metadata: {name: t}\nspec:\n";
    CHECK(ConvertError(tmpl + "  launchTemplate: my-template\n") ==
          "old.yaml: spec.launchTemplate: has no v1 equivalent: v1 launches from launch templates "
          "it generates");
    CHECK(Contains(ConvertError(tmpl + "  subnetSelector: {aws::ids: s-1, Name: x}\n"),
                   "old.yaml: spec.subnetSelector: aws::ids cannot be combined with other keys"));
    CHECK(Contains(ConvertError(tmpl + "  amiFamily: Ubuntu\n"),
                   "old.yaml: spec.amiFamily: Ubuntu without AMI selectors has no v1 equivalent"));
    // Comma lists multiply the terms; hostile input is stopped, not expanded.
    CHECK(ConvertError(tmpl +
                       "  subnetSelector: {a: \"0,1,2,3,4,5,6,7,8,9\", b: \"0,1,2,3,4,5,6,7,8,9\", "
                       "c: \"0,1,2,3,4,5,6,7,8,9\", d: \"0,1\"}\n") ==
          "old.yaml: spec.subnetSelector: expands to more than 1000 selector terms");
    CHECK(ConvertError(tmpl + "  amiFamily: Debian\n") ==
          "old.yaml: spec.amiFamily: unsupported amiFamily \"Debian\"");
  }
  SECTION("AMI selectors: names and owners multiply; Ubuntu with selectors is AL2") {
    Conversion c = MustConvert(R"(apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: t}
spec:
  amiFamily: Ubuntu
  instanceProfile: p
  amiSelector: {aws::name: "a,b", aws::owners: "self,amazon"}
)");
    CHECK(Contains(c.output, "  amiFamily: AL2\n"));
    CHECK(Contains(c.output,
                   "  amiSelectorTerms:\n    - name: a\n      owner: self\n    - name: b\n"
                   "      owner: self\n    - name: a\n      owner: amazon\n"));
    CHECK(Contains(c.output,
                   "compatibility.karpenter.sh/v1beta1-ubuntu: amiFamily,blockDeviceMappings"));
    CHECK(Contains(c.output, "deviceName: /dev/sda1"));
  }
  SECTION("kubelet settings move to the converted EC2NodeClass; containerRuntime is dropped") {
    Conversion c =
        MustConvert(std::string(kProvisionerHead) +
                    "  kubeletConfiguration: {maxPods: 20, containerRuntime: dockerd}\n"
                    "---\napiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\n"
                    "metadata: {name: default}\nspec: {instanceProfile: p}\n");
    CHECK(Contains(c.output, "  kubelet:\n    maxPods: 20\n"));
    CHECK_FALSE(Contains(c.output, "v1beta1-kubelet-conversion"));
    CHECK(AnyContains(c.warnings, "spec.kubeletConfiguration.containerRuntime: dropped"));
  }
  SECTION("without the EC2NodeClass, or with other settings there, they stay in the annotation") {
    Conversion c =
        MustConvert(std::string(kProvisionerHead) + "  kubeletConfiguration: {maxPods: 20}\n");
    CHECK(Contains(c.output,
                   R"(compatibility.karpenter.sh/v1beta1-kubelet-conversion: "{\"maxPods\":20}")"));
    CHECK(AnyContains(c.warnings, "kubelet settings kept in annotation"));
    Conversion two =
        MustConvert(std::string(kProvisionerHead) + R"(  kubeletConfiguration: {maxPods: 20}
---
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: other}
spec:
  providerRef: {name: default}
  kubeletConfiguration: {maxPods: 30}
---
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: default}
spec: {instanceProfile: p}
)");
    CHECK(Contains(two.output, "  kubelet:\n    maxPods: 20\n"));
    CHECK(Contains(two.output, R"("{\"maxPods\":30}")"));
    CHECK(AnyContains(two.warnings, "documents[1]: kubelet settings differ"));
  }
}

TEST_CASE("older API: v1beta1 NodePool, NodeClaim and EC2NodeClass", "[convert]") {
  const std::string pool = R"(apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: beta}
spec:
  template:
    metadata: {labels: {team: b}}
    spec:
      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, name: nc}
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot], minValues: 1}]
      kubelet: {podsPerCore: 2}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5m
    expireAfter: 48h
    budgets: [{nodes: "0", schedule: "0 9 * * *", duration: 8h}, {nodes: "2"}]
  limits: {cpu: "100"}
  weight: 3
)";
  SECTION("disruption, expiry, budgets and the nodeClassRef group") {
    ClusterSnapshot snap = MustParse(pool);
    REQUIRE(snap.node_pools.size() == 1);
    const karp::NodePool& np = snap.node_pools[0];
    CHECK(np.consolidation_policy == karp::ConsolidationPolicy::kWhenEmpty);
    CHECK(np.consolidate_after == absl::Minutes(5));
    CHECK(np.expire_after == absl::Hours(48));
    REQUIRE(np.budgets.size() == 2);
    CHECK(np.budgets[0].schedule == "0 9 * * *");
    CHECK(np.budgets[0].duration == absl::Hours(8));
    CHECK(np.requirements[0].min_values == 1);
    CHECK(np.node_class_ref.group == "karpenter.k8s.aws");
    CHECK(np.node_class_ref.kind == "EC2NodeClass");
    CHECK(np.weight == 3);
    CHECK(np.metadata.annotations.count("compatibility.karpenter.sh/v1beta1-kubelet-conversion") ==
          1);
  }
  SECTION("WhenUnderutilized is WhenEmptyOrUnderutilized after 0s; expireAfter defaults to 720h") {
    ClusterSnapshot snap = MustParse(
        "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\n"
        "metadata: {name: u}\nspec:\n  template:\n    spec:\n"
        "      nodeClassRef: {name: nc}\n");
    const karp::NodePool& np = snap.node_pools[0];
    CHECK(np.consolidation_policy == karp::ConsolidationPolicy::kWhenEmptyOrUnderutilized);
    CHECK(np.consolidate_after == absl::ZeroDuration());
    CHECK(np.expire_after == absl::Hours(720));
    REQUIRE(np.budgets.size() == 1);
    CHECK(np.budgets[0].nodes == "10%");
  }
  SECTION("WhenEmpty needs consolidateAfter; unknown policies are errors") {
    const std::string head =
        "apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: e}\n"
        "spec:\n  disruption:\n";
    CHECK(ParseError(head + "    consolidationPolicy: WhenEmpty\n") ==
          "objects.json: spec.disruption.consolidateAfter: required with consolidationPolicy "
          "WhenEmpty");
    CHECK(ParseError(head + "    consolidationPolicy: Sometimes\n") ==
          "objects.json: spec.disruption.consolidationPolicy: unsupported v1beta1 "
          "consolidationPolicy \"Sometimes\"; expected WhenEmpty or WhenUnderutilized");
  }
  SECTION("a v1beta1 NodeClaim takes its NodePool's expireAfter, converted or v1") {
    const std::string claim = R"(---
apiVersion: karpenter.sh/v1beta1
kind: NodeClaim
metadata: {name: beta-x1, labels: {karpenter.sh/nodepool: POOL}}
spec:
  nodeClassRef: {name: nc, kind: EC2NodeClass}
  requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]
  kubelet: {maxPods: 8}
status: {nodeName: ip-1, providerID: "aws:///us-east-1a/i-1"}
)";
    std::string text = pool + claim;
    text.replace(text.find("POOL"), 4, "beta");
    ClusterSnapshot snap = MustParse(text);
    REQUIRE(snap.node_claims.size() == 1);
    CHECK(snap.node_claims[0].expire_after == absl::Hours(48));
    CHECK(snap.node_claims[0].node_name == "ip-1");
    CHECK(snap.node_claims[0].metadata.annotations.count(
              "compatibility.karpenter.sh/v1beta1-kubelet-conversion") == 1);
    std::string native =
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: v1pool}\n"
        "spec:\n  template:\n    spec:\n      expireAfter: Never\n" +
        claim;
    native.replace(native.find("POOL"), 4, "v1pool");
    CHECK_FALSE(MustParse(native).node_claims[0].expire_after.has_value());
    std::string missing = claim.substr(4);
    missing.replace(missing.find("POOL"), 4, "gone");
    Conversion c = MustConvert(missing);
    CHECK(AnyContains(c.warnings, "NodePool \"gone\" is not in the input"));
  }
  SECTION("a v1beta1 EC2NodeClass: alias from amiFamily and the alias version annotation") {
    Conversion c = MustConvert(R"(apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata:
  name: nc
  annotations: {compatibility.karpenter.sh/v1-alias-version: v20240807}
spec:
  amiFamily: AL2023
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{id: sg-1}]
)");
    CHECK(Contains(c.output, "  amiSelectorTerms:\n    - alias: al2023@v20240807\n"));
    CHECK_FALSE(Contains(c.output, "v1-alias-version"));
    CHECK_FALSE(Contains(c.output, "amiFamily"));
    Conversion custom = MustConvert(
        "apiVersion: karpenter.k8s.aws/v1beta1\nkind: EC2NodeClass\n"
        "metadata: {name: c}\nspec:\n  amiFamily: Custom\n"
        "  amiSelectorTerms: [{id: ami-1}]\n");
    CHECK(Contains(custom.output, "  amiFamily: Custom\n  amiSelectorTerms:\n    - id: ami-1\n"));
    CHECK(custom.warnings.empty());
    Conversion unset = MustConvert(
        "apiVersion: karpenter.k8s.aws/v1beta1\nkind: EC2NodeClass\nmetadata: {name: u}\nspec: "
        "{}\n");
    CHECK(Contains(unset.output, "  amiFamily: Custom\n"));
    CHECK(unset.warnings ==
          std::vector<std::string>{
              "old.yaml: spec.amiFamily: not set; Custom, as the reference's webhook converts it"});
  }
}

TEST_CASE("older API: skipped objects are named, never silent", "[convert]") {
  ClusterSnapshot snap = MustParse(R"(apiVersion: karpenter.sh/v1alpha4
kind: Provisioner
metadata: {name: default}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web, namespace: shop}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {schedulerName: other}
)");
  CHECK(snap.skipped_objects == 3);
  CHECK(snap.skipped == std::vector<std::string>{
                            "karpenter.sh/v1alpha4 Provisioner default (not a kind karp reads)",
                            "v1 ConfigMap shop/web (not a kind karp reads)",
                            "v1 Pod p (schedulerName \"other\" is not karp's)"});
  Conversion c = MustConvert("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n");
  CHECK(c.output.empty());
  CHECK(c.skipped == std::vector<std::string>{"v1 ConfigMap cm (not a kind karp converts)"});
}

TEST_CASE("older API: YAML output quotes what would read back as another type", "[convert]") {
  Conversion c = MustConvert(R"(apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: t}
spec:
  instanceProfile: p
  tags: {"on": "yes", n: "1e3", empty: "", hex: "0x1F"}
  userData: "line one\n  line two\n"
)");
  CHECK(Contains(c.output,
                 "    empty: \"\"\n    hex: \"0x1F\"\n    \"n\": \"1e3\"\n    \"on\": \"yes\"\n"));
  CHECK(Contains(c.output, "  userData: |\n    line one\n      line two\n"));
  // Whatever the quoting, the YAML reads back to the same objects as the JSON output.
  CHECK(MustConvert(c.output, ConvertFormat::kJson).output ==
        MustConvert(R"(apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: t}
spec:
  instanceProfile: p
  tags: {"on": "yes", n: "1e3", empty: "", hex: "0x1F"}
  userData: "line one\n  line two\n"
)",
                    ConvertFormat::kJson)
            .output);
}

TEST_CASE("older API: a node class converts only to an EC2NodeClass karp reads back", "[convert]") {
  // The v1 EC2NodeClass is read by name: a nameless AWSNodeTemplate is an error, not an
  // unnamed object.
  CHECK(ConvertError("apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\n"
                     "spec: {amiFamily: AL2}\n") == "old.yaml: metadata.name: required");
  CHECK(ConvertError("apiVersion: karpenter.k8s.aws/v1beta1\nkind: EC2NodeClass\n"
                     "metadata: {labels: {a: b}}\nspec: {amiFamily: AL2}\n") ==
        "old.yaml: metadata.name: required");
  // A kubelet setting the v1 EC2NodeClass refuses is refused when converting, too.
  const std::string error = ConvertError(R"(apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec:
  providerRef: {name: default}
  kubeletConfiguration:
    evictionHard: {memoQy.available: 5%}
---
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: default}
spec: {amiFamily: AL2}
)");
  CHECK(Contains(error, "as converted to karpenter.k8s.aws/v1 EC2NodeClass"));
  CHECK(Contains(error, "spec.kubelet.evictionHard.memoQy.available: unsupported eviction signal"));
}

TEST_CASE("karp convert reads a List item by item and checks fields against the old schemas",
          "[convert]") {
  const std::string provisioner =
      R"({"apiVersion": "karpenter.sh/v1alpha5", "kind": "Provisioner",
          "metadata": {"name": "default"}, "spec": {"providerRef": {"name": "default"}}})";
  const std::string pod = R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p",
      "namespace": "ns"}, "spec": {"containers": [{"name": "c", "image": "x"}]}})";
  // A JSON List (streamed), the same objects as YAML documents (one at a time) and as one
  // YAML List convert alike; the pod is skipped and named.
  const std::string list =
      R"({"apiVersion": "v1", "kind": "List", "items": [)" + pod + ", " + provisioner + "]}";
  Conversion from_json = MustConvert(list);
  Conversion from_docs = MustConvert("---\n" + pod + "\n---\n" + provisioner + "\n");
  Conversion from_yaml_list = MustConvert("---\n" + list);
  CHECK(from_json.output == from_docs.output);
  CHECK(from_json.output == from_yaml_list.output);
  CHECK(from_json.converted == 1);
  REQUIRE(from_json.skipped.size() == 1);
  CHECK(from_json.skipped[0] == "v1 Pod ns/p (not a kind karp converts)");
  // Errors name the item, the List's own first.
  CHECK(ConvertError(R"({"apiVersion": "v1", "kind": "List", "items": [)" + pod + R"(,
      {"apiVersion": "karpenter.sh/v1alpha5", "kind": "Provisioner", "metadata": {"name": "d"},
       "spec": {"providerRef": {"name": "d"}, "ttlSecondAfterEmpty": 30}}]})") ==
        "old.yaml: items[1].spec.ttlSecondAfterEmpty: unknown field; did you mean "
        "ttlSecondsAfterEmpty?");
  CHECK(ConvertError(R"({"apiVersion": 5, "kind": "List", "items": [)" + provisioner + "]}") ==
        "old.yaml: apiVersion: expected a string, got a number");
}

}  // namespace
