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
    if (absl::Status s = validate(o); !s.ok())
      return ObjectError(kind, key(o), internal::Message(s));
    if (!seen.insert(key(o)).second) return ObjectError(kind, key(o), "duplicate object");
  }
  return absl::OkStatus();
}

std::string NamespacedKey(const ObjectMeta& m) {
  return internal::StrCat(m.namespace_.empty() ? "default" : m.namespace_, "/", m.name);
}

// The storage kinds (karp/storage.h): PersistentVolume node affinity in the pod-selector
// operators with their arity, CSINode counts >= 0.
absl::Status ValidatePersistentVolume(const PersistentVolume& v) {
  for (size_t t = 0; t < v.node_affinity.size(); ++t) {
    const std::vector<NodeSelectorRequirement>& exprs = v.node_affinity[t].match_expressions;
    for (size_t e = 0; e < exprs.size(); ++e) {
      absl::Status s;
      if (exprs[e].op == Operator::kGte || exprs[e].op == Operator::kLte) {
        s = absl::InvalidArgumentError(
            internal::StrCat("unsupported operator ", OperatorName(exprs[e].op),
                             " (expected In, NotIn, Exists, DoesNotExist, Gt or Lt)"));
      } else if (exprs[e].min_values) {
        s = absl::InvalidArgumentError("minValues is not allowed here");
      } else {
        s = Requirement::Create(exprs[e]).status();
      }
      if (!s.ok()) {
        return absl::InvalidArgumentError(
            internal::StrCat("spec.nodeAffinity.required.nodeSelectorTerms[", t,
                             "].matchExpressions[", e, "]: ", internal::Message(s)));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateCsiNode(const CSINode& n) {
  for (size_t d = 0; d < n.drivers.size(); ++d) {
    if (n.drivers[d].allocatable_count && *n.drivers[d].allocatable_count < 0) {
      return absl::InvalidArgumentError(
          internal::StrCat("spec.drivers[", d, "].allocatable.count: must be >= 0"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateStorage(const ClusterSnapshot& snap) {
  auto name = [](const auto& o) { return o.metadata.name; };
  auto none = [](const auto&) { return absl::OkStatus(); };
  if (absl::Status s = CheckAll(snap.persistent_volume_claims, "persistentvolumeclaim", none,
                                [](const PersistentVolumeClaim& c) { return c.Key(); });
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckAll(snap.persistent_volumes, "persistentvolume", ValidatePersistentVolume, name);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckAll(snap.storage_classes, "storageclass", none, name); !s.ok()) {
    return s;
  }
  return CheckAll(snap.csi_nodes, "csinode", ValidateCsiNode, name);
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
  if (absl::Status s = CheckAll(daemon_sets, "daemonset", ValidateDaemonSet, namespaced); !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckAll(pdbs, "poddisruptionbudget", ValidatePodDisruptionBudget, namespaced);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckAll(workloads, "workload", ValidateWorkload,
                                [](const Workload& w) {
                                  return internal::StrCat(WorkloadKindName(w.kind), " ",
                                                          NamespacedKey(w.metadata));
                                });
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckAll(services, "service", [](const Service&) { return absl::OkStatus(); }, namespaced);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckAll(
          node_overlays, "nodeoverlay",
          [](const NodeOverlay& o) { return ValidateNodeOverlay(o, NodeOverlayChecks::kSchema); },
          name);
      !s.ok()) {
    return s;
  }
  return ValidateStorage(*this);
}

bool NodeDeleting(const Node& node, const NodeClaim* claim) {
  if (node.metadata.deletion_timestamp) return true;
  if (claim == nullptr) return false;
  return claim->metadata.deletion_timestamp.has_value() ||
         claim->ConditionTrue("InstanceTerminating");
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
    dst.insert(dst.end(), std::make_move_iterator(src.begin()), std::make_move_iterator(src.end()));
  };
  append(node_pools, other.node_pools);
  append(nodes, other.nodes);
  append(node_claims, other.node_claims);
  append(pods, other.pods);
  append(daemon_sets, other.daemon_sets);
  append(pdbs, other.pdbs);
  append(persistent_volume_claims, other.persistent_volume_claims);
  append(persistent_volumes, other.persistent_volumes);
  append(storage_classes, other.storage_classes);
  append(csi_nodes, other.csi_nodes);
  append(workloads, other.workloads);
  append(limit_ranges, other.limit_ranges);
  append(node_classes, other.node_classes);
  append(node_overlays, other.node_overlays);
  append(services, other.services);
  skipped_objects += other.skipped_objects;
  skipped.insert(skipped.end(), other.skipped.begin(), other.skipped.end());
  warnings.insert(warnings.end(), other.warnings.begin(), other.warnings.end());
  notes.insert(notes.end(), other.notes.begin(), other.notes.end());
}

}  // namespace karp
