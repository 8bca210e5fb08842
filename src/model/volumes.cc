// Volume validation, topology and limits (see karp/volumes.h; docs/design.md §5.3, §5.13).

#include "karp/volumes.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp {
namespace {

using internal::StrCat;

// `(persistentvolumeclaim "ns/name", persistentvolume "pv", storageclass "sc")`, naming only
// the objects that are set.
std::string Objects(const PersistentVolumeClaim& claim, bool with_volume, bool with_class) {
  std::string out = StrCat(" (persistentvolumeclaim \"", claim.Key(), "\"");
  if (with_volume && !claim.volume_name.empty()) {
    internal::StrAppend(&out, ", persistentvolume \"", claim.volume_name, "\"");
  }
  if (with_class && !claim.storage_class_name.empty()) {
    internal::StrAppend(&out, ", storageclass \"", claim.storage_class_name, "\"");
  }
  out += ")";
  return out;
}

absl::Status ClaimNotFound(std::string_view name) {
  return absl::NotFoundError(
      StrCat("getting persistent volume claim, persistentvolumeclaims \"", name, "\" not found"));
}

// A requirement of a volume's topology, with the EBS CSI zone key read as the zone.
absl::StatusOr<Requirement> VolumeRequirement(NodeSelectorRequirement expr) {
  if (expr.key == kLabelEbsCsiZone) expr.key = std::string(kLabelZone);
  if (expr.op == Operator::kGte || expr.op == Operator::kLte) {
    return absl::InvalidArgumentError(
        StrCat("key ", expr.key, ": unsupported operator ", OperatorName(expr.op)));
  }
  expr.min_values.reset();
  return Requirement::Create(expr);
}

// karpenter NewNodeSelectorRequirements: the expressions of one term, intersected per key.
absl::StatusOr<Requirements> TermRequirements(const std::vector<NodeSelectorRequirement>& exprs) {
  Requirements out;
  for (const NodeSelectorRequirement& e : exprs) {
    absl::StatusOr<Requirement> r = VolumeRequirement(e);
    if (!r.ok()) return r.status();
    out.Add(*r);
  }
  return out;
}

// `a, b` for one alternative; `any node` when it adds nothing.
std::string AlternativeText(const Requirements& alt) {
  if (alt.empty()) return "any node";
  std::string out;
  for (const Requirement& r : alt) {
    if (!out.empty()) out += ", ";
    out += r.ToString();
  }
  return out;
}

std::string AlternativesText(const std::vector<Requirements>& alts) {
  std::string out;
  for (size_t i = 0; i < alts.size(); ++i) {
    if (i > 0) out += " or ";
    out += AlternativeText(alts[i]);
  }
  return out;
}

// The alternatives one claim contributes (getRequirements), with their explanation.
absl::Status ClaimAlternatives(const StorageIndex& index, const PersistentVolumeClaim& claim,
                               std::vector<Requirements>* alts, std::string* explanation) {
  alts->clear();
  if (!claim.volume_name.empty()) {
    const PersistentVolume* pv = index.FindVolume(claim.volume_name);
    if (pv == nullptr) {
      return absl::NotFoundError(
          StrCat("getting existing requirements, getting persistent volume, persistentvolumes \"",
                 claim.volume_name, "\" not found", Objects(claim, true, false)));
    }
    const bool ignore_hostname = pv->local || pv->host_path;
    for (size_t t = 0; t < pv->node_affinity.size(); ++t) {
      std::vector<NodeSelectorRequirement> exprs = pv->node_affinity[t].match_expressions;
      if (ignore_hostname) {
        const bool had_any = !exprs.empty();
        exprs.erase(std::remove_if(exprs.begin(), exprs.end(),
                                   [](const NodeSelectorRequirement& e) {
                                     return NormalizeLabelKey(e.key) == kLabelHostname;
                                   }),
                    exprs.end());
        if (had_any && exprs.empty()) {
          // Hostname affinity is ignored for local and hostPath volumes: the term allows any
          // node.
          alts->push_back(Requirements());
          continue;
        }
      }
      if (exprs.empty()) continue;
      absl::StatusOr<Requirements> reqs = TermRequirements(exprs);
      if (!reqs.ok()) {
        return absl::InvalidArgumentError(
            StrCat("persistentvolume \"", pv->metadata.name,
                   "\": spec.nodeAffinity.required.nodeSelectorTerms[", t,
                   "]: ", reqs.status().message()));
      }
      alts->push_back(std::move(*reqs));
    }
    if (!alts->empty()) {
      *explanation =
          StrCat("persistentvolumeclaim \"", claim.Key(), "\" is bound to persistentvolume \"",
                 pv->metadata.name, "\", whose node affinity requires ", AlternativesText(*alts));
    }
    return absl::OkStatus();
  }
  if (claim.storage_class_name.empty()) return absl::OkStatus();
  const StorageClass* sc = index.FindStorageClass(claim.storage_class_name);
  if (sc == nullptr) {
    return absl::NotFoundError(StrCat("getting storage class, storageclasses.storage.k8s.io \"",
                                      claim.storage_class_name, "\" not found",
                                      Objects(claim, false, false)));
  }
  for (const TopologySelectorTerm& term : sc->allowed_topologies) {
    Requirements reqs;
    for (const TopologySelectorRequirement& e : term.match_label_expressions) {
      const std::string_view key = e.key == kLabelEbsCsiZone ? kLabelZone : e.key;
      reqs.Add(Requirement::In(key, e.values));
    }
    if (!term.match_label_expressions.empty()) alts->push_back(std::move(reqs));
  }
  if (!alts->empty()) {
    *explanation =
        StrCat("persistentvolumeclaim \"", claim.Key(), "\" will be provisioned by storageclass \"",
               sc->metadata.name, "\", which allows ", AlternativesText(*alts));
  }
  return absl::OkStatus();
}

// mergeVolumeRequirements
Requirements Merge(const std::optional<Requirements>& existing, const Requirements& vol) {
  Requirements merged;
  if (existing) merged.Add(*existing);
  merged.Add(vol);
  return merged;
}

}  // namespace

std::string_view CsiDriverOfInTreePlugin(std::string_view plugin) {
  static constexpr std::pair<std::string_view, std::string_view> kPlugins[] = {
      {"kubernetes.io/aws-ebs", kEbsCsiDriver},
      {"kubernetes.io/azure-disk", "disk.csi.azure.com"},
      {"kubernetes.io/azure-file", "file.csi.azure.com"},
      {"kubernetes.io/cinder", "cinder.csi.openstack.org"},
      {"kubernetes.io/gce-pd", "pd.csi.storage.gke.io"},
      {"kubernetes.io/portworx-volume", "pxd.portworx.com"},
      {"kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"},
  };
  for (const auto& [in_tree, csi] : kPlugins) {
    if (plugin == in_tree) return csi;
  }
  return "";
}

void AddVolumeUsage(const VolumeUsage& from, VolumeUsage* into) {
  for (const auto& [driver, claims] : from) {
    auto it = into->find(driver);
    if (it == into->end()) it = into->emplace(driver, std::set<std::string>()).first;
    it->second.insert(claims.begin(), claims.end());
  }
}

absl::Status CheckVolumeLimits(const VolumeUsage& node, const VolumeUsage& pod,
                               const VolumeLimits& limits) {
  for (const auto& [driver, limit] : limits) {
    auto n = node.find(driver);
    auto p = pod.find(driver);
    size_t count = n == node.end() ? 0 : n->second.size();
    if (p != pod.end()) {
      for (const std::string& claim : p->second) {
        if (n == node.end() || n->second.count(claim) == 0) ++count;
      }
    }
    if (static_cast<int64_t>(count) > limit) {
      return absl::FailedPreconditionError(StrCat("would exceed volume limit (provisioner ", driver,
                                                  ", volume-count ", count, ", volume-limit ",
                                                  limit, ")"));
    }
  }
  return absl::OkStatus();
}

StorageIndex::StorageIndex(const ClusterSnapshot& snapshot) {
  for (const PersistentVolumeClaim& c : snapshot.persistent_volume_claims) {
    claims_.emplace(c.Key(), &c);
  }
  for (const PersistentVolume& v : snapshot.persistent_volumes) {
    volumes_.emplace(v.metadata.name, &v);
  }
  for (const StorageClass& c : snapshot.storage_classes) classes_.emplace(c.metadata.name, &c);
  for (const CSINode& n : snapshot.csi_nodes) csi_nodes_.emplace(n.metadata.name, &n);
}

bool StorageIndex::empty() const {
  return claims_.empty() && volumes_.empty() && classes_.empty() && csi_nodes_.empty();
}

const PersistentVolumeClaim* StorageIndex::FindClaim(std::string_view namespace_,
                                                     std::string_view name) const {
  auto it = claims_.find(StrCat(namespace_, "/", name));
  return it == claims_.end() ? nullptr : it->second;
}

const PersistentVolume* StorageIndex::FindVolume(std::string_view name) const {
  auto it = volumes_.find(name);
  return it == volumes_.end() ? nullptr : it->second;
}

const StorageClass* StorageIndex::FindStorageClass(std::string_view name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : it->second;
}

const CSINode* StorageIndex::FindCSINode(std::string_view node_name) const {
  auto it = csi_nodes_.find(node_name);
  return it == csi_nodes_.end() ? nullptr : it->second;
}

absl::Status StorageIndex::ValidatePod(const Pod& pod) const {
  for (const PodVolume& volume : pod.volumes) {
    const std::string name = pod.ClaimName(volume);
    const PersistentVolumeClaim* claim = FindClaim(pod.metadata.namespace_, name);
    if (claim == nullptr) {
      return absl::FailedPreconditionError(ClaimNotFound(name).message());
    }
    if (claim->metadata.deletion_timestamp) {
      return absl::FailedPreconditionError(
          StrCat("persistentvolumeclaim is being deleted", Objects(*claim, false, false)));
    }
    if (claim->phase == kClaimLost) {
      return absl::FailedPreconditionError(
          StrCat("persistentvolumeclaim bound to non-existent persistentvolume",
                 Objects(*claim, true, false)));
    }
    if (!claim->volume_name.empty()) {
      const PersistentVolume* pv = FindVolume(claim->volume_name);
      if (pv == nullptr) {
        return absl::FailedPreconditionError(StrCat("failed to validate pvc, persistentvolumes \"",
                                                    claim->volume_name, "\" not found",
                                                    Objects(*claim, true, true)));
      }
      if (pv->metadata.deletion_timestamp) {
        return absl::FailedPreconditionError(
            StrCat("failed to validate pvc, persistentvolume is being deleted",
                   Objects(*claim, true, true)));
      }
      if (claim->metadata.annotations.count(std::string(kAnnotationBindCompleted)) == 0) {
        return absl::FailedPreconditionError(
            StrCat("pvc is considered unbound because it does not contain annotation ",
                   kAnnotationBindCompleted, Objects(*claim, true, false)));
      }
    } else {
      if (claim->storage_class_name.empty()) {
        return absl::FailedPreconditionError(
            StrCat("unbound pvc must define a storage class", Objects(*claim, false, false)));
      }
      const StorageClass* sc = FindStorageClass(claim->storage_class_name);
      if (sc == nullptr) {
        return absl::FailedPreconditionError(
            StrCat("failed to validate pvc, failed to get storage class, "
                   "storageclasses.storage.k8s.io \"",
                   claim->storage_class_name, "\" not found", Objects(*claim, false, false)));
      }
      if (sc->volume_binding_mode == VolumeBindingMode::kImmediate) {
        return absl::FailedPreconditionError(
            StrCat("failed to validate pvc, pvc with immediate volume binding mode must be bound",
                   Objects(*claim, false, true)));
      }
    }
    // The reference's sets of unsupported topology keys and provisioners are empty in its core
    // (cloud providers fill them): nothing more to check.
  }
  return absl::OkStatus();
}

absl::StatusOr<VolumeTopology> StorageIndex::Topology(const Pod& pod) const {
  VolumeTopology out;
  // The single initial alternative that matches everything (nullopt), as the reference's nil.
  std::vector<std::optional<Requirements>> alternatives(1);
  bool constrained = false;
  std::vector<Requirements> vol_alts;
  for (const PodVolume& volume : pod.volumes) {
    const std::string name = pod.ClaimName(volume);
    const PersistentVolumeClaim* claim = FindClaim(pod.metadata.namespace_, name);
    if (claim == nullptr) {
      return absl::NotFoundError(
          StrCat("discovering persistent volume claim, ", ClaimNotFound(name).message()));
    }
    std::string explanation;
    if (absl::Status s = ClaimAlternatives(*this, *claim, &vol_alts, &explanation); !s.ok()) {
      return s;
    }
    if (vol_alts.empty()) continue;
    if (!out.explanation.empty()) out.explanation += "; ";
    out.explanation += explanation;
    constrained = true;
    // Cross product, keeping the combinations whose parts intersect; all of them when none
    // does (mergeVolumeRequirementAlternatives).
    std::vector<std::optional<Requirements>> merged;
    for (const std::optional<Requirements>& existing : alternatives) {
      for (const Requirements& v : vol_alts) {
        if (existing && !existing->DoesIntersect(v)) continue;
        merged.push_back(Merge(existing, v));
      }
    }
    if (merged.empty()) {
      for (const std::optional<Requirements>& existing : alternatives) {
        for (const Requirements& v : vol_alts) merged.push_back(Merge(existing, v));
      }
    }
    alternatives = std::move(merged);
  }
  if (!constrained) return out;
  // Alternatives that all add nothing constrain nothing: drop them (same decisions, less work).
  const bool all_empty =
      std::all_of(alternatives.begin(), alternatives.end(),
                  [](const std::optional<Requirements>& a) { return !a || a->empty(); });
  if (all_empty) return VolumeTopology();
  out.alternatives.reserve(alternatives.size());
  for (std::optional<Requirements>& a : alternatives) out.alternatives.push_back(std::move(*a));
  return out;
}

absl::StatusOr<std::string> StorageIndex::ResolveDriver(const PersistentVolumeClaim& claim) const {
  if (!claim.volume_name.empty()) {
    const PersistentVolume* pv = FindVolume(claim.volume_name);
    if (pv == nullptr) {
      return absl::NotFoundError(StrCat("persistentvolumes \"", claim.volume_name, "\" not found",
                                        Objects(claim, true, false)));
    }
    if (!pv->csi_driver.empty()) return pv->csi_driver;
    if (pv->aws_elastic_block_store) return std::string(kEbsCsiDriver);
    return std::string();  // not a CSI volume: not tracked
  }
  if (claim.storage_class_name.empty()) return std::string();
  const StorageClass* sc = FindStorageClass(claim.storage_class_name);
  if (sc == nullptr) return std::string();  // deleted class: not tracked
  const std::string_view csi = CsiDriverOfInTreePlugin(sc->provisioner);
  return csi.empty() ? sc->provisioner : std::string(csi);
}

absl::StatusOr<VolumeUsage> StorageIndex::Usage(const Pod& pod) const {
  VolumeUsage usage;
  for (const PodVolume& volume : pod.volumes) {
    const PersistentVolumeClaim* claim = FindClaim(pod.metadata.namespace_, pod.ClaimName(volume));
    if (claim == nullptr) continue;  // deleted by hand: ignored, as the reference
    absl::StatusOr<std::string> driver = ResolveDriver(*claim);
    if (!driver.ok()) return driver.status();
    if (!driver->empty()) usage[*driver].insert(claim->Key());
  }
  return usage;
}

VolumeLimits StorageIndex::Limits(std::string_view node_name) const {
  VolumeLimits limits;
  const CSINode* n = FindCSINode(node_name);
  if (n == nullptr) return limits;
  for (const CSINodeDriver& d : n->drivers) {
    if (d.allocatable_count) limits[d.name] = *d.allocatable_count;
  }
  return limits;
}

}  // namespace karp
