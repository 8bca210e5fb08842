// Tests of how karp::json treats input a person got wrong or a hostile one: repeated keys,
// oversized input, errors raised after parsing that must still name file and path, and text
// from the input that must not reach a terminal unescaped. Self-contained (inline inputs and
// temporary files only).

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "karp/json/codec.h"
#include "support/snapshot_checks.h"

namespace {

using karp::ClusterSnapshot;
using karp::json::ParseCatalog;
using karp::json::ParseSnapshot;
using karp::json::ReadCatalogFile;
using karp::json::ReadOptions;
using karp::json::ReadSnapshotFiles;

std::string Message(const absl::Status& s) { return std::string(s.message()); }

using karp::testing::ParseError;

// A file in a fresh temporary directory, removed with the object.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text) {
    dir_ = std::filesystem::temp_directory_path() /
           ("karp-input-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / name).string();
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::filesystem::remove_all(dir_); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  std::string path_;
};

std::string Pool(const std::string& name, const std::string& spec = "{}") {
  return R"({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": ")" + name +
         R"("}, "spec": )" + spec + "}";
}

TEST_CASE("Repeated keys in a JSON mapping are rejected with their path", "[json][input]") {
  const std::string pod = R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"},
      "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "cpu": "64"}}}]}})";
  CHECK(ParseError(pod) ==
        "objects.json: spec.containers[0].resources.requests.cpu: duplicate key \"cpu\"");
  // Keys with dots (label keys) are named whole.
  CHECK(ParseError(R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a",
      "labels": {"app.kubernetes.io/name": "x", "app.kubernetes.io/name": "y"}}})") ==
        "objects.json: metadata.labels.app.kubernetes.io/name: duplicate key "
        "\"app.kubernetes.io/name\"");
  // In a List item, after other items (indexes count completed values).
  CHECK(ParseError(R"({"kind": "List", "items": [
      {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}},
      {"kind": "Pod", "kind": "Pod", "apiVersion": "v1", "metadata": {"name": "b"}}]})") ==
        "objects.json: items[1].kind: duplicate key \"kind\"");
  // Objects with many keys (the hashed path of the check).
  std::string many = R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a", "labels": {)";
  for (int i = 0; i < 40; ++i) many += "\"k" + std::to_string(i) + "\": \"v\", ";
  many += R"("k7": "again"}}})";
  CHECK(ParseError(many) == "objects.json: metadata.labels.k7: duplicate key \"k7\"");
  // The same key in different objects is fine.
  CHECK(ParseSnapshot(R"({"kind": "List", "items": [
      {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"}},
      {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "b"}}]})",
                      "objects.json")
            .ok());
}

TEST_CASE("Repeated keys in a YAML mapping are rejected with their path", "[json][input]") {
  const std::string yaml =
      "kind: Pod\n"
      "apiVersion: v1\n"
      "metadata:\n"
      "  name: a\n"
      "spec:\n"
      "  containers:\n"
      "  - name: c\n"
      "    resources:\n"
      "      requests:\n"
      "        cpu: \"1\"\n"
      "        cpu: \"64\"\n";
  const std::string msg = ParseError(yaml, "pod.yaml");
  CHECK(msg.rfind("pod.yaml: line 11, column ", 0) == 0);
  CHECK(msg.find("spec.containers[0].resources.requests.cpu: duplicate key \"cpu\"") !=
        std::string::npos);
  CHECK(ParseError("kind: Pod\nkind: Pod\n", "pod.yaml").find("kind: duplicate key \"kind\"") !=
        std::string::npos);
}

TEST_CASE("One read accepts at most the input limit", "[json][input]") {
  TempFile file("big.json", std::string(4096, ' ') + R"({"kind": "List", "items": []})");
  ReadOptions small;
  small.max_input_bytes = 1024;
  absl::StatusOr<ClusterSnapshot> snap = ReadSnapshotFiles({file.path()}, small);
  REQUIRE_FALSE(snap.ok());
  CHECK(snap.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(Message(snap.status()) ==
        file.path() + ": larger than the input limit of 1024 bytes (see --max-input-bytes)");
  CHECK(ReadSnapshotFiles({file.path()}).ok());  // the default is far above

  // A stream (not a regular file) is cut off as soon as it exceeds the limit.
  absl::StatusOr<ClusterSnapshot> zero = ReadSnapshotFiles({"/dev/zero"}, small);
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.status().code() == absl::StatusCode::kResourceExhausted);

  absl::StatusOr<karp::InstanceCatalog> catalog = ReadCatalogFile(file.path(), small);
  REQUIRE_FALSE(catalog.ok());
  CHECK(catalog.status().code() == absl::StatusCode::kResourceExhausted);
}

TEST_CASE("Objects defined twice across files are named with both files", "[json][input]") {
  TempFile a("a.json", Pool("default"));
  TempFile b("b.json", Pool("default"));
  absl::StatusOr<ClusterSnapshot> snap = ReadSnapshotFiles({a.path(), b.path()});
  REQUIRE_FALSE(snap.ok());
  CHECK(Message(snap.status()) == b.path() +
                                      ": metadata.name: duplicate nodepool \"default\" (first "
                                      "defined at the top level of " +
                                      a.path() + ")");
  // An empty file among others is an error of its own.
  TempFile empty("empty.yaml", "\n# nothing here\n");
  absl::StatusOr<ClusterSnapshot> with_empty = ReadSnapshotFiles({a.path(), empty.path()});
  REQUIRE_FALSE(with_empty.ok());
  CHECK(Message(with_empty.status()) == "no objects in " + empty.path());
}

TEST_CASE("Errors found by validation name the file and the path", "[json][input]") {
  CHECK(ParseError(Pool("default", R"({"disruption": {"budgets": [{"nodes": "1",
      "schedule": "61 * * * *", "duration": "10m"}]}})"))
            .rfind("objects.json: spec.disruption.budgets[0].schedule: invalid cron schedule", 0) ==
        0);
  CHECK(ParseError(Pool("default", R"({"weight": 1000})")) ==
        "objects.json: spec.weight: must be between 1 and 100, got 1000");
  CHECK(ParseError(R"({"kind": "List", "items": [)" + Pool("a") + ", " +
                   Pool("b", R"({"limits": {"cpu": "1"}, "replicas": -1})") + "]}") ==
        "objects.json: items[1].spec.replicas: must be >= 0, got -1");
}

TEST_CASE("Budget schedules follow the NodePool schema: no @every", "[json][input]") {
  for (const std::string schedule :
       {"@every 5m", "@every -5m", "@every 0s", "* * * *", "0 0 * * * *", "@fortnightly"}) {
    INFO(schedule);
    const std::string msg = ParseError(Pool("default", R"({"disruption": {"budgets": [{"nodes": "0",
        "schedule": ")" + schedule + R"(", "duration": "10m"}]}})"));
    CHECK(msg.rfind("objects.json: spec.disruption.budgets[0].schedule: invalid schedule", 0) == 0);
  }
  for (const std::string schedule : {"@daily", "@hourly", "0 9 * * mon-fri", "*/5 * * * *"}) {
    INFO(schedule);
    CHECK(ParseSnapshot(Pool("default", R"({"disruption": {"budgets": [{"nodes": "0",
        "schedule": ")" + schedule + R"(", "duration": "10m"}]}})"),
                        "objects.json")
              .ok());
  }
  // Budget durations are hours and minutes only.
  CHECK(ParseError(Pool("default", R"({"disruption": {"budgets": [{"nodes": "0",
        "schedule": "@daily", "duration": "90s"}]}})")) ==
        "objects.json: spec.disruption.budgets[0].duration: must be a whole number of minutes "
        "such as 30m or 1h30m, got 1m30s");
}

TEST_CASE("A number out of range names its path, not the JSON library", "[json][input]") {
  absl::StatusOr<karp::InstanceCatalog> catalog = ParseCatalog(R"({"instanceTypes": [
      {"name": "t", "capacity": {"cpu": "1"},
       "offerings": [{"zone": "z", "capacityType": "spot", "price": 1e400}]}]})",
                                                               "catalog.json");
  REQUIRE_FALSE(catalog.ok());
  const std::string msg = Message(catalog.status());
  CHECK(msg.rfind("catalog.json: instanceTypes[0].offerings[0].price: ", 0) == 0);
  CHECK(msg.find("json.exception") == std::string::npos);
}

TEST_CASE("Control characters and invalid UTF-8 from the input are escaped", "[json][input]") {
  // A quantity holding a terminal escape sequence (it would retitle the terminal).
  const std::string msg =
      ParseError(R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "a"},
      "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "\u001b]0;pwned\u0007"}}}]}})");
  CHECK(msg.find('\x1b') == std::string::npos);
  CHECK(msg.find('\x07') == std::string::npos);
  CHECK(msg.find("\\x1b]0;pwned\\x07") != std::string::npos);
  // A source name with a newline cannot forge a second line.
  const std::string two_lines = ParseError("kind: [", "a\nb.yaml");
  CHECK(two_lines.find('\n') == std::string::npos);
  CHECK(two_lines.rfind("a\\nb.yaml: ", 0) == 0);
  // Invalid UTF-8 in a JSON string is rejected by the parser; in a file name it is escaped.
  const std::string bad_name = ParseError("kind: [", "bad\xff.yaml");
  CHECK(bad_name.rfind("bad\\xff.yaml: ", 0) == 0);
}

}  // namespace
