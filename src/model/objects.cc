// Kubernetes object value types (see karp/objects.h).

#include "karp/objects.h"

#include <algorithm>
#include <string>
#include <vector>

#include "internal/namespace.h"
#include "internal/strings.h"

namespace karp {

bool LabelSelector::Matches(const std::map<std::string, std::string>& labels) const {
  for (const auto& [k, v] : match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const LabelSelectorRequirement& e : match_expressions) {
    auto it = labels.find(e.key);
    const bool present = it != labels.end();
    const bool listed =
        present && std::find(e.values.begin(), e.values.end(), it->second) != e.values.end();
    switch (e.op) {
      case Operator::kIn:
        if (!listed) return false;
        break;
      case Operator::kNotIn:
        if (listed) return false;
        break;
      case Operator::kExists:
        if (!present) return false;
        break;
      case Operator::kDoesNotExist:
        if (present) return false;
        break;
      default:
        return false;  // Gt/Lt are not label-selector operators
    }
  }
  return true;
}

std::string Pod::Key() const {
  return internal::StrCat(metadata.namespace_.empty() ? "default" : metadata.namespace_, "/",
                          metadata.name);
}

bool Pod::IsOwnedBy(std::string_view kind) const {
  for (const OwnerReference& o : metadata.owner_references) {
    if (o.kind == kind) return true;
  }
  return false;
}

ResourceList Pod::Requests() const {
  ResourceList total;
  for (const Container& c : containers) total.Add(c.requests);
  ResourceList init_max;
  ResourceList sidecar_sum;
  for (const Container& c : init_containers) {
    if (c.restart_policy == "Always") {
      total.Add(c.requests);
      sidecar_sum.Add(c.requests);
      init_max.MaxWith(sidecar_sum);
    } else {
      ResourceList usage = c.requests;
      usage.Add(sidecar_sum);
      init_max.MaxWith(usage);
    }
  }
  total.MaxWith(init_max);
  if (pod_level_requests.Has(kResourceCpu)) total.Set(kResourceCpu, pod_level_requests.cpu());
  if (pod_level_requests.Has(kResourceMemory)) {
    total.Set(kResourceMemory, pod_level_requests.memory());
  }
  total.Add(overhead);
  total.Set(kResourcePods, 1);
  return total;
}

namespace {

// NewNodeSelectorRequirements: API entries to requirements without validation (input is
// validated by the codec; a malformed bound becomes 0 as in the reference).
void AddApi(Requirements& out, const std::vector<NodeSelectorRequirement>& api) {
  for (const NodeSelectorRequirement& e : api) {
    absl::StatusOr<Requirement> r = Requirement::Create(e.key, e.op, e.values, std::nullopt);
    if (r.ok()) {
      out.Add(*r);
      continue;
    }
    switch (e.op) {
      case Operator::kGt:
        out.Add(Requirement::Gt(e.key, 0));
        break;
      case Operator::kLt:
        out.Add(Requirement::Lt(e.key, 0));
        break;
      case Operator::kGte:
        out.Add(Requirement::Gte(e.key, 0));
        break;
      case Operator::kLte:
        out.Add(Requirement::Lte(e.key, 0));
        break;
      case Operator::kIn:
        out.Add(Requirement::In(e.key, e.values));
        break;
      case Operator::kNotIn:
        out.Add(Requirement::NotIn(e.key, e.values));
        break;
      case Operator::kExists:
        out.Add(Requirement::Exists(e.key));
        break;
      case Operator::kDoesNotExist:
        out.Add(Requirement::DoesNotExist(e.key));
        break;
    }
  }
}

Requirements PodRequirementsImpl(const Pod& pod, bool include_preferred) {
  Requirements r = Requirements::FromLabels(pod.node_selector);
  if (include_preferred && !pod.node_affinity.preferred.empty()) {
    // Heaviest term; stable, so the first listed wins ties (the reference's sort is unstable).
    const PreferredSchedulingTerm* best = &pod.node_affinity.preferred[0];
    for (const PreferredSchedulingTerm& t : pod.node_affinity.preferred) {
      if (t.weight > best->weight) best = &t;
    }
    AddApi(r, best->preference.match_expressions);
  }
  if (!pod.node_affinity.required.empty()) {
    AddApi(r, pod.node_affinity.required[0].match_expressions);
  }
  return r;
}

}  // namespace

Requirements PodRequirements(const Pod& pod) { return PodRequirementsImpl(pod, true); }
Requirements StrictPodRequirements(const Pod& pod) { return PodRequirementsImpl(pod, false); }

std::vector<ContainerPort> HostPorts(const Pod& pod) {
  std::vector<ContainerPort> out;
  for (const Container& c : pod.containers) {
    for (const ContainerPort& p : c.ports) {
      if (p.host_port != 0) out.push_back(p);
    }
  }
  return out;
}

std::string Pod::ClaimName(const PodVolume& volume) const {
  if (!volume.ephemeral) return volume.claim_name;
  return internal::StrCat(metadata.name, "-", volume.name);
}

bool operator==(const Pod& a, const Pod& b) {
  return a.metadata == b.metadata && a.node_name == b.node_name &&
         a.node_selector == b.node_selector && a.node_affinity == b.node_affinity &&
         a.pod_affinity == b.pod_affinity && a.pod_anti_affinity == b.pod_anti_affinity &&
         a.tolerations == b.tolerations &&
         a.topology_spread_constraints == b.topology_spread_constraints &&
         a.containers == b.containers && a.init_containers == b.init_containers &&
         a.overhead == b.overhead && a.pod_level_requests == b.pod_level_requests &&
         a.priority == b.priority && a.scheduler_name == b.scheduler_name &&
         a.volumes == b.volumes && a.resource_claims == b.resource_claims &&
         a.phase == b.phase && a.start_time == b.start_time;
}

bool Pod::HasResourceClaims() const {
  if (!resource_claims.empty()) return true;
  for (const std::vector<Container>* list : {&containers, &init_containers}) {
    for (const Container& c : *list) {
      if (!c.resource_claims.empty()) return true;
    }
  }
  return false;
}

std::string_view ConsolidationPolicyName(ConsolidationPolicy p) {
  switch (p) {
    case ConsolidationPolicy::kWhenEmpty:
      return "WhenEmpty";
    case ConsolidationPolicy::kWhenEmptyOrUnderutilized:
      return "WhenEmptyOrUnderutilized";
    case ConsolidationPolicy::kBalanced:
      return "Balanced";
  }
  return "";
}

bool operator==(const NodePool& a, const NodePool& b) {
  return a.metadata == b.metadata && a.template_labels == b.template_labels &&
         a.template_annotations == b.template_annotations && a.requirements == b.requirements &&
         a.taints == b.taints && a.startup_taints == b.startup_taints &&
         a.node_class_ref == b.node_class_ref && a.expire_after == b.expire_after &&
         a.termination_grace_period == b.termination_grace_period &&
         a.consolidation_policy == b.consolidation_policy &&
         a.consolidate_after == b.consolidate_after && a.budgets == b.budgets &&
         a.limits == b.limits && a.weight == b.weight && a.replicas == b.replicas &&
         a.conditions == b.conditions;
}

bool NodePool::Ready() const {
  for (const NodeCondition& c : conditions) {
    if (c.type == "Ready") return c.status == "True";
  }
  return true;
}

std::string NodeClaim::NodePoolName() const {
  auto it = metadata.labels.find(std::string(kLabelNodePool));
  return it == metadata.labels.end() ? "" : it->second;
}

const NodeCondition* NodeClaim::Condition(std::string_view type) const {
  for (const NodeCondition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool NodeClaim::ConditionTrue(std::string_view type) const {
  const NodeCondition* c = Condition(type);
  return c != nullptr && c->status == "True";
}

bool operator==(const NodeClaim& a, const NodeClaim& b) {
  return a.metadata == b.metadata && a.requirements == b.requirements && a.requests == b.requests &&
         a.taints == b.taints && a.startup_taints == b.startup_taints &&
         a.node_class_ref == b.node_class_ref && a.expire_after == b.expire_after &&
         a.termination_grace_period == b.termination_grace_period && a.node_name == b.node_name &&
         a.provider_id == b.provider_id && a.image_id == b.image_id && a.capacity == b.capacity &&
         a.allocatable == b.allocatable && a.conditions == b.conditions &&
         a.last_pod_event_time == b.last_pod_event_time;
}

bool PodDisruptionBudget::Selects(const Pod& pod) const {
  return internal::NamespaceOrDefault(metadata) == internal::NamespaceOrDefault(pod.metadata) &&
         selector && selector->Matches(pod.metadata.labels);
}

bool PodDisruptionBudget::FullyBlocking() const {
  // The reference distinguishes an integer maxUnavailable 0 from the string "0%"; karp keeps
  // an int-or-percent as its text, in which both read as written.
  return max_unavailable == "0" || max_unavailable == "0%" || min_available == "100%";
}

}  // namespace karp
