// File: karp/aws/ec2nodeclass_status.h
//
// What an EC2NodeClass resolves to in EC2 (the reference's NodeClass status): the subnets,
// security groups and AMIs its selector terms match, and the decisions karp takes from them
// without calling AWS (docs/aws.md §3.2-3.4, §6):
//   - one subnet per zone, the one with the most available IPs (ties: smaller id); zones
//     without a subnet cannot be launched into;
//   - per instance type, the newest AMI whose requirements it meets (architecture, and for
//     alias AMIs the variant: standard images need a type without GPU and accelerator, nvidia
//     images a GPU, neuron images a Neuron accelerator); types without one are left out;
//   - NodeClass drift of a launched NodeClaim: static hash, AMI, security groups, subnet.
// karp::aws discovery (AwsCloudProvider) fills Ec2NodeClassStatus through DescribeSubnets,
// DescribeSecurityGroups, DescribeImages and SSM GetParameter; hosts and tests may also build
// it themselves.
//
// Thread-safety: value types; functions are thread-safe.

#ifndef KARP_AWS_EC2NODECLASS_STATUS_H_
#define KARP_AWS_EC2NODECLASS_STATUS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/aws/ec2nodeclass.h"
#include "karp/instance_type.h"
#include "karp/objects.h"

namespace karp::aws {

// Drift reasons (the reference's names).
inline constexpr std::string_view kDriftNodeClass = "NodeClassDrift";
inline constexpr std::string_view kDriftAmi = "AMIDrift";
inline constexpr std::string_view kDriftSecurityGroup = "SecurityGroupDrift";
inline constexpr std::string_view kDriftSubnet = "SubnetDrift";

struct ResolvedSubnet {
  std::string id;
  std::string zone;
  std::string zone_id;
  int64_t available_ips = 0;
  friend bool operator==(const ResolvedSubnet& a, const ResolvedSubnet& b) {
    return a.id == b.id && a.zone == b.zone && a.zone_id == b.zone_id &&
           a.available_ips == b.available_ips;
  }
};

struct ResolvedSecurityGroup {
  std::string id;
  std::string name;
  friend bool operator==(const ResolvedSecurityGroup& a, const ResolvedSecurityGroup& b) {
    return a.id == b.id && a.name == b.name;
  }
};

// Which instance types an AMI is for, beyond its architecture.
enum class AmiVariant {
  kAny,       // selected by id, name, tags or ssmParameter: architecture only
  kStandard,  // alias image without accelerators: types with no GPU and no accelerator
  kNvidia,    // alias image with NVIDIA drivers: types with a GPU
  kNeuron,    // alias image with Neuron drivers: types with a Neuron accelerator
};

struct ResolvedAmi {
  std::string id;
  std::string name;
  std::string architecture;   // Kubernetes spelling: "amd64" or "arm64"
  std::string creation_date;  // RFC 3339 as EC2 reports it (sorts chronologically)
  bool deprecated = false;
  AmiVariant variant = AmiVariant::kAny;
  friend bool operator==(const ResolvedAmi& a, const ResolvedAmi& b) {
    return a.id == b.id && a.name == b.name && a.architecture == b.architecture &&
           a.creation_date == b.creation_date && a.deprecated == b.deprecated &&
           a.variant == b.variant;
  }
};

struct Ec2NodeClassStatus {
  // Sorted by available IPs (most first), then id.
  std::vector<ResolvedSubnet> subnets;
  // Sorted by id.
  std::vector<ResolvedSecurityGroup> security_groups;
  // One per (architecture, variant), newest first (see NormalizeAmis).
  std::vector<ResolvedAmi> amis;
  // spec.instanceProfile, or the profile the host manages for spec.role.
  std::string instance_profile;
};

// Orders subnets and security groups as documented above and removes duplicate ids.
void NormalizeSubnetsAndGroups(Ec2NodeClassStatus* status);

// Keeps one AMI per (architecture, variant): non-deprecated beats deprecated, then the newest
// creation date, then the larger name, then the larger id; returns them newest first (ties:
// name, then id, descending). Deterministic for any input order.
std::vector<ResolvedAmi> NormalizeAmis(std::vector<ResolvedAmi> amis);

// Zone -> the subnet with the most available IPs (ties: the smaller id).
std::map<std::string, ResolvedSubnet> SubnetPerZone(const Ec2NodeClassStatus& status);

// True if `ami` may run instances of `type` (architecture from its kubernetes.io/arch label;
// GPU from nvidia.com/gpu / amd.com/gpu capacity or the instance-gpu-count label; Neuron from
// aws.amazon.com/neuron capacity or the instance-accelerator-count label).
bool AmiCompatible(const ResolvedAmi& ami, const InstanceType& type);

// The first (newest) AMI of status.amis compatible with `type`, or nullptr.
const ResolvedAmi* AmiFor(const Ec2NodeClassStatus& status, const InstanceType& type);

// `types` without those no AMI of `status` can run, order kept.
std::vector<InstanceType> TypesWithAmi(const std::vector<InstanceType>& types,
                                       const Ec2NodeClassStatus& status);

// What EC2 reports about a launched instance that drift compares.
struct InstanceNetwork {
  std::string subnet_id;
  std::vector<std::string> security_group_ids;
};

// The NodeClass drift reason of `claim`, "" when not drifted (docs/aws.md §6, first hit
// wins):
//   NodeClassDrift      the claim's kAnnotationEc2NodeClassHash differs from
//                       Ec2NodeClassHash(node_class) and its hash version is
//                       kEc2NodeClassHashVersion (claims without the annotations, or with
//                       another version, never drift for this reason);
//   AMIDrift            claim.image_id is set and is not AmiFor(status, *type) (skipped when
//                       `type` is null);
//   SecurityGroupDrift  the instance's security-group set differs from the status set;
//   SubnetDrift         the instance's subnet is not among the status subnets.
std::string NodeClassDriftReason(const Ec2NodeClass& node_class, const Ec2NodeClassStatus& status,
                                 const NodeClaim& claim, const InstanceType* type,
                                 const InstanceNetwork& instance);

}  // namespace karp::aws

#endif  // KARP_AWS_EC2NODECLASS_STATUS_H_
