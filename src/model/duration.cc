// Go durations: the parser declared in internal/duration.h.

#include "internal/duration.h"

#include <cstdint>
#include <limits>
#include <string_view>

#include "absl/status/status.h"
#include "internal/strings.h"

namespace karp {
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

// The unsigned magnitude of `digits` (everything after the sign) in nanoseconds, at most
// `max`; errors name the whole `text`.
absl::StatusOr<int128> Magnitude(std::string_view text, std::string_view digits, int128 max) {
  if (digits == "0") return 0;
  if (digits.empty()) return InvalidDuration(text, "empty");
  int128 total = 0;
  size_t i = 0;
  const size_t n = digits.size();
  while (i < n) {
    int128 whole = 0;
    const size_t whole_start = i;
    while (i < n && IsDigit(digits[i])) {
      whole = whole * 10 + (digits[i] - '0');
      if (whole > max) return InvalidDuration(text, "out of range");
      ++i;
    }
    bool any_digit = i > whole_start;
    int64_t frac = 0;
    int64_t frac_scale = 1;
    if (i < n && digits[i] == '.') {
      ++i;
      while (i < n && IsDigit(digits[i])) {
        any_digit = true;
        if (frac_scale < int64_t{1000000000000000000}) {  // 18 digits are plenty
          frac = frac * 10 + (digits[i] - '0');
          frac_scale *= 10;
        }
        ++i;
      }
    }
    if (!any_digit) return InvalidDuration(text, "expected a number");
    const size_t unit_start = i;
    while (i < n && !IsDigit(digits[i]) && digits[i] != '.') ++i;
    if (i == unit_start) return InvalidDuration(text, "missing unit");
    const int64_t unit = UnitNanos(digits.substr(unit_start, i - unit_start));
    if (unit == 0) return InvalidDuration(text, "unknown unit");
    total += whole * unit + static_cast<int128>(frac) * unit / frac_scale;
    if (total > max) return InvalidDuration(text, "out of range");
  }
  return total;
}

}  // namespace

absl::StatusOr<absl::Duration> ParseGoDuration(std::string_view text, DurationSign sign) {
  std::string_view digits = text;
  bool negative = false;
  if (sign == DurationSign::kAllowed && !digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  // Go's range: int64 nanoseconds, one more on the negative side.
  const int128 max = int128{std::numeric_limits<int64_t>::max()} + (negative ? 1 : 0);
  absl::StatusOr<int128> total = Magnitude(text, digits, max);
  if (!total.ok()) return total.status();
  return absl::Nanoseconds(static_cast<int64_t>(negative ? -*total : *total));
}

}  // namespace karp
