// The Solver of one Solve (docs/design.md §5): construction from the prepared state, the
// placement steps of Add (existing nodes, this solve's claims, a new claim per NodePool), the
// checks and commits of each step, preference relaxation and Run's queue. Finalize is in
// finalize.cc.

#include "scheduling/solver.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "scheduling/cost_packing.h"
#include "scheduling/instance_filter.h"
#include "scheduling/prepared_pods.h"

namespace karp::scheduling {
namespace {

// Reserved-offering errors (docs/design.md §5.15) are not relaxed and stop the NodePool fallback.
constexpr absl::StatusCode kReservedOfferingError = absl::StatusCode::kResourceExhausted;

bool HasPreferNoScheduleToleration(const Pod& pod) {
  for (const Toleration& t : pod.tolerations) {
    if (t.op == TolerationOperator::kExists && t.effect == TaintEffect::kPreferNoSchedule &&
        t.key.empty()) {
      return true;
    }
  }
  return false;
}

// Narrows a claim's requirements (`base`, or `*merged` once copied) by one volume topology
// alternative, noting the keys that changed for the filter. The alternative constrains the
// claim, never the pod. Kept out of line: pods without volumes never get here.
ABSL_ATTRIBUTE_NOINLINE absl::Status AddVolumeRequirements(const Requirements& base,
                                                           const Requirements& volume_reqs,
                                                           const LabelSet& well_known, bool explain,
                                                           std::optional<Requirements>* merged,
                                                           std::vector<std::string>* changed) {
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

bool IsWellKnown(std::string_view name) {
  switch (name.size()) {  // the four names differ in length
    case kResourceCpu.size():
      return name == kResourceCpu;
    case kResourcePods.size():
      return name == kResourcePods;
    case kResourceMemory.size():
      return name == kResourceMemory;
    case kResourceEphemeralStorage.size():
      return name == kResourceEphemeralStorage;
    default:
      return false;
  }
}

// False when `pod` certainly fits none of `claim`'s instance types: its requests plus the
// claim's exceed the largest allocatable of some resource (daemon overhead only adds).
bool MayFit(const ClaimState& claim, const PodCtx& pod) {
  const ResourceList& need = pod.requests;
  const ResourceList& max = claim.max_allocatable;
  const ResourceList& used = claim.requests;
  // Both sides are non-negative, so the difference cannot overflow.
  auto exceeds = [](int64_t value, int64_t most, int64_t in_use) {
    return value > 0 && value > most - in_use;
  };
  if (exceeds(need.cpu(), max.cpu(), used.cpu()) ||
      exceeds(need.memory(), max.memory(), used.memory()) ||
      exceeds(need.ephemeral_storage(), max.ephemeral_storage(), used.ephemeral_storage()) ||
      exceeds(need.pods(), max.pods(), used.pods())) {
    return false;
  }
  if (!need.HasExtended()) return true;
  // Without extended maxima every one is 0 (and `used` is not negative): any positive extended
  // request exceeds it, known without looking names up (GPU pods walking CPU-only claims).
  const bool any_max = max.HasExtended();
  bool fits = true;
  need.ForEach([&](std::string_view name, int64_t value) {
    if (!fits || IsWellKnown(name)) return;
    if (any_max ? exceeds(value, max.Get(name), used.Get(name)) : value > 0) fits = false;
  });
  return fits;
}

// `its` (ascending) as a bit set of `words` words; left empty when `its` is not ascending.
void BitsOf(const std::vector<int>& its, size_t words, std::vector<uint64_t>* bits) {
  bits->assign(words, 0);
  int last = -1;
  for (int i : its) {
    if (i <= last || static_cast<size_t>(i) >= words * 64) {
      bits->clear();
      return;
    }
    last = i;
    SetTypeBit(*bits, static_cast<size_t>(i));
  }
}

// False when no type of `claim` has the headroom for its requests plus `pod`'s, a condition
// FastFilter's resource check implies (it also subtracts the daemon overhead, and more).
bool AnyTypeHasRoom(const ClaimState& claim, const PodCtx& pod) {
  ResourceList total = claim.requests;
  total.Add(pod.requests);
  const std::vector<ResourceList>& headroom = claim.tmpl->headroom;
  for (int i : claim.its) {
    if (headroom[static_cast<size_t>(i)].Admits(total)) return true;
  }
  return false;
}

// The four well-known resources of `v` (absent as 0): cpu, memory, ephemeral-storage, pods.
std::array<int64_t, 4> WellKnown(const ResourceList& v) {
  return {v.cpu(), v.memory(), v.ephemeral_storage(), v.pods()};
}

// Whether a type's value `x` may attain the claim's maximum `m` of a resource. Only the
// well-known resources are followed, and a maximum of 0 or less is left as it is: the other
// maxima stay as they were when a type attaining them drops, so the claim's maximum is exact on
// the well-known resources and an upper bound on the others, which is all its uses (pre-filters
// of the exact check: MayFit, the first-fit index's room) need.
bool Attains(int64_t x, int64_t m) { return m > 0 && x >= m; }

// Whether `v` is strictly below `max` on each followed resource (false also when it ties: a
// dropped type that ties a maximum may have been the one attaining it).
bool BelowMax(const ResourceList& v, const ResourceList& max) {
  const std::array<int64_t, 4> x = WellKnown(v);
  const std::array<int64_t, 4> m = WellKnown(max);
  for (size_t k = 0; k < 4; ++k) {
    if (Attains(x[k], m[k])) return false;
  }
  return true;
}

// True when `max` (the per-resource maximum of `value(i)` over the types `i` of `before`) is
// still the maximum over `after`, a subsequence of `before`: every type `after` drops is
// strictly below `max` on each of its resources, so none of them attained a maximum. The
// dropped types are mostly the small ones (a claim's growing requests filter them out), so the
// maximum rarely needs a recomputation over every remaining type. False (recompute) when
// `after` is not a subsequence of `before`.
template <typename ValueOf>
bool KeepsMax(const std::vector<int>& before, const std::vector<int>& after, ValueOf value,
              const ResourceList& max) {
  if (after.size() == before.size()) return after == before;
  size_t a = 0;
  for (int i : before) {
    if (a < after.size() && after[a] == i) {
      ++a;
      continue;
    }
    if (!BelowMax(value(i), max)) return false;
  }
  return a == after.size();
}

// KeepsMax when the dropped types are known (`after` is `before` less `dropped`): none of
// them attained a maximum.
template <typename ValueOf>
bool NoneAttainsMax(const std::vector<int>& dropped, ValueOf value, const ResourceList& max) {
  for (int i : dropped) {
    if (!BelowMax(value(i), max)) return false;
  }
  return true;
}

// Whether claim.max_allocatable stays the maximum over claim.its less `dropped` (claim.its
// still the list before the drop): yes when no dropped type ties it, or when each maximum a
// dropped type ties is still attained by a type that stays (counted in max_attainers).
bool DropKeepsMax(ClaimState& claim, const std::vector<int>& dropped) {
  const std::vector<ResourceList>& headroom = claim.tmpl->headroom;
  const ResourceList& max = claim.max_allocatable;
  auto head = [&](int i) -> const ResourceList& { return headroom[static_cast<size_t>(i)]; };
  if (NoneAttainsMax(dropped, head, max)) return true;
  // Per followed resource, the types attaining the maximum.
  const std::array<int64_t, 4> m = WellKnown(max);
  std::array<int64_t, 4>& attainers = claim.max_attainers;
  if (!claim.max_attainers_valid) {
    attainers = {};
    for (int i : claim.its) {
      const std::array<int64_t, 4> x = WellKnown(head(i));
      for (size_t k = 0; k < 4; ++k) attainers[k] += Attains(x[k], m[k]) ? 1 : 0;
    }
    claim.max_attainers_valid = true;
  }
  bool kept = true;
  for (int i : dropped) {
    const std::array<int64_t, 4> x = WellKnown(head(i));
    for (size_t k = 0; k < 4; ++k) {
      if (Attains(x[k], m[k]) && --attainers[k] <= 0) kept = false;
    }
  }
  if (!kept) claim.max_attainers_valid = false;
  return kept;
}

// True if `capacity` exceeds none of a NodePool's `remaining` limits.
bool WithinLimits(const ResourceList& capacity, const ResourceList& remaining) {
  bool within = true;
  remaining.ForEach([&](std::string_view name, int64_t left) {
    if (within && capacity.Get(name) > left) within = false;
  });
  return within;
}

}  // namespace

// One relaxation step (docs/design.md §5.7). Returns false when nothing could be relaxed.
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
    pod.tolerations.push_back(
        {"", TolerationOperator::kExists, "", TaintEffect::kPreferNoSchedule});
    return true;
  }
  return false;
}

namespace {

std::vector<PodInput> OwnInputs(size_t n) {
  std::vector<PodInput> inputs(n);
  for (size_t i = 0; i < n; ++i) inputs[i].own = i;
  return inputs;
}

}  // namespace

Solver::Solver(const Scheduler::State& state, std::vector<PodCtx> pods,
               const Simulation* simulation, const CostPolicy* cost)
    : Solver(state, std::move(pods), OwnInputs(pods.size()), simulation) {
  cost_ = cost;
}

Solver::Solver(const Scheduler::State& state, std::vector<PodCtx>&& pods,
               std::vector<PodInput> inputs, const Simulation* simulation)
    : state_(state), pods_(std::move(pods)), simulation_(simulation) {
  size_t label_classes = 0;
  refs_.reserve(inputs.size());
  if (simulation == nullptr) scheduling_.reserve(inputs.size());  // every pod is its own
  for (const PodInput& in : inputs) {
    refs_.push_back(in.shared != nullptr ? PodRef{in.shared, nullptr}
                                         : PodRef{nullptr, &pods_[in.own]});
    const PodCtx& p = View(refs_.size() - 1);
    // Topology looks scheduling_ up for bound pods only.
    if (in.shared == nullptr || in.bound_key) scheduling_.insert(p.key);
    label_classes = std::max(label_classes, p.label_class + 1);
  }
  label_caches_.resize(label_classes);
  topology_ = std::make_unique<Topology>(
      state_.snapshot.get(), &state_.pools->universe, state_.options.preference_policy,
      &scheduling_, &state_.nodes_by_name, &state_.bound_anti_affinity_pods,
      simulation_ != nullptr ? state_.bound_counts.get() : nullptr);
  remaining_limits_ = state_.remaining_limits;
  // Capacity per reservation: the minimum over the offerings that carry it.
  for (const Template& t : state_.pools->templates) {
    for (const InstanceType* it : t.instance_types) {
      for (const Offering& o : it->offerings) {
        if (o.capacity_type != kCapacityTypeReserved || o.reservation_id.empty()) continue;
        auto [pos, inserted] =
            reservation_capacity_.emplace(o.reservation_id, o.reservation_capacity);
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
        limits->second.ForEach(
            [&](std::string_view name, int64_t) { restored.Set(name, back.Get(name)); });
        limits->second = std::move(restored);
      }
      continue;
    }
    ExistingNodeState s;
    s.init = &e;
    s.remaining = e.remaining;
    existing_.push_back(std::move(s));
  }
  for (size_t i = 0; i < existing_.size(); ++i) IndexExisting(i);
}

void Solver::IndexExisting(size_t i) {
  const int64_t id = static_cast<int64_t>(i);
  if (existing_index_.Contains(id)) existing_index_.Erase(id);
  const ResourceList& r = existing_[i].remaining;
  existing_index_.Insert(id, 0, {r.cpu(), r.memory(), r.pods()});
}

FirstFitIndex::Room Solver::RoomOf(const ClaimState& claim) {
  const ResourceList& max = claim.max_allocatable;
  const ResourceList& used = claim.requests;
  return {max.cpu() - used.cpu(), max.memory() - used.memory(), max.pods() - used.pods()};
}

void Solver::IndexClaim(ClaimState& claim) {
  const FirstFitIndex::Room room = RoomOf(claim);
  const int64_t rank = static_cast<int64_t>(claim.pods.size());
  std::vector<FirstFitIndex>& by_zone = claim_index_by_taints_[TaintSetOf(claim)];
  if (claim.index_bucket >= 0) by_zone[static_cast<size_t>(claim.index_bucket)].Erase(claim.seq);
  const size_t bucket = static_cast<size_t>(claim.pinned_zone_id + 1);
  if (by_zone.size() <= bucket) by_zone.resize(bucket + 1);
  by_zone[bucket].Insert(claim.seq, rank, room);
  claim.index_bucket = static_cast<int>(bucket);
}

size_t Solver::TaintSetOf(const ClaimState& claim) {
  if (claim.taint_set >= 0) return static_cast<size_t>(claim.taint_set);
  const std::vector<Taint>& taints = claim.tmpl->taints;
  size_t set = 0;
  while (set < taint_sets_.size() && *taint_sets_[set] != taints) ++set;
  if (set == taint_sets_.size()) {
    taint_sets_.push_back(&taints);
    claim_index_by_taints_.emplace_back();
  }
  return set;
}

Solver::ClaimCursor::ClaimCursor(const Solver& solver, const std::vector<char>& tolerated,
                                 const std::vector<std::vector<int>>& zone_check_ids,
                                 const FirstFitIndex::Room& need) {
  // A claim pinned to a zone outside any of zone_check_ids' lists is blocked: its index is
  // left out (bucket 0, the unpinned claims, always stays).
  auto zone_allowed = [&](size_t bucket) {
    for (const std::vector<int>& allowed : zone_check_ids) {
      if (std::find(allowed.begin(), allowed.end(), static_cast<int>(bucket) - 1) ==
          allowed.end()) {
        return false;
      }
    }
    return true;
  };
  for (size_t set = 0; set < solver.claim_index_by_taints_.size(); ++set) {
    if (set >= tolerated.size() || tolerated[set] == 0) continue;
    const std::vector<FirstFitIndex>& by_zone = solver.claim_index_by_taints_[set];
    for (size_t bucket = 0; bucket < by_zone.size(); ++bucket) {
      if (bucket > 0 && !zone_allowed(bucket)) continue;
      cursors_.emplace_back(by_zone[bucket], need);
    }
  }
  Pick();
}

void Solver::ClaimCursor::Pick() {
  // The least key over the indexes' heads (a claim is in exactly one index).
  best_ = -1;
  for (size_t i = 0; i < cursors_.size(); ++i) {
    if (cursors_[i].id() < 0) continue;
    if (best_ < 0 || cursors_[i].key() < cursors_[static_cast<size_t>(best_)].key()) {
      best_ = static_cast<int64_t>(i);
    }
  }
}

void Solver::ClaimCursor::Advance() {
  cursors_[static_cast<size_t>(best_)].Advance();
  Pick();
}

absl::Status Solver::ExistingVolumeUsage(const ExistingNodeState& node, const PodCtx& pod) const {
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

absl::Status Solver::CanAddExisting(ExistingNodeState& node, PodCtx& pod, Requirements* out_reqs) {
  if (!ToleratesAll(node.init->taints, pod.working().tolerations)) {
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
  // Volume topology (docs/design.md §5.13): the first alternative the node satisfies. It narrows
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
  if (absl::Status s = topology_->AddRequirements(pod.working(), pod.groups, node.init->taints,
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

void Solver::CommitExisting(ExistingNodeState& node, PodCtx& pod, Requirements reqs) {
  node.pods.push_back(pod.key);
  node.remaining.Subtract(pod.requests);
  IndexExisting(static_cast<size_t>(&node - existing_.data()));
  node.narrowed = std::move(reqs);
  if (pod.volumes != nullptr && node.init->volumes != nullptr) {
    if (!node.volumes) node.volumes = node.init->volumes->usage;
    AddVolumeUsage(pod.volumes->usage, &*node.volumes);
  }
  node.added_ports.insert(node.added_ports.end(), pod.ports.begin(), pod.ports.end());
  topology_->Record(pod.working(), pod.key, node.init->taints, node.requirements(),
                    &label_caches_[pod.label_class], &pod.record_cache);
}

absl::StatusOr<ClaimFit> Solver::CanAddClaim(ClaimState& claim, PodCtx& pod, bool relax_min_values,
                                             bool explain) {
  if (pod.volumes == nullptr || pod.volumes->topology.alternatives.empty()) {
    return CanAddClaimWith(claim, pod, nullptr, relax_min_values, explain);
  }
  // Volume topology (docs/design.md §5.13): the first alternative the claim can take; the error is
  // the last alternative's, as the reference.
  absl::StatusOr<ClaimFit> last;
  for (const Requirements& alt : pod.volumes->topology.alternatives) {
    last = CanAddClaimWith(claim, pod, &alt, relax_min_values, explain);
    if (last.ok()) return last;
  }
  return last;
}

absl::Status Solver::MergeClaimRequirements(const ClaimState& claim, PodCtx& pod,
                                            const Requirements* volume_reqs, bool explain,
                                            std::optional<Requirements>* merged,
                                            std::vector<std::string>* changed) {
  const Template& t = *claim.tmpl;
  const LabelSet& wk = state_.pools->well_known;
  // Merge the pod's requirements, noting which keys actually narrowed; copy the claim's
  // requirements only when something changes.
  for (const Requirement& r : pod.requirements) {
    const Requirement* before = claim.requirements.Find(r.key());
    if (before != nullptr && (SameUnbounded(*before, r) || IntersectionKeeps(*before, r))) {
      continue;
    }
    if (!*merged) *merged = claim.requirements;
    (*merged)->Add(r);
    changed->push_back(r.key());
  }
  if (volume_reqs != nullptr) {
    if (absl::Status s =
            AddVolumeRequirements(claim.requirements, *volume_reqs, wk, explain, merged, changed);
        !s.ok()) {
      return s;
    }
  }
  std::vector<Requirement> narrowing;
  if (!pod.groups.empty()) {
    if (absl::Status s = topology_->AddRequirements(pod.working(), pod.groups, t.taints, pod.strict,
                                                    *merged ? **merged : claim.requirements,
                                                    &narrowing, explain);
        !s.ok()) {
      return s;
    }
  }
  if (narrowing.empty()) return absl::OkStatus();
  Requirements topo;
  for (const Requirement& r : narrowing) topo.Add(r);
  const Requirements& base = *merged ? **merged : claim.requirements;
  if (!base.IsCompatible(topo, &wk)) {
    if (!explain) return absl::FailedPreconditionError("incompatible topology requirements");
    return base.Compatible(topo, &wk);
  }
  if (!*merged) *merged = claim.requirements;
  for (const Requirement& r : topo) {
    (*merged)->Add(r);
    if (std::find(changed->begin(), changed->end(), r.key()) == changed->end()) {
      changed->push_back(r.key());
    }
  }
  return absl::OkStatus();
}

absl::Status Solver::Reservations(const ClaimState& claim, const std::vector<int>& kept,
                                  const Requirements& reqs,
                                  std::set<std::string>* to_reserve) const {
  const Template& t = *claim.tmpl;
  bool any_compatible = false;
  for (int i : kept) {
    for (const Offering& o : t.instance_types[static_cast<size_t>(i)]->offerings) {
      if (!o.available || o.capacity_type != kCapacityTypeReserved || o.reservation_id.empty() ||
          !OfferingCompatible(reqs, o)) {
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
  if (state_.options.reserved_capacity_mode != ReservedCapacityMode::kStrict) {
    return absl::OkStatus();
  }
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
  return absl::OkStatus();
}

absl::StatusOr<ClaimFit> Solver::CanAddClaimWith(ClaimState& claim, PodCtx& pod,
                                                 const Requirements* volume_reqs,
                                                 bool relax_min_values, bool explain) {
  const Template& t = *claim.tmpl;
  if (!ToleratesAll(t.taints, pod.working().tolerations)) {
    if (!explain) return absl::FailedPreconditionError("did not tolerate taint");
    return Tolerates(t.taints, pod.working().tolerations);
  }
  const LabelSet& wk = state_.pools->well_known;
  if (!claim.requirements.IsCompatible(pod.requirements, &wk)) {
    if (!explain) return absl::FailedPreconditionError("incompatible requirements");
    absl::Status s = claim.requirements.Compatible(pod.requirements, &wk);
    return absl::FailedPreconditionError(
        internal::StrCat("incompatible requirements, ", s.message()));
  }
  // Resources first, before the topology merge: when no type has room the filter keeps none.
  if (!explain && !AnyTypeHasRoom(claim, pod)) {
    return absl::FailedPreconditionError("no instance type");
  }
  ClaimFit fit;
  std::optional<Requirements>& merged = fit.requirements;
  std::vector<std::string> changed;
  if (absl::Status s = MergeClaimRequirements(claim, pod, volume_reqs, explain, &merged, &changed);
      !s.ok()) {
    return s;
  }
  const Requirements& reqs_view = merged ? *merged : claim.requirements;
  ResourceList requests = claim.requests;
  requests.Add(pod.requests);
  TakeBuffers(fit);
  std::vector<int>& kept = fit.instance_types;
  if (claim.its_bits.empty() && t.has_headroom_rows()) BitsOf(claim.its, t.words, &claim.its_bits);
  FastFilter(t, claim.its, reqs_view, changed, requests, pod.ports, claim.ports, &kept,
             &fit.dropped, claim.its_bits.empty() ? nullptr : &claim.its_bits, &fit.instance_bits,
             &fit.all_kept);
  fit.dropped_known = true;
  auto materialize = [&]() -> Requirements& {
    if (!merged) merged = claim.requirements;
    return *merged;
  };
  if (!fit.types(claim).empty() && reqs_view.HasMinValues()) {
    Requirements& reqs = materialize();
    // minValues over the kept types (docs/design.md §1.10); the slow path relaxes or explains.
    std::vector<const InstanceType*> types;
    for (int i : fit.types(claim)) types.push_back(t.instance_types[static_cast<size_t>(i)]);
    if (!SatisfiesMinValues(types, reqs).ok()) {
      fit.dropped_known = false;
      fit.all_kept = false;
      fit.instance_bits.clear();
      if (relax_min_values) {
        FilterOutcome f = FilterInstanceTypes(t, claim.its, reqs, requests, pod.ports, claim.ports,
                                              /*relax_min_values=*/true);
        kept = std::move(f.kept);
        fit.relaxed_min_values = f.relaxed_min_values;
      } else {
        kept.clear();
      }
    }
  }
  if (fit.types(claim).empty()) {
    Recycle(fit);
    if (!explain) return absl::FailedPreconditionError("no instance type");
    Requirements& reqs = materialize();
    FilterOutcome f =
        FilterInstanceTypes(t, claim.its, reqs, requests, pod.ports, claim.ports, relax_min_values);
    return f.error.ok() ? absl::FailedPreconditionError("no instance type") : f.error;
  }
  // Reserved offerings (docs/design.md §5.15): the compatible reserved offerings of the kept types,
  // and those this claim can hold (already held, or the reservation has capacity left).
  if (!reservation_capacity_.empty()) {
    if (absl::Status s = Reservations(claim, fit.types(claim),
                                      merged ? *merged : claim.requirements, &fit.reservations);
        !s.ok()) {
      Recycle(fit);
      return s;
    }
  }
  return fit;
}

void Solver::TakeBuffers(ClaimFit& fit) {
  fit.instance_types = std::move(spare_kept_);
  fit.dropped = std::move(spare_dropped_);
  fit.instance_bits = std::move(spare_bits_);
}

void Solver::Recycle(ClaimFit& fit) {
  if (fit.instance_types.capacity() > spare_kept_.capacity()) {
    spare_kept_ = std::move(fit.instance_types);
  }
  if (fit.dropped.capacity() > spare_dropped_.capacity()) spare_dropped_ = std::move(fit.dropped);
  if (fit.instance_bits.capacity() > spare_bits_.capacity()) {
    spare_bits_ = std::move(fit.instance_bits);
  }
  fit.instance_types.clear();
  fit.dropped.clear();
  fit.instance_bits.clear();
  fit.all_kept = false;
}

void Solver::CommitClaim(ClaimState& claim, PodCtx& pod, ClaimFit fit) {
  if (claim.target >= 0) IndexOpenClaim(claim, /*insert=*/false);
  const bool requirements_changed = fit.requirements.has_value();
  // Reserve new reservations, release dropped ones (idempotent per claim and reservation).
  std::set<std::string>& to_reserve = fit.reservations;
  for (const std::string& id : to_reserve) {
    if (claim.reserved_ids.count(id) == 0) --reservation_capacity_[id];
  }
  for (const std::string& id : claim.reserved_ids) {
    if (to_reserve.count(id) == 0) ++reservation_capacity_[id];
  }
  claim.reserved_ids = std::move(to_reserve);
  claim.pods.push_back(pod.key);
  if (claim.max_allocatable_valid) {
    const std::vector<ResourceList>& headroom = claim.tmpl->headroom;
    auto value = [&](int i) -> const ResourceList& { return headroom[static_cast<size_t>(i)]; };
    claim.max_allocatable_valid =
        fit.dropped_known ? DropKeepsMax(claim, fit.dropped)
                          : KeepsMax(claim.its, fit.types(claim), value, claim.max_allocatable);
  }
  if (!fit.all_kept) {                       // else the claim keeps its types (and their bits)
    claim.its.swap(fit.instance_types);      // the old list's buffer goes back to the filter
    claim.its_bits.swap(fit.instance_bits);  // empty (rebuilt when needed) unless the filter set it
  }
  Recycle(fit);
  claim.requests.Add(pod.requests);
  if (fit.requirements) claim.requirements = std::move(*fit.requirements);
  const Requirement* zone = claim.requirements.Find(kLabelZone);
  if (claim.pods.size() > 1) --pinned_claims_[claim.pinned_zone];
  claim.pinned_zone = (zone != nullptr && zone->op() == Operator::kIn && zone->values().size() == 1)
                          ? zone->values()[0]
                          : std::string();
  claim.pinned_zone_id = claim.pinned_zone.empty() ? -1 : ZoneId(claim.pinned_zone);
  ++pinned_claims_[claim.pinned_zone];
  claim.ports.insert(claim.ports.end(), pod.ports.begin(), pod.ports.end());
  if (!claim.max_allocatable_valid) {
    claim.max_allocatable = ResourceList();
    for (int i : claim.its)
      claim.max_allocatable.MaxWith(claim.tmpl->headroom[static_cast<size_t>(i)]);
    claim.max_allocatable_valid = true;
    claim.max_attainers_valid = false;
  }
  IndexClaim(claim);
  topology_->Record(pod.working(), pod.key, claim.tmpl->taints, claim.requirements,
                    &label_caches_[pod.label_class], &pod.record_cache, &claim.hostname,
                    static_cast<int32_t>(claim.seq));
  IndexFreeClaim(claim);  // after Record: the claim's counts include the pod
  if (claim.target >= 0) {
    // The launch price changes only if the current launch type left or the offerings did.
    if (requirements_changed || claim.current_type < 0 ||
        std::find(claim.its.begin(), claim.its.end(), claim.current_type) == claim.its.end()) {
      claim.current_price =
          cost_->LaunchPrice(*claim.tmpl, claim.its, claim.requirements, &claim.current_type);
    }
    IndexOpenClaim(claim, /*insert=*/true);
  }
}

void Solver::IndexOpenClaim(const ClaimState& claim, bool insert) {
  FirstFitIndex& bucket = open_claims_[{claim.tmpl, claim.capacity_rank}];
  if (!insert) {
    if (bucket.Contains(claim.seq)) bucket.Erase(claim.seq);
    return;
  }
  const FirstFitIndex::Room room = CostClaimRoom(claim);
  bucket.Insert(claim.seq, room[0], room);
}

absl::Status Solver::Add(PodCtx& pod) {
  pod.groups = topology_->GroupsFor(pod.working(), pod.key, pod.label_class);
  if (PlaceOnExisting(pod)) return absl::OkStatus();
  if (PlaceOnClaim(pod)) return absl::OkStatus();
  return PlaceOnNewClaim(pod);
}

bool Solver::PlaceOnExisting(PodCtx& pod) {
  const bool moving = simulation_ != nullptr && simulation_->moving.count(pod.key) > 0;
  // Only nodes with room for the pod's cpu, memory and pod slot (Fits' own comparison).
  const FirstFitIndex::Room need = {pod.requests.cpu(), pod.requests.memory(), pod.requests.pods()};
  for (FirstFitIndex::Cursor cursor(existing_index_, need); cursor.id() >= 0; cursor.Advance()) {
    ExistingNodeState& node = existing_[static_cast<size_t>(cursor.id())];
    if (moving && simulation_->under_consolidate_after.count(node.init->name) > 0) continue;
    // Most nodes of a running cluster are full or of the wrong kind: reject them on resources,
    // taints and requirements, three of CanAddExisting's own (pure) checks, without building
    // an error status per node.
    if (!Fits(pod.requests, node.remaining) ||
        !ToleratesAll(node.init->taints, pod.working().tolerations) ||
        !node.requirements().IsCompatible(pod.requirements, nullptr)) {
      continue;
    }
    Requirements reqs;
    if (!CanAddExisting(node, pod, &reqs).ok()) continue;
    CommitExisting(node, pod, std::move(reqs));
    return true;
  }
  return false;
}

bool Solver::AllClaimsBlocked(const std::vector<Topology::HostnameCheck>& host_checks,
                              const std::vector<std::vector<std::string>>& zone_checks) const {
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
  return all_blocked;
}

bool Solver::PlaceOnClaim(PodCtx& pod) {
  // Fewest pods first (ties: creation order). Claims that a hostname topology group certainly
  // rejects are skipped by slot in O(1).
  // The checks live in the solver's buffers (reused pod after pod; PlaceOnClaim does not
  // nest).
  std::vector<Topology::HostnameCheck>& host_checks = scratch_host_checks_;
  std::vector<std::vector<std::string>>& zone_checks = scratch_zone_checks_;
  topology_->HostnameChecks(pod.working(), pod.groups, &host_checks);
  topology_->PinnedZoneChecks(pod.working(), pod.groups, pod.strict, &zone_checks);
  if (AllClaimsBlocked(host_checks, zone_checks)) return false;
  // The allowed zones as ids; a zone no claim was ever pinned to cannot match one.
  std::vector<std::vector<int>>& zone_check_ids = scratch_zone_ids_;
  zone_check_ids.resize(zone_checks.size());
  for (size_t i = 0; i < zone_checks.size(); ++i) {
    zone_check_ids[i].clear();
    for (const std::string& z : zone_checks[i]) {
      auto id = zone_ids_.find(z);
      if (id != zone_ids_.end()) zone_check_ids[i].push_back(id->second);
    }
  }
  if (cost_ != nullptr) return PlaceOnClaimCost(pod, host_checks, zone_check_ids);
  // In first-fit order (fewest pods, then creation), only claims with room for the pod's cpu,
  // memory and pod slot (MayFit's own comparison).
  auto need_of = [](int64_t v) { return v > 0 ? v : FirstFitIndex::kAny; };
  const FirstFitIndex::Room need = {need_of(pod.requests.cpu()), need_of(pod.requests.memory()),
                                    need_of(pod.requests.pods())};
  // Claims whose taints the pod does not tolerate fail CanAddClaim first thing: skipped.
  std::vector<char>& tolerated = scratch_tolerated_;
  tolerated.resize(taint_sets_.size());
  for (size_t set = 0; set < taint_sets_.size(); ++set) {
    tolerated[set] = ToleratesAll(*taint_sets_[set], pod.working().tolerations) ? 1 : 0;
  }
  // One claim of the walk: false to go on, true when the pod was placed.
  auto try_claim = [&](ClaimState& claim) {
    if (ClaimBlocked(claim, host_checks, zone_check_ids) || !MayFit(claim, pod)) return false;
    absl::StatusOr<ClaimFit> fit =
        CanAddClaim(claim, pod, /*relax_min_values=*/false, /*explain=*/false);
    if (!fit.ok()) return false;
    CommitClaim(claim, pod, *std::move(fit));
    return true;
  };
  // A group that limits the pod to claims where it counts no pod and blocks many claims: walk
  // only its free claims (the same order, minus claims the walk below would skip as blocked).
  if (const FirstFitIndex* free = FreeIndexFor(host_checks); free != nullptr) {
    for (FirstFitIndex::Cursor cursor(*free, need); cursor.id() >= 0; cursor.Advance()) {
      ClaimState& claim = *claims_[static_cast<size_t>(cursor.id())];
      if (tolerated[static_cast<size_t>(claim.taint_set)] == 0) continue;
      if (try_claim(claim)) return true;
    }
    return false;
  }
  int64_t blocked = 0;
  for (ClaimCursor cursor(*this, tolerated, zone_check_ids, need); cursor.id() >= 0;
       cursor.Advance()) {
    ClaimState& claim = *claims_[static_cast<size_t>(cursor.id())];
    if (ClaimBlocked(claim, host_checks, zone_check_ids)) {
      ++blocked;
      continue;
    }
    if (try_claim(claim)) return true;
  }
  if (blocked >= FreeIndexMinBlocked()) AddFreeIndexes(host_checks);
  return false;
}

namespace {
std::atomic<int64_t> free_index_min_blocked{kFreeIndexMinBlocked};
}  // namespace

int64_t FreeIndexMinBlocked() { return free_index_min_blocked.load(std::memory_order_relaxed); }
void SetFreeIndexMinBlockedForTesting(int64_t n) {
  free_index_min_blocked.store(n, std::memory_order_relaxed);
}

void Solver::IndexFreeClaim(const ClaimState& claim) {
  if (free_indexes_.empty()) return;
  const FirstFitIndex::Room room = RoomOf(claim);
  const int64_t rank = static_cast<int64_t>(claim.pods.size());
  for (FreeIndex& f : free_indexes_) {
    if (f.index.Contains(claim.seq)) f.index.Erase(claim.seq);
    if (f.group->SlotCount(static_cast<int>(claim.seq)) == 0) f.index.Insert(claim.seq, rank, room);
  }
}

const FirstFitIndex* Solver::FreeIndexFor(
    const std::vector<Topology::HostnameCheck>& host_checks) const {
  for (const auto& check : host_checks) {
    if (check.limit != 0) continue;
    for (const FreeIndex& f : free_indexes_) {
      if (f.group == check.group) return &f.index;
    }
  }
  return nullptr;
}

void Solver::AddFreeIndexes(const std::vector<Topology::HostnameCheck>& host_checks) {
  for (const auto& check : host_checks) {
    if (free_indexes_.size() >= kMaxFreeIndexes) return;
    if (check.limit != 0 || check.group->SlotsAbove(0) < FreeIndexMinBlocked()) continue;
    if (FreeIndexFor({check}) != nullptr) continue;  // the group has one already
    free_indexes_.push_back({check.group, FirstFitIndex()});
    FirstFitIndex& index = free_indexes_.back().index;
    for (const auto& claim : claims_) {
      if (check.group->SlotCount(static_cast<int>(claim->seq)) > 0) continue;
      index.Insert(claim->seq, static_cast<int64_t>(claim->pods.size()), RoomOf(*claim));
    }
  }
}

bool Solver::ClaimBlocked(const ClaimState& claim,
                          const std::vector<Topology::HostnameCheck>& host_checks,
                          const std::vector<std::vector<int>>& zone_check_ids) const {
  for (const auto& check : host_checks) {
    if (check.group->SlotCount(static_cast<int>(claim.seq)) > check.limit) return true;
  }
  if (claim.pinned_zone_id >= 0) {
    for (const std::vector<int>& allowed : zone_check_ids) {
      if (std::find(allowed.begin(), allowed.end(), claim.pinned_zone_id) == allowed.end()) {
        return true;
      }
    }
  }
  return false;
}

bool Solver::PlaceOnPlannedClaim(PodCtx& pod,
                                 const std::vector<Topology::HostnameCheck>& host_checks,
                                 const std::vector<std::vector<int>>& zone_check_ids) {
  auto group = group_claims_.find(pod.plan_group);
  if (group == group_claims_.end()) return false;  // the first pod of its node opens the claim
  ClaimState& claim = *claims_[static_cast<size_t>(group->second)];
  if (ClaimBlocked(claim, host_checks, zone_check_ids) || !MayFit(claim, pod)) return false;
  absl::StatusOr<ClaimFit> fit =
      CanAddClaim(claim, pod, /*relax_min_values=*/false, /*explain=*/false);
  if (!fit.ok()) return false;
  CommitClaim(claim, pod, *std::move(fit));
  return true;
}

bool Solver::PlaceOnClaimCost(PodCtx& pod, const std::vector<Topology::HostnameCheck>& host_checks,
                              const std::vector<std::vector<int>>& zone_check_ids) {
  if (pod.plan_group >= 0) return PlaceOnPlannedClaim(pod, host_checks, zone_check_ids);
  // Templates in the pod's order (by weight unless PoolOrder::kPrice); within one, the claims
  // launching the pod's capacity type whose target has at least the pod's cpu left, least room
  // first (best fit decreasing). Of the first kMaxFits claims that take the pod, the one whose
  // launch price rises least; a claim that takes it for free ends the search.
  constexpr int kMaxFits = 4;
  constexpr int kMaxChecks = 16;
  ClaimState* best = nullptr;
  std::optional<ClaimFit> best_fit;
  double best_delta = 0;
  int fits = 0;
  int checks = 0;
  for (const Template* tp : cost_->Order(pod)) {
    const Template& t = *tp;
    auto bucket = open_claims_.find({&t, cost_->Rank(t, pod.requirements)});
    if (bucket == open_claims_.end()) continue;
    // A template the pod cannot use would only spend the check budget on refusals.
    if (!ToleratesAll(t.taints, pod.working().tolerations) ||
        !t.requirements.IsCompatible(pod.requirements, &state_.pools->well_known)) {
      continue;
    }
    // The claims with room for the pod's cpu (and, indexed, memory and slots), in the order
    // of (cpu room, creation): see CostClaimNeed for why the walk's answer is the same.
    for (FirstFitIndex::Cursor it(bucket->second, CostClaimNeed(pod));
         it.id() >= 0 && fits < kMaxFits && checks < kMaxChecks; it.Advance()) {
      ClaimState& claim = *claims_[static_cast<size_t>(it.id())];
      if (!cost_->Admits(claim, pod) || ClaimBlocked(claim, host_checks, zone_check_ids) ||
          !MayFit(claim, pod)) {
        continue;
      }
      ++checks;
      absl::StatusOr<ClaimFit> fit =
          CanAddClaim(claim, pod, /*relax_min_values=*/false, /*explain=*/false);
      if (!fit.ok() || std::find(fit->types(claim).begin(), fit->types(claim).end(),
                                 claim.target) == fit->types(claim).end()) {
        continue;
      }
      ++fits;
      // Free when the claim's current launch type still takes it with the same offerings.
      const bool same_type =
          !fit->requirements && std::find(fit->types(claim).begin(), fit->types(claim).end(),
                                          claim.current_type) != fit->types(claim).end();
      const double delta = same_type ? 0.0
                                     : cost_->LaunchPrice(t, fit->types(claim),
                                                          fit->requirements ? *fit->requirements
                                                                            : claim.requirements) -
                                           claim.current_price;
      if (best == nullptr || delta < best_delta - 1e-12) {
        best = &claim;
        best_fit = *std::move(fit);
        best_delta = delta;
      }
      if (best_delta <= 1e-12) break;
    }
    if ((best != nullptr && best_delta <= 1e-12) || fits >= kMaxFits || checks >= kMaxChecks) break;
  }
  if (best == nullptr) return false;
  CommitClaim(*best, pod, *std::move(best_fit));
  return true;
}

std::vector<int> Solver::LimitedCandidates(const Template& t, std::string* skip_reason) const {
  const std::string& pool = t.pool->name();
  std::vector<int> candidates;
  auto limits = remaining_limits_.find(pool);
  if (limits == remaining_limits_.end()) {
    candidates.resize(t.instance_types.size());
    for (size_t i = 0; i < candidates.size(); ++i) candidates[i] = static_cast<int>(i);
    return candidates;
  }
  if (limits->second.Has(kResourceNodes) && limits->second.Get(kResourceNodes) == 0) {
    *skip_reason = internal::StrCat("node limits have been exhausted for nodepool \"", pool, "\"");
    return candidates;
  }
  // Limits only shrink during a solve, so the types within them only shrink too: the last
  // list stands while every limit still covers its largest capacity, else it is re-filtered.
  const ResourceList& remaining = limits->second;
  LimitMemo& memo = limit_memo_[&t];
  if (!memo.valid || !WithinLimits(memo.max_capacity, remaining)) {
    std::vector<int> kept;
    auto keep = [&](int i) {
      if (WithinLimits(t.instance_types[static_cast<size_t>(i)]->capacity, remaining)) {
        kept.push_back(i);
      }
    };
    if (memo.valid) {
      for (int i : memo.candidates) keep(i);
    } else {
      for (size_t i = 0; i < t.instance_types.size(); ++i) keep(static_cast<int>(i));
    }
    memo.max_capacity = ResourceList();
    for (int i : kept)
      memo.max_capacity.MaxWith(t.instance_types[static_cast<size_t>(i)]->capacity);
    memo.candidates = std::move(kept);
    memo.valid = true;
  }
  candidates = memo.candidates;
  if (candidates.empty()) {
    *skip_reason =
        internal::StrCat("all available instance types exceed limits for nodepool \"", pool, "\"");
  }
  return candidates;
}

void Solver::OpenClaim(std::unique_ptr<ClaimState> claim, PodCtx& pod, ClaimFit fit) {
  ++next_seq_;
  claim->min_values_relaxed |= fit.relaxed_min_values;
  topology_->RegisterClaimSlot(claim->hostname, static_cast<int>(claim->seq));
  topology_->RegisterHostname(claim->hostname);
  claim->taint_set = static_cast<int>(TaintSetOf(*claim));
  const bool planned = cost_ != nullptr && pod.plan_group >= 0 &&
                       group_claims_.emplace(pod.plan_group, claim->seq).second;
  // Cost mode: the target is chosen on the fit, before the commit indexes the claim.
  if (cost_ != nullptr && !planned) cost_->ChooseTarget(*claim, fit, pod);
  CommitClaim(*claim, pod, std::move(fit));
  auto limits = remaining_limits_.find(claim->tmpl->pool->name());
  if (limits != remaining_limits_.end()) {
    // The largest capacity of the claim's types: usually that of the NodePool's candidates
    // (LimitMemo), which the claim's types are a subset of.
    const std::vector<const InstanceType*>& types = claim->tmpl->instance_types;
    auto capacity = [&](int i) -> const ResourceList& {
      return types[static_cast<size_t>(i)]->capacity;
    };
    auto memo = limit_memo_.find(claim->tmpl);
    if (memo != limit_memo_.end() && memo->second.valid &&
        KeepsMax(memo->second.candidates, claim->its, capacity, memo->second.max_capacity)) {
      limits->second.Subtract(memo->second.max_capacity);
    } else {
      ResourceList max_capacity;
      for (int i : claim->its) max_capacity.MaxWith(capacity(i));
      limits->second.Subtract(max_capacity);
    }
  }
  if (!claim->tmpl->requirements.HasMinValues()) ++certain_claims_;
  claims_.push_back(std::move(claim));
}

absl::Status Solver::PlaceOnNewClaim(PodCtx& pod) {
  if (!state_.pools->has_node_pools) return absl::FailedPreconditionError(kNoDynamicNodePools);
  if (state_.pools->templates.empty()) {
    return absl::FailedPreconditionError(
        "nodepool requirements filtered out all available instance types");
  }
  std::vector<std::string> errors;
  const std::vector<Template>& templates = state_.pools->templates;
  for (size_t k = 0; k < templates.size(); ++k) {
    // Weight order, or the cost mode's order for this pod (CostPolicy::Order).
    const Template& t = cost_ != nullptr ? *cost_->Order(pod)[k] : templates[k];
    std::string skip_reason;
    std::vector<int> candidates = LimitedCandidates(t, &skip_reason);
    if (!skip_reason.empty()) {
      errors.push_back(std::move(skip_reason));
      continue;
    }
    auto claim = std::make_unique<ClaimState>();
    claim->tmpl = &t;
    claim->seq = next_seq_;
    claim->hostname = internal::StrCat("hostname-placeholder-", next_seq_);
    claim->requirements = t.requirements;
    claim->requirements.Add(Requirement::In(kLabelHostname, {claim->hostname}));
    if (candidates.size() == t.instance_types.size()) {  // every type: the template's maximum
      claim->max_allocatable = t.max_headroom;
      claim->max_allocatable_valid = true;
    }
    claim->its = std::move(candidates);
    claim->min_values_relaxed = t.min_values_relaxed;
    absl::StatusOr<ClaimFit> fit =
        CanAddClaim(*claim, pod, state_.options.min_values_policy == MinValuesPolicy::kBestEffort,
                    /*explain=*/true);
    if (fit.status().code() == kReservedOfferingError) {
      // No fallback to lower-weight NodePools while a higher one has compatible reservations.
      return fit.status();
    }
    if (!fit.ok()) {
      errors.push_back(internal::StrCat("incompatible with nodepool \"", t.pool->name(), "\", ",
                                        fit.status().message()));
      continue;
    }
    OpenClaim(std::move(claim), pod, *std::move(fit));
    return absl::OkStatus();
  }
  std::string message = absl::StrJoin(errors, "; ");
  if (pod.volumes != nullptr && !pod.volumes->topology.explanation.empty()) {
    internal::StrAppend(&message, "; the pod's volumes restrict where it can run: ",
                        pod.volumes->topology.explanation);
  }
  return absl::FailedPreconditionError(message);
}

PodCtx& Solver::Own(size_t i) {
  PodRef& r = refs_[i];
  if (r.own == nullptr) {
    copied_.push_back(*r.shared);
    r.own = &copied_.back();
  }
  return *r.own;
}

namespace {

// The fields of the queue order (docs/design.md §5.5) gathered once per pod, so that sorting
// compares flat keys instead of reaching each pod through its reference.
struct QueueKey {
  int64_t cpu;
  int64_t memory;
  absl::Time created;
  uint64_t uid_bytes;  // UidBytes: the uids' order where these differ
  const std::string* uid;
  const std::string* key;
  size_t index;
};

// Queue order: cpu desc, memory desc, creation asc, uid asc, then key (unique within a Solve,
// so the order is total).
inline bool KeyBefore(const QueueKey& x, const QueueKey& y) {
  if (x.cpu != y.cpu) return x.cpu > y.cpu;
  if (x.memory != y.memory) return x.memory > y.memory;
  if (x.created != y.created) return x.created < y.created;
  if (x.uid_bytes != y.uid_bytes) return x.uid_bytes < y.uid_bytes;
  if (*x.uid != *y.uid) return *x.uid < *y.uid;
  return *x.key < *y.key;
}

// The 8 bytes of `uid` from `from` on (zero-padded), big-endian. When every uid compared
// shares its first `from` bytes, a smaller value means a smaller uid (equal values decide
// nothing: the strings are then compared).
uint64_t UidBytes(std::string_view uid, size_t from) {
  uint64_t v = 0;
  for (size_t k = 0; k < 8; ++k) {
    const size_t i = from + k;
    v = (v << 8) | (i < uid.size() ? static_cast<unsigned char>(uid[i]) : 0u);
  }
  return v;
}

QueueKey KeyOf(const PodCtx& p, size_t index, size_t uid_prefix) {
  const std::string& uid = p.original->metadata.uid;
  return {p.requests.cpu(),
          p.requests.memory(),
          p.original->metadata.creation_timestamp,
          UidBytes(uid, uid_prefix),
          &uid,
          &p.key,
          index};
}

}  // namespace

bool Solver::QueueBefore(size_t a, size_t b) const {
  return KeyBefore(KeyOf(View(a), a, 0), KeyOf(View(b), b, 0));
}

std::vector<uint32_t> Solver::QueuePermutation(const std::vector<size_t>& indices) const {
  // One pass over the pods (each context and pod read once): the keys, and the uids' first
  // kUidCopy bytes in one compact buffer. Generated uids often share a long prefix (the bytes
  // before a counter): the integer key starts after the prefix every uid shares, which is
  // the common prefix of the smallest and the largest uid.
  constexpr size_t kUidCopy = 48;
  std::vector<QueueKey> keys;
  keys.reserve(indices.size());
  std::vector<char> uid_bytes(indices.size() * kUidCopy, 0);
  const std::string* lo = nullptr;
  const std::string* hi = nullptr;
  for (size_t k = 0; k < indices.size(); ++k) {
    const PodCtx& p = View(indices[k]);
    const std::string& uid = p.original->metadata.uid;
    keys.push_back({p.requests.cpu(), p.requests.memory(), p.original->metadata.creation_timestamp,
                    0, &uid, &p.key, k});
    std::copy_n(uid.data(), std::min(uid.size(), kUidCopy), &uid_bytes[k * kUidCopy]);
    if (lo == nullptr || uid < *lo) lo = &uid;
    if (hi == nullptr || *hi < uid) hi = &uid;
  }
  size_t prefix = 0;
  if (lo != nullptr) {
    while (prefix < lo->size() && prefix < hi->size() && (*lo)[prefix] == (*hi)[prefix]) ++prefix;
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    const std::string& uid = *keys[k].uid;
    keys[k].uid_bytes =
        prefix + 8 <= kUidCopy || uid.size() <= kUidCopy
            ? UidBytes(std::string_view(&uid_bytes[k * kUidCopy], std::min(uid.size(), kUidCopy)),
                       prefix)
            : UidBytes(uid, prefix);
  }
  // A lambda, not the function pointer, so that the comparison is inlined into the sort.
  std::sort(keys.begin(), keys.end(),
            [](const QueueKey& x, const QueueKey& y) { return KeyBefore(x, y); });
  std::vector<uint32_t> perm(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) perm[k] = static_cast<uint32_t>(keys[k].index);
  return perm;
}

std::vector<size_t> Solver::SharedQueueOrder(const std::vector<size_t>& shared) const {
  std::vector<const PodCtx*> contexts(shared.size());
  for (size_t k = 0; k < shared.size(); ++k) contexts[k] = refs_[shared[k]].shared;
  PreparedPods& cache = *state_.prepared_pods;
  std::vector<uint32_t> perm;
  {
    absl::MutexLock lock(&cache.mu);
    if (cache.queue_inputs == contexts) perm = cache.queue_order;
  }
  if (perm.size() != shared.size()) {
    perm = QueuePermutation(shared);
    absl::MutexLock lock(&cache.mu);
    cache.queue_inputs = std::move(contexts);
    cache.queue_order = perm;
  }
  std::vector<size_t> order(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) order[k] = shared[perm[k]];
  return order;
}

std::vector<size_t> Solver::QueueOrder() const {
  // The shared contexts (the same pending pods in every simulation) keep their order between
  // simulations; the others are sorted and merged in (the same order: it is total).
  std::vector<size_t> shared, own;
  for (size_t i = 0; i < refs_.size(); ++i)
    (refs_[i].shared != nullptr ? shared : own).push_back(i);
  auto before = [&](size_t a, size_t b) { return QueueBefore(a, b); };
  {
    const std::vector<uint32_t> perm = QueuePermutation(own);
    std::vector<size_t> sorted(own.size());
    for (size_t k = 0; k < perm.size(); ++k) sorted[k] = own[perm[k]];
    own = std::move(sorted);
  }
  std::vector<size_t> order;
  if (shared.empty()) {
    order = std::move(own);
  } else {
    const std::vector<size_t> sorted_shared = SharedQueueOrder(shared);
    order.reserve(refs_.size());
    std::merge(sorted_shared.begin(), sorted_shared.end(), own.begin(), own.end(),
               std::back_inserter(order), before);
  }
  if (cost_ != nullptr) {
    std::stable_partition(order.begin(), order.end(),
                          [&](size_t i) { return !View(i).pinned_dear; });
  }
  if (cost_ != nullptr && cost_->strategy().exclusive_first) {
    std::stable_partition(order.begin(), order.end(), [&](size_t i) {
      for (const PodAffinityTerm& t : View(i).working().pod_anti_affinity.required) {
        if (t.topology_key == kLabelHostname) return true;
      }
      return false;
    });
  }
  return order;
}

SolveResult Solver::Run() {
  const std::vector<size_t> order = QueueOrder();
  topology_->InitExisting();
  for (const ExistingNodeInit& e : state_.existing) topology_->RegisterHostname(e.name);
  // A pod's topology groups as its spec is now (kept prototypes: its original spec).
  auto update_groups = [&](const PodCtx& p, bool original, bool first = false) {
    if (original && p.prototypes != nullptr) {
      topology_->Update(p.working(), p.key, *p.prototypes, first);
    } else {
      topology_->Update(p.working(), p.key);
    }
  };
  for (size_t i = 0; i < refs_.size(); ++i) update_groups(View(i), true, /*first=*/true);

  const bool limited = state_.options.time_limit != absl::InfiniteDuration();
  const absl::Time deadline =
      limited ? absl::Now() + state_.options.time_limit : absl::InfiniteFuture();
  std::deque<size_t> queue(order.begin(), order.end());
  std::vector<size_t> last_len(refs_.size(), 0);
  std::map<std::string, std::string> errors;
  bool timed_out = false;
  const int stop_at = simulation_ != nullptr ? simulation_->stop_at_new_claims : 0;
  while (!queue.empty()) {
    if (stop_at > 0 && certain_claims_ >= stop_at) {
      if (simulation_->stopped != nullptr) *simulation_->stopped = true;
      return SolveResult{};
    }
    const size_t idx = queue.front();
    if (last_len[idx] == queue.size()) break;  // a full cycle without progress
    if (limited && absl::Now() > deadline) {
      timed_out = true;
      break;
    }
    queue.pop_front();
    PodCtx& pod = Own(idx);
    absl::Status s;
    while (true) {
      s = Add(pod);
      if (s.ok()) break;
      if (s.code() == kReservedOfferingError) break;  // deferred, never relaxed
      if (!Relax(MutableWorking(pod), state_.pools->tolerate_prefer_no_schedule)) break;
      update_groups(pod, /*original=*/false);
      Refresh(pod, state_.options.preference_policy);
    }
    if (s.ok()) {
      errors.erase(pod.key);
      continue;
    }
    errors[pod.key] = std::string(s.message());
    pod.changed = nullptr;  // back to the original spec
    update_groups(pod, /*original=*/true);
    Refresh(pod, state_.options.preference_policy);
    queue.push_back(idx);
    last_len[idx] = queue.size();
  }
  return Finalize(std::move(errors), timed_out);
}

Pod& Solver::MutableWorking(PodCtx& pod) {
  // A copy no other context shares (use_count 1: nothing else can start sharing it, since only
  // this context refers to it) is changed in place; it was made as a mutable Pod.
  if (pod.changed == nullptr || pod.changed.use_count() > 1) {
    pod.changed = std::make_shared<Pod>(pod.working());
  }
  return const_cast<Pod&>(*pod.changed);
}

std::vector<std::string> Solver::RelaxedPods() const {
  std::vector<std::string> relaxed;
  for (size_t i = 0; i < refs_.size(); ++i) {
    const PodCtx& p = View(i);
    const Pod& w = p.working();
    const Pod& o = *p.original;
    if (w.node_affinity.required.size() != o.node_affinity.required.size() ||
        w.node_affinity.preferred.size() != o.node_affinity.preferred.size() ||
        w.pod_affinity.preferred.size() != o.pod_affinity.preferred.size() ||
        w.pod_anti_affinity.preferred.size() != o.pod_anti_affinity.preferred.size() ||
        w.topology_spread_constraints.size() != o.topology_spread_constraints.size() ||
        w.tolerations.size() != o.tolerations.size()) {
      relaxed.push_back(p.key);
    }
  }
  std::sort(relaxed.begin(), relaxed.end());
  return relaxed;
}

}  // namespace karp::scheduling
