#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "aws/aws_provider_impl.h"
#include "aws/instance_profile.h"
#include "aws/instance_profile_manager.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::aws {

using internal::StrCat;

namespace {

// `x` as a karp Instance, at its offering's price in `prices` (the discovery in use; null
// before the first) or, for on-demand, the embedded price of `region`.
Instance ToInstance(const Described& x, const PriceMap* prices, const std::string& region) {
  Instance out;
  out.provider_id = StrCat("aws:///", x.zone, "/", x.id);
  out.instance_type = x.type;
  out.zone = x.zone;
  out.capacity_type = x.capacity_type;
  if (auto t = x.tags.find(std::string(kTagKeyNodePool)); t != x.tags.end()) {
    out.node_pool = t->second;
  }
  if (prices != nullptr) {
    if (auto p = prices->find({x.capacity_type, x.type, x.zone}); p != prices->end()) {
      out.price = p->second;
    }
  }
  if (out.price == 0 && x.capacity_type == "on-demand") {
    out.price = EmbeddedPrice(x.type, region).value_or(0);
  }
  out.labels[std::string(kLabelInstanceType)] = x.type;
  out.labels[std::string(kLabelZone)] = x.zone;
  out.labels[std::string(kLabelRegion)] = region;
  out.labels[std::string(kLabelCapacityType)] = x.capacity_type;
  if (!out.node_pool.empty()) out.labels[std::string(kLabelNodePool)] = out.node_pool;
  out.launched_at = x.launched_at;
  return out;
}

}  // namespace

absl::StatusOr<Instance> AwsProviderImpl::Get(const std::string& provider_id) const {
  KARP_ASSIGN_OR_RETURN(AwsProviderId id, ParseAwsProviderId(provider_id));
  KARP_ASSIGN_OR_RETURN(std::vector<Described> found, batchers_->describe.Add("", id.instance_id));
  if (found.empty()) {
    return absl::NotFoundError(StrCat("aws instance ", id.instance_id, " not found"));
  }
  std::shared_ptr<const Discovery> d = DiscoveryInUse();
  return ToInstance(found.front(), d == nullptr ? nullptr : &d->prices, options_.client.region);
}

absl::StatusOr<std::vector<Instance>> AwsProviderImpl::List() const {
  QueryParams params;
  AddFilter(&params, 1, "tag-key", {std::string(kTagKeyNodePool)});
  AddFilter(&params, 2, "tag-key", {std::string(kTagKeyEc2NodeClass)});
  AddFilter(&params, 3, StrCat("tag:", kTagKeyEksClusterName), {options_.cluster_name});
  AddFilter(&params, 4, "instance-state-name", LiveInstanceStates());
  params.emplace_back("MaxResults", "1000");
  KARP_ASSIGN_OR_RETURN(std::vector<Described> found, DescribeInstances(*client_, params));
  std::shared_ptr<const Discovery> d = DiscoveryInUse();
  std::vector<Instance> out;
  for (const Described& x : found) {
    out.push_back(ToInstance(x, d == nullptr ? nullptr : &d->prices, options_.client.region));
  }
  std::sort(out.begin(), out.end(),
            [](const Instance& a, const Instance& b) { return a.provider_id < b.provider_id; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const Instance& a, const Instance& b) {
                          return a.provider_id == b.provider_id;
                        }),
            out.end());
  return out;
}

absl::StatusOr<std::string> AwsProviderImpl::DriftReason(const NodeClaim& claim) const {
  // Not launched yet: nothing to compare.
  if (claim.provider_id.empty()) return std::string();
  const Ec2NodeClass* nc = nullptr;
  if (claim.node_class_ref.name.empty()) {
    if (options_.node_classes.size() == 1) nc = &options_.node_classes.front();
  } else {
    nc = FindEc2NodeClass(options_.node_classes, claim.node_class_ref.name);
  }
  if (nc == nullptr) {
    return absl::FailedPreconditionError(StrCat("nodeclaim ", claim.metadata.name,
                                                ": ec2nodeclass \"", claim.node_class_ref.name,
                                                "\" is not known to the aws provider"));
  }
  KARP_ASSIGN_OR_RETURN(std::shared_ptr<const ClassState> state, CurrentClassState(*nc));
  KARP_ASSIGN_OR_RETURN(AwsProviderId id, ParseAwsProviderId(claim.provider_id));
  absl::StatusOr<std::vector<Described>> found = batchers_->describe.Add("", id.instance_id);
  if (absl::IsNotFound(found.status()) || (found.ok() && found->empty())) {
    return std::string();  // gone: garbage collection's business, not drift
  }
  if (!found.ok()) return found.status();
  const Described& x = found->front();
  InstanceNetwork network;
  network.subnet_id = x.subnet_id;
  network.security_group_ids = x.security_group_ids;
  const InstanceType* type = nullptr;
  if (auto t = claim.metadata.labels.find(std::string(kLabelInstanceType));
      t != claim.metadata.labels.end()) {
    type = state->catalog.Find(t->second);
  }
  if (type == nullptr) type = state->catalog.Find(x.type);
  if (claim.image_id.empty() && !x.image_id.empty()) {
    // The host did not record the image: compare the one EC2 reports.
    NodeClaim with_image = claim;
    with_image.image_id = x.image_id;
    return NodeClassDriftReason(*nc, state->status, with_image, type, network);
  }
  return NodeClassDriftReason(*nc, state->status, claim, type, network);
}

absl::Status AwsProviderImpl::Delete(const std::string& provider_id) {
  KARP_ASSIGN_OR_RETURN(AwsProviderId id, ParseAwsProviderId(provider_id));
  KARP_ASSIGN_OR_RETURN(std::vector<Described> found, batchers_->describe.Add("", id.instance_id));
  if (found.empty()) {
    return absl::NotFoundError(StrCat("aws instance ", id.instance_id, " not found"));
  }
  const Described& x = found.front();
  if (x.tags.count(std::string(kTagKeyNodePool)) == 0) {
    return absl::FailedPreconditionError(StrCat("refusing to terminate aws instance ", x.id,
                                                ": it does not carry the ", kTagKeyNodePool,
                                                " tag, so karp did not launch it"));
  }
  {
    absl::MutexLock lock(&mu_);
    launches_.erase(provider_id);
  }
  if (x.state == "shutting-down") return absl::OkStatus();  // already going away
  return batchers_->terminate.Add("", x.id);
}

AwsBatchStats AwsProviderImpl::BatchStats() const {
  absl::MutexLock lock(&batchers_->mu);
  return batchers_->stats;
}

absl::Status AwsProviderImpl::TagInstance(const std::string& provider_id,
                                          const std::map<std::string, std::string>& tags) {
  KARP_ASSIGN_OR_RETURN(AwsProviderId id, ParseAwsProviderId(provider_id));
  if (tags.empty()) {
    return absl::InvalidArgumentError(StrCat("aws tag instance ", id.instance_id, ": no tags"));
  }
  QueryParams params;
  AddList(&params, "ResourceId", {id.instance_id});
  int n = 0;
  for (const auto& [k, v] : tags) {
    if (k.empty()) {
      return absl::InvalidArgumentError(
          StrCat("aws tag instance ", id.instance_id, ": a tag has an empty key"));
    }
    ++n;
    params.emplace_back(StrCat("Tag.", n, ".Key"), k);
    params.emplace_back(StrCat("Tag.", n, ".Value"), v);
  }
  KARP_ASSIGN_OR_RETURN(XmlResponse r, client_->Call("CreateTags", params));
  if (XmlText(r.root(), "return") != "true") {
    return absl::InternalError(
        StrCat("EC2 CreateTags: return is \"", XmlText(r.root(), "return"), "\", want true"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> AwsProviderImpl::DeleteUnusedInstanceProfiles() {
  if (options_.node_classes.empty()) {
    return absl::FailedPreconditionError(
        "aws delete unused instance profiles: static mode (no node classes) manages no "
        "instance profiles");
  }
  std::set<std::string> keep;
  for (const Ec2NodeClass& nc : options_.node_classes) {
    if (!nc.role.empty()) {
      keep.insert(InstanceProfileName(options_.cluster_name, options_.client.region, nc.name()));
    }
  }
  // Classes whose instances still run keep their profile until the instances are gone.
  QueryParams params;
  AddFilter(&params, 1, "tag-key", {std::string(kTagKeyEc2NodeClass)});
  AddFilter(&params, 2, StrCat("tag:", kTagKeyEksClusterName), {options_.cluster_name});
  AddFilter(&params, 3, "instance-state-name", LiveInstanceStates());
  KARP_ASSIGN_OR_RETURN(std::vector<Described> live, DescribeInstances(*client_, params));
  for (const Described& x : live) {
    auto tag = x.tags.find(std::string(kTagKeyEc2NodeClass));
    if (tag == x.tags.end()) continue;
    keep.insert(InstanceProfileName(options_.cluster_name, options_.client.region, tag->second));
  }
  return profiles_->DeleteExcept(keep);
}

absl::StatusOr<int> AwsProviderImpl::MarkInterruptedOfferings(const AwsInterruptionMessage& message,
                                                              UnavailableOfferings* cache,
                                                              absl::Time now) const {
  if (cache == nullptr) return absl::InvalidArgumentError("mark interrupted offerings: null cache");
  if (message.kind != AwsInterruptionKind::kSpotInterruption || message.instance_ids.empty()) {
    return 0;
  }
  KARP_ASSIGN_OR_RETURN(std::vector<Described> found,
                        DescribeByIds(*client_, message.instance_ids));
  int marked = 0;
  for (const Described& x : found) {
    cache->MarkUnavailable("spot", x.type, x.zone, now);
    ++marked;
  }
  return marked;
}

}  // namespace karp::aws
