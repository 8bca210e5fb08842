// Kubernetes quantity parsing and canonical printing (see karp/resources.h).

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "internal/strings.h"
#include "karp/resources.h"

namespace karp {
namespace {

using internal::AV;
__extension__ typedef __int128 int128;
constexpr int128 kInt64Max = std::numeric_limits<int64_t>::max();

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

absl::Status Invalid(std::string_view text, std::string_view why = "") {
  std::string msg = internal::StrCat("invalid quantity \"", text, "\"");
  if (!why.empty()) internal::StrAppend(&msg, ": ", why);
  return absl::InvalidArgumentError(msg);
}

// 10^n as int128 for n in [0, 38].
int128 Pow10(int n) {
  int128 r = 1;
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

}  // namespace

ResourceUnit UnitOf(std::string_view resource) {
  if (resource == kResourceCpu) return ResourceUnit::kMilli;
  if (resource == kResourceMemory || resource == kResourceEphemeralStorage ||
      resource == kResourceStorage || resource.substr(0, 10) == "hugepages-") {
    return ResourceUnit::kBytes;
  }
  return ResourceUnit::kCount;
}

absl::StatusOr<int64_t> ParseQuantity(std::string_view text, std::string_view resource,
                                      bool allow_negative) {
  size_t i = 0;
  const size_t n = text.size();
  if (n == 0) return Invalid(text, "empty");
  if (n > 128) return Invalid(text.substr(0, 32), "too long");
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') {
    negative = text[i] == '-';
    ++i;
  }
  // Mantissa digits: integer part and fraction, leading zeros dropped, trailing zeros of the
  // whole digit string folded into the exponent.
  std::string digits;
  int frac_digits = 0;
  bool any_digit = false;
  while (i < n && IsDigit(text[i])) {
    any_digit = true;
    if (!(digits.empty() && text[i] == '0')) digits.push_back(text[i]);
    ++i;
  }
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && IsDigit(text[i])) {
      any_digit = true;
      if (!(digits.empty() && text[i] == '0')) digits.push_back(text[i]);
      ++frac_digits;
      ++i;
    }
  }
  if (!any_digit) return Invalid(text, "expected a number");

  // Suffix.
  std::string_view suffix = text.substr(i);
  int exp10 = 0;
  int exp2 = 0;
  if (suffix.empty()) {
  } else if (suffix == "E") {
    exp10 = 18;
  } else if (suffix.size() == 2 && suffix[1] == 'i') {
    switch (suffix[0]) {
      case 'K': exp2 = 10; break;
      case 'M': exp2 = 20; break;
      case 'G': exp2 = 30; break;
      case 'T': exp2 = 40; break;
      case 'P': exp2 = 50; break;
      case 'E': exp2 = 60; break;
      default: return Invalid(text, "unknown suffix");
    }
  } else if (suffix.size() == 1 && suffix[0] != 'e') {
    switch (suffix[0]) {
      case 'n': exp10 = -9; break;
      case 'u': exp10 = -6; break;
      case 'm': exp10 = -3; break;
      case 'k': exp10 = 3; break;
      case 'M': exp10 = 6; break;
      case 'G': exp10 = 9; break;
      case 'T': exp10 = 12; break;
      case 'P': exp10 = 15; break;
      default: return Invalid(text, "unknown suffix");
    }
  } else if (suffix[0] == 'e' || suffix[0] == 'E') {
    size_t j = 1;
    bool exp_negative = false;
    if (j < suffix.size() && (suffix[j] == '+' || suffix[j] == '-')) {
      exp_negative = suffix[j] == '-';
      ++j;
    }
    if (j >= suffix.size()) return Invalid(text, "bad exponent");
    int e = 0;
    for (; j < suffix.size(); ++j) {
      if (!IsDigit(suffix[j])) return Invalid(text, "bad exponent");
      if (e > 1000) return Invalid(text, "exponent out of range");
      e = e * 10 + (suffix[j] - '0');
    }
    exp10 = exp_negative ? -e : e;
  } else {
    return Invalid(text, "unknown suffix");
  }

  // Strip trailing zeros into the exponent.
  while (!digits.empty() && digits.back() == '0') {
    digits.pop_back();
    if (frac_digits > 0) {
      --frac_digits;
    } else {
      ++exp10;
    }
  }
  if (digits.empty()) return int64_t{0};
  if (negative && !allow_negative) return Invalid(text, "must not be negative");
  if (digits.size() > 36) return Invalid(text, "too many significant digits");

  int128 mantissa = 0;
  for (char c : digits) mantissa = mantissa * 10 + (c - '0');
  const int unit_exp = UnitOf(resource) == ResourceUnit::kMilli ? 3 : 0;
  int total10 = exp10 - frac_digits + unit_exp;

  // value = mantissa * 10^total10 * 2^exp2, rounded up to an integer.
  int128 value;
  if (total10 >= 0) {
    if (total10 > 19) return Invalid(text, "out of range");
    value = mantissa;
    for (int k = 0; k < total10; ++k) {
      value *= 10;
      if (value > kInt64Max) return Invalid(text, "out of range");
    }
    for (int k = 0; k < exp2; ++k) {
      value *= 2;
      if (value > kInt64Max) return Invalid(text, "out of range");
    }
    if (value > kInt64Max) return Invalid(text, "out of range");
  } else {
    int128 scaled = mantissa;
    for (int k = 0; k < exp2; ++k) {
      scaled *= 2;
      if (scaled > (kInt64Max * 1000000000LL)) return Invalid(text, "out of range");
    }
    int down = -total10;
    if (down > 38) {
      value = 1;  // a positive value far below one unit rounds up to one unit
    } else {
      int128 div = Pow10(down);
      value = scaled / div + (scaled % div != 0 ? 1 : 0);
    }
    if (value > kInt64Max) return Invalid(text, "out of range");
  }
  // The magnitude is rounded up; a negative value keeps its sign.
  int64_t v = static_cast<int64_t>(value);
  return negative ? -v : v;
}

std::string FormatQuantity(int64_t value, std::string_view resource) {
  switch (UnitOf(resource)) {
    case ResourceUnit::kMilli:
      if (value % 1000 == 0) return std::to_string(value / 1000);
      return internal::StrCat(value, "m");
    case ResourceUnit::kBytes: {
      if (value == 0) return "0";
      static constexpr const char* kSuffix[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
      int chosen = -1;
      int64_t v = value;
      for (int k = 0; k < 6; ++k) {
        if (v % 1024 != 0) break;
        v /= 1024;
        chosen = k;
      }
      if (chosen < 0) return std::to_string(value);
      return internal::StrCat(v, kSuffix[chosen]);
    }
    case ResourceUnit::kCount:
      break;
  }
  return std::to_string(value);
}

}  // namespace karp
