// Applying a disruption command to the in-memory snapshot (see apply.h).

#include "disruption/apply.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "disruption/pods.h"
#include "karp/labels.h"

namespace karp::disruption {
namespace {

// Where the simulation put each pod: pod key -> node or replacement name.
std::map<std::string, std::string> PodDestinations(const DisruptionCommand& cmd,
                                                   const SolveResult& placement) {
  std::map<std::string, std::string> where;
  for (const ExistingPlacement& e : placement.existing_nodes) {
    if (e.in_flight) continue;
    for (const std::string& p : e.pods) where[p] = e.name;
  }
  for (const NewNodeClaim& nc : cmd.replacements) {
    for (const std::string& p : nc.pods) where[p] = nc.name;
  }
  return where;
}

// Removes the `gone` nodes and their NodeClaims; NodeClaims of nodes in `receiving` get a pod
// event, which restarts consolidateAfter.
void RemoveNodes(ClusterSnapshot& snap, const std::set<std::string>& gone,
                 const std::set<std::string>& receiving, absl::Time now) {
  snap.nodes.erase(std::remove_if(snap.nodes.begin(), snap.nodes.end(),
                                  [&](const Node& n) { return gone.count(n.metadata.name) > 0; }),
                   snap.nodes.end());
  snap.node_claims.erase(std::remove_if(snap.node_claims.begin(), snap.node_claims.end(),
                                        [&](const NodeClaim& nc) {
                                          return !nc.node_name.empty() &&
                                                 gone.count(nc.node_name) > 0;
                                        }),
                         snap.node_claims.end());
  for (NodeClaim& nc : snap.node_claims) {
    if (nc.node_name.empty() || receiving.count(nc.node_name) == 0) continue;
    nc.last_pod_event_time = now;
    nc.conditions.erase(
        std::remove_if(nc.conditions.begin(), nc.conditions.end(),
                       [](const NodeCondition& c) { return c.type == "Consolidatable"; }),
        nc.conditions.end());
  }
}

// Moves the pods of the `gone` nodes where the simulation put them (pending when nowhere);
// daemon and mirror pods go with their node. A pending pod the simulation put on a
// replacement goes there: the replacement was launched for it too (the reference counts such
// claims, see Loop::Evaluate).
void MovePods(ClusterSnapshot& snap, const DisruptionCommand& cmd,
              const std::set<std::string>& gone, const std::map<std::string, std::string>& where) {
  snap.pods.erase(std::remove_if(snap.pods.begin(), snap.pods.end(),
                                 [&](const Pod& p) {
                                   return !p.node_name.empty() && gone.count(p.node_name) > 0 &&
                                          !IsReschedulable(p);
                                 }),
                  snap.pods.end());
  std::set<std::string> replacement_names;
  for (const NewNodeClaim& nc : cmd.replacements) replacement_names.insert(nc.name);
  for (Pod& p : snap.pods) {
    if (p.node_name.empty()) {
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
}

// The initialized, Ready node of a launched replacement.
Node ReplacementNode(const NewNodeClaim& nc, const InstanceCatalog& catalog, absl::Time now) {
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
  return node;
}

// The initialized NodeClaim of a launched replacement, bound to `node`.
NodeClaim ReplacementClaim(const NewNodeClaim& nc, const Node& node, const ClusterSnapshot& snap,
                           absl::Time now) {
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
  return claim;
}

}  // namespace

void Apply(ClusterSnapshot& snap, const DisruptionCommand& cmd, const SolveResult& placement,
           const scheduling::PoolCatalogs& catalogs, absl::Time now) {
  const std::set<std::string> gone(cmd.candidates.begin(), cmd.candidates.end());
  const std::map<std::string, std::string> where = PodDestinations(cmd, placement);
  std::set<std::string> receiving;
  for (const auto& [pod, node] : where) receiving.insert(node);
  RemoveNodes(snap, gone, receiving, now);
  MovePods(snap, cmd, gone, where);
  for (const NewNodeClaim& nc : cmd.replacements) {
    if (!nc.launch) continue;
    Node node = ReplacementNode(nc, catalogs.TypesOf(nc.node_pool), now);
    NodeClaim claim = ReplacementClaim(nc, node, snap, now);
    snap.nodes.push_back(std::move(node));
    snap.node_claims.push_back(std::move(claim));
  }
}

}  // namespace karp::disruption
