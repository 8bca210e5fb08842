// The faithful first-fit walk has two ways through the claims for a pod that a hostname group
// limits to claims where the group counts no pod: skipping the blocked claims one by one, or
// walking the group's index of free claims (Solver::FreeIndex). Both must give the same result;
// these cases run every random snapshot both ways (the index used at once, or never).

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
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

namespace {

using karp::ClusterSnapshot;
using karp::Pod;
using karp::Scheduler;
using karp::SolveResult;
using namespace karp::testing;  // NOLINT(build/namespaces): the builders

const std::string kZoneKey(karp::kLabelZone);
const std::string kHostKey(karp::kLabelHostname);

SolveResult SolveWith(const ClusterSnapshot& snap, int64_t threshold, int catalog_types) {
  absl::StatusOr<Scheduler> s = Scheduler::Create(snap, FakeCatalog(catalog_types), {});
  REQUIRE(s.ok());
  karp::scheduling::SolverTuning tuning;
  tuning.free_index_min_blocked = threshold;
  absl::StatusOr<SolveResult> r = karp::scheduling::Access::WithTuning(*s, tuning).Solve();
  REQUIRE(r.ok());
  return *r;
}

// Pods of a random mix: hostname anti-affinity replicas, hostname spread (maxSkew 1 or 2)
// over a few labels, zonal spread, node selectors and plain pods, of random sizes.
std::vector<Pod> RandomPods(std::mt19937& rng, int count) {
  const char* kCpu[] = {"100m", "250m", "500m", "1", "2"};
  const char* kLabels[] = {"a", "b", "c"};
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  std::vector<Pod> pods;
  for (int i = 0; i < count; ++i) {
    PodBuilder p = MakePod("p-" + std::to_string(i), kCpu[pick(5)]);
    const std::string label = kLabels[pick(3)];
    p.Label("my-label", label);
    switch (pick(6)) {
      case 0:
        p.Label("app", "nginx").AntiAffinity(kHostKey, {{"app", "nginx"}});
        break;
      case 1:
        p.Spread(SpreadConstraint(kHostKey, 1 + pick(2), {{"my-label", kLabels[pick(3)]}}));
        break;
      case 2:
        p.Spread(SpreadConstraint(kZoneKey, 1, {{"my-label", label}}));
        break;
      case 3:
        p.NodeSelector(kZoneKey, AllZones()[static_cast<size_t>(pick(3))]);
        break;
      default:
        break;
    }
    pods.push_back(p);
  }
  return pods;
}

}  // namespace

TEST_CASE("first fit through free-claim indexes places every pod as the plain walk",
          "[scheduler][free_index]") {
  std::mt19937 rng(20261126);
  for (int round = 0; round < 30; ++round) {
    const int count = 40 + static_cast<int>(rng() % 160);
    ClusterSnapshot snap;
    snap.node_pools = {MakeNodePool("default")};
    snap.pods = RandomPods(rng, count);
    INFO("round " << round << ", " << count << " pods");
    const SolveResult plain =
        SolveWith(snap, std::numeric_limits<int64_t>::max(), /*catalog_types=*/6);
    const SolveResult indexed = SolveWith(snap, 1, /*catalog_types=*/6);
    INFO("plain:\n" << Describe(plain) << "indexed:\n" << Describe(indexed));
    REQUIRE(SameResult(plain, indexed));
    // The mix holds replicas that need a claim each: the walk had blocked claims to skip.
    REQUIRE(plain.node_claims.size() > 1);
  }
}
