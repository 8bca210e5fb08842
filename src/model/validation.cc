// Field validation of single objects (see karp/objects.h): one set of rules for the JSON codec
// and for snapshots built in memory.

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_split.h"
#include "internal/nearest_name.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/workloads.h"
#include "model/cron.h"
#include "model/resource_names.h"

namespace karp {
namespace {

using internal::StrCat;

absl::Status FieldError(std::string_view path, std::string_view what) {
  return absl::InvalidArgumentError(StrCat(path, ": ", what));
}

std::string Index(std::string_view base, size_t i) { return StrCat(base, "[", i, "]"); }

// The API server's messages (k8s.io/apimachinery/pkg/util/validation).
constexpr std::string_view kDns1123Subdomain =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1123Label =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";

// A ValidateQualifiedName message about a "label key" naming `what` instead.
std::string Renamed(std::string_view message, std::string_view what) {
  std::string out(message);
  if (size_t at = out.find("label key"); at != std::string::npos) out.replace(at, 9, what);
  return out;
}

absl::Status InvalidValue(std::string_view path, std::string_view value, std::string_view why) {
  return FieldError(path, StrCat("invalid value \"", value, "\": ", why));
}

// Label keys (qualified names) and values; annotation keys.
absl::Status ValidateLabelMap(const std::map<std::string, std::string>& labels,
                              std::string_view path) {
  for (const auto& [key, value] : labels) {
    if (absl::Status s = ValidateQualifiedName(key); !s.ok()) {
      return FieldError(path, internal::Message(s));
    }
    if (absl::Status s = ValidateLabelValue(value); !s.ok()) {
      return FieldError(StrCat(path, ".", key), internal::Message(s));
    }
  }
  return absl::OkStatus();
}

// What the API server checks of every object's metadata: a name (a DNS-1123 subdomain), a
// namespace (a DNS-1123 label) when `namespaced`, label keys and values, annotation keys.
absl::Status ValidateMeta(const ObjectMeta& meta, bool namespaced) {
  if (meta.name.empty()) return FieldError("metadata.name", "required");
  if (meta.name.size() > 253) {
    return InvalidValue("metadata.name", meta.name, "must be no more than 253 characters");
  }
  if (!IsDnsSubdomain(meta.name)) {
    return InvalidValue("metadata.name", meta.name, kDns1123Subdomain);
  }
  if (namespaced && !meta.namespace_.empty()) {
    if (meta.namespace_.size() > 63) {
      return InvalidValue("metadata.namespace", meta.namespace_,
                          "must be no more than 63 characters");
    }
    if (!IsDnsLabel(meta.namespace_)) {
      return InvalidValue("metadata.namespace", meta.namespace_, kDns1123Label);
    }
  }
  if (absl::Status s = ValidateLabelMap(meta.labels, "metadata.labels"); !s.ok()) return s;
  for (const auto& [key, value] : meta.annotations) {
    if (absl::Status s = ValidateQualifiedName(key); !s.ok()) {
      return FieldError("metadata.annotations", Renamed(internal::Message(s), "annotation key"));
    }
  }
  return absl::OkStatus();
}

// Resource names a container may request: the standard ones or a fully qualified extended
// resource (the API server's "must be a standard resource for containers").
absl::Status ValidateContainerResourceNames(const ResourceList& list, std::string_view path) {
  absl::Status out;
  list.ForEach([&](std::string_view name, int64_t) {
    if (!out.ok()) return;
    if (IsContainerResourceName(name)) return;
    std::string what =
        "must be a standard resource for containers (cpu, memory, "
        "ephemeral-storage, hugepages-<size>) or fully qualified (example.com/name)";
    if (std::string_view near = internal::NearestName(name, {"cpu", "memory", "ephemeral-storage"});
        !near.empty()) {
      what += StrCat("; did you mean ", near, "?");
    }
    out = FieldError(StrCat(path, ".", name), what);
  });
  return out;
}

// Every quantity of `list` is >= 0.
absl::Status NonNegative(const ResourceList& list, std::string_view path) {
  absl::Status out;
  list.ForEach([&](std::string_view name, int64_t value) {
    if (out.ok() && value < 0) {
      out = FieldError(StrCat(path, ".", name), StrCat("must not be negative, got ", value));
    }
  });
  return out;
}

// Whether a container's fields pass without building any path (the common case): names of
// standard or qualified resources, non-negative quantities, host ports in range.
bool ContainerFine(const Container& c) {
  bool fine = true;
  auto check = [&](std::string_view name, int64_t value) {
    fine = fine && value >= 0 && IsContainerResourceName(name);
  };
  c.requests.ForEach(check);
  c.limits.ForEach(check);
  for (const ContainerPort& port : c.ports) {
    fine = fine && port.host_port >= 0 && port.host_port <= 65535;
  }
  return fine;
}

absl::Status ValidateContainers(const std::vector<Container>& containers, std::string_view path) {
  for (size_t i = 0; i < containers.size(); ++i) {
    if (ContainerFine(containers[i])) continue;
    // Something is wrong: find it, with its path.
    const std::string base = Index(path, i);
    if (absl::Status s = ValidateContainerResourceNames(containers[i].requests,
                                                        StrCat(base, ".resources.requests"));
        !s.ok()) {
      return s;
    }
    if (absl::Status s =
            ValidateContainerResourceNames(containers[i].limits, StrCat(base, ".resources.limits"));
        !s.ok()) {
      return s;
    }
    if (absl::Status s = NonNegative(containers[i].requests, StrCat(base, ".resources.requests"));
        !s.ok()) {
      return s;
    }
    if (absl::Status s = NonNegative(containers[i].limits, StrCat(base, ".resources.limits"));
        !s.ok()) {
      return s;
    }
    for (size_t j = 0; j < containers[i].ports.size(); ++j) {
      const ContainerPort& port = containers[i].ports[j];
      if (port.host_port < 0 || port.host_port > 65535) {
        return FieldError(StrCat(Index(StrCat(base, ".ports"), j), ".hostPort"),
                          StrCat("must be between 0 and 65535, got ", port.host_port));
      }
    }
  }
  return absl::OkStatus();
}

// Pod fields below `prefix` ("spec" for pods, "spec.template.spec" for DaemonSets).
absl::Status ValidatePodSpec(const Pod& pod, std::string_view prefix) {
  const std::string spec(prefix);
  if (absl::Status s = ValidateContainers(pod.containers, StrCat(spec, ".containers")); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateContainers(pod.init_containers, StrCat(spec, ".initContainers"));
      !s.ok()) {
    return s;
  }
  // Container names are unique across containers and init containers (the API server's
  // "Duplicate value"); unnamed containers, which it would refuse as well, are left to it.
  std::map<std::string_view, std::string> names;
  for (const auto& [list, field] : {std::pair{&pod.containers, ".containers"},
                                    std::pair{&pod.init_containers, ".initContainers"}}) {
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string& name = (*list)[i].name;
      if (name.empty()) continue;
      const std::string path = StrCat(Index(StrCat(spec, field), i), ".name");
      auto [it, inserted] = names.emplace(name, path);
      if (!inserted) {
        return FieldError(
            path, StrCat("duplicate container name \"", name, "\" (also ", it->second, ")"));
      }
    }
  }
  if (absl::Status s = NonNegative(pod.overhead, StrCat(spec, ".overhead")); !s.ok()) return s;
  if (absl::Status s = NonNegative(pod.pod_level_requests, StrCat(spec, ".resources.requests"));
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < pod.topology_spread_constraints.size(); ++i) {
    const TopologySpreadConstraint& c = pod.topology_spread_constraints[i];
    const std::string base = Index(StrCat(spec, ".topologySpreadConstraints"), i);
    if (c.max_skew < 1) {
      return FieldError(StrCat(base, ".maxSkew"), StrCat("must be at least 1, got ", c.max_skew));
    }
    if (c.min_domains && *c.min_domains < 1) {
      return FieldError(StrCat(base, ".minDomains"),
                        StrCat("must be at least 1, got ", *c.min_domains));
    }
    if (c.topology_key.empty()) return FieldError(StrCat(base, ".topologyKey"), "required");
  }
  return absl::OkStatus();
}

// Budget schedules follow the NodePool schema: a macro or five whitespace-separated fields.
absl::Status ValidateSchedule(const std::string& schedule, std::string_view path) {
  static constexpr std::string_view kMacros[] = {"@annually", "@yearly",   "@monthly", "@weekly",
                                                 "@daily",    "@midnight", "@hourly"};
  if (!schedule.empty() && schedule[0] == '@') {
    for (std::string_view m : kMacros) {
      if (schedule == m) return absl::OkStatus();
    }
    return FieldError(path, StrCat("invalid schedule \"", schedule,
                                   "\": expected five cron fields or one of @annually, @yearly, "
                                   "@monthly, @weekly, @daily, @midnight, @hourly"));
  }
  std::vector<absl::string_view> fields =
      absl::StrSplit(schedule, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (fields.size() != 5) {
    return FieldError(path, StrCat("invalid schedule \"", schedule,
                                   "\": expected five cron "
                                   "fields (minute hour day-of-month month day-of-week), got ",
                                   fields.size()));
  }
  absl::StatusOr<CronSchedule> cron = CronSchedule::Parse(schedule);
  if (!cron.ok()) return FieldError(path, internal::Message(cron.status()));
  return absl::OkStatus();
}

// Budget durations: the schema's ^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$, i.e. whole minutes.
absl::Status ValidateBudgetDuration(absl::Duration d, std::string_view path) {
  if (d < absl::ZeroDuration() || absl::Trunc(d, absl::Minutes(1)) != d) {
    return FieldError(path, StrCat("must be a whole number of minutes such as 30m or 1h30m, got ",
                                   absl::FormatDuration(d)));
  }
  return absl::OkStatus();
}

absl::Status ValidateBudget(const Budget& b, std::string_view path) {
  if (absl::StatusOr<IntOrPercent> n = ParseIntOrPercent(b.nodes, /*max_percent_100=*/true);
      !n.ok()) {
    return FieldError(StrCat(path, ".nodes"), internal::Message(n.status()));
  }
  for (size_t i = 0; i < b.reasons.size(); ++i) {
    const std::string& r = b.reasons[i];
    if (r != kReasonEmpty && r != kReasonDrifted && r != kReasonUnderutilized) {
      return FieldError(
          Index(StrCat(path, ".reasons"), i),
          StrCat("unsupported reason \"", r, "\"; expected Empty, Drifted or Underutilized"));
    }
  }
  if (b.schedule.empty() != !b.duration.has_value()) {
    return FieldError(path, "schedule and duration must be set together");
  }
  if (!b.schedule.empty()) {
    if (absl::Status s = ValidateSchedule(b.schedule, StrCat(path, ".schedule")); !s.ok()) return s;
    if (absl::Status s = ValidateBudgetDuration(*b.duration, StrCat(path, ".duration")); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status NonNegativeDuration(const std::optional<absl::Duration>& d, std::string_view path) {
  if (d && *d < absl::ZeroDuration()) {
    return FieldError(path, StrCat("must not be negative, got ", absl::FormatDuration(*d)));
  }
  return absl::OkStatus();
}

absl::Status ValidateMinValues(const NodeSelectorRequirement& r, std::string_view path) {
  if (r.min_values && (*r.min_values < 1 || *r.min_values > kMaxMinValues)) {
    return FieldError(path, StrCat("key ", r.key, ": minValues ", *r.min_values,
                                   " must be between 1 and ", kMaxMinValues));
  }
  return absl::OkStatus();
}

absl::Status ValidateNodePoolRequirements(const NodePool& pool) {
  for (size_t i = 0; i < pool.requirements.size(); ++i) {
    const NodeSelectorRequirement& r = pool.requirements[i];
    const std::string path = Index("spec.template.spec.requirements", i);
    if (r.key == kLabelNodePool) {
      return FieldError(path,
                        StrCat("requirement key ", kLabelNodePool, " is restricted for NodePools"));
    }
    if (absl::Status s = ValidateMinValues(r, path); !s.ok()) return s;
    if (absl::Status s = ValidateRequirement(r); !s.ok())
      return FieldError(path, internal::Message(s));
  }
  return absl::OkStatus();
}

absl::Status ValidateNodePoolDisruption(const NodePool& pool) {
  if (absl::Status s =
          NonNegativeDuration(pool.consolidate_after, "spec.disruption.consolidateAfter");
      !s.ok()) {
    return s;
  }
  if (pool.budgets.size() > 50) {
    return FieldError("spec.disruption.budgets",
                      StrCat("at most 50 budgets are allowed, got ", pool.budgets.size()));
  }
  for (size_t i = 0; i < pool.budgets.size(); ++i) {
    if (absl::Status s = ValidateBudget(pool.budgets[i], Index("spec.disruption.budgets", i));
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

int64_t IntOrPercent::Resolve(int64_t total) const {
  if (!percent) return value;
  return (value * total + 99) / 100;  // rounded up, as PDB maxUnavailable
}

absl::StatusOr<IntOrPercent> ParseIntOrPercent(std::string_view text, bool max_percent_100) {
  IntOrPercent out;
  std::string_view digits = text;
  if (!digits.empty() && digits.back() == '%') {
    out.percent = true;
    digits.remove_suffix(1);
  }
  bool ok = !digits.empty() && digits.size() <= 18;
  for (char c : digits) ok = ok && c >= '0' && c <= '9';
  if (!ok) {
    return absl::InvalidArgumentError(
        StrCat("invalid value \"", text, "\": expected a non-negative integer or a percentage"));
  }
  for (char c : digits) out.value = out.value * 10 + (c - '0');
  if (out.percent && max_percent_100 && out.value > 100) {
    return absl::InvalidArgumentError(
        StrCat("invalid value \"", text, "\": a percentage must be 0% to 100%"));
  }
  return out;
}

absl::Status ValidatePod(const Pod& pod) {
  if (absl::Status s = ValidateMeta(pod.metadata, true); !s.ok()) return s;
  if (!pod.phase.empty() && pod.phase != "Pending" && pod.phase != "Running" &&
      pod.phase != "Succeeded" && pod.phase != "Failed" && pod.phase != "Unknown") {
    return FieldError("status.phase",
                      StrCat("unsupported phase \"", pod.phase,
                             "\"; expected Pending, Running, Succeeded, Failed or Unknown"));
  }
  return ValidatePodSpec(pod, "spec");
}

absl::Status ValidateNode(const Node& node) {
  if (absl::Status s = ValidateMeta(node.metadata, false); !s.ok()) return s;
  if (absl::Status s = NonNegative(node.capacity, "status.capacity"); !s.ok()) return s;
  return NonNegative(node.allocatable, "status.allocatable");
}

// Taint keys are qualified names; values too, when set (the NodePool and NodeClaim CRDs'
// patterns).
absl::Status ValidateTaints(const std::vector<Taint>& taints, std::string_view path) {
  for (size_t i = 0; i < taints.size(); ++i) {
    const std::string base = Index(path, i);
    if (taints[i].key.empty()) return FieldError(StrCat(base, ".key"), "required");
    if (absl::Status s = ValidateQualifiedName(taints[i].key); !s.ok()) {
      return FieldError(StrCat(base, ".key"), Renamed(internal::Message(s), "taint key"));
    }
    if (!taints[i].value.empty() && !ValidateQualifiedName(taints[i].value).ok()) {
      return InvalidValue(StrCat(base, ".value"), taints[i].value,
                          "must match the taint value pattern of the NodePool schema (a label "
                          "value, optionally with a DNS-subdomain prefix and '/')");
    }
  }
  return absl::OkStatus();
}

// The CEL rules of the NodePool CRD on spec.template.metadata.labels, in its words.
absl::Status ValidateTemplateLabels(const std::map<std::string, std::string>& labels) {
  constexpr std::string_view kPath = "spec.template.metadata.labels";
  if (labels.size() > 100) {
    return FieldError(kPath, StrCat("must have at most 100 items, got ", labels.size()));
  }
  for (const auto& [key, value] : labels) {
    const std::string_view domain = std::string_view(key).substr(0, key.find('/'));
    // As the rule's `x.find("^([^/]+)").endsWith("karpenter.sh")`.
    constexpr std::string_view kSh = "karpenter.sh";
    const bool sh_domain =
        domain.size() >= kSh.size() && domain.substr(domain.size() - kSh.size()) == kSh;
    if (sh_domain && key != kLabelCapacityType && key != kLabelNodePool) {
      return FieldError(kPath, "label domain \"karpenter.sh\" is restricted");
    }
    if (key == kLabelNodePool) {
      return FieldError(kPath, "label \"karpenter.sh/nodepool\" is restricted");
    }
    if (key == kLabelHostname) {
      return FieldError(kPath, "label \"kubernetes.io/hostname\" is restricted");
    }
  }
  return ValidateLabelMap(labels, kPath);
}

// spec.template.spec.nodeClassRef: each field non-empty once the reference is given; the
// group has no '/'.
absl::Status ValidateNodeClassRef(const NodeClassRef& ref, std::string_view path) {
  if (ref.group.empty() && ref.kind.empty() && ref.name.empty()) return absl::OkStatus();
  if (ref.group.empty()) return FieldError(StrCat(path, ".group"), "group may not be empty");
  if (ref.group.find('/') != std::string::npos) {
    return InvalidValue(StrCat(path, ".group"), ref.group, "must not contain '/'");
  }
  if (ref.kind.empty()) return FieldError(StrCat(path, ".kind"), "kind may not be empty");
  if (ref.name.empty()) return FieldError(StrCat(path, ".name"), "name may not be empty");
  return absl::OkStatus();
}

absl::Status ValidateNodePool(const NodePool& pool) {
  if (absl::Status s = ValidateMeta(pool.metadata, false); !s.ok()) return s;
  if (absl::Status s = ValidateTemplateLabels(pool.template_labels); !s.ok()) return s;
  if (absl::Status s = ValidateTaints(pool.taints, "spec.template.spec.taints"); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateTaints(pool.startup_taints, "spec.template.spec.startupTaints");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateNodeClassRef(pool.node_class_ref, "spec.template.spec.nodeClassRef");
      !s.ok()) {
    return s;
  }

  if (absl::Status s = ValidateNodePoolRequirements(pool); !s.ok()) return s;
  if (absl::Status s = NonNegativeDuration(pool.expire_after, "spec.template.spec.expireAfter");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = NonNegativeDuration(pool.termination_grace_period,
                                           "spec.template.spec.terminationGracePeriod");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateNodePoolDisruption(pool); !s.ok()) return s;
  if (absl::Status s = NonNegative(pool.limits, "spec.limits"); !s.ok()) return s;
  if (pool.weight && (*pool.weight < 1 || *pool.weight > 100)) {
    return FieldError("spec.weight", StrCat("must be between 1 and 100, got ", *pool.weight));
  }
  if (pool.replicas && *pool.replicas < 0) {
    return FieldError("spec.replicas", StrCat("must be >= 0, got ", *pool.replicas));
  }
  if (pool.replicas) {
    // The static NodePool rules of the CRD.
    if (pool.weight) return FieldError("spec", "'weight' is not supported on static NodePools");
    bool other_limit = false;
    pool.limits.ForEach([&](std::string_view name, int64_t) { other_limit |= name != "nodes"; });
    if (other_limit) {
      return FieldError("spec", "only 'limits.nodes' is supported on static NodePools");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateNodeClaim(const NodeClaim& claim) {
  if (absl::Status s = ValidateMeta(claim.metadata, false); !s.ok()) return s;
  if (absl::Status s = ValidateTaints(claim.taints, "spec.taints"); !s.ok()) return s;
  if (absl::Status s = ValidateTaints(claim.startup_taints, "spec.startupTaints"); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateNodeClassRef(claim.node_class_ref, "spec.nodeClassRef"); !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < claim.requirements.size(); ++i) {
    const std::string path = Index("spec.requirements", i);
    if (absl::Status s = ValidateMinValues(claim.requirements[i], path); !s.ok()) return s;
    absl::StatusOr<Requirement> r = Requirement::Create(claim.requirements[i]);
    if (!r.ok()) return FieldError(path, internal::Message(r.status()));
  }
  if (absl::Status s = NonNegative(claim.requests, "spec.resources.requests"); !s.ok()) return s;
  if (absl::Status s = NonNegative(claim.capacity, "status.capacity"); !s.ok()) return s;
  return NonNegative(claim.allocatable, "status.allocatable");
}

absl::Status ValidateDaemonSet(const DaemonSet& daemon_set) {
  if (absl::Status s = ValidateMeta(daemon_set.metadata, true); !s.ok()) return s;
  if (absl::Status s = ValidateLabelMap(daemon_set.pod_template.metadata.labels,
                                        "spec.template.metadata.labels");
      !s.ok()) {
    return s;
  }
  return ValidatePodSpec(daemon_set.pod_template, "spec.template.spec");
}

absl::Status ValidateWorkload(const Workload& w) {
  if (absl::Status s = ValidateMeta(w.metadata, true); !s.ok()) return s;
  const bool cron = w.kind == WorkloadKind::kCronJob;
  auto at_least_zero = [&](const std::optional<int32_t>& v, std::string_view path) {
    if (!v || *v >= 0) return absl::OkStatus();
    return FieldError(path, StrCat("must be greater than or equal to 0, got ", *v));
  };
  const std::string job = cron ? "spec.jobTemplate.spec." : "spec.";
  if (absl::Status s = at_least_zero(w.replicas, "spec.replicas"); !s.ok()) return s;
  if (absl::Status s = at_least_zero(w.parallelism, job + "parallelism"); !s.ok()) return s;
  if (absl::Status s = at_least_zero(w.completions, job + "completions"); !s.ok()) return s;
  if (w.start_ordinal < 0) {
    return FieldError("spec.ordinals.start",
                      StrCat("must be greater than or equal to 0, got ", w.start_ordinal));
  }
  if (!w.completion_mode.empty() && w.completion_mode != "NonIndexed" &&
      w.completion_mode != "Indexed") {
    return FieldError(job + "completionMode", StrCat("unsupported value \"", w.completion_mode,
                                                     "\"; expected NonIndexed or Indexed"));
  }
  if (w.completion_mode == "Indexed" && !w.completions) {
    return FieldError(job + "completions", "required when completionMode is Indexed");
  }
  const bool apps = w.kind == WorkloadKind::kDeployment || w.kind == WorkloadKind::kReplicaSet ||
                    w.kind == WorkloadKind::kStatefulSet;
  if (apps && (!w.selector || w.selector->empty())) {
    return FieldError("spec.selector", "required (a non-empty label selector)");
  }
  const std::string template_labels =
      cron ? "spec.jobTemplate.spec.template.metadata.labels" : "spec.template.metadata.labels";
  if (absl::Status s = ValidateLabelMap(w.pod_template.metadata.labels, template_labels); !s.ok()) {
    return s;
  }
  if (w.selector && !w.selector->Matches(w.pod_template.metadata.labels)) {
    return FieldError("spec.template.metadata.labels",
                      "do not match spec.selector (the API server rejects such a workload)");
  }
  return ValidatePodSpec(w.pod_template,
                         cron ? "spec.jobTemplate.spec.template.spec" : "spec.template.spec");
}

absl::Status ValidatePodDisruptionBudget(const PodDisruptionBudget& pdb) {
  if (absl::Status s = ValidateMeta(pdb.metadata, true); !s.ok()) return s;
  if (!pdb.min_available.empty()) {
    absl::StatusOr<IntOrPercent> v = ParseIntOrPercent(pdb.min_available, false);
    if (!v.ok()) return FieldError("spec.minAvailable", internal::Message(v.status()));
  }
  if (!pdb.max_unavailable.empty()) {
    absl::StatusOr<IntOrPercent> v = ParseIntOrPercent(pdb.max_unavailable, false);
    if (!v.ok()) return FieldError("spec.maxUnavailable", internal::Message(v.status()));
  }
  const std::string& policy = pdb.unhealthy_pod_eviction_policy;
  if (!policy.empty() && policy != "IfHealthyBudget" && policy != "AlwaysAllow") {
    return FieldError(
        "spec.unhealthyPodEvictionPolicy",
        StrCat("unsupported policy \"", policy, "\"; expected IfHealthyBudget or AlwaysAllow"));
  }
  return absl::OkStatus();
}

bool IsContainerResourceName(std::string_view name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
         name.substr(0, 10) == "hugepages-" || name.find('/') != std::string_view::npos;
}

}  // namespace karp
