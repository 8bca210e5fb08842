// Counters of a karp::PriceLowerBound benchmark (scheduler_bench, workload_bench): the bound,
// each of the bounds it is the largest of, how it was obtained, and how close it is to the
// configuration LP's optimum (the LP run again with its limits lifted, outside the timing, for
// an upper bound on that optimum: its restricted master's value).

#ifndef KARP_BENCH_BOUND_COUNTERS_H_
#define KARP_BENCH_BOUND_COUNTERS_H_

#include <benchmark/benchmark.h>

#include <cstddef>
#include <limits>
#include <vector>

#include "karp/cluster.h"
#include "karp/lower_bound.h"
#include "quality/config_lp.h"
#include "quality/lower_bound_internal.h"

namespace karp::bench {

// Sets the counters of `bound` (the result of the timed calls) for `pods` of `snapshot`.
inline void SetBoundCounters(benchmark::State& state, const ClusterSnapshot& snapshot,
                             const InstanceCatalog& catalog, const std::vector<const Pod*>& pods,
                             const CostLowerBound& bound) {
  state.counters["pods"] = static_cast<double>(pods.size());
  state.counters["bound"] = bound.price_per_hour;
  state.counters["kinds"] = bound.kinds;
  state.counters["classes"] = bound.classes;
  state.counters["components"] = bound.components;
  state.counters["fractional"] = bound.components_price_per_hour;
  state.counters["assignment_lp"] = bound.assignment_lp_price_per_hour;
  state.counters["configuration_lp"] = bound.configuration_lp_price_per_hour;
  state.counters["method"] = bound.method == kLowerBoundConfigurationLp ? 2
                             : bound.method == kLowerBoundAssignmentLp  ? 1
                                                                        : 0;
  // Column generation on every input, with 100 times the default node budget (a few seconds
  // at most on the report's workloads).
  quality::ConfigLpOptions lifted;
  lifted.column_generation_max_pairs = std::numeric_limits<size_t>::max();
  lifted.total_node_budget *= 100;
  lifted.max_iterations *= 5;
  absl::StatusOr<CostLowerBound> full =
      quality::PriceLowerBoundUnchecked(snapshot, catalog, pods, lifted);
  state.counters["lp_upper"] = full.ok() ? full->configuration_lp_upper_per_hour : 0;
}

}  // namespace karp::bench

#endif  // KARP_BENCH_BOUND_COUNTERS_H_
