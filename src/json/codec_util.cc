#include "json/codec_util.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "internal/strings.h"

namespace karp::json::codec_internal {
namespace {

__extension__ typedef __int128 int128;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

absl::Status InvalidDuration(std::string_view text, std::string_view why) {
  if (text.size() > 64) text = text.substr(0, 64);
  return absl::InvalidArgumentError(internal::StrCat("invalid duration \"", text, "\": ", why));
}

// Nanoseconds per unit, or 0 for an unknown unit.
int64_t UnitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1000;
  if (unit == "ms") return 1000 * 1000;
  if (unit == "s") return int64_t{1000} * 1000 * 1000;
  if (unit == "m") return int64_t{60} * 1000 * 1000 * 1000;
  if (unit == "h") return int64_t{3600} * 1000 * 1000 * 1000;
  return 0;
}

}  // namespace

absl::StatusOr<absl::Duration> ParseGoDuration(std::string_view text) {
  if (text == "0") return absl::ZeroDuration();
  if (text.empty()) return InvalidDuration(text, "empty");
  constexpr int128 kMax = std::numeric_limits<int64_t>::max();
  int128 total = 0;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    int128 whole = 0;
    const size_t whole_start = i;
    while (i < n && IsDigit(text[i])) {
      whole = whole * 10 + (text[i] - '0');
      if (whole > kMax) return InvalidDuration(text, "out of range");
      ++i;
    }
    bool any_digit = i > whole_start;
    int64_t frac = 0;
    int64_t frac_scale = 1;
    if (i < n && text[i] == '.') {
      ++i;
      while (i < n && IsDigit(text[i])) {
        any_digit = true;
        if (frac_scale < int64_t{1000000000000000000}) {  // 18 digits are plenty
          frac = frac * 10 + (text[i] - '0');
          frac_scale *= 10;
        }
        ++i;
      }
    }
    if (!any_digit) return InvalidDuration(text, "expected a number");
    const size_t unit_start = i;
    while (i < n && !IsDigit(text[i]) && text[i] != '.') ++i;
    if (i == unit_start) return InvalidDuration(text, "missing unit");
    const int64_t unit = UnitNanos(text.substr(unit_start, i - unit_start));
    if (unit == 0) return InvalidDuration(text, "unknown unit");
    total += whole * unit + static_cast<int128>(frac) * unit / frac_scale;
    if (total > kMax) return InvalidDuration(text, "out of range");
  }
  return absl::Nanoseconds(static_cast<int64_t>(total));
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
