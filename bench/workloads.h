// Benchmark workloads: the reference's scheduling benchmark (docs/benchmarks.md, "How the parity
// benchmark is built") rebuilt with seeded generators.

#ifndef KARP_BENCH_WORKLOADS_H_
#define KARP_BENCH_WORKLOADS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/objects.h"

namespace karp::bench {

// fake.InstanceTypes(n): fake-it-<i>, cpu i+1, memory 2(i+1)Gi, pods 10(i+1), price
// (i+1)·0.3147483648 on spot z1/z2 and on-demand z1/z2/z3, kube-reserved 100m/10Mi.
std::shared_ptr<const InstanceCatalog> FakeCatalog(int n);

// The benchmark's NodePool: no requirements, template label testing/cluster: unspecified,
// limits cpu 10000000 and memory 10000000Gi.
NodePool BenchmarkNodePool();

// makeDiversePods(count): count/5 each of generic, zonal spread, hostname spread, zonal
// self-affinity and hostname anti-affinity pods (remainder generic).
std::vector<Pod> DiversePods(int count, uint32_t seed = 42);

// makePreferencePods(count): identical pods with preferred zone affinity and preferred zone
// and hostname anti-affinity.
std::vector<Pod> PreferencePods(int count, uint32_t seed = 42);

// A snapshot with the benchmark NodePool and `pods` pending.
ClusterSnapshot BenchmarkSnapshot(std::vector<Pod> pods);

// A running cluster for consolidation benchmarks: `nodes` initialized
// nodes of one on-demand+spot NodePool over m5/c5/r5 sizes of the embedded AWS catalog, at
// 30–60 % cpu utilisation with ~10 pods per node from deployments; PDBs on some deployments
// (one allowing no disruption) and a few do-not-disrupt pods. `now` is the snapshot time.
ClusterSnapshot ConsolidationCluster(int nodes, uint32_t seed, absl::Time now);

// The embedded AWS catalog (us-east-1, three zones, spot and on-demand), built once.
std::shared_ptr<const InstanceCatalog> AwsCatalog();

// Realistic AWS workload on AwsCatalog(): NodePools `general` (amd64,
// c/m/r generation > 4, spot and on-demand, weight 50), `arm64` (Graviton c/m/r, weight 10)
// and `gpu` (NVIDIA g/p types, on-demand, tainted nvidia.com/gpu=true:NoSchedule); DaemonSets
// for a CNI and a log agent (everywhere) and the NVIDIA device plugin (GPU nodes); `pods`
// pending pods shaped like production: web deployments with zonal spread (some with hostname
// anti-affinity), batch jobs (some spot-only), memory-heavy caches on r families, arm64
// services, family-pinned pods and a few GPU pods.
ClusterSnapshot AwsRealisticSnapshot(int pods, uint32_t seed = 42);

// A second realistic AWS mix, unlike AwsRealisticSnapshot's (so that the cost packing is not
// tuned to one mix): NodePools `shared` (amd64 and arm64, c/m/r generation > 5, spot and
// on-demand), `critical` (amd64 m/r on-demand, tainted dedicated=critical:NoSchedule) and
// `gpu` (NVIDIA types, spot and on-demand, tainted); four DaemonSets on every node (450m cpu,
// 772 MiB in all); services with log-normal cpu requests (median 300m, rounded to 50m) and
// 1-8 GiB of memory per core with jitter: a sixth pinned to on-demand, a fifth spot-only
// batch, a tenth arm64-only, some amd64-only, some on the critical pool (half of them one per
// host), a few GPU services of 1-2 devices, a tenth one replica per host, the rest anywhere.
ClusterSnapshot AwsPlatformSnapshot(int pods, uint32_t seed = 7);

// The real trace: pods of the Alibaba "openb" CSV
// (`openb_pod_list_default.csv`) as pending pods with their cpu and memory requests and
// `nvidia.com/gpu` = num_gpu (a GPU share counts as one GPU), GPU pods tolerating the GPU
// taint; on the NodePools and DaemonSets of AwsRealisticSnapshot. With `busiest_instant`, the
// pods alive at the trace's busiest instant (the earliest time with the most pods alive,
// alive = creation_time <= t < deletion_time); otherwise every pod of the file (the whole
// workload at once, as the trace's paper packs it into its cluster).
// Errors: NotFound when the file cannot be read, InvalidArgument naming the line of a
// malformed row.
absl::StatusOr<ClusterSnapshot> TraceSnapshot(const std::string& csv_path, bool busiest_instant);

}  // namespace karp::bench

#endif  // KARP_BENCH_WORKLOADS_H_
