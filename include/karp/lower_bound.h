// File: karp/lower_bound.h
//
// A lower bound on the hourly price of ANY placement of a set of pods on new nodes, used to
// judge the quality of a decision: `SolveResult::LaunchPricePerHour() / bound` is at least 1
// for every result, and the closer to 1 the closer the decision is to the cheapest possible.
//
// The model, and the proof that the bound is valid: docs/lower-bound.md. In short: pods that may
// use the same (NodePool, instance type, capacity type) kinds form classes; a fractional cover
// of their requests in every pair of resources bounds each set of classes, and components of
// classes with disjoint kinds add up. Topology, limits, minValues and existing nodes are
// ignored (dropping constraints only lowers a minimum), except required hostname
// anti-affinity.
//
// Complexity: O(G·K·a) requirement checks for G distinct scheduling constraints (nodeSelector,
// required node affinity, tolerations), K kinds and a required terms, O(V·K) fit checks for V
// distinct (constraint, requests) pairs, then O(C·R²·K log K) for C classes and R resources.
// Typical: a few milliseconds for thousands of pods on the embedded AWS catalog.
//
// Example:
//   absl::StatusOr<karp::CostLowerBound> lb = karp::PriceLowerBound(snapshot, *catalog);
//   if (!lb.ok()) return lb.status();
//   double quality = result.LaunchPricePerHour() / lb->price_per_hour;  // >= 1
//
// Thread-safety: pure functions of their arguments; safe to call concurrently.

#ifndef KARP_LOWER_BOUND_H_
#define KARP_LOWER_BOUND_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/objects.h"

namespace karp {

// One way to buy capacity: an hourly price and the amounts of two resources it provides.
struct CoverOption {
  double price = 0;
  double first = 0;
  double second = 0;
};

// The exact optimum of min Σ price_k·x_k subject to Σ first_k·x_k >= first_demand,
// Σ second_k·x_k >= second_demand, x >= 0 (fractional purchases). 0 when both demands are 0;
// +infinity when no combination of options covers the demand. Options with price 0 make the
// resources they provide free.
// Errors: InvalidArgument naming the option (or the demand) for a negative, NaN or infinite
// value. Complexity: O(n log n + p²) for n options of which p are not dominated.
[[nodiscard]] absl::StatusOr<double> FractionalTwoResourceCover(
    const std::vector<CoverOption>& options, double first_demand, double second_demand);

// CostLowerBound::method: the fractional cover of classes and components (below); the
// assignment LP (every kind's capacity on its own, pods divisible) when it is higher; the
// configuration LP (pods whole) when its column generation proved its optimum or rose above
// the assignment LP. docs/lower-bound.md has the three models and their proofs.
inline constexpr std::string_view kLowerBoundFractional = "fractional";
inline constexpr std::string_view kLowerBoundAssignmentLp = "assignment-lp";
inline constexpr std::string_view kLowerBoundConfigurationLp = "configuration-lp";

// The lower bound and how it was obtained.
struct CostLowerBound {
  // The bound (per hour) on the price of any placement of the placeable pods on new nodes.
  double price_per_hour = 0;
  // The fractional bound of classes and components (the method kLowerBoundFractional: what
  // price_per_hour is without the LP bounds).
  double components_price_per_hour = 0;
  // The plain fractional bound for comparison: all pods as one set over every kind any pod may
  // use, best pair of resources, without classes, components or the anti-affinity count.
  double fractional_price_per_hour = 0;
  // The largest set of pods that need pairwise distinct nodes (hostname anti-affinity).
  int64_t anti_affinity_nodes = 0;
  int kinds = 0;       // (NodePool, instance type, capacity type) triples considered
  int classes = 0;     // pod classes (pods that may use exactly the same kinds)
  int components = 0;  // groups of classes with overlapping kinds
  // Pods that no kind can host ("namespace/name", sorted); they are left out of the bound.
  std::vector<std::string> unplaceable_pods;
  // The LP bounds (docs/lower-bound.md), 0 when karp was built without an LP solver (CLP) or
  // they were not run. The assignment LP's bound; the configuration LP's bound (at least the
  // assignment LP's: its column generation starts there), `configuration_lp_optimal` when its
  // optimum was proven (else the bound is Farley's, valid at every iteration); and an upper
  // bound on the configuration LP's optimum (its restricted master's value; 0 when column
  // generation was skipped, on inputs with more than 150,000 (pod class, kind) pairs), so
  // price_per_hour / configuration_lp_upper_per_hour is at most how close the bound is to the
  // configuration LP.
  double assignment_lp_price_per_hour = 0;
  double configuration_lp_price_per_hour = 0;
  bool configuration_lp_optimal = false;
  double configuration_lp_upper_per_hour = 0;
  // How price_per_hour was obtained: kLowerBoundFractional, kLowerBoundAssignmentLp or
  // kLowerBoundConfigurationLp.
  std::string method = std::string(kLowerBoundFractional);
};

// The bound for `pods` placed with the snapshot's NodePools and DaemonSets on `catalog` (every
// NodePool draws from it, as Scheduler::Create with one catalog). Existing nodes and in-flight
// NodeClaims are ignored: the bound is on the price of new capacity for all the pods.
// Static NodePools (replicas set) and NodePools being deleted launch nothing and are skipped.
// Errors: InvalidArgument when the snapshot is invalid (ClusterSnapshot::Validate), a pod
// pointer is null, or two pods share a key.
[[nodiscard]] absl::StatusOr<CostLowerBound> PriceLowerBound(const ClusterSnapshot& snapshot,
                                                             const InstanceCatalog& catalog,
                                                             const std::vector<const Pod*>& pods);
// As above for the snapshot's pending pods (ClusterSnapshot::PendingPods()).
[[nodiscard]] absl::StatusOr<CostLowerBound> PriceLowerBound(const ClusterSnapshot& snapshot,
                                                             const InstanceCatalog& catalog);
// The bound of the first form with each NodePool's own instance types (Scheduler::Create with
// catalogs by NodePool; a NodePool missing from the map has none). Errors: as above, and
// InvalidArgument for a null catalog.
[[nodiscard]] absl::StatusOr<CostLowerBound> PriceLowerBound(
    const ClusterSnapshot& snapshot,
    const std::map<std::string, std::shared_ptr<const InstanceCatalog>>& catalogs_by_node_pool,
    const std::vector<const Pod*>& pods);

}  // namespace karp

#endif  // KARP_LOWER_BOUND_H_
