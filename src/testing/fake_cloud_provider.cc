#include "karp/testing/fake_cloud_provider.h"

#include <cstdio>
#include <utility>

#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::testing {

FakeCloudProvider::FakeCloudProvider(std::shared_ptr<const InstanceCatalog> catalog,
                                     absl::Duration launch_latency)
    : catalog_(std::move(catalog)), launch_latency_(launch_latency) {}

absl::StatusOr<std::vector<InstanceType>> FakeCloudProvider::GetInstanceTypes(
    const NodePool&) const {
  return catalog_->instance_types();
}

absl::StatusOr<Instance> FakeCloudProvider::Create(const LaunchRequest& request,
                                                   std::vector<LaunchOption>* failed) {
  std::lock_guard<std::mutex> lock(mu_);
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
  return absl::ResourceExhaustedError(internal::StrCat(
      "fake: insufficient capacity for all ", request.options.size(), " options"));
}

absl::Status FakeCloudProvider::Delete(const std::string& provider_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (instances_.erase(provider_id) == 0) {
    return absl::NotFoundError(internal::StrCat("fake: instance ", provider_id, " not found"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Instance> FakeCloudProvider::Get(const std::string& provider_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = instances_.find(provider_id);
  if (it == instances_.end()) {
    return absl::NotFoundError(internal::StrCat("fake: instance ", provider_id, " not found"));
  }
  return it->second;
}

absl::StatusOr<std::vector<Instance>> FakeCloudProvider::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Instance> out;
  for (const auto& [id, i] : instances_) out.push_back(i);
  return out;
}

void FakeCloudProvider::FailCapacity(const std::string& capacity_type,
                                     const std::string& instance_type, const std::string& zone) {
  std::lock_guard<std::mutex> lock(mu_);
  no_capacity_.insert(Key(capacity_type, instance_type, zone));
}

void FakeCloudProvider::Restore(const std::string& capacity_type,
                                const std::string& instance_type, const std::string& zone) {
  std::lock_guard<std::mutex> lock(mu_);
  no_capacity_.erase(Key(capacity_type, instance_type, zone));
}

void FakeCloudProvider::FailNextCalls(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  transient_failures_ = n;
}

void FakeCloudProvider::SetNow(absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  now_ = now;
}

int FakeCloudProvider::create_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return create_calls_;
}

}  // namespace karp::testing
