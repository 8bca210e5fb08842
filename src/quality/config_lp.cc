// The configuration-LP bound by column generation (quality/config_lp.h; docs/lower-bound.md §6).

#include "quality/config_lp.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "boost/graph/adjacency_list.hpp"
#include "boost/graph/connected_components.hpp"
#include "internal/strings.h"
#include "quality/assignment_lp.h"
#include "quality/covering_lp.h"

namespace karp::quality {
namespace {

// The bound is proven to be the LP's optimum when it meets the restricted master's value (at
// least the optimum) up to this relative difference: the 1e-9 taken off every bound, rounding.
constexpr double kProvenGap = 1e-8;

// A filling found by pricing: kind, price and (item, copies) pairs.
struct Column {
  size_t kind = 0;
  double price = 0;
  double value = 0;  // Σ π·a under the duals it was priced with
  std::vector<std::pair<int, double>> filling;
};

// The pricing problem of one kind under duals π: max Σ π_i·a_i over the kind's fillings, by
// branch and bound within a node budget. Items in order of dual value per normalised size;
// counts from the largest down; a node is pruned by the smallest over resources of the
// single-resource fractional knapsack of the undecided items (a valid upper bound).
class KindPricing {
 public:
  struct Result {
    double value = 0;  // the best filling found
    double upper = 0;  // >= the optimum (== value when the search completed)
    std::vector<std::pair<int, double>> filling;
    int64_t nodes = 0;
  };

  KindPricing(const LpKind& kind, const KindItems& ki, const std::vector<LpItem>& items,
              const std::vector<double>& duals, size_t resources, int exclusive_sets)
      : kind_(kind),
        items_(items),
        resources_(resources),
        exclusive_used_(static_cast<size_t>(exclusive_sets), 0) {
    for (size_t p = 0; p < ki.items.size(); ++p) {
      const int i = ki.items[p];
      const double dual = duals[static_cast<size_t>(i)];
      if (dual <= 0) continue;
      item_.push_back(i);
      dual_.push_back(dual);
      copies_.push_back(ki.copies[p]);
    }
    const size_t m = item_.size();
    order_.resize(m);
    std::iota(order_.begin(), order_.end(), 0);
    std::vector<double> density(m);
    for (size_t j = 0; j < m; ++j) {
      double norm = 0;
      for (size_t r = 0; r < resources_; ++r) {
        if (kind_.capacity[r] > 0) norm += Size(j, r) / kind_.capacity[r];
      }
      density[j] = dual_[j] / std::max(norm, 1e-12);
    }
    std::stable_sort(order_.begin(), order_.end(),
                     [&](size_t a, size_t b) { return density[a] > density[b]; });
    by_resource_.resize(resources_);
    for (size_t r = 0; r < resources_; ++r) {
      std::vector<size_t>& o = by_resource_[r];
      o.resize(m);
      std::iota(o.begin(), o.end(), 0);
      std::stable_sort(o.begin(), o.end(), [&](size_t a, size_t b) {
        return dual_[a] * Size(b, r) > dual_[b] * Size(a, r);
      });
    }
  }

  Result Solve(int64_t budget) {
    budget_ = budget;
    room_ = kind_.capacity;
    decided_.assign(item_.size(), 0);
    counts_.assign(item_.size(), 0);
    best_ = Result();
    truncated_ = 0;
    nodes_ = 0;
    Search(0, 0);
    best_.upper = std::max(best_.value, truncated_);
    best_.nodes = nodes_;
    return best_;
  }

 private:
  double Size(size_t j, size_t r) const { return items_[static_cast<size_t>(item_[j])].size[r]; }

  double Bound(double fixed) const {
    double best = HUGE_VAL;
    for (size_t r = 0; r < resources_; ++r) {
      double left = room_[r] * (1 + kCapacitySlack) + kCapacitySlack;
      double value = fixed;
      for (size_t j : by_resource_[r]) {
        if (decided_[j]) continue;
        const double size = Size(j, r);
        const double copies = static_cast<double>(copies_[j]);
        if (size <= 0) {
          value += dual_[j] * copies;
          continue;
        }
        if (left <= 0) break;
        const double take = std::min(copies, left / size);
        value += dual_[j] * take;
        left -= take * size;
      }
      best = std::min(best, value);
    }
    return best == HUGE_VAL ? fixed : best;
  }

  void Record(double value) {
    best_.value = value;
    best_.filling.clear();
    for (size_t j = 0; j < counts_.size(); ++j) {
      if (counts_[j] > 0) best_.filling.emplace_back(item_[j], static_cast<double>(counts_[j]));
    }
  }

  void Search(size_t depth, double value) {
    if (value > best_.value) Record(value);
    if (depth == order_.size()) return;
    const double bound = Bound(value);
    if (bound <= best_.value * (1 + 1e-12)) return;
    if (++nodes_ > budget_) {
      truncated_ = std::max(truncated_, bound);
      return;
    }
    const size_t j = order_[depth];
    const LpItem& item = items_[static_cast<size_t>(item_[j])];
    int64_t most = copies_[j];
    for (int e : item.exclusive) {
      if (exclusive_used_[static_cast<size_t>(e)]) most = 0;
    }
    for (size_t r = 0; r < resources_ && most > 0; ++r) {
      if (item.size[r] <= 0) continue;
      const double room = room_[r] * (1 + kCapacitySlack) + kCapacitySlack;
      most = std::min<int64_t>(most, static_cast<int64_t>(std::floor(room / item.size[r])));
    }
    decided_[j] = 1;
    for (int64_t c = most; c >= 0; --c) {
      counts_[j] = c;
      for (size_t r = 0; r < resources_; ++r) room_[r] -= static_cast<double>(c) * item.size[r];
      if (c > 0) {
        for (int e : item.exclusive) exclusive_used_[static_cast<size_t>(e)] = 1;
      }
      Search(depth + 1, value + dual_[j] * static_cast<double>(c));
      if (c > 0) {
        for (int e : item.exclusive) exclusive_used_[static_cast<size_t>(e)] = 0;
      }
      for (size_t r = 0; r < resources_; ++r) room_[r] += static_cast<double>(c) * item.size[r];
      if (nodes_ > budget_) {
        // Out of budget: the untried counts are bounded by this node's bound.
        if (c > 0) truncated_ = std::max(truncated_, bound);
        break;
      }
    }
    counts_[j] = 0;
    decided_[j] = 0;
  }

  const LpKind& kind_;
  const std::vector<LpItem>& items_;
  const size_t resources_;
  // The kind's items with a positive dual (index j): item, dual, copies.
  std::vector<int> item_;
  std::vector<double> dual_;
  std::vector<int64_t> copies_;
  std::vector<size_t> order_;                     // branching order
  std::vector<std::vector<size_t>> by_resource_;  // per resource: by dual per unit, best first
  int64_t budget_ = 0;
  std::vector<double> room_;
  std::vector<char> decided_;
  std::vector<int64_t> counts_;
  std::vector<char> exclusive_used_;
  Result best_;
  double truncated_ = 0;
  int64_t nodes_ = 0;
};

// The root bound of every kind under `duals` (KindPricing's bound with nothing decided), from
// one order of the items per resource shared by all kinds: O(R·n) per kind.
std::vector<double> RootBounds(const std::vector<LpKind>& kinds,
                               const std::vector<KindItems>& kind_items,
                               const std::vector<LpItem>& items, const std::vector<double>& duals,
                               size_t resources) {
  std::vector<std::vector<int>> orders(resources);
  for (size_t r = 0; r < resources; ++r) {
    for (size_t i = 0; i < items.size(); ++i) {
      if (duals[i] > 0) orders[r].push_back(static_cast<int>(i));
    }
    std::stable_sort(orders[r].begin(), orders[r].end(), [&](int a, int b) {
      return duals[static_cast<size_t>(a)] * items[static_cast<size_t>(b)].size[r] >
             duals[static_cast<size_t>(b)] * items[static_cast<size_t>(a)].size[r];
    });
  }
  std::vector<double> out(kinds.size());
  for (size_t k = 0; k < kinds.size(); ++k) {
    const KindItems& ki = kind_items[k];
    double best = HUGE_VAL;
    for (size_t r = 0; r < resources; ++r) {
      double left = kinds[k].capacity[r] * (1 + kCapacitySlack) + kCapacitySlack;
      double value = 0;
      for (int i : orders[r]) {
        const int pos = ki.position[static_cast<size_t>(i)];
        if (pos < 0) continue;
        const double size = items[static_cast<size_t>(i)].size[r];
        const double copies = static_cast<double>(ki.copies[static_cast<size_t>(pos)]);
        if (size <= 0) {
          value += duals[static_cast<size_t>(i)] * copies;
          continue;
        }
        if (left <= 0) break;
        const double take = std::min(copies, left / size);
        value += duals[static_cast<size_t>(i)] * take;
        left -= take * size;
      }
      best = std::min(best, value);
    }
    out[k] = best == HUGE_VAL ? 0 : best;
  }
  return out;
}

// Farley's bound of duals π and the columns pricing found on the way.
struct Evaluation {
  double bound = 0;  // Σ π_i·d_i / θ
  double theta = 1;  // max(1, max_k v_k / p_k), v_k an upper bound of kind k's pricing value
  std::vector<Column> columns;  // fillings with value > price under π, best ratio first
};

class ColumnGeneration {
 public:
  ColumnGeneration(const std::vector<LpKind>& kinds, const std::vector<KindItems>& kind_items,
                   const std::vector<LpItem>& items, size_t resources, int exclusive_sets,
                   const ConfigLpOptions& options)
      : kinds_(kinds),
        kind_items_(kind_items),
        items_(items),
        resources_(resources),
        exclusive_sets_(exclusive_sets),
        options_(options),
        nodes_left_(options.total_node_budget) {}

  // Prices every kind that may raise θ, and up to max_columns_per_iteration kinds that may
  // have an improving filling, most promising first.
  Evaluation Evaluate(const std::vector<double>& duals) {
    Evaluation out;
    const std::vector<double> roots = RootBounds(kinds_, kind_items_, items_, duals, resources_);
    std::vector<std::pair<double, size_t>> ratios;
    ratios.reserve(kinds_.size());
    for (size_t k = 0; k < kinds_.size(); ++k) ratios.emplace_back(roots[k] / kinds_[k].price, k);
    std::stable_sort(ratios.begin(), ratios.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    int priced = 0;
    for (const auto& [root_ratio, k] : ratios) {
      const bool raises_theta = root_ratio > out.theta * (1 + 1e-12);
      const bool may_improve = root_ratio > 1 + 1e-9 && priced < options_.max_columns_per_iteration;
      if (!raises_theta && !may_improve) break;
      const int64_t budget = std::min(options_.pricing_node_budget, nodes_left_);
      KindPricing pricing(kinds_[k], kind_items_[k], items_, duals, resources_, exclusive_sets_);
      KindPricing::Result r = budget > 0 ? pricing.Solve(budget) : KindPricing::Result();
      if (budget <= 0) r.upper = roots[k];  // no search left: the root bound
      nodes_left_ -= r.nodes;
      ++priced;
      const double price = kinds_[k].price;
      out.theta = std::max(out.theta, r.upper / price);
      if (r.value > price * (1 + 1e-9)) {
        out.columns.push_back(Column{k, price, r.value, std::move(r.filling)});
      }
    }
    double dual_value = 0;
    for (size_t i = 0; i < items_.size(); ++i) {
      dual_value += duals[i] * static_cast<double>(items_[i].count);
    }
    out.bound = dual_value / out.theta * (1 - 1e-9);
    std::stable_sort(out.columns.begin(), out.columns.end(), [](const Column& a, const Column& b) {
      return a.value / a.price > b.value / b.price;
    });
    return out;
  }

  bool out_of_nodes() const { return nodes_left_ <= 0; }

 private:
  const std::vector<LpKind>& kinds_;
  const std::vector<KindItems>& kind_items_;
  const std::vector<LpItem>& items_;
  const size_t resources_;
  const int exclusive_sets_;
  const ConfigLpOptions& options_;
  int64_t nodes_left_;
};

// Starting duals from resource prices: per component of items (items joined by a kind they
// share; Boost.Graph), the optimal duals λ of the fractional cover min Σ p_k·y_k subject to
// Σ_k C_kr·y_k >= D_r (D: the component's summed sizes), and π_i = λ·s_i. They satisfy every
// dual constraint (Σ_i a_i·λ·s_i <= λ·C_k <= p_k for a filling a of kind k), so Farley's bound
// of these duals is at least the fractional bound over all resources at once, per component.
struct ResourcePrices {
  std::vector<double> duals;        // per item: λ·s_i (also its surrogate size)
  std::vector<double> kind_budget;  // per kind: λ·C_k (the surrogate capacity, <= p_k)
};

absl::StatusOr<ResourcePrices> ResourcePriceDuals(const std::vector<LpKind>& kinds,
                                                  const std::vector<KindItems>& kind_items,
                                                  const std::vector<LpItem>& items,
                                                  size_t resources) {
  // Vertices: items, then kinds.
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  Graph g(items.size() + kinds.size());
  for (size_t k = 0; k < kinds.size(); ++k) {
    for (int i : kind_items[k].items) boost::add_edge(static_cast<size_t>(i), items.size() + k, g);
  }
  std::vector<int> component(boost::num_vertices(g));
  const int components = boost::connected_components(g, component.data());
  ResourcePrices out;
  out.duals.assign(items.size(), 0);
  out.kind_budget.assign(kinds.size(), 0);
  for (int c = 0; c < components; ++c) {
    std::vector<double> demand(resources, 0);
    bool any = false;
    for (size_t i = 0; i < items.size(); ++i) {
      if (component[i] != c) continue;
      any = true;
      for (size_t r = 0; r < resources; ++r) {
        demand[r] += static_cast<double>(items[i].count) * items[i].size[r];
      }
    }
    if (!any) continue;
    // Scale each resource to about 1 for the solver's sake (duals scale back).
    std::vector<double> scale(resources, 1);
    for (size_t r = 0; r < resources; ++r) {
      if (demand[r] > 0) scale[r] = 1 / demand[r];
    }
    std::vector<double> scaled(resources);
    for (size_t r = 0; r < resources; ++r) scaled[r] = demand[r] * scale[r];
    std::unique_ptr<CoveringLp> cover = MakeCoveringLp(scaled);
    for (size_t k = 0; k < kinds.size(); ++k) {
      if (component[items.size() + k] != c) continue;
      std::vector<std::pair<int, double>> entries;
      for (size_t r = 0; r < resources; ++r) {
        if (kinds[k].capacity[r] > 0 && demand[r] > 0) {
          entries.emplace_back(static_cast<int>(r), kinds[k].capacity[r] * scale[r]);
        }
      }
      cover->AddColumn(kinds[k].price, entries);
    }
    if (absl::Status s = cover->Solve(); !s.ok()) return s;
    const std::vector<double> lambda = cover->duals();
    for (size_t i = 0; i < items.size(); ++i) {
      if (component[i] != c) continue;
      for (size_t r = 0; r < resources; ++r) {
        out.duals[i] += lambda[r] * scale[r] * items[i].size[r];
      }
    }
    for (size_t k = 0; k < kinds.size(); ++k) {
      if (component[items.size() + k] != c) continue;
      for (size_t r = 0; r < resources; ++r) {
        out.kind_budget[k] += lambda[r] * scale[r] * kinds[k].capacity[r];
      }
    }
  }
  return out;
}

void AddColumns(CoveringLp& master, std::vector<Column>& columns, size_t most) {
  for (size_t c = 0; c < columns.size() && c < most; ++c) {
    std::sort(columns[c].filling.begin(), columns[c].filling.end());
    master.AddColumn(columns[c].price, columns[c].filling);
  }
}

// The master's first columns: for each item the cheapest node of it alone (so the master is
// feasible).
void AddSingleItemColumns(const std::vector<LpKind>& kept_kinds,
                          const std::vector<KindItems>& kind_items, size_t item_count,
                          CoveringLp& master) {
  for (size_t i = 0; i < item_count; ++i) {
    double best_unit = HUGE_VAL;
    Column best;
    for (size_t k = 0; k < kind_items.size(); ++k) {
      const int pos = kind_items[k].position[i];
      if (pos < 0) continue;
      const int64_t copies = kind_items[k].copies[static_cast<size_t>(pos)];
      const double unit = kept_kinds[k].price / static_cast<double>(copies);
      if (unit < best_unit) {
        best_unit = unit;
        best =
            Column{k, kept_kinds[k].price, 0, {{static_cast<int>(i), static_cast<double>(copies)}}};
      }
    }
    master.AddColumn(best.price, best.filling);
  }
}

// Column generation from `best_duals` on `master` (which holds a feasible set of columns):
// master solves, pricing at Wentges-smoothed duals, and at the master's own duals when that
// finds nothing improving. Raises out->bound, sets master_value, iterations and optimal.
absl::Status GenerateColumns(CoveringLp& master, ColumnGeneration& generation,
                             std::vector<double> best_duals, const ConfigLpOptions& options,
                             ConfigLpResult* out) {
  const size_t most = static_cast<size_t>(options.max_columns_per_iteration);
  const size_t n = best_duals.size();
  bool solved = false;
  for (out->iterations = 1; out->iterations <= options.max_iterations; ++out->iterations) {
    if (absl::Status s = master.Solve(); !s.ok()) return s;
    solved = true;
    out->master_value = master.objective();
    if (out->bound >= out->master_value * (1 - options.gap)) break;
    const std::vector<double> duals = master.duals();
    // Wentges smoothing: price at a point between the best duals so far and the master's.
    std::vector<double> mixed(n);
    for (size_t i = 0; i < n; ++i) {
      mixed[i] = options.smoothing * best_duals[i] + (1 - options.smoothing) * duals[i];
    }
    Evaluation e = generation.Evaluate(mixed);
    if (e.bound > out->bound) {
      out->bound = e.bound;
      best_duals = mixed;
    }
    // Columns that improve the master (negative reduced cost under its duals).
    size_t improving = 0;
    for (const Column& c : e.columns) {
      double v = 0;
      for (const auto& [i, a] : c.filling) v += duals[static_cast<size_t>(i)] * a;
      if (v > c.price * (1 + 1e-9)) ++improving;
    }
    AddColumns(master, e.columns, most);
    if (improving == 0) {
      // Mispricing: price at the master's own duals.
      Evaluation m = generation.Evaluate(duals);
      if (m.bound > out->bound) {
        out->bound = m.bound;
        best_duals = duals;
      }
      if (m.columns.empty()) {
        if (m.theta <= 1 + 1e-9) {
          out->optimal = true;
          out->bound = std::max(out->bound, m.bound);
        }
        break;
      }
      AddColumns(master, m.columns, most);
    }
    if (generation.out_of_nodes()) break;
  }
  // However the loop ended (most often on the gap, before any pricing at the master's duals):
  // bound <= LP optimum <= master value, so a bound that meets the master's value is the optimum.
  if (solved && out->bound >= out->master_value * (1 - kProvenGap)) out->optimal = true;
  out->iterations = std::min(out->iterations, options.max_iterations);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ConfigLpResult> ConfigurationLpBound(const std::vector<LpKind>& kinds,
                                                    const std::vector<LpItem>& items,
                                                    const ConfigLpOptions& options) {
  ConfigLpResult out;
  if (items.empty()) {
    out.optimal = true;
    return out;
  }
  const size_t resources = items.front().size.size();
  if (absl::Status s = CheckLpInput(kinds, items, resources); !s.ok()) return s;
  std::vector<double> demand(items.size());
  for (size_t i = 0; i < items.size(); ++i) demand[i] = static_cast<double>(items[i].count);
  std::unique_ptr<CoveringLp> master = MakeCoveringLp(demand);
  if (master == nullptr) {
    return absl::UnavailableError("configuration LP: karp was built without an LP solver (CLP)");
  }
  std::vector<LpKind> kept_kinds;
  std::vector<KindItems> kind_items;
  KeepKinds(kinds, items, &kept_kinds, &kind_items);
  // The assignment LP first: a bound of its own, the starting duals, and whole fillings near its
  // solution as the master's first real columns.
  absl::StatusOr<AssignmentLpResult> fluid =
      AssignmentLpBound(kept_kinds, kind_items, items, options.assignment);
  if (!fluid.ok()) return fluid.status();
  out.assignment_bound = out.bound = fluid->bound;
  size_t pairs = 0;
  for (const KindItems& ki : kind_items) pairs += ki.items.size();
  if (pairs > options.column_generation_max_pairs) return out;

  AddSingleItemColumns(kept_kinds, kind_items, items.size(), *master);
  for (const auto& [k, filling] :
       RoundedFillings(kept_kinds, items, *fluid, options.rounded_fillings_per_kind)) {
    master->AddColumn(kept_kinds[k].price, filling);
  }
  absl::StatusOr<ResourcePrices> prices =
      ResourcePriceDuals(kept_kinds, kind_items, items, resources);
  if (!prices.ok()) return prices.status();
  double cover_value = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    cover_value += prices->duals[i] * static_cast<double>(items[i].count);
  }
  // Pricing sees one more resource, implied by the others: the surrogate Σ_r λ_r·s_ir <=
  // Σ_r λ_r·C_kr. Every filling satisfies it, and it makes the pricing bounds tight for duals
  // near the resource prices.
  std::vector<LpItem> priced_items = items;
  for (size_t i = 0; i < items.size(); ++i) priced_items[i].size.push_back(prices->duals[i]);
  std::vector<LpKind> priced_kinds = kept_kinds;
  for (size_t k = 0; k < kept_kinds.size(); ++k) {
    priced_kinds[k].capacity.push_back(prices->kind_budget[k]);
  }
  ColumnGeneration generation(priced_kinds, kind_items, priced_items, resources + 1,
                              ExclusiveSetCount(items), options);
  std::vector<double> start = fluid->bound > cover_value ? fluid->duals : prices->duals;
  Evaluation first = generation.Evaluate(start);
  out.bound = std::max(out.bound, first.bound);
  AddColumns(*master, first.columns, static_cast<size_t>(options.max_columns_per_iteration));
  if (absl::Status s = GenerateColumns(*master, generation, std::move(start), options, &out);
      !s.ok()) {
    return s;
  }
  out.columns = master->column_count();
  return out;
}

}  // namespace karp::quality
