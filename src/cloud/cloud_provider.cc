// CloudProvider defaults, the unavailable-offerings cache and the launch helper
// (see karp/cloud_provider.h).

#include "karp/cloud_provider.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "internal/strings.h"

namespace karp {

absl::StatusOr<std::string> CloudProvider::DriftReason(const NodeClaim&) const {
  return std::string();
}

void UnavailableOfferings::MarkUnavailable(std::string_view capacity_type,
                                           std::string_view instance_type, std::string_view zone,
                                           absl::Time now) {
  absl::MutexLock lock(&mu_);
  until_[Key(std::string(capacity_type), std::string(instance_type), std::string(zone))] =
      now + ttl_;
}

bool UnavailableOfferings::IsUnavailable(std::string_view capacity_type,
                                         std::string_view instance_type, std::string_view zone,
                                         absl::Time now) const {
  absl::MutexLock lock(&mu_);
  auto it =
      until_.find(Key(std::string(capacity_type), std::string(instance_type), std::string(zone)));
  return it != until_.end() && now < it->second;
}

size_t UnavailableOfferings::Size(absl::Time now) const {
  absl::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [key, until] : until_) n += now < until ? 1 : 0;
  return n;
}

absl::StatusOr<InstanceCatalog> UnavailableOfferings::Apply(const InstanceCatalog& catalog,
                                                            absl::Time now) const {
  std::vector<InstanceType> types = catalog.instance_types();
  for (InstanceType& it : types) {
    bool changed = false;
    for (Offering& o : it.offerings) {
      if (o.available && IsUnavailable(o.capacity_type, it.name, o.zone, now)) {
        o.available = false;
        changed = true;
      }
    }
    if (changed) it.RebuildRequirements();
  }
  // Only the provider's own keys: the core well-known labels are added by Create again.
  return InstanceCatalog::Create(std::move(types), catalog.well_known_labels(),
                                 /*register_label_keys=*/false);
}

std::vector<LaunchOption> Launcher::Options(const NewNodeClaim& claim,
                                            const InstanceCatalog& catalog, absl::Time now) const {
  std::vector<LaunchOption> out;
  for (const std::string& name : claim.instance_types) {
    const InstanceType* it = catalog.Find(name);
    if (it == nullptr) continue;
    for (const Offering& o : it->offerings) {
      if (!o.available || !OfferingCompatible(claim.requirements, o)) continue;
      if (cache_->IsUnavailable(o.capacity_type, it->name, o.zone, now)) continue;
      out.push_back({it->name, o.zone, o.capacity_type, o.price, o.reservation_id});
    }
  }
  std::sort(out.begin(), out.end(), [](const LaunchOption& a, const LaunchOption& b) {
    if (a.price != b.price) return a.price < b.price;
    const int ra = CapacityTypeRank(a.capacity_type), rb = CapacityTypeRank(b.capacity_type);
    if (ra != rb) return ra < rb;
    if (a.instance_type != b.instance_type) return a.instance_type < b.instance_type;
    return a.zone < b.zone;
  });
  // A launch a pricing model chose (marginal cost below list, karp/pricing.h) goes first.
  if (claim.launch && claim.launch->price < claim.launch->list_price) {
    const karp::Launch& l = *claim.launch;
    std::stable_partition(out.begin(), out.end(), [&](const LaunchOption& o) {
      return o.instance_type == l.instance_type && o.zone == l.zone &&
             o.capacity_type == l.capacity_type;
    });
  }
  return out;
}

absl::StatusOr<Instance> Launcher::Launch(const NewNodeClaim& claim, const InstanceCatalog& catalog,
                                          absl::Time now) {
  LaunchRequest request;
  request.claim = claim;
  request.options = Options(claim, catalog, now);
  if (request.options.empty()) {
    return absl::FailedPreconditionError(internal::StrCat(
        "nodeclaim ", claim.name, ": no available offering of its ", claim.instance_types.size(),
        " instance types is compatible with its requirements"));
  }
  const size_t total = request.options.size();
  std::vector<std::string> failures;
  while (!request.options.empty()) {
    std::vector<LaunchOption> failed;
    absl::StatusOr<Instance> instance = provider_->Create(request, &failed);
    if (instance.ok()) {
      // A fleet-style launch may succeed after some options failed: cache those too.
      for (const LaunchOption& f : failed) {
        cache_->MarkUnavailable(f.capacity_type, f.instance_type, f.zone, now);
      }
      return instance;
    }
    if (instance.status().code() != absl::StatusCode::kResourceExhausted) {
      return instance.status();
    }
    // Without a list, the provider tried the first option only.
    if (failed.empty()) failed.push_back(request.options.front());
    std::set<std::tuple<std::string, std::string, std::string>> gone;
    for (const LaunchOption& f : failed) {
      cache_->MarkUnavailable(f.capacity_type, f.instance_type, f.zone, now);
      gone.emplace(f.capacity_type, f.instance_type, f.zone);
      failures.push_back(internal::StrCat(f.capacity_type, "/", f.instance_type, "/", f.zone));
    }
    const size_t before = request.options.size();
    request.options.erase(
        std::remove_if(request.options.begin(), request.options.end(),
                       [&](const LaunchOption& o) {
                         return gone.count({o.capacity_type, o.instance_type, o.zone}) > 0;
                       }),
        request.options.end());
    if (request.options.size() == before) {
      // The provider named options that were not offered: stop rather than loop.
      return absl::InternalError(
          internal::StrCat("nodeclaim ", claim.name, ": provider ", provider_->name(),
                           " reported insufficient capacity for options it was not given"));
    }
  }
  return absl::ResourceExhaustedError(
      internal::StrCat("insufficient capacity for nodeclaim ", claim.name, ": all ", total,
                       " offerings failed (", absl::StrJoin(failures, ", "), ")"));
}

}  // namespace karp
