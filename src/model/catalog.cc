// InstanceCatalog and instance-type list queries (see karp/catalog.h).

#include "karp/catalog.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "internal/strings.h"

namespace karp {

absl::StatusOr<InstanceCatalog> InstanceCatalog::Create(std::vector<InstanceType> types,
                                                        const LabelSet& well_known,
                                                        bool register_label_keys) {
  InstanceCatalog cat;
  cat.well_known_ = WellKnownLabels();
  cat.well_known_.InsertAll(well_known);
  std::sort(types.begin(), types.end(),
            [](const InstanceType& a, const InstanceType& b) { return a.name < b.name; });
  for (size_t i = 0; i < types.size(); ++i) {
    const InstanceType& it = types[i];
    if (it.name.empty()) return absl::InvalidArgumentError("instance type with an empty name");
    if (i > 0 && types[i - 1].name == it.name) {
      return absl::InvalidArgumentError(
          internal::StrCat("instance type \"", it.name, "\": duplicate name"));
    }
    if (it.capacity.AnyNegative()) {
      return absl::InvalidArgumentError(
          internal::StrCat("instance type \"", it.name, "\": negative capacity"));
    }
    for (size_t j = 0; j < it.offerings.size(); ++j) {
      const Offering& o = it.offerings[j];
      if (o.zone.empty() || o.capacity_type.empty()) {
        return absl::InvalidArgumentError(internal::StrCat("instance type \"", it.name,
                                                           "\": offerings[", j,
                                                           "] needs a zone and a capacity type"));
      }
      if (std::isnan(o.price) || o.price < 0) {
        return absl::InvalidArgumentError(internal::StrCat(
            "instance type \"", it.name, "\": offerings[", j, "].price must be >= 0"));
      }
    }
    if (register_label_keys) {
      for (const auto& [k, v] : it.labels) cat.well_known_.Insert(k);
    }
  }
  cat.types_ = std::move(types);
  return cat;
}

const InstanceType* InstanceCatalog::Find(std::string_view name) const {
  auto it = std::lower_bound(types_.begin(), types_.end(), name,
                             [](const InstanceType& t, std::string_view n) { return t.name < n; });
  return (it != types_.end() && it->name == name) ? &*it : nullptr;
}

std::vector<const InstanceType*> InstanceCatalog::Compatible(const Requirements& reqs) const {
  std::vector<const InstanceType*> out;
  for (const InstanceType& it : types_) {
    if (it.requirements.DoesIntersect(reqs) && it.HasCompatibleOffering(reqs)) out.push_back(&it);
  }
  return out;
}

void OrderByPrice(std::vector<const InstanceType*>& types, const Requirements& reqs) {
  std::vector<std::pair<double, const InstanceType*>> keyed;
  keyed.reserve(types.size());
  for (const InstanceType* it : types) {
    const Offering* o = it->CheapestOffering(reqs);
    keyed.emplace_back(o ? o->price : kNoPrice, it);
  }
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.second->name < b.second->name;
  });
  for (size_t i = 0; i < keyed.size(); ++i) types[i] = keyed[i].second;
}

std::vector<const InstanceType*> FilterFits(const std::vector<const InstanceType*>& types,
                                            const ResourceList& requests) {
  std::vector<const InstanceType*> out;
  for (const InstanceType* it : types) {
    if (Fits(requests, it->Allocatable())) out.push_back(it);
  }
  return out;
}

absl::StatusOr<size_t> SatisfiesMinValues(const std::vector<const InstanceType*>& types,
                                          const Requirements& reqs) {
  if (!reqs.HasMinValues()) return size_t{0};
  std::map<std::string, std::set<std::string>> seen;
  std::vector<const Requirement*> keyed;
  for (const Requirement& r : reqs) {
    if (r.min_values()) {
      keyed.push_back(&r);
      seen[r.key()];
    }
  }
  for (size_t i = 0; i < types.size(); ++i) {
    bool all = true;
    for (const Requirement* r : keyed) {
      const Requirement* v = types[i]->requirements.Find(r->key());
      if (v != nullptr && !v->complement()) {
        for (const std::string& value : v->values()) seen[r->key()].insert(value);
      }
      if (static_cast<int>(seen[r->key()].size()) < *r->min_values()) all = false;
    }
    if (all) return i + 1;
  }
  // The reference's words (the unmet keys as a list, sorted here), then how far each key fell
  // short.
  std::vector<std::string> keys;
  std::vector<std::string> detail;
  for (const Requirement* r : keyed) {
    const size_t have = seen[r->key()].size();
    if (static_cast<int>(have) >= *r->min_values()) continue;
    keys.push_back(r->key());
    detail.push_back(internal::StrCat(r->key(), " has ", have, " of ", *r->min_values()));
  }
  return absl::FailedPreconditionError(
      internal::StrCat("minValues requirement is not met for label(s) (label(s)=[",
                       absl::StrJoin(keys, " "), "]): ", absl::StrJoin(detail, ", ")));
}

absl::StatusOr<std::vector<const InstanceType*>> Truncate(std::vector<const InstanceType*> types,
                                                          const Requirements& reqs,
                                                          size_t max_types, bool best_effort) {
  OrderByPrice(types, reqs);
  if (types.size() > max_types) types.resize(max_types);
  if (!best_effort) {
    absl::StatusOr<size_t> ok = SatisfiesMinValues(types, reqs);
    if (!ok.ok()) return ok.status();
  }
  return types;
}

}  // namespace karp
