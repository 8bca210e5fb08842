// Independent references for the LP-bound tests (support/lp_reference.h).

#include "support/lp_reference.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace karp::testing {

std::string Describe(const Instance& in) {
  std::ostringstream s;
  s.precision(17);
  for (size_t k = 0; k < in.kinds.size(); ++k) {
    s << "kinds[" << k << "] price " << in.kinds[k].price << " capacity (";
    for (double c : in.kinds[k].capacity) s << " " << c;
    s << " )\n";
  }
  for (size_t i = 0; i < in.items.size(); ++i) {
    const LpItem& item = in.items[i];
    s << "items[" << i << "] count " << item.count << " size (";
    for (double v : item.size) s << " " << v;
    s << " ) kinds {";
    for (int k : item.kinds) s << " " << k;
    s << " } exclusive {";
    for (int e : item.exclusive) s << " " << e;
    s << " }\n";
  }
  return s.str();
}

// A random instance: 1-3 resources, 1-3 kinds at prices in [0.1, 3] with integer capacities
// 0-10, 1-4 item classes of 1-4 items with integer sizes 0-6 on a random subset of the kinds
// that can hold one alone, in a third of the instances some items in 1-2 exclusive sets.
Instance RandomInstance(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Instance in;
  const size_t resources = static_cast<size_t>(pick(1, 3));
  const size_t kinds = static_cast<size_t>(pick(1, 3));
  for (size_t k = 0; k < kinds; ++k) {
    LpKind kind;
    kind.price = pick(10, 300) / 100.0;
    for (size_t r = 0; r < resources; ++r) {
      kind.capacity.push_back(pick(0, 7) == 0 ? 0 : pick(1, 10));
    }
    in.kinds.push_back(kind);
  }
  const int sets = pick(0, 2) == 0 ? pick(1, 2) : 0;
  const int classes = pick(1, 4);
  for (int i = 0; i < classes; ++i) {
    LpItem item;
    item.count = pick(1, 4);
    for (size_t r = 0; r < resources; ++r) item.size.push_back(pick(0, 4) == 0 ? 0 : pick(1, 6));
    auto fits = [&](size_t k) {
      for (size_t r = 0; r < resources; ++r) {
        if (item.size[r] > in.kinds[k].capacity[r]) return false;
      }
      return true;
    };
    for (size_t k = 0; k < kinds; ++k) {
      if (pick(0, 2) != 0 && fits(k)) item.kinds.push_back(static_cast<int>(k));
    }
    if (item.kinds.empty()) {
      // Shrink the item onto one random kind, then offer it the others it fits.
      const size_t k = static_cast<size_t>(pick(0, static_cast<int>(kinds) - 1));
      for (size_t r = 0; r < resources; ++r) {
        item.size[r] = std::min(item.size[r], in.kinds[k].capacity[r]);
      }
      for (size_t k2 = 0; k2 < kinds; ++k2) {
        if (k2 == k || (pick(0, 1) == 0 && fits(k2))) item.kinds.push_back(static_cast<int>(k2));
      }
    }
    for (int e = 0; e < sets; ++e) {
      if (pick(0, 1) == 0) item.exclusive.push_back(e);
    }
    in.items.push_back(item);
  }
  return in;
}

// Whether kind k holds the filling a (counts per item class), checked from the definition.
bool HoldsFilling(const Instance& in, size_t k, const std::vector<int64_t>& a) {
  const LpKind& kind = in.kinds[k];
  std::map<int, int64_t> per_set;
  for (size_t r = 0; r < kind.capacity.size(); ++r) {
    double used = 0;
    for (size_t i = 0; i < a.size(); ++i) used += static_cast<double>(a[i]) * in.items[i].size[r];
    if (used > kind.capacity[r]) return false;  // integers: exact
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == 0) continue;
    const std::vector<int>& ks = in.items[i].kinds;
    if (std::find(ks.begin(), ks.end(), static_cast<int>(k)) == ks.end()) return false;
    for (int e : in.items[i].exclusive) {
      if ((per_set[e] += a[i]) > 1) return false;
    }
  }
  return true;
}

// Every non-empty filling of every kind with a_i <= count_i (enough for both optima: fillings
// are closed under taking items out, so capping at the counts loses nothing).
std::vector<Filling> AllFillings(const Instance& in, const Radix& radix) {
  std::vector<Filling> out;
  for (size_t k = 0; k < in.kinds.size(); ++k) {
    for (int64_t code = 1; code < radix.states; ++code) {
      std::vector<int64_t> a = radix.Decode(code);
      if (HoldsFilling(in, k, a)) out.push_back(Filling{k, code, std::move(a)});
    }
  }
  return out;
}

// The exact integral optimum: f(s) over remaining count vectors s, in increasing code order
// (s - a has a smaller code); the node holding the first remaining item is chosen first.
double IntegralOptimum(const Instance& in, const Radix& radix, const std::vector<Filling>& all) {
  std::vector<double> f(static_cast<size_t>(radix.states), kInf);
  f[0] = 0;
  for (int64_t code = 1; code < radix.states; ++code) {
    const std::vector<int64_t> s = radix.Decode(code);
    size_t first = 0;
    while (s[first] == 0) ++first;
    double best = kInf;
    for (const Filling& fill : all) {
      if (fill.a[first] == 0) continue;
      bool below = true;
      for (size_t i = 0; i < s.size() && below; ++i) below = fill.a[i] <= s[i];
      if (!below) continue;
      best = std::min(best, in.kinds[fill.kind].price + f[static_cast<size_t>(code - fill.code)]);
    }
    f[static_cast<size_t>(code)] = best;
  }
  return f[static_cast<size_t>(radix.states - 1)];
}

// The configuration LP min Σ p·x s.t. Σ a·x >= d, x >= 0 over `all`, by a dense revised
// primal simplex (Bland's rule) on m <= 4 rows with surplus columns, started from one
// single-item column per row. The answer is trusted only with a certificate: the primal point
// is feasible, the duals are feasible for every column, and the two objectives agree.

ReferenceLp SolveReferenceLp(const Instance& in, const std::vector<Filling>& all) {
  const size_t m = in.items.size();
  const size_t n = all.size();
  auto cost = [&](size_t j) { return j < n ? in.kinds[all[j].kind].price : 0.0; };
  auto entry = [&](size_t j, size_t i) {
    if (j < n) return static_cast<double>(all[j].a[i]);
    return j - n == i ? -1.0 : 0.0;
  };
  std::vector<double> d(m);
  for (size_t i = 0; i < m; ++i) d[i] = static_cast<double>(in.items[i].count);
  std::vector<size_t> basis(m, SIZE_MAX);
  for (size_t j = 0; j < n; ++j) {
    size_t nonzero = 0, row = 0;
    for (size_t i = 0; i < m; ++i) {
      if (all[j].a[i] != 0) {
        ++nonzero;
        row = i;
      }
    }
    if (nonzero == 1 && all[j].a[row] == 1 && basis[row] == SIZE_MAX) basis[row] = j;
  }
  ReferenceLp out;
  for (size_t i = 0; i < m; ++i) {
    if (basis[i] == SIZE_MAX) {
      out.why = "no single-item column for a row";
      return out;
    }
  }
  std::vector<std::vector<double>> binv(m, std::vector<double>(m, 0));
  for (size_t i = 0; i < m; ++i) binv[i][i] = 1;
  std::vector<double> xb = d;
  std::vector<double> pi(m);
  auto duals = [&] {
    for (size_t i = 0; i < m; ++i) {
      pi[i] = 0;
      for (size_t r = 0; r < m; ++r) pi[i] += cost(basis[r]) * binv[r][i];
    }
  };
  auto reduced = [&](size_t j) {
    double v = cost(j);
    for (size_t i = 0; i < m; ++i) v -= pi[i] * entry(j, i);
    return v;
  };
  int pivots = 0;
  for (;; ++pivots) {
    if (pivots > 20000) {
      out.why = "too many pivots";
      return out;
    }
    duals();
    size_t enter = SIZE_MAX;
    for (size_t j = 0; j < n + m && enter == SIZE_MAX; ++j) {
      if (reduced(j) < -1e-11) enter = j;
    }
    if (enter == SIZE_MAX) break;
    std::vector<double> u(m, 0);
    for (size_t r = 0; r < m; ++r) {
      for (size_t i = 0; i < m; ++i) u[r] += binv[r][i] * entry(enter, i);
    }
    size_t leave = SIZE_MAX;
    double ratio = kInf;
    for (size_t r = 0; r < m; ++r) {
      if (u[r] <= 1e-12) continue;
      const double t = xb[r] / u[r];
      if (leave == SIZE_MAX || t < ratio - 1e-12 ||
          (t <= ratio + 1e-12 && basis[r] < basis[leave])) {
        ratio = std::min(ratio, t);
        leave = r;
      }
    }
    if (leave == SIZE_MAX) {
      out.why = "unbounded";
      return out;
    }
    const double piv = u[leave];
    const double theta = xb[leave] / piv;
    for (size_t r = 0; r < m; ++r) {
      if (r != leave) xb[r] -= theta * u[r];
    }
    xb[leave] = theta;
    for (size_t i = 0; i < m; ++i) binv[leave][i] /= piv;
    for (size_t r = 0; r < m; ++r) {
      if (r == leave) continue;
      const double f = u[r];
      for (size_t i = 0; i < m; ++i) binv[r][i] -= f * binv[leave][i];
    }
    basis[leave] = enter;
  }
  // The certificate.
  double primal = 0, dual = 0;
  std::vector<double> covered(m, 0);
  for (size_t r = 0; r < m; ++r) {
    if (xb[r] < -1e-9) {
      out.why = "negative primal value";
      return out;
    }
    primal += cost(basis[r]) * xb[r];
    for (size_t i = 0; i < m; ++i) covered[i] += entry(basis[r], i) * xb[r];
  }
  for (size_t i = 0; i < m; ++i) {
    if (covered[i] < d[i] - 1e-9) {
      out.why = "primal point does not cover the counts";
      return out;
    }
    if (pi[i] < -1e-12) {
      out.why = "negative dual";
      return out;
    }
    dual += pi[i] * d[i];
  }
  for (size_t j = 0; j < n; ++j) {
    if (reduced(j) < -1e-11) {
      out.why = "dual infeasible column";
      return out;
    }
  }
  if (std::abs(primal - dual) > 1e-10 * (1 + primal)) {
    out.why = "objectives differ";
    return out;
  }
  out.ok = true;
  out.value = primal;
  return out;
}

}  // namespace karp::testing
