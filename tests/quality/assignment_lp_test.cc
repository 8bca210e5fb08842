// Tests of the assignment-LP bound (quality/assignment_lp.h): a worked example where pricing each
// kind's resources apart beats one price per resource; on random small instances, validity
// against the independent references of support/lp_reference.h, a primal certificate checked
// here from the definition, validity under a one-round budget, and whole fillings that really
// fit their kinds.

#include "quality/assignment_lp.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "quality/config_lp.h"
#include "quality/lp_instance.h"
#include "support/lp_reference.h"

namespace {

using karp::quality::AssignmentLpBound;
using karp::quality::AssignmentLpOptions;
using karp::quality::AssignmentLpResult;
using karp::quality::ConfigurationLpBound;
using karp::quality::KeepKinds;
using karp::quality::KindItems;
using karp::quality::LpItem;
using karp::quality::LpKind;
using karp::quality::RoundedFillings;
using karp::testing::AllFillings;
using karp::testing::Describe;
using karp::testing::Filling;
using karp::testing::HoldsFilling;
using karp::testing::Instance;
using karp::testing::IntegralOptimum;
using karp::testing::NoLpSolver;
using karp::testing::Radix;
using karp::testing::RandomInstance;
using karp::testing::ReferenceLp;
using karp::testing::SolveReferenceLp;

struct Kept {
  std::vector<LpKind> kinds;
  std::vector<KindItems> kind_items;
};

Kept Keep(const Instance& in) {
  Kept out;
  KeepKinds(in.kinds, in.items, &out.kinds, &out.kind_items);
  return out;
}

// The solution's price Σ p_k·y_k after checking it is feasible from the definition: every item
// covered, items only on kinds that may hold them, every kind's capacity respected per node.
double CheckedSolutionPrice(const Kept& kept, const std::vector<LpItem>& items,
                            const AssignmentLpResult& r) {
  REQUIRE(r.nodes.size() == kept.kinds.size());
  REQUIRE(r.placed.size() == kept.kinds.size());
  std::vector<double> covered(items.size(), 0);
  double price = 0;
  for (size_t k = 0; k < kept.kinds.size(); ++k) {
    const LpKind& kind = kept.kinds[k];
    CHECK(r.nodes[k] >= 0);
    price += kind.price * r.nodes[k];
    std::vector<double> used(kind.capacity.size(), 0);
    std::map<int, double> per_set;
    for (const auto& [i, x] : r.placed[k]) {
      for (int e : items[static_cast<size_t>(i)].exclusive) per_set[e] += x;
      CHECK(x > 0);
      CHECK(kept.kind_items[k].position[static_cast<size_t>(i)] >= 0);
      covered[static_cast<size_t>(i)] += x;
      for (size_t res = 0; res < used.size(); ++res) {
        used[res] += x * items[static_cast<size_t>(i)].size[res];
      }
    }
    for (size_t res = 0; res < used.size(); ++res) {
      CHECK(used[res] <= kind.capacity[res] * r.nodes[k] * (1 + 1e-7) + 1e-7);
    }
    for (const auto& [e, x] : per_set) {
      INFO("exclusive set " << e << " on kind " << k);
      CHECK(x <= r.nodes[k] * (1 + 1e-7) + 1e-7);  // at most one of the set per node
    }
  }
  for (size_t i = 0; i < items.size(); ++i) {
    CHECK(covered[i] >= static_cast<double>(items[i].count) * (1 - 1e-7));
  }
  return price;
}

// Solves `items` on `kinds` and checks the bound is proven optimal at `optimum`, with a
// feasible solution at that price. False (with a warning) when karp has no LP solver.
bool SolvesToOptimum(const std::vector<LpKind>& kinds, const std::vector<LpItem>& items,
                     double optimum) {
  const Kept kept = Keep(Instance{kinds, items});
  absl::StatusOr<AssignmentLpResult> r = AssignmentLpBound(kept.kinds, kept.kind_items, items);
  if (!r.ok() && NoLpSolver(r.status())) {
    WARN("karp was built without CLP: the assignment-LP test is skipped");
    return false;
  }
  REQUIRE(r.ok());
  CHECK(r->optimal);
  CHECK(r->bound == Approx(optimum).epsilon(1e-8));
  CHECK(CheckedSolutionPrice(kept, items, *r) == Approx(optimum).epsilon(1e-8));
  return true;
}

}  // namespace

TEST_CASE("AssignmentLpBound prices each kind's resources apart", "[lower_bound][lp]") {
  // Kind A: 4 cpu, 8 memory; kind B: 8 cpu, 4 memory; both at 1/h. Four X (2 cpu, 1 memory) may
  // use A or B, four Y (1 cpu, 2 memory) only B. One price per resource over both kinds sees 12
  // cpu and 12 memory and buys one A and one B (2/h). Per kind: the Y take all of two B nodes'
  // memory, so the X need two A nodes or one more B node: 3/h, which three B nodes reach
  // (XXXX, YY, YY).
  const std::vector<LpKind> kinds = {{1.0, {4, 8}}, {1.0, {8, 4}}};
  const std::vector<LpItem> items = {{4, {2, 1}, {0, 1}, {}}, {4, {1, 2}, {1}, {}}};
  if (!SolvesToOptimum(kinds, items, 3.0)) return;
  // The configuration LP starts from it and proves the whole-item optimum, 3.
  absl::StatusOr<karp::quality::ConfigLpResult> lp = ConfigurationLpBound(kinds, items);
  REQUIRE(lp.ok());
  CHECK(lp->assignment_bound == Approx(3.0).epsilon(1e-8));
  CHECK(lp->bound == Approx(3.0).epsilon(1e-8));
  CHECK(lp->optimal);
}

TEST_CASE("AssignmentLpBound keeps an anti-affinity set one per node", "[lower_bound][lp]") {
  // Six pods of 1 cpu that exclude each other, on 8-cpu nodes at 1/h and 2-cpu nodes at 0.3/h.
  // Divisible and free to share a node, they would take 0.75 of a large node (0.75/h); one per
  // node, they need six nodes, at best six small ones (1.8/h).
  const std::vector<LpKind> kinds = {{1.0, {8}}, {0.3, {2}}};
  const std::vector<LpItem> items = {{3, {1}, {0, 1}, {0}}, {3, {1}, {0, 1}, {0}}};
  SolvesToOptimum(kinds, items, 1.8);
}

TEST_CASE("AssignmentLpBound is valid with a checked solution on random small instances",
          "[lower_bound][lp]") {
  int cases = 0, below_lp = 0;
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    std::mt19937 rng(seed + 7000);
    const Instance in = RandomInstance(rng);
    const Radix radix(in);
    const std::vector<Filling> all = AllFillings(in, radix);
    const double optimum = IntegralOptimum(in, radix, all);
    const ReferenceLp lp = SolveReferenceLp(in, all);
    REQUIRE(lp.ok);
    const Kept kept = Keep(in);
    absl::StatusOr<AssignmentLpResult> r = AssignmentLpBound(kept.kinds, kept.kind_items, in.items);
    if (!r.ok() && NoLpSolver(r.status())) {
      WARN("karp was built without CLP: the assignment-LP validity test is skipped");
      return;
    }
    REQUIRE(r.ok());
    INFO("seed " << seed << "\n"
                 << Describe(in) << "integral optimum " << optimum << ", configuration LP "
                 << lp.value << ", assignment bound " << r->bound << ", value " << r->value
                 << ", rounds " << r->rounds);
    ++cases;
    // Valid: below the configuration LP (so below every placement).
    CHECK(r->bound >= 0);
    CHECK(r->bound <= lp.value * (1 + 1e-9) + 1e-12);
    CHECK(r->bound <= optimum + 1e-9);
    // These sizes converge: the solution is feasible and the bound meets its price, so the
    // price is the assignment LP's optimum. (The bound may exceed it: pricing caps each item at
    // the copies a node holds, one for an exclusive item, which every whole filling respects.)
    CHECK(r->optimal);
    const double price = CheckedSolutionPrice(kept, in.items, *r);
    CHECK(price == Approx(r->value).epsilon(1e-9).margin(1e-12));
    CHECK(r->bound >= price * (1 - 1e-6) - 1e-9);
    if (r->bound < lp.value * (1 - 1e-6)) ++below_lp;
    // The configuration LP's bound includes it.
    absl::StatusOr<karp::quality::ConfigLpResult> config = ConfigurationLpBound(in.kinds, in.items);
    REQUIRE(config.ok());
    CHECK(config->assignment_bound == r->bound);
    CHECK(config->bound >= r->bound * (1 - 1e-12));
    // One round: the Lagrangian bound of the first duals, still valid.
    AssignmentLpOptions one;
    one.max_rounds = 1;
    absl::StatusOr<AssignmentLpResult> early =
        AssignmentLpBound(kept.kinds, kept.kind_items, in.items, one);
    REQUIRE(early.ok());
    CHECK(early->rounds == 1);
    CHECK(early->bound >= 0);
    CHECK(early->bound <= r->bound * (1 + 1e-9) + 1e-12);
  }
  CHECK(cases == 400);
  // Pods are indivisible: the assignment LP is often below the configuration LP.
  INFO(below_lp << " of " << cases << " instances where it is below the configuration LP");
  CHECK(below_lp > 20);
}

TEST_CASE("RoundedFillings are whole fillings of their kinds and deterministic",
          "[lower_bound][lp]") {
  // Larger random instances than the references can solve: 2-3 resources, 6 kinds with
  // capacities up to 64, 30 item classes of up to 20 items, some in exclusive sets.
  int fillings = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Instance in;
    const size_t resources = static_cast<size_t>(pick(2, 3));
    for (int k = 0; k < 6; ++k) {
      LpKind kind;
      kind.price = pick(10, 300) / 100.0;
      for (size_t res = 0; res < resources; ++res) kind.capacity.push_back(pick(16, 64));
      in.kinds.push_back(kind);
    }
    for (int i = 0; i < 30; ++i) {
      LpItem item;
      item.count = pick(1, 20);
      for (size_t res = 0; res < resources; ++res) item.size.push_back(pick(0, 12));
      for (int k = 0; k < 6; ++k) {
        if (pick(0, 2) != 0 || k == i % 6) item.kinds.push_back(k);
      }
      if (pick(0, 4) == 0) item.exclusive.push_back(pick(0, 3));
      in.items.push_back(item);
    }
    const Kept kept = Keep(in);
    absl::StatusOr<AssignmentLpResult> r = AssignmentLpBound(kept.kinds, kept.kind_items, in.items);
    if (!r.ok() && NoLpSolver(r.status())) {
      WARN("karp was built without CLP: the rounded-fillings test is skipped");
      return;
    }
    REQUIRE(r.ok());
    const auto rounded = RoundedFillings(kept.kinds, in.items, *r, 1000);
    INFO("seed " << seed << "\n" << Describe(in));
    CHECK(!rounded.empty());
    Instance kept_instance{kept.kinds, in.items};
    for (size_t i = 0; i < in.items.size(); ++i) {
      kept_instance.items[i].kinds.clear();
      for (size_t k = 0; k < kept.kinds.size(); ++k) {
        if (kept.kind_items[k].position[i] >= 0) {
          kept_instance.items[i].kinds.push_back(static_cast<int>(k));
        }
      }
    }
    for (const auto& [k, filling] : rounded) {
      REQUIRE(k < kept.kinds.size());
      std::vector<int64_t> a(in.items.size(), 0);
      for (const auto& [i, count] : filling) {
        REQUIRE(i >= 0);
        REQUIRE(static_cast<size_t>(i) < in.items.size());
        CHECK(count >= 1);
        CHECK(count == std::floor(count));
        a[static_cast<size_t>(i)] = static_cast<int64_t>(count);
      }
      CHECK(HoldsFilling(kept_instance, k, a));
      ++fillings;
    }
    CHECK(RoundedFillings(kept.kinds, in.items, *r, 1000) == rounded);
  }
  CHECK(fillings > 100);
}
