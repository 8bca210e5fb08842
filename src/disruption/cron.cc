#include "disruption/cron.h"

#include <cctype>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "internal/strings.h"

namespace karp::disruption {
namespace {

int NameValue(std::string_view s, bool months) {
  static const char* kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                  "jul", "aug", "sep", "oct", "nov", "dec"};
  static const char* kDays[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};
  std::string lower;
  for (char c : s) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (months) {
    for (int i = 0; i < 12; ++i) {
      if (lower == kMonths[i]) return i + 1;
    }
  } else {
    for (int i = 0; i < 7; ++i) {
      if (lower == kDays[i]) return i;
    }
  }
  return -1;
}

// Parses a number or a month/day name. Day-of-week 7 folds to 0 (Sunday) unless `keep7`.
bool ParseNumber(std::string_view s, int lo, int hi, bool months, bool days, int* out,
                 bool keep7 = false) {
  if (s.empty()) return false;
  bool digits = true;
  for (char c : s) digits = digits && c >= '0' && c <= '9';
  int v = -1;
  if (digits) {
    if (s.size() > 4) return false;
    v = std::stoi(std::string(s));
  } else if (months || days) {
    v = NameValue(s, months);
  }
  if (days && v == 7 && !keep7) v = 0;
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

// Parses one field into `bits` (indices lo..hi). Returns false on error; sets *star when the
// field is "*" (or "?").
template <size_t N>
bool ParseField(std::string_view field, int lo, int hi, bool months, bool days,
                std::bitset<N>* bits, bool* star) {
  *star = field == "*" || field == "?";
  for (absl::string_view part_av : absl::StrSplit(internal::AV(field), ',')) {
    std::string_view part(part_av.data(), part_av.size());
    int step = 1;
    size_t slash = part.find('/');
    if (slash != std::string_view::npos) {
      if (!ParseNumber(part.substr(slash + 1), 1, hi, false, false, &step)) return false;
      part = part.substr(0, slash);
    }
    int a = lo, b = hi;
    if (part == "*" || part == "?") {
    } else {
      size_t dash = part.find('-');
      if (dash != std::string_view::npos) {
        if (!ParseNumber(part.substr(0, dash), lo, days ? 7 : hi, months, days, &a)) return false;
        if (!ParseNumber(part.substr(dash + 1), lo, days ? 7 : hi, months, days, &b,
                         /*keep7=*/true)) {
          return false;
        }
        if (days && b == 7 && a > 0) {
          // "5-7": Friday to Sunday.
          for (int v = a; v <= 6; v += step) bits->set(static_cast<size_t>(v));
          bits->set(0);
          continue;
        }
      } else {
        if (!ParseNumber(part, lo, hi, months, days, &a)) return false;
        b = slash != std::string_view::npos ? hi : a;
      }
    }
    if (a > b) return false;
    for (int v = a; v <= b; v += step) bits->set(static_cast<size_t>(v));
  }
  return bits->any();
}

}  // namespace

absl::StatusOr<CronSchedule> CronSchedule::Parse(std::string_view text) {
  std::string spec(text);
  if (spec == "@yearly" || spec == "@annually") spec = "0 0 1 1 *";
  if (spec == "@monthly") spec = "0 0 1 * *";
  if (spec == "@weekly") spec = "0 0 * * 0";
  if (spec == "@daily" || spec == "@midnight") spec = "0 0 * * *";
  if (spec == "@hourly") spec = "0 * * * *";
  std::vector<std::string> fields = absl::StrSplit(spec, ' ', absl::SkipEmpty());
  auto bad = [&](std::string_view what) {
    return absl::InvalidArgumentError(
        internal::StrCat("invalid cron schedule \"", text, "\": ", what));
  };
  if (fields.size() != 5) return bad("expected 5 fields or a @macro");
  CronSchedule c;
  bool star = false;
  if (!ParseField(fields[0], 0, 59, false, false, &c.minute_, &star)) return bad("minute");
  if (!ParseField(fields[1], 0, 23, false, false, &c.hour_, &star)) return bad("hour");
  if (!ParseField(fields[2], 1, 31, false, false, &c.dom_, &c.dom_star_)) return bad("day of month");
  if (!ParseField(fields[3], 1, 12, true, false, &c.month_, &star)) return bad("month");
  if (!ParseField(fields[4], 0, 6, false, true, &c.dow_, &c.dow_star_)) return bad("day of week");
  return c;
}

bool CronSchedule::Matches(absl::Time t) const {
  const absl::CivilMinute m = absl::ToCivilMinute(t, absl::UTCTimeZone());
  if (!minute_.test(static_cast<size_t>(m.minute())) || !hour_.test(static_cast<size_t>(m.hour())) ||
      !month_.test(static_cast<size_t>(m.month()))) {
    return false;
  }
  const bool dom = dom_.test(static_cast<size_t>(m.day()));
  const bool dow = dow_.test(static_cast<size_t>(absl::GetWeekday(absl::CivilDay(m))) == 6
                                 ? 0
                                 : static_cast<size_t>(absl::GetWeekday(absl::CivilDay(m))) + 1);
  // Standard cron: when both day fields are restricted, either may match.
  if (dom_star_ || dow_star_) return dom && dow;
  return dom || dow;
}

absl::Time CronSchedule::Next(absl::Time t, absl::Time until) const {
  absl::CivilMinute m = absl::ToCivilMinute(t, absl::UTCTimeZone()) + 1;
  // Minute-by-minute search skipping whole months and hours that cannot match.
  while (true) {
    const absl::Time at = absl::FromCivil(m, absl::UTCTimeZone());
    if (at > until) break;
    if (!month_.test(static_cast<size_t>(m.month()))) {
      m = absl::CivilMinute(absl::CivilMonth(m) + 1);
      continue;
    }
    if (!hour_.test(static_cast<size_t>(m.hour()))) {
      m = absl::CivilMinute(absl::CivilHour(m) + 1);
      continue;
    }
    if (Matches(at)) return at;
    m += 1;
  }
  return absl::InfiniteFuture();
}

bool BudgetWindowActive(const CronSchedule& schedule, absl::Duration duration, absl::Time now) {
  return schedule.Next(now - duration, now) <= now;
}

}  // namespace karp::disruption
