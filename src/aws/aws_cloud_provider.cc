#include "karp/aws/aws_cloud_provider.h"

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "aws/aws_provider_impl.h"
#include "aws/ec2_client.h"
#include "aws/instance_profile_manager.h"
#include "aws/launch_template_manager.h"
#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {

using internal::StrCat;

namespace {

// How long an ensured instance profile is trusted (the reference's cache).
constexpr absl::Duration kInstanceProfileCacheTtl = absl::Minutes(15);

bool IsReservedTagKey(const std::string& key) {
  return key.rfind(kTagKeyClusterPrefix, 0) == 0 || key == kTagKeyNodePool ||
         key == kTagKeyEksClusterName || key == kTagKeyEc2NodeClass || key == kTagKeyNodeClaim;
}

// OK, or InvalidArgument naming the first bad window.
absl::Status ValidateBatching(const AwsBatchingOptions& batching) {
  for (const auto& [field, w] : {std::pair{"create_fleet", &batching.create_fleet},
                                 std::pair{"describe_instances", &batching.describe_instances},
                                 std::pair{"terminate_instances", &batching.terminate_instances}}) {
    if (w->idle < absl::ZeroDuration() || w->max < w->idle || w->max_items < 1 ||
        w->max_items > 1000) {
      return absl::InvalidArgumentError(
          StrCat("aws cloud provider options: batching.", field,
                 ": want idle >= 0, max >= idle and max_items in [1, 1000]"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<AwsProviderId> ParseAwsProviderId(std::string_view provider_id) {
  constexpr std::string_view kPrefix = "aws:///";
  if (provider_id.substr(0, kPrefix.size()) != kPrefix) {
    return absl::InvalidArgumentError(
        StrCat("provider id \"", provider_id, "\" does not start with aws:///"));
  }
  std::string_view rest = provider_id.substr(kPrefix.size());
  const size_t slash = rest.rfind('/');
  AwsProviderId id;
  id.zone = std::string(slash == std::string_view::npos ? "" : rest.substr(0, slash));
  id.instance_id = std::string(slash == std::string_view::npos ? rest : rest.substr(slash + 1));
  if (id.instance_id.rfind("i-", 0) != 0 || id.instance_id.size() < 3) {
    return absl::InvalidArgumentError(
        StrCat("provider id \"", provider_id, "\" does not end in an instance id (i-...)"));
  }
  return id;
}

absl::Status AwsCloudProviderOptions::Validate() const {
  if (cluster_name.empty()) {
    return absl::InvalidArgumentError("aws cloud provider options: cluster_name is empty");
  }
  KARP_RETURN_IF_ERROR(client.Validate());
  if (node_class_name.empty()) {
    return absl::InvalidArgumentError("aws cloud provider options: node_class_name is empty");
  }
  if (!node_classes.empty()) {
    if (!subnets.empty() || !zones.empty() || !launch_template_name.empty() ||
        launch_templates_for) {
      return absl::InvalidArgumentError(
          "aws cloud provider options: with node_classes, subnets, zones, launch_template_name "
          "and launch_templates_for must be empty (the node classes choose subnets, zones and "
          "launch templates)");
    }
    std::set<std::string> names;
    for (const Ec2NodeClass& nc : node_classes) {
      KARP_RETURN_IF_ERROR(ValidateEc2NodeClass(nc));
      if (!names.insert(nc.name()).second) {
        return absl::InvalidArgumentError(
            StrCat("aws cloud provider options: node_classes: duplicate name \"", nc.name(), "\""));
      }
      if (nc.Alias().has_value() && kubernetes_version.empty()) {
        return absl::InvalidArgumentError(
            StrCat("aws cloud provider options: kubernetes_version is empty but ec2nodeclass \"",
                   nc.name(), "\" selects its AMI by alias"));
      }
    }
    if (!cluster.name.empty() && cluster.name != cluster_name) {
      return absl::InvalidArgumentError(StrCat("aws cloud provider options: cluster.name \"",
                                               cluster.name, "\" differs from cluster_name \"",
                                               cluster_name, "\""));
    }
  } else if (!launch_templates_for && launch_template_name.empty()) {
    return absl::InvalidArgumentError(
        "aws cloud provider options: launch_template_name is empty and no launch_templates_for "
        "hook is set");
  }
  for (const auto& [key, value] : tags) {
    if (key.empty()) {
      return absl::InvalidArgumentError("aws cloud provider options: a tag has an empty key");
    }
    if (IsReservedTagKey(key)) {
      return absl::InvalidArgumentError(StrCat("aws cloud provider options: tag \"", key,
                                               "\" is set by karp and cannot be overridden"));
    }
  }
  for (const auto& [zone, subnet] : subnets) {
    if (zone.empty() || subnet.empty()) {
      return absl::InvalidArgumentError(
          "aws cloud provider options: subnets has an empty zone or subnet id");
    }
  }
  KARP_RETURN_IF_ERROR(ValidateBatching(batching));
  if (catalog_refresh_interval < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "aws cloud provider options: catalog_refresh_interval is negative");
  }
  AwsCatalogOptions c = catalog;
  c.region = client.region;
  c.zones = zones;
  c.spot_prices.reset();
  return c.Validate();
}

AwsProviderImpl::AwsProviderImpl(AwsCloudProviderOptions options, std::unique_ptr<Ec2Client> client)
    : options_(std::move(options)),
      client_(std::move(client)),
      templates_(std::make_unique<LaunchTemplateManager>(client_.get(), options_.cluster_name)),
      profiles_(std::make_unique<InstanceProfileManager>(client_.get(), options_.cluster_name,
                                                         kInstanceProfileCacheTtl,
                                                         [this] { return Now(); })),
      batchers_(std::make_unique<Batchers>(this)) {
  if (options_.cluster.name.empty()) options_.cluster.name = options_.cluster_name;
}

AwsProviderImpl::~AwsProviderImpl() = default;

absl::StatusOr<std::unique_ptr<AwsCloudProvider>> AwsCloudProvider::Create(
    AwsCloudProviderOptions options) {
  KARP_RETURN_IF_ERROR(options.Validate());
  KARP_ASSIGN_OR_RETURN(std::unique_ptr<Ec2Client> client, Ec2Client::Create(options.client));
  return std::unique_ptr<AwsCloudProvider>(new AwsCloudProvider(
      std::make_unique<AwsProviderImpl>(std::move(options), std::move(client))));
}

AwsCloudProvider::AwsCloudProvider(std::unique_ptr<AwsProviderImpl> impl)
    : impl_(std::move(impl)) {}

AwsCloudProvider::~AwsCloudProvider() = default;

absl::StatusOr<std::vector<InstanceType>> AwsCloudProvider::GetInstanceTypes(
    const NodePool& pool) const {
  return impl_->GetInstanceTypes(pool);
}

absl::StatusOr<Instance> AwsCloudProvider::Create(const LaunchRequest& request,
                                                  std::vector<LaunchOption>* failed) {
  KARP_ASSIGN_OR_RETURN(auto launched, impl_->CreateWithDetails(request, failed));
  return std::move(launched.first);
}

absl::Status AwsCloudProvider::Delete(const std::string& provider_id) {
  return impl_->Delete(provider_id);
}

absl::StatusOr<Instance> AwsCloudProvider::Get(const std::string& provider_id) const {
  return impl_->Get(provider_id);
}

absl::StatusOr<std::vector<Instance>> AwsCloudProvider::List() const { return impl_->List(); }

absl::StatusOr<std::string> AwsCloudProvider::DriftReason(const NodeClaim& claim) const {
  if (impl_->options().node_classes.empty()) return CloudProvider::DriftReason(claim);
  return impl_->DriftReason(claim);
}

absl::StatusOr<std::pair<Instance, AwsLaunchDetails>> AwsCloudProvider::CreateWithDetails(
    const LaunchRequest& request, std::vector<LaunchOption>* failed) {
  return impl_->CreateWithDetails(request, failed);
}

std::optional<AwsLaunchDetails> AwsCloudProvider::LaunchDetails(
    const std::string& provider_id) const {
  return impl_->LaunchDetails(provider_id);
}

absl::StatusOr<Ec2NodeClassStatus> AwsCloudProvider::NodeClassStatus(
    const std::string& name) const {
  return impl_->NodeClassStatus(name);
}

absl::StatusOr<InstanceCatalog> AwsCloudProvider::Catalog(const NodePool& pool) const {
  return impl_->Catalog(pool);
}

absl::Status AwsCloudProvider::Refresh() const { return impl_->Refresh(); }

AwsDiscoveryStats AwsCloudProvider::LastDiscovery() const { return impl_->LastDiscovery(); }

absl::Status AwsCloudProvider::TagInstance(const std::string& provider_id,
                                           const std::map<std::string, std::string>& tags) {
  return impl_->TagInstance(provider_id, tags);
}

absl::StatusOr<std::vector<std::string>> AwsCloudProvider::DeleteUnusedInstanceProfiles() {
  return impl_->DeleteUnusedInstanceProfiles();
}

AwsBatchStats AwsCloudProvider::BatchStats() const { return impl_->BatchStats(); }

absl::StatusOr<int> AwsCloudProvider::MarkInterruptedOfferings(
    const AwsInterruptionMessage& message, UnavailableOfferings* cache, absl::Time now) const {
  return impl_->MarkInterruptedOfferings(message, cache, now);
}

}  // namespace karp::aws
