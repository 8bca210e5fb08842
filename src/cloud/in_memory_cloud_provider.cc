// InMemoryCloudProvider (see karp/in_memory_cloud_provider.h).

#include "karp/in_memory_cloud_provider.h"

#include <cstdio>
#include <utility>

#include "internal/strings.h"
#include "karp/labels.h"

namespace karp {

InMemoryCloudProvider::InMemoryCloudProvider(std::shared_ptr<const InstanceCatalog> catalog,
                                             absl::Duration launch_latency)
    : catalog_(std::move(catalog)), launch_latency_(launch_latency) {}

absl::StatusOr<std::vector<InstanceType>> InMemoryCloudProvider::GetInstanceTypes(
    const NodePool&) const {
  return catalog_->instance_types();
}

absl::StatusOr<Instance> InMemoryCloudProvider::Create(const LaunchRequest& request,
                                                       std::vector<LaunchOption>* failed) {
  absl::MutexLock lock(&mu_);
  ++create_calls_;
  if (transient_failures_ > 0) {
    --transient_failures_;
    return absl::UnavailableError("fake: transient API error");
  }
  // Like a fleet request: the cheapest option that has capacity wins; all others tried before
  // it are reported as failed.
  for (const LaunchOption& o : request.options) {
    if (no_capacity_.count(Key(o.capacity_type, o.instance_type, o.zone)) > 0) {
      if (failed != nullptr) failed->push_back(o);
      continue;
    }
    Instance i;
    char id[64];
    std::snprintf(id, sizeof(id), "fake:///%s/i-%08lld", o.zone.c_str(),
                  static_cast<long long>(next_id_++));
    i.provider_id = id;
    i.instance_type = o.instance_type;
    i.zone = o.zone;
    i.capacity_type = o.capacity_type;
    i.price = o.price;
    i.node_pool = request.claim.node_pool;
    i.labels = request.claim.labels;
    if (const InstanceType* it = catalog_->Find(o.instance_type)) {
      for (const auto& [k, v] : it->labels) i.labels.emplace(k, v);
    }
    i.labels[std::string(kLabelInstanceType)] = o.instance_type;
    i.labels[std::string(kLabelZone)] = o.zone;
    i.labels[std::string(kLabelCapacityType)] = o.capacity_type;
    i.labels[std::string(kLabelNodePool)] = request.claim.node_pool;
    i.launched_at = now_;
    instances_[i.provider_id] = i;
    return i;
  }
  return absl::ResourceExhaustedError(
      internal::StrCat("fake: insufficient capacity for all ", request.options.size(), " options"));
}

absl::Status InMemoryCloudProvider::Delete(const std::string& provider_id) {
  absl::MutexLock lock(&mu_);
  if (instances_.erase(provider_id) == 0) {
    return absl::NotFoundError(internal::StrCat("fake: instance ", provider_id, " not found"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Instance> InMemoryCloudProvider::Get(const std::string& provider_id) const {
  absl::MutexLock lock(&mu_);
  auto it = instances_.find(provider_id);
  if (it == instances_.end()) {
    return absl::NotFoundError(internal::StrCat("fake: instance ", provider_id, " not found"));
  }
  return it->second;
}

absl::StatusOr<std::vector<Instance>> InMemoryCloudProvider::List() const {
  absl::MutexLock lock(&mu_);
  std::vector<Instance> out;
  for (const auto& [id, i] : instances_) out.push_back(i);
  return out;
}

void InMemoryCloudProvider::FailCapacity(const std::string& capacity_type,
                                         const std::string& instance_type,
                                         const std::string& zone) {
  absl::MutexLock lock(&mu_);
  no_capacity_.insert(Key(capacity_type, instance_type, zone));
}

void InMemoryCloudProvider::Restore(const std::string& capacity_type,
                                    const std::string& instance_type, const std::string& zone) {
  absl::MutexLock lock(&mu_);
  no_capacity_.erase(Key(capacity_type, instance_type, zone));
}

void InMemoryCloudProvider::FailNextCalls(int n) {
  absl::MutexLock lock(&mu_);
  transient_failures_ = n;
}

void InMemoryCloudProvider::SetNow(absl::Time now) {
  absl::MutexLock lock(&mu_);
  now_ = now;
}

int InMemoryCloudProvider::create_calls() const {
  absl::MutexLock lock(&mu_);
  return create_calls_;
}

}  // namespace karp
