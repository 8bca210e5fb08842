#include "aws/ec2_instances.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {

using internal::StrCat;

namespace {

absl::StatusOr<std::vector<Described>> ParseReservations(const XmlResponse& page, int page_no) {
  std::vector<Described> out;
  std::vector<pugi::xml_node> reservations = XmlItems(page.root(), "reservationSet");
  for (size_t r = 0; r < reservations.size(); ++r) {
    std::vector<pugi::xml_node> instances = XmlItems(reservations[r], "instancesSet");
    for (size_t i = 0; i < instances.size(); ++i) {
      const std::string where =
          StrCat("EC2 DescribeInstances: page ", page_no, " reservationSet/item[", r + 1,
                 "]/instancesSet/item[", i + 1, "]");
      Described d;
      KARP_ASSIGN_OR_RETURN(d.id, XmlRequiredText(instances[i], "instanceId", where));
      KARP_ASSIGN_OR_RETURN(d.type, XmlRequiredText(instances[i], "instanceType", where));
      KARP_ASSIGN_OR_RETURN(d.zone,
                            XmlRequiredText(instances[i], "placement/availabilityZone", where));
      KARP_ASSIGN_OR_RETURN(d.state, XmlRequiredText(instances[i], "instanceState/name", where));
      if (XmlText(instances[i], "instanceLifecycle") == "spot" ||
          !XmlText(instances[i], "spotInstanceRequestId").empty()) {
        d.capacity_type = "spot";
      } else if (!XmlText(instances[i], "capacityReservationId").empty()) {
        d.capacity_type = "reserved";
      } else {
        d.capacity_type = "on-demand";
      }
      d.image_id = XmlText(instances[i], "imageId");
      d.subnet_id = XmlText(instances[i], "subnetId");
      for (pugi::xml_node g : XmlItems(instances[i], "groupSet")) {
        const std::string id = XmlText(g, "groupId");
        if (!id.empty()) d.security_group_ids.push_back(id);
      }
      std::vector<pugi::xml_node> tags = XmlItems(instances[i], "tagSet");
      for (size_t t = 0; t < tags.size(); ++t) {
        KARP_ASSIGN_OR_RETURN(
            std::string key,
            XmlRequiredText(tags[t], "key", StrCat(where, "/tagSet/item[", t + 1, "]")));
        d.tags[key] = XmlText(tags[t], "value");
      }
      const std::string launch = XmlText(instances[i], "launchTime");
      if (!launch.empty()) {
        std::string err;
        if (!absl::ParseTime(absl::RFC3339_full, launch, &d.launched_at, &err)) {
          return absl::InternalError(StrCat(where, "/launchTime: not RFC 3339: \"", launch, "\""));
        }
      }
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& LiveInstanceStates() {
  static const auto* const kStates =
      new std::vector<std::string>{"pending", "running", "stopping", "stopped", "shutting-down"};
  return *kStates;
}

absl::StatusOr<std::vector<Described>> DescribeInstances(const Ec2Client& client,
                                                         const QueryParams& params) {
  std::vector<Described> out;
  int page_no = 0;
  KARP_RETURN_IF_ERROR(client.CallPaginated(
      "DescribeInstances", params, [&](const XmlResponse& page) -> absl::Status {
        KARP_ASSIGN_OR_RETURN(auto got, ParseReservations(page, ++page_no));
        out.insert(out.end(), got.begin(), got.end());
        return absl::OkStatus();
      }));
  return out;
}

absl::StatusOr<std::vector<Described>> DescribeByIds(const Ec2Client& client,
                                                     const std::vector<std::string>& ids) {
  QueryParams params;
  AddList(&params, "InstanceId", ids);
  AddFilter(&params, 1, "instance-state-name", LiveInstanceStates());
  return DescribeInstances(client, params);
}

absl::Status TerminateAlone(const Ec2Client& client, const std::string& id) {
  QueryParams params;
  AddList(&params, "InstanceId", {id});
  KARP_ASSIGN_OR_RETURN(XmlResponse r, client.Call("TerminateInstances", params));
  for (pugi::xml_node item : XmlItems(r.root(), "instancesSet")) {
    if (XmlText(item, "instanceId") == id) return absl::OkStatus();
  }
  return absl::InternalError(StrCat("EC2 TerminateInstances: instancesSet does not list ", id));
}

}  // namespace karp::aws
