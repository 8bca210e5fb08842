// Incremental use at the shape of a real cluster (issue 15; workload_bench.cc has the cold
// Solve and consolidation rows of the report): the generated workloads of the
// project's shared data (`workloads/`, gzip-compressed kubectl Lists and the us-east-1 catalog),
// read from --workloads=DIR or KARP_SOURCE_DIR/../shared/data/workloads/. When the data is
// absent every benchmark is skipped with a message saying so. Inputs are parsed outside the
// timed region; one cold Solve (or consolidation pass) per iteration.
//
//   BM_Workload_Solve/running:1       20,000 pending pods + 1,000 nodes with 6,000 bound pods
//   BM_Workload_Solve/running:0       100,000 pending pods of the same mix, no nodes
//   BM_Workload_SmallDeltaSolve/update:1  1,000 successive small-delta Solves on the running
//                                     cluster with Scheduler::Update (update:0: Create each time)
//
// Counters: pods, nodes (new NodeClaims), pods/s; pending, nodes, claims/step.
//
//   build/bench/incremental_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only

#include <benchmark/benchmark.h>
#include <zlib.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
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

// Records why `v` failed in `in`; true when it did.
template <typename T>
bool Failed(const absl::StatusOr<T>& v, Inputs& in) {
  if (v.ok()) return false;
  in.error = std::string(v.status().message());
  return true;
}

// A gzip-compressed input of the workloads folder, decompressed and parsed by `parse`.
template <typename Parse>
auto ReadInput(const std::string& file, Parse parse) -> decltype(parse(std::string_view())) {
  absl::StatusOr<std::string> text = ReadGzip(g_dir + "/" + file);
  if (!text.ok()) return text.status();
  return parse(*text);
}

std::shared_ptr<const karp::ClusterSnapshot> Load(Inputs& in, const std::string& file) {
  if (!in.error.empty()) return nullptr;
  auto it = in.snapshots.find(file);
  if (it != in.snapshots.end()) return it->second;
  if (!in.catalog) {
    absl::StatusOr<karp::InstanceCatalog> c = ReadInput(
        kCatalog, [](std::string_view text) { return karp::json::ParseCatalog(text, kCatalog); });
    if (Failed(c, in)) return nullptr;
    in.catalog = std::make_shared<const karp::InstanceCatalog>(std::move(*c));
  }
  absl::StatusOr<karp::ClusterSnapshot> s = ReadInput(
      file, [&file](std::string_view text) { return karp::json::ParseSnapshot(text, file); });
  if (Failed(s, in)) return nullptr;
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
BENCHMARK(BM_Workload_Solve)
    ->ArgName("running")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// A host's loop on the running cluster: its nodes and bound pods, and a window of 50 pending
// pods (from the workload's pending pods) that slides by 10 per step; each step is
// Scheduler::Update (range(0) = 1) or Scheduler::Create (0) over the next snapshot, then Solve.
// 1,000 steps; the reported time is per step (median with --benchmark_repetitions), snapshot
// building excluded.
void BM_Workload_SmallDeltaSolve(benchmark::State& state) {
  Inputs& in = TheInputs();
  auto snap = Load(in, kRunning);
  if (!snap) return Skip(state, in.error);
  karp::ClusterSnapshot base = *snap;
  std::vector<karp::Pod> pending;
  base.pods.clear();
  for (const karp::Pod& p : snap->pods) {
    (p.node_name.empty() ? pending : base.pods).push_back(p);
  }
  constexpr size_t kWindow = 50, kStep = 10, kSteps = 1000;
  auto snapshot_at = [&](size_t step) {
    karp::ClusterSnapshot s = base;
    for (size_t i = 0; i < kWindow; ++i)
      s.pods.push_back(pending[(step * kStep + i) % pending.size()]);
    return s;
  };
  const bool incremental = state.range(0) == 1;
  absl::StatusOr<karp::Scheduler> current = karp::Scheduler::Create(snapshot_at(0), in.catalog);
  if (!current.ok()) return state.SkipWithError(std::string(current.status().message()).c_str());
  size_t step = 0;
  double claims = 0;
  for (auto _ : state) {
    const karp::ClusterSnapshot next = snapshot_at(++step % kSteps);
    const absl::Time start = absl::Now();
    current = incremental ? current->Update(next) : karp::Scheduler::Create(next, in.catalog);
    if (!current.ok()) return state.SkipWithError(std::string(current.status().message()).c_str());
    absl::StatusOr<karp::SolveResult> r = current->Solve();
    state.SetIterationTime(absl::ToDoubleSeconds(absl::Now() - start));
    if (!r.ok()) return state.SkipWithError(std::string(r.status().message()).c_str());
    claims += static_cast<double>(r->node_claims.size());
  }
  state.counters["pending"] = static_cast<double>(kWindow);
  state.counters["nodes"] = static_cast<double>(base.nodes.size());
  state.counters["claims/step"] = claims / static_cast<double>(state.iterations());
}
BENCHMARK(BM_Workload_SmallDeltaSolve)
    ->ArgName("update")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(1000);

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
