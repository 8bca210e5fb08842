// File: karp/aws/aws_cloud_provider.h
//
// AwsCloudProvider (target karp::aws): karp::CloudProvider for Amazon EC2 over the EC2 Query
// API, the Price List API, SSM and IAM (libcurl + SigV4). docs/aws.md is the full account.
//
//   GetInstanceTypes  DescribeInstanceTypes, DescribeInstanceTypeOfferings,
//                     DescribeSpotPriceHistory and Pricing GetProducts (the embedded table as
//                     fallback), each type built as the embedded catalog builds it
//                     (MakeAwsInstanceType); cached for catalog_refresh_interval.
//   Create            one instant CreateFleet (spot: price-capacity-optimized, else
//                     lowest-price), the request's options of one capacity type, cheapest first,
//                     at most 60 types; capacity errors in `failed`, ResourceExhausted when
//                     nothing launched. Identical concurrent requests share one CreateFleet.
//   Delete            TerminateInstances, only for an instance tagged karpenter.sh/nodepool
//                     (FailedPrecondition otherwise); NotFound once it is gone.
//   Get / List        DescribeInstances (live states); List: this cluster's karp instances.
//   DriftReason       EC2NodeClass mode: NodeClassDriftReason against the class's status.
//
// Two modes. Static (no node_classes): the host's launch template(s) and subnets. EC2NodeClass
// mode (node_classes non-empty): each NodePool's nodeClassRef picks a class, resolved through
// EC2 and SSM (subnets, security groups, AMIs); karp builds the catalog, launch templates, user
// data and instance profile from it (docs/aws.md §3.5-§3.9).
//
// Provider ids: "aws:///<zone>/<instance-id>".
//
// Errors (besides those of karp/cloud_provider.h): Unavailable after retries of throttling or
// server errors; PermissionDenied for authorization failures; Internal for malformed responses
// (naming the action and XML path); FailedPrecondition for the tag guard and for requests the
// adapter cannot express. Messages never contain credentials.
//
// Example:
//   karp::aws::AwsCloudProviderOptions o;
//   o.cluster_name = "prod";
//   o.client.region = "us-west-2";
//   o.client.credentials = *karp::aws::ResolveCredentials();
//   o.launch_template_name = "karp-default";  // static mode
//   auto provider = karp::aws::AwsCloudProvider::Create(o);
//   absl::StatusOr<karp::InstanceCatalog> catalog = (*provider)->Catalog(pool);
//   karp::Launcher launcher(provider->get(), &cache);
//   absl::StatusOr<karp::Instance> i = launcher.Launch(claim, *catalog, absl::Now());
//
// Thread-safety: thread-safe (calls may overlap; the caches are guarded inside).

#ifndef KARP_AWS_AWS_CLOUD_PROVIDER_H_
#define KARP_AWS_AWS_CLOUD_PROVIDER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/aws/client_options.h"
#include "karp/aws/cluster_info.h"
#include "karp/aws/ec2nodeclass.h"
#include "karp/aws/ec2nodeclass_status.h"
#include "karp/aws/interruption.h"
#include "karp/aws_catalog.h"
#include "karp/catalog.h"
#include "karp/cloud_provider.h"
#include "karp/pricing.h"

namespace karp::aws {

class AwsProviderImpl;  // internal (src/aws/aws_provider_impl.h)

// The tag keys the adapter writes and reads (docs/aws.md §3.8) are kTagKey* of
// karp/aws/ec2nodeclass.h.

// Static mode only (no node classes): one launch template of a CreateFleet request, as the
// host's `launch_templates_for` hook names it: an existing template (Version $Latest), the
// instance types it serves (empty: all) and an optional ImageId for its overrides. The
// provider adds one override per chosen option, with the subnet of `subnets`. (In EC2NodeClass
// mode the provider creates its own templates from the class.)
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
  explicit AwsCloudProvider(std::unique_ptr<AwsProviderImpl> impl);
  std::unique_ptr<AwsProviderImpl> impl_;
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
