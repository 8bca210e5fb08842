// The account's commitments from the local fake EC2 (karp/aws/commitments.h): Reserved
// Instances and capacity reservations as karp::Commitments, Savings Plans from a file, and
// launches into open capacity reservations through CreateFleet and into targeted ones through a
// launch template naming them.

#include "karp/aws/commitments.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "aws/nodeclass_test_util.h"
#include "aws/support/fake_aws_server.h"
#include "aws/support/fake_ec2.h"
#include "karp/aws/aws_cloud_provider.h"
#include "karp/cloud_provider.h"

namespace karp::aws {
namespace {

using testing::FakeAwsServer;
using testing::FakeCapacityReservation;
using testing::FakeEc2;
using testing::FakeRequest;

const std::vector<std::string> kZones = {"us-east-1a", "us-east-1b"};

// A regional, size-flexible 1-year partial-upfront m5.xlarge RI x3: $526 upfront over 8760 h
// plus $0.03/h recurring; and a zonal c5.xlarge RI x1, no upfront, $0.107/h.
const char* kRegionalRi =
    "<item><reservedInstancesId>ri-regional</reservedInstancesId>"
    "<instanceType>m5.xlarge</instanceType><scope>Region</scope><instanceCount>3</instanceCount>"
    "<end>2027-05-01T00:00:00.000Z</end><duration>31536000</duration>"
    "<fixedPrice>526.0</fixedPrice><usagePrice>0.0</usagePrice>"
    "<productDescription>Linux/UNIX</productDescription><instanceTenancy>default</instanceTenancy>"
    "<state>active</state><recurringCharges><item><frequency>Hourly</frequency>"
    "<amount>0.03</amount></item></recurringCharges></item>";
const char* kZonalRi =
    "<item><reservedInstancesId>ri-zonal</reservedInstancesId>"
    "<instanceType>c5.xlarge</instanceType><availabilityZone>us-east-1b</availabilityZone>"
    "<scope>Availability Zone</scope><instanceCount>1</instanceCount><duration>31536000</duration>"
    "<fixedPrice>0.0</fixedPrice><usagePrice>0.0</usagePrice>"
    "<productDescription>Linux/UNIX</productDescription><state>active</state>"
    "<recurringCharges><item><frequency>Hourly</frequency><amount>0.107</amount></item>"
    "</recurringCharges></item>";

struct Fixture {
  std::unique_ptr<FakeAwsServer> server;
  std::unique_ptr<FakeEc2> ec2;

  Fixture() {
    auto s = FakeAwsServer::Start();
    REQUIRE(s.ok());
    server = std::move(*s);
    ec2 = std::make_unique<FakeEc2>(server.get());
    for (const char* name : {"c5.xlarge", "m5.large"}) {
      ec2->AddInstanceType(testing::EmbeddedInfo(name), kZones);
    }
    ec2->SetOnDemandPrice("m5.large", 0.096);
    ec2->SetOnDemandPrice("c5.xlarge", 0.17);
  }

  AwsClientOptions Client() {
    AwsClientOptions o;
    o.region = "us-east-1";
    o.ec2_endpoint = server->endpoint();
    o.pricing_endpoint = server->endpoint();
    o.credentials = testing::TestCredentials();
    o.connect_timeout = absl::Seconds(2);
    o.request_timeout = absl::Seconds(5);
    o.sleep = [](absl::Duration) {};
    return o;
  }

  std::vector<FakeRequest> Requests(const std::string& action) {
    std::vector<FakeRequest> all = server->Requests();
    all.erase(std::remove_if(all.begin(), all.end(),
                             [&](const FakeRequest& r) { return r.action != action; }),
              all.end());
    return all;
  }
};

FakeCapacityReservation Cr(std::string id, std::string type, std::string zone, int total,
                           int available, std::string match = "open") {
  FakeCapacityReservation c;
  c.id = std::move(id);
  c.type = std::move(type);
  c.zone = std::move(zone);
  c.total = total;
  c.available = available;
  c.match = std::move(match);
  return c;
}

TEST_CASE("DescribeReservedInstances: scope, size flexibility and the hourly fee",
          "[aws][commitments]") {
  Fixture f;
  f.ec2->AddReservedInstancesXml(kRegionalRi);
  f.ec2->AddReservedInstancesXml(kZonalRi);
  auto ris = DescribeReservedInstances(f.Client());
  INFO(ris.status().message());
  REQUIRE(ris.ok());
  REQUIRE(ris->size() == 2);
  const ReservedInstance& regional = (*ris)[0];
  CHECK(regional.id == "ri-regional");
  CHECK(regional.region == "us-east-1");
  CHECK(regional.zone.empty());
  CHECK(regional.size_flexible);
  CHECK(regional.count == 3);
  CHECK(regional.hourly_price == Approx(526.0 / 8760 + 0.03));
  CHECK(regional.end == absl::FromCivil(absl::CivilDay(2027, 5, 1), absl::UTCTimeZone()));
  const ReservedInstance& zonal = (*ris)[1];
  CHECK(zonal.zone == "us-east-1b");
  CHECK(zonal.region.empty());
  CHECK_FALSE(zonal.size_flexible);
  CHECK(zonal.hourly_price == Approx(0.107));
  REQUIRE(f.Requests("DescribeReservedInstances").size() == 1);
  CHECK(f.Requests("DescribeReservedInstances")[0].Param("Filter.1.Name") == "state");
}

TEST_CASE("DescribeReservedInstances: a malformed item names its path", "[aws][commitments]") {
  Fixture f;
  f.ec2->AddReservedInstancesXml(
      "<item><reservedInstancesId>ri-1</reservedInstancesId><instanceType>m5.large"
      "</instanceType><scope>Region</scope></item>");
  auto ris = DescribeReservedInstances(f.Client());
  REQUIRE_FALSE(ris.ok());
  CHECK(ris.status().code() == absl::StatusCode::kInternal);
  CHECK(std::string(ris.status().message()) ==
        "EC2 DescribeReservedInstances: reservedInstancesSet/item[1]/instanceCount: missing");
}

TEST_CASE("DescribeCapacityReservations: every page, active only", "[aws][commitments]") {
  Fixture f;
  f.ec2->AddCapacityReservation(Cr("cr-1", "c5.xlarge", "us-east-1a", 4, 3));
  FakeCapacityReservation cancelled = Cr("cr-2", "m5.large", "us-east-1a", 2, 2);
  cancelled.state = "cancelled";
  f.ec2->AddCapacityReservation(cancelled);
  f.ec2->AddCapacityReservation(Cr("cr-3", "m5.large", "us-east-1b", 2, 0, "targeted"));
  auto crs = DescribeCapacityReservations(f.Client());
  INFO(crs.status().message());
  REQUIRE(crs.ok());
  REQUIRE(crs->size() == 2);
  CHECK((*crs)[0].id == "cr-1");
  CHECK((*crs)[0].count == 4);
  CHECK((*crs)[0].available == 3);
  CHECK_FALSE((*crs)[0].targeted);
  CHECK((*crs)[1].id == "cr-3");
  CHECK((*crs)[1].targeted);
  CHECK(f.Requests("DescribeCapacityReservations").size() == 2);  // one item per page
}

TEST_CASE("ReadAwsCommitments adds the Savings Plans of a file", "[aws][commitments]") {
  Fixture f;
  f.ec2->AddReservedInstancesXml(kZonalRi);
  f.ec2->AddCapacityReservation(Cr("cr-1", "c5.xlarge", "us-east-1a", 1, 1));
  const std::string path = "aws_commitments_test_sp.yaml";
  {
    std::ofstream out(path);
    out << "kind: Commitments\nsavingsPlans:\n  - {id: sp-1, type: Compute, "
           "hourlyCommitment: 0.5, discount: 0.2}\n";
  }
  auto c = ReadAwsCommitments(f.Client(), path);
  std::remove(path.c_str());
  INFO(c.status().message());
  REQUIRE(c.ok());
  CHECK(c->savings_plans.size() == 1);
  CHECK(c->reserved_instances.size() == 1);
  CHECK(c->capacity_reservations.size() == 1);
  CHECK_FALSE(ReadAwsCommitments(f.Client(), "no-such-file.yaml").ok());
}

TEST_CASE("a reserved launch option goes to an open capacity reservation", "[aws][commitments]") {
  Fixture f;
  f.ec2->AddCapacityReservation(Cr("cr-1", "c5.xlarge", "us-east-1a", 2, 1));
  AwsCloudProviderOptions o;
  o.cluster_name = "test-cluster";
  o.client = f.Client();
  o.launch_template_name = "karp-default";
  o.subnets = {{"us-east-1a", "subnet-a"}, {"us-east-1b", "subnet-b"}};
  auto provider = AwsCloudProvider::Create(o);
  REQUIRE(provider.ok());
  auto base = (*provider)->Catalog(NodePool());
  REQUIRE(base.ok());
  auto crs = DescribeCapacityReservations(f.Client());
  REQUIRE(crs.ok());
  Commitments c;
  c.capacity_reservations = *crs;
  auto catalog = WithCapacityReservations(*base, c);
  REQUIRE(catalog.ok());
  NewNodeClaim claim;
  claim.name = "default-1";
  claim.node_pool = "default";
  claim.instance_types = {"c5.xlarge"};
  claim.requirements.Set(Requirement::In("karpenter.sh/capacity-type", {"reserved", "on-demand"}));
  UnavailableOfferings cache;
  Launcher launcher(provider->get(), &cache);
  auto i = launcher.Launch(claim, *catalog, absl::Now());
  INFO(i.status().message());
  REQUIRE(i.ok());
  CHECK(i->capacity_type == "reserved");
  CHECK(i->zone == "us-east-1a");
  CHECK(i->labels.at("karpenter.sh/capacity-type") == "reserved");
  std::vector<FakeRequest> fleets = f.Requests("CreateFleet");
  REQUIRE(fleets.size() == 1);
  CHECK(fleets[0].Param("TargetCapacitySpecification.DefaultTargetCapacityType") == "on-demand");
  CHECK(fleets[0].Param("OnDemandOptions.CapacityReservationOptions.UsageStrategy") ==
        "use-capacity-reservations-first");
  auto launched = f.ec2->instances();
  REQUIRE(launched.size() == 1);
  CHECK(launched.begin()->second.capacity_reservation_id == "cr-1");
  CHECK(f.ec2->capacity_reservations()[0].available == 0);
  // Get reads it back as reserved capacity (capacityReservationId).
  auto got = (*provider)->Get(i->provider_id);
  REQUIRE(got.ok());
  CHECK(got->capacity_type == "reserved");
}

// EC2NodeClass mode over the fake's own subnets (us-east-1a, us-east-1b), group and image,
// knowing the capacity reservations `known`.
AwsCloudProviderOptions NodeClassOptions(Fixture& f, std::vector<CapacityReservation> known) {
  f.ec2->AddSubnet({"subnet-a", "us-east-1a", 100});
  f.ec2->AddSubnet({"subnet-b", "us-east-1b", 100});
  f.ec2->AddSecurityGroup("sg-nodes");
  f.ec2->AddImage({"ami-x86", "x86_64", "2024-08-01T00:00:00.000Z"});
  Ec2NodeClass nc;
  nc.metadata.name = "default";
  nc.instance_profile = "KarpenterNodeInstanceProfile";
  nc.ami_family = AwsAmiFamily::kAl2023;
  nc.ami_selector_terms = {testing::AmiIdTerm("ami-x86")};
  nc.subnet_selector_terms = {testing::SubnetId("subnet-a"), testing::SubnetId("subnet-b")};
  nc.security_group_selector_terms = {testing::GroupId("sg-nodes")};
  AwsCloudProviderOptions o;
  o.cluster_name = "test-cluster";
  o.client = f.Client();
  o.use_spot_price_history = false;
  o.node_classes = {nc};
  o.cluster.endpoint = "https://cluster.example";
  o.cluster.ca_bundle = "Q0E=";
  o.cluster.cidr = "10.100.0.0/16";
  o.capacity_reservations = std::move(known);
  return o;
}

NodePool ClassPool() {
  NodePool pool;
  pool.metadata.name = "default";
  pool.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  return pool;
}

// A c5.xlarge claim of pool "default" allowed `capacity_types`.
NewNodeClaim C5Claim(const std::string& name, std::vector<std::string> capacity_types) {
  NewNodeClaim claim;
  claim.name = name;
  claim.node_pool = "default";
  claim.instance_types = {"c5.xlarge"};
  claim.requirements.Set(Requirement::In("karpenter.sh/capacity-type", capacity_types));
  return claim;
}

// EC2NodeClass mode knowing every reservation of the fake; the catalog of pool "default" with
// the reservations `offered` (indexes into `crs`, all when empty) as reserved offerings.
struct ClassLaunch {
  std::vector<CapacityReservation> crs;
  std::unique_ptr<AwsCloudProvider> provider;
  InstanceCatalog catalog;

  explicit ClassLaunch(Fixture& f, std::vector<size_t> offered = {}) {
    auto described = DescribeCapacityReservations(f.Client());
    REQUIRE(described.ok());
    crs = *described;
    auto p = AwsCloudProvider::Create(NodeClassOptions(f, crs));
    INFO(p.status().message());
    REQUIRE(p.ok());
    provider = std::move(*p);
    auto base = provider->Catalog(ClassPool());
    INFO(base.status().message());
    REQUIRE(base.ok());
    Commitments c;
    for (size_t i = 0; i < crs.size(); ++i) {
      if (offered.empty() || std::count(offered.begin(), offered.end(), i) > 0) {
        c.capacity_reservations.push_back(crs[i]);
      }
    }
    auto with = WithCapacityReservations(*base, c);
    REQUIRE(with.ok());
    catalog = *std::move(with);
  }
};

int AvailableIn(const FakeEc2& ec2, const std::string& id) {
  for (const FakeCapacityReservation& c : ec2.capacity_reservations()) {
    if (c.id == id) return c.available;
  }
  FAIL("no reservation " << id);
  return -1;
}

const char* kTargetParam =
    "LaunchTemplateData.CapacityReservationSpecification.CapacityReservationTarget."
    "CapacityReservationId";

TEST_CASE("a reserved launch option goes to its targeted capacity reservation by name",
          "[aws][commitments]") {
  Fixture f;
  f.ec2->AddCapacityReservation(Cr("cr-t", "c5.xlarge", "us-east-1a", 2, 2, "targeted"));
  ClassLaunch l(f);
  UnavailableOfferings cache;
  Launcher launcher(l.provider.get(), &cache);
  auto i = launcher.Launch(C5Claim("default-1", {"reserved", "on-demand"}), l.catalog, absl::Now());
  INFO(i.status().message());
  REQUIRE(i.ok());
  CHECK(i->capacity_type == "reserved");
  CHECK(i->zone == "us-east-1a");
  auto launched = f.ec2->instances();
  REQUIRE(launched.size() == 1);
  CHECK(launched.begin()->second.capacity_reservation_id == "cr-t");
  CHECK(AvailableIn(*f.ec2, "cr-t") == 1);
  // One launch template names the reservation, and the fleet launched from it.
  std::vector<FakeRequest> templates = f.Requests("CreateLaunchTemplate");
  REQUIRE(templates.size() == 1);
  CHECK(templates[0].Param(kTargetParam) == "cr-t");
  std::vector<FakeRequest> fleets = f.Requests("CreateFleet");
  REQUIRE(fleets.size() == 1);
  CHECK(fleets[0].Param("LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName") ==
        templates[0].Param("LaunchTemplateName"));
  CHECK(fleets[0]
            .Param("LaunchTemplateConfigs.2.LaunchTemplateSpecification.LaunchTemplateName")
            .empty());
  CHECK(fleets[0].Param("TargetCapacitySpecification.DefaultTargetCapacityType") == "on-demand");
  auto got = l.provider->Get(i->provider_id);
  REQUIRE(got.ok());
  CHECK(got->capacity_type == "reserved");
  // An on-demand launch of the same class uses a template without the reservation.
  auto od = launcher.Launch(C5Claim("default-2", {"on-demand"}), l.catalog, absl::Now());
  REQUIRE(od.ok());
  CHECK(od->capacity_type == "on-demand");
  templates = f.Requests("CreateLaunchTemplate");
  REQUIRE(templates.size() == 2);
  CHECK(templates[1].Param(kTargetParam).empty());
  CHECK(AvailableIn(*f.ec2, "cr-t") == 1);
}

TEST_CASE("an open-reservation launch does not consume a targeted reservation",
          "[aws][commitments]") {
  Fixture f;
  f.ec2->AddCapacityReservation(Cr("cr-open", "c5.xlarge", "us-east-1b", 1, 1));
  f.ec2->AddCapacityReservation(Cr("cr-t", "c5.xlarge", "us-east-1b", 1, 1, "targeted"));
  ClassLaunch l(f, {0});  // the solver's catalog offers the open reservation only
  REQUIRE(l.crs.size() == 2);
  UnavailableOfferings cache;
  Launcher launcher(l.provider.get(), &cache);
  for (const char* name : {"default-1", "default-2"}) {
    auto i = launcher.Launch(C5Claim(name, {"reserved"}), l.catalog, absl::Now());
    INFO(i.status().message());
    REQUIRE(i.ok());
    CHECK(i->zone == "us-east-1b");
  }
  // The first went into cr-open; the second, with cr-open full, ran on demand beside cr-t.
  std::vector<std::string> in;
  for (const auto& [id, inst] : f.ec2->instances()) in.push_back(inst.capacity_reservation_id);
  std::sort(in.begin(), in.end());
  CHECK(in == std::vector<std::string>{"", "cr-open"});
  CHECK(AvailableIn(*f.ec2, "cr-open") == 0);
  CHECK(AvailableIn(*f.ec2, "cr-t") == 1);
  for (const FakeRequest& r : f.Requests("CreateLaunchTemplate")) {
    CHECK(r.Param(kTargetParam).empty());
  }
  for (const FakeRequest& r : f.Requests("CreateFleet")) {
    CHECK(r.Param("OnDemandOptions.CapacityReservationOptions.UsageStrategy") ==
          "use-capacity-reservations-first");
  }
}

TEST_CASE("an exhausted targeted reservation is insufficient capacity naming it",
          "[aws][commitments]") {
  Fixture f;
  f.ec2->AddCapacityReservation(Cr("cr-t", "c5.xlarge", "us-east-1a", 1, 1, "targeted"));
  ClassLaunch l(f);
  AwsCloudProvider* provider = l.provider.get();
  LaunchRequest request;
  request.claim = C5Claim("default-1", {"reserved"});
  request.options = {{"c5.xlarge", "us-east-1a", "reserved", 0.17, "cr-t"}};
  std::vector<LaunchOption> failed;
  REQUIRE(provider->Create(request, &failed).ok());
  CHECK(failed.empty());
  CHECK(AvailableIn(*f.ec2, "cr-t") == 0);
  request.claim.name = "default-2";
  auto full = provider->Create(request, &failed);
  REQUIRE_FALSE(full.ok());
  CHECK(full.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(std::string(full.status().message()) ==
        "insufficient capacity for nodeclaim default-2: ReservationCapacityExceeded "
        "(c5.xlarge/us-east-1a, capacity reservation cr-t)");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].capacity_type == "reserved");
  CHECK(failed[0].reservation_id == "cr-t");
  CHECK(f.ec2->instances().size() == 1);  // no fallback to on-demand inside the reservation's fleet
  // The Launcher caches the reservation's offering and falls back to on-demand.
  UnavailableOfferings cache;
  Launcher launcher(provider, &cache);
  auto i = launcher.Launch(C5Claim("default-3", {"reserved", "on-demand"}), l.catalog, absl::Now());
  INFO(i.status().message());
  REQUIRE(i.ok());
  CHECK(i->capacity_type == "on-demand");
  CHECK(cache.IsUnavailable("reserved", "c5.xlarge", "us-east-1a", absl::Now()));
}

TEST_CASE("static mode cannot name a targeted reservation", "[aws][commitments]") {
  Fixture f;
  f.ec2->AddCapacityReservation(Cr("cr-t", "c5.xlarge", "us-east-1a", 1, 1, "targeted"));
  auto crs = DescribeCapacityReservations(f.Client());
  REQUIRE(crs.ok());
  AwsCloudProviderOptions o;
  o.cluster_name = "test-cluster";
  o.client = f.Client();
  o.launch_template_name = "karp-default";
  o.capacity_reservations = *crs;
  auto provider = AwsCloudProvider::Create(o);
  REQUIRE(provider.ok());
  LaunchRequest request;
  request.claim = C5Claim("default-1", {"reserved"});
  request.options = {{"c5.xlarge", "us-east-1a", "reserved", 0.17, "cr-t"}};
  auto i = (*provider)->Create(request, nullptr);
  REQUIRE_FALSE(i.ok());
  CHECK(i.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(i.status().message()).find("capacity reservation cr-t is targeted") !=
        std::string::npos);
  CHECK(f.Requests("CreateFleet").empty());
}

}  // namespace
}  // namespace karp::aws
