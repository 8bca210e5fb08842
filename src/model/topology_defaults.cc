// Default topology spread constraints (karp/topology_defaults.h): the reference's
// DefaultTopologySpreadInjector (pkg/controllers/provisioning/scheduling/defaultconstraints.go)
// and the validation of its SchedulerConfiguration (pkg/operator/options/options.go).

#include "karp/topology_defaults.h"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "internal/strings.h"
#include "karp/labels.h"
#include "karp/workloads.h"

namespace karp {
namespace {

absl::Status ConstraintError(size_t i, std::string_view what) {
  return absl::InvalidArgumentError(
      internal::StrCat("podTopologySpread.defaultConstraints[", i, "]", what));
}

// The pod's controller reference (metav1.GetControllerOf), or null.
const OwnerReference* ControllerOf(const Pod& pod) {
  for (const OwnerReference& r : pod.metadata.owner_references) {
    if (r.controller) return &r;
  }
  return nullptr;
}

// The workload of `kind` named by `owner` in `ns`, or null.
const Workload* FindWorkload(const ClusterSnapshot& snapshot, const std::string& ns,
                             WorkloadKind kind, const std::string& name) {
  for (const Workload& w : snapshot.workloads) {
    if (w.kind == kind && w.metadata.name == name && w.metadata.namespace_ == ns) return &w;
  }
  return nullptr;
}

// What the controller adds to the selector (the reference's ownerContribution): a
// ReplicationController's map (overwriting service labels), or a ReplicaSet's or StatefulSet's
// selector as expressions (matchLabels first as In [v], by key; then its expressions).
struct OwnerPart {
  std::map<std::string, std::string> match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  bool missing = false;  // a supported controller kind not in the snapshot
};

OwnerPart OwnerContribution(const ClusterSnapshot& snapshot, const Pod& pod) {
  OwnerPart part;
  const OwnerReference* owner = ControllerOf(pod);
  if (owner == nullptr) return part;
  std::optional<WorkloadKind> kind;
  if (owner->api_version == "v1" && owner->kind == "ReplicationController") {
    kind = WorkloadKind::kReplicationController;
  } else if (owner->api_version == "apps/v1" && owner->kind == "ReplicaSet") {
    kind = WorkloadKind::kReplicaSet;
  } else if (owner->api_version == "apps/v1" && owner->kind == "StatefulSet") {
    kind = WorkloadKind::kStatefulSet;
  }
  if (!kind) return part;  // not a kind kube-scheduler deduces from
  const Workload* w = FindWorkload(snapshot, pod.metadata.namespace_, *kind, owner->name);
  if (w == nullptr) {
    part.missing = true;
    return part;
  }
  if (!w->selector) return part;
  if (*kind == WorkloadKind::kReplicationController) {
    part.match_labels = w->selector->match_labels;
    return part;
  }
  for (const auto& [k, v] : w->selector->match_labels) {
    part.match_expressions.push_back({k, Operator::kIn, {v}});
  }
  for (const LabelSelectorRequirement& r : w->selector->match_expressions) {
    part.match_expressions.push_back(r);
  }
  return part;
}

// DefaultSpreadSelector, with whether a supported controller was missing.
std::optional<LabelSelector> Deduce(const ClusterSnapshot& snapshot, const Pod& pod,
                                    bool* owner_missing) {
  LabelSelector selector;
  for (const Service& svc : snapshot.services) {
    // A Service without a selector selects nothing; an empty one selects every pod of its
    // namespace but contributes no label. A key set by several takes the last one's value.
    if (svc.metadata.namespace_ != pod.metadata.namespace_ || !svc.selector) continue;
    if (!LabelSelector{*svc.selector, {}}.Matches(pod.metadata.labels)) continue;
    for (const auto& [k, v] : *svc.selector) selector.match_labels[k] = v;
  }
  OwnerPart owner = OwnerContribution(snapshot, pod);
  *owner_missing = owner.missing;
  for (auto& [k, v] : owner.match_labels) selector.match_labels[k] = std::move(v);
  for (LabelSelectorRequirement& r : owner.match_expressions) {
    selector.match_expressions.push_back(std::move(r));
  }
  if (selector.empty()) return std::nullopt;  // would count every pod of the namespace
  return selector;
}

}  // namespace

absl::Status ValidateDefaultTopologySpread(
    const std::vector<TopologySpreadConstraint>& constraints) {
  for (size_t i = 0; i < constraints.size(); ++i) {
    const TopologySpreadConstraint& c = constraints[i];
    if (c.max_skew <= 0) return ConstraintError(i, ".maxSkew must be greater than 0");
    if (c.topology_key.empty()) return ConstraintError(i, ".topologyKey must be set");
    if (absl::Status s = ValidateQualifiedName(c.topology_key); !s.ok()) {
      return ConstraintError(
          i, internal::StrCat(".topologyKey \"", c.topology_key, "\" is not a valid label name, ",
                              internal::Message(s)));
    }
    if (c.label_selector) {
      return ConstraintError(i,
                             ".labelSelector must not be set, as selectors are deduced for "
                             "each pod");
    }
    if (!c.match_label_keys.empty()) {
      return ConstraintError(i,
                             ".matchLabelKeys must not be set, as it has no effect on "
                             "default constraints");
    }
    for (size_t j = 0; j < i; ++j) {
      if (constraints[j].topology_key == c.topology_key &&
          constraints[j].when_unsatisfiable == c.when_unsatisfiable) {
        return ConstraintError(
            i, internal::StrCat(" is a duplicate of [", j, "], {", c.topology_key, ", ",
                                c.when_unsatisfiable == WhenUnsatisfiable::kDoNotSchedule
                                    ? "DoNotSchedule"
                                    : "ScheduleAnyway",
                                "}"));
      }
    }
  }
  return absl::OkStatus();
}

std::optional<LabelSelector> DefaultSpreadSelector(const ClusterSnapshot& snapshot,
                                                   const Pod& pod) {
  bool owner_missing = false;
  return Deduce(snapshot, pod, &owner_missing);
}

DefaultSpreadReport ApplyDefaultTopologySpread(
    ClusterSnapshot* snapshot, const std::vector<TopologySpreadConstraint>& defaults) {
  DefaultSpreadReport report;
  if (defaults.empty()) return report;
  // Pods of one workload deduce one selector: cached by what the deduction reads.
  using Key = std::tuple<std::string, std::string, std::string, std::map<std::string, std::string>>;
  std::map<Key, std::pair<std::optional<LabelSelector>, bool>> cache;
  for (Pod& pod : snapshot->pods) {
    if (!pod.topology_spread_constraints.empty()) {
      ++report.own;
      continue;
    }
    const OwnerReference* owner = ControllerOf(pod);
    Key key{pod.metadata.namespace_, owner ? owner->kind : "", owner ? owner->name : "",
            pod.metadata.labels};
    auto found = cache.find(key);
    if (found == cache.end()) {
      bool missing = false;
      std::optional<LabelSelector> selector = Deduce(*snapshot, pod, &missing);
      found = cache.emplace(std::move(key), std::make_pair(std::move(selector), missing)).first;
    }
    const auto& [selector, missing] = found->second;
    if (!selector) {
      ++report.no_selector;
      report.owner_missing += missing ? 1 : 0;
      continue;
    }
    pod.topology_spread_constraints = defaults;
    for (TopologySpreadConstraint& c : pod.topology_spread_constraints) c.label_selector = selector;
    ++report.defaulted;
  }
  return report;
}

}  // namespace karp
