// Property test of Consolidator::Plan: seeded random small clusters, every plan checked by an
// independent validator written from docs/design.md §6 and docs/formats.md §4.
//
// Clusters: 1-2 NodePools (random capacity-type requirement, policy (WhenEmpty, Balanced or
// WhenEmptyOrUnderutilized; the Balanced score itself is not re-checked), consolidateAfter and
// 1-2 budgets with reasons and schedules), 2-12 managed initialized nodes of random catalog
// types, zones and capacity types (some expired, some with the Drifted condition, some of
// those with a terminationGracePeriod), random bound pods up to a random utilisation, some
// do-not-disrupt pods (true or a duration) and nodes, some PDBs (0 or 1 disruptions allowed),
// sometimes a DaemonSet, a few pending pods, random spot-to-spot gate and candidate order.
//
// The validator replays the commands in order over its own model of the cluster (alive nodes
// with pool, type, zone, capacity type, price; nodes being deleted per pool; where each bound
// pod is) and checks:
//  * every candidate is alive at that point (so no node is in two commands);
//  * expired: one node per command, a delete, the node's expireAfter has passed, no budget;
//    every expired node is expired by the plan;
//  * drifted: one node per command, the node has Drifted=True, is not blocked (pod-level
//    blocks are ignored when its NodeClaim has a terminationGracePeriod), Drifted budget;
//  * empty / underutilized: the node was not blocked in the snapshot (node do-not-disrupt,
//    active do-not-disrupt pod, PDB with 0 allowed or several PDBs), its pool's
//    consolidateAfter is not Never and has elapsed, an Empty candidate was empty, an
//    Underutilized one is not in a WhenEmpty pool;
//  * budgets: per pool, the candidates of a command fit max(allowed - disrupting, 0) where
//    allowed = min over active budgets for the reason of the value (percent rounded up over
//    the pool's initialized nodes, including those being deleted) and disrupting = nodes
//    deleted by earlier commands;
//  * deletes have no replacement; underutilized replaces have exactly one, with a launch type
//    among its options, every option strictly cheaper in the worst case than the sum of the
//    candidates' prices, never both capacity types, spot-to-spot only with the gate (and at
//    least 15 options for a single node); every replacement's requests and pods fit its
//    launched type;
//  * savings = candidate prices - launch prices; plan totals; kept covers every other node,
//    sorted by name;
//  * without drift, the cluster's hourly price goes down with every plan that has commands;
//  * a replacement lists only pods that were on the candidates (or pending);
//  * the key property: after all commands (candidates removed, replacements added as nodes of
//    their launch type holding the moved pods they list, no node overcommitted), every other
//    pod that was bound to a removed node (except expired ones, whose pods go pending) can be
//    placed without a new NodeClaim: Scheduler::Solve places them, or, where its greedy order
//    finds no packing, an exhaustive search over cpu / memory / pods proves that one exists.

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/scheduler.h"
#include "support/builders.h"
#include "support/disruption_builders.h"
#include "support/sized_test.h"

namespace {

using karp::Budget;
using karp::ClusterSnapshot;
using karp::ConsolidationOptions;
using karp::ConsolidationPlan;
using karp::ConsolidationPolicy;
using karp::Consolidator;
using karp::DisruptionCommand;
using karp::DisruptionDecision;
using karp::DisruptionReason;
using karp::InstanceCatalog;
using karp::InstanceType;
using karp::NewNodeClaim;
using karp::Node;
using karp::NodeClaim;
using karp::NodePool;
using karp::Offering;
using karp::Pod;
using karp::ResourceList;
using karp::testing::DisruptionNow;

const std::string kOD(karp::kCapacityTypeOnDemand);
const std::string kSpot(karp::kCapacityTypeSpot);
const std::string kZ1(karp::testing::kZone1);
const std::string kZ2(karp::testing::kZone2);
const std::string kZ3(karp::testing::kZone3);

// Budget schedules the generator uses and whether they are active at DisruptionNow()
// (Wednesday 12:00 UTC), worked out by hand.
const std::map<std::string, bool>& ScheduleActive() {
  static const std::map<std::string, bool> m = {
      {"0 9 * * 1-5", true},  // weekdays 09:00 + 8h
      {"0 0 * * 0", false},   // Sundays 00:00 + 2h
      {"30 11 * * *", true},  // daily 11:30 + 1h
  };
  return m;
}

// ---------------------------------------------------------------------------------------------
// Generation

class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  int Int(int lo, int hi) {
    return lo + static_cast<int>(gen_() % static_cast<uint32_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Int(1, 100) <= percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Int(0, static_cast<int>(v.size()) - 1))];
  }

 private:
  std::mt19937 gen_;
};

// Families c (2 GiB per cpu, $0.042/cpu) and m (4 GiB per cpu, $0.05/cpu) in sizes 1, 2, 4, 8:
// on-demand in three zones; spot at 35% in zone 1 and 40% in zone 2 (so worst-case spot
// prices differ from the cheapest).
std::shared_ptr<const InstanceCatalog> PropertyCatalog() {
  static const std::shared_ptr<const InstanceCatalog> catalog = [] {
    std::vector<InstanceType> types;
    for (const char* family : {"c", "m"}) {
      const bool m = family[0] == 'm';
      for (int cpu : {1, 2, 4, 8}) {
        const double od = (m ? 0.05 : 0.042) * cpu;
        std::vector<Offering> offerings;
        for (const std::string& z : {kZ1, kZ2, kZ3}) {
          offerings.push_back(karp::testing::MakeOffering(z, kOD, od));
        }
        offerings.push_back(karp::testing::MakeOffering(kZ1, kSpot, od * 0.35));
        offerings.push_back(karp::testing::MakeOffering(kZ2, kSpot, od * 0.40));
        const std::string mem = std::to_string(cpu * (m ? 4 : 2)) + "Gi";
        types.push_back(
            karp::testing::TypeWithOfferings(std::string(family) + "-" + std::to_string(cpu),
                                             std::to_string(cpu), mem, 110, std::move(offerings)));
      }
    }
    return karp::testing::MakeCatalog(std::move(types));
  }();
  return catalog;
}

struct Case {
  uint32_t seed = 0;
  ClusterSnapshot snap;
  ConsolidationOptions options;
  std::shared_ptr<const InstanceCatalog> catalog;
};

Budget RandomBudget(Rng& rng) {
  static const std::vector<std::string> nodes = {"10%", "34%", "50%", "100%", "0", "1", "2", "3"};
  static const std::vector<std::string> reasons = {"Empty", "Underutilized", "Drifted"};
  static const std::vector<std::string> schedules = {"0 9 * * 1-5", "0 0 * * 0", "30 11 * * *"};
  Budget b;
  b.nodes = rng.Pick(nodes);
  if (rng.Chance(30)) {
    for (const std::string& r : reasons) {
      if (rng.Chance(50)) b.reasons.push_back(r);
    }
  }
  if (rng.Chance(25)) {
    b.schedule = rng.Pick(schedules);
    b.duration = b.schedule == "0 9 * * 1-5"
                     ? absl::Hours(8)
                     : (b.schedule == "0 0 * * 0" ? absl::Hours(2) : absl::Hours(1));
  }
  return b;
}

Case Generate(uint32_t seed) {
  Rng rng(seed);
  Case c;
  c.seed = seed;
  c.catalog = PropertyCatalog();
  const absl::Time now = DisruptionNow();
  ClusterSnapshot& snap = c.snap;

  const int pools = rng.Int(1, 2);
  std::vector<std::string> pool_ct;  // "" = both allowed
  for (int p = 0; p < pools; ++p) {
    NodePool np = karp::testing::MakeNodePool(p == 0 ? "alpha" : "beta");
    const int ct = rng.Int(0, 3);
    pool_ct.push_back(ct == 2 ? kOD : (ct == 3 ? kSpot : ""));
    if (!pool_ct.back().empty()) {
      np.requirements.push_back(karp::testing::Expr(std::string(karp::kLabelCapacityType),
                                                    karp::Operator::kIn, {pool_ct.back()}));
    }
    const int policy = rng.Int(1, 100);
    np.consolidation_policy = policy <= 15   ? ConsolidationPolicy::kWhenEmpty
                              : policy <= 30 ? ConsolidationPolicy::kBalanced
                                             : ConsolidationPolicy::kWhenEmptyOrUnderutilized;
    const int after = rng.Int(1, 100);
    np.consolidate_after = after <= 60   ? std::optional<absl::Duration>(absl::ZeroDuration())
                           : after <= 85 ? std::optional<absl::Duration>(absl::Minutes(10))
                                         : std::nullopt;
    np.budgets.clear();
    const int budgets = rng.Int(1, 2);
    for (int b = 0; b < budgets; ++b) np.budgets.push_back(RandomBudget(rng));
    snap.node_pools.push_back(std::move(np));
  }

  const bool daemons = rng.Chance(30);
  if (daemons) {
    snap.daemon_sets.push_back(
        karp::testing::MakeDaemonSet("logger", karp::testing::MakePod("logger", "100m", "64Mi")));
  }

  const std::vector<std::string> type_names = {"c-1", "c-2", "c-4", "c-8",
                                               "m-1", "m-2", "m-4", "m-8"};
  const int nodes = rng.Int(2, 12);
  int pod_index = 0;
  std::vector<std::string> groups = {"g0", "g1", "g2", "g3"};
  for (int i = 0; i < nodes; ++i) {
    const int p = rng.Int(0, pools - 1);
    const std::string pool = snap.node_pools[static_cast<size_t>(p)].name();
    std::string ct = pool_ct[static_cast<size_t>(p)];
    if (ct.empty()) ct = rng.Chance(65) ? kOD : kSpot;
    const std::string zone = ct == kSpot ? (rng.Chance(50) ? kZ1 : kZ2)
                                         : rng.Pick(std::vector<std::string>{kZ1, kZ2, kZ3});
    const std::string type = rng.Pick(type_names);
    const std::string name = std::string(i < 10 ? "node-0" : "node-") + std::to_string(i);
    const int special = rng.Int(1, 100);  // 1-6 expired, 7-14 drifted
    karp::testing::AddManagedNode(snap, *c.catalog, name, pool, type, zone, ct,
                                  now - absl::Hours(special <= 6 ? 800 : rng.Int(2, 300)));
    NodeClaim& claim = snap.node_claims.back();
    if (special > 6 && special <= 14) {
      karp::testing::SetClaimCondition(claim, "Drifted", "True", "NodePoolDrifted",
                                       now - absl::Hours(rng.Int(1, 48)));
      if (rng.Chance(50)) claim.termination_grace_period = absl::Hours(1);
    }
    if (rng.Chance(5)) {
      snap.nodes.back().metadata.annotations[std::string(karp::kAnnotationDoNotDisrupt)] = "true";
    }
    if (rng.Chance(50)) claim.last_pod_event_time = now - absl::Minutes(rng.Int(0, 60));
    const InstanceType* it = c.catalog->Find(type);
    int64_t cpu_left = it->Allocatable().cpu();
    int64_t mem_left = it->Allocatable().memory();
    if (daemons) {
      Pod d = karp::testing::DaemonPod("logger-" + name, name, "100m");
      d.metadata.namespace_ = "kube-system";
      d.containers[0].requests.Set(karp::kResourceMemory, 64LL << 20);
      snap.pods.push_back(std::move(d));
      cpu_left -= 100;
      mem_left -= 64LL << 20;
    }
    if (rng.Chance(12)) continue;  // empty
    int64_t target = cpu_left * rng.Int(5, 95) / 100;
    for (int attempts = 0; attempts < 20 && target > 0; ++attempts) {
      const int64_t cpu = 100LL * rng.Int(1, 15);
      const int64_t mem = (256LL << 20) * rng.Int(1, 8);
      if (cpu > target || cpu > cpu_left || mem > mem_left) continue;
      karp::testing::PodBuilder b =
          karp::testing::BoundPod("pod-" + std::to_string(pod_index++), name, "", "");
      b.pod().containers[0].requests.Set(karp::kResourceCpu, cpu);
      b.pod().containers[0].requests.Set(karp::kResourceMemory, mem);
      b.Label("app", rng.Pick(groups));
      const int dnd = rng.Int(1, 100);
      if (dnd <= 4) {
        b.Annotation(std::string(karp::kAnnotationDoNotDisrupt), "true");
      } else if (dnd <= 10) {
        b.Annotation(std::string(karp::kAnnotationDoNotDisrupt), "30m");
        b.pod().start_time = now - absl::Minutes(rng.Int(0, 60));
      }
      snap.pods.push_back(b.Build());
      target -= cpu;
      cpu_left -= cpu;
      mem_left -= mem;
    }
  }
  for (const std::string& g : groups) {
    if (rng.Chance(20)) {
      snap.pdbs.push_back(karp::testing::MakePdb("pdb-" + g, {{"app", g}}, rng.Chance(50) ? 0 : 1));
    }
  }
  const int pending = rng.Int(0, 3);
  for (int i = 0; i < pending; ++i) {
    snap.pods.push_back(karp::testing::MakePod(
        "pending-" + std::to_string(i), std::to_string(100 * rng.Int(1, 10)) + "m", "256Mi"));
  }
  c.options.spot_to_spot = rng.Chance(30);
  if (rng.Chance(20)) c.options.candidate_order = karp::CandidateOrder::kDisruptionCost;
  return c;
}

// ---------------------------------------------------------------------------------------------
// Validation

struct Stats {
  int cases = 0;
  int commands = 0;
  int empty_commands = 0;
  int deletes = 0;
  int replaces = 0;
  int multi_node = 0;
  int spot_to_spot = 0;
  int moved_pods = 0;
  int blocked_nodes = 0;
  int budget_kept = 0;
  int exhaustive_checks = 0;
  int expired_commands = 0;
  int drift_commands = 0;
};

std::string Annotation(const karp::ObjectMeta& m, std::string_view key) {
  auto it = m.annotations.find(std::string(key));
  return it == m.annotations.end() ? std::string() : it->second;
}

std::string Label(const karp::ObjectMeta& m, std::string_view key) {
  auto it = m.labels.find(std::string(key));
  return it == m.labels.end() ? std::string() : it->second;
}

// 1: every item fits some bin (cpu, memory, pods); 0: impossible; -1: gave up.
int ExactPack(std::vector<ResourceList> items, std::vector<ResourceList> bins, int64_t* steps) {
  std::sort(items.begin(), items.end(), [](const ResourceList& a, const ResourceList& b) {
    if (a.cpu() != b.cpu()) return a.cpu() > b.cpu();
    return a.memory() > b.memory();
  });
  std::function<int(size_t)> place = [&](size_t i) -> int {
    if (i == items.size()) return 1;
    if (++*steps > 2000000) return -1;
    std::vector<std::tuple<int64_t, int64_t, int64_t>> tried;
    for (ResourceList& bin : bins) {
      const auto key = std::make_tuple(bin.cpu(), bin.memory(), bin.pods());
      if (std::find(tried.begin(), tried.end(), key) != tried.end()) continue;
      tried.push_back(key);
      if (!karp::Fits(items[i], bin)) continue;
      bin.Subtract(items[i]);
      const int r = place(i + 1);
      bin.Add(items[i]);
      if (r != 0) return r;
    }
    return 0;
  };
  return place(0);
}

class Validator {
 public:
  Validator(const Case& c, const ConsolidationPlan& plan, Stats* stats)
      : c_(c), plan_(plan), stats_(stats) {}

  std::vector<std::string> Run() {
    for (const Node& n : c_.snap.nodes) {
      Alive a;
      a.pool = Label(n.metadata, karp::kLabelNodePool);
      a.type = Label(n.metadata, karp::kLabelInstanceType);
      a.zone = Label(n.metadata, karp::kLabelZone);
      a.ct = Label(n.metadata, karp::kLabelCapacityType);
      a.price = OfferingPrice(a.type, a.zone, a.ct);
      a.original = true;
      alive_[n.metadata.name] = a;
      original_price_ += a.price;
    }
    for (const Pod& p : c_.snap.pods) {
      pods_by_key_[p.Key()] = &p;
      if (!p.node_name.empty() && Active(p) && !p.IsDaemon()) location_[p.Key()] = p.node_name;
    }

    double total_savings = 0;
    std::set<std::string> disrupted;
    for (size_t i = 0; i < plan_.commands.size(); ++i) {
      const DisruptionCommand& cmd = plan_.commands[i];
      CheckCommand(i, cmd);
      total_savings += cmd.savings_per_hour;
      for (const std::string& n : cmd.candidates) disrupted.insert(n);
    }
    if (std::abs(total_savings - plan_.savings_per_hour) > 1e-6) {
      Problem("plan savings " + std::to_string(plan_.savings_per_hour) + " != sum of commands " +
              std::to_string(total_savings));
    }
    if (plan_.node_count != static_cast<int>(c_.snap.nodes.size()))
      Problem("plan.node_count is wrong");

    // kept: every original node outside the commands, sorted, with a reason.
    std::vector<std::string> expected_kept;
    for (const Node& n : c_.snap.nodes) {
      if (disrupted.count(n.metadata.name) == 0) expected_kept.push_back(n.metadata.name);
    }
    std::sort(expected_kept.begin(), expected_kept.end());
    std::vector<std::string> kept;
    for (const karp::KeptNode& k : plan_.kept) {
      kept.push_back(k.node);
      if (k.reason.empty()) Problem("kept " + k.node + " without a reason");
      if (k.reason.find("budget") != std::string::npos) ++stats_->budget_kept;
    }
    if (kept != expected_kept) Problem("kept does not list exactly the undisrupted nodes, sorted");

    // Every expired node is expired by the plan.
    for (const Node& n : c_.snap.nodes) {
      if (Expired(n.metadata.name) && expired_done_.count(n.metadata.name) == 0) {
        Problem("expired node " + n.metadata.name + " not in an expired command");
      }
    }
    // Without drift (no price check), the cluster price only goes down.
    double final_price = 0;
    for (const auto& [name, a] : alive_) final_price += a.price;
    if (!any_drift_ && final_price > original_price_ + 1e-9) {
      Problem("cluster price rose from " + std::to_string(original_price_) + " to " +
              std::to_string(final_price));
    }
    if (!any_drift_ && !plan_.commands.empty() && final_price >= original_price_ - 1e-12) {
      Problem("commands without any saving");
    }
    CheckPlacement();
    return problems_;
  }

 private:
  struct Alive {
    std::string pool, type, zone, ct;
    double price = 0;
    bool original = false;
    const NewNodeClaim* replacement = nullptr;
  };

  void Problem(std::string p) { problems_.push_back(std::move(p)); }

  double OfferingPrice(const std::string& type, const std::string& zone,
                       const std::string& ct) const {
    const InstanceType* it = c_.catalog->Find(type);
    if (it == nullptr) return 0;
    for (const Offering& o : it->offerings) {
      if (o.zone == zone && o.capacity_type == ct) return o.price;
    }
    return 0;
  }

  const NodePool* Pool(const std::string& name) const { return c_.snap.FindNodePool(name); }

  static bool Active(const Pod& p) {
    return p.phase != "Succeeded" && p.phase != "Failed" && !p.metadata.deletion_timestamp;
  }

  bool PodDoNotDisrupt(const Pod& p) const {
    if (!Active(p)) return false;
    const std::string v = Annotation(p.metadata, karp::kAnnotationDoNotDisrupt);
    if (v == "true") return true;
    if (v == "30m") return !p.start_time || DisruptionNow() < *p.start_time + absl::Minutes(30);
    return false;
  }

  // Why an original node may not be disrupted voluntarily ("" = it may). With `pods` false,
  // only the node-level reasons (drift under a terminationGracePeriod ignores pod blocks).
  std::string Blocked(const std::string& node, bool pods = true) const {
    const Node* n = c_.snap.FindNode(node);
    if (Annotation(n->metadata, karp::kAnnotationDoNotDisrupt) == "true") return "node dnd";
    if (!pods) return "";
    for (const Pod* p : c_.snap.PodsOnNode(node)) {
      if (PodDoNotDisrupt(*p)) return "pod " + p->Key() + " dnd";
      if (!Active(*p)) continue;
      int matching = 0;
      bool zero = false;
      for (const karp::PodDisruptionBudget& pdb : c_.snap.pdbs) {
        if (pdb.metadata.namespace_ != p->metadata.namespace_) continue;
        if (!pdb.selector || !pdb.selector->Matches(p->metadata.labels)) continue;
        ++matching;
        zero = zero || pdb.disruptions_allowed.value_or(1) <= 0;
      }
      if (matching > 1) return "pod " + p->Key() + " several pdbs";
      if (zero) return "pod " + p->Key() + " pdb 0";
    }
    return "";
  }

  bool OriginallyEmpty(const std::string& node) const {
    for (const Pod* p : c_.snap.PodsOnNode(node)) {
      if (Active(*p) && !p->IsDaemon()) return false;
    }
    return true;
  }

  bool ConsolidatableAtStart(const std::string& node, const NodePool& pool) const {
    if (!pool.consolidate_after) return false;
    const NodeClaim* claim = c_.snap.FindNodeClaimForNode(node);
    absl::Time t = claim->Condition("Initialized")->last_transition_time;
    if (claim->last_pod_event_time) t = *claim->last_pod_event_time;
    return DisruptionNow() - t >= *pool.consolidate_after;
  }

  bool Expired(const std::string& node) const {
    const NodeClaim* claim = c_.snap.FindNodeClaimForNode(node);
    return claim->expire_after &&
           DisruptionNow() >= claim->metadata.creation_timestamp + *claim->expire_after;
  }

  const NodeClaim* Drifted(const std::string& node) const {
    const NodeClaim* claim = c_.snap.FindNodeClaimForNode(node);
    return claim->ConditionTrue("Drifted") ? claim : nullptr;
  }

  int64_t Allowed(const NodePool& pool, const std::string& reason, int64_t num_nodes) const {
    int64_t allowed = std::numeric_limits<int32_t>::max();
    for (const Budget& b : pool.budgets) {
      if (!b.reasons.empty() &&
          std::find(b.reasons.begin(), b.reasons.end(), reason) == b.reasons.end()) {
        continue;
      }
      if (!b.schedule.empty() && !ScheduleActive().at(b.schedule)) continue;
      int64_t value = 0;
      if (b.nodes.back() == '%') {
        const int64_t pct = std::stoll(b.nodes.substr(0, b.nodes.size() - 1));
        value = (pct * num_nodes + 99) / 100;
      } else {
        value = std::stoll(b.nodes);
      }
      allowed = std::min(allowed, value);
    }
    return allowed;
  }

  void CheckCommand(size_t index, const DisruptionCommand& cmd) {
    const std::string where = "command " + std::to_string(index) + ": ";
    ++stats_->commands;
    if (cmd.candidates.empty()) Problem(where + "no candidates");
    if (!std::is_sorted(cmd.candidates.begin(), cmd.candidates.end())) {
      Problem(where + "candidates not sorted");
    }
    const bool empty = cmd.reason == DisruptionReason::kEmpty;
    const bool underutilized = cmd.reason == DisruptionReason::kUnderutilized;
    const bool expired = cmd.reason == DisruptionReason::kExpired;
    const bool drifted = cmd.reason == DisruptionReason::kDrifted;
    if (!empty && !underutilized && !expired && !drifted) {
      Problem(where + "unexpected reason " + std::string(karp::DisruptionReasonName(cmd.reason)));
    }
    if ((empty || expired) && cmd.decision != DisruptionDecision::kDelete) {
      Problem(where + "a replace for reason " +
              std::string(karp::DisruptionReasonName(cmd.reason)));
    }
    if ((expired || drifted) && cmd.candidates.size() != 1) {
      Problem(where + "expiration and drift disrupt one node per command");
    }
    if (empty) ++stats_->empty_commands;
    if (expired) ++stats_->expired_commands;
    if (drifted) ++stats_->drift_commands;
    if (cmd.candidates.size() > 1 && underutilized) ++stats_->multi_node;
    any_drift_ = any_drift_ || drifted;

    std::map<std::string, int64_t> per_pool;
    double candidate_price = 0;
    bool all_spot = true;
    for (const std::string& n : cmd.candidates) {
      auto a = alive_.find(n);
      if (a == alive_.end()) {
        Problem(where + n + " is not a node at this point (unknown or already disrupted)");
        continue;
      }
      const Alive& node = a->second;
      const NodePool* pool = Pool(node.pool);
      if (pool == nullptr) {
        Problem(where + n + " has no NodePool");
        continue;
      }
      ++per_pool[node.pool];
      candidate_price += node.price;
      all_spot = all_spot && node.ct == kSpot;
      if (expired) {
        // Forceful: no budgets, blocks, consolidateAfter or policy.
        if (!node.original || !Expired(n)) Problem(where + n + " has not expired");
        expired_done_.insert(n);
        continue;
      }
      if (drifted) {
        const NodeClaim* claim = node.original ? Drifted(n) : nullptr;
        if (claim == nullptr) {
          Problem(where + n + " has not drifted");
          continue;
        }
        const std::string blocked = Blocked(n, !claim->termination_grace_period.has_value());
        if (!blocked.empty()) Problem(where + n + " is blocked: " + blocked);
        continue;
      }
      if (!pool->consolidate_after) Problem(where + n + ": consolidateAfter Never");
      if (node.original) {
        const std::string blocked = Blocked(n);
        if (!blocked.empty()) Problem(where + n + " is blocked: " + blocked);
        if (!ConsolidatableAtStart(n, *pool)) Problem(where + n + ": consolidateAfter not elapsed");
        if (empty && !OriginallyEmpty(n)) Problem(where + n + " is not empty");
      } else {
        // A replacement got its pods now: only consolidateAfter 0 lets it go again.
        if (empty) Problem(where + n + " is a replacement holding pods, not empty");
        if (pool->consolidate_after && *pool->consolidate_after > absl::ZeroDuration()) {
          Problem(where + n + " is a fresh replacement inside consolidateAfter");
        }
      }
      if (underutilized && pool->consolidation_policy == ConsolidationPolicy::kWhenEmpty) {
        Problem(where + n + " is underutilized in a WhenEmpty pool");
      }
    }

    // Budgets (all but expiration).
    for (const auto& [pool_name, count] : per_pool) {
      if (expired) break;
      const NodePool* pool = Pool(pool_name);
      int64_t num_nodes = deleting_[pool_name];
      for (const auto& [name, a] : alive_) num_nodes += a.pool == pool_name ? 1 : 0;
      const std::string reason = empty ? "Empty" : (drifted ? "Drifted" : "Underutilized");
      const int64_t allowed = Allowed(*pool, reason, num_nodes);
      const int64_t left = std::max<int64_t>(allowed - deleting_[pool_name], 0);
      if (count > left) {
        Problem(where + "pool " + pool_name + " " + reason + " budget allows " +
                std::to_string(left) + ", got " + std::to_string(count));
      }
    }

    double launch_price = 0;
    if (cmd.decision == DisruptionDecision::kDelete) {
      ++stats_->deletes;
      if (!cmd.replacements.empty()) Problem(where + "delete with replacements");
    } else {
      ++stats_->replaces;
      if (cmd.replacements.empty()) Problem(where + "replace without replacements");
      if (underutilized && cmd.replacements.size() != 1) {
        Problem(where + "replace with " + std::to_string(cmd.replacements.size()) +
                " replacements");
      }
      for (const NewNodeClaim& r : cmd.replacements) {
        // Drift has no price check (docs/design.md §6.5).
        launch_price += CheckReplacement(where, r, cmd.candidates.size(), candidate_price, all_spot,
                                         /*price_checked=*/underutilized);
      }
    }
    const double savings = candidate_price - launch_price;
    if (std::abs(savings - cmd.savings_per_hour) > 1e-6) {
      Problem(where + "savings " + std::to_string(cmd.savings_per_hour) +
              " != " + std::to_string(savings));
    }

    // Apply. Pods on the candidates move: to the replacement when it lists them, else to some
    // surviving node the validator does not know ("").
    // Pods of an expired node go pending and are provisioned normally: not part of the
    // placement property.
    const std::set<std::string> gone(cmd.candidates.begin(), cmd.candidates.end());
    for (auto& [pod, node] : location_) {
      if (gone.count(node) > 0) node = expired ? kPendingMark : "";
    }
    for (const std::string& n : cmd.candidates) {
      auto a = alive_.find(n);
      if (a == alive_.end()) continue;
      ++deleting_[a->second.pool];
      alive_.erase(a);
    }
    for (const NewNodeClaim& r : cmd.replacements) {
      for (const std::string& key : r.pods) {
        auto l = location_.find(key);
        // Pending pods (from the start, or from an expired node) stay pending: the
        // simulation may count them on the replacement, but nothing binds them.
        if (l == location_.end() || l->second == kPendingMark) continue;
        if (!l->second.empty()) {
          Problem(where + "replacement " + r.name + " holds " + key + " which stays on " +
                  l->second);
        }
        l->second = r.name;
      }
      if (!r.launch) continue;
      Alive a;
      a.pool = r.node_pool;
      a.type = r.launch->instance_type;
      a.zone = r.launch->zone;
      a.ct = r.launch->capacity_type;
      a.price = r.launch->price;
      a.replacement = &r;
      if (alive_.count(r.name) > 0) Problem(where + "replacement name " + r.name + " reused");
      alive_[r.name] = a;
    }
  }

  double CheckReplacement(const std::string& where, const NewNodeClaim& r, size_t candidates,
                          double candidate_price, bool all_spot, bool price_checked) {
    if (!r.launch) {
      Problem(where + "replacement without a launch");
      return 0;
    }
    if (Pool(r.node_pool) == nullptr) Problem(where + "replacement of unknown pool " + r.node_pool);
    if (std::find(r.instance_types.begin(), r.instance_types.end(), r.launch->instance_type) ==
        r.instance_types.end()) {
      Problem(where + "launch type " + r.launch->instance_type + " is not an option");
    }
    if (price_checked && !(r.launch->price < candidate_price)) {
      Problem(where + "launch price " + std::to_string(r.launch->price) + " not below candidates " +
              std::to_string(candidate_price));
    }
    for (const std::string& t : r.instance_types) {
      const InstanceType* it = c_.catalog->Find(t);
      if (it == nullptr) {
        Problem(where + "unknown option " + t);
        continue;
      }
      if (!price_checked) continue;
      const double worst = it->WorstLaunchPrice(r.requirements);
      if (!(worst < candidate_price)) {
        Problem(where + "option " + t + " worst launch price " + std::to_string(worst) +
                " not below " + std::to_string(candidate_price));
      }
    }
    const karp::Requirement* ct = r.requirements.Find(karp::kLabelCapacityType);
    const bool allows_spot = ct == nullptr || ct->Has(kSpot);
    const bool allows_od = ct == nullptr || ct->Has(kOD);
    if (ct != nullptr && !ct->Has(r.launch->capacity_type)) {
      Problem(where + "launch capacity type " + r.launch->capacity_type + " not allowed");
    }
    if (price_checked && allows_spot && allows_od) {
      Problem(where + "replacement allows both spot and on-demand");
    }
    if (price_checked && all_spot && allows_spot) {
      ++stats_->spot_to_spot;
      if (!c_.options.spot_to_spot) Problem(where + "spot-to-spot without the feature gate");
      if (candidates == 1 && r.instance_types.size() < 15) {
        Problem(where + "single-node spot-to-spot with fewer than 15 options");
      }
    }
    // Requests (pods + daemon overhead) fit the launched type.
    const InstanceType* launched = c_.catalog->Find(r.launch->instance_type);
    if (launched != nullptr && !karp::Fits(r.requests, launched->Allocatable())) {
      Problem(where + "replacement requests " + r.requests.ToString() + " exceed " +
              r.launch->instance_type);
    }
    ResourceList pods;
    for (const std::string& key : r.pods) {
      auto p = pods_by_key_.find(key);
      if (p == pods_by_key_.end()) {
        Problem(where + "replacement holds unknown pod " + key);
        continue;
      }
      pods.Add(p->second->Requests());
    }
    if (launched != nullptr && !karp::Fits(pods, launched->Allocatable())) {
      Problem(where + "replacement pods exceed " + r.launch->instance_type);
    }
    return r.launch->price;
  }

  // After all commands (candidates removed, replacements added as nodes of their launch type
  // holding the moved pods they list), the other moved pods fit the surviving nodes:
  // Scheduler::Solve places them without new NodeClaims, or, when its greedy order does not
  // find a packing, an exhaustive search over cpu / memory / pods proves one exists (the
  // generated pods have no scheduling constraints besides resources).
  void CheckPlacement() {
    ClusterSnapshot after;
    after.node_pools = c_.snap.node_pools;
    after.daemon_sets = c_.snap.daemon_sets;
    for (const Node& n : c_.snap.nodes) {
      if (alive_.count(n.metadata.name) > 0) after.nodes.push_back(n);
    }
    for (const NodeClaim& nc : c_.snap.node_claims) {
      if (alive_.count(nc.node_name) > 0) after.node_claims.push_back(nc);
    }
    for (const auto& [name, a] : alive_) {
      if (a.original) continue;
      const InstanceType* it = c_.catalog->Find(a.type);
      if (it == nullptr) continue;
      Node n;
      n.metadata.name = name;
      n.metadata.labels = a.replacement->labels;
      for (const auto& [k, v] : it->labels) n.metadata.labels.emplace(k, v);
      n.metadata.labels[std::string(karp::kLabelInstanceType)] = a.type;
      n.metadata.labels[std::string(karp::kLabelZone)] = a.zone;
      n.metadata.labels[std::string(karp::kLabelCapacityType)] = a.ct;
      n.metadata.labels[std::string(karp::kLabelNodePool)] = a.pool;
      n.metadata.labels[std::string(karp::kLabelHostname)] = name;
      n.metadata.labels[std::string(karp::kLabelInitialized)] = "true";
      n.metadata.labels[std::string(karp::kLabelRegistered)] = "true";
      n.taints = a.replacement->taints;
      n.capacity = it->capacity;
      n.allocatable = it->Allocatable();
      n.conditions.push_back(karp::NodeCondition{"Ready", "True", "", "", DisruptionNow()});
      after.nodes.push_back(std::move(n));
    }
    std::vector<std::string> to_place;
    for (const Pod& p : c_.snap.pods) {
      if (p.node_name.empty()) continue;  // originally pending pods are not part of the property
      if (!Active(p) || p.IsDaemon()) {
        if (alive_.count(p.node_name) > 0) after.pods.push_back(p);  // else gone with its node
        continue;
      }
      const std::string& at = location_.at(p.Key());
      if (at == kPendingMark) continue;
      Pod q = p;
      if (at != p.node_name) ++stats_->moved_pods;
      if (at.empty()) {
        q.node_name.clear();
        q.phase = "Pending";
        to_place.push_back(p.Key());
      } else {
        q.node_name = at;
      }
      after.pods.push_back(std::move(q));
    }
    // Nodes must not be overcommitted by the pods bound to them (replacements included).
    std::map<std::string, ResourceList> free;
    for (const Node& n : after.nodes) free[n.metadata.name] = n.allocatable;
    for (const Pod& p : after.pods) {
      if (!p.node_name.empty()) free[p.node_name].Subtract(p.Requests());
    }
    for (const auto& [name, a] : alive_) {
      if (a.original) continue;
      for (const karp::DaemonSet& ds : after.daemon_sets)
        free[name].Subtract(ds.pod_template.Requests());
    }
    for (const auto& [name, f] : free) {
      if (f.AnyNegative())
        Problem("node " + name + " is overcommitted after the commands: " + f.ToString());
    }
    if (to_place.empty()) return;
    absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(after, c_.catalog);
    if (!s.ok()) {
      Problem("final snapshot: " + std::string(s.status().message()));
      return;
    }
    absl::StatusOr<karp::SolveResult> r = s->Solve();
    if (!r.ok()) {
      Problem("final solve: " + std::string(r.status().message()));
      return;
    }
    if (r->pod_errors.empty() && r->node_claims.empty()) return;
    ++stats_->exhaustive_checks;
    std::vector<ResourceList> items;
    for (const std::string& key : to_place) items.push_back(pods_by_key_.at(key)->Requests());
    std::vector<ResourceList> bins;
    for (const auto& [name, f] : free) bins.push_back(f);
    int64_t steps = 0;
    const int verdict = ExactPack(items, bins, &steps);
    if (verdict == 0) {
      Problem("the moved pods cannot all be placed after the commands; Solve says:\n" +
              karp::testing::Describe(*r));
    } else if (verdict < 0) {
      Problem("packing search undecided after " + std::to_string(steps) + " steps");
    }
  }

  const Case& c_;
  const ConsolidationPlan& plan_;
  Stats* stats_;
  std::map<std::string, Alive> alive_;
  std::map<std::string, int64_t> deleting_;
  std::map<std::string, const Pod*> pods_by_key_;
  // Where each originally bound, active, non-daemon pod is: its node, a replacement, or ""
  // when a command moved it onto a surviving node the plan does not name.
  std::map<std::string, std::string> location_;
  static constexpr const char* kPendingMark = "<pending>";
  std::set<std::string> expired_done_;
  bool any_drift_ = false;
  double original_price_ = 0;
  std::vector<std::string> problems_;
};

std::string DescribeCase(const Case& c) {
  std::string out = "seed " + std::to_string(c.seed) +
                    " spot_to_spot=" + (c.options.spot_to_spot ? "true" : "false") + "\n";
  for (const NodePool& np : c.snap.node_pools) {
    out +=
        "pool " + np.name() +
        " policy=" + std::string(karp::ConsolidationPolicyName(np.consolidation_policy)) +
        " after=" + (np.consolidate_after ? absl::FormatDuration(*np.consolidate_after) : "Never") +
        " reqs=" + std::to_string(np.requirements.size()) + " budgets=";
    for (const Budget& b : np.budgets) {
      out += "{" + b.nodes;
      for (const std::string& r : b.reasons) out += " " + r;
      if (!b.schedule.empty()) out += " '" + b.schedule + "'";
      out += "}";
    }
    out += "\n";
  }
  for (const Node& n : c.snap.nodes) {
    out += "node " + n.metadata.name + " " + Label(n.metadata, karp::kLabelNodePool) + " " +
           Label(n.metadata, karp::kLabelInstanceType) + " " + Label(n.metadata, karp::kLabelZone) +
           " " + Label(n.metadata, karp::kLabelCapacityType) + " pods=[";
    for (const Pod* p : c.snap.PodsOnNode(n.metadata.name)) {
      out += p->metadata.name + ":" + p->Requests().ToString() + " ";
    }
    out += "]\n";
  }
  for (const Pod* p : c.snap.PendingPods()) out += "pending " + p->metadata.name + "\n";
  for (const karp::PodDisruptionBudget& pdb : c.snap.pdbs) {
    out += "pdb " + pdb.metadata.name +
           " allowed=" + std::to_string(pdb.disruptions_allowed.value_or(-1)) + "\n";
  }
  return out;
}

absl::StatusOr<ConsolidationPlan> PlanCase(const Case& c) {
  absl::StatusOr<Consolidator> cons =
      Consolidator::Create(c.snap, c.catalog, DisruptionNow(), c.options);
  if (!cons.ok()) return cons.status();
  return cons->Plan();
}

void CheckRandomClusters(int cases) {
  Stats stats;
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t seed = 1; seed <= static_cast<uint32_t>(cases); ++seed) {
    const Case c = Generate(seed);
    absl::StatusOr<ConsolidationPlan> plan = PlanCase(c);
    if (!plan.ok()) {
      FAIL_CHECK("seed " << seed << ": " << std::string(plan.status().message()) << "\n"
                         << DescribeCase(c));
      continue;
    }
    ++stats.cases;
    const std::vector<std::string> problems = Validator(c, *plan, &stats).Run();
    if (!problems.empty()) {
      std::string msg = "seed " + std::to_string(seed) + ":\n";
      for (const std::string& p : problems) msg += "  " + p + "\n";
      FAIL_CHECK(msg << "--- case\n"
                     << DescribeCase(c) << "--- plan\n"
                     << karp::testing::Describe(*plan));
    }
    if (seed % 10 == 0) {
      absl::StatusOr<ConsolidationPlan> again = PlanCase(c);
      if (!again.ok() || !karp::testing::SamePlan(*plan, *again)) {
        FAIL_CHECK("seed " << seed << ": a second Plan differs");
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN("consolidator property: " << stats.cases << " cases in " << seconds << " s; "
                                 << stats.commands << " commands (" << stats.empty_commands
                                 << " empty, " << stats.deletes << " deletes, " << stats.replaces
                                 << " replaces, " << stats.multi_node << " multi-node, "
                                 << stats.expired_commands << " expired, " << stats.drift_commands
                                 << " drifted, " << stats.exhaustive_checks
                                 << " exhaustive packings, " << stats.spot_to_spot
                                 << " spot-to-spot), " << stats.moved_pods
                                 << " moved pods re-placed, " << stats.budget_kept
                                 << " nodes kept by budgets");
  CHECK(stats.cases == cases);
  if (cases >= 200) {
    // The generator must keep producing the situations the validator is about.
    CHECK(stats.empty_commands > 20);
    CHECK(stats.deletes - stats.empty_commands - stats.expired_commands > 20);
    CHECK(stats.replaces > 20);
    CHECK(stats.multi_node > 5);
    CHECK(stats.moved_pods > 100);
    CHECK(stats.budget_kept > 20);
    CHECK(stats.expired_commands > 10);
    CHECK(stats.drift_commands > 10);
  }
}

}  // namespace

// 1,000 cases take about 0.4 s in Release and 9 s under ASan+UBSan.
KARP_SIZED_TEST_CASE("consolidation plans satisfy the disruption rules on random clusters",
                     "[consolidator-property]", 250, 1000, CheckRandomClusters)

TEST_CASE("the exhaustive packing of the property validator", "[consolidator-property]") {
  using karp::testing::Resources;
  int64_t steps = 0;
  // Bins of 3 and 3 cpu; items 2, 2, 1, 1: feasible (2+1, 2+1).
  CHECK(ExactPack({Resources("2", "", 1), Resources("1", "", 1), Resources("2", "", 1),
                   Resources("1", "", 1)},
                  {Resources("3", "1Gi", 10), Resources("3", "1Gi", 10)}, &steps) == 1);
  // First fit puts the 3-cpu pod on the 4-cpu bin, after which neither 3Gi pod fits; the
  // search must backtrack and put it on the 3-cpu bin.
  CHECK(ExactPack({Resources("2", "3Gi", 1), Resources("3", "100Mi", 1), Resources("2", "3Gi", 1)},
                  {Resources("4", "8Gi", 10), Resources("3", "1Gi", 10)}, &steps) == 1);
  // Items 3, 3, 3 do not fit bins of 5 and 5 although the total (9 of 10) does.
  CHECK(ExactPack({Resources("3", "", 1), Resources("3", "", 1), Resources("3", "", 1)},
                  {Resources("5", "1Gi", 10), Resources("5", "1Gi", 10)}, &steps) == 0);
  // Memory and pod counts count too.
  CHECK(ExactPack({Resources("1", "2Gi", 1)}, {Resources("4", "1Gi", 10)}, &steps) == 0);
  CHECK(ExactPack({Resources("1", "", 1), Resources("1", "", 1)}, {Resources("4", "1Gi", 1)},
                  &steps) == 0);
  CHECK(ExactPack({}, {}, &steps) == 1);
}

TEST_CASE("the consolidation property validator rejects corrupted plans",
          "[consolidator-property]") {
  int corrupted = 0;
  int targeted_budget = 0;
  int targeted_blocked = 0;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    const Case c = Generate(seed);
    absl::StatusOr<ConsolidationPlan> solved = PlanCase(c);
    REQUIRE(solved.ok());
    Stats stats;
    REQUIRE(Validator(c, *solved, &stats).Run().empty());
    auto expect_problem = [&](const char* what,
                              const std::function<void(ConsolidationPlan&)>& mutate,
                              const std::string& needle = "") {
      ConsolidationPlan p = *solved;
      mutate(p);
      Stats s;
      const std::vector<std::string> problems = Validator(c, p, &s).Run();
      std::string all;
      for (const std::string& x : problems) all += x + "\n";
      INFO("seed " << seed << ": corruption " << what << "\n" << all);
      CHECK_FALSE(problems.empty());
      if (!needle.empty()) CHECK_THAT(all, Catch::Contains(needle));
      ++corrupted;
    };
    // An empty node kept by a budget or by do-not-disrupt, deleted anyway.
    for (const karp::KeptNode& k : solved->kept) {
      const bool budget = k.reason.find("budget") != std::string::npos;
      const bool dnd = k.reason.find("do-not-disrupt") != std::string::npos;
      if (!budget && !dnd) continue;
      bool empty = true;
      for (const Pod* p : c.snap.PodsOnNode(k.node)) empty = empty && p->IsDaemon();
      const NodeClaim* claim = c.snap.FindNodeClaimForNode(k.node);
      if (!empty || claim->ConditionTrue("Drifted") ||
          DisruptionNow() >= claim->metadata.creation_timestamp + *claim->expire_after) {
        continue;
      }
      const Node* node = c.snap.FindNode(k.node);
      double price = 0;
      for (const Offering& o :
           c.catalog->Find(Label(node->metadata, karp::kLabelInstanceType))->offerings) {
        if (o.zone == Label(node->metadata, karp::kLabelZone) &&
            o.capacity_type == Label(node->metadata, karp::kLabelCapacityType)) {
          price = o.price;
        }
      }
      expect_problem(
          budget ? "budget exceeded" : "blocked node disrupted",
          [&](ConsolidationPlan& p) {
            DisruptionCommand cmd;
            cmd.reason = DisruptionReason::kEmpty;
            cmd.candidates = {k.node};
            cmd.savings_per_hour = price;
            p.commands.push_back(cmd);
            p.savings_per_hour += price;
            p.kept.erase(std::remove_if(p.kept.begin(), p.kept.end(),
                                        [&](const karp::KeptNode& x) { return x.node == k.node; }),
                         p.kept.end());
          },
          budget ? "budget allows" : "is blocked");
      ++(budget ? targeted_budget : targeted_blocked);
    }
    // Deleting every node leaves the moved pods nowhere to go (and usually breaks budgets).
    bool has_pods = false;
    for (const Pod& p : c.snap.pods) has_pods = has_pods || (!p.node_name.empty() && !p.IsDaemon());
    if (has_pods) {
      expect_problem("delete everything", [&](ConsolidationPlan& p) {
        std::set<std::string> gone;
        for (const DisruptionCommand& cmd : p.commands)
          gone.insert(cmd.candidates.begin(), cmd.candidates.end());
        DisruptionCommand all;
        all.reason = DisruptionReason::kUnderutilized;
        for (const Node& n : c.snap.nodes) {
          if (gone.count(n.metadata.name) == 0) all.candidates.push_back(n.metadata.name);
        }
        for (const DisruptionCommand& cmd : p.commands) {
          for (const NewNodeClaim& r : cmd.replacements) all.candidates.push_back(r.name);
        }
        std::sort(all.candidates.begin(), all.candidates.end());
        p.commands.push_back(all);
        p.kept.clear();
      });
    }
    if (solved->commands.empty()) continue;
    expect_problem("a node in two commands", [](ConsolidationPlan& p) {
      p.commands.push_back(p.commands.front());
      p.savings_per_hour += p.commands.front().savings_per_hour;
    });
    expect_problem("wrong savings", [](ConsolidationPlan& p) {
      p.commands.front().savings_per_hour += 0.5;
      p.savings_per_hour += 0.5;
    });
    expect_problem("kept entry dropped or added", [&](ConsolidationPlan& p) {
      if (!p.kept.empty()) {
        p.kept.pop_back();
      } else {
        p.kept.push_back({p.commands.front().candidates.front(), "x"});
      }
    });
    for (size_t i = 0; i < solved->commands.size(); ++i) {
      if (solved->commands[i].decision != DisruptionDecision::kReplace ||
          solved->commands[i].reason != DisruptionReason::kUnderutilized) {
        continue;
      }
      expect_problem("replacement not cheaper", [i](ConsolidationPlan& p) {
        DisruptionCommand& cmd = p.commands[i];
        const double bump = cmd.savings_per_hour + 0.01;
        cmd.replacements[0].launch->price += bump;
        cmd.savings_per_hour -= bump;
        p.savings_per_hour -= bump;
      });
      break;
    }
  }
  CHECK(corrupted > 40);
  CHECK(targeted_budget > 3);
  CHECK(targeted_blocked > 0);
}
