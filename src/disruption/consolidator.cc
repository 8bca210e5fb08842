// Consolidator: disruption with the reference semantics (docs/design.md §6). See karp/consolidator.h.
// This file holds the public entry points (names, options, Create, Plan: the loops of a plan);
// one loop's methods are in loop.h and the files it lists.

#include "karp/consolidator.h"

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "disruption/apply.h"
#include "disruption/candidates.h"
#include "disruption/loop.h"
#include "disruption/pods.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "scheduling/access.h"

namespace karp {

std::string_view DisruptionDecisionName(DisruptionDecision d) {
  return d == DisruptionDecision::kDelete ? "delete" : "replace";
}

std::string_view DisruptionReasonName(DisruptionReason r) {
  switch (r) {
    case DisruptionReason::kEmpty: return "empty";
    case DisruptionReason::kUnderutilized: return "underutilized";
    case DisruptionReason::kDrifted: return "drifted";
    case DisruptionReason::kExpired: return "expired";
    case DisruptionReason::kInterrupted: return "interrupted";
  }
  return "";
}

absl::Status ConsolidationOptions::Validate() const {
  if (absl::Status s = scheduler.Validate(); !s.ok()) return s;
  if (max_simulations < 0) {
    return absl::InvalidArgumentError("consolidation options: max_simulations must be >= 0");
  }
  if (max_multi_node_candidates < 1) {
    return absl::InvalidArgumentError(
        "consolidation options: max_multi_node_candidates must be >= 1");
  }
  return absl::OkStatus();
}

namespace {

// The scheduler options a consolidation's NodePool-level state depends on (every field).
bool SameSchedulerOptions(const SchedulerOptions& a, const SchedulerOptions& b) {
  return a.preference_policy == b.preference_policy &&
         a.min_values_policy == b.min_values_policy &&
         a.max_instance_types == b.max_instance_types &&
         a.reserved_capacity_mode == b.reserved_capacity_mode && a.time_limit == b.time_limit &&
         a.packing == b.packing && a.cost_attempts == b.cost_attempts &&
         a.cost_threads == b.cost_threads && a.cost_time_limit == b.cost_time_limit &&
         a.cost_repack_rounds == b.cost_repack_rounds &&
         a.compute_lower_bound == b.compute_lower_bound;
}

}  // namespace

absl::StatusOr<Consolidator> Consolidator::Create(const ClusterSnapshot& snapshot,
                                                  std::shared_ptr<const InstanceCatalog> catalog,
                                                  absl::Time now,
                                                  const ConsolidationOptions& options) {
  if (!catalog) return absl::InvalidArgumentError("consolidator: catalog must not be null");
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  if (absl::Status s = snapshot.Validate(); !s.ok()) return s;  // budget schedules included
  auto state = std::make_shared<State>();
  state->snapshot = snapshot;
  state->catalog = std::move(catalog);
  state->now = now;
  state->options = options;
  if (absl::Status s = PreparePools(*state); !s.ok()) return s;
  return Consolidator(std::move(state));
}

absl::StatusOr<Consolidator> Consolidator::Update(const ClusterSnapshot& snapshot, absl::Time now,
                                                  const ConsolidationOptions& options) const {
  const State& old = *state_;
  if (snapshot.node_pools != old.pools_source->node_pools ||
      snapshot.daemon_sets != old.pools_source->daemon_sets ||
      !SameSchedulerOptions(options.scheduler, old.options.scheduler)) {
    return Create(snapshot, old.catalog, now, options);
  }
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  if (absl::Status s = snapshot.Validate(); !s.ok()) return s;
  auto state = std::make_shared<State>();
  state->snapshot = snapshot;
  state->catalog = old.catalog;
  state->now = now;
  state->options = options;
  state->pools_source = old.pools_source;
  state->pools = old.pools;
  return Consolidator(std::move(state));
}

// Prepares the NodePool-level state of the plans' schedulers over a copy of the NodePools and
// DaemonSets (all it reads), with the options of consolidation simulations.
absl::Status Consolidator::PreparePools(State& state) {
  auto source = std::make_shared<ClusterSnapshot>();
  source->node_pools = state.snapshot.node_pools;
  source->daemon_sets = state.snapshot.daemon_sets;
  SchedulerOptions options = state.options.scheduler;
  options.reserved_capacity_mode = ReservedCapacityMode::kFallback;  // as Loop::Init
  absl::StatusOr<std::shared_ptr<const scheduling::PoolsState>> pools =
      scheduling::PreparePoolsFor(*source, state.catalog, options);
  if (!pools.ok()) return pools.status();
  state.pools_source = std::move(source);
  state.pools = std::move(*pools);
  return absl::OkStatus();
}

namespace {

using disruption::KeptReasons;
using disruption::Loop;
using disruption::PodCache;

// Names the command's replacements "<nodepool>-<n>", unique across the whole plan.
void NameReplacements(DisruptionCommand* cmd, std::set<std::string>* used_names,
                      std::map<std::string, int>* next_index) {
  for (NewNodeClaim& nc : cmd->replacements) {
    std::string name;
    do {
      name = internal::StrCat(nc.node_pool, "-", ++(*next_index)[nc.node_pool]);
    } while (used_names->count(name) > 0);
    used_names->insert(name);
    nc.name = name;
  }
}

// Counts the command's candidates per NodePool in `deleting`.
void CountDeleting(const ClusterSnapshot& snap, const DisruptionCommand& cmd,
                   std::map<std::string, int64_t>* deleting) {
  for (const std::string& c : cmd.candidates) {
    const Node* n = snap.FindNode(c);
    if (n == nullptr) continue;
    std::string pool = disruption::NodePoolNameOf(*n, snap.FindNodeClaimForNode(c));
    if (!pool.empty()) ++(*deleting)[pool];
  }
}

// A node's explanation is the first reason recorded for it: later loops see the effects of
// the plan's own commands (e.g. pods moved onto it).
void RecordFirstReasons(const KeptReasons& kept, KeptReasons* first_reason) {
  for (const auto& [node, reason] : kept) first_reason->emplace(node, reason);
}

}  // namespace

absl::StatusOr<ConsolidationPlan> Consolidator::Plan() const {
  ConsolidationPlan plan;
  plan.nodes = static_cast<int>(state_->snapshot.nodes.size());
  // One working copy, mutated in place between loops (no Loop outlives its iteration).
  auto snap = std::make_shared<ClusterSnapshot>(state_->snapshot);
  std::set<std::string> original;
  for (const Node& n : snap->nodes) original.insert(n.metadata.name);
  std::set<std::string> disrupted;
  std::set<std::string> used_names;
  for (const NodeClaim& nc : snap->node_claims) used_names.insert(nc.metadata.name);
  for (const Node& n : snap->nodes) used_names.insert(n.metadata.name);
  std::map<std::string, int> next_index;
  KeptReasons kept;
  std::map<std::string, int64_t> deleting;  // per NodePool, nodes earlier commands delete
  KeptReasons first_reason;
  PodCache cache;
  std::shared_ptr<const scheduling::PoolsState> pools = state_->pools;
  disruption::PassBudget budget(state_->options);
  // Each loop removes at least one node, so the number of loops is bounded.
  const size_t max_loops = snap->nodes.size() + state_->options.interruptions.size() + 1;
  for (size_t loop = 0; loop < max_loops; ++loop) {
    std::optional<DisruptionCommand> cmd;
    SolveResult placement;
    budget.loop = static_cast<int>(loop);
    budget.commands = static_cast<int>(plan.commands.size());
    {
      Loop l(*state_, snap, deleting, &cache, &pools, &budget);
      if (absl::Status s = l.Init(); !s.ok()) return s;
      budget.candidates = l.candidates();
      if (loop == 0) plan.candidates = l.candidates();
      cmd = l.Next(&kept, &placement);
    }
    RecordFirstReasons(kept, &first_reason);
    // An interrupted loop's command may differ from the unbounded plan's: drop it.
    if (budget.exhausted()) break;
    if (!cmd) break;
    NameReplacements(&*cmd, &used_names, &next_index);
    disrupted.insert(cmd->candidates.begin(), cmd->candidates.end());
    CountDeleting(*snap, *cmd, &deleting);
    cache.Reset();  // pod addresses change below
    disruption::Apply(*snap, *cmd, placement, *state_->catalog, state_->now);
    plan.savings_per_hour += cmd->savings_per_hour;
    plan.commands.push_back(std::move(*cmd));
    if (state_->options.once) {
      {
        Loop after(*state_, snap, deleting, &cache, &pools, &budget);
        if (absl::Status s = after.Init(); !s.ok()) return s;
        SolveResult ignored;
        after.Next(&kept, &ignored);
      }
      RecordFirstReasons(kept, &first_reason);
      break;
    }
  }
  plan.simulations = budget.simulations();
  plan.stopped_early = budget.exhausted();
  budget.commands = static_cast<int>(plan.commands.size());
  budget.Report();
  plan.savings_per_hour = std::round(plan.savings_per_hour * 1e9) / 1e9;
  for (const std::string& n : original) {
    if (disrupted.count(n) > 0) continue;
    auto k = first_reason.find(n);
    plan.kept.push_back(
        {n, k == first_reason.end() ? std::string("no cheaper placement found") : k->second});
  }
  return plan;
}

}  // namespace karp
