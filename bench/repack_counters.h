// The counters of a re-pack consolidation benchmark (docs/repack.md), shared by
// consolidator_bench and workload_bench.

#ifndef KARP_BENCH_REPACK_COUNTERS_H_
#define KARP_BENCH_REPACK_COUNTERS_H_

#include <benchmark/benchmark.h>

#include "karp/consolidator.h"

namespace karp::bench {

// commands, evictions, before/h, after/h, bound/h and after/bound of a re-pack plan.
inline void SetRepackCounters(benchmark::State& state, const ConsolidationPlan& plan) {
  const RepackSummary& r = *plan.repack;
  state.counters["commands"] = static_cast<double>(plan.commands.size());
  state.counters["evictions"] = static_cast<double>(r.evictions);
  state.counters["before/h"] = r.price_before_per_hour;
  state.counters["after/h"] = r.price_after_per_hour;
  state.counters["bound/h"] = r.lower_bound_per_hour;
  state.counters["after/bound"] =
      r.lower_bound_per_hour > 0 ? r.price_after_per_hour / r.lower_bound_per_hour : 0;
}

}  // namespace karp::bench

#endif  // KARP_BENCH_REPACK_COUNTERS_H_
