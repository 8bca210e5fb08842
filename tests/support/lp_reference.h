// Independent references for the tests of the LP bounds (quality/config_lp.h,
// quality/assignment_lp.h): random small instances, the exact integral optimum by a DP over the
// remaining items, and the configuration LP by a small dense simplex with an optimality
// certificate. Written apart from karp's own LP code on purpose.

#ifndef KARP_TESTS_SUPPORT_LP_REFERENCE_H_
#define KARP_TESTS_SUPPORT_LP_REFERENCE_H_

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "quality/lp_instance.h"

namespace karp::testing {

using quality::LpItem;
using quality::LpKind;

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Whether `status` says karp has no LP solver; then the caller warns and skips.
inline bool NoLpSolver(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable;
}

// A direct instance of the LP bounds (quality/lp_instance.h).
struct Instance {
  std::vector<LpKind> kinds;
  std::vector<LpItem> items;
};

// A count vector in mixed radix (count_i + 1).
struct Radix {
  std::vector<int64_t> base;    // count_i + 1
  std::vector<int64_t> weight;  // Π of the bases before i
  int64_t states = 1;

  explicit Radix(const Instance& in) {
    for (const LpItem& item : in.items) {
      base.push_back(item.count + 1);
      weight.push_back(states);
      states *= item.count + 1;
    }
  }
  std::vector<int64_t> Decode(int64_t code) const {
    std::vector<int64_t> v(base.size());
    for (size_t i = 0; i < base.size(); ++i) v[i] = (code / weight[i]) % base[i];
    return v;
  }
};

// A filling of kind `kind`: counts `a` per item class, `code` its Radix code.
struct Filling {
  size_t kind = 0;
  int64_t code = 0;
  std::vector<int64_t> a;
};

// The configuration LP min Σ p·x s.t. Σ a·x >= d, x >= 0 over `all`, by a dense revised
// primal simplex (Bland's rule) on m <= 4 rows with surplus columns, started from one
// single-item column per row. The answer is trusted only with a certificate (`ok`): the primal
// point is feasible, the duals are feasible for every column, and the two objectives agree;
// otherwise `why` says what failed.
struct ReferenceLp {
  bool ok = false;
  double value = 0;
  std::string why;
};

std::string Describe(const Instance& in);

// A random instance: 1-3 resources, 1-3 kinds at prices in [0.1, 3] with integer capacities
// 0-10, 1-4 item classes of 1-4 items with integer sizes 0-6 on a random subset of the kinds
// that can hold one alone, in a third of the instances some items in 1-2 exclusive sets.
Instance RandomInstance(std::mt19937& rng);

// Whether kind k holds the filling a (counts per item class), checked from the definition.
bool HoldsFilling(const Instance& in, size_t k, const std::vector<int64_t>& a);

// Every non-empty filling of every kind with a_i <= count_i (enough for both optima: fillings
// are closed under taking items out, so capping at the counts loses nothing).
std::vector<Filling> AllFillings(const Instance& in, const Radix& radix);

// The exact integral optimum by a DP over the remaining count vectors.
double IntegralOptimum(const Instance& in, const Radix& radix, const std::vector<Filling>& all);

ReferenceLp SolveReferenceLp(const Instance& in, const std::vector<Filling>& all);

}  // namespace karp::testing

#endif  // KARP_TESTS_SUPPORT_LP_REFERENCE_H_
