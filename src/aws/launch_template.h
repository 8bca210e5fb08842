// Internal header of karp::aws: aws/launch_template.h
//
// EC2 launch templates for a NodeClass (docs/aws.md §3.5, §3.7): one template per distinct
// (AMI, security groups, user data, block devices, metadata options, instance profile,
// networking, monitoring, tags) set, named deterministically from a hash of that set
// ("karpenter.k8s.aws/<decimal 64-bit FNV-1a>"), so identical inputs reuse one template; and
// the CreateFleet launch-template configs: each template with its overrides (instance type x
// zone, with the zone's chosen subnet and the template's image).
//
// BuildFleetLaunchTemplates is the hook AwsCloudProvider::Create uses: given the NodeClass, its
// resolved status, the NodePool and the offerings to try, it yields what CreateFleet needs.
// Creating, reusing and deleting templates in EC2 is LaunchTemplateManager's job
// (src/aws/launch_template_manager.h, internal to karp::aws).
//
// Thread-safety: value types; functions are thread-safe.

#ifndef KARP_SRC_AWS_LAUNCH_TEMPLATE_H_
#define KARP_SRC_AWS_LAUNCH_TEMPLATE_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "aws/userdata.h"
#include "karp/aws/ec2nodeclass.h"
#include "karp/aws/ec2nodeclass_status.h"
#include "karp/catalog.h"
#include "karp/cloud_provider.h"
#include "karp/objects.h"

namespace karp::aws {

inline constexpr std::string_view kLaunchTemplateNamePrefix = "karpenter.k8s.aws/";

// The contents of one launch template.
struct LaunchTemplateConfig {
  std::string image_id;
  std::string user_data;  // base64, as EC2 takes it
  std::string instance_profile;
  std::vector<std::string> security_group_ids;  // sorted
  std::vector<BlockDeviceMapping> block_device_mappings;
  MetadataOptions metadata_options;
  bool detailed_monitoring = false;
  std::optional<bool> associate_public_ip_address;
  std::map<std::string, std::string> tags;  // on the template and its network interfaces
  // A targeted capacity reservation the template launches into
  // (CapacityReservationSpecification.CapacityReservationTarget); "" for none.
  std::string capacity_reservation_id;

  // kLaunchTemplateNamePrefix + decimal hash of every field above. Deterministic.
  std::string Name() const;

  friend bool operator==(const LaunchTemplateConfig& a, const LaunchTemplateConfig& b);
};

// CreateLaunchTemplate parameters (EC2 Query names, in a fixed order): LaunchTemplateName,
// LaunchTemplateData.{ImageId, UserData, IamInstanceProfile.Name, Monitoring.Enabled,
// CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId when
// capacity_reservation_id is set, MetadataOptions.*, BlockDeviceMapping.N.*, SecurityGroupId.N
// or, when
// associate_public_ip_address is set, NetworkInterface.1.{DeviceIndex, AssociatePublicIpAddress,
// SecurityGroupId.N}, TagSpecification.1 (network-interface)}, TagSpecification.1
// (launch-template). Volume sizes are written in GiB, rounded up.
std::vector<std::pair<std::string, std::string>> CreateLaunchTemplateParams(
    const LaunchTemplateConfig& config);

// One CreateFleet override.
struct FleetOverride {
  std::string instance_type;
  std::string zone;
  std::string subnet_id;
  std::string image_id;
  double priority = 0;  // the offering price
  friend bool operator==(const FleetOverride& a, const FleetOverride& b) {
    return a.instance_type == b.instance_type && a.zone == b.zone && a.subnet_id == b.subnet_id &&
           a.image_id == b.image_id && a.priority == b.priority;
  }
};

// One LaunchTemplateConfigs entry of CreateFleet.
struct NodeClassFleetTemplate {
  LaunchTemplateConfig config;
  std::string name;  // config.Name()
  std::vector<FleetOverride> overrides;
};

struct FleetLaunchInput {
  const Ec2NodeClass* node_class = nullptr;    // required
  const Ec2NodeClassStatus* status = nullptr;  // required
  const NodePool* pool = nullptr;              // required
  const InstanceCatalog* catalog = nullptr;    // required: types of the options (AMI, max pods)
  ClusterInfo cluster;
  std::string node_claim;  // for the karpenter.sh/nodeclaim tag; may be empty
  // The offerings to try (LaunchRequest::options); those of other capacity types than the
  // first option's are ignored (CreateFleet takes one market type). An option's non-empty
  // reservation_id is launched into by naming it in its template (AwsCloudProvider keeps the
  // ids of targeted reservations only; open ones need no template of their own).
  std::vector<LaunchOption> options;
};

// The templates and overrides of one CreateFleet call: options grouped by (AMI, max pods,
// reservation_id) into templates (in order of their first option), each option an override in
// its zone's subnet (SubnetPerZone); options in zones without a subnet, and types without an
// AMI, are dropped; duplicates (type, zone) are kept once.
// Errors: InvalidArgument for a missing input or an invalid NodeClass, restricted tag or
// cluster; FailedPrecondition "no capacity offerings are currently available given the
// constraints (...)" when nothing is left; user-data errors as RenderUserData.
[[nodiscard]] absl::StatusOr<std::vector<NodeClassFleetTemplate>> BuildFleetLaunchTemplates(
    const FleetLaunchInput& input);

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_LAUNCH_TEMPLATE_H_
