// The simulator's engine (docs/simulator.md), private to src/sim/: the event queue, the simulated
// pods and nodes, and the Engine of one run, whose methods are in simulator.cc (the event loop),
// cluster_state.cc (state changes) and controllers.cc (scheduler, provisioning, disruption).

#ifndef KARP_SRC_SIM_ENGINE_H_
#define KARP_SRC_SIM_ENGINE_H_

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "karp/cloud_provider.h"
#include "karp/consolidator.h"
#include "karp/in_memory_cloud_provider.h"
#include "karp/scheduler.h"
#include "karp/sim/simulator.h"
#include "sim/format.h"
#include "sim/random.h"

namespace karp::sim {

enum class EvKind {
  kScale,              // deployment `index` step `value`
  kJobArrive,          // job `index`
  kPodArrive,          // trace pod `index`
  kPodLeave,           // trace pod `name`
  kJobDone,            // pod `name`, generation `gen`
  kNodeReady,          // node `name`
  kInterruptNotice,    // trace interruption `index` (or node `name` for drawn notices)
  kInterruptDeadline,  // node `name`
  kCapacityFail,       // capacity error `index`
  kCapacityRestore,    // capacity error `index`
};

struct Event {
  absl::Time at;
  uint64_t seq = 0;
  EvKind kind = EvKind::kScale;
  size_t index = 0;
  int64_t value = 0;
  std::string name;
  uint64_t gen = 0;
};

struct EventLater {
  bool operator()(const Event& a, const Event& b) const {
    if (a.at != b.at) return a.at > b.at;
    return a.seq > b.seq;
  }
};

struct SimPod {
  Pod pod;  // node_name set while bound
  std::string workload;
  bool job = false;
  absl::Duration run_for = absl::ZeroDuration();
  absl::Time pending_since;
  bool ever_ran = false;
  uint64_t gen = 0;
  int64_t seq = 0;  // creation order within its workload
};

enum class NodeState { kLaunching, kReady };

struct SimNode {
  std::string name;
  std::string pool;
  Instance instance;
  NewNodeClaim claim;
  ResourceList capacity;
  ResourceList allocatable;
  absl::Time launched_at;
  absl::Time ready_at;
  NodeState state = NodeState::kLaunching;
  bool disrupting = false;
  std::string disrupt_reason;
  absl::Time last_pod_event;
  std::optional<absl::Time> interruption_deadline;
  bool interruption_handled = false;
  std::optional<absl::Time> low_since;  // static groups: under the utilisation threshold
  int64_t seq = 0;
};

// A scheduler kept from one solve to the next: Scheduler::Update reuses its NodePool-level
// preparation while the catalog is the same (Update(s).Solve() equals Create(s).Solve()).
class ReusedScheduler {
 public:
  explicit ReusedScheduler(bool reuse) : reuse_(reuse) {}

  absl::StatusOr<const Scheduler*> For(std::shared_ptr<const ClusterSnapshot> snap,
                                       std::shared_ptr<const InstanceCatalog> catalog,
                                       const SchedulerOptions& options = {}) {
    const bool same = reuse_ && scheduler_ && catalog_ == catalog;
    if (same && snapshot_ == snap) return &*scheduler_;
    absl::StatusOr<Scheduler> next =
        same ? scheduler_->Update(*snap) : Scheduler::Create(*snap, catalog, options);
    if (!next.ok()) return next.status();
    scheduler_ = *std::move(next);
    catalog_ = std::move(catalog);
    snapshot_ = std::move(snap);
    return &*scheduler_;
  }

 private:
  std::optional<Scheduler> scheduler_;
  std::shared_ptr<const InstanceCatalog> catalog_;
  std::shared_ptr<const ClusterSnapshot> snapshot_;  // what scheduler_ was made from
  bool reuse_;
};

// A disruption command waiting for its replacements to become ready.
struct PendingCommand {
  std::vector<std::string> candidates;
  std::vector<std::string> replacements;
  std::string reason;
};

class Engine {
 public:
  Engine(const Trace& trace, std::shared_ptr<const InstanceCatalog> catalog, const Policy& policy,
         const SimOptions& options)
      : trace_(trace),
        full_catalog_(catalog),
        catalog_(std::move(catalog)),
        policy_(policy),
        options_(options),
        cloud_(catalog_, options.launch_latency),
        launcher_(&cloud_, &cache_),
        provisioner_(options.reuse_state),
        kube_scheduler_(options.reuse_state) {}

  absl::Status Init();
  absl::StatusOr<SimResult> Run();

 private:
  bool Karpenter() const { return policy_.kind == Policy::Kind::kKarpenter; }
  absl::Duration Offset() const { return now_ - trace_.start; }
  void Log(std::string kind, std::string detail) {
    if (options_.record_events)
      result_.events.push_back({Offset(), std::move(kind), std::move(detail)});
  }
  // Every change of what a plan sees (pods, nodes): plans and cached views start afresh.
  void StateChanged() {
    ++state_version_;
    ++view_version_;
  }
  void Push(absl::Time at, EvKind kind, size_t index = 0, int64_t value = 0, std::string name = "",
            uint64_t gen = 0) {
    queue_.push(Event{at, next_seq_++, kind, index, value, std::move(name), gen});
  }

  absl::Status BuildPools();
  absl::Status Process(const Event& ev);
  void Advance(absl::Time t);

  // Pods.
  void CreatePod(const std::string& workload, const std::string& ns, const std::string& name,
                 const PodShape& shape, bool job, absl::Duration run_for, int64_t seq);
  void DeletePod(const std::string& key);
  void Bind(SimPod& p, SimNode& node);
  void Evict(SimPod& p);
  void ScaleDeployment(size_t index, int64_t replicas);

  // Nodes.
  // The new node's name; NotFound when no offering could launch (logged, counted).
  absl::StatusOr<std::string> Launch(NewNodeClaim claim);
  void NodeReady(SimNode& node);
  void Drain(const std::string& node, const std::string& reason);
  void CheckCommands();

  // Controllers.
  absl::Status KubeSchedule();
  absl::Status Provision();
  absl::Status Disrupt(bool forced);
  absl::Time NextReplan() const;
  absl::Status ScaleDownStatic();
  absl::StatusOr<std::optional<size_t>> PodsFitElsewhere(const std::string& name);
  void Trigger();
  std::optional<absl::Time> WindowClose() const;

  // Views.
  ClusterSnapshot Snapshot(bool karpenter_view, const std::string& without_node = "") const;
  // Snapshot(karpenter_view), kept while nothing in it changed: solves and plans of an
  // unchanged cluster share one copy.
  std::shared_ptr<const ClusterSnapshot> View(bool karpenter_view);
  std::shared_ptr<const InstanceCatalog> CurrentCatalog();
  double PricePerHour() const;
  void TakeSample();
  // Commitments: the model of the trace's (InitPricing), what runs, and the model decisions use.
  absl::Status InitPricing();
  std::vector<PricedInstance> Fleet() const;
  std::shared_ptr<const PricingModel> DecisionPricing() const {
    return policy_.commitment_aware ? pricing_ : nullptr;
  }

  const Trace& trace_;
  std::shared_ptr<const InstanceCatalog> full_catalog_;  // as given
  std::shared_ptr<const InstanceCatalog> catalog_;       // the types some NodePool can use
  std::shared_ptr<const PricingModel> pricing_;          // Trace::commitments, or null
  Policy policy_;
  SimOptions options_;
  InMemoryCloudProvider cloud_;
  UnavailableOfferings cache_;
  // The last plan's consolidator and its catalog (Consolidator::Update reuses its preparation).
  std::optional<Consolidator> consolidator_;
  std::shared_ptr<const InstanceCatalog> consolidator_catalog_;
  Launcher launcher_;
  // Provisioning solves (the Karpenter view) and kube-scheduler passes (ready nodes only).
  ReusedScheduler provisioner_;
  ReusedScheduler kube_scheduler_;

  std::vector<NodePool> pools_;
  absl::Time now_;
  absl::Time end_;
  std::priority_queue<Event, std::vector<Event>, EventLater> queue_;
  uint64_t next_seq_ = 0;

  std::map<std::string, SimPod> pods_;        // by "namespace/name"
  std::map<std::string, SimNode> nodes_;      // by name
  std::map<std::string, int64_t> next_node_;  // per NodePool
  std::map<std::string, int64_t> deployment_seq_;
  std::map<std::string, int64_t> job_seq_;
  std::vector<PendingCommand> commands_;
  int64_t node_seq_ = 0;

  // Batcher.
  std::optional<absl::Time> window_start_;
  absl::Time last_trigger_;
  std::optional<absl::Time> requeue_at_;
  bool kube_dirty_ = false;

  // Disruption.
  absl::Time next_disruption_;
  uint64_t state_version_ = 1;
  // Cached views (View()): the cluster's version, and the instant for views that hold it (the
  // deletion timestamp of nodes being disrupted).
  struct CachedView {
    std::shared_ptr<const ClusterSnapshot> snapshot;
    uint64_t version = 0;
    std::optional<absl::Time> at;
  };
  uint64_t view_version_ = 1;
  CachedView views_[2];           // kube-scheduler view, Karpenter view
  uint64_t planned_version_ = 0;  // the version of the last plan that found nothing
  absl::Time plan_refresh_at_;
  bool interruption_pending_ = false;
  absl::Time last_scale_up_ = absl::InfinitePast();
  // Static groups: nodes whose pods did not fit elsewhere, with the view version of that answer.
  std::map<std::string, uint64_t> misfits_;

  // Unavailable offerings applied to the catalog, recomputed when the cache changes.
  std::vector<absl::Time> mark_expiries_;
  size_t applied_marks_ = 0;
  size_t applied_expired_ = 0;
  std::shared_ptr<const InstanceCatalog> applied_;

  absl::Time next_sample_;
  int sample_disruptions_ = 0;
  int sample_evictions_ = 0;
  std::vector<double> episodes_;
  SimResult result_;
};

}  // namespace karp::sim

#endif  // KARP_SRC_SIM_ENGINE_H_
