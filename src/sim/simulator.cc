// The discrete-event cluster simulator (see karp/sim/simulator.h and docs/simulator.md).
//
// One Engine per run (sim/engine.h). Simulated time advances from event to event; at each
// instant the engine processes the queued events (trace steps, arrivals, departures, job
// completions, nodes becoming ready, interruption notices and deadlines, capacity windows) in
// (time, sequence) order, then runs the controllers that are due (controllers.cc): the
// kube-scheduler pass (binds pending pods to ready nodes), the provisioning batch (Solve +
// launch), disruption (Consolidator) or the static node groups' scan, and sampling. The state
// changes are in cluster_state.cc. Nothing here reads a clock or a random device.

#include "sim/engine.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/aws_catalog.h"
#include "karp/labels.h"

namespace karp::sim {

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

absl::StatusOr<SimResult> Simulate(const Trace& trace,
                                   std::shared_ptr<const InstanceCatalog> catalog,
                                   const Policy& policy, const SimOptions& options) {
  if (catalog == nullptr) return absl::InvalidArgumentError("simulator: no catalog");
  auto engine = std::make_unique<Engine>(trace, std::move(catalog), policy, options);
  KARP_RETURN_IF_ERROR(engine->Init());
  return engine->Run();
}

}  // namespace karp::sim
