// The LP solver seam of the LP bounds (quality/config_lp.h, quality/assignment_lp.h): an LP
// min c·x subject to A·x >= b, x >= 0, grown one column at a time and re-solved warm. The
// configuration LP is a covering LP (A, b >= 0); the assignment LP's capacity rows have
// negative entries and b = 0. The only
// implementation uses COIN-OR CLP (covering_lp_clp.cc, built when CMake finds it; Debian
// coinor-libclp-dev); without it MakeCoveringLp returns null and the bound falls back to the
// fractional one. Internal.
//
// Thread-safety: one object per thread (thread-compatible); separate objects are independent.

#ifndef KARP_SRC_QUALITY_COVERING_LP_H_
#define KARP_SRC_QUALITY_COVERING_LP_H_

#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace karp::quality {

class CoveringLp {
 public:
  virtual ~CoveringLp() = default;

  // Adds the column `entries` ((row, coefficient) pairs, rows distinct) at cost `cost`.
  virtual void AddColumn(double cost, const std::vector<std::pair<int, double>>& entries) = 0;

  // Adds the row Σ coefficient·x_column >= `lower` over columns already added ((column,
  // coefficient) pairs, columns distinct, numbered in the order added) and returns its index.
  // Rows join after the columns at the next Solve; a row the current solution satisfies keeps
  // the warm start.
  virtual int AddRow(double lower, const std::vector<std::pair<int, double>>& entries) = 0;

  // Solves to optimality, warm from the previous basis. Errors: Internal when the solver stops
  // without an optimum (infeasible: a row no column covers; numerical trouble).
  [[nodiscard]] virtual absl::Status Solve() = 0;

  // After an OK Solve: the optimal value, the row duals (>= 0, one per row) and the column
  // values (>= 0, one per column in the order added, up to the columns added since).
  virtual double objective() const = 0;
  virtual std::vector<double> duals() const = 0;
  virtual std::vector<double> solution() const = 0;
  virtual int column_count() const = 0;
};

// An LP with rows A·x >= `demand` (each >= 0) and no columns; null when karp was built without
// an LP solver.
std::unique_ptr<CoveringLp> MakeCoveringLp(const std::vector<double>& demand);

}  // namespace karp::quality

#endif  // KARP_SRC_QUALITY_COVERING_LP_H_
