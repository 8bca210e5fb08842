// File: karp/objects.h
//
// Value types for the Kubernetes objects karp decides over: Pod, Node, NodePool
// (karpenter.sh/v1), NodeClaim (karpenter.sh/v1), DaemonSet, PodDisruptionBudget, and the
// pieces they share (object metadata, label selectors, affinity terms, topology spread
// constraints). Only the fields that change a decision are modelled (docs/formats.md §1). The
// storage kinds that pods' volumes refer to are in karp/storage.h.
//
// Defaults follow the Kubernetes and Karpenter APIs (docs/design.md §7): a NodePool without
// `expireAfter` expires after 720h, `consolidateAfter` defaults to 0s, budgets to
// [{nodes: "10%"}], consolidationPolicy to WhenEmptyOrUnderutilized.
//
// Durations that may be `Never` are std::optional<absl::Duration>: std::nullopt means Never.
//
// Example:
//   karp::Pod pod;
//   pod.metadata.name = "inflate-0";
//   pod.containers.push_back({.name = "pause", .requests = {{"cpu", 1000}}});
//   pod.Requests();  // {"cpu":"1","pods":"1"}
//
// Thread-safety: value types; thread-compatible.

#ifndef KARP_OBJECTS_H_
#define KARP_OBJECTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/taints.h"

namespace karp {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;

  friend bool operator==(const OwnerReference& a, const OwnerReference& b) {
    return a.api_version == b.api_version && a.kind == b.kind && a.name == b.name &&
           a.uid == b.uid && a.controller == b.controller;
  }
};

struct ObjectMeta {
  std::string name;
  std::string namespace_;  // empty for cluster-scoped objects; pods default to "default"
  std::string uid;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  absl::Time creation_timestamp = absl::UnixEpoch();
  std::optional<absl::Time> deletion_timestamp;
  std::vector<OwnerReference> owner_references;

  friend bool operator==(const ObjectMeta& a, const ObjectMeta& b) {
    return a.name == b.name && a.namespace_ == b.namespace_ && a.uid == b.uid &&
           a.labels == b.labels && a.annotations == b.annotations &&
           a.creation_timestamp == b.creation_timestamp &&
           a.deletion_timestamp == b.deletion_timestamp && a.owner_references == b.owner_references;
  }
};

// metav1.LabelSelector. An absent selector (std::nullopt where optional) selects nothing; an
// empty one selects everything.
struct LabelSelectorRequirement {
  std::string key;
  Operator op = Operator::kIn;  // In, NotIn, Exists or DoesNotExist
  std::vector<std::string> values;

  friend bool operator==(const LabelSelectorRequirement& a, const LabelSelectorRequirement& b) {
    return a.key == b.key && a.op == b.op && a.values == b.values;
  }
};

struct LabelSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  // True iff every matchLabels entry and every expression holds for `labels`.
  bool Matches(const std::map<std::string, std::string>& labels) const;
  bool empty() const { return match_labels.empty() && match_expressions.empty(); }

  friend bool operator==(const LabelSelector& a, const LabelSelector& b) {
    return a.match_labels == b.match_labels && a.match_expressions == b.match_expressions;
  }
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  bool has_match_fields = false;  // matchFields are not supported (pods using them are rejected)

  friend bool operator==(const NodeSelectorTerm& a, const NodeSelectorTerm& b) {
    return a.match_expressions == b.match_expressions && a.has_match_fields == b.has_match_fields;
  }
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;

  friend bool operator==(const PreferredSchedulingTerm& a, const PreferredSchedulingTerm& b) {
    return a.weight == b.weight && a.preference == b.preference;
  }
};

struct NodeAffinity {
  std::vector<NodeSelectorTerm> required;  // ORed terms
  std::vector<PreferredSchedulingTerm> preferred;

  friend bool operator==(const NodeAffinity& a, const NodeAffinity& b) {
    return a.required == b.required && a.preferred == b.preferred;
  }
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  std::optional<LabelSelector> namespace_selector;
  std::string topology_key;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;

  friend bool operator==(const PodAffinityTerm& a, const PodAffinityTerm& b) {
    return a.label_selector == b.label_selector && a.namespaces == b.namespaces &&
           a.namespace_selector == b.namespace_selector && a.topology_key == b.topology_key &&
           a.match_label_keys == b.match_label_keys &&
           a.mismatch_label_keys == b.mismatch_label_keys;
  }
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm term;

  friend bool operator==(const WeightedPodAffinityTerm& a, const WeightedPodAffinityTerm& b) {
    return a.weight == b.weight && a.term == b.term;
  }
};

// Used for both podAffinity and podAntiAffinity.
struct PodAffinityRules {
  std::vector<PodAffinityTerm> required;
  std::vector<WeightedPodAffinityTerm> preferred;

  bool empty() const { return required.empty() && preferred.empty(); }
  friend bool operator==(const PodAffinityRules& a, const PodAffinityRules& b) {
    return a.required == b.required && a.preferred == b.preferred;
  }
};

enum class WhenUnsatisfiable { kDoNotSchedule, kScheduleAnyway };
enum class NodeInclusionPolicy { kHonor, kIgnore };

struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  WhenUnsatisfiable when_unsatisfiable = WhenUnsatisfiable::kDoNotSchedule;
  std::optional<LabelSelector> label_selector;
  std::optional<int32_t> min_domains;
  NodeInclusionPolicy node_affinity_policy = NodeInclusionPolicy::kHonor;
  NodeInclusionPolicy node_taints_policy = NodeInclusionPolicy::kIgnore;
  std::vector<std::string> match_label_keys;

  friend bool operator==(const TopologySpreadConstraint& a, const TopologySpreadConstraint& b) {
    return a.max_skew == b.max_skew && a.topology_key == b.topology_key &&
           a.when_unsatisfiable == b.when_unsatisfiable && a.label_selector == b.label_selector &&
           a.min_domains == b.min_domains && a.node_affinity_policy == b.node_affinity_policy &&
           a.node_taints_policy == b.node_taints_policy && a.match_label_keys == b.match_label_keys;
  }
};

struct ContainerPort {
  int32_t container_port = 0;
  int32_t host_port = 0;  // 0: no host port
  std::string protocol = "TCP";
  std::string host_ip;  // empty: all addresses

  friend bool operator==(const ContainerPort& a, const ContainerPort& b) {
    return a.container_port == b.container_port && a.host_port == b.host_port &&
           a.protocol == b.protocol && a.host_ip == b.host_ip;
  }
};

struct Container {
  std::string name;
  // resources.requests, defaulted from resources.limits per resource as the API server does.
  ResourceList requests;
  // resources.limits: they decide nothing about placement, only what a LimitRange allows
  // (karp/limit_range.h).
  ResourceList limits;
  std::vector<ContainerPort> ports;
  // Init containers only: "Always" makes it a sidecar (restartable init container).
  std::string restart_policy;
  // resources.claims[].name: the pod's resource claims (dynamic resource allocation) this
  // container uses.
  std::vector<std::string> resource_claims;

  friend bool operator==(const Container& a, const Container& b) {
    return a.name == b.name && a.requests == b.requests && a.limits == b.limits &&
           a.ports == b.ports && a.restart_policy == b.restart_policy &&
           a.resource_claims == b.resource_claims;
  }
};

// A pod volume backed by a PersistentVolumeClaim: `persistentVolumeClaim.claimName`, or a
// generic ephemeral volume (`ephemeral`), whose claim is named `<pod name>-<volume name>`.
// Volumes of other kinds (emptyDir, configMap, ...) do not change decisions and are not kept.
struct PodVolume {
  std::string name;        // spec.volumes[].name
  std::string claim_name;  // persistentVolumeClaim.claimName; empty for an ephemeral volume
  bool ephemeral = false;

  friend bool operator==(const PodVolume& a, const PodVolume& b) {
    return a.name == b.name && a.claim_name == b.claim_name && a.ephemeral == b.ephemeral;
  }
};

struct Pod {
  ObjectMeta metadata;
  // spec
  std::string node_name;
  std::map<std::string, std::string> node_selector;
  NodeAffinity node_affinity;
  PodAffinityRules pod_affinity;
  PodAffinityRules pod_anti_affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  ResourceList overhead;            // spec.overhead
  ResourceList pod_level_requests;  // spec.resources.requests (PodLevelResources)
  int32_t priority = 0;
  std::string scheduler_name;      // empty: default-scheduler
  std::vector<PodVolume> volumes;  // spec.volumes[] backed by a claim, in spec order
  // spec.resourceClaims[].name (dynamic resource allocation).
  std::vector<std::string> resource_claims;
  // status
  std::string phase;                     // Pending, Running, Succeeded, Failed, Unknown or empty
  std::optional<absl::Time> start_time;  // status.startTime

  // `namespace/name`.
  std::string Key() const;
  // Effective requests exactly as docs/design.md §2.1: regular containers summed, sidecars added,
  // init max, pod-level requests for cpu/memory replace the aggregate, overhead added, plus
  // `pods: 1`.
  ResourceList Requests() const;
  bool IsTerminal() const { return phase == "Succeeded" || phase == "Failed"; }
  bool IsTerminating() const { return metadata.deletion_timestamp.has_value(); }
  bool IsOwnedBy(std::string_view kind) const;
  bool IsDaemon() const { return IsOwnedBy("DaemonSet"); }
  // Not bound, not terminal, not terminating.
  bool IsPending() const { return node_name.empty() && !IsTerminal() && !IsTerminating(); }
  // The reference's HasDRARequirements: the pod references resource claims (spec.resourceClaims,
  // or resources.claims of a container or init container).
  bool HasResourceClaims() const;
  // The claim of `volume`: its claimName, or `<pod name>-<volume name>` when ephemeral.
  std::string ClaimName(const PodVolume& volume) const;

  friend bool operator==(const Pod& a, const Pod& b);
};

// Node requirements of a pod (docs/design.md §1.9). Full form (PreferencePolicy Respect):
// nodeSelector, then the heaviest preferred node-affinity term (stable by weight, first wins
// ties), then the first required term. Strict form: without the preferred term.
Requirements PodRequirements(const Pod& pod);
Requirements StrictPodRequirements(const Pod& pod);

// Host ports of the pod's regular containers (init and sidecar containers are ignored).
std::vector<ContainerPort> HostPorts(const Pod& pod);

struct NodeCondition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  absl::Time last_transition_time = absl::UnixEpoch();

  friend bool operator==(const NodeCondition& a, const NodeCondition& b) {
    return a.type == b.type && a.status == b.status && a.reason == b.reason &&
           a.message == b.message && a.last_transition_time == b.last_transition_time;
  }
};

struct Node {
  ObjectMeta metadata;
  std::vector<Taint> taints;
  bool unschedulable = false;
  std::string provider_id;
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;

  friend bool operator==(const Node& a, const Node& b) {
    return a.metadata == b.metadata && a.taints == b.taints && a.unschedulable == b.unschedulable &&
           a.provider_id == b.provider_id && a.capacity == b.capacity &&
           a.allocatable == b.allocatable && a.conditions == b.conditions;
  }
};

struct NodeClassRef {
  std::string group;
  std::string kind;
  std::string name;

  friend bool operator==(const NodeClassRef& a, const NodeClassRef& b) {
    return a.group == b.group && a.kind == b.kind && a.name == b.name;
  }
};

enum class ConsolidationPolicy { kWhenEmpty, kWhenEmptyOrUnderutilized, kBalanced };
std::string_view ConsolidationPolicyName(ConsolidationPolicy p);

// Disruption reasons a budget may be scoped to.
inline constexpr std::string_view kReasonEmpty = "Empty";
inline constexpr std::string_view kReasonDrifted = "Drifted";
inline constexpr std::string_view kReasonUnderutilized = "Underutilized";

struct Budget {
  std::string nodes = "10%";         // integer or 0%..100%
  std::vector<std::string> reasons;  // empty: all reasons
  std::string schedule;              // cron (UTC); empty: always active
  std::optional<absl::Duration> duration;

  friend bool operator==(const Budget& a, const Budget& b) {
    return a.nodes == b.nodes && a.reasons == b.reasons && a.schedule == b.schedule &&
           a.duration == b.duration;
  }
};

inline absl::Duration DefaultExpireAfter() { return absl::Hours(720); }

struct NodePool {
  ObjectMeta metadata;
  // spec.template.metadata
  std::map<std::string, std::string> template_labels;
  std::map<std::string, std::string> template_annotations;
  // spec.template.spec
  std::vector<NodeSelectorRequirement> requirements;
  std::vector<Taint> taints;
  std::vector<Taint> startup_taints;
  NodeClassRef node_class_ref;
  std::optional<absl::Duration> expire_after = DefaultExpireAfter();  // nullopt: Never
  std::optional<absl::Duration> termination_grace_period;             // nullopt: unset
  // spec.disruption
  ConsolidationPolicy consolidation_policy = ConsolidationPolicy::kWhenEmptyOrUnderutilized;
  std::optional<absl::Duration> consolidate_after = absl::ZeroDuration();  // nullopt: Never
  std::vector<Budget> budgets = {Budget{}};
  // spec.limits: absent resources are unlimited.
  ResourceList limits;
  std::optional<int32_t> weight;
  std::optional<int64_t> replicas;  // static NodePool when set
  // status.conditions, as the NodePool controller writes them.
  std::vector<NodeCondition> conditions;

  const std::string& name() const { return metadata.name; }
  // False when status.conditions holds a Ready condition whose status is not "True": the
  // reference provisions only from ready NodePools. A NodePool without a Ready condition (a
  // manifest as written, before a controller has seen it) counts as ready (docs/design.md §5.3).
  bool Ready() const;
  friend bool operator==(const NodePool& a, const NodePool& b);
};

struct NodeClaim {
  ObjectMeta metadata;
  // spec
  std::vector<NodeSelectorRequirement> requirements;
  ResourceList requests;
  std::vector<Taint> taints;
  std::vector<Taint> startup_taints;
  NodeClassRef node_class_ref;
  std::optional<absl::Duration> expire_after = DefaultExpireAfter();
  std::optional<absl::Duration> termination_grace_period;
  // status
  std::string node_name;
  std::string provider_id;
  std::string image_id;
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  std::optional<absl::Time> last_pod_event_time;

  // The NodePool named by the karpenter.sh/nodepool label, or "".
  std::string NodePoolName() const;
  // The condition of that type, or nullptr.
  const NodeCondition* Condition(std::string_view type) const;
  bool ConditionTrue(std::string_view type) const;

  friend bool operator==(const NodeClaim& a, const NodeClaim& b);
};

struct DaemonSet {
  ObjectMeta metadata;
  Pod pod_template;  // spec.template, as a pod (metadata.namespace = the DaemonSet's)

  friend bool operator==(const DaemonSet& a, const DaemonSet& b) {
    return a.metadata == b.metadata && a.pod_template == b.pod_template;
  }
};

// A Service (`v1`): only what selects pods matters to karp (kube-scheduler deduces default
// topology spread selectors from it, karp/topology_defaults.h).
struct Service {
  ObjectMeta metadata;  // namespaced
  // spec.selector: absent selects nothing; empty selects every pod of the namespace.
  std::optional<std::map<std::string, std::string>> selector;

  friend bool operator==(const Service& a, const Service& b) {
    return a.metadata == b.metadata && a.selector == b.selector;
  }
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;
  std::string min_available;    // int or percent; empty: unset
  std::string max_unavailable;  // int or percent; empty: unset
  std::string unhealthy_pod_eviction_policy;
  std::optional<int32_t> disruptions_allowed;  // status.disruptionsAllowed when present

  // Whether the PDB selects `pod`: the same namespace (empty = "default") and a selector that
  // matches the pod's labels (a PDB without a selector selects nothing).
  bool Selects(const Pod& pod) const;
  // The reference's fully blocking PDB (pkg/utils/pdb): maxUnavailable 0 or "0%", or
  // minAvailable "100%": it can never allow the eviction of a pod it selects.
  bool FullyBlocking() const;

  friend bool operator==(const PodDisruptionBudget& a, const PodDisruptionBudget& b) {
    return a.metadata == b.metadata && a.selector == b.selector &&
           a.min_available == b.min_available && a.max_unavailable == b.max_unavailable &&
           a.unhealthy_pod_eviction_policy == b.unhealthy_pod_eviction_policy &&
           a.disruptions_allowed == b.disruptions_allowed;
  }
};

// ---------------------------------------------------------------------------------------------
// Field validation of one object, as the Kubernetes API server and Karpenter's CRD schemas
// would accept it: required names, non-negative quantities, NodePool weight 1..100, budget
// `nodes` as an integer or 0%..100%, budget schedules as five-field cron or a macro (@daily,
// ...; not @every), budget durations in hours and minutes, valid NodePool and NodeClaim
// requirements, int-or-percent PDB fields. The JSON codec and ClusterSnapshot::Validate()
// (hence Scheduler::Create and Consolidator::Create) run the same functions, so a snapshot
// built in memory is held to exactly what a file is.
//
// Pod scheduling constraints (nodeSelector, node affinity) are *not* checked here: a pod the
// reference would ignore (restricted or hostname labels, matchFields, ...) is reported as a
// pod error by Scheduler::Solve and never stops the others (see docs/design.md).
//
// Errors: InvalidArgument `<field path>: <what>`, the path relative to the object in the
// field names of the Kubernetes JSON, e.g. `spec.weight: must be between 1 and 100, got 1000`.
[[nodiscard]] absl::Status ValidatePod(const Pod& pod);
[[nodiscard]] absl::Status ValidateNode(const Node& node);
[[nodiscard]] absl::Status ValidateNodePool(const NodePool& pool);
[[nodiscard]] absl::Status ValidateNodeClaim(const NodeClaim& claim);
[[nodiscard]] absl::Status ValidateDaemonSet(const DaemonSet& daemon_set);
[[nodiscard]] absl::Status ValidatePodDisruptionBudget(const PodDisruptionBudget& pdb);

// An IntOrString count as Kubernetes writes it: "3" or "25%" (0%..100% when
// `max_percent_100`). Errors: InvalidArgument naming the value.
struct IntOrPercent {
  int64_t value = 0;
  bool percent = false;
  // The count out of `total`: the integer, or ceil(percent * total / 100).
  int64_t Resolve(int64_t total) const;
};
[[nodiscard]] absl::StatusOr<IntOrPercent> ParseIntOrPercent(std::string_view text,
                                                             bool max_percent_100);

}  // namespace karp

#endif  // KARP_OBJECTS_H_
