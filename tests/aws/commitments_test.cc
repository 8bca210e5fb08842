// The account's commitments from the local fake EC2 (karp/aws/commitments.h): Reserved
// Instances and capacity reservations as karp::Commitments, Savings Plans from a file, and
// launches into open capacity reservations through CreateFleet.

#include "karp/aws/commitments.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "aws/support/fake_aws_server.h"
#include "aws/support/fake_ec2.h"
#include "karp/aws/aws_cloud_provider.h"
#include "karp/cloud_provider.h"

namespace karp::aws {
namespace {

using testing::FakeAwsServer;
using testing::FakeCapacityReservation;
using testing::FakeEc2;
using testing::FakeInstance;
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

TEST_CASE("a reserved launch option goes to an open capacity reservation",
          "[aws][commitments]") {
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

}  // namespace
}  // namespace karp::aws
