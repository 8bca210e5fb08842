// Codec benchmark: parse a `kubectl get -o json` List of 20,000 pods and
// 1,000 nodes. The document is generated (seeded) outside the timed region.
//
//   build/bench/codec_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "karp/json/codec.h"
#include "workloads.h"

namespace {

std::string MakeDocument(int pods, int nodes) {
  karp::ClusterSnapshot snap = karp::bench::BenchmarkSnapshot(karp::bench::DiversePods(pods));
  for (int i = 0; i < nodes; ++i) {
    karp::Node n;
    n.metadata.name = "ip-10-0-" + std::to_string(i / 250) + "-" + std::to_string(i % 250);
    n.metadata.labels = {{"kubernetes.io/arch", "amd64"},
                         {"kubernetes.io/os", "linux"},
                         {"node.kubernetes.io/instance-type", "m5.xlarge"},
                         {"topology.kubernetes.io/zone", i % 2 ? "us-east-1a" : "us-east-1b"},
                         {"karpenter.sh/nodepool", "default"},
                         {"karpenter.sh/capacity-type", "on-demand"},
                         {"kubernetes.io/hostname", n.metadata.name}};
    n.capacity = karp::ResourceList{{"cpu", 4000}, {"memory", 16LL << 30}, {"pods", 58}};
    n.allocatable = karp::ResourceList{{"cpu", 3920}, {"memory", 14162LL << 20}, {"pods", 58}};
    snap.nodes.push_back(std::move(n));
  }
  // Bind half of the pods to nodes, as a running cluster would show them.
  for (size_t i = 0; i < snap.pods.size(); i += 2) {
    snap.pods[i].node_name = snap.nodes[i % snap.nodes.size()].metadata.name;
    snap.pods[i].phase = "Running";
  }
  return karp::json::WriteSnapshot(snap);
}

void BM_Codec_ParseKubectlList(benchmark::State& state) {
  const int pods = static_cast<int>(state.range(0));
  const int nodes = static_cast<int>(state.range(1));
  const std::string doc = MakeDocument(pods, nodes);
  absl::StatusOr<karp::ClusterSnapshot> check = karp::json::ParseSnapshot(doc, "bench.json");
  if (!check.ok() || static_cast<int>(check->pods.size()) != pods ||
      static_cast<int>(check->nodes.size()) != nodes) {
    state.SkipWithError(check.ok() ? "wrong object count"
                                   : std::string(check.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<karp::ClusterSnapshot> snap = karp::json::ParseSnapshot(doc, "bench.json");
    benchmark::DoNotOptimize(snap);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(doc.size()));
  state.counters["objects/s"] = benchmark::Counter(
      static_cast<double>(pods + nodes) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["MB"] = static_cast<double>(doc.size()) / 1e6;
}
BENCHMARK(BM_Codec_ParseKubectlList)->Args({20000, 1000})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
