// EC2NodeClass discovery against the local signature-checking endpoint: several selector terms
// ORed, tag wildcards, AMIs by name and by alias (SSM GetParameter, signed for "ssm"), the
// newest image per architecture, and errors naming the object and field.

#include <catch2/catch.hpp>

#include "nodeclass_test_util.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aws/ec2_client.h"
#include "aws/nodeclass_discovery.h"
#include "aws/sigv4.h"
#include "support/fake_aws_server.h"

namespace karp::aws {
namespace {

using testing::Ec2Xml;
using testing::FakeAwsServer;
using testing::FakeRequest;
using testing::FakeResponse;

struct Subnet {
  std::string id, zone;
  int ips;
  std::map<std::string, std::string> tags;
};

// The filters of a request as name -> values.
std::map<std::string, std::vector<std::string>> Filters(const FakeRequest& r) {
  std::map<std::string, std::vector<std::string>> out;
  for (int i = 1;; ++i) {
    const std::string name = r.Param("Filter." + std::to_string(i) + ".Name");
    if (name.empty()) break;
    for (int j = 1;; ++j) {
      const std::string v = r.Param("Filter." + std::to_string(i) + ".Value." + std::to_string(j));
      if (v.empty()) break;
      out[name].push_back(v);
    }
  }
  return out;
}

// True if an object with `id`, `name` and `tags` passes every filter (EC2 semantics: filters
// ANDed, values of one filter ORed).
bool Matches(const std::map<std::string, std::vector<std::string>>& filters,
             const std::string& id_filter, const std::string& id, const std::string& name,
             const std::map<std::string, std::string>& tags) {
  for (const auto& [f, filter_values] : filters) {
    // (A named reference: clang 14 cannot capture a structured binding in a lambda.)
    const std::vector<std::string>& values = filter_values;
    auto any = [&](const std::string& have) {
      for (const std::string& v : values) {
        if (v == have) return true;
      }
      return false;
    };
    if (f == id_filter) {
      if (!any(id)) return false;
    } else if (f == "group-name" || f == "name") {
      if (!any(name)) return false;
    } else if (f == "tag-key") {
      bool found = false;
      for (const std::string& v : values) found = found || tags.count(v) != 0;
      if (!found) return false;
    } else if (f.rfind("tag:", 0) == 0) {
      auto it = tags.find(f.substr(4));
      if (it == tags.end() || !any(it->second)) return false;
    }
  }
  return true;
}

std::string TagSet(const std::map<std::string, std::string>& tags) {
  std::string out = "<tagSet>";
  for (const auto& [k, v] : tags)
    out += "<item><key>" + k + "</key><value>" + v + "</value></item>";
  return out + "</tagSet>";
}

struct FakeEc2 {
  std::vector<Subnet> subnets = {
      {"subnet-a1", "us-east-1a", 100, {{"karpenter.sh/discovery", "prod"}}},
      {"subnet-a2", "us-east-1a", 4000, {{"karpenter.sh/discovery", "prod"}}},
      {"subnet-b1", "us-east-1b", 250, {{"tier", "private"}}},
      {"subnet-c1", "us-east-1c", 9000, {{"karpenter.sh/discovery", "other"}}},
      {"subnet-x", "us-east-1d", 10, {{"tier", "public"}}}};
  struct Group {
    std::string id, name;
    std::map<std::string, std::string> tags;
  };
  std::vector<Group> groups = {{"sg-1", "nodes", {{"karpenter.sh/discovery", "prod"}}},
                               {"sg-2", "eks-cluster-sg", {}},
                               {"sg-3", "other", {{"karpenter.sh/discovery", "other"}}}};
  struct Image {
    std::string id, name, arch, created, deprecation;
    std::map<std::string, std::string> tags;
  };
  std::vector<Image> images = {
      {"ami-x-old", "my-ami-1", "x86_64", "2024-01-01T00:00:00.000Z", "", {}},
      {"ami-x-new", "my-ami-2", "x86_64", "2024-06-01T00:00:00.000Z", "", {}},
      {"ami-x-depr",
       "my-ami-3",
       "x86_64",
       "2024-09-01T00:00:00.000Z",
       "2024-10-01T00:00:00.000Z",
       {}},
      {"ami-arm", "my-ami-arm", "arm64", "2024-03-01T00:00:00.000Z", "", {}},
      {"ami-tagged", "golden", "arm64", "2024-07-01T00:00:00.000Z", "", {{"golden", "yes"}}},
      {"ami-i386", "my-ami-old-32", "i386", "2024-12-01T00:00:00.000Z", "", {}},
      {"ami-al2023-x86", "al2023-x86", "x86_64", "2024-08-01T00:00:00.000Z", "", {}},
      {"ami-al2023-arm", "al2023-arm", "arm64", "2024-08-01T00:00:00.000Z", "", {}},
      {"ami-al2023-gpu", "al2023-gpu", "x86_64", "2024-08-02T00:00:00.000Z", "", {}}};

  void Install(FakeAwsServer* server) {
    server->On("DescribeSubnets", [this](const FakeRequest& r) {
      std::string items;
      for (const Subnet& s : subnets) {
        if (!Matches(Filters(r), "subnet-id", s.id, "", s.tags)) continue;
        items += "<item><subnetId>" + s.id + "</subnetId><availabilityZone>" + s.zone +
                 "</availabilityZone><availabilityZoneId>" + s.zone +
                 "-id</availabilityZoneId><availableIpAddressCount>" + std::to_string(s.ips) +
                 "</availableIpAddressCount>" + TagSet(s.tags) + "</item>";
      }
      return FakeResponse::Xml(Ec2Xml("DescribeSubnets", "<subnetSet>" + items + "</subnetSet>"));
    });
    server->On("DescribeSecurityGroups", [this](const FakeRequest& r) {
      std::string items;
      for (const Group& g : groups) {
        if (!Matches(Filters(r), "group-id", g.id, g.name, g.tags)) continue;
        items += "<item><groupId>" + g.id + "</groupId><groupName>" + g.name + "</groupName>" +
                 TagSet(g.tags) + "</item>";
      }
      return FakeResponse::Xml(
          Ec2Xml("DescribeSecurityGroups", "<securityGroupInfo>" + items + "</securityGroupInfo>"));
    });
    server->On("DescribeImages", [this](const FakeRequest& r) {
      std::string items;
      auto filters = Filters(r);
      filters.erase("state");
      const std::string image_id = r.Param("ImageId.1");
      for (const Image& im : images) {
        if (!image_id.empty() && im.id != image_id) continue;
        // Names are matched as prefixes before "*", as EC2 wildcards would.
        auto f = filters;
        if (f.count("name") != 0) {
          const std::string pattern = f["name"].front();
          const std::string prefix = pattern.substr(0, pattern.find('*'));
          if (im.name.rfind(prefix, 0) != 0) continue;
          f.erase("name");
        }
        if (!Matches(f, "image-id", im.id, im.name, im.tags)) continue;
        items +=
            "<item><imageId>" + im.id + "</imageId><name>" + im.name + "</name><architecture>" +
            im.arch + "</architecture><creationDate>" + im.created + "</creationDate>" +
            (im.deprecation.empty() ? ""
                                    : "<deprecationTime>" + im.deprecation + "</deprecationTime>") +
            "</item>";
      }
      return FakeResponse::Xml(Ec2Xml("DescribeImages", "<imagesSet>" + items + "</imagesSet>"));
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

Ec2NodeClass NodeClass() {
  Ec2NodeClass nc;
  nc.metadata.name = "default";
  nc.instance_profile = "prof";
  nc.ami_family = AwsAmiFamily::kAl2023;
  nc.subnet_selector_terms = {testing::SubnetTags({{"karpenter.sh/discovery", "prod"}}),
                              testing::SubnetTags({{"tier", "private"}}),
                              testing::SubnetId("subnet-x")};
  nc.security_group_selector_terms = {testing::GroupTags({{"karpenter.sh/discovery", "prod"}}),
                                      testing::GroupName("eks-cluster-sg")};
  nc.ami_selector_terms = {testing::AmiNameTerm("my-ami-*"),
                           testing::AmiTagTerm({{"golden", "yes"}})};
  return nc;
}

absl::Time Now() { return absl::FromUnixSeconds(1735689600); }  // 2025-01-01

TEST_CASE("discovery ORs selector terms and keeps the newest AMI per architecture",
          "[nodeclass_discovery]") {
  auto server = FakeAwsServer::Start();
  REQUIRE(server.ok());
  FakeEc2 ec2;
  ec2.Install(server->get());
  std::unique_ptr<Ec2Client> client = ClientFor(**server);

  DiscoveryOptions options;
  options.now = Now();
  absl::StatusOr<Ec2NodeClassStatus> status = ResolveEc2NodeClass(*client, NodeClass(), options);
  INFO(status.status().ToString());
  REQUIRE(status.ok());
  CHECK((*server)->BadSignatures() == 0);

  std::vector<std::string> subnet_ids;
  for (const ResolvedSubnet& s : status->subnets) subnet_ids.push_back(s.id);
  // Most available IPs first; subnet-c1 (another cluster's) is not selected.
  CHECK(subnet_ids == std::vector<std::string>{"subnet-a2", "subnet-b1", "subnet-a1", "subnet-x"});
  std::map<std::string, ResolvedSubnet> per_zone = SubnetPerZone(*status);
  CHECK(per_zone.at("us-east-1a").id == "subnet-a2");
  CHECK(per_zone.count("us-east-1c") == 0);  // zone without a matching subnet
  CHECK(status->subnets[0].zone_id == "us-east-1a-id");

  REQUIRE(status->security_groups.size() == 2);
  CHECK(status->security_groups[0].id == "sg-1");
  CHECK(status->security_groups[1].id == "sg-2");

  // amd64: ami-x-depr is newer but deprecated; ami-x-new wins. arm64: the tagged image is newer
  // than my-ami-arm. i386 images are ignored.
  REQUIRE(status->amis.size() == 2);
  CHECK(status->amis[0].id == "ami-tagged");
  CHECK(status->amis[0].architecture == "arm64");
  CHECK(status->amis[1].id == "ami-x-new");

  // One call per term, with the documented filters.
  int subnet_calls = 0;
  bool saw_tag_filter = false, saw_id_filter = false, saw_owner = false;
  for (const FakeRequest& r : (*server)->Requests()) {
    if (r.action == "DescribeSubnets") {
      ++subnet_calls;
      saw_tag_filter = saw_tag_filter || r.Param("Filter.1.Name") == "tag:karpenter.sh/discovery";
      saw_id_filter = saw_id_filter || r.Param("Filter.1.Name") == "subnet-id";
    }
    if (r.action == "DescribeImages" && r.Param("Filter.1.Name") == "name") {
      saw_owner = r.Param("Owner.1") == "self" && r.Param("Owner.2") == "amazon";
      CHECK(r.Param("IncludeDeprecated") == "true");
    }
  }
  CHECK(subnet_calls == 3);
  CHECK(saw_tag_filter);
  CHECK(saw_id_filter);
  CHECK(saw_owner);

  // A wildcard tag value becomes a tag-key filter.
  Ec2NodeClass wildcard = NodeClass();
  wildcard.subnet_selector_terms = {testing::SubnetTags({{"tier", "*"}})};
  absl::StatusOr<std::vector<ResolvedSubnet>> tiers = DiscoverSubnets(*client, wildcard);
  REQUIRE(tiers.ok());
  CHECK(tiers->size() == 2);  // subnet-b1 and subnet-x

  // Nothing matched: the object and field are named.
  Ec2NodeClass none = NodeClass();
  none.subnet_selector_terms = {testing::SubnetTags({{"karpenter.sh/discovery", "nobody"}})};
  absl::StatusOr<Ec2NodeClassStatus> empty = ResolveEc2NodeClass(*client, none, options);
  CHECK(empty.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(empty.status().message()) ==
        "ec2nodeclass \"default\": spec.subnetSelectorTerms: no subnet matched");

  // EC2 errors pass through.
  (*server)->FailNext("DescribeSecurityGroups", 1, 403, "UnauthorizedOperation");
  CHECK(ResolveEc2NodeClass(*client, NodeClass(), options).status().code() ==
        absl::StatusCode::kPermissionDenied);
}

TEST_CASE("an alias resolves through signed SSM GetParameter calls", "[nodeclass_discovery]") {
  auto server = FakeAwsServer::Start();
  REQUIRE(server.ok());
  FakeEc2 ec2;
  ec2.Install(server->get());
  std::unique_ptr<Ec2Client> client = ClientFor(**server);

  // One signature-checking server serves EC2 and SSM: it expects the scope service "ssm" for
  // requests whose X-Amz-Target starts with AmazonSSM.
  testing::FakeAwsServer* ssm_server = server->get();
  const std::map<std::string, std::string> parameters = {
      {"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id",
       "ami-al2023-x86"},
      {"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id",
       "ami-al2023-arm"},
      {"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id",
       "ami-al2023-gpu"}};
  std::vector<std::string> scopes;
  ssm_server->On("GetParameter", [&](const FakeRequest& r) {
    absl::StatusOr<SigV4Authorization> a = ParseSigV4Authorization(r.Header("authorization"));
    scopes.push_back(a.ok() ? a->region + "/" + a->service : "unsigned");
    const std::string body = r.body;
    for (const auto& [name, value] : parameters) {
      if (body == "{\"Name\":\"" + name + "\"}") {
        return FakeResponse::Json("{\"Parameter\":{\"Name\":\"" + name + "\",\"Value\":\"" + value +
                                  "\"}}");
      }
    }
    return FakeResponse::Json(
        "{\"__type\":\"com.amazonaws.ssm#ParameterNotFound\",\"message\":\"not found\"}", 400);
  });

  Ec2NodeClass nc = NodeClass();
  nc.ami_family.reset();
  nc.ami_selector_terms = {testing::AliasTerm("al2023@latest")};
  DiscoveryOptions options;
  options.now = Now();
  options.kubernetes_version = "1.31";
  options.ssm = MakeSsmGetter(client.get(), ssm_server->endpoint());
  absl::StatusOr<Ec2NodeClassStatus> status = ResolveEc2NodeClass(*client, nc, options);
  INFO(status.status().ToString());
  REQUIRE(status.ok());
  REQUIRE(status->amis.size() == 3);
  CHECK(status->amis[0].id == "ami-al2023-gpu");
  CHECK(status->amis[0].variant == AmiVariant::kNvidia);
  std::map<std::string, AmiVariant> by_id;
  for (const ResolvedAmi& a : status->amis) by_id[a.id] = a.variant;
  CHECK(by_id.at("ami-al2023-x86") == AmiVariant::kStandard);
  CHECK(by_id.at("ami-al2023-arm") == AmiVariant::kStandard);
  CHECK(ssm_server->Count("GetParameter") == 6);  // 2 architectures x 3 variants
  CHECK(ssm_server->BadSignatures() == 0);
  for (const std::string& s : scopes) CHECK(s == "us-east-1/ssm");
  int ssm_requests = 0;
  for (const FakeRequest& r : ssm_server->Requests()) {
    if (r.Header("x-amz-target") != "AmazonSSM.GetParameter") continue;
    ++ssm_requests;
    CHECK(r.signing_service == "ssm");
  }
  CHECK(ssm_requests == 6);

  // The AMIs pick per instance type: a GPU type gets the nvidia image.
  InstanceType gpu = InstanceType::Make("g5.xlarge", {{"kubernetes.io/arch", "amd64"}},
                                        ResourceList{{"nvidia.com/gpu", 1}}, {}, {});
  InstanceType cpu = InstanceType::Make("m5.large", {{"kubernetes.io/arch", "amd64"}},
                                        ResourceList{{"cpu", 2000}}, {}, {});
  CHECK(AmiFor(*status, gpu)->id == "ami-al2023-gpu");
  CHECK(AmiFor(*status, cpu)->id == "ami-al2023-x86");

  // A pinned version that no parameter publishes.
  nc.ami_selector_terms = {testing::AliasTerm("al2023@v19990101")};
  absl::StatusOr<Ec2NodeClassStatus> missing = ResolveEc2NodeClass(*client, nc, options);
  CHECK(missing.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(missing.status().message()) ==
        "ec2nodeclass \"default\": spec.amiSelectorTerms[0].alias: no AMI is published for "
        "alias \"al2023@v19990101\" on Kubernetes 1.31");
}

TEST_CASE("alias SSM paths follow each family's layout", "[nodeclass_discovery]") {
  absl::StatusOr<std::vector<AliasParameter>> br =
      AliasParameters({AwsAmiFamily::kBottlerocket, "v1.20.3"}, "1.30");
  REQUIRE(br.ok());
  REQUIRE(br->size() == 4);
  CHECK((*br)[0].path == "/aws/service/bottlerocket/aws-k8s-1.30/x86_64/1.20.3/image_id");
  CHECK((*br)[1].path == "/aws/service/bottlerocket/aws-k8s-1.30-nvidia/x86_64/1.20.3/image_id");
  CHECK((*br)[1].variant == AmiVariant::kNvidia);

  absl::StatusOr<std::vector<AliasParameter>> al2 =
      AliasParameters({AwsAmiFamily::kAl2, "latest"}, "1.30");
  REQUIRE(al2.ok());
  CHECK((*al2)[1].path ==
        "/aws/service/eks/optimized-ami/1.30/amazon-linux-2-arm64/recommended/image_id");
  CHECK((*al2)[1].architecture == "arm64");
  CHECK_FALSE(AliasParameters({AwsAmiFamily::kAl2, "latest"}, "1.33").ok());

  absl::StatusOr<std::vector<AliasParameter>> pinned =
      AliasParameters({AwsAmiFamily::kAl2023, "v20240807"}, "1.31");
  REQUIRE(pinned.ok());
  CHECK((*pinned)[0].path ==
        "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/"
        "amazon-eks-node-al2023-x86_64-standard-1.31-v20240807/image_id");
  CHECK_FALSE(AliasParameters({AwsAmiFamily::kAl2023, "latest"}, "131").ok());
  CHECK_FALSE(AliasParameters({AwsAmiFamily::kAl2023, "latest"}, "").ok());
}

}  // namespace
}  // namespace karp::aws
