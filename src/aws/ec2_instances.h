// Internal header of karp::aws: DescribeInstances and TerminateInstances as the provider uses
// them (Get, List, Delete, drift, garbage collection of instance profiles).
//
// Errors: the client's (ec2_client.h), or Internal naming the action and the XML path.
// Thread-safety: thread-safe (stateless; the client is thread-safe).

#ifndef KARP_SRC_AWS_EC2_INSTANCES_H_
#define KARP_SRC_AWS_EC2_INSTANCES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "aws/ec2_client.h"

namespace karp::aws {

// An instance as DescribeInstances reports it, with what the tag guard, pricing and drift need.
struct Described {
  std::string id;
  std::string type;
  std::string zone;
  std::string state;
  std::string capacity_type;  // "spot", "reserved" or "on-demand"
  std::map<std::string, std::string> tags;
  absl::Time launched_at = absl::UnixEpoch();
  std::string image_id;
  std::string subnet_id;
  std::vector<std::string> security_group_ids;
};

// The states of an instance that still exists: pending, running, stopping, stopped,
// shutting-down.
const std::vector<std::string>& LiveInstanceStates();

// DescribeInstances with `params`, every page, in response order.
[[nodiscard]] absl::StatusOr<std::vector<Described>> DescribeInstances(const Ec2Client& client,
                                                                       const QueryParams& params);

// The live instances among `ids` (LiveInstanceStates).
[[nodiscard]] absl::StatusOr<std::vector<Described>> DescribeByIds(
    const Ec2Client& client, const std::vector<std::string>& ids);

// TerminateInstances of one instance; OK once EC2 lists it in instancesSet.
[[nodiscard]] absl::Status TerminateAlone(const Ec2Client& client, const std::string& id);

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_EC2_INSTANCES_H_
