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

  void AddColumn(double cost, const std::vector<std::pair<int, double>>& entries) override {
    std::vector<int> rows;
    std::vector<double> elements;
    rows.reserve(entries.size());
    elements.reserve(entries.size());
    for (const auto& [row, value] : entries) {
      rows.push_back(row);
      elements.push_back(value);
    }
    model_.addColumn(static_cast<int>(rows.size()), rows.data(), elements.data(), 0.0, COIN_DBL_MAX,
                     cost);
  }

  absl::Status Solve() override {
    // The first solve from scratch, later ones warm: new columns keep the basis primal
    // feasible, which is what primal simplex continues from.
    model_.primal(0, solved_once_ ? 2 : 0);
    solved_once_ = true;
    if (model_.status() != 0) {
      return absl::InternalError(internal::StrCat(
          "configuration LP: CLP stopped with status ", model_.status(), " (secondary ",
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

  int column_count() const override { return model_.numberColumns(); }

 private:
  ClpSimplex model_;
  bool solved_once_ = false;
};

}  // namespace

std::unique_ptr<CoveringLp> MakeCoveringLp(const std::vector<double>& demand) {
  return std::make_unique<ClpCoveringLp>(demand);
}

}  // namespace karp::quality
