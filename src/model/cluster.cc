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

absl::Status Duplicate(std::string_view kind, std::string_view name) {
  return absl::InvalidArgumentError(internal::StrCat(kind, " ", name, ": duplicate object"));
}

// The storage kinds (karp/storage.h): unique names, PersistentVolume node affinity in the
// pod-selector operators with their arity, CSINode counts >= 0.
absl::Status ValidateStorage(const ClusterSnapshot& snap) {
  std::set<std::string> seen;
  for (const PersistentVolumeClaim& c : snap.persistent_volume_claims) {
    if (!seen.insert(c.Key()).second) return Duplicate("persistentvolumeclaim", c.Key());
  }
  seen.clear();
  for (const PersistentVolume& v : snap.persistent_volumes) {
    const std::string& name = v.metadata.name;
    if (!seen.insert(name).second) return Duplicate("persistentvolume", name);
    for (size_t t = 0; t < v.node_affinity.size(); ++t) {
      const std::vector<NodeSelectorRequirement>& exprs = v.node_affinity[t].match_expressions;
      for (size_t e = 0; e < exprs.size(); ++e) {
        absl::Status s;
        if (exprs[e].op == Operator::kGte || exprs[e].op == Operator::kLte) {
          s = absl::InvalidArgumentError(internal::StrCat(
              "unsupported operator ", OperatorName(exprs[e].op),
              " (expected In, NotIn, Exists, DoesNotExist, Gt or Lt)"));
        } else if (exprs[e].min_values) {
          s = absl::InvalidArgumentError("minValues is not allowed here");
        } else {
          s = Requirement::Create(exprs[e]).status();
        }
        if (!s.ok()) {
          return absl::InvalidArgumentError(internal::StrCat(
              "persistentvolume ", name, ": spec.nodeAffinity.required.nodeSelectorTerms[", t,
              "].matchExpressions[", e, "]: ", s.message()));
        }
      }
    }
  }
  seen.clear();
  for (const StorageClass& c : snap.storage_classes) {
    if (!seen.insert(c.metadata.name).second) return Duplicate("storageclass", c.metadata.name);
  }
  seen.clear();
  for (const CSINode& n : snap.csi_nodes) {
    const std::string& name = n.metadata.name;
    if (!seen.insert(name).second) return Duplicate("csinode", name);
    for (size_t d = 0; d < n.drivers.size(); ++d) {
      if (n.drivers[d].allocatable_count && *n.drivers[d].allocatable_count < 0) {
        return absl::InvalidArgumentError(internal::StrCat(
            "csinode ", name, ": spec.drivers[", d, "].allocatable.count: must be >= 0"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ClusterSnapshot::Validate() const {
  std::set<std::string> seen;
  for (const NodePool& np : node_pools) {
    if (np.name().empty()) return absl::InvalidArgumentError("nodepool: metadata.name is empty");
    if (!seen.insert(np.name()).second) return Duplicate("nodepool", np.name());
    for (size_t i = 0; i < np.requirements.size(); ++i) {
      const NodeSelectorRequirement& r = np.requirements[i];
      absl::Status s = r.key == kLabelNodePool
                           ? absl::InvalidArgumentError(internal::StrCat(
                                 "key ", kLabelNodePool, " is not allowed in requirements"))
                           : ValidateRequirement(r);
      if (!s.ok()) {
        return absl::InvalidArgumentError(internal::StrCat(
            "nodepool ", np.name(), ": spec.template.spec.requirements[", i, "]: ", s.message()));
      }
    }
  }
  seen.clear();
  for (const Node& n : nodes) {
    if (!seen.insert(n.metadata.name).second) return Duplicate("node", n.metadata.name);
  }
  seen.clear();
  for (const NodeClaim& nc : node_claims) {
    if (!seen.insert(nc.metadata.name).second) return Duplicate("nodeclaim", nc.metadata.name);
  }
  seen.clear();
  for (const Pod& p : pods) {
    if (!seen.insert(p.Key()).second) return Duplicate("pod", p.Key());
  }
  seen.clear();
  for (const DaemonSet& d : daemon_sets) {
    std::string key = internal::StrCat(d.metadata.namespace_, "/", d.metadata.name);
    if (!seen.insert(key).second) return Duplicate("daemonset", key);
  }
  seen.clear();
  for (const PodDisruptionBudget& p : pdbs) {
    std::string key = internal::StrCat(p.metadata.namespace_, "/", p.metadata.name);
    if (!seen.insert(key).second) return Duplicate("poddisruptionbudget", key);
  }
  return ValidateStorage(*this);
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
  append(persistent_volume_claims, other.persistent_volume_claims);
  append(persistent_volumes, other.persistent_volumes);
  append(storage_classes, other.storage_classes);
  append(csi_nodes, other.csi_nodes);
  skipped_objects += other.skipped_objects;
}

}  // namespace karp
