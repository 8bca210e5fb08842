// Consolidator: disruption with the reference semantics (docs/design.md §6). See
// karp/consolidator.h. This file holds the public entry points (names, options, Create, Plan: the
// loops of a plan); one loop's methods are in loop.h and the files it lists.

#include "karp/consolidator.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "disruption/apply.h"
#include "disruption/candidates.h"
#include "disruption/loop.h"
#include "disruption/pods.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "karp/topology_defaults.h"
#include "scheduling/access.h"

namespace karp {

std::string_view DisruptionDecisionName(DisruptionDecision d) {
  return d == DisruptionDecision::kDelete ? "delete" : "replace";
}

std::string_view ConsolidationModeName(ConsolidationMode m) {
  return m == ConsolidationMode::kRepack ? "repack" : "faithful";
}

std::string_view DisruptionReasonName(DisruptionReason r) {
  switch (r) {
    case DisruptionReason::kEmpty:
      return "empty";
    case DisruptionReason::kUnderutilized:
      return "underutilized";
    case DisruptionReason::kDrifted:
      return "drifted";
    case DisruptionReason::kExpired:
      return "expired";
    case DisruptionReason::kInterrupted:
      return "interrupted";
  }
  return "";
}

absl::Status ConsolidationOptions::Validate() const {
  if (absl::Status s = scheduler.Validate(); !s.ok()) return s;
  if (scheduler.pricing != nullptr) {
    // The simulations pack with list prices; a model here would be dropped without a word.
    return absl::InvalidArgumentError(
        "consolidation options: scheduler.pricing is not used by consolidation; set "
        "ConsolidationOptions::pricing instead");
  }
  if (max_simulations < 0) {
    return absl::InvalidArgumentError("consolidation options: max_simulations must be >= 0");
  }
  if (repack_compare_simulations < 0) {
    return absl::InvalidArgumentError(
        "consolidation options: repack_compare_simulations must be >= 0");
  }
  if (repack_rounds < 1 || repack_rounds > 16) {
    return absl::InvalidArgumentError("consolidation options: repack_rounds must be from 1 to 16");
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
  return a.preference_policy == b.preference_policy && a.min_values_policy == b.min_values_policy &&
         a.max_instance_types == b.max_instance_types &&
         a.reserved_capacity_mode == b.reserved_capacity_mode && a.time_limit == b.time_limit &&
         a.packing == b.packing && a.cost_attempts == b.cost_attempts &&
         a.cost_threads == b.cost_threads && a.cost_time_limit == b.cost_time_limit &&
         a.cost_repack_rounds == b.cost_repack_rounds && a.cost_pool_order == b.cost_pool_order &&
         a.compute_lower_bound == b.compute_lower_bound &&
         a.default_topology_spread == b.default_topology_spread;
}

// Prepares the NodePool-level state of the plans' schedulers over a copy of the NodePools and
// DaemonSets (all it reads), with the options of consolidation simulations.
absl::Status PreparePools(disruption::ConsolidatorState& state) {
  auto source = std::make_shared<ClusterSnapshot>();
  source->node_pools = state.snapshot.node_pools;
  source->daemon_sets = state.snapshot.daemon_sets;
  SchedulerOptions options = state.options.scheduler;
  options.reserved_capacity_mode = ReservedCapacityMode::kFallback;  // as Loop::Init
  absl::StatusOr<std::shared_ptr<const scheduling::PoolsState>> pools =
      scheduling::PreparePoolsFor(*source, state.catalogs, options);
  if (!pools.ok()) return pools.status();
  state.pools_source = std::move(source);
  state.pools = std::move(*pools);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Consolidator> Consolidator::Create(const ClusterSnapshot& snapshot,
                                                  std::shared_ptr<const InstanceCatalog> catalog,
                                                  absl::Time now,
                                                  const ConsolidationOptions& options) {
  if (!catalog) return absl::InvalidArgumentError("consolidator: catalog must not be null");
  return Create(snapshot, scheduling::PoolCatalogs(std::move(catalog)), now, options);
}

absl::StatusOr<Consolidator> Consolidator::Create(
    const ClusterSnapshot& snapshot,
    std::map<std::string, std::shared_ptr<const InstanceCatalog>> catalogs_by_node_pool,
    absl::Time now, const ConsolidationOptions& options) {
  for (const auto& [pool, catalog] : catalogs_by_node_pool) {
    if (!catalog) {
      return absl::InvalidArgumentError(
          internal::StrCat("consolidator: nodepool ", pool, ": catalog must not be null"));
    }
  }
  return Create(snapshot, scheduling::PoolCatalogs(nullptr, std::move(catalogs_by_node_pool)), now,
                options);
}

absl::StatusOr<Consolidator> Consolidator::Create(const ClusterSnapshot& snapshot,
                                                  scheduling::PoolCatalogs catalogs, absl::Time now,
                                                  const ConsolidationOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  if (absl::Status s = snapshot.Validate(); !s.ok()) return s;  // budget schedules included
  auto state = std::make_shared<disruption::ConsolidatorState>();
  state->snapshot = snapshot;
  // The pods consolidation moves are scheduled with the defaults (karp/topology_defaults.h).
  ApplyDefaultTopologySpread(&state->snapshot, options.scheduler.default_topology_spread);
  state->catalogs = std::move(catalogs);
  state->now = now;
  state->options = options;
  if (absl::Status s = PreparePools(*state); !s.ok()) return s;
  return Consolidator(std::move(state));
}

absl::StatusOr<Consolidator> Consolidator::Update(const ClusterSnapshot& snapshot, absl::Time now,
                                                  const ConsolidationOptions& options) const {
  const disruption::ConsolidatorState& old = *state_;
  if (snapshot.node_pools != old.pools_source->node_pools ||
      snapshot.daemon_sets != old.pools_source->daemon_sets ||
      !SameSchedulerOptions(options.scheduler, old.options.scheduler)) {
    return Create(snapshot, old.catalogs, now, options);
  }
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  if (absl::Status s = snapshot.Validate(); !s.ok()) return s;
  auto state = std::make_shared<disruption::ConsolidatorState>();
  state->snapshot = snapshot;
  ApplyDefaultTopologySpread(&state->snapshot, options.scheduler.default_topology_spread);
  state->catalogs = old.catalogs;
  state->now = now;
  state->options = options;
  state->pools_source = old.pools_source;
  state->pools = old.pools;
  return Consolidator(std::move(state));
}

namespace disruption {
namespace {

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
    std::string pool = NodePoolNameOf(*n, snap.FindNodeClaimForNode(c));
    if (!pool.empty()) ++(*deleting)[pool];
  }
}

// The reschedulable pods bound to the command's candidates.
int64_t CountEvictions(const ClusterSnapshot& snap, const DisruptionCommand& cmd) {
  const std::set<std::string> gone(cmd.candidates.begin(), cmd.candidates.end());
  int64_t n = 0;
  for (const Pod& p : snap.pods) {
    if (!p.node_name.empty() && gone.count(p.node_name) > 0 && IsReschedulable(p)) ++n;
  }
  return n;
}

// A node's explanation is the first reason recorded for it: later loops see the effects of
// the plan's own commands (e.g. pods moved onto it).
void RecordFirstReasons(const KeptReasons& kept, KeptReasons* first_reason) {
  for (const auto& [node, reason] : kept) first_reason->emplace(node, reason);
}

}  // namespace

PlanWork::PlanWork(const disruption::ConsolidatorState& s, bool repack_plan)
    : PlanWork(s, repack_plan, s.options.max_simulations) {}

PlanWork::PlanWork(const disruption::ConsolidatorState& s, bool repack_plan,
                   int64_t max_simulations)
    : state(s),
      repack(repack_plan),
      snap(std::make_shared<ClusterSnapshot>(s.snapshot)),
      pools(s.pools),
      budget(s.options, max_simulations) {
  plan.node_count = static_cast<int>(snap->nodes.size());
  for (const NodeClaim& nc : snap->node_claims) used_names.insert(nc.metadata.name);
  for (const Node& n : snap->nodes) used_names.insert(n.metadata.name);
}

void PlanWork::Accept(DisruptionCommand cmd, const SolveResult& placement) {
  NameReplacements(&cmd, &used_names, &next_index);
  disrupted.insert(cmd.candidates.begin(), cmd.candidates.end());
  CountDeleting(*snap, cmd, &deleting);
  if (state.options.mode == ConsolidationMode::kRepack) evictions += CountEvictions(*snap, cmd);
  cache.Reset();  // pod addresses change below
  Apply(*snap, cmd, placement, state.catalogs, state.now);
  plan.savings_per_hour += cmd.savings_per_hour;
  plan.commands.push_back(std::move(cmd));
}

void PlanWork::AcceptAll(std::vector<std::pair<DisruptionCommand, SolveResult>> cmds) {
  DisruptionCommand all;
  SolveResult where;
  for (auto& [cmd, placement] : cmds) {
    NameReplacements(&cmd, &used_names, &next_index);
    disrupted.insert(cmd.candidates.begin(), cmd.candidates.end());
    CountDeleting(*snap, cmd, &deleting);
    all.candidates.insert(all.candidates.end(), cmd.candidates.begin(), cmd.candidates.end());
    all.replacements.insert(all.replacements.end(), cmd.replacements.begin(),
                            cmd.replacements.end());
    for (ExistingPlacement& e : placement.existing_nodes) {
      where.existing_nodes.push_back(std::move(e));
    }
  }
  if (state.options.mode == ConsolidationMode::kRepack) evictions += CountEvictions(*snap, all);
  cache.Reset();  // pod addresses change below
  Apply(*snap, all, where, state.catalogs, state.now);
  for (auto& [cmd, placement] : cmds) {
    plan.savings_per_hour += cmd.savings_per_hour;
    plan.commands.push_back(std::move(cmd));
  }
}

int64_t CompareSimulations(const ConsolidationOptions& o) {
  const int64_t a = o.max_simulations, b = o.repack_compare_simulations;
  if (a == 0 || b == 0) return std::max(a, b);
  return std::min(a, b);
}

namespace {

// The loops of the faithful methods until none finds a command (or the plan's bound, or
// --once); false when the plan must stop there.
absl::StatusOr<bool> FaithfulLoops(PlanWork& w) {
  // Each loop removes at least one node, so the number of loops is bounded.
  const size_t max_loops = w.snap->nodes.size() + w.state.options.interruptions.size() + 1;
  for (size_t loop = 0; loop < max_loops; ++loop) {
    std::optional<DisruptionCommand> cmd;
    SolveResult placement;
    w.budget.loop = static_cast<int>(loop);
    w.budget.command_count = static_cast<int>(w.plan.commands.size());
    {
      Loop l = w.MakeLoop();
      if (absl::Status s = l.Init(); !s.ok()) return s;
      w.budget.candidate_count = l.candidates();
      if (loop == 0) w.plan.candidate_count = l.candidates();
      cmd = l.Next(&w.kept, &placement);
    }
    RecordFirstReasons(w.kept, &w.first_reason);
    // An interrupted loop's command may differ from the unbounded plan's: drop it.
    if (w.budget.exhausted()) return false;
    if (!cmd) return true;
    w.Accept(std::move(*cmd), placement);
    if (w.state.options.once) {
      {
        Loop after = w.MakeLoop();
        if (absl::Status s = after.Init(); !s.ok()) return s;
        SolveResult ignored;
        after.Next(&w.kept, &ignored);
      }
      RecordFirstReasons(w.kept, &w.first_reason);
      return false;
    }
  }
  return true;
}

// Runs one plan into `w`: the faithful loops, then (re-pack plan) the re-pack rounds.
absl::Status RunPlan(PlanWork& w) {
  absl::StatusOr<bool> more = FaithfulLoops(w);
  if (!more.ok()) return more.status();
  if (*more && w.repack) return RepackRounds(w);
  return absl::OkStatus();
}

// The plan of `w`, with every node not disrupted kept for its first reason, and the re-pack
// summary completed.
ConsolidationPlan FinishPlan(const disruption::ConsolidatorState& state, PlanWork& w,
                             std::optional<RepackSummary> summary) {
  ConsolidationPlan plan = std::move(w.plan);
  plan.simulations = w.budget.simulations();
  plan.stopped_early = w.budget.exhausted();
  w.budget.command_count = static_cast<int>(plan.commands.size());
  w.budget.Report();
  plan.savings_per_hour = std::round(plan.savings_per_hour * 1e9) / 1e9;
  for (const Node& node : state.snapshot.nodes) {
    const std::string& n = node.metadata.name;
    if (w.disrupted.count(n) > 0) continue;
    auto k = w.first_reason.find(n);
    plan.kept.push_back(
        {n, k == w.first_reason.end() ? std::string("no cheaper placement found") : k->second});
  }
  std::sort(plan.kept.begin(), plan.kept.end(),
            [](const KeptNode& a, const KeptNode& b) { return a.node < b.node; });
  if (summary) {
    summary->evictions = w.evictions;
    summary->rounds = w.repack_rounds;
    summary->price_after_per_hour =
        std::round((summary->price_before_per_hour - plan.savings_per_hour) * 1e9) / 1e9;
    plan.repack = summary;
  }
  return plan;
}

}  // namespace
}  // namespace disruption

absl::StatusOr<ConsolidationPlan> Consolidator::Plan() const {
  const bool repack = state_->options.mode == ConsolidationMode::kRepack;
  std::optional<RepackSummary> summary;
  if (repack) {
    absl::StatusOr<RepackSummary> s = disruption::RepackStart(*state_);
    if (!s.ok()) return s.status();
    summary = *s;
  }
  auto work = std::make_unique<disruption::PlanWork>(*state_, repack);
  if (absl::Status s = disruption::RunPlan(*work); !s.ok()) return s;
  if (repack) {
    // The faithful methods on the same cluster (pending pods left out as re-pack does), within
    // repack_compare_simulations: when they end cheaper, their plan is the answer, so re-pack
    // never ends above them (above their commands within that bound).
    auto faithful = std::make_unique<disruption::PlanWork>(
        *state_, false, disruption::CompareSimulations(state_->options));
    if (absl::Status s = disruption::RunPlan(*faithful); !s.ok()) return s;
    if (faithful->plan.savings_per_hour > work->plan.savings_per_hour + 1e-9) {
      work = std::move(faithful);
      summary->faithful_plan = true;
    }
  }
  return disruption::FinishPlan(*state_, *work, summary);
}

}  // namespace karp
