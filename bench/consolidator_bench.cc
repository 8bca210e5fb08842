// Consolidation benchmark: a full pass (every method, the reference's
// defaults, to completion) over clusters of 100, 1,000 and 5,000 nodes at 30-60 % utilisation
// with ~10 pods per node, PDBs and a few do-not-disrupt pods, on the embedded AWS catalog.
// One pass is checked before timing (commands found, 0 < savings <= cluster price).
// BM_Consolidation_Repack/N/B: the same clusters in re-pack mode (docs/repack.md), with the
// price after the plan, its lower bound (RepackSummary::lower_bound_per_hour), their ratio,
// the evictions, and the faithful pass's price after beside them; B = 1 lifts the budgets.
// The faithful pass shown beside it is bounded to 1,000 simulations at 5,000 nodes (its tail
// of single-node commands would take many minutes there; faithful_stopped = 1 says so).
//
//   build/bench/consolidator_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only

#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <string>

#include "karp/aws_catalog.h"
#include "karp/consolidator.h"
#include "repack_counters.h"
#include "workloads.h"

namespace {

const absl::Time kNow = absl::FromUnixSeconds(1772625600);  // 2026-03-04T12:00:00Z

// One plan of `snap`, or nullopt after SkipWithError.
std::optional<karp::ConsolidationPlan> PlanOnce(
    benchmark::State& state, const karp::ClusterSnapshot& snap,
    std::shared_ptr<const karp::InstanceCatalog> catalog,
    const karp::ConsolidationOptions& options = {}) {
  absl::StatusOr<karp::Consolidator> c =
      karp::Consolidator::Create(snap, std::move(catalog), kNow, options);
  if (!c.ok()) {
    state.SkipWithError(std::string(c.status().message()).c_str());
    return std::nullopt;
  }
  absl::StatusOr<karp::ConsolidationPlan> plan = c->Plan();
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return std::nullopt;
  }
  return *std::move(plan);
}

// Arg 0: nodes; arg 1: 0 = the cluster's budgets (10 % of each NodePool's nodes per plan),
// 1 = budgets lifted to 100 % (what one plan reaches when every movable node may go).
void BM_Consolidation_Repack(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  karp::ClusterSnapshot snap = karp::bench::ConsolidationCluster(nodes, 7, kNow);
  if (state.range(1) == 1) {
    for (karp::NodePool& np : snap.node_pools)
      np.budgets = {karp::Budget{"100%", {}, "", std::nullopt}};
  }
  std::shared_ptr<const karp::InstanceCatalog> catalog = karp::bench::AwsCatalog();
  if (catalog == nullptr) {
    state.SkipWithError("the embedded AWS catalog could not be built");
    return;
  }
  karp::ConsolidationOptions options;
  options.mode = karp::ConsolidationMode::kRepack;
  karp::ConsolidationOptions faithful_options;
  if (nodes >= 5000) faithful_options.max_simulations = 1000;
  const std::optional<karp::ConsolidationPlan> faithful =
      PlanOnce(state, snap, catalog, faithful_options);
  std::optional<karp::ConsolidationPlan> plan;
  for (auto _ : state) {
    plan = PlanOnce(state, snap, catalog, options);
    if (!plan || !faithful) return;
  }
  karp::bench::SetRepackCounters(state, *plan);
  state.counters["nodes"] = nodes;
  state.counters["pods"] = static_cast<double>(snap.pods.size());
  state.counters["faithful_after/h"] =
      plan->repack->price_before_per_hour - faithful->savings_per_hour;
  state.counters["faithful_commands"] = static_cast<double>(faithful->commands.size());
  state.counters["faithful_stopped"] = faithful->stopped_early ? 1 : 0;
}
BENCHMARK(BM_Consolidation_Repack)
    ->ArgsProduct({{100, 1000, 5000}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

void BM_Consolidation_FullPass(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const absl::Time now = absl::FromUnixSeconds(1772625600);  // 2026-03-04T12:00:00Z
  const karp::ClusterSnapshot snap = karp::bench::ConsolidationCluster(nodes, 7, now);
  std::shared_ptr<const karp::InstanceCatalog> catalog = karp::bench::AwsCatalog();
  if (catalog == nullptr) {
    state.SkipWithError("the embedded AWS catalog could not be built");
    return;
  }
  double commands = 0, savings = 0, price = 0;
  for (const karp::Node& n : snap.nodes) {
    const karp::InstanceType* it =
        catalog->Find(n.metadata.labels.at("node.kubernetes.io/instance-type"));
    if (it != nullptr) price += it->offerings.empty() ? 0 : it->offerings[0].price;
  }
  // Check one pass before timing counts: at 30-60 % utilisation there is something to
  // consolidate, and the savings are positive and below the cluster's price.
  {
    absl::StatusOr<karp::Consolidator> c = karp::Consolidator::Create(snap, catalog, now);
    if (!c.ok()) {
      state.SkipWithError(std::string(c.status().message()).c_str());
      return;
    }
    absl::StatusOr<karp::ConsolidationPlan> plan = c->Plan();
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      return;
    }
    commands = static_cast<double>(plan->commands.size());
    savings = plan->savings_per_hour;
    if (commands == 0 || !(savings > 0) || savings > price) {
      state.SkipWithError(("implausible plan: " + std::to_string(plan->commands.size()) +
                           " commands saving " + std::to_string(savings) + "/h of " +
                           std::to_string(price) + "/h")
                              .c_str());
      return;
    }
  }
  for (auto _ : state) {
    absl::StatusOr<karp::Consolidator> c = karp::Consolidator::Create(snap, catalog, now);
    if (!c.ok()) {
      state.SkipWithError(std::string(c.status().message()).c_str());
      return;
    }
    absl::StatusOr<karp::ConsolidationPlan> plan = c->Plan();
    benchmark::DoNotOptimize(plan);
  }
  state.counters["nodes"] = nodes;
  state.counters["pods"] = static_cast<double>(snap.pods.size());
  state.counters["commands"] = commands;
  state.counters["savings/h"] = savings;
  state.counters["cluster/h"] = price;
  state.counters["pods/s"] = benchmark::Counter(
      static_cast<double>(snap.pods.size()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Consolidation_FullPass)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
