// One disruption loop of Consolidator::Plan: the NodeViews of the current snapshot and the
// disruption methods in the reference's order, each its own member function defined in its
// own file — interruption.cc, expiration.cc, emptiness.cc, drift.cc, consolidation.cc (the
// candidates and order shared by both consolidations), multi_node_consolidation.cc,
// single_node_consolidation.cc — over the simulation and price check of evaluation.cc.

#ifndef KARP_SRC_DISRUPTION_LOOP_H_
#define KARP_SRC_DISRUPTION_LOOP_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "disruption/candidates.h"
#include "disruption/marginal.h"
#include "disruption/pods.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/scheduler.h"
#include "scheduling/access.h"

namespace karp {
namespace disruption {

// The state of a Consolidator (karp/consolidator.h), immutable and shared between its copies.
struct ConsolidatorState {
  ClusterSnapshot snapshot;
  scheduling::PoolCatalogs catalogs;  // each NodePool's instance types
  absl::Time now;
  ConsolidationOptions options;
  // The NodePool-level scheduler state of every plan's first loop, prepared by Create over
  // `pools_source` (the NodePools and DaemonSets only; its templates point into it).
  std::shared_ptr<const ClusterSnapshot> pools_source;
  std::shared_ptr<const scheduling::PoolsState> pools;
};

// Why each node was kept: node name -> reason.
using KeptReasons = std::map<std::string, std::string>;

// Records `reason` for `node`, after the reason already recorded for it if any: a node the
// drift method kept (budget, no placement) is still a consolidation candidate, and when
// consolidation keeps it too both reasons are reported.
void AddKeptReason(KeptReasons* kept, const std::string& node, const std::string& reason);

// A command deleting node `v` alone for `reason`, saving its price.
DisruptionCommand DeleteNodeCommand(const NodeView& v, DisruptionReason reason);

// Why a node is kept under a pricing model when removing it saves nothing.
inline constexpr double kPrepaidBelow = 1e-6;  // $/h: marginal costs below are rounding noise
inline constexpr std::string_view kPrepaidReason =
    "its cost is prepaid by commitments (removing it saves nothing)";

// The simulations of one Plan() against its bound (ConsolidationOptions::max_simulations,
// deadline), and its progress reports.
class PassBudget {
 public:
  explicit PassBudget(const ConsolidationOptions& options)
      : options_(options), max_simulations_(options.max_simulations) {}
  // A bound of `max_simulations` (0: none) instead of the options' (the deadline still holds).
  PassBudget(const ConsolidationOptions& options, int64_t max_simulations)
      : options_(options), max_simulations_(max_simulations) {}
  // Counts one more simulation of `method` and reports progress; false (and exhausted() from
  // then on) when the bound allows no more.
  bool Take(std::string_view method);
  // Reports progress between loops.
  void Report();
  bool exhausted() const { return exhausted_; }
  int64_t simulations() const { return simulations_; }
  // Where the plan is, for progress reports.
  int loop = 0;
  int command_count = 0;
  int candidate_count = 0;

 private:
  const ConsolidationOptions& options_;
  int64_t max_simulations_ = 0;
  int64_t simulations_ = 0;
  bool exhausted_ = false;
};

// Why the simulation does not place every pod moving off `cands`; "" when it does.
std::string UnplacedMoves(const std::vector<const NodeView*>& cands, const SolveResult& r);

// A command for `cands` with no decision yet: sorted candidates, their price as savings.
DisruptionCommand CandidatesCommand(const std::vector<const NodeView*>& cands,
                                    DisruptionReason reason);

// Why a candidate set was not evaluated once the bound is reached.
inline constexpr char kNotEvaluated[] =
    "not evaluated: the consolidation pass reached its bound (simulations or deadline)";
// Why a candidate set is kept when its simulation stopped at the second new node (the reference
// says "can't remove without creating N candidates" with the full count, which karp does not
// compute: the decision is the same for every N > 1).
inline constexpr char kNeedsTwoNewNodes[] =
    "pending pods and the moved pods need at least 2 new nodes";

// The price-check outcome of one candidate set (computeConsolidation).
struct Evaluation {
  std::optional<DisruptionCommand> command;
  std::string why_not;  // when no command
};

class Loop {
 public:
  // `pools` carries the NodePool-level scheduler state between loops (NodePools, DaemonSets
  // and the catalog never change within a plan).
  Loop(const disruption::ConsolidatorState& state, std::shared_ptr<const ClusterSnapshot> snap,
       const std::map<std::string, int64_t>& deleting, PodCache* cache,
       std::shared_ptr<const scheduling::PoolsState>* pools, PassBudget* budget)
      : state_(state),
        snap_ptr_(std::move(snap)),
        snap_(*snap_ptr_),
        deleting_(deleting),
        cache_(cache),
        pools_(pools),
        budget_(budget) {}

  absl::Status Init();
  // Re-pack mode's loops: `repack` leaves both consolidations to repack.cc; without
  // `pending`, consolidation simulations place only the candidates' pods (the pending pods are
  // the provisioner's). Default: the faithful mode (no re-pack, pending pods simulated).
  void SetMode(bool repack, bool pending) {
    repack_ = repack;
    pending_ = pending;
  }
  // The next command, or nullopt when no method finds anything; `kept` gets a reason for every
  // node that the last evaluation did not disrupt, `placement` the command's simulation.
  std::optional<DisruptionCommand> Next(KeptReasons* kept, SolveResult* placement);
  // The number of candidates (nodes with no reject reason).
  int candidates() const;

  // Re-pack mode (repack.cc). The consolidation candidates (as both consolidations see them,
  // within the Underutilized budgets) not in `frozen`; `kept` gets the others' reasons.
  std::vector<const NodeView*> RepackCandidates(KeptReasons* kept,
                                                const std::set<std::string>& frozen) const;
  // Validates deleting `sources` and launching what the simulation needs for their pods, with
  // the nodes in `excluded` unavailable to them: every pod placed, each replacement through
  // the price filter, the whole command cheaper than `sources` and the Balanced policy.
  // Writes `placement` only when a command results.
  // `staged` are the target's claims for them, staged as nodes of the same names: those the
  // simulation fills become replacements.
  Evaluation RepackEvaluate(const std::vector<const NodeView*>& sources,
                            const std::set<std::string>& excluded,
                            const std::vector<NewNodeClaim>& staged, SolveResult* placement) const;
  const std::vector<NodeView>& views() const { return views_; }

 private:
  // The methods, in order; each returns its command or nullopt (docs/design.md §6.1).
  std::optional<DisruptionCommand> Interruption(SolveResult* placement) const;
  std::optional<DisruptionCommand> Expiration(SolveResult* placement) const;
  std::optional<DisruptionCommand> Emptiness(KeptReasons* kept, SolveResult* placement) const;
  std::optional<DisruptionCommand> Drift(KeptReasons* kept, SolveResult* placement) const;
  // Consolidation candidates (ShouldDisrupt) within the Underutilized budget, in order.
  std::vector<const NodeView*> ConsolidationCandidates(KeptReasons* kept) const;
  std::optional<DisruptionCommand> MultiNodeConsolidation(
      const std::vector<const NodeView*>& candidates, SolveResult* placement) const;
  std::optional<DisruptionCommand> SingleNodeConsolidation(
      const std::vector<const NodeView*>& candidates, KeptReasons* kept,
      SolveResult* placement) const;

  // Simulates removing `cands` and prices the outcome; `multi` applies the multi-node
  // same-type filter. Writes `placement` only when a command results.
  Evaluation Evaluate(const std::vector<const NodeView*>& cands, bool multi,
                      DisruptionReason reason, SolveResult* placement) const;
  // Scheduling with `cands` removed and their pods moving; `consolidation` applies the
  // reference's consolidateAfter rule to the remaining nodes (IsConsolidationSimulation).
  // `also_excluded` (may be null) are further nodes the pods may not use; `pending` adds the
  // snapshot's pending pods (every method but re-pack). With `stopped`, the simulation stops
  // once two new claims are certain (no candidate set can then be disrupted), returns an empty
  // result and sets `*stopped`.
  absl::StatusOr<SolveResult> Simulate(const std::vector<const NodeView*>& cands,
                                       bool consolidation,
                                       const std::set<std::string>* also_excluded = nullptr,
                                       bool pending = true, bool* stopped = nullptr) const;

  // Consolidation order (savings ratio, or disruption cost for the legacy order).
  std::vector<const NodeView*> Sorted(std::vector<const NodeView*> v) const;
  std::string BalancedVeto(const std::vector<const NodeView*>& cands, double savings) const;

  const disruption::ConsolidatorState& state_;
  std::shared_ptr<const ClusterSnapshot> snap_ptr_;
  const ClusterSnapshot& snap_;
  const std::map<std::string, int64_t>& deleting_;
  PodCache* cache_;
  std::shared_ptr<const scheduling::PoolsState>* pools_;
  PassBudget* budget_;
  std::vector<NodeView> views_;
  std::optional<Scheduler> scheduler_;
  std::optional<MarginalPrices> marginal_;  // with ConsolidationOptions::pricing
  bool repack_ = false;
  bool pending_ = true;
};

// What one Plan() carries from loop to loop (consolidator.cc; repack.cc adds commands too).
struct PlanWork {
  // `repack`: the re-pack plan (faithful methods before consolidation, then repack.cc);
  // otherwise, in re-pack mode, the faithful plan without pending pods it is compared with,
  // bounded by `max_simulations` (0: none) instead of the options' bound.
  PlanWork(const disruption::ConsolidatorState& s, bool repack);
  PlanWork(const disruption::ConsolidatorState& s, bool repack, int64_t max_simulations);

  // Names the command's replacements (unique across the plan), counts its candidates as
  // deleting, applies it to the snapshot with its simulation `placement` and appends it.
  void Accept(DisruptionCommand cmd, const SolveResult& placement);
  // Accept for commands validated on one snapshot (disjoint candidates, none placing pods on
  // another's replacements), applied to it in one pass: the same snapshot as one Accept each.
  void AcceptAll(std::vector<std::pair<DisruptionCommand, SolveResult>> cmds);
  // A loop over the current snapshot, not yet initialized.
  Loop MakeLoop() {
    Loop l(state, snap, deleting, &cache, &pools, &budget);
    if (state.options.mode == ConsolidationMode::kRepack) l.SetMode(repack, false);
    return l;
  }

  const disruption::ConsolidatorState& state;
  bool repack = false;
  std::shared_ptr<ClusterSnapshot> snap;  // mutated in place between loops
  std::set<std::string> disrupted;
  std::set<std::string> used_names;
  std::map<std::string, int> next_index;
  std::map<std::string, int64_t> deleting;  // per NodePool, nodes earlier commands delete
  KeptReasons kept;
  KeptReasons first_reason;
  PodCache cache;
  std::shared_ptr<const scheduling::PoolsState> pools;
  PassBudget budget;
  ConsolidationPlan plan;
  int repack_rounds = 0;  // target placements computed
  int staged_names = 0;   // re-pack: names given to staged target claims
  int64_t evictions = 0;  // reschedulable pods on accepted commands' candidates
};

// Re-pack mode: the simulation bound of the faithful plan a re-pack plan is compared with, the
// smaller of max_simulations and repack_compare_simulations (0 for either: the other).
int64_t CompareSimulations(const ConsolidationOptions& options);
// Re-pack mode (repack.cc): the summary's prices and bound before any command.
absl::StatusOr<RepackSummary> RepackStart(const disruption::ConsolidatorState& state);
// Re-pack mode: the rounds of target placement and validated commands, after the faithful
// methods that precede consolidation found nothing more.
absl::Status RepackRounds(PlanWork& work);

}  // namespace disruption
}  // namespace karp

#endif  // KARP_SRC_DISRUPTION_LOOP_H_
