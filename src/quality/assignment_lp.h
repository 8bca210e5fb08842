// The assignment-LP bound on the price of packing items into nodes of several kinds: the
// fluid relaxation that keeps which kinds each item may use and every kind's capacity per
// node, and lets items split. Internal to karp::PriceLowerBound (karp/lower_bound.h); the
// model and the proof are in docs/lower-bound.md.
//
//   min Σ_k p_k·y_k  subject to  Σ_k x_ik >= d_i            (every item placed)
//                                Σ_i s_ir·x_ik <= C_kr·y_k   (every kind and resource)
//                                x, y >= 0, x_ik = 0 where kind k may not hold item i.
//
// Every placement is a solution (y_k: nodes of kind k, x_ik: items i on them), so the optimum
// bounds its price from below. It is at most the configuration LP (quality/config_lp.h), which
// also keeps items whole and exclusive sets apart; it is at least the per-component resource
// cover of quality/lower_bound.cc's fractional bound restricted to one kind set, because it
// prices each kind's resources on their own rather than with one price per component.
//
// Solved by generating (item, kind) pairs: the restricted LP holds every y_k and a few x_ik,
// the full pricing of all pairs under its duals is O(Σ_k items(k)·R) per round. Every round
// gives a valid bound: with the item duals π and kind k's capacity duals μ_k, every whole
// filling a of kind k (a_i at most the copies of item i one node holds) has
// Σ_i π_i·a_i <= μ_k·C_k + Σ_i copies_ik·max(0, π_i - μ_k·s_i) =: v_k, so Farley's bound
// Σ_i π_i·d_i / max(1, max_k v_k / p_k) holds for the configuration LP; a round budget still
// returns a valid bound. Deterministic: no clock, ties by index.
//
// Thread-safety: a pure function of its arguments.

#ifndef KARP_SRC_QUALITY_ASSIGNMENT_LP_H_
#define KARP_SRC_QUALITY_ASSIGNMENT_LP_H_

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "quality/lp_instance.h"

namespace karp::quality {

struct AssignmentLpOptions {
  int max_rounds = 60;  // restricted-LP solves
  double gap = 1e-6;    // stop when bound >= (1 - gap) x the restricted LP's value
};

struct AssignmentLpResult {
  // A valid lower bound on the configuration LP (so on every placement), at least the
  // assignment LP's optimum up to `gap` when `optimal`; it may exceed that optimum, as pricing
  // caps each item at the copies one node holds (one for an exclusive item).
  double bound = 0;
  double value = 0;           // the last restricted LP's value (>= the assignment LP's optimum)
  bool optimal = false;       // bound >= (1 - gap) x value
  std::vector<double> duals;  // per item: the duals the bound was computed from (>= 0)
  // The last restricted LP's solution: per kind its nodes y_k and its items (item, x_ik > 0,
  // by item).
  std::vector<double> nodes;
  std::vector<std::vector<std::pair<int, double>>> placed;
  int rounds = 0;
  int pairs = 0;  // x_ik columns in the restricted LP
};

// The bound for `items` on kept kinds `kinds` with their `kind_items` (quality/lp_instance.h
// KeepKinds; the input passed CheckLpInput). Errors: Unavailable when karp was built without
// an LP solver; Internal when the LP solver fails.
absl::StatusOr<AssignmentLpResult> AssignmentLpBound(const std::vector<LpKind>& kinds,
                                                     const std::vector<KindItems>& kind_items,
                                                     const std::vector<LpItem>& items,
                                                     const AssignmentLpOptions& options = {});

// Whole fillings near the solution, as columns for the configuration LP's master: each kind's
// share of the solution (its x_ik rounded to whole items) is packed twice into whole nodes of
// the kind, up to `per_kind` nodes each time, the node's room filled by the largest item that
// fits from those whose direction (sizes in the two resources the share uses most) is nearest
// the room's; the second packing starts every node from about the solution's mix per node. Each
// distinct filling is returned as (kind, (item, count) pairs sorted by item), kinds in order.
// O(Σ_k nodes_k·items_k) plus the fills.
std::vector<std::pair<size_t, std::vector<std::pair<int, double>>>> RoundedFillings(
    const std::vector<LpKind>& kinds, const std::vector<LpItem>& items,
    const AssignmentLpResult& solution, int per_kind);

// Whole nodes for the solution: per kind, the one of the two packings RoundedFillings makes
// with fewer nodes (ties: the first), every node of it (not only the distinct fillings), kinds
// in order. Pods of the solution that fit no node of their kind are left out.
std::vector<std::pair<size_t, std::vector<std::pair<int, double>>>> RoundedNodes(
    const std::vector<LpKind>& kinds, const std::vector<LpItem>& items,
    const AssignmentLpResult& solution);

}  // namespace karp::quality

#endif  // KARP_SRC_QUALITY_ASSIGNMENT_LP_H_
