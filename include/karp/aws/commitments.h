// File: karp/aws/commitments.h
//
// The account's commitments from EC2 (docs/commitments.md §5): active Reserved Instances
// (DescribeReservedInstances) and active capacity reservations (DescribeCapacityReservations,
// paginated), as karp::Commitments for karp::MakeCommitmentPricing and, for capacity
// reservations, karp::WithCapacityReservations. Savings Plans live in another service; they
// are read from a commitments file (docs/formats.md §6).
//
// Example:
//   karp::aws::AwsClientOptions client;  // region, credentials
//   auto c = karp::aws::ReadAwsCommitments(client, "savings-plans.yaml");
//   auto pricing = karp::MakeCommitmentPricing(*c, absl::Now());
//   auto catalog = karp::WithCapacityReservations(*(*provider)->Catalog(pool), *c);
//
// Launching into a reservation: give a claim a reserved launch option (the catalog from
// WithCapacityReservations has them); AwsCloudProvider then sends an on-demand CreateFleet over
// the reserved options with OnDemandOptions.CapacityReservationOptions.UsageStrategy
// use-capacity-reservations-first, which uses open reservations. Targeted ones are used only
// by launches naming them: pass the reservations as AwsCloudProviderOptions::
// capacity_reservations, and in EC2NodeClass mode a targeted option launches from a launch
// template with CapacityReservationTarget.CapacityReservationId (karp/aws/aws_cloud_provider.h).
//
// Thread-safety: thread-safe (each call uses its own client).

#ifndef KARP_AWS_COMMITMENTS_H_
#define KARP_AWS_COMMITMENTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/aws/client_options.h"
#include "karp/pricing.h"

namespace karp::aws {

// Active Reserved Instances. Regional RIs (scope Region) get `region` = the client's region
// and are size-flexible when Linux/UNIX with default tenancy; zonal ones their zone.
// hourly_price = fixedPrice / duration in hours + usagePrice + hourly recurring charges.
// Errors: the client's (Unavailable, PermissionDenied, ...), Internal naming the XML path of a
// malformed item.
[[nodiscard]] absl::StatusOr<std::vector<ReservedInstance>> DescribeReservedInstances(
    const AwsClientOptions& client);

// Active capacity reservations: total and available counts, instance match criteria, end
// date (hourly_price 0: EC2 does not report it; the catalog's on-demand price is used).
[[nodiscard]] absl::StatusOr<std::vector<CapacityReservation>> DescribeCapacityReservations(
    const AwsClientOptions& client);

// Both, plus the Savings Plans (and normalization factors) of `savings_plans_file` when not
// empty. Errors: as above, and the file's (karp::json::ReadCommitmentsFile).
[[nodiscard]] absl::StatusOr<Commitments> ReadAwsCommitments(
    const AwsClientOptions& client, const std::string& savings_plans_file = "");

}  // namespace karp::aws

#endif  // KARP_AWS_COMMITMENTS_H_
