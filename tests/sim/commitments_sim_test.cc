// The simulator under commitments (karp/sim/trace.h Trace::commitments): the bill's split, a
// commitment-aware run against a blind one, and traces that carry commitments.

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "karp/catalog.h"
#include "karp/pricing.h"
#include "karp/sim/simulator.h"
#include "support/builders.h"
#include "support/disruption_builders.h"
#ifdef KARP_TEST_HAVE_JSON
#include "karp/json/sim_trace.h"
#endif

namespace {

using karp::sim::Policy;
using karp::sim::SimResult;
using karp::sim::Trace;

// c5.large (2 cpu) $0.08/h and m5.large (2 cpu) $0.10/h, on demand in us-east-1a.
std::shared_ptr<const karp::InstanceCatalog> Catalog() {
  using karp::testing::MakeOffering;
  std::vector<karp::InstanceType> types = {
      karp::testing::TypeWithOfferings("c5.large", "2", "8Gi", 29,
                                       {MakeOffering("us-east-1a", "on-demand", 0.08)}),
      karp::testing::TypeWithOfferings("m5.large", "2", "8Gi", 29,
                                       {MakeOffering("us-east-1a", "on-demand", 0.10)}),
  };
  auto c = karp::InstanceCatalog::Create(std::move(types));
  REQUIRE(c.ok());
  return std::make_shared<const karp::InstanceCatalog>(*std::move(c));
}

// Four pods of 1500m (one node each) for two hours, and two m5.large RIs at $0.06/h each.
Trace FourPods() {
  Trace t;
  t.name = "four";
  t.duration = absl::Hours(2);
  t.cluster.node_pools.push_back(karp::testing::DisruptionPool("default"));
  karp::sim::DeploymentTrace d;
  d.name = "web";
  d.pod.requests = karp::testing::Resources("1500m", "1Gi");
  d.replicas = {{absl::ZeroDuration(), 4}};
  t.deployments.push_back(d);
  karp::Commitments c;
  karp::ReservedInstance ri;
  ri.id = "ri-1";
  ri.instance_type = "m5.large";
  ri.zone = "us-east-1a";
  ri.count = 2;
  ri.hourly_price = 0.06;
  c.reserved_instances.push_back(ri);
  t.commitments = c;
  return t;
}

SimResult Run(const Trace& t, bool aware) {
  Policy p;
  p.name = aware ? "aware" : "blind";
  p.commitment_aware = aware;
  auto r = karp::sim::Simulate(t, Catalog(), p);
  INFO(r.status().message());
  REQUIRE(r.ok());
  return *std::move(r);
}

int Launches(const SimResult& r, const std::string& type) {
  int n = 0;
  for (const auto& e : r.events) {
    if (e.kind == "launch" && e.detail.find(" " + type + " ") != std::string::npos) ++n;
  }
  return n;
}

TEST_CASE("simulator: the commitment bill, aware against blind", "[sim][pricing]") {
  const Trace t = FourPods();
  const SimResult aware = Run(t, true);
  const SimResult blind = Run(t, false);
  CHECK(Launches(aware, "m5.large") == 2);
  CHECK(Launches(aware, "c5.large") == 2);
  CHECK(Launches(blind, "m5.large") == 0);
  CHECK(Launches(blind, "c5.large") == 4);
  for (const SimResult* r : {&aware, &blind}) {
    const karp::sim::Summary& s = r->summary;
    CHECK(s.has_commitments);
    CHECK(s.total_cost == Approx(s.committed_cost + s.on_demand_cost + s.spot_cost));
    CHECK(s.committed_cost == Approx(0.12 * 2));  // two RI fees for the two hours
  }
  // Four nodes for about 2 h: aware pays on demand for two c5.large, blind for four.
  CHECK(blind.summary.on_demand_cost == Approx(2 * aware.summary.on_demand_cost).epsilon(0.01));
  CHECK(aware.summary.total_cost < blind.summary.total_cost);
  const std::string table = karp::sim::WriteSummaryTable({aware, blind});
  CHECK(table.find("| committed $ |") != std::string::npos);
}

TEST_CASE("simulator: no commitments, no split", "[sim][pricing]") {
  Trace t = FourPods();
  t.commitments.reset();
  const SimResult r = Run(t, true);
  CHECK_FALSE(r.summary.has_commitments);
  CHECK(r.summary.committed_cost == 0);
  CHECK(karp::sim::WriteSummaryTable({r}).find("committed") == std::string::npos);
}

#ifdef KARP_TEST_HAVE_JSON
TEST_CASE("simulator traces carry commitments", "[sim][pricing]") {
  const char* text = R"(name: t
duration: 1h
cluster:
  - {apiVersion: karpenter.sh/v1, kind: NodePool, metadata: {name: default}}
commitments:
  savingsPlans: [{id: sp-1, type: Compute, hourlyCommitment: 0.5, discount: 0.2}]
)";
  auto t = karp::json::ParseSimTrace(text, "t.yaml");
  INFO(t.status().message());
  REQUIRE(t.ok());
  REQUIRE(t->commitments.has_value());
  CHECK(t->commitments->savings_plans.at(0).hourly_commitment == 0.5);
  auto bad = karp::json::ParseSimTrace(
      std::string(text) + "  reservedInstances: [{id: r, instanceType: m5.large}]\n", "t.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()) ==
        "t.yaml: commitments.reservedInstances[0].count: required");
}
#endif

}  // namespace
