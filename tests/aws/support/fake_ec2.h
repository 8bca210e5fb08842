// Test support of karp::aws: a scripted in-memory EC2 (and Price List API) behind a
// FakeAwsServer, enough for the adapter's conversations: DescribeInstanceTypes (paged),
// DescribeInstanceTypeOfferings, DescribeSpotPriceHistory, GetProducts, CreateFleet (instant),
// DescribeInstances (ids and tag/state filters), TerminateInstances, CreateTags,
// CreateLaunchTemplate and DescribeLaunchTemplates (by LaunchTemplateName.1),
// DescribeReservedInstances and DescribeCapacityReservations (paged, filter state=active).
// An on-demand CreateFleet with OnDemandOptions.CapacityReservationOptions.UsageStrategy
// use-capacity-reservations-first launches into open reservations of the override's type and
// zone while they have room (the instance then reports capacityReservationId). A targeted
// reservation is used only by an override whose launch template names it
// (CapacityReservationTarget.CapacityReservationId); such an override launches into that
// reservation alone, and when it is exhausted (or of another type or zone) errorSet reports
// ReservationCapacityExceeded naming it. Instances launched
// from a template of this fake carry its security groups and image (unless the override names
// one) and the override's subnet.
//
// CreateFleet launches TotalTargetCapacity instances: it tries the request's overrides in
// Priority (price) order and launches as many as each has room for (FailCapacity(): none,
// LimitCapacity(): at most n in total, else all); every override tried that could not take
// what was left appears in errorSet with InsufficientInstanceCapacity, as a real instant fleet
// reports the pools it could not use. Each override used is one fleetInstanceSet item listing
// its instance ids.
//
// Thread-safety: thread-safe (handlers run on the server thread; setters take the mutex).

#ifndef KARP_TESTS_AWS_SUPPORT_FAKE_EC2_H_
#define KARP_TESTS_AWS_SUPPORT_FAKE_EC2_H_

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "aws/support/fake_aws_server.h"
#include "karp/aws_catalog.h"

namespace karp::aws::testing {

// The embedded catalog's facts of `name` (a test failure when there is no such type).
const AwsInstanceTypeInfo& EmbeddedInfo(const std::string& name);

// One DescribeInstanceTypes <item> rendering every field of `info` the adapter reads.
std::string InstanceTypeItemXml(const AwsInstanceTypeInfo& info);

struct FakeInstance {
  std::string id;
  std::string type;
  std::string zone;
  std::string state = "running";
  std::string lifecycle;  // "spot" or ""
  std::map<std::string, std::string> tags;
  std::string subnet_id;                        // the override's SubnetId
  std::string image_id;                         // override ImageId, else the template's
  std::vector<std::string> security_group_ids;  // the launch template's
  std::string capacity_reservation_id;          // the reservation it was launched into
};

// A capacity reservation DescribeCapacityReservations reports and CreateFleet can use.
struct FakeCapacityReservation {
  std::string id;
  std::string type;
  std::string zone;
  int total = 1;
  int available = 1;
  std::string match = "open";  // or "targeted"
  std::string state = "active";
};

// A launch template CreateLaunchTemplate made (the fields CreateFleet and tests read).
struct FakeLaunchTemplate {
  std::string id;
  std::string name;
  std::string image_id;
  std::string user_data;  // base64, as sent
  std::vector<std::string> security_group_ids;
  std::string capacity_reservation_id;  // CapacityReservationTarget, "" for none
};

// What DescribeSubnets / DescribeSecurityGroups / DescribeImages report (for EC2NodeClasses
// that select by id).
struct FakeSubnet {
  std::string id;
  std::string zone;
  int free_ips = 100;
};
struct FakeImage {
  std::string id;
  std::string architecture;  // "x86_64", "arm64"
  std::string created;       // RFC 3339
};

class FakeEc2 {
 public:
  // Installs the handlers on `server` (which must outlive this object's use).
  explicit FakeEc2(FakeAwsServer* server);

  void AddInstanceType(const AwsInstanceTypeInfo& info, const std::vector<std::string>& zones);
  void SetSpotPrice(const std::string& type, const std::string& zone, double price);
  // Price List entries (types whose name contains "metal" are served to the bare-metal query).
  void SetOnDemandPrice(const std::string& type, double price);
  // Items per DescribeInstanceTypes / DescribeInstanceTypeOfferings page. Default 2.
  void SetPageSize(int n);
  void FailCapacity(const std::string& capacity_type, const std::string& type,
                    const std::string& zone);
  // At most `n` more instances of this offering (across CreateFleet calls).
  void LimitCapacity(const std::string& capacity_type, const std::string& type,
                     const std::string& zone, int n);
  void AddInstance(const FakeInstance& instance);
  // One reservedInstancesSet <item> (its XML as DescribeReservedInstances returns it).
  void AddReservedInstancesXml(const std::string& item_xml);
  void AddCapacityReservation(const FakeCapacityReservation& reservation);
  std::vector<FakeCapacityReservation> capacity_reservations() const;

  // Served by DescribeSubnets (filter subnet-id), DescribeSecurityGroups (filter group-id) and
  // DescribeImages (filter image-id or ImageId.N); without that filter, every entry.
  void AddSubnet(const FakeSubnet& subnet);
  void AddSecurityGroup(const std::string& id);
  void AddImage(const FakeImage& image);

  std::map<std::string, FakeInstance> instances() const;
  int fleet_calls() const;
  // Templates by name.
  std::map<std::string, FakeLaunchTemplate> launch_templates() const;

 private:
  FakeResponse DescribeInstanceTypes(const FakeRequest& r);
  FakeResponse DescribeOfferings(const FakeRequest& r);
  FakeResponse DescribeSpotPrices(const FakeRequest& r);
  FakeResponse GetProducts(const FakeRequest& r);
  // Records `instance` with a new id, the template's image (unless it has one) and security
  // groups; returns the id. Requires mu_.
  std::string Launch(FakeInstance instance, const std::string& template_name);
  FakeResponse CreateFleet(const FakeRequest& r);
  FakeResponse DescribeInstances(const FakeRequest& r);
  FakeResponse TerminateInstances(const FakeRequest& r);
  FakeResponse CreateTags(const FakeRequest& r);
  FakeResponse CreateLaunchTemplate(const FakeRequest& r);
  FakeResponse DescribeLaunchTemplates(const FakeRequest& r);
  FakeResponse DescribeSubnets(const FakeRequest& r);
  FakeResponse DescribeSecurityGroups(const FakeRequest& r);
  FakeResponse DescribeImages(const FakeRequest& r);
  FakeResponse DescribeReservedInstances(const FakeRequest& r);
  FakeResponse DescribeCapacityReservations(const FakeRequest& r);
  // Launches up to `count` instances like `proto` into active reservations of its type and
  // zone: the open ones when `id` is empty, else reservation `id` alone (targeted or open);
  // returns their ids. Requires mu_.
  std::vector<std::string> LaunchReserved(const FakeInstance& proto,
                                          const std::string& template_name, int count,
                                          const std::string& id = "");

  mutable std::mutex mu_;
  std::vector<std::pair<AwsInstanceTypeInfo, std::vector<std::string>>> types_;
  std::map<std::pair<std::string, std::string>, double> spot_;
  std::map<std::string, double> on_demand_;
  int page_size_ = 2;
  std::set<std::tuple<std::string, std::string, std::string>> no_capacity_;
  std::map<std::tuple<std::string, std::string, std::string>, int> limits_;
  std::map<std::string, FakeInstance> instances_;
  int next_id_ = 1;
  int fleet_calls_ = 0;
  std::map<std::string, FakeLaunchTemplate> launch_templates_;
  std::vector<FakeSubnet> subnets_;
  std::vector<std::string> security_groups_;
  std::vector<FakeImage> images_;
  std::vector<std::string> reserved_instances_xml_;
  std::vector<FakeCapacityReservation> capacity_reservations_;
};

}  // namespace karp::aws::testing

#endif  // KARP_TESTS_AWS_SUPPORT_FAKE_EC2_H_
