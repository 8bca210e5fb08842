// Tests of the object validators (karp/objects.h) and of their use by ClusterSnapshot::Validate,
// Scheduler::Create and Consolidator::Create: a snapshot built in memory is held to exactly
// the rules a file is.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/objects.h"
#include "karp/scheduler.h"
#include "support/builders.h"

namespace {

using karp::ClusterSnapshot;
using karp::testing::FakeCatalog;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;

std::string Message(const absl::Status& s) { return std::string(s.message()); }

// The error Scheduler::Create and Consolidator::Create give for `snap`; both must agree.
std::string CreateError(const ClusterSnapshot& snap) {
  auto catalog = FakeCatalog(4);
  absl::StatusOr<karp::Scheduler> scheduler = karp::Scheduler::Create(snap, catalog);
  REQUIRE_FALSE(scheduler.ok());
  CHECK(scheduler.status().code() == absl::StatusCode::kInvalidArgument);
  absl::StatusOr<karp::Consolidator> consolidator =
      karp::Consolidator::Create(snap, catalog, absl::UnixEpoch());
  REQUIRE_FALSE(consolidator.ok());
  CHECK(Message(consolidator.status()) == Message(scheduler.status()));
  return Message(scheduler.status());
}

ClusterSnapshot OnePoolOnePod() {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.pods.push_back(MakePod("web", "1"));
  return snap;
}

TEST_CASE("Create rejects what the file reader rejects", "[validation]") {
  SECTION("negative requests") {
    ClusterSnapshot snap = OnePoolOnePod();
    snap.pods[0].containers[0].requests.Set("cpu", -99000);
    CHECK(CreateError(snap) ==
          "pod default/web: spec.containers[0].resources.requests.cpu: must not be negative, "
          "got -99000");
  }
  SECTION("empty names") {
    ClusterSnapshot snap = OnePoolOnePod();
    snap.node_pools.push_back(MakeNodePool(""));
    CHECK(CreateError(snap) == "nodepool (unnamed): metadata.name: required");
  }
  SECTION("NodePool weight out of 1..100") {
    ClusterSnapshot snap = OnePoolOnePod();
    snap.node_pools[0].weight = 1000;
    CHECK(CreateError(snap) ==
          "nodepool default: spec.weight: must be between 1 and 100, got 1000");
  }
  SECTION("negative NodePool limits") {
    ClusterSnapshot snap = OnePoolOnePod();
    snap.node_pools[0].limits.Set("memory", -1);
    CHECK(CreateError(snap) ==
          "nodepool default: spec.limits.memory: must not be negative, got -1");
  }
  SECTION("budget schedules") {
    ClusterSnapshot snap = OnePoolOnePod();
    snap.node_pools[0].budgets = {karp::Budget{"0", {}, "@every 5m", absl::Minutes(10)}};
    CHECK(CreateError(snap).rfind(
              "nodepool default: spec.disruption.budgets[0].schedule: invalid schedule \"@every "
              "5m\"",
              0) == 0);
  }
  SECTION("budget nodes") {
    ClusterSnapshot snap = OnePoolOnePod();
    snap.node_pools[0].budgets = {karp::Budget{"150%", {}, "", std::nullopt}};
    CHECK(CreateError(snap) ==
          "nodepool default: spec.disruption.budgets[0].nodes: invalid value \"150%\": a "
          "percentage must be 0% to 100%");
  }
  SECTION("duplicates") {
    ClusterSnapshot snap = OnePoolOnePod();
    snap.pods.push_back(MakePod("web", "2"));
    CHECK(CreateError(snap) == "pod default/web: duplicate object");
  }
  SECTION("names are DNS-1123 subdomains, and control characters in them are escaped") {
    ClusterSnapshot snap = OnePoolOnePod();
    snap.node_pools.push_back(MakeNodePool("evil\x1b]0;x\x07"));
    CHECK(CreateError(snap) ==
          "nodepool evil\\x1b]0;x\\x07: metadata.name: invalid value \"evil\\x1b]0;x\\x07\": a "
          "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
          "or '.', and must start and end with an alphanumeric character");
  }
}

TEST_CASE("Pods the reference ignores do not make Create fail", "[validation]") {
  ClusterSnapshot snap = OnePoolOnePod();
  snap.pods.push_back(MakePod("typo", "1").NodeSelector("kubernetes.io/hostname", "red-node"));
  CHECK(snap.Validate().ok());
  CHECK(karp::Scheduler::Create(snap, FakeCatalog(4)).ok());
}

TEST_CASE("IntOrPercent counts resolve as Kubernetes does", "[validation]") {
  absl::StatusOr<karp::IntOrPercent> ten = karp::ParseIntOrPercent("10%", true);
  REQUIRE(ten.ok());
  CHECK(ten->Resolve(15) == 2);  // rounded up
  CHECK(ten->Resolve(0) == 0);
  absl::StatusOr<karp::IntOrPercent> three = karp::ParseIntOrPercent("3", true);
  REQUIRE(three.ok());
  CHECK(three->Resolve(100) == 3);
  CHECK_FALSE(karp::ParseIntOrPercent("", true).ok());
  CHECK_FALSE(karp::ParseIntOrPercent("-1", true).ok());
  CHECK_FALSE(karp::ParseIntOrPercent("1.5", true).ok());
  CHECK_FALSE(karp::ParseIntOrPercent("101%", true).ok());
  CHECK(karp::ParseIntOrPercent("101%", false).ok());
}

}  // namespace

#include "internal/strings.h"

namespace {

TEST_CASE("Messages escape control characters and invalid UTF-8, and only those", "[validation]") {
  using karp::internal::EscapeForMessage;
  CHECK(EscapeForMessage("plain ascii, \\ and \"quotes\"") == "plain ascii, \\ and \"quotes\"");
  CHECK(EscapeForMessage("a\nb\tc\rd") == "a\\nb\\tc\\rd");
  CHECK(EscapeForMessage("\x1b]0;t\x07") == "\\x1b]0;t\\x07");
  CHECK(EscapeForMessage("del\x7f") == "del\\x7f");
  CHECK(EscapeForMessage("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80") ==
        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80");            // é € 🚀 kept
  CHECK(EscapeForMessage("c1 \xc2\x9b") == "c1 \\u009b");        // CSI as C1
  CHECK(EscapeForMessage("bad \xff\xc3") == "bad \\xff\\xc3");   // invalid, truncated
  CHECK(EscapeForMessage("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(EscapeForMessage("\xc0\xaf") == "\\xc0\\xaf");           // overlong '/'
  const std::string once = EscapeForMessage("x\x1b\xff\n");
  CHECK(EscapeForMessage(once) == once);
}

}  // namespace

namespace {

TEST_CASE("Messages cut a quoted value after 200 characters and say how many were cut",
          "[validation]") {
  using karp::internal::CutLongQuotedValues;
  using karp::internal::EscapeForMessage;
  const std::string value(100000, 'a');
  const std::string message = "spec.x: invalid quantity \"" + value + "\" in pod \"p\"";
  const std::string cut = EscapeForMessage(message);
  CHECK(cut == "spec.x: invalid quantity \"" + std::string(199, 'a') +
                   "\xe2\x80\xa6\" (99801 more characters) in pod \"p\"");
  CHECK(EscapeForMessage(cut) == cut);  // cutting twice changes nothing
  // Characters, not bytes: 300 two-byte characters keep 199 whole ones and the ellipsis.
  std::string wide;
  for (int i = 0; i < 300; ++i) wide += "\xc3\xa9";
  const std::string w = CutLongQuotedValues("\"" + wide + "\"");
  CHECK(w == "\"" + wide.substr(0, 398) + "\xe2\x80\xa6\" (101 more characters)");
  // Short values, and long text outside quotes, are kept.
  const std::string prose(500, 'b');
  CHECK(CutLongQuotedValues(prose) == prose);
  CHECK(CutLongQuotedValues("\"short\" and \"" + std::string(200, 'c') + "\"") ==
        "\"short\" and \"" + std::string(200, 'c') + "\"");
  // An unclosed quote is cut the same way.
  CHECK(CutLongQuotedValues("x \"" + value) ==
        "x \"" + std::string(199, 'a') + "\xe2\x80\xa6 (99801 more characters)");
}

}  // namespace
