// Preference relaxation (docs/design.md §5.7, karpenter's preferences.go).

#ifndef KARP_SRC_SCHEDULING_PREFERENCES_H_
#define KARP_SRC_SCHEDULING_PREFERENCES_H_

#include "karp/objects.h"

namespace karp::scheduling {

// One relaxation step (docs/design.md §5.7). Returns false when nothing could be relaxed.
bool Relax(Pod& pod, bool tolerate_prefer_no_schedule);

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_PREFERENCES_H_
