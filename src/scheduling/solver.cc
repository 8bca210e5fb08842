// The Solver of one Solve (docs/design.md §5): construction from the prepared state, Add's three
// steps in order, and Run's loop over the queue with relaxation. The steps are in
// existing_node.cc, open_claims.cc and new_claim.cc, the checks of a claim in node_claim.cc, the
// queue order in queue.cc, relaxation in preferences.cc and Finalize in finalize.cc.

#include "scheduling/solver.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "karp/labels.h"
#include "scheduling/cost_packing.h"

namespace karp::scheduling {
namespace {

std::vector<PodInput> OwnInputs(size_t n) {
  std::vector<PodInput> inputs(n);
  for (size_t i = 0; i < n; ++i) inputs[i].own = i;
  return inputs;
}

}  // namespace

Solver::Solver(const scheduling::SchedulerState& state, std::vector<PodData> pods,
               const Simulation* simulation, const CostPolicy* cost)
    : Solver(state, std::move(pods), OwnInputs(pods.size()), simulation) {
  cost_ = cost;
}

Solver::Solver(const scheduling::SchedulerState& state, std::vector<PodData>&& pods,
               std::vector<PodInput> inputs, const Simulation* simulation)
    : state_(state), pods_(std::move(pods)), simulation_(simulation) {
  size_t label_classes = 0;
  refs_.reserve(inputs.size());
  if (simulation == nullptr) scheduling_.reserve(inputs.size());  // every pod is its own
  for (const PodInput& in : inputs) {
    refs_.push_back(in.shared != nullptr ? PodRef{in.shared, nullptr}
                                         : PodRef{nullptr, &pods_[in.own]});
    const PodData& p = View(refs_.size() - 1);
    // Topology looks scheduling_ up for bound pods only.
    if (in.shared == nullptr || in.bound_key) scheduling_.insert(p.key);
    label_classes = std::max(label_classes, p.label_class + 1);
  }
  label_caches_.resize(label_classes);
  topology_ = std::make_unique<Topology>(
      state_.snapshot.get(), &state_.pools->universe, state_.options.preference_policy,
      &scheduling_, &state_.nodes_by_name, &state_.bound_anti_affinity_pods,
      simulation_ != nullptr ? state_.bound_counts.get() : nullptr);
  remaining_limits_ = state_.remaining_limits;
  // Capacity per reservation: the minimum over the offerings that carry it.
  for (const Template& t : state_.pools->templates) {
    for (const InstanceType* it : t.instance_types) {
      for (const Offering& o : it->offerings) {
        if (o.capacity_type != kCapacityTypeReserved || o.reservation_id.empty()) continue;
        auto [pos, inserted] =
            reservation_capacity_.emplace(o.reservation_id, o.reservation_capacity);
        if (!inserted) pos->second = std::min(pos->second, o.reservation_capacity);
      }
    }
  }
  for (const ExistingNodeInit& e : state_.existing) {
    if (simulation_ != nullptr && simulation_->excluded.count(e.name) > 0) {
      // A candidate gives its capacity back to its NodePool's limits.
      auto limits = remaining_limits_.find(e.node_pool);
      if (limits != remaining_limits_.end()) {
        ResourceList back = limits->second;
        back.Add(e.capacity);
        ResourceList restored = limits->second;
        limits->second.ForEach(
            [&](std::string_view name, int64_t) { restored.Set(name, back.Get(name)); });
        limits->second = std::move(restored);
      }
      continue;
    }
    ExistingNodeState s;
    s.init = &e;
    s.remaining = e.remaining;
    existing_.push_back(std::move(s));
  }
  for (size_t i = 0; i < existing_.size(); ++i) IndexExisting(i);
}

absl::Status Solver::Add(PodData& pod) {
  pod.groups = topology_->GroupsFor(pod.working(), pod.key, pod.label_class);
  if (PlaceOnExisting(pod)) return absl::OkStatus();
  if (PlaceOnClaim(pod)) return absl::OkStatus();
  return PlaceOnNewClaim(pod);
}

PodData& Solver::Own(size_t i) {
  PodRef& r = refs_[i];
  if (r.own == nullptr) {
    copied_.push_back(*r.shared);
    r.own = &copied_.back();
  }
  return *r.own;
}

SolveResult Solver::Run() {
  const std::vector<size_t> order = QueueOrder();
  topology_->InitExisting();
  for (const ExistingNodeInit& e : state_.existing) topology_->RegisterHostname(e.name);
  // A pod's topology groups as its spec is now (kept prototypes: its original spec).
  auto update_groups = [&](const PodData& p, bool original, bool first = false) {
    if (original && p.prototypes != nullptr) {
      topology_->Update(p.working(), p.key, *p.prototypes, first);
    } else {
      topology_->Update(p.working(), p.key);
    }
  };
  for (size_t i = 0; i < refs_.size(); ++i) update_groups(View(i), true, /*first=*/true);

  const bool limited = state_.options.time_limit != absl::InfiniteDuration();
  const absl::Time deadline =
      limited ? absl::Now() + state_.options.time_limit : absl::InfiniteFuture();
  std::deque<size_t> queue(order.begin(), order.end());
  std::vector<size_t> last_len(refs_.size(), 0);
  std::map<std::string, std::string> errors;
  bool timed_out = false;
  const int stop_at = simulation_ != nullptr ? simulation_->stop_at_new_claims : 0;
  while (!queue.empty()) {
    if (stop_at > 0 && certain_claims_ >= stop_at) {
      if (simulation_->stopped != nullptr) *simulation_->stopped = true;
      return SolveResult{};
    }
    const size_t idx = queue.front();
    if (last_len[idx] == queue.size()) break;  // a full cycle without progress
    if (limited && absl::Now() > deadline) {
      timed_out = true;
      break;
    }
    queue.pop_front();
    PodData& pod = Own(idx);
    absl::Status s;
    while (true) {
      s = Add(pod);
      if (s.ok()) break;
      if (s.code() == kReservedOfferingError) break;  // deferred, never relaxed
      if (!Relax(MutableWorking(pod), state_.pools->tolerate_prefer_no_schedule)) break;
      update_groups(pod, /*original=*/false);
      Refresh(pod, state_.options.preference_policy);
    }
    if (s.ok()) {
      errors.erase(pod.key);
      continue;
    }
    errors[pod.key] = std::string(s.message());
    pod.changed = nullptr;  // back to the original spec
    update_groups(pod, /*original=*/true);
    Refresh(pod, state_.options.preference_policy);
    queue.push_back(idx);
    last_len[idx] = queue.size();
  }
  return Finalize(std::move(errors), timed_out);
}

Pod& Solver::MutableWorking(PodData& pod) {
  // A copy no other context shares (use_count 1: nothing else can start sharing it, since only
  // this context refers to it) is changed in place; it was made as a mutable Pod.
  if (pod.changed == nullptr || pod.changed.use_count() > 1) {
    pod.changed = std::make_shared<Pod>(pod.working());
  }
  return const_cast<Pod&>(*pod.changed);
}

std::vector<std::string> Solver::RelaxedPods() const {
  std::vector<std::string> relaxed;
  for (size_t i = 0; i < refs_.size(); ++i) {
    const PodData& p = View(i);
    const Pod& w = p.working();
    const Pod& o = *p.original;
    if (w.node_affinity.required.size() != o.node_affinity.required.size() ||
        w.node_affinity.preferred.size() != o.node_affinity.preferred.size() ||
        w.pod_affinity.preferred.size() != o.pod_affinity.preferred.size() ||
        w.pod_anti_affinity.preferred.size() != o.pod_anti_affinity.preferred.size() ||
        w.topology_spread_constraints.size() != o.topology_spread_constraints.size() ||
        w.tolerations.size() != o.tolerations.size()) {
      relaxed.push_back(p.key);
    }
  }
  std::sort(relaxed.begin(), relaxed.end());
  return relaxed;
}

}  // namespace karp::scheduling
