// The main() of the benchmarks that take a flag of their own (a data path): the flag must be
// removed before Google Benchmark sees the arguments, as it rejects flags it does not know.

#ifndef KARP_BENCH_BENCH_MAIN_H_
#define KARP_BENCH_BENCH_MAIN_H_

#include <benchmark/benchmark.h>

#include <cstring>
#include <string>

namespace karp::bench {

// Removes every `--<name>=VALUE` (e.g. name "trace") from argv, storing the last VALUE in
// *value.
inline void TakeFlag(int* argc, char** argv, const char* name, std::string* value) {
  const std::string prefix = std::string("--") + name + "=";
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
      *value = argv[i] + prefix.size();
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
}

// Runs the registered benchmarks with Google Benchmark's flags; main's exit status.
inline int RunBenchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace karp::bench

#endif  // KARP_BENCH_BENCH_MAIN_H_
