// Tests of the run layer shared by the CLI and the C API (karp/json/command_io.h): snapshots from
// several in-memory inputs, the C API's options, the output formats, and JSON -> YAML.

#include "karp/json/command_io.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "karp/aws_catalog.h"
#include "karp/json/codec.h"
#include "karp/scheduler.h"
#include "support/source_dir.h"

namespace {

using karp::json::JsonToYaml;
using karp::json::ParseRunOptions;
using karp::json::ParseSnapshotInputs;

std::string ReadExample(const std::string& name) {
  std::ifstream in(karp::testing::SourceDir() + "/examples/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const char kPool[] = R"({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
  "metadata": {"name": "default"}, "spec": {"template": {"spec": {"requirements": []}}}})";

TEST_CASE("JsonToYaml quotes what would read back as another type", "[json][run]") {
  absl::StatusOr<std::string> yaml = JsonToYaml(
      R"({"a": "5", "b": "true", "c": "x: y", "d": [], "e": {}, "f": [{"g": 1, "h": [1, "On"]}],
          "i": null, "j": "", "k": "-x", "l": "plain/name-1.2", "m": 0.25, "n": [[1]]})");
  REQUIRE(yaml.ok());
  CHECK(*yaml ==
        "a: \"5\"\n"
        "b: \"true\"\n"
        "c: \"x: y\"\n"
        "d: []\n"
        "e: {}\n"
        "f:\n"
        "- g: 1\n"
        "  h:\n"
        "  - 1\n"
        "  - \"On\"\n"
        "i: null\n"
        "j: \"\"\n"
        "k: \"-x\"\n"
        "l: plain/name-1.2\n"
        "m: 0.25\n"
        "\"n\":\n"  // a YAML 1.1 boolean as a key too
        "- - 1\n");
  CHECK(*JsonToYaml("\"text\"") == "text\n");
  CHECK(JsonToYaml("{").status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("A snapshot written as YAML reads back as the same snapshot", "[json][run]") {
  for (const char* example : {"inflate.yaml", "consolidate_cluster.yaml", "statefulset.yaml"}) {
    INFO(example);
    absl::StatusOr<karp::ClusterSnapshot> snap =
        karp::json::ParseSnapshot(ReadExample(example), example);
    REQUIRE(snap.ok());
    const std::string json = karp::json::WriteSnapshot(*snap);
    absl::StatusOr<std::string> yaml = JsonToYaml(json);
    REQUIRE(yaml.ok());
    absl::StatusOr<karp::ClusterSnapshot> back = karp::json::ParseSnapshot(*yaml, "yaml");
    REQUIRE(back.ok());
    CHECK(karp::json::WriteSnapshot(*back) == json);
  }
}

TEST_CASE("ParseSnapshotInputs merges inputs and names both places of a duplicate", "[json][run]") {
  const std::string inflate = ReadExample("inflate.yaml");
  absl::StatusOr<karp::ClusterSnapshot> one = ParseSnapshotInputs({{"inflate.yaml", inflate}});
  REQUIRE(one.ok());
  CHECK(one->pods.size() == 5);
  absl::StatusOr<karp::ClusterSnapshot> twice =
      ParseSnapshotInputs({{"a.yaml", inflate}, {"b.yaml", inflate}});
  REQUIRE_FALSE(twice.ok());
  CHECK_THAT(std::string(twice.status().message()),
             Catch::Contains("b.yaml") && Catch::Contains("a.yaml"));
  absl::StatusOr<karp::ClusterSnapshot> empty =
      ParseSnapshotInputs({{"pool.json", kPool}, {"empty.yaml", ""}});
  REQUIRE_FALSE(empty.ok());
  CHECK(std::string(empty.status().message()) == "no objects in empty.yaml");
}

TEST_CASE("ParseRunOptions reads every option and names a bad one", "[json][run]") {
  absl::StatusOr<karp::json::RunOptions> o = ParseRunOptions(
      R"({"output": "yaml", "region": "us-gov-west-1", "zones": ["us-gov-west-1b"],
          "preferencePolicy": "Ignore", "minValuesPolicy": "BestEffort", "maxInstanceTypes": 60,
          "now": "2026-01-05T12:00:00Z", "once": true, "spotToSpot": true, "legacyOrder": true,
          "repack": true,
          "policies": ["empty-spot"], "sample": "5m", "disruptionInterval": "1m",
          "launchLatency": "90s", "catalog": "sim", "packing": "cost", "costAttempts": 3, "costPoolOrder": "price",
          "costThreads": 2, "costDeadline": "1500ms"})",
      "options");
  REQUIRE(o.ok());
  CHECK(o->output == "yaml");
  CHECK(o->region == "us-gov-west-1");
  CHECK(o->zones == std::vector<std::string>{"us-gov-west-1b"});
  CHECK(o->scheduler.preference_policy == karp::PreferencePolicy::kIgnore);
  CHECK(o->scheduler.min_values_policy == karp::MinValuesPolicy::kBestEffort);
  CHECK(o->scheduler.max_instance_types == 60);
  CHECK(o->now == absl::FromUnixSeconds(1767614400));
  CHECK((o->once && o->spot_to_spot && o->legacy_order && o->repack));
  CHECK(o->sample == absl::Minutes(5));
  CHECK(o->launch_latency == absl::Seconds(90));
  CHECK(o->catalog == "sim");
  CHECK(o->scheduler.packing == karp::PackingMode::kCost);
  CHECK(o->scheduler.cost_attempts == 3);
  CHECK(o->scheduler.cost_pool_order == karp::PoolOrder::kPrice);
  CHECK(o->scheduler.cost_threads == 2);
  CHECK(o->scheduler.cost_time_limit == absl::Milliseconds(1500));
  CHECK(ParseRunOptions(R"({"packing": "best"})", "options").status().message() ==
        "options: packing: must be one of faithful, cost, got \"best\"");
  CHECK(ParseRunOptions(R"({"costPoolOrder": "cheapest"})", "options").status().message() ==
        "options: costPoolOrder: must be one of weight, price, got \"cheapest\"");
  CHECK(ParseRunOptions(R"({"costAttempts": 11})", "options").status().message() ==
        "options: costAttempts: must be an integer from 0 to 10");
  CHECK(ParseRunOptions(R"({"costDeadline": "0s"})", "options").status().message() ==
        "options: costDeadline: must be a positive duration such as \"2s\"");

  CHECK(ParseRunOptions("", "options").ok());
  CHECK(ParseRunOptions("  null", "options").status().message() ==
        "options: must be a JSON object such as {\"region\": \"us-east-1\"}");
  CHECK(ParseRunOptions(R"({"output": "xml"})", "options").status().message() ==
        "options: output: must be one of json, yaml, nodeclaims, got \"xml\"");
  CHECK(ParseRunOptions(R"({"zones": ["a", 1]})", "options").status().message() ==
        "options: zones[1]: must be a string");
  CHECK(ParseRunOptions(R"({"sample": "10ms"})", "options").status().message() ==
        "options: sample: must be at least 1s");
  CHECK(ParseRunOptions(R"({"now": "yesterday"})", "options").status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ParseRunOptions(R"({"once": "yes"})", "options").status().message() ==
        "options: once: must be true or false");
  CHECK(ParseRunOptions(R"({"maxInstanceTypes": 1.5})", "options").status().message() ==
        "options: maxInstanceTypes: must be an integer from 1 to 100000");
  CHECK(ParseRunOptions(R"({"spot": true})", "options").status().message() ==
        "options: spot: unknown option");
}

TEST_CASE("SolveOutput writes each format as the CLI prints it", "[json][run]") {
  absl::StatusOr<karp::ClusterSnapshot> snap =
      ParseSnapshotInputs({{"inflate.yaml", ReadExample("inflate.yaml")}});
  REQUIRE(snap.ok());
  auto catalog = std::make_shared<const karp::InstanceCatalog>(*karp::EmbeddedAwsCatalog());
  absl::StatusOr<karp::SolveResult> result = karp::Scheduler::Create(*snap, catalog)->Solve();
  REQUIRE(result.ok());
  absl::StatusOr<std::string> json = karp::json::SolveOutput(*result, *snap, "json");
  REQUIRE(json.ok());
  CHECK(*json == karp::json::WriteSolveResult(*result, snap->skipped_objects) + "\n");
  absl::StatusOr<std::string> yaml = karp::json::SolveOutput(*result, *snap, "yaml");
  REQUIRE(yaml.ok());
  CHECK(yaml->rfind("nodeClaims:\n- name: default-1\n  nodePool: default\n", 0) == 0);
  CHECK(karp::json::SolveOutput(*result, *snap, "text").status().message() ==
        "output format \"text\" is not one of json, yaml, nodeclaims");
  // WriteSolveOutput streams the same bytes, and writes nothing for a bad format.
  for (const char* format : {"json", "yaml", "nodeclaims"}) {
    INFO(format);
    std::ostringstream out;
    REQUIRE(karp::json::WriteSolveOutput(*result, *snap, format, out).ok());
    CHECK(out.str() == *karp::json::SolveOutput(*result, *snap, format));
  }
  std::ostringstream bad;
  CHECK(karp::json::WriteSolveOutput(*result, *snap, "text", bad).message() ==
        "output format \"text\" is not one of json, yaml, nodeclaims");
  CHECK(bad.str().empty());
  // Consolidation replacements as NodeClaims: none when the plan has no command.
  absl::StatusOr<std::string> none =
      karp::json::ConsolidateOutput(karp::ConsolidationPlan{}, *snap, "nodeclaims");
  REQUIRE(none.ok());
  CHECK_THAT(*none, Catch::Contains("\"kind\": \"List\"") && Catch::Contains("\"items\": []"));
}

}  // namespace
