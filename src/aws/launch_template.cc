// Launch-template contents, names and CreateLaunchTemplate parameters, and the CreateFleet
// launch-template configs of a launch (docs/aws.md §3.5, §3.7).

#include "aws/launch_template.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "aws/nodeclass_internal.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::aws {

using internal::StrCat;

namespace {

constexpr int64_t kGi = int64_t{1} << 30;

std::string Bool(bool b) { return b ? "true" : "false"; }

// The family's default block devices when the NodeClass has none (encrypted gp3).
std::vector<BlockDeviceMapping> DefaultBlockDevices(AwsAmiFamily family) {
  auto gp3 = [](std::string device, int64_t gib) {
    BlockDeviceMapping m;
    m.device_name = std::move(device);
    m.ebs.volume_type = "gp3";
    m.ebs.encrypted = true;
    m.ebs.volume_size = gib * kGi;
    return m;
  };
  switch (family) {
    case AwsAmiFamily::kAl2:
    case AwsAmiFamily::kAl2023:
      return {gp3("/dev/xvda", 20)};
    case AwsAmiFamily::kBottlerocket:
      return {gp3("/dev/xvda", 4), gp3("/dev/xvdb", 20)};
    case AwsAmiFamily::kWindows2019:
    case AwsAmiFamily::kWindows2022:
    case AwsAmiFamily::kWindows2025:
      return {gp3("/dev/sda1", 50)};
    case AwsAmiFamily::kCustom:
      break;
  }
  return {};
}

void AddTags(std::vector<std::pair<std::string, std::string>>* p, std::string_view prefix,
             const std::map<std::string, std::string>& tags) {
  int j = 1;
  for (const auto& [k, v] : tags) {
    p->emplace_back(StrCat(prefix, ".Tag.", j, ".Key"), k);
    p->emplace_back(StrCat(prefix, ".Tag.", j, ".Value"), v);
    ++j;
  }
}

}  // namespace

bool operator==(const LaunchTemplateConfig& a, const LaunchTemplateConfig& b) {
  return a.image_id == b.image_id && a.user_data == b.user_data &&
         a.instance_profile == b.instance_profile && a.security_group_ids == b.security_group_ids &&
         a.block_device_mappings == b.block_device_mappings &&
         a.metadata_options == b.metadata_options &&
         a.detailed_monitoring == b.detailed_monitoring &&
         a.associate_public_ip_address == b.associate_public_ip_address && a.tags == b.tags &&
         a.capacity_reservation_id == b.capacity_reservation_id;
}

std::string LaunchTemplateConfig::Name() const {
  CanonicalWriter w;
  w.Field("image", image_id);
  w.Field("userData", user_data);
  w.Field("profile", instance_profile);
  std::string groups;
  for (const std::string& g : security_group_ids) {
    internal::StrAppend(&groups, g.size(), ":", g, ";");
  }
  w.Field("groups", groups);
  for (const BlockDeviceMapping& b : block_device_mappings) w.Field("bdm", CanonicalBdm(b));
  w.Field("metadata",
          StrCat(metadata_options.http_endpoint, ",", metadata_options.http_protocol_ipv6, ",",
                 metadata_options.http_put_response_hop_limit, ",", metadata_options.http_tokens));
  w.Field("monitoring", Bool(detailed_monitoring));
  w.Field("publicIP",
          associate_public_ip_address.has_value() ? Bool(*associate_public_ip_address) : "-");
  w.Map("tags", tags);
  // Only when set, so templates without a reservation keep their names.
  if (!capacity_reservation_id.empty()) w.Field("capacityReservation", capacity_reservation_id);
  return StrCat(kLaunchTemplateNamePrefix, Fnv1a64(w.text()));
}

std::vector<std::pair<std::string, std::string>> CreateLaunchTemplateParams(
    const LaunchTemplateConfig& c) {
  std::vector<std::pair<std::string, std::string>> p;
  const std::string d = "LaunchTemplateData";
  p.emplace_back("LaunchTemplateName", c.Name());
  p.emplace_back(d + ".ImageId", c.image_id);
  if (!c.user_data.empty()) p.emplace_back(d + ".UserData", c.user_data);
  if (!c.instance_profile.empty()) {
    p.emplace_back(d + ".IamInstanceProfile.Name", c.instance_profile);
  }
  p.emplace_back(d + ".Monitoring.Enabled", Bool(c.detailed_monitoring));
  if (!c.capacity_reservation_id.empty()) {
    p.emplace_back(d + ".CapacityReservationSpecification.CapacityReservationTarget."
                       "CapacityReservationId",
                   c.capacity_reservation_id);
  }
  const MetadataOptions& m = c.metadata_options;
  p.emplace_back(d + ".MetadataOptions.HttpEndpoint", m.http_endpoint);
  p.emplace_back(d + ".MetadataOptions.HttpProtocolIpv6", m.http_protocol_ipv6);
  p.emplace_back(d + ".MetadataOptions.HttpPutResponseHopLimit",
                 std::to_string(m.http_put_response_hop_limit));
  p.emplace_back(d + ".MetadataOptions.HttpTokens", m.http_tokens);
  p.emplace_back(d + ".MetadataOptions.InstanceMetadataTags", "disabled");
  for (size_t i = 0; i < c.block_device_mappings.size(); ++i) {
    const BlockDeviceMapping& b = c.block_device_mappings[i];
    const std::string bp = StrCat(d, ".BlockDeviceMapping.", i + 1);
    p.emplace_back(bp + ".DeviceName", b.device_name);
    const std::string e = bp + ".Ebs";
    if (b.ebs.delete_on_termination.has_value()) {
      p.emplace_back(e + ".DeleteOnTermination", Bool(*b.ebs.delete_on_termination));
    }
    if (b.ebs.encrypted.has_value()) p.emplace_back(e + ".Encrypted", Bool(*b.ebs.encrypted));
    if (b.ebs.iops.has_value()) p.emplace_back(e + ".Iops", std::to_string(*b.ebs.iops));
    if (!b.ebs.kms_key_id.empty()) p.emplace_back(e + ".KmsKeyId", b.ebs.kms_key_id);
    if (!b.ebs.snapshot_id.empty()) p.emplace_back(e + ".SnapshotId", b.ebs.snapshot_id);
    if (b.ebs.throughput.has_value()) {
      p.emplace_back(e + ".Throughput", std::to_string(*b.ebs.throughput));
    }
    if (b.ebs.volume_size.has_value()) {
      p.emplace_back(e + ".VolumeSize", std::to_string((*b.ebs.volume_size + kGi - 1) / kGi));
    }
    if (!b.ebs.volume_type.empty()) p.emplace_back(e + ".VolumeType", b.ebs.volume_type);
  }
  if (c.associate_public_ip_address.has_value()) {
    const std::string n = d + ".NetworkInterface.1";
    p.emplace_back(n + ".DeviceIndex", "0");
    p.emplace_back(n + ".AssociatePublicIpAddress", Bool(*c.associate_public_ip_address));
    for (size_t i = 0; i < c.security_group_ids.size(); ++i) {
      p.emplace_back(StrCat(n, ".SecurityGroupId.", i + 1), c.security_group_ids[i]);
    }
  } else {
    for (size_t i = 0; i < c.security_group_ids.size(); ++i) {
      p.emplace_back(StrCat(d, ".SecurityGroupId.", i + 1), c.security_group_ids[i]);
    }
  }
  if (!c.tags.empty()) {
    p.emplace_back(d + ".TagSpecification.1.ResourceType", "network-interface");
    AddTags(&p, d + ".TagSpecification.1", c.tags);
    p.emplace_back("TagSpecification.1.ResourceType", "launch-template");
    AddTags(&p, "TagSpecification.1", c.tags);
  }
  return p;
}

namespace {

// What every template of one fleet launch shares: all but the image, the user data and the
// capacity reservation.
LaunchTemplateConfig SharedConfig(const Ec2NodeClass& nc, const Ec2NodeClassStatus& status,
                                  std::map<std::string, std::string> tags) {
  LaunchTemplateConfig c;
  for (const ResolvedSecurityGroup& g : status.security_groups) {
    c.security_group_ids.push_back(g.id);
  }
  std::sort(c.security_group_ids.begin(), c.security_group_ids.end());
  c.block_device_mappings = nc.block_device_mappings;
  if (c.block_device_mappings.empty()) {
    c.block_device_mappings = DefaultBlockDevices(nc.ResolvedAmiFamily());
  }
  c.instance_profile =
      status.instance_profile.empty() ? nc.instance_profile : status.instance_profile;
  c.metadata_options = nc.metadata_options;
  c.detailed_monitoring = nc.detailed_monitoring;
  c.associate_public_ip_address = nc.associate_public_ip_address;
  c.tags = std::move(tags);
  return c;
}

}  // namespace

absl::StatusOr<std::vector<NodeClassFleetTemplate>> BuildFleetLaunchTemplates(
    const FleetLaunchInput& in) {
  if (in.node_class == nullptr || in.status == nullptr || in.pool == nullptr ||
      in.catalog == nullptr) {
    return absl::InvalidArgumentError(
        "fleet launch: node_class, status, pool and catalog are required");
  }
  KARP_RETURN_IF_ERROR(ValidateEc2NodeClass(*in.node_class));
  if (in.options.empty()) {
    return absl::FailedPreconditionError(
        "no capacity offerings are currently available given the constraints (no options)");
  }
  const Ec2NodeClass& nc = *in.node_class;
  const std::string capacity_type = in.options.front().capacity_type;
  absl::StatusOr<std::map<std::string, std::string>> tags =
      Ec2Tags(nc, in.cluster.name, in.pool->metadata.name, "");
  if (!tags.ok()) return tags.status();
  const std::map<std::string, ResolvedSubnet> subnets = SubnetPerZone(*in.status);
  const LaunchTemplateConfig shared = SharedConfig(nc, *in.status, *std::move(tags));

  std::vector<NodeClassFleetTemplate> out;
  // (AMI, max pods, targeted reservation) -> out index
  std::map<std::tuple<std::string, int64_t, std::string>, size_t> index;
  std::set<std::pair<std::string, std::string>> seen;  // (type, zone)
  int no_subnet = 0, no_ami = 0, unknown = 0;
  for (const LaunchOption& o : in.options) {
    if (o.capacity_type != capacity_type) continue;
    const InstanceType* type = in.catalog->Find(o.instance_type);
    if (type == nullptr) {
      ++unknown;
      continue;
    }
    const ResolvedAmi* ami = AmiFor(*in.status, *type);
    if (ami == nullptr) {
      ++no_ami;
      continue;
    }
    auto subnet = subnets.find(o.zone);
    if (subnet == subnets.end()) {
      ++no_subnet;
      continue;
    }
    if (!seen.emplace(o.instance_type, o.zone).second) continue;
    const int64_t max_pods = type->capacity.pods();
    auto key = std::make_tuple(ami->id, max_pods, o.reservation_id);
    auto it = index.find(key);
    if (it == index.end()) {
      BootstrapInput bootstrap =
          MakeBootstrapInput(nc, *in.pool, capacity_type, in.cluster, max_pods);
      absl::StatusOr<std::string> user_data = RenderUserData(bootstrap);
      if (!user_data.ok()) {
        return absl::Status(user_data.status().code(),
                            StrCat("ec2nodeclass \"", nc.metadata.name,
                                   "\": user data: ", user_data.status().message()));
      }
      NodeClassFleetTemplate t;
      t.config = shared;
      t.config.image_id = ami->id;
      t.config.user_data = Base64Encode(*user_data);
      t.config.capacity_reservation_id = o.reservation_id;
      t.name = t.config.Name();
      it = index.emplace(key, out.size()).first;
      out.push_back(std::move(t));
    }
    out[it->second].overrides.push_back(
        {o.instance_type, o.zone, subnet->second.id, ami->id, o.price});
  }
  if (out.empty()) {
    return absl::FailedPreconditionError(
        StrCat("no capacity offerings are currently available given the constraints (", no_subnet,
               " option(s) in zones without a subnet, ", no_ami, " without a matching AMI, ",
               unknown, " of unknown instance types)"));
  }
  return out;
}

}  // namespace karp::aws
