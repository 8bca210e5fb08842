// The configuration-LP bound (Gilmore-Gomory) on the price of packing items into nodes of
// several kinds, by column generation with Farley's bound. Internal to karp::PriceLowerBound
// (karp/lower_bound.h); the model and the proof are in docs/lower-bound.md.
//
// Items of one class have one size vector; a node of kind k holds a filling a (counts per
// item class) with Σ a_i·size_i <= capacity_k in every resource and at most one item of each
// exclusive set. The LP min Σ price_k·x_(k,a) subject to Σ a_i·x_(k,a) >= count_i bounds the
// price of every integral packing from below. The assignment LP (quality/assignment_lp.h) is
// solved first: its bound is the starting bound, its duals the starting duals, and whole
// fillings rounded from its solution the master's first columns (beside one single-item column
// per item, so the master is feasible). Column generation then goes on with the master on
// the LP seam (quality/covering_lp.h) and a pricing problem per kind (a bounded
// multi-dimensional knapsack over the dual prices, solved by branch and bound within a node
// budget, with a valid upper bound when the budget runs out). After each master solve
// Farley's bound Σ π_i·count_i / max(1, max_k v_k / price_k) (v_k an upper bound of kind k's
// pricing value) is valid, so stopping early (the iteration budget) still returns a valid
// bound. Deterministic: no clock, ties by index.
//
// Thread-safety: a pure function of its arguments.

#ifndef KARP_SRC_QUALITY_CONFIG_LP_H_
#define KARP_SRC_QUALITY_CONFIG_LP_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "quality/assignment_lp.h"
#include "quality/lp_instance.h"

namespace karp::quality {

struct ConfigLpOptions {
  int max_iterations = 200;            // master solves
  int64_t pricing_node_budget = 2000;  // branch-and-bound nodes per kind and pricing
  int64_t total_node_budget = 100000;  // over the whole run (about 0.25 s)
  int max_columns_per_iteration = 32;
  double smoothing = 0.5;                // Wentges: weight of the best duals so far
  double gap = 1e-4;                     // stop when bound >= (1 - gap) x the master's value
  AssignmentLpOptions assignment;        // the assignment LP solved first (quality/assignment_lp.h)
  int rounded_fillings_per_kind = 5000;  // master columns from its solution, per kind
  // Above this many (item, kind) pairs the assignment LP's bound is returned as it is: there
  // items are small beside nodes, and the master's first solve alone costs seconds.
  size_t column_generation_max_pairs = 150000;
};

struct ConfigLpResult {
  double bound = 0;         // valid lower bound (Farley's, or the LP optimum when proven)
  double master_value = 0;  // the last restricted master's value (>= the LP optimum; 0: none)
  bool optimal = false;     // the LP optimum was proven (bound == master_value within 1e-8)
  int iterations = 0;
  int columns = 0;
  double assignment_bound = 0;  // the assignment LP's bound (included in `bound`)
};

// The bound for `items` on `kinds`. An item must fit alone on each of its kinds. Errors:
// Unavailable when karp was built without an LP solver; InvalidArgument for an item with no
// kind, a kind index out of range, a kind with price <= 0 that some item may use, or an item
// that does not fit alone on one of its kinds; Internal when the LP solver fails.
absl::StatusOr<ConfigLpResult> ConfigurationLpBound(const std::vector<LpKind>& kinds,
                                                    const std::vector<LpItem>& items,
                                                    const ConfigLpOptions& options = {});

}  // namespace karp::quality

#endif  // KARP_SRC_QUALITY_CONFIG_LP_H_
