// A new NodeClaim of this solve (docs/design.md §5.6, karpenter's nodeclaim.go): whether a
// pod fits it (requirements, volumes, topology, instance types, reservations) and what
// committing the pod changes; the claim's headroom maxima that let first fit skip it early.

#include "scheduling/solver.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "scheduling/cost_packing.h"
#include "scheduling/instance_filter.h"

namespace karp::scheduling {
namespace {

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

// `types` (ascending) as a bit set of `words` words; left empty when `types` is not ascending.
void BitsOf(const std::vector<int>& types, size_t words, std::vector<uint64_t>* bits) {
  bits->assign(words, 0);
  int last = -1;
  for (int i : types) {
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
bool AnyTypeHasRoom(const ClaimState& claim, const PodData& pod) {
  ResourceList total = claim.requests;
  total.Add(pod.requests);
  const std::vector<ResourceList>& headroom = claim.claim_template->headroom;
  for (int i : claim.types) {
    if (headroom[static_cast<size_t>(i)].Admits(total)) return true;
  }
  return false;
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

// Whether claim.max_allocatable stays the maximum over claim.types less `dropped` (claim.types
// still the list before the drop): yes when no dropped type ties it, or when each maximum a
// dropped type ties is still attained by a type that stays (counted in max_attainers).
bool DropKeepsMax(ClaimState& claim, const std::vector<int>& dropped) {
  const std::vector<ResourceList>& headroom = claim.claim_template->headroom;
  const ResourceList& max = claim.max_allocatable;
  auto head = [&](int i) -> const ResourceList& { return headroom[static_cast<size_t>(i)]; };
  if (NoneAttainsMax(dropped, head, max)) return true;
  // Per followed resource, the types attaining the maximum.
  const std::array<int64_t, 4> m = WellKnown(max);
  std::array<int64_t, 4>& attainers = claim.max_attainers;
  if (!claim.max_attainers_valid) {
    attainers = {};
    for (int i : claim.types) {
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

}  // namespace

// False when `pod` certainly fits none of `claim`'s instance types: its requests plus the
// claim's exceed the largest allocatable of some resource (daemon overhead only adds).
bool MayFit(const ClaimState& claim, const PodData& pod) {
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

absl::StatusOr<ClaimFit> Solver::CanAddClaim(ClaimState& claim, PodData& pod, bool relax_min_values,
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

absl::Status Solver::MergeClaimRequirements(const ClaimState& claim, PodData& pod,
                                            const Requirements* volume_reqs, bool explain,
                                            std::optional<Requirements>* merged,
                                            std::vector<std::string>* changed) {
  const Template& t = *claim.claim_template;
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
  const Template& t = *claim.claim_template;
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

absl::StatusOr<ClaimFit> Solver::CanAddClaimWith(ClaimState& claim, PodData& pod,
                                                 const Requirements* volume_reqs,
                                                 bool relax_min_values, bool explain) {
  const Template& t = *claim.claim_template;
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
  if (claim.type_bits.empty() && t.has_headroom_rows())
    BitsOf(claim.types, t.words, &claim.type_bits);
  FastFilter(t, claim.types, reqs_view, changed, requests, pod.ports, claim.ports, &kept,
             &fit.dropped, claim.type_bits.empty() ? nullptr : &claim.type_bits, &fit.instance_bits,
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
        FilterOutcome f =
            FilterInstanceTypes(t, claim.types, reqs, requests, pod.ports, claim.ports,
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
    FilterOutcome f = FilterInstanceTypes(t, claim.types, reqs, requests, pod.ports, claim.ports,
                                          relax_min_values);
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

void Solver::CommitClaim(ClaimState& claim, PodData& pod, ClaimFit fit) {
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
    const std::vector<ResourceList>& headroom = claim.claim_template->headroom;
    auto value = [&](int i) -> const ResourceList& { return headroom[static_cast<size_t>(i)]; };
    claim.max_allocatable_valid =
        fit.dropped_known ? DropKeepsMax(claim, fit.dropped)
                          : KeepsMax(claim.types, fit.types(claim), value, claim.max_allocatable);
  }
  if (!fit.all_kept) {                     // else the claim keeps its types (and their bits)
    claim.types.swap(fit.instance_types);  // the old list's buffer goes back to the filter
    claim.type_bits.swap(
        fit.instance_bits);  // empty (rebuilt when needed) unless the filter set it
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
    for (int i : claim.types)
      claim.max_allocatable.MaxWith(claim.claim_template->headroom[static_cast<size_t>(i)]);
    claim.max_allocatable_valid = true;
    claim.max_attainers_valid = false;
  }
  IndexClaim(claim);
  topology_->Record(pod.working(), pod.key, claim.claim_template->taints, claim.requirements,
                    &label_caches_[pod.label_class], &pod.record_cache, &claim.hostname,
                    static_cast<int32_t>(claim.seq));
  IndexFreeClaim(claim);  // after Record: the claim's counts include the pod
  if (claim.target >= 0) {
    // The launch price changes only if the current launch type left or the offerings did.
    if (requirements_changed || claim.current_type < 0 ||
        std::find(claim.types.begin(), claim.types.end(), claim.current_type) ==
            claim.types.end()) {
      claim.current_price = cost_->LaunchPrice(*claim.claim_template, claim.types,
                                               claim.requirements, &claim.current_type);
    }
    IndexOpenClaim(claim, /*insert=*/true);
  }
}

}  // namespace karp::scheduling
