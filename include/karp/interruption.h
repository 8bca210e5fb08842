// File: karp/interruption.h
//
// InterruptionEvent — a cloud's notice that a node is going away, in the cloud-neutral form the
// Consolidator acts on (ConsolidationOptions::interruptions, karp/consolidator.h). A provider
// adapter turns its own notices into these (for AWS: karp/aws/interruption.h).
//
// Value type; thread-compatible.

#ifndef KARP_INTERRUPTION_H_
#define KARP_INTERRUPTION_H_

#include <string>

#include "absl/time/time.h"

namespace karp {

// A cloud interruption notice for a node (spot interruption warning, scheduled maintenance,
// instance stopping or terminating). Rebalance recommendations only inform and are not events.
struct InterruptionEvent {
  std::string node;  // node name
  std::string kind;  // e.g. "spot-interruption", "scheduled-maintenance", "stopping", "terminating"
  absl::Time deadline = absl::InfiniteFuture();
};

}  // namespace karp

#endif  // KARP_INTERRUPTION_H_
