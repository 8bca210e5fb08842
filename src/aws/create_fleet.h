// Internal header of karp::aws: one CreateFleet request (docs/aws.md §3.1, §3.8, §3.10): which
// capacity type and options a launch request uses, the Query API parameters, and what the
// response says (instances launched, capacity and other errors).
//
// Thread-safety: value types and pure functions.

#ifndef KARP_SRC_AWS_CREATE_FLEET_H_
#define KARP_SRC_AWS_CREATE_FLEET_H_

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "aws/ec2_client.h"
#include "aws/launch_template.h"
#include "karp/aws/aws_cloud_provider.h"
#include "karp/cloud_provider.h"
#include "karp/node_claim.h"

namespace karp::aws {

// (launch template name, its overrides) per CreateFleet LaunchTemplateConfigs entry.
using LaunchTemplateConfigs = std::vector<std::pair<std::string, std::vector<FleetOverride>>>;

// One CreateFleet request: an instant fleet of one instance of `capacity_type` from the
// overrides of `configs`, tagging the instance, its volumes and the fleet with `tags`.
struct FleetRequest {
  std::string capacity_type;
  LaunchTemplateConfigs configs;
  std::map<std::string, std::string> tags;

  // The EC2 Query API parameters, with `client_token` as the idempotency token (omitted when
  // empty) and `capacity` instances.
  QueryParams Encode(const std::string& client_token, size_t capacity = 1) const;

 private:
  // One LaunchTemplateConfigs entry under `prefix` ("LaunchTemplateConfigs.<n>").
  static void EncodeConfig(const std::string& prefix,
                           const std::pair<std::string, std::vector<FleetOverride>>& config,
                           QueryParams* params);
};

// The errorSet of a CreateFleet response.
struct FleetErrors {
  std::vector<std::string> capacity;  // insufficient capacity: "code (type/zone)"
  std::vector<std::string> other;     // every other error: "code: message"
  std::string first_other_code;
};

// The instance a CreateFleet response reports launched.
struct FleetInstance {
  std::string id;
  std::string instance_type;
  std::string zone;
  std::string lifecycle;  // "spot" for spot instances
};

// One caller of a batched CreateFleet: its request (with its own nodeclaim tag), claim and the
// options it chose.
struct FleetCall {
  FleetRequest request;
  std::string claim_name;
  std::vector<LaunchOption> chosen;
};

// What a batched CreateFleet gave one caller.
struct FleetOutcome {
  absl::Status status;                    // the call failed or the response is malformed
  std::optional<FleetInstance> instance;  // launched for this caller
  FleetErrors errors;
  std::vector<LaunchOption> failed;  // capacity errors among its options
};

// The capacity type a request launches: reserved when its first option is (the Launcher puts
// reserved capacity first at equal price, and a pricing model's choice first), else spot when
// one of its options allows it, else on-demand (§3.1); "" when there is none of these.
std::string ChooseCapacityType(const std::vector<LaunchOption>& options);

// The options of `capacity_type`, in the given (cheapest-first) order, for at most 60 instance
// types, in zones for which `has_subnet` holds; each (type, zone) once.
std::vector<LaunchOption> ChooseOptions(const std::vector<LaunchOption>& options,
                                        const std::string& capacity_type,
                                        const std::function<bool(const std::string&)>& has_subnet);

// Keeps the reservation ids of `chosen` that name a targeted reservation of `reservations`
// and clears the others (open reservations need no naming). Errors: FailedPrecondition in
// static mode (`static_mode`) when an option names a targeted reservation, as karp cannot
// derive a launch template that targets it from the host's.
[[nodiscard]] absl::Status KeepTargetedReservations(
    const std::vector<CapacityReservation>& reservations, bool static_mode,
    const std::string& claim_name, std::vector<LaunchOption>* chosen);

// Static mode: the overrides of template `t`, one per chosen option of a type it serves (every
// type when it names none), with the zone's subnet of `subnets` ("" when none).
std::vector<FleetOverride> StaticOverrides(const FleetLaunchTemplate& t,
                                           const std::vector<LaunchOption>& chosen,
                                           const std::map<std::string, std::string>& subnets);

// Reads the errorSet of `resp`; the chosen options an insufficient-capacity error names are
// added to `failed` (when set), each once. Errors: Internal for an item without errorCode.
[[nodiscard]] absl::StatusOr<FleetErrors> ParseFleetErrors(const XmlResponse& resp,
                                                           const std::vector<LaunchOption>& chosen,
                                                           std::vector<LaunchOption>* failed);

// Every instance of the fleetInstanceSet of `resp` (one per instance id), in response order.
// Errors: Internal for an empty id or a missing type or zone.
[[nodiscard]] absl::StatusOr<std::vector<FleetInstance>> ParseFleetInstances(
    const XmlResponse& resp);

// The launched instance `x` of `claim` as a karp Instance: priced as its chosen option,
// labelled as the claim plus the well-known labels of what was launched.
Instance LaunchedInstance(const NewNodeClaim& claim, const FleetInstance& x,
                          const std::string& capacity_type, const std::vector<LaunchOption>& chosen,
                          const std::string& region, absl::Time launched_at);

// Records in `details` the launch template and override of `configs` that launched `x`: the
// first that lists its type and zone.
void RecordLaunchTemplate(const LaunchTemplateConfigs& configs, const FleetInstance& x,
                          AwsLaunchDetails* details);

// The status of a CreateFleet for `claim_name` that launched nothing: the code of the first
// other error (Internal instead of ResourceExhausted) quoting every error; else
// ResourceExhausted for capacity errors alone; else Internal.
[[nodiscard]] absl::Status FleetFailure(const std::string& claim_name, const FleetErrors& errors);

// The batching key of a request: callers whose requests differ only in the nodeclaim tag
// share one.
std::string FleetKey(const FleetRequest& request);

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_CREATE_FLEET_H_
