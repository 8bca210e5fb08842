// Internal to karp::aws: creates, reuses and deletes the EC2 launch templates of
// aws/launch_template.h (docs/aws.md §3.5).
//   Ensure    known in memory -> reuse; else DescribeLaunchTemplates by name -> reuse;
//             else CreateLaunchTemplate (tagged with the config's tags).
//   Hydrate   DescribeLaunchTemplates filtered by tag eks:eks-cluster-name=<cluster>, so a
//             restarted process knows the templates it made before.
//   DeleteUnreferenced  DeleteLaunchTemplate for every known template not in the referenced
//             set (name order); returns the deleted names.
//   Forget    drops a name (CreateFleet reported it missing).
// Thread-safety: thread-safe.

#ifndef KARP_SRC_AWS_LAUNCH_TEMPLATE_MANAGER_H_
#define KARP_SRC_AWS_LAUNCH_TEMPLATE_MANAGER_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "aws/ec2_client.h"
#include "aws/launch_template.h"

namespace karp::aws {

class LaunchTemplateManager {
 public:
  // `client` must outlive the manager.
  LaunchTemplateManager(const Ec2Client* client, std::string cluster_name)
      : client_(client), cluster_name_(std::move(cluster_name)) {}

  // The template's name, after making sure it exists. Errors: the EC2 call's.
  [[nodiscard]] absl::StatusOr<std::string> Ensure(const LaunchTemplateConfig& config);
  [[nodiscard]] absl::Status Hydrate();
  [[nodiscard]] absl::StatusOr<std::vector<std::string>> DeleteUnreferenced(
      const std::set<std::string>& referenced);
  void Forget(const std::string& name);

  // Names known (created, found or hydrated), in name order.
  std::vector<std::string> Known() const;

 private:
  const Ec2Client* client_;
  std::string cluster_name_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::string> known_ ABSL_GUARDED_BY(mu_);  // name -> id
};

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_LAUNCH_TEMPLATE_MANAGER_H_
