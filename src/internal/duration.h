// Go durations ("720h", "1h30m", "10s"), the one parser of karp's model: the wire format's
// durations (non-negative) and the karpenter.sh/do-not-disrupt pod annotation (Go's
// time.ParseDuration, signed) both read them here. Defined in src/model/duration.cc.

#ifndef KARP_SRC_INTERNAL_DURATION_H_
#define KARP_SRC_INTERNAL_DURATION_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace karp {

// How ParseGoDuration treats a leading sign.
enum class DurationSign {
  kRejected,  // the wire format's non-negative durations: "-5m" and "+5m" are errors
  kAllowed,   // Go's time.ParseDuration: one optional leading '+' or '-'
};

// Parses a Go duration: "0" or a sequence of <decimal><unit> with units ns, us (µs), ms, s, m,
// h, e.g. "720h", "1h30m", "1.5s", "300ms", preceded by a sign only when `sign` allows it.
// Exact to the nanosecond (finer fractions are truncated, as Go does); at most ~292 years
// either way, as Go's int64 nanoseconds.
// Errors: InvalidArgument `invalid duration "<text>": <why>`.
[[nodiscard]] absl::StatusOr<absl::Duration> ParseGoDuration(
    std::string_view text, DurationSign sign = DurationSign::kRejected);

}  // namespace karp

#endif  // KARP_SRC_INTERNAL_DURATION_H_
