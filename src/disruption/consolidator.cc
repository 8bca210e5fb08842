// Consolidator: disruption with the reference semantics (semantics §6). See karp/consolidator.h.

#include "karp/consolidator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "model/cron.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "scheduling/access.h"

namespace karp {

std::string_view DisruptionDecisionName(DisruptionDecision d) {
  return d == DisruptionDecision::kDelete ? "delete" : "replace";
}

std::string_view DisruptionReasonName(DisruptionReason r) {
  switch (r) {
    case DisruptionReason::kEmpty: return "empty";
    case DisruptionReason::kUnderutilized: return "underutilized";
    case DisruptionReason::kDrifted: return "drifted";
    case DisruptionReason::kExpired: return "expired";
    case DisruptionReason::kInterrupted: return "interrupted";
  }
  return "";
}

absl::Status ConsolidationOptions::Validate() const {
  if (absl::Status s = scheduler.Validate(); !s.ok()) return s;
  if (max_multi_node_candidates < 1) {
    return absl::InvalidArgumentError(
        "consolidation options: max_multi_node_candidates must be >= 1");
  }
  return absl::OkStatus();
}

struct Consolidator::State {
  ClusterSnapshot snapshot;
  std::shared_ptr<const InstanceCatalog> catalog;
  absl::Time now;
  ConsolidationOptions options;
};

namespace {

constexpr double kMaxPrice = std::numeric_limits<double>::max();
constexpr int kMinSpotToSpotTypes = 15;

std::string Annotation(const ObjectMeta& m, std::string_view key) {
  auto it = m.annotations.find(std::string(key));
  return it == m.annotations.end() ? std::string() : it->second;
}

std::string Label(const ObjectMeta& m, std::string_view key) {
  auto it = m.labels.find(std::string(key));
  return it == m.labels.end() ? std::string() : it->second;
}

bool IsActive(const Pod& p) { return !p.IsTerminal() && !p.IsTerminating(); }
bool IsMirror(const Pod& p) { return p.IsOwnedBy("Node"); }

// Reschedulable: active (or a terminating StatefulSet pod), not a DaemonSet or mirror pod.
bool IsReschedulable(const Pod& p) {
  if (p.IsDaemon() || IsMirror(p)) return false;
  if (p.IsTerminal()) return false;
  return !p.IsTerminating() || p.IsOwnedBy("StatefulSet");
}

// Parses a Go-style duration ("5m", "1h30m", "90s"). nullopt if malformed.
std::optional<absl::Duration> ParseGoDuration(const std::string& text) {
  absl::Duration d;
  if (text.empty() || !absl::ParseDuration(text, &d)) return std::nullopt;
  return d;
}

// karpenter.sh/do-not-disrupt on an active pod: "true", or a positive duration still running
// since status.startTime (no startTime: blocks). Unparsable values are ignored.
bool PodDoNotDisrupt(const Pod& p, absl::Time now) {
  if (!IsActive(p)) return false;
  const std::string v = Annotation(p.metadata, kAnnotationDoNotDisrupt);
  if (v.empty()) return false;
  if (v == "true") return true;
  std::optional<absl::Duration> d = ParseGoDuration(v);
  if (!d || *d <= absl::ZeroDuration()) return false;
  if (!p.start_time) return true;
  return now < *p.start_time + *d;
}

double EvictionCost(const Pod& p) {
  double cost = 1.0;
  const std::string dc = Annotation(p.metadata, "controller.kubernetes.io/pod-deletion-cost");
  if (!dc.empty()) {
    char* end = nullptr;
    const double v = std::strtod(dc.c_str(), &end);
    if (end != dc.c_str() && std::isfinite(v)) cost += v / std::pow(2.0, 27);
  }
  cost += static_cast<double>(p.priority) / std::pow(2.0, 25);
  return std::clamp(cost, -10.0, 10.0);
}

// Price of the node's offering (instance type, zone, capacity type); 0 if none (semantics §6.9).
double NodePrice(const InstanceType* it, const std::string& zone, const std::string& capacity_type) {
  if (it == nullptr) return 0;
  for (const Offering& o : it->offerings) {
    if (o.zone == zone && o.capacity_type == capacity_type) {
      return std::isnan(o.price) ? 0 : o.price;
    }
  }
  return 0;
}

// One node of the snapshot with everything the methods need.
struct NodeView {
  const Node* node = nullptr;
  const NodeClaim* claim = nullptr;
  const NodePool* pool = nullptr;
  const InstanceType* it = nullptr;
  std::string name;
  std::string zone;
  std::string capacity_type;
  bool managed = false;
  bool initialized = false;
  bool deleting = false;  // NodeDeleting: the Node or its NodeClaim is going away
  std::vector<const Pod*> pods;         // all pods bound to the node
  std::vector<const Pod*> reschedulable;
  double price = 0;
  double disruption_cost = 0;
  double reschedule_cost = 1.0;
  absl::Time created;
  // Why the node is not a candidate for graceful methods ("" = candidate), and for the
  // eventual class (drift), where pod-level blocks are ignored under terminationGracePeriod.
  std::string reject;
  std::string reject_eventual;
  bool consolidatable = false;
  std::string consolidatable_reason;
  std::string drift_reason;  // "" = not drifted
  absl::Time drift_time;
  bool expired = false;

  bool empty() const { return reschedule_cost <= 1.0; }
  double savings_ratio() const { return price / reschedule_cost; }
};

// The time consolidateAfter counts from: the NodeClaim's last pod event, else its
// initialization, else the node's creation.
absl::Time ConsolidateAfterStart(const NodeView& v) {
  absl::Time t = v.created;
  if (v.claim != nullptr) {
    if (const NodeCondition* c = v.claim->Condition("Initialized")) t = c->last_transition_time;
    if (v.claim->last_pod_event_time) t = *v.claim->last_pod_event_time;
  }
  return t;
}

// The reference's IsUnderConsolidateAfter: an initialized managed node whose consolidateAfter
// (set and non-zero) has not elapsed since ConsolidateAfterStart at `now`.
bool UnderConsolidateAfter(const NodeView& v, absl::Time now) {
  if (v.pool == nullptr || !v.pool->consolidate_after ||
      *v.pool->consolidate_after == absl::ZeroDuration() || !v.managed) {
    return false;
  }
  return now - ConsolidateAfterStart(v) < *v.pool->consolidate_after;
}

// The budget map of one reason: allowed disruptions per NodePool (semantics §6.3).
// `deleting` counts, per NodePool, nodes that earlier commands of this plan are deleting: they
// still exist while they drain, so they count as nodes and as disrupting.
std::map<std::string, int64_t> BuildBudgets(const ClusterSnapshot& snap,
                                            const std::vector<NodeView>& views,
                                            std::string_view reason, absl::Time now,
                                            const std::map<std::string, int64_t>& deleting) {
  std::map<std::string, int64_t> out;
  for (const NodePool& np : snap.node_pools) {
    auto d = deleting.find(np.name());
    int64_t num_nodes = d == deleting.end() ? 0 : d->second;
    int64_t disrupting = num_nodes;
    for (const NodeView& v : views) {
      if (v.pool != &np || !v.managed || !v.initialized) continue;
      if (v.claim != nullptr && v.claim->ConditionTrue("InstanceTerminating")) continue;
      ++num_nodes;
      bool ready = true;
      for (const NodeCondition& c : v.node->conditions) {
        if (c.type == "Ready") ready = c.status == "True";
      }
      if (!ready || v.deleting) ++disrupting;
    }
    int64_t allowed = std::numeric_limits<int32_t>::max();
    for (const Budget& b : np.budgets) {
      if (!b.reasons.empty() &&
          std::find(b.reasons.begin(), b.reasons.end(), reason) == b.reasons.end()) {
        continue;
      }
      if (!b.schedule.empty()) {
        absl::StatusOr<CronSchedule> cron = CronSchedule::Parse(b.schedule);
        if (!cron.ok()) {
          allowed = 0;  // fail closed
          continue;
        }
        if (!BudgetWindowActive(*cron, b.duration.value_or(absl::ZeroDuration()),
                                            now)) {
          continue;
        }
      }
      absl::StatusOr<IntOrPercent> nodes = ParseIntOrPercent(b.nodes, /*max_percent_100=*/true);
      allowed = std::min(allowed, nodes.ok() ? nodes->Resolve(num_nodes) : 0);  // fail closed
    }
    out[np.name()] = std::max<int64_t>(allowed - disrupting, 0);
  }
  return out;
}

// Facts about pods that no command changes (labels, annotations, priority, owners), computed
// once per plan.
struct PodFacts {
  std::vector<const PodDisruptionBudget*> pdbs;
  double eviction_cost = 1.0;
  bool mirror = false;
  bool tolerates_disrupted = false;
  std::string key;
};

struct PodCache {
  std::unordered_map<std::string, PodFacts> by_key;  // reference-stable, across loops
  absl::flat_hash_map<const Pod*, const PodFacts*> facts;  // this loop's pods
  // Drift verdicts that depend only on a node's (immutable) labels and its NodePool:
  // node name -> reason ("" = not drifted).
  std::unordered_map<std::string, std::string> static_drift;

  // Valid for the loop that owns `p`; call Reset() when the snapshot mutates.
  const PodFacts& Of(const Pod& p, const ClusterSnapshot& snap) {
    auto it = facts.find(&p);
    if (it != facts.end()) return *it->second;
    std::string key = p.Key();
    auto k = by_key.find(key);
    if (k == by_key.end()) {
      PodFacts f;
      f.key = key;
      const std::string pns = p.metadata.namespace_.empty() ? "default" : p.metadata.namespace_;
      for (const PodDisruptionBudget& pdb : snap.pdbs) {
        const std::string ns = pdb.metadata.namespace_.empty() ? "default" : pdb.metadata.namespace_;
        if (ns != pns || !pdb.selector || !pdb.selector->Matches(p.metadata.labels)) continue;
        f.pdbs.push_back(&pdb);
      }
      f.eviction_cost = EvictionCost(p);
      f.mirror = IsMirror(p);
      f.tolerates_disrupted = ToleratesTaint(p.tolerations, DisruptedTaint());
      k = by_key.emplace(std::move(key), std::move(f)).first;
    }
    facts.emplace(&p, &k->second);
    return k->second;
  }
  void Reset() { facts.clear(); }
};

// The price-check outcome of one candidate set (computeConsolidation).
struct Evaluation {
  std::optional<DisruptionCommand> command;
  std::string why_not;  // when no command
};

class Loop {
 public:
  // `pools` carries the NodePool-level scheduler state between loops (NodePools, DaemonSets
  // and the catalog never change within a plan).
  Loop(const Consolidator::State& state, std::shared_ptr<const ClusterSnapshot> snap,
       const std::map<std::string, int64_t>& deleting, PodCache* cache,
       std::shared_ptr<const scheduling::PoolsState>* pools)
      : state_(state),
        snap_ptr_(std::move(snap)),
        snap_(*snap_ptr_),
        deleting_(deleting),
        cache_(cache),
        pools_(pools) {}

  absl::Status Init();
  // The next command, or nullopt when no method finds anything; `kept` gets a reason for every
  // node that the last evaluation did not disrupt.
  std::optional<DisruptionCommand> Next(std::map<std::string, std::string>* kept,
                                        SolveResult* placement);
  int candidates() const;

 private:
  void BuildViews();
  Evaluation Evaluate(const std::vector<const NodeView*>& cands, bool multi,
                      DisruptionReason reason, SolveResult* placement) const;
  // Scheduling with `cands` removed and their pods moving; `consolidation` applies the
  // reference's consolidateAfter rule to the remaining nodes (IsConsolidationSimulation).
  absl::StatusOr<SolveResult> Simulate(const std::vector<const NodeView*>& cands,
                                       bool consolidation) const;
  std::vector<const NodeView*> Sorted(std::vector<const NodeView*> v) const;
  std::string BalancedVeto(const std::vector<const NodeView*>& cands, double savings) const;
  std::optional<NewNodeClaim> RestrictAndPrice(const NewNodeClaim& nc,
                                               const std::vector<const NodeView*>& cands,
                                               bool multi, std::string* why) const;

  const Consolidator::State& state_;
  std::shared_ptr<const ClusterSnapshot> snap_ptr_;
  const ClusterSnapshot& snap_;
  const std::map<std::string, int64_t>& deleting_;
  PodCache* cache_;
  std::shared_ptr<const scheduling::PoolsState>* pools_;
  std::vector<NodeView> views_;
  std::optional<Scheduler> scheduler_;
};

absl::Status Loop::Init() {
  BuildViews();
  SchedulerOptions options = state_.options.scheduler;
  options.reserved_capacity_mode = ReservedCapacityMode::kFallback;
  absl::StatusOr<Scheduler> s =
      scheduling::CreateUnchecked(snap_ptr_, state_.catalog, options, *pools_);
  if (!s.ok()) return s.status();
  scheduler_ = std::move(*s);
  *pools_ = scheduling::PoolsOf(*scheduler_);
  return absl::OkStatus();
}

int Loop::candidates() const {
  int n = 0;
  for (const NodeView& v : views_) n += v.reject.empty() ? 1 : 0;
  return n;
}

void Loop::BuildViews() {
  const absl::Time now = state_.now;
  absl::flat_hash_map<std::string, std::vector<const Pod*>> pods_by_node;
  for (const Pod& p : snap_.pods) {
    if (!p.node_name.empty()) pods_by_node[p.node_name].push_back(&p);
  }
  absl::flat_hash_map<std::string, const NodeClaim*> claim_by_node;
  for (const NodeClaim& nc : snap_.node_claims) {
    if (!nc.node_name.empty()) claim_by_node.emplace(nc.node_name, &nc);
  }
  std::map<const PodDisruptionBudget*, int64_t> pdb_allowed;  // derived allowances, cached
  for (const Node& node : snap_.nodes) {
    NodeView v;
    v.node = &node;
    v.name = node.metadata.name;
    auto claim_it = claim_by_node.find(v.name);
    v.claim = claim_it == claim_by_node.end() ? nullptr : claim_it->second;
    std::string pool_name = Label(node.metadata, kLabelNodePool);
    if (pool_name.empty() && v.claim != nullptr) pool_name = v.claim->NodePoolName();
    v.pool = pool_name.empty() ? nullptr : snap_.FindNodePool(pool_name);
    v.managed = v.claim != nullptr || !pool_name.empty();
    v.deleting = NodeDeleting(node, v.claim);
    v.initialized = Label(node.metadata, kLabelInitialized) == "true" ||
                    (v.claim != nullptr && v.claim->ConditionTrue("Initialized"));
    v.zone = Label(node.metadata, kLabelZone);
    v.capacity_type = Label(node.metadata, kLabelCapacityType);
    const std::string type_name = Label(node.metadata, kLabelInstanceType);
    v.it = type_name.empty() ? nullptr : state_.catalog->Find(type_name);
    v.price = NodePrice(v.it, v.zone, v.capacity_type);
    v.created = v.claim != nullptr ? v.claim->metadata.creation_timestamp
                                   : node.metadata.creation_timestamp;
    auto pods = pods_by_node.find(v.name);
    if (pods != pods_by_node.end()) v.pods = pods->second;

    // Disruption costs (semantics §6.2).
    std::optional<absl::Duration> expire_after =
        v.claim != nullptr ? v.claim->expire_after
                           : (v.pool != nullptr ? v.pool->expire_after : std::nullopt);
    double lifetime = 1.0;
    if (expire_after && *expire_after > absl::ZeroDuration()) {
      lifetime = std::clamp(absl::FDivDuration(*expire_after - (now - v.created), *expire_after),
                            0.0, 1.0);
      v.expired = v.managed && now >= v.created + *expire_after;
    }
    double all_cost = 0;
    for (const Pod* p : v.pods) {
      const PodFacts& f = cache_->Of(*p, snap_);
      const double cost = f.eviction_cost;
      all_cost += cost;
      if (IsReschedulable(*p)) {
        v.reschedulable.push_back(p);
        v.reschedule_cost += std::max(0.0, cost);
      }
    }
    v.disruption_cost = all_cost * lifetime;

    // Candidate filters (semantics §6.2), first failing reason wins.
    auto reject = [&]() -> std::string {
      if (!v.managed) return "not managed by karpenter";
      if (!v.initialized) return "not initialized";
      if (node.metadata.deletion_timestamp) return "already being deleted";
      if (v.deleting) {
        return internal::StrCat("already being deleted (nodeclaim ", v.claim->metadata.name,
                                v.claim->metadata.deletion_timestamp
                                    ? " has a deletionTimestamp)"
                                    : " is InstanceTerminating)");
      }
      for (const Taint& t : node.taints) {
        if (t.key == DisruptedTaint().key) return "already being disrupted";
      }
      if (Annotation(node.metadata, kAnnotationDoNotDisrupt) == "true") {
        return "node has karpenter.sh/do-not-disrupt";
      }
      if (pool_name.empty()) return "no karpenter.sh/nodepool label";
      if (v.pool == nullptr) return internal::StrCat("nodepool \"", pool_name, "\" not found");
      return "";
    }();
    v.reject = reject;
    v.reject_eventual = reject;
    if (reject.empty()) {
      std::string pod_block;
      for (const Pod* p : v.pods) {
        if (PodDoNotDisrupt(*p, now)) {
          pod_block = internal::StrCat("pod ", p->Key(), " has karpenter.sh/do-not-disrupt");
          break;
        }
      }
      if (pod_block.empty()) {
        // PDBs over evictable pods.
        for (const Pod* p : v.pods) {
          const PodFacts& f = cache_->Of(*p, snap_);
          if (f.pdbs.empty()) continue;
          if (!IsActive(*p) || f.mirror || PodDoNotDisrupt(*p, now)) continue;
          if (f.tolerates_disrupted) continue;
          const std::vector<const PodDisruptionBudget*>& matching = f.pdbs;
          if (matching.size() > 1) {
            pod_block = internal::StrCat("pod ", p->Key(),
                                         ": eviction does not support multiple PDBs");
            break;
          }
          if (matching.size() == 1) {
            const PodDisruptionBudget& pdb = *matching[0];
            int64_t allowed = 1;
            auto cached = pdb_allowed.find(&pdb);
            if (pdb.disruptions_allowed) {
              allowed = *pdb.disruptions_allowed;
            } else if (cached != pdb_allowed.end()) {
              allowed = cached->second;
            } else {
              // No status: derive from the spec over the pods it selects.
              int64_t total = 0, healthy = 0;
              for (const Pod& q : snap_.pods) {
                const std::string qns = q.metadata.namespace_.empty() ? "default" : q.metadata.namespace_;
                const std::string ns = pdb.metadata.namespace_.empty() ? "default" : pdb.metadata.namespace_;
                if (qns != ns || !pdb.selector->Matches(q.metadata.labels) || !IsActive(q)) continue;
                ++total;
                if (q.phase == "Running") ++healthy;
              }
              auto resolve = [&](const std::string& s) {
                absl::StatusOr<IntOrPercent> count = ParseIntOrPercent(s, /*max_percent_100=*/false);
                return count.ok() ? count->Resolve(total) : 0;
              };
              if (!pdb.max_unavailable.empty()) {
                allowed = resolve(pdb.max_unavailable) - (total - healthy);
              } else if (!pdb.min_available.empty()) {
                allowed = healthy - resolve(pdb.min_available);
              }
              pdb_allowed[&pdb] = allowed;
            }
            if (allowed <= 0 && !(pdb.unhealthy_pod_eviction_policy == "AlwaysAllow" &&
                                  p->phase != "Running")) {
              pod_block = internal::StrCat("pdb ", pdb.metadata.namespace_, "/",
                                           pdb.metadata.name, " prevents pod evictions");
              break;
            }
          }
        }
      }
      if (!pod_block.empty()) {
        v.reject = pod_block;
        const bool tgp = v.claim != nullptr && v.claim->termination_grace_period.has_value();
        v.reject_eventual = tgp ? "" : pod_block;
      }
    }

    // Consolidatable (semantics §6.6): the NodeClaim's condition when the snapshot carries it;
    // derived from consolidateAfter only when it is absent (docs/design.md).
    if (v.pool != nullptr) {
      const NodeCondition* condition =
          v.claim != nullptr ? v.claim->Condition("Consolidatable") : nullptr;
      if (!v.pool->consolidate_after) {
        v.consolidatable = false;
        v.consolidatable_reason = "consolidateAfter Never";
      } else if (condition != nullptr) {
        v.consolidatable = condition->status == "True";
        if (!v.consolidatable) {
          v.consolidatable_reason = internal::StrCat("nodeclaim condition Consolidatable is ",
                                                     condition->status.empty() ? "Unknown"
                                                                               : condition->status);
        }
      } else {
        v.consolidatable = !UnderConsolidateAfter(v, now);
        if (!v.consolidatable) {
          v.consolidatable_reason = internal::StrCat(
              "consolidateAfter ", absl::FormatDuration(*v.pool->consolidate_after),
              " not elapsed since the last pod event");
        }
      }
    }

    // Drift (semantics §6.5): the Drifted condition, or detected here.
    if (v.managed && v.pool != nullptr) {
      if (v.claim != nullptr && v.claim->ConditionTrue("Drifted")) {
        const NodeCondition* c = v.claim->Condition("Drifted");
        v.drift_reason = c->reason.empty() ? "Drifted" : c->reason;
        v.drift_time = c->last_transition_time;
      } else if (auto cached = cache_->static_drift.find(v.name);
                 cached != cache_->static_drift.end()) {
        v.drift_reason = cached->second;
        v.drift_time = now;
      } else {
        const std::string np_hash = Annotation(v.pool->metadata, kAnnotationNodePoolHash);
        const std::string nc_hash =
            v.claim != nullptr ? Annotation(v.claim->metadata, kAnnotationNodePoolHash) : "";
        const std::string np_ver = Annotation(v.pool->metadata, kAnnotationNodePoolHashVersion);
        const std::string nc_ver =
            v.claim != nullptr ? Annotation(v.claim->metadata, kAnnotationNodePoolHashVersion) : "";
        absl::StatusOr<Requirements> pool_reqs = Requirements::FromApi(v.pool->requirements);
        const std::map<std::string, std::string>& labels =
            v.claim != nullptr ? v.claim->metadata.labels : node.metadata.labels;
        if (!np_hash.empty() && !nc_hash.empty() && np_ver == nc_ver && np_hash != nc_hash) {
          v.drift_reason = "NodePoolDrifted";
        } else if (pool_reqs.ok() &&
                   !Requirements::FromLabels(labels).IsCompatible(*pool_reqs, nullptr)) {
          v.drift_reason = "RequirementsDrifted";
        } else if (!type_name.empty() && v.it == nullptr) {
          v.drift_reason = "InstanceTypeNotFound";
        } else if (state_.options.provider_drift && v.claim != nullptr) {
          v.drift_reason = state_.options.provider_drift(*v.claim);
        }
        v.drift_time = now;
        cache_->static_drift.emplace(v.name, v.drift_reason);
      }
    }
    views_.push_back(std::move(v));
  }
}

std::vector<const NodeView*> Loop::Sorted(std::vector<const NodeView*> v) const {
  const bool legacy = state_.options.candidate_order == CandidateOrder::kDisruptionCost;
  std::stable_sort(v.begin(), v.end(), [&](const NodeView* a, const NodeView* b) {
    if (legacy) {
      if (a->disruption_cost != b->disruption_cost) return a->disruption_cost < b->disruption_cost;
    } else if (a->savings_ratio() != b->savings_ratio()) {
      return a->savings_ratio() > b->savings_ratio();
    }
    if (a->created != b->created) return a->created < b->created;  // older first
    return a->name < b->name;
  });
  return v;
}

absl::StatusOr<SolveResult> Loop::Simulate(const std::vector<const NodeView*>& cands,
                                           bool consolidation) const {
  scheduling::Simulation sim;
  std::vector<Pod> moved;
  for (const NodeView* c : cands) {
    sim.excluded.insert(c->name);
    for (const Pod* p : c->reschedulable) {
      Pod copy = *p;
      copy.node_name.clear();
      sim.moving.insert(copy.Key());
      moved.push_back(std::move(copy));
    }
  }
  // Only consolidation (and its validation) passes the reference's consolidation-simulation
  // flag: drift, expiration, emptiness and interruption do not skip such nodes.
  for (const NodeView& v : views_) {
    if (!consolidation || v.claim == nullptr || !v.initialized) continue;
    if (UnderConsolidateAfter(v, state_.now)) sim.under_consolidate_after.insert(v.name);
  }
  std::vector<const Pod*> pods = snap_.PendingPods();
  for (const Pod& p : moved) pods.push_back(&p);
  return scheduling::Simulate(*scheduler_, pods, sim);
}

// Restricts a replacement to types strictly cheaper (worst launch price) than the candidates,
// and to spot when both capacity types are allowed (semantics §6.6).
std::optional<NewNodeClaim> Loop::RestrictAndPrice(const NewNodeClaim& nc,
                                                   const std::vector<const NodeView*>& cands,
                                                   bool multi, std::string* why) const {
  double candidate_price = 0;
  bool all_spot = true;
  for (const NodeView* c : cands) {
    candidate_price += c->price;
    all_spot = all_spot && c->capacity_type == kCapacityTypeSpot;
  }
  Requirements reqs = nc.requirements;
  const Requirement* ct = reqs.Find(kLabelCapacityType);
  const bool allows_spot = ct == nullptr || ct->Has(kCapacityTypeSpot);
  const bool allows_od = ct == nullptr || ct->Has(kCapacityTypeOnDemand);
  std::vector<const InstanceType*> types;
  for (const std::string& name : nc.instance_types) {
    if (const InstanceType* it = state_.catalog->Find(name)) types.push_back(it);
  }
  const bool spot_to_spot = all_spot && allows_spot;
  if (spot_to_spot) {
    if (!state_.options.spot_to_spot) {
      *why = "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node";
      return std::nullopt;
    }
    reqs.Set(Requirement::In(kLabelCapacityType, {std::string(kCapacityTypeSpot)}));
  }
  if (multi) {
    // filterOutSameInstanceType: a replacement of a type some candidate already has must be
    // cheaper than that candidate, else deleting the others is better.
    double max_price = kMaxPrice;
    std::map<std::string, double> by_type;
    for (const NodeView* c : cands) {
      if (c->it == nullptr) continue;
      auto [pos, inserted] = by_type.emplace(c->it->name, c->price);
      if (!inserted) pos->second = std::min(pos->second, c->price);
    }
    for (const InstanceType* it : types) {
      auto f = by_type.find(it->name);
      if (f != by_type.end()) max_price = std::min(max_price, f->second);
    }
    // As the reference's RemoveInstanceTypeOptionsByPriceAndMinValues: an option stays when
    // its worst launch price (the dearest available offering the claim could get) is below.
    std::vector<const InstanceType*> kept;
    for (const InstanceType* it : types) {
      if (it->WorstLaunchPrice(reqs) < max_price) kept.push_back(it);
    }
    types = std::move(kept);
  }
  std::vector<const InstanceType*> cheaper;
  for (const InstanceType* it : types) {
    if (it->WorstLaunchPrice(reqs) < candidate_price) cheaper.push_back(it);
  }
  if (cheaper.empty()) {
    *why = "can't replace with a cheaper node";
    return std::nullopt;
  }
  if (reqs.HasMinValues()) {
    absl::StatusOr<size_t> mv = SatisfiesMinValues(cheaper, reqs);
    if (!mv.ok() && state_.options.scheduler.min_values_policy == MinValuesPolicy::kStrict) {
      *why = internal::StrCat("Filtering by price: ", mv.status().message());
      return std::nullopt;
    }
  }
  if (spot_to_spot && !multi) {
    if (static_cast<int>(cheaper.size()) < kMinSpotToSpotTypes) {
      *why = internal::StrCat("SpotToSpotConsolidation requires ", kMinSpotToSpotTypes,
                              " cheaper instance type options than the current candidate to "
                              "consolidate, got ",
                              cheaper.size());
      return std::nullopt;
    }
    OrderByPrice(cheaper, reqs);
    size_t keep = kMinSpotToSpotTypes;
    if (reqs.HasMinValues()) {
      absl::StatusOr<size_t> mv = SatisfiesMinValues(cheaper, reqs);
      if (mv.ok()) keep = std::max(keep, *mv);
    }
    if (cheaper.size() > keep) cheaper.resize(keep);
  }
  if (!spot_to_spot && allows_spot && allows_od) {
    reqs.Set(Requirement::In(kLabelCapacityType, {std::string(kCapacityTypeSpot)}));
  }
  OrderByPrice(cheaper, reqs);
  NewNodeClaim out = nc;
  out.instance_types.clear();
  std::vector<std::string> names;
  const Offering* best = nullptr;
  const InstanceType* best_it = nullptr;
  for (const InstanceType* it : cheaper) {
    if (!it->HasCompatibleOffering(reqs)) continue;
    out.instance_types.push_back(it->name);
    names.push_back(it->name);
    const Offering* o = it->CheapestOffering(reqs);
    if (o != nullptr && (best == nullptr || o->price < best->price ||
                         (o->price == best->price &&
                          (CapacityTypeRank(o->capacity_type) < CapacityTypeRank(best->capacity_type) ||
                           (CapacityTypeRank(o->capacity_type) == CapacityTypeRank(best->capacity_type) &&
                            (it->name < best_it->name ||
                             (it->name == best_it->name && o->zone < best->zone))))))) {
      best = o;
      best_it = it;
    }
  }
  if (best == nullptr) {
    *why = "can't replace with a cheaper node";
    return std::nullopt;
  }
  Requirement it_req = Requirement::In(kLabelInstanceType, names);
  if (const Requirement* prev = reqs.Find(kLabelInstanceType)) it_req.set_min_values(prev->min_values());
  reqs.Set(it_req);
  out.requirements = std::move(reqs);
  out.launch =
      Launch{best_it->name, best->zone, best->capacity_type, best->price, best->price_estimated};
  return out;
}

Evaluation Loop::Evaluate(const std::vector<const NodeView*>& cands, bool multi,
                          DisruptionReason reason, SolveResult* placement) const {
  Evaluation e;
  absl::StatusOr<SolveResult> r = Simulate(cands, reason == DisruptionReason::kUnderutilized);
  if (!r.ok()) {
    e.why_not = std::string(r.status().message());
    return e;
  }
  std::set<std::string> moving;
  for (const NodeView* c : cands) {
    for (const Pod* p : c->reschedulable) moving.insert(p->Key());
  }
  std::vector<std::string> errors;
  for (const PodError& pe : r->pod_errors) {
    if (moving.count(pe.pod) > 0) errors.push_back(internal::StrCat(pe.pod, " => ", pe.message));
  }
  if (!errors.empty()) {
    e.why_not = internal::StrCat("not all pods would schedule, ", errors.front(),
                                 errors.size() > 1
                                     ? internal::StrCat(" and ", errors.size() - 1, " other(s)")
                                     : "");
    return e;
  }
  // Every new claim counts, including claims that hold only pending pods: the reference
  // simulates with all pending pods and turns m nodes into at most one (computeConsolidation),
  // so while pending pods need new nodes of their own it consolidates nothing.
  std::vector<NewNodeClaim> replacements = r->node_claims;
  DisruptionCommand cmd;
  cmd.reason = reason;
  for (const NodeView* c : cands) {
    cmd.candidates.push_back(c->name);
    cmd.savings_per_hour += c->price;
  }
  std::sort(cmd.candidates.begin(), cmd.candidates.end());
  if (reason == DisruptionReason::kDrifted || reason == DisruptionReason::kInterrupted) {
    // Drift and interruption take every new claim, with no price check.
    cmd.decision = replacements.empty() ? DisruptionDecision::kDelete : DisruptionDecision::kReplace;
    for (const NewNodeClaim& nc : replacements) {
      if (nc.launch) cmd.savings_per_hour -= nc.launch->price;
    }
    cmd.replacements = std::move(replacements);
  } else if (replacements.empty()) {
    cmd.decision = DisruptionDecision::kDelete;
  } else if (replacements.size() > 1) {
    e.why_not = internal::StrCat("can't remove without creating ", replacements.size(),
                                 " candidates");
    return e;
  } else {
    std::string why;
    std::optional<NewNodeClaim> nc = RestrictAndPrice(replacements[0], cands, multi, &why);
    if (!nc) {
      e.why_not = why;
      return e;
    }
    cmd.decision = DisruptionDecision::kReplace;
    cmd.savings_per_hour -= nc->launch->price;
    cmd.replacements.push_back(std::move(*nc));
  }
  cmd.savings_per_hour = std::round(cmd.savings_per_hour * 1e9) / 1e9;
  if (reason == DisruptionReason::kUnderutilized) {
    if (std::string why = BalancedVeto(cands, cmd.savings_per_hour); !why.empty()) {
      e.why_not = why;
      return e;
    }
  }
  e.command = std::move(cmd);
  if (placement != nullptr) *placement = std::move(*r);
  return e;
}

// consolidationPolicy Balanced (semantics §6.9, k = 2): every Balanced source pool must score
// (savings / pool cost) / (move disruption / pool disruption) >= 1/2; savings are attributed
// to pools pro rata by candidate price. Returns "" when approved.
std::string Loop::BalancedVeto(const std::vector<const NodeView*>& cands, double savings) const {
  constexpr double kThreshold = 0.5;
  double total_price = 0;
  for (const NodeView* c : cands) total_price += c->price;
  std::set<const NodePool*> pools;
  for (const NodeView* c : cands) {
    if (c->pool != nullptr && c->pool->consolidation_policy == ConsolidationPolicy::kBalanced) {
      pools.insert(c->pool);
    }
  }
  for (const NodePool* pool : pools) {
    double pool_price = 0, move_disruption = 0, pool_cost = 0, pool_disruption = 0;
    for (const NodeView* c : cands) {
      if (c->pool != pool) continue;
      pool_price += c->price;
      move_disruption += c->reschedule_cost;
    }
    for (const NodeView& v : views_) {
      if (v.pool != pool) continue;
      pool_cost += v.price;
      pool_disruption += v.reschedule_cost;
    }
    const double pool_savings = total_price > 0 ? savings * pool_price / total_price : 0;
    double score = 0;
    if (pool_savings <= 0 || pool_cost <= 0 || pool_disruption <= 0) {
      score = 0;
    } else if (move_disruption <= 0) {
      score = std::numeric_limits<double>::infinity();
    } else {
      score = (pool_savings / pool_cost) / (move_disruption / pool_disruption);
    }
    if (!(score >= kThreshold)) {
      return internal::StrCat("consolidationPolicy Balanced: nodepool \"", pool->name(),
                              "\" scores ", score, ", below ", kThreshold);
    }
  }
  return "";
}

std::optional<DisruptionCommand> Loop::Next(std::map<std::string, std::string>* kept,
                                            SolveResult* placement) {
  const absl::Time now = state_.now;
  kept->clear();
  for (const NodeView& v : views_) {
    if (!v.reject.empty()) (*kept)[v.name] = v.reject;
  }
  auto is_interrupted = [&](const NodeView& v) {
    for (const InterruptionEvent& ev : state_.options.interruptions) {
      if (ev.node == v.name) return true;
    }
    return false;
  };

  // 0. Interruptions: replace the node's capacity ahead of the deadline, without budgets.
  for (const NodeView& v : views_) {
    if (!v.managed || !is_interrupted(v)) continue;
    Evaluation e = Evaluate({&v}, false, DisruptionReason::kInterrupted, placement);
    if (e.command) return e.command;
    // Even when pods cannot all move, the capacity is going away: delete.
    DisruptionCommand cmd;
    cmd.reason = DisruptionReason::kInterrupted;
    cmd.candidates = {v.name};
    cmd.savings_per_hour = v.price;
    *placement = SolveResult();
    return cmd;
  }

  // 1. Expiration: forceful, no budgets (semantics §6.14); one node per command.
  for (const NodeView& v : views_) {
    if (!v.expired || v.deleting) continue;
    DisruptionCommand cmd;
    cmd.decision = DisruptionDecision::kDelete;
    cmd.reason = DisruptionReason::kExpired;
    cmd.candidates = {v.name};
    cmd.savings_per_hour = v.price;
    *placement = SolveResult();
    return cmd;
  }

  // 2. Emptiness.
  {
    std::map<std::string, int64_t> budget = BuildBudgets(snap_, views_, kReasonEmpty, now, deleting_);
    std::vector<const NodeView*> cands;
    for (const NodeView& v : views_) {
      if (!v.reject.empty() || !v.empty()) continue;
      if (v.pool->replicas || !v.pool->consolidate_after) {
        (*kept)[v.name] = "consolidateAfter Never";
        continue;
      }
      if (!v.consolidatable) {
        (*kept)[v.name] = v.consolidatable_reason;
        continue;
      }
      cands.push_back(&v);
    }
    DisruptionCommand cmd;
    cmd.decision = DisruptionDecision::kDelete;
    cmd.reason = DisruptionReason::kEmpty;
    for (const NodeView* v : Sorted(cands)) {
      int64_t& b = budget[v->pool->name()];
      if (b <= 0) {
        (*kept)[v->name] = internal::StrCat("budget: nodepool \"", v->pool->name(),
                                            "\" allows no more Empty disruptions");
        continue;
      }
      --b;
      cmd.candidates.push_back(v->name);
      cmd.savings_per_hour += v->price;
    }
    if (!cmd.candidates.empty()) {
      std::sort(cmd.candidates.begin(), cmd.candidates.end());
      cmd.savings_per_hour = std::round(cmd.savings_per_hour * 1e9) / 1e9;
      *placement = SolveResult();
      return cmd;
    }
  }

  // 3. Drift: oldest drift first, nodes without reschedulable pods first; one command.
  {
    std::map<std::string, int64_t> budget = BuildBudgets(snap_, views_, kReasonDrifted, now, deleting_);
    std::vector<const NodeView*> cands;
    for (const NodeView& v : views_) {
      if (v.drift_reason.empty() || !v.reject_eventual.empty() || v.pool->replicas) continue;
      cands.push_back(&v);
    }
    std::stable_sort(cands.begin(), cands.end(), [](const NodeView* a, const NodeView* b) {
      if (a->drift_time != b->drift_time) return a->drift_time < b->drift_time;
      return a->name < b->name;
    });
    std::stable_partition(cands.begin(), cands.end(),
                          [](const NodeView* v) { return v->reschedulable.empty(); });
    for (const NodeView* v : cands) {
      if (budget[v->pool->name()] <= 0) {
        (*kept)[v->name] = internal::StrCat("drifted (", v->drift_reason,
                                            ") but budget: nodepool \"", v->pool->name(),
                                            "\" allows no more Drifted disruptions");
        continue;
      }
      Evaluation e = Evaluate({v}, false, DisruptionReason::kDrifted, placement);
      if (e.command) return e.command;
      (*kept)[v->name] = internal::StrCat("drifted (", v->drift_reason, ") but ", e.why_not);
    }
  }

  // A node the drift method kept (budget, no placement) is still a consolidation candidate; when
  // consolidation keeps it too, both reasons are reported.
  auto keep = [kept](const std::string& node, std::string reason) {
    auto [it, inserted] = kept->emplace(node, reason);
    if (!inserted) it->second = internal::StrCat(it->second, "; ", reason);
  };
  // Candidates of consolidation (ShouldDisrupt, semantics §6.6).
  std::vector<const NodeView*> consolidation;
  for (const NodeView& v : views_) {
    // Drifted nodes that drift could not disrupt (budget, no placement) remain candidates:
    // the methods are independent (semantics §6.1).
    if (!v.reject.empty() || v.empty()) continue;
    if (v.pool->replicas) continue;
    if (!v.pool->consolidate_after) {
      keep(v.name, "consolidateAfter Never");
      continue;
    }
    if (v.pool->consolidation_policy == ConsolidationPolicy::kWhenEmpty) {
      keep(v.name, "consolidationPolicy WhenEmpty");
      continue;
    }
    if (v.it == nullptr || v.zone.empty() || v.capacity_type.empty()) {
      keep(v.name, "instance type, zone or capacity type unknown");
      continue;
    }
    if (!v.consolidatable) {
      keep(v.name, v.consolidatable_reason);
      continue;
    }
    consolidation.push_back(&v);
  }
  consolidation = Sorted(consolidation);
  std::map<std::string, int64_t> budget = BuildBudgets(snap_, views_, kReasonUnderutilized, now, deleting_);
  std::vector<const NodeView*> within_budget;
  {
    std::map<std::string, int64_t> left = budget;
    for (const NodeView* v : consolidation) {
      if (left[v->pool->name()] <= 0) {
        keep(v->name, internal::StrCat("budget: nodepool \"", v->pool->name(),
                                            "\" allows no more Underutilized disruptions"));
        continue;
      }
      --left[v->pool->name()];
      within_budget.push_back(v);
    }
  }

  // 4. Multi-node consolidation: binary search over prefixes of the sorted candidates.
  if (within_budget.size() >= 2) {
    const size_t max = std::min<size_t>(within_budget.size(),
                                        static_cast<size_t>(state_.options.max_multi_node_candidates));
    int64_t lo = 1, hi = static_cast<int64_t>(std::min(max, within_budget.size() - 1));
    std::optional<DisruptionCommand> best;
    SolveResult best_placement;
    while (lo <= hi) {
      const int64_t mid = (lo + hi) / 2;
      std::vector<const NodeView*> prefix(within_budget.begin(),
                                          within_budget.begin() + mid + 1);
      SolveResult p;
      Evaluation e = Evaluate(prefix, /*multi=*/true, DisruptionReason::kUnderutilized, &p);
      if (e.command && !(e.command->decision == DisruptionDecision::kReplace &&
                         e.command->replacements[0].instance_types.empty())) {
        best = std::move(e.command);
        best_placement = std::move(p);
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (best) {
      *placement = std::move(best_placement);
      return best;
    }
  }

  // 5. Single-node consolidation: candidates interleaved round-robin by NodePool.
  {
    std::map<std::string, std::vector<const NodeView*>> by_pool;
    std::vector<std::string> pool_order;
    for (const NodeView* v : within_budget) {
      if (by_pool[v->pool->name()].empty()) pool_order.push_back(v->pool->name());
      by_pool[v->pool->name()].push_back(v);
    }
    std::vector<const NodeView*> order;
    for (size_t round = 0; order.size() < within_budget.size(); ++round) {
      for (const std::string& p : pool_order) {
        if (round < by_pool[p].size()) order.push_back(by_pool[p][round]);
      }
    }
    for (const NodeView* v : order) {
      Evaluation e = Evaluate({v}, false, DisruptionReason::kUnderutilized, placement);
      if (e.command) return e.command;
      keep(v->name, e.why_not.empty() ? "no cheaper placement found" : e.why_not);
    }
  }
  return std::nullopt;
}

// Applies a command to a snapshot in place: candidates removed, replacements added as
// initialized nodes, moved pods bound where the simulation put them (others pending).
void Apply(ClusterSnapshot& snap, const DisruptionCommand& cmd, const SolveResult& placement,
           const InstanceCatalog& catalog, absl::Time now) {
  std::set<std::string> gone(cmd.candidates.begin(), cmd.candidates.end());
  std::map<std::string, std::string> where;  // pod -> node
  for (const ExistingPlacement& e : placement.existing_nodes) {
    if (e.in_flight) continue;
    for (const std::string& p : e.pods) where[p] = e.name;
  }
  for (const NewNodeClaim& nc : cmd.replacements) {
    for (const std::string& p : nc.pods) where[p] = nc.name;
  }
  snap.nodes.erase(std::remove_if(snap.nodes.begin(), snap.nodes.end(),
                                  [&](const Node& n) { return gone.count(n.metadata.name) > 0; }),
                   snap.nodes.end());
  std::set<std::string> receiving;
  for (const auto& [pod, node] : where) receiving.insert(node);
  snap.node_claims.erase(
      std::remove_if(snap.node_claims.begin(), snap.node_claims.end(),
                     [&](const NodeClaim& nc) {
                       return !nc.node_name.empty() && gone.count(nc.node_name) > 0;
                     }),
      snap.node_claims.end());
  for (NodeClaim& nc : snap.node_claims) {
    if (nc.node_name.empty() || receiving.count(nc.node_name) == 0) continue;
    // Pods bound here: a pod event restarts consolidateAfter.
    nc.last_pod_event_time = now;
    nc.conditions.erase(std::remove_if(nc.conditions.begin(), nc.conditions.end(),
                                       [](const NodeCondition& c) {
                                         return c.type == "Consolidatable";
                                       }),
                        nc.conditions.end());
  }
  snap.pods.erase(std::remove_if(snap.pods.begin(), snap.pods.end(),
                                 [&](const Pod& p) {
                                   // Daemon and mirror pods go with their node.
                                   return !p.node_name.empty() && gone.count(p.node_name) > 0 &&
                                          !IsReschedulable(p);
                                 }),
                  snap.pods.end());
  std::set<std::string> replacement_names;
  for (const NewNodeClaim& nc : cmd.replacements) replacement_names.insert(nc.name);
  for (Pod& p : snap.pods) {
    if (p.node_name.empty()) {
      // A pending pod the simulation put on a replacement goes there: the replacement was
      // launched for it too (the reference counts such claims, see Evaluate).
      if (!p.IsPending()) continue;
      auto w = where.find(p.Key());
      if (w != where.end() && replacement_names.count(w->second) > 0) {
        p.node_name = w->second;
        p.phase = "Running";
      }
      continue;
    }
    if (gone.count(p.node_name) == 0) continue;
    auto w = where.find(p.Key());
    p.node_name = w == where.end() ? std::string() : w->second;
    if (p.node_name.empty()) p.phase = "Pending";
  }
  for (const NewNodeClaim& nc : cmd.replacements) {
    if (!nc.launch) continue;
    const InstanceType* it = catalog.Find(nc.launch->instance_type);
    Node node;
    node.metadata.name = nc.name;
    node.metadata.creation_timestamp = now;
    node.metadata.labels = nc.labels;
    if (it != nullptr) {
      for (const auto& [k, v] : it->labels) node.metadata.labels.emplace(k, v);
      node.capacity = it->capacity;
      node.allocatable = it->Allocatable();
    }
    node.metadata.labels[std::string(kLabelInstanceType)] = nc.launch->instance_type;
    node.metadata.labels[std::string(kLabelZone)] = nc.launch->zone;
    node.metadata.labels[std::string(kLabelCapacityType)] = nc.launch->capacity_type;
    node.metadata.labels[std::string(kLabelHostname)] = nc.name;
    node.metadata.labels[std::string(kLabelNodePool)] = nc.node_pool;
    node.metadata.labels[std::string(kLabelInitialized)] = "true";
    node.taints = nc.taints;
    node.conditions.push_back({"Ready", "True", "", "", now});
    NodeClaim claim;
    claim.metadata.name = nc.name;
    claim.metadata.creation_timestamp = now;
    claim.metadata.labels = node.metadata.labels;
    claim.requirements = nc.requirements.ToApi();
    claim.requests = nc.requests;
    claim.taints = nc.taints;
    claim.startup_taints = nc.startup_taints;
    claim.node_name = nc.name;
    claim.capacity = node.capacity;
    claim.allocatable = node.allocatable;
    claim.conditions.push_back({"Initialized", "True", "", "", now});
    claim.last_pod_event_time = now;
    if (const NodePool* pool = snap.FindNodePool(nc.node_pool)) {
      claim.expire_after = pool->expire_after;
      claim.termination_grace_period = pool->termination_grace_period;
    }
    snap.nodes.push_back(std::move(node));
    snap.node_claims.push_back(std::move(claim));
  }
}

}  // namespace

absl::StatusOr<Consolidator> Consolidator::Create(const ClusterSnapshot& snapshot,
                                                  std::shared_ptr<const InstanceCatalog> catalog,
                                                  absl::Time now,
                                                  const ConsolidationOptions& options) {
  if (!catalog) return absl::InvalidArgumentError("consolidator: catalog must not be null");
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  if (absl::Status s = snapshot.Validate(); !s.ok()) return s;  // budget schedules included
  auto state = std::make_shared<State>();
  state->snapshot = snapshot;
  state->catalog = std::move(catalog);
  state->now = now;
  state->options = options;
  return Consolidator(std::move(state));
}

absl::StatusOr<ConsolidationPlan> Consolidator::Plan() const {
  ConsolidationPlan plan;
  plan.nodes = static_cast<int>(state_->snapshot.nodes.size());
  // One working copy, mutated in place between loops (no Loop outlives its iteration).
  auto snap = std::make_shared<ClusterSnapshot>(state_->snapshot);
  std::set<std::string> original;
  for (const Node& n : snap->nodes) original.insert(n.metadata.name);
  std::set<std::string> disrupted;
  std::set<std::string> used_names;
  for (const NodeClaim& nc : snap->node_claims) used_names.insert(nc.metadata.name);
  for (const Node& n : snap->nodes) used_names.insert(n.metadata.name);
  std::map<std::string, int> next_index;
  std::map<std::string, std::string> kept;
  std::map<std::string, int64_t> deleting;  // per NodePool, nodes earlier commands delete
  std::map<std::string, std::string> first_reason;
  PodCache cache;
  std::shared_ptr<const scheduling::PoolsState> pools;
  // Each loop removes at least one node, so the number of loops is bounded.
  const size_t max_loops = snap->nodes.size() + state_->options.interruptions.size() + 1;
  for (size_t loop = 0; loop < max_loops; ++loop) {
    std::optional<DisruptionCommand> cmd;
    SolveResult placement;
    {
      Loop l(*state_, snap, deleting, &cache, &pools);
      if (absl::Status s = l.Init(); !s.ok()) return s;
      if (loop == 0) plan.candidates = l.candidates();
      cmd = l.Next(&kept, &placement);
    }
    // A node's explanation is the first reason recorded for it: later loops see the effects
    // of this plan's own commands (e.g. pods moved onto it).
    for (const auto& [node, reason] : kept) first_reason.emplace(node, reason);
    if (!cmd) break;
    // Replacement names are unique across the whole plan.
    for (NewNodeClaim& nc : cmd->replacements) {
      std::string name;
      do {
        name = internal::StrCat(nc.node_pool, "-", ++next_index[nc.node_pool]);
      } while (used_names.count(name) > 0);
      used_names.insert(name);
      nc.name = name;
    }
    for (const std::string& c : cmd->candidates) {
      disrupted.insert(c);
      const Node* n = snap->FindNode(c);
      if (n == nullptr) continue;
      std::string pool = Label(n->metadata, kLabelNodePool);
      if (pool.empty()) {
        if (const NodeClaim* nc = snap->FindNodeClaimForNode(c)) pool = nc->NodePoolName();
      }
      if (!pool.empty()) ++deleting[pool];
    }
    cache.Reset();  // pod addresses change below
    Apply(*snap, *cmd, placement, *state_->catalog, state_->now);
    plan.savings_per_hour += cmd->savings_per_hour;
    plan.commands.push_back(std::move(*cmd));
    if (state_->options.once) {
      {
        Loop after(*state_, snap, deleting, &cache, &pools);
        if (absl::Status s = after.Init(); !s.ok()) return s;
        SolveResult ignored;
        after.Next(&kept, &ignored);
      }
      for (const auto& [node, reason] : kept) first_reason.emplace(node, reason);
      break;
    }
  }
  plan.savings_per_hour = std::round(plan.savings_per_hour * 1e9) / 1e9;
  for (const std::string& n : original) {
    if (disrupted.count(n) > 0) continue;
    auto k = first_reason.find(n);
    plan.kept.push_back(
        {n, k == first_reason.end() ? std::string("no cheaper placement found") : k->second});
  }
  return plan;
}

}  // namespace karp
