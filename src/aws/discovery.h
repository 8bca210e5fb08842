// Internal header of karp::aws: the EC2 / Price List reads behind instance-type discovery.
// Each function is one paginated API conversation through Ec2Client; errors are the client's
// (see ec2_client.h) or Internal naming the action and the XML path / JSON field.
//
// Thread-safety: thread-safe (stateless; the client is thread-safe).

#ifndef KARP_SRC_AWS_DISCOVERY_H_
#define KARP_SRC_AWS_DISCOVERY_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "aws/ec2_client.h"
#include "karp/aws_catalog.h"

namespace karp::aws {

// One DescribeInstanceTypes item as the catalog's facts. ENI-trunking (branch interfaces) and
// baseline network bandwidth come from the provider's embedded tables, as in the reference.
// `where` names the item for messages ("EC2 DescribeInstanceTypes: instanceTypeSet/item[2]").
[[nodiscard]] absl::StatusOr<AwsInstanceTypeInfo> ParseInstanceTypeItem(pugi::xml_node item,
                                                                        std::string_view where);

// DescribeInstanceTypes (hvm; x86_64 and arm64; MaxResults 100; paginated), in response order.
// `pages` (may be null) receives the number of pages.
[[nodiscard]] absl::StatusOr<std::vector<AwsInstanceTypeInfo>> DescribeInstanceTypes(
    const Ec2Client& client, int* pages);

// DescribeInstanceTypeOfferings (LocationType availability-zone, MaxResults 1000, paginated):
// instance type -> sorted zones.
[[nodiscard]] absl::StatusOr<std::map<std::string, std::vector<std::string>>>
DescribeInstanceTypeOfferings(const Ec2Client& client);

using SpotPrices = std::map<std::string, std::map<std::string, double>, std::less<>>;

// DescribeSpotPriceHistory (Linux/UNIX and Linux/UNIX (Amazon VPC), StartTime now, MaxResults
// 2000, paginated): type -> zone -> the price with the latest timestamp.
[[nodiscard]] absl::StatusOr<SpotPrices> DescribeSpotPrices(const Ec2Client& client,
                                                            absl::Time now);

// Price List GetProducts for `region` (two TERM_MATCH queries: shared compute instances and
// dedicated bare metal; paginated): type -> USD (CNY in cn-* regions) per hour.
// Errors: the client's; Internal `Pricing GetProducts: PriceList[i]...` for malformed
// documents; NotFound "no on-demand pricing found" when a query returns no price.
[[nodiscard]] absl::StatusOr<std::map<std::string, double>> GetOnDemandPrices(
    const Ec2Client& client, const std::string& region);

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_DISCOVERY_H_
