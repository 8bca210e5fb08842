// The simulated cluster's state changes (docs/simulator.md): pods created, deleted, bound and
// evicted; Deployments scaled; nodes launched, made ready and drained; the snapshot the
// controllers see, the fleet's price and the samples.

#include "sim/engine.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::sim {

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

}  // namespace karp::sim
