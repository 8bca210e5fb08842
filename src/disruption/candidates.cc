// Building the NodeViews of a snapshot (see candidates.h): one function per fact — identity,
// costs, candidate filters (node, do-not-disrupt pods, PDBs), consolidatable, drift.

#include "disruption/candidates.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "karp/requirements.h"
#include "karp/taints.h"

namespace karp::disruption {
namespace {

// A Node's or NodeClaim's creationTimestamp is absent when it is the Unix epoch (the codec's
// default, which the writer omits). The NodeClaim's wins; a NodeClaim without one takes its
// Node's; neither: unknown (docs/design.md §6.2).
std::optional<absl::Time> CreatedAt(const Node& node, const NodeClaim* claim) {
  if (claim != nullptr && claim->metadata.creation_timestamp != absl::UnixEpoch()) {
    return claim->metadata.creation_timestamp;
  }
  if (node.metadata.creation_timestamp != absl::UnixEpoch()) {
    return node.metadata.creation_timestamp;
  }
  return std::nullopt;
}

// Price of the node's offering (instance type, zone, capacity type); 0 if none (docs/design.md
// §6.9).
double NodePrice(const InstanceType* it, const std::string& zone,
                 const std::string& capacity_type) {
  if (it == nullptr) return 0;
  for (const Offering& o : it->offerings) {
    if (o.zone == zone && o.capacity_type == capacity_type) {
      return std::isnan(o.price) ? 0 : o.price;
    }
  }
  return 0;
}

// The view's identity: NodeClaim, NodePool, instance type, zone, capacity type, price, pods.
NodeView MakeView(const Node& node, const NodeClaim* claim, std::vector<const Pod*> pods,
                  const ClusterSnapshot& snap, const scheduling::PoolCatalogs& catalogs) {
  NodeView v;
  v.node = &node;
  v.name = node.metadata.name;
  v.claim = claim;
  v.pool_name = NodePoolNameOf(node, claim);
  v.pool = v.pool_name.empty() ? nullptr : snap.FindNodePool(v.pool_name);
  v.managed = v.claim != nullptr || !v.pool_name.empty();
  v.deleting = NodeDeleting(node, v.claim);
  v.initialized = Label(node.metadata, kLabelInitialized) == "true" ||
                  (v.claim != nullptr && v.claim->ConditionTrue("Initialized"));
  v.zone = Label(node.metadata, kLabelZone);
  v.capacity_type = Label(node.metadata, kLabelCapacityType);
  v.instance_type = Label(node.metadata, kLabelInstanceType);
  v.it = v.instance_type.empty() ? nullptr : catalogs.TypesOf(v.pool_name).Find(v.instance_type);
  v.price = NodePrice(v.it, v.zone, v.capacity_type);
  v.created = CreatedAt(node, v.claim);
  v.pods = std::move(pods);
  return v;
}

// Disruption costs (docs/design.md §6.2) and expiry.
struct Costs {
  std::vector<const Pod*> reschedulable;
  double reschedule_cost = 1.0;
  double disruption_cost = 0;
  bool expired = false;
};

Costs CostsOf(const NodeView& v, absl::Time now, const ClusterSnapshot& snap, PodCache* cache) {
  Costs out;
  std::optional<absl::Duration> expire_after =
      v.claim != nullptr ? v.claim->expire_after
                         : (v.pool != nullptr ? v.pool->expire_after : std::nullopt);
  double lifetime = 1.0;
  if (expire_after && *expire_after > absl::ZeroDuration() && v.created) {
    lifetime =
        std::clamp(absl::FDivDuration(*expire_after - (now - *v.created), *expire_after), 0.0, 1.0);
    out.expired = v.managed && now >= *v.created + *expire_after;
  }
  double all_cost = 0;
  for (const Pod* p : v.pods) {
    const double cost = cache->Of(*p, snap).eviction_cost;
    all_cost += cost;
    if (IsReschedulable(*p)) {
      out.reschedulable.push_back(p);
      out.reschedule_cost += std::max(0.0, cost);
    }
  }
  out.disruption_cost = all_cost * lifetime;
  return out;
}

// The node-level candidate filters (docs/design.md §6.2), first failing reason wins; "" = none.
std::string NodeReject(const NodeView& v) {
  const Node& node = *v.node;
  if (!v.managed) return "not managed by karpenter";
  if (!v.initialized) return "not initialized";
  if (node.metadata.deletion_timestamp) return "already being deleted";
  if (v.deleting) {
    return internal::StrCat("already being deleted (nodeclaim ", v.claim->metadata.name,
                            v.claim->metadata.deletion_timestamp ? " has a deletionTimestamp)"
                                                                 : " is InstanceTerminating)");
  }
  for (const Taint& t : node.taints) {
    if (t.key == DisruptedTaint().key) return "already being disrupted";
  }
  if (Annotation(node.metadata, kAnnotationDoNotDisrupt) == "true") {
    return "node has karpenter.sh/do-not-disrupt";
  }
  if (v.pool_name.empty()) return "no karpenter.sh/nodepool label";
  if (v.pool == nullptr) return internal::StrCat("nodepool \"", v.pool_name, "\" not found");
  return "";
}

// The first pod of the node with an active karpenter.sh/do-not-disrupt; "" = none.
std::string DoNotDisruptBlock(const NodeView& v, absl::Time now) {
  for (const Pod* p : v.pods) {
    if (PodDoNotDisrupt(*p, now)) {
      return internal::StrCat("pod ", p->Key(), " has karpenter.sh/do-not-disrupt");
    }
  }
  return "";
}

// The first evictable pod of the node (active, not mirror, not do-not-disrupt, not tolerating
// the disrupted taint) that its PDBs do not let go; "" = none.
std::string PdbBlock(const NodeView& v, absl::Time now, const ClusterSnapshot& snap,
                     PodCache* cache, PdbAllowances* allowances) {
  for (const Pod* p : v.pods) {
    const PodFacts& f = cache->Of(*p, snap);
    if (f.pdbs.empty()) continue;
    if (!IsActive(*p) || f.mirror || PodDoNotDisrupt(*p, now)) continue;
    if (f.tolerates_disrupted) continue;
    if (f.pdbs.size() > 1) {
      return internal::StrCat("pod ", p->Key(), ": eviction does not support multiple PDBs");
    }
    const PodDisruptionBudget& pdb = *f.pdbs[0];
    if (allowances->Of(pdb) <= 0 &&
        !(pdb.unhealthy_pod_eviction_policy == "AlwaysAllow" && p->phase != "Running")) {
      return internal::StrCat("pdb ", pdb.metadata.namespace_, "/", pdb.metadata.name,
                              " prevents pod evictions");
    }
  }
  return "";
}

// The candidate filters: `reject` for graceful methods, `reject_eventual` for drift.
struct Rejection {
  std::string reject;
  std::string reject_eventual;
};

Rejection RejectionOf(const NodeView& v, absl::Time now, const ClusterSnapshot& snap,
                      PodCache* cache, PdbAllowances* allowances) {
  const std::string node_reject = NodeReject(v);
  if (!node_reject.empty()) return {node_reject, node_reject};
  std::string pod_block = DoNotDisruptBlock(v, now);
  if (pod_block.empty()) pod_block = PdbBlock(v, now, snap, cache, allowances);
  if (pod_block.empty()) return {};
  const bool tgp = v.claim != nullptr && v.claim->termination_grace_period.has_value();
  return {pod_block, tgp ? "" : pod_block};
}

struct Consolidatable {
  bool consolidatable = false;
  std::string reason;  // when not consolidatable
};

// Consolidatable (docs/design.md §6.6): the NodeClaim's condition when the snapshot carries it;
// derived from consolidateAfter only when it is absent (docs/design.md).
Consolidatable ConsolidatableOf(const NodeView& v, absl::Time now) {
  if (v.pool == nullptr) return {};
  const NodeCondition* condition =
      v.claim != nullptr ? v.claim->Condition("Consolidatable") : nullptr;
  if (!v.pool->consolidate_after) return {false, "consolidateAfter Never"};
  if (condition != nullptr) {
    if (condition->status == "True") return {true, ""};
    return {false, internal::StrCat("nodeclaim condition Consolidatable is ",
                                    condition->status.empty() ? "Unknown" : condition->status)};
  }
  if (!UnderConsolidateAfter(v, now)) return {true, ""};
  return {false,
          internal::StrCat("consolidateAfter ", absl::FormatDuration(*v.pool->consolidate_after),
                           " not elapsed since the last pod event")};
}

// Drift detected from the NodePool (hash, requirements), the catalog and the provider; ""
// when not drifted. Depends only on immutable facts: cached per plan by the caller.
std::string DetectDrift(const NodeView& v, const ConsolidationOptions& options) {
  const std::string np_hash = Annotation(v.pool->metadata, kAnnotationNodePoolHash);
  const std::string nc_hash =
      v.claim != nullptr ? Annotation(v.claim->metadata, kAnnotationNodePoolHash) : "";
  const std::string np_ver = Annotation(v.pool->metadata, kAnnotationNodePoolHashVersion);
  const std::string nc_ver =
      v.claim != nullptr ? Annotation(v.claim->metadata, kAnnotationNodePoolHashVersion) : "";
  absl::StatusOr<Requirements> pool_reqs = Requirements::FromApi(v.pool->requirements);
  const std::map<std::string, std::string>& labels =
      v.claim != nullptr ? v.claim->metadata.labels : v.node->metadata.labels;
  if (!np_hash.empty() && !nc_hash.empty() && np_ver == nc_ver && np_hash != nc_hash) {
    return "NodePoolDrifted";
  }
  if (pool_reqs.ok() && !Requirements::FromLabels(labels).IsCompatible(*pool_reqs, nullptr)) {
    return "RequirementsDrifted";
  }
  if (!v.instance_type.empty() && v.it == nullptr) return "InstanceTypeNotFound";
  if (options.provider_drift && v.claim != nullptr) return options.provider_drift(*v.claim);
  return "";
}

struct Drift {
  std::string reason;  // "" = not drifted
  absl::Time time;
};

// Drift (docs/design.md §6.5): the Drifted condition, or detected here.
Drift DriftOf(const NodeView& v, absl::Time now, const ConsolidationOptions& options,
              PodCache* cache) {
  if (!v.managed || v.pool == nullptr) return {};
  if (v.claim != nullptr && v.claim->ConditionTrue("Drifted")) {
    const NodeCondition* c = v.claim->Condition("Drifted");
    return {c->reason.empty() ? "Drifted" : c->reason, c->last_transition_time};
  }
  auto cached = cache->static_drift.find(v.name);
  if (cached != cache->static_drift.end()) return {cached->second, now};
  std::string reason = DetectDrift(v, options);
  cache->static_drift.emplace(v.name, reason);
  return {std::move(reason), now};
}

}  // namespace

std::string NodePoolNameOf(const Node& node, const NodeClaim* claim) {
  std::string pool_name = Label(node.metadata, kLabelNodePool);
  if (pool_name.empty() && claim != nullptr) pool_name = claim->NodePoolName();
  return pool_name;
}

absl::Time ConsolidateAfterStart(const NodeView& v) {
  absl::Time t = v.created.value_or(absl::UnixEpoch());
  if (v.claim != nullptr) {
    if (const NodeCondition* c = v.claim->Condition("Initialized")) t = c->last_transition_time;
    if (v.claim->last_pod_event_time) t = *v.claim->last_pod_event_time;
  }
  return t;
}

bool UnderConsolidateAfter(const NodeView& v, absl::Time now) {
  if (v.pool == nullptr || !v.pool->consolidate_after ||
      *v.pool->consolidate_after == absl::ZeroDuration() || !v.managed) {
    return false;
  }
  return now - ConsolidateAfterStart(v) < *v.pool->consolidate_after;
}

std::vector<NodeView> BuildNodeViews(const ClusterSnapshot& snap,
                                     const scheduling::PoolCatalogs& catalogs, absl::Time now,
                                     const ConsolidationOptions& options, PodCache* cache) {
  absl::flat_hash_map<std::string, std::vector<const Pod*>> pods_by_node;
  for (const Pod& p : snap.pods) {
    if (!p.node_name.empty()) pods_by_node[p.node_name].push_back(&p);
  }
  absl::flat_hash_map<std::string, const NodeClaim*> claim_by_node;
  for (const NodeClaim& nc : snap.node_claims) {
    if (!nc.node_name.empty()) claim_by_node.emplace(nc.node_name, &nc);
  }
  PdbAllowances allowances(snap);
  std::vector<NodeView> views;
  for (const Node& node : snap.nodes) {
    auto claim = claim_by_node.find(node.metadata.name);
    auto pods = pods_by_node.find(node.metadata.name);
    NodeView v = MakeView(node, claim == claim_by_node.end() ? nullptr : claim->second,
                          pods == pods_by_node.end() ? std::vector<const Pod*>() : pods->second,
                          snap, catalogs);
    Costs costs = CostsOf(v, now, snap, cache);
    v.reschedulable = std::move(costs.reschedulable);
    v.reschedule_cost = costs.reschedule_cost;
    v.disruption_cost = costs.disruption_cost;
    v.expired = costs.expired;
    Rejection rejection = RejectionOf(v, now, snap, cache, &allowances);
    v.reject = std::move(rejection.reject);
    v.reject_eventual = std::move(rejection.reject_eventual);
    Consolidatable consolidatable = ConsolidatableOf(v, now);
    v.consolidatable = consolidatable.consolidatable;
    v.consolidatable_reason = std::move(consolidatable.reason);
    Drift drift = DriftOf(v, now, options, cache);
    v.drift_reason = std::move(drift.reason);
    v.drift_time = drift.time;
    views.push_back(std::move(v));
  }
  return views;
}

}  // namespace karp::disruption
