// CoveringLp on COIN-OR CLP (quality/covering_lp.h). Built only when CMake finds CLP.

#include <memory>
#include <utility>
#include <vector>

#include "ClpSimplex.hpp"
#include "internal/strings.h"
#include "quality/covering_lp.h"

namespace karp::quality {
namespace {

class ClpCoveringLp final : public CoveringLp {
 public:
  explicit ClpCoveringLp(const std::vector<double>& demand) {
    model_.setLogLevel(0);
    model_.setOptimizationDirection(1);  // minimise
    model_.resize(static_cast<int>(demand.size()), 0);
    for (size_t r = 0; r < demand.size(); ++r) {
      model_.setRowLower(static_cast<int>(r), demand[r]);
      model_.setRowUpper(static_cast<int>(r), COIN_DBL_MAX);
    }
  }

  // Columns wait in a buffer and join the model in one addColumns call before the next solve:
  // CLP copies its whole matrix on every addColumn.
  void AddColumn(double cost, const std::vector<std::pair<int, double>>& entries) override {
    for (const auto& [row, value] : entries) {
      pending_rows_.push_back(row);
      pending_elements_.push_back(value);
    }
    pending_starts_.push_back(static_cast<CoinBigIndex>(pending_rows_.size()));
    pending_costs_.push_back(cost);
  }

  int AddRow(double lower, const std::vector<std::pair<int, double>>& entries) override {
    for (const auto& [column, value] : entries) {
      row_columns_.push_back(column);
      row_elements_.push_back(value);
    }
    row_starts_.push_back(static_cast<CoinBigIndex>(row_columns_.size()));
    row_lower_.push_back(lower);
    return model_.numberRows() + static_cast<int>(row_lower_.size()) - 1;
  }

  absl::Status Solve() override {
    // The first solve from scratch, later ones warm.
    const bool new_rows = !row_lower_.empty();
    Flush();
    if (!solved_once_) {
      model_.initialSolve();
    } else if (new_rows) {
      model_.dual(0, 2);  // rows the last solution breaks (and maybe new columns)
    } else {
      model_.primal(0, 2);  // new columns: the basis stays primal feasible
    }
    solved_once_ = true;
    if (model_.status() != 0) {
      return absl::InternalError(internal::StrCat(
          "LP bound: CLP stopped with status ", model_.status(), " (secondary ",
          model_.secondaryStatus(), ") after ", model_.numberIterations(), " iterations"));
    }
    return absl::OkStatus();
  }

  double objective() const override { return model_.objectiveValue(); }

  std::vector<double> duals() const override {
    const double* d = model_.dualRowSolution();
    std::vector<double> out(d, d + model_.numberRows());
    for (double& v : out) v = v < 0 ? 0 : v;  // >= rows of a minimisation: duals >= 0
    return out;
  }

  std::vector<double> solution() const override {
    const double* x = model_.primalColumnSolution();
    std::vector<double> out(x, x + model_.numberColumns());
    for (double& v : out) v = v < 0 ? 0 : v;
    return out;
  }

  int column_count() const override {
    return model_.numberColumns() + static_cast<int>(pending_costs_.size());
  }

 private:
  void Flush() {
    FlushColumns();
    const int rows = static_cast<int>(row_lower_.size());
    if (rows == 0) return;
    const std::vector<double> upper(static_cast<size_t>(rows), COIN_DBL_MAX);
    model_.addRows(rows, row_lower_.data(), upper.data(), row_starts_.data(), row_columns_.data(),
                   row_elements_.data());
    row_lower_.clear();
    row_starts_.assign(1, 0);
    row_columns_.clear();
    row_elements_.clear();
  }

  void FlushColumns() {
    const int n = static_cast<int>(pending_costs_.size());
    if (n == 0) return;
    const std::vector<double> lower(static_cast<size_t>(n), 0.0);
    const std::vector<double> upper(static_cast<size_t>(n), COIN_DBL_MAX);
    model_.addColumns(n, lower.data(), upper.data(), pending_costs_.data(), pending_starts_.data(),
                      pending_rows_.data(), pending_elements_.data());
    pending_costs_.clear();
    pending_starts_.assign(1, 0);
    pending_rows_.clear();
    pending_elements_.clear();
  }

  ClpSimplex model_;
  bool solved_once_ = false;
  std::vector<double> pending_costs_;
  std::vector<CoinBigIndex> pending_starts_{0};  // n + 1 starts into the two below
  std::vector<int> pending_rows_;
  std::vector<double> pending_elements_;
  std::vector<double> row_lower_;
  std::vector<CoinBigIndex> row_starts_{0};  // n + 1 starts into the two below
  std::vector<int> row_columns_;
  std::vector<double> row_elements_;
};

}  // namespace

std::unique_ptr<CoveringLp> MakeCoveringLp(const std::vector<double>& demand) {
  return std::make_unique<ClpCoveringLp>(demand);
}

}  // namespace karp::quality
