// Catch2 helpers for tests of snapshot decoding (karp/json/codec.h): parse text that must
// succeed, or must fail with InvalidArgument and give its message.

#ifndef KARP_TESTS_SUPPORT_SNAPSHOT_CHECKS_H_
#define KARP_TESTS_SUPPORT_SNAPSHOT_CHECKS_H_

#include <catch2/catch.hpp>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/cluster.h"
#include "karp/json/codec.h"

namespace karp::testing {

// The error of parsing `text` as `source`, which must fail with InvalidArgument.
inline std::string ParseError(const std::string& text, const std::string& source = "objects.json") {
  absl::StatusOr<ClusterSnapshot> snap = json::ParseSnapshot(text, source);
  REQUIRE_FALSE(snap.ok());
  CHECK(snap.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(snap.status().message());
}

// The snapshot parsed from `text` as `source`, which must succeed.
inline ClusterSnapshot MustParse(
    const std::string& text, const std::string& source = "objects.json",
    json::FieldValidation validation = json::FieldValidation::kStrict) {
  absl::StatusOr<ClusterSnapshot> snap = json::ParseSnapshot(text, source, validation);
  INFO(snap.status().message());
  REQUIRE(snap.ok());
  return *std::move(snap);
}

}  // namespace karp::testing

#endif  // KARP_TESTS_SUPPORT_SNAPSHOT_CHECKS_H_
