// Instance profiles from spec.role through IAM (src/aws/instance_profile_manager.h) against
// the local fake IAM, which checks signatures (service "iam", region us-east-1 whatever the EC2
// region) and request shapes.

#include <catch2/catch.hpp>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "aws/ec2_client.h"
#include "aws/instance_profile.h"
#include "aws/instance_profile_manager.h"
#include "aws/support/fake_aws_server.h"
#include "aws/support/fake_iam.h"

namespace karp::aws {
namespace {

using testing::FakeAwsServer;
using testing::FakeIam;
using testing::FakeInstanceProfile;
using testing::FakeRequest;

struct IamFixture {
  std::unique_ptr<FakeAwsServer> server;
  std::unique_ptr<FakeIam> iam;
  std::unique_ptr<Ec2Client> client;
  absl::Time now = absl::FromUnixSeconds(1'800'000'000);

  IamFixture() {
    FakeAwsServer::Options so;
    so.region = "eu-west-1";  // EC2's; IAM is signed for us-east-1
    auto s = FakeAwsServer::Start(so);
    REQUIRE(s.ok());
    server = std::move(*s);
    iam = std::make_unique<FakeIam>(server.get());
    iam->AddRole("KarpenterNodeRole");
    iam->AddRole("OtherRole");
    AwsClientOptions o;
    o.region = "eu-west-1";
    o.ec2_endpoint = server->endpoint();
    o.iam_endpoint = server->endpoint();
    o.credentials = testing::TestCredentials();
    o.sleep = [](absl::Duration) {};
    auto c = Ec2Client::Create(o);
    REQUIRE(c.ok());
    client = std::move(*c);
  }

  InstanceProfileManager Manager() {
    return InstanceProfileManager(client.get(), "prod", absl::Minutes(15), [this] { return now; });
  }

  std::vector<std::string> Actions() {
    std::vector<std::string> out;
    for (const FakeRequest& r : server->Requests()) out.push_back(r.action);
    return out;
  }
};

Ec2NodeClass RoleClass(const std::string& name, const std::string& role) {
  Ec2NodeClass nc;
  nc.metadata.name = name;
  nc.role = role;
  nc.tags = {{"team", "infra"}};
  return nc;
}

TEST_CASE("Instance profile names are derived from cluster, region and class", "[aws][iam]") {
  const std::string a = InstanceProfileName("prod", "eu-west-1", "default");
  CHECK(a.rfind("prod_", 0) == 0);
  CHECK(a.size() > 6);
  CHECK(a == InstanceProfileName("prod", "eu-west-1", "default"));
  CHECK(a != InstanceProfileName("prod", "us-east-1", "default"));
  CHECK(a != InstanceProfileName("prod", "eu-west-1", "gpu"));
  CHECK(RoleNameForProfile("team/sub/KarpenterNodeRole") == "KarpenterNodeRole");
  CHECK(RoleNameForProfile("KarpenterNodeRole") == "KarpenterNodeRole");
  Ec2NodeClass nc = RoleClass("default", "r");
  CHECK(InstanceProfilePath("prod", "eu-west-1", nc) == "/karpenter/eu-west-1/prod/default/");
  nc.metadata.uid = "3f2a";
  CHECK(InstanceProfilePath("prod", "eu-west-1", nc) == "/karpenter/eu-west-1/prod/3f2a/");
  const auto tags = InstanceProfileTags(nc, "prod", "eu-west-1");
  CHECK(tags.at("team") == "infra");
  CHECK(tags.at("kubernetes.io/cluster/prod") == "owned");
  CHECK(tags.at("eks:eks-cluster-name") == "prod");
  CHECK(tags.at("karpenter.k8s.aws/ec2nodeclass") == "default");
  CHECK(tags.at("topology.kubernetes.io/region") == "eu-west-1");
}

TEST_CASE("Ensure creates the profile, attaches the role and caches it", "[aws][iam]") {
  IamFixture f;
  InstanceProfileManager m = f.Manager();
  absl::StatusOr<std::string> name = m.Ensure(RoleClass("default", "team/KarpenterNodeRole"));
  INFO(name.status().ToString());
  REQUIRE(name.ok());
  CHECK(*name == InstanceProfileName("prod", "eu-west-1", "default"));
  CHECK(f.Actions() == std::vector<std::string>{"GetInstanceProfile", "CreateInstanceProfile",
                                                "AddRoleToInstanceProfile"});
  for (const FakeRequest& r : f.server->Requests()) {
    CHECK(r.signature_ok);
    CHECK(r.signing_service == "iam");
    CHECK(r.signing_region == "us-east-1");
  }
  const FakeInstanceProfile p = f.iam->profiles().at(*name);
  CHECK(p.role == "KarpenterNodeRole");
  CHECK(p.path == "/karpenter/eu-west-1/prod/default/");
  CHECK(p.tags.at("karpenter.k8s.aws/ec2nodeclass") == "default");
  CHECK(p.tags.at("team") == "infra");

  // Cached: no IAM call within the TTL; after it, one GetInstanceProfile.
  f.server->ClearRequests();
  REQUIRE(m.Ensure(RoleClass("default", "team/KarpenterNodeRole")).ok());
  CHECK(f.Actions().empty());
  f.now += absl::Minutes(16);
  REQUIRE(m.Ensure(RoleClass("default", "team/KarpenterNodeRole")).ok());
  CHECK(f.Actions() == std::vector<std::string>{"GetInstanceProfile"});
}

TEST_CASE("A changed role replaces the attached one and an existing profile is reused",
          "[aws][iam]") {
  IamFixture f;
  const std::string name = InstanceProfileName("prod", "eu-west-1", "default");
  f.iam->AddProfile({name, "/karpenter/eu-west-1/prod/default/", "KarpenterNodeRole", {}});
  InstanceProfileManager m = f.Manager();
  REQUIRE(m.Ensure(RoleClass("default", "KarpenterNodeRole")).ok());
  CHECK(f.Actions() == std::vector<std::string>{"GetInstanceProfile"});

  f.server->ClearRequests();
  absl::StatusOr<std::string> changed = m.Ensure(RoleClass("default", "OtherRole"));
  INFO(changed.status().ToString());
  REQUIRE(changed.ok());
  CHECK(f.Actions() == std::vector<std::string>{"GetInstanceProfile",
                                                "RemoveRoleFromInstanceProfile",
                                                "AddRoleToInstanceProfile"});
  CHECK(f.iam->profiles().at(name).role == "OtherRole");
  const FakeRequest removed = f.server->Requests()[1];
  CHECK(removed.Param("RoleName") == "KarpenterNodeRole");
}

TEST_CASE("IAM errors name the class and field and map like EC2's", "[aws][iam]") {
  IamFixture f;
  InstanceProfileManager m = f.Manager();
  absl::StatusOr<std::string> missing = m.Ensure(RoleClass("gpu", "NoSuchRole"));
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(missing.status().message())
            .find("ec2nodeclass \"gpu\": spec.role: IAM AddRoleToInstanceProfile: NoSuchEntity") ==
        0);
  CHECK(AwsErrorCode(missing.status()) == "NoSuchEntity");

  f.server->RespondNext("GetInstanceProfile", 1,
                        testing::IamError("AccessDenied", "not authorized", 403));
  absl::StatusOr<std::string> denied = m.Ensure(RoleClass("other", "KarpenterNodeRole"));
  CHECK(denied.status().code() == absl::StatusCode::kPermissionDenied);

  // Throttling is retried.
  f.server->RespondNext("GetInstanceProfile", 2,
                        testing::IamError("Throttling", "Rate exceeded", 400));
  CHECK(m.Ensure(RoleClass("third", "KarpenterNodeRole")).ok());
  CHECK(f.server->BadSignatures() == 0);

  // A concurrent creator: EntityAlreadyExists reads the profile again.
  const std::string name = InstanceProfileName("prod", "eu-west-1", "raced");
  f.server->RespondNext("GetInstanceProfile", 1,
                        testing::IamError("NoSuchEntity", "not found", 404));
  f.iam->AddProfile({name, "/", "", {}});
  f.server->ClearRequests();
  REQUIRE(m.Ensure(RoleClass("raced", "KarpenterNodeRole")).ok());
  CHECK(f.Actions() == std::vector<std::string>{"GetInstanceProfile", "CreateInstanceProfile",
                                                "GetInstanceProfile", "AddRoleToInstanceProfile"});
}

TEST_CASE("The fake IAM rejects malformed requests", "[aws][iam]") {
  IamFixture f;
  const QueryService iam = IamService(f.client->options());
  auto code = [&](const std::string& action, const QueryParams& params) {
    return AwsErrorCode(f.client->CallQuery(iam, action, params).status());
  };
  CHECK(code("GetInstanceProfile", {}) == "ValidationError");
  CHECK(code("GetInstanceProfile", {{"InstanceProfileName", "bad name"}}) == "ValidationError");
  CHECK(code("GetInstanceProfile", {{"InstanceProfileName", "p"}, {"Bogus", "1"}}) ==
        "ValidationError");
  CHECK(code("CreateInstanceProfile", {{"InstanceProfileName", "p"}, {"Path", "no-slash"}}) ==
        "ValidationError");
  CHECK(code("CreateInstanceProfile", {{"InstanceProfileName", "p"}, {"Tags.member.1.Key", "k"}}) ==
        "ValidationError");
  CHECK(code("CreateInstanceProfile", {{"InstanceProfileName", "p"},
                                       {"Tags.member.2.Key", "k"},
                                       {"Tags.member.2.Value", "v"}}) == "ValidationError");
  QueryService wrong = iam;
  wrong.version = "2016-11-15";
  CHECK(!f.client->CallQuery(wrong, "GetInstanceProfile", {{"InstanceProfileName", "p"}}).ok());
}

TEST_CASE("DeleteExcept removes the cluster's other profiles, role first, across pages",
          "[aws][iam]") {
  IamFixture f;
  f.iam->SetPageSize(1);
  const std::string keep = InstanceProfileName("prod", "eu-west-1", "default");
  const std::string gone = InstanceProfileName("prod", "eu-west-1", "removed");
  const std::string bare = InstanceProfileName("prod", "eu-west-1", "bare");
  f.iam->AddProfile({keep, "/karpenter/eu-west-1/prod/default/", "KarpenterNodeRole", {}});
  f.iam->AddProfile({gone, "/karpenter/eu-west-1/prod/removed/", "KarpenterNodeRole", {}});
  f.iam->AddProfile({bare, "/karpenter/eu-west-1/prod/bare/", "", {}});
  f.iam->AddProfile({"other-cluster", "/karpenter/eu-west-1/staging/x/", "OtherRole", {}});
  f.iam->AddProfile({"hand-made", "/", "OtherRole", {}});
  InstanceProfileManager m = f.Manager();
  absl::StatusOr<std::vector<std::string>> deleted = m.DeleteExcept({keep});
  INFO(deleted.status().ToString());
  REQUIRE(deleted.ok());
  std::vector<std::string> want = {gone, bare};
  std::sort(want.begin(), want.end());
  CHECK(*deleted == want);
  std::set<std::string> left;
  for (const auto& [n, p] : f.iam->profiles()) left.insert(n);
  CHECK(left == std::set<std::string>{keep, "other-cluster", "hand-made"});
  CHECK(f.server->Count("ListInstanceProfiles") == 3);  // pages of one
  CHECK(f.server->Count("RemoveRoleFromInstanceProfile") == 1);
  for (const FakeRequest& r : f.server->Requests()) {
    if (r.action == "ListInstanceProfiles") {
      CHECK(r.Param("PathPrefix") == "/karpenter/eu-west-1/prod/");
    }
  }
}

}  // namespace
}  // namespace karp::aws
