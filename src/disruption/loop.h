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
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "disruption/candidates.h"
#include "disruption/pods.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/scheduler.h"
#include "scheduling/access.h"

namespace karp {

struct Consolidator::State {
  ClusterSnapshot snapshot;
  std::shared_ptr<const InstanceCatalog> catalog;
  absl::Time now;
  ConsolidationOptions options;
  // The NodePool-level scheduler state of every plan's first loop, prepared by Create over
  // `pools_source` (the NodePools and DaemonSets only; its templates point into it).
  std::shared_ptr<const ClusterSnapshot> pools_source;
  std::shared_ptr<const scheduling::PoolsState> pools;
};

namespace disruption {

// Why each node was kept: node name -> reason.
using KeptReasons = std::map<std::string, std::string>;

// Records `reason` for `node`, after the reason already recorded for it if any: a node the
// drift method kept (budget, no placement) is still a consolidation candidate, and when
// consolidation keeps it too both reasons are reported.
void AddKeptReason(KeptReasons* kept, const std::string& node, const std::string& reason);

// A command deleting node `v` alone for `reason`, saving its price.
DisruptionCommand DeleteNodeCommand(const NodeView& v, DisruptionReason reason);

// The simulations of one Plan() against its bound (ConsolidationOptions::max_simulations,
// deadline), and its progress reports.
class PassBudget {
 public:
  explicit PassBudget(const ConsolidationOptions& options) : options_(options) {}
  // Counts one more simulation of `method` and reports progress; false (and exhausted() from
  // then on) when the bound allows no more.
  bool Take(std::string_view method);
  // Reports progress between loops.
  void Report();
  bool exhausted() const { return exhausted_; }
  int64_t simulations() const { return simulations_; }
  // Where the plan is, for progress reports.
  int loop = 0;
  int commands = 0;
  int candidates = 0;

 private:
  const ConsolidationOptions& options_;
  int64_t simulations_ = 0;
  bool exhausted_ = false;
};

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
  Loop(const Consolidator::State& state, std::shared_ptr<const ClusterSnapshot> snap,
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
  // The next command, or nullopt when no method finds anything; `kept` gets a reason for every
  // node that the last evaluation did not disrupt, `placement` the command's simulation.
  std::optional<DisruptionCommand> Next(KeptReasons* kept, SolveResult* placement);
  // The number of candidates (nodes with no reject reason).
  int candidates() const;

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
  // With `stopped`, the simulation stops once two new claims are certain (no candidate set
  // can then be disrupted), returns an empty result and sets `*stopped`.
  absl::StatusOr<SolveResult> Simulate(const std::vector<const NodeView*>& cands,
                                       bool consolidation, bool* stopped = nullptr) const;
  // Consolidation order (savings ratio, or disruption cost for the legacy order).
  std::vector<const NodeView*> Sorted(std::vector<const NodeView*> v) const;
  std::string BalancedVeto(const std::vector<const NodeView*>& cands, double savings) const;

  const Consolidator::State& state_;
  std::shared_ptr<const ClusterSnapshot> snap_ptr_;
  const ClusterSnapshot& snap_;
  const std::map<std::string, int64_t>& deleting_;
  PodCache* cache_;
  std::shared_ptr<const scheduling::PoolsState>* pools_;
  PassBudget* budget_;
  std::vector<NodeView> views_;
  std::optional<Scheduler> scheduler_;
};

}  // namespace disruption
}  // namespace karp

#endif  // KARP_SRC_DISRUPTION_LOOP_H_
