// Benchmarks at the shape of a real cluster (issue 15): the generated workloads of the
// project's shared data (`workloads/`, gzip-compressed kubectl Lists and the us-east-1 catalog),
// read from --workloads=DIR or KARP_SOURCE_DIR/../shared/data/workloads/. When the data is
// absent every benchmark is skipped with a message saying so. Inputs are parsed outside the
// timed region; one cold Solve (or consolidation pass) per iteration.
//
//   BM_Workload_Solve/running:1       20,000 pending pods + 1,000 nodes with 6,000 bound pods
//   BM_Workload_Solve/running:0       100,000 pending pods of the same mix, no nodes
//   BM_Workload_Consolidate/sims:N    a consolidation pass on the running cluster bounded to N
//                                     scheduling simulations (0: unbounded)
//
// Counters: pods, nodes (new NodeClaims), pods/s; commands, simulations, stopped_early.
//
//   build/bench/workload_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only

#include <benchmark/benchmark.h>
#include <zlib.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/consolidator.h"
#include "karp/json/codec.h"
#include "karp/scheduler.h"

namespace {

std::string g_dir =
#ifdef KARP_SOURCE_DIR
    KARP_SOURCE_DIR "/../shared/data/workloads";
#else
    "";
#endif

constexpr char kRunning[] = "running-cluster-20k-pending-1000-nodes.objects.json.gz";
constexpr char kRealistic[] = "realistic-100k-pending.objects.json.gz";
constexpr char kCatalog[] = "aws-us-east-1.catalog.json.gz";

// The decompressed content of a gzip file (or of a plain file: zlib passes it through).
absl::StatusOr<std::string> ReadGzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return absl::NotFoundError(path + ": cannot open");
  std::string out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  const bool failed = n < 0;
  gzclose(f);
  if (failed) return absl::DataLossError(path + ": not a valid gzip file");
  return out;
}

// Parsed inputs, loaded once per process.
struct Inputs {
  std::map<std::string, std::shared_ptr<const karp::ClusterSnapshot>> snapshots;
  std::shared_ptr<const karp::InstanceCatalog> catalog;
  std::string error;  // why the data is unavailable
};

std::shared_ptr<const karp::ClusterSnapshot> Load(Inputs& in, const std::string& file) {
  if (!in.error.empty()) return nullptr;
  auto it = in.snapshots.find(file);
  if (it != in.snapshots.end()) return it->second;
  if (!in.catalog) {
    absl::StatusOr<std::string> text = ReadGzip(g_dir + "/" + kCatalog);
    if (!text.ok()) {
      in.error = std::string(text.status().message());
      return nullptr;
    }
    absl::StatusOr<karp::InstanceCatalog> c = karp::json::ParseCatalog(*text, kCatalog);
    if (!c.ok()) {
      in.error = std::string(c.status().message());
      return nullptr;
    }
    in.catalog = std::make_shared<const karp::InstanceCatalog>(std::move(*c));
  }
  absl::StatusOr<std::string> text = ReadGzip(g_dir + "/" + file);
  if (!text.ok()) {
    in.error = std::string(text.status().message());
    return nullptr;
  }
  absl::StatusOr<karp::ClusterSnapshot> s = karp::json::ParseSnapshot(*text, file);
  if (!s.ok()) {
    in.error = std::string(s.status().message());
    return nullptr;
  }
  return in.snapshots[file] = std::make_shared<const karp::ClusterSnapshot>(std::move(*s));
}

Inputs& TheInputs() {
  static Inputs* in = new Inputs();
  return *in;
}

void Skip(benchmark::State& state, const std::string& why) {
  state.SkipWithError(("workloads not available (" + why +
                       "); pass --workloads=DIR holding the shared workloads/ files")
                          .c_str());
}

void BM_Workload_Solve(benchmark::State& state) {
  Inputs& in = TheInputs();
  auto snap = Load(in, state.range(0) == 1 ? kRunning : kRealistic);
  if (!snap) return Skip(state, in.error);
  absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(*snap, in.catalog);
  if (!s.ok()) return state.SkipWithError(std::string(s.status().message()).c_str());
  double nodes = 0;
  for (auto _ : state) {
    absl::StatusOr<karp::SolveResult> r = s->Solve();
    if (!r.ok()) return state.SkipWithError(std::string(r.status().message()).c_str());
    nodes = static_cast<double>(r->node_claims.size());
  }
  const double pods = static_cast<double>(snap->PendingPods().size());
  state.counters["pods"] = pods;
  state.counters["nodes"] = nodes;
  state.counters["pods/s"] = benchmark::Counter(pods * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Workload_Solve)->ArgName("running")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--workloads=", 12) == 0) g_dir = argv[i] + 12;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
