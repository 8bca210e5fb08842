// The assignment-LP bound by pair generation (quality/assignment_lp.h; docs/lower-bound.md).

#include "quality/assignment_lp.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "quality/covering_lp.h"

namespace karp::quality {
namespace {

// The restricted LP: rows are the items' demands, then one row per kind and resource with
// capacity, scaled by the capacity (y_k - Σ_i (s_ir / C_kr)·x_ik >= 0), then the rows of
// exclusive sets on kinds (y_k - Σ_(i in E) x_ik >= 0: at most one of the set per node), each
// added once a solution breaks it.
class RestrictedLp {
 public:
  RestrictedLp(const std::vector<LpKind>& kinds, const std::vector<KindItems>& kind_items,
               const std::vector<LpItem>& items)
      : kinds_(kinds), kind_items_(kind_items), items_(items) {
    const size_t resources = items.front().size.size();
    std::vector<double> rhs(items.size());
    for (size_t i = 0; i < items.size(); ++i) rhs[i] = static_cast<double>(items[i].count);
    cap_row_.resize(kinds.size());
    for (size_t k = 0; k < kinds.size(); ++k) {
      cap_row_[k].assign(resources, -1);
      for (size_t r = 0; r < resources; ++r) {
        if (kinds[k].capacity[r] <= 0) continue;
        cap_row_[k][r] = static_cast<int>(rhs.size());
        rhs.push_back(0);
      }
    }
    lp_ = MakeCoveringLp(rhs);
    if (lp_ == nullptr) return;
    for (size_t k = 0; k < kinds.size(); ++k) {
      std::vector<std::pair<int, double>> entries;
      for (int row : cap_row_[k]) {
        if (row >= 0) entries.emplace_back(row, 1.0);
      }
      lp_->AddColumn(kinds[k].price, entries);
    }
    in_lp_.resize(kinds.size());
    for (size_t k = 0; k < kinds.size(); ++k) in_lp_[k].assign(kind_items[k].items.size(), 0);
    kind_set_rows_.resize(kinds.size());
  }

  bool available() const { return lp_ != nullptr; }
  CoveringLp& lp() { return *lp_; }
  int pairs() const { return pairs_; }

  // Adds x_ik (kind k, position p in its items) unless it is in already.
  void AddPair(size_t k, size_t p) {
    if (in_lp_[k][p]) return;
    in_lp_[k][p] = 1;
    ++pairs_;
    pair_list_.emplace_back(k, p);
    const int i = kind_items_[k].items[p];
    const LpItem& item = items_[static_cast<size_t>(i)];
    const int column = static_cast<int>(kinds_.size() + pair_list_.size() - 1);
    std::vector<std::pair<int, double>> entries{{i, 1.0}};
    for (size_t r = 0; r < item.size.size(); ++r) {
      const int row = cap_row_[k][r];
      if (row >= 0 && item.size[r] > 0) {
        entries.emplace_back(row, -item.size[r] / kinds_[k].capacity[r]);
      }
    }
    for (int e : item.exclusive) {
      auto pos = set_rows_.find({e, k});
      if (pos == set_rows_.end()) {
        // A set that binds somewhere gets its row on every kind it reaches, at once.
        if (binding_sets_.count(e) == 0) continue;
        pos = set_rows_.emplace(std::make_pair(e, k), SetRow{}).first;
        pos->second.pending = {{static_cast<int>(k), 1.0}};  // y_k
      }
      SetRow& row = pos->second;
      if (row.index >= 0) {
        entries.emplace_back(row.index, -1.0);
      } else {
        row.pending.emplace_back(column, -1.0);
      }
    }
    std::sort(entries.begin(), entries.end());
    lp_->AddColumn(0, entries);
  }

  // For every set whose pairs in the solution `x` of the last solve hold more than one item of
  // the set per node on some kind (Σ_(i in E) x_ik > y_k), creates its rows on every kind it has
  // pairs on; returns how many rows.
  int AddViolatedSetRows(const std::vector<double>& x) {
    std::map<std::pair<int, size_t>, std::vector<int>> columns;  // (set, kind) -> x columns
    std::map<std::pair<int, size_t>, double> held;
    const size_t solved = std::min(pair_list_.size(), x.size() - kinds_.size());
    for (size_t c = 0; c < pair_list_.size(); ++c) {
      const auto [k, p] = pair_list_[c];
      const LpItem& item = items_[static_cast<size_t>(kind_items_[k].items[p])];
      for (int e : item.exclusive) {
        if (set_rows_.count({e, k}) != 0) continue;
        columns[{e, k}].push_back(static_cast<int>(kinds_.size() + c));
        if (c < solved) held[{e, k}] += x[kinds_.size() + c];
      }
    }
    // A set broken on one kind gets its row on every kind it has pairs on (else the solution
    // would only move the set to the next kind, one solve per kind).
    std::set<int> broken;
    for (const auto& [key, amount] : held) {
      if (amount > x[key.second] * (1 + 1e-9) + 1e-9) broken.insert(key.first);
    }
    int added = 0;
    for (const auto& [key, list] : columns) {
      if (broken.count(key.first) == 0) continue;
      SetRow& row = set_rows_[key];
      row.pending = {{static_cast<int>(key.second), 1.0}};  // y_k
      for (int column : list) row.pending.emplace_back(column, -1.0);
      ++added;
    }
    binding_sets_.insert(broken.begin(), broken.end());
    return added;
  }

  // Adds the set rows created since the last call (in (set, kind) order), before a solve.
  void AddPendingRows() {
    for (auto& [key, row] : set_rows_) {
      if (row.index >= 0) continue;
      row.index = lp_->AddRow(0, row.pending);
      row.pending.clear();
      kind_set_rows_[key.second].push_back(row.index);
    }
  }

  // The duals of kind k's set rows, summed.
  double SetDualsOfKind(const std::vector<double>& row_duals, size_t k) const {
    double sum = 0;
    for (int row : kind_set_rows_[k]) sum += row_duals[static_cast<size_t>(row)];
    return sum;
  }

  // The dual of set e's row on kind k (0 when it has none yet).
  double SetDual(const std::vector<double>& row_duals, int e, size_t k) const {
    const auto pos = set_rows_.find({e, k});
    if (pos == set_rows_.end() || pos->second.index < 0) return 0;
    return row_duals[static_cast<size_t>(pos->second.index)];
  }

  // The capacity rows' duals of kind k, per resource (0 where the kind has no capacity).
  std::vector<double> KindDuals(const std::vector<double>& row_duals, size_t k) const {
    std::vector<double> out(cap_row_[k].size(), 0);
    for (size_t r = 0; r < out.size(); ++r) {
      const int row = cap_row_[k][r];
      if (row >= 0) out[r] = row_duals[static_cast<size_t>(row)];
    }
    return out;
  }

  bool Has(size_t k, size_t p) const { return in_lp_[k][p] != 0; }

  // The last solve's solution: per kind its nodes (y_k) and its items (item, x_ik > 0).
  void Solution(std::vector<double>* nodes,
                std::vector<std::vector<std::pair<int, double>>>* placed) const {
    const std::vector<double> x = lp_->solution();
    nodes->assign(x.begin(), x.begin() + static_cast<long>(kinds_.size()));
    placed->assign(kinds_.size(), {});
    // Pairs added after the last solve have no value yet.
    const size_t solved = std::min(pair_list_.size(), x.size() - kinds_.size());
    for (size_t c = 0; c < solved; ++c) {
      const double v = x[kinds_.size() + c];
      if (v <= 0) continue;
      const auto [k, p] = pair_list_[c];
      (*placed)[k].emplace_back(kind_items_[k].items[p], v);
    }
    for (auto& list : *placed) std::sort(list.begin(), list.end());
  }

 private:
  const std::vector<LpKind>& kinds_;
  const std::vector<KindItems>& kind_items_;
  const std::vector<LpItem>& items_;
  std::vector<std::vector<int>> cap_row_;
  std::unique_ptr<CoveringLp> lp_;
  std::vector<std::vector<char>> in_lp_;
  std::vector<std::pair<size_t, size_t>> pair_list_;  // the x columns in order (after the y's)
  int pairs_ = 0;
  struct SetRow {
    int index = -1;                               // the row, once added
    std::vector<std::pair<int, double>> pending;  // its entries until then
  };
  std::map<std::pair<int, size_t>, SetRow> set_rows_;  // by (set, kind)
  std::vector<std::vector<int>> kind_set_rows_;        // per kind: its set rows' indexes
  std::set<int> binding_sets_;  // sets with rows: new pairs of theirs get rows at once
};

// The first pairs: each item on the kFirstPairs kinds where it alone takes the cheapest share
// of a node (price times its largest share of a resource; ties: the lowest kind), so the LP is
// feasible and starts near its optimum.
constexpr size_t kFirstPairs = 4;

void AddFirstPairs(const std::vector<LpKind>& kinds, const std::vector<KindItems>& kind_items,
                   const std::vector<LpItem>& items, RestrictedLp& lp) {
  // Per item: (cost, kind, position), the kFirstPairs cheapest.
  std::vector<std::vector<std::tuple<double, size_t, size_t>>> best(items.size());
  for (size_t k = 0; k < kinds.size(); ++k) {
    for (size_t p = 0; p < kind_items[k].items.size(); ++p) {
      const size_t i = static_cast<size_t>(kind_items[k].items[p]);
      double share = 0;
      for (size_t r = 0; r < items[i].size.size(); ++r) {
        if (kinds[k].capacity[r] > 0) {
          share = std::max(share, items[i].size[r] / kinds[k].capacity[r]);
        }
      }
      auto& list = best[i];
      const std::tuple<double, size_t, size_t> entry{kinds[k].price * share, k, p};
      if (list.size() == kFirstPairs && !(entry < list.back())) continue;
      list.insert(std::upper_bound(list.begin(), list.end(), entry), entry);
      if (list.size() > kFirstPairs) list.pop_back();
    }
  }
  for (const auto& list : best) {
    for (const auto& [cost, k, p] : list) lp.AddPair(k, p);
  }
}

// Solves per round for the set rows a solution breaks.
constexpr int kRowPasses = 8;

// One pricing round under the restricted LP's duals: the valid bound they give, and the pairs
// with a negative reduced cost (for each item its most negative kind, for each kind its most
// negative item).
struct Pricing {
  double bound = 0;
  std::vector<std::pair<size_t, size_t>> pairs;  // (kind, position)
};

Pricing Price(const std::vector<LpKind>& kinds, const std::vector<KindItems>& kind_items,
              const std::vector<LpItem>& items, const RestrictedLp& lp,
              const std::vector<double>& row_duals, int exclusive_sets) {
  constexpr double kNegative = -1e-9;
  Pricing out;
  std::vector<double> item_best(items.size(), kNegative);
  std::vector<std::pair<size_t, size_t>> item_pair(items.size(), {SIZE_MAX, 0});
  std::vector<double> set_gain(static_cast<size_t>(exclusive_sets), 0);
  std::vector<int> touched;
  double theta = 1;
  for (size_t k = 0; k < kinds.size(); ++k) {
    const std::vector<double> mu = lp.KindDuals(row_duals, k);
    const KindItems& ki = kind_items[k];
    // Lagrangian bound of kind k's filling value (docs/lower-bound.md): the duals of its rows
    // (μ·C, the scaled capacity rows' duals summed, and its set rows'), plus the best a node
    // can gain at the reduced costs: copies of each item outside exclusive sets, and at most
    // one item of each set.
    double upper = lp.SetDualsOfKind(row_duals, k);
    for (double m : mu) upper += m;
    double kind_best = kNegative;
    size_t kind_pos = SIZE_MAX;
    for (size_t p = 0; p < ki.items.size(); ++p) {
      const size_t i = static_cast<size_t>(ki.items[p]);
      double rc = -row_duals[i];
      for (size_t r = 0; r < mu.size(); ++r) {
        if (mu[r] > 0) rc += mu[r] * items[i].size[r] / kinds[k].capacity[r];
      }
      for (int e : items[i].exclusive) rc += lp.SetDual(row_duals, e, k);
      if (rc >= 0) continue;
      if (items[i].exclusive.empty()) {
        upper += -rc * static_cast<double>(ki.copies[p]);
      } else {
        for (int e : items[i].exclusive) {
          double& g = set_gain[static_cast<size_t>(e)];
          if (g == 0) touched.push_back(e);
          g = std::max(g, -rc);
        }
      }
      if (lp.Has(k, p)) continue;
      if (rc < kind_best) {
        kind_best = rc;
        kind_pos = p;
      }
      if (rc < item_best[i]) {
        item_best[i] = rc;
        item_pair[i] = {k, p};
      }
    }
    for (int e : touched) {
      upper += set_gain[static_cast<size_t>(e)];
      set_gain[static_cast<size_t>(e)] = 0;
    }
    touched.clear();
    if (kind_pos != SIZE_MAX) out.pairs.emplace_back(k, kind_pos);
    theta = std::max(theta, upper / kinds[k].price);
  }
  for (const auto& pair : item_pair) {
    if (pair.first != SIZE_MAX) out.pairs.push_back(pair);
  }
  double dual_value = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    dual_value += std::max(0.0, row_duals[i]) * static_cast<double>(items[i].count);
  }
  out.bound = dual_value / theta * (1 - 1e-9);
  return out;
}

// One node of kind k being filled: room left per resource, exclusive sets used, counts.
class NodeFill {
 public:
  NodeFill(const LpKind& kind, const std::vector<LpItem>& items)
      : items_(items), room_(kind.capacity) {
    for (double& r : room_) r = r * (1 + kCapacitySlack) + kCapacitySlack;
  }

  // Adds up to `n` copies of item i (as many as fit); returns how many.
  int64_t Add(int i, int64_t n) {
    const LpItem& item = items_[static_cast<size_t>(i)];
    for (int e : item.exclusive) {
      if (used_sets_.count(e) != 0) return 0;
    }
    if (!item.exclusive.empty()) n = std::min<int64_t>(n, 1);
    for (size_t r = 0; r < room_.size() && n > 0; ++r) {
      if (item.size[r] > 0) {
        n = std::min<int64_t>(n, static_cast<int64_t>(std::floor(room_[r] / item.size[r])));
      }
    }
    if (n <= 0) return 0;
    for (size_t r = 0; r < room_.size(); ++r) room_[r] -= static_cast<double>(n) * item.size[r];
    for (int e : item.exclusive) used_sets_.insert(e);
    counts_[i] += n;
    return n;
  }

  const std::vector<double>& room() const { return room_; }

  std::vector<std::pair<int, double>> Filling() const {
    std::vector<std::pair<int, double>> out;
    for (const auto& [i, n] : counts_) out.emplace_back(i, static_cast<double>(n));
    return out;
  }

 private:
  const std::vector<LpItem>& items_;
  std::vector<double> room_;
  std::set<int> used_sets_;
  std::map<int, int64_t> counts_;
};

// The items of one kind's share of the solution, waiting to be packed into whole nodes, in
// buckets by direction: the angle of (size in r2, size in r1) as shares of the capacity, r1 and
// r2 the two resources the share uses most. A node is filled by repeatedly taking the largest
// item that fits from the bucket nearest the direction of the node's room left, so nodes come
// out balanced in the two resources that bind.
class DirectionalPool {
 public:
  static constexpr int kBuckets = 32;

  DirectionalPool(const LpKind& kind, const std::vector<LpItem>& items,
                  const std::vector<std::pair<int, double>>& placed)
      : kind_(kind), items_(items), placed_(placed), pool_(placed.size()) {
    // The pool: each x_ik rounded so the running sum stays within one of the solution's.
    double sum = 0;
    for (size_t q = 0; q < placed.size(); ++q) {
      sum += placed[q].second;
      pool_[q] = static_cast<int64_t>(std::llround(sum)) - left_;
      left_ += pool_[q];
    }
    ChooseResources();
    buckets_.resize(kBuckets);
    for (size_t q = 0; q < placed.size(); ++q) {
      if (pool_[q] > 0) buckets_[static_cast<size_t>(Bucket(Size(q)))].push_back(q);
    }
    for (std::vector<size_t>& b : buckets_) {
      std::stable_sort(b.begin(), b.end(), [&](size_t x, size_t y) { return Load(x) > Load(y); });
    }
  }

  bool empty() const { return left_ == 0; }

  // One node's filling from the pool (empty when nothing fits an empty node). With `y` > 0
  // (node j of y), each item first takes floor(a + u) copies, a its share of a node in the
  // solution and u in [0, 1) from a deterministic low-discrepancy sequence over nodes and
  // items, so the node starts from about the solution's mix.
  std::vector<std::pair<int, double>> FillNode(int j, double y) {
    NodeFill node(kind_, items_);
    if (y > 0) {
      const double base = std::fmod(0.6180339887498949 * (j + 1), 1.0);
      for (size_t q = 0; q < placed_.size(); ++q) {
        if (pool_[q] == 0) continue;
        const double u = std::fmod(base + 0.7548776662466927 * placed_[q].first, 1.0);
        const auto want = std::min(pool_[q], static_cast<int64_t>(placed_[q].second / y + u));
        const int64_t got = want > 0 ? node.Add(placed_[q].first, want) : 0;
        pool_[q] -= got;
        left_ -= got;
      }
      for (std::vector<size_t>& b : buckets_) {
        b.erase(std::remove_if(b.begin(), b.end(), [&](size_t q) { return pool_[q] == 0; }),
                b.end());
      }
    }
    while (left_ > 0) {
      const int b0 = Bucket(node.room());
      bool added = false;
      // Buckets b0, b0 + 1, b0 - 1, b0 + 2, ... (out of range ones skipped).
      for (int n = 0; n < 2 * kBuckets && !added; ++n) {
        const int b = b0 + (n % 2 == 0 ? -(n / 2) : (n + 1) / 2);
        if (b >= 0 && b < kBuckets) added = TakeFrom(static_cast<size_t>(b), node);
      }
      if (!added) break;
    }
    return node.Filling();
  }

 private:
  const std::vector<double>& Size(size_t q) const {
    return items_[static_cast<size_t>(placed_[q].first)].size;
  }

  double Load(size_t q) const {
    double load = 0;
    for (size_t r = 0; r < kind_.capacity.size(); ++r) {
      if (kind_.capacity[r] > 0) load += Size(q)[r] / kind_.capacity[r];
    }
    return load;
  }

  // r1, r2: the resources the share uses most, as fractions of the capacity.
  void ChooseResources() {
    std::vector<std::pair<double, size_t>> use;
    for (size_t r = 0; r < kind_.capacity.size(); ++r) {
      double u = 0;
      if (kind_.capacity[r] > 0) {
        for (size_t q = 0; q < placed_.size(); ++q) {
          u += placed_[q].second * Size(q)[r] / kind_.capacity[r];
        }
      }
      use.emplace_back(-u, r);
    }
    std::sort(use.begin(), use.end());
    r1_ = use.empty() ? 0 : use[0].second;
    r2_ = use.size() < 2 ? r1_ : use[1].second;
  }

  // The bucket of a vector (a size or the room) by its direction in (r1, r2).
  int Bucket(const std::vector<double>& v) const {
    if (r1_ == r2_ || kind_.capacity[r1_] <= 0 || kind_.capacity[r2_] <= 0) return 0;
    const double x = std::max(0.0, v[r1_]) / kind_.capacity[r1_];
    const double y = std::max(0.0, v[r2_]) / kind_.capacity[r2_];
    if (x <= 0 && y <= 0) return 0;
    const double angle = std::atan2(y, x) / (M_PI / 2);  // [0, 1]
    return std::min(kBuckets - 1, static_cast<int>(angle * kBuckets));
  }

  // Adds the largest item of bucket b that fits; drops used-up items from the bucket.
  bool TakeFrom(size_t b, NodeFill& node) {
    std::vector<size_t>& list = buckets_[b];
    for (size_t n = 0; n < list.size(); ++n) {
      const size_t q = list[n];
      if (node.Add(placed_[q].first, 1) == 0) continue;
      --left_;
      if (--pool_[q] == 0) list.erase(list.begin() + static_cast<long>(n));
      return true;
    }
    return false;
  }

  const LpKind& kind_;
  const std::vector<LpItem>& items_;
  const std::vector<std::pair<int, double>>& placed_;
  std::vector<int64_t> pool_;
  int64_t left_ = 0;
  size_t r1_ = 0;
  size_t r2_ = 0;
  std::vector<std::vector<size_t>> buckets_;
};

}  // namespace

namespace {

// One packing of kind k's share of the solution (`placed`, y nodes) into at most `most` whole
// nodes (DirectionalPool::FillNode with `mix`): the nodes' fillings in order.
std::vector<std::vector<std::pair<int, double>>> PackShare(
    const LpKind& kind, const std::vector<LpItem>& items,
    const std::vector<std::pair<int, double>>& placed, int most, double mix) {
  std::vector<std::vector<std::pair<int, double>>> nodes;
  DirectionalPool pool(kind, items, placed);
  for (int j = 0; j < most && !pool.empty(); ++j) {
    std::vector<std::pair<int, double>> filling = pool.FillNode(j, mix);
    if (filling.empty()) break;
    nodes.push_back(std::move(filling));
  }
  return nodes;
}

int MostNodes(double y) { return 2 * static_cast<int>(std::ceil(y)) + 2; }

}  // namespace

std::vector<std::pair<size_t, std::vector<std::pair<int, double>>>> RoundedFillings(
    const std::vector<LpKind>& kinds, const std::vector<LpItem>& items,
    const AssignmentLpResult& solution, int per_kind) {
  std::vector<std::pair<size_t, std::vector<std::pair<int, double>>>> out;
  for (size_t k = 0; k < solution.nodes.size(); ++k) {
    const double y = solution.nodes[k];
    const auto& placed = solution.placed[k];
    if (y <= 1e-9 || placed.empty()) continue;
    std::set<std::vector<std::pair<int, double>>> seen;
    const int most = std::min<int>(per_kind, MostNodes(y));
    // Two packings of the share: greedy by direction alone, and from the solution's mix.
    for (const double mix : {0.0, y}) {
      for (auto& filling : PackShare(kinds[k], items, placed, most, mix)) {
        if (seen.insert(filling).second) out.emplace_back(k, std::move(filling));
      }
    }
  }
  return out;
}

std::vector<std::pair<size_t, std::vector<std::pair<int, double>>>> RoundedNodes(
    const std::vector<LpKind>& kinds, const std::vector<LpItem>& items,
    const AssignmentLpResult& solution) {
  std::vector<std::pair<size_t, std::vector<std::pair<int, double>>>> out;
  for (size_t k = 0; k < solution.nodes.size(); ++k) {
    const double y = solution.nodes[k];
    const auto& placed = solution.placed[k];
    if (y <= 1e-9 || placed.empty()) continue;
    std::vector<std::vector<std::pair<int, double>>> best =
        PackShare(kinds[k], items, placed, MostNodes(y), 0.0);
    std::vector<std::vector<std::pair<int, double>>> mixed =
        PackShare(kinds[k], items, placed, MostNodes(y), y);
    // Fewer nodes of the kind cost less (ties: the first packing).
    if (mixed.size() < best.size()) best = std::move(mixed);
    for (auto& filling : best) out.emplace_back(k, std::move(filling));
  }
  return out;
}

absl::StatusOr<AssignmentLpResult> AssignmentLpBound(const std::vector<LpKind>& kinds,
                                                     const std::vector<KindItems>& kind_items,
                                                     const std::vector<LpItem>& items,
                                                     const AssignmentLpOptions& options) {
  AssignmentLpResult out;
  out.duals.assign(items.size(), 0);
  if (items.empty()) {
    out.optimal = true;
    return out;
  }
  RestrictedLp lp(kinds, kind_items, items);
  if (!lp.available()) {
    return absl::UnavailableError("assignment LP: karp was built without an LP solver (CLP)");
  }
  AddFirstPairs(kinds, kind_items, items, lp);
  const int exclusive_sets = ExclusiveSetCount(items);
  bool complete = false;  // the last solve had every set row its solution needs
  for (out.rounds = 1; out.rounds <= options.max_rounds; ++out.rounds) {
    // Solve, then add the set rows the solution breaks and solve again (rows alone, so the
    // dual simplex continues from a dual feasible basis) until it breaks none.
    bool rows_left = true;
    for (int pass = 0; pass < kRowPasses && rows_left; ++pass) {
      lp.AddPendingRows();
      if (absl::Status s = lp.lp().Solve(); !s.ok()) return s;
      rows_left = lp.AddViolatedSetRows(lp.lp().solution()) > 0;
    }
    if (!rows_left) out.value = lp.lp().objective();
    complete = !rows_left;
    const std::vector<double> duals = lp.lp().duals();
    Pricing pricing = Price(kinds, kind_items, items, lp, duals, exclusive_sets);
    if (pricing.bound > out.bound) {
      out.bound = pricing.bound;
      out.duals.assign(duals.begin(), duals.begin() + static_cast<long>(items.size()));
    }
    if (rows_left) continue;  // the value is not yet the restricted LP's (rows are missing)
    if (out.bound >= out.value * (1 - options.gap) || pricing.pairs.empty()) break;
    for (const auto& [k, p] : pricing.pairs) lp.AddPair(k, p);
  }
  lp.Solution(&out.nodes, &out.placed);
  out.rounds = std::min(out.rounds, options.max_rounds);
  out.optimal = complete && out.bound >= out.value * (1 - options.gap);
  out.pairs = lp.pairs();
  return out;
}

}  // namespace karp::quality
