#include "karp/aws/interruption.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {
namespace {

using internal::StrCat;
using nlohmann::json;

std::optional<absl::Time> ParseRfc3339(const std::string& s) {
  absl::Time t;
  std::string err;
  if (absl::ParseTime(absl::RFC3339_full, s, &t, &err)) return t;
  // AWS Health also writes "Fri, 10 Mar 2023 12:03:38 GMT" (RFC 1123).
  if (absl::ParseTime("%a, %d %b %Y %H:%M:%S GMT", s, absl::UTCTimeZone(), &t, &err)) return t;
  return std::nullopt;
}

// detail[key] as a string, or "" when absent. Errors when present with another type.
absl::StatusOr<std::string> StringField(const json& obj, const char* key, std::string_view where) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return absl::InvalidArgumentError(
        StrCat("eventbridge message: ", where, key, " is not a string"));
  }
  return it->get<std::string>();
}

void AddUnique(std::vector<std::string>* ids, std::string id) {
  if (id.empty()) return;
  if (std::find(ids->begin(), ids->end(), id) == ids->end()) ids->push_back(std::move(id));
}

// A message's envelope: the message with its top-level fields set, and its version.
struct Envelope {
  AwsInterruptionMessage message;
  std::string version;
};

// Errors: InvalidArgument for a field that is not a string, or a missing detail-type or
// source.
absl::StatusOr<Envelope> ParseEnvelope(const json& j) {
  Envelope out;
  AwsInterruptionMessage& m = out.message;
  std::string time;
  KARP_ASSIGN_OR_RETURN(out.version, StringField(j, "version", ""));
  for (auto [key, field] : {std::pair<const char*, std::string*>{"id", &m.id},
                            {"detail-type", &m.detail_type},
                            {"source", &m.source},
                            {"region", &m.region},
                            {"time", &time}}) {
    KARP_ASSIGN_OR_RETURN(*field, StringField(j, key, ""));
  }
  if (m.detail_type.empty()) {
    return absl::InvalidArgumentError("eventbridge message: detail-type is missing");
  }
  if (m.source.empty()) return absl::InvalidArgumentError("eventbridge message: source is missing");
  m.time = ParseRfc3339(time);
  return out;
}

// Whether `m` comes from a source and detail type that always carry a detail object.
bool NeedsDetail(const AwsInterruptionMessage& m) {
  if (m.source != "aws.ec2" && m.source != "aws.health") return false;
  return m.detail_type == "EC2 Spot Instance Interruption Warning" ||
         m.detail_type == "EC2 Instance Rebalance Recommendation" ||
         m.detail_type == "EC2 Instance State-change Notification" ||
         m.detail_type == "EC2 Capacity Reservation Instance Interruption Warning" ||
         m.detail_type == "AWS Health Event";
}

// detail.instance-id. Errors: InvalidArgument when missing or not a string.
absl::StatusOr<std::string> DetailInstanceId(const json& detail, const AwsInterruptionMessage& m) {
  KARP_ASSIGN_OR_RETURN(std::string id, StringField(detail, "instance-id", "detail."));
  if (id.empty()) {
    return absl::InvalidArgumentError(StrCat("eventbridge message ", m.id, " (", m.detail_type,
                                             "): detail.instance-id is missing"));
  }
  return id;
}

// A warning about one instance with an instance-action (spot and capacity-reservation
// interruptions): sets the kind, the instance and the action.
absl::Status ParseInstanceAction(const json& detail, AwsInterruptionKind kind,
                                 AwsInterruptionMessage* m) {
  KARP_ASSIGN_OR_RETURN(std::string id, DetailInstanceId(detail, *m));
  KARP_ASSIGN_OR_RETURN(std::string action, StringField(detail, "instance-action", "detail."));
  m->kind = kind;
  m->instance_ids = {std::move(id)};
  m->action = std::move(action);
  return absl::OkStatus();
}

// EC2 Instance State-change Notification: stopping/stopped and shutting-down/terminated are
// interruptions; other states are no-ops.
absl::Status ParseStateChange(const json& detail, AwsInterruptionMessage* m) {
  KARP_ASSIGN_OR_RETURN(std::string id, DetailInstanceId(detail, *m));
  KARP_ASSIGN_OR_RETURN(std::string state, StringField(detail, "state", "detail."));
  m->instance_ids = {std::move(id)};
  m->state = std::move(state);
  if (m->state == "stopping" || m->state == "stopped") {
    m->kind = AwsInterruptionKind::kInstanceStopping;
  } else if (m->state == "shutting-down" || m->state == "terminated") {
    m->kind = AwsInterruptionKind::kInstanceTerminating;
  }
  return absl::OkStatus();
}

// The instance ids ("i-...") among detail.affectedEntities[].entityValue, each once, added to
// `ids`. Errors: InvalidArgument for entities that are not an array of objects.
absl::Status AddAffectedInstances(const json& detail, const std::string& message_id,
                                  std::vector<std::string>* ids) {
  auto entities = detail.find("affectedEntities");
  if (entities == detail.end()) return absl::OkStatus();
  if (!entities->is_array()) {
    return absl::InvalidArgumentError(StrCat("eventbridge message ", message_id,
                                             " (AWS Health Event): detail.affectedEntities is "
                                             "not an array"));
  }
  for (size_t i = 0; i < entities->size(); ++i) {
    const json& e = (*entities)[i];
    if (!e.is_object()) {
      return absl::InvalidArgumentError(StrCat("eventbridge message ", message_id,
                                               " (AWS Health Event): detail.affectedEntities[", i,
                                               "] is not an object"));
    }
    KARP_ASSIGN_OR_RETURN(
        std::string v, StringField(e, "entityValue", StrCat("detail.affectedEntities[", i, "].")));
    if (v.rfind("i-", 0) == 0) AddUnique(ids, std::move(v));
  }
  return absl::OkStatus();
}

// AWS Health Event: an EC2 scheduled change is a scheduled-change interruption of the
// affected instances (a no-op when none); other events are no-ops.
absl::Status ParseHealthEvent(const json& detail, AwsInterruptionMessage* m) {
  KARP_ASSIGN_OR_RETURN(std::string service, StringField(detail, "service", "detail."));
  KARP_ASSIGN_OR_RETURN(std::string category, StringField(detail, "eventTypeCategory", "detail."));
  if (service != "EC2" || category != "scheduledChange") return absl::OkStatus();
  KARP_RETURN_IF_ERROR(AddAffectedInstances(detail, m->id, &m->instance_ids));
  KARP_ASSIGN_OR_RETURN(std::string start, StringField(detail, "startTime", "detail."));
  m->deadline = ParseRfc3339(start);
  m->kind =
      m->instance_ids.empty() ? AwsInterruptionKind::kNoOp : AwsInterruptionKind::kScheduledChange;
  return absl::OkStatus();
}

// The detail of `m` by (source, detail-type), as the reference picks its parser; others are
// no-ops.
absl::Status ParseDetail(const json& detail, AwsInterruptionMessage* m) {
  if (m->source == "aws.ec2" && m->detail_type == "EC2 Spot Instance Interruption Warning") {
    KARP_RETURN_IF_ERROR(ParseInstanceAction(detail, AwsInterruptionKind::kSpotInterruption, m));
    if (m->time.has_value()) m->deadline = *m->time + absl::Minutes(2);
  } else if (m->source == "aws.ec2" && m->detail_type == "EC2 Instance Rebalance Recommendation") {
    KARP_ASSIGN_OR_RETURN(std::string id, DetailInstanceId(detail, *m));
    m->kind = AwsInterruptionKind::kRebalanceRecommendation;
    m->instance_ids = {std::move(id)};
  } else if (m->source == "aws.ec2" &&
             m->detail_type == "EC2 Capacity Reservation Instance Interruption Warning") {
    return ParseInstanceAction(detail, AwsInterruptionKind::kCapacityReservationInterruption, m);
  } else if (m->source == "aws.ec2" && m->detail_type == "EC2 Instance State-change Notification") {
    return ParseStateChange(detail, m);
  } else if (m->source == "aws.health" && m->detail_type == "AWS Health Event") {
    return ParseHealthEvent(detail, m);
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view AwsInterruptionKindName(AwsInterruptionKind kind) {
  switch (kind) {
    case AwsInterruptionKind::kNoOp:
      return "no-op";
    case AwsInterruptionKind::kSpotInterruption:
      return "spot-interruption";
    case AwsInterruptionKind::kRebalanceRecommendation:
      return "rebalance-recommendation";
    case AwsInterruptionKind::kScheduledChange:
      return "scheduled-change";
    case AwsInterruptionKind::kInstanceStopping:
      return "instance-stopping";
    case AwsInterruptionKind::kInstanceTerminating:
      return "instance-terminating";
    case AwsInterruptionKind::kCapacityReservationInterruption:
      return "capacity-reservation-interruption";
  }
  return "unknown";
}

absl::StatusOr<AwsInterruptionMessage> ParseEventBridgeMessage(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::InvalidArgumentError("eventbridge message: not valid JSON");
  }
  if (!j.is_object()) {
    return absl::InvalidArgumentError("eventbridge message: not a JSON object");
  }
  KARP_ASSIGN_OR_RETURN(Envelope envelope, ParseEnvelope(j));
  AwsInterruptionMessage& m = envelope.message;
  // The reference picks a parser by (version, source, detail-type); others are no-ops.
  if (envelope.version != "0") return m;
  auto detail = j.find("detail");
  if (detail == j.end() || !detail->is_object()) {
    if (NeedsDetail(m)) {
      return absl::InvalidArgumentError(
          StrCat("eventbridge message ", m.id, " (", m.detail_type, "): detail is missing"));
    }
    return m;
  }
  KARP_RETURN_IF_ERROR(ParseDetail(*detail, &m));
  return m;
}

std::vector<InterruptionEvent> ToInterruptionEvents(
    const AwsInterruptionMessage& message,
    const std::function<std::optional<std::string>(std::string_view instance_id)>&
        node_for_instance) {
  std::string kind;
  switch (message.kind) {
    case AwsInterruptionKind::kNoOp:
    case AwsInterruptionKind::kRebalanceRecommendation:
      return {};
    case AwsInterruptionKind::kSpotInterruption:
      kind = "spot-interruption";
      break;
    case AwsInterruptionKind::kScheduledChange:
      kind = "scheduled-maintenance";
      break;
    case AwsInterruptionKind::kInstanceStopping:
      kind = "stopping";
      break;
    case AwsInterruptionKind::kInstanceTerminating:
      kind = "terminating";
      break;
    case AwsInterruptionKind::kCapacityReservationInterruption:
      kind = "capacity-reservation-interruption";
      break;
  }
  const absl::Time deadline = message.deadline.has_value() ? *message.deadline
                              : message.time.has_value()   ? *message.time
                                                           : absl::InfinitePast();
  std::vector<InterruptionEvent> out;
  for (const std::string& id : message.instance_ids) {
    std::optional<std::string> node = node_for_instance ? node_for_instance(id) : std::nullopt;
    if (!node.has_value() || node->empty()) continue;
    InterruptionEvent e;
    e.node = *node;
    e.kind = kind;
    e.deadline = deadline;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace karp::aws
