// Fixture builders for tests of the Consolidator (karp/consolidator.h), header-only, on top of
// support/builders.h.
//
// A managed node is a Node plus its NodeClaim, as Karpenter leaves them once the node is
// initialized: the Node carries the nodepool / instance-type / zone / capacity-type /
// initialized labels and allocatable = the instance type's allocatable; the NodeClaim is named
// "nc-<node>", has status.nodeName = the node, the same labels, conditions Launched,
// Registered and Initialized (True since `created`) and expireAfter 720h.
//
//   karp::ClusterSnapshot snap;
//   snap.node_pools.push_back(DisruptionPool("default"));
//   AddManagedNode(snap, *catalog, "n1", "default", "medium");
//   snap.pods.push_back(BoundPod("web-0", "n1", "1"));
//
// Every test uses the same clock, DisruptionNow() = 2026-03-04T12:00:00Z (a Wednesday).

#ifndef KARP_TESTS_SUPPORT_DISRUPTION_BUILDERS_H_
#define KARP_TESTS_SUPPORT_DISRUPTION_BUILDERS_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "support/builders.h"

namespace karp::testing {

// 2026-03-04T12:00:00Z, a Wednesday.
inline absl::Time DisruptionNow() {
  return absl::FromCivil(absl::CivilSecond(2026, 3, 4, 12, 0, 0), absl::UTCTimeZone());
}

// A UTC instant, e.g. At(2026, 3, 7, 12, 0) (Saturday noon).
inline absl::Time At(int year, int month, int day, int hour, int minute, int second = 0) {
  return absl::FromCivil(absl::CivilSecond(year, month, day, hour, minute, second),
                         absl::UTCTimeZone());
}

// A NodePool with budgets [{nodes: "100%"}] (so only the rule under test limits disruption),
// consolidateAfter 0s and policy WhenEmptyOrUnderutilized.
inline NodePool DisruptionPool(std::string name,
                               std::vector<NodeSelectorRequirement> requirements = {}) {
  NodePool np = MakeNodePool(std::move(name), std::move(requirements));
  Budget b;
  b.nodes = "100%";
  np.budgets = {b};
  return np;
}

inline Budget MakeBudget(std::string nodes, std::vector<std::string> reasons = {},
                         std::string schedule = "",
                         std::optional<absl::Duration> duration = std::nullopt) {
  Budget b;
  b.nodes = std::move(nodes);
  b.reasons = std::move(reasons);
  b.schedule = std::move(schedule);
  b.duration = duration;
  return b;
}

// An instance type with allocatable = capacity and explicit offerings.
inline InstanceType TypeWithOfferings(std::string name, std::string_view cpu,
                                      std::string_view memory, int64_t pods,
                                      std::vector<Offering> offerings) {
  std::map<std::string, std::string> labels = {{std::string(kLabelArch), "amd64"},
                                               {std::string(kLabelOs), "linux"}};
  return InstanceType::Make(std::move(name), std::move(labels), Resources(cpu, memory, pods),
                            Overhead{}, std::move(offerings));
}

inline Offering MakeOffering(std::string zone, std::string capacity_type, double price) {
  Offering o;
  o.zone = std::move(zone);
  o.capacity_type = std::move(capacity_type);
  o.price = price;
  o.available = true;
  return o;
}

// small (2 cpu, 4Gi) $0.10, medium (4 cpu, 8Gi) $0.20, large (8 cpu, 16Gi) $0.40, on-demand
// in the three test zones, no overhead.
inline std::vector<InstanceType> SmallMediumLarge() {
  return {
      MakeInstanceType("small", "2", "4Gi", 20, AllZones(), {std::string(kCapacityTypeOnDemand)},
                       0.10),
      MakeInstanceType("medium", "4", "8Gi", 40, AllZones(), {std::string(kCapacityTypeOnDemand)},
                       0.20),
      MakeInstanceType("large", "8", "16Gi", 80, AllZones(), {std::string(kCapacityTypeOnDemand)},
                       0.40),
  };
}

inline std::string ClaimNameFor(std::string_view node) { return "nc-" + std::string(node); }

// Adds a managed, initialized node of `type` (from `catalog`; a type missing from the catalog
// gets 4 cpu / 8Gi / 40 pods) and its NodeClaim.
inline void AddManagedNode(ClusterSnapshot& snap, const InstanceCatalog& catalog,
                           const std::string& name, const std::string& pool,
                           const std::string& type, const std::string& zone = std::string(kZone1),
                           const std::string& capacity_type = std::string(kCapacityTypeOnDemand),
                           absl::Time created = DisruptionNow() - absl::Hours(24),
                           bool initialized = true) {
  std::map<std::string, std::string> labels =
      ManagedNodeLabels(pool, type, zone, capacity_type, initialized);
  labels[std::string(kLabelHostname)] = name;
  ResourceList capacity = Resources("4", "8Gi", 40);
  ResourceList allocatable = capacity;
  if (const InstanceType* it = catalog.Find(type)) {
    for (const auto& [k, v] : it->labels) labels.emplace(k, v);
    capacity = it->capacity;
    allocatable = it->Allocatable();
  }
  Node node;
  node.metadata.name = name;
  node.metadata.labels = labels;
  node.metadata.creation_timestamp = created;
  node.capacity = capacity;
  node.allocatable = allocatable;
  node.provider_id = "fake:///" + name;
  node.conditions.push_back(NodeCondition{"Ready", "True", "", "", created});
  snap.nodes.push_back(std::move(node));

  NodeClaim nc;
  nc.metadata.name = ClaimNameFor(name);
  nc.metadata.labels = labels;
  nc.metadata.creation_timestamp = created;
  nc.requirements.push_back(Expr(std::string(kLabelNodePool), Operator::kIn, {pool}));
  nc.node_name = name;
  nc.provider_id = "fake:///" + name;
  nc.capacity = capacity;
  nc.allocatable = allocatable;
  nc.conditions.push_back(NodeCondition{"Launched", "True", "Launched", "", created});
  nc.conditions.push_back(NodeCondition{"Registered", "True", "Registered", "", created});
  nc.conditions.push_back(NodeCondition{"Initialized", initialized ? "True" : "False",
                                        initialized ? "Initialized" : "NotInitialized", "",
                                        created});
  snap.node_claims.push_back(std::move(nc));
}

inline Node* FindNodeMutable(ClusterSnapshot& snap, std::string_view name) {
  for (Node& n : snap.nodes) {
    if (n.metadata.name == name) return &n;
  }
  BuilderFailure("no node " + std::string(name));
}

inline NodeClaim* FindClaimMutable(ClusterSnapshot& snap, std::string_view node) {
  for (NodeClaim& nc : snap.node_claims) {
    if (nc.node_name == node) return &nc;
  }
  BuilderFailure("no nodeclaim for node " + std::string(node));
}

inline NodePool* FindPoolMutable(ClusterSnapshot& snap, std::string_view name) {
  for (NodePool& np : snap.node_pools) {
    if (np.name() == name) return &np;
  }
  BuilderFailure("no nodepool " + std::string(name));
}

// Sets (or replaces) a NodeClaim condition.
inline void SetClaimCondition(NodeClaim& nc, std::string type, std::string status,
                              std::string reason, absl::Time when) {
  for (NodeCondition& c : nc.conditions) {
    if (c.type == type) {
      c.status = std::move(status);
      c.reason = std::move(reason);
      c.last_transition_time = when;
      return;
    }
  }
  nc.conditions.push_back(
      NodeCondition{std::move(type), std::move(status), std::move(reason), "", when});
}

// A Running pod bound to `node`, started an hour before DisruptionNow().
inline PodBuilder BoundPod(std::string name, std::string node, std::string_view cpu,
                           std::string_view memory = "") {
  PodBuilder b = MakePod(std::move(name), cpu, memory);
  b.BoundTo(std::move(node));
  b.pod().start_time = DisruptionNow() - absl::Hours(1);
  return b;
}

// A DaemonSet pod bound to `node`.
inline PodBuilder DaemonPod(std::string name, std::string node, std::string_view cpu) {
  PodBuilder b = BoundPod(std::move(name), std::move(node), cpu);
  b.OwnedBy("DaemonSet", "logger");
  return b;
}

inline PodDisruptionBudget MakePdb(std::string name, std::map<std::string, std::string> selector,
                                   std::optional<int32_t> disruptions_allowed) {
  PodDisruptionBudget pdb;
  pdb.metadata.name = std::move(name);
  pdb.metadata.namespace_ = "default";
  pdb.selector = MatchLabels(std::move(selector));
  pdb.disruptions_allowed = disruptions_allowed;
  return pdb;
}

// ---------------------------------------------------------------------------------------------
// Plan lookups

// The index of the command that disrupts `node`, or -1.
inline int CommandIndexOf(const ConsolidationPlan& plan, std::string_view node) {
  for (size_t i = 0; i < plan.commands.size(); ++i) {
    for (const std::string& c : plan.commands[i].candidates) {
      if (c == node) return static_cast<int>(i);
    }
  }
  return -1;
}

// The reason `node` is kept, or nullopt when it is not in `kept`.
inline std::optional<std::string> KeptReason(const ConsolidationPlan& plan, std::string_view node) {
  for (const KeptNode& k : plan.kept) {
    if (k.node == node) return k.reason;
  }
  return std::nullopt;
}

// A readable dump of a plan for failure messages.
inline std::string Describe(const ConsolidationPlan& plan) {
  std::string out = "plan nodes=" + std::to_string(plan.node_count) +
                    " candidates=" + std::to_string(plan.candidate_count) +
                    " savings=" + std::to_string(plan.savings_per_hour) + "\n";
  for (const DisruptionCommand& c : plan.commands) {
    out += "  " + std::string(DisruptionDecisionName(c.decision)) + " " +
           std::string(DisruptionReasonName(c.reason)) + " [";
    for (const std::string& n : c.candidates) out += n + " ";
    out += "] savings=" + std::to_string(c.savings_per_hour);
    for (const NewNodeClaim& r : c.replacements) {
      out += " -> " + r.name + " pool=" + r.node_pool + " types=[";
      for (const std::string& t : r.instance_types) out += t + " ";
      out += "]";
      if (r.launch) {
        out += " launch=" + r.launch->instance_type + "/" + r.launch->zone + "/" +
               r.launch->capacity_type + "@" + std::to_string(r.launch->price);
      }
      out += " pods=[";
      for (const std::string& p : r.pods) out += p + " ";
      out += "]";
    }
    out += "\n";
  }
  for (const KeptNode& k : plan.kept) out += "  kept " + k.node + ": " + k.reason + "\n";
  return out;
}

// Field-by-field equality of two plans (determinism checks).
inline bool SamePlan(const ConsolidationPlan& a, const ConsolidationPlan& b) {
  if (a.node_count != b.node_count || a.candidate_count != b.candidate_count ||
      a.savings_per_hour != b.savings_per_hour || a.commands.size() != b.commands.size() ||
      a.kept.size() != b.kept.size()) {
    return false;
  }
  for (size_t i = 0; i < a.commands.size(); ++i) {
    const DisruptionCommand& x = a.commands[i];
    const DisruptionCommand& y = b.commands[i];
    if (x.decision != y.decision || x.reason != y.reason || x.candidates != y.candidates ||
        x.savings_per_hour != y.savings_per_hour ||
        x.replacements.size() != y.replacements.size()) {
      return false;
    }
    for (size_t j = 0; j < x.replacements.size(); ++j) {
      const NewNodeClaim& p = x.replacements[j];
      const NewNodeClaim& q = y.replacements[j];
      if (p.name != q.name || p.node_pool != q.node_pool || p.instance_types != q.instance_types ||
          p.requirements != q.requirements || p.pods != q.pods ||
          p.launch.has_value() != q.launch.has_value()) {
        return false;
      }
      if (p.launch &&
          (p.launch->instance_type != q.launch->instance_type || p.launch->zone != q.launch->zone ||
           p.launch->capacity_type != q.launch->capacity_type ||
           p.launch->price != q.launch->price)) {
        return false;
      }
    }
  }
  for (size_t i = 0; i < a.kept.size(); ++i) {
    if (a.kept[i].node != b.kept[i].node || a.kept[i].reason != b.kept[i].reason) return false;
  }
  return true;
}

}  // namespace karp::testing

#endif  // KARP_TESTS_SUPPORT_DISRUPTION_BUILDERS_H_
