// File: karp/aws/aws_cloud_provider.h
//
// AwsCloudProvider (target karp::aws): karp::CloudProvider for Amazon EC2, speaking the EC2
// Query API (Version 2016-11-15), the Price List API, SSM and IAM directly over libcurl with
// SigV4.
//
//   GetInstanceTypes  DescribeInstanceTypes + DescribeInstanceTypeOfferings (paginated) +
//                     DescribeSpotPriceHistory + Pricing GetProducts (the region's embedded
//                     table as fallback, us-east-1's for a region without one; spot at the
//                     on-demand price until spot prices are fetched, never the embedded
//                     catalog's estimates), each type through karp::MakeAwsInstanceType --
//                     the same labels, capacity and overhead as the embedded catalog. Cached for
//                     `catalog_refresh_interval`; Refresh() forces a new discovery.
//   Create            CreateFleet, Type=instant, one instance: spot (price-capacity-optimized)
//                     when the request has a spot option, else on-demand (lowest-price); the
//                     overrides are the request's options of that capacity type, cheapest
//                     first, for at most 60 instance types; tagged as docs/aws.md §3.8.
//                     Capacity errors of the fleet (§4.1 codes) are reported in `failed`;
//                     none launched -> ResourceExhausted, which karp::Launcher turns into the
//                     unavailable-offerings cache and a retry with the remaining offerings.
//                     Concurrent Creates with identical requests share one CreateFleet
//                     (AwsBatchingOptions below, docs/aws.md §3.10).
//   Delete            DescribeInstances then TerminateInstances, only for an instance carrying
//                     the karpenter.sh/nodepool tag (FailedPrecondition otherwise); NotFound once
//                     the instance is gone; OK without a call while it is shutting down.
//                     Both calls are batched with concurrent Deletes / Gets.
//   Get / List        DescribeInstances (state pending|running|stopping|stopped|shutting-down);
//                     List filters by the karp tags of this cluster.
//   DriftReason       with node classes: NodeClassDriftReason (karp/aws/ec2nodeclass_status.h)
//                     of the claim against its class and the class's current status, the
//                     instance's subnet and security groups from DescribeInstances; without
//                     node classes: never drifted (the base class default).
//
// EC2NodeClass mode (options.node_classes non-empty). Each NodePool names its class with
// spec.template.spec.nodeClassRef.name (may be empty when there is exactly one class). Per class
// and per discovery (same refresh interval) the provider resolves the class through EC2 and SSM
// (ResolveEc2NodeClass: DescribeSubnets, DescribeSecurityGroups, DescribeImages, SSM
// GetParameter for aliases) and derives:
//   - the zones: those with a subnet, one subnet per zone (SubnetPerZone: most free IPs), so a
//     zone without a subnet has no offerings; `subnets` and `zones` options are not used;
//   - the catalog: CatalogOptionsFor(class, options.catalog) (kubelet reservations, max pods,
//     AMI family, root volume), then TypesWithAmi (types no resolved AMI can run are dropped);
//   - Create: BuildFleetLaunchTemplates (templates per (AMI, max pods), overrides per option in
//     its zone's subnet), each template ensured in EC2 through CreateLaunchTemplate once and
//     reused afterwards by name (DescribeLaunchTemplates after a restart), then CreateFleet
//     referencing them (version $Latest) with the overrides' SubnetId and ImageId; the
//     instance, volume and fleet tags are Ec2Tags (spec.tags under the karp keys);
//   - the instance profile: spec.instanceProfile as is; for spec.role the profile karp manages
//     through IAM (karp/aws/instance_profile.h: GetInstanceProfile, CreateInstanceProfile,
//     AddRoleToInstanceProfile, a changed role replaced; cached 15 minutes), in every launch
//     template of the class; DeleteUnusedInstanceProfiles removes those of classes the
//     provider no longer has;
//   - LaunchDetails(provider_id): image, subnet, launch template and the NodeClaim annotations
//     kAnnotationEc2NodeClassHash / kAnnotationEc2NodeClassHashVersion the host records on the
//     NodeClaim (with image_id) so DriftReason can compare them later.
// Create needs the class of the claim's NodePool: the pool last passed to GetInstanceTypes /
// Catalog under that name (the usual flow), else the only class; FailedPrecondition otherwise.
//
// Provider ids: "aws:///<zone>/<instance-id>".
//
// Errors (besides those of karp/cloud_provider.h): Unavailable after retries of throttling or
// server errors, PermissionDenied for authorization failures, Internal for malformed
// responses (naming the action and XML path), FailedPrecondition for the tag guard and for
// requests the adapter cannot express (no launch template, reserved-only options). Messages
// never contain credentials.
//
// Example:
//   karp::aws::AwsCloudProviderOptions o;
//   o.cluster_name = "prod";
//   o.client.region = "us-west-2";
//   o.client.credentials = *karp::aws::ResolveCredentials();
//   o.launch_template_name = "karp-default";        // static mode, or instead:
//   o.subnets = {{"us-west-2a", "subnet-0a"}, {"us-west-2b", "subnet-0b"}};
//   // EC2NodeClass mode: o.node_classes = *karp::aws::ReadEc2NodeClassFiles({"nc.yaml"});
//   //   o.cluster = {"prod", "https://...", "<base64 CA>", "10.100.0.0/16", ""};
//   //   o.kubernetes_version = "1.31";
//   auto provider = karp::aws::AwsCloudProvider::Create(o);
//   absl::StatusOr<karp::InstanceCatalog> catalog = (*provider)->Catalog(pool);
//   karp::Launcher launcher(provider->get(), &cache);
//   absl::StatusOr<karp::Instance> i = launcher.Launch(claim, *catalog, absl::Now());
//
// Thread-safety: thread-safe (the discovery cache is guarded by a mutex; calls may overlap).

#ifndef KARP_AWS_AWS_CLOUD_PROVIDER_H_
#define KARP_AWS_AWS_CLOUD_PROVIDER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "karp/aws/client_options.h"
#include "karp/aws/ec2nodeclass.h"
#include "karp/aws/ec2nodeclass_status.h"
#include "karp/aws/interruption.h"
#include "karp/aws/launch_template.h"
#include "karp/aws/userdata.h"
#include "karp/aws_catalog.h"
#include "karp/catalog.h"
#include "karp/cloud_provider.h"
#include "karp/pricing.h"

namespace karp::aws {

class Ec2Client;               // internal (src/aws/ec2_client.h)
class LaunchTemplateManager;   // internal (src/aws/launch_template_manager.h)
class InstanceProfileManager;  // internal (src/aws/instance_profile_manager.h)

// The tag keys the adapter writes and reads (docs/aws.md §3.8) are kTagKey* of
// karp/aws/ec2nodeclass.h.

// Static mode only (no node classes): one launch template of a CreateFleet request, as the
// host's `launch_templates_for` hook names it: an existing template (Version $Latest), the
// instance types it serves (empty: all) and an optional ImageId for its overrides. The
// provider expands it into one FleetOverride (karp/aws/launch_template.h) per chosen option,
// with the subnet of `subnets`. In EC2NodeClass mode the provider builds
// NodeClassFleetTemplate (karp/aws/launch_template.h) instead -- the template's contents plus
// its overrides -- and creates the template itself; both end up as the same CreateFleet
// LaunchTemplateConfigs.
struct FleetLaunchTemplate {
  std::string name;
  std::vector<std::string> instance_types;  // empty: every type of the request
  std::string image_id;                     // "": omitted from the overrides
};

// A batching window (the reference's pkg/batcher): a batch runs when no request joined it for
// `idle`, when `max` passed since its first request, or when it holds `max_items` requests.
// max_items 1 turns batching off (every call goes out at once).
struct AwsBatchWindow {
  absl::Duration idle;
  absl::Duration max;
  int max_items = 1;
};

// Batching of concurrent calls (docs/aws.md §3.10); the defaults are the reference's.
//   create_fleet        Create calls whose CreateFleet requests are identical apart from the
//                       karpenter.sh/nodeclaim tag and ClientToken (same capacity type,
//                       templates, overrides, tags) become one CreateFleet with
//                       TotalTargetCapacity = the number of calls; the launched instances go
//                       to the callers in arrival order, callers left without one get the
//                       fleet's errors. A batch of more than one tags each instance with its
//                       claim afterwards (CreateTags; a failure is counted in
//                       AwsBatchStats::tag_errors, the launch still succeeds).
//   describe_instances  single-instance DescribeInstances (Get, Delete, DriftReason) become one
//                       call listing every id; ids it does not return are described alone.
//   terminate_instances Delete's TerminateInstances become one call; instances it does not
//                       report shutting-down/terminated are terminated alone.
struct AwsBatchingOptions {
  AwsBatchWindow create_fleet{absl::Milliseconds(35), absl::Seconds(1), 1000};
  AwsBatchWindow describe_instances{absl::Milliseconds(100), absl::Seconds(1), 500};
  AwsBatchWindow terminate_instances{absl::Milliseconds(100), absl::Seconds(1), 500};
};

// Calls made through the batchers so far: requests in, AWS calls out.
struct AwsBatchStats {
  int64_t fleet_requests = 0;
  int64_t fleet_calls = 0;
  int64_t describe_requests = 0;
  int64_t describe_calls = 0;
  int64_t terminate_requests = 0;
  int64_t terminate_calls = 0;
  int64_t tag_errors = 0;  // CreateTags of karpenter.sh/nodeclaim after a batched launch
};

struct AwsCloudProviderOptions {
  // Kubernetes cluster name; tags kubernetes.io/cluster/<name>=owned and
  // eks:eks-cluster-name=<name>. Required.
  std::string cluster_name;
  // Region, endpoints, credentials, timeouts, retries. client.region is also the region label.
  AwsClientOptions client;
  // Name of the EC2NodeClass the instances belong to (tag karpenter.k8s.aws/ec2nodeclass) in
  // static mode. Default: "default". (In EC2NodeClass mode the tag is the class's name.)
  std::string node_class_name = "default";
  // EC2NodeClasses (karp/aws/ec2nodeclass.h), selected per NodePool by nodeClassRef.name. When
  // non-empty the provider runs in EC2NodeClass mode (see the top of this file): subnets,
  // zones, launch_template_name and launch_templates_for must be empty. Names must be unique;
  // each class must pass ValidateEc2NodeClass. Default: empty (static mode).
  std::vector<Ec2NodeClass> node_classes;
  // EC2NodeClass mode: what nodes need to join (user data). cluster.name empty: cluster_name;
  // otherwise it must equal cluster_name. endpoint and ca_bundle (and cidr for AL2023) are
  // checked when user data is rendered, at Create.
  ClusterInfo cluster;
  // EC2NodeClass mode: Kubernetes minor version ("1.31") for alias AMI SSM paths. Required when
  // a class has an alias.
  std::string kubernetes_version;
  // EC2NodeClass mode: SSM endpoint for alias and ssmParameter AMIs. Empty:
  // https://ssm.<region>.amazonaws.com.
  std::string ssm_endpoint;
  // Launch templates for CreateFleet, used when `launch_templates_for` is empty. Default: the
  // single template `launch_template_name` (required when launch_templates_for is empty).
  std::string launch_template_name;
  // Hook for EC2NodeClass support: the launch templates of one request (resolved per claim:
  // AMI per architecture, user data...). When set it replaces launch_template_name.
  std::function<absl::StatusOr<std::vector<FleetLaunchTemplate>>(const LaunchRequest&)>
      launch_templates_for;
  // Subnet per zone for the overrides' SubnetId. Zones without a subnet are not launched in;
  // empty: SubnetId is omitted (the launch template decides). Default: empty.
  std::map<std::string, std::string> subnets;
  // Zones offerings are created in. Empty: the zones DescribeInstanceTypeOfferings reports.
  // Default: empty.
  std::vector<std::string> zones;
  // Extra tags (EC2NodeClass spec.tags); the §3.8 keys may not be overridden (InvalidArgument).
  std::map<std::string, std::string> tags;
  // Catalog settings other than region/zones/spot prices (AMI family, kubelet reservations,
  // VM memory overhead...). Region and zones are taken from this struct's fields; spot prices
  // and estimate_spot_prices (always false here) from the spot-price history.
  AwsCatalogOptions catalog;
  // Query the Price List API for on-demand prices (embedded table as fallback, per type).
  // Default: true.
  bool use_pricing_api = true;
  // Query DescribeSpotPriceHistory. False: spot offerings cost the on-demand price (as the
  // reference before its first spot update). Default: true.
  bool use_spot_price_history = true;
  // How long one discovery is reused by GetInstanceTypes / Catalog. Default: 12h (the
  // reference's refresh period for types and prices).
  absl::Duration catalog_refresh_interval = absl::Hours(12);
  // The account's capacity reservations (Commitments::capacity_reservations, e.g. from
  // ReadAwsCommitments). A reserved launch option whose reservation_id is a targeted one here
  // is launched by naming it: EC2NodeClass mode gives it a launch template with
  // CapacityReservationTarget.CapacityReservationId (static mode cannot: FailedPrecondition).
  // Other reserved options use open reservations (docs/commitments.md §5). Default: empty.
  std::vector<CapacityReservation> capacity_reservations;
  // Batching of CreateFleet, DescribeInstances and TerminateInstances (windows: idle >= 0,
  // max >= idle, max_items in [1, 1000]).
  AwsBatchingOptions batching;

  // OK, or InvalidArgument naming the first bad field.
  [[nodiscard]] absl::Status Validate() const;
};

// What EC2NodeClass mode knows about one launched instance (LaunchDetails).
struct AwsLaunchDetails {
  std::string node_class;
  std::string image_id;
  std::string subnet_id;
  std::string launch_template;
  // kAnnotationEc2NodeClassHash and kAnnotationEc2NodeClassHashVersion, to record on the
  // NodeClaim (as image_id) so DriftReason can detect NodeClass and AMI drift.
  std::map<std::string, std::string> annotations;
};

// What one discovery found (for hosts and tests).
struct AwsDiscoveryStats {
  int instance_types = 0;             // types built
  int skipped_types = 0;              // types MakeAwsInstanceType rejected (e.g. no vCPU data)
  int describe_pages = 0;             // DescribeInstanceTypes pages
  int on_demand_prices_api = 0;       // prices from the Price List API
  int on_demand_prices_embedded = 0;  // types priced from the embedded table instead
  int spot_prices = 0;                // (type, zone) spot prices
  std::string pricing_error;          // why the Price List API was not used ("" when it was)
  std::string spot_price_error;       // why spot prices are the on-demand ones ("" when fetched)
  std::vector<std::string> zones;
};

class AwsCloudProvider : public CloudProvider {
 public:
  // Errors: InvalidArgument from options.Validate().
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<AwsCloudProvider>> Create(
      AwsCloudProviderOptions options);
  ~AwsCloudProvider() override;

  std::string_view name() const override { return "aws"; }
  absl::StatusOr<std::vector<InstanceType>> GetInstanceTypes(const NodePool& pool) const override;
  absl::StatusOr<Instance> Create(const LaunchRequest& request,
                                  std::vector<LaunchOption>* failed) override;
  absl::Status Delete(const std::string& provider_id) override;
  absl::StatusOr<Instance> Get(const std::string& provider_id) const override;
  absl::StatusOr<std::vector<Instance>> List() const override;
  // See the top of this file. Errors: FailedPrecondition when the claim's class is unknown;
  // those of the class's resolution and of DescribeInstances.
  absl::StatusOr<std::string> DriftReason(const NodeClaim& claim) const override;

  // Create, plus what EC2NodeClass mode knows of the launch (static mode: node_class, subnet_id
  // and launch_template only).
  [[nodiscard]] absl::StatusOr<std::pair<Instance, AwsLaunchDetails>> CreateWithDetails(
      const LaunchRequest& request, std::vector<LaunchOption>* failed);
  // The details of an instance this provider launched (kept until Delete), or nullopt.
  std::optional<AwsLaunchDetails> LaunchDetails(const std::string& provider_id) const;
  // EC2NodeClass mode: the current status of class `name` (resolving it if needed).
  // Errors: NotFound for an unknown class; the resolution's.
  [[nodiscard]] absl::StatusOr<Ec2NodeClassStatus> NodeClassStatus(const std::string& name) const;

  // GetInstanceTypes as an InstanceCatalog with the AWS well-known labels.
  [[nodiscard]] absl::StatusOr<InstanceCatalog> Catalog(const NodePool& pool) const;
  // Discards the cached discovery and runs a new one now.
  [[nodiscard]] absl::Status Refresh() const;
  // Stats of the discovery in use (zero before the first one).
  AwsDiscoveryStats LastDiscovery() const;

  // CreateTags on the instance (e.g. Name and karpenter.sh/nodeclaim after registration).
  // Errors: NotFound for a gone instance; InvalidArgument for a bad provider id or no tags.
  [[nodiscard]] absl::Status TagInstance(const std::string& provider_id,
                                         const std::map<std::string, std::string>& tags);

  // EC2NodeClass mode (FailedPrecondition in static mode, which manages no profiles): deletes
  // the IAM instance profiles karp created in this cluster and region (ListInstanceProfiles
  // under InstanceProfileClusterPathPrefix) that belong to no current class with spec.role --
  // the profiles of removed NodeClasses. A profile whose class still has live instances
  // (DescribeInstances by this cluster's and the karpenter.k8s.aws/ec2nodeclass tags) is kept
  // until they are gone. Returns the deleted names in name order.
  // Errors: those of DescribeInstances and of the IAM calls (nothing after the first failure
  // is deleted).
  [[nodiscard]] absl::StatusOr<std::vector<std::string>> DeleteUnusedInstanceProfiles();

  // What the CreateFleet / DescribeInstances / TerminateInstances batchers merged so far.
  AwsBatchStats BatchStats() const;

  // For a spot interruption message: marks (spot, type, zone) of each interrupted instance
  // unavailable in `cache` (the reference does this on every spot warning). Instances that are
  // gone are skipped. Returns how many offerings were marked.
  [[nodiscard]] absl::StatusOr<int> MarkInterruptedOfferings(const AwsInterruptionMessage& message,
                                                             UnavailableOfferings* cache,
                                                             absl::Time now) const;

 private:
  struct Discovery;
  struct ClassState;
  struct ClaimClass;
  struct FleetPlan;
  AwsCloudProvider(AwsCloudProviderOptions options, std::unique_ptr<Ec2Client> client);
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
  struct Batchers;
  std::unique_ptr<Batchers> batchers_;  // last: its calls use the members above
  // Class name -> state; pool name -> the pool last seen; launches.
  mutable std::map<std::string, std::shared_ptr<const ClassState>> class_states_
      ABSL_GUARDED_BY(mu_);
  mutable std::map<std::string, NodePool> pools_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, AwsLaunchDetails> launches_ ABSL_GUARDED_BY(mu_);
};

// Splits "aws:///us-east-1a/i-0123" into zone and instance id.
// Errors: InvalidArgument quoting the id.
struct AwsProviderId {
  std::string zone;
  std::string instance_id;
};
[[nodiscard]] absl::StatusOr<AwsProviderId> ParseAwsProviderId(std::string_view provider_id);

}  // namespace karp::aws

#endif  // KARP_AWS_AWS_CLOUD_PROVIDER_H_
