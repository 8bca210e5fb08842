// Catch2 helpers for tests of Consolidator::Plan: the plan of a snapshot, which must be
// computed without error, and the reason a node was kept.

#ifndef KARP_TESTS_SUPPORT_PLAN_CHECKS_H_
#define KARP_TESTS_SUPPORT_PLAN_CHECKS_H_

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "support/disruption_builders.h"

namespace karp::testing {

// The plan of `snap` at `now`; Create and Plan must succeed.
inline ConsolidationPlan MustPlan(const ClusterSnapshot& snap,
                                  std::shared_ptr<const InstanceCatalog> catalog,
                                  const ConsolidationOptions& options = {},
                                  absl::Time now = DisruptionNow()) {
  absl::StatusOr<Consolidator> c = Consolidator::Create(snap, std::move(catalog), now, options);
  INFO(std::string(c.status().message()));
  REQUIRE(c.ok());
  absl::StatusOr<ConsolidationPlan> plan = c->Plan();
  INFO(std::string(plan.status().message()));
  REQUIRE(plan.ok());
  return *std::move(plan);
}

// The reason `node` is kept, or "<not kept>".
inline std::string KeptOr(const ConsolidationPlan& plan, const std::string& node) {
  return KeptReason(plan, node).value_or("<not kept>");
}

}  // namespace karp::testing

#endif  // KARP_TESTS_SUPPORT_PLAN_CHECKS_H_
