#include "aws/instance_profile_manager.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aws/instance_profile.h"
#include "aws/nodeclass_internal.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::aws {

using internal::StrCat;

// ---- The deterministic parts (aws/instance_profile.h) -----------------------------------

std::string InstanceProfileName(std::string_view cluster_name, std::string_view region,
                                std::string_view node_class_name) {
  return StrCat(cluster_name, "_", Fnv1a64(StrCat(region, node_class_name)));
}

std::string InstanceProfileClusterPathPrefix(std::string_view cluster_name,
                                             std::string_view region) {
  return StrCat("/karpenter/", region, "/", cluster_name, "/");
}

std::string InstanceProfilePath(std::string_view cluster_name, std::string_view region,
                                const Ec2NodeClass& node_class) {
  const std::string& id =
      node_class.metadata.uid.empty() ? node_class.name() : node_class.metadata.uid;
  return StrCat(InstanceProfileClusterPathPrefix(cluster_name, region), id, "/");
}

std::map<std::string, std::string> InstanceProfileTags(const Ec2NodeClass& node_class,
                                                       std::string_view cluster_name,
                                                       std::string_view region) {
  std::map<std::string, std::string> tags = node_class.tags;
  tags[StrCat(kTagKeyClusterPrefix, cluster_name)] = "owned";
  tags[std::string(kTagKeyEksClusterName)] = std::string(cluster_name);
  tags[std::string(kTagKeyEc2NodeClass)] = node_class.name();
  tags[std::string(kLabelRegion)] = std::string(region);
  return tags;
}

std::string RoleNameForProfile(std::string_view role) {
  const size_t slash = role.rfind('/');
  return std::string(slash == std::string_view::npos ? role : role.substr(slash + 1));
}

// ---- IAM -------------------------------------------------------------------------------------

QueryService IamService(const AwsClientOptions& options) {
  return {"IAM", std::string(kIamApiVersion), "iam", options.ResolvedIamEndpoint(),
          options.ResolvedIamRegion()};
}

namespace {

// The InstanceProfile element of a Get/Create response: its name and the role attached.
absl::StatusOr<std::pair<std::string, std::string>> ParseProfile(pugi::xml_node profile,
                                                                 std::string_view where) {
  KARP_ASSIGN_OR_RETURN(std::string name, XmlRequiredText(profile, "InstanceProfileName", where));
  std::string role;
  for (pugi::xml_node member : XmlChild(profile, "Roles").children("member")) {
    KARP_ASSIGN_OR_RETURN(role,
                          XmlRequiredText(member, "RoleName", StrCat(where, "/Roles/member")));
  }
  return std::make_pair(std::move(name), std::move(role));
}

absl::Status WithClassContext(const Ec2NodeClass& nc, const absl::Status& s) {
  return WithAwsErrorCode(
      absl::Status(s.code(), StrCat("ec2nodeclass \"", nc.name(), "\": spec.role: ", s.message())),
      AwsErrorCode(s));
}

}  // namespace

InstanceProfileManager::InstanceProfileManager(const Ec2Client* client, std::string cluster_name,
                                               absl::Duration ttl,
                                               std::function<absl::Time()> clock)
    : client_(client),
      iam_(IamService(client->options())),
      cluster_name_(std::move(cluster_name)),
      region_(client->options().region),
      ttl_(ttl),
      clock_(std::move(clock)) {}

absl::StatusOr<std::optional<InstanceProfileManager::Profile>> InstanceProfileManager::Get(
    const std::string& name) const {
  absl::StatusOr<XmlResponse> r =
      client_->CallQuery(iam_, "GetInstanceProfile", {{"InstanceProfileName", name}});
  if (absl::IsNotFound(r.status())) return std::optional<Profile>();
  if (!r.ok()) return r.status();
  KARP_ASSIGN_OR_RETURN(
      auto parsed, ParseProfile(XmlChild(r->root(), "GetInstanceProfileResult/InstanceProfile"),
                                "IAM GetInstanceProfile: InstanceProfile"));
  return std::optional<Profile>(Profile{parsed.first, parsed.second});
}

absl::StatusOr<InstanceProfileManager::Profile> InstanceProfileManager::GetOrCreate(
    const Ec2NodeClass& nc, const std::string& name) {
  KARP_ASSIGN_OR_RETURN(std::optional<Profile> found, Get(name));
  if (found.has_value()) return *found;
  QueryParams params = {{"InstanceProfileName", name},
                        {"Path", InstanceProfilePath(cluster_name_, region_, nc)}};
  int n = 0;
  for (const auto& [k, v] : InstanceProfileTags(nc, cluster_name_, region_)) {
    ++n;
    params.emplace_back(StrCat("Tags.member.", n, ".Key"), k);
    params.emplace_back(StrCat("Tags.member.", n, ".Value"), v);
  }
  absl::StatusOr<XmlResponse> r = client_->CallQuery(iam_, "CreateInstanceProfile", params);
  if (!r.ok() && AwsErrorCode(r.status()) == "EntityAlreadyExists") {
    // Created meanwhile by another caller: read what is there.
    KARP_ASSIGN_OR_RETURN(found, Get(name));
    if (found.has_value()) return *found;
  }
  if (!r.ok()) return r.status();
  KARP_ASSIGN_OR_RETURN(
      auto parsed, ParseProfile(XmlChild(r->root(), "CreateInstanceProfileResult/InstanceProfile"),
                                "IAM CreateInstanceProfile: InstanceProfile"));
  return Profile{parsed.first, parsed.second};
}

absl::Status InstanceProfileManager::EnsureRole(const Profile& profile,
                                                const std::string& role) const {
  if (profile.role == role) return absl::OkStatus();
  if (!profile.role.empty()) {
    // A profile holds at most one role: the old one goes first.
    KARP_RETURN_IF_ERROR(
        client_
            ->CallQuery(iam_, "RemoveRoleFromInstanceProfile",
                        {{"InstanceProfileName", profile.name}, {"RoleName", profile.role}})
            .status());
  }
  return client_
      ->CallQuery(iam_, "AddRoleToInstanceProfile",
                  {{"InstanceProfileName", profile.name}, {"RoleName", role}})
      .status();
}

absl::StatusOr<std::string> InstanceProfileManager::Ensure(const Ec2NodeClass& nc) {
  if (nc.role.empty()) {
    return absl::InvalidArgumentError(
        StrCat("ec2nodeclass \"", nc.name(), "\": spec.role: empty (nothing to create)"));
  }
  const std::string name = InstanceProfileName(cluster_name_, region_, nc.name());
  const std::string role = RoleNameForProfile(nc.role);
  const absl::Time now = clock_();
  {
    absl::MutexLock lock(&mu_);
    auto it = cache_.find(name);
    if (it != cache_.end() && it->second.first == role && now - it->second.second < ttl_) {
      return name;
    }
  }
  absl::StatusOr<Profile> profile = GetOrCreate(nc, name);
  if (!profile.ok()) return WithClassContext(nc, profile.status());
  absl::Status attached = EnsureRole(*profile, role);
  if (!attached.ok()) return WithClassContext(nc, attached);
  absl::MutexLock lock(&mu_);
  cache_[name] = {role, now};
  return name;
}

absl::StatusOr<std::vector<InstanceProfileManager::Profile>>
InstanceProfileManager::ListClusterProfiles() const {
  std::vector<Profile> out;
  std::string marker;
  for (int page = 1; page <= 1000; ++page) {
    QueryParams params = {{"PathPrefix", InstanceProfileClusterPathPrefix(cluster_name_, region_)}};
    if (!marker.empty()) params.emplace_back("Marker", marker);
    KARP_ASSIGN_OR_RETURN(XmlResponse r, client_->CallQuery(iam_, "ListInstanceProfiles", params));
    pugi::xml_node result = XmlChild(r.root(), "ListInstanceProfilesResult");
    int i = 0;
    for (pugi::xml_node member : XmlChild(result, "InstanceProfiles").children("member")) {
      ++i;
      KARP_ASSIGN_OR_RETURN(auto parsed,
                            ParseProfile(member, StrCat("IAM ListInstanceProfiles: page ", page,
                                                        " InstanceProfiles/member[", i, "]")));
      out.push_back({parsed.first, parsed.second});
    }
    if (XmlText(result, "IsTruncated") != "true") return out;
    marker = XmlText(result, "Marker");
    if (marker.empty()) {
      return absl::InternalError(
          "IAM ListInstanceProfiles: IsTruncated is true but Marker is missing");
    }
  }
  return absl::InternalError("IAM ListInstanceProfiles: more than 1000 pages; giving up");
}

absl::Status InstanceProfileManager::Delete(const Profile& profile) const {
  if (!profile.role.empty()) {
    absl::Status removed =
        client_
            ->CallQuery(iam_, "RemoveRoleFromInstanceProfile",
                        {{"InstanceProfileName", profile.name}, {"RoleName", profile.role}})
            .status();
    if (!removed.ok() && !absl::IsNotFound(removed)) return removed;
  }
  absl::Status deleted =
      client_->CallQuery(iam_, "DeleteInstanceProfile", {{"InstanceProfileName", profile.name}})
          .status();
  return absl::IsNotFound(deleted) ? absl::OkStatus() : deleted;
}

absl::StatusOr<std::vector<std::string>> InstanceProfileManager::DeleteExcept(
    const std::set<std::string>& keep) {
  KARP_ASSIGN_OR_RETURN(std::vector<Profile> profiles, ListClusterProfiles());
  std::sort(profiles.begin(), profiles.end(),
            [](const Profile& a, const Profile& b) { return a.name < b.name; });
  std::vector<std::string> deleted;
  for (const Profile& p : profiles) {
    if (keep.count(p.name) != 0) continue;
    KARP_RETURN_IF_ERROR(Delete(p));
    deleted.push_back(p.name);
    absl::MutexLock lock(&mu_);
    cache_.erase(p.name);
  }
  return deleted;
}

}  // namespace karp::aws
