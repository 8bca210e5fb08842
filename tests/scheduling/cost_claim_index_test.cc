// The cost mode's claim search (Solver::PlaceOnClaimCost) walks each (template, capacity type)
// index of claims asking for the pod's cpu, memory and pod slots at once, where the plain walk
// asks for the cpu only and leaves the memory and slot refusals to CostPolicy::Admits. Both must
// give the same result (the argument is in cost_packing.h, CostClaimNeed); these cases solve
// random snapshots both ways with every strategy and compare the results field by field.

#include <catch2/catch.hpp>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "karp/cluster.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/scheduler.h"
#include "scheduling/access.h"
#include "scheduling/scheduler_internal.h"
#include "support/builders.h"
#include "support/sized_test.h"

namespace {

using karp::ClusterSnapshot;
using karp::InstanceType;
using karp::SchedulerOptions;
using karp::SolveResult;
using namespace karp::testing;  // NOLINT(build/namespaces): the builders

const std::string kSpot(karp::kCapacityTypeSpot);
const std::string kOnDemand(karp::kCapacityTypeOnDemand);

// Types of three shapes (cpu-heavy, balanced, memory-heavy) in four sizes, some with few pod
// slots, spot at 40% of on-demand: claims run out of memory or slots before cpu, and the
// reverse.
std::shared_ptr<const karp::InstanceCatalog> ShapedCatalog() {
  struct Shape {
    const char* name;
    int mem_per_cpu;  // GiB
    double price_per_cpu;
  };
  const Shape shapes[] = {{"c", 2, 0.040}, {"m", 4, 0.048}, {"r", 8, 0.062}};
  std::vector<InstanceType> types;
  for (const Shape& s : shapes) {
    for (int cpu : {2, 4, 8, 16}) {
      std::vector<karp::Offering> offerings =
          MakeOfferings(AllZones(), {kOnDemand}, s.price_per_cpu * cpu);
      for (karp::Offering& o : MakeOfferings(AllZones(), {kSpot}, 0.4 * s.price_per_cpu * cpu)) {
        offerings.push_back(o);
      }
      const int64_t slots = cpu <= 4 ? 6 : 30;
      types.push_back(InstanceType::Make(
          std::string(s.name) + "-" + std::to_string(cpu),
          {{std::string(karp::kLabelArch), "amd64"}, {std::string(karp::kLabelOs), "linux"}},
          Resources(std::to_string(cpu), std::to_string(cpu * s.mem_per_cpu) + "Gi", slots),
          karp::Overhead{}, std::move(offerings)));
    }
  }
  return MakeCatalog(std::move(types));
}

// Pods of random cpu and memory (memory-heavy and cpu-heavy), a share of them on-demand only,
// some with hostname spread or zone selectors, over two NodePools.
ClusterSnapshot RandomSnapshot(std::mt19937& rng, int count) {
  const char* kCpu[] = {"100m", "250m", "500m", "1", "1500m", "3"};
  const char* kMem[] = {"128Mi", "512Mi", "1Gi", "3Gi", "6Gi", "12Gi"};
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  const std::string zone(karp::kLabelZone);
  snap.node_pools.push_back(MakeNodePool(
      "zonal", {{zone, karp::Operator::kIn, {AllZones()[0]}, std::nullopt}}, {}, {}, 5));
  for (int i = 0; i < count; ++i) {
    PodBuilder p = MakePod("p-" + std::to_string(i), kCpu[pick(6)], kMem[pick(6)]);
    p.Label("group", std::to_string(pick(3)));
    switch (pick(8)) {
      case 0:
        p.NodeSelector(std::string(karp::kLabelCapacityType), kOnDemand);
        break;
      case 1:
        p.Spread(SpreadConstraint(std::string(karp::kLabelHostname), 1 + pick(2),
                                  {{"group", std::to_string(pick(3))}}));
        break;
      case 2:
        p.NodeSelector(std::string(karp::kLabelZone), AllZones()[static_cast<size_t>(pick(3))]);
        break;
      default:
        break;
    }
    snap.pods.push_back(p);
  }
  return snap;
}

SolveResult SolveCost(const ClusterSnapshot& snap,
                      const std::shared_ptr<const karp::InstanceCatalog>& catalog, bool indexed,
                      karp::PoolOrder order) {
  SchedulerOptions options;
  options.packing = karp::PackingMode::kCost;
  options.cost_pool_order = order;
  options.cost_attempts = 10;  // every strategy
  options.cost_threads = 1;
  absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(snap, catalog, options);
  REQUIRE(s.ok());
  karp::scheduling::SolverTuning tuning;
  tuning.cost_claim_index = indexed;
  absl::StatusOr<SolveResult> r = karp::scheduling::Access::WithTuning(*s, tuning).Solve();
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

void CheckIndexedAgainstPlain(int rounds) {
  const auto catalog = ShapedCatalog();
  std::mt19937 rng(20261127);
  int cost_won = 0;
  for (int round = 0; round < rounds; ++round) {
    const int count = 60 + static_cast<int>(rng() % 180);
    const ClusterSnapshot snap = RandomSnapshot(rng, count);
    for (karp::PoolOrder order : {karp::PoolOrder::kWeight, karp::PoolOrder::kPrice}) {
      INFO("round " << round << ", " << count << " pods, order " << static_cast<int>(order));
      const SolveResult plain = SolveCost(snap, catalog, /*indexed=*/false, order);
      const SolveResult indexed = SolveCost(snap, catalog, /*indexed=*/true, order);
      INFO("plain:\n" << Describe(plain) << "indexed:\n" << Describe(indexed));
      REQUIRE(SameResult(plain, indexed));
      REQUIRE(plain.packing.attempts == indexed.packing.attempts);
      REQUIRE(plain.packing.faithful_kept == indexed.packing.faithful_kept);
      if (!plain.packing.faithful_kept) ++cost_won;
    }
  }
  // The comparison is about cost packings: most cases must have kept one.
  CHECK(cost_won >= rounds);
}

KARP_SIZED_TEST_CASE("the cost mode's indexed claim search places every pod as the plain walk",
                     "[scheduler][cost][cost_index]", 5, 16, CheckIndexedAgainstPlain)
