// Catch2 helper for scheduler tests: a Solve that must succeed.

#ifndef KARP_TESTS_SUPPORT_SOLVE_CHECKS_H_
#define KARP_TESTS_SUPPORT_SOLVE_CHECKS_H_

#include <catch2/catch.hpp>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/scheduler.h"

namespace karp::testing {

// Scheduler::Create(snap, catalog) then Solve(); both must succeed.
inline SolveResult MustSolve(const ClusterSnapshot& snap,
                             std::shared_ptr<const InstanceCatalog> catalog) {
  absl::StatusOr<Scheduler> s = Scheduler::Create(snap, std::move(catalog));
  INFO(s.status().message());
  REQUIRE(s.ok());
  absl::StatusOr<SolveResult> r = s->Solve();
  INFO(r.status().message());
  REQUIRE(r.ok());
  return *std::move(r);
}

}  // namespace karp::testing

#endif  // KARP_TESTS_SUPPORT_SOLVE_CHECKS_H_
