// Internal to karp::aws: resolving an EC2NodeClass through EC2 and SSM (docs/aws.md
// §3.2-3.4) into an Ec2NodeClassStatus.
//   subnets          DescribeSubnets, one call per term (id -> Filter subnet-id; tags ->
//                    Filter tag:<k>=<v>, or tag-key when the value is "*"), results ORed;
//   security groups  DescribeSecurityGroups per term (group-id, group-name, tags);
//   AMIs             alias: SSM GetParameter of each (architecture, variant) path of the
//                    family, missing parameters skipped, then DescribeImages of the ids; other
//                    terms: DescribeImages per term (image-id; name -> Filter name with Owner.N,
//                    default owners self and amazon; tags; ssmParameter through SSM), always
//                    state=available and IncludeDeprecated; then NormalizeAmis.
// (Instance-type discovery is aws/discovery.h.)
// Thread-safety: thread-safe if the client is (it is).

#ifndef KARP_SRC_AWS_NODECLASS_DISCOVERY_H_
#define KARP_SRC_AWS_NODECLASS_DISCOVERY_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "aws/ec2_client.h"
#include "karp/aws/ec2nodeclass.h"
#include "karp/aws/ec2nodeclass_status.h"

namespace karp::aws {

// Reads one SSM parameter value. Errors: NotFound when the parameter does not exist.
using SsmGetter = std::function<absl::StatusOr<std::string>(std::string_view name)>;

// SSM GetParameter through `client` (JSON 1.1, X-Amz-Target AmazonSSM.GetParameter, SigV4
// service "ssm", the client's region). `endpoint` empty: https://ssm.<region>.amazonaws.com.
// The client must outlive the getter.
SsmGetter MakeSsmGetter(const Ec2Client* client, std::string endpoint);

struct DiscoveryOptions {
  // Kubernetes minor version of the cluster ("1.31"), for alias SSM paths. Required with an
  // alias.
  std::string kubernetes_version;
  // Required with an alias or an ssmParameter term.
  SsmGetter ssm;
  // An image whose deprecationTime is at or before `now` is deprecated. Default: absl::Now().
  absl::Time now = absl::Now();
};

// The SSM parameter paths of an alias with the variant and architecture each resolves for
// (architecture in Kubernetes spelling).
struct AliasParameter {
  std::string path;
  std::string architecture;
  AmiVariant variant = AmiVariant::kStandard;
};
// Errors: InvalidArgument (AL2 on Kubernetes >= 1.33, Windows 2025 before 1.35, a malformed
// Kubernetes version).
[[nodiscard]] absl::StatusOr<std::vector<AliasParameter>> AliasParameters(
    const AmiAlias& alias, std::string_view kubernetes_version);

[[nodiscard]] absl::StatusOr<std::vector<ResolvedSubnet>> DiscoverSubnets(
    const Ec2Client& client, const Ec2NodeClass& node_class);
[[nodiscard]] absl::StatusOr<std::vector<ResolvedSecurityGroup>> DiscoverSecurityGroups(
    const Ec2Client& client, const Ec2NodeClass& node_class);
[[nodiscard]] absl::StatusOr<std::vector<ResolvedAmi>> DiscoverAmis(
    const Ec2Client& client, const Ec2NodeClass& node_class, const DiscoveryOptions& options);

// All three, normalized; instance_profile = spec.instanceProfile. Errors: the first failing
// call's; FailedPrecondition `ec2nodeclass "<name>": spec.<selector>: no <thing> matched` when
// a selector list matches nothing.
[[nodiscard]] absl::StatusOr<Ec2NodeClassStatus> ResolveEc2NodeClass(
    const Ec2Client& client, const Ec2NodeClass& node_class, const DiscoveryOptions& options);

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_NODECLASS_DISCOVERY_H_
