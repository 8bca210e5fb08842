// Tests of karp::PriceLowerBound and karp::FractionalTwoResourceCover: small cases whose
// optimum is worked out by hand (in the comments), an independent brute force of the
// two-resource LP, and a property test that the bound never exceeds the price of karp's own
// Solve result.

#include "karp/lower_bound.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/scheduler.h"
#include "support/builders.h"

namespace {

using karp::CoverOption;
using karp::testing::Expr;
using karp::testing::MakeCatalog;
using karp::testing::MakeInstanceType;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;

constexpr double kTol = 1e-9;

// An instance type with `labels` (plus amd64/linux), on-demand in one zone at `price`.
karp::InstanceType Type(std::string name, std::string_view cpu, std::string_view memory,
                        double price, std::map<std::string, std::string> labels = {},
                        int64_t pods = 100) {
  labels[std::string(karp::kLabelArch)] = "amd64";
  labels[std::string(karp::kLabelOs)] = "linux";
  return MakeInstanceType(std::move(name), cpu, memory, pods, {"zone-a"}, {"on-demand"}, price,
                          std::move(labels));
}

karp::ClusterSnapshot Snapshot(std::vector<karp::Pod> pods,
                               std::vector<karp::NodePool> pools = {MakeNodePool("default")}) {
  karp::ClusterSnapshot s;
  s.node_pools = std::move(pools);
  s.pods = std::move(pods);
  return s;
}

karp::CostLowerBound Bound(const karp::ClusterSnapshot& snap, const karp::InstanceCatalog& cat) {
  absl::StatusOr<karp::CostLowerBound> lb = karp::PriceLowerBound(snap, cat);
  REQUIRE(lb.ok());
  return *lb;
}

double SolvePrice(const karp::ClusterSnapshot& snap,
                  std::shared_ptr<const karp::InstanceCatalog> cat) {
  absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(snap, std::move(cat));
  REQUIRE(s.ok());
  absl::StatusOr<karp::SolveResult> r = s->Solve();
  REQUIRE(r.ok());
  REQUIRE(r->pod_errors.empty());
  return r->LaunchPricePerHour();
}

// Independent brute force of min p·x s.t. Σ a x >= A, Σ b x >= B: every single option, and
// every pair solved as a 2x2 system with both constraints tight (Cramer's rule).
double BruteForceCover(const std::vector<CoverOption>& o, double a, double b) {
  double best = std::numeric_limits<double>::infinity();
  for (const CoverOption& x : o) {
    const double inf = std::numeric_limits<double>::infinity();
    double n = 0;
    if (a > 0) n = x.first > 0 ? std::max(n, a / x.first) : inf;
    if (b > 0) n = x.second > 0 ? std::max(n, b / x.second) : inf;
    best = std::min(best, x.price * n);
  }
  for (size_t i = 0; i < o.size(); ++i) {
    for (size_t j = i + 1; j < o.size(); ++j) {
      const double det = o[i].first * o[j].second - o[j].first * o[i].second;
      if (det == 0) continue;
      const double xi = (a * o[j].second - o[j].first * b) / det;
      const double xj = (o[i].first * b - a * o[i].second) / det;
      if (xi < 0 || xj < 0) continue;
      best = std::min(best, o[i].price * xi + o[j].price * xj);
    }
  }
  return best;
}

}  // namespace

TEST_CASE("FractionalTwoResourceCover with one option buys the binding resource", "[lower_bound]") {
  // 10 cpu and 8 of memory from (4 cpu, 16 memory) at 2: max(10/4, 8/16) = 2.5 units -> 5.
  absl::StatusOr<double> v = karp::FractionalTwoResourceCover({{2.0, 4, 16}}, 10, 8);
  REQUIRE(v.ok());
  CHECK(*v == Approx(5.0).epsilon(kTol));
}

TEST_CASE("FractionalTwoResourceCover mixes a cpu-heavy and a memory-heavy option",
          "[lower_bound]") {
  // C = (8 cpu, 8 mem) and M = (2 cpu, 16 mem), both at 1; demand 10 cpu, 20 mem.
  // Tight: 8x + 2y = 10, 8x + 16y = 20 -> y = 5/7, x = 15/14, price 25/14 < 2.5 (C alone).
  absl::StatusOr<double> v = karp::FractionalTwoResourceCover({{1.0, 8, 8}, {1.0, 2, 16}}, 10, 20);
  REQUIRE(v.ok());
  CHECK(*v == Approx(25.0 / 14.0).epsilon(kTol));
}

TEST_CASE("FractionalTwoResourceCover edge cases and errors", "[lower_bound]") {
  CHECK(*karp::FractionalTwoResourceCover({{1.0, 1, 1}}, 0, 0) == 0);
  CHECK(std::isinf(*karp::FractionalTwoResourceCover({{1.0, 1, 0}}, 1, 1)));
  CHECK(std::isinf(*karp::FractionalTwoResourceCover({}, 1, 0)));
  // A free option providing memory leaves only cpu to pay for: 6 cpu at 0.5 per cpu.
  CHECK(*karp::FractionalTwoResourceCover({{0.0, 0, 100}, {2.0, 4, 1}}, 6, 50) ==
        Approx(3.0).epsilon(kTol));
  absl::StatusOr<double> bad = karp::FractionalTwoResourceCover({{-1.0, 1, 1}}, 1, 1);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(bad.status().message()).find("options[0]") != std::string::npos);
  CHECK_FALSE(karp::FractionalTwoResourceCover({{1.0, 1, 1}}, std::nan(""), 1).ok());
  CHECK_FALSE(
      karp::FractionalTwoResourceCover({{1.0, std::numeric_limits<double>::infinity(), 1}}, 1, 1)
          .ok());
}

TEST_CASE("FractionalTwoResourceCover equals an independent brute force on random instances",
          "[lower_bound]") {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> u(0.1, 10);
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = std::uniform_int_distribution<int>(1, 7)(rng);
    std::vector<CoverOption> o;
    for (int i = 0; i < n; ++i) {
      CoverOption x{u(rng), u(rng), u(rng)};
      if (trial % 5 == 0 && i == 0) x.second = 0;  // an option giving one resource only
      o.push_back(x);
    }
    const double a = u(rng) * 5, b = trial % 7 == 0 ? 0 : u(rng) * 5;
    const double expected = BruteForceCover(o, a, b);
    absl::StatusOr<double> got = karp::FractionalTwoResourceCover(o, a, b);
    REQUIRE(got.ok());
    INFO("trial " << trial);
    CHECK(*got == Approx(expected).epsilon(1e-9));
  }
}

TEST_CASE("PriceLowerBound with one instance type is the cpu it must buy", "[lower_bound]") {
  // 3 pods of 2 cpu on a 4-cpu type at 1.0: 6/4 = 1.5 (karp needs 2 nodes: price 2).
  auto cat = MakeCatalog({Type("t", "4", "8Gi", 1.0)});
  karp::ClusterSnapshot snap =
      Snapshot({MakePod("a", "2", "1Gi"), MakePod("b", "2", "1Gi"), MakePod("c", "2", "1Gi")});
  const karp::CostLowerBound lb = Bound(snap, *cat);
  CHECK(lb.price_per_hour == Approx(1.5).epsilon(kTol));
  CHECK(lb.fractional_price_per_hour == Approx(1.5).epsilon(kTol));
  CHECK(lb.kinds == 1);
  CHECK(lb.classes == 1);
  CHECK(lb.components == 1);
  CHECK(lb.unplaceable_pods.empty());
  CHECK(SolvePrice(snap, cat) == Approx(2.0));
}

TEST_CASE("PriceLowerBound mixes a cpu-heavy and a memory-heavy type fractionally",
          "[lower_bound]") {
  // C = 8 cpu/8Gi and M = 2 cpu/16Gi at 1.0. Pods: 4 x (2 cpu, 1Gi) + 2 x (1 cpu, 8Gi) =
  // 10 cpu, 20Gi, all fitting both types (one class). Optimum 25/14 (see the cover test).
  auto cat = MakeCatalog({Type("c", "8", "8Gi", 1.0), Type("m", "2", "16Gi", 1.0)});
  std::vector<karp::Pod> pods;
  for (int i = 0; i < 4; ++i) pods.push_back(MakePod("cpu-" + std::to_string(i), "2", "1Gi"));
  for (int i = 0; i < 2; ++i) pods.push_back(MakePod("mem-" + std::to_string(i), "1", "8Gi"));
  karp::ClusterSnapshot snap = Snapshot(std::move(pods));
  const karp::CostLowerBound lb = Bound(snap, *cat);
  CHECK(lb.classes == 1);
#if KARP_TEST_HAVE_CLP
  // Whole pods: a C node holds 4 cpu pods or one mem pod, an M node 2 mem pods or 1 cpu pod;
  // the configuration LP's optimum is C(4 cpu pods) + M(2 mem pods) = 2.0, also the optimum.
  CHECK(lb.method == karp::kLowerBoundConfigurationLp);
  CHECK(lb.configuration_lp_optimal);
  CHECK(lb.price_per_hour == Approx(2.0).epsilon(kTol));
#else
  CHECK(lb.method == karp::kLowerBoundFractional);
  CHECK(lb.price_per_hour == Approx(25.0 / 14.0).epsilon(kTol));
#endif
  CHECK(lb.price_per_hour <= SolvePrice(snap, cat) + kTol);
}

TEST_CASE("PriceLowerBound does not add up classes that share a type", "[lower_bound]") {
  // Shared type s (4 cpu, 16Gi, 1.0) suits both classes; a (grp=a) and b (grp=b) cost 2.0.
  // X pods (grp in a,s): 2 x (1500m, 512Mi) = 3 cpu, 1Gi; Y pods (grp in b,s):
  // 2 x (500m, 7Gi) = 1 cpu, 14Gi. Per class on s: 0.75 and 0.875, whose sum 1.625 is NOT a
  // bound: one s node holds everything for 1.0. The bound is max(4/4, 15/16) = 1.0.
  auto cat = MakeCatalog({Type("a", "4", "16Gi", 2.0, {{"grp", "a"}}),
                          Type("b", "4", "16Gi", 2.0, {{"grp", "b"}}),
                          Type("s", "4", "16Gi", 1.0, {{"grp", "s"}})});
  std::vector<karp::Pod> pods;
  for (int i = 0; i < 2; ++i) {
    pods.push_back(MakePod("x-" + std::to_string(i), "1500m", "512Mi")
                       .RequiredTerm({Expr("grp", karp::Operator::kIn, {"a", "s"})}));
    pods.push_back(MakePod("y-" + std::to_string(i), "500m", "7Gi")
                       .RequiredTerm({Expr("grp", karp::Operator::kIn, {"b", "s"})}));
  }
  karp::ClusterSnapshot snap = Snapshot(std::move(pods));
  const karp::CostLowerBound lb = Bound(snap, *cat);
  CHECK(lb.classes == 2);
  CHECK(lb.components == 1);
  CHECK(lb.price_per_hour == Approx(1.0).epsilon(kTol));
  CHECK(SolvePrice(snap, cat) == Approx(1.0));
}

TEST_CASE("PriceLowerBound counts one node per hostname anti-affinity pod", "[lower_bound]") {
  // 5 pods of 100m that exclude each other by hostname on a 4-cpu type at 1.0: the cpu bound
  // is 0.125, the count bound 5 x 1.0 = 5, which karp also pays.
  auto cat = MakeCatalog({Type("t", "4", "16Gi", 1.0)});
  std::vector<karp::Pod> pods;
  for (int i = 0; i < 5; ++i) {
    pods.push_back(MakePod("aa-" + std::to_string(i), "100m", "128Mi")
                       .Label("app", "x")
                       .AntiAffinity(std::string(karp::kLabelHostname), {{"app", "x"}}));
  }
  karp::ClusterSnapshot snap = Snapshot(std::move(pods));
  const karp::CostLowerBound lb = Bound(snap, *cat);
  CHECK(lb.anti_affinity_nodes == 5);
  CHECK(lb.fractional_price_per_hour == Approx(0.125).epsilon(kTol));
  CHECK(lb.price_per_hour == Approx(5.0).epsilon(kTol));
  CHECK(SolvePrice(snap, cat) == Approx(5.0));
}

TEST_CASE("PriceLowerBound combines the node count with cpu", "[lower_bound]") {
  // big = 4 cpu at 1.0, small = 1 cpu at 0.3. 4 anti-affinity pods of 100m and 12 pods of
  // 1 cpu: cpu 12.4, nodes >= 4. cpu alone: 12.4/4 = 3.1; count alone: 4 x 0.3 = 1.2; both:
  // 4x + y = 12.4, x + y = 4 -> x = 2.8, y = 1.2, price 2.8 + 0.36 = 3.16.
  auto cat = MakeCatalog({Type("big", "4", "16Gi", 1.0), Type("small", "1", "4Gi", 0.3)});
  std::vector<karp::Pod> pods;
  for (int i = 0; i < 4; ++i) {
    pods.push_back(MakePod("aa-" + std::to_string(i), "100m", "")
                       .Label("app", "x")
                       .AntiAffinity(std::string(karp::kLabelHostname), {{"app", "x"}}));
  }
  for (int i = 0; i < 12; ++i) pods.push_back(MakePod("w-" + std::to_string(i), "1", ""));
  karp::ClusterSnapshot snap = Snapshot(std::move(pods));
  const karp::CostLowerBound lb = Bound(snap, *cat);
#if KARP_TEST_HAVE_CLP
  // Whole pods and one anti-affinity pod per node: big (1 aa + 3 w) at 1.0 beats small (1 aa)
  // at 0.3 plus 3/4 of a big; four of them, 4.0, which is also the optimum.
  CHECK(lb.method == karp::kLowerBoundConfigurationLp);
  CHECK(lb.price_per_hour == Approx(4.0).epsilon(kTol));
#else
  CHECK(lb.price_per_hour == Approx(3.16).epsilon(kTol));
#endif
  CHECK(lb.price_per_hour <= SolvePrice(snap, cat) + kTol);
}

TEST_CASE("PriceLowerBound adds components whose kinds are disjoint", "[lower_bound]") {
  // A tainted gpu pool (g: 8 cpu, 1 GPU, 3.0) and a general pool (n: 4 cpu, 1.0). Two GPU
  // pods (tolerating the taint, 1 cpu + 1 GPU) need 2 GPUs = 6.0; four 1-cpu pods cannot use
  // the tainted pool and need 4 cpu = 1.0. Components add: 7.0 (the max would say 6.0).
  karp::InstanceType g = Type("g", "8", "32Gi", 3.0, {{"kind", "gpu"}});
  g.capacity.Set("nvidia.com/gpu", 1);
  auto cat = MakeCatalog({g, Type("n", "4", "16Gi", 1.0, {{"kind", "general"}})});
  const karp::Taint taint{"nvidia.com/gpu", "true", karp::TaintEffect::kNoSchedule};
  std::vector<karp::NodePool> pools = {
      MakeNodePool("gpu", {Expr("kind", karp::Operator::kIn, {"gpu"})}, {taint}),
      MakeNodePool("general", {Expr("kind", karp::Operator::kIn, {"general"})})};
  std::vector<karp::Pod> pods;
  for (int i = 0; i < 2; ++i) {
    pods.push_back(MakePod("gpu-" + std::to_string(i), "1", "1Gi")
                       .Request("nvidia.com/gpu", "1")
                       .Tolerate(karp::testing::TolerateExists("nvidia.com/gpu")));
  }
  for (int i = 0; i < 4; ++i) pods.push_back(MakePod("w-" + std::to_string(i), "1", "1Gi"));
  karp::ClusterSnapshot snap = Snapshot(std::move(pods), std::move(pools));
  const karp::CostLowerBound lb = Bound(snap, *cat);
  CHECK(lb.components == 2);
  CHECK(lb.price_per_hour == Approx(7.0).epsilon(kTol));
  CHECK(SolvePrice(snap, cat) == Approx(7.0));
}

TEST_CASE("PriceLowerBound subtracts DaemonSet requests from every node", "[lower_bound]") {
  // A DaemonSet of 1 cpu leaves 3 of 4 cpu: 6 pods of 1 cpu need 6/3 = 2 nodes = 2.0
  // (without the DaemonSet the bound would be 1.5).
  auto cat = MakeCatalog({Type("t", "4", "16Gi", 1.0)});
  std::vector<karp::Pod> pods;
  for (int i = 0; i < 6; ++i) pods.push_back(MakePod("w-" + std::to_string(i), "1", "1Gi"));
  karp::ClusterSnapshot snap = Snapshot(std::move(pods));
  const karp::CostLowerBound without = Bound(snap, *cat);
  CHECK(without.price_per_hour == Approx(1.5).epsilon(kTol));
  snap.daemon_sets.push_back(karp::testing::MakeDaemonSet("agent", MakePod("agent", "1", "1Gi")));
  const karp::CostLowerBound with = Bound(snap, *cat);
  CHECK(with.price_per_hour == Approx(2.0).epsilon(kTol));
  CHECK(SolvePrice(snap, cat) == Approx(2.0));
}

TEST_CASE("PriceLowerBound uses the cheapest offering the pod may use per capacity type",
          "[lower_bound]") {
  // One type, spot at 0.4 and on-demand at 1.0. A pod pinned to on-demand must pay 1.0 per
  // node; an unconstrained pod may use spot.
  karp::InstanceType t = Type("t", "4", "16Gi", 1.0);
  t.offerings.push_back(karp::Offering{"zone-a", "spot", 0.4, true, "", 0});
  t.RebuildRequirements();
  auto cat = MakeCatalog({t});
  karp::ClusterSnapshot free_pod = Snapshot({MakePod("a", "4", "1Gi")});
  CHECK(Bound(free_pod, *cat).price_per_hour == Approx(0.4).epsilon(kTol));
  karp::ClusterSnapshot on_demand = Snapshot(
      {MakePod("a", "4", "1Gi").NodeSelector(std::string(karp::kLabelCapacityType), "on-demand")});
  CHECK(Bound(on_demand, *cat).price_per_hour == Approx(1.0).epsilon(kTol));
  CHECK(SolvePrice(on_demand, cat) == Approx(1.0));
}

TEST_CASE("PriceLowerBound leaves out pods that no type can host", "[lower_bound]") {
  auto cat = MakeCatalog({Type("t", "4", "16Gi", 1.0)});
  karp::ClusterSnapshot snap = Snapshot({MakePod("huge", "64", "1Gi"), MakePod("ok", "2", "1Gi")});
  const karp::CostLowerBound lb = Bound(snap, *cat);
  REQUIRE(lb.unplaceable_pods.size() == 1);
  CHECK(lb.unplaceable_pods[0] == "default/huge");
  // One pod always needs one node: the cheapest type that fits it.
  CHECK(lb.price_per_hour == Approx(1.0).epsilon(kTol));
}

TEST_CASE("PriceLowerBound rejects bad input with a clear error", "[lower_bound]") {
  auto cat = MakeCatalog({Type("t", "4", "16Gi", 1.0)});
  karp::ClusterSnapshot snap = Snapshot({});
  karp::Pod a = MakePod("a", "1", "1Gi");
  absl::StatusOr<karp::CostLowerBound> dup = karp::PriceLowerBound(snap, *cat, {&a, &a});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(dup.status().message()).find("default/a") != std::string::npos);
  absl::StatusOr<karp::CostLowerBound> null = karp::PriceLowerBound(snap, *cat, {nullptr});
  REQUIRE_FALSE(null.ok());
  CHECK(std::string(null.status().message()).find("pods[0]") != std::string::npos);
  snap.node_pools.push_back(MakeNodePool("default"));  // a second pool named "default"
  CHECK_FALSE(karp::PriceLowerBound(snap, *cat, {}).ok());
  // Nothing to place: bound 0.
  karp::ClusterSnapshot empty = Snapshot({});
  CHECK(Bound(empty, *cat).price_per_hour == 0);
}

TEST_CASE("PriceLowerBound never exceeds the price of karp's Solve on random workloads",
          "[lower_bound][property]") {
  std::mt19937 rng(2024);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<karp::InstanceType> types;
    const int ntypes = pick(1, 6);
    for (int i = 0; i < ntypes; ++i) {
      const int cpu = 1 << pick(0, 4);
      const int mem_gi = cpu * (1 << pick(0, 3));
      const double price = (0.5 + pick(0, 100) / 100.0) * (cpu * 0.04 + mem_gi * 0.005);
      karp::InstanceType t =
          Type("t" + std::to_string(i), std::to_string(cpu), std::to_string(mem_gi) + "Gi", price,
               {{"family", pick(0, 1) ? "a" : "b"}}, 8 * cpu);
      if (pick(0, 3) == 0) t.capacity.Set("nvidia.com/gpu", pick(1, 4));
      if (pick(0, 2) == 0) {
        t.offerings.push_back(karp::Offering{"zone-a", "spot", price * 0.4, true, "", 0});
        t.RebuildRequirements();
      }
      types.push_back(std::move(t));
    }
    auto cat = MakeCatalog(types);
    std::vector<karp::NodePool> pools = {MakeNodePool("default")};
    const bool tainted = pick(0, 2) == 0;
    if (tainted) {
      pools.push_back(MakeNodePool("special", {Expr("family", karp::Operator::kIn, {"b"})},
                                   {karp::Taint{"special", "", karp::TaintEffect::kNoSchedule}}));
      pools[0].requirements = {Expr("family", karp::Operator::kIn, {"a"})};
    }
    std::vector<karp::Pod> pods;
    const int npods = pick(1, 25);
    for (int i = 0; i < npods; ++i) {
      static const char* kCpu[] = {"100m", "250m", "500m", "1", "1500m", "3"};
      static const char* kMem[] = {"128Mi", "512Mi", "1Gi", "2Gi", "6Gi"};
      karp::testing::PodBuilder b =
          MakePod("p" + std::to_string(i), kCpu[pick(0, 5)], kMem[pick(0, 4)]);
      switch (pick(0, 6)) {
        case 0:
          b.NodeSelector("family", pick(0, 1) ? "a" : "b");
          break;
        case 1:
          b.Label("app", "solo").AntiAffinity(std::string(karp::kLabelHostname), {{"app", "solo"}});
          break;
        case 2:
          b.Tolerate(karp::testing::TolerateExists("special"));
          break;
        case 3:
          b.Request("nvidia.com/gpu", "1").Tolerate(karp::testing::TolerateExists("special"));
          break;
        case 4:
          b.NodeSelector(std::string(karp::kLabelCapacityType), "on-demand");
          break;
        default:
          break;
      }
      pods.push_back(b.Build());
    }
    karp::ClusterSnapshot snap = Snapshot(pods, pools);
    if (pick(0, 3) == 0) {
      snap.daemon_sets.push_back(
          karp::testing::MakeDaemonSet("agent", MakePod("agent", "100m", "128Mi")));
    }
    absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(snap, cat);
    REQUIRE(s.ok());
    absl::StatusOr<karp::SolveResult> r = s->Solve();
    REQUIRE(r.ok());
    // The bound over the pods karp placed must not exceed what karp pays for them.
    std::vector<const karp::Pod*> placed;
    for (const karp::Pod& p : snap.pods) {
      const bool failed = std::any_of(r->pod_errors.begin(), r->pod_errors.end(),
                                      [&](const karp::PodError& e) { return e.pod == p.Key(); });
      if (!failed) placed.push_back(&p);
    }
    absl::StatusOr<karp::CostLowerBound> lb = karp::PriceLowerBound(snap, *cat, placed);
    REQUIRE(lb.ok());
    INFO("trial " << trial << ": bound " << lb->price_per_hour << ", karp "
                  << r->LaunchPricePerHour());
    CHECK(lb->unplaceable_pods.empty());
    CHECK(lb->price_per_hour <= r->LaunchPricePerHour() * (1 + 1e-9) + 1e-12);
    CHECK(lb->price_per_hour >= lb->fractional_price_per_hour * (1 - 1e-9));
    if (!placed.empty()) {
      CHECK(lb->price_per_hour > 0);
      ++compared;
    }
  }
  CHECK(compared > 200);
}
