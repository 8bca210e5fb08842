#include "model/cron.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "internal/strings.h"

namespace karp {
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

// Parses a number or a month/day name into *out, within [lo, hi]. Returns an empty string or
// the reason it is invalid.
std::string ParseNumber(std::string_view s, int lo, int hi, bool months, bool days, int* out) {
  if (s.empty()) return "empty value";
  bool digits = true;
  for (char c : s) digits = digits && c >= '0' && c <= '9';
  int v = -1;
  if (digits) {
    if (s.size() > 4) return internal::StrCat("value ", s, " is out of range ", lo, "-", hi);
    v = std::stoi(std::string(s));
  } else if (months || days) {
    v = NameValue(s, months);
    if (v < 0) return internal::StrCat("unknown name \"", s, "\"");
  } else {
    return internal::StrCat("\"", s, "\" is not a number");
  }
  if (v < lo || v > hi) {
    std::string msg = internal::StrCat("value ", v, " is out of range ", lo, "-", hi);
    // The reference (robfig/cron v3) has no 7 for Sunday; its parse error would block every
    // disruption the budget covers. karp reports it instead.
    if (days && v == 7) msg += " (Sunday is 0)";
    return msg;
  }
  *out = v;
  return "";
}

// Parses one field into `bits` (indices lo..hi), with robfig/cron v3 semantics: lists of
// ranges, "N/step" means N-max/step, and the field counts as a wildcard ("star") for the
// day-of-month/day-of-week rule when one of its items is "*" or "?" without a step above 1.
// Returns an empty string or the reason the field is invalid.
template <size_t N>
std::string ParseField(std::string_view field, int lo, int hi, bool months, bool days,
                       std::bitset<N>* bits, bool* star) {
  *star = false;
  for (absl::string_view part_av : absl::StrSplit(internal::AV(field), ',')) {
    std::string_view part(part_av.data(), part_av.size());
    if (part.empty()) return "empty list item";
    int step = 1;
    size_t slash = part.find('/');
    if (slash != std::string_view::npos) {
      std::string_view step_text = part.substr(slash + 1);
      bool digits = !step_text.empty() && step_text.size() <= 4;
      for (char c : step_text) digits = digits && c >= '0' && c <= '9';
      if (!digits) return internal::StrCat("step \"", step_text, "\" is not a number");
      step = std::stoi(std::string(step_text));
      if (step < 1) return "step must be at least 1";
      part = part.substr(0, slash);
    }
    int a = lo, b = hi;
    if (part == "*" || part == "?") {
      if (step == 1) *star = true;
    } else {
      size_t dash = part.find('-');
      if (dash != std::string_view::npos) {
        if (std::string e = ParseNumber(part.substr(0, dash), lo, hi, months, days, &a);
            !e.empty()) {
          return e;
        }
        if (std::string e = ParseNumber(part.substr(dash + 1), lo, hi, months, days, &b);
            !e.empty()) {
          return e;
        }
      } else {
        if (std::string e = ParseNumber(part, lo, hi, months, days, &a); !e.empty()) return e;
        b = slash != std::string_view::npos ? hi : a;
      }
    }
    if (a > b) return internal::StrCat("range ", part, " runs backwards");
    for (int v = a; v <= b; v += step) bits->set(static_cast<size_t>(v));
  }
  return "";
}

}  // namespace

absl::StatusOr<CronSchedule> CronSchedule::Parse(std::string_view text) {
  auto bad = [&](std::string_view what) {
    return absl::InvalidArgumentError(
        internal::StrCat("invalid cron schedule \"", text, "\": ", what));
  };
  std::string spec(text);
  constexpr std::string_view kEvery = "@every ";
  if (spec.rfind(kEvery, 0) == 0) {
    // absl::ParseDuration reads Go's duration syntax, as robfig's time.ParseDuration does.
    absl::Duration every;
    if (!absl::ParseDuration(spec.substr(kEvery.size()), &every) ||
        every == absl::InfiniteDuration() || every == -absl::InfiniteDuration()) {
      return bad("@every needs a duration such as 30m or 1h30m");
    }
    // robfig rounds the interval down to whole seconds, with a minimum of one second.
    every = std::max(absl::Seconds(1), absl::Floor(every, absl::Seconds(1)));
    CronSchedule c;
    c.every_ = every;
    return c;
  }
  if (spec == "@yearly" || spec == "@annually") spec = "0 0 1 1 *";
  if (spec == "@monthly") spec = "0 0 1 * *";
  if (spec == "@weekly") spec = "0 0 * * 0";
  if (spec == "@daily" || spec == "@midnight") spec = "0 0 * * *";
  if (spec == "@hourly") spec = "0 * * * *";
  if (!spec.empty() && spec[0] == '@') return bad("unknown macro");
  std::vector<std::string> fields = absl::StrSplit(spec, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (fields.size() != 5) return bad("expected 5 fields or a @macro");
  CronSchedule c;
  bool star = false;
  std::string e;
  if (e = ParseField(fields[0], 0, 59, false, false, &c.minute_, &star); !e.empty()) {
    return bad(internal::StrCat("minute: ", e));
  }
  if (e = ParseField(fields[1], 0, 23, false, false, &c.hour_, &star); !e.empty()) {
    return bad(internal::StrCat("hour: ", e));
  }
  if (e = ParseField(fields[2], 1, 31, false, false, &c.dom_, &c.dom_star_); !e.empty()) {
    return bad(internal::StrCat("day of month: ", e));
  }
  if (e = ParseField(fields[3], 1, 12, true, false, &c.month_, &star); !e.empty()) {
    return bad(internal::StrCat("month: ", e));
  }
  if (e = ParseField(fields[4], 0, 6, false, true, &c.dow_, &c.dow_star_); !e.empty()) {
    return bad(internal::StrCat("day of week: ", e));
  }
  return c;
}

bool CronSchedule::Matches(absl::Time t) const {
  if (every_) return false;
  const absl::CivilMinute m = absl::ToCivilMinute(t, absl::UTCTimeZone());
  if (!minute_.test(static_cast<size_t>(m.minute())) ||
      !hour_.test(static_cast<size_t>(m.hour())) || !month_.test(static_cast<size_t>(m.month()))) {
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
  if (every_) {
    const absl::Time next =
        absl::FromUnixSeconds(absl::ToUnixSeconds(t)) + *every_;  // ToUnixSeconds floors
    return next <= until ? next : absl::InfiniteFuture();
  }
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

}  // namespace karp
