// Scheduler::Create taking the snapshot over (karp/scheduler.h): the same scheduler as the
// copying Create, the same errors, and the snapshot left alone when Create refuses early.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "karp/cluster.h"
#include "karp/scheduler.h"
#include "support/builders.h"

namespace {

using karp::ClusterSnapshot;
using karp::Scheduler;
using karp::SchedulerOptions;
using karp::SolveResult;
using karp::testing::FakeCatalog;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;
using karp::testing::SameResult;

ClusterSnapshot Cluster() {
  ClusterSnapshot s;
  s.node_pools.push_back(MakeNodePool("default"));
  for (int i = 0; i < 40; ++i) {
    s.pods.push_back(MakePod("p" + std::to_string(i), i % 3 == 0 ? "1500m" : "300m", "1Gi"));
  }
  return s;
}

SolveResult SolveOf(const absl::StatusOr<Scheduler>& s) {
  INFO(s.status().message());
  REQUIRE(s.ok());
  absl::StatusOr<SolveResult> r = s->Solve();
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("Create with a moved snapshot solves as Create with a copy", "[scheduler][create]") {
  const ClusterSnapshot original = Cluster();
  const auto catalog = FakeCatalog(10);
  const SolveResult copied = SolveOf(Scheduler::Create(original, catalog));
  ClusterSnapshot moved = original;
  const SolveResult taken = SolveOf(Scheduler::Create(std::move(moved), catalog));
  REQUIRE(copied.node_claims.size() >= 2);
  CHECK(SameResult(copied, taken));
  // The scheduler owns what it was given: a later change to the caller's object is not seen.
  ClusterSnapshot again = original;
  absl::StatusOr<Scheduler> s = Scheduler::Create(std::move(again), catalog);
  again = ClusterSnapshot{};
  CHECK(SameResult(copied, SolveOf(s)));
}

TEST_CASE("Create with a moved snapshot reports the errors of Create with a copy",
          "[scheduler][create]") {
  const auto catalog = FakeCatalog(4);
  ClusterSnapshot duplicate = Cluster();
  duplicate.pods.push_back(MakePod("p1", "100m"));
  const absl::Status by_copy = Scheduler::Create(duplicate, catalog).status();
  REQUIRE(!by_copy.ok());
  ClusterSnapshot moved = duplicate;
  // NOLINTNEXTLINE(bugprone-use-after-move): Catch's CHECK names its expression twice.
  CHECK(Scheduler::Create(std::move(moved), catalog).status() == by_copy);

  SECTION("bad options or no catalog: the snapshot is not taken") {
    SchedulerOptions bad;
    bad.max_instance_types = 0;
    ClusterSnapshot kept = Cluster();
    const absl::Status s = Scheduler::Create(std::move(kept), catalog, bad).status();
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(s.message()).find("max_instance_types") != std::string::npos);
    // NOLINTNEXTLINE(bugprone-use-after-move): that the snapshot was not taken is the point.
    CHECK(kept.pods.size() == 40);
    const absl::Status null = Scheduler::Create(std::move(kept), nullptr).status();
    CHECK(std::string(null.message()) == "scheduler: catalog must not be null");
    CHECK(kept.pods.size() == 40);  // NOLINT(bugprone-use-after-move): not taken either
  }
}
