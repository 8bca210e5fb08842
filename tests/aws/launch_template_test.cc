// Launch templates: deterministic names, CreateLaunchTemplate parameters, CreateFleet configs
// (grouping by AMI and max pods, subnet per zone, zones without a subnet dropped), and the
// manager's create / reuse / cleanup against the local signature-checking endpoint.

#include "aws/launch_template.h"

#include <catch2/catch.hpp>

#include "nodeclass_test_util.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "aws/ec2_client.h"
#include "aws/launch_template_manager.h"
#include "support/fake_aws_server.h"

namespace karp::aws {
namespace {

using testing::Ec2Xml;
using testing::FakeAwsServer;
using testing::FakeRequest;
using testing::FakeResponse;

Ec2NodeClass NodeClass() {
  Ec2NodeClass nc;
  nc.metadata.name = "default";
  nc.role = "NodeRole";
  nc.ami_selector_terms = {testing::AliasTerm("al2023@latest")};
  nc.subnet_selector_terms = {testing::SubnetTags({{"karpenter.sh/discovery", "prod"}})};
  nc.security_group_selector_terms = {testing::GroupTags({{"karpenter.sh/discovery", "prod"}})};
  nc.tags = {{"team", "web"}};
  return nc;
}

Ec2NodeClassStatus Status() {
  Ec2NodeClassStatus s;
  s.subnets = {{"subnet-a1", "us-east-1a", "", 100},
               {"subnet-a2", "us-east-1a", "", 900},
               {"subnet-b1", "us-east-1b", "", 50}};  // no subnet in us-east-1c
  s.security_groups = {{"sg-2", ""}, {"sg-1", ""}};
  s.amis = NormalizeAmis({{"ami-x86", "x", "amd64", "2024-06-01", false, AmiVariant::kStandard},
                          {"ami-arm", "a", "arm64", "2024-06-01", false, AmiVariant::kStandard}});
  s.instance_profile = "prod_123";
  NormalizeSubnetsAndGroups(&s);
  return s;
}

InstanceType Type(const std::string& name, const std::string& arch, int64_t pods) {
  return InstanceType::Make(name, {{"kubernetes.io/arch", arch}},
                            ResourceList{{"cpu", 2000}, {"pods", pods}}, {}, {});
}

InstanceCatalog Catalog() {
  absl::StatusOr<InstanceCatalog> c =
      InstanceCatalog::Create({Type("m5.large", "amd64", 29), Type("c5.large", "amd64", 29),
                               Type("m5.xlarge", "amd64", 58), Type("m7g.large", "arm64", 29)},
                              LabelSet{});
  REQUIRE(c.ok());
  return *std::move(c);
}

NodePool Pool() {
  NodePool p;
  p.metadata.name = "web";
  return p;
}

ClusterInfo Cluster() {
  return {"prod", "https://prod.example.com", "Q0E=", "10.100.0.0/16", "10.100.0.10"};
}

TEST_CASE("fleet launch templates group options by AMI and max pods, one subnet per zone",
          "[launch_template]") {
  const Ec2NodeClass nc = NodeClass();
  const Ec2NodeClassStatus status = Status();
  const NodePool pool = Pool();
  const InstanceCatalog catalog = Catalog();
  FleetLaunchInput in{&nc, &status, &pool, &catalog, Cluster(), "web-1", {}};
  in.options = {{"m5.large", "us-east-1a", "spot", 0.03},
                {"m5.large", "us-east-1c", "spot", 0.03},  // no subnet in 1c: dropped
                {"m7g.large", "us-east-1b", "spot", 0.025},
                {"c5.large", "us-east-1b", "spot", 0.035},
                {"m5.xlarge", "us-east-1a", "spot", 0.06},
                {"m5.large", "us-east-1a", "spot", 0.03},         // duplicate: kept once
                {"m5.large", "us-east-1b", "on-demand", 0.096}};  // other market: ignored
  absl::StatusOr<std::vector<NodeClassFleetTemplate>> lts = BuildFleetLaunchTemplates(in);
  INFO(lts.status().ToString());
  REQUIRE(lts.ok());
  REQUIRE(lts->size() == 3);  // (x86, 29), (arm, 29), (x86, 58)
  const NodeClassFleetTemplate& x86 = (*lts)[0];
  CHECK(x86.config.image_id == "ami-x86");
  CHECK(x86.overrides ==
        std::vector<FleetOverride>{{"m5.large", "us-east-1a", "subnet-a2", "ami-x86", 0.03},
                                   {"c5.large", "us-east-1b", "subnet-b1", "ami-x86", 0.035}});
  CHECK((*lts)[1].config.image_id == "ami-arm");
  CHECK((*lts)[2].overrides.size() == 1);
  CHECK((*lts)[2].overrides[0].instance_type == "m5.xlarge");
  // Max pods differ, so user data and names differ.
  CHECK(x86.config.user_data != (*lts)[2].config.user_data);
  CHECK(x86.name != (*lts)[2].name);
  CHECK(x86.name.rfind("karpenter.k8s.aws/", 0) == 0);
  CHECK(x86.config.security_group_ids == std::vector<std::string>{"sg-1", "sg-2"});
  CHECK(x86.config.instance_profile == "prod_123");
  CHECK(x86.config.tags.at("kubernetes.io/cluster/prod") == "owned");
  CHECK(x86.config.tags.at("team") == "web");
  // Default AL2023 root volume.
  REQUIRE(x86.config.block_device_mappings.size() == 1);
  CHECK(x86.config.block_device_mappings[0].device_name == "/dev/xvda");

  // Same inputs, same names (templates are reused).
  absl::StatusOr<std::vector<NodeClassFleetTemplate>> again = BuildFleetLaunchTemplates(in);
  REQUIRE(again.ok());
  CHECK((*again)[0].name == x86.name);

  // Nothing launchable: a clear error.
  in.options = {{"m5.large", "us-east-1c", "spot", 0.03}};
  absl::StatusOr<std::vector<NodeClassFleetTemplate>> none = BuildFleetLaunchTemplates(in);
  CHECK(none.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(none.status().message()),
             Catch::StartsWith("no capacity offerings are currently available given the "
                               "constraints (1 option(s) in zones without a subnet"));
}

TEST_CASE("an option naming a capacity reservation gets a template that targets it",
          "[launch_template]") {
  const Ec2NodeClass nc = NodeClass();
  const Ec2NodeClassStatus status = Status();
  const InstanceCatalog catalog = Catalog();
  const NodePool pool = Pool();
  FleetLaunchInput in;
  in.node_class = &nc;
  in.status = &status;
  in.pool = &pool;
  in.catalog = &catalog;
  in.cluster = Cluster();
  in.options = {{"m5.large", "us-east-1a", "reserved", 0.096, "cr-1"},
                {"c5.large", "us-east-1a", "reserved", 0.085},
                {"m5.large", "us-east-1b", "reserved", 0.096, "cr-2"}};
  absl::StatusOr<std::vector<NodeClassFleetTemplate>> built = BuildFleetLaunchTemplates(in);
  INFO(built.status().message());
  REQUIRE(built.ok());
  REQUIRE(built->size() == 3);  // one AMI and max pods, three reservations ("" for none)
  std::vector<std::string> targets;
  for (const NodeClassFleetTemplate& t : *built) {
    REQUIRE(t.overrides.size() == 1);
    targets.push_back(t.config.capacity_reservation_id);
  }
  CHECK(targets == std::vector<std::string>{"cr-1", "", "cr-2"});
  CHECK((*built)[0].name != (*built)[1].name);
  CHECK((*built)[0].name != (*built)[2].name);
  const std::string key =
      "LaunchTemplateData.CapacityReservationSpecification.CapacityReservationTarget."
      "CapacityReservationId";
  auto param = [&](const LaunchTemplateConfig& c) {
    for (const auto& [k, v] : CreateLaunchTemplateParams(c)) {
      if (k == key) return v;
    }
    return std::string();
  };
  CHECK(param((*built)[0].config) == "cr-1");
  CHECK(param((*built)[1].config).empty());
  // Without a reservation the name is what it was before reservations existed.
  LaunchTemplateConfig plain = (*built)[0].config;
  plain.capacity_reservation_id.clear();
  CHECK(plain.Name() == (*built)[1].config.Name());
}

TEST_CASE("launch template names cover every field and parameters use EC2 names",
          "[launch_template]") {
  LaunchTemplateConfig c;
  c.image_id = "ami-1";
  c.user_data = "dXNlcg==";
  c.instance_profile = "prof";
  c.security_group_ids = {"sg-1", "sg-2"};
  c.block_device_mappings = {testing::Volume("/dev/xvda", (int64_t{20} << 30) + 1, "gp3")};
  c.block_device_mappings[0].ebs.encrypted = true;
  c.tags = {{"a", "b"}};
  const std::string name = c.Name();
  for (auto mutate : std::vector<void (*)(LaunchTemplateConfig*)>{
           [](LaunchTemplateConfig* x) { x->image_id = "ami-2"; },
           [](LaunchTemplateConfig* x) { x->user_data = "x"; },
           [](LaunchTemplateConfig* x) { x->security_group_ids.pop_back(); },
           [](LaunchTemplateConfig* x) { x->block_device_mappings[0].ebs.volume_type = "gp2"; },
           [](LaunchTemplateConfig* x) { x->metadata_options.http_tokens = "optional"; },
           [](LaunchTemplateConfig* x) { x->associate_public_ip_address = true; },
           [](LaunchTemplateConfig* x) { x->tags["c"] = "d"; },
       }) {
    LaunchTemplateConfig d = c;
    mutate(&d);
    CHECK(d.Name() != name);
  }
  std::map<std::string, std::string> p;
  for (const auto& [k, v] : CreateLaunchTemplateParams(c)) p[k] = v;
  CHECK(p.at("LaunchTemplateName") == name);
  CHECK(p.at("LaunchTemplateData.ImageId") == "ami-1");
  CHECK(p.at("LaunchTemplateData.IamInstanceProfile.Name") == "prof");
  CHECK(p.at("LaunchTemplateData.SecurityGroupId.2") == "sg-2");
  CHECK(p.at("LaunchTemplateData.BlockDeviceMapping.1.Ebs.VolumeSize") == "21");  // GiB, up
  CHECK(p.at("LaunchTemplateData.MetadataOptions.HttpTokens") == "required");
  CHECK(p.at("TagSpecification.1.ResourceType") == "launch-template");
  CHECK(p.at("TagSpecification.1.Tag.1.Key") == "a");

  c.associate_public_ip_address = false;
  p.clear();
  for (const auto& [k, v] : CreateLaunchTemplateParams(c)) p[k] = v;
  CHECK(p.count("LaunchTemplateData.SecurityGroupId.1") == 0);
  CHECK(p.at("LaunchTemplateData.NetworkInterface.1.AssociatePublicIpAddress") == "false");
  CHECK(p.at("LaunchTemplateData.NetworkInterface.1.SecurityGroupId.1") == "sg-1");
}

// A fake EC2 that keeps launch templates in memory.
struct FakeTemplates {
  std::map<std::string, std::string> by_name;  // name -> id
  std::map<std::string, std::string> cluster;  // name -> eks:eks-cluster-name tag
  int next = 1;

  void Install(FakeAwsServer* server) {
    server->On("DescribeLaunchTemplates", [this](const FakeRequest& r) {
      std::string items;
      const std::string wanted = r.Param("LaunchTemplateName.1");
      if (!wanted.empty() && by_name.count(wanted) == 0) {
        return FakeResponse::Ec2Error("InvalidLaunchTemplateName.NotFoundException", "not found");
      }
      for (const auto& [name, id] : by_name) {
        const bool match =
            wanted.empty() ? cluster[name] == r.Param("Filter.1.Value.1") : name == wanted;
        if (match) {
          items += "<item><launchTemplateId>" + id + "</launchTemplateId><launchTemplateName>" +
                   name + "</launchTemplateName></item>";
        }
      }
      return FakeResponse::Xml(
          Ec2Xml("DescribeLaunchTemplates", "<launchTemplates>" + items + "</launchTemplates>"));
    });
    server->On("CreateLaunchTemplate", [this](const FakeRequest& r) {
      const std::string name = r.Param("LaunchTemplateName");
      const std::string id = "lt-" + std::to_string(next++);
      by_name[name] = id;
      for (const auto& [k, v] : r.ParamsWithPrefix("TagSpecification.1.Tag.")) {
        if (v == "eks:eks-cluster-name") {
          cluster[name] = r.Param(k.substr(0, k.size() - 3) + "Value");
        }
      }
      return FakeResponse::Xml(Ec2Xml(
          "CreateLaunchTemplate",
          "<launchTemplate><launchTemplateId>" + id + "</launchTemplateId></launchTemplate>"));
    });
    server->On("DeleteLaunchTemplate", [this](const FakeRequest& r) {
      by_name.erase(r.Param("LaunchTemplateName"));
      return FakeResponse::Xml(Ec2Xml("DeleteLaunchTemplate", "<launchTemplate/>"));
    });
  }
};

std::unique_ptr<Ec2Client> ClientFor(const FakeAwsServer& server) {
  AwsClientOptions o;
  o.ec2_endpoint = server.endpoint();
  o.credentials = testing::TestCredentials();
  o.sleep = [](absl::Duration) {};
  absl::StatusOr<std::unique_ptr<Ec2Client>> c = Ec2Client::Create(o);
  REQUIRE(c.ok());
  return *std::move(c);
}

TEST_CASE("launch templates are created on demand, reused and deleted when unreferenced",
          "[launch_template]") {
  auto server = FakeAwsServer::Start();
  REQUIRE(server.ok());
  FakeTemplates ec2;
  ec2.Install(server->get());
  std::unique_ptr<Ec2Client> client = ClientFor(**server);

  const Ec2NodeClass nc = NodeClass();
  const Ec2NodeClassStatus status = Status();
  const NodePool pool = Pool();
  const InstanceCatalog catalog = Catalog();
  FleetLaunchInput in{&nc, &status, &pool, &catalog, Cluster(), "", {}};
  in.options = {{"m5.large", "us-east-1a", "spot", 0.03},
                {"m7g.large", "us-east-1a", "spot", 0.02}};
  absl::StatusOr<std::vector<NodeClassFleetTemplate>> lts = BuildFleetLaunchTemplates(in);
  REQUIRE(lts.ok());
  REQUIRE(lts->size() == 2);

  LaunchTemplateManager manager(client.get(), "prod");
  for (const NodeClassFleetTemplate& t : *lts) {
    absl::StatusOr<std::string> name = manager.Ensure(t.config);
    REQUIRE(name.ok());
    CHECK(*name == t.name);
  }
  CHECK((*server)->Count("CreateLaunchTemplate") == 2);
  CHECK((*server)->BadSignatures() == 0);
  for (const FakeRequest& r : (*server)->Requests()) {
    if (r.action != "CreateLaunchTemplate") continue;
    CHECK(r.Param("LaunchTemplateData.ImageId").rfind("ami-", 0) == 0);
    CHECK_FALSE(r.Param("LaunchTemplateData.UserData").empty());
  }

  // Reuse: the manager knows them; nothing is called.
  (*server)->ClearRequests();
  REQUIRE(manager.Ensure((*lts)[0].config).ok());
  CHECK((*server)->Requests().empty());

  // A restarted process finds them by name (DescribeLaunchTemplates) instead of creating.
  LaunchTemplateManager restarted(client.get(), "prod");
  REQUIRE(restarted.Ensure((*lts)[0].config).ok());
  CHECK((*server)->Count("DescribeLaunchTemplates") == 1);
  CHECK((*server)->Count("CreateLaunchTemplate") == 0);

  // ... or hydrates every template of the cluster at start-up.
  LaunchTemplateManager hydrated(client.get(), "prod");
  REQUIRE(hydrated.Hydrate().ok());
  CHECK(hydrated.Known().size() == 2);

  // Cleanup: only the unreferenced template is deleted.
  absl::StatusOr<std::vector<std::string>> deleted = manager.DeleteUnreferenced({(*lts)[0].name});
  REQUIRE(deleted.ok());
  CHECK(*deleted == std::vector<std::string>{(*lts)[1].name});
  CHECK(ec2.by_name.size() == 1);
  CHECK(ec2.by_name.count((*lts)[0].name) == 1);
  CHECK(manager.Known() == std::vector<std::string>{(*lts)[0].name});

  // EC2 errors surface.
  (*server)->FailNext("CreateLaunchTemplate", 1, 400, "InvalidParameterValue");
  LaunchTemplateConfig other = (*lts)[1].config;
  other.image_id = "ami-other";
  CHECK(manager.Ensure(other).status().code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace karp::aws
