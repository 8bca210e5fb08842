// Internal to src/aws_catalog/: what the embedded table (embedded_table.cc) uses of the
// conversion (aws_catalog.cc).

#ifndef KARP_SRC_AWS_CATALOG_AWS_CATALOG_INTERNAL_H_
#define KARP_SRC_AWS_CATALOG_AWS_CATALOG_INTERNAL_H_

#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/aws_catalog.h"
#include "karp/instance_type.h"

namespace karp::aws_catalog_internal {

// InvalidArgument "aws catalog options: <message>".
absl::Status OptionsError(std::string_view message);

// MakeAwsInstanceType once `options` are known to be valid (AwsCatalogOptions::Validate): the
// embedded catalog validates them once for every type.
absl::StatusOr<InstanceType> MakeWithValidOptions(const AwsInstanceTypeInfo& info,
                                                  std::optional<double> on_demand_price,
                                                  const AwsCatalogOptions& options);

}  // namespace karp::aws_catalog_internal

#endif  // KARP_SRC_AWS_CATALOG_AWS_CATALOG_INTERNAL_H_
