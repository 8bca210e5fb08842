// The counters of a re-pack consolidation benchmark (docs/repack.md), shared by
// consolidator_bench and workload_bench.

#ifndef KARP_BENCH_REPACK_COUNTERS_H_
#define KARP_BENCH_REPACK_COUNTERS_H_

#include <benchmark/benchmark.h>

#include "karp/consolidator.h"

namespace karp::bench {

// commands, evictions, before/h, after/h, bound/h, after/bound, must_stay/h and
// all_pods_bound/h of a re-pack plan.
inline void SetRepackCounters(benchmark::State& state, const ConsolidationPlan& plan) {
  const RepackSummary& r = *plan.repack;
  state.counters["commands"] = static_cast<double>(plan.commands.size());
  state.counters["evictions"] = static_cast<double>(r.evictions);
  state.counters["before/h"] = r.price_before_per_hour;
  state.counters["after/h"] = r.price_after_per_hour;
  state.counters["bound/h"] = r.lower_bound_per_hour;
  state.counters["after/bound"] =
      r.lower_bound_per_hour > 0 ? r.price_after_per_hour / r.lower_bound_per_hour : 0;
  // The part of the bound that pays the nodes that must stay, and the former bound (every
  // reschedulable pod re-packed on new nodes).
  state.counters["must_stay/h"] = r.must_stay_price_per_hour;
  state.counters["all_pods_bound/h"] = r.all_pods_lower_bound_per_hour;
}

}  // namespace karp::bench

#endif  // KARP_BENCH_REPACK_COUNTERS_H_
