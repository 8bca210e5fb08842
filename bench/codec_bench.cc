// Codec benchmarks. Documents are generated (seeded) outside the timed region.
//
//   BM_Codec_ParseKubectlList/20000/1000  parse a `kubectl get -o json` List of 20,000 pods and
//                                         1,000 nodes into a snapshot (reader + decoders)
//   BM_Codec_ReadJson/20000/1000          the same text through the JSON reader alone (the
//                                         RapidJSON fast path of src/json/fast_json.h): MB/s
//   BM_Codec_WriteSolveResult/20000       `karp solve -o json` text of the parity diverse
//                                         20,000 result into one string: MB/s
//   BM_Codec_WriteSolveResultStreamed/20000  the same text streamed in chunks to a stream that
//                                         drops it, as `karp solve` writes it to stdout: MB/s
//   BM_Codec_EndToEndDiverse/20000        what `karp solve` does after reading the file: parse
//                                         the parity diverse 20,000 snapshot, Create, Solve,
//                                         stream the JSON result (pods/s end to end)
//   BM_Codec_ParseYamlList/20000/1000     the ParseKubectlList document as block YAML (`kubectl
//                                         get -o yaml`), parsed into a snapshot: MB/s
//   BM_Codec_ParseCatalogOfferings/100000  a catalog of one instance type with 100,000
//                                         offerings (distinct zones) parsed into an
//                                         InstanceCatalog: offerings/s
//
//   build/bench/codec_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only
//
// `codec_bench --write-parity=DIR` writes the parity inputs for the CLI instead
// (DIR/diverse-20000.json and DIR/fake-400.catalog.json), e.g. to time
// `karp solve -f DIR/diverse-20000.json --catalog DIR/fake-400.catalog.json`.

#include <benchmark/benchmark.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "bench_main.h"
#include "json/document.h"
#include "karp/json/codec.h"
#include "karp/json/command_io.h"
#include "karp/scheduler.h"
#include "workloads.h"

namespace {

constexpr int kParityPods = 20000;

std::string g_write_parity_dir;

std::string MakeDocument(int pods, int nodes) {
  karp::ClusterSnapshot snap = karp::bench::BenchmarkSnapshot(karp::bench::DiversePods(pods));
  for (int i = 0; i < nodes; ++i) {
    karp::Node n;
    n.metadata.name = "ip-10-0-" + std::to_string(i / 250) + "-" + std::to_string(i % 250);
    n.metadata.labels = {{"kubernetes.io/arch", "amd64"},
                         {"kubernetes.io/os", "linux"},
                         {"node.kubernetes.io/instance-type", "m5.xlarge"},
                         {"topology.kubernetes.io/zone", i % 2 ? "us-east-1a" : "us-east-1b"},
                         {"karpenter.sh/nodepool", "default"},
                         {"karpenter.sh/capacity-type", "on-demand"},
                         {"kubernetes.io/hostname", n.metadata.name}};
    n.capacity = karp::ResourceList{{"cpu", 4000}, {"memory", 16LL << 30}, {"pods", 58}};
    n.allocatable = karp::ResourceList{{"cpu", 3920}, {"memory", 14162LL << 20}, {"pods", 58}};
    snap.nodes.push_back(std::move(n));
  }
  // Bind half of the pods to nodes, as a running cluster would show them.
  for (size_t i = 0; i < snap.pods.size(); i += 2) {
    snap.pods[i].node_name = snap.nodes[i % snap.nodes.size()].metadata.name;
    snap.pods[i].phase = "Running";
  }
  return karp::json::WriteSnapshot(snap);
}

void SetBytes(benchmark::State& state, size_t bytes) {
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
}

// The third argument is the field validation: 0 strict (the default), 2 ignore (no schema
// check: its cost is the difference).
karp::json::FieldValidation Validation(const benchmark::State& state) {
  return static_cast<karp::json::FieldValidation>(state.range(2));
}

void BM_Codec_ParseKubectlList(benchmark::State& state) {
  const int pods = static_cast<int>(state.range(0));
  const int nodes = static_cast<int>(state.range(1));
  const std::string doc = MakeDocument(pods, nodes);
  absl::StatusOr<karp::ClusterSnapshot> check =
      karp::json::ParseSnapshot(doc, "bench.json", Validation(state));
  if (!check.ok() || static_cast<int>(check->pods.size()) != pods ||
      static_cast<int>(check->nodes.size()) != nodes) {
    state.SkipWithError(check.ok() ? "wrong object count"
                                   : std::string(check.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<karp::ClusterSnapshot> snap =
        karp::json::ParseSnapshot(doc, "bench.json", Validation(state));
    benchmark::DoNotOptimize(snap);
  }
  SetBytes(state, doc.size());
  state.counters["objects/s"] = benchmark::Counter(
      static_cast<double>(pods + nodes) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Codec_ParseKubectlList)
    ->Args({20000, 1000, 0})
    ->Args({20000, 1000, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Codec_ParseYamlList(benchmark::State& state) {
  const int pods = static_cast<int>(state.range(0));
  const int nodes = static_cast<int>(state.range(1));
  absl::StatusOr<std::string> doc = karp::json::JsonToYaml(MakeDocument(pods, nodes));
  absl::StatusOr<karp::ClusterSnapshot> check =
      doc.ok() ? karp::json::ParseSnapshot(*doc, "bench.yaml", Validation(state))
               : absl::StatusOr<karp::ClusterSnapshot>(doc.status());
  if (!check.ok() || static_cast<int>(check->pods.size()) != pods) {
    state.SkipWithError(check.ok() ? "wrong object count"
                                   : std::string(check.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<karp::ClusterSnapshot> snap =
        karp::json::ParseSnapshot(*doc, "bench.yaml", Validation(state));
    benchmark::DoNotOptimize(snap);
  }
  SetBytes(state, doc->size());
}
BENCHMARK(BM_Codec_ParseYamlList)
    ->Args({20000, 1000, 0})
    ->Args({20000, 1000, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Codec_ReadJson(benchmark::State& state) {
  const std::string doc =
      MakeDocument(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) {
    auto docs = karp::json::codec_internal::LoadDocuments(doc, "bench.json");
    if (!docs.ok()) {
      state.SkipWithError(std::string(docs.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(docs);
  }
  SetBytes(state, doc.size());
}
BENCHMARK(BM_Codec_ReadJson)->Args({20000, 1000})->Unit(benchmark::kMillisecond)->UseRealTime();

// The parity diverse snapshot and its solved result (checked: every pod placed).
struct Parity {
  karp::ClusterSnapshot snapshot;
  std::shared_ptr<const karp::InstanceCatalog> catalog;
};

Parity MakeParity(int pods) {
  return {karp::bench::BenchmarkSnapshot(karp::bench::DiversePods(pods)),
          karp::bench::FakeCatalog(400)};
}

// The solved parity diverse result of state.range(0) pods (checked: every pod placed), or
// nullopt after SkipWithError.
std::optional<karp::SolveResult> SolvedParity(benchmark::State& state) {
  const Parity p = MakeParity(static_cast<int>(state.range(0)));
  absl::StatusOr<karp::Scheduler> scheduler = karp::Scheduler::Create(p.snapshot, p.catalog);
  absl::StatusOr<karp::SolveResult> result =
      scheduler.ok() ? scheduler->Solve() : absl::StatusOr<karp::SolveResult>(scheduler.status());
  if (!result.ok() || !result->pod_errors.empty()) {
    state.SkipWithError(result.ok() ? "pod errors"
                                    : std::string(result.status().message()).c_str());
    return std::nullopt;
  }
  return *std::move(result);
}

void BM_Codec_WriteSolveResult(benchmark::State& state) {
  const std::optional<karp::SolveResult> result = SolvedParity(state);
  if (!result) return;
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = karp::json::WriteSolveResult(*result, 0);
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  SetBytes(state, bytes);
}
BENCHMARK(BM_Codec_WriteSolveResult)
    ->Arg(kParityPods)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// A stream that counts and drops what is written (standard output without the device).
class CountingBuf : public std::streambuf {
 public:
  size_t bytes() const { return bytes_; }

 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes_ += static_cast<size_t>(n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) ++bytes_;
    return traits_type::not_eof(c);
  }

 private:
  size_t bytes_ = 0;
};

// Streamed `karp solve -o json` (what the CLI writes); bytes counted, returned.
size_t StreamSolveResult(const karp::SolveResult& result, int skipped_objects) {
  CountingBuf buf;
  std::ostream out(&buf);
  karp::json::WriteSolveResult(result, skipped_objects, out);
  return buf.bytes();
}

void BM_Codec_WriteSolveResultStreamed(benchmark::State& state) {
  const std::optional<karp::SolveResult> result = SolvedParity(state);
  if (!result) return;
  size_t bytes = 0;
  for (auto _ : state) bytes = StreamSolveResult(*result, 0);
  SetBytes(state, bytes);
}
BENCHMARK(BM_Codec_WriteSolveResultStreamed)
    ->Arg(kParityPods)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Parse + Create + Solve + write, as `karp solve` after reading its file (the embedded AWS
// catalog that the CLI loads by default is not involved: the parity catalog is generated).
void BM_Codec_EndToEndDiverse(benchmark::State& state) {
  const int pods = static_cast<int>(state.range(0));
  const Parity p = MakeParity(pods);
  const std::string doc = karp::json::WriteSnapshot(p.snapshot);
  size_t out_bytes = 0;
  for (auto _ : state) {
    absl::StatusOr<karp::ClusterSnapshot> snap = karp::json::ParseSnapshot(doc, "diverse.json");
    absl::StatusOr<karp::Scheduler> scheduler =
        snap.ok() ? karp::Scheduler::Create(*snap, p.catalog)
                  : absl::StatusOr<karp::Scheduler>(snap.status());
    absl::StatusOr<karp::SolveResult> result =
        scheduler.ok() ? scheduler->Solve() : absl::StatusOr<karp::SolveResult>(scheduler.status());
    if (!result.ok() || static_cast<int>(result->node_claims.size()) != pods / 5) {
      state.SkipWithError(result.ok() ? "unexpected node count"
                                      : std::string(result.status().message()).c_str());
      return;
    }
    out_bytes = StreamSolveResult(*result, snap->skipped_objects);
  }
  state.counters["MB in"] = static_cast<double>(doc.size()) / 1e6;
  state.counters["MB out"] = static_cast<double>(out_bytes) / 1e6;
  state.counters["pods/s"] =
      benchmark::Counter(static_cast<double>(pods) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Codec_EndToEndDiverse)->Arg(kParityPods)->Unit(benchmark::kMillisecond)->UseRealTime();

// One type with `n` offerings in as many zones: the catalog shape that was quadratic when each
// offering's zone was searched for among the zones already seen.
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

void BM_Codec_ParseCatalogOfferings(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::string doc = ManyOfferingsCatalog(n);
  for (auto _ : state) {
    absl::StatusOr<karp::InstanceCatalog> catalog = karp::json::ParseCatalog(doc, "bench.json");
    if (!catalog.ok() || catalog->size() != 1) {
      state.SkipWithError(catalog.ok() ? "wrong type count"
                                       : std::string(catalog.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(catalog);
  }
  SetBytes(state, doc.size());
  state.counters["offerings/s"] =
      benchmark::Counter(static_cast<double>(n) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Codec_ParseCatalogOfferings)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

int WriteParity(const std::string& dir) {
  const Parity p = MakeParity(kParityPods);
  const std::string snapshot_path = dir + "/diverse-" + std::to_string(kParityPods) + ".json";
  const std::string catalog_path = dir + "/fake-400.catalog.json";
  std::ofstream(snapshot_path) << karp::json::WriteSnapshot(p.snapshot);
  std::ofstream(catalog_path) << karp::json::WriteCatalog(*p.catalog);
  if (!std::ifstream(snapshot_path) || !std::ifstream(catalog_path)) {
    std::cerr << "codec_bench: cannot write to " << dir << "\n";
    return 1;
  }
  std::cout << snapshot_path << "\n" << catalog_path << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  karp::bench::TakeFlag(&argc, argv, "write-parity", &g_write_parity_dir);
  if (!g_write_parity_dir.empty()) return WriteParity(g_write_parity_dir);
  return karp::bench::RunBenchmarks(argc, argv);
}
