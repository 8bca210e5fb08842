// Unit tests of the disruption-budget cron schedules (src/model/cron.h), docs/design.md §6.3:
// five fields (minute hour day-of-month month day-of-week) with lists, ranges, steps, month and
// day names, Sunday = 0 only, day-of-month / day-of-week OR semantics when both are restricted, the
// @macros, all in UTC; a budget window is active when the next firing after now - duration is
// at or before now.
//
// Calendar used below (UTC): 2026-03-01 is a Sunday, so 2026-03-04 is a Wednesday, 03-06 a
// Friday, 03-07 a Saturday, 03-08 a Sunday; 2026-01-13 is a Tuesday.

#include "model/cron.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace {

using karp::BudgetWindowActive;
using karp::CronSchedule;

absl::Time At(int y, int mo, int d, int h, int mi, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), absl::UTCTimeZone());
}

CronSchedule MustParse(const std::string& text) {
  absl::StatusOr<CronSchedule> c = CronSchedule::Parse(text);
  INFO(text << ": " << std::string(c.status().message()));
  REQUIRE(c.ok());
  return *c;
}

// Minutes of hour 12 on 2026-03-04 at which `c` fires.
std::vector<int> FiringMinutes(const CronSchedule& c) {
  std::vector<int> out;
  for (int m = 0; m < 60; ++m) {
    if (c.Matches(At(2026, 3, 4, 12, m))) out.push_back(m);
  }
  return out;
}

// Hours of 2026-03-04 at which `c` fires at minute 0.
std::vector<int> FiringHours(const CronSchedule& c) {
  std::vector<int> out;
  for (int h = 0; h < 24; ++h) {
    if (c.Matches(At(2026, 3, 4, h, 0))) out.push_back(h);
  }
  return out;
}

TEST_CASE("cron: every field star fires every minute", "[cron]") {
  const CronSchedule c = MustParse("* * * * *");
  CHECK(FiringMinutes(c).size() == 60);
  CHECK(c.Matches(At(2026, 12, 31, 23, 59)));
  CHECK(c.Matches(At(2028, 2, 29, 0, 0)));
}

TEST_CASE("cron: a single minute and hour fire once a day", "[cron]") {
  const CronSchedule c = MustParse("30 9 * * *");
  CHECK(c.Matches(At(2026, 3, 4, 9, 30)));
  CHECK(c.Matches(At(2026, 3, 4, 9, 30, 59)));  // the whole minute
  CHECK_FALSE(c.Matches(At(2026, 3, 4, 9, 31)));
  CHECK_FALSE(c.Matches(At(2026, 3, 4, 10, 30)));
  CHECK_FALSE(c.Matches(At(2026, 3, 4, 21, 30)));
}

TEST_CASE("cron: lists, ranges and steps in the minute field", "[cron]") {
  CHECK(FiringMinutes(MustParse("0,15,45 * * * *")) == std::vector<int>{0, 15, 45});
  CHECK(FiringMinutes(MustParse("10-13 * * * *")) == std::vector<int>{10, 11, 12, 13});
  CHECK(FiringMinutes(MustParse("*/15 * * * *")) == std::vector<int>{0, 15, 30, 45});
  CHECK(FiringMinutes(MustParse("0-30/10 * * * *")) == std::vector<int>{0, 10, 20, 30});
  // "N/step" means N to the maximum by step.
  CHECK(FiringMinutes(MustParse("5/20 * * * *")) == std::vector<int>{5, 25, 45});
  CHECK(FiringMinutes(MustParse("1,2,50-52,*/30 * * * *")) ==
        std::vector<int>{0, 1, 2, 30, 50, 51, 52});
  CHECK(FiringMinutes(MustParse("59 * * * *")) == std::vector<int>{59});
}

TEST_CASE("cron: lists, ranges and steps in the hour field", "[cron]") {
  CHECK(FiringHours(MustParse("0 9,17 * * *")) == std::vector<int>{9, 17});
  CHECK(FiringHours(MustParse("0 9-12 * * *")) == std::vector<int>{9, 10, 11, 12});
  CHECK(FiringHours(MustParse("0 */6 * * *")) == std::vector<int>{0, 6, 12, 18});
  CHECK(FiringHours(MustParse("0 1-23/11 * * *")) == std::vector<int>{1, 12, 23});
  CHECK(FiringHours(MustParse("0 23 * * *")) == std::vector<int>{23});
}

TEST_CASE("cron: day of month and month restrict the date", "[cron]") {
  const CronSchedule c = MustParse("0 0 1,15 * *");
  CHECK(c.Matches(At(2026, 3, 1, 0, 0)));
  CHECK(c.Matches(At(2026, 3, 15, 0, 0)));
  CHECK_FALSE(c.Matches(At(2026, 3, 2, 0, 0)));
  const CronSchedule quarterly = MustParse("0 0 1 1-12/3 *");
  CHECK(quarterly.Matches(At(2026, 1, 1, 0, 0)));
  CHECK(quarterly.Matches(At(2026, 4, 1, 0, 0)));
  CHECK(quarterly.Matches(At(2026, 10, 1, 0, 0)));
  CHECK_FALSE(quarterly.Matches(At(2026, 2, 1, 0, 0)));
  CHECK_FALSE(quarterly.Matches(At(2026, 12, 1, 0, 0)));
  const CronSchedule last_day = MustParse("0 0 31 * *");
  CHECK(last_day.Matches(At(2026, 1, 31, 0, 0)));
  CHECK_FALSE(last_day.Matches(At(2026, 4, 30, 0, 0)));
}

TEST_CASE("cron: month names are accepted in any case, alone, in lists and ranges", "[cron]") {
  const CronSchedule c = MustParse("0 0 1 jan,JUL *");
  CHECK(c.Matches(At(2026, 1, 1, 0, 0)));
  CHECK(c.Matches(At(2026, 7, 1, 0, 0)));
  CHECK_FALSE(c.Matches(At(2026, 2, 1, 0, 0)));
  const CronSchedule range = MustParse("0 0 1 Mar-May *");
  CHECK_FALSE(range.Matches(At(2026, 2, 1, 0, 0)));
  CHECK(range.Matches(At(2026, 3, 1, 0, 0)));
  CHECK(range.Matches(At(2026, 4, 1, 0, 0)));
  CHECK(range.Matches(At(2026, 5, 1, 0, 0)));
  CHECK_FALSE(range.Matches(At(2026, 6, 1, 0, 0)));
  CHECK(MustParse("0 0 1 dec *").Matches(At(2026, 12, 1, 0, 0)));
}

TEST_CASE("cron: day names and numbers select weekdays", "[cron]") {
  const CronSchedule weekdays = MustParse("0 12 * * mon-fri");
  CHECK(weekdays.Matches(At(2026, 3, 2, 12, 0)));        // Monday
  CHECK(weekdays.Matches(At(2026, 3, 4, 12, 0)));        // Wednesday
  CHECK(weekdays.Matches(At(2026, 3, 6, 12, 0)));        // Friday
  CHECK_FALSE(weekdays.Matches(At(2026, 3, 7, 12, 0)));  // Saturday
  CHECK_FALSE(weekdays.Matches(At(2026, 3, 8, 12, 0)));  // Sunday
  const CronSchedule numeric = MustParse("0 12 * * 1-5");
  for (int day = 1; day <= 14; ++day) {
    INFO("2026-03-" << day);
    CHECK(numeric.Matches(At(2026, 3, day, 12, 0)) == weekdays.Matches(At(2026, 3, day, 12, 0)));
  }
  const CronSchedule list = MustParse("0 12 * * SAT,sun");
  CHECK(list.Matches(At(2026, 3, 7, 12, 0)));
  CHECK(list.Matches(At(2026, 3, 8, 12, 0)));
  CHECK_FALSE(list.Matches(At(2026, 3, 6, 12, 0)));
}

TEST_CASE("cron: Sunday is 0 only as in the reference parser and 7 is an error naming it",
          "[cron]") {
  const CronSchedule zero = MustParse("0 0 * * 0");
  CHECK(zero.Matches(At(2026, 3, 8, 0, 0)));
  CHECK_FALSE(zero.Matches(At(2026, 3, 7, 0, 0)));
  for (const char* text : {"0 0 * * 7", "0 0 * * 5-7"}) {
    INFO(text);
    absl::StatusOr<CronSchedule> c = CronSchedule::Parse(text);
    REQUIRE_FALSE(c.ok());
    CHECK_THAT(std::string(c.status().message()),
               Catch::Contains("day of week: value 7 is out of range 0-6 (Sunday is 0)"));
  }
  const CronSchedule weekend = MustParse("0 0 * * 5-6,0");  // Friday to Sunday
  CHECK_FALSE(weekend.Matches(At(2026, 3, 5, 0, 0)));       // Thursday
  CHECK(weekend.Matches(At(2026, 3, 6, 0, 0)));
  CHECK(weekend.Matches(At(2026, 3, 7, 0, 0)));
  CHECK(weekend.Matches(At(2026, 3, 8, 0, 0)));
  CHECK_FALSE(weekend.Matches(At(2026, 3, 9, 0, 0)));  // Monday
}

TEST_CASE("cron: a star with step 1 is still a wildcard for the day rule, a larger step is not",
          "[cron]") {
  // "*/1" in the day-of-month field keeps it a wildcard: both fields must match (Fridays only).
  const CronSchedule step1 = MustParse("0 0 */1 * fri");
  CHECK(step1.Matches(At(2026, 3, 6, 0, 0)));        // Friday
  CHECK_FALSE(step1.Matches(At(2026, 3, 5, 0, 0)));  // Thursday
  // "*/2" restricts (odd days), so either field may match: odd days OR Fridays.
  const CronSchedule step2 = MustParse("0 0 */2 * fri");
  CHECK(step2.Matches(At(2026, 3, 6, 0, 0)));        // Friday the 6th
  CHECK(step2.Matches(At(2026, 3, 5, 0, 0)));        // Thursday the 5th (odd)
  CHECK_FALSE(step2.Matches(At(2026, 3, 4, 0, 0)));  // Wednesday the 4th
  // A star anywhere in a list makes the field a wildcard too.
  const CronSchedule listed = MustParse("0 0 1,* * fri");
  CHECK_FALSE(listed.Matches(At(2026, 3, 5, 0, 0)));
  CHECK(listed.Matches(At(2026, 3, 6, 0, 0)));
}

TEST_CASE("cron: a step larger than the field is accepted and keeps only the start", "[cron]") {
  const CronSchedule c = MustParse("0/90 * * * *");
  CHECK(FiringMinutes(c) == std::vector<int>{0});
  const CronSchedule h = MustParse("0 5/100 * * *");
  CHECK(FiringHours(h) == std::vector<int>{5});
}

TEST_CASE(
    "cron: @every fires relative to the time asked, so a window at least that long is always open",
    "[cron]") {
  const CronSchedule every = MustParse("@every 1h30m");
  const absl::Time t = At(2026, 3, 4, 12, 0, 0) + absl::Milliseconds(700);
  CHECK(every.Next(t, t + absl::Hours(2)) == At(2026, 3, 4, 13, 30, 0));
  CHECK(every.Next(t, t + absl::Hours(1)) == absl::InfiniteFuture());
  CHECK_FALSE(every.Matches(At(2026, 3, 4, 12, 0)));
  const absl::Time now = At(2026, 3, 4, 12, 0);
  CHECK(BudgetWindowActive(every, absl::Hours(2), now));
  CHECK(BudgetWindowActive(every, absl::Minutes(90), now));
  CHECK_FALSE(BudgetWindowActive(every, absl::Minutes(89), now));
  CHECK(MustParse("@every 1.5h").Next(now, now + absl::Hours(2)) == At(2026, 3, 4, 13, 30));
  CHECK(MustParse("@every 500ms").Next(now, now + absl::Hours(2)) == now + absl::Seconds(1));
}

TEST_CASE("cron: day of month OR day of week when both are restricted", "[cron]") {
  // Fires on the 13th of every month and on every Friday.
  const CronSchedule both = MustParse("0 0 13 * fri");
  CHECK(both.Matches(At(2026, 3, 6, 0, 0)));         // Friday the 6th
  CHECK(both.Matches(At(2026, 3, 13, 0, 0)));        // Friday the 13th
  CHECK(both.Matches(At(2026, 1, 13, 0, 0)));        // Tuesday the 13th
  CHECK_FALSE(both.Matches(At(2026, 3, 12, 0, 0)));  // Thursday the 12th
  CHECK_FALSE(both.Matches(At(2026, 3, 14, 0, 0)));  // Saturday the 14th
}

TEST_CASE("cron: a star day field makes the other one decide alone", "[cron]") {
  const CronSchedule dom_only = MustParse("0 0 13 * *");
  CHECK(dom_only.Matches(At(2026, 1, 13, 0, 0)));
  CHECK_FALSE(dom_only.Matches(At(2026, 3, 6, 0, 0)));  // a Friday, not the 13th
  const CronSchedule dow_only = MustParse("0 0 * * fri");
  CHECK(dow_only.Matches(At(2026, 3, 6, 0, 0)));
  CHECK_FALSE(dow_only.Matches(At(2026, 1, 13, 0, 0)));  // the 13th, a Tuesday
  const CronSchedule question = MustParse("0 0 13 * ?");
  CHECK(question.Matches(At(2026, 1, 13, 0, 0)));
  CHECK_FALSE(question.Matches(At(2026, 3, 6, 0, 0)));
}

TEST_CASE("cron: macros", "[cron]") {
  SECTION("@daily and @midnight fire at 00:00 every day") {
    for (const char* m : {"@daily", "@midnight"}) {
      INFO(m);
      const CronSchedule c = MustParse(m);
      CHECK(c.Matches(At(2026, 3, 4, 0, 0)));
      CHECK(c.Matches(At(2026, 3, 7, 0, 0)));
      CHECK_FALSE(c.Matches(At(2026, 3, 4, 0, 1)));
      CHECK_FALSE(c.Matches(At(2026, 3, 4, 12, 0)));
    }
  }
  SECTION("@hourly fires at minute 0 of every hour") {
    const CronSchedule c = MustParse("@hourly");
    CHECK(FiringMinutes(c) == std::vector<int>{0});
    CHECK(FiringHours(c).size() == 24);
  }
  SECTION("@weekly fires on Sunday at 00:00") {
    const CronSchedule c = MustParse("@weekly");
    CHECK(c.Matches(At(2026, 3, 8, 0, 0)));
    CHECK_FALSE(c.Matches(At(2026, 3, 7, 0, 0)));
    CHECK_FALSE(c.Matches(At(2026, 3, 8, 1, 0)));
  }
  SECTION("@monthly fires on the 1st at 00:00") {
    const CronSchedule c = MustParse("@monthly");
    CHECK(c.Matches(At(2026, 3, 1, 0, 0)));
    CHECK(c.Matches(At(2026, 11, 1, 0, 0)));
    CHECK_FALSE(c.Matches(At(2026, 3, 2, 0, 0)));
  }
  SECTION("@yearly and @annually fire on January 1st at 00:00") {
    for (const char* m : {"@yearly", "@annually"}) {
      INFO(m);
      const CronSchedule c = MustParse(m);
      CHECK(c.Matches(At(2027, 1, 1, 0, 0)));
      CHECK_FALSE(c.Matches(At(2026, 3, 1, 0, 0)));
      CHECK_FALSE(c.Matches(At(2027, 1, 2, 0, 0)));
    }
  }
}

TEST_CASE("cron: invalid schedules are InvalidArgument naming the schedule", "[cron]") {
  const std::vector<std::string> bad = {
      "",
      "* * * *",         // four fields
      "* * * * * *",     // six fields
      "60 * * * *",      // minute out of range
      "* 24 * * *",      // hour out of range
      "* * 0 * *",       // day of month starts at 1
      "* * 32 * *",      // day of month out of range
      "* * * 0 *",       // month starts at 1
      "* * * 13 *",      // month out of range
      "* * * * 8",       // day of week out of range
      "* * * * 7",       // robfig has no 7 for Sunday
      "a * * * *",       // not a number
      "-1 * * * *",      // negative
      "30-10 * * * *",   // reversed range
      "*/0 * * * *",     // zero step
      "1,,2 * * * *",    // empty list element
      "0 0 * mon *",     // a day name in the month field
      "0 0 * * jan",     // a month name in the day-of-week field
      "0 0 * * funday",  // unknown name
      "@every",          // no duration
      "@every 5x",       // unknown unit
      "@every m",        // no number
      "@reboot",
      "@weekly *",
  };
  for (const std::string& text : bad) {
    INFO("schedule: \"" << text << "\"");
    absl::StatusOr<CronSchedule> c = CronSchedule::Parse(text);
    REQUIRE_FALSE(c.ok());
    CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(c.status().message()), Catch::Contains("\"" + text + "\""));
  }
}

TEST_CASE("cron: Next is the first firing strictly after t, up to until", "[cron]") {
  const CronSchedule c = MustParse("0 9 * * 1-5");
  const absl::Time week_later = At(2026, 3, 11, 12, 0);
  CHECK(c.Next(At(2026, 3, 4, 8, 59, 30), week_later) == At(2026, 3, 4, 9, 0));
  CHECK(c.Next(At(2026, 3, 4, 9, 0), week_later) == At(2026, 3, 5, 9, 0));  // strictly after
  CHECK(c.Next(At(2026, 3, 4, 9, 0, 30), week_later) == At(2026, 3, 5, 9, 0));
  CHECK(c.Next(At(2026, 3, 4, 12, 0), week_later) == At(2026, 3, 5, 9, 0));
  // Friday noon: the weekend is skipped.
  CHECK(c.Next(At(2026, 3, 6, 12, 0), week_later) == At(2026, 3, 9, 9, 0));
  // Nothing before `until`; `until` itself is included.
  CHECK(c.Next(At(2026, 3, 4, 12, 0), At(2026, 3, 5, 8, 59)) == absl::InfiniteFuture());
  CHECK(c.Next(At(2026, 3, 4, 12, 0), At(2026, 3, 5, 9, 0)) == At(2026, 3, 5, 9, 0));
}

TEST_CASE("cron: Next crosses months and years", "[cron]") {
  CHECK(MustParse("@yearly").Next(At(2026, 3, 4, 12, 0), At(2030, 1, 1, 0, 0)) ==
        At(2027, 1, 1, 0, 0));
  CHECK(MustParse("@monthly").Next(At(2026, 12, 31, 23, 59), At(2030, 1, 1, 0, 0)) ==
        At(2027, 1, 1, 0, 0));
  // February 29th: the next leap year.
  CHECK(MustParse("0 0 29 2 *").Next(At(2026, 3, 4, 12, 0), At(2030, 1, 1, 0, 0)) ==
        At(2028, 2, 29, 0, 0));
  // February 30th never comes.
  CHECK(MustParse("0 0 30 2 *").Next(At(2026, 3, 4, 12, 0), At(2030, 1, 1, 0, 0)) ==
        absl::InfiniteFuture());
}

TEST_CASE("cron: budget window of a weekday schedule with a duration", "[cron]") {
  const CronSchedule c = MustParse("0 9 * * 1-5");
  const absl::Duration eight_hours = absl::Hours(8);
  CHECK(BudgetWindowActive(c, eight_hours, At(2026, 3, 4, 12, 0)));       // Wednesday noon
  CHECK(BudgetWindowActive(c, eight_hours, At(2026, 3, 4, 9, 0)));        // opens at the hit
  CHECK(BudgetWindowActive(c, eight_hours, At(2026, 3, 4, 16, 59, 59)));  // last second
  CHECK_FALSE(BudgetWindowActive(c, eight_hours, At(2026, 3, 4, 8, 59, 59)));
  CHECK_FALSE(BudgetWindowActive(c, eight_hours, At(2026, 3, 4, 17, 0)));  // closes after 8h
  CHECK_FALSE(BudgetWindowActive(c, eight_hours, At(2026, 3, 4, 19, 30)));
  CHECK(BudgetWindowActive(c, eight_hours, At(2026, 3, 6, 16, 0)));        // Friday
  CHECK_FALSE(BudgetWindowActive(c, eight_hours, At(2026, 3, 7, 0, 30)));  // Saturday night
  CHECK_FALSE(BudgetWindowActive(c, eight_hours, At(2026, 3, 7, 12, 0)));  // Saturday noon
  CHECK_FALSE(BudgetWindowActive(c, eight_hours, At(2026, 3, 8, 12, 0)));  // Sunday noon
  CHECK(BudgetWindowActive(c, eight_hours, At(2026, 3, 9, 9, 30)));        // Monday
}

TEST_CASE("cron: a budget window may span midnight", "[cron]") {
  const CronSchedule c = MustParse("0 22 * * *");
  const absl::Duration four_hours = absl::Hours(4);
  CHECK_FALSE(BudgetWindowActive(c, four_hours, At(2026, 3, 4, 21, 59)));
  CHECK(BudgetWindowActive(c, four_hours, At(2026, 3, 4, 22, 0)));
  CHECK(BudgetWindowActive(c, four_hours, At(2026, 3, 5, 1, 59)));
  CHECK_FALSE(BudgetWindowActive(c, four_hours, At(2026, 3, 5, 2, 0)));
}

TEST_CASE("cron: the window runs from a hit for the duration, so a zero duration never opens",
          "[cron]") {
  const CronSchedule c = MustParse("@hourly");
  // The next hit strictly after now - 0 is always after now.
  CHECK_FALSE(BudgetWindowActive(c, absl::ZeroDuration(), At(2026, 3, 4, 12, 0)));
  CHECK_FALSE(BudgetWindowActive(c, absl::ZeroDuration(), At(2026, 3, 4, 12, 0, 1)));
  CHECK(BudgetWindowActive(c, absl::Minutes(30), At(2026, 3, 4, 12, 29)));
  CHECK_FALSE(BudgetWindowActive(c, absl::Minutes(30), At(2026, 3, 4, 12, 30)));
}

}  // namespace
