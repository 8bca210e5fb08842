// Test support of karp::aws: an in-memory SQS queue behind a FakeAwsServer, speaking the SQS
// JSON protocol (X-Amz-Target AmazonSQS.<Operation>, application/x-amz-json-1.0, signed for
// "sqs"): GetQueueUrl, ReceiveMessage, DeleteMessage.
//
// Every request's shape is checked as the SQS service model states it; a violation answers
// HTTP 400 with `com.amazonaws.sqs#InvalidParameterValue` (or `MissingParameter`) naming the
// member: Content-Type application/x-amz-json-1.0, a JSON object body, no member outside the
// operation's, required members present with the right JSON types (QueueUrl, QueueName,
// ReceiptHandle strings; MaxNumberOfMessages 1..10, WaitTimeSeconds 0..20, VisibilityTimeout
// 0..43200 integers; MessageSystemAttributeNames / MessageAttributeNames arrays of strings).
// Semantics: an unknown QueueUrl or QueueName is QueueDoesNotExist; ReceiveMessage hands out up
// to MaxNumberOfMessages visible messages in send order (answering at once, never waiting
// WaitTimeSeconds) and keeps them in flight until DeleteMessage or ReturnInFlight(); an unknown
// receipt handle is ReceiptHandleIsInvalid.
//
// Thread-safety: thread-safe.

#ifndef KARP_TESTS_AWS_SUPPORT_FAKE_SQS_H_
#define KARP_TESTS_AWS_SUPPORT_FAKE_SQS_H_

#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "aws/support/fake_aws_server.h"

namespace karp::aws::testing {

class FakeSqs {
 public:
  // Installs the handlers on `server`; the queue `name` gets the URL
  // <server endpoint>/123456789012/<name>.
  FakeSqs(FakeAwsServer* server, std::string name);

  std::string url() const { return url_; }
  void Send(const std::string& body);
  // Messages not yet deleted (visible and in flight).
  int size() const;
  int in_flight() const;
  // Makes every in-flight message visible again (as the visibility timeout would).
  void ReturnInFlight();

 private:
  // The request's JSON body, or the error answering it (bad shape, another queue).
  std::pair<nlohmann::json, std::optional<FakeResponse>> CheckQueueRequest(
      const FakeRequest& r) const;
  FakeResponse GetQueueUrl(const FakeRequest& r);
  FakeResponse Receive(const FakeRequest& r);
  FakeResponse Delete(const FakeRequest& r);

  std::string name_;
  std::string url_;
  mutable std::mutex mu_;
  int next_ = 1;
  std::deque<std::pair<std::string, std::string>> visible_;               // (message id, body)
  std::map<std::string, std::pair<std::string, std::string>> in_flight_;  // handle -> message
};

}  // namespace karp::aws::testing

#endif  // KARP_TESTS_AWS_SUPPORT_FAKE_SQS_H_
