// File: karp/in_memory_cloud_provider.h
//
// InMemoryCloudProvider: a CloudProvider that launches nothing real. It serves a fixed
// catalog, "launches" the first option of each request that has capacity, keeps instance
// bookkeeping, and can be scripted with capacity errors and transient API failures. The
// simulator (karp::sim) runs its clusters on it; hosts use it for what-if studies and dry
// runs; karp::testing::FakeCloudProvider is the same class under its test-support name.
//
// Example:
//   karp::InMemoryCloudProvider cloud(catalog);
//   cloud.FailCapacity("spot", "m5.large", "us-east-1a");   // scripted insufficient capacity
//   karp::UnavailableOfferings cache;
//   karp::Launcher launcher(&cloud, &cache);
//   absl::StatusOr<karp::Instance> i = launcher.Launch(claim, *catalog, now);
//
// Errors: Create returns ResourceExhausted when every option lacks capacity (the failed
// options are appended to `failed`) and Unavailable for a scripted transient failure; Delete
// and Get return NotFound for an unknown provider id.
//
// Thread-safety: thread-safe (one mutex; every method locks it). Complexity: Create is linear
// in the request's options, Get/Delete logarithmic, List linear in the instances.

#ifndef KARP_IN_MEMORY_CLOUD_PROVIDER_H_
#define KARP_IN_MEMORY_CLOUD_PROVIDER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cloud_provider.h"

namespace karp {

class InMemoryCloudProvider : public CloudProvider {
 public:
  explicit InMemoryCloudProvider(std::shared_ptr<const InstanceCatalog> catalog,
                                 absl::Duration launch_latency = absl::Seconds(45));

  std::string_view name() const override { return "fake"; }
  absl::StatusOr<std::vector<InstanceType>> GetInstanceTypes(const NodePool& pool) const override;
  absl::StatusOr<Instance> Create(const LaunchRequest& request,
                                  std::vector<LaunchOption>* failed) override;
  absl::Status Delete(const std::string& provider_id) override;
  absl::StatusOr<Instance> Get(const std::string& provider_id) const override;
  absl::StatusOr<std::vector<Instance>> List() const override;

  // Every Create of this offering fails with insufficient capacity (until Restore).
  void FailCapacity(const std::string& capacity_type, const std::string& instance_type,
                    const std::string& zone);
  void Restore(const std::string& capacity_type, const std::string& instance_type,
               const std::string& zone);
  // The next `n` Create calls fail with Unavailable (a transient API error).
  void FailNextCalls(int n);
  // The clock stamped on launched instances.
  void SetNow(absl::Time now);

  // The latency a simulation applies between launch and a ready node.
  absl::Duration launch_latency() const { return launch_latency_; }
  int create_calls() const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;
  const std::shared_ptr<const InstanceCatalog> catalog_;
  const absl::Duration launch_latency_;
  mutable absl::Mutex mu_;
  std::set<Key> no_capacity_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Instance> instances_ ABSL_GUARDED_BY(mu_);  // by provider id
  int transient_failures_ ABSL_GUARDED_BY(mu_) = 0;
  int create_calls_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  absl::Time now_ ABSL_GUARDED_BY(mu_) = absl::UnixEpoch();
};

}  // namespace karp

#endif  // KARP_IN_MEMORY_CLOUD_PROVIDER_H_
