// Scheduling benchmarks (parity, realistic AWS, real trace). One cold Solve per iteration: the
// Scheduler is built outside the timed region, and every Solve starts from an empty cluster
// (the reference reuses its scheduler across iterations; karp does not). Before timing, each
// workload is solved once and checked (every pod placed, or exactly the pods no instance type
// can host for the trace; the expected node count where the workload fixes it); a failed check
// fails the benchmark with SkipWithError. The cost lower bound (karp/lower_bound.h) of the
// same pods is computed outside the timed region too.
//
//   Karpenter parity:  BM_Scheduling_Diverse/N, BM_Scheduling_Preferences{Respect,Ignore}/4000
//                      (fake 400 instance types)
//   Realistic AWS:     BM_Scheduling_Aws/N for N = 1,000, 10,000, 50,000 (embedded catalog)
//   Real trace:        BM_Scheduling_Trace/busiest:1 (Alibaba openb pods alive at the busiest
//                      instant) and /busiest:0 (all 8,152 pods at once), read from
//                      --trace=PATH or KARP_SOURCE_DIR/../shared/data/traces/; when absent
//                      the benchmark is skipped with a message saying so.
//
//   Cost packing:      BM_Scheduling_{Diverse,Aws,Trace}Cost: the same workloads with
//                      SchedulerOptions::packing = kCost (docs/design.md §13), beside the
//                      faithful rows above.
//
// Counters: pods, nodes, price (launch price per hour), bound (lower bound per hour),
// price/bound, pods/s. BM_LowerBound_* time karp::PriceLowerBound itself.
//
//   build/bench/scheduler_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only
//   build/bench/scheduler_bench --benchmark_filter=Trace --trace=/path/openb_pod_list_default.csv

#include <benchmark/benchmark.h>

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bench_main.h"
#include "bound_counters.h"
#include "karp/lower_bound.h"
#include "karp/scheduler.h"
#include "workloads.h"

namespace {

using karp::bench::BenchmarkSnapshot;

std::string g_trace_path =
#ifdef KARP_SOURCE_DIR
    KARP_SOURCE_DIR "/../shared/data/traces/openb_pod_list_default.csv";
#else
    "";
#endif

struct Expect {
  int nodes = -1;                  // -1: any
  bool allow_unplaceable = false;  // pod errors allowed only for pods no type can host
};

void RunSolve(benchmark::State& state, karp::ClusterSnapshot snapshot,
              std::shared_ptr<const karp::InstanceCatalog> catalog,
              const karp::SchedulerOptions& options, Expect expect) {
  if (catalog == nullptr) {
    state.SkipWithError("the instance catalog could not be built");
    return;
  }
  absl::StatusOr<karp::CostLowerBound> bound = karp::PriceLowerBound(snapshot, *catalog);
  if (!bound.ok()) {
    state.SkipWithError(("lower bound: " + std::string(bound.status().message())).c_str());
    return;
  }
  const double pods = static_cast<double>(snapshot.PendingPods().size());
  // The scheduler takes the snapshot over: the process holds one copy of it, as a host would.
  absl::StatusOr<karp::Scheduler> scheduler =
      karp::Scheduler::Create(std::move(snapshot), catalog, options);
  if (!scheduler.ok()) {
    state.SkipWithError(std::string(scheduler.status().message()).c_str());
    return;
  }
  // Check the result once before timing counts (and keep only its figures, so the process
  // never holds two results at once).
  double nodes = 0, price = 0, errors = 0;
  {
    absl::StatusOr<karp::SolveResult> check = scheduler->Solve();
    if (!check.ok()) {
      state.SkipWithError(("solve failed: " + std::string(check.status().message())).c_str());
      return;
    }
    if (expect.allow_unplaceable) {
      std::set<std::string> failed;
      for (const karp::PodError& e : check->pod_errors) failed.insert(e.pod);
      const std::set<std::string> unplaceable(bound->unplaceable_pods.begin(),
                                              bound->unplaceable_pods.end());
      if (failed != unplaceable) {
        state.SkipWithError(("pod errors (" + std::to_string(failed.size()) +
                             ") differ from the pods no instance type can host (" +
                             std::to_string(unplaceable.size()) + ")")
                                .c_str());
        return;
      }
    } else if (!check->pod_errors.empty()) {
      state.SkipWithError(
          ("pod error: " + check->pod_errors[0].pod + ": " + check->pod_errors[0].message).c_str());
      return;
    }
    if (expect.nodes >= 0 && static_cast<int>(check->node_claims.size()) != expect.nodes) {
      state.SkipWithError(("unexpected node count " + std::to_string(check->node_claims.size()) +
                           ", expected " + std::to_string(expect.nodes))
                              .c_str());
      return;
    }
    if (options.packing == karp::PackingMode::kCost) {
      const double faithful = check->packing.faithful_price_per_hour;
      state.counters["faithful/bound"] =
          bound->price_per_hour > 0 ? faithful / bound->price_per_hour : 0.0;
    }
    nodes = static_cast<double>(check->node_claims.size());
    price = check->LaunchPricePerHour();
    errors = static_cast<double>(check->pod_errors.size());
    if (price + 1e-9 * price < bound->price_per_hour) {
      state.SkipWithError("the lower bound exceeds the price of the result (a bug)");
      return;
    }
  }
  for (auto _ : state) {
    absl::StatusOr<karp::SolveResult> r = scheduler->Solve();
    benchmark::DoNotOptimize(r);
  }
  state.counters["pods"] = pods;
  state.counters["nodes"] = nodes;
  state.counters["price"] = price;
  state.counters["bound"] = bound->price_per_hour;
  state.counters["price/bound"] = bound->price_per_hour > 0 ? price / bound->price_per_hour : 0.0;
  if (expect.allow_unplaceable) state.counters["unplaceable"] = errors;
  state.counters["pods/s"] = benchmark::Counter(pods * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

void BM_Scheduling_Diverse(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Expect expect;
  expect.nodes = n >= 5 ? n / 5 : -1;
  RunSolve(state, BenchmarkSnapshot(karp::bench::DiversePods(n)), karp::bench::FakeCatalog(400), {},
           expect);
}
BENCHMARK(BM_Scheduling_Diverse)
    ->Arg(1)
    ->Arg(50)
    ->Arg(100)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(2000)
    ->Arg(5000)
    ->Arg(10000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Scheduling_PreferencesRespect(benchmark::State& state) {
  RunSolve(state, BenchmarkSnapshot(karp::bench::PreferencePods(static_cast<int>(state.range(0)))),
           karp::bench::FakeCatalog(400), {}, {});
}
BENCHMARK(BM_Scheduling_PreferencesRespect)
    ->Arg(4000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Scheduling_PreferencesIgnore(benchmark::State& state) {
  karp::SchedulerOptions options;
  options.preference_policy = karp::PreferencePolicy::kIgnore;
  RunSolve(state, BenchmarkSnapshot(karp::bench::PreferencePods(static_cast<int>(state.range(0)))),
           karp::bench::FakeCatalog(400), options, {});
}
BENCHMARK(BM_Scheduling_PreferencesIgnore)->Arg(4000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Scheduling_Aws(benchmark::State& state) {
  RunSolve(state, karp::bench::AwsRealisticSnapshot(static_cast<int>(state.range(0))),
           karp::bench::AwsCatalog(), {}, {});
}
BENCHMARK(BM_Scheduling_Aws)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

karp::SchedulerOptions CostOptions() {
  karp::SchedulerOptions options;
  options.packing = karp::PackingMode::kCost;
  return options;
}

void BM_Scheduling_DiverseCost(benchmark::State& state) {
  RunSolve(state, BenchmarkSnapshot(karp::bench::DiversePods(static_cast<int>(state.range(0)))),
           karp::bench::FakeCatalog(400), CostOptions(), {});
}
BENCHMARK(BM_Scheduling_DiverseCost)
    ->Arg(50)
    ->Arg(100)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Scheduling_AwsCost(benchmark::State& state) {
  RunSolve(state, karp::bench::AwsRealisticSnapshot(static_cast<int>(state.range(0))),
           karp::bench::AwsCatalog(), CostOptions(), {});
}
BENCHMARK(BM_Scheduling_AwsCost)
    ->Arg(100)
    ->Arg(300)
    ->Arg(1000)
    ->Arg(5000)
    ->Arg(10000)
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The second realistic mix (AwsPlatformSnapshot) in the cost packing mode.
void BM_Scheduling_AwsPlatformCost(benchmark::State& state) {
  RunSolve(state, karp::bench::AwsPlatformSnapshot(static_cast<int>(state.range(0))),
           karp::bench::AwsCatalog(), CostOptions(), {});
}
BENCHMARK(BM_Scheduling_AwsPlatformCost)
    ->Arg(100)
    ->Arg(300)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Candidates built two at a time (SchedulerOptions::cost_threads = 2; the default builds one
// at a time): faster, with more peak memory.
void BM_Scheduling_DiverseCostTwoThreads(benchmark::State& state) {
  karp::SchedulerOptions options = CostOptions();
  options.cost_threads = 2;
  RunSolve(state, BenchmarkSnapshot(karp::bench::DiversePods(static_cast<int>(state.range(0)))),
           karp::bench::FakeCatalog(400), options, {});
}
BENCHMARK(BM_Scheduling_DiverseCostTwoThreads)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The same with new claims' NodePools chosen by weight (PoolOrder::kWeight; the default,
// above, chooses them by price).
void BM_Scheduling_AwsCostByWeight(benchmark::State& state) {
  karp::SchedulerOptions options = CostOptions();
  options.cost_pool_order = karp::PoolOrder::kWeight;
  RunSolve(state, karp::bench::AwsRealisticSnapshot(static_cast<int>(state.range(0))),
           karp::bench::AwsCatalog(), options, {});
}
BENCHMARK(BM_Scheduling_AwsCostByWeight)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// range(0) = 1: the pods alive at the busiest instant; 0: every pod of the trace at once.
void RunTrace(benchmark::State& state, const karp::SchedulerOptions& options) {
  if (g_trace_path.empty()) {
    state.SkipWithError("trace not available: pass --trace=PATH to openb_pod_list_default.csv");
    return;
  }
  absl::StatusOr<karp::ClusterSnapshot> snap =
      karp::bench::TraceSnapshot(g_trace_path, state.range(0) == 1);
  if (!snap.ok()) {
    state.SkipWithError(("trace not available (" + std::string(snap.status().message()) +
                         "); pass --trace=PATH to openb_pod_list_default.csv")
                            .c_str());
    return;
  }
  Expect expect;
  expect.allow_unplaceable = true;
  RunSolve(state, *snap, karp::bench::AwsCatalog(), options, expect);
}
void BM_Scheduling_Trace(benchmark::State& state) { RunTrace(state, {}); }
BENCHMARK(BM_Scheduling_Trace)
    ->ArgName("busiest")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
void BM_Scheduling_TraceCost(benchmark::State& state) { RunTrace(state, CostOptions()); }
BENCHMARK(BM_Scheduling_TraceCost)
    ->ArgName("busiest")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The cost of the bound itself (what a host pays to judge a decision), untimed elsewhere.
void RunBound(benchmark::State& state, const karp::ClusterSnapshot& snapshot,
              const std::shared_ptr<const karp::InstanceCatalog>& catalog) {
  if (catalog == nullptr) {
    state.SkipWithError("the instance catalog could not be built");
    return;
  }
  absl::StatusOr<karp::CostLowerBound> check = karp::PriceLowerBound(snapshot, *catalog);
  if (!check.ok() || !(check->price_per_hour > 0) || !check->unplaceable_pods.empty()) {
    const std::string message =
        check.ok() ? "implausible bound" : std::string(check.status().message());
    state.SkipWithError(message.c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<karp::CostLowerBound> b = karp::PriceLowerBound(snapshot, *catalog);
    benchmark::DoNotOptimize(b);
  }
  karp::bench::SetBoundCounters(state, snapshot, *catalog, snapshot.PendingPods(), *check);
}

void BM_LowerBound_Diverse(benchmark::State& state) {
  RunBound(state, BenchmarkSnapshot(karp::bench::DiversePods(static_cast<int>(state.range(0)))),
           karp::bench::FakeCatalog(400));
}
BENCHMARK(BM_LowerBound_Diverse)->Arg(20000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LowerBound_Aws(benchmark::State& state) {
  RunBound(state, karp::bench::AwsRealisticSnapshot(static_cast<int>(state.range(0))),
           karp::bench::AwsCatalog());
}
BENCHMARK(BM_LowerBound_Aws)->Arg(50000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LowerBound_AwsPlatform(benchmark::State& state) {
  RunBound(state, karp::bench::AwsPlatformSnapshot(static_cast<int>(state.range(0))),
           karp::bench::AwsCatalog());
}
BENCHMARK(BM_LowerBound_AwsPlatform)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  karp::bench::TakeFlag(&argc, argv, "trace", &g_trace_path);
  return karp::bench::RunBenchmarks(argc, argv);
}
