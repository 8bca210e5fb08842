// The SQS interruption-queue consumer (karp/aws/interruption_queue.h) against the local fake
// SQS (JSON protocol, signature and request-shape checks).

#include "karp/aws/interruption_queue.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aws/ec2_client.h"
#include "aws/support/fake_aws_server.h"
#include "aws/support/fake_sqs.h"

namespace karp::aws {
namespace {

using testing::FakeAwsServer;
using testing::FakeRequest;
using testing::FakeSqs;

std::string SpotWarning(const std::string& instance) {
  return nlohmann::json{{"version", "0"},
                        {"id", "e-" + instance},
                        {"detail-type", "EC2 Spot Instance Interruption Warning"},
                        {"source", "aws.ec2"},
                        {"account", "123456789012"},
                        {"time", "2026-11-26T08:00:00Z"},
                        {"region", "us-west-2"},
                        {"resources", nlohmann::json::array()},
                        {"detail", {{"instance-id", instance}, {"instance-action", "terminate"}}}}
      .dump();
}

struct SqsFixture {
  std::unique_ptr<FakeAwsServer> server;
  std::unique_ptr<FakeSqs> sqs;
  std::vector<absl::Duration> sleeps;

  SqsFixture() {
    FakeAwsServer::Options so;
    so.region = "us-west-2";
    auto s = FakeAwsServer::Start(so);
    REQUIRE(s.ok());
    server = std::move(*s);
    sqs = std::make_unique<FakeSqs>(server.get(), "Karpenter-prod");
  }

  InterruptionQueueOptions Options(const std::string& queue) {
    InterruptionQueueOptions o;
    o.client.region = "us-west-2";
    o.client.sqs_endpoint = server->endpoint();
    o.client.credentials = testing::TestCredentials();
    o.client.retry.max_attempts = 2;
    o.client.sleep = [this](absl::Duration d) { sleeps.push_back(d); };
    o.queue = queue;
    return o;
  }
};

TEST_CASE("The interruption queue long-polls, hands events over and deletes them",
          "[aws][sqs][threads]") {
  SqsFixture f;
  for (int i = 0; i < 12; ++i) f.sqs->Send(SpotWarning("i-" + std::to_string(1000 + i)));
  f.sqs->Send("not json at all");
  auto q = InterruptionQueue::Create(f.Options("Karpenter-prod"));
  REQUIRE(q.ok());
  std::vector<std::string> seen;
  auto handler = [&](const AwsInterruptionMessage& m) {
    CHECK(m.kind == AwsInterruptionKind::kSpotInterruption);
    seen.push_back(m.instance_ids.at(0));
    return absl::OkStatus();
  };
  absl::StatusOr<InterruptionPollResult> first = (*q)->PollOnce(handler);
  INFO(first.status().ToString());
  REQUIRE(first.ok());
  CHECK(first->received == 10);  // at most 10 per ReceiveMessage
  CHECK(first->handled == 10);
  absl::StatusOr<InterruptionPollResult> second = (*q)->PollOnce(handler);
  REQUIRE(second.ok());
  CHECK(second->received == 3);
  CHECK(second->handled == 2);
  CHECK(second->unparseable == 1);  // deleted, never handed over
  CHECK(seen.size() == 12);
  CHECK(seen.front() == "i-1000");
  CHECK(f.sqs->size() == 0);  // everything deleted

  // The URL was resolved once by name; the request shapes are the long poll's.
  CHECK((*q)->queue_url() == f.sqs->url());
  CHECK(f.server->Count("GetQueueUrl") == 1);
  CHECK(f.server->BadSignatures() == 0);
  for (const FakeRequest& r : f.server->Requests()) {
    CHECK(r.signing_service == "sqs");
    CHECK(r.signing_region == "us-west-2");
    CHECK(r.Header("content-type") == "application/x-amz-json-1.0");
    CHECK(r.Header("x-amz-target") == "AmazonSQS." + r.action);
    if (r.action != "ReceiveMessage") continue;
    const nlohmann::json body = nlohmann::json::parse(r.body);
    CHECK(body.at("MaxNumberOfMessages") == 10);
    CHECK(body.at("WaitTimeSeconds") == 20);
    CHECK(body.at("VisibilityTimeout") == 20);
    CHECK(body.at("QueueUrl") == f.sqs->url());
  }
  const InterruptionQueueStats stats = (*q)->stats();
  CHECK(stats.polls == 2);
  CHECK(stats.received == 13);
  CHECK(stats.handled == 12);
  CHECK(stats.deleted == 13);
  CHECK(stats.unparseable == 1);
  CHECK(stats.poll_errors == 0);
}

TEST_CASE("A failing handler leaves the message in the queue, pull mode deletes on request",
          "[aws][sqs][threads]") {
  SqsFixture f;
  f.sqs->Send(SpotWarning("i-1"));
  f.sqs->Send(SpotWarning("i-2"));
  auto q = InterruptionQueue::Create(f.Options(f.sqs->url()));  // a URL needs no GetQueueUrl
  REQUIRE(q.ok());
  absl::StatusOr<InterruptionPollResult> r = (*q)->PollOnce([](const AwsInterruptionMessage& m) {
    return m.instance_ids.at(0) == "i-1" ? absl::UnavailableError("host busy") : absl::OkStatus();
  });
  REQUIRE(r.ok());
  CHECK(r->handler_errors == 1);
  CHECK(r->handled == 1);
  CHECK(f.sqs->size() == 1);
  CHECK(f.sqs->in_flight() == 1);
  CHECK(f.server->Count("GetQueueUrl") == 0);

  // Visible again after the timeout; pulled, handled by the caller, deleted by it.
  f.sqs->ReturnInFlight();
  absl::StatusOr<std::vector<ReceivedInterruption>> pulled = (*q)->Receive();
  REQUIRE(pulled.ok());
  REQUIRE(pulled->size() == 1);
  CHECK(pulled->at(0).message.instance_ids.at(0) == "i-1");
  CHECK(f.sqs->in_flight() == 1);
  REQUIRE((*q)->Delete(pulled->at(0).receipt_handle).ok());
  CHECK(f.sqs->size() == 0);
  CHECK(AwsErrorCode((*q)->Delete("bogus")) == "ReceiptHandleIsInvalid");
}

TEST_CASE("Queue errors are statuses, and Run backs off and goes on", "[aws][sqs][threads]") {
  SqsFixture f;
  auto missing = InterruptionQueue::Create(f.Options("no-such-queue"));
  REQUIRE(missing.ok());
  absl::StatusOr<InterruptionPollResult> r =
      (*missing)->PollOnce([](const AwsInterruptionMessage&) { return absl::OkStatus(); });
  CHECK(r.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(r.status().message()).find("SQS GetQueueUrl: QueueDoesNotExist") == 0);

  f.sqs->Send(SpotWarning("i-9"));
  auto q = InterruptionQueue::Create(f.Options("Karpenter-prod"));
  REQUIRE(q.ok());
  // Three failed polls (each retried once by the client), then a good one.
  f.server->FailNext("GetQueueUrl", 6, 500, "InternalError");
  std::atomic<bool> stop{false};
  int handled = 0;
  const int64_t polls = (*q)->Run(
      [&](const AwsInterruptionMessage&) {
        ++handled;
        stop = true;
        return absl::OkStatus();
      },
      &stop);
  CHECK(polls == 4);
  CHECK(handled == 1);
  // Client retry sleeps are interleaved with the backoff: 1s, 2s, 4s appear in order.
  std::vector<absl::Duration> backoffs;
  for (absl::Duration d : f.sleeps) {
    if (d >= absl::Seconds(1)) backoffs.push_back(d);
  }
  CHECK(backoffs ==
        std::vector<absl::Duration>{absl::Seconds(1), absl::Seconds(2), absl::Seconds(4)});
  CHECK((*q)->stats().poll_errors == 3);

  InterruptionQueueOptions bad = f.Options("q");
  bad.max_messages = 11;
  CHECK(InterruptionQueue::Create(bad).status().code() == absl::StatusCode::kInvalidArgument);
  bad = f.Options("q");
  bad.client.request_timeout = absl::Seconds(10);
  CHECK(std::string(InterruptionQueue::Create(bad).status().message()).find("request_timeout") !=
        std::string::npos);
}

TEST_CASE("The fake SQS rejects malformed requests", "[aws][sqs]") {
  SqsFixture f;
  auto client = Ec2Client::Create(f.Options("q").client);
  REQUIRE(client.ok());
  auto code = [&](const std::string& operation, const std::string& body,
                  const std::string& content_type = "application/x-amz-json-1.0") {
    JsonCall call;
    call.target_prefix = "AmazonSQS";
    call.operation = operation;
    call.signing_service = "sqs";
    call.endpoint = f.server->endpoint();
    call.region = "us-west-2";
    call.content_type = content_type;
    call.label = "SQS";
    return AwsErrorCode((*client)->CallJson(call, body).status());
  };
  const std::string url = "\"QueueUrl\":\"" + f.sqs->url() + "\"";
  CHECK(code("ReceiveMessage", "{" + url + "}") == "");
  CHECK(code("ReceiveMessage", "{}") == "MissingParameter");
  CHECK(code("ReceiveMessage", "{" + url + ",\"MaxNumberOfMessages\":11}") ==
        "InvalidParameterValue");
  CHECK(code("ReceiveMessage", "{" + url + ",\"WaitTimeSeconds\":\"20\"}") ==
        "InvalidParameterValue");
  CHECK(code("ReceiveMessage", "{" + url + ",\"Bogus\":1}") == "InvalidParameterValue");
  CHECK(code("ReceiveMessage", "[]") == "InvalidParameterValue");
  CHECK(code("ReceiveMessage", "{" + url + "}", "application/x-amz-json-1.1") ==
        "InvalidParameterValue");
  CHECK(code("DeleteMessage", "{" + url + "}") == "MissingParameter");
  CHECK(code("GetQueueUrl", "{\"QueueName\":\"other\"}") == "QueueDoesNotExist");
  CHECK(f.server->BadSignatures() == 0);
}

}  // namespace
}  // namespace karp::aws
