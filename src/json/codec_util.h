// Internal to karp::json: the scalar formats of the wire format that are not JSON types —
// Go durations ("720h", "1h30m", "10s") and RFC 3339 timestamps. Kept free of nlohmann so the
// fuzz targets and tests can use them cheaply.

#ifndef KARP_SRC_JSON_CODEC_UTIL_H_
#define KARP_SRC_JSON_CODEC_UTIL_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace karp::json::codec_internal {

// The duration value that disables expireAfter / consolidateAfter.
inline constexpr std::string_view kNever = "Never";

// Parses a non-negative Go duration: "0" or a sequence of <decimal><unit> with units ns, us
// (µs), ms, s, m, h, e.g. "720h", "1h30m", "1.5s", "300ms". Exact to the nanosecond (finer
// fractions are truncated, as Go does); at most ~292 years.
// Errors: InvalidArgument `invalid duration "<text>": <why>`.
[[nodiscard]] absl::StatusOr<absl::Duration> ParseGoDuration(std::string_view text);

// Formats a duration so that ParseGoDuration reads it back exactly: "0s", "720h", "1h30m",
// "1m0.5s" is written "1m500ms" (components h, m, s, ms, us, ns, zero ones omitted).
std::string FormatGoDuration(absl::Duration d);
// FormatGoDuration(*d), or kNever when `d` is unset (expireAfter, consolidateAfter).
std::string FormatGoDurationOrNever(const std::optional<absl::Duration>& d);

// RFC 3339 in UTC with as many fractional digits as needed ("2026-01-01T00:00:01Z").
std::string FormatTimestamp(absl::Time t);

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_CODEC_UTIL_H_
