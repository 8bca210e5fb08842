// Internal header of karp::aws: AwsProviderImpl, the state and steps behind AwsCloudProvider
// (karp/aws/aws_cloud_provider.h forwards every call here; the DB/DBImpl split of leveldb).
// Its definitions are spread by concept:
//   aws_cloud_provider.cc   options, construction, the forwarding public class
//   provider_discovery.cc   instance types and prices, EC2NodeClass resolution (cached)
//   provider_launch.cc      Create: the claim's class, the fleet plan, the batched CreateFleet
//   provider_instances.cc   Get, List, Delete, drift, tags, instance profiles, interruptions
//   provider_batchers.cc    the CreateFleet / DescribeInstances / TerminateInstances batchers
//
// Thread-safety: thread-safe; mu_ guards the caches, the batchers guard their stats.

#ifndef KARP_SRC_AWS_AWS_PROVIDER_IMPL_H_
#define KARP_SRC_AWS_AWS_PROVIDER_IMPL_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "aws/batcher.h"
#include "aws/create_fleet.h"
#include "aws/discovery.h"
#include "aws/ec2_client.h"
#include "aws/ec2_instances.h"
#include "aws/nodeclass_discovery.h"
#include "karp/aws/aws_cloud_provider.h"

namespace karp::aws {

class LaunchTemplateManager;   // aws/launch_template_manager.h
class InstanceProfileManager;  // aws/instance_profile_manager.h

// (capacity type, instance type, zone) -> the price of that offering.
using PriceMap = std::map<std::tuple<std::string, std::string, std::string>, double>;

// The embedded on-demand price of `type` for `region`: the region's own table when one is
// embedded, else the us-east-1 table (the reference's fallback for other regions).
std::optional<double> EmbeddedPrice(std::string_view type, std::string_view region);

// What the EC2 and pricing calls of one discovery returned, before any catalog options.
struct RawDiscovery {
  std::vector<AwsInstanceTypeInfo> infos;                   // sorted by name
  std::map<std::string, std::vector<std::string>> offered;  // type -> zones
  std::map<std::string, double> on_demand;                  // from the Price List API
  std::optional<SpotPrices> spot;
};

class AwsProviderImpl {
 public:
  // `options` passed Validate; `client` is not null.
  AwsProviderImpl(AwsCloudProviderOptions options, std::unique_ptr<Ec2Client> client);
  ~AwsProviderImpl();
  AwsProviderImpl(const AwsProviderImpl&) = delete;
  AwsProviderImpl& operator=(const AwsProviderImpl&) = delete;

  // The calls of AwsCloudProvider (same contracts; DriftReason for EC2NodeClass mode only).
  absl::StatusOr<std::vector<InstanceType>> GetInstanceTypes(const NodePool& pool) const;
  absl::StatusOr<std::pair<Instance, AwsLaunchDetails>> CreateWithDetails(
      const LaunchRequest& request, std::vector<LaunchOption>* failed);
  absl::Status Delete(const std::string& provider_id);
  absl::StatusOr<Instance> Get(const std::string& provider_id) const;
  absl::StatusOr<std::vector<Instance>> List() const;
  absl::StatusOr<std::string> DriftReason(const NodeClaim& claim) const;
  std::optional<AwsLaunchDetails> LaunchDetails(const std::string& provider_id) const;
  absl::StatusOr<Ec2NodeClassStatus> NodeClassStatus(const std::string& name) const;
  absl::StatusOr<InstanceCatalog> Catalog(const NodePool& pool) const;
  absl::Status Refresh() const;
  AwsDiscoveryStats LastDiscovery() const;
  absl::Status TagInstance(const std::string& provider_id,
                           const std::map<std::string, std::string>& tags);
  absl::StatusOr<std::vector<std::string>> DeleteUnusedInstanceProfiles();
  AwsBatchStats BatchStats() const;
  absl::StatusOr<int> MarkInterruptedOfferings(const AwsInterruptionMessage& message,
                                               UnavailableOfferings* cache, absl::Time now) const;

  const AwsCloudProviderOptions& options() const { return options_; }

 private:
  // One discovery: the instance types and what is needed to price instances later.
  struct Discovery {
    RawDiscovery raw;
    // The static-mode types (options.catalog, options.zones / subnets).
    std::vector<InstanceType> types;
    AwsDiscoveryStats stats;
    PriceMap prices;
  };

  // EC2NodeClass mode: one class resolved against one discovery.
  struct ClassState {
    std::shared_ptr<const Discovery> base;
    Ec2NodeClassStatus status;
    std::map<std::string, ResolvedSubnet> subnets;  // zone -> subnet (SubnetPerZone)
    InstanceCatalog catalog;                        // CatalogOptionsFor + TypesWithAmi
    PriceMap prices;
  };

  // EC2NodeClass mode: the class a claim launches with, its current state and its pool (for
  // the user data).
  struct ClaimClass {
    const Ec2NodeClass* node_class = nullptr;
    std::shared_ptr<const ClassState> state;
    NodePool pool;
  };

  // The CreateFleet request of one launch (all but its capacity type) and what is known of the
  // launch before it happens.
  struct FleetPlan {
    FleetRequest request;
    AwsLaunchDetails details;
  };

  // The batchers of CreateFleet, DescribeInstances by id and TerminateInstances.
  struct Batchers {
    using DescribeResult = absl::StatusOr<std::vector<Described>>;
    explicit Batchers(AwsProviderImpl* p);

    // One CreateFleet for every call, TotalTargetCapacity = calls; instances in call order.
    std::vector<FleetOutcome> RunFleet(const std::vector<FleetCall>& calls);
    // One DescribeInstances for every id; ids it misses are described alone.
    std::vector<DescribeResult> RunDescribe(const std::vector<std::string>& ids);
    // One TerminateInstances for every id; ids it does not report terminating go alone.
    std::vector<absl::Status> RunTerminate(const std::vector<std::string>& ids);
    void Count(int64_t AwsBatchStats::*requests, int64_t AwsBatchStats::*calls, size_t n) {
      absl::MutexLock lock(&mu);
      stats.*requests += static_cast<int64_t>(n);
      ++(stats.*calls);
    }

    AwsProviderImpl* const provider;
    Batcher<FleetCall, FleetOutcome> fleet;
    Batcher<std::string, DescribeResult> describe;
    Batcher<std::string, absl::Status> terminate;
    absl::Mutex mu;
    AwsBatchStats stats ABSL_GUARDED_BY(mu);
  };

  // The client's clock, else the wall clock.
  absl::Time Now() const;
  absl::StatusOr<std::shared_ptr<const Discovery>> CurrentDiscovery() const;
  absl::StatusOr<std::shared_ptr<const Discovery>> Discover() const;
  // The discovery in use, or null before the first.
  std::shared_ptr<const Discovery> DiscoveryInUse() const;
  // EC2NodeClass mode: the class `pool` selects / the class state (cached per discovery).
  absl::StatusOr<const Ec2NodeClass*> ClassFor(const NodePool& pool) const;
  absl::StatusOr<const Ec2NodeClass*> ClassForPoolName(const std::string& pool_name,
                                                       NodePool* pool) const;
  absl::StatusOr<std::shared_ptr<const ClassState>> CurrentClassState(
      const Ec2NodeClass& node_class) const;

  // The steps of CreateWithDetails. EC2NodeClass mode: the claim's class, its state and pool.
  absl::StatusOr<ClaimClass> ClassForClaim(const NewNodeClaim& claim) const;
  // The fleet's templates (created as needed), tags and details from the claim's class.
  absl::StatusOr<FleetPlan> NodeClassFleetPlan(const NewNodeClaim& claim, const ClaimClass& cls,
                                               const std::vector<LaunchOption>& chosen);
  // Static mode: the same from launch_template_name or launch_templates_for.
  absl::StatusOr<FleetPlan> StaticFleetPlan(const LaunchRequest& request,
                                            const std::vector<LaunchOption>& chosen) const;
  // CreateFleet's idempotency token for the next request of `claim_name`.
  std::string NextClientToken(const std::string& claim_name);

  AwsCloudProviderOptions options_;
  std::unique_ptr<Ec2Client> client_;
  mutable absl::Mutex mu_;
  mutable std::shared_ptr<const Discovery> discovery_ ABSL_GUARDED_BY(mu_);
  mutable absl::Time discovered_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  mutable std::atomic<int64_t> fleet_requests_{0};
  std::unique_ptr<LaunchTemplateManager> templates_;
  std::unique_ptr<InstanceProfileManager> profiles_;
  std::unique_ptr<Batchers> batchers_;  // last of the helpers: its calls use the members above
  // Class name -> state; pool name -> the pool last seen; launches.
  mutable std::map<std::string, std::shared_ptr<const ClassState>> class_states_
      ABSL_GUARDED_BY(mu_);
  mutable std::map<std::string, NodePool> pools_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, AwsLaunchDetails> launches_ ABSL_GUARDED_BY(mu_);
};

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_AWS_PROVIDER_IMPL_H_
