// Tests of the cluster simulator (karp/sim/simulator.h) and of its trace readers.

#include "karp/sim/simulator.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "karp/catalog.h"
#include "karp/labels.h"
#include "karp/scheduler.h"
#include "support/builders.h"
#include "support/disruption_builders.h"
#include "support/storage_builders.h"

#ifdef KARP_TEST_HAVE_JSON
#include "karp/json/sim_trace.h"
#endif
#include "support/source_dir.h"

namespace karp::sim {
namespace {

using karp::testing::MakeOffering;
using karp::testing::Resources;
using karp::testing::TypeWithOfferings;

// small (2 cpu) $0.10, medium (4 cpu) $0.20, large (8 cpu) $0.40 on-demand; spot at 30 %;
// zones z1 and z2.
std::shared_ptr<const InstanceCatalog> TestCatalog() {
  std::vector<InstanceType> types;
  const std::tuple<const char*, const char*, const char*, double> shapes[] = {
      {"small", "2", "8Gi", 0.10}, {"medium", "4", "16Gi", 0.20}, {"large", "8", "32Gi", 0.40}};
  for (const auto& [name, cpu, mem, price] : shapes) {
    std::vector<Offering> offerings;
    for (const char* zone : {"z1", "z2"}) {
      offerings.push_back(MakeOffering(zone, "on-demand", price));
      offerings.push_back(MakeOffering(zone, "spot", price * 0.3));
    }
    types.push_back(TypeWithOfferings(name, cpu, mem, 110, offerings));
  }
  absl::StatusOr<InstanceCatalog> c = InstanceCatalog::Create(std::move(types));
  REQUIRE(c.ok());
  return std::make_shared<const InstanceCatalog>(std::move(*c));
}

NodePool Pool(std::optional<absl::Duration> consolidate_after = absl::Minutes(1)) {
  NodePool np;
  np.metadata.name = "default";
  np.consolidate_after = consolidate_after;
  Budget b;
  b.nodes = "100%";
  np.budgets = {b};
  return np;
}

PodShape Cpu(std::string_view cpu) {
  PodShape s;
  s.requests = Resources(cpu, "1Gi");
  return s;
}

Trace BaseTrace(absl::Duration duration) {
  Trace t;
  t.name = "test";
  t.duration = duration;
  t.cluster.node_pools.push_back(Pool());
  t.baseline_instance_types["default"] = {"medium"};
  return t;
}

Policy Karpenter(std::string capacity_type = "on-demand",
                 ConsolidationPolicy cp = ConsolidationPolicy::kWhenEmptyOrUnderutilized) {
  Policy p;
  p.name = "karp";
  p.consolidation_policy = cp;
  p.capacity_types = {std::move(capacity_type)};
  return p;
}

Policy Static() {
  Policy p;
  p.name = "static";
  p.kind = Policy::Kind::kStaticGroups;
  return p;
}

SimResult Run(const Trace& trace, const Policy& policy, SimOptions options = {}) {
  absl::StatusOr<SimResult> r = Simulate(trace, TestCatalog(), policy, options);
  INFO(r.status().message());
  REQUIRE(r.ok());
  return std::move(*r);
}

std::vector<const SimEvent*> EventsOf(const SimResult& r, std::string_view kind) {
  std::vector<const SimEvent*> out;
  for (const SimEvent& e : r.events) {
    if (e.kind == kind) out.push_back(&e);
  }
  return out;
}

std::string Dump(const SimResult& r) {
  std::string out;
  for (const SimEvent& e : r.events) {
    out += absl::FormatDuration(e.at) + " " + e.kind + " " + e.detail + "\n";
  }
  return out;
}

const Sample& SampleAt(const SimResult& r, absl::Duration at) {
  for (const Sample& s : r.samples) {
    if (s.at == at) return s;
  }
  FAIL("no sample at " << absl::FormatDuration(at));
  return r.samples.front();
}

Trace InflateTrace() {
  Trace t = BaseTrace(absl::Minutes(30));
  DeploymentTrace d;
  d.name = "inflate";
  d.pod = Cpu("1");
  d.replicas = {{absl::ZeroDuration(), 5}, {absl::Minutes(10), 0}};
  t.deployments.push_back(d);
  return t;
}

TEST_CASE("Simulator inflate trace peaks at the solved node count and ends with no nodes",
          "[sim]") {
  const Trace trace = InflateTrace();
  const SimResult r = Run(trace, Karpenter());
  INFO(Dump(r));

  // The expected peak: what one Solve of the five pending pods launches.
  ClusterSnapshot snap;
  snap.node_pools.push_back(Pool());
  for (int i = 0; i < 5; ++i)
    snap.pods.push_back(testing::MakePod("p" + std::to_string(i), "1", "1Gi").pod());
  absl::StatusOr<Scheduler> s = Scheduler::Create(snap, TestCatalog());
  REQUIRE(s.ok());
  absl::StatusOr<SolveResult> solved = s->Solve();
  REQUIRE(solved.ok());
  const int expected_peak = static_cast<int>(solved->node_claims.size());
  CHECK(expected_peak == 1);

  int peak = 0;
  for (const Sample& x : r.samples) peak = std::max(peak, x.nodes + x.launching);
  CHECK(peak == expected_peak);
  CHECK(r.summary.max_nodes == expected_peak);
  CHECK(SampleAt(r, absl::Minutes(5)).pods_running == 5);
  CHECK(SampleAt(r, absl::Minutes(5)).nodes == expected_peak);
  const Sample& last = r.samples.back();
  CHECK(last.at == absl::Minutes(30));
  CHECK(last.nodes == 0);
  CHECK(last.launching == 0);
  CHECK(last.price_per_hour == 0);
  // Deleted by emptiness once consolidateAfter (1m) passed after the scale-down at 10m.
  REQUIRE(EventsOf(r, "drain").size() == 1);
  CHECK(EventsOf(r, "drain")[0]->at == absl::Minutes(11));
  CHECK(r.summary.disruptions.at("empty") == 1);
  CHECK(r.summary.evictions == 0);
  // Pods waited for the batch (1 s idle) and the launch (45 s).
  CHECK(r.summary.pending_p50_seconds == 46);
  // The node existed from the launch at 1 s to 11 min.
  CHECK(r.summary.total_cost ==
        Approx(0.40 * absl::ToDoubleHours(absl::Minutes(11) - absl::Seconds(1))));
}

TEST_CASE("Simulator keeps a workload with a zonal volume in the volume's zone", "[sim][volumes]") {
  // Without the claim every launch goes to z1 (equal prices, ties by zone name).
  const SimResult control = Run(InflateTrace(), Karpenter());
  REQUIRE_FALSE(EventsOf(control, "launch").empty());
  for (const SimEvent* e : EventsOf(control, "launch"))
    CHECK(e->detail.find(" z1 ") != std::string::npos);

  Trace t = InflateTrace();
  t.cluster.persistent_volumes.push_back(testing::ZonalVolume("pv-shared", {"z2"}));
  t.cluster.persistent_volume_claims.push_back(testing::BoundClaim("shared", "pv-shared"));
  t.deployments[0].pod.claims = {"shared"};
  for (const Policy& policy : {Karpenter(), Static()}) {
    const SimResult r = Run(t, policy);
    INFO(policy.name << "\n" << Dump(r));
    REQUIRE_FALSE(EventsOf(r, "launch").empty());
    for (const SimEvent* e : EventsOf(r, "launch")) {
      CHECK(e->detail.find(" z2 ") != std::string::npos);
    }
    CHECK(SampleAt(r, absl::Minutes(5)).pods_running == 5);
    CHECK(r.summary.pods_never_scheduled == 0);
  }
}

TEST_CASE("Simulator batches pods until 1 s of idle time", "[sim]") {
  Trace t = BaseTrace(absl::Minutes(2));
  for (double at : {0.0, 0.5, 1.2}) {
    PodTrace p;
    p.name = "p" + std::to_string(static_cast<int>(at * 10));
    p.pod = Cpu("100m");
    p.arrive_at = absl::Seconds(at);
    t.pods.push_back(p);
  }
  const SimResult r = Run(t, Karpenter());
  INFO(Dump(r));
  const std::vector<const SimEvent*> prov = EventsOf(r, "provision");
  REQUIRE(!prov.empty());
  CHECK(prov[0]->at == absl::Milliseconds(2200));  // 1.2 s + 1 s idle
  CHECK(prov[0]->detail.rfind("3 pod(s): 1 new claim(s)", 0) == 0);
  CHECK(EventsOf(r, "launch").size() == 1);
}

TEST_CASE("Simulator closes a busy batch window after 10 s", "[sim]") {
  Trace t = BaseTrace(absl::Minutes(2));
  for (int i = 0; i <= 30; ++i) {  // a pod every 0.5 s for 15 s
    PodTrace p;
    p.name = "p" + std::to_string(i);
    p.pod = Cpu("100m");
    p.arrive_at = absl::Milliseconds(500 * i);
    t.pods.push_back(p);
  }
  const SimResult r = Run(t, Karpenter());
  INFO(Dump(r));
  const std::vector<const SimEvent*> prov = EventsOf(r, "provision");
  REQUIRE(prov.size() >= 2);
  CHECK(prov[0]->at == absl::Seconds(10));
  CHECK(prov[0]->detail.rfind("21 pod(s)", 0) == 0);  // arrivals at 0, 0.5, ..., 10 s
  // The next window opens with the pod at 10.5 s and closes 1 s after the last one (15 s).
  CHECK(prov[1]->at == absl::Seconds(16));
  CHECK(SampleAt(r, absl::Minutes(2)).pods_pending == 0);
}

TEST_CASE("Simulator launch falls back when the chosen offering has no capacity", "[sim]") {
  Trace t = BaseTrace(absl::Minutes(10));
  DeploymentTrace d;
  d.name = "web";
  d.pod = Cpu("1");
  d.replicas = {{absl::ZeroDuration(), 3}};
  t.deployments.push_back(d);
  // Without errors the three pods go to one medium in z1 (cheapest, zone ties by name).
  const SimResult plain = Run(t, Karpenter());
  REQUIRE(EventsOf(plain, "launch").size() == 1);
  REQUIRE(EventsOf(plain, "launch")[0]->detail == "default-1 medium on-demand z1 $0.2000/h");

  t.capacity_errors.push_back(
      {absl::ZeroDuration(), absl::InfiniteDuration(), "on-demand", "medium", "z1"});
  const SimResult r = Run(t, Karpenter());
  INFO(Dump(r));
  REQUIRE(EventsOf(r, "ice").size() == 1);
  REQUIRE(EventsOf(r, "launch").size() == 1);
  CHECK(EventsOf(r, "launch")[0]->detail == "default-1 medium on-demand z2 $0.2000/h");
  CHECK(r.summary.capacity_errors == 1);
  CHECK(r.summary.launch_failures == 0);
  CHECK(SampleAt(r, absl::Minutes(2)).pods_running == 3);
}

TEST_CASE("Simulator relaunches with other types when every offering of a type fails", "[sim]") {
  Trace t = BaseTrace(absl::Minutes(10));
  DeploymentTrace d;
  d.name = "web";
  d.pod = Cpu("1");
  d.replicas = {{absl::ZeroDuration(), 3}};
  t.deployments.push_back(d);
  for (const char* type : {"medium", "large"}) {
    for (const char* zone : {"z1", "z2"}) {
      t.capacity_errors.push_back(
          {absl::ZeroDuration(), absl::InfiniteDuration(), "on-demand", type, zone});
    }
  }
  const SimResult r = Run(t, Karpenter());
  INFO(Dump(r));
  // The claim could only be medium or large: all four offerings fail, the launch fails, and
  // the next solve (10 s later) sees them unavailable and packs the pods onto two smalls.
  CHECK(r.summary.launch_failures == 1);
  CHECK(r.summary.capacity_errors == 4);
  const std::vector<const SimEvent*> launches = EventsOf(r, "launch");
  REQUIRE(launches.size() == 2);
  CHECK(launches[0]->detail.find(" small on-demand ") != std::string::npos);
  CHECK(launches[0]->at == absl::Seconds(12));
  CHECK(SampleAt(r, absl::Minutes(2)).pods_running == 3);
}

TEST_CASE("Simulator replaces an interrupted spot node within the two-minute notice", "[sim]") {
  Trace t = BaseTrace(absl::Minutes(20));
  DeploymentTrace d;
  d.name = "web";
  d.pod = Cpu("1");
  d.replicas = {{absl::ZeroDuration(), 4}};
  t.deployments.push_back(d);
  t.interruptions.push_back({absl::Minutes(10), "", "spot"});
  const SimResult r = Run(t, Karpenter("spot"));
  INFO(Dump(r));
  const std::vector<const SimEvent*> notices = EventsOf(r, "interrupt-notice");
  REQUIRE(notices.size() == 1);
  CHECK(notices[0]->at == absl::Minutes(10));
  CHECK(r.summary.interruptions == 1);
  // The replacement launches at the notice; the node drains once it is ready (45 s), before
  // the cloud reclaims it at +2 min.
  const std::vector<const SimEvent*> launches = EventsOf(r, "launch");
  REQUIRE(launches.size() == 2);
  CHECK(launches[1]->at == absl::Minutes(10));
  const std::vector<const SimEvent*> drains = EventsOf(r, "drain");
  REQUIRE(drains.size() == 1);
  CHECK(drains[0]->at == absl::Minutes(10) + absl::Seconds(45));
  CHECK(drains[0]->at < absl::Minutes(12));
  CHECK(r.summary.disruptions.at("interrupted") == 1);
  CHECK(r.summary.disruptions.count("reclaimed") == 0);
  CHECK(EventsOf(r, "interrupt-terminate").empty());
  CHECK(r.summary.evictions == 4);
  // Evicted pods land on the replacement at once.
  CHECK(r.summary.pending_max_seconds == 46);
  const Sample& at12 = SampleAt(r, absl::Minutes(12));
  CHECK(at12.pods_running == 4);
  CHECK(at12.nodes == 1);
}

TEST_CASE("Simulator static groups reclaim an interrupted node only at the deadline", "[sim]") {
  Trace t = BaseTrace(absl::Minutes(20));
  DeploymentTrace d;
  d.name = "web";
  d.pod = Cpu("1");
  d.replicas = {{absl::ZeroDuration(), 2}};
  t.deployments.push_back(d);
  t.interruptions.push_back({absl::Minutes(5), "default-1", ""});
  const SimResult r = Run(t, Static());
  INFO(Dump(r));
  CHECK(r.summary.disruptions.at("reclaimed") == 1);
  const std::vector<const SimEvent*> drains = EventsOf(r, "drain");
  REQUIRE(drains.size() == 1);
  CHECK(drains[0]->at == absl::Minutes(7));
  // The pods go pending and the group scales up again at its next scan.
  CHECK(SampleAt(r, absl::Minutes(7)).pods_pending == 2);
  CHECK(SampleAt(r, absl::Minutes(9)).pods_running == 2);
}

TEST_CASE("Simulator static groups scale down after 10 minutes under 50 percent", "[sim]") {
  Trace t = BaseTrace(absl::Minutes(40));
  DeploymentTrace d;
  d.name = "web";
  d.pod = Cpu("1");
  d.replicas = {{absl::ZeroDuration(), 6}, {absl::Minutes(10), 2}};
  t.deployments.push_back(d);
  const SimResult r = Run(t, Static());
  INFO(Dump(r));
  // Six 1-cpu pods need two mediums (4 cpu each).
  CHECK(SampleAt(r, absl::Minutes(5)).nodes == 2);
  // After the scale-down to 2 pods both nodes are under 50 %; one goes after 10 minutes and
  // its pods move to the other.
  const std::vector<const SimEvent*> drains = EventsOf(r, "drain");
  REQUIRE(drains.size() == 1);
  CHECK(drains[0]->at == absl::Minutes(20));
  CHECK(r.summary.disruptions.at("scale-down") == 1);
  CHECK(r.samples.back().nodes == 1);
  CHECK(r.samples.back().pods_running == 2);
}

TEST_CASE("Simulator consolidates underutilized nodes only under WhenEmptyOrUnderutilized",
          "[sim]") {
  Trace t = BaseTrace(absl::Minutes(30));
  for (const char* name : {"a", "b"}) {
    DeploymentTrace d;
    d.name = name;
    d.pod = Cpu("3");
    d.replicas = {{absl::ZeroDuration(), 2}, {absl::Minutes(5), 1}};
    t.deployments.push_back(d);
  }
  // a: 2 pods at t=0 -> after the first solve, b arrives too (same instant): 4 pods of 3 cpu.
  const SimResult under = Run(t, Karpenter());
  const SimResult empty = Run(t, Karpenter("on-demand", ConsolidationPolicy::kWhenEmpty));
  INFO(Dump(under));
  INFO(Dump(empty));
  CHECK(under.summary.disruptions.count("underutilized") == 1);
  CHECK(empty.summary.disruptions.count("underutilized") == 0);
  CHECK(under.samples.back().price_per_hour < empty.samples.back().price_per_hour);
  CHECK(under.summary.total_cost < empty.summary.total_cost);
  CHECK(under.samples.back().pods_running == 2);
  CHECK(empty.samples.back().pods_running == 2);
}

TEST_CASE("Simulator expires nodes after expireAfter and reschedules their pods", "[sim]") {
  Trace t = BaseTrace(absl::Minutes(50));
  t.cluster.node_pools[0].expire_after = absl::Minutes(20);
  DeploymentTrace d;
  d.name = "web";
  d.pod = Cpu("1");
  d.replicas = {{absl::ZeroDuration(), 2}};
  t.deployments.push_back(d);
  const SimResult r = Run(t, Karpenter());
  INFO(Dump(r));
  REQUIRE(r.summary.disruptions.count("expired") == 1);
  CHECK(r.summary.disruptions.at("expired") >= 1);
  CHECK(r.summary.evictions >= 2);
  CHECK(r.samples.back().pods_running == 2);
  CHECK(r.samples.back().nodes == 1);
}

// Three hours of churn: a deployment scaling up and down, periodic jobs, drawn spot
// interruptions and a capacity shortage.
Trace ChurnTrace() {
  Trace t = BaseTrace(absl::Hours(3));
  t.seed = 42;
  t.spot_interruption_rate = 0.5;
  DeploymentTrace d;
  d.name = "web";
  d.pod = Cpu("500m");
  for (int i = 0; i < 18; ++i) d.replicas.push_back({absl::Minutes(10 * i), (i * 7) % 13});
  t.deployments.push_back(d);
  JobTrace j;
  j.name = "batch";
  j.pod = Cpu("2");
  j.at = absl::Minutes(5);
  j.every = absl::Minutes(25);
  j.parallelism = 3;
  j.run_for = absl::Minutes(12);
  t.jobs.push_back(j);
  t.capacity_errors.push_back({absl::Minutes(30), absl::Minutes(90), "spot", "medium", ""});
  return t;
}

TEST_CASE("Simulator runs are deterministic", "[sim]") {
  Trace t = ChurnTrace();
  for (const Policy& p : {Karpenter("spot"), Static()}) {
    const SimResult a = Run(t, p);
    const SimResult b = Run(t, p);
    CHECK(WriteSamplesCsv({a}) == WriteSamplesCsv({b}));
    CHECK(Dump(a) == Dump(b));
    CHECK(WriteSummaryTable({a}) == WriteSummaryTable({b}));
    CHECK(a.summary.pods > 20);
  }
  // The seed matters: another seed draws other interruptions.
  const SimResult s1 = Run(t, Karpenter("spot"));
  t.seed = 43;
  const SimResult s2 = Run(t, Karpenter("spot"));
  CHECK(Dump(s1) != Dump(s2));
}

// Cached snapshots and reused schedulers and consolidators (SimOptions::reuse_state) must
// not change a decision: the same runs prepared afresh for every solve and plan give the same
// samples, events and summary, over a trace that changes the cluster in every way a view
// depends on (arrivals, departures, jobs, launches, capacity errors, interruptions,
// consolidation).
TEST_CASE("Simulator reuse of prepared state changes no result", "[sim]") {
  const Trace t = ChurnTrace();
  SimOptions fresh;
  fresh.reuse_state = false;
  const Policy policies[] = {Karpenter("spot"), Karpenter("on-demand"),
                             Karpenter("on-demand", ConsolidationPolicy::kWhenEmpty), Static()};
  for (size_t i = 0; i < std::size(policies); ++i) {
    const Policy& p = policies[i];
    INFO("policy " << i << ": " << p.name);
    const SimResult reused = Run(t, p);
    const SimResult prepared = Run(t, p, fresh);
    CHECK(reused.summary.plans + reused.summary.solves > 20);
    CHECK(Dump(reused) == Dump(prepared));
    CHECK(WriteSamplesCsv({reused}) == WriteSamplesCsv({prepared}));
    CHECK(WriteSummaryTable({reused}) == WriteSummaryTable({prepared}));
  }
}

TEST_CASE("Simulator rejects invalid options and traces", "[sim]") {
  SimOptions bad;
  bad.batch_idle = absl::ZeroDuration();
  absl::StatusOr<SimResult> r = Simulate(InflateTrace(), TestCatalog(), Karpenter(), bad);
  REQUIRE(!r.ok());
  CHECK(std::string(r.status().message()) ==
        "simulator options: batch_idle must be a positive finite duration");

  Trace t = InflateTrace();
  t.baseline_instance_types.clear();
  r = Simulate(t, TestCatalog(), Static());
  REQUIRE(!r.ok());
  CHECK(std::string(r.status().message())
            .find("baseline.instanceTypes: no instance type for "
                  "nodepool \"default\"") != std::string::npos);

  t = InflateTrace();
  t.capacity_errors.push_back({absl::ZeroDuration(), absl::InfiniteDuration(), "spot", "huge", ""});
  r = Simulate(t, TestCatalog(), Karpenter());
  REQUIRE(!r.ok());
  CHECK(std::string(r.status().message()) ==
        "trace test: capacityErrors[0].instanceType: unknown instance type \"huge\"");
}

TEST_CASE("Simulator standard policies and CSV format", "[sim]") {
  std::vector<std::string> names;
  for (const Policy& p : StandardPolicies()) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"underutilized-spot", "underutilized-on-demand",
                                          "empty-spot", "empty-on-demand", "static-groups"});
  SimOptions o;
  o.sample_interval = absl::Minutes(10);
  const SimResult r = Run(InflateTrace(), Karpenter(), o);
  CHECK(WriteSamplesCsv({r}) ==
        "policy,time_s,nodes,launching,pods_running,pods_pending,price_per_hour,disruptions,"
        "evictions\n"
        "karp,0,0,0,0,5,0.0000,0,0\n"
        "karp,600,1,0,0,0,0.4000,0,0\n"
        "karp,1200,0,0,0,0,0.0000,1,0\n"
        "karp,1800,0,0,0,0,0.0000,0,0\n");
}

TEST_CASE("Simulator catalog models spot prices below on-demand", "[sim]") {
  absl::StatusOr<InstanceCatalog> c = SimulationCatalog();
  REQUIRE(c.ok());
  const InstanceType* m5 = c->Find("m5.large");
  REQUIRE(m5 != nullptr);
  for (const Offering& o : m5->offerings) {
    if (o.capacity_type != "spot") continue;
    CHECK(o.price >= 0.096 * 0.30 - 1e-9);
    CHECK(o.price < 0.096 * 0.45);
  }
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = (std::filesystem::temp_directory_path() / ("karp-sim-test-" + name)).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST_CASE("Simulator openb loader reads rows and names bad ones", "[sim]") {
  const std::string good =
      WriteTemp("openb-good.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                "deletion_time,scheduled_time\n"
                "pod-a,4000,8192,0,0,,LS,Running,0,600,0\n"
                "pod-b,8000,16384,1,500,,LS,Running,100,5000,100\n"
                "pod-c,1000,1024,0,0,,BE,Failed,7000,8000,7000\n");
  absl::StatusOr<Trace> t = LoadOpenbTrace(good, absl::ZeroDuration(), absl::Hours(1));
  std::remove(good.c_str());
  REQUIRE(t.ok());
  REQUIRE(t->pods.size() == 2);  // pod-c arrives after the window
  CHECK(t->duration == absl::Hours(1));
  CHECK(t->pods[0].pod.requests.cpu() == 4000);
  CHECK(t->pods[0].leave_at == absl::Seconds(600));
  CHECK(t->pods[1].pod.requests.Get("nvidia.com/gpu") == 1);
  CHECK(t->pods[1].leave_at == absl::InfiniteDuration());
  CHECK(t->cluster.node_pools.size() == 2);

  const std::string bad =
      WriteTemp("openb-bad.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"
                "pod-a,4000,8192,0,0,0,600\n"
                "pod-b,lots,8192,0,0,0,600\n");
  t = LoadOpenbTrace(bad);
  std::remove(bad.c_str());
  REQUIRE(!t.ok());
  CHECK(std::string(t.status().message()) ==
        bad + ": line 3: column cpu_milli: expected a non-negative integer, got \"lots\"");
  CHECK(LoadOpenbTrace("/nonexistent/openb.csv").status().code() == absl::StatusCode::kNotFound);
}

// Found by fuzz/openb_fuzz: memory_mib * 2^20 overflowed int64 (undefined behaviour, and a
// negative or wrapped memory request) instead of being rejected.
TEST_CASE("Simulator openb loader rejects memory that overflows bytes", "[sim]") {
  const std::string header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n";
  const std::string big =
      WriteTemp("openb-big.csv", header + "pod-a,1000,99999999999999999,0,0,0,60\n");
  absl::StatusOr<Trace> t = LoadOpenbTrace(big);
  std::remove(big.c_str());
  REQUIRE(!t.ok());
  CHECK(t.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(t.status().message()) ==
        big + ": line 2: column memory_mib: 99999999999999999 MiB does not fit in bytes");
  // The largest representable value still loads.
  const std::string max =
      WriteTemp("openb-max.csv",
                header + "pod-a,1000," + std::to_string(INT64_MAX / (1024 * 1024)) + ",0,0,0,60\n");
  t = LoadOpenbTrace(max);
  std::remove(max.c_str());
  REQUIRE(t.ok());
  CHECK(t->pods[0].pod.requests.memory() == INT64_MAX / (1024 * 1024) * 1024 * 1024);
}

#ifdef KARP_TEST_HAVE_JSON
constexpr char kMinimalTrace[] = R"(name: t
duration: 30m
cluster:
  - apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata: {name: default}
    spec: {template: {spec: {requirements: []}}}
)";

// Found by fuzz/sim_trace_fuzz: a few hundred bytes of diurnal deployments (a year sampled
// every second) expanded to tens of millions of replica steps, gigabytes and tens of seconds.
TEST_CASE("Simulator trace parser bounds the diurnal samples of a trace", "[sim]") {
  const std::string head =
      std::string(kMinimalTrace)
          .replace(std::string(kMinimalTrace).find("duration: 30m"), 13, "duration: 8000h");
  auto diurnal = [](const std::string& name, const std::string& step) {
    return "  - name: " + name +
           "\n    requests: {cpu: 1}\n    diurnal: {min: 0, max: 4, step: " + step + "}\n";
  };
  // A year at one sample per second: 28.8 million samples.
  absl::StatusOr<Trace> t =
      json::ParseSimTrace(head + "deployments:\n" + diurnal("web", "1s"), "t.yaml");
  REQUIRE(!t.ok());
  CHECK(t.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(t.status().message())
            .rfind("t.yaml: deployments[0].diurnal.step: 28800000 samples", 0) == 0);
  // The bound is per trace: each of these is allowed alone, not both together.
  t = json::ParseSimTrace(head + "deployments:\n" + diurnal("a", "30s"), "t.yaml");
  CHECK(t.ok());
  t = json::ParseSimTrace(head + "deployments:\n" + diurnal("a", "30s") + diurnal("b", "30s"),
                          "t.yaml");
  REQUIRE(!t.ok());
  CHECK(std::string(t.status().message()).rfind("t.yaml: deployments[1].diurnal.step: ", 0) == 0);
}

TEST_CASE("Simulator trace parser names the file and field of bad input", "[sim]") {
  auto error = [](const std::string& extra) {
    absl::StatusOr<Trace> t = json::ParseSimTrace(std::string(kMinimalTrace) + extra, "t.yaml");
    REQUIRE(!t.ok());
    CHECK(t.status().code() == absl::StatusCode::kInvalidArgument);
    return std::string(t.status().message());
  };
  REQUIRE(json::ParseSimTrace(kMinimalTrace, "t.yaml").ok());
  CHECK(error("deployments:\n  - name: web\n    requests: {cpu: 1}\n    replicas:\n"
              "      - {at: 0s, replicas: 2}\n      - {at: soon, replicas: 0}\n")
            .rfind("t.yaml: deployments[0].replicas[1].at: invalid duration \"soon\"", 0) == 0);
  CHECK(error("deployments:\n  - name: web\n    requests: {cpu: lots}\n    replicas: []\n")
            .rfind("t.yaml: deployments[0].requests.cpu: ", 0) == 0);
  CHECK(error("jobs:\n  - {name: etl, requests: {cpu: 1}}\n") ==
        "t.yaml: jobs[0].runFor: required");
  CHECK(error("colour: blue\n") == "t.yaml: colour: unknown field");
  CHECK(error("interruptions:\n  - {at: 1m}\n") ==
        "t.yaml: interruptions[0]: exactly one of node and capacityType is required");
  CHECK(error("deployments:\n  - {name: Web_1, requests: {cpu: 1}, replicas: []}\n")
            .rfind("t.yaml: deployments[0].name: invalid name", 0) == 0);
  absl::StatusOr<Trace> nocluster = json::ParseSimTrace("duration: 1h\n", "x.json");
  REQUIRE(!nocluster.ok());
  CHECK(std::string(nocluster.status().message()) ==
        "x.json: cluster: required (NodePools and DaemonSets)");
  absl::StatusOr<Trace> badpool = json::ParseSimTrace(
      "duration: 1h\ncluster:\n  - {apiVersion: karpenter.sh/v1, kind: NodePool, metadata: "
      "{name: a}, spec: {disruption: {consolidateAfter: forever}}}\n",
      "p.yaml");
  REQUIRE(!badpool.ok());
  CHECK(std::string(badpool.status().message()).rfind("p.yaml: cluster: ", 0) == 0);
  CHECK(std::string(badpool.status().message()).find("consolidateAfter") != std::string::npos);
  CHECK(json::ReadSimTraceFile("/nonexistent/trace.yaml").status().code() ==
        absl::StatusCode::kNotFound);
}

TEST_CASE("Simulator traces declare storage in the cluster and claims per workload",
          "[sim][volumes]") {
  const std::string storage = R"(  - apiVersion: v1
    kind: PersistentVolume
    metadata: {name: pv-db}
    spec:
      csi: {driver: ebs.csi.aws.com}
      nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [
        {key: topology.kubernetes.io/zone, operator: In, values: [z2]}]}]}}
  - apiVersion: v1
    kind: PersistentVolumeClaim
    metadata: {name: db, namespace: data, annotations: {pv.kubernetes.io/bind-completed: "yes"}}
    spec: {volumeName: pv-db}
    status: {phase: Bound}
)";
  const std::string workload =
      "deployments:\n  - name: db\n    namespace: data\n    requests: {cpu: 1}\n"
      "    claims: [db]\n    replicas: [{at: 0s, replicas: 1}]\n";
  absl::StatusOr<Trace> t =
      json::ParseSimTrace(std::string(kMinimalTrace) + storage + workload, "t.yaml");
  INFO(t.status().message());
  REQUIRE(t.ok());
  CHECK(t->cluster.persistent_volumes.size() == 1);
  CHECK(t->cluster.persistent_volume_claims.size() == 1);
  CHECK(t->deployments[0].pod.claims == std::vector<std::string>{"db"});

  std::string wrong = workload;
  wrong.replace(wrong.find("namespace: data"), 15, "namespace: web");
  absl::StatusOr<Trace> bad =
      json::ParseSimTrace(std::string(kMinimalTrace) + storage + wrong, "t.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()) ==
        "t.yaml: deployments[0].claims[0]: no PersistentVolumeClaim \"db\" in namespace web in "
        "cluster");
  bad = json::ParseSimTrace(std::string(kMinimalTrace) + storage +
                                "pods:\n  - {name: p, requests: {cpu: 1}, claims: [db, 3]}\n",
                            "t.yaml");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()).rfind("t.yaml: pods[0].claims[1]: ", 0) == 0);
}

TEST_CASE("Simulator diurnal replicas follow a daily cosine", "[sim]") {
  absl::StatusOr<Trace> t = json::ParseSimTrace(
      std::string(kMinimalTrace) +
          "deployments:\n  - name: web\n    requests: {cpu: 1}\n"
          "    diurnal: {min: 2, max: 10, peakAt: 12h, period: 24h, step: 1h}\n",
      "t.yaml");
  // duration 30m: only t=0 (midnight, the trough) is sampled.
  REQUIRE(t.ok());
  REQUIRE(t->deployments[0].replicas.size() == 1);
  CHECK(t->deployments[0].replicas[0].second == 2);
  std::string day = kMinimalTrace;
  day.replace(day.find("30m"), 3, "24h");
  t = json::ParseSimTrace(day +
                              "deployments:\n  - name: web\n    requests: {cpu: 1}\n"
                              "    diurnal: {min: 2, max: 10, peakAt: 12h, step: 1h}\n",
                          "t.yaml");
  REQUIRE(t.ok());
  // Steps are emitted when the count changes; the count at a time is the last step's.
  auto at = [&](absl::Duration when) {
    int64_t n = 0;
    for (const auto& [t0, r] : t->deployments[0].replicas) {
      if (t0 <= when) n = r;
    }
    return n;
  };
  CHECK(at(absl::ZeroDuration()) == 2);  // midnight: the trough
  CHECK(at(absl::Hours(6)) == 6);        // halfway
  CHECK(at(absl::Hours(12)) == 10);      // the peak
  CHECK(at(absl::Hours(18)) == 6);
  for (const auto& [t0, r] : t->deployments[0].replicas) {
    CHECK(r >= 2);
    CHECK(r <= 10);
  }
}

TEST_CASE("Simulator bundled traces parse and the inflate trace scales to zero", "[sim]") {
  const std::string dir = karp::testing::SourceDir() + "/examples/traces/";
  for (const char* name : {"inflate.yaml", "diurnal-day.yaml"}) {
    absl::StatusOr<Trace> t = json::ReadSimTraceFile(dir + name);
    INFO(name << ": " << t.status().message());
    REQUIRE(t.ok());
    CHECK(!t->baseline_instance_types.empty());
  }
  absl::StatusOr<Trace> inflate = json::ReadSimTraceFile(dir + "inflate.yaml");
  REQUIRE(inflate.ok());
  absl::StatusOr<InstanceCatalog> c = SimulationCatalog();
  REQUIRE(c.ok());
  auto catalog = std::make_shared<const InstanceCatalog>(std::move(*c));
  for (const Policy& p : StandardPolicies()) {
    absl::StatusOr<SimResult> r = Simulate(*inflate, catalog, p);
    INFO(p.name << ": " << r.status().message());
    REQUIRE(r.ok());
    CHECK(r->summary.max_nodes >= 1);
    CHECK(r->samples.back().nodes == 0);
    CHECK(r->samples.back().pods_running == 0);
    CHECK(r->summary.pods_never_scheduled == 0);
  }
}
#endif  // KARP_TEST_HAVE_JSON

TEST_CASE("Simulator replays a window of the openb production trace", "[sim][openb]") {
  const std::string path =
      karp::testing::SourceDir() + "/../shared/data/traces/openb_pod_list_default.csv";
  if (!std::ifstream(path)) {
    WARN("skipped: " << path << " not found (the shared data set is absent)");
    return;
  }
  // Two busy hours around the trace's peak of live pods.
  absl::StatusOr<Trace> t = LoadOpenbTrace(path, absl::Seconds(11815000), absl::Seconds(11822200));
  REQUIRE(t.ok());
  CHECK(t->pods.size() > 40);
  absl::StatusOr<InstanceCatalog> c = SimulationCatalog();
  REQUIRE(c.ok());
  SimOptions o;
  o.record_events = false;
  absl::StatusOr<SimResult> r = Simulate(*t, std::make_shared<const InstanceCatalog>(std::move(*c)),
                                         StandardPolicies()[1], o);
  INFO(r.status().message());
  REQUIRE(r.ok());
  CHECK(r->summary.max_nodes > 0);
  CHECK(r->summary.pods_never_scheduled == 0);
  CHECK(r->samples.back().pods_pending == 0);
}

}  // namespace
}  // namespace karp::sim
