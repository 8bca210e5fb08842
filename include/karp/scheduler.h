// File: karp/scheduler.h
//
// Scheduler::Solve — provisioning with the reference semantics (docs/design.md §5): given pending
// pods, decide which existing nodes or in-flight NodeClaims take them and which new
// NodeClaims to launch, per NodePool by weight, with taints, requirements, resources
// (including DaemonSet overhead), NodePool limits, topology spread, pod (anti-)affinity, host
// ports, minValues and the six-step preference relaxation.
//
// Determinism (docs/design.md §10): where the reference picks at random karp picks by explicit
// keys — topology domains with equal counts by name, affinity bootstrap domains by name,
// new NodeClaims with equal pod counts by creation order, instance types with equal prices
// by name, launch offerings by (price, capacity type reserved<spot<on-demand, instance type,
// zone). The same inputs give the same result on every run and platform.
//
// Example:
//   auto catalog = std::make_shared<const karp::InstanceCatalog>(*karp::EmbeddedAwsCatalog());
//   absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(snapshot, catalog);
//   if (!s.ok()) return s.status();
//   absl::StatusOr<karp::SolveResult> r = s->Solve();
//   for (const karp::NewNodeClaim& nc : r->node_claims) { ... nc.launch->instance_type ... }
//   for (const karp::PodError& e : r->pod_errors) { ... e.message ... }
//
// Thread-safety: a Scheduler is immutable after Create(); Solve() is const and may be called
// concurrently from several threads (each call owns all of its working state).

#ifndef KARP_SCHEDULER_H_
#define KARP_SCHEDULER_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/node_claim.h"
#include "karp/pricing.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/shared_strings.h"

namespace karp {

namespace scheduling {
class Access;           // karp's own components' seam (src/scheduling/access.h)
struct SchedulerState;  // the prepared state (src/scheduling/scheduler_internal.h)
}  // namespace scheduling

// PREFERENCE_POLICY: Respect treats preferred terms as requirements to relax one by one;
// Ignore never lets a preference constrain placement.
enum class PreferencePolicy { kRespect, kIgnore };
// MIN_VALUES_POLICY: Strict fails a claim whose types cannot span minValues; BestEffort lowers
// minValues to what is achievable when a claim is created.
enum class MinValuesPolicy { kStrict, kBestEffort };
// Reserved capacity: Strict (provisioning) errors when compatible reserved offerings cannot be
// reserved; Fallback (consolidation simulations) never errors.
enum class ReservedCapacityMode { kStrict, kFallback };
// PACKING (docs/design.md §13): Faithful places pods as the reference does (first fit over
// this solve's claims, fewest pods first). Cost searches for a cheaper placement under the
// same hard constraints (docs/design.md §13.1) and keeps the faithful placement whenever it
// cannot beat it: never fewer pods scheduled, never a higher launch price, never a preference
// dropped for a pod whose preferences the faithful placement kept.
enum class PackingMode { kFaithful, kCost };

// Cost mode: which NodePool a new NodeClaim comes from (docs/design.md §13.5).
//  - kPrice (the default): the NodePool whose instance types buy the pod's requests most
//    cheaply per unit (allocatable less daemon overhead, cheapest allowed offering); weights
//    break ties. Who asks for the cost packing asks for the cheapest placement; prepaid
//    capacity is priced exactly through SchedulerOptions::pricing (a commitments file).
//  - kWeight: the first NodePool by weight that can take the pod, as in the faithful mode:
//    weights stay priorities, and a lower-weight NodePool is used only for pods the heavier
//    ones cannot take (or as the faithful mode does, through claims other pods opened). For
//    hosts whose weights say something beyond price (a pool preferred for performance).
enum class PoolOrder { kWeight, kPrice };

struct SchedulerOptions {
  // Default: Respect (the reference's default).
  PreferencePolicy preference_policy = PreferencePolicy::kRespect;
  // Default: Strict.
  MinValuesPolicy min_values_policy = MinValuesPolicy::kStrict;
  // Instance types kept per NodeClaim after ordering by price (reference: 600; 60 before
  // Aug 2025). Must be >= 1. Default: 600.
  int max_instance_types = 600;
  // Default: Strict.
  ReservedCapacityMode reserved_capacity_mode = ReservedCapacityMode::kStrict;
  // Wall-clock budget of one Solve; when it runs out the pods not yet placed stay pending and
  // the result says timed_out (the reference uses one minute). Default: unlimited, so results
  // never depend on machine speed.
  absl::Duration time_limit = absl::InfiniteDuration();
  // Default: Faithful. Consolidation simulations always pack faithfully.
  PackingMode packing = PackingMode::kFaithful;
  // Cost mode: how many candidate packings are built beside the faithful one (a deterministic
  // budget, never wall-clock), from 1 to 10 (the strategies defined), or 0 for auto: 4 up to
  // 10,000 pods, then fewer so that attempts x pods stays near 40,000 (1 from 40,000 pods
  // on; the first strategy is the one that wins at scale). Default: 0 (auto).
  int cost_attempts = 0;
  // Cost mode: threads building candidates (the result does not depend on it); 0 means one
  // per hardware thread. Each candidate running at once holds its own claims and pod
  // contexts, so on 2 threads the diverse 20,000-pod packing takes about 20% less time and
  // about 40% more peak memory than on 1 (docs/design.md §13.5). Must be >= 0. Default: 1,
  // so that the cost mode stays within 1.5x the faithful mode's memory and Solve starts no
  // thread unless the host asks.
  int cost_threads = 1;
  // Cost mode: an optional wall-clock budget for the candidates after the faithful packing;
  // when it runs out the best placement found so far is returned and
  // PackingReport::stopped_early says so (results then depend on machine speed). Default:
  // unlimited.
  absl::Duration cost_time_limit = absl::InfiniteDuration();
  // Cost mode: rounds of local improvement of the cheapest candidate (small windows of its
  // claims re-packed exactly, then replayed under every constraint; docs/design.md §13.3).
  // Must be from 0 (none) to 3. Default: 3.
  int cost_repack_rounds = 3;
  // Cost mode: how new claims choose their NodePool (PoolOrder). Default: kPrice.
  PoolOrder cost_pool_order = PoolOrder::kPrice;
  // Computes SolveResult::lower_bound_per_hour (karp/lower_bound.h) for schedulers built on one
  // catalog. Default: off (it costs a pass over the pods).
  bool compute_lower_bound = false;
  // What launches really cost (karp/pricing.h, docs/commitments.md): when set, each new
  // NodeClaim launches its offering of least marginal cost given the snapshot's running
  // instances and the claims finalized before it (covered by an unused Reserved Instance or a
  // capacity reservation: 0; by a Savings Plan: the discounted rate), and Launch::price is
  // that marginal cost; the types kept, their order and the packing are unchanged. Default:
  // null, list prices (identical to no pricing model).
  std::shared_ptr<const PricingModel> pricing;
  // Cluster-level default topology spread constraints (the reference's `--scheduler-config`
  // podTopologySpread.defaultConstraints, karp/topology_defaults.h): Create and Update give
  // them to every snapshot pod without constraints of its own, with the selector
  // kube-scheduler deduces for it from Services and its controller (none: left as it is).
  // Pods handed to Solve(pods) from outside the snapshot are taken as they are. Validated by
  // ValidateDefaultTopologySpread. Default: none.
  std::vector<TopologySpreadConstraint> default_topology_spread;

  // OK, or InvalidArgument naming the bad field.
  [[nodiscard]] absl::Status Validate() const;
};

// Pods placed on an existing node or an in-flight NodeClaim.
struct ExistingPlacement {
  std::string name;        // node name or NodeClaim name
  bool in_flight = false;  // true for a NodeClaim without a node yet
  std::vector<std::string> pods;
};

struct PodError {
  std::string pod;      // "namespace/name"
  std::string message;  // the cause, in the reference's words
};

// How the cost packing mode arrived at a result (SolveResult::packing).
struct PackingReport {
  PackingMode mode = PackingMode::kFaithful;
  // Cost mode: the launch price of the faithful packing and of the result (per hour).
  double faithful_price_per_hour = 0;
  // Cost mode: candidate packings built (the faithful one not counted), local-improvement
  // replays included.
  int attempts = 0;
  // Cost mode: the faithful packing is returned (no candidate beat it under the rules).
  bool faithful_kept = true;
  // Cost mode: cost_time_limit ran out before every candidate was built.
  bool stopped_early = false;
};

struct SolveResult {
  std::vector<NewNodeClaim> node_claims;          // creation order
  std::vector<ExistingPlacement> existing_nodes;  // by name
  std::vector<PodError> pod_errors;               // by pod
  int pod_count = 0;                              // pods given to Solve
  bool timed_out = false;
  PackingReport packing;
  // With SchedulerOptions::compute_lower_bound: karp::PriceLowerBound over the NodePools'
  // catalogs of the pods this result places on new NodeClaims, a bound on the price of any
  // placement of them on new nodes (LaunchPricePerHour() >= it).
  std::optional<double> lower_bound_per_hour;
  // How lower_bound_per_hour was obtained (CostLowerBound::method: "fractional",
  // "assignment-lp" or "configuration-lp"); empty without a bound.
  std::string lower_bound_method;

  // Sum of the launch prices of the new claims (per hour).
  double LaunchPricePerHour() const;
};

class Scheduler {
 public:
  // Builds a scheduler over `snapshot` (NodePools, nodes and their bound pods, in-flight
  // NodeClaims, DaemonSets) with every NodePool drawing from `catalog`.
  // Errors: InvalidArgument for invalid options or an invalid snapshot (Validate()).
  [[nodiscard]] static absl::StatusOr<Scheduler> Create(
      const ClusterSnapshot& snapshot, std::shared_ptr<const InstanceCatalog> catalog,
      const SchedulerOptions& options = {});
  // As above, taking the snapshot over: moved in (`Create(std::move(snapshot), ...)`), it is
  // kept without a copy, which a large cluster's snapshot makes worth it (16 MB for 20,000
  // pods). A moved-from snapshot is valid but unspecified (unchanged when the catalog is null
  // or the options are invalid).
  // Errors: as above. Complexity: as above, less the copy of the snapshot.
  [[nodiscard]] static absl::StatusOr<Scheduler> Create(
      ClusterSnapshot&& snapshot, std::shared_ptr<const InstanceCatalog> catalog,
      const SchedulerOptions& options = {});
  // As above with each NodePool's own instance types (from a CloudProvider). A NodePool
  // missing from the map has no instance types and is skipped.
  [[nodiscard]] static absl::StatusOr<Scheduler> Create(
      const ClusterSnapshot& snapshot,
      std::map<std::string, std::shared_ptr<const InstanceCatalog>> catalogs_by_node_pool,
      const SchedulerOptions& options = {});

  // Places the snapshot's pending pods (ClusterSnapshot::PendingPods()) and, as the reference
  // does, the reschedulable pods of nodes being deleted (deletion timestamp or the
  // karpenter.sh/disrupted taint; not daemon, mirror or do-not-disrupt pods).
  // Complexity: O(P·(E + C + T·I)) in the worst case for P pods, E existing nodes, C new
  // claims, T NodePools and I instance types; typical workloads are close to linear in P.
  [[nodiscard]] absl::StatusOr<SolveResult> Solve() const;
  // Places `pods` (which need not be in the snapshot). Pods must have unique keys.
  // Errors: InvalidArgument for duplicate pods. Unschedulable pods are results (pod_errors).
  [[nodiscard]] absl::StatusOr<SolveResult> Solve(const std::vector<const Pod*>& pods) const;

  // Incremental use, for a host that solves every few seconds while little changes: a
  // scheduler over `snapshot`, the next state of this scheduler's cluster, with the same
  // catalogs and options. When its NodePools and DaemonSets equal this scheduler's (only pods,
  // nodes, NodeClaims, PDBs or storage objects changed), the NodePool-level preparation is
  // reused: each NodePool's instance types filtered and indexed, the DaemonSet overhead per
  // type, the topology domain universe (most of Create's work on a large catalog); the nodes
  // and NodeClaims are prepared afresh. Otherwise it prepares everything, as Create.
  // Either way Update(s).Solve() returns exactly what Create(s, <same catalogs>, options()).
  // Solve() returns. This scheduler is unchanged.
  // Errors: InvalidArgument for an invalid snapshot (Validate()), as Create.
  // Complexity: O(size of the snapshot) for validation, the comparison and the cluster state.
  [[nodiscard]] absl::StatusOr<Scheduler> Update(const ClusterSnapshot& snapshot) const;

  const SchedulerOptions& options() const;

 private:
  friend class scheduling::Access;
  explicit Scheduler(std::shared_ptr<const scheduling::SchedulerState> state)
      : state_(std::move(state)) {}
  std::shared_ptr<const scheduling::SchedulerState> state_;
};

}  // namespace karp

#endif  // KARP_SCHEDULER_H_
