// Unit tests of the pricing seam (karp/pricing.h): the list-price model, and the commitment
// model's marginal costs and bills, each against a bill computed by hand in the comment above
// the check. Prices: m5.large $0.10/h, m5.xlarge $0.20/h, m5.2xlarge $0.40/h, c5.large
// $0.08/h on demand in us-east-1.

#include "karp/pricing.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "karp/aws_catalog.h"
#include "karp/catalog.h"

namespace {

using karp::Commitments;
using karp::CostBreakdown;
using karp::PricedInstance;
using karp::PricingLedger;
using karp::PricingModel;

const absl::Time kNow = absl::FromUnixSeconds(1780000000);  // 2026-05-28

PricedInstance OD(std::string type, double price, std::string zone = "us-east-1a") {
  return {std::move(type), std::move(zone), "on-demand", price, ""};
}
PricedInstance Spot(std::string type, double price) {
  return {std::move(type), "us-east-1a", "spot", price, ""};
}

std::shared_ptr<const PricingModel> Model(Commitments c) {
  auto m = karp::MakeCommitmentPricing(std::move(c), kNow);
  INFO(m.status().message());
  REQUIRE(m.ok());
  return *m;
}

karp::ReservedInstance Ri(std::string id, std::string type, int64_t count, std::string region,
                          std::string zone = "", bool flexible = false) {
  karp::ReservedInstance ri;
  ri.id = std::move(id);
  ri.instance_type = std::move(type);
  ri.count = count;
  ri.region = std::move(region);
  ri.zone = std::move(zone);
  ri.size_flexible = flexible;
  return ri;
}

karp::SavingsPlan Sp(std::string id, karp::SavingsPlanType type, double commitment,
                     double discount) {
  karp::SavingsPlan sp;
  sp.id = std::move(id);
  sp.type = type;
  sp.hourly_commitment = commitment;
  sp.default_discount = discount;
  return sp;
}

// Capacity reservation cr-1: `count` c5.large in us-east-1a, `available` of them free.
karp::CapacityReservation Cr(int64_t count, int64_t available) {
  karp::CapacityReservation cr;
  cr.id = "cr-1";
  cr.instance_type = "c5.large";
  cr.zone = "us-east-1a";
  cr.count = count;
  cr.available = available;
  return cr;
}

// Adds `p` and returns the marginal cost it was charged (checking Marginal agreed).
double Charge(PricingLedger& ledger, const PricedInstance& p) {
  const double m = ledger.Marginal(p);
  const double before = ledger.Bill().effective;
  ledger.Add(p);
  CHECK(ledger.Bill().effective - before == Approx(m));
  return m;
}

TEST_CASE("the list-price model charges every instance its list price", "[pricing]") {
  PricingModel list;
  auto ledger = list.Start({OD("m5.large", 0.10), Spot("m5.large", 0.04)});
  CHECK(ledger->Marginal(OD("m5.xlarge", 0.20)) == 0.20);
  ledger->Add(OD("m5.xlarge", 0.20));
  const CostBreakdown b = ledger->Bill();
  CHECK(b.committed == 0);
  CHECK(b.on_demand == Approx(0.30));
  CHECK(b.spot == Approx(0.04));
  CHECK(b.total() == Approx(0.34));
  CHECK(b.effective == Approx(0.34));
}

TEST_CASE("a zonal RI covers one instance of its type in its zone only", "[pricing]") {
  Commitments c;
  c.reserved_instances.push_back(Ri("ri-1", "m5.large", 1, "", "us-east-1a"));
  c.reserved_instances[0].hourly_price = 0.06;
  auto ledger = Model(c)->Start({});
  CHECK(ledger->Marginal(OD("m5.large", 0.10, "us-east-1b")) == Approx(0.10));  // other zone
  CHECK(ledger->Marginal(OD("m5.xlarge", 0.20)) == Approx(0.20));               // other size
  CHECK(Charge(*ledger, OD("m5.large", 0.10)) == 0);                            // covered
  CHECK(Charge(*ledger, OD("m5.large", 0.10)) == Approx(0.10));                 // RI used up
  // Bill: RI fee 0.06 committed, one m5.large at list 0.10.
  CHECK(ledger->Bill().committed == Approx(0.06));
  CHECK(ledger->Bill().on_demand == Approx(0.10));
  CHECK(ledger->Bill().total() == Approx(0.16));
}

TEST_CASE("a size-flexible regional RI covers its family by normalized units", "[pricing]") {
  Commitments c;
  // 1 x m5.xlarge = 8 units: two m5.large (4 units each), or half an m5.2xlarge (16 units).
  c.reserved_instances.push_back(Ri("ri-1", "m5.xlarge", 1, "us-east-1", "", true));
  auto model = Model(c);
  auto ledger = model->Start({});
  CHECK(Charge(*ledger, OD("m5.large", 0.10, "us-east-1b")) == 0);
  CHECK(Charge(*ledger, OD("m5.large", 0.10, "us-east-1c")) == 0);
  CHECK(Charge(*ledger, OD("m5.large", 0.10)) == Approx(0.10));
  auto fresh = model->Start({});
  CHECK(fresh->Marginal(OD("m5.2xlarge", 0.40)) == Approx(0.20));              // half of 0.40
  CHECK(fresh->Marginal(OD("c5.large", 0.08)) == Approx(0.08));                // other family
  CHECK(fresh->Marginal(OD("m5.large", 0.10, "eu-west-1a")) == Approx(0.10));  // other region
  CHECK(fresh->Marginal(Spot("m5.large", 0.04)) == Approx(0.04));  // spot is never covered
}

TEST_CASE("a Savings Plan charges its discounted rate until the commitment is used up",
          "[pricing]") {
  Commitments c;
  // Compute plan: $0.15/h, 25% off everything.
  c.savings_plans.push_back(Sp("sp-1", karp::SavingsPlanType::kCompute, 0.15, 0.25));
  auto model = Model(c);
  auto ledger = model->Start({});
  // c5.large at 0.06 (0.08 x 0.75): two fit the commitment (0.12), the third gets 0.03 of it,
  // covering half its hour (0.03 / 0.06), the other half at list: 0.03 + 0.04 = 0.07.
  CHECK(Charge(*ledger, OD("c5.large", 0.08)) == Approx(0.06));
  CHECK(Charge(*ledger, OD("c5.large", 0.08)) == Approx(0.06));
  CHECK(Charge(*ledger, OD("c5.large", 0.08)) == Approx(0.07));
  CHECK(Charge(*ledger, OD("c5.large", 0.08)) == Approx(0.08));
  const CostBreakdown b = ledger->Bill();
  CHECK(b.committed == Approx(0.15));
  CHECK(b.discounted == Approx(0.15));
  CHECK(b.on_demand == Approx(0.04 + 0.08));
  CHECK(b.total() == Approx(0.27));  // 0.15 committed + 0.12 on demand
  CHECK(b.effective == Approx(0.27));
}

TEST_CASE("EC2 Instance plans apply before Compute plans, to their family and region only",
          "[pricing]") {
  Commitments c;
  karp::SavingsPlan ec2 = Sp("sp-ec2", karp::SavingsPlanType::kEc2Instance, 0.07, 0.30);
  ec2.family = "m5";
  ec2.region = "us-east-1";
  c.savings_plans.push_back(ec2);
  karp::SavingsPlan compute = Sp("sp-compute", karp::SavingsPlanType::kCompute, 0.05, 0.20);
  compute.discounts = {{"m5", 0.10}, {"m5.xlarge", 0.15}};
  c.savings_plans.push_back(compute);
  auto ledger = Model(c)->Start({});
  // m5.large: EC2 plan rate 0.07 uses it all.
  CHECK(Charge(*ledger, OD("m5.large", 0.10)) == Approx(0.07));
  // c5.large: not m5, Compute plan default 20%: 0.064 > 0.05 left, so 0.05 covers 0.05/0.064
  // of the hour, the rest at list: 0.05 + (1 - 0.78125) x 0.08 = 0.0675.
  CHECK(Charge(*ledger, OD("c5.large", 0.08)) == Approx(0.0675));
  auto other = Model(c)->Start({});
  // m5.xlarge in eu-west-1: EC2 plan is us-east-1 only; Compute's type discount 15%: 0.17,
  // of which 0.05 is covered: 0.05 + (1 - 0.05/0.17) x 0.20.
  CHECK(other->Marginal(OD("m5.xlarge", 0.20, "eu-west-1a")) ==
        Approx(0.05 + (1 - 0.05 / 0.17) * 0.20));
}

TEST_CASE("capacity reservations: launches into free capacity cost nothing", "[pricing]") {
  Commitments c;
  c.capacity_reservations.push_back(Cr(2, 2));
  c.capacity_reservations[0].hourly_price = 0.08;
  PricedInstance reserved{"c5.large", "us-east-1a", "reserved", 0.08, "cr-1"};
  PricedInstance unlabelled{"c5.large", "us-east-1a", "reserved", 0.08, ""};
  auto ledger = Model(c)->Start({});
  CHECK(Charge(*ledger, reserved) == 0);
  CHECK(Charge(*ledger, unlabelled) == 0);  // matched by type and zone
  CHECK(Charge(*ledger, reserved) == Approx(0.08));
  CHECK(ledger->Bill().committed == Approx(0.16));  // 2 x 0.08 whether used or not
}

TEST_CASE("RIs before Savings Plans, and what runs is added in canonical order", "[pricing]") {
  Commitments c;
  c.reserved_instances.push_back(Ri("ri-1", "m5.large", 1, "us-east-1"));
  c.savings_plans.push_back(Sp("sp-1", karp::SavingsPlanType::kCompute, 0.075, 0.25));
  auto model = Model(c);
  std::vector<PricedInstance> fleet = {OD("m5.large", 0.10), OD("m5.large", 0.10),
                                       OD("m5.large", 0.10)};
  // RI: the first (0); SP: the second at 0.075 (uses it all); the third at list 0.10.
  CHECK(model->EffectiveCost(fleet) == Approx(0.175));
  std::vector<PricedInstance> a = {OD("c5.large", 0.08), OD("m5.large", 0.10)};
  std::vector<PricedInstance> b = {OD("m5.large", 0.10), OD("c5.large", 0.08)};
  CHECK(model->EffectiveCost(a) == model->EffectiveCost(b));
}

TEST_CASE("commitments past their end date are ignored", "[pricing]") {
  Commitments c;
  c.reserved_instances.push_back(Ri("ri-old", "m5.large", 1, "us-east-1"));
  c.reserved_instances[0].end = kNow - absl::Hours(1);
  c.reserved_instances.push_back(Ri("ri-new", "c5.large", 1, "us-east-1"));
  c.reserved_instances[1].end = kNow + absl::Hours(1);
  auto ledger = Model(c)->Start({});
  CHECK(ledger->Marginal(OD("m5.large", 0.10)) == Approx(0.10));
  CHECK(ledger->Marginal(OD("c5.large", 0.08)) == 0);
}

TEST_CASE("normalization factors: the standard table and overrides", "[pricing]") {
  CHECK(karp::NormalizationFactor("m5.large", {}) == 4);
  CHECK(karp::NormalizationFactor("t3.nano", {}) == 0.25);
  CHECK(karp::NormalizationFactor("m5.24xlarge", {}) == 192);
  CHECK_FALSE(karp::NormalizationFactor("m5.metal", {}).has_value());
  CHECK(karp::NormalizationFactor("m5.metal", {{"metal", 192}}) == 192);
  CHECK(karp::NormalizationFactor("m5.metal", {{"metal", 192}, {"m5.metal", 200}}) == 200);
}

TEST_CASE("invalid commitments are errors naming the object and field", "[pricing]") {
  auto message = [](const Commitments& c) { return std::string(c.Validate().message()); };
  Commitments c;
  c.reserved_instances.push_back(Ri("ri-1", "m5.large", 0, "us-east-1"));
  CHECK(message(c) == "reservedInstances[0].count: must be > 0");
  c.reserved_instances[0] = Ri("ri-1", "m5.large", 1, "us-east-1", "us-east-1a");
  CHECK(message(c) ==
        "reservedInstances[0].region: exactly one of region and availabilityZone is required");
  c.reserved_instances[0] = Ri("ri-1", "m5.large", 1, "", "us-east-1a", true);
  CHECK(message(c) ==
        "reservedInstances[0].sizeFlexible: zonal reservations are not size-flexible");
  c.reserved_instances[0] = Ri("ri-1", "m5.large", 1, "us-east-1");
  c.reserved_instances.push_back(c.reserved_instances[0]);
  CHECK(message(c) == "reservedInstances[1].id: duplicate \"ri-1\"");
  c.reserved_instances.pop_back();
  c.savings_plans.push_back(Sp("sp-1", karp::SavingsPlanType::kCompute, 1, 1.0));
  CHECK(message(c) == "savingsPlans[0].discount: must be in [0, 1)");
  c.savings_plans[0] = Sp("sp-1", karp::SavingsPlanType::kEc2Instance, 1, 0.2);
  CHECK(message(c) == "savingsPlans[0].region: required for an EC2Instance plan");
  c.savings_plans.clear();
  c.capacity_reservations.push_back(Cr(1, 2));
  CHECK(message(c) == "capacityReservations[0].available: must be from 0 to count");
  CHECK_FALSE(karp::MakeCommitmentPricing(c, kNow).ok());
}

TEST_CASE("commitments the catalog cannot use are named, not dropped silently", "[pricing]") {
  karp::AwsCatalogOptions options;
  options.region = "us-east-1";
  absl::StatusOr<karp::InstanceCatalog> catalog = karp::EmbeddedAwsCatalog(options);
  REQUIRE(catalog.ok());
  Commitments c;
  c.reserved_instances = {
      Ri("ri-ok", "m5.large", 1, "us-east-1"), Ri("ri-type", "m5.nonexistent", 1, "us-east-1"),
      Ri("ri-region", "m5.large", 1, "mars-1"), Ri("ri-zone", "m5.large", 1, "", "us-west-2a"),
      Ri("ri-family", "zz9.large", 1, "us-east-1", "", true)};
  karp::SavingsPlan sp = Sp("sp-1", karp::SavingsPlanType::kEc2Instance, 1, 0.1);
  sp.family = "m5";
  sp.region = "eu-west-1";
  c.savings_plans = {sp};
  CHECK(karp::UnmatchedCommitments(c, *catalog) ==
        std::vector<std::string>{
            // Each message is one literal split over two lines.
            // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
            "reservedInstances[1] (ri-type): instance type m5.nonexistent is not in the "
            "catalog; it lowers no price",
            "reservedInstances[2] (ri-region): region mars-1 has no zone in the catalog; it "
            "lowers no price",
            "reservedInstances[3] (ri-zone): zone us-west-2a has no offering in the catalog; it "
            "lowers no price",
            "reservedInstances[4] (ri-family): no instance type of family zz9 is in the "
            "catalog; it lowers no price",
            "savingsPlans[0] (sp-1): region eu-west-1 has no zone in the catalog; it lowers no "
            "price"});
  c.reserved_instances.resize(1);
  c.savings_plans.clear();
  CHECK(karp::UnmatchedCommitments(c, *catalog).empty());
}

}  // namespace
