// karp::json decoding: Kubernetes objects (docs/formats.md §1) and catalogs (§2) from the
// nlohmann::json documents of document.h into karp's value types, with `<path>: <what>` errors.
// Encoding lives in writer.cc.
//
// Conventions:
//  - a field that is absent or JSON null keeps its default;
//  - a field of the wrong JSON type is an error naming the path and the expected type;
//  - enumerations (operators, effects, policies, phases) are parsed strictly;
//  - quantities go through karp::ParseQuantity (negative values rejected), NodePool
//    requirements and the node selectors of pending pods through karp::ValidateRequirement.

#include "karp/json/codec.h"
#include "karp/json/run.h"

#include <string.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/time/time.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_fields.h"
#include "json/convert_old_api.h"
#include "json/document.h"
#include "json/fast_json.h"
#include "json/field_reader.h"
#include "json/schema.h"

namespace karp::json {
namespace {

using codec_internal::AsInt64;
using codec_internal::Document;
using codec_internal::FieldReader;
using codec_internal::ForEachObject;
using codec_internal::IndexPath;
using codec_internal::JoinPath;
using codec_internal::Json;
using codec_internal::KubernetesObject;
using codec_internal::LiteFieldReader;
using codec_internal::LiteValue;
using codec_internal::LoadDocuments;
using codec_internal::LoadJsonStreamingItems;
using codec_internal::PathError;
using codec_internal::ReadMeta;
using codec_internal::ReadNodeSelectorTerm;
using codec_internal::ReadWholeFile;
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

enum class RequirementOwner { kNodePool, kNodeClaim, kPod };

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

// ---------------------------------------------------------------------------------------------
// Snapshot assembly

struct KindInfo {
  std::string_view kind;
  std::string_view api_version;
  bool core;  // read by SnapshotDecoder::CoreItem (by either reader)
};

constexpr KindInfo kKinds[] = {
    {"Pod", "v1", true},
    {"Node", "v1", true},
    {"NodePool", "karpenter.sh/v1", true},
    {"NodeClaim", "karpenter.sh/v1", true},
    {"DaemonSet", "apps/v1", true},
    {"PodDisruptionBudget", "policy/v1", true},
    // Storage kinds: decoded by codec_storage.cc.
    {"PersistentVolumeClaim", "v1", false},
    {"PersistentVolume", "v1", false},
    {"StorageClass", "storage.k8s.io/v1", false},
    {"CSINode", "storage.k8s.io/v1", false},
    // Workloads: codec_workloads.cc.
    {"Deployment", "apps/v1", false},
    {"ReplicaSet", "apps/v1", false},
    {"StatefulSet", "apps/v1", false},
    {"Job", "batch/v1", false},
    {"CronJob", "batch/v1", false},
    {"ReplicationController", "v1", false},
    // Namespace defaults: codec_limit_range.cc.
    {"LimitRange", "v1", false},
    // Node classes: codec_node_class.cc.
    {"EC2NodeClass", "karpenter.k8s.aws/v1", false},
};

// codec_internal::DescribeObject of an object read by either reader.
std::string Describe(const FieldReader& item, std::string_view kind, std::string_view api_version) {
  return codec_internal::DescribeObject(item, kind, api_version);
}
std::string Describe(const LiteFieldReader& item, std::string_view kind,
                     std::string_view api_version) {
  const Json object = codec_internal::ToJson(*item.value());
  return codec_internal::DescribeObject(FieldReader::Make(object, item.path()).value(), kind,
                                        api_version);
}

class SnapshotDecoder {
 public:
  explicit SnapshotDecoder(FieldValidation validation) : validation_(validation) {}

  absl::Status Document(const Json& v, const std::string& path) {
    Reserve(v);
    return ForEachObject(
        v, path, [&](const KubernetesObject& o) { return Item(o.item, o.kind, o.api_version); },
        &objects_seen_);
  }
  // Room for the Pods and Nodes of a List read item by item: `"kind": "Pod"` and
  // `"kind": "Node"` (with or without the space) are counted in its text. Only a guess, as for
  // Reserve: what is read does not depend on it.
  void ReserveFromText(std::string_view text) {
    size_t pods = 0;
    size_t nodes = 0;
    constexpr std::string_view kKind = "\"kind\":";
    // memmem: string_view::find would stop at every quote of the text.
    auto find = [&](size_t from) -> size_t {
      const void* hit = memmem(text.data() + from, text.size() - from, kKind.data(), kKind.size());
      return hit == nullptr ? std::string_view::npos
                            : static_cast<size_t>(static_cast<const char*>(hit) - text.data());
    };
    for (size_t at = find(0); at != std::string_view::npos; at = find(at + kKind.size())) {
      std::string_view rest = text.substr(at + kKind.size());
      if (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
      constexpr std::string_view kPod = "\"Pod\"", kNode = "\"Node\"";
      pods += rest.substr(0, kPod.size()) == kPod;
      nodes += rest.substr(0, kNode.size()) == kNode;
    }
    snap_.pods.reserve(snap_.pods.size() + pods);
    snap_.nodes.reserve(snap_.nodes.size() + nodes);
  }

  // One element of the items of a top-level List (streamed), at `path` (`items[i]`).
  absl::Status ListItem(const Json& v, const std::string& path) {
    return codec_internal::ForEachListItem(
        v, path, [&](const KubernetesObject& o) { return Item(o.item, o.kind, o.api_version); },
        &objects_seen_);
  }

  // An element of a List's items as the fast reader gives it: the kinds of CoreItem are read
  // in place, anything else (other kinds, Lists, errors in kind or apiVersion) as its
  // nlohmann value, by the same code as a whole document.
  absl::Status LiteListItem(const LiteValue& v, const std::string& path) {
    const LiteValue* kind = v.Find("kind");
    const LiteValue* api_version = v.Find("apiVersion");
    const bool simple = kind != nullptr && kind->is_string() &&
                        (api_version == nullptr || api_version->is_string()) &&
                        !IsListKind(kind->str()) &&
                        IsCoreItem(kind->str(), api_version ? api_version->str() : "");
    if (!simple) return ListItem(codec_internal::ToJson(v), path);
    ++objects_seen_;
    KARP_RETURN_IF_ERROR(CheckFields(v, kind->str(), api_version ? api_version->str() : "", path));
    KARP_ASSIGN_OR_RETURN(LiteFieldReader item, LiteFieldReader::Make(v, path));
    return CoreItem(item, std::string(kind->str()),
                    api_version ? std::string(api_version->str()) : std::string());
  }

  // The input the next documents come from (named in duplicate-object errors).
  void SetSource(std::string_view source) {
    source_ = std::string(source);
    sources_.push_back(source_);
  }

  // Decodes the v1 form of the older-API objects met so far (json/convert_old_api.h).
  absl::Status FinishConversions() {
    return codec_internal::DecodeConverted(
        old_api_, &snap_, [&](const codec_internal::ConvertedObject& c, const FieldReader& item) {
          SetSource(c.source);
          // Written by the conversion (its input had its own schema checked).
          converted_ = true;
          absl::Status s = Item(item, c.object.value("kind", ""), c.object.value("apiVersion", ""));
          converted_ = false;
          return s;
        });
  }
  ClusterSnapshot Take() {
    for (std::string& w : field_warnings_) snap_.warnings.push_back(std::move(w));
    if (unreported_fields_ > 0) {
      snap_.warnings.push_back(internal::StrCat("and ", unreported_fields_, " more unknown field",
                                                unreported_fields_ == 1 ? "" : "s", " (ignored)"));
    }
    field_warnings_.clear();
    unreported_fields_ = 0;
    return std::move(snap_);
  }
  // How many objects (of any kind, Lists included) the documents so far held.
  int64_t objects_seen() const { return objects_seen_; }

 private:
  // One object that is not a List.
  absl::Status Item(const FieldReader& item, const std::string& kind,
                    const std::string& api_version) {
    if (!converted_ && item.value() != nullptr) {
      KARP_RETURN_IF_ERROR(CheckFields(*item.value(), kind, api_version, item.path()));
    }
    if (codec_internal::IsOldApiObject(kind, api_version)) {
      return old_api_.Add(item, kind, api_version, source_);
    }
    const KindInfo* info = FindKind(kind);
    if (info == nullptr) {
      Skip(internal::StrCat(codec_internal::DescribeObject(item, kind, api_version),
                            " (not a kind karp reads)"));
      return absl::OkStatus();
    }
    if (!api_version.empty() && api_version != info->api_version) {
      return PathError(item.At("apiVersion"),
                       internal::StrCat("unsupported apiVersion \"", api_version, "\" for kind ",
                                        kind, " (expected ", info->api_version, ")"));
    }
    if (const codec_internal::StorageKind* sk = codec_internal::FindStorageKind(kind)) {
      const ObjectMeta* meta = nullptr;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeStorageObject(*sk, item, &snap_, &meta));
      // The storage decoders apply their field rules while reading (codec_storage.cc).
      return CheckUnique(item, sk->what, *meta, sk->namespaced, absl::OkStatus());
    }
    if (std::optional<WorkloadKind> wk = ParseWorkloadKind(kind)) {
      Workload w;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeWorkload(item, *wk, &w));
      KARP_RETURN_IF_ERROR(
          CheckUnique(item, absl::AsciiStrToLower(kind), w.metadata, true, ValidateWorkload(w)));
      snap_.workloads.push_back(std::move(w));
      return absl::OkStatus();
    }
    if (kind == "LimitRange") {
      LimitRange lr;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeLimitRange(item, &lr));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "limitrange", lr.metadata, true, absl::OkStatus()));
      snap_.limit_ranges.push_back(std::move(lr));
      return absl::OkStatus();
    }
    if (kind == "EC2NodeClass") {
      NodeClass nc;
      KARP_RETURN_IF_ERROR(codec_internal::DecodeNodeClass(item, kind, api_version, &nc));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "ec2nodeclass", nc.metadata, false, absl::OkStatus()));
      snap_.node_classes.push_back(std::move(nc));
      return absl::OkStatus();
    }
    return CoreItem(item, kind, api_version);
  }

  // The fields of an object of `kind` that its schema lacks, as validation_ says (an object
  // without apiVersion has its kind's).
  template <typename V>
  absl::Status CheckFields(const V& v, std::string_view kind, std::string_view api_version,
                           std::string_view path) {
    if (validation_ == FieldValidation::kIgnore) return absl::OkStatus();
    if (api_version.empty()) {
      const KindInfo* info = FindKind(kind);
      if (info == nullptr) return absl::OkStatus();
      api_version = info->api_version;
    }
    return codec_internal::CheckKnownFields(v, codec_internal::FindSchema(api_version, kind), path,
                                            validation_, source_, &field_warnings_,
                                            &unreported_fields_);
  }

  static const KindInfo* FindKind(std::string_view kind) {
    for (const KindInfo& k : kKinds) {
      if (k.kind == kind) return &k;
    }
    return nullptr;
  }

  // Whether `kind` may be a List's (the fast path leaves those to ForEachListItem).
  static bool IsListKind(std::string_view kind) {
    return kind.size() >= 4 && kind.substr(kind.size() - 4) == "List";
  }

  // Whether an object of `kind` and `api_version` is read by CoreItem.
  static bool IsCoreItem(std::string_view kind, std::string_view api_version) {
    const KindInfo* info = FindKind(kind);
    return info != nullptr && info->core && !codec_internal::IsOldApiObject(kind, api_version) &&
           (api_version.empty() || api_version == info->api_version);
  }

  // A Pod, Node, NodePool, NodeClaim, DaemonSet or PodDisruptionBudget.
  template <typename R>
  absl::Status CoreItem(const R& item, const std::string& kind, const std::string& api_version) {
    if (kind == "Pod") {
      return PodItem(item, kind, api_version);
    } else if (kind == "Node") {
      Node node;
      KARP_RETURN_IF_ERROR(ReadNode(item, &node));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "node", node.metadata, false, ValidateNode(node)));
      snap_.nodes.push_back(std::move(node));
    } else if (kind == "NodePool") {
      NodePool np;
      KARP_RETURN_IF_ERROR(ReadNodePool(item, &np));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "nodepool", np.metadata, false, ValidateNodePool(np)));
      snap_.node_pools.push_back(std::move(np));
    } else if (kind == "NodeClaim") {
      NodeClaim nc;
      KARP_RETURN_IF_ERROR(ReadNodeClaim(item, &nc));
      KARP_RETURN_IF_ERROR(
          CheckUnique(item, "nodeclaim", nc.metadata, false, ValidateNodeClaim(nc)));
      snap_.node_claims.push_back(std::move(nc));
    } else if (kind == "DaemonSet") {
      DaemonSet ds;
      KARP_RETURN_IF_ERROR(ReadDaemonSet(item, &ds));
      KARP_RETURN_IF_ERROR(
          CheckUnique(item, "daemonset", ds.metadata, true, ValidateDaemonSet(ds)));
      snap_.daemon_sets.push_back(std::move(ds));
    } else {
      PodDisruptionBudget pdb;
      KARP_RETURN_IF_ERROR(ReadPdb(item, &pdb));
      KARP_RETURN_IF_ERROR(CheckUnique(item, "poddisruptionbudget", pdb.metadata, true,
                                       ValidatePodDisruptionBudget(pdb)));
      snap_.pdbs.push_back(std::move(pdb));
    }
    return absl::OkStatus();
  }

  // Room for the Pods and Nodes of a List document (kubectl's output), so that the large
  // vectors are not moved as they grow. Only a guess: the items are checked as they are read.
  void Reserve(const Json& v) {
    if (!v.is_object()) return;
    auto items = v.find("items");
    if (items == v.end() || !items->is_array()) return;
    size_t pods = 0;
    size_t nodes = 0;
    for (const Json& item : *items) {
      if (!item.is_object()) continue;
      auto kind = item.find("kind");
      if (kind == item.end() || !kind->is_string()) continue;
      const std::string& k = kind->get_ref<const std::string&>();
      pods += k == "Pod";
      nodes += k == "Node";
    }
    snap_.pods.reserve(snap_.pods.size() + pods);
    snap_.nodes.reserve(snap_.nodes.size() + nodes);
  }

  // A Pod, read in place at the end of the snapshot's pods (a Pod is large to move).
  template <typename R>
  absl::Status PodItem(const R& item, const std::string& kind, const std::string& api_version) {
    Pod& pod = snap_.pods.emplace_back();
    bool skip = false;
    absl::Status s = ReadPod(item, &pod, &skip);
    if (s.ok() && skip) {
      Skip(internal::StrCat(Describe(item, kind, api_version), " (schedulerName \"",
                            pod.scheduler_name, "\" is not karp's)"));
    } else if (s.ok()) {
      s = CheckUnique(item, "pod", pod.metadata, true, ValidatePod(pod));
      if (s.ok()) return s;
    }
    snap_.pods.pop_back();
    return s;
  }

  // Names are required and unique per kind (per namespace for namespaced kinds), across every
  // file read by this decoder; then the object passes its model validator (karp/objects.h).
  template <typename R>
  absl::Status CheckUnique(const R& item, std::string_view what, const ObjectMeta& meta,
                           bool namespaced, const absl::Status& valid) {
    auto name_path = [&] { return JoinPath(item.At("metadata"), "name"); };
    if (meta.name.empty()) return PathError(name_path(), "required");
    if (!valid.ok()) return absl::InvalidArgumentError(JoinPath(item.path(), Message(valid)));
    std::string key = namespaced ? internal::StrCat(meta.namespace_, "/", meta.name) : meta.name;
    auto [it, inserted] =
        seen_.emplace(internal::StrCat(what, " ", key), Origin{sources_.size() - 1, item.path()});
    if (!inserted) {
      const std::string at = it->second.path.empty() ? "the top level" : it->second.path;
      const std::string& first = sources_[it->second.source];
      const std::string where = first == source_ ? at : internal::StrCat(at, " of ", first);
      return PathError(name_path(), internal::StrCat("duplicate ", what, " \"", key,
                                                     "\" (first defined at ", where, ")"));
    }
    return absl::OkStatus();
  }

  void Skip(std::string what) {
    ++snap_.skipped_objects;
    snap_.skipped.push_back(std::move(what));
  }

  struct Origin {
    size_t source;  // in sources_
    std::string path;
  };
  std::string source_;
  std::vector<std::string> sources_ = {""};  // every source set, in order; source_ is the last
  int64_t objects_seen_ = 0;
  FieldValidation validation_;
  bool converted_ = false;                   // decoding what the older-API conversion wrote
  std::vector<std::string> field_warnings_;  // unknown fields (kWarn), source first
  size_t unreported_fields_ = 0;             // beyond kMaxFieldWarnings
  ClusterSnapshot snap_;
  codec_internal::OldApiConverter old_api_;
  // "<kind> <key>" -> where it was first defined (only looked up: no order to keep)
  absl::flat_hash_map<std::string, Origin> seen_;
};

absl::Status WithSource(std::string_view source, const absl::Status& s) {
  return absl::Status(s.code(), internal::StrCat(source, ": ", Message(s)));
}

// The same status with control characters and invalid UTF-8 of the input escaped.
absl::Status Escaped(const absl::Status& s) {
  return absl::Status(s.code(), internal::EscapeForMessage(Message(s)));
}

// ---------------------------------------------------------------------------------------------
// Catalog

// The highest price per hour an offering may have.
constexpr double kMaxOfferingPrice = 1e6;

template <typename R>
absl::Status ReadInstanceType(const R& o, InstanceType* out) {
  std::string name;
  KARP_RETURN_IF_ERROR(o.RequiredString("name", &name));
  if (name.empty()) return PathError(o.At("name"), "must not be empty");
  std::map<std::string, std::string> labels;
  KARP_RETURN_IF_ERROR(o.StringMap("labels", &labels));
  // Derived from the name and the offerings (docs/formats.md §2).
  labels.erase(std::string(kLabelInstanceType));
  labels.erase(std::string(kLabelZone));
  labels.erase(std::string(kLabelCapacityType));
  ResourceList capacity;
  KARP_RETURN_IF_ERROR(o.Resources("capacity", &capacity));
  Overhead overhead;
  KARP_ASSIGN_OR_RETURN(R oh, o.Object("overhead"));
  KARP_RETURN_IF_ERROR(oh.Resources("kubeReserved", &overhead.kube_reserved));
  KARP_RETURN_IF_ERROR(oh.Resources("systemReserved", &overhead.system_reserved));
  KARP_RETURN_IF_ERROR(oh.Resources("evictionThreshold", &overhead.eviction_threshold));
  std::vector<Offering> offerings;
  absl::flat_hash_map<std::string, size_t> seen_offerings;  // key -> first index
  KARP_RETURN_IF_ERROR(o.Objects("offerings", [&](const R& f) -> absl::Status {
    Offering off;
    KARP_RETURN_IF_ERROR(f.RequiredString("zone", &off.zone));
    if (off.zone.empty()) return PathError(f.At("zone"), "must not be empty");
    KARP_RETURN_IF_ERROR(f.RequiredString("capacityType", &off.capacity_type));
    if (off.capacity_type != kCapacityTypeOnDemand && off.capacity_type != kCapacityTypeSpot &&
        off.capacity_type != kCapacityTypeReserved) {
      return PathError(f.At("capacityType"),
                       internal::StrCat("unsupported value \"", off.capacity_type,
                                        "\"; expected on-demand, spot or reserved"));
    }
    const auto* price = f.Get("price");
    if (price == nullptr) return PathError(f.At("price"), "required");
    if (!price->is_number()) return WrongType(f.At("price"), "a number", *price);
    off.price = price->template get<double>();
    // No instance costs a million an hour; larger prices are typos that would overflow sums.
    if (!std::isfinite(off.price) || off.price < 0 || off.price > kMaxOfferingPrice) {
      return PathError(f.At("price"), internal::StrCat("must be a number between 0 and ",
                                                       static_cast<int64_t>(kMaxOfferingPrice),
                                                       ", got ", off.price));
    }
    KARP_RETURN_IF_ERROR(f.Bool("available", &off.available));
    KARP_RETURN_IF_ERROR(f.Bool("priceEstimated", &off.price_estimated));
    KARP_RETURN_IF_ERROR(f.String("reservationId", &off.reservation_id));
    std::optional<int64_t> rc;
    KARP_RETURN_IF_ERROR(f.Int64("reservationCapacity", &rc));
    if (rc) {
      if (*rc < 0) return PathError(f.At("reservationCapacity"), "must be >= 0");
      off.reservation_capacity = *rc;
    }
    // One offering per zone, capacity type and reservation: two at different prices would
    // otherwise be merged silently.
    auto [first, inserted] = seen_offerings.emplace(
        internal::StrCat(off.zone, "\n", off.capacity_type, "\n", off.reservation_id),
        offerings.size());
    if (!inserted) {
      return PathError(f.path(), internal::StrCat("duplicate offering (zone ", off.zone,
                                                  ", capacity type ", off.capacity_type,
                                                  "; first at offerings[", first->second, "])"));
    }
    offerings.push_back(std::move(off));
    return absl::OkStatus();
  }));
  // Optional constraints beyond the single-valued labels (karp extension of docs/formats.md §2),
  // e.g. DoesNotExist for optional provider labels the type lacks.
  std::vector<NodeSelectorRequirement> extra_api;
  KARP_RETURN_IF_ERROR(ReadRequirements(o, RequirementOwner::kNodeClaim, &extra_api));
  absl::StatusOr<Requirements> extra = Requirements::FromApi(extra_api);
  if (!extra.ok()) {
    return PathError(o.At("requirements"), std::string(extra.status().message()));
  }
  *out = InstanceType::Make(std::move(name), std::move(labels), std::move(capacity),
                            std::move(overhead), std::move(offerings));
  if (!extra->empty()) out->RebuildRequirements(*extra);
  return absl::OkStatus();
}

// The instance types of a catalog document whose root is `root` (null: absent).
template <typename R>
absl::StatusOr<std::vector<InstanceType>> DecodeInstanceTypes(const R& root) {
  if (!root.present() || root.Get("instanceTypes") == nullptr) {
    return PathError(root.At("instanceTypes"), "required");
  }
  // karp's own format (docs/schemas/catalog.schema.json): always strict.
  KARP_RETURN_IF_ERROR(codec_internal::CheckKnownFields(
      *root.value(), codec_internal::FindSchema("", "karp.catalog"), root.path(),
      FieldValidation::kStrict, "", nullptr, nullptr));
  std::vector<InstanceType> types;
  std::map<std::string, std::string> seen;
  KARP_RETURN_IF_ERROR(root.Objects("instanceTypes", [&](const R& o) -> absl::Status {
    InstanceType it;
    KARP_RETURN_IF_ERROR(ReadInstanceType(o, &it));
    auto [pos, inserted] = seen.emplace(it.name, o.path());
    if (!inserted) {
      return PathError(o.At("name"), internal::StrCat("duplicate instance type \"", it.name,
                                                      "\" (first defined at ", pos->second, ")"));
    }
    types.push_back(std::move(it));
    return absl::OkStatus();
  }));
  return types;
}

absl::StatusOr<std::vector<InstanceType>> DecodeInstanceTypes(const std::vector<Document>& docs) {
  const Document* doc = nullptr;
  for (const Document& d : docs) {
    if (d.value.is_null()) continue;
    if (doc != nullptr) return PathError(d.path, "a catalog is a single document");
    doc = &d;
  }
  if (doc == nullptr) return PathError("", "empty catalog document");
  KARP_ASSIGN_OR_RETURN(FieldReader root, FieldReader::Make(doc->value, doc->path));
  return DecodeInstanceTypes(root);
}

// The fast path of DecodeInto for a JSON List: each item is decoded as soon as it is read, and
// dropped, instead of after the whole document is built (less memory, less allocation). Then
// the root is decoded (its items already done): its own errors come first, as when the items
// are read from the whole document, then the first item's error. Returns false, with
// `decoder` as it was, when this path does not apply (not a JSON object, declined by the fast
// reader, or an object with items that is not a List): DecodeInto then reads the document.
bool DecodeStreamed(SnapshotDecoder& decoder, std::string_view text, std::string_view source,
                    absl::Status* status) {
  std::optional<SnapshotDecoder> saved;  // the decoder before the first item
  absl::Status item_error;
  std::optional<Json> root = LoadJsonStreamingItems(text, [&](const LiteValue& item, size_t i) {
    if (!saved) {
      saved.emplace(decoder);
      decoder.SetSource(source);
      decoder.ReserveFromText(text);
    }
    if (item_error.ok()) item_error = decoder.LiteListItem(item, IndexPath("items", i));
  });
  if (!root || (saved && !codec_internal::MayBeList(*root))) {
    if (saved) decoder = *std::move(saved);
    return false;
  }
  const int64_t before = saved ? saved->objects_seen() : decoder.objects_seen();
  if (!saved) decoder.SetSource(source);
  *status = decoder.Document(*root, "");
  if (status->ok()) *status = item_error;
  if (!status->ok()) {
    *status = Escaped(WithSource(source, *status));
  } else if (decoder.objects_seen() == before) {
    *status = absl::InvalidArgumentError(
        internal::EscapeForMessage(internal::StrCat("no objects in ", source)));
  }
  return true;
}

// DecodeStreamed for a YAML List (one document): each item is decoded as soon as yaml-cpp's
// events complete it (codec_internal::LoadYamlStreamingItems), so the List is never held
// whole; errors come in the same order. Returns false, with `decoder` as it was, when this
// path does not apply; *docs then holds the documents when they were read (nothing was
// streamed: no List, or a JSON text), or is left empty for DecodeInto to read them again.
bool DecodeStreamedYaml(SnapshotDecoder& decoder, std::string_view text, std::string_view source,
                        std::optional<absl::StatusOr<std::vector<Document>>>* docs,
                        absl::Status* status) {
  std::optional<SnapshotDecoder> saved;  // the decoder before the first item
  absl::Status item_error;
  *docs = codec_internal::LoadYamlStreamingItems(text, source, [&](const Json& item, size_t i) {
    if (!saved) {
      saved.emplace(decoder);
      decoder.SetSource(source);
    }
    if (item_error.ok()) item_error = decoder.ListItem(item, IndexPath("items", i));
  });
  if (!saved) return false;
  std::optional<absl::StatusOr<std::vector<Document>>>& read = *docs;
  const bool ok = read.has_value() && read->ok();
  if (!ok || (*read)->size() != 1 || !codec_internal::MayBeList((**read)[0].value)) {
    decoder = *std::move(saved);
    if (ok) read.reset();  // read again, without the sink (an error stays: it is the same)
    return false;
  }
  const int64_t before = saved->objects_seen();
  *status = decoder.Document((**read)[0].value, "");
  if (status->ok()) *status = item_error;
  if (!status->ok()) {
    *status = Escaped(WithSource(source, *status));
  } else if (decoder.objects_seen() == before) {
    *status = absl::InvalidArgumentError(
        internal::EscapeForMessage(internal::StrCat("no objects in ", source)));
  }
  return true;
}

// Several YAML documents (`---`-separated manifests), each decoded as soon as it is read and
// dropped, so that they never are all held as trees of values at once. Returns false when
// the text is JSON or certainly one YAML document (the other paths read those). A syntax error
// anywhere is the error, before a decoding error, as when the documents are read whole.
bool DecodeYamlDocuments(SnapshotDecoder& decoder, std::string_view text, std::string_view source,
                         absl::Status* status) {
  if (codec_internal::IsJsonText(text) || !codec_internal::MayHoldSeveralYamlDocuments(text)) {
    return false;
  }
  decoder.SetSource(source);
  const int64_t before = decoder.objects_seen();
  absl::Status decoded;
  const absl::Status read = codec_internal::LoadYamlDocuments(
      text, source, [&](const Json& doc, const std::string& path) {
        if (decoded.ok()) decoded = decoder.Document(doc, path);
      });
  if (!read.ok()) {
    *status = Escaped(read);
  } else if (!decoded.ok()) {
    *status = Escaped(WithSource(source, decoded));
  } else if (decoder.objects_seen() == before) {
    *status = absl::InvalidArgumentError(
        internal::EscapeForMessage(internal::StrCat("no objects in ", source)));
  }
  return true;
}

// Decodes one input into `decoder`; errors carry the source, input text escaped.
absl::Status DecodeInto(SnapshotDecoder& decoder, std::string_view text, std::string_view source) {
  if (absl::Status s = codec_internal::CheckNoNulByte(text, source); !s.ok()) return Escaped(s);
  try {
    if (absl::Status s; DecodeStreamed(decoder, text, source, &s)) return s;
    if (absl::Status s; DecodeYamlDocuments(decoder, text, source, &s)) return s;
    std::optional<absl::StatusOr<std::vector<Document>>> read;
    if (absl::Status s; DecodeStreamedYaml(decoder, text, source, &read, &s)) return s;
    absl::StatusOr<std::vector<Document>> docs =
        read.has_value() ? *std::move(read) : LoadDocuments(text, source);
    if (!docs.ok()) return Escaped(docs.status());
    decoder.SetSource(source);
    const int64_t before = decoder.objects_seen();
    for (const Document& doc : *docs) {
      if (absl::Status s = decoder.Document(doc.value, doc.path); !s.ok()) {
        return Escaped(WithSource(source, s));
      }
    }
    // An input without any object is a mistake (an empty file or stdin), as for kubectl.
    if (decoder.objects_seen() == before) {
      return absl::InvalidArgumentError(
          internal::EscapeForMessage(internal::StrCat("no objects in ", source)));
    }
    return absl::OkStatus();
  } catch (const std::exception& e) {
    return Escaped(absl::InvalidArgumentError(internal::StrCat(source, ": ", e.what())));
  } catch (...) {
    return Escaped(absl::InvalidArgumentError(internal::StrCat(source, ": unreadable input")));
  }
}

// The converted older-API objects of `decoder`; errors escaped.
absl::Status FinishConversions(SnapshotDecoder& decoder) {
  try {
    if (absl::Status s = decoder.FinishConversions(); !s.ok()) return Escaped(s);
    return absl::OkStatus();
  } catch (const std::exception& e) {
    return Escaped(absl::InvalidArgumentError(e.what()));
  }
}

// The names of the first `kNamed` entries of `items`, then how many more.
std::string NamedList(const std::vector<std::string>& items) {
  constexpr size_t kNamed = 10;
  std::string text;
  for (size_t i = 0; i < items.size() && i < kNamed; ++i) {
    if (i > 0) text += ", ";
    text += items[i];
  }
  if (items.size() > kNamed) text += internal::StrCat(" and ", items.size() - kNamed, " more");
  return text;
}

// What the API server and the controllers do before a controller sees the objects: workloads
// become the pods their controllers create (or are listed as skipped), then pods not yet
// admitted get their namespace's LimitRange defaults (or are refused and listed as skipped).
absl::Status Admit(ClusterSnapshot* snap, const ReadOptions& options) {
  if (!options.expand_workloads) {
    for (const Workload& w : snap->workloads) {
      ++snap->skipped_objects;
      snap->skipped.push_back(internal::StrCat(WorkloadApiVersion(w.kind), " ",
                                               WorkloadKindName(w.kind), " ", w.Key(),
                                               " (workloads not expanded)"));
    }
  } else {
    absl::StatusOr<WorkloadExpansion> e = ExpandWorkloads(snap);
    if (!e.ok()) return Escaped(e.status());
    if (!e->created.empty()) {
      snap->notes.push_back(internal::StrCat("created ", e->pods_created,
                                             e->pods_created == 1 ? " pod" : " pods",
                                             " from workloads: ", NamedList(e->created)));
    }
    for (std::string& note : e->notes) snap->notes.push_back(std::move(note));
  }
  LimitRangeAdmission admitted = ApplyLimitRanges(snap);
  if (!admitted.defaulted.empty()) {
    snap->notes.push_back(internal::StrCat(
        "LimitRange defaults set for ", admitted.defaulted.size(), " pod",
        admitted.defaulted.size() == 1 ? ": " : "s: ", NamedList(admitted.defaulted)));
  }
  for (const RejectedPod& r : admitted.rejected) {
    ++snap->skipped_objects;
    snap->skipped.push_back(internal::StrCat("v1 Pod ", r.pod, " (rejected by LimitRange ",
                                             r.limit_range, ": ", r.reason, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ClusterSnapshot> ParseSnapshot(std::string_view text, std::string_view source,
                                              FieldValidation validation) {
  SnapshotDecoder decoder(validation);
  if (absl::Status s = DecodeInto(decoder, text, source); !s.ok()) return s;
  KARP_RETURN_IF_ERROR(FinishConversions(decoder));
  return decoder.Take();
}

absl::StatusOr<std::string> ReadFile(const std::string& path, const ReadOptions& options) {
  return ReadWholeFile(path, options);
}

absl::StatusOr<ClusterSnapshot> ReadSnapshotFiles(const std::vector<std::string>& paths,
                                                  const ReadOptions& options) {
  // One decoder for every file: each object is validated as it is read, and a name defined
  // twice is reported with both places (the merged snapshot needs no second validation).
  SnapshotDecoder decoder(options.validation);
  for (const std::string& path : paths) {
    KARP_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, options));
    KARP_RETURN_IF_ERROR(DecodeInto(decoder, text, path));
  }
  KARP_RETURN_IF_ERROR(FinishConversions(decoder));
  ClusterSnapshot snap = decoder.Take();
  KARP_RETURN_IF_ERROR(Admit(&snap, options));
  return snap;
}

absl::StatusOr<ClusterSnapshot> ParseSnapshotInputs(const std::vector<Input>& inputs,
                                                    const ReadOptions& options) {
  SnapshotDecoder decoder(options.validation);
  for (const Input& input : inputs) {
    KARP_RETURN_IF_ERROR(DecodeInto(decoder, input.text, input.source));
  }
  KARP_RETURN_IF_ERROR(FinishConversions(decoder));
  ClusterSnapshot snap = decoder.Take();
  KARP_RETURN_IF_ERROR(Admit(&snap, options));
  return snap;
}

absl::StatusOr<std::vector<InstanceType>> ParseInstanceTypes(std::string_view text,
                                                             std::string_view source) {
  if (absl::Status s = codec_internal::CheckNoNulByte(text, source); !s.ok()) return Escaped(s);
  try {
    absl::StatusOr<std::vector<InstanceType>> types;
    // A JSON object is read from the fast reader's values when it takes the text.
    bool object = false;
    const bool fast = codec_internal::FastParseJsonRoot(text, [&](const LiteValue& root) {
      object = root.is_object();
      if (object) types = DecodeInstanceTypes(LiteFieldReader::Make(root, "").value());
    });
    if (!fast || !object) {
      absl::StatusOr<std::vector<Document>> docs = LoadDocuments(text, source);
      if (!docs.ok()) return Escaped(docs.status());
      types = DecodeInstanceTypes(*docs);
    }
    if (!types.ok()) return Escaped(WithSource(source, types.status()));
    return types;
  } catch (const std::exception& e) {
    return Escaped(absl::InvalidArgumentError(internal::StrCat(source, ": ", e.what())));
  } catch (...) {
    return Escaped(absl::InvalidArgumentError(internal::StrCat(source, ": unreadable input")));
  }
}

absl::StatusOr<InstanceCatalog> ParseCatalog(std::string_view text, std::string_view source) {
  KARP_ASSIGN_OR_RETURN(std::vector<InstanceType> types, ParseInstanceTypes(text, source));
  absl::StatusOr<InstanceCatalog> catalog = InstanceCatalog::Create(std::move(types));
  if (!catalog.ok()) return Escaped(WithSource(source, catalog.status()));
  return catalog;
}

absl::StatusOr<InstanceCatalog> ReadCatalogFile(const std::string& path,
                                                const ReadOptions& options) {
  KARP_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, options));
  return ParseCatalog(text, path);
}

}  // namespace karp::json
