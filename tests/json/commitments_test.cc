// The commitments codec (karp/json/commitments.h): the bundled example, round trips, and
// errors naming the source, object and field.

#include "karp/json/commitments.h"

#include <catch2/catch.hpp>
#include <string>
#include "support/source_dir.h"

namespace {

using karp::json::ParseCommitments;

std::string ErrorOf(const std::string& text) {
  auto c = ParseCommitments(text, "c.yaml");
  return c.ok() ? "<ok>" : std::string(c.status().message());
}

TEST_CASE("the bundled commitments example reads and round-trips", "[json][commitments]") {
  auto c = karp::json::ReadCommitmentsFile(karp::testing::SourceDir() +
                                           "/examples/commitments/commitments.yaml");
  INFO(c.status().message());
  REQUIRE(c.ok());
  REQUIRE(c->reserved_instances.size() == 1);
  CHECK(c->reserved_instances[0].instance_type == "m5.xlarge");
  CHECK(c->reserved_instances[0].size_flexible);
  CHECK(c->reserved_instances[0].count == 2);
  CHECK(c->reserved_instances[0].end.has_value());
  REQUIRE(c->savings_plans.size() == 1);
  CHECK(c->savings_plans[0].type == karp::SavingsPlanType::kCompute);
  CHECK(c->savings_plans[0].hourly_commitment == 0.10);
  CHECK(c->savings_plans[0].discounts.at("c6i") == 0.30);
  REQUIRE(c->capacity_reservations.size() == 1);
  CHECK(c->capacity_reservations[0].available == 2);
  CHECK_FALSE(c->capacity_reservations[0].targeted);
  const std::string written = karp::json::WriteCommitments(*c);
  auto again = ParseCommitments(written, "written");
  INFO(written);
  REQUIRE(again.ok());
  CHECK(karp::json::WriteCommitments(*again) == written);
  CHECK(again->reserved_instances[0].end == c->reserved_instances[0].end);
}

TEST_CASE("commitments: minimal documents and defaults", "[json][commitments]") {
  auto c = ParseCommitments(R"({"kind": "Commitments", "capacityReservations": [
      {"id": "cr-1", "instanceType": "c5.large", "availabilityZone": "us-east-1a", "count": 3,
       "instanceMatchCriteria": "targeted"}]})",
                            "c.json");
  INFO(c.status().message());
  REQUIRE(c.ok());
  CHECK(c->capacity_reservations[0].available == 3);  // defaults to count
  CHECK(c->capacity_reservations[0].targeted);
  CHECK(ParseCommitments("{}", "c.json").ok());
}

TEST_CASE("commitments: errors name the source, object and field", "[json][commitments]") {
  CHECK(ErrorOf("kind: Commitment\n") == "c.yaml: kind: must be Commitments");
  CHECK(ErrorOf("apiVersion: v1\n") == "c.yaml: apiVersion: must be karp.dev/v1alpha1");
  CHECK(ErrorOf("reservedInstance: []\n") ==
        "c.yaml: reservedInstance: unknown field; did you mean reservedInstances?");
  CHECK(ErrorOf("reservedInstances: {}\n") ==
        "c.yaml: reservedInstances: expected an array, got an object");
  CHECK(ErrorOf("reservedInstances: [{instanceType: m5.large, count: 1, region: r}]\n") ==
        "c.yaml: reservedInstances[0].id: required");
  CHECK(ErrorOf("reservedInstances: [{id: a, instanceType: m5.large, region: r}]\n") ==
        "c.yaml: reservedInstances[0].count: required");
  CHECK(ErrorOf("reservedInstances: [{id: a, instanceType: m5.large, region: r, count: 0}]\n") ==
        "c.yaml: reservedInstances[0].count: must be > 0");
  CHECK(ErrorOf("reservedInstances: [{id: a, instanceType: m5.large, region: r, count: 1, "
                "hourlyPrice: -1}]\n") ==
        "c.yaml: reservedInstances[0].hourlyPrice: must be a finite number >= 0");
  CHECK(ErrorOf("reservedInstances: [{id: a, instanceType: m5.large, region: r, count: 1, "
                "end: tomorrow}]\n")
            .rfind("c.yaml: reservedInstances[0].end: ", 0) == 0);
  CHECK(ErrorOf("savingsPlans: [{id: s, type: Spot, hourlyCommitment: 1}]\n") ==
        "c.yaml: savingsPlans[0].type: must be Compute or EC2Instance, got \"Spot\"");
  CHECK(ErrorOf("savingsPlans: [{id: s, type: Compute}]\n") ==
        "c.yaml: savingsPlans[0].hourlyCommitment: required");
  CHECK(ErrorOf("savingsPlans: [{id: s, type: Compute, hourlyCommitment: 1, "
                "discounts: {m5: 1.5}}]\n") ==
        "c.yaml: savingsPlans[0].discounts.m5: must be in [0, 1)");
  CHECK(ErrorOf("savingsPlans: [{id: s, type: Compute, hourlyCommitment: 1, "
                "discounts: {m5: x}}]\n") ==
        "c.yaml: savingsPlans[0].discounts.m5: expected a number, got a string");
  CHECK(ErrorOf("capacityReservations: [{id: c, instanceType: c5.large, count: 1}]\n") ==
        "c.yaml: capacityReservations[0].availabilityZone: required");
  CHECK(ErrorOf("capacityReservations: [{id: c, instanceType: c5.large, availabilityZone: z, "
                "count: 1, instanceMatchCriteria: any}]\n") ==
        "c.yaml: capacityReservations[0].instanceMatchCriteria: must be open or targeted, got "
        "\"any\"");
  CHECK(ErrorOf("normalizationFactors: {metal: 0}\n") ==
        "c.yaml: normalizationFactors.metal: must be a finite number > 0");
  CHECK(ErrorOf("[1, 2]\n").rfind("c.yaml: ", 0) == 0);
  CHECK(ErrorOf("a: 1\n---\nb: 2\n") == "c.yaml: expected exactly one commitments document");
}

}  // namespace
