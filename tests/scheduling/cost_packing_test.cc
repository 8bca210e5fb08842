// The cost packing mode (SchedulerOptions::packing = kCost, docs/design.md §13): what it saves
// in the situations it targets, its promises against the faithful packing, its options, and
// the optimum on small random cases computed here by brute force (an independent model:
// every partition of the pods into nodes, each node the cheapest type and capacity type that
// holds its pods plus the DaemonSet overhead).

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "karp/labels.h"
#include "karp/scheduler.h"
#include "support/builders.h"
#include "support/sized_test.h"

namespace {

using karp::ClusterSnapshot;
using karp::InstanceType;
using karp::Pod;
using karp::SchedulerOptions;
using karp::SolveResult;
using namespace karp::testing;  // NOLINT(build/namespaces)

const std::string kSpot(karp::kCapacityTypeSpot);
const std::string kOnDemand(karp::kCapacityTypeOnDemand);
const std::string kCapacityType(karp::kLabelCapacityType);

SolveResult SolveWith(const ClusterSnapshot& snap,
                      const std::shared_ptr<const karp::InstanceCatalog>& catalog,
                      karp::PackingMode packing, SchedulerOptions options = {}) {
  options.packing = packing;
  absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(snap, catalog, options);
  REQUIRE(s.ok());
  absl::StatusOr<SolveResult> r = s->Solve();
  REQUIRE(r.ok());
  return *r;
}

// One type with spot at 40% of on-demand.
InstanceType SpotAndOnDemand(std::string name, std::string_view cpu, std::string_view memory,
                             double on_demand_price) {
  std::vector<karp::Offering> offerings = MakeOfferings(AllZones(), {kOnDemand}, on_demand_price);
  for (karp::Offering& o : MakeOfferings(AllZones(), {kSpot}, 0.4 * on_demand_price)) {
    offerings.push_back(o);
  }
  return InstanceType::Make(
      std::move(name),
      {{std::string(karp::kLabelArch), "amd64"}, {std::string(karp::kLabelOs), "linux"}},
      Resources(cpu, memory, 110), karp::Overhead{}, std::move(offerings));
}

// One on-demand-only type of the given arch.
InstanceType OnDemandType(std::string name, std::string arch, std::string_view cpu,
                          std::string_view memory, double price) {
  return InstanceType::Make(
      std::move(name),
      {{std::string(karp::kLabelArch), std::move(arch)}, {std::string(karp::kLabelOs), "linux"}},
      Resources(cpu, memory, 110), karp::Overhead{}, MakeOfferings(AllZones(), {kOnDemand}, price));
}

// NodePools "general" (amd64, weight 50) and "arm" (arm64, weight 10), no pods.
ClusterSnapshot ArchPools() {
  const std::string arch(karp::kLabelArch);
  ClusterSnapshot snap;
  snap.node_pools.push_back(
      MakeNodePool("general", {{arch, karp::Operator::kIn, {"amd64"}, std::nullopt}}, {}, {}, 50));
  snap.node_pools.push_back(
      MakeNodePool("arm", {{arch, karp::Operator::kIn, {"arm64"}, std::nullopt}}, {}, {}, 10));
  return snap;
}

TEST_CASE("cost packing keeps spot-tolerant pods off a claim an on-demand pod narrowed",
          "[scheduler][cost]") {
  // Faithful: the on-demand pod comes first (largest), its claim narrows to on-demand, and
  // the nine small spot-tolerant pods join it. Cost: one of them fills the on-demand node's
  // spare cpu, the other eight get a spot node.
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.pods.push_back(MakePod("db", "3", "4Gi").NodeSelector(kCapacityType, kOnDemand));
  for (int i = 0; i < 9; ++i) snap.pods.push_back(MakePod("web-" + std::to_string(i), "1", "1Gi"));
  auto catalog = MakeCatalog({SpotAndOnDemand("small", "4", "8Gi", 0.2),
                              SpotAndOnDemand("medium", "8", "16Gi", 0.4),
                              SpotAndOnDemand("large", "16", "32Gi", 0.8)});
  const SolveResult faithful = SolveWith(snap, catalog, karp::PackingMode::kFaithful);
  const SolveResult cost = SolveWith(snap, catalog, karp::PackingMode::kCost);
  REQUIRE(faithful.pod_errors.empty());
  REQUIRE(cost.pod_errors.empty());
  // Faithful: one on-demand 16-cpu node for 12 cpu of pods.
  CHECK(faithful.LaunchPricePerHour() == Approx(0.8));
  // Cost: a 4-cpu on-demand node for db and one web pod, an 8-cpu spot node for the rest.
  CHECK(cost.LaunchPricePerHour() == Approx(0.2 + 0.4 * 0.4));
  CHECK_FALSE(cost.packing.faithful_kept);
  CHECK(cost.packing.faithful_price_per_hour == Approx(0.8));
  const karp::NewNodeClaim* db = ClaimOf(cost, "default/db");
  REQUIRE(db != nullptr);
  CHECK(db->launch->capacity_type == kOnDemand);
  CHECK(db->launch->instance_type == "small");
  CHECK(db->pods.size() == 2);
  int on_spot = 0;
  for (int i = 0; i < 9; ++i) {
    const karp::NewNodeClaim* web = ClaimOf(cost, "default/web-" + std::to_string(i));
    REQUIRE(web != nullptr);
    on_spot += web->launch->capacity_type == kSpot ? 1 : 0;
  }
  CHECK(on_spot == 8);
}

TEST_CASE("cost packing buys several small GPU nodes rather than one large one",
          "[scheduler][cost]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("gpu"));
  for (int i = 0; i < 3; ++i) {
    snap.pods.push_back(
        MakePod("train-" + std::to_string(i), "2", "8Gi").Request("nvidia.com/gpu", "1"));
  }
  auto gpu_type = [](std::string name, std::string_view cpu, std::string_view mem, int gpus,
                     double price) {
    karp::ResourceList capacity = Resources(cpu, mem, 110);
    capacity.Set("nvidia.com/gpu", gpus);
    return InstanceType::Make(
        std::move(name),
        {{std::string(karp::kLabelArch), "amd64"}, {std::string(karp::kLabelOs), "linux"}},
        capacity, karp::Overhead{}, MakeOfferings(AllZones(), {kOnDemand}, price));
  };
  auto catalog =
      MakeCatalog({gpu_type("g1", "4", "16Gi", 1, 0.5), gpu_type("g4", "16", "64Gi", 4, 3.9)});
  const SolveResult faithful = SolveWith(snap, catalog, karp::PackingMode::kFaithful);
  const SolveResult cost = SolveWith(snap, catalog, karp::PackingMode::kCost);
  CHECK(faithful.LaunchPricePerHour() == Approx(3.9));
  CHECK(cost.LaunchPricePerHour() == Approx(1.5));
  CHECK(cost.node_claims.size() == 3);
  CHECK(cost.pod_errors.empty());
}

TEST_CASE("cost packing mixes cpu-heavy and memory-heavy pods as the assignment LP does",
          "[scheduler][cost]") {
  // Type r: 4 cpu, 32Gi; type c: 8 cpu, 8Gi; both 1/h. Eight X (3 cpu, 2Gi) and sixteen Y
  // (500m, 14Gi). Alone, X take c nodes two at a time (4/h) and Y r nodes two at a time (8/h);
  // mixed, one X and two Y fill an r node exactly: eight r nodes, 8/h. The heuristic rules
  // keep them apart; the plan from the assignment LP (quality::LpPlanGroups) mixes them.
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  for (int i = 0; i < 8; ++i) snap.pods.push_back(MakePod("x-" + std::to_string(i), "3", "2Gi"));
  for (int i = 0; i < 16; ++i) {
    snap.pods.push_back(MakePod("y-" + std::to_string(i), "500m", "14Gi"));
  }
  auto catalog = MakeCatalog(
      {OnDemandType("r", "amd64", "4", "32Gi", 1.0), OnDemandType("c", "amd64", "8", "8Gi", 1.0)});
  SchedulerOptions heuristic_only;
  heuristic_only.cost_attempts = 1;  // the first strategy alone, without the LP plan
  heuristic_only.cost_repack_rounds = 0;
  const SolveResult heuristic = SolveWith(snap, catalog, karp::PackingMode::kCost, heuristic_only);
  const SolveResult cost = SolveWith(snap, catalog, karp::PackingMode::kCost);
  CHECK(heuristic.LaunchPricePerHour() > 8.5);
  CHECK(cost.pod_errors.empty());
  if (!KARP_TEST_HAVE_CLP) {
    WARN("karp was built without CLP: no LP plan, the mixed packing is not expected");
    return;
  }
  CHECK(cost.LaunchPricePerHour() == Approx(8.0));
  CHECK(cost.node_claims.size() == 8);
  for (const karp::NewNodeClaim& nc : cost.node_claims) {
    CHECK(nc.pods.size() == 3);
  }
}

TEST_CASE("pods of a lower-weight NodePool share claims however many claims a heavier one has",
          "[scheduler][cost]") {
  // Thirty pods that each need a node of their own open thirty claims with room in the
  // amd64 pool; the arm64 pods that follow must still find each other's claims (the search
  // for a claim skips the pools a pod cannot use rather than spending its budget on them).
  // amd64 types with spot at 40% of on-demand, so the cost packing has something to gain
  // over the faithful one (the on-demand pod below) and its own placement is returned.
  auto catalog = MakeCatalog({SpotAndOnDemand("x86-4", "4", "16Gi", 0.2),
                              SpotAndOnDemand("x86-16", "16", "64Gi", 0.8),
                              OnDemandType("arm-4", "arm64", "4", "8Gi", 0.1),
                              OnDemandType("arm-16", "arm64", "16", "32Gi", 0.4)});
  const std::string arch(karp::kLabelArch);
  ClusterSnapshot snap = ArchPools();
  for (int i = 0; i < 30; ++i) {
    snap.pods.push_back(MakePod("solo-" + std::to_string(i), "1", "1Gi")
                            .Label("app", "solo")
                            .AntiAffinity(std::string(karp::kLabelHostname), {{"app", "solo"}}));
  }
  for (int i = 0; i < 12; ++i) {  // more than an exact plan takes (exact_packing.h)
    snap.pods.push_back(
        MakePod("arm-" + std::to_string(i), "250m", "512Mi").NodeSelector(arch, "arm64"));
  }
  // A third pool where the cost packing beats the faithful one (the first test's case).
  snap.node_pools.push_back(
      MakeNodePool("batch", {{arch, karp::Operator::kIn, {"amd64"}, std::nullopt}}, {}, {}, 5));
  const std::string pool(karp::kLabelNodePool);
  snap.pods.push_back(
      MakePod("db", "3", "4Gi").NodeSelector(kCapacityType, kOnDemand).NodeSelector(pool, "batch"));
  for (int i = 0; i < 9; ++i) {
    snap.pods.push_back(
        MakePod("web-" + std::to_string(i), "1", "1Gi").NodeSelector(pool, "batch"));
  }
  const SolveResult faithful = SolveWith(snap, catalog, karp::PackingMode::kFaithful);
  const SolveResult cost = SolveWith(snap, catalog, karp::PackingMode::kCost);
  REQUIRE(cost.pod_errors.empty());
  REQUIRE_FALSE(cost.packing.faithful_kept);
  CHECK(cost.LaunchPricePerHour() < faithful.LaunchPricePerHour());
  int arm_claims = 0;
  for (const karp::NewNodeClaim& nc : cost.node_claims) arm_claims += nc.node_pool == "arm";
  CHECK(arm_claims == 1);  // 3 cpu of arm pods: one arm-4 node
}

TEST_CASE("the cost pool order decides whether weights or prices choose a new claim's pool",
          "[scheduler][cost]") {
  // Two NodePools over one catalog: "general" (amd64, weight 50) sells cpu at twice the price
  // per unit of "arm" (arm64, weight 10). Pods without an arch requirement open their claims
  // in "general" by weight, in "arm" by price; amd64-pinned pods stay in "general" either way.
  auto catalog = MakeCatalog({OnDemandType("x86-8", "amd64", "8", "32Gi", 0.8),
                              OnDemandType("arm-8", "arm64", "8", "32Gi", 0.4)});
  const std::string arch(karp::kLabelArch);
  ClusterSnapshot snap = ArchPools();
  for (int i = 0; i < 8; ++i) snap.pods.push_back(MakePod("any-" + std::to_string(i), "2", "1Gi"));
  for (int i = 0; i < 3; ++i) {
    snap.pods.push_back(
        MakePod("x86-" + std::to_string(i), "2", "1Gi").NodeSelector(arch, "amd64"));
  }
  auto pools_of = [](const SolveResult& r) {
    std::map<std::string, int> pools;
    for (const karp::NewNodeClaim& nc : r.node_claims) ++pools[nc.node_pool];
    return pools;
  };
  SchedulerOptions by_weight;
  by_weight.cost_pool_order = karp::PoolOrder::kWeight;
  const SolveResult weight = SolveWith(snap, catalog, karp::PackingMode::kCost, by_weight);
  SchedulerOptions by_price;  // the default
  REQUIRE(by_price.cost_pool_order == karp::PoolOrder::kPrice);
  const SolveResult price = SolveWith(snap, catalog, karp::PackingMode::kCost, by_price);
  REQUIRE(weight.pod_errors.empty());
  REQUIRE(price.pod_errors.empty());
  // By weight: 22 cpu of pods on amd64 nodes only (the faithful placement: 3 x $0.8).
  CHECK(pools_of(weight) == std::map<std::string, int>{{"general", 3}});
  CHECK(weight.LaunchPricePerHour() == Approx(2.4));
  // By price: the 16 cpu of unpinned pods on two arm nodes, the 6 pinned cpu on one amd64.
  CHECK(pools_of(price) == std::map<std::string, int>{{"arm", 2}, {"general", 1}});
  CHECK(price.LaunchPricePerHour() == Approx(0.8 + 2 * 0.4));
  for (const karp::NewNodeClaim& nc : price.node_claims) {
    for (const std::string& p : nc.pods) {
      if (p.find("x86-") != std::string::npos) CHECK(nc.node_pool == "general");
    }
  }
}

TEST_CASE("the cost packing's re-pack rounds never cost more and are validated",
          "[scheduler][cost]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  std::mt19937 rng(11);
  const char* cpus[] = {"250m", "700m", "1", "1500m", "2500m", "3"};
  const char* mems[] = {"256Mi", "1Gi", "3Gi", "5Gi"};
  for (int i = 0; i < 80; ++i) {
    snap.pods.push_back(MakePod("p-" + std::to_string(i), cpus[rng() % 6], mems[rng() % 4]));
  }
  auto catalog = FakeCatalog(24);
  double previous = std::numeric_limits<double>::infinity();
  for (int rounds = 0; rounds <= 3; ++rounds) {
    SchedulerOptions options;
    options.cost_repack_rounds = rounds;
    const SolveResult r = SolveWith(snap, catalog, karp::PackingMode::kCost, options);
    CHECK(r.pod_errors.empty());
    CHECK(r.LaunchPricePerHour() <= previous + 1e-9);
    previous = r.LaunchPricePerHour();
  }
  SchedulerOptions bad;
  bad.cost_repack_rounds = 4;
  CHECK(karp::Scheduler::Create(snap, catalog, bad).status().message() ==
        "scheduler options: cost_repack_rounds must be from 0 to 3");
}

TEST_CASE("cost packing returns the faithful placement when it cannot beat it",
          "[scheduler][cost]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.pods.push_back(MakePod("only", "1", "1Gi"));
  auto catalog = MakeCatalog({MakeInstanceType("one", "2", "4Gi", 110)});
  const SolveResult faithful = SolveWith(snap, catalog, karp::PackingMode::kFaithful);
  const SolveResult cost = SolveWith(snap, catalog, karp::PackingMode::kCost);
  CHECK(cost.packing.faithful_kept);
  CHECK(cost.packing.attempts >= 1);
  CHECK(SameResult(cost, faithful));
  CHECK(faithful.packing.mode == karp::PackingMode::kFaithful);
}

TEST_CASE("the faithful placement the cost packing keeps is the faithful solve's, any threads",
          "[scheduler][cost][threads]") {
  // One type and pods of one size: first fit fills every node, nothing is cheaper. The faithful
  // packing runs beside the candidates and only its baseline is kept; the result returned is
  // built again and must be the faithful solve's.
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  for (int i = 0; i < 40; ++i) {
    PodBuilder p = MakePod("p-" + std::to_string(i), "1", "1Gi");
    p.Label("app", i % 2 == 0 ? "a" : "b");
    if (i % 5 == 0) p.Spread(SpreadConstraint(std::string(karp::kLabelZone), 1, {{"app", "a"}}));
    snap.pods.push_back(p);
  }
  auto catalog = MakeCatalog({MakeInstanceType("four", "4", "16Gi", 110)});
  const SolveResult faithful = SolveWith(snap, catalog, karp::PackingMode::kFaithful);
  for (int threads : {1, 2, 4}) {
    SchedulerOptions options;
    options.cost_threads = threads;
    options.cost_attempts = 4;
    const SolveResult cost = SolveWith(snap, catalog, karp::PackingMode::kCost, options);
    INFO("threads " << threads << "\nfaithful:\n"
                    << Describe(faithful) << "cost:\n"
                    << Describe(cost));
    CHECK(cost.packing.faithful_kept);
    CHECK(cost.packing.faithful_price_per_hour == Approx(faithful.LaunchPricePerHour()));
    CHECK(SameResult(cost, faithful));
  }
}

TEST_CASE("the cost deadline stops the search and says so", "[scheduler][cost]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  for (int i = 0; i < 20; ++i) snap.pods.push_back(MakePod("p-" + std::to_string(i), "1", "1Gi"));
  SchedulerOptions options;
  options.cost_time_limit = absl::Nanoseconds(1);
  const SolveResult r = SolveWith(snap, FakeCatalog(20), karp::PackingMode::kCost, options);
  CHECK(r.packing.stopped_early);
  CHECK(r.packing.faithful_kept);
  CHECK(r.pod_errors.empty());
}

TEST_CASE("cost packing options are validated", "[scheduler][cost]") {
  ClusterSnapshot snap;
  auto catalog = FakeCatalog(4);
  SchedulerOptions options;
  options.cost_attempts = -1;
  CHECK(karp::Scheduler::Create(snap, catalog, options).status().message() ==
        "scheduler options: cost_attempts must be from 0 (auto) to 10");
  options.cost_attempts = 11;
  CHECK_FALSE(karp::Scheduler::Create(snap, catalog, options).ok());
  options.cost_attempts = 3;
  options.cost_threads = -1;
  CHECK(karp::Scheduler::Create(snap, catalog, options).status().message() ==
        "scheduler options: cost_threads must be >= 0");
  options.cost_threads = 0;
  options.cost_time_limit = absl::ZeroDuration();
  CHECK_FALSE(karp::Scheduler::Create(snap, catalog, options).ok());
}

TEST_CASE("the result does not depend on the cost packing's thread count",
          "[scheduler][cost][threads]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  std::mt19937 rng(7);
  const char* cpus[] = {"250m", "500m", "1", "1500m", "3"};
  const char* mems[] = {"256Mi", "1Gi", "2Gi", "6Gi"};
  for (int i = 0; i < 60; ++i) {
    snap.pods.push_back(MakePod("p-" + std::to_string(i), cpus[rng() % 5], mems[rng() % 4]));
  }
  auto catalog = FakeCatalog(32);
  SchedulerOptions one;
  one.cost_threads = 1;
  SchedulerOptions four;
  four.cost_threads = 4;
  const SolveResult a = SolveWith(snap, catalog, karp::PackingMode::kCost, one);
  const SolveResult b = SolveWith(snap, catalog, karp::PackingMode::kCost, four);
  CHECK(SameResult(a, b));
  CHECK(a.LaunchPricePerHour() == b.LaunchPricePerHour());
}

TEST_CASE("the lower bound comes with the result when asked for", "[scheduler][cost]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  for (int i = 0; i < 10; ++i) snap.pods.push_back(MakePod("p-" + std::to_string(i), "1", "1Gi"));
  auto catalog = FakeCatalog(16);
  CHECK_FALSE(SolveWith(snap, catalog, karp::PackingMode::kFaithful).lower_bound_per_hour);
  SchedulerOptions options;
  options.compute_lower_bound = true;
  for (karp::PackingMode mode : {karp::PackingMode::kFaithful, karp::PackingMode::kCost}) {
    const SolveResult r = SolveWith(snap, catalog, mode, options);
    REQUIRE(r.lower_bound_per_hour);
    CHECK(*r.lower_bound_per_hour > 0);
    CHECK(*r.lower_bound_per_hour <= r.LaunchPricePerHour() * (1 + 1e-9));
  }
}

// ---------------------------------------------------------------------------------------------
// Small random cases against a brute-force optimum.

struct SmallCase {
  ClusterSnapshot snap;
  std::vector<InstanceType> types;
  karp::ResourceList daemon;  // requests of the one DaemonSet (runs on every node)
};

SmallCase GenerateSmall(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  SmallCase c;
  c.snap.node_pools.push_back(MakeNodePool("default"));
  const bool spot = pick(2) == 0;
  const int type_count = 3 + pick(4);
  for (int t = 0; t < type_count; ++t) {
    const int cpu = 1 << pick(5);                // 1..16
    const int gib = cpu * (1 << (1 + pick(3)));  // 2, 4 or 8 GiB per cpu
    const double price = cpu * (0.04 + 0.01 * pick(5)) + 0.01 * pick(3);
    std::vector<karp::Offering> offerings = MakeOfferings(AllZones(), {kOnDemand}, price);
    if (spot) {
      for (karp::Offering& o : MakeOfferings(AllZones(), {kSpot}, price * (0.3 + 0.1 * pick(4)))) {
        offerings.push_back(o);
      }
    }
    c.types.push_back(InstanceType::Make(
        "t" + std::to_string(t),
        {{std::string(karp::kLabelArch), "amd64"}, {std::string(karp::kLabelOs), "linux"}},
        Resources(std::to_string(cpu), std::to_string(gib) + "Gi", 110), karp::Overhead{},
        std::move(offerings)));
  }
  if (pick(2) == 0) {
    c.snap.daemon_sets.push_back(MakeDaemonSet("agent", MakePod("agent", "100m", "128Mi")));
    c.daemon = Resources("100m", "128Mi");
    c.daemon.Set("pods", 1);
  }
  const char* cpus[] = {"250m", "500m", "1", "1500m", "2", "3"};
  const char* mems[] = {"256Mi", "512Mi", "1Gi", "2Gi", "4Gi", "6Gi"};
  const int pods = 2 + pick(6);  // 2..7
  for (int i = 0; i < pods; ++i) {
    PodBuilder p = MakePod("p" + std::to_string(i), cpus[pick(6)], mems[pick(6)]);
    if (spot && pick(4) == 0) p.NodeSelector(kCapacityType, kOnDemand);
    if (pick(4) == 0)
      p.Label("app", "spread").AntiAffinity(std::string(karp::kLabelHostname), {{"app", "spread"}});
    c.snap.pods.push_back(p);
  }
  return c;
}

bool Excludes(const Pod& a, const Pod& b) {
  for (const karp::PodAffinityTerm& t : a.pod_anti_affinity.required) {
    if (t.label_selector && t.label_selector->Matches(b.metadata.labels)) return true;
  }
  return false;
}

bool AllowsCapacityType(const Pod& p, const std::string& ct) {
  auto it = p.node_selector.find(kCapacityType);
  return it == p.node_selector.end() || it->second == ct;
}

// The cheapest node for `block`, +infinity when none holds it.
double NodePrice(const SmallCase& c, const std::vector<const Pod*>& block) {
  for (size_t i = 0; i < block.size(); ++i) {
    for (size_t j = i + 1; j < block.size(); ++j) {
      if (Excludes(*block[i], *block[j]) || Excludes(*block[j], *block[i])) {
        return std::numeric_limits<double>::infinity();
      }
    }
  }
  karp::ResourceList need = c.daemon;
  for (const Pod* p : block) need.Add(p->Requests());
  double best = std::numeric_limits<double>::infinity();
  for (const InstanceType& t : c.types) {
    if (!karp::Fits(need, t.Allocatable())) continue;
    for (const karp::Offering& o : t.offerings) {
      bool all = true;
      for (const Pod* p : block) all = all && AllowsCapacityType(*p, o.capacity_type);
      if (all) best = std::min(best, o.price);
    }
  }
  return best;
}

// Every partition of the pods (restricted growth strings), cheapest total.
double BruteForceOptimum(const SmallCase& c) {
  const size_t n = c.snap.pods.size();
  std::vector<int> block(n, 0);
  double best = std::numeric_limits<double>::infinity();
  std::function<void(size_t, int)> go = [&](size_t i, int blocks) {
    if (i == n) {
      double total = 0;
      for (int b = 0; b < blocks; ++b) {
        std::vector<const Pod*> members;
        for (size_t k = 0; k < n; ++k) {
          if (block[k] == b) members.push_back(&c.snap.pods[k]);
        }
        total += NodePrice(c, members);
      }
      best = std::min(best, total);
      return;
    }
    for (int b = 0; b <= blocks; ++b) {
      block[i] = b;
      go(i + 1, std::max(blocks, b + 1));
    }
  };
  go(0, 0);
  return best;
}

void CheckAgainstOptimum(int seeds) {
  int cases = 0, optimal = 0, feasible = 0;
  double worst = 1.0;
  for (uint32_t seed = 1; seed <= static_cast<uint32_t>(seeds); ++seed) {
    SmallCase c = GenerateSmall(seed);
    const double optimum = BruteForceOptimum(c);
    const SolveResult cost = SolveWith(c.snap, MakeCatalog(c.types), karp::PackingMode::kCost);
    const SolveResult faithful =
        SolveWith(c.snap, MakeCatalog(c.types), karp::PackingMode::kFaithful);
    ++cases;
    if (optimum == std::numeric_limits<double>::infinity()) continue;  // some pod fits no type
    INFO("seed " << seed << ": cost " << cost.LaunchPricePerHour() << ", optimum " << optimum
                 << ", faithful " << faithful.LaunchPricePerHour());
    REQUIRE(cost.pod_errors.empty());
    ++feasible;
    const double ratio = cost.LaunchPricePerHour() / optimum;
    CHECK(ratio >= 1 - 1e-9);  // the brute force is the optimum: nothing is cheaper
    CHECK(ratio <= 1.05);
    worst = std::max(worst, ratio);
    if (ratio <= 1 + 1e-9) ++optimal;
  }
  WARN("cost packing: optimal in " << optimal << " of " << feasible << " feasible small cases ("
                                   << cases << " generated), worst ratio " << worst);
  CHECK(feasible >= seeds * 5 / 6);
  CHECK(optimal >= feasible * 95 / 100);
}

KARP_SIZED_TEST_CASE("cost packing finds the optimum of small random cases", "[scheduler][cost]",
                     100, 300, CheckAgainstOptimum)

}  // namespace
