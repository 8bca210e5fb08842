// The simulated controllers (docs/simulator.md): the kube-scheduler pass, the provisioning batch
// (Solve and launch), disruption (the Consolidator) and the static node groups' scale-down.

#include "sim/engine.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/consolidator.h"
#include "karp/scheduler.h"

namespace karp::sim {

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
  so.default_topology_spread = options_.default_topology_spread;
  KARP_ASSIGN_OR_RETURN(const Scheduler* scheduler, provisioner_.For(snap, catalog, so));
  KARP_ASSIGN_OR_RETURN(SolveResult r, scheduler->Solve());
  ++result_.summary.solves;
  Log("provision", internal::StrCat(r.pod_count, " pod(s): ", r.node_claims.size(),
                                    " new claim(s), ", r.pod_errors.size(), " unschedulable"));
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
  co.scheduler.default_topology_spread = options_.default_topology_spread;
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

}  // namespace karp::sim
