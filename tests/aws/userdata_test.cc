// User data per AMI family against golden files in tests/aws/testdata/userdata/ (labels,
// taints, startup taints, max pods and kubelet settings present), merging with the user's own
// data, and errors. KARP_UPDATE_GOLDEN=1 rewrites the golden files (review the diff).

#include "aws/userdata.h"

#include <catch2/catch.hpp>

#include "nodeclass_test_util.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include "support/source_dir.h"

namespace karp::aws {
namespace {

const std::string kGoldenDir = karp::testing::SourceDir() + "/tests/aws/testdata/userdata/";

void CheckGolden(const std::string& name, const std::string& got) {
  const std::string path = kGoldenDir + name;
  if (const char* update = std::getenv("KARP_UPDATE_GOLDEN"); update && *update == '1') {
    std::ofstream(path, std::ios::binary) << got;
  }
  std::ifstream in(path, std::ios::binary);
  INFO(path);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(got == ss.str());
}

ClusterInfo Cluster() {
  return {"test-cluster", "https://test-cluster.example.com", "Y2EtYnVuZGxlCg==", "10.100.0.0/16",
          "10.100.0.10"};
}

NodePool Pool() {
  NodePool pool;
  pool.metadata.name = "default";
  pool.template_labels = {{"team", "web"},
                          {"kubernetes.io/os", "linux"},  // kubelet may not set it: dropped
                          {"node-restriction.kubernetes.io/tier", "gold"}};
  pool.requirements = {{"example.com/rack", Operator::kIn, {"r1"}, std::nullopt},
                       {"kubernetes.io/arch", Operator::kIn, {"amd64", "arm64"}, std::nullopt}};
  pool.taints = {{"dedicated", "web", TaintEffect::kNoSchedule}};
  pool.startup_taints = {{"example.com/agent-not-ready", "", TaintEffect::kNoExecute}};
  return pool;
}

Ec2NodeClass NodeClass(std::string alias) {
  Ec2NodeClass nc;
  nc.metadata.name = "default";
  nc.role = "NodeRole";
  nc.ami_selector_terms = {testing::AliasTerm(std::move(alias))};
  nc.subnet_selector_terms = {testing::SubnetId("subnet-1")};
  nc.security_group_selector_terms = {testing::GroupId("sg-1")};
  nc.kubelet.kube_reserved = {{"cpu", "200m"}, {"memory", "1Gi"}};
  nc.kubelet.eviction_hard = {{"memory.available", "5%"}};
  nc.kubelet.eviction_soft = {{"memory.available", "10%"}};
  nc.kubelet.eviction_soft_grace_period = {{"memory.available", "1m30s"}};
  return nc;
}

std::string Render(const Ec2NodeClass& nc, std::string_view capacity_type = "spot") {
  REQUIRE(ValidateEc2NodeClass(nc).ok());
  absl::StatusOr<std::string> out =
      RenderUserData(MakeBootstrapInput(nc, Pool(), capacity_type, Cluster(), 29));
  INFO(out.status().ToString());
  REQUIRE(out.ok());
  return *out;
}

TEST_CASE("AL2 user data runs bootstrap.sh with labels, taints and kubelet flags", "[userdata]") {
  const std::string out = Render(NodeClass("al2@latest"));
  CheckGolden("al2.golden", out);
  // The facts the golden file must hold, checked independently of it.
  CHECK_THAT(out, Catch::Contains("/etc/eks/bootstrap.sh 'test-cluster'"));
  CHECK_THAT(out, Catch::Contains("--node-labels=\"example.com/rack=r1,karpenter.k8s.aws/"
                                  "ec2nodeclass=default,karpenter.sh/capacity-type=spot,"
                                  "karpenter.sh/do-not-sync-taints=true,karpenter.sh/nodepool="
                                  "default,node-restriction.kubernetes.io/tier=gold,team=web\""));
  CHECK_THAT(out, Catch::Contains("--register-with-taints=\"dedicated=web:NoSchedule,"
                                  "example.com/agent-not-ready:NoExecute,"
                                  "karpenter.sh/unregistered:NoExecute\""));
  CHECK_THAT(out, Catch::Contains("--max-pods=29"));
  CHECK_THAT(out, Catch::Contains("--use-max-pods false"));
  CHECK_THAT(out, Catch::Contains("--eviction-hard=\"memory.available<5%\""));
  CHECK_THAT(out, !Catch::Contains("kubernetes.io/os"));

  // The user's script comes first in the MIME archive.
  Ec2NodeClass with_user = NodeClass("al2@latest");
  with_user.user_data = "#!/bin/bash\necho hello\n";
  const std::string merged = Render(with_user);
  CheckGolden("al2_merged.golden", merged);
  CHECK(merged.find("echo hello") < merged.find("/etc/eks/bootstrap.sh"));
}

TEST_CASE("AL2023 user data is a nodeadm NodeConfig merged after the user's parts", "[userdata]") {
  const std::string out = Render(NodeClass("al2023@latest"), "on-demand");
  CheckGolden("al2023.golden", out);
  CHECK_THAT(out, Catch::Contains("Content-Type: application/node.eks.aws"));
  CHECK_THAT(out, Catch::Contains("    cidr: 10.100.0.0/16\n"));
  CHECK_THAT(out, Catch::Contains("      maxPods: 29\n"));
  CHECK_THAT(out, Catch::Contains("      - effect: NoSchedule\n        key: dedicated\n"
                                  "        value: web\n"));
  CHECK_THAT(out, Catch::Contains("karpenter.sh/capacity-type=on-demand"));

  // A user MIME archive: its parts are kept, in order, before karp's NodeConfig.
  Ec2NodeClass mime = NodeClass("al2023@latest");
  mime.user_data =
      "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n"
      "--BOUNDARY\nContent-Type: text/x-shellscript; charset=\"us-ascii\"\n\n"
      "#!/bin/bash\necho first\n--BOUNDARY\nContent-Type: application/node.eks.aws\n\n"
      "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n"
      "      shutdownGracePeriod: 30s\n--BOUNDARY--\n";
  const std::string merged = Render(mime, "on-demand");
  CheckGolden("al2023_mime_merged.golden", merged);
  const size_t first = merged.find("echo first");
  const size_t user_config = merged.find("shutdownGracePeriod");
  const size_t ours = merged.find("# karp generated NodeConfig");
  CHECK(first < user_config);
  CHECK(user_config < ours);

  Ec2NodeClass yaml = NodeClass("al2023@latest");
  yaml.user_data = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: {}\n";
  CHECK_THAT(Render(yaml), Catch::Contains("Content-Type: application/node.eks.aws\n\n"
                                           "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"
                                           "spec: {}\n--//"));

  // nodeadm needs the service CIDR.
  BootstrapInput no_cidr =
      MakeBootstrapInput(NodeClass("al2023@latest"), Pool(), "spot", Cluster(), 29);
  no_cidr.cluster.cidr.clear();
  CHECK(RenderUserData(no_cidr).status().code() == absl::StatusCode::kInvalidArgument);
  Ec2NodeClass junk = NodeClass("al2023@latest");
  junk.user_data = "just words";
  CHECK(RenderUserData(MakeBootstrapInput(junk, Pool(), "spot", Cluster(), 29)).status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("Bottlerocket user data merges the user's TOML with karp's kubernetes settings",
          "[userdata]") {
  const std::string out = Render(NodeClass("bottlerocket@latest"));
  CheckGolden("bottlerocket.golden", out);
  CHECK_THAT(out, Catch::Contains("[settings.kubernetes.node-taints]\n"
                                  "dedicated = ['web:NoSchedule']\n"
                                  "'example.com/agent-not-ready' = [':NoExecute']\n"
                                  "'karpenter.sh/unregistered' = [':NoExecute']\n"));
  CHECK_THAT(out, Catch::Contains("max-pods = 29\n"));

  Ec2NodeClass user = NodeClass("bottlerocket@latest");
  user.user_data = R"([settings.kubernetes]
api-server = 'replaced'   # karp's value wins
"image-gc-high-threshold-percent" = 85
[settings.kubernetes.node-labels]
"custom-label" = "kept"
team = "overridden"
[settings.kubernetes.node-taints]
replace = ["me:NoSchedule"]
[settings.network]
hostname = "test.local"
no-proxy = ["localhost", "127.0.0.1"]
hosts = [["10.0.0.0", ["a.example.com", "b.example.com"]]]
[settings.ntp]
time-servers = ["169.254.169.123"]
)";
  const std::string merged = Render(user);
  CheckGolden("bottlerocket_merged.golden", merged);
  CHECK_THAT(merged, Catch::Contains("api-server = 'https://test-cluster.example.com'"));
  CHECK_THAT(merged, !Catch::Contains("replaced"));
  CHECK_THAT(merged, Catch::Contains("custom-label = 'kept'"));
  CHECK_THAT(merged, Catch::Contains("team = 'web'"));
  CHECK_THAT(merged, !Catch::Contains("replace = "));  // taints are karp's only
  CHECK_THAT(merged, Catch::Contains("hosts = [['10.0.0.0', ['a.example.com', 'b.example.com']]]"));
  CHECK_THAT(merged, Catch::Contains("image-gc-high-threshold-percent = 85"));

  for (const char* bad : {"[[settings.x]]\n", "a = {b = 1}\n", "[settings\n", "a = 1\na = 2\n",
                          "x = \"unterminated\n", "settings = 5\n"}) {
    Ec2NodeClass b = NodeClass("bottlerocket@latest");
    b.user_data = bad;
    absl::StatusOr<std::string> r =
        RenderUserData(MakeBootstrapInput(b, Pool(), "spot", Cluster(), 29));
    INFO(bad);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(std::string(r.status().message()), Catch::StartsWith("spec.userData: "));
  }
}

TEST_CASE("Custom passes user data through", "[userdata]") {
  Ec2NodeClass custom = NodeClass("al2023@latest");
  custom.ami_selector_terms = {testing::AmiIdTerm("ami-1")};
  custom.ami_family = AwsAmiFamily::kCustom;
  custom.user_data = "#!/bin/bash\n/opt/my-bootstrap\n";
  CHECK(Render(custom) == "#!/bin/bash\n/opt/my-bootstrap\n");
}

TEST_CASE("Windows user data runs Start-EKSBootstrap.ps1 in PowerShell", "[userdata]") {
  for (const char* alias : {"windows2019@latest", "windows2022@latest", "windows2025@latest"}) {
    Ec2NodeClass nc = NodeClass(alias);
    nc.user_data = "<powershell>\nWrite-Host 'it''s mine'\n</powershell>\n";
    const std::string out = Render(nc);
    INFO(alias);
    CheckGolden("windows.golden", out);
    // The facts the golden file must hold, checked independently of it.
    CHECK_THAT(out, Catch::StartsWith("<powershell>\nWrite-Host 'it''s mine'\n[string]"));
    CHECK_THAT(out, Catch::EndsWith("\n</powershell>"));
    CHECK_THAT(out, Catch::Contains("& $EKSBootstrapScriptFile -EKSClusterName 'test-cluster' "
                                    "-APIServerEndpoint 'https://test-cluster.example.com' "
                                    "-Base64ClusterCA 'Y2EtYnVuZGxlCg==' -KubeletExtraArgs '"));
    CHECK_THAT(out, Catch::Contains("--node-labels=\""));
    CHECK_THAT(out, Catch::Contains("karpenter.sh/unregistered:NoExecute"));
    CHECK_THAT(out, Catch::Contains("--max-pods=29"));
    CHECK_THAT(out, Catch::Contains("-DNSClusterIP '10.100.0.10'"));
    CHECK(out.find("kubernetes.io/os") == std::string::npos);
    CHECK(out.find("<powershell>", 1) == std::string::npos);  // the user's tags are merged
  }
  // A quote in a value cannot end the PowerShell string.
  ClusterInfo c = Cluster();
  c.name = "o'brien";
  BootstrapInput in = MakeBootstrapInput(NodeClass("windows2022@latest"), Pool(), "spot", c, 110);
  absl::StatusOr<std::string> quoted = RenderUserData(in);
  REQUIRE(quoted.ok());
  CHECK_THAT(*quoted, Catch::Contains("-EKSClusterName 'o''brien'"));
  in.cluster.endpoint.clear();
  CHECK(RenderUserData(in).status().message() == "cluster.endpoint: required");
}

TEST_CASE("base64 follows RFC 4648", "[userdata]") {
  CHECK(Base64Encode("") == "");
  CHECK(Base64Encode("f") == "Zg==");
  CHECK(Base64Encode("fo") == "Zm8=");
  CHECK(Base64Encode("foo") == "Zm9v");
  CHECK(Base64Encode("foobar") == "Zm9vYmFy");
  CHECK(Base64Encode(std::string("\xff\x00\x80", 3)) == "/wCA");
}

}  // namespace
}  // namespace karp::aws
