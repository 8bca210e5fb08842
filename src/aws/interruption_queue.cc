#include "karp/aws/interruption_queue.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/time/clock.h"
#include "aws/ec2_client.h"
#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {

using internal::StrCat;

namespace {

bool IsUrl(const std::string& s) {
  return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0;
}

absl::Status Err(std::string_view what) {
  return absl::InvalidArgumentError(StrCat("interruption queue options: ", what));
}

// The string member `key` of `j` at `where`. Errors: Internal naming the path.
absl::StatusOr<std::string> StringMember(const nlohmann::json& j, const char* key,
                                         const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) {
    return absl::InternalError(StrCat(where, ".", key, ": missing or not a string"));
  }
  return it->get<std::string>();
}

}  // namespace

absl::Status InterruptionQueueOptions::Validate() const {
  KARP_RETURN_IF_ERROR(client.Validate());
  if (queue.empty()) return Err("queue is empty (want a queue URL or name)");
  if (max_messages < 1 || max_messages > 10) {
    return Err(StrCat("max_messages ", max_messages, " is outside [1, 10]"));
  }
  if (wait_time < absl::ZeroDuration() || wait_time > absl::Seconds(20)) {
    return Err("wait_time is outside [0s, 20s]");
  }
  if (visibility_timeout < absl::ZeroDuration() || visibility_timeout > absl::Hours(12)) {
    return Err("visibility_timeout is outside [0s, 12h]");
  }
  if (client.request_timeout <= wait_time) {
    return Err("client.request_timeout must exceed wait_time (the long poll)");
  }
  if (backoff_base <= absl::ZeroDuration() || backoff_max < backoff_base) {
    return Err("backoff_base must be > 0 and backoff_max >= backoff_base");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<InterruptionQueue>> InterruptionQueue::Create(
    InterruptionQueueOptions options) {
  KARP_RETURN_IF_ERROR(options.Validate());
  KARP_ASSIGN_OR_RETURN(std::unique_ptr<Ec2Client> client, Ec2Client::Create(options.client));
  return std::unique_ptr<InterruptionQueue>(
      new InterruptionQueue(std::move(options), std::move(client)));
}

InterruptionQueue::InterruptionQueue(InterruptionQueueOptions options,
                                     std::unique_ptr<Ec2Client> client)
    : options_(std::move(options)), client_(std::move(client)) {
  if (IsUrl(options_.queue)) queue_url_ = options_.queue;
}

InterruptionQueue::~InterruptionQueue() = default;

namespace {

// One SQS JSON-protocol call.
absl::StatusOr<nlohmann::json> Sqs(const Ec2Client& client, const std::string& operation,
                                   const nlohmann::json& body) {
  JsonCall call;
  call.target_prefix = "AmazonSQS";
  call.operation = operation;
  call.signing_service = "sqs";
  call.endpoint = client.options().ResolvedSqsEndpoint();
  call.region = client.options().region;
  call.content_type = "application/x-amz-json-1.0";
  call.label = "SQS";
  KARP_ASSIGN_OR_RETURN(std::string out, client.CallJson(call, body.dump()));
  nlohmann::json j = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return absl::InternalError(StrCat("SQS ", operation, ": the response is not a JSON object"));
  }
  return j;
}

}  // namespace

absl::StatusOr<std::string> InterruptionQueue::QueueUrl() {
  {
    absl::MutexLock lock(&mu_);
    if (!queue_url_.empty()) return queue_url_;
  }
  KARP_ASSIGN_OR_RETURN(nlohmann::json r,
                        Sqs(*client_, "GetQueueUrl", {{"QueueName", options_.queue}}));
  KARP_ASSIGN_OR_RETURN(std::string url, StringMember(r, "QueueUrl", "SQS GetQueueUrl: $"));
  absl::MutexLock lock(&mu_);
  queue_url_ = url;
  return url;
}

std::string InterruptionQueue::queue_url() const {
  absl::MutexLock lock(&mu_);
  return queue_url_;
}

InterruptionQueueStats InterruptionQueue::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

absl::StatusOr<std::vector<InterruptionQueue::Raw>> InterruptionQueue::ReceiveRaw() {
  KARP_ASSIGN_OR_RETURN(std::string url, QueueUrl());
  const nlohmann::json request = {
      {"QueueUrl", url},
      {"MaxNumberOfMessages", options_.max_messages},
      {"WaitTimeSeconds", absl::ToInt64Seconds(options_.wait_time)},
      {"VisibilityTimeout", absl::ToInt64Seconds(options_.visibility_timeout)},
      {"MessageSystemAttributeNames", nlohmann::json::array({"SentTimestamp"})},
  };
  KARP_ASSIGN_OR_RETURN(nlohmann::json r, Sqs(*client_, "ReceiveMessage", request));
  std::vector<Raw> out;
  auto messages = r.find("Messages");
  if (messages == r.end() || messages->is_null()) return out;  // nothing arrived
  if (!messages->is_array()) {
    return absl::InternalError("SQS ReceiveMessage: $.Messages: not an array");
  }
  for (size_t i = 0; i < messages->size(); ++i) {
    const std::string where = StrCat("SQS ReceiveMessage: $.Messages[", i, "]");
    const nlohmann::json& m = (*messages)[i];
    if (!m.is_object()) return absl::InternalError(StrCat(where, ": not an object"));
    Raw raw;
    KARP_ASSIGN_OR_RETURN(raw.receipt_handle, StringMember(m, "ReceiptHandle", where));
    KARP_ASSIGN_OR_RETURN(raw.message_id, StringMember(m, "MessageId", where));
    auto body = m.find("Body");
    if (body != m.end() && body->is_string()) raw.body = body->get<std::string>();
    out.push_back(std::move(raw));
  }
  return out;
}

absl::Status InterruptionQueue::DeleteAt(const std::string& url,
                                         const std::string& receipt_handle) {
  KARP_RETURN_IF_ERROR(
      Sqs(*client_, "DeleteMessage", {{"QueueUrl", url}, {"ReceiptHandle", receipt_handle}})
          .status());
  absl::MutexLock lock(&mu_);
  ++stats_.deleted;
  return absl::OkStatus();
}

absl::Status InterruptionQueue::Delete(const std::string& receipt_handle) {
  KARP_ASSIGN_OR_RETURN(std::string url, QueueUrl());
  absl::Status s = DeleteAt(url, receipt_handle);
  if (!s.ok()) Count({}, /*failed=*/true);
  return s;
}

absl::StatusOr<std::vector<ReceivedInterruption>> InterruptionQueue::ParseAll(
    std::vector<Raw> raw, InterruptionPollResult* result) {
  KARP_ASSIGN_OR_RETURN(std::string url, QueueUrl());
  std::vector<ReceivedInterruption> out;
  absl::Status first_error;
  result->received = static_cast<int>(raw.size());
  for (Raw& r : raw) {
    absl::StatusOr<AwsInterruptionMessage> m = ParseEventBridgeMessage(r.body);
    if (m.ok()) {
      out.push_back({std::move(r.message_id), std::move(r.receipt_handle), std::move(*m)});
      continue;
    }
    // It can never parse: delete it so it does not come back forever.
    ++result->unparseable;
    absl::Status deleted = DeleteAt(url, r.receipt_handle);
    if (!deleted.ok() && first_error.ok()) first_error = deleted;
  }
  if (!first_error.ok()) return first_error;
  return out;
}

void InterruptionQueue::Count(const InterruptionPollResult& r, bool failed) {
  absl::MutexLock lock(&mu_);
  stats_.received += r.received;
  stats_.handled += r.handled;
  stats_.unparseable += r.unparseable;
  stats_.handler_errors += r.handler_errors;
  if (failed) ++stats_.poll_errors;
}

absl::StatusOr<std::vector<ReceivedInterruption>> InterruptionQueue::Poll(
    InterruptionPollResult* result) {
  {
    absl::MutexLock lock(&mu_);
    ++stats_.polls;
  }
  absl::StatusOr<std::vector<Raw>> raw = ReceiveRaw();
  if (!raw.ok()) return raw.status();
  return ParseAll(std::move(*raw), result);
}

absl::StatusOr<std::vector<ReceivedInterruption>> InterruptionQueue::Receive() {
  InterruptionPollResult result;
  absl::StatusOr<std::vector<ReceivedInterruption>> parsed = Poll(&result);
  if (parsed.ok()) result.handled = static_cast<int>(parsed->size());
  Count(result, !parsed.ok());
  return parsed;
}

absl::StatusOr<InterruptionPollResult> InterruptionQueue::PollOnce(const Handler& handler) {
  InterruptionPollResult result;
  absl::StatusOr<std::vector<ReceivedInterruption>> parsed = Poll(&result);
  absl::Status first_error = parsed.status();
  if (parsed.ok()) {
    const std::string url = queue_url();
    for (const ReceivedInterruption& m : *parsed) {
      if (!handler(m.message).ok()) {
        ++result.handler_errors;  // stays in the queue; visible again after the timeout
        continue;
      }
      ++result.handled;
      absl::Status deleted = DeleteAt(url, m.receipt_handle);
      if (!deleted.ok() && first_error.ok()) first_error = deleted;
    }
  }
  Count(result, !first_error.ok());
  if (!first_error.ok()) return first_error;
  return result;
}

int64_t InterruptionQueue::Run(const Handler& handler, const std::atomic<bool>* stop) {
  int64_t polls = 0;
  absl::Duration backoff = absl::ZeroDuration();
  while (stop == nullptr || !stop->load()) {
    ++polls;
    if (PollOnce(handler).ok()) {
      backoff = absl::ZeroDuration();
      continue;
    }
    backoff = backoff == absl::ZeroDuration() ? options_.backoff_base
                                              : std::min(backoff * 2, options_.backoff_max);
    if (options_.client.sleep) {
      options_.client.sleep(backoff);
    } else {
      absl::SleepFor(backoff);
    }
  }
  return polls;
}

}  // namespace karp::aws
