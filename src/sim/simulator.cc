// The discrete-event cluster simulator (see karp/sim/simulator.h and docs/simulator.md).
//
// One Engine per run. Simulated time advances from event to event; at each instant the engine
// processes the queued events (trace steps, arrivals, departures, job completions, nodes
// becoming ready, interruption notices and deadlines, capacity windows) in (time, sequence)
// order, then runs the controllers that are due: the kube-scheduler pass (binds pending pods
// to ready nodes), the provisioning batch (Solve + launch), disruption (Consolidator) or the
// static node groups' scan, and sampling. Nothing here reads a clock or a random device.

#include "karp/sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/aws_catalog.h"
#include "karp/cloud_provider.h"
#include "karp/consolidator.h"
#include "karp/in_memory_cloud_provider.h"
#include "karp/labels.h"
#include "karp/scheduler.h"

namespace karp::sim {

absl::Status SimOptions::Validate() const {
  struct Field {
    const char* name;
    absl::Duration value;
  };
  const Field fields[] = {{"launch_latency", launch_latency},
                          {"batch_idle", batch_idle},
                          {"batch_max", batch_max},
                          {"pending_requeue", pending_requeue},
                          {"disruption_interval", disruption_interval},
                          {"consolidated_refresh", consolidated_refresh},
                          {"scan_interval", scan_interval},
                          {"interruption_notice", interruption_notice},
                          {"sample_interval", sample_interval}};
  for (const Field& f : fields) {
    if (f.value <= absl::ZeroDuration() || f.value == absl::InfiniteDuration()) {
      return absl::InvalidArgumentError(
          internal::StrCat("simulator options: ", f.name, " must be a positive finite duration"));
    }
  }
  return absl::OkStatus();
}

std::vector<Policy> StandardPolicies() {
  std::vector<Policy> out;
  auto karpenter = [&](std::string name, ConsolidationPolicy cp, std::string capacity_type) {
    Policy p;
    p.name = std::move(name);
    p.kind = Policy::Kind::kKarpenter;
    p.consolidation_policy = cp;
    p.capacity_types = {std::move(capacity_type)};
    out.push_back(std::move(p));
  };
  karpenter("underutilized-spot", ConsolidationPolicy::kWhenEmptyOrUnderutilized, "spot");
  karpenter("underutilized-on-demand", ConsolidationPolicy::kWhenEmptyOrUnderutilized, "on-demand");
  karpenter("empty-spot", ConsolidationPolicy::kWhenEmpty, "spot");
  karpenter("empty-on-demand", ConsolidationPolicy::kWhenEmpty, "on-demand");
  Policy s;
  s.name = "static-groups";
  s.kind = Policy::Kind::kStaticGroups;
  s.capacity_types = {"on-demand"};
  out.push_back(std::move(s));
  return out;
}

std::vector<Policy> RepackPolicies() {
  std::vector<Policy> out;
  for (const char* capacity_type : {"spot", "on-demand"}) {
    Policy p;
    p.name = internal::StrCat("repack-", capacity_type);
    p.kind = Policy::Kind::kKarpenter;
    p.consolidation_policy = ConsolidationPolicy::kWhenEmptyOrUnderutilized;
    p.consolidation_mode = ConsolidationMode::kRepack;
    p.capacity_types = {capacity_type};
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<Policy> AllPolicies() {
  std::vector<Policy> out = StandardPolicies();
  for (Policy& p : RepackPolicies()) out.push_back(std::move(p));
  return out;
}

namespace {

// FNV-1a, for hashes that must not depend on the standard library's implementation.
uint64_t Fnv1a(std::string_view s, uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// splitmix64: a fixed, portable mixing function (the seeded random source).
uint64_t SplitMix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// A uniform double in [0, 1) from 53 bits of `x`.
double Unit(uint64_t x) { return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0); }

std::string FormatSeconds(absl::Duration d) {
  const double s = absl::ToDoubleSeconds(d);
  char buf[48];
  if (s == std::floor(s)) {
    std::snprintf(buf, sizeof(buf), "%.0f", s);
  } else {
    std::snprintf(buf, sizeof(buf), "%.3f", s);
  }
  return buf;
}

std::string FormatFixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

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

// ---------------------------------------------------------------------------------------------
// Setup

absl::Status Engine::BuildPools() {
  if (trace_.cluster.node_pools.empty()) {
    return absl::InvalidArgumentError(
        internal::StrCat("trace ", trace_.name, ": cluster: no NodePool"));
  }
  for (NodePool np : trace_.cluster.node_pools) {
    auto drop = [&](std::string_view key) {
      np.requirements.erase(
          std::remove_if(np.requirements.begin(), np.requirements.end(),
                         [&](const NodeSelectorRequirement& r) { return r.key == key; }),
          np.requirements.end());
    };
    if (!policy_.capacity_types.empty()) {
      drop(kLabelCapacityType);
      np.requirements.push_back(
          {std::string(kLabelCapacityType), Operator::kIn, policy_.capacity_types, std::nullopt});
    }
    if (Karpenter()) {
      if (policy_.consolidation_policy) np.consolidation_policy = *policy_.consolidation_policy;
    } else {
      auto types = trace_.baseline_instance_types.find(np.name());
      if (types == trace_.baseline_instance_types.end() || types->second.empty()) {
        return absl::InvalidArgumentError(internal::StrCat(
            "trace ", trace_.name, ": baseline.instanceTypes: no instance type for nodepool \"",
            np.name(), "\" (the static-groups policy needs one per NodePool)"));
      }
      for (const std::string& t : types->second) {
        if (catalog_->Find(t) == nullptr) {
          return absl::InvalidArgumentError(
              internal::StrCat("trace ", trace_.name, ": baseline.instanceTypes.", np.name(),
                               ": unknown instance type \"", t, "\""));
        }
      }
      drop(kLabelInstanceType);
      drop(kLabelCapacityType);
      drop("karpenter.k8s.aws/instance-category");
      drop("karpenter.k8s.aws/instance-family");
      drop("karpenter.k8s.aws/instance-generation");
      np.requirements.push_back(
          {std::string(kLabelInstanceType), Operator::kIn, types->second, std::nullopt});
      np.requirements.push_back({std::string(kLabelCapacityType),
                                 Operator::kIn,
                                 {std::string(kCapacityTypeOnDemand)},
                                 std::nullopt});
      np.consolidate_after = std::nullopt;  // the scale-down rule replaces consolidation
      np.expire_after = std::nullopt;
    }
    pools_.push_back(std::move(np));
  }
  return absl::OkStatus();
}

absl::Status Engine::Init() {
  KARP_RETURN_IF_ERROR(options_.Validate());
  if (trace_.duration <= absl::ZeroDuration() || trace_.duration == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        internal::StrCat("trace ", trace_.name, ": duration must be positive and finite"));
  }
  KARP_RETURN_IF_ERROR(BuildPools());
  KARP_RETURN_IF_ERROR(InitPricing());
  {
    ClusterSnapshot check;
    check.node_pools = pools_;
    check.daemon_sets = trace_.cluster.daemon_sets;
    if (absl::Status s = check.Validate(); !s.ok()) {
      return absl::InvalidArgumentError(
          internal::StrCat("trace ", trace_.name, ": cluster: ", s.message()));
    }
  }
  // Only the instance types some NodePool can launch: the scheduler's per-solve preparation
  // scales with the catalog, and the others could never be chosen.
  {
    std::set<std::string> usable;
    for (const NodePool& np : pools_) {
      absl::StatusOr<Requirements> reqs = Requirements::FromApi(np.requirements);
      if (!reqs.ok()) {
        return absl::InvalidArgumentError(internal::StrCat(
            "trace ", trace_.name, ": nodepool ", np.name(), ": ", reqs.status().message()));
      }
      for (const auto& [k, v] : np.template_labels) reqs->Add(Requirement::In(k, {v}));
      for (const InstanceType* it : catalog_->Compatible(*reqs)) usable.insert(it->name);
    }
    std::vector<InstanceType> kept;
    for (const InstanceType& it : catalog_->instance_types()) {
      if (usable.count(it.name) > 0) kept.push_back(it);
    }
    absl::StatusOr<InstanceCatalog> narrowed = InstanceCatalog::Create(
        std::move(kept), catalog_->well_known_labels(), /*register_label_keys=*/false);
    if (!narrowed.ok()) return narrowed.status();
    catalog_ = std::make_shared<const InstanceCatalog>(std::move(*narrowed));
  }
  now_ = trace_.start;
  end_ = trace_.start + trace_.duration;
  next_sample_ = now_;
  next_disruption_ = now_ + (Karpenter() ? options_.disruption_interval : options_.scan_interval);
  plan_refresh_at_ = now_;
  result_.policy = policy_.name;
  applied_ = catalog_;

  for (size_t d = 0; d < trace_.deployments.size(); ++d) {
    for (size_t s = 0; s < trace_.deployments[d].replicas.size(); ++s) {
      const auto& [at, n] = trace_.deployments[d].replicas[s];
      Push(trace_.start + at, EvKind::kScale, d, n);
    }
  }
  for (size_t j = 0; j < trace_.jobs.size(); ++j) {
    const JobTrace& job = trace_.jobs[j];
    if (job.every && *job.every <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          internal::StrCat("trace ", trace_.name, ": jobs[", j, "].every must be positive"));
    }
    for (absl::Duration at = job.at; at < trace_.duration && at < job.until;
         at += job.every.value_or(absl::InfiniteDuration())) {
      Push(trace_.start + at, EvKind::kJobArrive, j);
      if (!job.every) break;
    }
  }
  for (size_t p = 0; p < trace_.pods.size(); ++p) {
    const PodTrace& pod = trace_.pods[p];
    Push(trace_.start + pod.arrive_at, EvKind::kPodArrive, p);
    if (pod.leave_at != absl::InfiniteDuration()) {
      const std::string ns = pod.namespace_.empty() ? "default" : pod.namespace_;
      Push(trace_.start + pod.leave_at, EvKind::kPodLeave, p, 0,
           internal::StrCat(ns, "/", pod.name));
    }
  }
  for (size_t i = 0; i < trace_.interruptions.size(); ++i) {
    Push(trace_.start + trace_.interruptions[i].at, EvKind::kInterruptNotice, i);
  }
  for (size_t c = 0; c < trace_.capacity_errors.size(); ++c) {
    const CapacityErrorTrace& ce = trace_.capacity_errors[c];
    if (full_catalog_->Find(ce.instance_type) == nullptr) {
      return absl::InvalidArgumentError(
          internal::StrCat("trace ", trace_.name, ": capacityErrors[", c,
                           "].instanceType: unknown instance type \"", ce.instance_type, "\""));
    }
    Push(trace_.start + ce.from, EvKind::kCapacityFail, c);
    if (ce.until != absl::InfiniteDuration()) {
      Push(trace_.start + ce.until, EvKind::kCapacityRestore, c);
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Pods

void Engine::CreatePod(const std::string& workload, const std::string& ns, const std::string& name,
                       const PodShape& shape, bool job, absl::Duration run_for, int64_t seq) {
  SimPod p;
  p.pod.metadata.name = name;
  p.pod.metadata.namespace_ = ns.empty() ? "default" : ns;
  p.pod.metadata.uid = name;
  p.pod.metadata.labels = shape.labels;
  p.pod.metadata.labels["app"] = workload;
  p.pod.metadata.creation_timestamp = now_;
  p.pod.metadata.owner_references.push_back(
      {job ? "batch/v1" : "apps/v1", job ? "Job" : "ReplicaSet", workload, workload, true});
  p.pod.node_selector = shape.node_selector;
  p.pod.tolerations = shape.tolerations;
  for (const std::string& claim : shape.claims) p.pod.volumes.push_back({claim, claim, false});
  Container c;
  c.name = "main";
  c.requests = shape.requests;
  p.pod.containers.push_back(std::move(c));
  p.pod.phase = "Pending";
  p.workload = workload;
  p.job = job;
  p.run_for = run_for;
  p.pending_since = now_;
  p.seq = seq;
  const std::string key = p.pod.Key();
  pods_[key] = std::move(p);
  ++result_.summary.pods;
  kube_dirty_ = true;
  StateChanged();
}

void Engine::DeletePod(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  SimPod& p = it->second;
  if (!p.pod.node_name.empty()) {
    auto n = nodes_.find(p.pod.node_name);
    if (n != nodes_.end()) n->second.last_pod_event = now_;
    kube_dirty_ = true;  // capacity freed
  } else if (!p.ever_ran) {
    ++result_.summary.pods_never_scheduled;
  }
  pods_.erase(it);
  StateChanged();
}

void Engine::Bind(SimPod& p, SimNode& node) {
  p.pod.node_name = node.name;
  p.pod.phase = "Running";
  p.pod.start_time = now_;
  p.ever_ran = true;
  ++p.gen;
  episodes_.push_back(absl::ToDoubleSeconds(now_ - p.pending_since));
  node.last_pod_event = now_;
  StateChanged();
  if (p.job) Push(now_ + p.run_for, EvKind::kJobDone, 0, 0, p.pod.Key(), p.gen);
}

void Engine::Evict(SimPod& p) {
  p.pod.node_name.clear();
  p.pod.phase = "Pending";
  p.pod.start_time.reset();
  p.pending_since = now_;
  ++p.gen;
  ++result_.summary.evictions;
  ++sample_evictions_;
  kube_dirty_ = true;
  StateChanged();
}

void Engine::ScaleDeployment(size_t index, int64_t replicas) {
  const DeploymentTrace& d = trace_.deployments[index];
  std::vector<SimPod*> live;
  for (auto& [key, p] : pods_) {
    if (p.workload == d.name && !p.job) live.push_back(&p);
  }
  const int64_t have = static_cast<int64_t>(live.size());
  if (replicas > have) {
    for (int64_t i = have; i < replicas; ++i) {
      const int64_t seq = ++deployment_seq_[d.name];
      CreatePod(d.name, d.namespace_, internal::StrCat(d.name, "-", seq), d.pod, false,
                absl::ZeroDuration(), seq);
    }
  } else if (replicas < have) {
    // As a ReplicaSet: pending pods first, then the newest.
    std::sort(live.begin(), live.end(), [](const SimPod* a, const SimPod* b) {
      const bool pa = a->pod.node_name.empty(), pb = b->pod.node_name.empty();
      if (pa != pb) return pa;
      return a->seq > b->seq;
    });
    std::vector<std::string> gone;
    for (int64_t i = 0; i < have - replicas; ++i) gone.push_back(live[i]->pod.Key());
    for (const std::string& k : gone) DeletePod(k);
  }
}

// ---------------------------------------------------------------------------------------------
// Nodes

std::shared_ptr<const InstanceCatalog> Engine::CurrentCatalog() {
  size_t expired = 0;
  for (absl::Time t : mark_expiries_) expired += t <= now_ ? 1 : 0;
  if (mark_expiries_.size() == applied_marks_ && expired == applied_expired_) return applied_;
  applied_marks_ = mark_expiries_.size();
  applied_expired_ = expired;
  absl::StatusOr<InstanceCatalog> c = cache_.Apply(*catalog_, now_);
  applied_ = c.ok() ? std::make_shared<const InstanceCatalog>(std::move(*c)) : catalog_;
  return applied_;
}

absl::StatusOr<std::string> Engine::Launch(NewNodeClaim claim) {
  const int64_t n = ++next_node_[claim.node_pool];
  claim.name = internal::StrCat(claim.node_pool, "-", n);
  std::shared_ptr<const InstanceCatalog> catalog = CurrentCatalog();
  cloud_.SetNow(now_);
  const size_t before = cache_.Size(now_);
  absl::StatusOr<Instance> instance = launcher_.Launch(claim, *catalog, now_);
  const size_t after = cache_.Size(now_);
  if (after > before) {
    const int failed = static_cast<int>(after - before);
    result_.summary.capacity_errors += failed;
    for (int i = 0; i < failed; ++i) mark_expiries_.push_back(now_ + absl::Minutes(3));
    Log("ice",
        internal::StrCat(claim.name, ": ", failed, " offering(s) had insufficient capacity"));
  }
  if (!instance.ok()) {
    if (instance.status().code() != absl::StatusCode::kResourceExhausted &&
        instance.status().code() != absl::StatusCode::kFailedPrecondition) {
      return instance.status();
    }
    ++result_.summary.launch_failures;
    Log("launch-failed", std::string(instance.status().message()));
    return absl::NotFoundError("not launched");
  }
  SimNode node;
  node.name = claim.name;
  node.pool = claim.node_pool;
  node.instance = *instance;
  if (const InstanceType* it = catalog_->Find(instance->instance_type)) {
    node.capacity = it->capacity;
    node.allocatable = it->Allocatable();
  }
  node.claim = std::move(claim);
  node.launched_at = now_;
  node.last_pod_event = now_;
  node.state = NodeState::kLaunching;
  node.seq = ++node_seq_;
  ++result_.summary.launches;
  last_scale_up_ = now_;
  Log("launch",
      internal::StrCat(node.name, " ", instance->instance_type, " ", instance->capacity_type, " ",
                       instance->zone, " $", FormatFixed(instance->price, 4), "/h"));
  Push(now_ + options_.launch_latency, EvKind::kNodeReady, 0, 0, node.name);
  if (trace_.spot_interruption_rate > 0 && instance->capacity_type == kCapacityTypeSpot) {
    const double u = Unit(SplitMix(trace_.seed ^ SplitMix(static_cast<uint64_t>(node.seq))));
    const double hours = -std::log(1.0 - u) / trace_.spot_interruption_rate;
    const double seconds = std::ceil(hours * 3600);  // whole seconds keep logs readable
    if (seconds < absl::ToDoubleSeconds(end_ - now_)) {
      Push(now_ + absl::Seconds(seconds), EvKind::kInterruptNotice,
           std::numeric_limits<size_t>::max(), 0, node.name);
    }
  }
  std::string name = node.name;
  nodes_[name] = std::move(node);
  StateChanged();
  return name;
}

void Engine::NodeReady(SimNode& node) {
  node.state = NodeState::kReady;
  node.ready_at = now_;
  node.last_pod_event = now_;
  Log("ready", node.name);
  kube_dirty_ = true;
  StateChanged();
}

void Engine::Drain(const std::string& name, const std::string& reason) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  int evicted = 0;
  for (auto& [key, p] : pods_) {
    if (p.pod.node_name == name) {
      Evict(p);
      ++evicted;
    }
  }
  (void)cloud_.Delete(it->second.instance.provider_id);
  Log("drain", internal::StrCat(name, " (", reason, "), ", evicted, " pod(s) evicted"));
  ++result_.summary.disruptions[reason];
  ++sample_disruptions_;
  nodes_.erase(it);
  StateChanged();
  kube_dirty_ = true;
}

// Drains the candidates of commands whose replacements are all ready; drops commands whose
// replacements vanished (the candidates stop disrupting).
void Engine::CheckCommands() {
  for (size_t i = 0; i < commands_.size();) {
    const PendingCommand& c = commands_[i];
    bool ready = true, lost = false;
    for (const std::string& r : c.replacements) {
      auto n = nodes_.find(r);
      if (n == nodes_.end()) {
        lost = true;
      } else if (n->second.state != NodeState::kReady) {
        ready = false;
      }
    }
    if (lost) {
      for (const std::string& cand : c.candidates) {
        auto n = nodes_.find(cand);
        if (n != nodes_.end()) n->second.disrupting = false;
        ++view_version_;  // the Karpenter view un-marks them (plans are not forced by it)
      }
      commands_.erase(commands_.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    if (ready) {
      const PendingCommand done = c;
      commands_.erase(commands_.begin() + static_cast<std::ptrdiff_t>(i));
      for (const std::string& cand : done.candidates) Drain(cand, done.reason);
      continue;
    }
    ++i;
  }
}

// ---------------------------------------------------------------------------------------------
// Views

// The cluster as karp sees it. The Karpenter view has the NodePools, in-flight NodeClaims,
// and nodes being disrupted marked for deletion (their pods are rescheduled by Solve); the
// kube-scheduler view has ready nodes only, disrupting ones cordoned.
ClusterSnapshot Engine::Snapshot(bool karpenter_view, const std::string& without_node) const {
  ClusterSnapshot s;
  if (karpenter_view) s.node_pools = pools_;
  s.daemon_sets = trace_.cluster.daemon_sets;
  s.persistent_volume_claims = trace_.cluster.persistent_volume_claims;
  s.persistent_volumes = trace_.cluster.persistent_volumes;
  s.storage_classes = trace_.cluster.storage_classes;
  s.csi_nodes = trace_.cluster.csi_nodes;
  for (const auto& [name, n] : nodes_) {
    if (name == without_node) continue;
    const NodePool* pool = nullptr;
    for (const NodePool& np : pools_) {
      if (np.name() == n.pool) pool = &np;
    }
    std::map<std::string, std::string> labels = n.instance.labels;
    labels[std::string(kLabelHostname)] = name;
    labels[std::string(kLabelNodePool)] = n.pool;
    NodeClaim nc;
    nc.metadata.name = name;
    nc.metadata.creation_timestamp = n.launched_at;
    nc.requirements.push_back({std::string(kLabelNodePool), Operator::kIn, {n.pool}, std::nullopt});
    nc.taints = n.claim.taints;
    nc.startup_taints = n.claim.startup_taints;
    nc.provider_id = n.instance.provider_id;
    nc.capacity = n.capacity;
    nc.allocatable = n.allocatable;
    nc.expire_after = pool != nullptr ? pool->expire_after : DefaultExpireAfter();
    nc.conditions.push_back({"Launched", "True", "Launched", "", n.launched_at});
    if (n.state == NodeState::kLaunching) {
      if (!karpenter_view) continue;
      nc.metadata.labels = labels;
      nc.metadata.labels.erase(std::string(kLabelHostname));
      s.node_claims.push_back(std::move(nc));
      continue;
    }
    labels[std::string(kLabelRegistered)] = "true";
    labels[std::string(kLabelInitialized)] = "true";
    Node node;
    node.metadata.name = name;
    node.metadata.labels = labels;
    node.metadata.creation_timestamp = n.ready_at;
    node.provider_id = n.instance.provider_id;
    node.capacity = n.capacity;
    node.allocatable = n.allocatable;
    node.taints = n.claim.taints;
    node.conditions.push_back({"Ready", "True", "", "", n.ready_at});
    if (n.disrupting) {
      if (karpenter_view) {
        node.taints.push_back(DisruptedTaint());
        node.metadata.deletion_timestamp = now_;
      } else {
        node.unschedulable = true;
      }
    }
    nc.metadata.labels = labels;
    nc.node_name = name;
    nc.conditions.push_back({"Registered", "True", "Registered", "", n.ready_at});
    nc.conditions.push_back({"Initialized", "True", "Initialized", "", n.ready_at});
    nc.last_pod_event_time = n.last_pod_event;
    s.nodes.push_back(std::move(node));
    s.node_claims.push_back(std::move(nc));
  }
  for (const auto& [key, p] : pods_) {
    if (!without_node.empty() && p.pod.node_name == without_node) continue;
    s.pods.push_back(p.pod);
  }
  return s;
}

std::shared_ptr<const ClusterSnapshot> Engine::View(bool karpenter_view) {
  std::optional<absl::Time> at;
  for (const auto& [name, n] : nodes_) {
    if (karpenter_view && n.disrupting && n.state == NodeState::kReady) at = now_;
  }
  CachedView& cached = views_[karpenter_view ? 1 : 0];
  if (cached.snapshot == nullptr || cached.version != view_version_ || cached.at != at ||
      !options_.reuse_state) {
    cached.snapshot = std::make_shared<const ClusterSnapshot>(Snapshot(karpenter_view));
    cached.version = view_version_;
    cached.at = at;
  }
  return cached.snapshot;
}

double Engine::PricePerHour() const {
  double total = 0;
  for (const auto& [name, n] : nodes_) total += n.instance.price;
  return total;
}

absl::Status Engine::InitPricing() {
  if (!trace_.commitments) return absl::OkStatus();
  KARP_ASSIGN_OR_RETURN(pricing_, MakeCommitmentPricing(*trace_.commitments, trace_.start));
  result_.summary.has_commitments = true;
  if (trace_.commitments->capacity_reservations.empty()) return absl::OkStatus();
  absl::StatusOr<InstanceCatalog> with = WithCapacityReservations(*catalog_, *trace_.commitments);
  if (!with.ok()) {
    return absl::InvalidArgumentError(
        internal::StrCat("trace ", trace_.name, ": commitments: ", with.status().message()));
  }
  catalog_ = std::make_shared<const InstanceCatalog>(*std::move(with));
  return absl::OkStatus();
}

std::vector<PricedInstance> Engine::Fleet() const {
  std::vector<PricedInstance> fleet;
  fleet.reserve(nodes_.size());
  for (const auto& [name, n] : nodes_) {
    fleet.push_back({n.instance.instance_type, n.instance.zone, n.instance.capacity_type,
                     n.instance.price, ""});
  }
  return fleet;
}

void Engine::Advance(absl::Time t) {
  if (t <= now_) return;
  const double hours = absl::ToDoubleHours(t - now_);
  if (pricing_ != nullptr) {
    const CostBreakdown b = pricing_->Bill(Fleet());
    Summary& s = result_.summary;
    s.total_cost += b.total() * hours;
    s.committed_cost += b.committed * hours;
    s.discounted_cost += b.discounted * hours;
    s.on_demand_cost += b.on_demand * hours;
    s.spot_cost += b.spot * hours;
  } else {
    result_.summary.total_cost += PricePerHour() * hours;
  }
  result_.summary.node_hours += static_cast<double>(nodes_.size()) * hours;
  now_ = t;
}

void Engine::TakeSample() {
  Sample s;
  s.at = Offset();
  for (const auto& [name, n] : nodes_) {
    if (n.state == NodeState::kReady) {
      ++s.nodes;
    } else {
      ++s.launching;
    }
  }
  for (const auto& [key, p] : pods_) {
    if (p.pod.node_name.empty()) {
      ++s.pods_pending;
    } else {
      ++s.pods_running;
    }
  }
  s.price_per_hour = PricePerHour();
  s.disruptions = sample_disruptions_;
  s.evictions = sample_evictions_;
  sample_disruptions_ = 0;
  sample_evictions_ = 0;
  result_.summary.max_nodes = std::max(result_.summary.max_nodes, s.nodes + s.launching);
  result_.samples.push_back(s);
}

// ---------------------------------------------------------------------------------------------
// Controllers

void Engine::Trigger() {
  if (!window_start_) window_start_ = now_;
  last_trigger_ = now_;
}

std::optional<absl::Time> Engine::WindowClose() const {
  if (!window_start_) return std::nullopt;
  if (!Karpenter()) {
    // The cluster-autoscaler acts on its next scan.
    absl::Duration rem;
    const int64_t k =
        absl::IDivDuration(*window_start_ - trace_.start, options_.scan_interval, &rem);
    absl::Time tick = trace_.start + options_.scan_interval * k;
    if (tick < *window_start_) tick += options_.scan_interval;
    return tick;
  }
  return std::min(last_trigger_ + options_.batch_idle, *window_start_ + options_.batch_max);
}

// The kube-scheduler: binds pending pods to ready nodes (Solve over the ready nodes without
// NodePools); pods it cannot place become unschedulable and trigger provisioning.
absl::Status Engine::KubeSchedule() {
  kube_dirty_ = false;
  bool pending = false;
  for (const auto& [key, p] : pods_) pending |= p.pod.node_name.empty();
  if (!pending) return absl::OkStatus();
  bool any_ready = false;
  for (const auto& [name, n] : nodes_) any_ready |= n.state == NodeState::kReady && !n.disrupting;
  if (any_ready) {
    std::shared_ptr<const ClusterSnapshot> snap = View(false);
    KARP_ASSIGN_OR_RETURN(const Scheduler* scheduler, kube_scheduler_.For(snap, catalog_));
    KARP_ASSIGN_OR_RETURN(SolveResult r, scheduler->Solve());
    for (const ExistingPlacement& e : r.existing_nodes) {
      if (e.in_flight) continue;
      auto n = nodes_.find(e.name);
      if (n == nodes_.end())
        return absl::InternalError("kube-scheduler placed a pod on a node that does not exist");
      for (const std::string& key : e.pods) {
        auto p = pods_.find(key);
        if (p != pods_.end() && p->second.pod.node_name.empty()) Bind(p->second, n->second);
      }
    }
  }
  for (const auto& [key, p] : pods_) {
    if (p.pod.node_name.empty()) {
      Trigger();
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status Engine::Provision() {
  window_start_.reset();
  std::shared_ptr<const ClusterSnapshot> snap = View(true);
  std::shared_ptr<const InstanceCatalog> catalog = CurrentCatalog();
  SchedulerOptions so;
  so.pricing = DecisionPricing();
  KARP_ASSIGN_OR_RETURN(const Scheduler* scheduler, provisioner_.For(snap, catalog, so));
  KARP_ASSIGN_OR_RETURN(SolveResult r, scheduler->Solve());
  ++result_.summary.solves;
  Log("provision", internal::StrCat(r.pods, " pod(s): ", r.node_claims.size(), " new claim(s), ",
                                    r.pod_errors.size(), " unschedulable"));
  for (const ExistingPlacement& e : r.existing_nodes) {
    if (e.in_flight) continue;
    auto n = nodes_.find(e.name);
    if (n == nodes_.end() || n->second.state != NodeState::kReady || n->second.disrupting) continue;
    for (const std::string& key : e.pods) {
      auto p = pods_.find(key);
      if (p != pods_.end() && p->second.pod.node_name.empty()) Bind(p->second, n->second);
    }
  }
  for (NewNodeClaim& nc : r.node_claims) {
    absl::StatusOr<std::string> launched = Launch(std::move(nc));
    if (!launched.ok() && launched.status().code() != absl::StatusCode::kNotFound) {
      return launched.status();
    }
  }
  bool pending = false;
  for (const auto& [key, p] : pods_) pending |= p.pod.node_name.empty();
  if (pending) requeue_at_ = now_ + options_.pending_requeue;
  return absl::OkStatus();
}

// When an empty plan must be made again: a node's consolidateAfter or expireAfter runs out,
// or the refresh interval passes.
absl::Time Engine::NextReplan() const {
  absl::Time next = now_ + options_.consolidated_refresh;
  for (const auto& [name, n] : nodes_) {
    if (n.state != NodeState::kReady) continue;
    for (const NodePool& np : pools_) {
      if (np.name() != n.pool) continue;
      if (np.consolidate_after) {
        const absl::Time t = n.last_pod_event + *np.consolidate_after;
        if (t > now_) next = std::min(next, t);
      }
      if (np.expire_after) {
        const absl::Time t = n.launched_at + *np.expire_after;
        if (t > now_) next = std::min(next, t);
      }
    }
  }
  return next;
}

absl::Status Engine::Disrupt(bool forced) {
  bool any_ready = false;
  for (const auto& [name, n] : nodes_) any_ready |= n.state == NodeState::kReady && !n.disrupting;
  if (!any_ready) return absl::OkStatus();
  for (const auto& [name, n] : nodes_) {
    forced |= n.interruption_deadline && !n.interruption_handled && !n.disrupting;
  }
  if (!forced && planned_version_ == state_version_ && now_ < plan_refresh_at_) {
    return absl::OkStatus();  // consolidated: nothing changed since the last empty plan
  }
  ConsolidationOptions co;
  co.once = true;
  co.pricing = DecisionPricing();
  co.mode = policy_.consolidation_mode;
  for (auto& [name, n] : nodes_) {
    if (n.interruption_deadline && !n.interruption_handled && !n.disrupting &&
        n.state == NodeState::kReady) {
      co.interruptions.push_back({name, "spot-interruption", *n.interruption_deadline});
    }
  }
  std::shared_ptr<const ClusterSnapshot> snap = View(true);
  // The previous plan's consolidator lends its prepared NodePools while the catalog is the same.
  std::shared_ptr<const InstanceCatalog> catalog = CurrentCatalog();
  absl::StatusOr<Consolidator> updated =
      options_.reuse_state && consolidator_ && consolidator_catalog_ == catalog
          ? consolidator_->Update(*snap, now_, co)
          : Consolidator::Create(*snap, catalog, now_, co);
  if (!updated.ok()) return updated.status();
  consolidator_ = *std::move(updated);
  consolidator_catalog_ = catalog;
  KARP_ASSIGN_OR_RETURN(ConsolidationPlan plan, consolidator_->Plan());
  ++result_.summary.plans;
  interruption_pending_ = false;
  if (plan.commands.empty()) {
    planned_version_ = state_version_;
    plan_refresh_at_ = NextReplan();
    return absl::OkStatus();
  }
  planned_version_ = 0;
  const DisruptionCommand& cmd = plan.commands.front();
  const std::string reason(DisruptionReasonName(cmd.reason));
  std::vector<std::string> replacements;
  for (const NewNodeClaim& nc : cmd.replacements) {
    absl::StatusOr<std::string> launched = Launch(nc);
    if (launched.status().code() == absl::StatusCode::kNotFound) {
      Log("disrupt", internal::StrCat(reason, ": replacement could not launch; command dropped"));
      return absl::OkStatus();  // launched replacements stay as ordinary nodes
    }
    if (!launched.ok()) return launched.status();
    replacements.push_back(*launched);
  }
  std::string names;
  for (const std::string& c : cmd.candidates) {
    auto n = nodes_.find(c);
    if (n == nodes_.end()) return absl::InternalError("consolidator named an unknown node");
    n->second.disrupting = true;
    n->second.disrupt_reason = reason;
    if (cmd.reason == DisruptionReason::kInterrupted) n->second.interruption_handled = true;
    names += (names.empty() ? "" : ", ") + c;
  }
  StateChanged();
  Log("disrupt", internal::StrCat(DisruptionDecisionName(cmd.decision), " ", reason, ": ", names,
                                  replacements.empty() ? "" : " -> ",
                                  replacements.empty() ? "" : replacements.front(), ", saving $",
                                  FormatFixed(cmd.savings_per_hour, 4), "/h"));
  if (replacements.empty()) {
    for (const std::string& c : cmd.candidates) Drain(c, reason);
  } else {
    commands_.push_back({cmd.candidates, replacements, reason});
  }
  return absl::OkStatus();
}

// The cluster-autoscaler's scale-down: a node under the utilisation threshold for
// `scale_down_unneeded` is removed when its pods fit on the other ready nodes; empty nodes go
// in bulk (at most 10 per scan), others one per scan.
absl::Status Engine::ScaleDownStatic() {
  std::map<std::string, ResourceList> requested;
  std::map<std::string, int> pod_count;
  for (const auto& [key, p] : pods_) {
    if (p.pod.node_name.empty()) continue;
    requested[p.pod.node_name].Add(p.pod.Requests());
    ++pod_count[p.pod.node_name];
  }
  std::vector<std::string> unneeded;
  for (auto& [name, n] : nodes_) {
    if (n.state != NodeState::kReady || n.disrupting) continue;
    const ResourceList& req = requested[name];
    double util = 0;
    const int64_t gpus = n.allocatable.Get("nvidia.com/gpu");
    if (gpus > 0) {
      util = static_cast<double>(req.Get("nvidia.com/gpu")) / static_cast<double>(gpus);
    } else {
      if (n.allocatable.cpu() > 0)
        util = std::max(util, static_cast<double>(req.cpu()) / n.allocatable.cpu());
      if (n.allocatable.memory() > 0) {
        util = std::max(
            util, static_cast<double>(req.memory()) / static_cast<double>(n.allocatable.memory()));
      }
    }
    if (util < policy_.scale_down_utilization) {
      if (!n.low_since) n.low_since = now_;
    } else {
      n.low_since.reset();
    }
    if (n.low_since && now_ - *n.low_since >= policy_.scale_down_unneeded) unneeded.push_back(name);
  }
  if (unneeded.empty() || now_ - last_scale_up_ < policy_.scale_down_delay_after_add) {
    return absl::OkStatus();
  }
  int empty_removed = 0;
  for (const std::string& name : unneeded) {
    if (pod_count[name] == 0 && empty_removed < 10) {
      ++empty_removed;
      Log("scale-down", internal::StrCat(name, " empty"));
      Drain(name, "scale-down");
    }
  }
  if (empty_removed > 0) return absl::OkStatus();
  for (const std::string& name : unneeded) {
    KARP_ASSIGN_OR_RETURN(std::optional<size_t> moved, PodsFitElsewhere(name));
    if (!moved) continue;
    Log("scale-down", internal::StrCat(name, " ", *moved, " pod(s) fit elsewhere"));
    Drain(name, "scale-down");
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

// Whether the pods of `name` fit on the other ready nodes (a Solve over the cluster without the
// node places them all, with no new node): their count, or nullopt. A node found not to fit
// stays so until the cluster changes, so that answer is kept for later scans.
absl::StatusOr<std::optional<size_t>> Engine::PodsFitElsewhere(const std::string& name) {
  auto misfit = misfits_.find(name);
  if (options_.reuse_state && misfit != misfits_.end() && misfit->second == view_version_) {
    return std::nullopt;
  }
  auto snap = std::make_shared<const ClusterSnapshot>(Snapshot(false, name));
  std::vector<const Pod*> moving;
  std::vector<Pod> copies;
  copies.reserve(pods_.size());
  for (const auto& [key, p] : pods_) {
    if (p.pod.node_name == name) {
      copies.push_back(p.pod);
      copies.back().node_name.clear();
    }
  }
  for (const Pod& p : copies) moving.push_back(&p);
  KARP_ASSIGN_OR_RETURN(const Scheduler* scheduler, kube_scheduler_.For(snap, catalog_));
  KARP_ASSIGN_OR_RETURN(SolveResult r, scheduler->Solve(moving));
  if (!r.pod_errors.empty() || !r.node_claims.empty()) {
    misfits_[name] = view_version_;
    return std::nullopt;
  }
  return copies.size();
}

// ---------------------------------------------------------------------------------------------
// Events

absl::Status Engine::Process(const Event& ev) {
  switch (ev.kind) {
    case EvKind::kScale:
      ScaleDeployment(ev.index, ev.value);
      return absl::OkStatus();
    case EvKind::kJobArrive: {
      const JobTrace& job = trace_.jobs[ev.index];
      for (int64_t i = 0; i < job.parallelism; ++i) {
        const int64_t seq = ++job_seq_[job.name];
        CreatePod(job.name, job.namespace_, internal::StrCat(job.name, "-", seq), job.pod, true,
                  job.run_for, seq);
      }
      return absl::OkStatus();
    }
    case EvKind::kPodArrive: {
      const PodTrace& pt = trace_.pods[ev.index];
      CreatePod(pt.name, pt.namespace_, pt.name, pt.pod, false, absl::ZeroDuration(),
                static_cast<int64_t>(ev.index));
      return absl::OkStatus();
    }
    case EvKind::kPodLeave:
      DeletePod(ev.name);
      return absl::OkStatus();
    case EvKind::kJobDone: {
      auto p = pods_.find(ev.name);
      if (p == pods_.end() || p->second.gen != ev.gen || p->second.pod.node_name.empty()) {
        return absl::OkStatus();  // evicted meanwhile: it starts over when bound again
      }
      DeletePod(ev.name);
      return absl::OkStatus();
    }
    case EvKind::kNodeReady: {
      auto n = nodes_.find(ev.name);
      if (n != nodes_.end() && n->second.state == NodeState::kLaunching) NodeReady(n->second);
      CheckCommands();
      return absl::OkStatus();
    }
    case EvKind::kInterruptNotice: {
      std::string target = ev.name;
      if (ev.index != std::numeric_limits<size_t>::max() && target.empty()) {
        const InterruptionTrace& it = trace_.interruptions[ev.index];
        target = it.node;
        if (target.empty()) {
          // The oldest running node of the capacity type (ties by name).
          const SimNode* best = nullptr;
          for (const auto& [name, n] : nodes_) {
            if (n.state != NodeState::kReady || n.interruption_deadline) continue;
            if (n.instance.capacity_type != it.capacity_type) continue;
            if (best == nullptr || n.launched_at < best->launched_at) best = &n;
          }
          if (best != nullptr) target = best->name;
        }
      }
      auto n = nodes_.find(target);
      if (n == nodes_.end() || n->second.interruption_deadline) {
        // A drawn notice for a node that is already gone is not an event.
        if (ev.index == std::numeric_limits<size_t>::max()) return absl::OkStatus();
        Log("interrupt-notice", internal::StrCat(target.empty() ? "(none)" : target,
                                                 ": no such running node, ignored"));
        return absl::OkStatus();
      }
      n->second.interruption_deadline = now_ + options_.interruption_notice;
      ++result_.summary.interruptions;
      interruption_pending_ = true;
      Log("interrupt-notice", internal::StrCat(target, " reclaimed at +",
                                               FormatSeconds(options_.interruption_notice), "s"));
      Push(now_ + options_.interruption_notice, EvKind::kInterruptDeadline, 0, 0, target);
      return absl::OkStatus();
    }
    case EvKind::kInterruptDeadline: {
      if (nodes_.count(ev.name) == 0) return absl::OkStatus();
      Log("interrupt-terminate", ev.name);
      Drain(ev.name, "reclaimed");
      CheckCommands();
      return absl::OkStatus();
    }
    case EvKind::kCapacityFail:
    case EvKind::kCapacityRestore: {
      const CapacityErrorTrace& ce = trace_.capacity_errors[ev.index];
      const InstanceType* it = full_catalog_->Find(ce.instance_type);
      std::set<std::string> zones;
      for (const Offering& o : it->offerings) {
        if (ce.zone.empty() || o.zone == ce.zone) zones.insert(o.zone);
      }
      for (const std::string& z : zones) {
        if (ev.kind == EvKind::kCapacityFail) {
          cloud_.FailCapacity(ce.capacity_type, ce.instance_type, z);
        } else {
          cloud_.Restore(ce.capacity_type, ce.instance_type, z);
        }
      }
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<SimResult> Engine::Run() {
  const size_t kMaxSteps = 50'000'000;  // a guard against a bug that stops time
  for (size_t step = 0; step < kMaxSteps; ++step) {
    absl::Time t = end_;
    if (!queue_.empty()) t = std::min(t, queue_.top().at);
    if (std::optional<absl::Time> w = WindowClose()) t = std::min(t, std::max(*w, now_));
    if (requeue_at_) t = std::min(t, std::max(*requeue_at_, now_));
    t = std::min(t, std::max(next_disruption_, now_));
    t = std::min(t, next_sample_);
    Advance(t);

    while (!queue_.empty() && queue_.top().at <= now_) {
      Event ev = queue_.top();
      queue_.pop();
      KARP_RETURN_IF_ERROR(Process(ev));
    }
    if (requeue_at_ && *requeue_at_ <= now_) {
      requeue_at_.reset();
      bool pending = false;
      for (const auto& [key, p] : pods_) pending |= p.pod.node_name.empty();
      if (pending) Trigger();
    }
    if (kube_dirty_) KARP_RETURN_IF_ERROR(KubeSchedule());
    if (std::optional<absl::Time> w = WindowClose(); w && *w <= now_) {
      KARP_RETURN_IF_ERROR(Provision());
    }
    if (Karpenter() && interruption_pending_) {
      KARP_RETURN_IF_ERROR(Disrupt(/*forced=*/true));
    }
    if (next_disruption_ <= now_) {
      if (Karpenter()) {
        KARP_RETURN_IF_ERROR(Disrupt(/*forced=*/false));
        next_disruption_ = now_ + options_.disruption_interval;
      } else {
        KARP_RETURN_IF_ERROR(ScaleDownStatic());
        next_disruption_ = now_ + options_.scan_interval;
      }
    }
    if (kube_dirty_) KARP_RETURN_IF_ERROR(KubeSchedule());
    if (next_sample_ <= now_) {
      TakeSample();
      next_sample_ += options_.sample_interval;
      if (options_.progress) options_.progress(Offset(), trace_.duration);
    }
    if (now_ >= end_) break;
  }
  if (now_ < end_) return absl::InternalError("simulation did not reach the end of the trace");

  Summary& sum = result_.summary;
  for (const auto& [key, p] : pods_) {
    if (!p.pod.node_name.empty()) continue;
    episodes_.push_back(absl::ToDoubleSeconds(now_ - p.pending_since));
    if (!p.ever_ran) ++sum.pods_never_scheduled;
  }
  std::sort(episodes_.begin(), episodes_.end());
  sum.pending_episodes = static_cast<int64_t>(episodes_.size());
  auto rank = [&](double q) {
    if (episodes_.empty()) return 0.0;
    size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(episodes_.size())));
    i = std::clamp<size_t>(i, 1, episodes_.size());
    return episodes_[i - 1];
  };
  sum.pending_p50_seconds = rank(0.50);
  sum.pending_p99_seconds = rank(0.99);
  sum.pending_max_seconds = episodes_.empty() ? 0 : episodes_.back();
  for (double* d : {&sum.total_cost, &sum.committed_cost, &sum.discounted_cost, &sum.on_demand_cost,
                    &sum.spot_cost}) {
    *d = std::round(*d * 1e6) / 1e6;
  }
  sum.node_hours = std::round(sum.node_hours * 1e6) / 1e6;
  return std::move(result_);
}

}  // namespace

absl::StatusOr<SimResult> Simulate(const Trace& trace,
                                   std::shared_ptr<const InstanceCatalog> catalog,
                                   const Policy& policy, const SimOptions& options) {
  if (catalog == nullptr) return absl::InvalidArgumentError("simulator: no catalog");
  auto engine = std::make_unique<Engine>(trace, std::move(catalog), policy, options);
  KARP_RETURN_IF_ERROR(engine->Init());
  return engine->Run();
}

absl::StatusOr<InstanceCatalog> SimulationCatalog() {
  AwsCatalogOptions options;
  options.estimate_spot_prices = false;  // spot offerings at the on-demand price, modelled below
  KARP_ASSIGN_OR_RETURN(InstanceCatalog base, EmbeddedAwsCatalog(options));
  std::vector<InstanceType> types = base.instance_types();
  for (InstanceType& it : types) {
    bool changed = false;
    for (Offering& o : it.offerings) {
      if (o.capacity_type != kCapacityTypeSpot) continue;
      const double u = Unit(SplitMix(Fnv1a(o.zone, Fnv1a(it.name))));
      o.price = std::round(o.price * (0.30 + 0.15 * u) * 1e5) / 1e5;
      o.price_estimated = true;
      changed = true;
    }
    if (changed) it.RebuildRequirements();
  }
  return InstanceCatalog::Create(std::move(types), base.well_known_labels(),
                                 /*register_label_keys=*/false);
}

std::string WriteSamplesCsv(const std::vector<SimResult>& results) {
  std::string out =
      "policy,time_s,nodes,launching,pods_running,pods_pending,price_per_hour,disruptions,"
      "evictions\n";
  for (const SimResult& r : results) {
    for (const Sample& s : r.samples) {
      internal::StrAppend(&out, r.policy, ",", FormatSeconds(s.at), ",", s.nodes, ",", s.launching,
                          ",", s.pods_running, ",", s.pods_pending, ",",
                          FormatFixed(s.price_per_hour, 4), ",", s.disruptions, ",", s.evictions,
                          "\n");
    }
  }
  return out;
}

namespace {

// With commitments: the bill's split per policy (Summary::committed_cost and the others).
std::string CommitmentTable(const std::vector<SimResult>& results) {
  std::string out =
      "\n| policy | total cost $ | committed $ | of which discounted usage $ | on-demand $ | "
      "spot $ |\n|---|---:|---:|---:|---:|---:|\n";
  for (const SimResult& r : results) {
    const Summary& s = r.summary;
    internal::StrAppend(&out, "| ", r.policy, " | ", FormatFixed(s.total_cost, 2), " | ",
                        FormatFixed(s.committed_cost, 2), " | ", FormatFixed(s.discounted_cost, 2),
                        " | ", FormatFixed(s.on_demand_cost, 2), " | ", FormatFixed(s.spot_cost, 2),
                        " |\n");
  }
  return out;
}

}  // namespace

std::string WriteSummaryTable(const std::vector<SimResult>& results) {
  std::string out =
      "| policy | total cost $ | node-hours | max nodes | launches | pending p50 s | "
      "pending p99 s | evictions | disruptions | ICE | interruptions | never scheduled |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n";
  for (const SimResult& r : results) {
    const Summary& s = r.summary;
    std::string dis;
    for (const auto& [reason, n] : s.disruptions) {
      internal::StrAppend(&dis, dis.empty() ? "" : ", ", reason, " ", n);
    }
    if (dis.empty()) dis = "-";
    internal::StrAppend(&out, "| ", r.policy, " | ", FormatFixed(s.total_cost, 2), " | ",
                        FormatFixed(s.node_hours, 1), " | ", s.max_nodes, " | ", s.launches, " | ",
                        FormatFixed(s.pending_p50_seconds, 1), " | ",
                        FormatFixed(s.pending_p99_seconds, 1), " | ", s.evictions, " | ", dis,
                        " | ", s.capacity_errors, " | ", s.interruptions, " | ",
                        s.pods_never_scheduled, " |\n");
  }
  bool commitments = false;
  for (const SimResult& r : results) commitments = commitments || r.summary.has_commitments;
  if (commitments) out += CommitmentTable(results);
  return out;
}

}  // namespace karp::sim
