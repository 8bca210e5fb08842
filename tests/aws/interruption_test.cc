// EventBridge interruption messages -> the core's InterruptionEvent.

#include "karp/aws/interruption.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include "support/source_dir.h"

namespace karp::aws {
namespace {

namespace fs = std::filesystem;

absl::Time T(const char* rfc3339) {
  absl::Time t;
  std::string err;
  REQUIRE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err));
  return t;
}

std::optional<std::string> Nodes(std::string_view id) {
  static const std::map<std::string, std::string, std::less<>> kNodes = {
      {"i-0123456789", "node-a"}, {"i-abcd1111", "node-b"}, {"i-0abc", "node-c"}};
  auto it = kNodes.find(id);
  if (it == kNodes.end()) return std::nullopt;
  return it->second;
}

constexpr char kSpot[] = R"({"version":"0","id":"1e5527d7","detail-type":
  "EC2 Spot Instance Interruption Warning","source":"aws.ec2","account":"123456789012",
  "time":"2022-08-11T14:00:00Z","region":"us-east-2",
  "resources":["arn:aws:ec2:us-east-2:instance/i-0123456789"],
  "detail":{"instance-id":"i-0123456789","instance-action":"terminate"}})";

TEST_CASE("Interruption spot warning gives a spot-interruption event with a 2 minute deadline",
          "[aws][interruption]") {
  absl::StatusOr<AwsInterruptionMessage> m = ParseEventBridgeMessage(kSpot);
  REQUIRE(m.ok());
  CHECK(m->kind == AwsInterruptionKind::kSpotInterruption);
  CHECK(m->instance_ids == std::vector<std::string>{"i-0123456789"});
  CHECK(m->action == "terminate");
  REQUIRE(m->deadline.has_value());
  CHECK(*m->deadline == T("2022-08-11T14:02:00Z"));
  std::vector<InterruptionEvent> events = ToInterruptionEvents(*m, Nodes);
  REQUIRE(events.size() == 1);
  CHECK(events[0].node == "node-a");
  CHECK(events[0].kind == "spot-interruption");
  CHECK(events[0].deadline == T("2022-08-11T14:02:00Z"));
  // An instance without a node yields nothing.
  CHECK(ToInterruptionEvents(*m, [](std::string_view) {
          return std::optional<std::string>();
        }).empty());
}

TEST_CASE("Interruption state changes, rebalance and health events", "[aws][interruption]") {
  auto state = [](const std::string& s) {
    return ParseEventBridgeMessage(
        R"({"version":"0","id":"x","detail-type":"EC2 Instance State-change Notification",
            "source":"aws.ec2","time":"2021-11-11T21:29:54Z",
            "detail":{"instance-id":"i-abcd1111","state":")" +
        s + R"("}})");
  };
  CHECK(state("stopping")->kind == AwsInterruptionKind::kInstanceStopping);
  CHECK(state("stopped")->kind == AwsInterruptionKind::kInstanceStopping);
  CHECK(state("shutting-down")->kind == AwsInterruptionKind::kInstanceTerminating);
  CHECK(state("terminated")->kind == AwsInterruptionKind::kInstanceTerminating);
  CHECK(state("pending")->kind == AwsInterruptionKind::kNoOp);
  CHECK(state("running")->kind == AwsInterruptionKind::kNoOp);
  std::vector<InterruptionEvent> stop = ToInterruptionEvents(*state("stopping"), Nodes);
  REQUIRE(stop.size() == 1);
  CHECK(stop[0].kind == "stopping");
  CHECK(stop[0].deadline == T("2021-11-11T21:29:54Z"));
  CHECK(ToInterruptionEvents(*state("terminated"), Nodes)[0].kind == "terminating");

  absl::StatusOr<AwsInterruptionMessage> rebalance = ParseEventBridgeMessage(
      R"({"version":"0","id":"r","detail-type":"EC2 Instance Rebalance Recommendation",
          "source":"aws.ec2","time":"yyyy-mm-ddThh:mm:ssZ","detail":{"instance-id":"i-0abc"}})");
  REQUIRE(rebalance.ok());
  CHECK(rebalance->kind == AwsInterruptionKind::kRebalanceRecommendation);
  CHECK_FALSE(rebalance->time.has_value());  // placeholder time is tolerated
  CHECK(ToInterruptionEvents(*rebalance, Nodes).empty());

  absl::StatusOr<AwsInterruptionMessage> health = ParseEventBridgeMessage(
      R"({"version":"0","id":"h","detail-type":"AWS Health Event","source":"aws.health",
          "time":"2023-03-10T12:03:38Z","detail":{"service":"EC2",
          "eventTypeCategory":"scheduledChange","eventTypeCode":"AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED",
          "startTime":"Fri, 17 Mar 2023 09:00:00 GMT",
          "affectedEntities":[{"entityValue":"i-0abc"},{"entityValue":"i-0abc"},
                              {"entityValue":"i-unknown"}]}})");
  REQUIRE(health.ok());
  CHECK(health->kind == AwsInterruptionKind::kScheduledChange);
  CHECK(health->instance_ids == std::vector<std::string>{"i-0abc", "i-unknown"});
  std::vector<InterruptionEvent> he = ToInterruptionEvents(*health, Nodes);
  REQUIRE(he.size() == 1);
  CHECK(he[0].node == "node-c");
  CHECK(he[0].kind == "scheduled-maintenance");
  CHECK(he[0].deadline == T("2023-03-17T09:00:00Z"));

  absl::StatusOr<AwsInterruptionMessage> notification = ParseEventBridgeMessage(
      R"({"version":"0","id":"n","detail-type":"AWS Health Event","source":"aws.health",
          "detail":{"service":"EC2","eventTypeCategory":"accountNotification",
          "affectedEntities":[{"entityValue":"i-0abc"}]}})");
  REQUIRE(notification.ok());
  CHECK(notification->kind == AwsInterruptionKind::kNoOp);
}

TEST_CASE("Interruption bad messages give clear errors", "[aws][interruption]") {
  CHECK(ParseEventBridgeMessage("not json").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ParseEventBridgeMessage("[1,2]").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ParseEventBridgeMessage(R"({"source":"aws.ec2"})").status().code() ==
        absl::StatusCode::kInvalidArgument);
  absl::StatusOr<AwsInterruptionMessage> no_id = ParseEventBridgeMessage(
      R"({"version":"0","id":"q","detail-type":"EC2 Spot Instance Interruption Warning",
          "source":"aws.ec2","detail":{}})");
  CHECK(no_id.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(no_id.status().message()).find("detail.instance-id") != std::string::npos);
  absl::StatusOr<AwsInterruptionMessage> wrong_type = ParseEventBridgeMessage(
      R"({"version":"0","detail-type":"EC2 Spot Instance Interruption Warning",
          "source":"aws.ec2","detail":{"instance-id":5}})");
  CHECK(wrong_type.status().code() == absl::StatusCode::kInvalidArgument);
  // Unknown kinds and versions are no-ops, not errors.
  CHECK(ParseEventBridgeMessage(R"({"version":"1","detail-type":"x","source":"aws.ec2"})")->kind ==
        AwsInterruptionKind::kNoOp);
  CHECK(ParseEventBridgeMessage(R"({"version":"0","detail-type":"Other","source":"aws.s3",
                                   "detail":{}})")
            ->kind == AwsInterruptionKind::kNoOp);
}

TEST_CASE("Interruption published samples parse as the reference handles them",
          "[aws][interruption]") {
  const fs::path dir = fs::path(karp::testing::SourceDir()) / ".." / "shared" / "data" / "aws" /
                       "eventbridge-events";
  if (!fs::exists(dir)) {
    WARN("SKIPPED: " << dir.string() << " is absent");
    return;
  }
  auto load = [&](const char* name) {
    std::ifstream in(dir / name);
    std::stringstream ss;
    ss << in.rdbuf();
    absl::StatusOr<AwsInterruptionMessage> m = ParseEventBridgeMessage(ss.str());
    INFO(name << ": " << m.status().ToString());
    REQUIRE(m.ok());
    return *m;
  };
  CHECK(load("spot-interruption-warning.json").kind == AwsInterruptionKind::kSpotInterruption);
  CHECK(load("spot-interruption-warning-userguide.json").kind ==
        AwsInterruptionKind::kSpotInterruption);
  CHECK(load("rebalance-recommendation.json").kind ==
        AwsInterruptionKind::kRebalanceRecommendation);
  CHECK(load("instance-state-change-pending.json").kind == AwsInterruptionKind::kNoOp);
  CHECK(load("health-event-account-notification.json").kind == AwsInterruptionKind::kNoOp);
  AwsInterruptionMessage spot = load("spot-interruption-warning.json");
  CHECK(ToInterruptionEvents(spot, Nodes).size() == 1);
}

}  // namespace
}  // namespace karp::aws
