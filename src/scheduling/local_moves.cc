// Local search over a planned packing (local_moves.h, docs/design.md §13.3).

#include "scheduling/local_moves.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

namespace karp::scheduling {
namespace {

constexpr double kInfinite = std::numeric_limits<double>::infinity();

bool Has(const std::vector<uint64_t>& mask, size_t k) {
  return k / 64 < mask.size() && ((mask[k / 64] >> (k % 64)) & 1u) != 0;
}

// A saving must exceed this share of the price it is measured on (rounding noise).
double Tolerance(double price) { return 1e-9 * std::max(1.0, price); }

class Mover {
 public:
  Mover(MoveModel& model, const MoveLimits& limits) : m_(model), limits_(limits) {
    nodes_.resize(m_.nodes.size());
    for (size_t n = 0; n < nodes_.size(); ++n) {
      Recompute(n);
      nodes_[n].frozen = !m_.nodes[n].empty() && nodes_[n].kind < 0;
      all_.push_back(n);
      if (n < m_.node_groups.size() && m_.node_groups[n] >= 0) {
        groups_[m_.node_groups[n]].push_back(n);
      }
    }
  }

  double Run() {
    for (int pass = 0; pass < limits_.passes && !Spent(); ++pass) {
      bool moved = false;
      for (size_t a = 0; a < nodes_.size() && !Spent(); ++a) {
        if (nodes_[a].frozen) continue;
        for (size_t pos = 0; pos < m_.nodes[a].size() && !Spent();) {
          if (TryMove(a, pos)) {
            moved = true;  // the next item now sits at `pos`
          } else {
            ++pos;
          }
        }
      }
      if (!moved) break;
    }
    return saved_;
  }

 private:
  struct Node {
    std::vector<int64_t> sum;
    std::vector<uint64_t> mask;  // the kinds every item of the node may use
    int kind = -1;               // the cheapest of them that holds `sum`; -1: none (or empty)
    double price = 0;
    bool frozen = false;
  };

  bool Spent() const { return checks_ > limits_.max_checks; }

  bool Holds(size_t k, const std::vector<int64_t>& sum, const std::vector<int64_t>* plus) const {
    const std::vector<int64_t>& cap = m_.kinds[k].cap;
    for (size_t r = 0; r < cap.size(); ++r) {
      if (sum[r] + (plus != nullptr ? (*plus)[r] : 0) > cap[r]) return false;
    }
    return true;
  }

  // The first kind from `from` on, priced below `below`, that both masks allow and that
  // holds `sum` plus `plus`; -1 when none.
  int FirstFit(const std::vector<uint64_t>& mask, const std::vector<uint64_t>& other,
               const std::vector<int64_t>& sum, const std::vector<int64_t>* plus, size_t from,
               double below) {
    for (size_t k = from; k < m_.kinds.size() && m_.kinds[k].price < below; ++k) {
      ++checks_;
      if (Has(mask, k) && Has(other, k) && Holds(k, sum, plus)) return static_cast<int>(k);
    }
    return -1;
  }

  // Node `n`'s mask, sum, kind and price from its items, leaving out `skip` (an index into
  // its items; -1: none) and writing into `*out`.
  void Evaluate(size_t n, int skip, Node* out) {
    const size_t words = (m_.kinds.size() + 63) / 64;
    out->mask.assign(words, ~uint64_t{0});
    out->sum.assign(m_.kinds.empty() ? 0 : m_.kinds[0].cap.size(), 0);
    bool empty = true;
    for (size_t i = 0; i < m_.nodes[n].size(); ++i) {
      if (static_cast<int>(i) == skip) continue;
      const MoveModel::Item& item = m_.items[m_.nodes[n][i]];
      for (size_t w = 0; w < words; ++w) out->mask[w] &= w < item.kinds.size() ? item.kinds[w] : 0;
      for (size_t r = 0; r < out->sum.size(); ++r) out->sum[r] += item.need[r];
      empty = false;
    }
    out->kind = empty ? -1 : FirstFit(out->mask, out->mask, out->sum, nullptr, 0, kInfinite);
    if (out->kind >= 0) {
      out->price = m_.kinds[static_cast<size_t>(out->kind)].price;
    } else {
      out->price = empty ? 0.0 : kInfinite;
    }
  }

  void Recompute(size_t n) {
    Node fresh;
    Evaluate(n, -1, &fresh);
    fresh.frozen = nodes_[n].frozen;
    nodes_[n] = std::move(fresh);
  }

  // What putting `item` into node `b` adds to its price (kInfinite: it does not fit, costs
  // `limit` or more, or conflicts with a pod there); `*kind` the node's kind then.
  double AddCost(size_t item, size_t b, double limit, int* kind) {
    const Node& node = nodes_[b];
    const MoveModel::Item& it = m_.items[item];
    if (Has(it.kinds, static_cast<size_t>(node.kind)) &&
        Holds(static_cast<size_t>(node.kind), node.sum, &it.need)) {
      *kind = node.kind;
    } else {
      *kind = FirstFit(node.mask, it.kinds, node.sum, &it.need, static_cast<size_t>(node.kind) + 1,
                       node.price + limit);
      if (*kind < 0) return kInfinite;
    }
    const double cost = m_.kinds[static_cast<size_t>(*kind)].price - node.price;
    if (cost >= limit) return kInfinite;
    checks_ += static_cast<int64_t>(m_.nodes[b].size());
    for (size_t other : m_.nodes[b]) {
      if (m_.conflict && m_.conflict(item, other)) return kInfinite;
    }
    return cost;
  }

  // Moves the item at `pos` of node `a` where that lowers the plan's price most.
  bool TryMove(size_t a, size_t pos) {
    const size_t item = m_.nodes[a][pos];
    if (!m_.items[item].movable) return false;
    Node without;
    Evaluate(a, static_cast<int>(pos), &without);
    const double gain = nodes_[a].price - without.price;
    if (!(gain > Tolerance(nodes_[a].price))) return false;
    size_t best = nodes_.size();
    int best_kind = -1;
    double limit = gain - Tolerance(nodes_[a].price);  // a move must cost less than this
    const int group = m_.items[item].group;
    const std::vector<size_t>* candidates = &all_;
    if (group >= 0) {
      auto it = groups_.find(group);
      if (it == groups_.end()) return false;
      candidates = &it->second;
    }
    for (size_t b : *candidates) {
      if (Spent()) break;
      ++checks_;
      if (b == a || nodes_[b].frozen || m_.nodes[b].empty() ||
          (m_.may_enter && !m_.may_enter(item, b))) {
        continue;
      }
      int kind = -1;
      const double cost = AddCost(item, b, limit, &kind);
      if (cost == kInfinite) continue;
      best = b;
      best_kind = kind;
      limit = cost;
      if (cost <= 0) break;  // free: nothing cheaper exists
    }
    if (best == nodes_.size()) return false;
    const MoveModel::Item& it = m_.items[item];
    Node& target = nodes_[best];
    for (size_t w = 0; w < target.mask.size(); ++w) {
      target.mask[w] &= w < it.kinds.size() ? it.kinds[w] : 0;
    }
    for (size_t r = 0; r < target.sum.size(); ++r) target.sum[r] += it.need[r];
    saved_ += gain - (m_.kinds[static_cast<size_t>(best_kind)].price - target.price);
    target.kind = best_kind;
    target.price = m_.kinds[static_cast<size_t>(best_kind)].price;
    m_.nodes[best].push_back(item);
    m_.nodes[a].erase(m_.nodes[a].begin() + static_cast<std::ptrdiff_t>(pos));
    without.frozen = false;
    nodes_[a] = std::move(without);
    return true;
  }

  MoveModel& m_;
  const MoveLimits& limits_;
  std::vector<Node> nodes_;
  std::vector<size_t> all_;                    // every node
  std::map<int, std::vector<size_t>> groups_;  // the nodes of each group
  int64_t checks_ = 0;
  double saved_ = 0;
};

}  // namespace

double ImproveByMoves(MoveModel& model, const MoveLimits& limits) {
  if (model.kinds.empty()) return 0;
  return Mover(model, limits).Run();
}

}  // namespace karp::scheduling
