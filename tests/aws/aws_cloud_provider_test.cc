// AwsCloudProvider against the local fake EC2: discovery, pricing, launch through
// karp::Launcher (partial fleets, insufficient-capacity fallback), retries, malformed
// responses, the termination tag guard, Get/List, tagging and interruption marking.

#include "karp/aws/aws_cloud_provider.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "aws/support/fake_aws_server.h"
#include "aws/support/fake_ec2.h"
#include "karp/aws/interruption.h"
#include "karp/cloud_provider.h"

namespace karp::aws {
namespace {

using testing::Ec2Xml;
using testing::FakeAwsServer;
using testing::FakeEc2;
using testing::FakeInstance;
using testing::FakeRequest;
using testing::FakeResponse;

const std::vector<std::string> kZones = {"us-east-1a", "us-east-1b"};

const AwsInstanceTypeInfo& Embedded(const std::string& name) {
  for (const AwsInstanceTypeInfo& i : EmbeddedAwsInstanceTypeInfos()) {
    if (i.name == name) return i;
  }
  FAIL("no embedded type " << name);
  static AwsInstanceTypeInfo none;
  return none;
}

struct Fixture {
  std::unique_ptr<FakeAwsServer> server;
  std::unique_ptr<FakeEc2> ec2;
  std::vector<absl::Duration> sleeps;
  std::map<std::string, std::map<std::string, double>, std::less<>> spot = {
      {"m6g.large", {{"us-east-1a", 0.025}, {"us-east-1b", 0.026}}},
      {"m5.large", {{"us-east-1a", 0.030}, {"us-east-1b", 0.035}}},
      {"c5.xlarge", {{"us-east-1a", 0.050}}},
  };

  Fixture() {
    auto s = FakeAwsServer::Start();
    REQUIRE(s.ok());
    server = std::move(*s);
    ec2 = std::make_unique<FakeEc2>(server.get());
    for (const char* name : {"c5.xlarge", "m5.large", "m6g.large"}) {
      ec2->AddInstanceType(Embedded(name), kZones);
    }
    for (const auto& [type, zones] : spot) {
      for (const auto& [zone, price] : zones) ec2->SetSpotPrice(type, zone, price);
    }
    ec2->SetOnDemandPrice("m5.large", 0.1);
    ec2->SetOnDemandPrice("c5.xlarge", 0.17);
    ec2->SetOnDemandPrice("m5.metal", 4.608);
  }

  AwsCloudProviderOptions Options() {
    AwsCloudProviderOptions o;
    o.cluster_name = "test-cluster";
    o.client.ec2_endpoint = server->endpoint();
    o.client.pricing_endpoint = server->endpoint();
    o.client.credentials = testing::TestCredentials();
    o.client.connect_timeout = absl::Seconds(2);
    o.client.request_timeout = absl::Seconds(5);
    o.client.sleep = [this](absl::Duration d) { sleeps.push_back(d); };
    o.launch_template_name = "karp-default";
    o.subnets = {{"us-east-1a", "subnet-a"}, {"us-east-1b", "subnet-b"}};
    return o;
  }

  std::unique_ptr<AwsCloudProvider> Provider() { return Provider(Options()); }
  std::unique_ptr<AwsCloudProvider> Provider(AwsCloudProviderOptions o) {
    auto p = AwsCloudProvider::Create(std::move(o));
    REQUIRE(p.ok());
    return std::move(*p);
  }

  std::vector<FakeRequest> Requests(const std::string& action) {
    std::vector<FakeRequest> out;
    for (const FakeRequest& r : server->Requests()) {
      if (r.action == action) out.push_back(r);
    }
    return out;
  }
};

NewNodeClaim Claim() {
  NewNodeClaim claim;
  claim.name = "default-1";
  claim.node_pool = "default";
  claim.instance_types = {"c5.xlarge", "m5.large", "m6g.large"};
  claim.labels = {{"team", "a"}};
  return claim;
}

// The override instance types and zones of a CreateFleet request, in order.
std::vector<std::string> Overrides(const FakeRequest& r) {
  std::vector<std::string> out;
  for (int m = 1;; ++m) {
    const std::string p = "LaunchTemplateConfigs.1.Overrides." + std::to_string(m);
    if (r.Param(p + ".InstanceType").empty()) break;
    out.push_back(r.Param(p + ".InstanceType") + "/" + r.Param(p + ".AvailabilityZone"));
  }
  return out;
}

TEST_CASE("AWS provider discovers instance types with pagination and pricing", "[aws][provider]") {
  Fixture f;
  auto provider = f.Provider();
  NodePool pool;
  absl::StatusOr<std::vector<InstanceType>> types = provider->GetInstanceTypes(pool);
  REQUIRE(types.ok());
  REQUIRE(types->size() == 3);
  CHECK((*types)[0].name == "c5.xlarge");  // sorted by name
  AwsDiscoveryStats stats = provider->LastDiscovery();
  CHECK(stats.describe_pages == 2);
  CHECK(stats.instance_types == 3);
  CHECK(stats.pricing_error.empty());
  CHECK(stats.on_demand_prices_api == 3);       // m5.large, c5.xlarge, m5.metal
  CHECK(stats.on_demand_prices_embedded == 1);  // m6g.large
  CHECK(stats.spot_prices == 5);
  CHECK(stats.zones == kZones);
  CHECK(f.server->Count("DescribeInstanceTypes") == 2);
  CHECK(f.server->Count("DescribeInstanceTypeOfferings") == 2);
  CHECK(f.server->Count("GetProducts") == 2);
  CHECK(f.server->BadSignatures() == 0);
  std::vector<FakeRequest> dit = f.Requests("DescribeInstanceTypes");
  CHECK(dit[0].Param("Filter.1.Name") == "supported-virtualization-type");
  CHECK(dit[0].Param("Filter.2.Value.2") == "arm64");
  CHECK(dit[1].Param("NextToken") == "tok-2");
  std::vector<FakeRequest> spot = f.Requests("DescribeSpotPriceHistory");
  REQUIRE(spot.size() == 1);
  CHECK(spot[0].Param("ProductDescription.2") == "Linux/UNIX (Amazon VPC)");

  // One code path with the embedded catalog: the same facts give the same type.
  for (const InstanceType& got : *types) {
    INFO(got.name);
    AwsInstanceTypeInfo info = Embedded(got.name);
    info.offered_zones = kZones;
    AwsCatalogOptions options;
    options.zones = kZones;
    options.spot_prices = f.spot;
    std::optional<double> price = got.name == "m5.large"    ? std::optional<double>(0.1)
                                  : got.name == "c5.xlarge" ? std::optional<double>(0.17)
                                                            : EmbeddedAwsOnDemandPrice(got.name);
    absl::StatusOr<InstanceType> want = MakeAwsInstanceType(info, price, options);
    REQUIRE(want.ok());
    CHECK(got.labels == want->labels);
    CHECK(got.requirements.ToString() == want->requirements.ToString());
    CHECK(got.capacity == want->capacity);
    CHECK(got.Allocatable() == want->Allocatable());
    CHECK(got.offerings == want->offerings);
  }
  const InstanceType& m5 = (*types)[1];
  CHECK(m5.Allocatable().ToString().find("\"memory\":\"6903Mi\"") != std::string::npos);

  // Cached: a second call makes no request; Refresh() asks again.
  const size_t before = f.server->Requests().size();
  REQUIRE(provider->GetInstanceTypes(pool).ok());
  CHECK(f.server->Requests().size() == before);
  REQUIRE(provider->Refresh().ok());
  CHECK(f.server->Requests().size() > before);
  absl::StatusOr<InstanceCatalog> catalog = provider->Catalog(pool);
  REQUIRE(catalog.ok());
  CHECK(catalog->size() == 3);
}

TEST_CASE("AWS provider falls back to embedded prices when the Price List API fails",
          "[aws][provider]") {
  Fixture f;
  f.server->RespondNext("GetProducts", 1,
                        FakeResponse::Json(R"({"__type":"AccessDeniedException",
                                              "message":"not allowed"})",
                                           400));
  auto provider = f.Provider();
  absl::StatusOr<std::vector<InstanceType>> types = provider->GetInstanceTypes(NodePool());
  REQUIRE(types.ok());
  AwsDiscoveryStats stats = provider->LastDiscovery();
  CHECK(stats.pricing_error.find("AccessDeniedException") != std::string::npos);
  CHECK(stats.on_demand_prices_embedded == 3);
  const InstanceType& m5 = (*types)[1];
  REQUIRE(m5.name == "m5.large");
  for (const Offering& o : m5.offerings) {
    if (o.capacity_type == "on-demand") CHECK(o.price == *EmbeddedAwsOnDemandPrice("m5.large"));
  }
}

TEST_CASE("AWS provider launches through CreateFleet with tags and cheapest-first overrides",
          "[aws][provider]") {
  Fixture f;
  auto provider = f.Provider();
  absl::StatusOr<InstanceCatalog> catalog = provider->Catalog(NodePool());
  REQUIRE(catalog.ok());
  UnavailableOfferings cache;
  Launcher launcher(provider.get(), &cache);
  absl::StatusOr<Instance> i = launcher.Launch(Claim(), *catalog, absl::Now());
  REQUIRE(i.ok());
  CHECK(i->instance_type == "m6g.large");
  CHECK(i->zone == "us-east-1a");
  CHECK(i->capacity_type == "spot");
  CHECK(i->price == 0.025);
  CHECK(i->node_pool == "default");
  CHECK(i->provider_id.rfind("aws:///us-east-1a/i-", 0) == 0);
  CHECK(i->labels.at("team") == "a");
  CHECK(i->labels.at("karpenter.sh/capacity-type") == "spot");
  std::vector<FakeRequest> fleets = f.Requests("CreateFleet");
  REQUIRE(fleets.size() == 1);
  const FakeRequest& r = fleets[0];
  CHECK(r.Param("Type") == "instant");
  CHECK(r.Param("TargetCapacitySpecification.TotalTargetCapacity") == "1");
  CHECK(r.Param("TargetCapacitySpecification.DefaultTargetCapacityType") == "spot");
  CHECK(r.Param("SpotOptions.AllocationStrategy") == "price-capacity-optimized");
  CHECK(r.Param("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName") ==
        "karp-default");
  CHECK(r.Param("LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version") == "$Latest");
  CHECK(Overrides(r) == std::vector<std::string>{"m6g.large/us-east-1a", "m6g.large/us-east-1b",
                                                 "m5.large/us-east-1a", "m5.large/us-east-1b",
                                                 "c5.xlarge/us-east-1a"});
  CHECK(r.Param("LaunchTemplateConfigs.1.Overrides.2.SubnetId") == "subnet-b");
  CHECK(r.Param("LaunchTemplateConfigs.1.Overrides.1.Priority") == "0.025000");
  CHECK(r.ParamsWithPrefix("TagSpecification.3.ResourceType").at(0).second == "fleet");
  auto launched = f.ec2->instances();
  REQUIRE(launched.size() == 1);
  const FakeInstance& inst = launched.begin()->second;
  CHECK(inst.tags.at("karpenter.sh/nodepool") == "default");
  CHECK(inst.tags.at("kubernetes.io/cluster/test-cluster") == "owned");
  CHECK(inst.tags.at("eks:eks-cluster-name") == "test-cluster");
  CHECK(inst.tags.at("karpenter.k8s.aws/ec2nodeclass") == "default");
  CHECK(inst.tags.at("karpenter.sh/nodeclaim") == "default-1");
  CHECK(cache.Size(absl::Now()) == 0);
}

TEST_CASE("AWS provider reports a partial fleet's capacity errors", "[aws][provider]") {
  Fixture f;
  f.ec2->FailCapacity("spot", "m6g.large", "us-east-1a");
  auto provider = f.Provider();
  absl::StatusOr<InstanceCatalog> catalog = provider->Catalog(NodePool());
  REQUIRE(catalog.ok());
  UnavailableOfferings cache;
  Launcher launcher(provider.get(), &cache);
  const absl::Time now = absl::Now();
  absl::StatusOr<Instance> i = launcher.Launch(Claim(), *catalog, now);
  REQUIRE(i.ok());
  CHECK(i->instance_type == "m6g.large");
  CHECK(i->zone == "us-east-1b");
  CHECK(f.ec2->fleet_calls() == 1);
  CHECK(cache.IsUnavailable("spot", "m6g.large", "us-east-1a", now));
  CHECK_FALSE(cache.IsUnavailable("spot", "m6g.large", "us-east-1b", now));
  CHECK(cache.Size(now) == 1);
}

TEST_CASE("AWS provider falls back from spot to on-demand after insufficient capacity",
          "[aws][provider]") {
  Fixture f;
  for (const auto& [type, zones] : f.spot) {
    for (const auto& [zone, price] : zones) f.ec2->FailCapacity("spot", type, zone);
  }
  auto provider = f.Provider();
  absl::StatusOr<InstanceCatalog> catalog = provider->Catalog(NodePool());
  REQUIRE(catalog.ok());
  UnavailableOfferings cache;
  Launcher launcher(provider.get(), &cache);
  const absl::Time now = absl::Now();
  absl::StatusOr<Instance> i = launcher.Launch(Claim(), *catalog, now);
  REQUIRE(i.ok());
  CHECK(i->capacity_type == "on-demand");
  CHECK(i->instance_type == "m6g.large");
  CHECK(f.ec2->fleet_calls() == 2);
  CHECK(cache.Size(now) == 5);
  std::vector<FakeRequest> fleets = f.Requests("CreateFleet");
  REQUIRE(fleets.size() == 2);
  CHECK(fleets[1].Param("TargetCapacitySpecification.DefaultTargetCapacityType") == "on-demand");
  CHECK(fleets[1].Param("OnDemandOptions.AllocationStrategy") == "lowest-price");
  CHECK(fleets[1].Param("SpotOptions.AllocationStrategy").empty());

  // Everything exhausted: ResourceExhausted naming the claim.
  for (const char* type : {"m6g.large", "m5.large", "c5.xlarge"}) {
    for (const std::string& zone : kZones) f.ec2->FailCapacity("on-demand", type, zone);
  }
  UnavailableOfferings fresh;
  Launcher again(provider.get(), &fresh);
  absl::StatusOr<Instance> none = again.Launch(Claim(), *catalog, now);
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(std::string(none.status().message()).find("default-1") != std::string::npos);
  CHECK(fresh.Size(now) == 11);
}

TEST_CASE("AWS provider caps CreateFleet at 60 instance types", "[aws][provider]") {
  Fixture f;
  auto provider = f.Provider();
  LaunchRequest request;
  request.claim = Claim();
  for (int t = 0; t < 70; ++t) {
    for (const std::string& zone : kZones) {
      request.options.push_back(
          {"t" + std::to_string(100 + t) + ".large", zone, "on-demand", 0.01 * (t + 1)});
    }
  }
  std::vector<LaunchOption> failed;
  absl::StatusOr<Instance> i = provider->Create(request, &failed);
  REQUIRE(i.ok());
  std::vector<std::string> overrides = Overrides(f.Requests("CreateFleet").at(0));
  CHECK(overrides.size() == 120);
  std::set<std::string> types;
  for (const std::string& o : overrides) types.insert(o.substr(0, o.find('/')));
  CHECK(types.size() == 60);
  CHECK(types.count("t159.large") == 1);
  CHECK(types.count("t160.large") == 0);
}

TEST_CASE("AWS provider retries throttled launches and gives up on repeated 500s",
          "[aws][provider]") {
  Fixture f;
  auto provider = f.Provider();
  absl::StatusOr<InstanceCatalog> catalog = provider->Catalog(NodePool());
  REQUIRE(catalog.ok());
  f.server->ThrottleNext("CreateFleet", 2);
  UnavailableOfferings cache;
  Launcher launcher(provider.get(), &cache);
  REQUIRE(launcher.Launch(Claim(), *catalog, absl::Now()).ok());
  CHECK(f.sleeps.size() == 2);
  CHECK(f.server->Count("CreateFleet") == 3);

  f.server->FailNext("CreateFleet", 5, 500);
  absl::StatusOr<Instance> failed = launcher.Launch(Claim(), *catalog, absl::Now());
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.status().code() == absl::StatusCode::kUnavailable);
  CHECK(std::string(failed.status().message()).find("EC2 CreateFleet") == 0);
  CHECK(f.server->Count("CreateFleet") == 8);
}

TEST_CASE("AWS provider reports malformed discovery responses with the XML path",
          "[aws][provider]") {
  Fixture f;
  f.server->MalformedNext("DescribeInstanceTypes", 1);
  auto provider = f.Provider();
  absl::StatusOr<std::vector<InstanceType>> types = provider->GetInstanceTypes(NodePool());
  REQUIRE_FALSE(types.ok());
  CHECK(types.status().code() == absl::StatusCode::kInternal);
  CHECK(std::string(types.status().message()).find("EC2 DescribeInstanceTypes: malformed XML") ==
        0);

  f.server->RespondNext(
      "DescribeInstanceTypes", 1,
      FakeResponse::Xml(Ec2Xml("DescribeInstanceTypes",
                               "<instanceTypeSet><item><instanceType>x1.large</instanceType>"
                               "<vCpuInfo><defaultVCpus>two</defaultVCpus></vCpuInfo>"
                               "</item></instanceTypeSet>")));
  types = provider->GetInstanceTypes(NodePool());
  REQUIRE_FALSE(types.ok());
  CHECK(types.status().code() == absl::StatusCode::kInternal);
  const std::string msg(types.status().message());
  CHECK(msg.find("instanceTypeSet/item[1] (x1.large)/vCpuInfo/defaultVCpus") != std::string::npos);
  CHECK(msg.find("\"two\"") != std::string::npos);
  // The next discovery works again.
  CHECK(provider->GetInstanceTypes(NodePool()).ok());
}

TEST_CASE("AWS provider refuses to terminate an instance without the nodepool tag",
          "[aws][provider]") {
  Fixture f;
  FakeInstance foreign;
  foreign.id = "i-0000000000000f00d";
  foreign.type = "m5.large";
  foreign.zone = "us-east-1a";
  foreign.tags = {{"Name", "database"}, {"eks:eks-cluster-name", "test-cluster"}};
  f.ec2->AddInstance(foreign);
  FakeInstance ours = foreign;
  ours.id = "i-00000000000000abc";
  ours.tags = {{"karpenter.sh/nodepool", "default"},
               {"karpenter.k8s.aws/ec2nodeclass", "default"},
               {"eks:eks-cluster-name", "test-cluster"}};
  f.ec2->AddInstance(ours);
  auto provider = f.Provider();

  absl::Status refused = provider->Delete("aws:///us-east-1a/i-0000000000000f00d");
  CHECK(refused.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(refused.message()).find("karpenter.sh/nodepool") != std::string::npos);
  CHECK(f.server->Count("TerminateInstances") == 0);
  CHECK(f.ec2->instances().at(foreign.id).state == "running");

  REQUIRE(provider->Delete("aws:///us-east-1a/i-00000000000000abc").ok());
  CHECK(f.ec2->instances().at(ours.id).state == "terminated");
  CHECK(f.server->Count("TerminateInstances") == 1);
  // Gone: NotFound for Delete and Get.
  CHECK(provider->Delete("aws:///us-east-1a/i-00000000000000abc").code() ==
        absl::StatusCode::kNotFound);
  CHECK(provider->Get("aws:///us-east-1a/i-00000000000000abc").status().code() ==
        absl::StatusCode::kNotFound);
  // Unknown to EC2: NotFound from InvalidInstanceID.NotFound.
  CHECK(provider->Delete("aws:///us-east-1a/i-0123").code() == absl::StatusCode::kNotFound);
  CHECK(provider->Delete("gce://x").code() == absl::StatusCode::kInvalidArgument);
  CHECK(provider->Delete("aws:///us-east-1a/vol-1").code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("AWS provider Get and List read the karp-tagged instances", "[aws][provider]") {
  Fixture f;
  auto karp_instance = [](const std::string& id, const std::string& cluster) {
    FakeInstance i;
    i.id = id;
    i.type = "m5.large";
    i.zone = "us-east-1b";
    i.tags = {{"karpenter.sh/nodepool", "pool-x"},
              {"karpenter.k8s.aws/ec2nodeclass", "default"},
              {"eks:eks-cluster-name", cluster}};
    return i;
  };
  f.ec2->AddInstance(karp_instance("i-00000000000000003", "test-cluster"));
  f.ec2->AddInstance(karp_instance("i-00000000000000001", "test-cluster"));
  f.ec2->AddInstance(karp_instance("i-00000000000000002", "other-cluster"));
  FakeInstance spot = karp_instance("i-00000000000000004", "test-cluster");
  spot.lifecycle = "spot";
  f.ec2->AddInstance(spot);
  auto provider = f.Provider();
  absl::StatusOr<std::vector<Instance>> list = provider->List();
  REQUIRE(list.ok());
  REQUIRE(list->size() == 3);
  CHECK((*list)[0].provider_id == "aws:///us-east-1b/i-00000000000000001");
  CHECK((*list)[1].provider_id == "aws:///us-east-1b/i-00000000000000003");
  CHECK((*list)[0].node_pool == "pool-x");
  CHECK((*list)[0].capacity_type == "on-demand");
  CHECK((*list)[0].price == *EmbeddedAwsOnDemandPrice("m5.large"));
  CHECK((*list)[2].capacity_type == "spot");
  std::vector<FakeRequest> reqs = f.Requests("DescribeInstances");
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].Param("Filter.3.Name") == "tag:eks:eks-cluster-name");
  CHECK(reqs[0].Param("MaxResults") == "1000");

  absl::StatusOr<Instance> got = provider->Get("aws:///us-east-1b/i-00000000000000001");
  REQUIRE(got.ok());
  CHECK(got->instance_type == "m5.large");
  CHECK(got->launched_at == absl::FromUnixSeconds(1714557600));

  REQUIRE(provider
              ->TagInstance("aws:///us-east-1b/i-00000000000000001",
                            {{"Name", "node-1"}, {"karpenter.sh/nodeclaim", "pool-x-1"}})
              .ok());
  CHECK(f.ec2->instances().at("i-00000000000000001").tags.at("Name") == "node-1");
  CHECK(provider->TagInstance("aws:///us-east-1b/i-0000000000000dead", {{"Name", "x"}}).code() ==
        absl::StatusCode::kNotFound);

  // A spot interruption marks the instance's offering unavailable.
  absl::StatusOr<AwsInterruptionMessage> m = ParseEventBridgeMessage(
      R"({"version":"0","id":"1","detail-type":"EC2 Spot Instance Interruption Warning",
          "source":"aws.ec2","time":"2024-05-01T10:00:00Z",
          "detail":{"instance-id":"i-00000000000000004","instance-action":"terminate"}})");
  REQUIRE(m.ok());
  UnavailableOfferings cache;
  const absl::Time now = absl::Now();
  absl::StatusOr<int> marked = provider->MarkInterruptedOfferings(*m, &cache, now);
  REQUIRE(marked.ok());
  CHECK(*marked == 1);
  CHECK(cache.IsUnavailable("spot", "m5.large", "us-east-1b", now));
}

TEST_CASE("AWS provider options are validated and secrets stay out of errors", "[aws][provider]") {
  Fixture f;
  AwsCloudProviderOptions o = f.Options();
  o.cluster_name = "";
  CHECK(AwsCloudProvider::Create(o).status().code() == absl::StatusCode::kInvalidArgument);
  o = f.Options();
  o.tags = {{"karpenter.sh/nodepool", "x"}};
  CHECK(AwsCloudProvider::Create(o).status().code() == absl::StatusCode::kInvalidArgument);
  o = f.Options();
  o.launch_template_name = "";
  CHECK(AwsCloudProvider::Create(o).status().code() == absl::StatusCode::kInvalidArgument);

  // Every error a wrong-secret provider produces is free of both secrets.
  o = f.Options();
  o.client.credentials = Credentials(std::string(testing::kTestAccessKeyId),
                                     "WRONG-secret-value-42", "session-TOKEN-value-43");
  auto provider = f.Provider(o);
  std::vector<absl::Status> errors;
  errors.push_back(provider->GetInstanceTypes(NodePool()).status());
  errors.push_back(provider->List().status());
  errors.push_back(provider->Delete("aws:///us-east-1a/i-0000000000000abcd"));
  LaunchRequest request;
  request.claim = Claim();
  request.options = {{"m5.large", "us-east-1a", "on-demand", 0.1}};
  errors.push_back(provider->Create(request, nullptr).status());
  for (const absl::Status& s : errors) {
    INFO(s.ToString());
    CHECK(s.code() == absl::StatusCode::kPermissionDenied);
    const std::string text = s.ToString();
    CHECK(text.find("WRONG-secret-value-42") == std::string::npos);
    CHECK(text.find("session-TOKEN-value-43") == std::string::npos);
    CHECK(text.find(std::string(testing::kTestSecretAccessKey)) == std::string::npos);
  }
}

}  // namespace
}  // namespace karp::aws
