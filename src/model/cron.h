// Cron schedules for disruption budgets (docs/design.md §6.3), in UTC, with the grammar of the
// reference's parser (robfig/cron v3 ParseStandard): the standard five fields (minute hour
// day-of-month month day-of-week, with lists, ranges, "N/step" = N-max/step, month and day
// names, day of week 0-6 with Sunday = 0 — 7 is an error there and here), the macros @yearly
// @annually @monthly @weekly @daily @midnight @hourly, and "@every <Go duration>".
// Day-of-month and day-of-week: when either field is a wildcard ("*" or "?" without a step
// above 1; "*/1" is still a wildcard, "*/2" is not) both must match, otherwise either may.

#ifndef KARP_SRC_MODEL_CRON_H_
#define KARP_SRC_MODEL_CRON_H_

#include <bitset>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace karp {

class CronSchedule {
 public:
  // Errors: InvalidArgument naming the schedule and the bad field.
  [[nodiscard]] static absl::StatusOr<CronSchedule> Parse(std::string_view text);

  // True if the schedule fires at the minute containing `t` (UTC). Always false for @every,
  // which has no fixed firing times (it fires relative to the time asked, see Next).
  bool Matches(absl::Time t) const;
  // The first firing time strictly after `t` and not after `until` (minute resolution), or
  // InfiniteFuture if none. For "@every d": `t` truncated to the second, plus d (as robfig's
  // ConstantDelaySchedule), so a budget window with duration >= d is always active.
  absl::Time Next(absl::Time t, absl::Time until) const;

 private:
  std::bitset<60> minute_;
  std::bitset<24> hour_;
  std::bitset<32> dom_;                  // 1..31
  std::bitset<13> month_;                // 1..12
  std::bitset<8> dow_;                   // 0..6
  std::optional<absl::Duration> every_;  // "@every": no fields
  bool dom_star_ = false;
  bool dow_star_ = false;
};

// A budget window is active at `now` when the schedule's next firing after now - duration is
// at or before now.
bool BudgetWindowActive(const CronSchedule& schedule, absl::Duration duration, absl::Time now);

}  // namespace karp

#endif  // KARP_SRC_MODEL_CRON_H_
