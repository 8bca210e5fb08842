// Internal to karp::aws: creates, caches and deletes the IAM instance profiles of EC2NodeClasses
// with spec.role (aws/instance_profile.h, docs/aws.md §3.9). IAM speaks the Query
// protocol (Version 2010-05-08) at its global endpoint, signed for service "iam" in
// AwsClientOptions::ResolvedIamRegion() (us-east-1 outside China and GovCloud).
//   Ensure   cached for `ttl` (the reference: 15 minutes) -> the name; else GetInstanceProfile;
//            NoSuchEntity -> CreateInstanceProfile (path and tags of instance_profile.h;
//            EntityAlreadyExists from a concurrent creator -> GetInstanceProfile again); then,
//            unless the role is already the attached one, RemoveRoleFromInstanceProfile of the
//            attached role and AddRoleToInstanceProfile.
//   DeleteExcept  ListInstanceProfiles under the cluster's path prefix (Marker pages) and, for
//            each profile not in `keep` (name order), RemoveRoleFromInstanceProfile of its role
//            and DeleteInstanceProfile; NoSuchEntity counts as already deleted.
// Errors are the client's (IAM codes map like EC2's: NoSuchEntity -> NotFound, AccessDenied
// -> PermissionDenied, throttling -> Unavailable after retries, other 4xx -> InvalidArgument),
// prefixed `ec2nodeclass "<name>": spec.role: ` for Ensure. Malformed responses: Internal
// naming the action and XML path.
// Thread-safety: thread-safe.

#ifndef KARP_SRC_AWS_INSTANCE_PROFILE_MANAGER_H_
#define KARP_SRC_AWS_INSTANCE_PROFILE_MANAGER_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "aws/ec2_client.h"
#include "karp/aws/ec2nodeclass.h"

namespace karp::aws {

inline constexpr std::string_view kIamApiVersion = "2010-05-08";

// The Query-protocol service of IAM for `options`.
QueryService IamService(const AwsClientOptions& options);

class InstanceProfileManager {
 public:
  // `client` must outlive the manager; `clock` gives the time for the cache.
  InstanceProfileManager(const Ec2Client* client, std::string cluster_name, absl::Duration ttl,
                         std::function<absl::Time()> clock);

  // The profile of `node_class` (which must have spec.role), after making sure it exists and
  // carries the role.
  [[nodiscard]] absl::StatusOr<std::string> Ensure(const Ec2NodeClass& node_class);
  // Deletes every profile under the cluster's path prefix whose name is not in `keep`; returns
  // the deleted names in name order.
  [[nodiscard]] absl::StatusOr<std::vector<std::string>> DeleteExcept(
      const std::set<std::string>& keep);

 private:
  struct Profile {
    std::string name;
    std::string role;  // "" when none is attached
  };
  absl::StatusOr<std::optional<Profile>> Get(const std::string& name) const;
  absl::StatusOr<Profile> GetOrCreate(const Ec2NodeClass& node_class, const std::string& name);
  absl::Status EnsureRole(const Profile& profile, const std::string& role) const;
  absl::StatusOr<std::vector<Profile>> ListClusterProfiles() const;
  absl::Status Delete(const Profile& profile) const;

  const Ec2Client* client_;
  QueryService iam_;
  std::string cluster_name_;
  std::string region_;
  absl::Duration ttl_;
  std::function<absl::Time()> clock_;
  mutable absl::Mutex mu_;
  // profile name -> (role attached, when it was checked)
  std::map<std::string, std::pair<std::string, absl::Time>> cache_ ABSL_GUARDED_BY(mu_);
};

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_INSTANCE_PROFILE_MANAGER_H_
