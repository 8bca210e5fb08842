// karp::json decoding of the core kinds (docs/formats.md §1): Pod, Node, NodePool, NodeClaim,
// DaemonSet and PodDisruptionBudget, with their parts (metadata, requirements, taints, affinity,
// topology spread, containers), into karp's value types with `<path>: <what>` errors. Each
// reader is a template over FieldReader and LiteFieldReader (json/field_reader.h), instantiated
// for both at the end; the snapshot assembly (codec.cc) and the catalog (codec_catalog.cc) call
// them through codec_internal (json/codec_fields.h).
//
//
// Conventions:
//  - a field that is absent or JSON null keeps its default;
//  - a field of the wrong JSON type is an error naming the path and the expected type;
//  - enumerations (operators, effects, policies, phases) are parsed strictly;
//  - quantities go through karp::ParseQuantity (negative values rejected), NodePool
//    requirements and the node selectors of pending pods through karp::ValidateRequirement.

#include "karp/json/codec.h"

#include <string.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_fields.h"
#include "json/document.h"
#include "json/fast_json.h"
#include "json/field_reader.h"

namespace karp::json {
namespace {

using codec_internal::AsInt64;
using codec_internal::FieldReader;
using codec_internal::Json;
using codec_internal::LiteFieldReader;
using codec_internal::LiteValue;
using codec_internal::PathError;
using codec_internal::ReadMeta;
using codec_internal::ReadNodeSelectorTerm;
using codec_internal::RequirementOwner;
using codec_internal::WrongType;
using internal::Message;

// An int-or-string (PodDisruptionBudget minAvailable/maxUnavailable, budget nodes): a
// non-negative integer or a percentage.
template <typename V>
absl::StatusOr<std::string> AsIntOrPercent(const V& v, std::string_view path) {
  std::string text;
  if (v.is_string()) {
    KARP_ASSIGN_OR_RETURN(text, codec_internal::AsString(v, path));
  } else if (v.is_number()) {
    KARP_ASSIGN_OR_RETURN(int64_t i, AsInt64(v, path));
    text = std::to_string(i);
  } else {
    return WrongType(path, "an integer or a percentage", v);
  }
  if (absl::StatusOr<IntOrPercent> parsed = ParseIntOrPercent(text, /*max_percent_100=*/false);
      !parsed.ok()) {
    return PathError(path, Message(parsed.status()));
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

}  // namespace

// Declared in json/codec_fields.h (the storage kinds read metadata and terms the same way).
namespace codec_internal {

template <typename R>
absl::Status ReadMeta(const R& m, ObjectMeta* meta) {
  KARP_RETURN_IF_ERROR(m.String("name", &meta->name));
  KARP_RETURN_IF_ERROR(m.String("namespace", &meta->namespace_));
  KARP_RETURN_IF_ERROR(m.String("uid", &meta->uid));
  KARP_RETURN_IF_ERROR(m.StringMap("labels", &meta->labels));
  KARP_RETURN_IF_ERROR(m.StringMap("annotations", &meta->annotations));
  KARP_RETURN_IF_ERROR(m.Time("creationTimestamp", &meta->creation_timestamp));
  KARP_RETURN_IF_ERROR(m.Time("deletionTimestamp", &meta->deletion_timestamp));
  meta->owner_references.clear();
  return m.Objects("ownerReferences", [&](const R& o) -> absl::Status {
    OwnerReference ref;
    KARP_RETURN_IF_ERROR(o.String("apiVersion", &ref.api_version));
    KARP_RETURN_IF_ERROR(o.String("kind", &ref.kind));
    KARP_RETURN_IF_ERROR(o.String("name", &ref.name));
    KARP_RETURN_IF_ERROR(o.String("uid", &ref.uid));
    KARP_RETURN_IF_ERROR(o.Bool("controller", &ref.controller));
    meta->owner_references.push_back(std::move(ref));
    return absl::OkStatus();
  });
}

template absl::Status ReadMeta(const FieldReader& m, ObjectMeta* meta);
template absl::Status ReadMeta(const LiteFieldReader& m, ObjectMeta* meta);

}  // namespace codec_internal

namespace {

template <typename R>
absl::Status ReadTaints(const R& parent, std::string_view key, std::vector<Taint>* out) {
  out->clear();
  return parent.Objects(key, [&](const R& o) -> absl::Status {
    Taint t;
    KARP_RETURN_IF_ERROR(o.RequiredString("key", &t.key));
    KARP_RETURN_IF_ERROR(o.String("value", &t.value));
    std::string effect;
    KARP_RETURN_IF_ERROR(o.RequiredString("effect", &effect));
    absl::StatusOr<TaintEffect> e = ParseTaintEffect(effect);
    if (!e.ok() || *e == TaintEffect::kNone) {
      return PathError(o.At("effect"),
                       internal::StrCat("unsupported taint effect \"", effect,
                                        "\"; expected NoSchedule, PreferNoSchedule or NoExecute"));
    }
    t.effect = *e;
    out->push_back(std::move(t));
    return absl::OkStatus();
  });
}

template <typename R>
absl::Status ReadConditions(const R& status, std::vector<NodeCondition>* out) {
  out->clear();
  return status.Objects("conditions", [&](const R& o) -> absl::Status {
    NodeCondition c;
    KARP_RETURN_IF_ERROR(o.RequiredString("type", &c.type));
    KARP_RETURN_IF_ERROR(o.RequiredString("status", &c.status));
    if (c.status != "True" && c.status != "False" && c.status != "Unknown") {
      return PathError(o.At("status"), internal::StrCat("unsupported condition status \"", c.status,
                                                        "\"; expected True, False or Unknown"));
    }
    KARP_RETURN_IF_ERROR(o.String("reason", &c.reason));
    KARP_RETURN_IF_ERROR(o.String("message", &c.message));
    KARP_RETURN_IF_ERROR(o.Time("lastTransitionTime", &c.last_transition_time));
    out->push_back(std::move(c));
    return absl::OkStatus();
  });
}

template <typename R>
absl::Status ReadNodeClassRef(const R& spec, NodeClassRef* out) {
  KARP_ASSIGN_OR_RETURN(R ref, spec.Object("nodeClassRef"));
  KARP_RETURN_IF_ERROR(ref.String("group", &out->group));
  KARP_RETURN_IF_ERROR(ref.String("kind", &out->kind));
  KARP_RETURN_IF_ERROR(ref.String("name", &out->name));
  return absl::OkStatus();
}

// One NodeSelectorRequirement ({key, operator, values, minValues}).
template <typename R>
absl::Status ReadRequirement(const R& o, RequirementOwner owner, NodeSelectorRequirement* out) {
  KARP_RETURN_IF_ERROR(o.RequiredString("key", &out->key));
  std::string op_text;
  KARP_RETURN_IF_ERROR(o.RequiredString("operator", &op_text));
  absl::StatusOr<Operator> op = ParseOperator(op_text);
  if (!op.ok()) return PathError(o.At("operator"), Message(op.status()));
  if (owner == RequirementOwner::kPod && (*op == Operator::kGte || *op == Operator::kLte)) {
    return PathError(
        o.At("operator"),
        internal::StrCat("unsupported operator \"", op_text,
                         "\"; expected one of In, NotIn, Exists, DoesNotExist, Gt, Lt"));
  }
  out->op = *op;
  KARP_RETURN_IF_ERROR(o.StringList("values", &out->values));
  if (owner != RequirementOwner::kPod) {
    std::optional<int64_t> min_values;
    KARP_RETURN_IF_ERROR(o.Int64("minValues", &min_values));
    if (min_values) {
      if (*min_values < 1 || *min_values > kMaxMinValues) {
        return PathError(o.path(), internal::StrCat("key ", out->key, ": minValues ", *min_values,
                                                    " must be between 1 and ", kMaxMinValues));
      }
      out->min_values = static_cast<int>(*min_values);
    }
  }
  // The rules of NodePool and NodeClaim requirements are their validators' (karp/objects.h);
  // invalid pod constraints are pod errors of Solve, not input errors.
  return absl::OkStatus();
}

template <typename R>
absl::Status ReadRequirements(const R& spec, RequirementOwner owner,
                              std::vector<NodeSelectorRequirement>* out) {
  out->clear();
  return spec.Objects("requirements", [&](const R& o) -> absl::Status {
    NodeSelectorRequirement r;
    KARP_RETURN_IF_ERROR(ReadRequirement(o, owner, &r));
    out->push_back(std::move(r));
    return absl::OkStatus();
  });
}

template <typename R>
absl::Status ReadLabelSelector(const R& parent, std::string_view key,
                               std::optional<LabelSelector>* out) {
  KARP_ASSIGN_OR_RETURN(R o, parent.Object(key));
  if (!o.present()) {
    *out = std::nullopt;
    return absl::OkStatus();
  }
  LabelSelector sel;
  KARP_RETURN_IF_ERROR(o.StringMap("matchLabels", &sel.match_labels));
  KARP_RETURN_IF_ERROR(o.Objects("matchExpressions", [&](const R& e) -> absl::Status {
    LabelSelectorRequirement r;
    KARP_RETURN_IF_ERROR(e.RequiredString("key", &r.key));
    std::string op_text;
    KARP_RETURN_IF_ERROR(e.RequiredString("operator", &op_text));
    absl::StatusOr<Operator> op = ParseOperator(op_text);
    if (!op.ok() || (*op != Operator::kIn && *op != Operator::kNotIn && *op != Operator::kExists &&
                     *op != Operator::kDoesNotExist)) {
      return PathError(e.At("operator"),
                       internal::StrCat("unsupported operator \"", op_text,
                                        "\"; expected one of In, NotIn, Exists, DoesNotExist"));
    }
    r.op = *op;
    KARP_RETURN_IF_ERROR(e.StringList("values", &r.values));
    sel.match_expressions.push_back(std::move(r));
    return absl::OkStatus();
  }));
  *out = std::move(sel);
  return absl::OkStatus();
}

}  // namespace

// Declared in json/codec_fields.h (the storage kinds read metadata and terms the same way).
namespace codec_internal {

template <typename R>
absl::Status ReadNodeSelectorTerm(const R& o, NodeSelectorTerm* out) {
  KARP_RETURN_IF_ERROR(o.Objects("matchExpressions", [&](const R& e) -> absl::Status {
    NodeSelectorRequirement r;
    KARP_RETURN_IF_ERROR(ReadRequirement(e, RequirementOwner::kPod, &r));
    out->match_expressions.push_back(std::move(r));
    return absl::OkStatus();
  }));
  if (const auto* mf = o.Get("matchFields"); mf != nullptr) {
    if (!mf->is_array()) return WrongType(o.At("matchFields"), "an array", *mf);
    out->has_match_fields = !mf->empty();
  }
  return absl::OkStatus();
}

template absl::Status ReadNodeSelectorTerm(const FieldReader& o, NodeSelectorTerm* out);
template absl::Status ReadNodeSelectorTerm(const LiteFieldReader& o, NodeSelectorTerm* out);

absl::Status ReadSelector(const FieldReader& parent, std::string_view key,
                          std::optional<LabelSelector>* out) {
  return ReadLabelSelector(parent, key, out);
}

}  // namespace codec_internal

namespace {

template <typename R>
absl::Status ReadPodAffinityTerm(const R& o, PodAffinityTerm* out) {
  KARP_RETURN_IF_ERROR(ReadLabelSelector(o, "labelSelector", &out->label_selector));
  KARP_RETURN_IF_ERROR(o.StringList("namespaces", &out->namespaces));
  KARP_RETURN_IF_ERROR(ReadLabelSelector(o, "namespaceSelector", &out->namespace_selector));
  KARP_RETURN_IF_ERROR(o.String("topologyKey", &out->topology_key));
  KARP_RETURN_IF_ERROR(o.StringList("matchLabelKeys", &out->match_label_keys));
  KARP_RETURN_IF_ERROR(o.StringList("mismatchLabelKeys", &out->mismatch_label_keys));
  return absl::OkStatus();
}

template <typename R>
absl::Status ReadPodAffinityRules(const R& affinity, std::string_view key, PodAffinityRules* out) {
  KARP_ASSIGN_OR_RETURN(R o, affinity.Object(key));
  KARP_RETURN_IF_ERROR(
      o.Objects("requiredDuringSchedulingIgnoredDuringExecution", [&](const R& t) -> absl::Status {
        PodAffinityTerm term;
        KARP_RETURN_IF_ERROR(ReadPodAffinityTerm(t, &term));
        out->required.push_back(std::move(term));
        return absl::OkStatus();
      }));
  return o.Objects("preferredDuringSchedulingIgnoredDuringExecution",
                   [&](const R& w) -> absl::Status {
                     WeightedPodAffinityTerm wt;
                     KARP_RETURN_IF_ERROR(w.Int32("weight", &wt.weight));
                     KARP_ASSIGN_OR_RETURN(R t, w.Object("podAffinityTerm"));
                     KARP_RETURN_IF_ERROR(ReadPodAffinityTerm(t, &wt.term));
                     out->preferred.push_back(std::move(wt));
                     return absl::OkStatus();
                   });
}

template <typename R>
absl::Status ReadAffinity(const R& spec, Pod* pod) {
  KARP_ASSIGN_OR_RETURN(R aff, spec.Object("affinity"));
  KARP_ASSIGN_OR_RETURN(R na, aff.Object("nodeAffinity"));
  KARP_ASSIGN_OR_RETURN(R req, na.Object("requiredDuringSchedulingIgnoredDuringExecution"));
  KARP_RETURN_IF_ERROR(req.Objects("nodeSelectorTerms", [&](const R& t) -> absl::Status {
    NodeSelectorTerm term;
    KARP_RETURN_IF_ERROR(ReadNodeSelectorTerm(t, &term));
    pod->node_affinity.required.push_back(std::move(term));
    return absl::OkStatus();
  }));
  KARP_RETURN_IF_ERROR(na.Objects(
      "preferredDuringSchedulingIgnoredDuringExecution", [&](const R& p) -> absl::Status {
        PreferredSchedulingTerm pt;
        KARP_RETURN_IF_ERROR(p.Int32("weight", &pt.weight));
        KARP_ASSIGN_OR_RETURN(R pref, p.Object("preference"));
        KARP_RETURN_IF_ERROR(ReadNodeSelectorTerm(pref, &pt.preference));
        pod->node_affinity.preferred.push_back(std::move(pt));
        return absl::OkStatus();
      }));
  KARP_RETURN_IF_ERROR(ReadPodAffinityRules(aff, "podAffinity", &pod->pod_affinity));
  KARP_RETURN_IF_ERROR(ReadPodAffinityRules(aff, "podAntiAffinity", &pod->pod_anti_affinity));
  return absl::OkStatus();
}

template <typename R>
absl::Status ReadInclusionPolicy(const R& o, std::string_view key, NodeInclusionPolicy* out) {
  std::string text;
  KARP_RETURN_IF_ERROR(o.String(key, &text));
  if (o.Get(key) == nullptr) return absl::OkStatus();
  if (text == "Honor") {
    *out = NodeInclusionPolicy::kHonor;
  } else if (text == "Ignore") {
    *out = NodeInclusionPolicy::kIgnore;
  } else {
    return PathError(
        o.At(key), internal::StrCat("unsupported policy \"", text, "\"; expected Honor or Ignore"));
  }
  return absl::OkStatus();
}

template <typename R>
absl::Status ReadTopologySpread(const R& o, TopologySpreadConstraint* out) {
  KARP_RETURN_IF_ERROR(o.Int32("maxSkew", &out->max_skew));
  if (out->max_skew < 1) return PathError(o.At("maxSkew"), "must be greater than 0");
  KARP_RETURN_IF_ERROR(o.RequiredString("topologyKey", &out->topology_key));
  std::string when;
  KARP_RETURN_IF_ERROR(o.String("whenUnsatisfiable", &when));
  if (when.empty() || when == "DoNotSchedule") {
    out->when_unsatisfiable = WhenUnsatisfiable::kDoNotSchedule;
  } else if (when == "ScheduleAnyway") {
    out->when_unsatisfiable = WhenUnsatisfiable::kScheduleAnyway;
  } else {
    return PathError(o.At("whenUnsatisfiable"),
                     internal::StrCat("unsupported value \"", when,
                                      "\"; expected DoNotSchedule or ScheduleAnyway"));
  }
  KARP_RETURN_IF_ERROR(ReadLabelSelector(o, "labelSelector", &out->label_selector));
  KARP_RETURN_IF_ERROR(o.Int32("minDomains", &out->min_domains));
  if (out->min_domains && *out->min_domains < 1) {
    return PathError(o.At("minDomains"), "must be greater than 0");
  }
  KARP_RETURN_IF_ERROR(ReadInclusionPolicy(o, "nodeAffinityPolicy", &out->node_affinity_policy));
  KARP_RETURN_IF_ERROR(ReadInclusionPolicy(o, "nodeTaintsPolicy", &out->node_taints_policy));
  KARP_RETURN_IF_ERROR(o.StringList("matchLabelKeys", &out->match_label_keys));
  return absl::OkStatus();
}

// The API server's defaulting of a container's resource requirements (SetDefaults_Pod in
// k8s.io/kubernetes pkg/apis/core/v1/defaults.go): a resource with a limit and no request is
// requested at its limit. It applies to containers and init containers, and Karpenter applies
// the same merge to DaemonSet templates (PodForDaemonSet in pkg/utils/daemonset), which the API
// server never defaults; karp reads every pod spec, template or not, through it
// (docs/design.md §2.1).
template <typename R>
absl::Status ReadRequestsDefaultedFromLimits(const R& resources, ResourceList* requests,
                                             ResourceList* limits) {
  KARP_RETURN_IF_ERROR(resources.Resources("requests", requests));
  KARP_RETURN_IF_ERROR(resources.Resources("limits", limits));
  limits->ForEach([&](std::string_view name, int64_t value) {
    if (!requests->Has(name)) requests->Set(name, value);
  });
  return absl::OkStatus();
}

template <typename R>
absl::Status ReadContainers(const R& spec, std::string_view key, std::vector<Container>* out) {
  out->clear();
  return spec.Objects(key, [&](const R& c) -> absl::Status {
    Container container;
    KARP_RETURN_IF_ERROR(c.String("name", &container.name));
    KARP_ASSIGN_OR_RETURN(R res, c.Object("resources"));
    KARP_RETURN_IF_ERROR(
        ReadRequestsDefaultedFromLimits(res, &container.requests, &container.limits));
    KARP_RETURN_IF_ERROR(res.Objects("claims", [&](const R& claim) -> absl::Status {
      std::string name;
      KARP_RETURN_IF_ERROR(claim.RequiredString("name", &name));
      container.resource_claims.push_back(std::move(name));
      return absl::OkStatus();
    }));
    KARP_RETURN_IF_ERROR(c.Objects("ports", [&](const R& p) -> absl::Status {
      ContainerPort port;
      KARP_RETURN_IF_ERROR(p.Int32("containerPort", &port.container_port));
      KARP_RETURN_IF_ERROR(p.Int32("hostPort", &port.host_port));
      if (port.container_port < 0 || port.container_port > 65535) {
        return PathError(p.At("containerPort"), "must be between 0 and 65535");
      }
      if (port.host_port < 0 || port.host_port > 65535) {
        return PathError(p.At("hostPort"), "must be between 0 and 65535");
      }
      KARP_RETURN_IF_ERROR(p.String("protocol", &port.protocol));
      if (port.protocol.empty()) port.protocol = "TCP";
      if (port.protocol != "TCP" && port.protocol != "UDP" && port.protocol != "SCTP") {
        return PathError(p.At("protocol"),
                         internal::StrCat("unsupported protocol \"", port.protocol,
                                          "\"; expected TCP, UDP or SCTP"));
      }
      KARP_RETURN_IF_ERROR(p.String("hostIP", &port.host_ip));
      container.ports.push_back(std::move(port));
      return absl::OkStatus();
    }));
    KARP_RETURN_IF_ERROR(c.String("restartPolicy", &container.restart_policy));
    out->push_back(std::move(container));
    return absl::OkStatus();
  });
}

// Pod spec fields (shared by Pods and DaemonSet templates).
template <typename R>
absl::Status ReadPodSpec(const R& spec, Pod* pod) {
  KARP_RETURN_IF_ERROR(spec.String("nodeName", &pod->node_name));
  KARP_RETURN_IF_ERROR(spec.StringMap("nodeSelector", &pod->node_selector));
  KARP_RETURN_IF_ERROR(ReadAffinity(spec, pod));
  KARP_RETURN_IF_ERROR(spec.Objects("tolerations", [&](const R& o) -> absl::Status {
    Toleration t;
    KARP_RETURN_IF_ERROR(o.String("key", &t.key));
    std::string op;
    KARP_RETURN_IF_ERROR(o.String("operator", &op));
    absl::StatusOr<TolerationOperator> top = ParseTolerationOperator(op);
    if (!top.ok()) return PathError(o.At("operator"), Message(top.status()));
    t.op = *top;
    KARP_RETURN_IF_ERROR(o.String("value", &t.value));
    std::string effect;
    KARP_RETURN_IF_ERROR(o.String("effect", &effect));
    absl::StatusOr<TaintEffect> e = ParseTaintEffect(effect);
    if (!e.ok()) return PathError(o.At("effect"), Message(e.status()));
    t.effect = *e;
    pod->tolerations.push_back(std::move(t));
    return absl::OkStatus();
  }));
  KARP_RETURN_IF_ERROR(spec.Objects("topologySpreadConstraints", [&](const R& o) -> absl::Status {
    TopologySpreadConstraint c;
    KARP_RETURN_IF_ERROR(ReadTopologySpread(o, &c));
    pod->topology_spread_constraints.push_back(std::move(c));
    return absl::OkStatus();
  }));
  KARP_RETURN_IF_ERROR(ReadContainers(spec, "containers", &pod->containers));
  KARP_RETURN_IF_ERROR(ReadContainers(spec, "initContainers", &pod->init_containers));
  KARP_RETURN_IF_ERROR(spec.Resources("overhead", &pod->overhead));
  KARP_ASSIGN_OR_RETURN(R res, spec.Object("resources"));
  KARP_RETURN_IF_ERROR(res.Resources("requests", &pod->pod_level_requests));
  KARP_RETURN_IF_ERROR(spec.Objects("resourceClaims", [&](const R& claim) -> absl::Status {
    std::string name;
    KARP_RETURN_IF_ERROR(claim.RequiredString("name", &name));
    pod->resource_claims.push_back(std::move(name));
    return absl::OkStatus();
  }));
  KARP_RETURN_IF_ERROR(spec.Int32("priority", &pod->priority));
  KARP_RETURN_IF_ERROR(spec.String("schedulerName", &pod->scheduler_name));
  KARP_RETURN_IF_ERROR(spec.Objects("volumes", [&](const R& v) -> absl::Status {
    // Volumes backed by a claim (docs/formats-storage.md); other kinds are not kept.
    PodVolume volume;
    KARP_RETURN_IF_ERROR(v.String("name", &volume.name));
    KARP_ASSIGN_OR_RETURN(R pvc, v.Object("persistentVolumeClaim"));
    KARP_ASSIGN_OR_RETURN(R ephemeral, v.Object("ephemeral"));
    if (pvc.present()) {
      KARP_RETURN_IF_ERROR(pvc.RequiredString("claimName", &volume.claim_name));
      if (volume.claim_name.empty()) return PathError(pvc.At("claimName"), "must not be empty");
    } else if (ephemeral.present()) {
      if (volume.name.empty()) return PathError(v.At("name"), "required for an ephemeral volume");
      volume.ephemeral = true;
    } else {
      return absl::OkStatus();
    }
    pod->volumes.push_back(std::move(volume));
    return absl::OkStatus();
  }));
  return absl::OkStatus();
}

// The API server's defaulting of pod-level resources (PodLevelResources, KEP-2837), applied
// to Pods (not to DaemonSet templates, as the reference's PodForDaemonSet): a cpu or memory
// limit without a pod-level request is the pod-level request when no container or init
// container requests that resource; otherwise the request defaults to the containers'
// effective requests, which is what Pod::Requests computes when no pod-level request is set.
template <typename R>
absl::Status DefaultPodLevelRequests(const R& spec, Pod* pod) {
  KARP_ASSIGN_OR_RETURN(R res, spec.Object("resources"));
  ResourceList limits;
  KARP_RETURN_IF_ERROR(res.Resources("limits", &limits));
  limits.ForEach([&](std::string_view name, int64_t value) {
    if (name != kResourceCpu && name != kResourceMemory) return;
    if (pod->pod_level_requests.Has(name)) return;
    auto requests_it = [&](const Container& c) { return c.requests.Has(name); };
    if (std::any_of(pod->containers.begin(), pod->containers.end(), requests_it) ||
        std::any_of(pod->init_containers.begin(), pod->init_containers.end(), requests_it)) {
      return;
    }
    pod->pod_level_requests.Set(name, value);
  });
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Kinds

template <typename R>
absl::Status ReadPod(const R& item, Pod* pod, bool* skip) {
  KARP_ASSIGN_OR_RETURN(R spec, item.Object("spec"));
  KARP_RETURN_IF_ERROR(spec.String("schedulerName", &pod->scheduler_name));
  if (!pod->scheduler_name.empty() && pod->scheduler_name != "default-scheduler") {
    *skip = true;
    return absl::OkStatus();
  }
  KARP_ASSIGN_OR_RETURN(R meta, item.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(meta, &pod->metadata));
  if (pod->metadata.namespace_.empty()) pod->metadata.namespace_ = "default";
  KARP_RETURN_IF_ERROR(ReadPodSpec(spec, pod));
  KARP_RETURN_IF_ERROR(DefaultPodLevelRequests(spec, pod));
  KARP_ASSIGN_OR_RETURN(R status, item.Object("status"));
  KARP_RETURN_IF_ERROR(status.String("phase", &pod->phase));
  KARP_RETURN_IF_ERROR(status.Time("startTime", &pod->start_time));
  return absl::OkStatus();
}

template <typename R>
absl::Status ReadNode(const R& item, Node* node) {
  KARP_ASSIGN_OR_RETURN(R meta, item.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(meta, &node->metadata));
  KARP_ASSIGN_OR_RETURN(R spec, item.Object("spec"));
  KARP_RETURN_IF_ERROR(ReadTaints(spec, "taints", &node->taints));
  KARP_RETURN_IF_ERROR(spec.Bool("unschedulable", &node->unschedulable));
  KARP_RETURN_IF_ERROR(spec.String("providerID", &node->provider_id));
  KARP_ASSIGN_OR_RETURN(R status, item.Object("status"));
  KARP_RETURN_IF_ERROR(status.Resources("capacity", &node->capacity));
  KARP_RETURN_IF_ERROR(status.Resources("allocatable", &node->allocatable));
  KARP_RETURN_IF_ERROR(ReadConditions(status, &node->conditions));
  return absl::OkStatus();
}

template <typename R>
absl::Status ReadBudget(const R& o, Budget* b) {
  if (const auto* nodes = o.Get("nodes"); nodes != nullptr) {
    KARP_ASSIGN_OR_RETURN(b->nodes, AsIntOrPercent(*nodes, o.At("nodes")));
  }
  KARP_RETURN_IF_ERROR(o.StringList("reasons", &b->reasons));
  KARP_RETURN_IF_ERROR(o.String("schedule", &b->schedule));
  KARP_RETURN_IF_ERROR(o.Duration("duration", &b->duration, /*allow_never=*/false));
  return absl::OkStatus();  // the rules are ValidateNodePool's
}

template <typename R>
absl::Status ReadNodePool(const R& item, NodePool* np) {
  KARP_ASSIGN_OR_RETURN(R meta, item.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(meta, &np->metadata));
  KARP_ASSIGN_OR_RETURN(R spec, item.Object("spec"));
  KARP_ASSIGN_OR_RETURN(R tmpl, spec.Object("template"));
  KARP_ASSIGN_OR_RETURN(R tmeta, tmpl.Object("metadata"));
  KARP_RETURN_IF_ERROR(tmeta.StringMap("labels", &np->template_labels));
  KARP_RETURN_IF_ERROR(tmeta.StringMap("annotations", &np->template_annotations));
  KARP_ASSIGN_OR_RETURN(R tspec, tmpl.Object("spec"));
  KARP_RETURN_IF_ERROR(ReadRequirements(tspec, RequirementOwner::kNodePool, &np->requirements));
  KARP_RETURN_IF_ERROR(ReadTaints(tspec, "taints", &np->taints));
  KARP_RETURN_IF_ERROR(ReadTaints(tspec, "startupTaints", &np->startup_taints));
  KARP_RETURN_IF_ERROR(ReadNodeClassRef(tspec, &np->node_class_ref));
  KARP_RETURN_IF_ERROR(tspec.Duration("expireAfter", &np->expire_after, /*allow_never=*/true));
  KARP_RETURN_IF_ERROR(tspec.Duration("terminationGracePeriod", &np->termination_grace_period,
                                      /*allow_never=*/false));
  KARP_ASSIGN_OR_RETURN(R disruption, spec.Object("disruption"));
  std::string policy;
  KARP_RETURN_IF_ERROR(disruption.String("consolidationPolicy", &policy));
  if (disruption.Get("consolidationPolicy") != nullptr) {
    bool found = false;
    for (ConsolidationPolicy p :
         {ConsolidationPolicy::kWhenEmpty, ConsolidationPolicy::kWhenEmptyOrUnderutilized,
          ConsolidationPolicy::kBalanced}) {
      if (ConsolidationPolicyName(p) == policy) {
        np->consolidation_policy = p;
        found = true;
      }
    }
    if (!found) {
      return PathError(disruption.At("consolidationPolicy"),
                       internal::StrCat("unsupported consolidationPolicy \"", policy,
                                        "\"; expected WhenEmpty, WhenEmptyOrUnderutilized or "
                                        "Balanced"));
    }
  }
  KARP_RETURN_IF_ERROR(
      disruption.Duration("consolidateAfter", &np->consolidate_after, /*allow_never=*/true));
  if (const auto* budgets = disruption.Get("budgets"); budgets != nullptr) {
    np->budgets.clear();
    KARP_RETURN_IF_ERROR(disruption.Objects("budgets", [&](const R& o) -> absl::Status {
      Budget b;
      KARP_RETURN_IF_ERROR(ReadBudget(o, &b));
      np->budgets.push_back(std::move(b));
      return absl::OkStatus();
    }));
  }
  KARP_RETURN_IF_ERROR(spec.Resources("limits", &np->limits));
  KARP_RETURN_IF_ERROR(spec.Int32("weight", &np->weight));
  KARP_RETURN_IF_ERROR(spec.Int64("replicas", &np->replicas));
  KARP_ASSIGN_OR_RETURN(R status, item.Object("status"));
  KARP_RETURN_IF_ERROR(ReadConditions(status, &np->conditions));
  return absl::OkStatus();
}

template <typename R>
absl::Status ReadNodeClaim(const R& item, NodeClaim* nc) {
  KARP_ASSIGN_OR_RETURN(R meta, item.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(meta, &nc->metadata));
  KARP_ASSIGN_OR_RETURN(R spec, item.Object("spec"));
  KARP_RETURN_IF_ERROR(ReadRequirements(spec, RequirementOwner::kNodeClaim, &nc->requirements));
  KARP_ASSIGN_OR_RETURN(R res, spec.Object("resources"));
  KARP_RETURN_IF_ERROR(res.Resources("requests", &nc->requests));
  KARP_RETURN_IF_ERROR(ReadTaints(spec, "taints", &nc->taints));
  KARP_RETURN_IF_ERROR(ReadTaints(spec, "startupTaints", &nc->startup_taints));
  KARP_RETURN_IF_ERROR(ReadNodeClassRef(spec, &nc->node_class_ref));
  KARP_RETURN_IF_ERROR(spec.Duration("expireAfter", &nc->expire_after, /*allow_never=*/true));
  KARP_RETURN_IF_ERROR(spec.Duration("terminationGracePeriod", &nc->termination_grace_period,
                                     /*allow_never=*/false));
  KARP_ASSIGN_OR_RETURN(R status, item.Object("status"));
  KARP_RETURN_IF_ERROR(status.String("nodeName", &nc->node_name));
  KARP_RETURN_IF_ERROR(status.String("providerID", &nc->provider_id));
  KARP_RETURN_IF_ERROR(status.String("imageID", &nc->image_id));
  KARP_RETURN_IF_ERROR(status.Resources("capacity", &nc->capacity));
  KARP_RETURN_IF_ERROR(status.Resources("allocatable", &nc->allocatable));
  KARP_RETURN_IF_ERROR(ReadConditions(status, &nc->conditions));
  KARP_RETURN_IF_ERROR(status.Time("lastPodEventTime", &nc->last_pod_event_time));
  return absl::OkStatus();
}

// A pod template: its metadata and pod spec, in namespace `ns`.
template <typename R>
absl::Status ReadPodTemplateAs(const R& tmpl, const std::string& ns, Pod* pod) {
  KARP_ASSIGN_OR_RETURN(R tmeta, tmpl.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(tmeta, &pod->metadata));
  pod->metadata.namespace_ = ns;
  KARP_ASSIGN_OR_RETURN(R tspec, tmpl.Object("spec"));
  return ReadPodSpec(tspec, pod);
}

}  // namespace

namespace codec_internal {

absl::Status ReadPodTemplate(const FieldReader& tmpl, const std::string& ns, Pod* pod) {
  KARP_RETURN_IF_ERROR(ReadPodTemplateAs(tmpl, ns, pod));
  // Pods created from the template are defaulted as any pod (DaemonSet templates are not:
  // the reference merges only container limits for them).
  KARP_ASSIGN_OR_RETURN(FieldReader tspec, tmpl.Object("spec"));
  return DefaultPodLevelRequests(tspec, pod);
}

}  // namespace codec_internal

namespace {

template <typename R>
absl::Status ReadDaemonSet(const R& item, DaemonSet* ds) {
  KARP_ASSIGN_OR_RETURN(R meta, item.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(meta, &ds->metadata));
  if (ds->metadata.namespace_.empty()) ds->metadata.namespace_ = "default";
  KARP_ASSIGN_OR_RETURN(R spec, item.Object("spec"));
  KARP_ASSIGN_OR_RETURN(R tmpl, spec.Object("template"));
  return ReadPodTemplateAs(tmpl, ds->metadata.namespace_, &ds->pod_template);
}

template <typename R>
absl::Status ReadPdb(const R& item, PodDisruptionBudget* pdb) {
  KARP_ASSIGN_OR_RETURN(R meta, item.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(meta, &pdb->metadata));
  if (pdb->metadata.namespace_.empty()) pdb->metadata.namespace_ = "default";
  KARP_ASSIGN_OR_RETURN(R spec, item.Object("spec"));
  KARP_RETURN_IF_ERROR(ReadLabelSelector(spec, "selector", &pdb->selector));
  if (const auto* v = spec.Get("minAvailable"); v != nullptr) {
    KARP_ASSIGN_OR_RETURN(pdb->min_available, AsIntOrPercent(*v, spec.At("minAvailable")));
  }
  if (const auto* v = spec.Get("maxUnavailable"); v != nullptr) {
    KARP_ASSIGN_OR_RETURN(pdb->max_unavailable, AsIntOrPercent(*v, spec.At("maxUnavailable")));
  }
  KARP_RETURN_IF_ERROR(
      spec.String("unhealthyPodEvictionPolicy", &pdb->unhealthy_pod_eviction_policy));
  KARP_ASSIGN_OR_RETURN(R status, item.Object("status"));
  KARP_RETURN_IF_ERROR(status.Int32("disruptionsAllowed", &pdb->disruptions_allowed));
  return absl::OkStatus();
}
}  // namespace

namespace codec_internal {

template <typename R>
absl::Status DecodeRequirements(const R& spec, RequirementOwner owner,
                                std::vector<NodeSelectorRequirement>* out) {
  return ReadRequirements(spec, owner, out);
}
template <typename R>
absl::Status DecodePod(const R& item, Pod* pod, bool* skip) {
  return ReadPod(item, pod, skip);
}
template <typename R>
absl::Status DecodeNode(const R& item, Node* node) {
  return ReadNode(item, node);
}
template <typename R>
absl::Status DecodeNodePool(const R& item, NodePool* np) {
  return ReadNodePool(item, np);
}
template <typename R>
absl::Status DecodeNodeClaim(const R& item, NodeClaim* nc) {
  return ReadNodeClaim(item, nc);
}
template <typename R>
absl::Status DecodeDaemonSet(const R& item, DaemonSet* ds) {
  return ReadDaemonSet(item, ds);
}
template <typename R>
absl::Status DecodePdb(const R& item, PodDisruptionBudget* pdb) {
  return ReadPdb(item, pdb);
}

absl::Status DecodeTopologySpread(const FieldReader& o, TopologySpreadConstraint* out) {
  return ReadTopologySpread(o, out);
}

#define KARP_INSTANTIATE_CORE_READERS(R)                                           \
  template absl::Status DecodeRequirements(const R&, RequirementOwner,             \
                                           std::vector<NodeSelectorRequirement>*); \
  template absl::Status DecodePod(const R&, Pod*, bool*);                          \
  template absl::Status DecodeNode(const R&, Node*);                               \
  template absl::Status DecodeNodePool(const R&, NodePool*);                       \
  template absl::Status DecodeNodeClaim(const R&, NodeClaim*);                     \
  template absl::Status DecodeDaemonSet(const R&, DaemonSet*);                     \
  template absl::Status DecodePdb(const R&, PodDisruptionBudget*);
KARP_INSTANTIATE_CORE_READERS(FieldReader)
KARP_INSTANTIATE_CORE_READERS(LiteFieldReader)
#undef KARP_INSTANTIATE_CORE_READERS

}  // namespace codec_internal

}  // namespace karp::json
