// Tests of the re-pack consolidation mode (ConsolidationMode::kRepack, docs/repack.md):
// focused scenarios (half-empty on-demand nodes whose pods tolerate spot, do-not-disrupt, PDBs,
// budgets, the summary) and a property test on seeded random clusters.
//
// Catalog: small (2 cpu) / medium (4 cpu) / large (8 cpu) / xlarge (16 cpu), each on demand at
// $0.10 per 2 cpu and on spot at 40 % of that, in the three test zones, no overhead.
//
// The property test replays every plan over its own model of the cluster and checks, command
// by command: candidates alive and not blocked (do-not-disrupt, PDB allowing no eviction),
// the pool budget (nodes, counted over the whole plan), no pod of a PDB that allows no
// eviction evicted, every replacement launching a type among its options whose capacity holds the
// pods it lists, replacements of on-demand nodes only on spot when the pods allow it and
// spot-to-spot never without the gate, savings = candidates - launches > 0, and that the
// pods displaced so far and not on a replacement fit the surviving nodes (Scheduler::Solve
// over the model places them without a new NodeClaim). The final price is never above the
// faithful mode's, and the summary adds up.

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/scheduler.h"
#include "support/builders.h"
#include "support/disruption_builders.h"
#include "support/plan_checks.h"
#include "support/sized_test.h"

#ifdef KARP_TEST_HAVE_JSON
#include "karp/json/command_io.h"
#endif

namespace {

using karp::ClusterSnapshot;
using karp::ConsolidationMode;
using karp::ConsolidationOptions;
using karp::ConsolidationPlan;
using karp::DisruptionCommand;
using karp::InstanceCatalog;
using karp::InstanceType;
using karp::NewNodeClaim;
using karp::Operator;
using karp::testing::AddManagedNode;
using karp::testing::BoundPod;
using karp::testing::Describe;
using karp::testing::DisruptionPool;
using karp::testing::Expr;
using karp::testing::KeptOr;
using karp::testing::MakeBudget;
using karp::testing::MakeCatalog;
using karp::testing::MakeOffering;
using karp::testing::MakePdb;
using karp::testing::MustPlan;
using karp::testing::TypeWithOfferings;

const std::string kOnDemand(karp::kCapacityTypeOnDemand);
const std::string kSpot(karp::kCapacityTypeSpot);

std::shared_ptr<const InstanceCatalog> SpotCatalog() {
  std::vector<InstanceType> types;
  const std::vector<std::pair<std::string, int>> sizes = {
      {"small", 2}, {"medium", 4}, {"large", 8}, {"xlarge", 16}};
  for (const auto& [name, cpu] : sizes) {
    std::vector<karp::Offering> offerings;
    const double od = 0.05 * cpu;
    for (const std::string& z : karp::testing::AllZones()) {
      offerings.push_back(MakeOffering(z, kOnDemand, od));
      offerings.push_back(MakeOffering(z, kSpot, 0.4 * od));
    }
    types.push_back(TypeWithOfferings(name, std::to_string(cpu), std::to_string(2 * cpu) + "Gi",
                                      10 * cpu, offerings));
  }
  return MakeCatalog(std::move(types));
}

ConsolidationOptions Repack() {
  ConsolidationOptions o;
  o.mode = ConsolidationMode::kRepack;
  return o;
}

double NodePrice(const InstanceCatalog& catalog, const std::string& type,
                 const std::string& capacity_type) {
  const InstanceType* it = catalog.Find(type);
  REQUIRE(it != nullptr);
  for (const karp::Offering& o : it->offerings) {
    if (o.capacity_type == capacity_type) return o.price;
  }
  FAIL("no offering");
  return 0;
}

// Four xlarge on-demand nodes (16 cpu, $0.80/h) each running four 1-cpu pods.
ClusterSnapshot HalfEmptyOnDemand(const InstanceCatalog& catalog) {
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool(
      "default", {Expr(std::string(karp::kLabelCapacityType), Operator::kIn, {kSpot, kOnDemand})}));
  for (int n = 0; n < 4; ++n) {
    const std::string node = "big-" + std::to_string(n);
    AddManagedNode(snap, catalog, node, "default", "xlarge", std::string(karp::testing::kZone1),
                   kOnDemand);
    for (int p = 0; p < 4; ++p) {
      snap.pods.push_back(BoundPod(node + "-pod-" + std::to_string(p), node, "1", "1Gi"));
    }
  }
  return snap;
}

TEST_CASE("repack: half-empty on-demand nodes become fewer, cheaper spot nodes", "[repack]") {
  auto catalog = SpotCatalog();
  const ClusterSnapshot snap = HalfEmptyOnDemand(*catalog);
  const ConsolidationPlan plan = MustPlan(snap, catalog, Repack());
  INFO(Describe(plan));
  REQUIRE(plan.repack.has_value());
  CHECK(plan.repack->price_before_per_hour == Approx(3.2));
  REQUIRE_FALSE(plan.commands.empty());
  std::set<std::string> gone;
  for (const DisruptionCommand& c : plan.commands) {
    CHECK(c.savings_per_hour > 0);
    gone.insert(c.candidates.begin(), c.candidates.end());
    for (const NewNodeClaim& r : c.replacements) {
      REQUIRE(r.launch.has_value());
      CHECK(r.launch->capacity_type == kSpot);
    }
  }
  CHECK(gone.size() == 4);
  // 16 one-cpu pods: 16 cpu of spot at least ($0.32/h); the plan reaches it.
  CHECK(plan.repack->lower_bound_per_hour == Approx(0.32));
  CHECK(plan.repack->price_after_per_hour == Approx(0.32));
  CHECK(plan.repack->evictions == 16);
  CHECK(plan.repack->price_after_per_hour ==
        Approx(plan.repack->price_before_per_hour - plan.savings_per_hour));
  // The faithful mode's result is no better.
  const ConsolidationPlan faithful = MustPlan(snap, catalog);
  CHECK_FALSE(faithful.repack.has_value());
  CHECK(plan.savings_per_hour >= faithful.savings_per_hour - 1e-9);
}

TEST_CASE("repack: do-not-disrupt pods and nodes stay", "[repack]") {
  auto catalog = SpotCatalog();
  ClusterSnapshot snap = HalfEmptyOnDemand(*catalog);
  snap.pods[0].metadata.annotations[std::string(karp::kAnnotationDoNotDisrupt)] = "true";
  karp::testing::FindNodeMutable(snap, "big-1")
      ->metadata.annotations[std::string(karp::kAnnotationDoNotDisrupt)] = "true";
  const ConsolidationPlan plan = MustPlan(snap, catalog, Repack());
  INFO(Describe(plan));
  CHECK(karp::testing::CommandIndexOf(plan, "big-0") == -1);
  CHECK(karp::testing::CommandIndexOf(plan, "big-1") == -1);
  CHECK_THAT(KeptOr(plan, "big-0"), Catch::Contains("do-not-disrupt"));
  CHECK_THAT(KeptOr(plan, "big-1"), Catch::Contains("do-not-disrupt"));
  CHECK(karp::testing::CommandIndexOf(plan, "big-2") >= 0);
}

TEST_CASE("repack: a PDB that allows no eviction keeps its pods' nodes", "[repack]") {
  auto catalog = SpotCatalog();
  ClusterSnapshot snap = HalfEmptyOnDemand(*catalog);
  snap.pods[4].metadata.labels["app"] = "db";  // on big-1
  snap.pdbs.push_back(MakePdb("db", {{"app", "db"}}, 0));
  const ConsolidationPlan plan = MustPlan(snap, catalog, Repack());
  INFO(Describe(plan));
  CHECK(karp::testing::CommandIndexOf(plan, "big-1") == -1);
  CHECK_THAT(KeptOr(plan, "big-1"), Catch::Contains("pdb"));
}

TEST_CASE("repack: the budget limits the nodes disrupted", "[repack]") {
  auto catalog = SpotCatalog();
  ClusterSnapshot snap = HalfEmptyOnDemand(*catalog);
  snap.node_pools[0].budgets = {MakeBudget("2")};
  const ConsolidationPlan plan = MustPlan(snap, catalog, Repack());
  INFO(Describe(plan));
  size_t disrupted = 0;
  for (const DisruptionCommand& c : plan.commands) disrupted += c.candidates.size();
  CHECK(disrupted == 2);
  CHECK(plan.savings_per_hour > 0);
  int budget_kept = 0;
  for (const karp::KeptNode& k : plan.kept) {
    budget_kept += k.reason.find("budget") != std::string::npos ? 1 : 0;
  }
  CHECK(budget_kept == 2);
}

TEST_CASE("repack: spot nodes are not replaced by spot nodes without the gate", "[repack]") {
  auto catalog = SpotCatalog();
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool(
      "default", {Expr(std::string(karp::kLabelCapacityType), Operator::kIn, {kSpot})}));
  for (int n = 0; n < 2; ++n) {
    const std::string node = "spot-" + std::to_string(n);
    AddManagedNode(snap, *catalog, node, "default", "xlarge", std::string(karp::testing::kZone1),
                   kSpot);
    snap.pods.push_back(BoundPod(node + "-pod", node, "3"));
  }
  const ConsolidationPlan off = MustPlan(snap, catalog, Repack());
  INFO(Describe(off));
  for (const DisruptionCommand& c : off.commands) CHECK(c.replacements.empty());
  ConsolidationOptions gate = Repack();
  gate.spot_to_spot = true;
  const ConsolidationPlan on = MustPlan(snap, catalog, gate);
  INFO(Describe(on));
  CHECK(on.savings_per_hour >= off.savings_per_hour);
}

#ifdef KARP_TEST_HAVE_JSON
TEST_CASE("repack: the JSON summary has the re-pack figures, a faithful plan none", "[repack]") {
  auto catalog = SpotCatalog();
  const ClusterSnapshot snap = HalfEmptyOnDemand(*catalog);
  absl::StatusOr<std::string> repack =
      karp::json::ConsolidateOutput(MustPlan(snap, catalog, Repack()), snap, "json");
  REQUIRE(repack.ok());
  for (const char* key :
       {"\"mode\": \"repack\"", "\"priceBeforePerHour\": 3.2", "\"priceAfterPerHour\": 0.32",
        "\"lowerBoundPerHour\": 0.32", "\"evictions\": 16"}) {
    CHECK_THAT(*repack, Catch::Contains(key));
  }
  absl::StatusOr<std::string> faithful =
      karp::json::ConsolidateOutput(MustPlan(snap, catalog), snap, "json");
  REQUIRE(faithful.ok());
  CHECK_THAT(*faithful, !Catch::Contains("priceBeforePerHour"));
  CHECK_THAT(*faithful, !Catch::Contains("\"mode\""));
}
#endif

TEST_CASE("repack: invalid options are errors", "[repack]") {
  auto catalog = SpotCatalog();
  ConsolidationOptions o = Repack();
  o.repack_rounds = 0;
  absl::StatusOr<karp::Consolidator> c =
      karp::Consolidator::Create(ClusterSnapshot{}, catalog, karp::testing::DisruptionNow(), o);
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(std::string(c.status().message()), Catch::Contains("repack_rounds"));
  o = Repack();
  o.repack_compare_simulations = -1;
  c = karp::Consolidator::Create(ClusterSnapshot{}, catalog, karp::testing::DisruptionNow(), o);
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(std::string(c.status().message()), Catch::Contains("repack_compare_simulations"));
}

// The simulations of the faithful plan a re-pack plan is compared with (the second plan of a
// Plan(): the simulation count of the progress reports restarts with it).
int64_t ComparisonSimulations(const ClusterSnapshot& snap,
                              std::shared_ptr<const InstanceCatalog> catalog, int64_t bound) {
  ConsolidationOptions o = Repack();
  o.repack_compare_simulations = bound;
  std::vector<int64_t> counts;
  o.progress = [&](const karp::ConsolidationProgress& p) {
    if (!p.method.empty()) counts.push_back(p.simulations);  // "" reports sit between loops
  };
  MustPlan(snap, std::move(catalog), o);
  int64_t last = 0;
  for (size_t i = 1; i < counts.size(); ++i) {
    if (counts[i] < counts[i - 1]) last = 0;  // the comparison plan starts
    last = std::max(last, counts[i]);
  }
  return last;
}

TEST_CASE("repack: the faithful comparison runs within repack_compare_simulations", "[repack]") {
  auto catalog = SpotCatalog();
  const ClusterSnapshot snap = HalfEmptyOnDemand(*catalog);
  const int64_t unbounded = ComparisonSimulations(snap, catalog, 0);
  INFO("unbounded comparison: " << unbounded << " simulations");
  REQUIRE(unbounded > 1);
  CHECK(ComparisonSimulations(snap, catalog, 1) == 1);
  // The bound does not change a plan the comparison does not win.
  ConsolidationOptions bounded = Repack();
  bounded.repack_compare_simulations = 1;
  const ConsolidationPlan a = MustPlan(snap, catalog, Repack());
  const ConsolidationPlan b = MustPlan(snap, catalog, bounded);
  REQUIRE_FALSE(a.repack->faithful_plan);
  CHECK(a.savings_per_hour == b.savings_per_hour);
  CHECK(a.commands.size() == b.commands.size());
}

// ---------------------------------------------------------------------------------------------
// Property test

struct RandomCluster {
  ClusterSnapshot snap;
  std::set<std::string> blocked;  // nodes with a do-not-disrupt or PDB-blocked pod
  int64_t budget = 0;             // nodes the pool lets be disrupted
  bool spot_to_spot = false;
};

RandomCluster MakeRandomCluster(std::mt19937& rng, const InstanceCatalog& catalog) {
  RandomCluster c;
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::vector<std::string> types = {"small", "medium", "large", "xlarge"};
  c.budget = pick(1, 6);
  c.spot_to_spot = pick(0, 1) == 1;
  karp::NodePool pool = DisruptionPool(
      "default", {Expr(std::string(karp::kLabelCapacityType), Operator::kIn, {kSpot, kOnDemand})});
  pool.budgets = {MakeBudget(std::to_string(c.budget))};
  c.snap.node_pools.push_back(pool);
  c.snap.pdbs.push_back(MakePdb("none", {{"pdb", "none"}}, 0));
  c.snap.pdbs.push_back(MakePdb("one", {{"pdb", "one"}}, 1));
  const int nodes = pick(2, 9);
  int pod_id = 0;
  for (int n = 0; n < nodes; ++n) {
    const std::string node = "n" + std::to_string(n);
    const std::string& type = types[pick(0, 3)];
    const std::string ct = pick(0, 2) == 0 ? kSpot : kOnDemand;
    const std::string zone = karp::testing::AllZones()[pick(0, 2)];
    AddManagedNode(c.snap, catalog, node, "default", type, zone, ct);
    int64_t free = catalog.Find(type)->capacity.Get(karp::kResourceCpu) / 1000;
    const int64_t target = pick(1, static_cast<int>(free));
    for (int64_t used = 0; used < target;) {
      const int cpu = std::min<int>(pick(1, 3), static_cast<int>(target - used));
      auto b = BoundPod("p" + std::to_string(pod_id++), node, std::to_string(cpu), "1Gi");
      const int kind = pick(0, 19);
      if (kind == 0) {
        b.Annotation(std::string(karp::kAnnotationDoNotDisrupt), "true");
        c.blocked.insert(node);
      } else if (kind == 1) {
        b.Label("pdb", "none");
        c.blocked.insert(node);
      } else if (kind == 2) {
        b.Label("pdb", "one");
      } else if (kind == 3) {
        b.NodeSelector(std::string(karp::kLabelCapacityType), kOnDemand);
      }
      c.snap.pods.push_back(b);
      used += cpu;
    }
  }
  return c;
}

// The model the validator replays commands over.
struct Model {
  std::map<std::string, karp::Node> nodes;                // alive nodes by name
  std::map<std::string, std::vector<karp::Pod>> pods_on;  // pods bound to each alive node
  std::map<std::string, double> price;                    // per alive node
  std::vector<karp::Pod> displaced;                       // moved to some existing node
};

Model ModelOf(const ClusterSnapshot& snap, const InstanceCatalog& catalog) {
  Model m;
  for (const karp::Node& n : snap.nodes) {
    m.nodes[n.metadata.name] = n;
    m.price[n.metadata.name] =
        NodePrice(catalog, n.metadata.labels.at(std::string(karp::kLabelInstanceType)),
                  n.metadata.labels.at(std::string(karp::kLabelCapacityType)));
  }
  for (const karp::Pod& p : snap.pods) m.pods_on[p.node_name].push_back(p);
  return m;
}

// The snapshot of the model with the displaced pods pending.
ClusterSnapshot SnapshotOf(const Model& m, const ClusterSnapshot& original) {
  ClusterSnapshot s;
  s.node_pools = original.node_pools;
  for (const auto& [name, node] : m.nodes) {
    s.nodes.push_back(node);
    for (const karp::Pod& p : m.pods_on.at(name)) s.pods.push_back(p);
  }
  for (karp::Pod p : m.displaced) {
    p.node_name.clear();
    p.phase = "Pending";
    s.pods.push_back(p);
  }
  return s;
}

// Checks one command against the model, then applies it.
void CheckAndApply(const DisruptionCommand& cmd, const RandomCluster& c,
                   const InstanceCatalog& catalog, Model* m) {
  double candidates_price = 0;
  bool all_spot = true;
  std::map<std::string, int> pdb_evictions;
  for (const std::string& n : cmd.candidates) {
    REQUIRE(m->nodes.count(n) == 1);
    CHECK(c.blocked.count(n) == 0);
    candidates_price += m->price[n];
    all_spot =
        all_spot && m->nodes[n].metadata.labels[std::string(karp::kLabelCapacityType)] == kSpot;
    for (const karp::Pod& p : m->pods_on[n]) {
      auto l = p.metadata.labels.find("pdb");
      if (l != p.metadata.labels.end()) ++pdb_evictions[l->second];
    }
  }
  // As in the faithful mode, a PDB blocks the nodes of its pods when it allows no eviction; one
  // that allows some lets the Eviction API pace the drain.
  CHECK(pdb_evictions["none"] == 0);
  std::set<std::string> on_replacements;
  double launch = 0;
  for (const NewNodeClaim& r : cmd.replacements) {
    REQUIRE(r.launch.has_value());
    launch += r.launch->price;
    CHECK(std::find(r.instance_types.begin(), r.instance_types.end(), r.launch->instance_type) !=
          r.instance_types.end());
    if (all_spot && r.launch->capacity_type == kSpot) CHECK(c.spot_to_spot);
    const InstanceType* it = catalog.Find(r.launch->instance_type);
    REQUIRE(it != nullptr);
    CHECK(r.requests.Get(karp::kResourceCpu) <= it->Allocatable().Get(karp::kResourceCpu));
    on_replacements.insert(r.pods.begin(), r.pods.end());
    // The label that pins pods to their target nodes while a command is validated never
    // reaches a command.
    CHECK_FALSE(r.requirements.Has("karp.sh/repack-pin"));
    CHECK(r.labels.count("karp.sh/repack-pin") == 0);
  }
  CHECK(cmd.savings_per_hour > 0);
  CHECK(cmd.savings_per_hour == Approx(candidates_price - launch).margin(1e-6));
  // Apply: replacements become nodes holding the pods they list; other pods are displaced.
  for (const NewNodeClaim& r : cmd.replacements) {
    const std::string ct = r.launch->capacity_type;
    karp::Node node =
        karp::testing::MakeNode(r.name, "1", "1Gi", 1,
                                karp::testing::ManagedNodeLabels("default", r.launch->instance_type,
                                                                 r.launch->zone, ct, true));
    const InstanceType* it = catalog.Find(r.launch->instance_type);
    node.capacity = it->capacity;
    node.allocatable = it->Allocatable();
    m->nodes[r.name] = node;
    m->price[r.name] = r.launch->price;
    m->pods_on[r.name];
  }
  for (const std::string& n : cmd.candidates) {
    for (karp::Pod p : m->pods_on[n]) {
      if (on_replacements.count(p.Key()) > 0) {
        for (const NewNodeClaim& r : cmd.replacements) {
          if (std::find(r.pods.begin(), r.pods.end(), p.Key()) != r.pods.end()) {
            p.node_name = r.name;
            m->pods_on[r.name].push_back(p);
          }
        }
      } else {
        m->displaced.push_back(p);
      }
    }
    m->nodes.erase(n);
    m->pods_on.erase(n);
    m->price.erase(n);
  }
}

// Every displaced pod fits the surviving nodes: Solve places them all without a new claim.
void CheckDisplacedFit(const Model& m, const ClusterSnapshot& original,
                       std::shared_ptr<const InstanceCatalog> catalog) {
  const ClusterSnapshot s = SnapshotOf(m, original);
  absl::StatusOr<karp::Scheduler> sched = karp::Scheduler::Create(s, catalog);
  REQUIRE(sched.ok());
  absl::StatusOr<karp::SolveResult> r = sched->Solve();
  REQUIRE(r.ok());
  INFO(karp::testing::Describe(*r));
  CHECK(r->node_claims.empty());
  CHECK(r->pod_errors.empty());
}

void CheckRandomRepacks(int seeds) {
  auto catalog = SpotCatalog();
  int with_commands = 0;
  int faithful_plans = 0;
  for (uint32_t seed = 1; seed <= static_cast<uint32_t>(seeds); ++seed) {
    std::mt19937 rng(seed);
    const RandomCluster c = MakeRandomCluster(rng, *catalog);
    ConsolidationOptions options = Repack();
    options.spot_to_spot = c.spot_to_spot;
    const ConsolidationPlan plan = MustPlan(c.snap, catalog, options);
    INFO("seed " << seed << "\n" << Describe(plan));
    REQUIRE(plan.repack.has_value());
    Model m = ModelOf(c.snap, *catalog);
    size_t disrupted = 0;
    for (const DisruptionCommand& cmd : plan.commands) {
      CheckAndApply(cmd, c, *catalog, &m);
      disrupted += cmd.candidates.size();
      CheckDisplacedFit(m, c.snap, catalog);
    }
    CHECK(static_cast<int64_t>(disrupted) <= c.budget);
    double after = 0;
    for (const auto& [n, p] : m.price) after += p;
    CHECK(plan.repack->price_after_per_hour == Approx(after).margin(1e-6));
    CHECK(plan.repack->lower_bound_per_hour <= after + 1e-6);
    ConsolidationOptions faithful_options;
    faithful_options.spot_to_spot = c.spot_to_spot;
    const ConsolidationPlan faithful = MustPlan(c.snap, catalog, faithful_options);
    INFO("faithful\n" << Describe(faithful));
    CHECK(plan.repack->price_after_per_hour <=
          plan.repack->price_before_per_hour - faithful.savings_per_hour + 1e-6);
    with_commands += plan.commands.empty() ? 0 : 1;
    faithful_plans += plan.repack->faithful_plan ? 1 : 0;
  }
  CHECK(with_commands >= seeds / 3);
  // The re-pack plan itself is what most clusters get (the faithful fallback is the exception).
  INFO("faithful plans returned: " << faithful_plans << " of " << with_commands);
  CHECK(faithful_plans * 4 <= with_commands);
}

KARP_SIZED_TEST_CASE("repack property: random clusters", "[repack][property]", 50, 150,
                     CheckRandomRepacks)

// ---------------------------------------------------------------------------------------------
// The lower bound against brute force

// A small cluster for brute force: 2-4 nodes, some blocked by a do-not-disrupt pod (they must
// stay), at most 6 pods on the others, varied cpu and memory, some pods on-demand only.
struct SmallCluster {
  ClusterSnapshot snap;
  std::set<std::string> must_stay;
};

SmallCluster MakeSmallCluster(std::mt19937& rng, const InstanceCatalog& catalog) {
  SmallCluster c;
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::vector<std::string> types = {"small", "medium", "large"};
  c.snap.node_pools.push_back(DisruptionPool(
      "default", {Expr(std::string(karp::kLabelCapacityType), Operator::kIn, {kSpot, kOnDemand})}));
  int moving = 0;
  const int nodes = pick(2, 4);
  for (int n = 0; n < nodes; ++n) {
    const std::string node = "n" + std::to_string(n);
    const std::string& type = types[static_cast<size_t>(pick(0, 2))];
    AddManagedNode(c.snap, catalog, node, "default", type, std::string(karp::testing::kZone1),
                   pick(0, 1) == 0 ? kSpot : kOnDemand);
    const bool stays = pick(0, 2) == 0;
    const int64_t cpu_free = catalog.Find(type)->Allocatable().Get(karp::kResourceCpu);
    int64_t cpu_used = 0;
    for (int p = pick(1, 3); p > 0 && (stays || moving < 6); --p) {
      const int cpu = 250 * pick(1, 6);
      if (cpu_used + cpu > cpu_free) break;
      cpu_used += cpu;
      auto b = BoundPod(node + "-p" + std::to_string(p), node, std::to_string(cpu) + "m",
                        std::to_string(512 * pick(1, 6)) + "Mi");
      if (pick(0, 3) == 0) b.NodeSelector(std::string(karp::kLabelCapacityType), kOnDemand);
      if (stays && c.must_stay.insert(node).second) {
        b.Annotation(std::string(karp::kAnnotationDoNotDisrupt), "true");
      }
      moving += stays ? 0 : 1;
      c.snap.pods.push_back(b);
    }
  }
  return c;
}

// The cheapest hourly price of any plan that keeps the must-stay nodes, by exhaustive search:
// every pod of the other nodes goes to a node that stays (in its free room), to another node
// (then kept at its price), or to a new node (the cheapest offering of a type that holds its
// pods, on demand when one of them requires it).
class BruteForce {
 public:
  BruteForce(const SmallCluster& c, const InstanceCatalog& catalog) : catalog_(catalog) {
    std::map<std::string, size_t> index;
    for (const karp::Node& n : c.snap.nodes) {
      index[n.metadata.name] = alloc_.size();
      alloc_.push_back(n.allocatable);
      used_.emplace_back();
      const bool stays = c.must_stay.count(n.metadata.name) > 0;
      price_.push_back(stays ? 0 : NodePriceOf(n, catalog));
      stays_price_ += stays ? NodePriceOf(n, catalog) : 0;
    }
    assigned_.assign(alloc_.size(), 0);
    for (const karp::Pod& p : c.snap.pods) {
      if (c.must_stay.count(p.node_name) > 0) {
        used_[index[p.node_name]].Add(p.Requests());
      } else {
        pods_.push_back(p.Requests());
        on_demand_.push_back(!p.node_selector.empty());
      }
    }
  }

  double Optimum() {
    best_ = 1e18;
    Place(0);
    return stays_price_ + best_;
  }

 private:
  static double NodePriceOf(const karp::Node& n, const InstanceCatalog& catalog) {
    return NodePrice(catalog, n.metadata.labels.at(std::string(karp::kLabelInstanceType)),
                     n.metadata.labels.at(std::string(karp::kLabelCapacityType)));
  }

  // The cheapest new node holding `used`; infinite when no type does.
  double NewNodePrice(const karp::ResourceList& used, bool on_demand) const {
    double best = 1e18;
    for (const InstanceType& it : catalog_.instance_types()) {
      if (!karp::Fits(used, it.Allocatable())) continue;
      for (const karp::Offering& o : it.offerings) {
        if (!on_demand || o.capacity_type == kOnDemand) best = std::min(best, o.price);
      }
    }
    return best;
  }

  double Cost() const {
    double cost = 0;
    for (size_t e = 0; e < alloc_.size(); ++e) cost += assigned_[e] > 0 ? price_[e] : 0;
    for (size_t b = 0; b < bins_.size(); ++b) cost += NewNodePrice(bins_[b], bin_on_demand_[b]);
    return cost;
  }

  void Place(size_t i) {
    if (i == pods_.size()) {
      best_ = std::min(best_, Cost());
      return;
    }
    const karp::ResourceList& r = pods_[i];
    for (size_t e = 0; e < alloc_.size(); ++e) {
      karp::ResourceList u = karp::ResourceList::Sum(used_[e], r);
      if (!karp::Fits(u, alloc_[e])) continue;
      std::swap(used_[e], u);
      ++assigned_[e];
      Place(i + 1);
      --assigned_[e];
      std::swap(used_[e], u);
    }
    for (size_t b = 0; b <= bins_.size(); ++b) {
      const bool fresh = b == bins_.size();
      if (fresh) {
        bins_.emplace_back();
        bin_on_demand_.push_back(false);
      }
      karp::ResourceList u = karp::ResourceList::Sum(bins_[b], r);
      const bool od = bin_on_demand_[b] || on_demand_[i];
      if (NewNodePrice(u, od) < 1e17) {
        std::swap(bins_[b], u);
        const bool was = bin_on_demand_[b];
        bin_on_demand_[b] = od;
        Place(i + 1);
        bin_on_demand_[b] = was;
        std::swap(bins_[b], u);
      }
      if (fresh) {
        bins_.pop_back();
        bin_on_demand_.pop_back();
        break;
      }
    }
  }

  const InstanceCatalog& catalog_;
  std::vector<karp::ResourceList> alloc_, used_, pods_, bins_;
  std::vector<double> price_;
  std::vector<int> assigned_;
  std::vector<bool> on_demand_, bin_on_demand_;
  double stays_price_ = 0;
  double best_ = 0;
};

void CheckBoundAgainstBruteForce(int seeds) {
  auto catalog = SpotCatalog();
  int tight = 0, with_stays = 0;
  for (uint32_t seed = 1; seed <= static_cast<uint32_t>(seeds); ++seed) {
    std::mt19937 rng(seed);
    const SmallCluster c = MakeSmallCluster(rng, *catalog);
    const ConsolidationPlan plan = MustPlan(c.snap, catalog, Repack());
    REQUIRE(plan.repack.has_value());
    const double optimum = BruteForce(c, *catalog).Optimum();
    INFO("seed " << seed << ": bound " << plan.repack->lower_bound_per_hour << ", optimum "
                 << optimum << "\n"
                 << Describe(plan));
    CHECK(plan.repack->lower_bound_per_hour <= optimum + 1e-9);
    CHECK(plan.repack->lower_bound_per_hour <= plan.repack->price_after_per_hour + 1e-9);
    double stays = 0;
    for (const karp::Node& n : c.snap.nodes) {
      if (c.must_stay.count(n.metadata.name) == 0) continue;
      stays += NodePrice(*catalog, n.metadata.labels.at(std::string(karp::kLabelInstanceType)),
                         n.metadata.labels.at(std::string(karp::kLabelCapacityType)));
    }
    CHECK(plan.repack->must_stay_price_per_hour == Approx(stays).margin(1e-9));
    with_stays += c.must_stay.empty() ? 0 : 1;
    tight += plan.repack->lower_bound_per_hour >= 0.8 * optimum ? 1 : 0;
  }
  INFO(tight << " of 120 bounds within 80 % of the optimum; " << with_stays
             << " with must-stay nodes");
  CHECK(with_stays >= seeds / 3);
  CHECK(tight >= seeds / 2);
}

KARP_SIZED_TEST_CASE(
    "repack: the cluster lower bound never exceeds the cheapest plan (brute force)",
    "[repack][bound]", 40, 120, CheckBoundAgainstBruteForce)

TEST_CASE("repack: the cluster bound pays the nodes that must stay and uses their free room",
          "[repack][bound]") {
  auto catalog = SpotCatalog();
  ClusterSnapshot snap;
  snap.node_pools.push_back(DisruptionPool(
      "default", {Expr(std::string(karp::kLabelCapacityType), Operator::kIn, {kOnDemand})}));
  // An xlarge node held by a do-not-disrupt pod, 15 of its 16 cpu free; a large node whose
  // 4 one-cpu pods fit that room.
  AddManagedNode(snap, *catalog, "stays", "default", "xlarge");
  snap.pods.push_back(BoundPod("pinned", "stays", "1")
                          .Annotation(std::string(karp::kAnnotationDoNotDisrupt), "true"));
  AddManagedNode(snap, *catalog, "moves", "default", "large");
  for (int p = 0; p < 4; ++p) snap.pods.push_back(BoundPod("m" + std::to_string(p), "moves", "1"));
  const ConsolidationPlan plan = MustPlan(snap, catalog, Repack());
  INFO(Describe(plan));
  REQUIRE(plan.repack.has_value());
  // The xlarge on demand ($0.80/h) stays; the moving pods cost nothing on top of it.
  CHECK(plan.repack->must_stay_price_per_hour == Approx(0.8));
  CHECK(plan.repack->lower_bound_per_hour == Approx(0.8));
  // Re-packing every reschedulable pod (the pinned one included) on new nodes: 5 cpu.
  CHECK(plan.repack->all_pods_lower_bound_per_hour == Approx(0.25));
  CHECK(plan.repack->price_after_per_hour == Approx(0.8));
}

}  // namespace
