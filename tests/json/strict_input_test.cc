// Careless input that used to change decisions silently (issue 36, group 1): catalog offerings
// of an unknown capacity type, two offerings of one zone and capacity type, absurd prices, and
// pods with two containers of one name are errors naming the file and the field.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "karp/instance_type.h"
#include "karp/json/codec.h"
#include "support/snapshot_checks.h"

namespace {

std::string CatalogError(const std::string& offerings) {
  absl::StatusOr<std::vector<karp::InstanceType>> types = karp::json::ParseInstanceTypes(
      R"({"instanceTypes": [{"name": "m.large", "capacity": {"cpu": "2"}, "offerings": [)" +
          offerings + "]}]}",
      "catalog.json");
  REQUIRE_FALSE(types.ok());
  CHECK(types.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(types.status().message());
}

TEST_CASE("Catalog offerings: capacity types, duplicates and prices are checked", "[input]") {
  CHECK(CatalogError(R"({"zone": "z1", "capacityType": "free", "price": 0})") ==
        "catalog.json: instanceTypes[0].offerings[0].capacityType: unsupported value \"free\"; "
        "expected on-demand, spot or reserved");
  CHECK(CatalogError(R"({"zone": "z1", "capacityType": "spot", "price": 0.1},
                        {"zone": "z2", "capacityType": "spot", "price": 0.1},
                        {"zone": "z1", "capacityType": "spot", "price": 0.05})") ==
        "catalog.json: instanceTypes[0].offerings[2]: duplicate offering (zone z1, capacity type "
        "spot; first at offerings[0])");
  CHECK(CatalogError(R"({"zone": "z1", "capacityType": "on-demand", "price": 1e308})") ==
        "catalog.json: instanceTypes[0].offerings[0].price: must be a number between 0 and "
        "1000000, got 1e+308");
  // Two reservations in one zone are two offerings.
  absl::StatusOr<std::vector<karp::InstanceType>> ok = karp::json::ParseInstanceTypes(
      R"({"instanceTypes": [{"name": "m.large", "capacity": {"cpu": "2"}, "offerings": [
          {"zone": "z1", "capacityType": "reserved", "price": 0, "reservationId": "cr-1"},
          {"zone": "z1", "capacityType": "reserved", "price": 0, "reservationId": "cr-2"},
          {"zone": "z1", "capacityType": "on-demand", "price": 0.1}]}]})",
      "catalog.json");
  INFO(ok.status().message());
  CHECK(ok.ok());
}

TEST_CASE("A pod's container names are unique across containers and init containers", "[input]") {
  CHECK(karp::testing::ParseError(R"({"apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "p"}, "spec": {
        "initContainers": [{"name": "app"}],
        "containers": [{"name": "web"}, {"name": "app"}]}})") ==
        "objects.json: spec.initContainers[0].name: duplicate container name \"app\" (also "
        "spec.containers[1].name)");
  CHECK(karp::testing::ParseError(R"({"apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "p"}, "spec": {"containers": [
        {"name": "c", "resources": {"limits": {"cpu": "-1"}}}]}})") ==
        "objects.json: spec.containers[0].resources.limits.cpu: invalid quantity \"-1\": must "
        "not be negative");
}

}  // namespace

namespace {

TEST_CASE("A NUL byte is named with its line, column and byte offset", "[input]") {
  using karp::testing::ParseError;
  const std::string yaml = std::string("apiVersion: v1\nkind: Pod\n") + '\0' + "metadata: {}\n";
  CHECK(ParseError(yaml, "pods.yaml") ==
        "pods.yaml: line 3, column 1 (byte offset 25): NUL byte (a JSON or YAML text cannot "
        "contain one)");
  // After a complete JSON document, where a reader of NUL-terminated text would stop.
  const std::string json = std::string(R"({"kind": "Pod", "metadata": {"name": "p"}})") + '\0';
  CHECK(ParseError(json) ==
        "objects.json: line 1, column 43 (byte offset 42): NUL byte (a JSON or YAML text "
        "cannot contain one)");
  CHECK(ParseError(std::string(3, '\0')).find("(byte offset 0): NUL byte") != std::string::npos);
  absl::StatusOr<std::vector<karp::InstanceType>> types =
      karp::json::ParseInstanceTypes(std::string("{\"instanceTypes\": []}\n\0", 23), "c.json");
  REQUIRE_FALSE(types.ok());
  CHECK(types.status().message() ==
        "c.json: line 2, column 1 (byte offset 22): NUL byte (a JSON or YAML text cannot "
        "contain one)");
}

}  // namespace
