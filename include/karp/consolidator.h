// File: karp/consolidator.h
//
// Consolidator — disruption with the reference semantics (docs/design.md §6): which nodes to
// delete or replace, and why every other node is kept. Methods run in the reference's order —
// expiration (forceful, no budgets), emptiness, drift, multi-node consolidation (binary search
// over the sorted candidates), single-node consolidation — each loop's command is applied to
// the snapshot (candidates removed, replacements added, pods moved as simulated) before the
// next loop is computed, until no method finds anything.
//
// Pure computation: karp never evicts or deletes anything. Every decision is simulated with
// Scheduler::Solve semantics (consolidation flavour: reserved capacity in fallback mode, nodes
// still inside consolidateAfter skipped for moved pods).
//
// Unlike the reference, no wall-clock timeouts cut the search short (it gives up after 1 min
// multi-node and 3 min single-node): by default every method runs to completion, so results do
// not depend on machine speed. A host may bound a plan (ConsolidationOptions::max_simulations,
// deadline) and follow it (ConsolidationOptions::progress).
//
// Example:
//   absl::StatusOr<karp::Consolidator> c =
//       karp::Consolidator::Create(snapshot, catalog, absl::Now());
//   absl::StatusOr<karp::ConsolidationPlan> plan = c->Plan();
//   for (const karp::DisruptionCommand& cmd : plan->commands) { ... }
//   for (const karp::KeptNode& k : plan->kept) { ... k.reason ... }
//
// Thread-safety: a Consolidator is immutable after Create(); Plan() is const and may be called
// concurrently.

#ifndef KARP_CONSOLIDATOR_H_
#define KARP_CONSOLIDATOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/interruption.h"
#include "karp/scheduler.h"

namespace karp {

namespace disruption {
struct ConsolidatorState;  // the prepared state (src/disruption/loop.h)
}  // namespace disruption
namespace scheduling {
struct PoolCatalogs;  // each NodePool's instance types (src/scheduling/access.h)
}  // namespace scheduling

enum class DisruptionDecision { kDelete, kReplace };
// "delete", "replace".
std::string_view DisruptionDecisionName(DisruptionDecision d);

enum class DisruptionReason { kEmpty, kUnderutilized, kDrifted, kExpired, kInterrupted };
// "empty", "underutilized", "drifted", "expired", "interrupted".
std::string_view DisruptionReasonName(DisruptionReason r);

// How candidates are ordered for emptiness and consolidation (docs/design.md §6.10).
enum class CandidateOrder {
  // v1.14+: SavingsRatio = price / RescheduleDisruptionCost, descending.
  kSavingsRatio,
  // Before v1.14 (most deployed versions): DisruptionCost ascending.
  kDisruptionCost,
};

// How consolidation chooses what to disrupt (ConsolidationOptions::mode).
//  - kFaithful: the reference's methods (multi-node, then single-node consolidation; each
//    command replaces m nodes by at most one cheaper node).
//  - kRepack (docs/repack.md): after interruption, expiration, emptiness and drift as in the
//    faithful mode, the reschedulable pods of every consolidation candidate (within the
//    Underutilized budgets) are placed afresh with the cost packer (PackingMode::kCost) around
//    what must stay; the difference becomes commands deleting m >= 1 nodes and launching
//    k >= 0 replacements, ordered by savings per evicted pod, each validated by a scheduling
//    simulation on the cluster as left by the commands before it and saving money on its own
//    under the reference's spot/on-demand and price rules. Pending pods are left to the
//    provisioner (not placed by re-pack commands). The faithful methods are also planned on
//    the same cluster (pending pods left out), within repack_compare_simulations; when they
//    end cheaper their plan is returned (RepackSummary::faithful_plan), so a re-pack plan
//    never ends above them (above their first repack_compare_simulations simulations' commands
//    on clusters where they need more).
//    Complexity: one cost-packed Solve of the movable nodes' pods per round (at most
//    repack_rounds), one scheduling simulation per candidate command (and per node of a
//    command that fails), plus at most repack_compare_simulations for the comparison.
enum class ConsolidationMode { kFaithful, kRepack };
// "faithful", "repack".
std::string_view ConsolidationModeName(ConsolidationMode m);

// Where a Plan() is, for ConsolidationOptions::progress.
struct ConsolidationProgress {
  int loop = 0;             // disruption loop, from 0
  int command_count = 0;    // commands found by the loops before this one
  int candidate_count = 0;  // nodes that are candidates in this loop
  int64_t simulations = 0;  // scheduling simulations started so far in this plan
  // The method of the current simulation: "interruption", "expiration", "emptiness", "drift",
  // "multi-node consolidation", "single-node consolidation", "repack target" or "repack"; ""
  // between loops.
  std::string_view method;
};

struct ConsolidationOptions {
  // Options of every scheduling simulation (preference and minValues policies, max instance
  // types). reserved_capacity_mode is forced to Fallback, as in the reference.
  SchedulerOptions scheduler;
  // What nodes really cost (karp/pricing.h, docs/commitments.md): when set, a candidate's price
  // is what removing it saves in effective cost given the other nodes and the commitments
  // (0 for a node whose cost is prepaid), replacements launch their offering of least marginal
  // cost, savings are the change of the fleet's effective cost, and nodes whose removal saves
  // nothing are kept (not deleted nor replaced, even when empty). The simulations themselves
  // pack with list prices. Default: null, list prices (identical to no pricing model).
  std::shared_ptr<const PricingModel> pricing;
  // Feature gate SpotToSpotConsolidation (default off): replace spot nodes with cheaper spot
  // nodes, requiring at least 15 cheaper instance types for single-node moves.
  bool spot_to_spot = false;
  // Default: kSavingsRatio (v1.14+).
  CandidateOrder candidate_order = CandidateOrder::kSavingsRatio;
  // Largest multi-node batch (reference: 100; its binary search can reach 101).
  int max_multi_node_candidates = 100;
  // Stop after the first loop's command (`karp consolidate --once`).
  bool once = false;
  // Interruption notices to act on (reason `interrupted`), before any voluntary method.
  std::vector<InterruptionEvent> interruptions;
  // Provider-side drift (CloudProvider::DriftReason): a non-empty reason marks the node's
  // NodeClaim drifted when the core checks find nothing. Called once per node per plan.
  std::function<std::string(const NodeClaim&)> provider_drift;
  // Bound on one Plan() (default: none). At most `max_simulations` scheduling simulations
  // (0: no limit), and none started after `deadline`. A plan that reaches the bound stops and
  // returns the commands of the loops it completed, which are the first commands of the
  // unbounded plan, with ConsolidationPlan::stopped_early set; nodes the interrupted loop did
  // not evaluate are kept with a reason saying so. A deadline makes the result depend on
  // machine speed; a simulation count does not.
  int64_t max_simulations = 0;
  absl::Time deadline = absl::InfiniteFuture();
  // Default: kFaithful (the reference's consolidation).
  ConsolidationMode mode = ConsolidationMode::kFaithful;
  // Re-pack mode: how many times the target placement is recomputed after the commands of the
  // previous one were applied (a later round sees the candidates an earlier one could not
  // move). Must be from 1 to 16. Default: 3.
  int repack_rounds = 3;
  // Re-pack mode: the scheduling simulations the faithful plan it is compared with may run
  // (0: no bound; max_simulations, when smaller, bounds it too). That plan's savings come
  // mostly from its first loops (multi-node consolidation); past the bound its commands so
  // far are the comparison. Must be >= 0. Default: 128.
  int64_t repack_compare_simulations = 128;
  // Called on the thread running Plan() before every scheduling simulation and once after the
  // last loop (default: none). It must not call into the Consolidator.
  std::function<void(const ConsolidationProgress&)> progress;

  [[nodiscard]] absl::Status Validate() const;
};

struct DisruptionCommand {
  DisruptionDecision decision = DisruptionDecision::kDelete;
  DisruptionReason reason = DisruptionReason::kEmpty;
  std::vector<std::string> candidates;     // node names, sorted
  std::vector<NewNodeClaim> replacements;  // empty for delete
  double savings_per_hour = 0;             // candidate price - replacement launch price
};

struct KeptNode {
  std::string node;
  std::string reason;  // why it is not in any command
};

// What a re-pack plan achieves (ConsolidationPlan::repack). Prices are the hourly prices of
// the snapshot's nodes (each node's offering in the catalog; unknown offerings count 0).
struct RepackSummary {
  double price_before_per_hour = 0;  // every node of the snapshot
  double price_after_per_hour = 0;   // after all commands: before - plan savings
  // A lower bound on the price of the cluster after any plan that places every reschedulable
  // pod it moves (docs/repack.md §4): the price of the nodes no method of a plan may remove
  // (a do-not-disrupt node or pod, a pod whose PDB allows no eviction, unmanaged,
  // uninitialized or deleting nodes; not those drift, expiration or an interruption removes),
  // plus the bound of the other nodes' reschedulable pods on new nodes, the free room of the
  // staying nodes and the other nodes themselves (each at its price) counted as capacity.
  // The pods of expired and interrupted nodes are left out (those methods may leave them
  // pending). Never above price_after_per_hour for such a plan.
  double lower_bound_per_hour = 0;
  // karp::PriceLowerBound of every reschedulable pod bound to a node of the snapshot, placed
  // on new nodes: no re-packing of all those pods on new nodes costs less (DaemonSet pods and
  // nodes without reschedulable pods are not counted). The figure lower_bound_per_hour gave
  // before it counted the nodes that must stay.
  double all_pods_lower_bound_per_hour = 0;
  // The part of lower_bound_per_hour that is the price of the nodes that must stay.
  double must_stay_price_per_hour = 0;
  int64_t evictions = 0;  // reschedulable pods on the commands' candidates
  int rounds = 0;         // target placements computed
  // The faithful methods alone (pending pods left out, as re-pack does) ended cheaper on this
  // cluster, and their plan is the one returned: a re-pack plan never ends above them.
  bool faithful_plan = false;
};

struct ConsolidationPlan {
  std::vector<DisruptionCommand> commands;  // execution order
  std::vector<KeptNode> kept;               // by node name
  int node_count = 0;                       // nodes in the snapshot
  int candidate_count = 0;                  // nodes that were candidates in the first loop
  double savings_per_hour = 0;              // sum over commands
  int64_t simulations = 0;                  // scheduling simulations run
  // The plan reached ConsolidationOptions::max_simulations or deadline: `commands` are the
  // first commands of the unbounded plan, and further loops were not computed.
  bool stopped_early = false;
  // Set in re-pack mode only (faithful plans leave it empty).
  std::optional<RepackSummary> repack;
};

class Consolidator {
 public:
  // Errors: InvalidArgument for invalid options or snapshot.
  [[nodiscard]] static absl::StatusOr<Consolidator> Create(
      const ClusterSnapshot& snapshot, std::shared_ptr<const InstanceCatalog> catalog,
      absl::Time now, const ConsolidationOptions& options = {});
  // As above with each NodePool's own instance types (as Scheduler::Create takes them, e.g.
  // after karp::ApplyNodeOverlays or karp::CatalogsByNodePool): replacements launch from their
  // NodePool's catalog, and a node's price and instance type are looked up in its NodePool's
  // (a node of a NodePool missing from the map in the first catalog of the map). A NodePool
  // missing from the map launches nothing.
  // Errors: InvalidArgument for a null catalog, invalid options or snapshot.
  [[nodiscard]] static absl::StatusOr<Consolidator> Create(
      const ClusterSnapshot& snapshot,
      std::map<std::string, std::shared_ptr<const InstanceCatalog>> catalogs_by_node_pool,
      absl::Time now, const ConsolidationOptions& options = {});

  // Computes the commands of successive disruption loops and why every other node is kept.
  // Complexity: one scheduling simulation per candidate set evaluated; single-node
  // consolidation evaluates each candidate once per loop (bounded by
  // ConsolidationOptions::max_simulations).
  [[nodiscard]] absl::StatusOr<ConsolidationPlan> Plan() const;

  // Incremental use (a host or simulator planning every few seconds): the consolidator
  // Create(snapshot, <this catalog>, now, options) would return, reusing this one's NodePool-level
  // scheduling preparation (each NodePool's instance types filtered and indexed, DaemonSet
  // overhead, topology domains) when the NodePools, DaemonSets and scheduler options are
  // unchanged, instead of preparing it again for every plan. Plan() results are identical.
  // Errors: as Create.
  [[nodiscard]] absl::StatusOr<Consolidator> Update(const ClusterSnapshot& snapshot, absl::Time now,
                                                    const ConsolidationOptions& options) const;

 private:
  [[nodiscard]] static absl::StatusOr<Consolidator> Create(const ClusterSnapshot& snapshot,
                                                           scheduling::PoolCatalogs catalogs,
                                                           absl::Time now,
                                                           const ConsolidationOptions& options);
  explicit Consolidator(std::shared_ptr<const disruption::ConsolidatorState> state)
      : state_(std::move(state)) {}
  std::shared_ptr<const disruption::ConsolidatorState> state_;
};

}  // namespace karp

#endif  // KARP_CONSOLIDATOR_H_
