// The NodePool template and DaemonSet helpers shared by the scheduler's preparation
// (src/scheduling/prepare.cc) and the price lower bound (src/quality/): see
// node_pool_templates.h.

#include "model/node_pool_templates.h"

#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "internal/namespace.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp {
namespace {

std::string NodeClassKey(const NodeClassRef& ref) {
  std::string kind = ref.kind;
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return internal::StrCat(ref.group, "/", kind);
}

}  // namespace

std::vector<const NodePool*> EligibleNodePools(const ClusterSnapshot& snapshot) {
  std::vector<const NodePool*> pools;
  for (const NodePool& np : snapshot.node_pools) {
    // The reference's NewScheduler: static, not ready and deleting NodePools launch nothing.
    if (np.replicas.has_value() || !np.Ready() || np.metadata.deletion_timestamp.has_value()) {
      continue;
    }
    pools.push_back(&np);
  }
  return pools;
}

absl::StatusOr<Requirements> TemplateRequirements(const NodePool& np) {
  absl::StatusOr<Requirements> reqs = Requirements::FromApi(np.requirements);
  if (!reqs.ok()) {
    return absl::InvalidArgumentError(internal::StrCat(
        "nodepool ", np.name(), ": spec.template.spec.requirements", reqs.status().message()));
  }
  reqs->Add(Requirements::FromLabels(np.template_labels));
  reqs->Add(Requirement::In(kLabelNodePool, {np.name()}));
  if (!np.node_class_ref.group.empty() && !np.node_class_ref.kind.empty()) {
    reqs->Add(Requirement::In(NodeClassKey(np.node_class_ref), {np.node_class_ref.name}));
  }
  reqs->Add(Requirement::In(kLabelRegistered, {"true"}));
  reqs->Add(Requirement::In(kLabelInitialized, {"true"}));
  return reqs;
}

namespace {

// Whether `ref`, a pod's controller reference, names `ds` (the pod is in the set's namespace):
// the same name, and the same uid when both carry one (the reference's IsControlledBy compares
// uids; hand-written objects often have none).
bool NamesDaemonSet(const OwnerReference& ref, const DaemonSet& ds) {
  return ref.kind == "DaemonSet" && ref.name == ds.metadata.name &&
         (ref.uid.empty() || ds.metadata.uid.empty() || ref.uid == ds.metadata.uid);
}

}  // namespace

std::vector<Pod> DaemonPods(const ClusterSnapshot& snapshot) {
  // The newest pod each DaemonSet controls (docs/design.md §2.4), found in one pass over the
  // pods: by namespace and set name, the first of equal creation times winning.
  std::vector<const Pod*> newest(snapshot.daemon_sets.size(), nullptr);
  if (!snapshot.daemon_sets.empty()) {
    std::map<std::pair<std::string_view, std::string_view>, size_t> by_name;
    for (size_t d = 0; d < snapshot.daemon_sets.size(); ++d) {
      const ObjectMeta& m = snapshot.daemon_sets[d].metadata;
      by_name.emplace(std::make_pair(std::string_view(internal::NamespaceOrDefault(m)),
                                     std::string_view(m.name)),
                      d);
    }
    for (const Pod& p : snapshot.pods) {
      for (const OwnerReference& ref : p.metadata.owner_references) {
        if (!ref.controller || ref.kind != "DaemonSet") continue;
        auto it = by_name.find({internal::NamespaceOrDefault(p.metadata), ref.name});
        if (it == by_name.end() || !NamesDaemonSet(ref, snapshot.daemon_sets[it->second])) break;
        const Pod*& best = newest[it->second];
        if (best == nullptr || p.metadata.creation_timestamp > best->metadata.creation_timestamp) {
          best = &p;
        }
        break;  // one controller per object
      }
    }
  }
  std::vector<Pod> daemon_pods;
  daemon_pods.reserve(snapshot.daemon_sets.size());
  for (size_t d = 0; d < snapshot.daemon_sets.size(); ++d) {
    const DaemonSet& ds = snapshot.daemon_sets[d];
    // The reference (IgnoreDRARequests, its default) leaves daemons with resource claims out
    // of the overhead.
    if (newest[d] != nullptr ? newest[d]->HasResourceClaims()
                             : ds.pod_template.HasResourceClaims()) {
      continue;
    }
    if (newest[d] != nullptr) {
      // The reference's getDaemonSetPods: the running pod as it is, except that the template's
      // required node affinity replaces the pod's, which the DaemonSet controller pins to the
      // pod's own node.
      Pod p = *newest[d];
      if (!ds.pod_template.node_affinity.required.empty()) {
        p.node_affinity.required = ds.pod_template.node_affinity.required;
      }
      daemon_pods.push_back(std::move(p));
      continue;
    }
    Pod p = ds.pod_template;
    if (p.metadata.namespace_.empty()) p.metadata.namespace_ = ds.metadata.namespace_;
    if (p.metadata.name.empty()) p.metadata.name = ds.metadata.name;
    daemon_pods.push_back(std::move(p));
  }
  return daemon_pods;
}

bool DaemonCompatible(const Pod& ds, const Requirements& template_reqs,
                      const std::vector<Taint>& taints, const InstanceType* it,
                      const LabelSet& well_known) {
  std::vector<Toleration> tolerations = ds.tolerations;
  tolerations.push_back({"", TolerationOperator::kExists, "", TaintEffect::kPreferNoSchedule});
  if (!ToleratesAll(taints, tolerations)) return false;
  Pod p = ds;
  while (true) {
    Requirements strict = StrictPodRequirements(p);
    if (template_reqs.IsCompatible(strict, &well_known) &&
        (it == nullptr || it->requirements.DoesIntersect(strict))) {
      return true;
    }
    if (p.node_affinity.required.size() > 1) {
      p.node_affinity.required.erase(p.node_affinity.required.begin());
      continue;
    }
    return false;
  }
}

std::vector<bool> CompatibleDaemons(const std::vector<Pod>& daemon_pods,
                                    const Requirements& template_reqs,
                                    const std::vector<Taint>& taints, const InstanceType* it,
                                    const LabelSet& well_known) {
  std::vector<bool> set(daemon_pods.size());
  for (size_t d = 0; d < daemon_pods.size(); ++d) {
    set[d] = DaemonCompatible(daemon_pods[d], template_reqs, taints, it, well_known);
  }
  return set;
}

}  // namespace karp
