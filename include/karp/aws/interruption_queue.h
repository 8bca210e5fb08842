// File: karp/aws/interruption_queue.h
//
// The SQS consumer of the interruption queue (docs/aws.md §5), as the reference runs it: the
// EventBridge rules of the cluster send spot interruption warnings, rebalance
// recommendations, scheduled-change health events and instance state changes to one queue;
// InterruptionQueue long-polls it and hands every parsed message to the host.
//
//   ReceiveMessage   MaxNumberOfMessages 10, WaitTimeSeconds 20 (long poll),
//                    VisibilityTimeout 20, MessageSystemAttributeNames [SentTimestamp]
//   each message     ParseEventBridgeMessage (karp/aws/interruption.h) of its Body;
//                    parsed: the host's handler (callback) or the pull result; after it,
//                    DeleteMessage -- a handler error leaves the message in the queue, so it
//                    comes back after the visibility timeout;
//                    unparseable: DeleteMessage at once (it can never parse) and counted
//   errors           Run() backs off (1 s doubling to 5 min, reset by a good poll) and goes on
//
// Wire protocol: the SQS JSON protocol (the current SDKs'): POST / to the SQS endpoint with
// `X-Amz-Target: AmazonSQS.<Operation>`, `Content-Type: application/x-amz-json-1.0`, signed
// for service "sqs" in the client region. `queue` is a queue URL (https://...) or a queue
// name, resolved once through GetQueueUrl.
//
// Example (callback):
//   karp::aws::InterruptionQueueOptions o;
//   o.client.region = "us-west-2";
//   o.client.credentials = *karp::aws::ResolveCredentials();
//   o.queue = "Karpenter-prod";
//   auto queue = karp::aws::InterruptionQueue::Create(o);
//   std::atomic<bool> stop{false};
//   (*queue)->Run([&](const karp::aws::AwsInterruptionMessage& m) {
//     pending.Add(karp::aws::ToInterruptionEvents(m, node_of_instance));  // next plan's input
//     return absl::OkStatus();
//   }, &stop);
// Example (pull): auto batch = (*queue)->Receive(); handle; (*queue)->Delete(receipt_handle).
//
// Errors of every call: those of AwsClientOptions::Validate at Create; Unavailable after
// retries of throttling and server errors; NotFound for a missing queue (QueueDoesNotExist);
// PermissionDenied; Internal for a malformed response (naming the JSON path). A message body
// never makes a call fail. Messages never contain credentials.
//
// Thread-safety: thread-safe; Run() blocks the calling thread until *stop is set (checked
// between polls, so it returns within one long poll).

#ifndef KARP_AWS_INTERRUPTION_QUEUE_H_
#define KARP_AWS_INTERRUPTION_QUEUE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "karp/aws/client_options.h"
#include "karp/aws/interruption.h"

namespace karp::aws {

class Ec2Client;  // internal (src/aws/ec2_client.h)

struct InterruptionQueueOptions {
  // Region, credentials, sqs_endpoint (empty: https://sqs.<region>.amazonaws.com), retries.
  // client.request_timeout must exceed wait_time (the long poll holds the request open).
  AwsClientOptions client;
  // Queue URL (http:// or https://) or queue name. Required.
  std::string queue;
  // Messages per ReceiveMessage, in [1, 10]. Default: 10.
  int max_messages = 10;
  // Long-poll wait, in [0s, 20s]. Default: 20s.
  absl::Duration wait_time = absl::Seconds(20);
  // How long a received message stays invisible to other consumers. Default: 20s.
  absl::Duration visibility_timeout = absl::Seconds(20);
  // Run()'s backoff after a failed poll: backoff_base, doubled per consecutive failure, at most
  // backoff_max. Defaults: 1s and 5min.
  absl::Duration backoff_base = absl::Seconds(1);
  absl::Duration backoff_max = absl::Minutes(5);

  // OK, or InvalidArgument naming the first bad field.
  [[nodiscard]] absl::Status Validate() const;
};

// One received message (pull mode).
struct ReceivedInterruption {
  std::string message_id;
  std::string receipt_handle;  // for Delete
  AwsInterruptionMessage message;
};

// What one poll did.
struct InterruptionPollResult {
  int received = 0;
  int handled = 0;         // handler OK (callback) or returned to the caller (pull)
  int unparseable = 0;     // deleted without handling
  int handler_errors = 0;  // left in the queue
};

// Totals since Create.
struct InterruptionQueueStats {
  int64_t polls = 0;
  int64_t poll_errors = 0;  // failed ReceiveMessage / DeleteMessage calls
  int64_t received = 0;
  int64_t handled = 0;
  int64_t deleted = 0;
  int64_t unparseable = 0;
  int64_t handler_errors = 0;
};

class InterruptionQueue {
 public:
  using Handler = std::function<absl::Status(const AwsInterruptionMessage&)>;

  // Errors: InvalidArgument from options.Validate().
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<InterruptionQueue>> Create(
      InterruptionQueueOptions options);
  ~InterruptionQueue();
  InterruptionQueue(const InterruptionQueue&) = delete;
  InterruptionQueue& operator=(const InterruptionQueue&) = delete;

  // One long poll; `handler` sees each parsed message in queue order, then the message is
  // deleted when it returned OK. Errors: the ReceiveMessage / GetQueueUrl call's, or the first
  // failed DeleteMessage (after every message was handled).
  [[nodiscard]] absl::StatusOr<InterruptionPollResult> PollOnce(const Handler& handler);

  // Pull mode: one long poll; unparseable messages are deleted and counted, the others
  // returned for the caller, who deletes each after handling it.
  [[nodiscard]] absl::StatusOr<std::vector<ReceivedInterruption>> Receive();
  [[nodiscard]] absl::Status Delete(const std::string& receipt_handle);

  // PollOnce until *stop (null: forever); failed polls wait the backoff (through client.sleep
  // when set). Returns the number of polls made.
  int64_t Run(const Handler& handler, const std::atomic<bool>* stop);

  // The resolved queue URL ("" before the first call when `queue` is a name).
  std::string queue_url() const;
  InterruptionQueueStats stats() const;

 private:
  struct Raw {
    std::string message_id;
    std::string receipt_handle;
    std::string body;
  };
  InterruptionQueue(InterruptionQueueOptions options, std::unique_ptr<Ec2Client> client);
  absl::StatusOr<std::string> QueueUrl();
  absl::StatusOr<std::vector<Raw>> ReceiveRaw();
  // Parses `raw`; unparseable ones are deleted and counted. Errors: a failed delete.
  absl::StatusOr<std::vector<ReceivedInterruption>> ParseAll(std::vector<Raw> raw,
                                                             InterruptionPollResult* result);
  absl::Status DeleteAt(const std::string& url, const std::string& receipt_handle);
  // One ReceiveMessage, parsed (counts the poll).
  absl::StatusOr<std::vector<ReceivedInterruption>> Poll(InterruptionPollResult* result);
  void Count(const InterruptionPollResult& r, bool failed);

  InterruptionQueueOptions options_;
  std::unique_ptr<Ec2Client> client_;
  mutable absl::Mutex mu_;
  std::string queue_url_ ABSL_GUARDED_BY(mu_);
  InterruptionQueueStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace karp::aws

#endif  // KARP_AWS_INTERRUPTION_QUEUE_H_
