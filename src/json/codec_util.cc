#include "json/codec_util.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "internal/duration.h"
#include "internal/strings.h"

namespace karp::json::codec_internal {

absl::StatusOr<absl::Duration> ParseGoDuration(std::string_view text) {
  return karp::ParseGoDuration(text, DurationSign::kRejected);  // the model's one parser
}

std::string FormatGoDuration(absl::Duration d) {
  const int64_t ns = absl::ToInt64Nanoseconds(d);
  if (ns == 0) return "0s";
  std::string out = ns < 0 ? "-" : "";
  uint64_t u = ns < 0 ? uint64_t{0} - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  struct Unit {
    const char* name;
    uint64_t nanos;
  };
  static constexpr Unit kUnits[] = {
      {"h", uint64_t{3600} * 1000 * 1000 * 1000},
      {"m", uint64_t{60} * 1000 * 1000 * 1000},
      {"s", uint64_t{1000} * 1000 * 1000},
      {"ms", 1000 * 1000},
      {"us", 1000},
      {"ns", 1},
  };
  for (const Unit& unit : kUnits) {
    const uint64_t count = u / unit.nanos;
    u %= unit.nanos;
    if (count != 0) internal::StrAppend(&out, count, unit.name);
  }
  return out;
}

std::string FormatGoDurationOrNever(const std::optional<absl::Duration>& d) {
  return d ? FormatGoDuration(*d) : std::string(kNever);
}

std::string FormatTimestamp(absl::Time t) {
  return absl::FormatTime(absl::RFC3339_full, t, absl::UTCTimeZone());
}

}  // namespace karp::json::codec_internal
