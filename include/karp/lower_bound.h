// File: karp/lower_bound.h
//
// A lower bound on the hourly price of ANY placement of a set of pods on new nodes, used to
// judge the quality of a decision: `SolveResult::LaunchPricePerHour() / bound` is at least 1
// for every result, and the closer to 1 the closer the decision is to the cheapest possible.
//
// The model. A "kind" is a (NodePool, instance type, capacity type) triple that the NodePool
// can launch: the type intersects the NodePool's requirements (as the scheduler builds them:
// spec requirements, template labels, nodepool, node class, registered/initialized), and has an
// available offering of that capacity type the NodePool allows. Its price is the cheapest
// such offering; its capacity is the type's allocatable minus the requests of the DaemonSet
// pods that would run on it (the scheduler's rule, karpenter isDaemonPodCompatible), for every
// resource (cpu, memory, pods, GPUs, ...). A pod may use a kind when it tolerates the
// NodePool's taints (PreferNoSchedule taints are ignored: relaxation may tolerate them), one of
// its required node-affinity terms (with its nodeSelector; preferences are ignored) is
// compatible with the NodePool's requirements (karp::Requirements::IsCompatible with the
// catalog's well-known labels) and intersects the type's requirements and an offering of the
// kind's capacity type, and its requests fit the kind's capacity in every resource. Pods that
// may use exactly the same kinds form a "class". Topology spread, pod affinity, NodePool
// limits, minValues and existing nodes are ignored (dropping constraints only lowers a
// minimum), except required hostname anti-affinity: pods that share an anti-affinity term
// (hostname topology, plain selector) and are selected by it pairwise exclude each other, so
// such a set A needs |A| distinct nodes. "nodes" is then treated as one more resource of
// which every node has exactly 1.
//
// The bound, and why it is valid. Take any placement of the pods on new nodes; each node has
// a kind, costs at least the kind's price, holds pods whose classes allow its kind, and the
// pods it holds fit its capacity.
//  1. Two-resource fractional cover. For a set S of classes, let K(S) be the kinds some class
//     of S may use and D(S) the summed requests of S's pods (plus, for "nodes", the largest
//     |A ∩ S| over anti-affinity sets A). The nodes that hold S's pods all have kinds in K(S)
//     and, counting x_k nodes of kind k, satisfy Σ_k cap(k, r)·x_k >= D(S, r) for every
//     resource r. Keeping only two resources r1, r2 and letting x be fractional gives a linear
//     program whose minimum, min Σ price(k)·x_k, is at most the price of those nodes. With two
//     constraints a basic optimal solution has at most two positive x_k, and a kind whose
//     capacity per dollar is dominated in both resources by another's is never needed, so
//     checking every non-dominated kind and every pair of them (FractionalTwoResourceCover)
//     solves it exactly. Every pair of resources (and each resource alone) gives a valid
//     bound; the largest is kept.
//  2. Classes. Summing per-class bounds would NOT be valid: two classes may share one node
//     whose kind suits both. Instead, for each class c let S(c) be every class whose kinds are
//     a subset of K(c): all their pods must sit on kinds of K(c), so step 1 applies to S(c)
//     with kinds K(c). The union of all classes of a component (below) is also evaluated. The
//     maximum over these sets is a valid bound because each is a lower bound on the price of
//     a subset of the same nodes.
//  3. Components. Classes whose kind sets overlap are joined (transitively) into components;
//     different components have disjoint kind sets, so no node can hold pods of two
//     components and the nodes split into disjoint groups, one per component. The bounds of
//     the components therefore add up: the result is Σ over components of the maximum of
//     steps 1-2 within the component.
// The bound is a relaxation of karp's own node model (allocatable, DaemonSet overhead,
// compatibility), so it never exceeds the price of a placement karp could produce; it is not a
// claim about what any other accounting of overhead would allow.
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
#include <string>
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

// The lower bound and how it was obtained.
struct CostLowerBound {
  // The bound (per hour) on the price of any placement of the placeable pods on new nodes.
  double price_per_hour = 0;
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

}  // namespace karp

#endif  // KARP_LOWER_BOUND_H_
