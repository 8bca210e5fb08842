// The decisions taken from a resolved EC2NodeClass: subnet per zone, AMI per instance type and
// NodeClass drift (docs/aws.md §3.2-3.4, §6).

#include "karp/aws/ec2nodeclass_status.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "karp/aws_catalog.h"
#include "karp/labels.h"

namespace karp::aws {

namespace {

std::string Label(const InstanceType& type, std::string_view key) {
  auto it = type.labels.find(std::string(key));
  return it == type.labels.end() ? std::string() : it->second;
}

bool HasGpu(const InstanceType& type) {
  return type.capacity.Get(kAwsResourceNvidiaGpu) > 0 ||
         type.capacity.Get(kAwsResourceAmdGpu) > 0 ||
         !Label(type, kAwsLabelInstanceGpuCount).empty();
}

bool HasAccelerator(const InstanceType& type) {
  return type.capacity.Get(kAwsResourceNeuron) > 0 ||
         !Label(type, kAwsLabelInstanceAcceleratorCount).empty();
}

}  // namespace

void NormalizeSubnetsAndGroups(Ec2NodeClassStatus* status) {
  auto& subnets = status->subnets;
  std::sort(subnets.begin(), subnets.end(), [](const ResolvedSubnet& a, const ResolvedSubnet& b) {
    if (a.id != b.id) return a.id < b.id;
    return a.available_ips > b.available_ips;
  });
  subnets.erase(
      std::unique(subnets.begin(), subnets.end(),
                  [](const ResolvedSubnet& a, const ResolvedSubnet& b) { return a.id == b.id; }),
      subnets.end());
  std::sort(subnets.begin(), subnets.end(), [](const ResolvedSubnet& a, const ResolvedSubnet& b) {
    if (a.available_ips != b.available_ips) return a.available_ips > b.available_ips;
    return a.id < b.id;
  });
  auto& groups = status->security_groups;
  std::sort(
      groups.begin(), groups.end(),
      [](const ResolvedSecurityGroup& a, const ResolvedSecurityGroup& b) { return a.id < b.id; });
  groups.erase(std::unique(groups.begin(), groups.end(),
                           [](const ResolvedSecurityGroup& a, const ResolvedSecurityGroup& b) {
                             return a.id == b.id;
                           }),
               groups.end());
}

std::vector<ResolvedAmi> NormalizeAmis(std::vector<ResolvedAmi> amis) {
  // Best first within a (architecture, variant) group.
  auto better = [](const ResolvedAmi& a, const ResolvedAmi& b) {
    return std::make_tuple(!a.deprecated, a.creation_date, a.name, a.id) >
           std::make_tuple(!b.deprecated, b.creation_date, b.name, b.id);
  };
  std::map<std::pair<std::string, AmiVariant>, ResolvedAmi> best;
  for (ResolvedAmi& ami : amis) {
    auto key = std::make_pair(ami.architecture, ami.variant);
    auto it = best.find(key);
    if (it == best.end()) {
      best.emplace(key, std::move(ami));
    } else if (better(ami, it->second)) {
      it->second = std::move(ami);
    }
  }
  std::vector<ResolvedAmi> out;
  for (auto& [key, ami] : best) out.push_back(std::move(ami));
  std::sort(out.begin(), out.end(), [](const ResolvedAmi& a, const ResolvedAmi& b) {
    return std::tie(a.creation_date, a.name, a.id) > std::tie(b.creation_date, b.name, b.id);
  });
  return out;
}

std::map<std::string, ResolvedSubnet> SubnetPerZone(const Ec2NodeClassStatus& status) {
  std::map<std::string, ResolvedSubnet> out;
  for (const ResolvedSubnet& s : status.subnets) {
    auto it = out.find(s.zone);
    if (it == out.end()) {
      out.emplace(s.zone, s);
    } else if (s.available_ips > it->second.available_ips ||
               (s.available_ips == it->second.available_ips && s.id < it->second.id)) {
      it->second = s;
    }
  }
  return out;
}

bool AmiCompatible(const ResolvedAmi& ami, const InstanceType& type) {
  if (Label(type, kLabelArch) != ami.architecture) return false;
  switch (ami.variant) {
    case AmiVariant::kAny:
      return true;
    case AmiVariant::kStandard:
      return !HasGpu(type) && !HasAccelerator(type);
    case AmiVariant::kNvidia:
      return HasGpu(type);
    case AmiVariant::kNeuron:
      return HasAccelerator(type);
  }
  return false;
}

const ResolvedAmi* AmiFor(const Ec2NodeClassStatus& status, const InstanceType& type) {
  for (const ResolvedAmi& ami : status.amis) {
    if (AmiCompatible(ami, type)) return &ami;
  }
  return nullptr;
}

std::vector<InstanceType> TypesWithAmi(const std::vector<InstanceType>& types,
                                       const Ec2NodeClassStatus& status) {
  std::vector<InstanceType> out;
  for (const InstanceType& t : types) {
    if (AmiFor(status, t) != nullptr) out.push_back(t);
  }
  return out;
}

std::string NodeClassDriftReason(const Ec2NodeClass& node_class, const Ec2NodeClassStatus& status,
                                 const NodeClaim& claim, const InstanceType* type,
                                 const InstanceNetwork& instance) {
  const auto& ann = claim.metadata.annotations;
  auto hash = ann.find(std::string(kAnnotationEc2NodeClassHash));
  auto version = ann.find(std::string(kAnnotationEc2NodeClassHashVersion));
  if (hash != ann.end() && version != ann.end() && version->second == kEc2NodeClassHashVersion &&
      hash->second != Ec2NodeClassHash(node_class)) {
    return std::string(kDriftNodeClass);
  }
  if (type != nullptr && !claim.image_id.empty()) {
    const ResolvedAmi* want = AmiFor(status, *type);
    if (want == nullptr || want->id != claim.image_id) return std::string(kDriftAmi);
  }
  std::set<std::string> have(instance.security_group_ids.begin(),
                             instance.security_group_ids.end());
  std::set<std::string> want;
  for (const ResolvedSecurityGroup& g : status.security_groups) want.insert(g.id);
  if (have != want) return std::string(kDriftSecurityGroup);
  bool subnet_ok = false;
  for (const ResolvedSubnet& s : status.subnets) {
    subnet_ok = subnet_ok || s.id == instance.subnet_id;
  }
  if (!subnet_ok) return std::string(kDriftSubnet);
  return "";
}

}  // namespace karp::aws
