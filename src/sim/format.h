// Number formats of the simulator's events and reports.

#ifndef KARP_SRC_SIM_FORMAT_H_
#define KARP_SRC_SIM_FORMAT_H_

#include <cmath>
#include <cstdio>
#include <string>

#include "absl/time/time.h"

namespace karp::sim {

inline std::string FormatSeconds(absl::Duration d) {
  const double s = absl::ToDoubleSeconds(d);
  char buf[48];
  if (s == std::floor(s)) {
    std::snprintf(buf, sizeof(buf), "%.0f", s);
  } else {
    std::snprintf(buf, sizeof(buf), "%.3f", s);
  }
  return buf;
}

inline std::string FormatFixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

}  // namespace karp::sim

#endif  // KARP_SRC_SIM_FORMAT_H_
