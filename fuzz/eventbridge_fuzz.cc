// libFuzzer target: karp::aws::ParseEventBridgeMessage on arbitrary bytes (an SQS message body),
// then ToInterruptionEvents. It must never crash, hang or throw; errors must be InvalidArgument.
// Invariants of a parsed message: a kind with a name; instance ids non-empty and unique; every
// kind but kNoOp names at least one instance; the deadline rules of the header; one core event
// per mapped instance (none for kNoOp and kRebalanceRecommendation), each with the node the
// mapping gave, a non-empty kind and the message's deadline (else time, else InfinitePast).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/aws/interruption.h"
#include "karp/consolidator.h"

namespace {

[[noreturn]] void Fail(std::string_view what, std::string_view input) {
  std::fprintf(stderr, "eventbridge_fuzz: %.*s\ninput: %.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(input.size()), input.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<karp::aws::AwsInterruptionMessage> m = karp::aws::ParseEventBridgeMessage(text);
  if (!m.ok()) {
    if (m.status().code() != absl::StatusCode::kInvalidArgument) {
      Fail("error is not InvalidArgument: " + m.status().ToString(), text);
    }
    if (m.status().message().empty()) Fail("error without a message", text);
    return 0;
  }
  using Kind = karp::aws::AwsInterruptionKind;
  if (karp::aws::AwsInterruptionKindName(m->kind) == "unknown") Fail("kind has no name", text);
  if (m->detail_type.empty() || m->source.empty()) Fail("parsed without detail-type/source", text);
  std::set<std::string> seen;
  for (const std::string& id : m->instance_ids) {
    if (id.empty()) Fail("empty instance id", text);
    if (!seen.insert(id).second) Fail("duplicate instance id " + id, text);
  }
  if (m->kind != Kind::kNoOp && m->instance_ids.empty()) Fail("event without an instance", text);
  if (m->kind == Kind::kSpotInterruption) {
    if (m->time.has_value() != m->deadline.has_value() ||
        (m->time.has_value() && *m->deadline != *m->time + absl::Minutes(2))) {
      Fail("spot deadline is not time + 2m", text);
    }
  }

  // Every instance maps to a node (its id with a prefix); every third one is unknown.
  size_t index = 0;
  size_t mapped = 0;
  std::vector<std::string> want_nodes;
  auto node_for = [&](std::string_view id) -> std::optional<std::string> {
    if (index++ % 3 == 2) return std::nullopt;
    ++mapped;
    std::string node = "node-" + std::string(id);
    want_nodes.push_back(node);
    return node;
  };
  const std::vector<karp::InterruptionEvent> events = karp::aws::ToInterruptionEvents(*m, node_for);
  const bool informs = m->kind == Kind::kNoOp || m->kind == Kind::kRebalanceRecommendation;
  if (informs) {
    if (!events.empty()) Fail("no-op or rebalance message gave events", text);
    return 0;
  }
  if (events.size() != mapped || events.size() != want_nodes.size()) {
    Fail("one event per mapped instance expected", text);
  }
  const absl::Time want_deadline = m->deadline.has_value() ? *m->deadline
                                   : m->time.has_value()   ? *m->time
                                                           : absl::InfinitePast();
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].node != want_nodes[i]) Fail("event node is not the mapped node", text);
    if (events[i].kind.empty()) Fail("event without a kind", text);
    if (events[i].deadline != want_deadline) Fail("event deadline differs", text);
  }
  // No mapping at all: no events.
  if (!karp::aws::ToInterruptionEvents(*m, nullptr).empty()) Fail("events without a mapping", text);
  return 0;
}
