// Test support of karp::aws: an in-memory IAM (instance profiles and roles) behind a
// FakeAwsServer, speaking the IAM Query protocol (Version 2010-05-08, signed for "iam" in the
// server's iam_region): GetInstanceProfile, CreateInstanceProfile, AddRoleToInstanceProfile,
// RemoveRoleFromInstanceProfile, DeleteInstanceProfile, ListInstanceProfiles (PathPrefix;
// Marker pages of `page_size` profiles; MaxItems is accepted and not used).
//
// Every request's shape is checked as IAM's service model states it, and a violation answers
// HTTP 400 ValidationError naming the parameter: the Version, no parameter outside the
// action's members, required members present, InstanceProfileName and RoleName matching
// [\w+=,.@-]{1,128} (64 for roles), Path and PathPrefix "/" or "/.../" of printable ASCII (at
// most 512), Tags.member.N.{Key,Value} numbered from 1 without gaps, each with both, at most
// 50, keys at most 128 and values at most 256 characters.
// Semantics as IAM: NoSuchEntity (404) for a missing profile or role, EntityAlreadyExists (409)
// on a second create, LimitExceeded (409) when a profile already has a role, DeleteConflict
// (409) when deleting a profile that still has one. Errors are IAM's <ErrorResponse>.
//
// Thread-safety: thread-safe.

#ifndef KARP_TESTS_AWS_SUPPORT_FAKE_IAM_H_
#define KARP_TESTS_AWS_SUPPORT_FAKE_IAM_H_

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "aws/support/fake_aws_server.h"

namespace karp::aws::testing {

struct FakeInstanceProfile {
  std::string name;
  std::string path;
  std::string role;  // "" when none
  std::map<std::string, std::string> tags;
};

// IAM's error document.
FakeResponse IamError(std::string_view code, std::string_view message, int status);

class FakeIam {
 public:
  // Installs the handlers on `server` (which must outlive this object's use).
  explicit FakeIam(FakeAwsServer* server);

  void AddRole(const std::string& name);
  void AddProfile(const FakeInstanceProfile& profile);
  void SetPageSize(int n);
  std::map<std::string, FakeInstanceProfile> profiles() const;

 private:
  FakeResponse Get(const FakeRequest& r);
  FakeResponse Create(const FakeRequest& r);
  FakeResponse AddRoleTo(const FakeRequest& r);
  FakeResponse RemoveRole(const FakeRequest& r);
  FakeResponse Delete(const FakeRequest& r);
  FakeResponse List(const FakeRequest& r);

  mutable std::mutex mu_;
  std::set<std::string> roles_;
  std::map<std::string, FakeInstanceProfile> profiles_;
  int page_size_ = 100;
};

}  // namespace karp::aws::testing

#endif  // KARP_TESTS_AWS_SUPPORT_FAKE_IAM_H_
