// Loading the embedded AWS catalog: every CLI call and every karp::EmbeddedAwsCatalog() builds
// the InstanceCatalog from the compiled-in table (all types, labels, requirements, overhead and
// offerings). Target: <= 20 ms and <= 20 MB for the whole table.
//
//   build/bench/catalog_bench --benchmark_repetitions=10
//
// The time is that of the build alone (manual timing; destroying the catalog is timed apart).
// Counters: types (in the us-east-1 catalog), MB (heap bytes one catalog holds, measured with
// mallinfo2 around one build), table_ms (the process's first EmbeddedAwsInstanceTypeInfos()
// call, which decodes the table rows once per process), free_ms (destroying one catalog).

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "karp/aws_catalog.h"
#include "karp/catalog.h"

namespace {

// Heap bytes in use (glibc).
double HeapBytes() { return static_cast<double>(mallinfo2().uordblks); }

void BM_Catalog_EmbeddedAws(benchmark::State& state) {
  static const double table_ms = [] {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(karp::EmbeddedAwsInstanceTypeInfos().size());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  }();

  // Checked once, outside the timed loop: the whole table, and the heap one catalog holds.
  const double before = HeapBytes();
  std::optional<absl::StatusOr<karp::InstanceCatalog>> check(karp::EmbeddedAwsCatalog());
  const double held = HeapBytes() - before;
  if (!check->ok() || (*check)->size() < 1300 || (*check)->Find("m5.large") == nullptr) {
    state.SkipWithError(check->ok() ? "fewer than 1,300 types"
                                    : std::string(check->status().message()).c_str());
    return;
  }
  const size_t types = (*check)->size();
  check.reset();

  // The time is the build alone (what a CLI call or a host waits for); destroying the catalog
  // is timed apart and reported as free_ms.
  double free_ms = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    std::optional<absl::StatusOr<karp::InstanceCatalog>> catalog(karp::EmbeddedAwsCatalog());
    benchmark::DoNotOptimize(*catalog);
    const auto built = std::chrono::steady_clock::now();
    catalog.reset();
    free_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - built).count();
    state.SetIterationTime(std::chrono::duration<double>(built - start).count());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(types));
  state.counters["types"] = static_cast<double>(types);
  state.counters["MB"] = held / 1e6;
  state.counters["table_ms"] = table_ms;
  state.counters["free_ms"] = free_ms / static_cast<double>(state.iterations());
}
BENCHMARK(BM_Catalog_EmbeddedAws)->Unit(benchmark::kMillisecond)->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
