// Instance-type filtering of a NodeClaim (docs/design.md §5.10): FilterInstanceTypes (the full
// filter: minValues relaxation and the reference's twelve error messages), FastFilter (the
// incremental hot-path filter over per-key requirement classes), and the offering masks of a
// template.

#include "scheduling/instance_filter.h"

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/numeric/bits.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::scheduling {
namespace {

// What the full filter saw over the candidates, for its error message.
struct FilterScan {
  std::vector<int> kept;
  bool req_met = false, fits_any = false, offering_any = false;
  bool req_and_fits = false, req_and_offering = false, fits_and_offering = false;
  // Minimum and maximum daemon overhead over the candidates without port conflicts.
  ResourceList min_overhead, max_overhead;
  bool overhead_seen = false;
};

// The candidates that intersect `reqs`, have a compatible available offering and fit
// `requests` plus their daemon overhead without host port conflicts.
FilterScan ScanTypes(const Template& t, const std::vector<int>& candidates,
                     const Requirements& reqs, const ResourceList& requests,
                     const std::vector<ContainerPort>& pod_ports,
                     const std::vector<ContainerPort>& claim_ports) {
  FilterScan out;
  std::vector<char> group_conflict(t.daemon_groups.size(), 2);  // 2: unknown
  for (int i : candidates) {
    const int g = t.daemon_group[static_cast<size_t>(i)];
    const DaemonGroup& group = t.daemon_groups[static_cast<size_t>(g)];
    char& conflict = group_conflict[static_cast<size_t>(g)];
    if (conflict == 2) {
      conflict =
          (HostPortsConflict(pod_ports, group.ports) || HostPortsConflict(pod_ports, claim_ports))
              ? 1
              : 0;
    }
    if (conflict == 1) continue;
    if (!out.overhead_seen) {
      out.min_overhead = group.overhead;
      out.max_overhead = group.overhead;
      out.overhead_seen = true;
    } else {
      out.min_overhead.MinWith(group.overhead);
      out.max_overhead.MaxWith(group.overhead);
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
    out.req_met |= compat;
    out.fits_any |= fits;
    out.offering_any |= has_offering;
    out.req_and_fits |= compat && fits && !has_offering;
    out.req_and_offering |= compat && has_offering && !fits;
    out.fits_and_offering |= fits && has_offering && !compat;
    if (compat && fits && has_offering) out.kept.push_back(i);
  }
  return out;
}

std::string MinValuesError(const std::vector<const InstanceType*>& types,
                           const Requirements& reqs) {
  absl::StatusOr<size_t> r = SatisfiesMinValues(types, reqs);
  return r.ok() ? std::string() : std::string(r.status().message());
}

// Lowers each unsatisfiable minValues of `reqs` to the count `types` achieve. Returns true if
// any was lowered.
bool LowerMinValues(const std::vector<const InstanceType*>& types, Requirements& reqs) {
  bool lowered_any = false;
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
      lowered_any = true;
    }
  }
  return lowered_any;
}

// The reason no type was kept, in the reference's words (docs/design.md §5.10).
std::string NoInstanceTypeReason(const FilterScan& scan, const ResourceList& requests) {
  if (!scan.req_met && !scan.fits_any && !scan.offering_any) {
    return "no instance type met the scheduling requirements or had enough resources or had a "
           "required offering";
  }
  if (!scan.req_met && !scan.fits_any) {
    return "no instance type met the scheduling requirements or had enough resources";
  }
  if (!scan.req_met && !scan.offering_any) {
    return "no instance type met the scheduling requirements or had a required offering";
  }
  if (!scan.fits_any && !scan.offering_any) {
    return "no instance type had enough resources or had a required offering";
  }
  if (!scan.req_met) return "no instance type met all requirements";
  if (!scan.fits_any) {
    std::string prefix = "no instance type has enough resources";
    if (requests.cpu() >= 1000000LL * 1000) prefix += " (CPU request >= 1 Million, m vs M typo?)";
    return prefix;
  }
  if (!scan.offering_any) return "no instance type has the required offering";
  if (scan.req_and_fits) {
    return "no instance type which met the scheduling requirements and had enough resources, "
           "had a required offering";
  }
  if (scan.fits_and_offering) {
    return "no instance type which had enough resources and the required offering met the "
           "scheduling requirements";
  }
  if (scan.req_and_offering) {
    return "no instance type which met the scheduling requirements and the required offering "
           "had the required resources";
  }
  return "no instance type met the requirements/resources/offering tuple";
}

// The filter's error: `prefix`, the requirements and the requests with daemon overhead (a
// range when the overhead differs between the candidates).
absl::Status FilterError(const std::string& prefix, const FilterScan& scan,
                         const Requirements& reqs, const ResourceList& requests) {
  std::string resources;
  if (!scan.overhead_seen || scan.min_overhead == scan.max_overhead) {
    ResourceList total = requests;
    if (scan.overhead_seen) total.Add(scan.min_overhead);
    resources = total.ToString();
  } else {
    ResourceList lo = requests, hi = requests;
    lo.Add(scan.min_overhead);
    hi.Add(scan.max_overhead);
    resources = internal::StrCat("min=", lo.ToString(), ", max=", hi.ToString());
  }
  return absl::FailedPreconditionError(
      internal::StrCat(prefix, ", requirements=", reqs.ToString(), ", resources=", resources));
}

// True if instance type i of `t` has an available offering allowed by `mask`; `mask_bits` is
// the mask as bits (MaskBits) when the template has Template::available_offering_bits.
bool HasOffering(const Template& t, size_t i, const std::vector<char>& mask, uint64_t mask_bits) {
  if (!t.available_offering_bits.empty()) return (t.available_offering_bits[i] & mask_bits) != 0;
  const InstanceType* it = t.instance_types[i];
  const std::vector<int>& keys = t.offering_key_of[i];
  for (size_t o = 0; o < keys.size(); ++o) {
    if (it->offerings[o].available && mask[static_cast<size_t>(keys[o])]) return true;
  }
  return false;
}

// Fits(total, alloc) for a template's allocatable, which is never negative (PrefilterTypes):
// the four inline comparisons when `total` has only well-known resources.
inline bool FitsAllocatable(const ResourceList& total, const ResourceList& alloc) {
  if (total.HasExtended()) return Fits(total, alloc);
  return total.cpu() <= alloc.cpu() && total.memory() <= alloc.memory() &&
         total.ephemeral_storage() <= alloc.ephemeral_storage() && total.pods() <= alloc.pods();
}

// Keys whose types fall into at most this many classes are decided class by class up front.
constexpr size_t kEagerClasses = 64;

// Whether types whose requirement on a key is `have` stay compatible with `r` on that key:
// the requirements intersect, or both only exclude values.
bool ClassAllows(const Requirement& have, const Requirement& r) {
  if (have.HasIntersection(r)) return true;
  const Operator a = have.op(), b = r.op();
  return (a == Operator::kNotIn || a == Operator::kDoesNotExist) &&
         (b == Operator::kNotIn || b == Operator::kDoesNotExist);
}

// An offering mask of at most 64 pairs as bits (Template::available_offering_bits).
uint64_t MaskBits(const std::vector<char>& mask) {
  uint64_t bits = 0;
  for (size_t k = 0; k < mask.size(); ++k) {
    if (mask[k]) bits |= uint64_t{1} << k;
  }
  return bits;
}

}  // namespace

FilterOutcome FilterInstanceTypes(const Template& t, const std::vector<int>& candidates,
                                  Requirements& reqs, const ResourceList& requests,
                                  const std::vector<ContainerPort>& pod_ports,
                                  const std::vector<ContainerPort>& claim_ports,
                                  bool relax_min_values) {
  FilterScan scan = ScanTypes(t, candidates, reqs, requests, pod_ports, claim_ports);
  FilterOutcome out;
  out.kept = std::move(scan.kept);
  // minValues (docs/design.md §1.10).
  std::string min_values_error;
  if (!out.kept.empty() && reqs.HasMinValues()) {
    std::vector<const InstanceType*> types;
    for (int i : out.kept) types.push_back(t.instance_types[static_cast<size_t>(i)]);
    min_values_error = MinValuesError(types, reqs);
    if (!min_values_error.empty()) {
      if (relax_min_values) {
        out.relaxed_min_values = LowerMinValues(types, reqs);
        min_values_error.clear();
      } else {
        out.kept.clear();
      }
    }
  }
  if (!out.kept.empty()) return out;
  const std::string prefix =
      !min_values_error.empty() ? min_values_error : NoInstanceTypeReason(scan, requests);
  out.error = FilterError(prefix, scan, reqs, requests);
  return out;
}

std::vector<char> Template::OfferingMask(const Requirements& reqs) const {
  std::vector<char> mask(offering_keys.size(), 0);
  const Requirement* zone = reqs.Find(kLabelZone);
  const Requirement* ct = reqs.Find(kLabelCapacityType);
  for (size_t k = 0; k < offering_keys.size(); ++k) {
    mask[k] = (zone == nullptr || zone->Has(offering_keys[k].first)) &&
              (ct == nullptr || ct->Has(offering_keys[k].second));
  }
  return mask;
}

namespace {

// The types of `t` that FilterWellKnown keeps, as a bit set over the types, from the
// template's rows (Template::headroom_rows): the four resource rows the requests select, less
// `rejected`, and when the offerings changed, the union of the allowed pairs' types.
void KeepBits(const Template& t, const std::array<int64_t, 4>& need,
              const std::vector<uint64_t>& rejected, bool offerings_changed, uint64_t mask_bits,
              absl::InlinedVector<uint64_t, 16>& keep) {
  const size_t words = t.words;
  keep.assign(words, ~uint64_t{0});
  for (size_t k = 0; k < 4; ++k) {
    const Template::HeadroomRows& rows = t.headroom_rows[k];
    const size_t j = static_cast<size_t>(
        std::lower_bound(rows.values.begin(), rows.values.end(), need[k]) - rows.values.begin());
    if (j == rows.values.size()) {  // no type has that much headroom
      keep.assign(words, 0);
      return;
    }
    if (j == 0) continue;  // row 0 holds every type
    const uint64_t* row = &rows.at_least[j * words];
    for (size_t w = 0; w < words; ++w) keep[w] &= row[w];
  }
  for (size_t w = 0; w < rejected.size() && w < words; ++w) keep[w] &= ~rejected[w];
  if (offerings_changed) {
    absl::InlinedVector<uint64_t, 16> offered(words, 0);
    for (uint64_t bits = mask_bits; bits != 0; bits &= bits - 1) {
      const std::vector<uint64_t>& pair =
          t.offering_pair_types[static_cast<size_t>(absl::countr_zero(bits))];
      for (size_t w = 0; w < words; ++w) offered[w] |= pair[w];
    }
    for (size_t w = 0; w < words; ++w) keep[w] &= offered[w];
  }
}

// The bits set in `x`, inline (absl::popcount becomes a library call without -mpopcnt).
inline size_t PopCount(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<size_t>((x * 0x0101010101010101ULL) >> 56);
}

// The candidates in `keep` (a bit set over the types), by words: `candidate_bits` is
// `candidates` (ascending) as bits, so a word's candidates are a run of `candidates`, copied
// whole when all of them stay; the others are emitted from the words' bits. No test per
// candidate and no zero-filled buffer. When none stays, `dropped` is left empty (a refusal
// needs no list).
void FilterByWords(size_t words, const std::vector<int>& candidates,
                   const std::vector<uint64_t>& candidate_bits, const uint64_t* keep,
                   std::vector<int>* kept, std::vector<int>* dropped,
                   std::vector<uint64_t>* kept_bits, bool* all_kept) {
  bool any_dropped = false, any_kept = false;
  for (size_t w = 0; w < words; ++w) {
    any_dropped |= (candidate_bits[w] & ~keep[w]) != 0;
    any_kept |= (candidate_bits[w] & keep[w]) != 0;
  }
  if (!any_kept) {  // the claim refuses the pod: no list is needed, `dropped` stays empty
    kept->clear();
    if (dropped != nullptr) dropped->clear();
    kept_bits->assign(words, 0);
    return;
  }
  if (all_kept != nullptr && !any_dropped) {  // every candidate stays: nothing to write
    *all_kept = true;
    kept->clear();
    if (dropped != nullptr) dropped->clear();
    kept_bits->assign(candidate_bits.begin(), candidate_bits.end());
    return;
  }
  kept->clear();
  kept->reserve(candidates.size());
  if (dropped != nullptr) dropped->clear();
  kept_bits->resize(words);
  const int* const first = candidates.data();
  size_t pos = 0;  // the word's candidates are candidates[pos, pos + popcount(have))
  for (size_t w = 0; w < words; ++w) {
    const uint64_t have = candidate_bits[w];
    const uint64_t stay = have & keep[w];
    (*kept_bits)[w] = stay;
    const size_t run = PopCount(have);
    const int base = static_cast<int>(w * 64);
    if (stay == have) {  // the whole run stays (the common case): a copy
      kept->insert(kept->end(), first + pos, first + pos + run);
    } else {
      for (uint64_t x = stay; x != 0; x &= x - 1) kept->push_back(base + absl::countr_zero(x));
      if (dropped != nullptr) {
        for (uint64_t x = have & ~stay; x != 0; x &= x - 1) {
          dropped->push_back(base + absl::countr_zero(x));
        }
      }
    }
    pos += run;
  }
}

// FastFilter's common case, without branches per type: only well-known resources in the
// requests and the daemon overheads, no changed key left to check per type (`rejected` holds
// the types the changed keys and host-port conflicts exclude), offerings as bits. By words
// with `candidate_bits` (FilterByWords), else one bit test per candidate in the set KeepBits
// computes (without the template's rows: four comparisons and two bit tests).
void FilterWellKnown(const Template& t, const std::vector<int>& candidates,
                     const ResourceList& requests, const std::vector<uint64_t>& rejected,
                     bool offerings_changed, uint64_t mask_bits, std::vector<int>* kept_out,
                     std::vector<int>* dropped, const std::vector<uint64_t>* candidate_bits,
                     std::vector<uint64_t>* kept_bits, bool* all_kept) {
  const int64_t cpu = requests.cpu(), memory = requests.memory();
  const int64_t storage = requests.ephemeral_storage(), pods = requests.pods();
  absl::InlinedVector<uint64_t, 16> keep;
  if (t.has_headroom_rows()) {
    KeepBits(t, {cpu, memory, storage, pods}, rejected, offerings_changed, mask_bits, keep);
    if (candidate_bits != nullptr && kept_bits != nullptr && candidate_bits->size() == t.words) {
      FilterByWords(t.words, candidates, *candidate_bits, keep.data(), kept_out, dropped, kept_bits,
                    all_kept);
      return;
    }
  }
  if (kept_bits != nullptr) kept_bits->clear();
  std::vector<int>& kept = *kept_out;
  kept.resize(candidates.size());
  size_t n = 0;
  size_t m = 0;
  if (dropped != nullptr) dropped->resize(candidates.size());
  // Raw pointers: stores through them cannot alias the buffers' own pointers.
  int* const in = kept.data();
  int* const out = dropped != nullptr ? dropped->data() : nullptr;
  const bool any_rejected = !rejected.empty();
  for (int i : candidates) {
    const size_t ui = static_cast<size_t>(i);
    auto bit = [](bool b) { return static_cast<unsigned>(b); };
    unsigned fits;
    if (!keep.empty()) {
      fits = static_cast<unsigned>((keep[ui / 64] >> (ui % 64)) & 1u);
    } else {
      // FitsAllocatable(requests + overhead, allocatable), the overhead moved across; 0 or 1
      // per condition, combined without short-circuit branches.
      const std::array<int64_t, 4>& room = t.headroom_wk[ui];
      fits = bit(cpu <= room[0]) & bit(memory <= room[1]) & bit(storage <= room[2]) &
             bit(pods <= room[3]);
      if (any_rejected) fits &= bit(((rejected[ui / 64] >> (ui % 64)) & 1u) == 0);
      if (offerings_changed) fits &= bit((t.available_offering_bits[ui] & mask_bits) != 0);
    }
    in[n] = i;
    n += fits;
    if (out != nullptr) {
      out[m] = i;
      m += fits ^ 1u;
    }
  }
  kept.resize(n);
  if (dropped != nullptr) dropped->resize(m);
}

}  // namespace

namespace {

// The changed keys of a FastFilter call: the ones with few classes of type requirements are
// decided class by class up front (the types of failing classes set in `rejected`, empty when
// none), the others (`lazy`) per type, memoized per class.
struct ChangedKeys {
  std::vector<uint64_t> rejected;
  std::vector<std::pair<const Requirement*, const Template::KeyClasses*>> lazy;
};

ChangedKeys SplitChanged(const Template& t, const Requirements& reqs,
                         const std::vector<std::string>& changed) {
  ChangedKeys out;
  for (const std::string& key : changed) {
    const Requirement* r = reqs.Find(key);
    if (r == nullptr) continue;
    auto c = t.key_classes.find(key);
    if (c == t.key_classes.end()) continue;  // no type defines the key: nothing to check
    const Template::KeyClasses& kc = c->second;
    if (kc.representative.size() > kEagerClasses) {
      out.lazy.push_back({r, &kc});
      continue;
    }
    for (size_t cls = 0; cls < kc.representative.size(); ++cls) {
      if (ClassAllows(*kc.representative[cls], *r)) continue;
      if (out.rejected.empty()) out.rejected.assign(kc.members[cls].size(), 0);
      for (size_t w = 0; w < out.rejected.size(); ++w) out.rejected[w] |= kc.members[cls][w];
    }
  }
  return out;
}

// FilterGeneral's caches for one call: per daemon group the host-port conflict (2: not yet
// known) and total requests; per lazy key, the result of each class of types (2: not yet).
struct GeneralCaches {
  std::vector<char> conflict;
  std::vector<ResourceList> totals;
  std::vector<std::vector<char>> memo;
};

// FilterGeneral's test of type `ui`.
bool KeepGeneral(const Template& t, size_t ui, const ChangedKeys& keys,
                 const ResourceList& requests, const std::vector<ContainerPort>& pod_ports,
                 const std::vector<ContainerPort>& claim_ports, bool offerings_changed,
                 const std::vector<char>& mask, uint64_t mask_bits, GeneralCaches& caches) {
  if (!keys.rejected.empty() && ((keys.rejected[ui / 64] >> (ui % 64)) & 1u) != 0) return false;
  const size_t g = static_cast<size_t>(t.daemon_group[ui]);
  if (caches.conflict[g] == 2) {
    caches.conflict[g] =
        !pod_ports.empty() && (HostPortsConflict(pod_ports, t.daemon_groups[g].ports) ||
                               HostPortsConflict(pod_ports, claim_ports))
            ? 1
            : 0;
    caches.totals[g] = requests;
    caches.totals[g].Add(t.daemon_groups[g].overhead);
  }
  if (caches.conflict[g] == 1 || !FitsAllocatable(caches.totals[g], t.allocatable[ui])) {
    return false;
  }
  for (size_t k = 0; k < keys.lazy.size(); ++k) {
    const Template::KeyClasses& kc = *keys.lazy[k].second;
    const int cls = kc.class_of[ui];
    if (cls < 0) continue;  // the type does not define the key
    char& m = caches.memo[k][static_cast<size_t>(cls)];
    if (m == 2) {
      m = ClassAllows(*kc.representative[static_cast<size_t>(cls)], *keys.lazy[k].first) ? 1 : 0;
    }
    if (m != 1) return false;
  }
  return !offerings_changed || HasOffering(t, ui, mask, mask_bits);
}

// FastFilter's general case: host ports, extended resources, keys checked per type.
void FilterGeneral(const Template& t, const std::vector<int>& candidates, const ChangedKeys& keys,
                   const ResourceList& requests, const std::vector<ContainerPort>& pod_ports,
                   const std::vector<ContainerPort>& claim_ports, bool offerings_changed,
                   const std::vector<char>& mask, uint64_t mask_bits, std::vector<int>* kept_out,
                   std::vector<int>* dropped) {
  std::vector<int>& kept = *kept_out;
  kept.clear();
  kept.reserve(candidates.size());
  if (dropped != nullptr) {
    dropped->clear();
    dropped->reserve(candidates.size());
  }
  GeneralCaches caches;
  caches.conflict.assign(t.daemon_groups.size(), 2);
  caches.totals.resize(t.daemon_groups.size());
  caches.memo.resize(keys.lazy.size());
  for (size_t k = 0; k < keys.lazy.size(); ++k) {
    caches.memo[k].assign(keys.lazy[k].second->representative.size(), 2);
  }
  for (int i : candidates) {
    if (KeepGeneral(t, static_cast<size_t>(i), keys, requests, pod_ports, claim_ports,
                    offerings_changed, mask, mask_bits, caches)) {
      kept.push_back(i);
    } else if (dropped != nullptr) {
      dropped->push_back(i);
    }
  }
}

}  // namespace

// The hot-path filter. Invariant: every type in `candidates` already intersects the claim's
// current requirements `base` and has an available offering compatible with them, so only
// the keys that changed (`changed`) are re-checked, offerings only if zone or capacity type
// changed, and resources always. Returns the kept types (minValues not applied).
void FastFilter(const Template& t, const std::vector<int>& candidates, const Requirements& reqs,
                const std::vector<std::string>& changed, const ResourceList& requests,
                const std::vector<ContainerPort>& pod_ports,
                const std::vector<ContainerPort>& claim_ports, std::vector<int>* kept,
                std::vector<int>* dropped, const std::vector<uint64_t>* candidate_bits,
                std::vector<uint64_t>* kept_bits, bool* all_kept) {
  if (all_kept != nullptr) *all_kept = false;
  const bool offerings_changed =
      std::any_of(changed.begin(), changed.end(),
                  [](const std::string& k) { return k == kLabelZone || k == kLabelCapacityType; });
  const std::vector<char> mask = offerings_changed ? t.OfferingMask(reqs) : std::vector<char>();
  const uint64_t mask_bits =
      offerings_changed && !t.available_offering_bits.empty() ? MaskBits(mask) : 0;
  ChangedKeys keys = SplitChanged(t, reqs, changed);
  const bool well_known = keys.lazy.empty() && !requests.HasExtended() &&
                          !t.overhead_has_extended &&
                          (!offerings_changed || !t.available_offering_bits.empty());
  if (well_known && pod_ports.empty()) {
    FilterWellKnown(t, candidates, requests, keys.rejected, offerings_changed, mask_bits, kept,
                    dropped, candidate_bits, kept_bits, all_kept);
    return;
  }
  if (well_known && t.has_headroom_rows()) {
    // Host ports as bits too: a conflict with the claim's ports rejects every type, one with a
    // daemon group's ports the group's types (KeepGeneral's test, decided per group).
    std::vector<uint64_t>& rejected = keys.rejected;
    rejected.resize(t.words, 0);
    const bool claim_conflict = HostPortsConflict(pod_ports, claim_ports);
    for (size_t g = 0; g < t.daemon_groups.size(); ++g) {
      if (!claim_conflict && !HostPortsConflict(pod_ports, t.daemon_groups[g].ports)) continue;
      const std::vector<uint64_t>& types = t.daemon_group_types[g];
      for (size_t w = 0; w < t.words; ++w) rejected[w] |= types[w];
    }
    FilterWellKnown(t, candidates, requests, rejected, offerings_changed, mask_bits, kept, dropped,
                    candidate_bits, kept_bits, all_kept);
    return;
  }
  if (kept_bits != nullptr) kept_bits->clear();
  FilterGeneral(t, candidates, keys, requests, pod_ports, claim_ports, offerings_changed, mask,
                mask_bits, kept, dropped);
}

std::vector<int> FastFilter(const Template& t, const std::vector<int>& candidates,
                            const Requirements& reqs, const std::vector<std::string>& changed,
                            const ResourceList& requests,
                            const std::vector<ContainerPort>& pod_ports,
                            const std::vector<ContainerPort>& claim_ports,
                            std::vector<int>* dropped) {
  std::vector<int> kept;
  FastFilter(t, candidates, reqs, changed, requests, pod_ports, claim_ports, &kept, dropped,
             nullptr, nullptr, nullptr);
  return kept;
}

}  // namespace karp::scheduling
