// The reference's scheduling benchmark (benchmarks.md §2.1): fake 400 instance types, diverse
// pods 1..20,000, preference pods 4,000 under Respect and Ignore. One cold Solve per
// iteration: the Scheduler is built outside the timed region, but every Solve starts from an
// empty cluster (the reference reuses its scheduler across iterations; karp does not).
//
//   build/bench/scheduler_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "karp/scheduler.h"
#include "workloads.h"

namespace {

using karp::bench::BenchmarkSnapshot;

void Report(benchmark::State& state, double nodes, double price, int pods) {
  state.counters["pods"] = pods;
  state.counters["nodes"] = nodes;
  state.counters["price"] = price;
  state.counters["pods/s"] = benchmark::Counter(static_cast<double>(pods) * state.iterations(),
                                                benchmark::Counter::kIsRate);
}

void RunSolve(benchmark::State& state, const std::vector<karp::Pod>& pods,
              const karp::SchedulerOptions& options, int expected_nodes) {
  const karp::ClusterSnapshot snapshot = BenchmarkSnapshot(pods);
  absl::StatusOr<karp::Scheduler> scheduler =
      karp::Scheduler::Create(snapshot, karp::bench::FakeCatalog(400), options);
  if (!scheduler.ok()) {
    state.SkipWithError(std::string(scheduler.status().message()).c_str());
    return;
  }
  // Check the result once before timing counts (and keep only its figures, so the process
  // never holds two results at once).
  double nodes = 0, price = 0;
  {
    absl::StatusOr<karp::SolveResult> check = scheduler->Solve();
    if (!check.ok() || !check->pod_errors.empty()) {
      state.SkipWithError(check.ok() ? ("pod error: " + check->pod_errors[0].message).c_str()
                                     : "solve failed");
      return;
    }
    if (expected_nodes >= 0 && static_cast<int>(check->node_claims.size()) != expected_nodes) {
      state.SkipWithError(("unexpected node count " + std::to_string(check->node_claims.size()))
                              .c_str());
      return;
    }
    nodes = static_cast<double>(check->node_claims.size());
    price = check->LaunchPricePerHour();
  }
  for (auto _ : state) {
    absl::StatusOr<karp::SolveResult> r = scheduler->Solve();
    benchmark::DoNotOptimize(r);
  }
  Report(state, nodes, price, static_cast<int>(pods.size()));
}

void BM_Scheduling_Diverse(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  RunSolve(state, karp::bench::DiversePods(n), {}, n >= 5 ? n / 5 : -1);
}
BENCHMARK(BM_Scheduling_Diverse)
    ->Arg(1)->Arg(50)->Arg(100)->Arg(500)->Arg(1000)->Arg(2000)->Arg(5000)->Arg(10000)
    ->Arg(20000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Scheduling_PreferencesRespect(benchmark::State& state) {
  RunSolve(state, karp::bench::PreferencePods(static_cast<int>(state.range(0))), {}, -1);
}
BENCHMARK(BM_Scheduling_PreferencesRespect)->Arg(4000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Scheduling_PreferencesIgnore(benchmark::State& state) {
  karp::SchedulerOptions options;
  options.preference_policy = karp::PreferencePolicy::kIgnore;
  RunSolve(state, karp::bench::PreferencePods(static_cast<int>(state.range(0))), options, -1);
}
BENCHMARK(BM_Scheduling_PreferencesIgnore)->Arg(4000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
