// AwsCloudProvider in EC2NodeClass mode against the local fake EC2 (one signature-checking
// server for EC2, pricing and SSM): subnet discovery decides the zones, an al2023@latest alias
// resolves through SSM, launches create one launch template and reuse it, CreateFleet carries
// per-subnet overrides, and DriftReason reports AMI drift once the alias points elsewhere.

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aws/instance_profile.h"
#include "aws/nodeclass_test_util.h"
#include "aws/support/fake_aws_server.h"
#include "aws/support/fake_ec2.h"
#include "aws/support/fake_iam.h"
#include "karp/aws/aws_cloud_provider.h"
#include "karp/cloud_provider.h"

namespace karp::aws {
namespace {

using testing::Ec2Xml;
using testing::FakeAwsServer;
using testing::FakeEc2;
using testing::FakeInstance;
using testing::FakeRequest;
using testing::FakeResponse;

const AwsInstanceTypeInfo& Embedded(const std::string& name) {
  for (const AwsInstanceTypeInfo& i : EmbeddedAwsInstanceTypeInfos()) {
    if (i.name == name) return i;
  }
  FAIL("no embedded type " << name);
  static AwsInstanceTypeInfo none;
  return none;
}

constexpr const char* kX86Param =
    "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id";
constexpr const char* kArmParam =
    "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id";

// The values of filter `name` in a Query request.
std::vector<std::string> FilterValues(const FakeRequest& r, const std::string& name) {
  std::vector<std::string> out;
  for (int i = 1;; ++i) {
    const std::string n = r.Param("Filter." + std::to_string(i) + ".Name");
    if (n.empty()) break;
    if (n != name) continue;
    for (int j = 1;; ++j) {
      const std::string v = r.Param("Filter." + std::to_string(i) + ".Value." + std::to_string(j));
      if (v.empty()) break;
      out.push_back(v);
    }
  }
  return out;
}

struct Fixture {
  struct Subnet {
    std::string id, zone;
    int ips;
  };
  struct Image {
    std::string id, arch, created;
  };
  std::unique_ptr<FakeAwsServer> server;
  std::unique_ptr<FakeEc2> ec2;
  std::mutex mu;
  // Tagged karpenter.sh/discovery=test-cluster; no subnet in us-east-1c.
  std::vector<Subnet> subnets = {{"subnet-a1", "us-east-1a", 100},
                                 {"subnet-a2", "us-east-1a", 4000},
                                 {"subnet-b1", "us-east-1b", 250}};
  std::vector<Image> images = {{"ami-x86-1", "x86_64", "2024-08-01T00:00:00.000Z"},
                               {"ami-x86-2", "x86_64", "2024-09-01T00:00:00.000Z"},
                               {"ami-arm-1", "arm64", "2024-08-01T00:00:00.000Z"}};
  std::map<std::string, std::string> parameters = {{kX86Param, "ami-x86-1"},
                                                   {kArmParam, "ami-arm-1"}};

  Fixture() {
    auto s = FakeAwsServer::Start();
    REQUIRE(s.ok());
    server = std::move(*s);
    ec2 = std::make_unique<FakeEc2>(server.get());
    const std::vector<std::string> zones = {"us-east-1a", "us-east-1b", "us-east-1c"};
    for (const char* name : {"m5.large", "m6g.large"}) ec2->AddInstanceType(Embedded(name), zones);
    ec2->SetOnDemandPrice("m5.large", 0.096);
    ec2->SetOnDemandPrice("m6g.large", 0.077);
    server->On("DescribeSubnets", [this](const FakeRequest& r) {
      std::lock_guard<std::mutex> lock(mu);
      const std::vector<std::string> want = FilterValues(r, "tag:karpenter.sh/discovery");
      std::string items;
      for (const Subnet& sn : subnets) {
        if (want != std::vector<std::string>{"test-cluster"}) continue;
        items += "<item><subnetId>" + sn.id + "</subnetId><availabilityZone>" + sn.zone +
                 "</availabilityZone><availabilityZoneId>" + sn.zone +
                 "-id</availabilityZoneId><availableIpAddressCount>" + std::to_string(sn.ips) +
                 "</availableIpAddressCount></item>";
      }
      return FakeResponse::Xml(Ec2Xml("DescribeSubnets", "<subnetSet>" + items + "</subnetSet>"));
    });
    server->On("DescribeSecurityGroups", [](const FakeRequest& r) {
      std::string items;
      for (const std::string& id : FilterValues(r, "group-id")) {
        if (id != "sg-nodes" && id != "sg-cluster") continue;
        items += "<item><groupId>" + id + "</groupId><groupName>" + id + "</groupName></item>";
      }
      return FakeResponse::Xml(
          Ec2Xml("DescribeSecurityGroups", "<securityGroupInfo>" + items + "</securityGroupInfo>"));
    });
    server->On("DescribeImages", [this](const FakeRequest& r) {
      std::lock_guard<std::mutex> lock(mu);
      std::string items;
      for (const Image& im : images) {
        if (im.id != r.Param("ImageId.1")) continue;
        items += "<item><imageId>" + im.id + "</imageId><name>" + im.id + "</name><architecture>" +
                 im.arch + "</architecture><creationDate>" + im.created + "</creationDate></item>";
      }
      return FakeResponse::Xml(Ec2Xml("DescribeImages", "<imagesSet>" + items + "</imagesSet>"));
    });
    server->On("GetParameter", [this](const FakeRequest& r) {
      std::lock_guard<std::mutex> lock(mu);
      for (const auto& [name, value] : parameters) {
        if (r.body == "{\"Name\":\"" + name + "\"}") {
          return FakeResponse::Json("{\"Parameter\":{\"Name\":\"" + name + "\",\"Value\":\"" +
                                    value + "\"}}");
        }
      }
      return FakeResponse::Json(
          "{\"__type\":\"com.amazonaws.ssm#ParameterNotFound\",\"message\":\"not found\"}", 400);
    });
  }

  static Ec2NodeClass NodeClass() {
    Ec2NodeClass nc;
    nc.metadata.name = "default";
    nc.instance_profile = "KarpenterNodeInstanceProfile";
    nc.subnet_selector_terms = {testing::SubnetTags({{"karpenter.sh/discovery", "test-cluster"}})};
    nc.security_group_selector_terms = {testing::GroupId("sg-nodes"),
                                        testing::GroupId("sg-cluster")};
    nc.ami_selector_terms = {testing::AliasTerm("al2023@latest")};
    return nc;
  }

  AwsCloudProviderOptions Options() {
    AwsCloudProviderOptions o;
    o.cluster_name = "test-cluster";
    o.client.ec2_endpoint = server->endpoint();
    o.client.pricing_endpoint = server->endpoint();
    o.client.credentials = testing::TestCredentials();
    o.client.connect_timeout = absl::Seconds(2);
    o.client.request_timeout = absl::Seconds(5);
    o.client.sleep = [](absl::Duration) {};
    o.use_spot_price_history = false;
    o.node_classes = {NodeClass()};
    o.cluster.endpoint = "https://cluster.example";
    o.cluster.ca_bundle = "Q0E=";
    o.cluster.cidr = "10.100.0.0/16";
    o.kubernetes_version = "1.31";
    o.ssm_endpoint = server->endpoint();
    return o;
  }

  std::vector<FakeRequest> Requests(const std::string& action) {
    std::vector<FakeRequest> out;
    for (const FakeRequest& r : server->Requests()) {
      if (r.action == action) out.push_back(r);
    }
    return out;
  }
};

NodePool Pool() {
  NodePool pool;
  pool.metadata.name = "default";
  pool.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  pool.template_labels = {{"team", "a"}};
  return pool;
}

NewNodeClaim Claim(const std::string& name) {
  NewNodeClaim claim;
  claim.name = name;
  claim.node_pool = "default";
  claim.instance_types = {"m5.large"};
  claim.labels = {{"team", "a"}};
  return claim;
}

std::vector<std::string> Overrides(const FakeRequest& r) {
  std::vector<std::string> out;
  for (int m = 1;; ++m) {
    const std::string p = "LaunchTemplateConfigs.1.Overrides." + std::to_string(m);
    if (r.Param(p + ".InstanceType").empty()) break;
    out.push_back(r.Param(p + ".InstanceType") + "/" + r.Param(p + ".AvailabilityZone") + "/" +
                  r.Param(p + ".SubnetId") + "/" + r.Param(p + ".ImageId"));
  }
  return out;
}

TEST_CASE("AWS provider with an EC2NodeClass discovers zones, launches through one template",
          "[aws][provider][nodeclass]") {
  Fixture f;
  absl::StatusOr<std::unique_ptr<AwsCloudProvider>> created = AwsCloudProvider::Create(f.Options());
  INFO(created.status().ToString());
  REQUIRE(created.ok());
  AwsCloudProvider& provider = **created;

  absl::StatusOr<InstanceCatalog> catalog = provider.Catalog(Pool());
  INFO(catalog.status().ToString());
  REQUIRE(catalog.ok());
  // Zones come from the subnets: us-east-1c has none and offers nothing.
  for (const char* name : {"m5.large", "m6g.large"}) {
    const InstanceType* t = catalog->Find(name);
    REQUIRE(t != nullptr);
    std::set<std::string> zones;
    for (const Offering& o : t->offerings) zones.insert(o.zone);
    CHECK(zones == std::set<std::string>{"us-east-1a", "us-east-1b"});
  }
  absl::StatusOr<Ec2NodeClassStatus> status = provider.NodeClassStatus("default");
  REQUIRE(status.ok());
  CHECK(SubnetPerZone(*status).at("us-east-1a").id == "subnet-a2");  // most free IPs
  std::set<std::string> amis;
  for (const ResolvedAmi& a : status->amis) amis.insert(a.id);
  CHECK(amis == std::set<std::string>{"ami-x86-1", "ami-arm-1"});
  CHECK(f.server->Count("GetParameter") == 6);  // 2 architectures x 3 variants
  CHECK(f.server->BadSignatures() == 0);        // SSM signed for "ssm", EC2 for "ec2"

  UnavailableOfferings cache;
  Launcher launcher(&provider, &cache);
  absl::StatusOr<Instance> first = launcher.Launch(Claim("default-1"), *catalog, absl::Now());
  INFO(first.status().ToString());
  REQUIRE(first.ok());
  CHECK(first->instance_type == "m5.large");
  CHECK(f.server->Count("CreateLaunchTemplate") == 1);
  const auto templates = f.ec2->launch_templates();
  REQUIRE(templates.size() == 1);
  const testing::FakeLaunchTemplate& lt = templates.begin()->second;
  CHECK(lt.name.rfind("karpenter.k8s.aws/", 0) == 0);
  CHECK(lt.image_id == "ami-x86-1");
  CHECK(lt.security_group_ids == std::vector<std::string>{"sg-cluster", "sg-nodes"});
  CHECK(!lt.user_data.empty());

  std::vector<FakeRequest> fleets = f.Requests("CreateFleet");
  REQUIRE(fleets.size() == 1);
  CHECK(fleets[0].Param("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName") ==
        lt.name);
  CHECK(fleets[0]
            .Param("LaunchTemplateConfigs.2.LaunchTemplateSpecification.LaunchTemplateName")
            .empty());
  std::vector<std::string> overrides = Overrides(fleets[0]);
  std::sort(overrides.begin(), overrides.end());
  CHECK(overrides == std::vector<std::string>{"m5.large/us-east-1a/subnet-a2/ami-x86-1",
                                              "m5.large/us-east-1b/subnet-b1/ami-x86-1"});

  auto instances = f.ec2->instances();
  REQUIRE(instances.size() == 1);
  const FakeInstance& inst = instances.begin()->second;
  CHECK(inst.tags.at("karpenter.k8s.aws/ec2nodeclass") == "default");
  CHECK(inst.tags.at("karpenter.sh/nodeclaim") == "default-1");
  CHECK(inst.tags.at("kubernetes.io/cluster/test-cluster") == "owned");

  std::optional<AwsLaunchDetails> details = provider.LaunchDetails(first->provider_id);
  REQUIRE(details.has_value());
  CHECK(details->node_class == "default");
  CHECK(details->image_id == "ami-x86-1");
  CHECK(details->launch_template == lt.name);
  CHECK(details->subnet_id == inst.subnet_id);
  CHECK(details->annotations.at(std::string(kAnnotationEc2NodeClassHash)) ==
        Ec2NodeClassHash(Fixture::NodeClass()));
  CHECK(details->annotations.at(std::string(kAnnotationEc2NodeClassHashVersion)) ==
        kEc2NodeClassHashVersion);

  // The same settings again: the template is reused, not created a second time.
  absl::StatusOr<Instance> second = launcher.Launch(Claim("default-2"), *catalog, absl::Now());
  REQUIRE(second.ok());
  CHECK(f.server->Count("CreateLaunchTemplate") == 1);
  fleets = f.Requests("CreateFleet");
  REQUIRE(fleets.size() == 2);
  CHECK(fleets[1].Param("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName") ==
        lt.name);

  // Drift: the claim as the host records it.
  NodeClaim claim;
  claim.metadata.name = "default-1";
  claim.metadata.labels = first->labels;
  claim.metadata.annotations = details->annotations;
  claim.node_class_ref = Pool().node_class_ref;
  claim.provider_id = first->provider_id;
  claim.image_id = details->image_id;
  absl::StatusOr<std::string> drift = provider.DriftReason(claim);
  INFO(drift.status().ToString());
  REQUIRE(drift.ok());
  CHECK(*drift == "");

  // The alias now points at a newer image: after a refresh the claim has drifted.
  {
    std::lock_guard<std::mutex> lock(f.mu);
    f.parameters[kX86Param] = "ami-x86-2";
  }
  REQUIRE(provider.Refresh().ok());
  drift = provider.DriftReason(claim);
  REQUIRE(drift.ok());
  CHECK(*drift == kDriftAmi);

  // A changed NodeClass spec (another hash) is NodeClass drift, which is checked first.
  claim.metadata.annotations[std::string(kAnnotationEc2NodeClassHash)] = "1";
  drift = provider.DriftReason(claim);
  REQUIRE(drift.ok());
  CHECK(*drift == kDriftNodeClass);

  // A claim on the current image with the current hash has not drifted.
  claim.metadata.annotations = details->annotations;
  claim.image_id = "ami-x86-2";
  drift = provider.DriftReason(claim);
  REQUIRE(drift.ok());
  CHECK(*drift == "");
}

TEST_CASE("AWS provider EC2NodeClass options are validated", "[aws][provider][nodeclass]") {
  Fixture f;
  AwsCloudProviderOptions o = f.Options();
  o.subnets = {{"us-east-1a", "subnet-a1"}};
  absl::StatusOr<std::unique_ptr<AwsCloudProvider>> p = AwsCloudProvider::Create(o);
  CHECK(p.status().code() == absl::StatusCode::kInvalidArgument);

  o = f.Options();
  o.kubernetes_version.clear();
  p = AwsCloudProvider::Create(o);
  CHECK(p.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(p.status().message()).find("kubernetes_version") != std::string::npos);

  o = f.Options();
  o.node_classes.push_back(Fixture::NodeClass());
  p = AwsCloudProvider::Create(o);
  CHECK(p.status().code() == absl::StatusCode::kInvalidArgument);

  // A NodePool naming an unknown class is not ready.
  p = AwsCloudProvider::Create(f.Options());
  REQUIRE(p.ok());
  NodePool pool = Pool();
  pool.node_class_ref.name = "gpu";
  absl::StatusOr<std::vector<InstanceType>> types = (*p)->GetInstanceTypes(pool);
  CHECK(types.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(types.status().message()).find("\"gpu\"") != std::string::npos);
}

TEST_CASE("AWS provider creates the instance profile of spec.role and deletes removed ones",
          "[aws][provider][nodeclass][iam]") {
  Fixture f;
  testing::FakeIam iam(f.server.get());
  iam.AddRole("KarpenterNodeRole");
  AwsCloudProviderOptions o = f.Options();
  o.client.iam_endpoint = f.server->endpoint();
  o.node_classes.front().instance_profile.clear();
  o.node_classes.front().role = "KarpenterNodeRole";
  Ec2NodeClass gpu = o.node_classes.front();
  gpu.metadata.name = "gpu";
  o.node_classes.push_back(gpu);
  absl::StatusOr<std::unique_ptr<AwsCloudProvider>> created = AwsCloudProvider::Create(o);
  REQUIRE(created.ok());
  AwsCloudProvider& provider = **created;
  const std::string profile = InstanceProfileName("test-cluster", "us-east-1", "default");
  const std::string gpu_profile = InstanceProfileName("test-cluster", "us-east-1", "gpu");

  absl::StatusOr<InstanceCatalog> catalog = provider.Catalog(Pool());
  INFO(catalog.status().ToString());
  REQUIRE(catalog.ok());
  absl::StatusOr<Ec2NodeClassStatus> status = provider.NodeClassStatus("default");
  REQUIRE(status.ok());
  CHECK(status->instance_profile == profile);
  CHECK(iam.profiles().at(profile).role == "KarpenterNodeRole");
  UnavailableOfferings cache;
  Launcher launcher(&provider, &cache);
  REQUIRE(launcher.Launch(Claim("default-1"), *catalog, absl::Now()).ok());
  std::vector<FakeRequest> lt = f.Requests("CreateLaunchTemplate");
  REQUIRE(lt.size() == 1);
  CHECK(lt[0].Param("LaunchTemplateData.IamInstanceProfile.Name") == profile);
  REQUIRE(provider.NodeClassStatus("gpu").ok());
  CHECK(iam.profiles().count(gpu_profile) == 1);
  CHECK(f.server->BadSignatures() == 0);

  // Nothing to delete while both classes exist.
  absl::StatusOr<std::vector<std::string>> deleted = provider.DeleteUnusedInstanceProfiles();
  REQUIRE(deleted.ok());
  CHECK(deleted->empty());

  // A provider without "gpu": its profile goes; "default" keeps its profile.
  o.node_classes.pop_back();
  created = AwsCloudProvider::Create(o);
  REQUIRE(created.ok());
  deleted = (*created)->DeleteUnusedInstanceProfiles();
  INFO(deleted.status().ToString());
  REQUIRE(deleted.ok());
  CHECK(*deleted == std::vector<std::string>{gpu_profile});
  CHECK(iam.profiles().count(gpu_profile) == 0);
  CHECK(iam.profiles().count(profile) == 1);

  // A class that is gone but still has instances keeps its profile until they are gone.
  o.node_classes.clear();
  o.node_classes.push_back(Fixture::NodeClass());  // instanceProfile: manages nothing
  created = AwsCloudProvider::Create(o);
  REQUIRE(created.ok());
  deleted = (*created)->DeleteUnusedInstanceProfiles();
  REQUIRE(deleted.ok());
  CHECK(deleted->empty());  // default-1 still runs
  for (const auto& [id, inst] : f.ec2->instances()) {
    REQUIRE((*created)->Delete("aws:///" + inst.zone + "/" + id).ok());
  }
  deleted = (*created)->DeleteUnusedInstanceProfiles();
  REQUIRE(deleted.ok());
  CHECK(*deleted == std::vector<std::string>{profile});
  CHECK(iam.profiles().empty());

  // Static mode manages no profiles, so it deletes none.
  o.node_classes.clear();
  o.launch_template_name = "karp-default";
  created = AwsCloudProvider::Create(o);
  REQUIRE(created.ok());
  CHECK((*created)->DeleteUnusedInstanceProfiles().status().code() ==
        absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace karp::aws
