// karp::json encoding: WriteSnapshot (a v1 List of Kubernetes objects) and WriteCatalog
// (docs/formats.md §2). Every field the decoder in codec.cc reads is written, so that
// ParseSnapshot(WriteSnapshot(s)) == s; fields at their default value are omitted unless the
// default differs between "absent" and the value (expireAfter, budgets, policies).
// Object keys are sorted (nlohmann::json objects are std::maps): output is deterministic.

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "internal/strings.h"
#include "json/codec_fields.h"
#include "json/codec_util.h"
#include "json/encoders.h"
#include "karp/json/codec.h"

namespace karp::json {
namespace {

using Json = nlohmann::json;
using codec_internal::Dump;
using codec_internal::FormatGoDuration;
using codec_internal::FormatGoDurationOrNever;
using codec_internal::FormatTimestamp;
using codec_internal::RequirementsJson;
using codec_internal::ResourcesJson;
using codec_internal::StringListJson;
using codec_internal::TaintsJson;

Json StringMapJson(const std::map<std::string, std::string>& m) {
  Json o = Json::object();
  for (const auto& [k, v] : m) o[k] = v;
  return o;
}

Json DurationJson(const std::optional<absl::Duration>& d) { return FormatGoDurationOrNever(d); }

// An int-or-string: a canonical decimal int32 is written as a JSON number.
Json IntOrStringJson(const std::string& s) {
  const bool canonical = !s.empty() && s.size() <= 9 && (s == "0" || s[0] != '0') &&
                         s.find_first_not_of("0123456789") == std::string::npos;
  if (canonical) return std::stoi(s);
  return s;
}

Json MetaJson(const ObjectMeta& m, bool with_namespace) {
  Json o = Json::object();
  if (!m.name.empty()) o["name"] = m.name;
  if (with_namespace && !m.namespace_.empty()) o["namespace"] = m.namespace_;
  if (!m.uid.empty()) o["uid"] = m.uid;
  if (!m.labels.empty()) o["labels"] = StringMapJson(m.labels);
  if (!m.annotations.empty()) o["annotations"] = StringMapJson(m.annotations);
  if (m.creation_timestamp != absl::UnixEpoch()) {
    o["creationTimestamp"] = FormatTimestamp(m.creation_timestamp);
  }
  if (m.deletion_timestamp) o["deletionTimestamp"] = FormatTimestamp(*m.deletion_timestamp);
  if (!m.owner_references.empty()) {
    Json refs = Json::array();
    for (const OwnerReference& r : m.owner_references) {
      Json ref = Json::object();
      ref["apiVersion"] = r.api_version;
      ref["kind"] = r.kind;
      ref["name"] = r.name;
      if (!r.uid.empty()) ref["uid"] = r.uid;
      if (r.controller) ref["controller"] = true;
      refs.push_back(std::move(ref));
    }
    o["ownerReferences"] = std::move(refs);
  }
  return o;
}

Json ConditionsJson(const std::vector<NodeCondition>& conditions) {
  Json a = Json::array();
  for (const NodeCondition& c : conditions) {
    Json o = Json::object();
    o["type"] = c.type;
    o["status"] = c.status;
    if (!c.reason.empty()) o["reason"] = c.reason;
    if (!c.message.empty()) o["message"] = c.message;
    if (c.last_transition_time != absl::UnixEpoch()) {
      o["lastTransitionTime"] = FormatTimestamp(c.last_transition_time);
    }
    a.push_back(std::move(o));
  }
  return a;
}

Json NodeClassRefJson(const NodeClassRef& ref) {
  Json o = Json::object();
  o["group"] = ref.group;
  o["kind"] = ref.kind;
  o["name"] = ref.name;
  return o;
}

Json LabelSelectorJson(const LabelSelector& s) {
  Json o = Json::object();
  if (!s.match_labels.empty()) o["matchLabels"] = StringMapJson(s.match_labels);
  if (!s.match_expressions.empty()) {
    Json a = Json::array();
    for (const LabelSelectorRequirement& r : s.match_expressions) {
      Json e = Json::object();
      e["key"] = r.key;
      e["operator"] = std::string(OperatorName(r.op));
      if (!r.values.empty()) e["values"] = StringListJson(r.values);
      a.push_back(std::move(e));
    }
    o["matchExpressions"] = std::move(a);
  }
  return o;
}

Json NodeSelectorTermJson(const NodeSelectorTerm& t) {
  Json o = Json::object();
  if (!t.match_expressions.empty()) o["matchExpressions"] = RequirementsJson(t.match_expressions);
  if (t.has_match_fields) {
    // The fields themselves are not modelled; a placeholder keeps the term unsupported.
    o["matchFields"] = Json::array({Json{{"key", "metadata.name"}, {"operator", "Exists"}}});
  }
  return o;
}

Json PodAffinityTermJson(const PodAffinityTerm& t) {
  Json o = Json::object();
  if (t.label_selector) o["labelSelector"] = LabelSelectorJson(*t.label_selector);
  if (!t.namespaces.empty()) o["namespaces"] = StringListJson(t.namespaces);
  if (t.namespace_selector) o["namespaceSelector"] = LabelSelectorJson(*t.namespace_selector);
  o["topologyKey"] = t.topology_key;
  if (!t.match_label_keys.empty()) o["matchLabelKeys"] = StringListJson(t.match_label_keys);
  if (!t.mismatch_label_keys.empty()) {
    o["mismatchLabelKeys"] = StringListJson(t.mismatch_label_keys);
  }
  return o;
}

Json PodAffinityRulesJson(const PodAffinityRules& rules) {
  Json o = Json::object();
  if (!rules.required.empty()) {
    Json a = Json::array();
    for (const PodAffinityTerm& t : rules.required) a.push_back(PodAffinityTermJson(t));
    o["requiredDuringSchedulingIgnoredDuringExecution"] = std::move(a);
  }
  if (!rules.preferred.empty()) {
    Json a = Json::array();
    for (const WeightedPodAffinityTerm& w : rules.preferred) {
      a.push_back(Json{{"weight", w.weight}, {"podAffinityTerm", PodAffinityTermJson(w.term)}});
    }
    o["preferredDuringSchedulingIgnoredDuringExecution"] = std::move(a);
  }
  return o;
}

Json AffinityJson(const Pod& pod) {
  Json o = Json::object();
  const NodeAffinity& na = pod.node_affinity;
  if (!na.required.empty() || !na.preferred.empty()) {
    Json n = Json::object();
    if (!na.required.empty()) {
      Json terms = Json::array();
      for (const NodeSelectorTerm& t : na.required) terms.push_back(NodeSelectorTermJson(t));
      n["requiredDuringSchedulingIgnoredDuringExecution"] =
          Json{{"nodeSelectorTerms", std::move(terms)}};
    }
    if (!na.preferred.empty()) {
      Json a = Json::array();
      for (const PreferredSchedulingTerm& p : na.preferred) {
        a.push_back(Json{{"weight", p.weight}, {"preference", NodeSelectorTermJson(p.preference)}});
      }
      n["preferredDuringSchedulingIgnoredDuringExecution"] = std::move(a);
    }
    o["nodeAffinity"] = std::move(n);
  }
  if (!pod.pod_affinity.empty()) o["podAffinity"] = PodAffinityRulesJson(pod.pod_affinity);
  if (!pod.pod_anti_affinity.empty()) {
    o["podAntiAffinity"] = PodAffinityRulesJson(pod.pod_anti_affinity);
  }
  return o;
}

std::string_view InclusionPolicyName(NodeInclusionPolicy p) {
  return p == NodeInclusionPolicy::kHonor ? "Honor" : "Ignore";
}

Json TopologySpreadJson(const TopologySpreadConstraint& c) {
  Json o = Json::object();
  o["maxSkew"] = c.max_skew;
  o["topologyKey"] = c.topology_key;
  o["whenUnsatisfiable"] = c.when_unsatisfiable == WhenUnsatisfiable::kDoNotSchedule
                               ? "DoNotSchedule"
                               : "ScheduleAnyway";
  if (c.label_selector) o["labelSelector"] = LabelSelectorJson(*c.label_selector);
  if (c.min_domains) o["minDomains"] = *c.min_domains;
  o["nodeAffinityPolicy"] = std::string(InclusionPolicyName(c.node_affinity_policy));
  o["nodeTaintsPolicy"] = std::string(InclusionPolicyName(c.node_taints_policy));
  if (!c.match_label_keys.empty()) o["matchLabelKeys"] = StringListJson(c.match_label_keys);
  return o;
}

Json ContainersJson(const std::vector<Container>& containers) {
  Json a = Json::array();
  for (const Container& c : containers) {
    Json o = Json::object();
    o["name"] = c.name;
    Json resources = Json::object();
    if (!c.requests.empty()) resources["requests"] = ResourcesJson(c.requests);
    if (!c.limits.empty()) resources["limits"] = ResourcesJson(c.limits);
    if (!c.resource_claims.empty()) {
      Json claims = Json::array();
      for (const std::string& name : c.resource_claims) claims.push_back(Json{{"name", name}});
      resources["claims"] = std::move(claims);
    }
    if (!resources.empty()) o["resources"] = std::move(resources);
    if (!c.ports.empty()) {
      Json ports = Json::array();
      for (const ContainerPort& p : c.ports) {
        Json port = Json::object();
        port["containerPort"] = p.container_port;
        if (p.host_port != 0) port["hostPort"] = p.host_port;
        port["protocol"] = p.protocol;
        if (!p.host_ip.empty()) port["hostIP"] = p.host_ip;
        ports.push_back(std::move(port));
      }
      o["ports"] = std::move(ports);
    }
    if (!c.restart_policy.empty()) o["restartPolicy"] = c.restart_policy;
    a.push_back(std::move(o));
  }
  return a;
}

Json PodSpecJson(const Pod& pod) {
  Json spec = Json::object();
  if (!pod.node_name.empty()) spec["nodeName"] = pod.node_name;
  if (!pod.node_selector.empty()) spec["nodeSelector"] = StringMapJson(pod.node_selector);
  Json affinity = AffinityJson(pod);
  if (!affinity.empty()) spec["affinity"] = std::move(affinity);
  if (!pod.tolerations.empty()) {
    Json a = Json::array();
    for (const Toleration& t : pod.tolerations) {
      Json o = Json::object();
      if (!t.key.empty()) o["key"] = t.key;
      o["operator"] = std::string(TolerationOperatorName(t.op));
      if (!t.value.empty()) o["value"] = t.value;
      if (t.effect != TaintEffect::kNone) o["effect"] = std::string(TaintEffectName(t.effect));
      a.push_back(std::move(o));
    }
    spec["tolerations"] = std::move(a);
  }
  if (!pod.topology_spread_constraints.empty()) {
    Json a = Json::array();
    for (const TopologySpreadConstraint& c : pod.topology_spread_constraints) {
      a.push_back(TopologySpreadJson(c));
    }
    spec["topologySpreadConstraints"] = std::move(a);
  }
  spec["containers"] = ContainersJson(pod.containers);
  if (!pod.init_containers.empty()) spec["initContainers"] = ContainersJson(pod.init_containers);
  if (!pod.overhead.empty()) spec["overhead"] = ResourcesJson(pod.overhead);
  if (!pod.pod_level_requests.empty()) {
    spec["resources"] = Json{{"requests", ResourcesJson(pod.pod_level_requests)}};
  }
  if (!pod.resource_claims.empty()) {
    Json claims = Json::array();
    for (const std::string& name : pod.resource_claims) claims.push_back(Json{{"name", name}});
    spec["resourceClaims"] = std::move(claims);
  }
  if (pod.priority != 0) spec["priority"] = pod.priority;
  if (!pod.scheduler_name.empty()) spec["schedulerName"] = pod.scheduler_name;
  if (!pod.volumes.empty()) {
    Json volumes = Json::array();
    for (const PodVolume& v : pod.volumes) {
      Json o = Json{{"name", v.name}};
      if (v.ephemeral) {
        o["ephemeral"] = Json{{"volumeClaimTemplate", Json::object()}};
      } else {
        o["persistentVolumeClaim"] = Json{{"claimName", v.claim_name}};
      }
      volumes.push_back(std::move(o));
    }
    spec["volumes"] = std::move(volumes);
  }
  return spec;
}

Json Object(std::string_view api_version, std::string_view kind, Json metadata) {
  Json o = Json::object();
  o["apiVersion"] = std::string(api_version);
  o["kind"] = std::string(kind);
  o["metadata"] = std::move(metadata);
  return o;
}

Json PodJson(const Pod& pod) {
  Json o = Object("v1", "Pod", MetaJson(pod.metadata, true));
  o["spec"] = PodSpecJson(pod);
  Json status = Json::object();
  if (!pod.phase.empty()) status["phase"] = pod.phase;
  if (pod.start_time) status["startTime"] = FormatTimestamp(*pod.start_time);
  if (!status.empty()) o["status"] = std::move(status);
  return o;
}

Json NodeJson(const Node& node) {
  Json o = Object("v1", "Node", MetaJson(node.metadata, true));
  Json spec = Json::object();
  if (!node.taints.empty()) spec["taints"] = TaintsJson(node.taints);
  if (node.unschedulable) spec["unschedulable"] = true;
  if (!node.provider_id.empty()) spec["providerID"] = node.provider_id;
  o["spec"] = std::move(spec);
  Json status = Json::object();
  if (!node.capacity.empty()) status["capacity"] = ResourcesJson(node.capacity);
  if (!node.allocatable.empty()) status["allocatable"] = ResourcesJson(node.allocatable);
  if (!node.conditions.empty()) status["conditions"] = ConditionsJson(node.conditions);
  o["status"] = std::move(status);
  return o;
}

Json NodePoolJson(const NodePool& np) {
  Json o = Object("karpenter.sh/v1", "NodePool", MetaJson(np.metadata, true));
  Json tmeta = Json::object();
  if (!np.template_labels.empty()) tmeta["labels"] = StringMapJson(np.template_labels);
  if (!np.template_annotations.empty()) {
    tmeta["annotations"] = StringMapJson(np.template_annotations);
  }
  Json tspec = Json::object();
  tspec["requirements"] = RequirementsJson(np.requirements);
  if (!np.taints.empty()) tspec["taints"] = TaintsJson(np.taints);
  if (!np.startup_taints.empty()) tspec["startupTaints"] = TaintsJson(np.startup_taints);
  tspec["nodeClassRef"] = NodeClassRefJson(np.node_class_ref);
  tspec["expireAfter"] = DurationJson(np.expire_after);
  if (np.termination_grace_period) {
    tspec["terminationGracePeriod"] = FormatGoDuration(*np.termination_grace_period);
  }
  Json tmpl = Json::object();
  if (!tmeta.empty()) tmpl["metadata"] = std::move(tmeta);
  tmpl["spec"] = std::move(tspec);

  Json budgets = Json::array();
  for (const Budget& b : np.budgets) {
    Json j = Json::object();
    j["nodes"] = b.nodes;
    if (!b.reasons.empty()) j["reasons"] = StringListJson(b.reasons);
    if (!b.schedule.empty()) j["schedule"] = b.schedule;
    if (b.duration) j["duration"] = FormatGoDuration(*b.duration);
    budgets.push_back(std::move(j));
  }
  Json disruption = Json::object();
  disruption["consolidationPolicy"] = std::string(ConsolidationPolicyName(np.consolidation_policy));
  disruption["consolidateAfter"] = DurationJson(np.consolidate_after);
  disruption["budgets"] = std::move(budgets);

  Json spec = Json::object();
  spec["template"] = std::move(tmpl);
  spec["disruption"] = std::move(disruption);
  if (!np.limits.empty()) spec["limits"] = ResourcesJson(np.limits);
  if (np.weight) spec["weight"] = *np.weight;
  if (np.replicas) spec["replicas"] = *np.replicas;
  o["spec"] = std::move(spec);
  if (!np.conditions.empty()) o["status"] = Json{{"conditions", ConditionsJson(np.conditions)}};
  return o;
}

Json NodeClaimJson(const NodeClaim& nc) {
  Json o = Object("karpenter.sh/v1", "NodeClaim", MetaJson(nc.metadata, true));
  Json spec = Json::object();
  spec["requirements"] = RequirementsJson(nc.requirements);
  if (!nc.requests.empty()) spec["resources"] = Json{{"requests", ResourcesJson(nc.requests)}};
  if (!nc.taints.empty()) spec["taints"] = TaintsJson(nc.taints);
  if (!nc.startup_taints.empty()) spec["startupTaints"] = TaintsJson(nc.startup_taints);
  spec["nodeClassRef"] = NodeClassRefJson(nc.node_class_ref);
  spec["expireAfter"] = DurationJson(nc.expire_after);
  if (nc.termination_grace_period) {
    spec["terminationGracePeriod"] = FormatGoDuration(*nc.termination_grace_period);
  }
  o["spec"] = std::move(spec);
  Json status = Json::object();
  if (!nc.node_name.empty()) status["nodeName"] = nc.node_name;
  if (!nc.provider_id.empty()) status["providerID"] = nc.provider_id;
  if (!nc.image_id.empty()) status["imageID"] = nc.image_id;
  if (!nc.capacity.empty()) status["capacity"] = ResourcesJson(nc.capacity);
  if (!nc.allocatable.empty()) status["allocatable"] = ResourcesJson(nc.allocatable);
  if (!nc.conditions.empty()) status["conditions"] = ConditionsJson(nc.conditions);
  if (nc.last_pod_event_time) status["lastPodEventTime"] = FormatTimestamp(*nc.last_pod_event_time);
  o["status"] = std::move(status);
  return o;
}

Json DaemonSetJson(const DaemonSet& ds) {
  Json o = Object("apps/v1", "DaemonSet", MetaJson(ds.metadata, true));
  Json tmpl = Json::object();
  tmpl["metadata"] = MetaJson(ds.pod_template.metadata, /*with_namespace=*/false);
  tmpl["spec"] = PodSpecJson(ds.pod_template);
  o["spec"] = Json{{"template", std::move(tmpl)}};
  return o;
}

Json PdbJson(const PodDisruptionBudget& pdb) {
  Json o = Object("policy/v1", "PodDisruptionBudget", MetaJson(pdb.metadata, true));
  Json spec = Json::object();
  if (pdb.selector) spec["selector"] = LabelSelectorJson(*pdb.selector);
  if (!pdb.min_available.empty()) spec["minAvailable"] = IntOrStringJson(pdb.min_available);
  if (!pdb.max_unavailable.empty()) spec["maxUnavailable"] = IntOrStringJson(pdb.max_unavailable);
  if (!pdb.unhealthy_pod_eviction_policy.empty()) {
    spec["unhealthyPodEvictionPolicy"] = pdb.unhealthy_pod_eviction_policy;
  }
  o["spec"] = std::move(spec);
  if (pdb.disruptions_allowed) {
    o["status"] = Json{{"disruptionsAllowed", *pdb.disruptions_allowed}};
  }
  return o;
}

}  // namespace

namespace codec_internal {

Json ObjectMetaJson(const ObjectMeta& meta, bool with_namespace) {
  return MetaJson(meta, with_namespace);
}

Json NodeSelectorTermToJson(const NodeSelectorTerm& term) { return NodeSelectorTermJson(term); }
Json PodSpecToJson(const Pod& pod) { return PodSpecJson(pod); }
Json LabelSelectorToJson(const LabelSelector& selector) { return LabelSelectorJson(selector); }

}  // namespace codec_internal

std::string WriteSnapshot(const ClusterSnapshot& snapshot) {
  Json items = Json::array();
  for (const NodePool& np : snapshot.node_pools) items.push_back(NodePoolJson(np));
  for (const NodeClaim& nc : snapshot.node_claims) items.push_back(NodeClaimJson(nc));
  for (const Node& n : snapshot.nodes) items.push_back(NodeJson(n));
  for (const Pod& p : snapshot.pods) items.push_back(PodJson(p));
  for (const DaemonSet& ds : snapshot.daemon_sets) items.push_back(DaemonSetJson(ds));
  for (const PodDisruptionBudget& pdb : snapshot.pdbs) items.push_back(PdbJson(pdb));
  codec_internal::AppendStorageObjects(snapshot, &items);
  for (const Workload& w : snapshot.workloads) items.push_back(codec_internal::WorkloadJson(w));
  for (const LimitRange& lr : snapshot.limit_ranges) {
    items.push_back(codec_internal::LimitRangeJson(lr));
  }
  for (const NodeClass& nc : snapshot.node_classes) {
    items.push_back(codec_internal::NodeClassJson(nc));
  }
  for (const Service& s : snapshot.services) items.push_back(codec_internal::ServiceJson(s));
  for (const NodeOverlay& o : snapshot.node_overlays) {
    items.push_back(codec_internal::NodeOverlayJson(o));
  }
  Json list = Json::object();
  list["apiVersion"] = "v1";
  list["kind"] = "List";
  list["items"] = std::move(items);
  return Dump(list, 1);
}

std::string WriteCatalog(const InstanceCatalog& catalog, int indent) {
  Json types = Json::array();
  for (const InstanceType& it : catalog.instance_types()) {
    Json t = Json::object();
    t["name"] = it.name;
    t["labels"] = StringMapJson(it.labels);
    if (!it.extra_requirements.empty()) {
      t["requirements"] = RequirementsJson(it.extra_requirements.ToApi());
    }
    t["capacity"] = ResourcesJson(it.capacity);
    const Overhead& oh = it.overhead;
    if (!oh.kube_reserved.empty() || !oh.system_reserved.empty() ||
        !oh.eviction_threshold.empty()) {
      t["overhead"] = Json{{"kubeReserved", ResourcesJson(oh.kube_reserved)},
                           {"systemReserved", ResourcesJson(oh.system_reserved)},
                           {"evictionThreshold", ResourcesJson(oh.eviction_threshold)}};
    }
    Json offerings = Json::array();
    for (const Offering& o : it.offerings) {
      Json j = Json::object();
      j["zone"] = o.zone;
      j["capacityType"] = o.capacity_type;
      j["price"] = o.price;
      j["available"] = o.available;
      if (!o.reservation_id.empty()) j["reservationId"] = o.reservation_id;
      if (o.reservation_capacity != 0) j["reservationCapacity"] = o.reservation_capacity;
      if (o.price_estimated) j["priceEstimated"] = true;
      offerings.push_back(std::move(j));
    }
    t["offerings"] = std::move(offerings);
    types.push_back(std::move(t));
  }
  Json root = Json::object();
  root["instanceTypes"] = std::move(types);
  return Dump(root, indent);
}

}  // namespace karp::json
