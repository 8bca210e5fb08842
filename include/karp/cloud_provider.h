// File: karp/cloud_provider.h
//
// The plug-in point between karp's decisions and a cloud: CloudProvider (a small abstract
// class a host implements for its cloud), the unavailable-offerings cache, and the launch
// helper that turns a NodeClaim from Scheduler::Solve into one running instance, falling back
// through its offerings on insufficient capacity as the reference does (docs/aws.md §4).
//
// Error codes used by every provider:
//   ResourceExhausted  insufficient capacity for the offering (the launch helper falls back)
//   NotFound           the instance does not exist (Delete of a gone instance, Get)
//   Unavailable        transient failure; the caller may retry
//   InvalidArgument    the request is malformed
//
// Example:
//   karp::UnavailableOfferings cache;                  // shared by every launch
//   karp::Launcher launcher(&provider, &cache);
//   absl::StatusOr<karp::Instance> i = launcher.Launch(claim, *catalog, absl::Now());
//   // Later solves: karp::InstanceCatalog fresh = cache.Apply(*catalog, absl::Now());
//
// Thread-safety: CloudProvider implementations must be thread-safe. UnavailableOfferings is
// thread-safe. Launcher is thread-safe if its provider is.

#ifndef KARP_CLOUD_PROVIDER_H_
#define KARP_CLOUD_PROVIDER_H_

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/node_claim.h"
#include "karp/objects.h"

namespace karp {

// A running (or launching) instance.
struct Instance {
  std::string provider_id;  // e.g. aws:///us-east-1a/i-0123
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  double price = 0;
  std::string node_pool;
  std::map<std::string, std::string> labels;  // as the node will carry them
  absl::Time launched_at = absl::UnixEpoch();
};

// One concrete way to launch: an offering of an instance type.
struct LaunchOption {
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  double price = 0;
  // Reserved options: the capacity reservation of the offering (Offering::reservation_id),
  // "" when unknown. A provider may launch into that reservation by naming it. (Default
  // member initializer: aggregate initializers that omit it stay free of -Wextra warnings.)
  std::string reservation_id{};
};

// What Create is asked to launch: the claim, and its offerings in the order to try them
// (cheapest first). A provider may launch any one of them (a fleet API picks itself).
struct LaunchRequest {
  NewNodeClaim claim;
  std::vector<LaunchOption> options;
};

class CloudProvider {
 public:
  virtual ~CloudProvider() = default;
  CloudProvider(const CloudProvider&) = delete;
  CloudProvider& operator=(const CloudProvider&) = delete;

  // Stable lower-case identifier, e.g. "aws" or "fake".
  virtual std::string_view name() const = 0;
  // Every instance type `pool` may launch, including types whose offerings are all
  // unavailable right now. Errors: Unavailable, FailedPrecondition (node class not ready).
  [[nodiscard]] virtual absl::StatusOr<std::vector<InstanceType>> GetInstanceTypes(
      const NodePool& pool) const = 0;
  // Launches one instance for the request. Options that failed with insufficient capacity
  // are appended to `failed` (when non-null) whether or not another option then launched;
  // when none launched: ResourceExhausted.
  [[nodiscard]] virtual absl::StatusOr<Instance> Create(const LaunchRequest& request,
                                                        std::vector<LaunchOption>* failed) = 0;
  // Terminates an instance. NotFound once it is gone.
  [[nodiscard]] virtual absl::Status Delete(const std::string& provider_id) = 0;
  [[nodiscard]] virtual absl::StatusOr<Instance> Get(const std::string& provider_id) const = 0;
  [[nodiscard]] virtual absl::StatusOr<std::vector<Instance>> List() const = 0;
  // A non-empty reason when `claim` no longer matches its provider-side configuration.
  // Default: never drifted.
  [[nodiscard]] virtual absl::StatusOr<std::string> DriftReason(const NodeClaim& claim) const;

 protected:
  CloudProvider() = default;
};

// Offerings that recently failed with insufficient capacity, keyed by (capacity type,
// instance type, zone), each for `ttl` (the reference: 3 minutes).
class UnavailableOfferings {
 public:
  explicit UnavailableOfferings(absl::Duration ttl = absl::Minutes(3)) : ttl_(ttl) {}

  void MarkUnavailable(std::string_view capacity_type, std::string_view instance_type,
                       std::string_view zone, absl::Time now);
  bool IsUnavailable(std::string_view capacity_type, std::string_view instance_type,
                     std::string_view zone, absl::Time now) const;
  // A copy of `catalog` whose cached offerings are unavailable at `now`; the catalog later
  // solves should see. Errors: as InstanceCatalog::Create (none for a valid catalog).
  [[nodiscard]] absl::StatusOr<InstanceCatalog> Apply(const InstanceCatalog& catalog,
                                                      absl::Time now) const;
  // Entries still in force at `now`.
  size_t Size(absl::Time now) const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;
  absl::Duration ttl_;
  mutable absl::Mutex mu_;
  std::map<Key, absl::Time> until_ ABSL_GUARDED_BY(mu_);
};

// Launches NodeClaims through a provider with the reference's fallback: the claim's
// offerings (compatible with its requirements, available, not in the cache) are tried
// cheapest first (ties: capacity type reserved < spot < on-demand, type, zone), except that the
// claim's launch comes first when a pricing model chose it below its list price
// (Launch::price < Launch::list_price, karp/pricing.h); an offering that fails with
// insufficient capacity is cached as unavailable and the next is tried.
class Launcher {
 public:
  // `provider` and `cache` must outlive the Launcher.
  Launcher(CloudProvider* provider, UnavailableOfferings* cache)
      : provider_(provider), cache_(cache) {}

  // Errors: ResourceExhausted `insufficient capacity for nodeclaim <name>: all N offerings
  // failed (...)` when every offering failed; FailedPrecondition when the claim has no
  // launchable offering; other provider errors as returned.
  [[nodiscard]] absl::StatusOr<Instance> Launch(const NewNodeClaim& claim,
                                                const InstanceCatalog& catalog, absl::Time now);

  // The offerings Launch would try, in order.
  std::vector<LaunchOption> Options(const NewNodeClaim& claim, const InstanceCatalog& catalog,
                                    absl::Time now) const;

 private:
  CloudProvider* provider_;
  UnavailableOfferings* cache_;
};

}  // namespace karp

#endif  // KARP_CLOUD_PROVIDER_H_
