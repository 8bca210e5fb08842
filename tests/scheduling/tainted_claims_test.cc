// Step 2 of a Solve (this solve's claims, fewest pods first) skips the claims of NodePools
// whose taints a pod does not tolerate without testing them (one first-fit index per taint
// set, merged in claim order): a pod that tolerates every set must still take the claim with
// the fewest pods, whichever set it belongs to.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "karp/scheduler.h"
#include "support/builders.h"

namespace {

using karp::ClusterSnapshot;
using karp::Scheduler;
using karp::SolveResult;
using karp::testing::Describe;
using karp::testing::FakeCatalog;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;
using karp::testing::TolerateExists;

std::vector<std::string> PodsOf(const SolveResult& r, const std::string& pool) {
  for (const karp::NewNodeClaim& nc : r.node_claims) {
    if (nc.node_pool == pool) return nc.pods;
  }
  return {};
}

}  // namespace

TEST_CASE("claims of tainted and untainted NodePools are tried fewest pods first", "[scheduler]") {
  ClusterSnapshot snap;
  karp::Taint dedicated;
  dedicated.key = "dedicated";
  dedicated.value = "x";
  dedicated.effect = karp::TaintEffect::kNoSchedule;
  snap.node_pools.push_back(MakeNodePool("tainted", {}, {dedicated}, {}, 10));
  snap.node_pools.push_back(MakeNodePool("plain"));
  // Three tolerating 2-cpu pods fill a claim of the heavier tainted pool; a 2-cpu pod without
  // the toleration opens a plain claim; then a tolerating and a plain 1-cpu pod.
  for (int i = 0; i < 3; ++i) {
    snap.pods.push_back(MakePod("t-" + std::to_string(i), "2")
                            .CreatedAt(1 + i)
                            .Tolerate(TolerateExists("dedicated")));
  }
  snap.pods.push_back(MakePod("p-0", "2").CreatedAt(4));
  snap.pods.push_back(MakePod("t-3", "1").CreatedAt(5).Tolerate(TolerateExists("dedicated")));
  snap.pods.push_back(MakePod("p-1", "1").CreatedAt(6));
  absl::StatusOr<Scheduler> s = Scheduler::Create(snap, FakeCatalog(30));
  REQUIRE(s.ok());
  absl::StatusOr<SolveResult> r = s->Solve();
  REQUIRE(r.ok());
  INFO(Describe(*r));
  REQUIRE(r->node_claims.size() == 2);
  CHECK(PodsOf(*r, "tainted") ==
        std::vector<std::string>{"default/t-0", "default/t-1", "default/t-2"});
  // t-3 tolerates both: the plain claim (one pod) comes before the tainted one (three).
  CHECK(PodsOf(*r, "plain") ==
        std::vector<std::string>{"default/p-0", "default/t-3", "default/p-1"});
  CHECK(r->pod_errors.empty());
}
