#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "aws/aws_provider_impl.h"
#include "aws/launch_template.h"
#include "aws/launch_template_manager.h"
#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {

using internal::StrCat;

namespace {

std::string ClusterTagKey(const std::string& cluster) {
  return StrCat(kTagKeyClusterPrefix, cluster);
}

}  // namespace

absl::StatusOr<AwsProviderImpl::ClaimClass> AwsProviderImpl::ClassForClaim(
    const NewNodeClaim& claim) const {
  ClaimClass out;
  KARP_ASSIGN_OR_RETURN(out.node_class, ClassForPoolName(claim.node_pool, &out.pool));
  if (out.pool.metadata.name != claim.node_pool) {
    // A pool never passed to GetInstanceTypes (single class): what the claim knows of it.
    out.pool.metadata.name = claim.node_pool;
    out.pool.template_labels = claim.labels;
    out.pool.taints = claim.taints;
    out.pool.startup_taints = claim.startup_taints;
  }
  KARP_ASSIGN_OR_RETURN(out.state, CurrentClassState(*out.node_class));
  return out;
}

absl::StatusOr<AwsProviderImpl::FleetPlan> AwsProviderImpl::NodeClassFleetPlan(
    const NewNodeClaim& claim, const ClaimClass& cls, const std::vector<LaunchOption>& chosen) {
  FleetLaunchInput in;
  in.node_class = cls.node_class;
  in.status = &cls.state->status;
  in.pool = &cls.pool;
  in.catalog = &cls.state->catalog;
  in.cluster = options_.cluster;
  in.node_claim = claim.name;
  in.options = chosen;
  absl::StatusOr<std::vector<NodeClassFleetTemplate>> built = BuildFleetLaunchTemplates(in);
  if (!built.ok()) {
    return absl::Status(built.status().code(), StrCat("aws create nodeclaim ", claim.name, ": ",
                                                      built.status().message()));
  }
  FleetPlan plan;
  for (const NodeClassFleetTemplate& t : *built) {
    KARP_ASSIGN_OR_RETURN(std::string name, templates_->Ensure(t.config));
    plan.request.configs.emplace_back(std::move(name), t.overrides);
  }
  using TagMap = std::map<std::string, std::string>;
  KARP_ASSIGN_OR_RETURN(TagMap class_tags, Ec2Tags(*cls.node_class, options_.cluster_name,
                                                   claim.node_pool, claim.name));
  plan.request.tags = options_.tags;
  for (auto& [k, v] : class_tags) plan.request.tags[k] = std::move(v);
  plan.details.node_class = cls.node_class->name();
  plan.details.annotations[std::string(kAnnotationEc2NodeClassHash)] =
      Ec2NodeClassHash(*cls.node_class);
  plan.details.annotations[std::string(kAnnotationEc2NodeClassHashVersion)] =
      std::string(kEc2NodeClassHashVersion);
  return plan;
}

absl::StatusOr<AwsProviderImpl::FleetPlan> AwsProviderImpl::StaticFleetPlan(
    const LaunchRequest& request, const std::vector<LaunchOption>& chosen) const {
  const NewNodeClaim& claim = request.claim;
  std::vector<FleetLaunchTemplate> templates;
  if (options_.launch_templates_for) {
    KARP_ASSIGN_OR_RETURN(templates, options_.launch_templates_for(request));
  } else {
    templates.push_back({options_.launch_template_name, {}, ""});
  }
  FleetPlan plan;
  for (const FleetLaunchTemplate& t : templates) {
    if (t.name.empty()) {
      return absl::InvalidArgumentError(
          StrCat("aws create nodeclaim ", claim.name, ": a launch template has an empty name"));
    }
    std::vector<FleetOverride> overrides = StaticOverrides(t, chosen, options_.subnets);
    if (!overrides.empty()) plan.request.configs.emplace_back(t.name, std::move(overrides));
  }
  std::map<std::string, std::string>& tags = plan.request.tags;
  tags = options_.tags;
  tags[ClusterTagKey(options_.cluster_name)] = "owned";
  tags[std::string(kTagKeyNodePool)] = claim.node_pool;
  tags[std::string(kTagKeyEksClusterName)] = options_.cluster_name;
  tags[std::string(kTagKeyEc2NodeClass)] = options_.node_class_name;
  tags[std::string(kTagKeyNodeClaim)] = claim.name;
  plan.details.node_class = options_.node_class_name;
  return plan;
}

std::string AwsProviderImpl::NextClientToken(const std::string& claim_name) {
  // At most 64 characters; unique per request, so a retried request cannot launch twice.
  return StrCat("karp-", fleet_requests_.fetch_add(1) + 1, "-", absl::ToUnixNanos(Now()), "-",
                claim_name)
      .substr(0, 64);
}

absl::StatusOr<std::pair<Instance, AwsLaunchDetails>> AwsProviderImpl::CreateWithDetails(
    const LaunchRequest& request, std::vector<LaunchOption>* failed) {
  const NewNodeClaim& claim = request.claim;
  if (request.options.empty()) {
    return absl::InvalidArgumentError(
        StrCat("aws create nodeclaim ", claim.name, ": the request has no launch options"));
  }
  if (claim.node_pool.empty()) {
    return absl::InvalidArgumentError(
        StrCat("aws create nodeclaim ", claim.name, ": node_pool is empty (needed for its tags)"));
  }
  const std::string capacity_type = ChooseCapacityType(request.options);
  if (capacity_type.empty()) {
    return absl::FailedPreconditionError(StrCat(
        "aws create nodeclaim ", claim.name, ": no spot, on-demand or reserved option was given"));
  }
  std::optional<ClaimClass> cls;
  if (!options_.node_classes.empty()) {
    KARP_ASSIGN_OR_RETURN(cls, ClassForClaim(claim));
  }
  std::vector<LaunchOption> chosen =
      ChooseOptions(request.options, capacity_type, [&](const std::string& zone) {
        if (cls.has_value()) return cls->state->subnets.count(zone) != 0;
        return options_.subnets.empty() || options_.subnets.count(zone) != 0;
      });
  if (chosen.empty()) {
    return absl::FailedPreconditionError(StrCat("aws create nodeclaim ", claim.name, ": no ",
                                                capacity_type,
                                                " option is in a zone with a configured subnet"));
  }
  KARP_RETURN_IF_ERROR(KeepTargetedReservations(options_.capacity_reservations, !cls.has_value(),
                                                claim.name, &chosen));
  FleetPlan plan;
  if (cls.has_value()) {
    KARP_ASSIGN_OR_RETURN(plan, NodeClassFleetPlan(claim, *cls, chosen));
  } else {
    KARP_ASSIGN_OR_RETURN(plan, StaticFleetPlan(request, chosen));
  }
  if (plan.request.configs.empty()) {
    return absl::FailedPreconditionError(
        StrCat("aws create nodeclaim ", claim.name,
               ": no capacity offerings are currently available given the constraints (no launch "
               "template serves the requested instance types)"));
  }
  plan.request.capacity_type = capacity_type;

  const std::string key = FleetKey(plan.request);
  FleetOutcome outcome = batchers_->fleet.Add(key, {plan.request, claim.name, chosen});
  if (failed != nullptr) {
    failed->insert(failed->end(), outcome.failed.begin(), outcome.failed.end());
  }
  if (!outcome.status.ok()) return outcome.status;
  const std::optional<FleetInstance>& launched = outcome.instance;
  if (!launched.has_value()) return FleetFailure(claim.name, outcome.errors);
  Instance instance =
      LaunchedInstance(claim, *launched, capacity_type, chosen, options_.client.region, Now());
  RecordLaunchTemplate(plan.request.configs, *launched, &plan.details);
  {
    absl::MutexLock lock(&mu_);
    launches_[instance.provider_id] = plan.details;
  }
  return std::make_pair(std::move(instance), std::move(plan.details));
}

std::optional<AwsLaunchDetails> AwsProviderImpl::LaunchDetails(
    const std::string& provider_id) const {
  absl::MutexLock lock(&mu_);
  auto it = launches_.find(provider_id);
  if (it == launches_.end()) return std::nullopt;
  return it->second;
}

}  // namespace karp::aws
