// Field validation of single objects (see karp/objects.h): one set of rules for the JSON codec
// and for snapshots built in memory.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_split.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/workloads.h"
#include "model/cron.h"

namespace karp {
namespace {

using internal::StrCat;

absl::Status FieldError(std::string_view path, std::string_view what) {
  return absl::InvalidArgumentError(StrCat(path, ": ", what));
}

std::string Index(std::string_view base, size_t i) { return StrCat(base, "[", i, "]"); }

absl::Status RequireName(const ObjectMeta& meta) {
  if (meta.name.empty()) return FieldError("metadata.name", "required");
  return absl::OkStatus();
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

absl::Status ValidateContainers(const std::vector<Container>& containers, std::string_view path) {
  for (size_t i = 0; i < containers.size(); ++i) {
    const std::string base = Index(path, i);
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
        return FieldError(path, StrCat("duplicate container name \"", name, "\" (also ",
                                       it->second, ")"));
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
    return FieldError(path, StrCat("invalid schedule \"", schedule, "\": expected five cron "
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
      return FieldError(Index(StrCat(path, ".reasons"), i),
                        StrCat("unsupported reason \"", r,
                               "\"; expected Empty, Drifted or Underutilized"));
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
      return FieldError(path, StrCat("requirement key ", kLabelNodePool,
                                     " is restricted for NodePools"));
    }
    if (absl::Status s = ValidateMinValues(r, path); !s.ok()) return s;
    if (absl::Status s = ValidateRequirement(r); !s.ok()) return FieldError(path, internal::Message(s));
  }
  return absl::OkStatus();
}

absl::Status ValidateNodePoolDisruption(const NodePool& pool) {
  if (absl::Status s = NonNegativeDuration(pool.consolidate_after,
                                           "spec.disruption.consolidateAfter");
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
    return absl::InvalidArgumentError(StrCat(
        "invalid value \"", text, "\": expected a non-negative integer or a percentage"));
  }
  for (char c : digits) out.value = out.value * 10 + (c - '0');
  if (out.percent && max_percent_100 && out.value > 100) {
    return absl::InvalidArgumentError(
        StrCat("invalid value \"", text, "\": a percentage must be 0% to 100%"));
  }
  return out;
}

absl::Status ValidatePod(const Pod& pod) {
  if (absl::Status s = RequireName(pod.metadata); !s.ok()) return s;
  if (!pod.phase.empty() && pod.phase != "Pending" && pod.phase != "Running" &&
      pod.phase != "Succeeded" && pod.phase != "Failed" && pod.phase != "Unknown") {
    return FieldError("status.phase",
                      StrCat("unsupported phase \"", pod.phase,
                             "\"; expected Pending, Running, Succeeded, Failed or Unknown"));
  }
  return ValidatePodSpec(pod, "spec");
}

absl::Status ValidateNode(const Node& node) {
  if (absl::Status s = RequireName(node.metadata); !s.ok()) return s;
  if (absl::Status s = NonNegative(node.capacity, "status.capacity"); !s.ok()) return s;
  return NonNegative(node.allocatable, "status.allocatable");
}

absl::Status ValidateNodePool(const NodePool& pool) {
  if (absl::Status s = RequireName(pool.metadata); !s.ok()) return s;
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
  return absl::OkStatus();
}

absl::Status ValidateNodeClaim(const NodeClaim& claim) {
  if (absl::Status s = RequireName(claim.metadata); !s.ok()) return s;
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
  if (absl::Status s = RequireName(daemon_set.metadata); !s.ok()) return s;
  return ValidatePodSpec(daemon_set.pod_template, "spec.template.spec");
}

absl::Status ValidateWorkload(const Workload& w) {
  if (absl::Status s = RequireName(w.metadata); !s.ok()) return s;
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
    return FieldError(job + "completionMode",
                      StrCat("unsupported value \"", w.completion_mode,
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
  if (w.selector && !w.selector->Matches(w.pod_template.metadata.labels)) {
    return FieldError("spec.template.metadata.labels",
                      "do not match spec.selector (the API server rejects such a workload)");
  }
  return ValidatePodSpec(w.pod_template,
                         cron ? "spec.jobTemplate.spec.template.spec" : "spec.template.spec");
}

absl::Status ValidatePodDisruptionBudget(const PodDisruptionBudget& pdb) {
  if (absl::Status s = RequireName(pdb.metadata); !s.ok()) return s;
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
    return FieldError("spec.unhealthyPodEvictionPolicy",
                      StrCat("unsupported policy \"", policy,
                             "\"; expected IfHealthyBudget or AlwaysAllow"));
  }
  return absl::OkStatus();
}

}  // namespace karp
