// File: karp/testing/fake_cloud_provider.h
//
// FakeCloudProvider (target karp::testing): an in-memory CloudProvider for tests, examples and
// simulations. It serves a fixed catalog, launches the first option of each request unless a
// capacity error is scripted for it, keeps instance bookkeeping, and reports a launch latency
// that simulations may apply.
//
// Example:
//   karp::testing::FakeCloudProvider cloud(catalog);
//   cloud.FailCapacity("spot", "m5.large", "us-east-1a");   // scripted insufficient capacity
//   karp::UnavailableOfferings cache;
//   karp::Launcher launcher(&cloud, &cache);
//   absl::StatusOr<karp::Instance> i = launcher.Launch(claim, *catalog, now);
//
// Thread-safety: thread-safe.

#ifndef KARP_TESTING_FAKE_CLOUD_PROVIDER_H_
#define KARP_TESTING_FAKE_CLOUD_PROVIDER_H_

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cloud_provider.h"

namespace karp::testing {

class FakeCloudProvider : public CloudProvider {
 public:
  explicit FakeCloudProvider(std::shared_ptr<const InstanceCatalog> catalog,
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

  absl::Duration launch_latency() const { return launch_latency_; }
  int create_calls() const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;
  std::shared_ptr<const InstanceCatalog> catalog_;
  absl::Duration launch_latency_;
  mutable std::mutex mu_;
  std::set<Key> no_capacity_;                // guarded by mu_
  std::map<std::string, Instance> instances_;  // by provider id; guarded by mu_
  int transient_failures_ = 0;               // guarded by mu_
  int create_calls_ = 0;                     // guarded by mu_
  int64_t next_id_ = 1;                      // guarded by mu_
  absl::Time now_ = absl::UnixEpoch();       // guarded by mu_
};

}  // namespace karp::testing

#endif  // KARP_TESTING_FAKE_CLOUD_PROVIDER_H_
