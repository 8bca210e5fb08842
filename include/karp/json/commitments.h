// File: karp/json/commitments.h
//
// Reading and writing commitments (karp/pricing.h: Reserved Instances, Savings Plans,
// capacity reservations) as JSON or YAML, in the format of docs/formats.md §6 and
// docs/commitments.md. Part of karp::json.
//
// Example:
//   absl::StatusOr<karp::Commitments> c =
//       karp::json::ReadCommitmentsFile("examples/commitments.yaml");
//   if (!c.ok()) { std::cerr << c.status().message() << "\n"; return 1; }
//   auto pricing = karp::MakeCommitmentPricing(*c, absl::Now());
//
// Thread-safety: thread-safe (no shared state).

#ifndef KARP_JSON_COMMITMENTS_H_
#define KARP_JSON_COMMITMENTS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "karp/pricing.h"

namespace karp::json {

// Parses one commitments document (`kind: Commitments`). Unknown fields are errors, and the
// result passes Commitments::Validate. Errors: InvalidArgument `<source>: <path>: <what>`,
// e.g. `c.yaml: savingsPlans[0].discounts.m5: must be in [0, 1)`.
[[nodiscard]] absl::StatusOr<Commitments> ParseCommitments(std::string_view text,
                                                           std::string_view source);

// Reads a commitments file. Errors: NotFound when unreadable, ResourceExhausted when larger
// than `max_input_bytes`, InvalidArgument as above.
[[nodiscard]] absl::StatusOr<Commitments> ReadCommitmentsFile(const std::string& path,
                                                              int64_t max_input_bytes = 1 << 30);

// The document ParseCommitments reads back to the same value (deterministic; ids in input
// order; times RFC 3339 UTC).
std::string WriteCommitments(const Commitments& commitments);

}  // namespace karp::json

#endif  // KARP_JSON_COMMITMENTS_H_
