// File: karp/aws/interruption.h
//
// EventBridge messages of the interruption queue (docs/aws.md §5) parsed into the core's
// generic InterruptionEvent (karp/interruption.h), which ConsolidationOptions::interruptions
// consumes. InterruptionQueue (karp/aws/interruption_queue.h) fetches the messages from SQS and
// runs this parser; a host with its own SQS client calls it directly.
//
//   detail-type (source, version "0")               kind                 core event kind
//   EC2 Spot Instance Interruption Warning (aws.ec2) kSpotInterruption    "spot-interruption",
//                                                                         deadline time + 2 min
//   EC2 Instance Rebalance Recommendation (aws.ec2)  kRebalanceRecommendation  (none: informs)
//   AWS Health Event (aws.health), service EC2 and   kScheduledChange     "scheduled-maintenance",
//     category scheduledChange (others: kNoOp)                            deadline startTime
//   EC2 Instance State-change Notification (aws.ec2) kInstanceStopping    "stopping"
//     stopping/stopped; shutting-down/terminated     kInstanceTerminating "terminating"
//     (other states: kNoOp)
//   EC2 Capacity Reservation Instance Interruption   kCapacityReservationInterruption
//     Warning (aws.ec2)                                                   "capacity-reservation-
//                                                                          interruption"
//   anything else (other source, version, type)      kNoOp
//
// Example:
//   absl::StatusOr<karp::aws::AwsInterruptionMessage> m =
//       karp::aws::ParseEventBridgeMessage(sqs_body);
//   if (!m.ok()) { /* delete the message: it can never parse */ }
//   std::vector<karp::InterruptionEvent> events = karp::aws::ToInterruptionEvents(
//       *m, [&](std::string_view id) { return NodeNameOfInstance(id); });
//   options.interruptions.insert(options.interruptions.end(), events.begin(), events.end());
//
// Thread-safety: functions are thread-safe.

#ifndef KARP_AWS_INTERRUPTION_H_
#define KARP_AWS_INTERRUPTION_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/interruption.h"

namespace karp::aws {

enum class AwsInterruptionKind {
  kNoOp,
  kSpotInterruption,
  kRebalanceRecommendation,
  kScheduledChange,
  kInstanceStopping,
  kInstanceTerminating,
  kCapacityReservationInterruption,
};

// "no-op", "spot-interruption", "rebalance-recommendation", "scheduled-change",
// "instance-stopping", "instance-terminating", "capacity-reservation-interruption".
std::string_view AwsInterruptionKindName(AwsInterruptionKind kind);

struct AwsInterruptionMessage {
  AwsInterruptionKind kind = AwsInterruptionKind::kNoOp;
  std::string id;           // envelope id
  std::string detail_type;  // envelope detail-type
  std::string source;
  std::string region;
  // The envelope time; unset when it is absent or not RFC 3339 (some published samples carry a
  // placeholder).
  std::optional<absl::Time> time;
  // Affected instance ids, in message order (deduplicated).
  std::vector<std::string> instance_ids;
  std::string state;   // state-change events: the new state
  std::string action;  // spot / reservation warnings: instance-action
  // When the instance goes away: spot warnings time + 2 minutes; scheduled changes the event
  // startTime; otherwise unset (immediately).
  std::optional<absl::Time> deadline;
};

// Parses one EventBridge event (the SQS message body).
// Errors: InvalidArgument naming the field when the body is not a JSON object, the envelope
// lacks detail-type/source or has a wrong type, or a recognised event lacks its instance id.
// Unknown event kinds are not errors: they return kind kNoOp.
[[nodiscard]] absl::StatusOr<AwsInterruptionMessage> ParseEventBridgeMessage(std::string_view json);

// The core events of `message`: one per affected instance that `node_for_instance` maps to a
// node name (instances it maps to std::nullopt are skipped), in instance order. kNoOp and
// kRebalanceRecommendation give none. Deadline: message.deadline, else message.time, else
// absl::InfinitePast() (act now).
std::vector<InterruptionEvent> ToInterruptionEvents(
    const AwsInterruptionMessage& message,
    const std::function<std::optional<std::string>(std::string_view instance_id)>&
        node_for_instance);

}  // namespace karp::aws

#endif  // KARP_AWS_INTERRUPTION_H_
