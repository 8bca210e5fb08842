// NodeOverlay's validation, price arithmetic and order (karp/node_overlay.h), with the cases of
// the reference's own tables (docs/notes/nodeoverlay-reference.md §7f: AdjustedPrice,
// OrderByWeight and the validation tests of pkg/apis/v1alpha1).

#include "karp/node_overlay.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "karp/labels.h"

namespace {

using karp::NodeOverlay;
using karp::Operator;

NodeOverlay Base() {
  NodeOverlay o;
  o.metadata.name = "overlay";
  o.requirements.push_back({std::string(karp::kLabelCapacityType), Operator::kExists, {}, {}});
  return o;
}

NodeOverlay WithRequirement(std::string key, Operator op, std::vector<std::string> values) {
  NodeOverlay o = Base();
  o.requirements = {{std::move(key), op, std::move(values), {}}};
  return o;
}

}  // namespace

TEST_CASE("AdjustedPrice computes as the reference's table says", "[node_overlay]") {
  struct Case {
    const char* change;
    double base;
    double want;
  };
  const Case cases[] = {
      {"-10%", 10, 9},          {"+10%", 10, 11},
      {"-50%", 10, 5},          {"+100%", 10, 20},
      {"-100%", 10, 0},         {"-25%", 1.5, 1.125},
      {"+0", 10, 10},           {"+5", 10, 15},
      {"-2.5", 10, 7.5},        {"-10", 10, 0},
      {"-15", 10, 0},           {"+0.75", 1.25, 2.0},
      {"+100", 0.001, 100.001}, {"+0.0001", 0.0001, 0.0002},
      {"80.0", 82781, 80},      {"", 82781, 82781},
  };
  for (const Case& c : cases) {
    INFO("change \"" << c.change << "\" on " << c.base);
    absl::StatusOr<double> got = karp::AdjustedPrice(c.base, c.change);
    REQUIRE(got.ok());
    CHECK(*got == c.want);  // the reference compares exactly
  }
  // The reference's price tests: 0.096 + 0.01, 1.02 + 1000, -0.5 on 1.02 (disjoint overlays).
  CHECK(*karp::AdjustedPrice(0.096, "+0.01") == 0.096 + 0.01);
  CHECK(*karp::AdjustedPrice(1.02, "+1000") == 1001.02);
  CHECK(*karp::AdjustedPrice(1.02, "-0.5") == 1.02 - 0.5);
  // -200% is beyond the API's format (at most two integer digits below 0, or -100%).
  CHECK_FALSE(karp::AdjustedPrice(10, "-200%").ok());
  CHECK_FALSE(karp::AdjustedPrice(10, "ten").ok());
}

TEST_CASE("NodeOverlay price formats are the CRD's", "[node_overlay]") {
  for (const char* ok : {"43", "34.43", "0", "0.5"}) {
    INFO(ok);
    CHECK(karp::IsOverlayPrice(ok));
  }
  for (const char* bad : {"+42", ".5", "42.", "42%", "3,14", "1e10", "0x42", "42a", " 42", "42 ",
                          "42.0.0", "-", ".", "-.42", ""}) {
    INFO("\"" << bad << "\"");
    CHECK_FALSE(karp::IsOverlayPrice(bad));
  }
  for (const char* ok : {"+5", "-2.5", "+.5", "-129", "+10%", "+100.102%", "+298%", "-1%", "-99.5%",
                         "-100%", "+0"}) {
    INFO(ok);
    CHECK(karp::IsOverlayPriceAdjustment(ok));
  }
  for (const char* bad : {"-100.0%", "-101.1%", "-200%", "1", "1%", "1.3", "+", "-", "+5.", "+%",
                          "--5", "+5%%", ""}) {
    INFO("\"" << bad << "\"");
    CHECK_FALSE(karp::IsOverlayPriceAdjustment(bad));
  }
}

TEST_CASE("ValidateNodeOverlay applies the reference's CRD and runtime rules", "[node_overlay]") {
  CHECK(karp::ValidateNodeOverlay(Base()).ok());

  NodeOverlay both = Base();
  both.price = "1";
  both.price_adjustment = "+1";
  CHECK_THAT(std::string(karp::ValidateNodeOverlay(both).message()),
             Catch::Contains("cannot set both"));

  NodeOverlay bad_price = Base();
  bad_price.price = "+42";
  CHECK_THAT(std::string(karp::ValidateNodeOverlay(bad_price).message()),
             Catch::Contains("spec.price"));
  NodeOverlay bad_adjustment = Base();
  bad_adjustment.price_adjustment = "-101.1%";
  CHECK_THAT(std::string(karp::ValidateNodeOverlay(bad_adjustment).message()),
             Catch::Contains("spec.priceAdjustment"));

  NodeOverlay fuse = Base();
  fuse.capacity.Set("smarter-devices/fuse", 1);
  CHECK(karp::ValidateNodeOverlay(fuse).ok());
  for (const char* name : {"cpu", "memory", "pods", "ephemeral-storage"}) {
    NodeOverlay o = Base();
    o.capacity.Set(name, 1);
    INFO(name);
    CHECK_THAT(std::string(karp::ValidateNodeOverlay(o).message()),
               Catch::Contains("spec.capacity"));
  }

  for (int32_t w : {0, 10001, -1}) {
    NodeOverlay o = Base();
    o.weight = w;
    INFO(w);
    CHECK_THAT(std::string(karp::ValidateNodeOverlay(o).message()), Catch::Contains("spec.weight"));
  }
  NodeOverlay heavy = Base();
  heavy.weight = 10000;
  CHECK(karp::ValidateNodeOverlay(heavy).ok());
}

TEST_CASE("ValidateNodeOverlay checks requirements as the reference does", "[node_overlay]") {
  const std::string zone(karp::kLabelZone);
  // In and NotIn need values.
  CHECK_FALSE(karp::ValidateNodeOverlay(WithRequirement(zone, Operator::kIn, {})).ok());
  CHECK_FALSE(karp::ValidateNodeOverlay(WithRequirement(zone, Operator::kNotIn, {})).ok());
  // Valid and invalid keys.
  for (const char* key : {"Test", "test.com/Test", "test.com.com/test", "key-only"}) {
    INFO(key);
    CHECK(karp::ValidateNodeOverlay(WithRequirement(key, Operator::kExists, {})).ok());
  }
  for (const char* key : {"test.com.com}", "Test.com/test", "test/test/test", "test/", "/test"}) {
    INFO(key);
    CHECK_FALSE(karp::ValidateNodeOverlay(WithRequirement(key, Operator::kExists, {})).ok());
  }
  CHECK_FALSE(
      karp::ValidateNodeOverlay(
          WithRequirement("test.com.test/test-" + std::string(250, 'a'), Operator::kExists, {}))
          .ok());
  // The karpenter.sh domain is restricted but for capacity type and NodePool; so is hostname.
  CHECK(karp::ValidateNodeOverlay(
            WithRequirement(std::string(karp::kLabelNodePool), Operator::kIn, {"x"}))
            .ok());
  CHECK_FALSE(
      karp::ValidateNodeOverlay(WithRequirement("karpenter.sh/test", Operator::kIn, {"x"})).ok());
  CHECK_FALSE(
      karp::ValidateNodeOverlay(WithRequirement("sub.karpenter.sh/test", Operator::kIn, {"x"}))
          .ok());
  CHECK_FALSE(karp::ValidateNodeOverlay(
                  WithRequirement(std::string(karp::kLabelHostname), Operator::kIn, {"x"}))
                  .ok());
  for (const char* key : {"kubernetes.io/test", "k8s.io/test", "subdomain.kubernetes.io/test",
                          "subdomain.k8s.io/test"}) {
    INFO(key);
    CHECK(karp::ValidateNodeOverlay(WithRequirement(key, Operator::kIn, {"test"})).ok());
  }
  // Capacity types must be known for In.
  CHECK_FALSE(karp::ValidateNodeOverlay(
                  WithRequirement(std::string(karp::kLabelCapacityType), Operator::kIn, {"cheap"}))
                  .ok());
  // Numeric operators: exactly one integer >= 0.
  for (Operator op : {Operator::kGt, Operator::kLt, Operator::kGte, Operator::kLte}) {
    CHECK(karp::ValidateNodeOverlay(WithRequirement("example.com/size", op, {"1"})).ok());
    for (const std::vector<std::string>& values :
         std::vector<std::vector<std::string>>{{}, {"1", "2"}, {"a"}, {"-1"}}) {
      CHECK_FALSE(karp::ValidateNodeOverlay(WithRequirement("example.com/size", op, values)).ok());
    }
  }
}

TEST_CASE("NodeOverlays apply by weight, then by name descending", "[node_overlay]") {
  std::vector<NodeOverlay> overlays;
  for (const auto& [name, weight] : std::vector<std::pair<std::string, int>>{
           {"a", 10}, {"c", 10}, {"b", 20}, {"d", 0}, {"e", 10}}) {
    NodeOverlay o = Base();
    o.metadata.name = name;
    if (weight > 0) o.weight = weight;
    overlays.push_back(o);
  }
  karp::OrderNodeOverlays(overlays);
  std::vector<std::string> names;
  for (const NodeOverlay& o : overlays) names.push_back(o.metadata.name);
  CHECK(names == std::vector<std::string>{"b", "e", "c", "a", "d"});
}
