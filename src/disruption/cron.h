// Cron schedules for disruption budgets (semantics §6.3): the standard five fields
// (minute hour day-of-month month day-of-week, with lists, ranges, steps and month/day names)
// and the macros @yearly @annually @monthly @weekly @daily @midnight @hourly, in UTC.

#ifndef KARP_SRC_DISRUPTION_CRON_H_
#define KARP_SRC_DISRUPTION_CRON_H_

#include <bitset>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace karp::disruption {

class CronSchedule {
 public:
  // Errors: InvalidArgument naming the schedule and the bad field.
  [[nodiscard]] static absl::StatusOr<CronSchedule> Parse(std::string_view text);

  // True if the schedule fires at the minute containing `t` (UTC).
  bool Matches(absl::Time t) const;
  // The first firing time strictly after `t` and not after `until` (minute resolution), or
  // InfiniteFuture if none.
  absl::Time Next(absl::Time t, absl::Time until) const;

 private:
  std::bitset<60> minute_;
  std::bitset<24> hour_;
  std::bitset<32> dom_;    // 1..31
  std::bitset<13> month_;  // 1..12
  std::bitset<8> dow_;     // 0..6 (7 folds to 0)
  bool dom_star_ = false;
  bool dow_star_ = false;
};

// A budget window is active at `now` when the schedule's next firing after now - duration is
// at or before now.
bool BudgetWindowActive(const CronSchedule& schedule, absl::Duration duration, absl::Time now);

}  // namespace karp::disruption

#endif  // KARP_SRC_DISRUPTION_CRON_H_
