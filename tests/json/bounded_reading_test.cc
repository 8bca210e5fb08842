// Bounded reading (issue 36, group 3): every input is measured as it is read and refused at
// its cap with a message naming the flag (ReadOptions, karp/json/codec.h); the openb reader
// bounds a line; an instance type with 100,000 offerings decodes and validates (its offerings
// are no longer searched linearly per zone). Inputs are generated here, in temporary files,
// FIFOs and /dev/zero; nothing is committed.

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "json/document.h"
#include "karp/json/codec.h"
#include "karp/labels.h"
#include "karp/sim/simulator.h"

namespace {

using karp::json::ReadOptions;

std::string Message(const absl::Status& s) { return std::string(s.message()); }

// A fresh temporary directory, removed with the object.
class TempDir {
 public:
  TempDir() {
    dir_ = std::filesystem::temp_directory_path() /
           ("karp-bounded-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
};

// One instance type with `n` offerings, each in its own zone.
std::string ManyOfferingsCatalog(int n) {
  std::string text = R"({"instanceTypes": [{"name": "big.metal", "capacity": {"cpu": "96",)"
                     R"( "memory": "384Gi", "pods": "737"}, "offerings": [)";
  for (int i = 0; i < n; ++i) {
    if (i > 0) text += ",";
    text += R"({"zone": "zone-)" + std::to_string(i) + R"(", "capacityType": ")" +
            (i % 2 ? "spot" : "on-demand") + R"(", "price": )" + std::to_string(1 + i % 97) + "}";
  }
  return text + "]}]}";
}

// A JSON List of `bytes` bytes or a little more (one NodePool, then white space).
std::string BigJson(size_t bytes) {
  std::string text = R"({"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": )"
                     R"("karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "a"}}])";
  text.append(bytes > text.size() ? bytes - text.size() : 0, ' ');
  return text + "}";
}

// The same NodePool as YAML, padded with a comment to `bytes` bytes or a little more.
std::string BigYaml(size_t bytes) {
  std::string text = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\n# ";
  text.append(bytes > text.size() ? bytes - text.size() : 0, 'x');
  return text + "\n";
}

TEST_CASE("An instance type with 100,000 offerings decodes and validates", "[json][input]") {
  absl::StatusOr<karp::InstanceCatalog> catalog =
      karp::json::ParseCatalog(ManyOfferingsCatalog(100000), "many.json");
  REQUIRE(catalog.ok());
  const karp::InstanceType* it = catalog->Find("big.metal");
  REQUIRE(it != nullptr);
  CHECK(it->offerings.size() == 100000);
  // Every zone once in the requirements, sorted as Requirement::In sorts.
  const karp::Requirement* zones = it->requirements.Find(karp::kLabelZone);
  REQUIRE(zones != nullptr);
  CHECK(zones->values().size() == 100000);
  CHECK(zones->values().front() == "zone-0");
  CHECK(it->requirements.Find(karp::kLabelCapacityType)->values() ==
        std::vector<std::string>{"on-demand", "spot"});
  const karp::Offering* cheapest = it->CheapestOffering(karp::Requirements());
  REQUIRE(cheapest != nullptr);
  CHECK(cheapest->price == 1);
  CHECK(cheapest->capacity_type == "spot");  // spot before on-demand at the same price
  // Unavailable offerings still leave their zone out.
  std::vector<karp::Offering> offerings = it->offerings;
  offerings[0].available = false;
  karp::InstanceType copy = karp::InstanceType::Make(it->name, it->labels, it->capacity,
                                                     it->overhead, std::move(offerings));
  CHECK(copy.requirements.Find(karp::kLabelZone)->values().size() == 99999);
  CHECK(!copy.requirements.Find(karp::kLabelZone)->Has("zone-0"));
}

TEST_CASE("An endless device is refused at the YAML cap with the flag named", "[json][input]") {
  // /dev/zero reads as YAML (its first character is not { or [): refused at the YAML cap,
  // before the 2 GiB of the general one.
  absl::StatusOr<karp::ClusterSnapshot> snap = karp::json::ReadSnapshotFiles({"/dev/zero"});
  REQUIRE(snap.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(Message(snap.status()) ==
        "/dev/zero: larger than the input limit of 134217728 bytes for YAML (see "
        "--max-input-bytes)");
  CHECK(karp::json::kDefaultMaxYamlBytes == 134217728);
  absl::StatusOr<karp::InstanceCatalog> catalog = karp::json::ReadCatalogFile("/dev/zero");
  CHECK(catalog.status().code() == absl::StatusCode::kResourceExhausted);
  // The stream cap applies when it is the smaller one.
  ReadOptions options;
  options.max_stream_bytes = 1 << 20;
  snap = karp::json::ReadSnapshotFiles({"/dev/zero"}, options);
  CHECK(Message(snap.status()) ==
        "/dev/zero: larger than the input limit of 1048576 bytes for a stream (see "
        "--max-input-bytes)");
  // One value for every cap (what --max-input-bytes sets) names no kind.
  options.max_input_bytes = options.max_stream_bytes = options.max_yaml_bytes = 1 << 20;
  snap = karp::json::ReadSnapshotFiles({"/dev/zero"}, options);
  CHECK(Message(snap.status()) ==
        "/dev/zero: larger than the input limit of 1048576 bytes (see --max-input-bytes)");
}

// Writes `text` into the FIFO `path` from another thread; a reader that stops early makes the
// write fail with EPIPE (SIGPIPE is blocked in the writing thread).
std::thread FeedFifo(const std::string& path, std::string text) {
  return std::thread([path, text = std::move(text)] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    const int fd = ::open(path.c_str(), O_WRONLY);
    if (fd < 0) return;
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fd);
  });
}

TEST_CASE("A JSON stream from a FIFO is refused at the stream cap", "[json][input][threads]") {
  TempDir dir;
  const std::string fifo = dir.Path("pipe.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  ReadOptions options;
  options.max_stream_bytes = 1 << 20;
  std::thread writer = FeedFifo(fifo, BigJson(3 << 20));
  absl::StatusOr<std::string> text = karp::json::codec_internal::ReadWholeFile(fifo, options);
  writer.join();
  REQUIRE(text.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(Message(text.status()) == fifo +
                                      ": larger than the input limit of 1048576 bytes for a "
                                      "stream (see --max-input-bytes)");
  // Within the cap the stream reads whole, and decodes.
  writer = FeedFifo(fifo, BigJson(512 << 10));
  absl::StatusOr<karp::ClusterSnapshot> snap = karp::json::ReadSnapshotFiles({fifo}, options);
  writer.join();
  REQUIRE(snap.ok());
  CHECK(snap->node_pools.size() == 1);
}

TEST_CASE("A regular YAML file over the YAML cap is refused before it is read", "[json][input]") {
  TempDir dir;
  ReadOptions options;
  options.max_yaml_bytes = 1 << 20;
  options.max_stream_bytes = 1 << 20;  // not a stream: does not apply
  const std::string yaml = dir.Write("big.yaml", BigYaml(2 << 20));
  absl::StatusOr<karp::ClusterSnapshot> snap = karp::json::ReadSnapshotFiles({yaml}, options);
  REQUIRE(snap.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(Message(snap.status()) == yaml +
                                      ": larger than the input limit of 1048576 bytes for "
                                      "YAML (see --max-input-bytes)");
  // White space before the first character does not hide YAML (it is told apart at the end).
  const std::string padded = dir.Write("padded.yaml", std::string(100000, '\n') + BigYaml(2 << 20));
  CHECK(karp::json::ReadSnapshotFiles({padded}, options).status().code() ==
        absl::StatusCode::kResourceExhausted);
  // The same size of JSON is under the general cap, and a small YAML file is read.
  const std::string json = dir.Write("big.json", BigJson(2 << 20));
  snap = karp::json::ReadSnapshotFiles({json}, options);
  REQUIRE(snap.ok());
  CHECK(snap->node_pools.size() == 1);
  CHECK(karp::json::ReadSnapshotFiles({dir.Write("small.yaml", BigYaml(1000))}, options).ok());
  // The general cap is checked first, and names no kind.
  options.max_input_bytes = 1 << 20;
  CHECK(Message(karp::json::ReadSnapshotFiles({json}, options).status()) ==
        json + ": larger than the input limit of 1048576 bytes (see --max-input-bytes)");
}

TEST_CASE("A YAML List goes to the decoder item by item", "[json][input]") {
  const std::string list =
      "apiVersion: v1\nkind: List\nitems:\n"
      "- {apiVersion: v1, kind: Pod, metadata: {name: a}}\n"
      "- &b {apiVersion: v1, kind: Pod, metadata: {name: b}}\n"
      "- 7\n";
  std::vector<std::string> seen;
  std::optional<absl::StatusOr<std::vector<karp::json::codec_internal::Document>>> docs =
      karp::json::codec_internal::LoadYamlStreamingItems(
          list, "list.yaml", [&](const nlohmann::json& item, size_t i) {
            seen.push_back(std::to_string(i) + "=" + item.dump());
          });
  REQUIRE(docs.has_value());
  REQUIRE(docs->ok());
  REQUIRE((*docs)->size() == 1);
  CHECK((**docs)[0].value.dump() == R"({"apiVersion":"v1","items":[],"kind":"List"})");
  CHECK(seen == std::vector<std::string>{
                    R"(0={"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}})",
                    R"(1={"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"}})", "2=7"});
  // JSON is not for this reader; an anchored items sequence is kept whole (an alias may use it).
  CHECK(!karp::json::codec_internal::LoadYamlStreamingItems("{}", "x.json", nullptr).has_value());
  seen.clear();
  docs = karp::json::codec_internal::LoadYamlStreamingItems(
      "kind: List\nitems: &all [1, 2]\nmetadata: {all: *all}\n", "list.yaml",
      [&](const nlohmann::json&, size_t) { seen.push_back("streamed"); });
  CHECK(seen.empty());
  CHECK((**docs)[0].value.dump() == R"({"items":[1,2],"kind":"List","metadata":{"all":[1,2]}})");
}

TEST_CASE("Errors of a streamed YAML List name the item as before", "[json][input]") {
  auto error = [](const std::string& yaml) {
    return Message(karp::json::ParseSnapshot(yaml, "list.yaml").status());
  };
  const std::string head = "apiVersion: v1\nkind: List\nitems:\n";
  const std::string pod_a = "- {apiVersion: v1, kind: Pod, metadata: {name: a}}\n";
  CHECK(error(head + pod_a +
              "- {apiVersion: v1, kind: Pod, metadata: {name: b}, spec: {containers: [{name: c, "
              "resources: {requests: {cpu: 1.5.3}}}]}}\n") ==
        "list.yaml: items[1].spec.containers[0].resources.requests.cpu: invalid quantity "
        "\"1.5.3\": unknown suffix");
  CHECK(error(head + pod_a +
              "- {apiVersion: v1, kind: Pod, metadata: {name: b, labels: {x: 1, "
              "x: 2}}}\n") ==
        "list.yaml: line 5, column 69: items[1].metadata.labels.x: duplicate key \"x\"");
  CHECK(error(head + pod_a + pod_a) ==
        "list.yaml: items[1].metadata.name: duplicate pod \"default/a\" (first defined at "
        "items[0])");
  CHECK(error(head + pod_a + "items: []\n") ==
        "list.yaml: line 5, column 8: items: duplicate key \"items\"");
  CHECK(error(head + pod_a + "- [unclosed\n") ==
        "list.yaml: line 5, column 3: mapping keys must be scalars");
  CHECK(error("apiVersion: v1\nkind: List\nitems: [7]\nmetadata: 3\n") ==
        "list.yaml: items[0]: expected an object, got a number");
  // A second document gives the items their document's path.
  CHECK(error(head + pod_a + "---\n" + head +
              "- {apiVersion: v1, kind: Pod, metadata: {name: b}, spec: {containers: [{name: c, "
              "resources: {requests: {cpu: x}}}]}}\n") ==
        "list.yaml: documents[1].items[0].spec.containers[0].resources.requests.cpu: invalid "
        "quantity \"x\": expected a number");
  absl::StatusOr<karp::ClusterSnapshot> snap =
      karp::json::ParseSnapshot(head + pod_a + "---\n" + head, "list.yaml");
  REQUIRE(snap.ok());
  CHECK(snap->pods.size() == 1);
}

const char kOpenbHeader[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

TEST_CASE("The openb reader bounds a line and names it", "[sim][input]") {
  TempDir dir;
  // One huge line, no line break: refused after 1 MiB, not read whole.
  const std::string one_line = dir.Write("one-line.csv", std::string(3 << 20, 'a'));
  absl::StatusOr<karp::sim::Trace> t = karp::sim::LoadOpenbTrace(one_line);
  REQUIRE(t.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(Message(t.status()) ==
        one_line + ": line 1: longer than 1048576 bytes (not an openb CSV file?)");
  // A huge row after good ones (and an empty line) is named by its line number.
  const std::string row = dir.Write(
      "row.csv", std::string(kOpenbHeader) + "pod-a,4000,8192,0,0,,LS,Running,0,600,0\n\n" +
                     "pod-b," + std::string(2 << 20, '1') + "\npod-c,1,1,0,0,,LS,Running,0,1,0\n");
  t = karp::sim::LoadOpenbTrace(row);
  CHECK(Message(t.status()) ==
        row + ": line 4: longer than 1048576 bytes (not an openb CSV file?)");
  // A device without line breaks too.
  t = karp::sim::LoadOpenbTrace("/dev/zero");
  CHECK(Message(t.status()) ==
        "/dev/zero: line 1: longer than 1048576 bytes (not an openb CSV file?)");
  // Rows up to the bound, CRLF line ends and a last line without a break still read.
  const std::string good = dir.Write(
      "good.csv", std::string(kOpenbHeader) + "pod-a,4000,8192,0,0,,LS,Running,0,600,0\r\n" +
                      "pod-b,1000,1024,0,0," + std::string(1000000, 'x') +
                      ",LS,Running,0,60,0\npod-c,1000,1024,0,0,,BE,Running,10,20,10");
  t = karp::sim::LoadOpenbTrace(good);
  REQUIRE(t.ok());
  REQUIRE(t->pods.size() == 3);
  CHECK(t->pods[0].name == "pod-a");
  CHECK(t->pods[2].name == "pod-c");
  CHECK(t->pods[2].leave_at == absl::Seconds(20));
  // Endless short lines (as `yes ''` gives) stop at 10,000,000 lines, not never.
  const std::string blank = dir.Write(
      // NOLINTNEXTLINE(bugprone-string-constructor): one line over the 10,000,000-line limit.
      "blank.csv", std::string(kOpenbHeader) + std::string(10'000'001, '\n'));
  t = karp::sim::LoadOpenbTrace(blank);
  REQUIRE(t.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(Message(t.status()) == blank + ": more than 10000000 lines (an openb trace has thousands)");
}

}  // namespace

namespace {

std::string PodDoc(const std::string& name) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         "}\nspec: {containers: [{name: c, image: x}]}\n";
}

TEST_CASE("Several YAML documents are decoded one at a time, as when read whole",
          "[json][bounded]") {
  using karp::json::codec_internal::MayHoldSeveralYamlDocuments;
  CHECK_FALSE(MayHoldSeveralYamlDocuments("---\n# one document\n" + PodDoc("a")));
  CHECK_FALSE(
      MayHoldSeveralYamlDocuments("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n"
                                  "  annotations:\n    note: |\n      ---\n"));
  CHECK(MayHoldSeveralYamlDocuments(PodDoc("a") + "---\n" + PodDoc("b")));
  CHECK(MayHoldSeveralYamlDocuments(PodDoc("a") + "...\n" + PodDoc("b")));
  // Paths name the document; the objects are those of the whole read.
  const std::string three = PodDoc("a") + "---\n" + PodDoc("b") + "---\n" + PodDoc("c");
  absl::StatusOr<karp::ClusterSnapshot> snap = karp::json::ParseSnapshot(three, "pods.yaml");
  REQUIRE(snap.ok());
  REQUIRE(snap->pods.size() == 3);
  CHECK(snap->pods[2].metadata.name == "c");
  absl::StatusOr<karp::ClusterSnapshot> bad = karp::json::ParseSnapshot(
      PodDoc("a") + "---\n" + PodDoc("b") + "---\n" + PodDoc("C"), "pods.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().rfind("pods.yaml: documents[2].metadata.name: invalid value", 0) ==
        0);
  // A syntax error after a bad document is the error, as when every document is read first.
  bad = karp::json::ParseSnapshot(PodDoc("B") + "---\n" + PodDoc("b") + "---\n[unclosed\n",
                                  "pods.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("documents[0]") == std::string::npos);
  CHECK(bad.status().message().rfind("pods.yaml: line ", 0) == 0);
  // A trailing marker opens an empty document: the pod is documents[0], as read whole.
  bad = karp::json::ParseSnapshot(PodDoc("X") + "---\n", "pods.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().rfind("pods.yaml: documents[0].metadata.name", 0) == 0);
  // Two documents, the first empty: documents[1] is the pod.
  bad = karp::json::ParseSnapshot("---\n---\n" + PodDoc("X"), "pods.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().rfind("pods.yaml: documents[1].metadata.name", 0) == 0);
}

}  // namespace
