// Kubernetes quantity parsing and canonical printing (see karp/resources.h).

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "internal/strings.h"
#include "karp/resources.h"

namespace karp {
namespace {

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

// The number before the suffix: its sign and significant digits (leading zeros dropped), how
// many of them follow the decimal point, and where the suffix starts.
struct Mantissa {
  bool negative = false;
  std::string digits;
  int frac_digits = 0;
  size_t suffix_start = 0;
};

// Errors: InvalidArgument when `text` has no digit before its suffix.
absl::StatusOr<Mantissa> ParseMantissa(std::string_view text) {
  Mantissa out;
  size_t i = 0;
  const size_t n = text.size();
  if (text[i] == '+' || text[i] == '-') {
    out.negative = text[i] == '-';
    ++i;
  }
  bool any_digit = false;
  auto take_digits = [&](bool fraction) {
    while (i < n && IsDigit(text[i])) {
      any_digit = true;
      if (!(out.digits.empty() && text[i] == '0')) out.digits.push_back(text[i]);
      if (fraction) ++out.frac_digits;
      ++i;
    }
  };
  take_digits(/*fraction=*/false);
  if (i < n && text[i] == '.') {
    ++i;
    take_digits(/*fraction=*/true);
  }
  if (!any_digit) return Invalid(text, "expected a number");
  out.suffix_start = i;
  return out;
}

// value = mantissa x 10^exp10 x 2^exp2.
struct Exponents {
  int exp10 = 0;
  int exp2 = 0;
};

// A one-letter suffix and its exponent.
struct SuffixRow {
  char letter;
  int exponent;
};
constexpr SuffixRow kBinarySuffixes[] = {{'K', 10}, {'M', 20}, {'G', 30},
                                         {'T', 40}, {'P', 50}, {'E', 60}};  // with 'i': 2^n
constexpr SuffixRow kDecimalSuffixes[] = {{'n', -9}, {'u', -6}, {'m', -3}, {'k', 3},
                                          {'M', 6},  {'G', 9},  {'T', 12}, {'P', 15}};  // 10^n

template <size_t N>
std::optional<int> SuffixExponent(const SuffixRow (&table)[N], char letter) {
  for (const SuffixRow& row : table) {
    if (row.letter == letter) return row.exponent;
  }
  return std::nullopt;
}

// The exponent of a decimal exponent suffix "e<n>" / "E<n>" (sign allowed).
absl::StatusOr<int> ParseExponent(std::string_view text, std::string_view suffix) {
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
  return exp_negative ? -e : e;
}

// The exponents of `suffix` (the end of `text`): "", a binary suffix (Ki...Ei), a decimal
// suffix (n...P, E) or a decimal exponent. Errors: InvalidArgument for anything else.
absl::StatusOr<Exponents> ParseSuffix(std::string_view text, std::string_view suffix) {
  Exponents out;
  if (suffix.empty()) return out;
  if (suffix == "E") {
    out.exp10 = 18;
    return out;
  }
  if (suffix.size() == 2 && suffix[1] == 'i') {
    std::optional<int> exp2 = SuffixExponent(kBinarySuffixes, suffix[0]);
    if (!exp2.has_value()) return Invalid(text, "unknown suffix");
    out.exp2 = *exp2;
    return out;
  }
  if (suffix.size() == 1 && suffix[0] != 'e') {
    std::optional<int> exp10 = SuffixExponent(kDecimalSuffixes, suffix[0]);
    if (!exp10.has_value()) return Invalid(text, "unknown suffix");
    out.exp10 = *exp10;
    return out;
  }
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    absl::StatusOr<int> exp10 = ParseExponent(text, suffix);
    if (!exp10.ok()) return exp10.status();
    out.exp10 = *exp10;
    return out;
  }
  return Invalid(text, "unknown suffix");
}

// mantissa x 10^total10 x 2^exp2 for total10 >= 0. Errors: InvalidArgument beyond int64.
absl::StatusOr<int128> ScaleUp(std::string_view text, int128 mantissa, int total10, int exp2) {
  if (total10 > 19) return Invalid(text, "out of range");
  int128 value = mantissa;
  for (int k = 0; k < total10; ++k) {
    value *= 10;
    if (value > kInt64Max) return Invalid(text, "out of range");
  }
  for (int k = 0; k < exp2; ++k) {
    value *= 2;
    if (value > kInt64Max) return Invalid(text, "out of range");
  }
  if (value > kInt64Max) return Invalid(text, "out of range");
  return value;
}

// mantissa x 10^total10 x 2^exp2 for total10 < 0, rounded up to an integer.
// Errors: InvalidArgument beyond int64.
absl::StatusOr<int128> ScaleDown(std::string_view text, int128 mantissa, int total10, int exp2) {
  int128 scaled = mantissa;
  for (int k = 0; k < exp2; ++k) {
    scaled *= 2;
    if (scaled > (kInt64Max * 1000000000LL)) return Invalid(text, "out of range");
  }
  int128 value;
  int down = -total10;
  if (down > 38) {
    value = 1;  // a positive value far below one unit rounds up to one unit
  } else {
    int128 div = Pow10(down);
    value = scaled / div + (scaled % div != 0 ? 1 : 0);
  }
  if (value > kInt64Max) return Invalid(text, "out of range");
  return value;
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
  if (text.empty()) return Invalid(text, "empty");
  if (text.size() > 128) return Invalid(text.substr(0, 32), "too long");
  absl::StatusOr<Mantissa> m = ParseMantissa(text);
  if (!m.ok()) return m.status();
  absl::StatusOr<Exponents> e = ParseSuffix(text, text.substr(m->suffix_start));
  if (!e.ok()) return e.status();

  // Strip trailing zeros into the exponent.
  std::string& digits = m->digits;
  while (!digits.empty() && digits.back() == '0') {
    digits.pop_back();
    if (m->frac_digits > 0) {
      --m->frac_digits;
    } else {
      ++e->exp10;
    }
  }
  if (digits.empty()) return int64_t{0};
  if (m->negative && !allow_negative) return Invalid(text, "must not be negative");
  if (digits.size() > 36) return Invalid(text, "too many significant digits");

  int128 mantissa = 0;
  for (char c : digits) mantissa = mantissa * 10 + (c - '0');
  const int unit_exp = UnitOf(resource) == ResourceUnit::kMilli ? 3 : 0;
  const int total10 = e->exp10 - m->frac_digits + unit_exp;
  // value = mantissa * 10^total10 * 2^exp2, rounded up to an integer.
  absl::StatusOr<int128> value = total10 >= 0 ? ScaleUp(text, mantissa, total10, e->exp2)
                                              : ScaleDown(text, mantissa, total10, e->exp2);
  if (!value.ok()) return value.status();
  // The magnitude is rounded up; a negative value keeps its sign.
  int64_t v = static_cast<int64_t>(*value);
  return m->negative ? -v : v;
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
