#include "aws/support/fake_iam.h"

#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aws/instance_profile_manager.h"
#include "internal/strings.h"

namespace karp::aws::testing {
namespace {

using internal::StrCat;

constexpr char kNs[] = "https://iam.amazonaws.com/doc/2010-05-08/";

std::string Tag(std::string_view name, std::string_view value) { return XmlElement(name, value); }

// The members each action accepts (besides Action and Version) and those it requires.
struct Shape {
  std::set<std::string> members;
  std::set<std::string> required;
  bool tags = false;  // Tags.member.N.{Key,Value}
};

const std::map<std::string, Shape>& Shapes() {
  static const auto* shapes = new std::map<std::string, Shape>{
      {"GetInstanceProfile", {{"InstanceProfileName"}, {"InstanceProfileName"}}},
      {"CreateInstanceProfile",
       {{"InstanceProfileName", "Path"}, {"InstanceProfileName"}, /*tags=*/true}},
      {"AddRoleToInstanceProfile",
       {{"InstanceProfileName", "RoleName"}, {"InstanceProfileName", "RoleName"}}},
      {"RemoveRoleFromInstanceProfile",
       {{"InstanceProfileName", "RoleName"}, {"InstanceProfileName", "RoleName"}}},
      {"DeleteInstanceProfile", {{"InstanceProfileName"}, {"InstanceProfileName"}}},
      {"ListInstanceProfiles", {{"PathPrefix", "Marker", "MaxItems"}, {}}},
  };
  return *shapes;
}

bool NameOk(const std::string& v, size_t max) {
  if (v.empty() || v.size() > max) return false;
  for (char c : v) {
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string_view("_+=,.@-").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool PathOk(const std::string& v) {
  if (v.empty() || v.size() > 512 || v.front() != '/' || v.back() != '/') return false;
  for (char c : v) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

// Tags.member.N.{Key,Value}: numbered from 1 without gaps, both present, limits.
std::optional<std::string> CheckTags(const FakeRequest& r) {
  const auto tags = r.ParamsWithPrefix("Tags.member.");
  size_t n = 0;
  for (;; ++n) {
    const std::string key = r.Param(StrCat("Tags.member.", n + 1, ".Key"));
    if (key.empty()) break;
    if (key.size() > 128) return StrCat("Tags.member.", n + 1, ".Key: longer than 128");
    const std::string p = StrCat("Tags.member.", n + 1, ".Value");
    bool has_value = false;
    for (const auto& [k, v] : tags) {
      if (k == p) has_value = v.size() <= 256;
    }
    if (!has_value) return StrCat(p, ": missing or longer than 256");
  }
  if (n > 50) return "Tags: more than 50";
  if (tags.size() != 2 * n) return "Tags.member: numbered with gaps or unknown members";
  return std::nullopt;
}

// A ValidationError for the first shape violation of `r`, or nullopt.
std::optional<FakeResponse> CheckShape(const FakeRequest& r) {
  auto invalid = [](const std::string& what) { return IamError("ValidationError", what, 400); };
  if (r.Param("Version") != kIamApiVersion) {
    return invalid(StrCat("Version \"", r.Param("Version"), "\" is not 2010-05-08"));
  }
  const Shape& shape = Shapes().at(r.action);
  for (const auto& [k, v] : r.params) {
    if (k == "Action" || k == "Version" || shape.members.count(k) != 0) continue;
    if (shape.tags && k.rfind("Tags.member.", 0) == 0) continue;
    return invalid(StrCat(r.action, ": unknown parameter ", k));
  }
  for (const std::string& k : shape.required) {
    if (r.Param(k).empty()) return invalid(StrCat(r.action, ": ", k, " is required"));
  }
  const std::string profile = r.Param("InstanceProfileName");
  if (shape.members.count("InstanceProfileName") != 0 && !NameOk(profile, 128)) {
    return invalid(StrCat("InstanceProfileName \"", profile, "\" fails [\\w+=,.@-]{1,128}"));
  }
  if (shape.members.count("RoleName") != 0 && !NameOk(r.Param("RoleName"), 64)) {
    return invalid(StrCat("RoleName \"", r.Param("RoleName"), "\" fails [\\w+=,.@-]{1,64}"));
  }
  for (const char* p : {"Path", "PathPrefix"}) {
    if (!r.Param(p).empty() && !PathOk(r.Param(p))) {
      return invalid(StrCat(p, " \"", r.Param(p), "\" is not / or /.../"));
    }
  }
  if (shape.tags) {
    if (auto bad = CheckTags(r)) return invalid(*bad);
  }
  return std::nullopt;
}

std::string ProfileXml(const FakeInstanceProfile& p) {
  std::string roles;
  if (!p.role.empty()) {
    roles = Tag("member", Tag("Path", "/") + Tag("RoleName", XmlEscape(p.role)) +
                              Tag("Arn", StrCat("arn:aws:iam::123456789012:role/", p.role)));
  }
  return Tag("InstanceProfileName", XmlEscape(p.name)) + Tag("Path", XmlEscape(p.path)) +
         Tag("Arn", StrCat("arn:aws:iam::123456789012:instance-profile", XmlEscape(p.path),
                           XmlEscape(p.name))) +
         Tag("InstanceProfileId", "AIPAFAKE") + Tag("Roles", roles) +
         Tag("CreateDate", "2026-01-01T00:00:00Z");
}

FakeResponse IamXml(const std::string& action, const std::string& result) {
  return FakeResponse::Xml(StrCat("<", action, "Response xmlns=\"", kNs, "\">",
                                  result.empty() ? "" : Tag(StrCat(action, "Result"), result),
                                  Tag("ResponseMetadata", Tag("RequestId", "fake-iam-request")),
                                  "</", action, "Response>"));
}

FakeResponse NoSuchProfile(const std::string& name) {
  return IamError("NoSuchEntity", StrCat("Instance Profile ", name, " cannot be found."), 404);
}

}  // namespace

FakeResponse IamError(std::string_view code, std::string_view message, int status) {
  return FakeResponse::Xml(
      StrCat("<ErrorResponse xmlns=\"", kNs, "\"><Error><Type>Sender</Type><Code>", code,
             "</Code><Message>", XmlEscape(message),
             "</Message></Error><RequestId>fake-iam-request</RequestId></ErrorResponse>"),
      status);
}

FakeIam::FakeIam(FakeAwsServer* server) {
  using Method = FakeResponse (FakeIam::*)(const FakeRequest&);
  const std::vector<std::pair<std::string, Method>> handlers = {
      {"GetInstanceProfile", &FakeIam::Get},
      {"CreateInstanceProfile", &FakeIam::Create},
      {"AddRoleToInstanceProfile", &FakeIam::AddRoleTo},
      {"RemoveRoleFromInstanceProfile", &FakeIam::RemoveRole},
      {"DeleteInstanceProfile", &FakeIam::Delete},
      {"ListInstanceProfiles", &FakeIam::List},
  };
  for (const auto& [action, method] : handlers) {
    server->On(action, [this, m = method](const FakeRequest& r) {
      if (std::optional<FakeResponse> bad = CheckShape(r)) return *bad;
      std::lock_guard<std::mutex> lock(mu_);
      return (this->*m)(r);
    });
  }
}

void FakeIam::AddRole(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  roles_.insert(name);
}

void FakeIam::AddProfile(const FakeInstanceProfile& profile) {
  std::lock_guard<std::mutex> lock(mu_);
  profiles_[profile.name] = profile;
}

void FakeIam::SetPageSize(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  page_size_ = n;
}

std::map<std::string, FakeInstanceProfile> FakeIam::profiles() const {
  std::lock_guard<std::mutex> lock(mu_);
  return profiles_;
}

FakeResponse FakeIam::Get(const FakeRequest& r) {
  auto it = profiles_.find(r.Param("InstanceProfileName"));
  if (it == profiles_.end()) return NoSuchProfile(r.Param("InstanceProfileName"));
  return IamXml(r.action, Tag("InstanceProfile", ProfileXml(it->second)));
}

FakeResponse FakeIam::Create(const FakeRequest& r) {
  const std::string name = r.Param("InstanceProfileName");
  if (profiles_.count(name) != 0) {
    return IamError("EntityAlreadyExists", StrCat("Instance Profile ", name, " already exists."),
                    409);
  }
  FakeInstanceProfile p;
  p.name = name;
  p.path = r.Param("Path").empty() ? "/" : r.Param("Path");
  for (int n = 1;; ++n) {
    const std::string key = r.Param(StrCat("Tags.member.", n, ".Key"));
    if (key.empty()) break;
    p.tags[key] = r.Param(StrCat("Tags.member.", n, ".Value"));
  }
  profiles_[name] = p;
  return IamXml(r.action, Tag("InstanceProfile", ProfileXml(p)));
}

FakeResponse FakeIam::AddRoleTo(const FakeRequest& r) {
  auto it = profiles_.find(r.Param("InstanceProfileName"));
  if (it == profiles_.end()) return NoSuchProfile(r.Param("InstanceProfileName"));
  const std::string role = r.Param("RoleName");
  if (roles_.count(role) == 0) {
    return IamError("NoSuchEntity", StrCat("The role with name ", role, " cannot be found."), 404);
  }
  if (!it->second.role.empty()) {
    return IamError("LimitExceeded",
                    "Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1", 409);
  }
  it->second.role = role;
  return IamXml(r.action, "");
}

FakeResponse FakeIam::RemoveRole(const FakeRequest& r) {
  auto it = profiles_.find(r.Param("InstanceProfileName"));
  if (it == profiles_.end()) return NoSuchProfile(r.Param("InstanceProfileName"));
  if (it->second.role != r.Param("RoleName")) {
    return IamError("NoSuchEntity",
                    StrCat("The role with name ", r.Param("RoleName"),
                           " is not attached to instance profile ", it->first),
                    404);
  }
  it->second.role.clear();
  return IamXml(r.action, "");
}

FakeResponse FakeIam::Delete(const FakeRequest& r) {
  auto it = profiles_.find(r.Param("InstanceProfileName"));
  if (it == profiles_.end()) return NoSuchProfile(r.Param("InstanceProfileName"));
  if (!it->second.role.empty()) {
    return IamError("DeleteConflict",
                    "Cannot delete entity, must remove roles from instance profile first.", 409);
  }
  profiles_.erase(it);
  return IamXml(r.action, "");
}

FakeResponse FakeIam::List(const FakeRequest& r) {
  const std::string prefix = r.Param("PathPrefix").empty() ? "/" : r.Param("PathPrefix");
  const std::string marker = r.Param("Marker");
  std::string members, next;
  int n = 0;
  for (const auto& [name, p] : profiles_) {
    if (p.path.rfind(prefix, 0) != 0 || (!marker.empty() && name < marker)) continue;
    if (n == page_size_) {
      next = name;
      break;
    }
    members += Tag("member", ProfileXml(p));
    ++n;
  }
  return IamXml(r.action, Tag("InstanceProfiles", members) +
                              Tag("IsTruncated", next.empty() ? "false" : "true") +
                              (next.empty() ? "" : Tag("Marker", next)));
}

}  // namespace karp::aws::testing
