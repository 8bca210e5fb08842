// File: karp/sim/simulator.h
//
// karp::sim (target karp::sim) — a deterministic discrete-event simulation of a Kubernetes
// cluster driven by karp, running the whole control loop a host runs: pending pods batched
// (1 s idle / 10 s max windows), Scheduler::Solve, launches through a CloudProvider (the
// karp::InMemoryCloudProvider) with launch latency and insufficient-capacity
// errors and the Launcher's fallback, pods bound when their nodes are ready, emptiness and
// consolidation (karp::Consolidator) with budgets, expiration, and spot interruptions with a
// two-minute notice. A static node-group baseline in the manner of the cluster-autoscaler
// runs on the same trace for comparison. docs/simulator.md describes the model.
//
// Simulated time only: nothing sleeps and nothing reads the wall clock. The same trace,
// catalog, policy and options give the same result, sample for sample, on every run.
//
// Example:
//   absl::StatusOr<karp::sim::Trace> trace = karp::json::ReadSimTraceFile("inflate.yaml");
//   auto catalog = std::make_shared<const karp::InstanceCatalog>(
//       *karp::sim::SimulationCatalog());
//   absl::StatusOr<karp::sim::SimResult> r =
//       karp::sim::Simulate(*trace, catalog, karp::sim::StandardPolicies()[0]);
//   std::cout << karp::sim::WriteSamplesCsv({*r});
//
// Thread-safety: Simulate is thread-safe (each call owns its state); the other functions are
// pure.

#ifndef KARP_SIM_SIMULATOR_H_
#define KARP_SIM_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/consolidator.h"
#include "karp/objects.h"
#include "karp/sim/trace.h"

namespace karp::sim {

// How the cluster is autoscaled.
struct Policy {
  enum class Kind {
    // karp as Karpenter: Solve for pending pods, Consolidator for disruption.
    kKarpenter,
    // A static node group per NodePool (trace.baseline_instance_types), scaled like the
    // cluster-autoscaler: up by the nodes the pending pods need, down when a node stays under
    // `scale_down_utilization` for `scale_down_unneeded` and its pods fit elsewhere.
    kStaticGroups,
  };
  std::string name;  // column value in the CSV, e.g. "underutilized-spot"
  Kind kind = Kind::kKarpenter;
  // kKarpenter: replaces every NodePool's consolidationPolicy when set.
  std::optional<ConsolidationPolicy> consolidation_policy;
  // kKarpenter: the consolidator's mode (ConsolidationOptions::mode). Default: faithful.
  ConsolidationMode consolidation_mode = ConsolidationMode::kFaithful;
  // Restricts every NodePool to these capacity types when non-empty (karpenter.sh/capacity-type
  // In [...]). kStaticGroups always launches on-demand.
  std::vector<std::string> capacity_types;
  // kStaticGroups scale-down rule. Defaults: the cluster-autoscaler's (0.5, 10 min, and no
  // scale-down within 10 min of a scale-up).
  // With a trace's commitments: decide by marginal cost (SchedulerOptions::pricing and
  // ConsolidationOptions::pricing); false decides by list prices, billed the same way
  // (the commitment-blind comparison). Policy names ending in "-blind" set it false.
  bool commitment_aware = true;
  double scale_down_utilization = 0.5;
  absl::Duration scale_down_unneeded = absl::Minutes(10);
  absl::Duration scale_down_delay_after_add = absl::Minutes(10);
};

// The five policies compared by `karp simulate`: underutilized-spot, underutilized-on-demand,
// empty-spot, empty-on-demand (WhenEmptyOrUnderutilized / WhenEmpty x spot / on-demand), and
// static-groups.
std::vector<Policy> StandardPolicies();

// The re-pack consolidation mode as policies (docs/repack.md): repack-spot and
// repack-on-demand, WhenEmptyOrUnderutilized with ConsolidationMode::kRepack. Not among the
// standard five (their tables stay as they were); `karp simulate --policy` accepts them.
std::vector<Policy> RepackPolicies();

// StandardPolicies() then RepackPolicies(): every policy a name may select.
std::vector<Policy> AllPolicies();

struct SimOptions {
  // Time from a successful launch to a ready node. Default: 45 s.
  absl::Duration launch_latency = absl::Seconds(45);
  // Provisioning batch windows (docs/design.md §5.2). Defaults: 1 s idle, 10 s max.
  absl::Duration batch_idle = absl::Seconds(1);
  absl::Duration batch_max = absl::Seconds(10);
  // Pods still pending are re-triggered this long after a provisioning run. Default: 10 s.
  absl::Duration pending_requeue = absl::Seconds(10);
  // How often disruption is evaluated (the reference polls every 10 s and validates each
  // consolidation for 15 s). A plan is skipped while nothing changed since the last one that
  // found nothing, for at most `consolidated_refresh`. Defaults: 30 s, 5 min.
  absl::Duration disruption_interval = absl::Seconds(30);
  absl::Duration consolidated_refresh = absl::Minutes(5);
  // kStaticGroups scan interval (cluster-autoscaler --scan-interval). Default: 10 s.
  absl::Duration scan_interval = absl::Seconds(10);
  // Notice between an interruption warning and the instance's termination. Default: 2 min.
  absl::Duration interruption_notice = absl::Minutes(2);
  // Sampling period of SimResult::samples. Default: 60 s.
  absl::Duration sample_interval = absl::Seconds(60);
  // Keep SimResult::events (every decision with its time). Default: true.
  bool record_events = true;
  // Reuse prepared state between solves and plans (default: true): the snapshot of the cluster
  // while nothing in it changed, and the schedulers' and consolidator's NodePool-level
  // preparation (Scheduler::Update, Consolidator::Update) while the catalog is the same.
  // Results are identical either way; false prepares everything afresh for every solve and
  // plan (much slower), to check exactly that.
  bool reuse_state = true;
  // Cluster-level default topology spread constraints for the solves and consolidation plans
  // (SchedulerOptions::default_topology_spread; `--scheduler-config`). Default: none.
  std::vector<TopologySpreadConstraint> default_topology_spread;
  // Called after every sample with the simulated time so far and the trace's duration, on
  // the thread running Simulate (default: none). For progress displays; results never depend
  // on it.
  std::function<void(absl::Duration simulated, absl::Duration total)> progress;

  // OK, or InvalidArgument naming the field (durations must be positive).
  [[nodiscard]] absl::Status Validate() const;
};

// The cluster at one sample time.
struct Sample {
  absl::Duration at;     // offset from the trace start
  int nodes = 0;         // ready nodes
  int launching = 0;     // launched, not ready yet
  int pods_running = 0;  // bound
  int pods_pending = 0;
  double price_per_hour = 0;  // every instance that exists (launching, ready, draining)
  int disruptions = 0;        // nodes disrupted since the previous sample
  int evictions = 0;          // pods evicted since the previous sample
};

// One decision, for logs and tests.
struct SimEvent {
  absl::Duration at;
  // provision, launch, ice, launch-failed, ready, disrupt, drain, interrupt-notice,
  // interrupt-terminate, scale-down, job-done.
  std::string kind;
  std::string detail;
};

struct Summary {
  double total_cost = 0;  // dollars over the whole run
  // With commitments (Trace::commitments): total_cost = committed + on_demand + spot, where
  // committed is what the commitments cost whether used or not (RI and capacity reservation
  // fees, Savings Plan commitments), discounted the part of it that Savings Plans spent on
  // usage at their rates, on_demand and spot the usage beyond the commitments at list price.
  bool has_commitments = false;
  double committed_cost = 0;
  double discounted_cost = 0;
  double on_demand_cost = 0;
  double spot_cost = 0;
  double node_hours = 0;
  int max_nodes = 0;
  int launches = 0;
  int launch_failures = 0;  // claims no offering could launch
  int capacity_errors = 0;  // offerings that failed with insufficient capacity
  int interruptions = 0;    // notices received
  int evictions = 0;
  // Nodes disrupted by reason: empty, underutilized, expired, interrupted, drifted,
  // scale-down (static groups), reclaimed (terminated at an interruption deadline).
  std::map<std::string, int> disruptions;
  int pods = 0;  // pods created
  int64_t pending_episodes = 0;
  double pending_p50_seconds = 0;  // per pending episode (creation or eviction -> bound)
  double pending_p99_seconds = 0;
  double pending_max_seconds = 0;
  int pods_never_scheduled = 0;  // pending at the end, or left without ever running
  int solves = 0;                // provisioning solves (kube-scheduler passes not counted)
  int plans = 0;                 // consolidation plans
};

struct SimResult {
  std::string policy;
  std::vector<Sample> samples;
  std::vector<SimEvent> events;
  Summary summary;
};

// Runs `trace` under `policy`. Errors: InvalidArgument for invalid options, a trace that
// names an unknown NodePool or instance type, or a trace cluster that fails Validate();
// Internal if the engine finds an inconsistency (a bug).
[[nodiscard]] absl::StatusOr<SimResult> Simulate(const Trace& trace,
                                                 std::shared_ptr<const InstanceCatalog> catalog,
                                                 const Policy& policy,
                                                 const SimOptions& options = {});

// The catalog simulations use by default: the embedded AWS catalog (us-east-1, zones a-c)
// with modelled spot prices, because the embedded table has on-demand prices only: each spot
// offering costs the on-demand price times a factor in [0.30, 0.45) fixed per (type, zone) by
// a hash of their names (varying by zone, unlike the catalog's own per-category estimates;
// marked Offering::price_estimated). Deterministic.
[[nodiscard]] absl::StatusOr<InstanceCatalog> SimulationCatalog();

// The samples of several runs as CSV, one row per (policy, sample), with the header
//   policy,time_s,nodes,launching,pods_running,pods_pending,price_per_hour,disruptions,evictions
// Numbers are printed with fixed precision, so equal results give byte-identical text.
std::string WriteSamplesCsv(const std::vector<SimResult>& results);

// The summaries as a Markdown table (one row per policy).
std::string WriteSummaryTable(const std::vector<SimResult>& results);

// Builds a trace from the Alibaba "openb" GPU cluster trace (pod CSV with columns name,
// cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos, pod_phase, creation_time,
// deletion_time, scheduled_time; times in seconds). Pods alive in [from, until) are replayed,
// shifted so that `from` is the trace start; GPU pods get nvidia.com/gpu (whole GPUs, a GPU
// share rounded up to 1) and go to a tainted "gpu" NodePool (g4dn/g5/g6/p3/p4d/p5 families),
// the others to "default" (c/m/r). Errors: NotFound when the file cannot be read;
// InvalidArgument `<path>: line N: column <name>: <what>` for malformed rows and lines over
// 1 MiB; ResourceExhausted beyond 10,000,000 lines or 1,000,000 pods in the window.
[[nodiscard]] absl::StatusOr<Trace> LoadOpenbTrace(const std::string& path,
                                                   absl::Duration from = absl::ZeroDuration(),
                                                   absl::Duration until = absl::InfiniteDuration());

}  // namespace karp::sim

#endif  // KARP_SIM_SIMULATOR_H_
