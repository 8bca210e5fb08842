// Scheduler::Solve with the reference semantics (semantics §5). See karp/scheduler.h.

#include "karp/scheduler.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <tuple>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "scheduling/scheduler_internal.h"
#include "scheduling/topology.h"

namespace karp {

using scheduling::DaemonGroup;
using scheduling::ExistingNodeInit;
using scheduling::Template;

namespace {

constexpr std::string_view kMinValuesRelaxedTrue = "true";

// ---------------------------------------------------------------------------------------------
// Small helpers

bool HostPortsConflict(const std::vector<ContainerPort>& a, const std::vector<ContainerPort>& b) {
  for (const ContainerPort& x : a) {
    for (const ContainerPort& y : b) {
      if (x.host_port != y.host_port || x.protocol != y.protocol) continue;
      const bool x_any = x.host_ip.empty() || x.host_ip == "0.0.0.0";
      const bool y_any = y.host_ip.empty() || y.host_ip == "0.0.0.0";
      if (x_any || y_any || x.host_ip == y.host_ip) return true;
    }
  }
  return false;
}

std::string NodeClassKey(const NodeClassRef& ref) {
  std::string kind = ref.kind;
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return internal::StrCat(ref.group, "/", kind);
}

bool HasPreferNoScheduleToleration(const Pod& pod) {
  for (const Toleration& t : pod.tolerations) {
    if (t.op == TolerationOperator::kExists && t.effect == TaintEffect::kPreferNoSchedule &&
        t.key.empty()) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool scheduling::DaemonCompatible(const Pod& ds, const Requirements& template_reqs,
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

namespace {

// Per-pod working data (karpenter PodData), recomputed after each relaxation.
struct PodCtx {
  const Pod* original = nullptr;
  Pod working;
  scheduling::Topology::RecordCache record_cache;  // inverse groups it owns (per pod)
  // Pods with the same namespace and labels are selected by the same topology groups; they
  // share one RecordCache for that part (index into Solver::label_caches_).
  size_t label_class = 0;
  ResourceList requests;
  Requirements requirements;  // full (Respect) or strict (Ignore)
  Requirements strict;
  std::vector<ContainerPort> ports;
  std::string key;
  // Topology groups of this attempt (refreshed before each Add).
  scheduling::Topology::PodGroups groups;
  // Volume topology and claims (semantics §5.13); null for pods whose volumes change nothing.
  std::shared_ptr<const scheduling::PodVolumes> volumes;
};

void Refresh(PodCtx& c, PreferencePolicy policy) {
  c.requests = c.working.Requests();
  c.strict = StrictPodRequirements(c.working);
  c.requirements = policy == PreferencePolicy::kRespect ? PodRequirements(c.working) : c.strict;
  c.ports = HostPorts(c.working);
}

// One relaxation step (semantics §5.7). Returns false when nothing could be relaxed.
bool Relax(Pod& pod, bool tolerate_prefer_no_schedule) {
  if (pod.node_affinity.required.size() >= 2) {
    pod.node_affinity.required.erase(pod.node_affinity.required.begin());
    return true;
  }
  auto drop_heaviest = [](auto& terms) {
    if (terms.empty()) return false;
    std::stable_sort(terms.begin(), terms.end(),
                     [](const auto& a, const auto& b) { return a.weight > b.weight; });
    terms.erase(terms.begin());
    return true;
  };
  if (drop_heaviest(pod.pod_affinity.preferred)) return true;
  if (drop_heaviest(pod.pod_anti_affinity.preferred)) return true;
  if (drop_heaviest(pod.node_affinity.preferred)) return true;
  for (auto it = pod.topology_spread_constraints.begin();
       it != pod.topology_spread_constraints.end(); ++it) {
    if (it->when_unsatisfiable == WhenUnsatisfiable::kScheduleAnyway) {
      pod.topology_spread_constraints.erase(it);
      return true;
    }
  }
  if (tolerate_prefer_no_schedule && !HasPreferNoScheduleToleration(pod)) {
    pod.tolerations.push_back({"", TolerationOperator::kExists, "", TaintEffect::kPreferNoSchedule});
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Instance-type filtering (semantics §5.10)

struct FilterOutcome {
  std::vector<int> kept;
  bool relaxed_min_values = false;
  absl::Status error;  // set when kept is empty or minValues fails
};

std::string MinValuesError(const std::vector<const InstanceType*>& types, const Requirements& reqs) {
  absl::StatusOr<size_t> r = SatisfiesMinValues(types, reqs);
  return r.ok() ? std::string() : std::string(r.status().message());
}

FilterOutcome FilterInstanceTypes(const Template& t, const std::vector<int>& candidates,
                                  Requirements& reqs, const ResourceList& requests,
                                  const std::vector<ContainerPort>& pod_ports,
                                  const std::vector<ContainerPort>& claim_ports,
                                  bool relax_min_values) {
  FilterOutcome out;
  bool req_met = false, fits_any = false, offering_any = false;
  bool req_and_fits = false, req_and_offering = false, fits_and_offering = false;
  std::vector<char> group_conflict(t.daemon_groups.size(), 2);  // 2: unknown
  ResourceList min_overhead, max_overhead;
  bool overhead_seen = false;
  for (int i : candidates) {
    const int g = t.daemon_group[static_cast<size_t>(i)];
    const DaemonGroup& group = t.daemon_groups[static_cast<size_t>(g)];
    char& conflict = group_conflict[static_cast<size_t>(g)];
    if (conflict == 2) {
      conflict = (HostPortsConflict(pod_ports, group.ports) ||
                  HostPortsConflict(pod_ports, claim_ports))
                     ? 1
                     : 0;
    }
    if (conflict == 1) continue;
    if (!overhead_seen) {
      min_overhead = group.overhead;
      max_overhead = group.overhead;
      overhead_seen = true;
    } else {
      min_overhead.MinWith(group.overhead);
      max_overhead.MaxWith(group.overhead);
    }
    const InstanceType* it = t.instance_types[static_cast<size_t>(i)];
    const bool compat = it->requirements.DoesIntersect(reqs);
    bool has_offering = false;
    for (const Offering& o : it->offerings) {
      if (o.available && OfferingCompatible(reqs, o)) {
        has_offering = true;
        break;
      }
    }
    ResourceList total = requests;
    total.Add(group.overhead);
    const bool fits = has_offering && Fits(total, t.allocatable[static_cast<size_t>(i)]);
    req_met |= compat;
    fits_any |= fits;
    offering_any |= has_offering;
    req_and_fits |= compat && fits && !has_offering;
    req_and_offering |= compat && has_offering && !fits;
    fits_and_offering |= fits && has_offering && !compat;
    if (compat && fits && has_offering) out.kept.push_back(i);
  }
  // minValues (semantics §1.10).
  std::string min_values_error;
  if (!out.kept.empty() && reqs.HasMinValues()) {
    std::vector<const InstanceType*> types;
    for (int i : out.kept) types.push_back(t.instance_types[static_cast<size_t>(i)]);
    min_values_error = MinValuesError(types, reqs);
    if (!min_values_error.empty()) {
      if (relax_min_values) {
        // Lower each unsatisfiable key's minValues to the count achieved.
        for (const Requirement& r : Requirements(reqs)) {
          if (!r.min_values()) continue;
          std::set<std::string> values;
          for (const InstanceType* it : types) {
            const Requirement* v = it->requirements.Find(r.key());
            if (v != nullptr && !v->complement()) values.insert(v->values().begin(), v->values().end());
          }
          if (static_cast<int>(values.size()) < *r.min_values()) {
            Requirement lowered = r;
            lowered.set_min_values(static_cast<int>(values.size()));
            reqs.Set(lowered);
            out.relaxed_min_values = true;
          }
        }
        min_values_error.clear();
      } else {
        out.kept.clear();
      }
    }
  }
  if (!out.kept.empty()) return out;

  std::string prefix;
  if (!min_values_error.empty()) {
    prefix = min_values_error;
  } else if (!req_met && !fits_any && !offering_any) {
    prefix = "no instance type met the scheduling requirements or had enough resources or had a "
             "required offering";
  } else if (!req_met && !fits_any) {
    prefix = "no instance type met the scheduling requirements or had enough resources";
  } else if (!req_met && !offering_any) {
    prefix = "no instance type met the scheduling requirements or had a required offering";
  } else if (!fits_any && !offering_any) {
    prefix = "no instance type had enough resources or had a required offering";
  } else if (!req_met) {
    prefix = "no instance type met all requirements";
  } else if (!fits_any) {
    prefix = "no instance type has enough resources";
    if (requests.cpu() >= 1000000LL * 1000) prefix += " (CPU request >= 1 Million, m vs M typo?)";
  } else if (!offering_any) {
    prefix = "no instance type has the required offering";
  } else if (req_and_fits) {
    prefix = "no instance type which met the scheduling requirements and had enough resources, "
             "had a required offering";
  } else if (fits_and_offering) {
    prefix = "no instance type which had enough resources and the required offering met the "
             "scheduling requirements";
  } else if (req_and_offering) {
    prefix = "no instance type which met the scheduling requirements and the required offering "
             "had the required resources";
  } else {
    prefix = "no instance type met the requirements/resources/offering tuple";
  }
  std::string resources;
  if (!overhead_seen || min_overhead == max_overhead) {
    ResourceList total = requests;
    if (overhead_seen) total.Add(min_overhead);
    resources = total.ToString();
  } else {
    ResourceList lo = requests, hi = requests;
    lo.Add(min_overhead);
    hi.Add(max_overhead);
    resources = internal::StrCat("min=", lo.ToString(), ", max=", hi.ToString());
  }
  out.error = absl::FailedPreconditionError(internal::StrCat(
      prefix, ", requirements=", reqs.ToString(), ", resources=", resources));
  return out;
}

}  // namespace
}  // namespace karp

std::vector<char> karp::scheduling::Template::OfferingMask(const Requirements& reqs) const {
  std::vector<char> mask(offering_keys.size(), 0);
  const Requirement* zone = reqs.Find(kLabelZone);
  const Requirement* ct = reqs.Find(kLabelCapacityType);
  for (size_t k = 0; k < offering_keys.size(); ++k) {
    mask[k] = (zone == nullptr || zone->Has(offering_keys[k].first)) &&
              (ct == nullptr || ct->Has(offering_keys[k].second));
  }
  return mask;
}

namespace karp {
namespace {

// True if instance type i of `t` has an available offering allowed by `mask`.
bool HasOffering(const Template& t, size_t i, const std::vector<char>& mask) {
  const InstanceType* it = t.instance_types[i];
  const std::vector<int>& keys = t.offering_key_of[i];
  for (size_t o = 0; o < keys.size(); ++o) {
    if (it->offerings[o].available && mask[static_cast<size_t>(keys[o])]) return true;
  }
  return false;
}

// Narrows a claim's requirements (`base`, or `*merged` once copied) by one volume topology
// alternative, noting the keys that changed for the filter. The alternative constrains the
// claim, never the pod. Kept out of line: pods without volumes never get here.
ABSL_ATTRIBUTE_NOINLINE absl::Status AddVolumeRequirements(
    const Requirements& base, const Requirements& volume_reqs, const LabelSet& well_known,
    bool explain, std::optional<Requirements>* merged, std::vector<std::string>* changed) {
  const Requirements& current = *merged ? **merged : base;
  if (!current.IsCompatible(volume_reqs, &well_known)) {
    if (!explain) return absl::FailedPreconditionError("incompatible volume requirements");
    absl::Status s = current.Compatible(volume_reqs, &well_known);
    return absl::FailedPreconditionError(
        internal::StrCat("incompatible volume requirements, ", s.message()));
  }
  for (const Requirement& r : volume_reqs) {
    const Requirement* before = (*merged ? **merged : base).Find(r.key());
    if (before != nullptr && *before == before->Intersection(r)) continue;
    if (!*merged) *merged = base;
    (*merged)->Add(r);
    if (std::find(changed->begin(), changed->end(), r.key()) == changed->end()) {
      changed->push_back(r.key());
    }
  }
  return absl::OkStatus();
}

// The hot-path filter. Invariant: every type in `candidates` already intersects the claim's
// current requirements `base` and has an available offering compatible with them, so only
// the keys that changed (`changed`) are re-checked, offerings only if zone or capacity type
// changed, and resources always. Returns the kept types (minValues not applied).
std::vector<int> FastFilter(const Template& t, const std::vector<int>& candidates,
                            const Requirements& reqs, const std::vector<std::string>& changed,
                            const ResourceList& requests,
                            const std::vector<ContainerPort>& pod_ports,
                            const std::vector<ContainerPort>& claim_ports) {
  std::vector<int> kept;
  kept.reserve(candidates.size());
  bool offerings_changed = false;
  std::vector<const Requirement*> changed_reqs;
  for (const std::string& k : changed) {
    if (k == kLabelZone || k == kLabelCapacityType) offerings_changed = true;
    changed_reqs.push_back(reqs.Find(k));
  }
  const std::vector<char> mask = offerings_changed ? t.OfferingMask(reqs) : std::vector<char>();
  // Per daemon group: host-port conflict and total requests.
  std::vector<char> conflict(t.daemon_groups.size(), 2);
  std::vector<ResourceList> totals(t.daemon_groups.size());
  const bool any_ports = !pod_ports.empty();
  // Memo of intersection results per (changed key, class of the type's requirement).
  std::vector<const std::vector<int>*> classes(changed_reqs.size(), nullptr);
  std::vector<const std::vector<const Requirement*>*> reps(changed_reqs.size(), nullptr);
  std::vector<std::vector<char>> memo(changed_reqs.size());
  for (size_t k = 0; k < changed_reqs.size(); ++k) {
    if (changed_reqs[k] == nullptr) continue;
    auto c = t.key_classes.find(changed_reqs[k]->key());
    if (c == t.key_classes.end()) {
      changed_reqs[k] = nullptr;  // no type defines the key: nothing to check
      continue;
    }
    classes[k] = &c->second.class_of;
    reps[k] = &c->second.representative;
    memo[k].assign(c->second.representative.size(), 2);
  }
  for (int i : candidates) {
    const size_t g = static_cast<size_t>(t.daemon_group[static_cast<size_t>(i)]);
    if (conflict[g] == 2) {
      conflict[g] = any_ports && (HostPortsConflict(pod_ports, t.daemon_groups[g].ports) ||
                                  HostPortsConflict(pod_ports, claim_ports))
                        ? 1
                        : 0;
      totals[g] = requests;
      totals[g].Add(t.daemon_groups[g].overhead);
    }
    if (conflict[g] == 1) continue;
    if (!Fits(totals[g], t.allocatable[static_cast<size_t>(i)])) continue;
    bool ok = true;
    for (size_t k = 0; k < changed_reqs.size() && ok; ++k) {
      const Requirement* r = changed_reqs[k];
      if (r == nullptr) continue;
      const int cls = (*classes[k])[static_cast<size_t>(i)];
      if (cls < 0) continue;  // the type does not define the key
      char& m = memo[k][static_cast<size_t>(cls)];
      if (m == 2) {
        const Requirement* have = (*reps[k])[static_cast<size_t>(cls)];
        m = 1;
        if (!have->HasIntersection(*r)) {
          const Operator a = have->op(), b = r->op();
          const bool both_negative = (a == Operator::kNotIn || a == Operator::kDoesNotExist) &&
                                     (b == Operator::kNotIn || b == Operator::kDoesNotExist);
          if (!both_negative) m = 0;
        }
      }
      ok = m == 1;
    }
    if (!ok) continue;
    if (offerings_changed && !HasOffering(t, static_cast<size_t>(i), mask)) continue;
    kept.push_back(i);
  }
  return kept;
}

// ---------------------------------------------------------------------------------------------
// Per-solve state

struct ExistingNodeState {
  const ExistingNodeInit* init = nullptr;
  std::optional<Requirements> narrowed;  // set once a pod narrowed the node's requirements
  ResourceList remaining;
  std::vector<ContainerPort> added_ports;  // host ports of pods placed by this solve
  std::vector<std::string> pods;
  // Claims in use once this solve placed a pod with volumes here (nodes with limits only).
  std::optional<VolumeUsage> volumes;

  const Requirements& requirements() const { return narrowed ? *narrowed : init->requirements; }
};

struct ClaimState {
  const Template* tmpl = nullptr;
  std::string hostname;
  Requirements requirements;
  std::vector<int> its;
  ResourceList requests;
  std::vector<ContainerPort> ports;  // host ports of the pods placed here
  std::vector<std::string> pods;
  bool min_values_relaxed = false;
  int64_t seq = 0;
  std::string pinned_zone;  // the zone when the requirements allow exactly one, else ""
  int pinned_zone_id = -1;  // Solver::ZoneId(pinned_zone), -1 when unpinned
  // Per-resource maximum of the allocatable of the types in `its` (recomputed when `its`
  // shrinks): a pod whose requests plus `requests` exceed it on any resource fits none of them,
  // so first fit can skip the claim without running the filter (same decision, less work).
  ResourceList max_allocatable;
  size_t max_allocatable_of = 0;  // its.size() when max_allocatable was computed (0: never)
  std::set<std::string> reserved_ids;  // reservations this claim holds (semantics §5.15)
};

// Reserved-offering errors (semantics §5.15) are not relaxed and stop the NodePool fallback.
constexpr absl::StatusCode kReservedOfferingError = absl::StatusCode::kResourceExhausted;

class Solver {
 public:
  Solver(const Scheduler::State& state, std::vector<PodCtx> pods,
         const scheduling::Simulation* simulation = nullptr)
      : state_(state), pods_(std::move(pods)), simulation_(simulation) {
    size_t label_classes = 0;
    for (const PodCtx& p : pods_) {
      scheduling_.insert(p.key);
      label_classes = std::max(label_classes, p.label_class + 1);
    }
    label_caches_.resize(label_classes);
    topology_ = std::make_unique<scheduling::Topology>(
        state_.snapshot.get(), &state_.pools->universe, state_.options.preference_policy, &scheduling_,
        &state_.nodes_by_name, &state_.bound_anti_affinity_pods);
    remaining_limits_ = state_.remaining_limits;
    // Capacity per reservation: the minimum over the offerings that carry it.
    for (const Template& t : state_.pools->templates) {
      for (const InstanceType* it : t.instance_types) {
        for (const Offering& o : it->offerings) {
          if (o.capacity_type != kCapacityTypeReserved || o.reservation_id.empty()) continue;
          auto [pos, inserted] = reservation_capacity_.emplace(o.reservation_id, o.reservation_capacity);
          if (!inserted) pos->second = std::min(pos->second, o.reservation_capacity);
        }
      }
    }
    for (const ExistingNodeInit& e : state_.existing) {
      if (simulation_ != nullptr && simulation_->excluded.count(e.name) > 0) {
        // A candidate gives its capacity back to its NodePool's limits.
        auto limits = remaining_limits_.find(e.node_pool);
        if (limits != remaining_limits_.end()) {
          ResourceList back = limits->second;
          back.Add(e.capacity);
          ResourceList restored = limits->second;
          limits->second.ForEach([&](std::string_view name, int64_t) {
            restored.Set(name, back.Get(name));
          });
          limits->second = std::move(restored);
        }
        continue;
      }
      ExistingNodeState s;
      s.init = &e;
      s.remaining = e.remaining;
      existing_.push_back(std::move(s));
    }
  }

  SolveResult Run();

 private:
  absl::Status Add(PodCtx& pod);
  absl::Status CanAddExisting(ExistingNodeState& node, PodCtx& pod, Requirements* out_reqs);
  // Volume limits of an existing node (semantics §5.13): OK or the reference's error.
  absl::Status ExistingVolumeUsage(const ExistingNodeState& node, const PodCtx& pod) const;
  // CanAddExisting's topology step on the node requirements `reqs` (pod and volume included).
  absl::Status AddExistingTopology(ExistingNodeState& node, PodCtx& pod, Requirements reqs,
                                   Requirements* out_reqs);
  // On success *out_reqs holds the narrowed requirements, or nothing when unchanged.
  absl::Status CanAddClaim(ClaimState& claim, PodCtx& pod, bool relax_min_values, bool explain,
                           std::optional<Requirements>* out_reqs, std::vector<int>* out_its,
                           bool* relaxed, std::set<std::string>* to_reserve);
  // CanAddClaim with one volume topology alternative (null: none).
  absl::Status CanAddClaimWith(ClaimState& claim, PodCtx& pod, const Requirements* volume_reqs,
                               bool relax_min_values, bool explain,
                               std::optional<Requirements>* out_reqs, std::vector<int>* out_its,
                               bool* relaxed, std::set<std::string>* to_reserve);
  void CommitClaim(ClaimState& claim, PodCtx& pod, std::optional<Requirements> reqs,
                   std::vector<int> its, std::set<std::string> to_reserve);
  SolveResult Finalize(std::map<std::string, std::string> errors, bool timed_out);

  const Scheduler::State& state_;
  std::vector<PodCtx> pods_;
  std::vector<scheduling::Topology::RecordCache> label_caches_;  // by PodCtx::label_class
  const scheduling::Simulation* simulation_ = nullptr;
  std::set<std::string> scheduling_;
  std::unique_ptr<scheduling::Topology> topology_;
  std::map<std::string, ResourceList> remaining_limits_;
  std::vector<ExistingNodeState> existing_;
  std::vector<std::unique_ptr<ClaimState>> claims_;
  // Claims ordered for first fit: fewest pods first, then creation order.
  std::set<std::pair<size_t, int64_t>> claim_order_;
  std::map<std::string, int64_t> pinned_claims_;  // zone -> claims pinned to it ("" = unpinned)
  // Small integer ids of zones that pin claims, so the first-fit loop compares ints.
  absl::flat_hash_map<std::string, int> zone_ids_;
  int ZoneId(const std::string& zone) {
    return zone_ids_.emplace(zone, static_cast<int>(zone_ids_.size())).first->second;
  }
  std::map<std::string, int64_t> reservation_capacity_;  // reservation id -> instances left
  int64_t next_seq_ = 0;
};

absl::Status Solver::ExistingVolumeUsage(const ExistingNodeState& node,
                                         const PodCtx& pod) const {
  if (pod.volumes != nullptr && !pod.volumes->usage_known) {
    return absl::FailedPreconditionError("failed tracking volume usage");
  }
  const scheduling::NodeVolumes* limited = node.init->volumes.get();
  if (limited == nullptr) return absl::OkStatus();
  static const VolumeUsage kNoVolumes;
  const VolumeUsage& claims = pod.volumes != nullptr ? pod.volumes->usage : kNoVolumes;
  if (claims.empty() && !limited->over_limit) return absl::OkStatus();
  absl::Status s =
      CheckVolumeLimits(node.volumes ? *node.volumes : limited->usage, claims, limited->limits);
  if (s.ok()) return s;
  return absl::FailedPreconditionError(internal::StrCat("checking volume usage, ", s.message()));
}

absl::Status Solver::CanAddExisting(ExistingNodeState& node, PodCtx& pod,
                                    Requirements* out_reqs) {
  if (!ToleratesAll(node.init->taints, pod.working.tolerations)) {
    return absl::FailedPreconditionError("did not tolerate taint");
  }
  if (pod.volumes != nullptr || node.init->volumes != nullptr) {
    if (absl::Status s = ExistingVolumeUsage(node, pod); !s.ok()) return s;
  }
  if (!pod.ports.empty() && (HostPortsConflict(pod.ports, node.init->host_ports) ||
                             HostPortsConflict(pod.ports, node.added_ports))) {
    return absl::FailedPreconditionError(
        "checking host port usage, pod hostport conflicts with existing hostport configuration");
  }
  if (!Fits(pod.requests, node.remaining)) {
    return absl::FailedPreconditionError("exceeds node resources");
  }
  if (!node.requirements().IsCompatible(pod.requirements, nullptr)) {
    return absl::FailedPreconditionError("incompatible requirements");
  }
  Requirements reqs = node.requirements();
  reqs.Add(pod.requirements);
  if (pod.volumes == nullptr || pod.volumes->topology.alternatives.empty()) {
    return AddExistingTopology(node, pod, std::move(reqs), out_reqs);
  }
  // Volume topology (semantics §5.13): the first alternative the node satisfies. It narrows
  // the node's requirements, never the pod's own.
  absl::Status last;
  for (const Requirements& alt : pod.volumes->topology.alternatives) {
    if (!reqs.IsCompatible(alt, nullptr)) {
      last = absl::FailedPreconditionError("incompatible volume requirements");
      continue;
    }
    Requirements with_volumes = reqs;
    with_volumes.Add(alt);
    last = AddExistingTopology(node, pod, std::move(with_volumes), out_reqs);
    if (last.ok()) return last;
  }
  return last;
}

absl::Status Solver::AddExistingTopology(ExistingNodeState& node, PodCtx& pod, Requirements reqs,
                                         Requirements* out_reqs) {
  std::vector<Requirement> narrowing;
  if (absl::Status s = topology_->AddRequirements(pod.working, pod.groups, node.init->taints,
                                                  pod.strict, reqs, &narrowing, /*explain=*/false);
      !s.ok()) {
    return s;
  }
  if (!narrowing.empty()) {
    Requirements topo;
    for (const Requirement& r : narrowing) topo.Add(r);
    if (!reqs.IsCompatible(topo, nullptr)) {
      return absl::FailedPreconditionError("incompatible topology requirements");
    }
    reqs.Add(topo);
  }
  *out_reqs = std::move(reqs);
  return absl::OkStatus();
}

absl::Status Solver::CanAddClaim(ClaimState& claim, PodCtx& pod, bool relax_min_values,
                                 bool explain, std::optional<Requirements>* out_reqs,
                                 std::vector<int>* out_its, bool* relaxed,
                                 std::set<std::string>* to_reserve) {
  if (pod.volumes == nullptr || pod.volumes->topology.alternatives.empty()) {
    return CanAddClaimWith(claim, pod, nullptr, relax_min_values, explain, out_reqs, out_its,
                           relaxed, to_reserve);
  }
  // Volume topology (semantics §5.13): the first alternative the claim can take; the error is
  // the last alternative's, as the reference.
  absl::Status last;
  for (const Requirements& alt : pod.volumes->topology.alternatives) {
    last = CanAddClaimWith(claim, pod, &alt, relax_min_values, explain, out_reqs, out_its,
                           relaxed, to_reserve);
    if (last.ok()) return last;
  }
  return last;
}

absl::Status Solver::CanAddClaimWith(ClaimState& claim, PodCtx& pod,
                                     const Requirements* volume_reqs, bool relax_min_values,
                                     bool explain, std::optional<Requirements>* out_reqs,
                                     std::vector<int>* out_its, bool* relaxed,
                                     std::set<std::string>* to_reserve) {
  const Template& t = *claim.tmpl;
  if (!ToleratesAll(t.taints, pod.working.tolerations)) {
    if (!explain) return absl::FailedPreconditionError("did not tolerate taint");
    return Tolerates(t.taints, pod.working.tolerations);
  }
  const LabelSet& wk = state_.pools->well_known;
  if (!claim.requirements.IsCompatible(pod.requirements, &wk)) {
    if (!explain) return absl::FailedPreconditionError("incompatible requirements");
    absl::Status s = claim.requirements.Compatible(pod.requirements, &wk);
    return absl::FailedPreconditionError(
        internal::StrCat("incompatible requirements, ", s.message()));
  }
  // Merge the pod's requirements, noting which keys actually narrowed; copy the claim's
  // requirements only when something changes.
  std::vector<std::string> changed;
  std::optional<Requirements> merged;
  for (const Requirement& r : pod.requirements) {
    const Requirement* before = claim.requirements.Find(r.key());
    if (before != nullptr && *before == before->Intersection(r)) continue;
    if (!merged) merged = claim.requirements;
    merged->Add(r);
    changed.push_back(r.key());
  }
  if (volume_reqs != nullptr) {
    if (absl::Status s = AddVolumeRequirements(claim.requirements, *volume_reqs, wk, explain,
                                               &merged, &changed);
        !s.ok()) {
      return s;
    }
  }
  std::vector<Requirement> narrowing;
  if (!pod.groups.empty()) {
    if (absl::Status s = topology_->AddRequirements(pod.working, pod.groups, t.taints, pod.strict,
                                                    merged ? *merged : claim.requirements,
                                                    &narrowing, explain);
        !s.ok()) {
      return s;
    }
  }
  if (!narrowing.empty()) {
    Requirements topo;
    for (const Requirement& r : narrowing) topo.Add(r);
    const Requirements& base = merged ? *merged : claim.requirements;
    if (!base.IsCompatible(topo, &wk)) {
      if (!explain) return absl::FailedPreconditionError("incompatible topology requirements");
      return base.Compatible(topo, &wk);
    }
    if (!merged) merged = claim.requirements;
    for (const Requirement& r : topo) {
      merged->Add(r);
      if (std::find(changed.begin(), changed.end(), r.key()) == changed.end()) {
        changed.push_back(r.key());
      }
    }
  }
  const Requirements& reqs_view = merged ? *merged : claim.requirements;
  ResourceList requests = claim.requests;
  requests.Add(pod.requests);
  std::vector<int> kept =
      FastFilter(t, claim.its, reqs_view, changed, requests, pod.ports, claim.ports);
  bool relaxed_min_values = false;
  auto materialize = [&]() -> Requirements& {
    if (!merged) merged = claim.requirements;
    return *merged;
  };
  if (!kept.empty() && reqs_view.HasMinValues()) {
    Requirements& reqs = materialize();
    // minValues over the kept types (semantics §1.10); the slow path relaxes or explains.
    std::vector<const InstanceType*> types;
    for (int i : kept) types.push_back(t.instance_types[static_cast<size_t>(i)]);
    if (!SatisfiesMinValues(types, reqs).ok()) {
      if (relax_min_values) {
        FilterOutcome f = FilterInstanceTypes(t, claim.its, reqs, requests, pod.ports,
                                              claim.ports, /*relax_min_values=*/true);
        kept = std::move(f.kept);
        relaxed_min_values = f.relaxed_min_values;
      } else {
        kept.clear();
      }
    }
  }
  if (kept.empty()) {
    if (!explain) return absl::FailedPreconditionError("no instance type");
    Requirements& reqs = materialize();
    FilterOutcome f = FilterInstanceTypes(t, claim.its, reqs, requests, pod.ports, claim.ports,
                                          relax_min_values);
    return f.error.ok() ? absl::FailedPreconditionError("no instance type") : f.error;
  }
  // Reserved offerings (semantics §5.15): the compatible reserved offerings of the kept types,
  // and those this claim can hold (already held, or the reservation has capacity left).
  to_reserve->clear();
  if (!reservation_capacity_.empty()) {
    const Requirements& final_reqs = merged ? *merged : claim.requirements;
    bool any_compatible = false;
    for (int i : kept) {
      for (const Offering& o : t.instance_types[static_cast<size_t>(i)]->offerings) {
        if (!o.available || o.capacity_type != kCapacityTypeReserved || o.reservation_id.empty() ||
            !OfferingCompatible(final_reqs, o)) {
          continue;
        }
        any_compatible = true;
        auto cap = reservation_capacity_.find(o.reservation_id);
        if (claim.reserved_ids.count(o.reservation_id) > 0 ||
            (cap != reservation_capacity_.end() && cap->second > 0)) {
          to_reserve->insert(o.reservation_id);
        }
      }
    }
    if (state_.options.reserved_capacity_mode == ReservedCapacityMode::kStrict) {
      if (any_compatible && to_reserve->empty()) {
        return absl::Status(kReservedOfferingError,
                            "one or more instance types with compatible reserved offerings are "
                            "available, but could not be reserved");
      }
      if (!claim.reserved_ids.empty() && to_reserve->empty()) {
        return absl::Status(kReservedOfferingError,
                            "satisfying updated nodeclaim constraints would remove all compatible "
                            "reserved offering options");
      }
    }
  }
  *relaxed = relaxed_min_values;
  *out_reqs = std::move(merged);
  *out_its = std::move(kept);
  return absl::OkStatus();
}

void Solver::CommitClaim(ClaimState& claim, PodCtx& pod, std::optional<Requirements> reqs,
                         std::vector<int> its, std::set<std::string> to_reserve) {
  // Reserve new reservations, release dropped ones (idempotent per claim and reservation).
  for (const std::string& id : to_reserve) {
    if (claim.reserved_ids.count(id) == 0) --reservation_capacity_[id];
  }
  for (const std::string& id : claim.reserved_ids) {
    if (to_reserve.count(id) == 0) ++reservation_capacity_[id];
  }
  claim.reserved_ids = std::move(to_reserve);
  claim_order_.erase({claim.pods.size(), claim.seq});
  claim_order_.insert({claim.pods.size() + 1, claim.seq});
  claim.pods.push_back(pod.key);
  claim.its = std::move(its);
  claim.requests.Add(pod.requests);
  if (reqs) claim.requirements = std::move(*reqs);
  const Requirement* zone = claim.requirements.Find(kLabelZone);
  if (claim.pods.size() > 1) --pinned_claims_[claim.pinned_zone];
  claim.pinned_zone =
      (zone != nullptr && zone->op() == Operator::kIn && zone->values().size() == 1)
          ? zone->values()[0]
          : std::string();
  claim.pinned_zone_id = claim.pinned_zone.empty() ? -1 : ZoneId(claim.pinned_zone);
  ++pinned_claims_[claim.pinned_zone];
  claim.ports.insert(claim.ports.end(), pod.ports.begin(), pod.ports.end());
  if (claim.its.size() != claim.max_allocatable_of) {
    claim.max_allocatable = ResourceList();
    for (int i : claim.its) claim.max_allocatable.MaxWith(claim.tmpl->allocatable[static_cast<size_t>(i)]);
    claim.max_allocatable_of = claim.its.size();
  }
  topology_->Record(pod.working, pod.key, claim.tmpl->taints, claim.requirements,
                    &label_caches_[pod.label_class], &pod.record_cache);
}

// False when `pod` certainly fits none of `claim`'s instance types: its requests plus the
// claim's exceed the largest allocatable of some resource (daemon overhead only adds).
bool MayFit(const ClaimState& claim, const PodCtx& pod) {
  bool fits = true;
  pod.requests.ForEach([&](std::string_view name, int64_t value) {
    // Both sides are non-negative, so the difference cannot overflow.
    if (fits && value > 0 && value > claim.max_allocatable.Get(name) - claim.requests.Get(name)) {
      fits = false;
    }
  });
  return fits;
}

absl::Status Solver::Add(PodCtx& pod) {
  pod.groups = topology_->GroupsFor(pod.working, pod.key);
  // 1. Existing nodes and in-flight NodeClaims, first fit.
  const bool moving = simulation_ != nullptr && simulation_->moving.count(pod.key) > 0;
  for (ExistingNodeState& node : existing_) {
    if (moving && simulation_->under_consolidate_after.count(node.init->name) > 0) continue;
    Requirements reqs;
    if (!CanAddExisting(node, pod, &reqs).ok()) continue;
    node.pods.push_back(pod.key);
    node.remaining.Subtract(pod.requests);
    node.narrowed = std::move(reqs);
    if (pod.volumes != nullptr && node.init->volumes != nullptr) {
      if (!node.volumes) node.volumes = node.init->volumes->usage;
      AddVolumeUsage(pod.volumes->usage, &*node.volumes);
    }
    node.added_ports.insert(node.added_ports.end(), pod.ports.begin(), pod.ports.end());
    topology_->Record(pod.working, pod.key, node.init->taints, node.requirements(),
                      &label_caches_[pod.label_class], &pod.record_cache);
    return absl::OkStatus();
  }
  // 2. This solve's new NodeClaims, fewest pods first (ties: creation order). Claims that a
  // hostname topology group certainly rejects are skipped by slot in O(1).
  const std::vector<scheduling::Topology::HostnameCheck> host_checks =
      topology_->HostnameChecks(pod.working, pod.groups);
  const std::vector<std::vector<std::string>> zone_checks =
      topology_->PinnedZoneChecks(pod.working, pod.groups, pod.strict);
  bool all_blocked = false;
  for (const std::vector<std::string>& allowed : zone_checks) {
    // Only unpinned claims and claims pinned inside `allowed` can pass.
    auto unpinned = pinned_claims_.find("");
    int64_t open = unpinned == pinned_claims_.end() ? 0 : unpinned->second;
    for (const std::string& z : allowed) {
      auto it = pinned_claims_.find(z);
      if (it != pinned_claims_.end()) open += it->second;
    }
    if (open == 0) all_blocked = true;
  }
  for (const auto& check : host_checks) {
    if (check.group->SlotsAbove(check.limit) == static_cast<int64_t>(claims_.size())) {
      all_blocked = true;  // every claim already exceeds this group's limit
      break;
    }
  }
  // The allowed zones as ids; a zone no claim was ever pinned to cannot match one.
  std::vector<std::vector<int>> zone_check_ids(zone_checks.size());
  for (size_t i = 0; i < zone_checks.size(); ++i) {
    for (const std::string& z : zone_checks[i]) {
      auto id = zone_ids_.find(z);
      if (id != zone_ids_.end()) zone_check_ids[i].push_back(id->second);
    }
  }
  for (auto order_it = claim_order_.begin(); !all_blocked && order_it != claim_order_.end();
       ++order_it) {
    const int64_t seq = order_it->second;
    ClaimState& claim = *claims_[static_cast<size_t>(seq)];
    bool blocked = false;
    for (const auto& check : host_checks) {
      if (check.group->SlotCount(static_cast<int>(seq)) > check.limit) {
        blocked = true;
        break;
      }
    }
    if (!blocked && claim.pinned_zone_id >= 0) {
      for (const std::vector<int>& allowed : zone_check_ids) {
        if (std::find(allowed.begin(), allowed.end(), claim.pinned_zone_id) == allowed.end()) {
          blocked = true;
          break;
        }
      }
    }
    if (blocked || !MayFit(claim, pod)) continue;
    std::optional<Requirements> reqs;
    std::vector<int> its;
    bool relaxed = false;
    std::set<std::string> to_reserve;
    if (!CanAddClaim(claim, pod, /*relax_min_values=*/false, /*explain=*/false, &reqs, &its,
                     &relaxed, &to_reserve)
             .ok()) {
      continue;
    }
    CommitClaim(claim, pod, std::move(reqs), std::move(its), std::move(to_reserve));
    return absl::OkStatus();
  }
  // 3. A new NodeClaim from the first NodePool (by weight) that can take the pod.
  if (!state_.pools->has_node_pools) return absl::FailedPreconditionError(scheduling::kNoDynamicNodePools);
  if (state_.pools->templates.empty()) {
    return absl::FailedPreconditionError(
        "nodepool requirements filtered out all available instance types");
  }
  std::vector<std::string> errors;
  for (const Template& t : state_.pools->templates) {
    const std::string& pool = t.pool->name();
    std::vector<int> candidates;
    auto limits = remaining_limits_.find(pool);
    if (limits != remaining_limits_.end()) {
      if (limits->second.Has(kResourceNodes) && limits->second.Get(kResourceNodes) == 0) {
        errors.push_back(internal::StrCat("node limits have been exhausted for nodepool \"",
                                          pool, "\""));
        continue;
      }
      for (size_t i = 0; i < t.instance_types.size(); ++i) {
        bool exceeds = false;
        limits->second.ForEach([&](std::string_view name, int64_t remaining) {
          if (t.instance_types[i]->capacity.Get(name) > remaining) exceeds = true;
        });
        if (!exceeds) candidates.push_back(static_cast<int>(i));
      }
      if (candidates.empty()) {
        errors.push_back(internal::StrCat(
            "all available instance types exceed limits for nodepool \"", pool, "\""));
        continue;
      }
    } else {
      candidates.resize(t.instance_types.size());
      for (size_t i = 0; i < candidates.size(); ++i) candidates[i] = static_cast<int>(i);
    }
    auto claim = std::make_unique<ClaimState>();
    claim->tmpl = &t;
    claim->seq = next_seq_;
    claim->hostname = internal::StrCat("hostname-placeholder-", next_seq_);
    claim->requirements = t.requirements;
    claim->requirements.Add(Requirement::In(kLabelHostname, {claim->hostname}));
    claim->its = std::move(candidates);
    claim->min_values_relaxed = t.min_values_relaxed;
    std::optional<Requirements> reqs;
    std::vector<int> its;
    bool relaxed = false;
    std::set<std::string> to_reserve;
    absl::Status s = CanAddClaim(
        *claim, pod, state_.options.min_values_policy == MinValuesPolicy::kBestEffort,
        /*explain=*/true, &reqs, &its, &relaxed, &to_reserve);
    if (s.code() == kReservedOfferingError) {
      // No fallback to lower-weight NodePools while a higher one has compatible reservations.
      return s;
    }
    if (!s.ok()) {
      errors.push_back(internal::StrCat("incompatible with nodepool \"", pool, "\", ",
                                        s.message()));
      continue;
    }
    ++next_seq_;
    claim->min_values_relaxed |= relaxed;
    topology_->RegisterClaimSlot(claim->hostname, static_cast<int>(claim->seq));
    topology_->RegisterHostname(claim->hostname);
    claim_order_.insert({0, claim->seq});
    CommitClaim(*claim, pod, std::move(reqs), std::move(its), std::move(to_reserve));
    if (limits != remaining_limits_.end()) {
      ResourceList max_capacity;
      for (int i : claim->its) max_capacity.MaxWith(t.instance_types[static_cast<size_t>(i)]->capacity);
      limits->second.Subtract(max_capacity);
    }
    claims_.push_back(std::move(claim));
    return absl::OkStatus();
  }
  std::string message = absl::StrJoin(errors, "; ");
  if (pod.volumes != nullptr && !pod.volumes->topology.explanation.empty()) {
    internal::StrAppend(&message, "; the pod's volumes restrict where it can run: ",
                        pod.volumes->topology.explanation);
  }
  return absl::FailedPreconditionError(message);
}

SolveResult Solver::Run() {
  // Queue order (semantics §5.5): cpu desc, memory desc, creation asc, uid asc, then key.
  std::vector<size_t> order(pods_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const PodCtx& x = pods_[a];
    const PodCtx& y = pods_[b];
    if (x.requests.cpu() != y.requests.cpu()) return x.requests.cpu() > y.requests.cpu();
    if (x.requests.memory() != y.requests.memory()) return x.requests.memory() > y.requests.memory();
    if (x.original->metadata.creation_timestamp != y.original->metadata.creation_timestamp) {
      return x.original->metadata.creation_timestamp < y.original->metadata.creation_timestamp;
    }
    if (x.original->metadata.uid != y.original->metadata.uid) {
      return x.original->metadata.uid < y.original->metadata.uid;
    }
    return x.key < y.key;
  });

  topology_->InitExisting();
  for (const ExistingNodeInit& e : state_.existing) topology_->RegisterHostname(e.name);
  for (PodCtx& p : pods_) topology_->Update(p.working);

  const bool limited = state_.options.time_limit != absl::InfiniteDuration();
  const absl::Time deadline = limited ? absl::Now() + state_.options.time_limit
                                      : absl::InfiniteFuture();
  std::deque<size_t> queue(order.begin(), order.end());
  std::vector<size_t> last_len(pods_.size(), 0);
  std::map<std::string, std::string> errors;
  bool timed_out = false;
  while (!queue.empty()) {
    const size_t idx = queue.front();
    if (last_len[idx] == queue.size()) break;  // a full cycle without progress
    if (limited && absl::Now() > deadline) {
      timed_out = true;
      break;
    }
    queue.pop_front();
    PodCtx& pod = pods_[idx];
    absl::Status s;
    while (true) {
      s = Add(pod);
      if (s.ok()) break;
      if (s.code() == kReservedOfferingError) break;  // deferred, never relaxed
      if (!Relax(pod.working, state_.pools->tolerate_prefer_no_schedule)) break;
      topology_->Update(pod.working);
      Refresh(pod, state_.options.preference_policy);
    }
    if (s.ok()) {
      errors.erase(pod.key);
      continue;
    }
    errors[pod.key] = std::string(s.message());
    pod.working = *pod.original;
    topology_->Update(pod.working);
    Refresh(pod, state_.options.preference_policy);
    queue.push_back(idx);
    last_len[idx] = queue.size();
  }
  return Finalize(std::move(errors), timed_out);
}

namespace {

// The price-ordered, truncated type list of a claim, shared by claims with the same template,
// offering mask and candidate types (common: many claims hold the same set of types).
struct FinalPlan {
  std::vector<int> kept_index;  // price order
  std::vector<std::string> names;
  std::vector<std::string> sorted_names;
  std::set<std::string> capacity_types;
  const Offering* best = nullptr;
  const InstanceType* best_it = nullptr;
  ResourceList min_overhead;
  absl::Status min_values;
};

}  // namespace

SolveResult Solver::Finalize(std::map<std::string, std::string> errors, bool timed_out) {
  std::map<std::tuple<const Template*, std::vector<char>, std::vector<int>, std::string>,
           std::shared_ptr<const FinalPlan>>
      plans;
  SolveResult result;
  result.pods = static_cast<int>(pods_.size());
  result.timed_out = timed_out;
  std::map<std::string, int> per_pool_count;
  for (const auto& claim_ptr : claims_) {
    ClaimState& claim = *claim_ptr;
    const Template& t = *claim.tmpl;
    Requirements reqs = claim.requirements;
    reqs.Erase(kLabelHostname);
    if (!claim.reserved_ids.empty()) {
      reqs.Set(Requirement::In(kLabelCapacityType, {std::string(kCapacityTypeReserved)}));
    }
    const std::vector<char> mask = t.OfferingMask(reqs);
    const Requirement* it_req_before = reqs.Find(kLabelInstanceType);
    // Requirements that change minValues outcomes are part of the key.
    std::string min_values_key;
    if (reqs.HasMinValues()) {
      for (const Requirement& r : reqs) {
        if (r.min_values()) min_values_key += r.ToString() + ";";
      }
    }
    auto key = std::make_tuple(&t, mask, claim.its, min_values_key);
    auto found = plans.find(key);
    if (found == plans.end()) {
      auto plan = std::make_shared<FinalPlan>();
      // Order the kept types by their cheapest compatible available offering (ties: name,
      // as template index order is name order) and truncate (semantics §5.16).
      struct Priced {
        double price;
        int index;
      };
      std::vector<Priced> priced;
      priced.reserve(claim.its.size());
      for (int i : claim.its) {
        const InstanceType* it = t.instance_types[static_cast<size_t>(i)];
        const std::vector<int>& keys = t.offering_key_of[static_cast<size_t>(i)];
        double best = kNoPrice;
        for (size_t o = 0; o < keys.size(); ++o) {
          const Offering& off = it->offerings[o];
          if (off.available && mask[static_cast<size_t>(keys[o])]) best = std::min(best, off.price);
        }
        priced.push_back({best, i});
      }
      std::sort(priced.begin(), priced.end(), [](const Priced& a, const Priced& b) {
        if (a.price != b.price) return a.price < b.price;
        return a.index < b.index;
      });
      if (priced.size() > static_cast<size_t>(state_.options.max_instance_types)) {
        priced.resize(static_cast<size_t>(state_.options.max_instance_types));
      }
      std::vector<const InstanceType*> kept_types;
      for (const Priced& p : priced) {
        plan->kept_index.push_back(p.index);
        kept_types.push_back(t.instance_types[static_cast<size_t>(p.index)]);
      }
      if (state_.options.min_values_policy == MinValuesPolicy::kStrict && reqs.HasMinValues()) {
        absl::StatusOr<size_t> mv = SatisfiesMinValues(kept_types, reqs);
        if (!mv.ok()) plan->min_values = mv.status();
      }
      // Daemon overhead: the per-key minimum over the claim's types' groups, taken before
      // truncation as the reference's FinalizeScheduling does.
      for (size_t k = 0; k < claim.its.size(); ++k) {
        const DaemonGroup& g = t.daemon_groups[static_cast<size_t>(
            t.daemon_group[static_cast<size_t>(claim.its[k])])];
        if (k == 0) {
          plan->min_overhead = g.overhead;
        } else {
          plan->min_overhead.MinWith(g.overhead);
        }
      }
      // Launch: cheapest compatible available offering (ties: capacity type, type, zone).
      std::vector<char> capacity_type_seen(t.offering_keys.size(), 0);
      plan->names.reserve(plan->kept_index.size());
      for (int i : plan->kept_index) {
        const InstanceType* it = t.instance_types[static_cast<size_t>(i)];
        plan->names.push_back(it->name);
        const std::vector<int>& keys = t.offering_key_of[static_cast<size_t>(i)];
        for (size_t o = 0; o < keys.size(); ++o) {
          const Offering& off = it->offerings[o];
          if (!off.available || !mask[static_cast<size_t>(keys[o])]) continue;
          capacity_type_seen[static_cast<size_t>(keys[o])] = 1;
          bool better = plan->best == nullptr;
          if (!better) {
            const Offering* b = plan->best;
            if (off.price != b->price) {
              better = off.price < b->price;
            } else if (CapacityTypeRank(off.capacity_type) != CapacityTypeRank(b->capacity_type)) {
              better = CapacityTypeRank(off.capacity_type) < CapacityTypeRank(b->capacity_type);
            } else if (it->name != plan->best_it->name) {
              better = it->name < plan->best_it->name;
            } else {
              better = off.zone < b->zone;
            }
          }
          if (better) {
            plan->best = &off;
            plan->best_it = it;
          }
        }
      }
      for (size_t k = 0; k < t.offering_keys.size(); ++k) {
        if (capacity_type_seen[k]) plan->capacity_types.insert(t.offering_keys[k].second);
      }
      std::vector<int> by_name = plan->kept_index;
      std::sort(by_name.begin(), by_name.end());
      plan->sorted_names.reserve(by_name.size());
      for (int i : by_name) {
        plan->sorted_names.push_back(t.instance_types[static_cast<size_t>(i)]->name);
      }
      found = plans.emplace(std::move(key), std::move(plan)).first;
    }
    const FinalPlan& plan = *found->second;
    if (!plan.min_values.ok()) {
      for (const std::string& pod : claim.pods) {
        errors[pod] = internal::StrCat(
            "pod didn\u2019t schedule because NodePool couldn\u2019t meet minValues requirements, "
            "validating minValues, ",
            plan.min_values.message());
      }
      continue;
    }
    NewNodeClaim nc;
    nc.node_pool = t.pool->name();
    nc.name = internal::StrCat(nc.node_pool, "-", ++per_pool_count[nc.node_pool]);
    nc.instance_types = plan.names;
    Requirement it_req = Requirement::In(kLabelInstanceType, plan.sorted_names);
    if (it_req_before != nullptr) it_req.set_min_values(it_req_before->min_values());
    reqs.Set(it_req);
    reqs.Set(Requirement::In(kLabelCapacityType,
                             {plan.capacity_types.begin(), plan.capacity_types.end()}));
    if (plan.best != nullptr) {
      nc.launch = Launch{plan.best_it->name, plan.best->zone, plan.best->capacity_type,
                         plan.best->price, plan.best->price_estimated};
    }
    const ResourceList& min_overhead = plan.min_overhead;
    // Labels: template labels, nodepool, and one value of each custom requirement.
    nc.labels = t.pool->template_labels;
    nc.labels[std::string(kLabelNodePool)] = nc.node_pool;
    for (const Requirement& r : reqs) {
      if (state_.pools->well_known.Contains(r.key()) || RestrictedLabels().Contains(r.key()) ||
          r.key() == kLabelRegistered || r.key() == kLabelInitialized) {
        continue;
      }
      if (nc.labels.count(r.key()) == 0) {
        std::string v = r.Any();
        if (!v.empty() || r.op() == Operator::kIn) nc.labels[r.key()] = v;
      }
    }
    reqs.Erase(kLabelRegistered);
    reqs.Erase(kLabelInitialized);
    nc.requirements = std::move(reqs);
    nc.requests = claim.requests;
    nc.requests.Add(min_overhead);
    nc.pods = claim.pods;
    nc.annotations = t.pool->template_annotations;
    nc.annotations[std::string(kAnnotationMinValuesRelaxed)] =
        claim.min_values_relaxed ? std::string(kMinValuesRelaxedTrue) : "false";
    nc.taints = t.pool->taints;
    nc.startup_taints = t.pool->startup_taints;
    result.node_claims.push_back(std::move(nc));
  }
  for (const ExistingNodeState& node : existing_) {
    if (node.pods.empty()) continue;
    if (simulation_ != nullptr && simulation_->consolidation && !node.init->initialized) {
      for (const std::string& pod : node.pods) {
        if (simulation_->moving.count(pod) == 0) continue;
        errors[pod] = internal::StrCat("would schedule against uninitialized nodeclaim/",
                                       node.init->name, ", node/", node.init->name);
      }
    }
    result.existing_nodes.push_back({node.init->name, node.init->in_flight, node.pods});
  }
  std::sort(result.existing_nodes.begin(), result.existing_nodes.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  for (auto& [pod, message] : errors) result.pod_errors.push_back({pod, std::move(message)});
  return result;
}

// ---------------------------------------------------------------------------------------------
// Preparation (once per Scheduler)

absl::StatusOr<std::shared_ptr<Scheduler::State>> Prepare(
    std::shared_ptr<const ClusterSnapshot> snapshot,
    const std::map<std::string, std::shared_ptr<const InstanceCatalog>>& catalogs,
    std::shared_ptr<const InstanceCatalog> shared_catalog, const SchedulerOptions& options,
    bool validate, std::shared_ptr<const scheduling::PoolsState> reuse = nullptr) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  if (validate) {
    if (absl::Status s = snapshot->Validate(); !s.ok()) return s;
  }
  auto state = std::make_shared<Scheduler::State>();
  state->options = options;
  state->snapshot = std::move(snapshot);
  const ClusterSnapshot& snap = *state->snapshot;
  auto pools_state = std::make_shared<scheduling::PoolsState>();
  pools_state->well_known = WellKnownLabels();
  std::map<std::string, std::vector<const Pod*>> pods_by_node;
  for (const Pod& p : snap.pods) {
    if (p.node_name.empty()) continue;
    pods_by_node[p.node_name].push_back(&p);
    if (!p.pod_anti_affinity.required.empty()) state->bound_anti_affinity_pods.push_back(&p);
  }
  std::map<std::string, const NodeClaim*> claim_by_node;
  for (const NodeClaim& nc : snap.node_claims) {
    if (!nc.node_name.empty()) claim_by_node.emplace(nc.node_name, &nc);
  }
  for (const Node& n : snap.nodes) state->nodes_by_name.emplace(n.metadata.name, &n);
  auto pods_on = [&](const std::string& node) -> const std::vector<const Pod*>& {
    static const std::vector<const Pod*> kNone;
    auto it = pods_by_node.find(node);
    return it == pods_by_node.end() ? kNone : it->second;
  };

  auto catalog_of = [&](const std::string& pool) -> std::shared_ptr<const InstanceCatalog> {
    if (shared_catalog) return shared_catalog;
    auto it = catalogs.find(pool);
    return it == catalogs.end() ? nullptr : it->second;
  };

  // Eligible NodePools: dynamic, not being deleted; weight desc, then name desc.
  std::vector<const NodePool*> pools;
  for (const NodePool& np : snap.node_pools) {
    if (np.replicas.has_value() || np.metadata.deletion_timestamp.has_value()) continue;
    pools.push_back(&np);
  }
  pools_state->has_node_pools = !pools.empty();
  std::sort(pools.begin(), pools.end(), [](const NodePool* a, const NodePool* b) {
    const int32_t wa = a->weight.value_or(0), wb = b->weight.value_or(0);
    if (wa != wb) return wa > wb;
    return a->name() > b->name();
  });
  std::vector<Pod> daemon_pods;
  for (const DaemonSet& ds : snap.daemon_sets) {
    Pod p = ds.pod_template;
    if (p.metadata.namespace_.empty()) p.metadata.namespace_ = ds.metadata.namespace_;
    if (p.metadata.name.empty()) p.metadata.name = ds.metadata.name;
    daemon_pods.push_back(std::move(p));
  }

  for (const NodePool* np : reuse ? std::vector<const NodePool*>{} : pools) {
    std::shared_ptr<const InstanceCatalog> catalog = catalog_of(np->name());
    if (!catalog || catalog->size() == 0) continue;
    pools_state->well_known.InsertAll(catalog->well_known_labels());
    Template t;
    t.pool = np;
    t.catalog = catalog;
    t.taints = np->taints;
    absl::StatusOr<Requirements> reqs = Requirements::FromApi(np->requirements);
    if (!reqs.ok()) {
      return absl::InvalidArgumentError(internal::StrCat(
          "nodepool ", np->name(), ": spec.template.spec.requirements", reqs.status().message()));
    }
    t.requirements = *reqs;
    t.requirements.Add(Requirements::FromLabels(np->template_labels));
    t.requirements.Add(Requirement::In(kLabelNodePool, {np->name()}));
    if (!np->node_class_ref.group.empty() && !np->node_class_ref.kind.empty()) {
      t.requirements.Add(
          Requirement::In(NodeClassKey(np->node_class_ref), {np->node_class_ref.name}));
    }
    t.requirements.Add(Requirement::In(kLabelRegistered, {"true"}));
    t.requirements.Add(Requirement::In(kLabelInitialized, {"true"}));
    for (const InstanceType& it : catalog->instance_types()) {
      if (!it.requirements.DoesIntersect(t.requirements)) continue;
      if (!it.HasCompatibleOffering(t.requirements)) continue;
      ResourceList alloc = it.Allocatable();
      if (alloc.AnyNegative()) continue;
      t.instance_types.push_back(&it);
      t.allocatable.push_back(std::move(alloc));
    }
    if (t.instance_types.empty()) continue;
    std::map<std::pair<std::string, std::string>, int> key_index;
    for (const InstanceType* it : t.instance_types) {
      std::vector<int> keys;
      for (const Offering& o : it->offerings) {
        auto [pos, inserted] = key_index.emplace(std::make_pair(o.zone, o.capacity_type),
                                                 static_cast<int>(t.offering_keys.size()));
        if (inserted) t.offering_keys.emplace_back(o.zone, o.capacity_type);
        keys.push_back(pos->second);
      }
      t.offering_key_of.push_back(std::move(keys));
    }
    std::map<std::string, std::map<std::string, int>> class_ids;  // key -> serialized -> class
    for (size_t i = 0; i < t.instance_types.size(); ++i) {
      for (const Requirement& r : t.instance_types[i]->requirements) {
        Template::KeyClasses& kc = t.key_classes[r.key()];
        if (kc.class_of.empty()) kc.class_of.assign(t.instance_types.size(), -1);
        std::string id = internal::StrCat(r.complement() ? "!" : "=", absl::StrJoin(r.values(), "\x1f"),
                                          "|", r.gte() ? std::to_string(*r.gte()) : "",
                                          "|", r.lte() ? std::to_string(*r.lte()) : "",
                                          "|", r.min_values() ? std::to_string(*r.min_values()) : "");
        auto [pos, inserted] =
            class_ids[r.key()].emplace(std::move(id), static_cast<int>(kc.representative.size()));
        if (inserted) kc.representative.push_back(&r);
        kc.class_of[i] = pos->second;
      }
    }
    if (t.requirements.HasMinValues()) {
      absl::StatusOr<size_t> mv = SatisfiesMinValues(t.instance_types, t.requirements);
      if (!mv.ok()) {
        if (options.min_values_policy == MinValuesPolicy::kStrict) continue;
        t.min_values_relaxed = true;  // lowered per claim by the filter
      }
    }
    if (t.taints.end() != std::find_if(t.taints.begin(), t.taints.end(), [](const Taint& x) {
          return x.effect == TaintEffect::kPreferNoSchedule;
        })) {
      pools_state->tolerate_prefer_no_schedule = true;
    }
    pools_state->templates.push_back(std::move(t));
  }

  // Daemon overhead groups per template, keyed by the exact set of compatible daemon pods.
  for (Template& t : pools_state->templates) {
    std::map<std::vector<bool>, int> groups;
    for (const InstanceType* it : t.instance_types) {
      std::vector<bool> set(daemon_pods.size());
      for (size_t d = 0; d < daemon_pods.size(); ++d) {
        set[d] = scheduling::DaemonCompatible(daemon_pods[d], t.requirements, t.taints, it,
                                  pools_state->well_known);
      }
      auto [pos, inserted] = groups.emplace(set, static_cast<int>(t.daemon_groups.size()));
      if (inserted) {
        DaemonGroup g;
        for (size_t d = 0; d < daemon_pods.size(); ++d) {
          if (!set[d]) continue;
          g.overhead.Add(daemon_pods[d].Requests());
          std::vector<ContainerPort> ports = HostPorts(daemon_pods[d]);
          g.ports.insert(g.ports.end(), ports.begin(), ports.end());
        }
        t.daemon_groups.push_back(std::move(g));
      }
      t.daemon_group.push_back(pos->second);
    }
  }

  // Topology domain universe (semantics §5.12).
  for (const Template& t : pools_state->templates) {
    auto add = [&](const std::string& key, const std::string& value) {
      scheduling::DomainSource& src = pools_state->universe[key][value];
      if (t.taints.empty()) {
        src.untainted = true;
      } else {
        src.taint_sets.push_back(t.taints);
      }
    };
    for (const Requirement& r : t.requirements) {
      if (r.op() == Operator::kIn) {
        for (const std::string& v : r.values()) add(r.key(), v);
      }
    }
    for (const InstanceType* it : t.instance_types) {
      Requirements combined = t.requirements;
      combined.Add(it->requirements);
      for (const Requirement& r : combined) {
        for (const std::string& v : r.values()) add(r.key(), v);
      }
    }
  }

  if (reuse) {
    state->pools = std::move(reuse);
  } else {
    state->pools = std::move(pools_state);
  }

  // Existing nodes and in-flight NodeClaims (semantics §5.4, §5.9).
  auto daemon_overhead_for = [&](const Requirements& node_reqs, const std::vector<Taint>& taints,
                                 const std::string& node_name) {
    ResourceList total;
    for (size_t d = 0; d < snap.daemon_sets.size(); ++d) {
      const Pod& ds = daemon_pods[d];
      if (!ToleratesAll(taints, ds.tolerations)) continue;
      if (!node_reqs.IsCompatible(StrictPodRequirements(ds), nullptr)) continue;
      bool running = false;
      for (const Pod* p : pods_on(node_name)) {
        for (const OwnerReference& o : p->metadata.owner_references) {
          if (o.kind == "DaemonSet" && o.name == snap.daemon_sets[d].metadata.name) running = true;
        }
      }
      if (!running) total.Add(ds.Requests());
    }
    return total;
  };
  auto catalog_type = [&](const std::string& pool, const std::map<std::string, std::string>& labels)
      -> const InstanceType* {
    auto name = labels.find(std::string(kLabelInstanceType));
    if (name == labels.end()) return nullptr;
    std::shared_ptr<const InstanceCatalog> c = catalog_of(pool);
    if (!c && !catalogs.empty()) c = catalogs.begin()->second;
    return c ? c->Find(name->second) : nullptr;
  };
  std::vector<ExistingNodeInit> existing;
  for (const Node& node : snap.nodes) {
    auto claim_it = claim_by_node.find(node.metadata.name);
    const NodeClaim* nc = claim_it == claim_by_node.end() ? nullptr : claim_it->second;
    if (NodeDeleting(node, nc) || node.unschedulable) continue;
    bool disrupted = false;
    for (const Taint& t : node.taints) disrupted |= t.key == DisruptedTaint().key;
    if (disrupted) continue;
    ExistingNodeInit e;
    e.name = node.metadata.name;
    auto pool = node.metadata.labels.find(std::string(kLabelNodePool));
    const bool managed = pool != node.metadata.labels.end() || nc != nullptr;
    if (pool != node.metadata.labels.end()) e.node_pool = pool->second;
    if (e.node_pool.empty() && nc != nullptr) e.node_pool = nc->NodePoolName();
    auto init = node.metadata.labels.find(std::string(kLabelInitialized));
    e.initialized = !managed || (init != node.metadata.labels.end() && init->second == "true") ||
                    (nc != nullptr && nc->ConditionTrue("Initialized"));
    e.requirements = Requirements::FromLabels(node.metadata.labels);
    if (!e.requirements.Has(kLabelHostname)) {
      e.requirements.Add(Requirement::In(kLabelHostname, {node.metadata.name}));
    }
    // An unregistered managed node's taints are not synced yet: its NodeClaim's count (§3).
    auto registered = node.metadata.labels.find(std::string(kLabelRegistered));
    const bool is_registered =
        (registered != node.metadata.labels.end() && registered->second == "true") ||
        (nc != nullptr && nc->ConditionTrue("Registered"));
    const std::vector<Taint>& base_taints =
        (managed && nc != nullptr && !is_registered) ? nc->taints : node.taints;
    e.taints = SchedulingTaints(base_taints, managed, e.initialized,
                                nc != nullptr ? nc->startup_taints : std::vector<Taint>{});
    ResourceList alloc = node.allocatable;
    if (!e.initialized && nc != nullptr) {
      // Until the node is initialized, resources it reports as zero (e.g. a device plugin not
      // yet registered) come from its NodeClaim.
      nc->allocatable.ForEach([&](std::string_view name, int64_t value) {
        if (alloc.Get(name) == 0) alloc.Set(name, value);
      });
    }
    for (const Pod* p : pods_on(node.metadata.name)) {
      if (p->IsTerminal()) continue;
      alloc.Subtract(p->Requests());
      std::vector<ContainerPort> ports = HostPorts(*p);
      e.host_ports.insert(e.host_ports.end(), ports.begin(), ports.end());
    }
    alloc.Subtract(daemon_overhead_for(e.requirements, e.taints, node.metadata.name));
    e.remaining = std::move(alloc);
    e.capacity = node.capacity;
    e.capacity.Set(kResourceNodes, 1);
    existing.push_back(std::move(e));
  }
  for (const NodeClaim* nc : snap.InFlightNodeClaims()) {
    if (nc->metadata.deletion_timestamp) continue;
    ExistingNodeInit e;
    e.name = nc->metadata.name;
    e.in_flight = true;
    e.initialized = false;
    e.node_pool = nc->NodePoolName();
    std::map<std::string, std::string> labels = nc->metadata.labels;
    for (const NodeSelectorRequirement& r : nc->requirements) {
      if (r.op == Operator::kIn && r.values.size() == 1 && labels.count(r.key) == 0) {
        labels[r.key] = r.values[0];
      }
    }
    e.requirements = Requirements::FromLabels(labels);
    e.requirements.Add(Requirement::In(kLabelHostname, {nc->metadata.name}));
    e.taints = SchedulingTaints(nc->taints, true, false, nc->startup_taints);
    ResourceList alloc = nc->allocatable;
    if (alloc.empty()) {
      if (const InstanceType* it = catalog_type(e.node_pool, labels)) alloc = it->Allocatable();
    }
    alloc.Subtract(daemon_overhead_for(e.requirements, e.taints, nc->metadata.name));
    e.remaining = std::move(alloc);
    e.capacity = nc->capacity;
    if (e.capacity.empty()) {
      if (const InstanceType* it = catalog_type(e.node_pool, labels)) e.capacity = it->capacity;
    }
    e.capacity.Set(kResourceNodes, 1);
    existing.push_back(std::move(e));
  }
  std::stable_sort(existing.begin(), existing.end(),
                   [](const ExistingNodeInit& a, const ExistingNodeInit& b) {
                     if (a.initialized != b.initialized) return a.initialized;
                     return a.name < b.name;
                   });
  state->storage = std::make_shared<const StorageIndex>(snap);
  scheduling::AttachVolumeLimits(snap, *state->storage, &existing);
  state->existing = std::move(existing);

  // NodePool limits minus the capacity of the pool's nodes (semantics §5.11).
  for (const NodePool* np : pools) {
    if (np->limits.empty()) continue;
    ResourceList remaining = np->limits;
    for (const Node& node : snap.nodes) {
      auto pool = node.metadata.labels.find(std::string(kLabelNodePool));
      if (pool == node.metadata.labels.end() || pool->second != np->name()) continue;
      ResourceList cap = node.capacity;
      cap.Set(kResourceNodes, 1);
      remaining.Subtract(cap);
    }
    for (const NodeClaim* nc : snap.InFlightNodeClaims()) {
      if (nc->NodePoolName() != np->name()) continue;
      ResourceList cap = nc->capacity;
      if (cap.empty()) {
        if (const InstanceType* it = catalog_type(np->name(), nc->metadata.labels)) cap = it->capacity;
      }
      cap.Set(kResourceNodes, 1);
      remaining.Subtract(cap);
    }
    state->remaining_limits[np->name()] = std::move(remaining);
  }
  return state;
}

}  // namespace

absl::Status SchedulerOptions::Validate() const {
  if (max_instance_types < 1) {
    return absl::InvalidArgumentError("scheduler options: max_instance_types must be >= 1");
  }
  if (time_limit <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("scheduler options: time_limit must be positive");
  }
  return absl::OkStatus();
}

double SolveResult::LaunchPricePerHour() const {
  double total = 0;
  for (const NewNodeClaim& nc : node_claims) {
    if (nc.launch) total += nc.launch->price;
  }
  return total;
}

absl::StatusOr<Scheduler> Scheduler::Create(const ClusterSnapshot& snapshot,
                                            std::shared_ptr<const InstanceCatalog> catalog,
                                            const SchedulerOptions& options) {
  if (!catalog) return absl::InvalidArgumentError("scheduler: catalog must not be null");
  absl::StatusOr<std::shared_ptr<State>> state =
      Prepare(std::make_shared<const ClusterSnapshot>(snapshot), {}, catalog, options, true);
  if (!state.ok()) return state.status();
  return Scheduler(std::move(*state));
}

absl::StatusOr<Scheduler> scheduling::CreateUnchecked(
    std::shared_ptr<const ClusterSnapshot> snapshot,
    std::shared_ptr<const InstanceCatalog> catalog, const SchedulerOptions& options,
    std::shared_ptr<const PoolsState> reuse) {
  absl::StatusOr<std::shared_ptr<Scheduler::State>> state =
      Prepare(std::move(snapshot), {}, std::move(catalog), options, false, std::move(reuse));
  if (!state.ok()) return state.status();
  return Scheduler(std::move(*state));
}

std::shared_ptr<const scheduling::PoolsState> scheduling::PoolsOf(const Scheduler& scheduler) {
  return scheduler.state_->pools;
}

absl::StatusOr<Scheduler> Scheduler::Create(
    const ClusterSnapshot& snapshot,
    std::map<std::string, std::shared_ptr<const InstanceCatalog>> catalogs_by_node_pool,
    const SchedulerOptions& options) {
  absl::StatusOr<std::shared_ptr<State>> state =
      Prepare(std::make_shared<const ClusterSnapshot>(snapshot), catalogs_by_node_pool, nullptr,
              options, true);
  if (!state.ok()) return state.status();
  return Scheduler(std::move(*state));
}

const SchedulerOptions& Scheduler::options() const { return state_->options; }

absl::StatusOr<SolveResult> Scheduler::Solve() const {
  // Pending pods, plus the reschedulable pods of nodes being deleted (semantics §5.3 step 3).
  std::vector<const Pod*> pods = state_->snapshot->PendingPods();
  std::set<std::string> deleting;
  std::map<std::string_view, const NodeClaim*> claim_by_node;
  for (const NodeClaim& nc : state_->snapshot->node_claims) {
    if (!nc.node_name.empty()) claim_by_node.emplace(nc.node_name, &nc);
  }
  for (const Node& n : state_->snapshot->nodes) {
    auto claim = claim_by_node.find(n.metadata.name);
    bool disrupted = NodeDeleting(n, claim == claim_by_node.end() ? nullptr : claim->second);
    for (const Taint& t : n.taints) disrupted |= t.key == DisruptedTaint().key;
    if (disrupted) deleting.insert(n.metadata.name);
  }
  if (!deleting.empty()) {
    for (const Pod& p : state_->snapshot->pods) {
      if (p.node_name.empty() || deleting.count(p.node_name) == 0) continue;
      if (p.IsDaemon() || p.IsOwnedBy("Node") || p.IsTerminal()) continue;
      if (p.IsTerminating() && !p.IsOwnedBy("StatefulSet")) continue;
      auto dnd = p.metadata.annotations.find(std::string(kAnnotationDoNotDisrupt));
      if (dnd != p.metadata.annotations.end() && dnd->second == "true") continue;
      pods.push_back(&p);
    }
  }
  return Solve(pods);
}

namespace {

absl::StatusOr<SolveResult> SolveImpl(const Scheduler::State& state,
                                      const std::vector<const Pod*>& pods,
                                      const scheduling::Simulation* simulation);

}  // namespace

absl::StatusOr<SolveResult> Scheduler::Solve(const std::vector<const Pod*>& pods) const {
  return SolveImpl(*state_, pods, nullptr);
}

absl::StatusOr<SolveResult> scheduling::Simulate(const Scheduler& scheduler,
                                                 const std::vector<const Pod*>& pods,
                                                 const Simulation& simulation) {
  return SolveImpl(*scheduler.state_, pods, &simulation);
}

namespace {

absl::StatusOr<SolveResult> SolveImpl(const Scheduler::State& state_ref,
                                      const std::vector<const Pod*>& pods,
                                      const scheduling::Simulation* simulation) {
  const Scheduler::State* state_ = &state_ref;
  std::vector<PodCtx> ctxs;
  ctxs.reserve(pods.size());
  std::set<std::string> keys;
  absl::flat_hash_map<std::string, size_t> label_classes;  // ids only; never iterated
  std::vector<PodError> rejected;
  for (const Pod* p : pods) {
    if (p == nullptr) return absl::InvalidArgumentError("scheduler: null pod");
    PodCtx c;
    c.original = p;
    c.working = *p;
    if (c.working.metadata.namespace_.empty()) c.working.metadata.namespace_ = "default";
    c.key = c.working.Key();
    {
      std::string signature = c.working.metadata.namespace_;
      for (const auto& [k, v] : c.working.metadata.labels) {
        signature.push_back('\0');
        signature += k;
        signature.push_back('\0');
        signature += v;
      }
      c.label_class = label_classes.emplace(std::move(signature), label_classes.size()).first->second;
    }
    if (!keys.insert(c.key).second) {
      return absl::InvalidArgumentError(internal::StrCat("pod ", c.key, ": duplicate"));
    }
    // Pod validation (semantics §5.3): such pods are ignored by the reference; karp reports
    // them so a person can act.
    std::string invalid = scheduling::PodValidationError(*p, state_->pools->well_known);
    if (!p->volumes.empty()) {
      // Volumes (semantics §5.3, §5.13); only pending pods are validated, as the reference.
      // The reference joins every reason of Validate, volume ones last.
      const bool validate = p->node_name.empty() &&
                            (simulation == nullptr || simulation->moving.count(c.key) == 0);
      absl::StatusOr<std::shared_ptr<const scheduling::PodVolumes>> v =
          scheduling::PodVolumesFor(*state_->storage, *p, validate);
      if (v.ok()) {
        c.volumes = std::move(*v);
      } else if (invalid.empty()) {
        invalid = internal::StrCat("ignoring pod, ", v.status().message());
      } else {
        invalid = internal::StrCat(invalid, "; ", v.status().message());
      }
    }
    if (!invalid.empty()) {
      rejected.push_back({c.key, invalid});
      continue;
    }
    Refresh(c, state_->options.preference_policy);
    ctxs.push_back(std::move(c));
  }
  Solver solver(*state_, std::move(ctxs), simulation);
  SolveResult result = solver.Run();
  result.pods = static_cast<int>(pods.size());
  if (!rejected.empty()) {
    result.pod_errors.insert(result.pod_errors.end(), rejected.begin(), rejected.end());
    std::sort(result.pod_errors.begin(), result.pod_errors.end(),
              [](const PodError& a, const PodError& b) { return a.pod < b.pod; });
  }
  return result;
}

}  // namespace

}  // namespace karp
