// Property test of Scheduler::Solve: random small snapshots, every result checked by an
// independent validator written from docs/design.md §5 and docs/formats.md §3.
//
// The validator never calls scheduler internals. It uses the model types and the
// requirement/taint algebra (tested on their own) and re-derives everything else: pod
// requests, allocatable, offering compatibility, DaemonSet overhead, price order, the launch
// choice, the topology domain universe.
//
// Checked for every case:
//  * every pending pod appears exactly once: on a new claim, on an existing node, or in
//    pod_errors; pod_errors are sorted and unique; claims are named <pool>-<n> in order;
//  * new claims: every listed type exists, intersects the claim requirements, has an
//    available offering they allow and fits the pods plus the DaemonSets that run on it; the
//    list is sorted by the cheapest allowed offering (ties by name), holds at most
//    max_instance_types entries and, for pools without limits, is complete (no cheaper
//    eligible type was left out); requests = pods + the smallest overhead; the launch is the
//    cheapest allowed offering of a listed type with the documented tie-breaks;
//  * pods on a claim tolerate the pool taints (PreferNoSchedule only when some eligible pool
//    has such a taint), and the claim requirements are narrowed to their node selectors and to
//    one of their required node-affinity terms;
//  * pods on an existing node tolerate its taints, match its labels and fit what the node
//    has left after its bound pods (and DaemonSets, on untainted nodes);
//  * no host-port conflict and no required hostname anti-affinity violation on any node or
//    claim;
//  * zonal DoNotSchedule spread: every claim holding such a pod is pinned to one zone and each
//    zone that received such pods is within maxSkew of the least loaded domain; hostname
//    spread: at most maxSkew matching pods per node or claim;
//  * NodePool cpu limits hold for existing capacity plus the largest type of each claim; a
//    pool whose nodes limit is used up by existing nodes gets no claim;
//  * every tenth case: a second Solve gives the same result.

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/scheduler.h"
#include "karp/taints.h"
#include "support/builders.h"
#include "support/sized_test.h"

namespace {

using karp::ClusterSnapshot;
using karp::DaemonSet;
using karp::InstanceCatalog;
using karp::InstanceType;
using karp::NewNodeClaim;
using karp::Node;
using karp::NodePool;
using karp::NodeSelectorRequirement;
using karp::Offering;
using karp::Operator;
using karp::Pod;
using karp::Requirement;
using karp::Requirements;
using karp::ResourceList;
using karp::SchedulerOptions;
using karp::SolveResult;
using karp::Taint;
using karp::TaintEffect;
using karp::Toleration;
using karp::testing::Expr;
using karp::testing::MakePod;

const std::string kZoneKey(karp::kLabelZone);
const std::string kHostKey(karp::kLabelHostname);
const std::string kArchKey(karp::kLabelArch);
const std::string kCapKey(karp::kLabelCapacityType);
const std::string kTypeKey(karp::kLabelInstanceType);
const std::string kPoolKey(karp::kLabelNodePool);
const std::string kTeamKey = "example.com/team";
const std::vector<std::string> kZones = {"test-zone-1", "test-zone-2", "test-zone-3"};
const std::vector<std::string> kCapacityTypes = {"on-demand", "spot"};
const std::vector<std::string> kTeams = {"a", "b", "c"};
const std::vector<std::string> kApps = {"web", "db", "anti", "spread-z", "spread-h"};

// ---------------------------------------------------------------------------------------------
// Generation

class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  // Uniform in [lo, hi]; mt19937's output is the same everywhere, so cases are portable.
  int Int(int lo, int hi) {
    return lo + static_cast<int>(gen_() % static_cast<uint32_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Int(1, 100) <= percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Int(0, static_cast<int>(v.size()) - 1))];
  }
  template <typename T>
  std::vector<T> Subset(const std::vector<T>& v) {  // non-empty
    std::vector<T> out;
    while (out.empty()) {
      for (const T& x : v) {
        if (Chance(50)) out.push_back(x);
      }
    }
    return out;
  }

 private:
  std::mt19937 gen_;
};

const std::vector<Taint>& TaintChoices() {
  static const std::vector<Taint> taints = {
      {"dedicated", "gpu", TaintEffect::kNoSchedule},
      {"spot", "true", TaintEffect::kPreferNoSchedule},
      {"team", "x", TaintEffect::kNoExecute},
  };
  return taints;
}

struct Case {
  uint32_t seed = 0;
  ClusterSnapshot snap;
  std::vector<InstanceType> types;
  std::shared_ptr<const InstanceCatalog> catalog;
  SchedulerOptions options;
  int zone_skew = 1;
  int host_skew = 1;
};

InstanceType RandomType(Rng& rng, int index) {
  const int cpu = rng.Pick(std::vector<int>{1, 2, 4, 8, 16});
  const int mem_gi = rng.Pick(std::vector<int>{1, 2, 4, 8, 16, 32});
  const int pods = rng.Int(2, 30);
  std::vector<Offering> offerings;
  const double base = cpu * 0.04 + mem_gi * 0.005;
  for (const std::string& ct : kCapacityTypes) {
    for (const std::string& z : kZones) {
      if (!rng.Chance(60)) continue;
      double price = ct == "spot" ? base * rng.Int(30, 70) / 100.0 : base;
      // Prices are positive; kept as it is so that the generated cases stay the same.
      // NOLINTNEXTLINE(bugprone-incorrect-roundings)
      price = static_cast<double>(static_cast<int64_t>(price * 1000 + 0.5)) / 1000;  // ties
      offerings.push_back(Offering{z, ct, price, rng.Chance(85), "", 0});
    }
  }
  if (offerings.empty()) offerings.push_back(Offering{kZones[0], "on-demand", base, true, "", 0});
  karp::Overhead overhead;
  if (rng.Chance(50)) overhead.kube_reserved = karp::testing::Resources("100m", "100Mi");
  std::string name = "it-" + std::string(index < 10 ? "0" : "") + std::to_string(index);
  return InstanceType::Make(
      std::move(name),
      {{kArchKey, rng.Chance(70) ? "amd64" : "arm64"}, {std::string(karp::kLabelOs), "linux"}},
      karp::testing::Resources(std::to_string(cpu), std::to_string(mem_gi) + "Gi", pods),
      std::move(overhead), std::move(offerings));
}

Pod RandomPendingPod(Rng& rng, const Case& c, int index) {
  std::string name = "p-" + std::string(index < 10 ? "0" : "") + std::to_string(index);
  const std::string app = rng.Pick(kApps);
  karp::testing::PodBuilder b = MakePod(name, std::to_string(rng.Int(1, 25) * 100) + "m",
                                        std::to_string(rng.Int(1, 32) * 128) + "Mi");
  b.Label("app", app).CreatedAt(rng.Int(0, 5));
  const bool spread = app == "spread-z" || app == "spread-h";
  if (app == "anti") b.AntiAffinity(kHostKey, {{"app", "anti"}});
  if (app == "spread-z") {
    b.Spread(karp::testing::SpreadConstraint(kZoneKey, c.zone_skew, {{"app", "spread-z"}}));
  }
  if (app == "spread-h") {
    b.Spread(karp::testing::SpreadConstraint(kHostKey, c.host_skew, {{"app", "spread-h"}}));
  }
  if (!spread) {  // spread pods keep one shared group: no node selection of their own
    if (rng.Chance(20)) b.NodeSelector(kZoneKey, rng.Pick(kZones));
    if (rng.Chance(15)) b.NodeSelector(kArchKey, rng.Chance(70) ? "amd64" : "arm64");
    if (rng.Chance(10)) b.NodeSelector(kCapKey, rng.Pick(kCapacityTypes));
    if (rng.Chance(10)) b.NodeSelector(kTeamKey, rng.Pick(kTeams));
    if (rng.Chance(12)) {
      const int terms = rng.Int(1, 2);
      for (int t = 0; t < terms; ++t) {
        b.RequiredTerm({Expr(kZoneKey, rng.Chance(60) ? Operator::kIn : Operator::kNotIn,
                             rng.Subset(kZones))});
      }
    }
    if (rng.Chance(10)) {
      b.PreferredTerm(rng.Int(1, 100), {Expr(kZoneKey, Operator::kIn, {rng.Pick(kZones)})});
    }
  }
  if (rng.Chance(30)) {
    if (rng.Chance(30)) {
      b.Tolerate(karp::testing::TolerateExists(""));
    } else {
      const Taint& t = rng.Pick(TaintChoices());
      b.Tolerate(karp::testing::TolerateEqual(t.key, t.value));
    }
  }
  if (rng.Chance(10)) b.HostPort(rng.Chance(50) ? 80 : 443, rng.Chance(70) ? "TCP" : "UDP");
  return b;
}

Case Generate(uint32_t seed) {
  Rng rng(seed);
  Case c;
  c.seed = seed;
  c.zone_skew = rng.Int(1, 2);
  c.host_skew = rng.Int(1, 2);
  if (rng.Chance(20)) c.options.max_instance_types = rng.Int(1, 4);
  if (rng.Chance(20)) c.options.preference_policy = karp::PreferencePolicy::kIgnore;

  const int ntypes = rng.Int(3, 12);
  for (int i = 0; i < ntypes; ++i) c.types.push_back(RandomType(rng, i));
  c.catalog = karp::testing::MakeCatalog(c.types, karp::LabelSet{});

  const std::vector<std::string> pool_names = {"alpha", "beta", "gamma"};
  const int npools = rng.Int(1, 3);
  for (int i = 0; i < npools; ++i) {
    std::vector<NodeSelectorRequirement> reqs;
    if (rng.Chance(40)) reqs.push_back(Expr(kZoneKey, Operator::kIn, rng.Subset(kZones)));
    if (rng.Chance(25)) {
      reqs.push_back(Expr(kArchKey, Operator::kIn, {rng.Chance(60) ? "amd64" : "arm64"}));
    }
    if (rng.Chance(30)) reqs.push_back(Expr(kCapKey, Operator::kIn, rng.Subset(kCapacityTypes)));
    const bool team_req = rng.Chance(20);
    if (team_req) reqs.push_back(Expr(kTeamKey, Operator::kIn, rng.Subset(kTeams)));
    std::vector<Taint> taints;
    if (rng.Chance(25)) taints.push_back(rng.Pick(TaintChoices()));
    ResourceList limits;
    if (rng.Chance(30))
      limits.Set(karp::kResourceCpu, 1000 * rng.Pick(std::vector<int>{8, 16, 32, 64, 128}));
    if (rng.Chance(10)) limits.Set(karp::kResourceNodes, rng.Int(1, 3));
    std::optional<int32_t> weight;
    if (rng.Chance(50)) weight = rng.Int(1, 3);  // the schema allows 1..100
    NodePool pool = karp::testing::MakeNodePool(pool_names[static_cast<size_t>(i)], reqs, taints,
                                                limits, weight);
    if (!team_req && rng.Chance(15)) pool.template_labels[kTeamKey] = rng.Pick(kTeams);
    c.snap.node_pools.push_back(std::move(pool));
  }

  const int ndaemons = rng.Int(0, 2);
  for (int i = 0; i < ndaemons; ++i) {
    const std::string name = "ds-" + std::to_string(i);
    karp::testing::PodBuilder b = MakePod(name, std::to_string(rng.Int(1, 10) * 50) + "m",
                                          std::to_string(rng.Int(1, 8) * 64) + "Mi");
    if (rng.Chance(40)) b.NodeSelector(kArchKey, rng.Chance(60) ? "amd64" : "arm64");
    if (rng.Chance(30)) b.Tolerate(karp::testing::TolerateExists(""));
    if (rng.Chance(15)) b.HostPort(9100);
    c.snap.daemon_sets.push_back(karp::testing::MakeDaemonSet(name, b));
  }

  const int nnodes = rng.Int(0, 3);
  for (int i = 0; i < nnodes; ++i) {
    const std::string name = "node-" + std::to_string(i);
    std::map<std::string, std::string> labels;
    const std::string zone = rng.Pick(kZones);
    if (rng.Chance(50)) {
      const NodePool& pool = rng.Pick(c.snap.node_pools);
      labels = karp::testing::ManagedNodeLabels(pool.name(), rng.Pick(c.types).name, zone,
                                                rng.Pick(kCapacityTypes));
      for (const auto& [k, v] : pool.template_labels) labels[k] = v;
    } else {
      labels = {{kZoneKey, zone}, {kArchKey, "amd64"}};
    }
    if (rng.Chance(20)) labels[kArchKey] = "arm64";
    std::vector<Taint> taints;
    if (rng.Chance(20)) taints.push_back(rng.Pick(TaintChoices()));
    c.snap.nodes.push_back(
        karp::testing::MakeNode(name, std::to_string(rng.Pick(std::vector<int>{2, 4, 8})),
                                std::to_string(rng.Pick(std::vector<int>{4, 8, 16})) + "Gi",
                                rng.Pick(std::vector<int64_t>{10, 30, 110}), labels, taints));
    const int bound = rng.Int(0, 3);
    for (int j = 0; j < bound; ++j) {
      const std::string app = rng.Pick(kApps);
      karp::testing::PodBuilder b = MakePod(name + "-pod-" + std::to_string(j),
                                            std::to_string(rng.Int(1, 10) * 100) + "m", "256Mi");
      b.Label("app", app).BoundTo(name);
      if (app == "anti") b.AntiAffinity(kHostKey, {{"app", "anti"}});
      if (rng.Chance(15)) b.HostPort(rng.Chance(50) ? 80 : 443);
      c.snap.pods.push_back(b);
    }
  }

  const int npods = rng.Int(1, 25);
  for (int i = 0; i < npods; ++i) c.snap.pods.push_back(RandomPendingPod(rng, c, i));
  return c;
}

// ---------------------------------------------------------------------------------------------
// Independent model of the rules the validator needs

// Requests of a generated pod: its containers, plus pods: 1 (docs/design.md §2.1). Generated pods
// have no init containers, overhead or pod-level resources.
ResourceList PodRequests(const Pod& p) {
  ResourceList r;
  for (const karp::Container& c : p.containers) r.Add(c.requests);
  r.Set(karp::kResourcePods, 1);
  return r;
}

// Capacity minus kube-reserved (the only overhead generated), per key of capacity.
ResourceList Allocatable(const InstanceType& it) {
  ResourceList a;
  it.capacity.ForEach([&](std::string_view name, int64_t v) {
    a.Set(name, v - it.overhead.kube_reserved.Get(name) - it.overhead.system_reserved.Get(name) -
                    it.overhead.eviction_threshold.Get(name));
  });
  return a;
}

// karpenter Fits: nothing negative in `have`, every quantity of `need` within `have`.
bool FitsIn(const ResourceList& need, const ResourceList& have) {
  bool ok = true;
  have.ForEach([&](std::string_view, int64_t v) { ok = ok && v >= 0; });
  need.ForEach([&](std::string_view name, int64_t v) { ok = ok && v <= have.Get(name); });
  return ok;
}

bool Allows(const Requirements& reqs, const std::string& key, const std::string& value) {
  const Requirement* r = reqs.Find(key);
  return r == nullptr || r->Has(value);
}

bool OfferingAllowed(const Requirements& reqs, const Offering& o) {
  return o.available && Allows(reqs, kZoneKey, o.zone) && Allows(reqs, kCapKey, o.capacity_type);
}

// Cheapest allowed offering's price, or nullopt.
std::optional<double> CheapestPrice(const InstanceType& it, const Requirements& reqs) {
  std::optional<double> best;
  for (const Offering& o : it.offerings) {
    if (OfferingAllowed(reqs, o) && (!best || o.price < *best)) best = o.price;
  }
  return best;
}

// The values of an In requirement of a NodePool on `key`, or nullopt when unconstrained.
std::optional<std::set<std::string>> PoolIn(const NodePool& pool, const std::string& key) {
  for (const NodeSelectorRequirement& r : pool.requirements) {
    if (r.key == key && r.op == Operator::kIn)
      return std::set<std::string>(r.values.begin(), r.values.end());
  }
  return std::nullopt;
}

bool InSet(const std::optional<std::set<std::string>>& s, const std::string& v) {
  return !s || s->count(v) > 0;
}

// The NodePool prefilter (docs/design.md §5.4): the type's arch is allowed and it has an available
// offering in an allowed zone and capacity type.
bool PoolAdmitsType(const NodePool& pool, const InstanceType& it) {
  if (!InSet(PoolIn(pool, kArchKey), it.labels.at(kArchKey))) return false;
  const auto zones = PoolIn(pool, kZoneKey);
  const auto cts = PoolIn(pool, kCapKey);
  for (const Offering& o : it.offerings) {
    if (o.available && InSet(zones, o.zone) && InSet(cts, o.capacity_type)) return true;
  }
  return false;
}

// DaemonSets that run on a node of `pool` launched as `it` (docs/design.md §2.4): they tolerate the
// pool taints (with an implicit PreferNoSchedule toleration) and their arch selector, the only
// one generated, matches the type.
std::vector<const DaemonSet*> DaemonsOn(const ClusterSnapshot& s, const NodePool& pool,
                                        const InstanceType& it) {
  std::vector<const DaemonSet*> out;
  for (const DaemonSet& d : s.daemon_sets) {
    std::vector<Toleration> tol = d.pod_template.tolerations;
    tol.push_back(karp::testing::TolerateExists("", TaintEffect::kPreferNoSchedule));
    if (!karp::ToleratesAll(pool.taints, tol)) continue;
    auto sel = d.pod_template.node_selector.find(kArchKey);
    if (sel != d.pod_template.node_selector.end() && sel->second != it.labels.at(kArchKey))
      continue;
    out.push_back(&d);
  }
  return out;
}

bool PortsConflict(const karp::ContainerPort& a, const karp::ContainerPort& b) {
  if (a.host_port != b.host_port || a.protocol != b.protocol) return false;
  const bool a_any = a.host_ip.empty() || a.host_ip == "0.0.0.0";
  const bool b_any = b.host_ip.empty() || b.host_ip == "0.0.0.0";
  return a_any || b_any || a.host_ip == b.host_ip;
}

std::vector<karp::ContainerPort> Ports(const Pod& p) {
  std::vector<karp::ContainerPort> out;
  for (const karp::Container& c : p.containers) {
    for (const karp::ContainerPort& port : c.ports) {
      if (port.host_port != 0) out.push_back(port);
    }
  }
  return out;
}

bool AnyConflict(const std::vector<karp::ContainerPort>& a,
                 const std::vector<karp::ContainerPort>& b) {
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (PortsConflict(x, y)) return true;
    }
  }
  return false;
}

// `p` has a required hostname anti-affinity term selecting `q`.
bool AntiSelects(const Pod& p, const Pod& q) {
  for (const karp::PodAffinityTerm& t : p.pod_anti_affinity.required) {
    if (t.topology_key == kHostKey && t.label_selector &&
        p.metadata.namespace_ == q.metadata.namespace_ &&
        t.label_selector->Matches(q.metadata.labels)) {
      return true;
    }
  }
  return false;
}

// `r` (a claim requirement) is within the term expression `e` (In or NotIn).
bool WithinTerm(const Requirement* r, const NodeSelectorRequirement& e) {
  if (r == nullptr) return false;
  const std::set<std::string> vals(e.values.begin(), e.values.end());
  if (r->op() == Operator::kIn) {
    for (const std::string& v : r->values()) {
      if ((vals.count(v) > 0) != (e.op == Operator::kIn)) return false;
    }
    return true;
  }
  if (r->op() == Operator::kNotIn && e.op == Operator::kNotIn) {
    for (const std::string& v : e.values) {
      if (r->Has(v)) return false;  // r must exclude every value the term excludes
    }
    return true;
  }
  return false;
}

bool LabelWithinTerm(const std::map<std::string, std::string>& labels,
                     const NodeSelectorRequirement& e) {
  auto it = labels.find(e.key);
  if (it == labels.end()) return false;
  const bool listed = std::find(e.values.begin(), e.values.end(), it->second) != e.values.end();
  return e.op == Operator::kIn ? listed : !listed;
}

// Whether a fresh claim of `pool` would take `pod` on its own, with `tolerations` and the
// required node-affinity `term` in force (docs/design.md §5.10): taints tolerated, the pod's
// selectors compatible with the pool (custom keys must be defined by it), and some admitted
// type with an offering both allow that fits the pod plus its DaemonSets without a host-port
// conflict. Only meaningful for pods whose topology cannot depend on other pods.
bool PoolWouldTake(const ClusterSnapshot& snap, const std::vector<InstanceType>& types,
                   const NodePool& pool, const Pod& pod, const std::vector<Toleration>& tolerations,
                   const karp::NodeSelectorTerm* term) {
  if (!karp::ToleratesAll(pool.taints, tolerations)) return false;
  std::optional<std::set<std::string>> teams = PoolIn(pool, kTeamKey);
  if (auto l = pool.template_labels.find(kTeamKey); !teams && l != pool.template_labels.end()) {
    teams = std::set<std::string>{l->second};
  }
  std::map<std::string, std::optional<std::set<std::string>>> allowed;  // zone, arch, ct
  auto narrow = [&](const std::string& key, const std::set<std::string>& values) {
    std::optional<std::set<std::string>>& cur = allowed[key];
    if (!cur) {
      cur = values;
      return;
    }
    std::set<std::string> both;
    for (const std::string& v : *cur) {
      if (values.count(v)) both.insert(v);
    }
    cur = both;
  };
  for (const auto& [k, v] : pod.node_selector) {
    if (k == kTeamKey) {
      if (!teams || teams->count(v) == 0) return false;
      continue;
    }
    narrow(k, {v});
  }
  if (term != nullptr) {
    for (const NodeSelectorRequirement& e : term->match_expressions) {
      std::set<std::string> values;
      for (const std::string& z : kZones) {
        const bool listed = std::find(e.values.begin(), e.values.end(), z) != e.values.end();
        if (listed == (e.op == Operator::kIn)) values.insert(z);
      }
      narrow(e.key, values);
    }
  }
  const auto pool_zones = PoolIn(pool, kZoneKey);
  const auto pool_cts = PoolIn(pool, kCapKey);
  for (const InstanceType& it : types) {
    if (!PoolAdmitsType(pool, it) || !InSet(allowed[kArchKey], it.labels.at(kArchKey))) continue;
    bool offering = false;
    for (const Offering& o : it.offerings) {
      offering = offering ||
                 (o.available && InSet(pool_zones, o.zone) && InSet(allowed[kZoneKey], o.zone) &&
                  InSet(pool_cts, o.capacity_type) && InSet(allowed[kCapKey], o.capacity_type));
    }
    if (!offering) continue;
    ResourceList total = PodRequests(pod);
    bool conflict = false;
    for (const DaemonSet* d : DaemonsOn(snap, pool, it)) {
      total.Add(PodRequests(d->pod_template));
      conflict = conflict || AnyConflict(Ports(d->pod_template), Ports(pod));
    }
    if (!conflict && FitsIn(total, Allocatable(it))) return true;
  }
  return false;
}

std::string DescribeCase(const Case& c) {
  std::ostringstream out;
  out << "options: max_instance_types=" << c.options.max_instance_types << " policy="
      << (c.options.preference_policy == karp::PreferencePolicy::kIgnore ? "Ignore" : "Respect")
      << " zone_skew=" << c.zone_skew << " host_skew=" << c.host_skew << "\n";
  for (const InstanceType& it : c.types) {
    out << "type " << it.name << " " << it.capacity.ToString()
        << " alloc=" << Allocatable(it).ToString() << " arch=" << it.labels.at(kArchKey)
        << " offerings:";
    for (const Offering& o : it.offerings) {
      out << " " << o.capacity_type << "/" << o.zone << "@" << o.price
          << (o.available ? "" : "(x)");
    }
    out << "\n";
  }
  for (const NodePool& p : c.snap.node_pools) {
    out << "pool " << p.name() << " weight=" << (p.weight ? std::to_string(*p.weight) : "-")
        << " reqs=[";
    for (const NodeSelectorRequirement& r : p.requirements) {
      out << r.key << " " << karp::OperatorName(r.op) << " {";
      for (const std::string& v : r.values) out << v << ",";
      out << "}; ";
    }
    out << "] labels=[";
    for (const auto& [k, v] : p.template_labels) out << k << "=" << v << " ";
    out << "] taints=[";
    for (const Taint& t : p.taints) out << t.ToString() << " ";
    out << "] limits=" << p.limits.ToString() << "\n";
  }
  for (const DaemonSet& d : c.snap.daemon_sets) {
    out << "daemonset " << d.metadata.name << " " << PodRequests(d.pod_template).ToString()
        << " selector="
        << (d.pod_template.node_selector.empty() ? "-"
                                                 : d.pod_template.node_selector.begin()->second)
        << " tolerations=" << d.pod_template.tolerations.size()
        << " ports=" << Ports(d.pod_template).size() << "\n";
  }
  for (const Node& n : c.snap.nodes) {
    out << "node " << n.metadata.name << " alloc=" << n.allocatable.ToString() << " labels=[";
    for (const auto& [k, v] : n.metadata.labels) out << k << "=" << v << " ";
    out << "] taints=[";
    for (const Taint& t : n.taints) out << t.ToString() << " ";
    out << "]\n";
  }
  for (const Pod& p : c.snap.pods) {
    out << "pod " << p.Key() << (p.node_name.empty() ? "" : " bound=" + p.node_name) << " "
        << PodRequests(p).ToString() << " app=" << p.metadata.labels.at("app");
    for (const auto& [k, v] : p.node_selector) out << " sel " << k << "=" << v;
    for (const karp::NodeSelectorTerm& t : p.node_affinity.required) {
      out << " term(";
      for (const NodeSelectorRequirement& e : t.match_expressions) {
        out << e.key << " " << karp::OperatorName(e.op) << " {";
        for (const std::string& v : e.values) out << v << ",";
        out << "}";
      }
      out << ")";
    }
    if (!p.node_affinity.preferred.empty()) out << " preferred";
    for (const Toleration& t : p.tolerations) out << " tol(" << t.key << "=" << t.value << ")";
    for (const auto& port : Ports(p)) out << " port " << port.host_port << "/" << port.protocol;
    out << "\n";
  }
  return out.str();
}

// ---------------------------------------------------------------------------------------------
// The validator

struct Stats {
  int cases = 0;
  int on_claims = 0;
  int on_existing = 0;
  int errors = 0;
  int claims = 0;
  int spread_zone_placed = 0;
  int spread_host_placed = 0;
  int anti_placed = 0;
  int complete_lists_checked = 0;
  int truncated_claims = 0;
  int cost_cheaper = 0;  // cost mode: cases where it beat the faithful packing
};

class Validator {
 public:
  Validator(const Case& c, const SolveResult& r, Stats& stats) : c_(c), r_(r), stats_(stats) {
    for (const Pod& p : c_.snap.pods) {
      if (p.node_name.empty()) {
        pending_[p.Key()] = &p;
      } else {
        bound_[p.node_name].push_back(&p);
      }
    }
    for (const InstanceType& it : c_.types) types_[it.name] = &it;
    for (const NodePool& p : c_.snap.node_pools) {
      pools_[p.name()] = &p;
      for (const InstanceType& it : c_.types) {
        if (PoolAdmitsType(p, it)) {
          eligible_pools_.insert(p.name());
          break;
        }
      }
    }
    for (const std::string& name : eligible_pools_) {
      for (const Taint& t : pools_[name]->taints) {
        if (t.effect == TaintEffect::kPreferNoSchedule) prefer_no_schedule_relaxable_ = true;
      }
    }
  }

  std::vector<std::string> Run() {
    CheckAccounting();
    std::map<std::string, int> per_pool;
    for (const NewNodeClaim& nc : r_.node_claims) CheckClaim(nc, per_pool);
    for (const karp::ExistingPlacement& e : r_.existing_nodes) CheckExisting(e);
    CheckZoneSpread();
    CheckLimits();
    CheckPoolChoice();
    return problems_;
  }

 private:
  template <typename... Args>
  void Problem(const Args&... args) {
    std::ostringstream out;
    (out << ... << args);
    problems_.push_back(out.str());
  }

  // The toleration set a pod may have after relaxation (docs/design.md §5.7 step 6).
  std::vector<Toleration> Tolerations(const Pod& p) const {
    std::vector<Toleration> t = p.tolerations;
    if (prefer_no_schedule_relaxable_) {
      t.push_back(karp::testing::TolerateExists("", TaintEffect::kPreferNoSchedule));
    }
    return t;
  }

  void CheckAccounting() {
    std::map<std::string, int> seen;
    for (const NewNodeClaim& nc : r_.node_claims) {
      for (const std::string& p : nc.pods) ++seen[p];
      stats_.on_claims += static_cast<int>(nc.pods.size());
    }
    for (const karp::ExistingPlacement& e : r_.existing_nodes) {
      for (const std::string& p : e.pods) ++seen[p];
      stats_.on_existing += static_cast<int>(e.pods.size());
    }
    for (size_t i = 0; i < r_.pod_errors.size(); ++i) {
      const karp::PodError& e = r_.pod_errors[i];
      ++seen[e.pod];
      if (e.message.empty()) Problem("pod ", e.pod, ": empty error message");
      if (i > 0 && !(r_.pod_errors[i - 1].pod < e.pod)) Problem("pod_errors not sorted at ", e.pod);
    }
    stats_.errors += static_cast<int>(r_.pod_errors.size());
    for (const auto& [key, pod] : pending_) {
      auto it = seen.find(key);
      const int n = it == seen.end() ? 0 : it->second;
      if (n != 1) Problem("pod ", key, " appears ", n, " times");
    }
    for (const auto& [key, n] : seen) {
      if (pending_.count(key) == 0) Problem("unknown pod ", key, " in the result");
    }
    if (r_.pod_count != static_cast<int>(pending_.size())) Problem("pod_count = ", r_.pod_count);
    if (r_.timed_out) Problem("timed out");
    for (size_t i = 1; i < r_.existing_nodes.size(); ++i) {
      if (!(r_.existing_nodes[i - 1].name < r_.existing_nodes[i].name)) {
        Problem("existing_nodes not sorted by name");
      }
    }
  }

  void CheckClaim(const NewNodeClaim& nc, std::map<std::string, int>& per_pool) {
    ++stats_.claims;
    const std::string where = "claim " + nc.name + ": ";
    auto pool_it = pools_.find(nc.node_pool);
    if (pool_it == pools_.end()) {
      Problem(where, "unknown pool ", nc.node_pool);
      return;
    }
    const NodePool& pool = *pool_it->second;
    if (nc.name != nc.node_pool + "-" + std::to_string(++per_pool[nc.node_pool])) {
      Problem(where, "name out of sequence");
    }
    if (nc.pods.empty()) Problem(where, "no pods");
    if (nc.instance_types.empty()) {
      Problem(where, "no instance types");
      return;
    }
    if (static_cast<int>(nc.instance_types.size()) > c_.options.max_instance_types) {
      Problem(where, "more than max_instance_types types");
    }
    if (static_cast<int>(nc.instance_types.size()) == c_.options.max_instance_types) {
      ++stats_.truncated_claims;
    }
    if (nc.taints != pool.taints) Problem(where, "taints differ from the pool's");
    if (nc.requirements.Has(kHostKey)) Problem(where, "hostname requirement left in");
    if (nc.labels.count(kPoolKey) == 0 || nc.labels.at(kPoolKey) != pool.name()) {
      Problem(where, "missing nodepool label");
    }
    for (const auto& [k, v] : pool.template_labels) {
      if (nc.labels.count(k) == 0 || nc.labels.at(k) != v)
        Problem(where, "missing template label ", k);
    }
    if (const Requirement* team = nc.requirements.Find(kTeamKey);
        team != nullptr && team->op() == Operator::kIn && team->values().size() == 1 &&
        (nc.labels.count(kTeamKey) == 0 || nc.labels.at(kTeamKey) != team->values()[0])) {
      Problem(where, "label ", kTeamKey, " does not match its single requirement value");
    }
    const Requirements& reqs = nc.requirements;

    // Pods: requests, ports, tolerations, selectors, affinity terms.
    ResourceList pod_total;
    std::vector<karp::ContainerPort> pod_ports;
    std::vector<const Pod*> pods;
    for (const std::string& key : nc.pods) {
      auto it = pending_.find(key);
      if (it == pending_.end()) continue;  // reported by accounting
      const Pod& p = *it->second;
      pods.push_back(&p);
      pod_total.Add(PodRequests(p));
      std::vector<karp::ContainerPort> ports = Ports(p);
      if (AnyConflict(ports, pod_ports)) Problem(where, "host port conflict at ", key);
      pod_ports.insert(pod_ports.end(), ports.begin(), ports.end());
      if (!karp::ToleratesAll(pool.taints, Tolerations(p)))
        Problem(where, key, " does not tolerate the pool taints");
      for (const auto& [k, v] : p.node_selector) {
        const Requirement* r = reqs.Find(k);
        if (r == nullptr || r->op() != Operator::kIn ||
            r->values() != std::vector<std::string>{v}) {
          Problem(where, key, " selects ", k, "=", v, " but the claim has ",
                  r ? r->ToString() : "nothing");
        }
      }
      if (!p.node_affinity.required.empty()) {
        bool any = false;
        for (const karp::NodeSelectorTerm& t : p.node_affinity.required) {
          bool all = true;
          for (const NodeSelectorRequirement& e : t.match_expressions)
            all = all && WithinTerm(reqs.Find(e.key), e);
          any = any || all;
        }
        if (!any) Problem(where, key, " matches none of its required node-affinity terms");
      }
    }
    CheckPairs(where, pods, {});
    for (const Pod* p : pods) {
      const std::string app = p->metadata.labels.at("app");
      if (app == "spread-h") ++stats_.spread_host_placed;
      if (app == "anti") ++stats_.anti_placed;
    }
    int host_spread = 0;
    for (const Pod* p : pods) host_spread += p->metadata.labels.at("app") == "spread-h" ? 1 : 0;
    if (host_spread > c_.host_skew) Problem(where, host_spread, " hostname-spread pods > maxSkew");

    // Instance types.
    std::set<std::string> listed;
    std::optional<std::map<std::string, int64_t>> min_overhead;
    std::optional<double> prev_price;
    std::string prev_name;
    std::optional<std::tuple<double, int, std::string, std::string, std::string>> best_launch;
    for (const std::string& name : nc.instance_types) {
      auto t = types_.find(name);
      if (t == types_.end()) {
        Problem(where, "unknown type ", name);
        continue;
      }
      const InstanceType& it = *t->second;
      if (!listed.insert(name).second) Problem(where, "type ", name, " listed twice");
      if (!PoolAdmitsType(pool, it)) Problem(where, "type ", name, " not admitted by the pool");
      if (!it.requirements.DoesIntersect(reqs))
        Problem(where, "type ", name, " does not intersect the claim requirements");
      const std::optional<double> price = CheapestPrice(it, reqs);
      if (!price) {
        Problem(where, "type ", name, " has no available offering the claim allows");
        continue;
      }
      if (prev_price && (*price < *prev_price || (*price == *prev_price && name < prev_name))) {
        Problem(where, "types not ordered by price then name at ", name);
      }
      prev_price = price;
      prev_name = name;
      // Resources: pods + DaemonSets that run there.
      ResourceList total = pod_total;
      std::map<std::string, int64_t> overhead;
      for (const DaemonSet* d : DaemonsOn(c_.snap, pool, it)) {
        ResourceList dr = PodRequests(d->pod_template);
        total.Add(dr);
        dr.ForEach([&](std::string_view k, int64_t v) { overhead[std::string(k)] += v; });
        if (AnyConflict(Ports(d->pod_template), pod_ports)) {
          Problem(where, "type ", name, ": DaemonSet ", d->metadata.name,
                  " host port conflicts with a pod");
        }
      }
      if (!FitsIn(total, Allocatable(it))) {
        Problem(where, "type ", name, " allocatable ", Allocatable(it).ToString(), " does not fit ",
                total.ToString());
      }
      if (!min_overhead) {
        min_overhead = overhead;
      } else {
        std::map<std::string, int64_t> m;
        for (const auto& [k, v] : *min_overhead) {
          auto o = overhead.find(k);
          if (o != overhead.end()) m[k] = std::min(v, o->second);
        }
        min_overhead = m;
      }
      for (const Offering& o : it.offerings) {
        if (!OfferingAllowed(reqs, o)) continue;
        auto key = std::make_tuple(o.price, karp::CapacityTypeRank(o.capacity_type), it.name,
                                   o.zone, o.capacity_type);
        if (!best_launch || key < *best_launch) best_launch = key;
      }
    }
    // requests = pods + the smallest overhead over the claim's types before truncation
    // (docs/design.md §5.16). Without truncation that is the listed types; with it the minimum is
    // over a superset, so it lies between the pods alone and pods + the listed minimum.
    ResourceList want = pod_total;
    if (min_overhead) {
      for (const auto& [k, v] : *min_overhead) {
        ResourceList add;
        add.Set(k, v);
        want.Add(add);
      }
    }
    const bool truncated =
        static_cast<int>(nc.instance_types.size()) >= c_.options.max_instance_types;
    if (!truncated) {
      if (nc.requests != want)
        Problem(where, "requests ", nc.requests.ToString(), " != ", want.ToString());
    } else if (!FitsIn(pod_total, nc.requests) || !FitsIn(nc.requests, want)) {
      Problem(where, "requests ", nc.requests.ToString(), " not between ", pod_total.ToString(),
              " and ", want.ToString());
    }
    // Launch.
    if (!nc.launch) {
      Problem(where, "no launch");
    } else if (best_launch) {
      const auto& [price, rank, type, zone, ct] = *best_launch;
      (void)rank;
      if (nc.launch->instance_type != type || nc.launch->zone != zone ||
          nc.launch->capacity_type != ct || nc.launch->price != price) {
        Problem(where, "launch ", nc.launch->instance_type, "/", nc.launch->zone, "/",
                nc.launch->capacity_type, " is not the cheapest allowed offering ", type, "/", zone,
                "/", ct);
      }
    }
    // Completeness (pools without limits): an eligible type left out must not be cheaper than
    // the last listed one, and only when the list was cut at max_instance_types.
    if (pool.limits.empty() && prev_price) {
      ++stats_.complete_lists_checked;
      Requirements pre = reqs;  // before finalization narrowed instance-type/capacity-type
      pre.Erase(kTypeKey);
      pre.Erase(kCapKey);
      std::optional<std::set<std::string>> cts = PoolIn(pool, kCapKey);
      for (const Pod* p : pods) {
        auto s = p->node_selector.find(kCapKey);
        if (s == p->node_selector.end()) continue;
        std::set<std::string> one = {s->second};
        if (cts) {
          std::set<std::string> both;
          for (const std::string& v : *cts) {
            if (one.count(v)) both.insert(v);
          }
          cts = both;
        } else {
          cts = one;
        }
      }
      if (cts)
        pre.Add(Requirement::In(kCapKey, std::vector<std::string>(cts->begin(), cts->end())));
      const bool full = static_cast<int>(nc.instance_types.size()) == c_.options.max_instance_types;
      for (const InstanceType& it : c_.types) {
        if (listed.count(it.name) || !PoolAdmitsType(pool, it)) continue;
        if (!it.requirements.DoesIntersect(pre)) continue;
        const std::optional<double> price = CheapestPrice(it, pre);
        if (!price) continue;
        ResourceList total = pod_total;
        bool port_conflict = false;
        for (const DaemonSet* d : DaemonsOn(c_.snap, pool, it)) {
          total.Add(PodRequests(d->pod_template));
          port_conflict = port_conflict || AnyConflict(Ports(d->pod_template), pod_ports);
        }
        if (port_conflict || !FitsIn(total, Allocatable(it))) continue;
        if (!full) {
          Problem(where, "eligible type ", it.name, " is missing");
        } else if (*price < *prev_price || (*price == *prev_price && it.name < prev_name)) {
          Problem(where, "truncation dropped the cheaper eligible type ", it.name);
        }
      }
    }
  }

  // NodePool order (docs/design.md §5.3, §5.8 step 5): the pod that opened a claim could not be
  // taken by a fresh claim of any heavier pool, and a pod left unschedulable could not be
  // taken by a fresh claim of any pool. Pools with limits (their remaining capacity depends on
  // the other claims) and zonal-spread pods are left out; so are PreferNoSchedule pools when
  // the relaxation that tolerates them may or may not have happened.
  void CheckPoolChoice() {
    std::vector<const NodePool*> order;
    for (const NodePool& p : c_.snap.node_pools) order.push_back(&p);
    std::sort(order.begin(), order.end(), [](const NodePool* a, const NodePool* b) {
      if (a->weight.value_or(0) != b->weight.value_or(0))
        return a->weight.value_or(0) > b->weight.value_or(0);
      return a->name() > b->name();
    });
    auto has_prefer_no_schedule = [](const NodePool& p) {
      for (const Taint& t : p.taints) {
        if (t.effect == TaintEffect::kPreferNoSchedule) return true;
      }
      return false;
    };
    // With NodePools chosen by price (PoolOrder::kPrice) any pool may open a claim.
    const bool by_weight = c_.options.packing == karp::PackingMode::kFaithful ||
                           c_.options.cost_pool_order == karp::PoolOrder::kWeight;
    for (const NewNodeClaim& nc : r_.node_claims) {
      if (nc.pods.empty() || !by_weight) continue;
      auto it = pending_.find(nc.pods.front());
      if (it == pending_.end()) continue;
      const Pod& p = *it->second;
      if (p.metadata.labels.at("app") == "spread-z" || !p.node_affinity.preferred.empty() ||
          p.node_affinity.required.size() > 1) {
        continue;
      }
      const karp::NodeSelectorTerm* term =
          p.node_affinity.required.empty() ? nullptr : &p.node_affinity.required[0];
      for (const NodePool* q : order) {
        if (q->name() == nc.node_pool) break;
        if (!q->limits.empty() || (prefer_no_schedule_relaxable_ && has_prefer_no_schedule(*q)))
          continue;
        if (PoolWouldTake(c_.snap, c_.types, *q, p, p.tolerations, term)) {
          Problem("claim ", nc.name, ": ", p.Key(), " opened it although the heavier pool ",
                  q->name(), " would take it");
        }
      }
    }
    for (const karp::PodError& e : r_.pod_errors) {
      auto it = pending_.find(e.pod);
      if (it == pending_.end()) continue;
      const Pod& p = *it->second;
      if (p.metadata.labels.at("app") == "spread-z") continue;
      const karp::NodeSelectorTerm* term =
          p.node_affinity.required.empty() ? nullptr : &p.node_affinity.required.back();
      for (const NodePool* q : order) {
        if (!q->limits.empty()) continue;
        if (PoolWouldTake(c_.snap, c_.types, *q, p, Tolerations(p), term)) {
          Problem("pod ", e.pod, " is unschedulable (", e.message, ") although pool ", q->name(),
                  " would take it");
        }
      }
    }
  }

  // Host-port conflicts and hostname anti-affinity among `placed` and `bound` pods on one node
  // (pairs of two bound pods are not the solver's doing).
  void CheckPairs(const std::string& where, const std::vector<const Pod*>& placed,
                  const std::vector<const Pod*>& bound) {
    std::vector<std::pair<const Pod*, bool>> all;
    for (const Pod* p : placed) all.push_back({p, true});
    for (const Pod* p : bound) all.push_back({p, false});
    for (size_t i = 0; i < all.size(); ++i) {
      for (size_t j = i + 1; j < all.size(); ++j) {
        if (!all[i].second && !all[j].second) continue;
        const Pod& a = *all[i].first;
        const Pod& b = *all[j].first;
        if (AntiSelects(a, b) || AntiSelects(b, a)) {
          Problem(where, "anti-affinity violated by ", a.Key(), " and ", b.Key());
        }
        if (AnyConflict(Ports(a), Ports(b)))
          Problem(where, "host port conflict between ", a.Key(), " and ", b.Key());
      }
    }
  }

  void CheckExisting(const karp::ExistingPlacement& e) {
    const std::string where = "node " + e.name + ": ";
    if (e.in_flight) Problem(where, "reported in flight");
    if (e.pods.empty()) Problem(where, "listed without pods");
    const Node* node = c_.snap.FindNode(e.name);
    if (node == nullptr) {
      Problem(where, "unknown node");
      return;
    }
    std::vector<const Pod*> bound;
    ResourceList remaining = node->allocatable;
    for (const Pod* p : bound_[e.name]) {
      bound.push_back(p);
      remaining.Subtract(PodRequests(*p));
    }
    if (node->taints.empty()) {  // DaemonSets not yet running here reserve their requests
      for (const DaemonSet& d : c_.snap.daemon_sets) {
        auto sel = d.pod_template.node_selector.find(kArchKey);
        auto arch = node->metadata.labels.find(kArchKey);
        if (sel != d.pod_template.node_selector.end() &&
            (arch == node->metadata.labels.end() || arch->second != sel->second)) {
          continue;
        }
        remaining.Subtract(PodRequests(d.pod_template));
      }
    }
    ResourceList placed_total;
    std::vector<const Pod*> placed;
    for (const std::string& key : e.pods) {
      auto it = pending_.find(key);
      if (it == pending_.end()) continue;
      const Pod& p = *it->second;
      placed.push_back(&p);
      placed_total.Add(PodRequests(p));
      if (!karp::ToleratesAll(node->taints, Tolerations(p)))
        Problem(where, key, " does not tolerate the node taints");
      for (const auto& [k, v] : p.node_selector) {
        auto l = node->metadata.labels.find(k);
        if (l == node->metadata.labels.end() || l->second != v)
          Problem(where, key, " selects ", k, "=", v);
      }
      if (!p.node_affinity.required.empty()) {
        bool any = false;
        for (const karp::NodeSelectorTerm& t : p.node_affinity.required) {
          bool all = true;
          for (const NodeSelectorRequirement& x : t.match_expressions)
            all = all && LabelWithinTerm(node->metadata.labels, x);
          any = any || all;
        }
        if (!any) Problem(where, key, " matches none of its required node-affinity terms");
      }
    }
    if (!FitsIn(placed_total, remaining)) {
      Problem(where, "pods ", placed_total.ToString(),
              " exceed what is left: ", remaining.ToString());
    }
    CheckPairs(where, placed, bound);
    int host_spread = 0;
    bool placed_spread = false;
    for (const Pod* p : placed) {
      if (p->metadata.labels.at("app") == "spread-h") {
        ++host_spread;
        placed_spread = true;
        ++stats_.spread_host_placed;
      }
    }
    for (const Pod* p : bound) host_spread += p->metadata.labels.at("app") == "spread-h" ? 1 : 0;
    if (placed_spread && host_spread > c_.host_skew)
      Problem(where, host_spread, " hostname-spread pods > maxSkew");
  }

  // Zonal DoNotSchedule spread (docs/design.md §5.12): domains are the zones of every eligible
  // pool (its zone In values, else the zones its admitted types are offered in) plus the zones
  // of existing nodes; each zone that received a spread pod is within maxSkew of the least
  // loaded domain.
  void CheckZoneSpread() {
    std::set<std::string> domains;
    for (const std::string& name : eligible_pools_) {
      const NodePool& pool = *pools_[name];
      if (auto zones = PoolIn(pool, kZoneKey)) {
        domains.insert(zones->begin(), zones->end());
        continue;
      }
      for (const InstanceType& it : c_.types) {
        if (!PoolAdmitsType(pool, it)) continue;
        for (const Offering& o : it.offerings) {
          if (o.available) domains.insert(o.zone);
        }
      }
    }
    std::map<std::string, int> counts;
    for (const Node& n : c_.snap.nodes) {
      const std::string& zone = n.metadata.labels.at(kZoneKey);
      domains.insert(zone);
      for (const Pod* p : bound_[n.metadata.name]) {
        if (p->metadata.labels.at("app") == "spread-z") ++counts[zone];
      }
    }
    std::set<std::string> received;
    for (const NewNodeClaim& nc : r_.node_claims) {
      for (const std::string& key : nc.pods) {
        auto it = pending_.find(key);
        if (it == pending_.end() || it->second->metadata.labels.at("app") != "spread-z") continue;
        const Requirement* z = nc.requirements.Find(kZoneKey);
        if (z == nullptr || z->op() != Operator::kIn || z->values().size() != 1) {
          Problem("claim ", nc.name, ": zonal-spread pod ", key,
                  " on a claim not pinned to one zone");
          continue;
        }
        const std::string& zone = z->values()[0];
        if (!nc.launch || nc.launch->zone != zone)
          Problem("claim ", nc.name, ": launch zone differs from ", zone);
        if (domains.count(zone) == 0)
          Problem("claim ", nc.name, ": zone ", zone, " is not a known domain");
        ++counts[zone];
        received.insert(zone);
        ++stats_.spread_zone_placed;
      }
    }
    for (const karp::ExistingPlacement& e : r_.existing_nodes) {
      const Node* n = c_.snap.FindNode(e.name);
      if (n == nullptr) continue;
      for (const std::string& key : e.pods) {
        auto it = pending_.find(key);
        if (it == pending_.end() || it->second->metadata.labels.at("app") != "spread-z") continue;
        const std::string& zone = n->metadata.labels.at(kZoneKey);
        ++counts[zone];
        received.insert(zone);
        ++stats_.spread_zone_placed;
      }
    }
    if (received.empty()) return;
    int min = std::numeric_limits<int>::max();
    for (const std::string& d : domains) min = std::min(min, counts[d]);
    for (const std::string& z : received) {
      if (counts[z] - min > c_.zone_skew) {
        std::ostringstream all;
        for (const std::string& d : domains) all << d << ":" << counts[d] << " ";
        Problem("zonal spread skew ", counts[z] - min, " > ", c_.zone_skew, " in ", z, " (counts ",
                all.str(), ")");
      }
    }
  }

  // NodePool limits (docs/design.md §5.11).
  void CheckLimits() {
    for (const NodePool& pool : c_.snap.node_pools) {
      int64_t used_cpu = 0;
      int64_t nodes = 0;
      for (const Node& n : c_.snap.nodes) {
        auto l = n.metadata.labels.find(kPoolKey);
        if (l == n.metadata.labels.end() || l->second != pool.name()) continue;
        used_cpu += n.capacity.cpu();
        ++nodes;
      }
      int claims = 0;
      for (const NewNodeClaim& nc : r_.node_claims) {
        if (nc.node_pool != pool.name()) continue;
        ++claims;
        int64_t max_cpu = 0;
        for (const std::string& t : nc.instance_types) {
          auto it = types_.find(t);
          if (it != types_.end()) max_cpu = std::max(max_cpu, it->second->capacity.cpu());
        }
        used_cpu += max_cpu;
      }
      if (claims == 0) continue;
      if (pool.limits.Has(karp::kResourceCpu) && used_cpu > pool.limits.cpu()) {
        Problem("pool ", pool.name(), ": cpu ", used_cpu, "m over the limit ", pool.limits.cpu(),
                "m");
      }
      if (pool.limits.Has(karp::kResourceNodes) && nodes >= pool.limits.Get(karp::kResourceNodes)) {
        Problem("pool ", pool.name(), ": new claims although existing nodes use the nodes limit");
      }
    }
  }

  const Case& c_;
  const SolveResult& r_;
  Stats& stats_;
  std::map<std::string, const Pod*> pending_;
  std::map<std::string, std::vector<const Pod*>> bound_;
  std::map<std::string, const InstanceType*> types_;
  std::map<std::string, const NodePool*> pools_;
  std::set<std::string> eligible_pools_;
  bool prefer_no_schedule_relaxable_ = false;
  std::vector<std::string> problems_;
};

// The cost mode's promise against the faithful packing of the same case.
void CheckNoWorseThanFaithful(uint32_t seed, const Case& c, const SolveResult& cost, Stats& stats) {
  Case faithful_case = c;
  faithful_case.options.packing = karp::PackingMode::kFaithful;
  absl::StatusOr<karp::Scheduler> f =
      karp::Scheduler::Create(c.snap, c.catalog, faithful_case.options);
  REQUIRE(f.ok());
  absl::StatusOr<SolveResult> faithful = f->Solve();
  REQUIRE(faithful.ok());
  INFO("seed " << seed);
  CHECK(cost.pod_errors.size() <= faithful->pod_errors.size());
  CHECK(cost.LaunchPricePerHour() <= faithful->LaunchPricePerHour() * (1 + 1e-12));
  CHECK(cost.packing.mode == karp::PackingMode::kCost);
  CHECK(cost.packing.faithful_price_per_hour == faithful->LaunchPricePerHour());
  if (cost.packing.faithful_kept) {
    CHECK(karp::testing::SameResult(cost, *faithful));
  } else {
    CHECK(cost.LaunchPricePerHour() < faithful->LaunchPricePerHour());
    ++stats.cost_cheaper;
  }
}

// Runs the property over `cases` random cases with the given packing mode. In the cost
// mode every result is also compared with the faithful one on the same case: never fewer pods
// scheduled, never a higher launch price.
void RunProperty(int cases, karp::PackingMode packing,
                 karp::PoolOrder pool_order = karp::PoolOrder::kWeight) {
  Stats stats;
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t seed = 1; seed <= static_cast<uint32_t>(cases); ++seed) {
    Case c = Generate(seed);
    c.options.packing = packing;
    c.options.cost_pool_order = pool_order;
    absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(c.snap, c.catalog, c.options);
    if (!s.ok()) {
      FAIL_CHECK("seed " << seed << ": Create failed: " << std::string(s.status().message()) << "\n"
                         << DescribeCase(c));
      continue;
    }
    absl::StatusOr<SolveResult> r = s->Solve();
    if (!r.ok()) {
      FAIL_CHECK("seed " << seed << ": Solve failed: " << std::string(r.status().message()));
      continue;
    }
    ++stats.cases;
    if (packing == karp::PackingMode::kCost) CheckNoWorseThanFaithful(seed, c, *r, stats);
    std::vector<std::string> problems = Validator(c, *r, stats).Run();
    if (!problems.empty()) {
      std::string msg = "seed " + std::to_string(seed) + ":\n";
      for (const std::string& p : problems) msg += "  " + p + "\n";
      FAIL_CHECK(msg << "--- case\n"
                     << DescribeCase(c) << "--- result\n"
                     << karp::testing::Describe(*r));
    }
    if (seed % 10 == 0) {
      absl::StatusOr<SolveResult> again = s->Solve();
      if (!again.ok() || !karp::testing::SameResult(*r, *again)) {
        FAIL_CHECK("seed " << seed << ": a second Solve differs");
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN("property: " << stats.cases << " cases in " << seconds << " s; " << stats.claims
                    << " claims, pods: " << stats.on_claims << " on claims, " << stats.on_existing
                    << " on existing nodes, " << stats.errors << " errors; zonal spread "
                    << stats.spread_zone_placed << ", hostname spread " << stats.spread_host_placed
                    << ", anti-affinity " << stats.anti_placed << "; complete lists "
                    << stats.complete_lists_checked << ", full lists " << stats.truncated_claims);
  // The generator must keep producing the situations the validator is about.
  CHECK(stats.cases == cases);
  if (cases >= 500) {
    CHECK(stats.claims > 200);
    CHECK(stats.on_existing > 20);
    CHECK(stats.errors > 20);
    CHECK(stats.spread_zone_placed > 50);
    CHECK(stats.spread_host_placed > 50);
    CHECK(stats.anti_placed > 50);
    CHECK(stats.complete_lists_checked > 100);
    CHECK(stats.truncated_claims > 10);
  }
  if (packing == karp::PackingMode::kCost) {
    WARN("cost packing: cheaper than faithful in " << stats.cost_cheaper << " of " << stats.cases
                                                   << " cases");
    if (cases >= 500) CHECK(stats.cost_cheaper > 20);
  }
}

void RunFaithful(int cases) { RunProperty(cases, karp::PackingMode::kFaithful); }
void RunCost(int cases) { RunProperty(cases, karp::PackingMode::kCost); }
void RunCostByPrice(int cases) {
  RunProperty(cases, karp::PackingMode::kCost, karp::PoolOrder::kPrice);
}

}  // namespace

// 150 cases at CI size; the generator's coverage checks (each situation met often enough)
// hold from 500 cases, the full size.
KARP_SIZED_TEST_CASE("Solve results satisfy the provisioning rules on random snapshots",
                     "[property]", 150, 500, RunFaithful)

KARP_SIZED_TEST_CASE(
    "cost-packed results satisfy the provisioning rules and never lose to faithful",
    "[property][cost]", 150, 500, RunCost)

KARP_SIZED_TEST_CASE("cost-packed results with NodePools chosen by price satisfy the rules too",
                     "[property][cost]", 150, 500, RunCostByPrice)

TEST_CASE("the property validator rejects corrupted results", "[property]") {
  // Guards the validator itself: each corruption of a real result must be reported.
  int corrupted = 0;
  int anti_merges = 0;
  int spread_moves = 0;
  int false_errors = 0;
  int skew_moves = 0;
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    Case c = Generate(seed);
    absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(c.snap, c.catalog, c.options);
    REQUIRE(s.ok());
    absl::StatusOr<SolveResult> solved = s->Solve();
    REQUIRE(solved.ok());
    Stats stats;
    REQUIRE(Validator(c, *solved, stats).Run().empty());
    if (solved->node_claims.empty()) continue;
    auto expect_problem = [&](const char* what, const std::function<void(SolveResult&)>& mutate,
                              const std::string& needle = "") {
      SolveResult r = *solved;
      mutate(r);
      Stats ignored;
      std::vector<std::string> problems = Validator(c, r, ignored).Run();
      bool found = false;
      for (const std::string& p : problems) found = found || p.find(needle) != std::string::npos;
      INFO("seed " << seed << ": " << what);
      CHECK(found);
      ++corrupted;
    };
    expect_problem("pod dropped", [](SolveResult& r) { r.node_claims[0].pods.pop_back(); });
    expect_problem("pod duplicated", [](SolveResult& r) {
      r.node_claims[0].pods.push_back(r.node_claims[0].pods[0]);
    });
    expect_problem("launch price", [](SolveResult& r) { r.node_claims[0].launch->price += 0.001; });
    expect_problem("launch zone", [](SolveResult& r) {
      r.node_claims[0].launch->zone =
          r.node_claims[0].launch->zone == kZones[0] ? kZones[1] : kZones[0];
    });
    expect_problem("requests", [](SolveResult& r) {
      // Far more than any claim's pods and overhead: a truncated claim's requests are only
      // checked to lie between its pods and pods + the listed types' smallest overhead, and a
      // small addition can stay inside that range.
      ResourceList lots;
      lots.Set(karp::kResourceCpu, int64_t{1} << 40);
      r.node_claims[0].requests.Add(lots);
    });
    expect_problem("claim name", [](SolveResult& r) { r.node_claims[0].name += "x"; });
    expect_problem("unknown type",
                   [](SolveResult& r) { r.node_claims[0].instance_types.push_back("nope"); });
    const NewNodeClaim& first = solved->node_claims[0];
    if (first.instance_types.size() >= 2) {
      expect_problem("type order", [](SolveResult& r) {
        std::vector<std::string> t = r.node_claims[0].instance_types;
        std::reverse(t.begin(), t.end());
        r.node_claims[0].instance_types = std::move(t);
      });
    }
    if (first.instance_types.size() >= 2 && c.snap.node_pools.size() == 1 &&
        c.snap.node_pools[0].limits.empty() &&
        static_cast<int>(first.instance_types.size()) < c.options.max_instance_types) {
      expect_problem("type dropped",
                     [](SolveResult& r) { r.node_claims[0].instance_types.pop_back(); });
    }
    // Report a pod that opened a claim of a pool without limits as unschedulable.
    for (size_t i = 0; i < solved->node_claims.size(); ++i) {
      const NewNodeClaim& nc = solved->node_claims[i];
      const NodePool* pool = c.snap.FindNodePool(nc.node_pool);
      const Pod* opener = nullptr;
      for (const Pod& pod : c.snap.pods) {
        if (pod.Key() == nc.pods.front()) opener = &pod;
      }
      if (pool == nullptr || opener == nullptr || !pool->limits.empty() ||
          opener->metadata.labels.at("app") == "spread-z") {
        continue;
      }
      ++false_errors;
      expect_problem(
          "false pod error",
          [i](SolveResult& r) {
            karp::PodError e{r.node_claims[i].pods.front(), "made up"};
            r.node_claims[i].pods.erase(r.node_claims[i].pods.begin());
            r.pod_errors.push_back(e);
            std::sort(
                r.pod_errors.begin(), r.pod_errors.end(),
                [](const karp::PodError& a, const karp::PodError& b) { return a.pod < b.pod; });
          },
          "would take it");
      break;
    }
    // Merge two claims holding anti-affinity pods: the anti-affinity must be reported.
    for (size_t i = 1; i < solved->node_claims.size(); ++i) {
      auto has_anti = [&](const NewNodeClaim& nc) {
        for (const std::string& p : nc.pods) {
          for (const Pod& pod : c.snap.pods) {
            if (pod.Key() == p && pod.metadata.labels.at("app") == "anti") return true;
          }
        }
        return false;
      };
      if (!has_anti(solved->node_claims[0]) || !has_anti(solved->node_claims[i])) continue;
      ++anti_merges;
      expect_problem(
          "anti-affinity merge",
          [i](SolveResult& r) {
            auto& to = r.node_claims[0].pods;
            auto& from = r.node_claims[i].pods;
            to.insert(to.end(), from.begin(), from.end());
            from.clear();
          },
          "anti-affinity violated");
      break;
    }
    // Move every zonal-spread claim into one zone: the skew must be reported.
    {
      std::vector<size_t> spread_claims;
      std::set<std::string> zones;
      int spread_pods = 0;
      bool bound_spread = false;
      for (const Pod& pod : c.snap.pods) {
        bound_spread |= !pod.node_name.empty() && pod.metadata.labels.at("app") == "spread-z";
      }
      for (size_t i = 0; i < solved->node_claims.size(); ++i) {
        int n = 0;
        for (const std::string& p : solved->node_claims[i].pods) {
          for (const Pod& pod : c.snap.pods) {
            if (pod.Key() == p && pod.metadata.labels.at("app") == "spread-z") ++n;
          }
        }
        if (n == 0) continue;
        spread_claims.push_back(i);
        spread_pods += n;
        zones.insert(solved->node_claims[i].launch->zone);
      }
      if (!bound_spread && zones.size() >= 2 && spread_pods > c.zone_skew) {
        ++skew_moves;
        const std::string zone = *zones.begin();
        expect_problem(
            "zonal spread skewed",
            [&](SolveResult& r) {
              for (size_t i : spread_claims) {
                r.node_claims[i].requirements.Set(Requirement::In(kZoneKey, {zone}));
                r.node_claims[i].launch->zone = zone;
              }
            },
            "zonal spread skew");
      }
    }
    // Unpin a zonal-spread claim: it must be reported.
    for (size_t i = 0; i < solved->node_claims.size(); ++i) {
      const NewNodeClaim& nc = solved->node_claims[i];
      bool spread = false;
      for (const std::string& p : nc.pods) {
        for (const Pod& pod : c.snap.pods) {
          if (pod.Key() == p && pod.metadata.labels.at("app") == "spread-z") spread = true;
        }
      }
      if (!spread) continue;
      ++spread_moves;
      expect_problem(
          "zonal spread unpinned",
          [i](SolveResult& r) { r.node_claims[i].requirements.Erase(kZoneKey); },
          "not pinned to one zone");
      break;
    }
  }
  CHECK(corrupted > 1000);
  CHECK(anti_merges > 5);
  CHECK(spread_moves > 20);
  CHECK(false_errors > 50);
  CHECK(skew_moves > 10);
}
