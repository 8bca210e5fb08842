// Benchmarks on the project's shared workloads at the shape of a real cluster
// (`../shared/data/workloads/`, see its README): existing nodes with bound pods, several
// NodePools, DaemonSets, spread, affinity and sidecars.
//
//   BM_Workload_RunningClusterSolve/N   1,000 nodes with 6,000 bound pods plus the first N of
//                                       its 20,000 pending pods: one cold Scheduler::Solve
//   BM_Workload_RunningClusterConsolidate   the whole running cluster: one Consolidator pass
//                                       (Create + Plan, every method, to completion)
//   BM_Workload_RunningClusterRepack    the same pass in re-pack mode (docs/repack.md): price
//                                       after, lower bound, evictions; the faithful pass's
//                                       price after is not recomputed here (see above)
//   BM_Workload_Realistic100kSolve/N    the first N of 100,000 pending pods, no nodes: Solve
//                                       (N = 10,000, 20,000, 50,000, 100,000)
//
// The files are read unpacked (`gunzip -c FILE.json.gz > FILE.json`) from the folder given by
// --workloads=DIR, else $KARP_WORKLOADS_DIR; scripts/bench_report.py unpacks them into a
// scratch folder. When a file is absent the benchmark is skipped with a message saying so.
// Input reading and Scheduler::Create are outside the timed region (Create's time is the
// `create_ms` counter); the first timed result is checked (Solve succeeds and places pods).
//
//   build/bench/workload_bench --workloads=/tmp/w --benchmark_filter=RunningClusterSolve/20000

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "karp/consolidator.h"
#include "karp/json/codec.h"
#include "karp/lower_bound.h"
#include "karp/scheduler.h"

#include "bench_main.h"
#include "bound_counters.h"
#include "repack_counters.h"

namespace {

constexpr char kRunningCluster[] = "running-cluster-20k-pending-1000-nodes.objects.json";
constexpr char kRealistic100k[] = "realistic-100k-pending.objects.json";
constexpr char kCatalog[] = "aws-us-east-1.catalog.json";
// The clock of the running cluster's consolidation (as in the workloads' README).
constexpr int64_t kConsolidateNow = 1767614400;  // 2026-01-05T12:00:00Z

std::string g_dir = [] {
  const char* env = std::getenv("KARP_WORKLOADS_DIR");
  return std::string(env == nullptr ? "" : env);
}();

struct Workload {
  karp::ClusterSnapshot snapshot;
  std::shared_ptr<const karp::InstanceCatalog> catalog;
};

// Reads `file` and the catalog from g_dir, keeping only the first `pending` pending pods
// (every pod when negative). On failure skips the benchmark with a message and returns false.
bool Load(benchmark::State& state, const char* file, int pending, Workload* out) {
  if (g_dir.empty()) {
    state.SkipWithError(
        "workloads not available: pass --workloads=DIR or set "
        "KARP_WORKLOADS_DIR to a folder of the unpacked ../shared/data/workloads "
        "files");
    return false;
  }
  const std::string path = g_dir + "/" + file;
  absl::StatusOr<karp::ClusterSnapshot> snap = karp::json::ReadSnapshotFiles({path});
  absl::StatusOr<karp::InstanceCatalog> catalog =
      karp::json::ReadCatalogFile(g_dir + "/" + kCatalog);
  if (!snap.ok() || !catalog.ok()) {
    const absl::Status& s = snap.ok() ? catalog.status() : snap.status();
    state.SkipWithError(("workload not available (" + std::string(s.message()) +
                         "); unpack ../shared/data/workloads/*.json.gz into the --workloads folder")
                            .c_str());
    return false;
  }
  if (pending >= 0) {
    std::vector<karp::Pod> kept;
    int seen = 0;
    for (karp::Pod& p : snap->pods) {
      const bool is_pending = p.IsPending() && !p.IsDaemon();
      if (!is_pending || seen++ < pending) kept.push_back(std::move(p));
    }
    snap->pods = std::move(kept);
  }
  out->snapshot = std::move(*snap);
  out->catalog = std::make_shared<const karp::InstanceCatalog>(std::move(*catalog));
  return true;
}

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

void RunSolve(benchmark::State& state, const char* file) {
  Workload w;
  if (!Load(state, file, static_cast<int>(state.range(0)), &w)) return;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<karp::Scheduler> scheduler = karp::Scheduler::Create(w.snapshot, w.catalog);
  const double create_ms = MillisecondsSince(start);
  if (!scheduler.ok()) {
    state.SkipWithError(std::string(scheduler.status().message()).c_str());
    return;
  }
  // The first timed Solve is also the check (these solves take seconds: no separate run).
  double nodes = 0, price = 0, errors = 0;
  bool checked = false;
  for (auto _ : state) {
    absl::StatusOr<karp::SolveResult> r = scheduler->Solve();
    if (!checked) {
      state.PauseTiming();
      checked = true;
      if (!r.ok()) {
        state.SkipWithError(("solve failed: " + std::string(r.status().message())).c_str());
        break;
      }
      nodes = static_cast<double>(r->node_claims.size());
      price = r->LaunchPricePerHour();
      errors = static_cast<double>(r->pod_errors.size());
      if (!(static_cast<double>(r->pod_count) - errors > 0)) {
        state.SkipWithError("the first Solve placed no pod");
        break;
      }
      state.ResumeTiming();
    }
    benchmark::DoNotOptimize(r);
  }
  const double pods = static_cast<double>(w.snapshot.PendingPods().size());
  state.counters["pods"] = pods;
  state.counters["existing"] = static_cast<double>(w.snapshot.nodes.size());
  state.counters["nodes"] = nodes;
  state.counters["price"] = price;
  state.counters["errors"] = errors;
  state.counters["create_ms"] = create_ms;
  state.counters["pods/s"] = benchmark::Counter(pods * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

void BM_Workload_RunningClusterSolve(benchmark::State& state) { RunSolve(state, kRunningCluster); }
BENCHMARK(BM_Workload_RunningClusterSolve)
    ->Arg(2500)
    ->Arg(5000)
    ->Arg(10000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Workload_Realistic100kSolve(benchmark::State& state) { RunSolve(state, kRealistic100k); }
BENCHMARK(BM_Workload_Realistic100kSolve)
    ->Arg(10000)
    ->Arg(20000)
    ->Arg(50000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// A whole consolidation pass: Create (the consolidator prepares the cluster) then Plan.
absl::StatusOr<karp::ConsolidationPlan> ConsolidationPass(
    const Workload& w, absl::Time now, const karp::ConsolidationOptions& options = {}) {
  absl::StatusOr<karp::Consolidator> c =
      karp::Consolidator::Create(w.snapshot, w.catalog, now, options);
  if (!c.ok()) return c.status();
  return c->Plan();
}

// karp::PriceLowerBound of the workload's pending pods.
void RunBound(benchmark::State& state, const char* file) {
  Workload w;
  if (!Load(state, file, -1, &w)) return;
  absl::StatusOr<karp::CostLowerBound> check = karp::PriceLowerBound(w.snapshot, *w.catalog);
  if (!check.ok() || !(check->price_per_hour > 0)) {
    state.SkipWithError(check.ok() ? "implausible bound"
                                   : std::string(check.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<karp::CostLowerBound> b = karp::PriceLowerBound(w.snapshot, *w.catalog);
    benchmark::DoNotOptimize(b);
  }
  karp::bench::SetBoundCounters(state, w.snapshot, *w.catalog, w.snapshot.PendingPods(), *check);
}

void BM_Workload_RunningClusterBound(benchmark::State& state) { RunBound(state, kRunningCluster); }
BENCHMARK(BM_Workload_RunningClusterBound)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Workload_Realistic100kBound(benchmark::State& state) { RunBound(state, kRealistic100k); }
BENCHMARK(BM_Workload_Realistic100kBound)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Workload_RunningClusterConsolidate(benchmark::State& state) {
  Workload w;
  if (!Load(state, kRunningCluster, -1, &w)) return;
  const absl::Time now = absl::FromUnixSeconds(kConsolidateNow);
  double commands = 0, savings = 0;
  for (auto _ : state) {
    absl::StatusOr<karp::ConsolidationPlan> plan = ConsolidationPass(w, now);
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      break;
    }
    commands = static_cast<double>(plan->commands.size());
    savings = plan->savings_per_hour;
  }
  state.counters["pods"] = static_cast<double>(w.snapshot.pods.size());
  state.counters["existing"] = static_cast<double>(w.snapshot.nodes.size());
  state.counters["commands"] = commands;
  state.counters["savings/h"] = savings;
}
BENCHMARK(BM_Workload_RunningClusterConsolidate)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

void BM_Workload_RunningClusterRepack(benchmark::State& state) {
  Workload w;
  if (!Load(state, kRunningCluster, -1, &w)) return;
  karp::ConsolidationOptions options;
  options.mode = karp::ConsolidationMode::kRepack;
  absl::StatusOr<karp::ConsolidationPlan> plan;
  for (auto _ : state) {
    plan = ConsolidationPass(w, absl::FromUnixSeconds(kConsolidateNow), options);
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      return;
    }
  }
  karp::bench::SetRepackCounters(state, *plan);
  state.counters["pods"] = static_cast<double>(w.snapshot.pods.size());
  state.counters["existing"] = static_cast<double>(w.snapshot.nodes.size());
}
BENCHMARK(BM_Workload_RunningClusterRepack)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  karp::bench::TakeFlag(&argc, argv, "workloads", &g_dir);
  return karp::bench::RunBenchmarks(argc, argv);
}
