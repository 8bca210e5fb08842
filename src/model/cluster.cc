// ClusterSnapshot (see karp/cluster.h).

#include "karp/cluster.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "internal/strings.h"

namespace karp {
namespace {

// `<kind> <name>: <what>`, input text escaped.
absl::Status ObjectError(std::string_view kind, std::string_view name, std::string_view what) {
  return absl::InvalidArgumentError(internal::EscapeForMessage(
      internal::StrCat(kind, " ", name.empty() ? "(unnamed)" : name, ": ", what)));
}

// Runs `validate` over every object and checks that keys are unique.
template <typename T, typename Validate, typename Key>
absl::Status CheckAll(const std::vector<T>& objects, std::string_view kind, Validate validate,
                      Key key) {
  std::set<std::string> seen;
  for (const T& o : objects) {
    if (absl::Status s = validate(o); !s.ok()) return ObjectError(kind, key(o), internal::Message(s));
    if (!seen.insert(key(o)).second) return ObjectError(kind, key(o), "duplicate object");
  }
  return absl::OkStatus();
}

std::string NamespacedKey(const ObjectMeta& m) {
  return internal::StrCat(m.namespace_.empty() ? "default" : m.namespace_, "/", m.name);
}

}  // namespace

absl::Status ClusterSnapshot::Validate() const {
  auto name = [](const auto& o) { return o.metadata.name; };
  auto namespaced = [](const auto& o) { return NamespacedKey(o.metadata); };
  if (absl::Status s = CheckAll(node_pools, "nodepool", ValidateNodePool, name); !s.ok()) return s;
  if (absl::Status s = CheckAll(nodes, "node", ValidateNode, name); !s.ok()) return s;
  if (absl::Status s = CheckAll(node_claims, "nodeclaim", ValidateNodeClaim, name); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckAll(pods, "pod", ValidatePod, namespaced); !s.ok()) return s;
  if (absl::Status s = CheckAll(daemon_sets, "daemonset", ValidateDaemonSet, namespaced);
      !s.ok()) {
    return s;
  }
  return CheckAll(pdbs, "poddisruptionbudget", ValidatePodDisruptionBudget, namespaced);
}

bool NodeDeleting(const Node& node, const NodeClaim* claim) {
  if (node.metadata.deletion_timestamp) return true;
  if (claim == nullptr) return false;
  return claim->metadata.deletion_timestamp.has_value() || claim->ConditionTrue("InstanceTerminating");
}

std::vector<const Pod*> ClusterSnapshot::PendingPods() const {
  std::vector<const Pod*> out;
  for (const Pod& p : pods) {
    if (!p.IsPending() || p.IsDaemon()) continue;
    if (!p.scheduler_name.empty() && p.scheduler_name != "default-scheduler") continue;
    out.push_back(&p);
  }
  return out;
}

std::vector<const Pod*> ClusterSnapshot::PodsOnNode(std::string_view node_name) const {
  std::vector<const Pod*> out;
  for (const Pod& p : pods) {
    if (p.node_name == node_name) out.push_back(&p);
  }
  return out;
}

const NodePool* ClusterSnapshot::FindNodePool(std::string_view name) const {
  for (const NodePool& np : node_pools) {
    if (np.name() == name) return &np;
  }
  return nullptr;
}

const Node* ClusterSnapshot::FindNode(std::string_view name) const {
  for (const Node& n : nodes) {
    if (n.metadata.name == name) return &n;
  }
  return nullptr;
}

const NodeClaim* ClusterSnapshot::FindNodeClaimForNode(std::string_view node_name) const {
  for (const NodeClaim& nc : node_claims) {
    if (!nc.node_name.empty() && nc.node_name == node_name) return &nc;
  }
  return nullptr;
}

std::vector<const NodeClaim*> ClusterSnapshot::InFlightNodeClaims() const {
  std::vector<const NodeClaim*> out;
  for (const NodeClaim& nc : node_claims) {
    if (nc.node_name.empty()) out.push_back(&nc);
  }
  return out;
}

void ClusterSnapshot::Merge(ClusterSnapshot other) {
  auto append = [](auto& dst, auto& src) {
    dst.insert(dst.end(), std::make_move_iterator(src.begin()),
               std::make_move_iterator(src.end()));
  };
  append(node_pools, other.node_pools);
  append(nodes, other.nodes);
  append(node_claims, other.node_claims);
  append(pods, other.pods);
  append(daemon_sets, other.daemon_sets);
  append(pdbs, other.pdbs);
  skipped_objects += other.skipped_objects;
}

}  // namespace karp
