#include "karp/aws/interruption.h"

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

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

}  // namespace

std::string_view AwsInterruptionKindName(AwsInterruptionKind kind) {
  switch (kind) {
    case AwsInterruptionKind::kNoOp: return "no-op";
    case AwsInterruptionKind::kSpotInterruption: return "spot-interruption";
    case AwsInterruptionKind::kRebalanceRecommendation: return "rebalance-recommendation";
    case AwsInterruptionKind::kScheduledChange: return "scheduled-change";
    case AwsInterruptionKind::kInstanceStopping: return "instance-stopping";
    case AwsInterruptionKind::kInstanceTerminating: return "instance-terminating";
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
  AwsInterruptionMessage m;
  std::string version, time;
  {
    absl::StatusOr<std::string> v = StringField(j, "version", "");
    if (!v.ok()) return v.status();
    version = *v;
    for (auto [key, out] : {std::pair<const char*, std::string*>{"id", &m.id},
                            {"detail-type", &m.detail_type},
                            {"source", &m.source},
                            {"region", &m.region},
                            {"time", &time}}) {
      absl::StatusOr<std::string> s = StringField(j, key, "");
      if (!s.ok()) return s.status();
      *out = *s;
    }
  }
  if (m.detail_type.empty()) {
    return absl::InvalidArgumentError("eventbridge message: detail-type is missing");
  }
  if (m.source.empty()) return absl::InvalidArgumentError("eventbridge message: source is missing");
  m.time = ParseRfc3339(time);
  // The reference picks a parser by (version, source, detail-type); others are no-ops.
  if (version != "0") return m;
  auto detail_it = j.find("detail");
  if (detail_it == j.end() || !detail_it->is_object()) {
    if (m.source == "aws.ec2" || m.source == "aws.health") {
      // Recognised sources always carry a detail object.
      const bool known = m.detail_type == "EC2 Spot Instance Interruption Warning" ||
                         m.detail_type == "EC2 Instance Rebalance Recommendation" ||
                         m.detail_type == "EC2 Instance State-change Notification" ||
                         m.detail_type == "EC2 Capacity Reservation Instance Interruption Warning" ||
                         m.detail_type == "AWS Health Event";
      if (known) {
        return absl::InvalidArgumentError(StrCat("eventbridge message ", m.id, " (",
                                                 m.detail_type, "): detail is missing"));
      }
    }
    return m;
  }
  const json& detail = *detail_it;
  auto instance_id = [&]() -> absl::StatusOr<std::string> {
    absl::StatusOr<std::string> id = StringField(detail, "instance-id", "detail.");
    if (!id.ok()) return id.status();
    if (id->empty()) {
      return absl::InvalidArgumentError(StrCat("eventbridge message ", m.id, " (", m.detail_type,
                                               "): detail.instance-id is missing"));
    }
    return id;
  };

  if (m.source == "aws.ec2" && m.detail_type == "EC2 Spot Instance Interruption Warning") {
    absl::StatusOr<std::string> id = instance_id();
    if (!id.ok()) return id.status();
    absl::StatusOr<std::string> action = StringField(detail, "instance-action", "detail.");
    if (!action.ok()) return action.status();
    m.kind = AwsInterruptionKind::kSpotInterruption;
    m.instance_ids = {*id};
    m.action = *action;
    if (m.time.has_value()) m.deadline = *m.time + absl::Minutes(2);
  } else if (m.source == "aws.ec2" && m.detail_type == "EC2 Instance Rebalance Recommendation") {
    absl::StatusOr<std::string> id = instance_id();
    if (!id.ok()) return id.status();
    m.kind = AwsInterruptionKind::kRebalanceRecommendation;
    m.instance_ids = {*id};
  } else if (m.source == "aws.ec2" &&
             m.detail_type == "EC2 Capacity Reservation Instance Interruption Warning") {
    absl::StatusOr<std::string> id = instance_id();
    if (!id.ok()) return id.status();
    absl::StatusOr<std::string> action = StringField(detail, "instance-action", "detail.");
    if (!action.ok()) return action.status();
    m.kind = AwsInterruptionKind::kCapacityReservationInterruption;
    m.instance_ids = {*id};
    m.action = *action;
  } else if (m.source == "aws.ec2" && m.detail_type == "EC2 Instance State-change Notification") {
    absl::StatusOr<std::string> id = instance_id();
    if (!id.ok()) return id.status();
    absl::StatusOr<std::string> state = StringField(detail, "state", "detail.");
    if (!state.ok()) return state.status();
    m.instance_ids = {*id};
    m.state = *state;
    if (m.state == "stopping" || m.state == "stopped") {
      m.kind = AwsInterruptionKind::kInstanceStopping;
    } else if (m.state == "shutting-down" || m.state == "terminated") {
      m.kind = AwsInterruptionKind::kInstanceTerminating;
    }
  } else if (m.source == "aws.health" && m.detail_type == "AWS Health Event") {
    absl::StatusOr<std::string> service = StringField(detail, "service", "detail.");
    if (!service.ok()) return service.status();
    absl::StatusOr<std::string> category = StringField(detail, "eventTypeCategory", "detail.");
    if (!category.ok()) return category.status();
    if (*service != "EC2" || *category != "scheduledChange") return m;
    auto entities = detail.find("affectedEntities");
    if (entities != detail.end() && !entities->is_array()) {
      return absl::InvalidArgumentError(StrCat("eventbridge message ", m.id,
                                               " (AWS Health Event): detail.affectedEntities is "
                                               "not an array"));
    }
    if (entities != detail.end()) {
      for (size_t i = 0; i < entities->size(); ++i) {
        const json& e = (*entities)[i];
        if (!e.is_object()) {
          return absl::InvalidArgumentError(
              StrCat("eventbridge message ", m.id, " (AWS Health Event): detail.affectedEntities[",
                     i, "] is not an object"));
        }
        absl::StatusOr<std::string> v =
            StringField(e, "entityValue", StrCat("detail.affectedEntities[", i, "]."));
        if (!v.ok()) return v.status();
        if (v->rfind("i-", 0) == 0) AddUnique(&m.instance_ids, *v);
      }
    }
    absl::StatusOr<std::string> start = StringField(detail, "startTime", "detail.");
    if (!start.ok()) return start.status();
    m.deadline = ParseRfc3339(*start);
    m.kind = m.instance_ids.empty() ? AwsInterruptionKind::kNoOp
                                    : AwsInterruptionKind::kScheduledChange;
  }
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
    case AwsInterruptionKind::kSpotInterruption: kind = "spot-interruption"; break;
    case AwsInterruptionKind::kScheduledChange: kind = "scheduled-maintenance"; break;
    case AwsInterruptionKind::kInstanceStopping: kind = "stopping"; break;
    case AwsInterruptionKind::kInstanceTerminating: kind = "terminating"; break;
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
