// Launch templates in EC2: create on demand, reuse, delete when unreferenced.

#include "aws/launch_template_manager.h"

#include <string>
#include <utility>
#include <vector>

#include "aws/nodeclass_internal.h"
#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {

using internal::StrCat;

absl::StatusOr<std::string> LaunchTemplateManager::Ensure(const LaunchTemplateConfig& config) {
  const std::string name = config.Name();
  {
    absl::MutexLock lock(&mu_);
    if (known_.count(name) != 0) return name;
  }
  QueryParams describe = {{"LaunchTemplateName.1", name}};
  absl::StatusOr<XmlResponse> found = client_->Call("DescribeLaunchTemplates", describe);
  if (found.ok()) {
    std::vector<pugi::xml_node> items = XmlItems(found->root(), "launchTemplates");
    if (!items.empty()) {
      absl::MutexLock lock(&mu_);
      known_[name] = XmlText(items.front(), "launchTemplateId");
      return name;
    }
  } else if (!absl::IsNotFound(found.status())) {
    return found.status();
  }
  absl::StatusOr<XmlResponse> created =
      client_->Call("CreateLaunchTemplate", CreateLaunchTemplateParams(config));
  if (!created.ok()) {
    // Another writer created it in between: reuse it.
    if (AwsErrorCode(created.status()) != "InvalidLaunchTemplateName.AlreadyExistsException") {
      return created.status();
    }
  }
  absl::MutexLock lock(&mu_);
  known_[name] = created.ok() ? XmlText(created->root(), "launchTemplate/launchTemplateId") : "";
  return name;
}

absl::Status LaunchTemplateManager::Hydrate() {
  QueryParams params;
  AddFilter(&params, 1, StrCat("tag:", kTagKeyEksClusterName), {cluster_name_});
  params.emplace_back("MaxResults", "200");
  std::map<std::string, std::string> found;
  KARP_RETURN_IF_ERROR(
      client_->CallPaginated("DescribeLaunchTemplates", params, [&](const XmlResponse& page) {
        for (pugi::xml_node item : XmlItems(page.root(), "launchTemplates")) {
          const std::string name = XmlText(item, "launchTemplateName");
          if (name.rfind(kLaunchTemplateNamePrefix, 0) == 0) {
            found[name] = XmlText(item, "launchTemplateId");
          }
        }
        return absl::OkStatus();
      }));
  absl::MutexLock lock(&mu_);
  for (auto& [name, id] : found) known_.emplace(name, id);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> LaunchTemplateManager::DeleteUnreferenced(
    const std::set<std::string>& referenced) {
  std::vector<std::string> candidates;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [name, id] : known_) {
      if (referenced.count(name) == 0) candidates.push_back(name);
    }
  }
  std::vector<std::string> deleted;
  for (const std::string& name : candidates) {
    absl::StatusOr<XmlResponse> r =
        client_->Call("DeleteLaunchTemplate", {{"LaunchTemplateName", name}});
    if (!r.ok() && !absl::IsNotFound(r.status())) return r.status();
    Forget(name);
    deleted.push_back(name);
  }
  return deleted;
}

void LaunchTemplateManager::Forget(const std::string& name) {
  absl::MutexLock lock(&mu_);
  known_.erase(name);
}

std::vector<std::string> LaunchTemplateManager::Known() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [name, id] : known_) out.push_back(name);
  return out;
}

}  // namespace karp::aws
