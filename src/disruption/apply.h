// Applying a disruption command to the in-memory snapshot between the loops of a plan.

#ifndef KARP_SRC_DISRUPTION_APPLY_H_
#define KARP_SRC_DISRUPTION_APPLY_H_

#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/scheduler.h"
#include "scheduling/access.h"

namespace karp::disruption {

// Applies a command to a snapshot in place: candidates removed, replacements added as
// initialized nodes, moved pods bound where the simulation put them (others pending), and a
// pod event on every receiving NodeClaim.
void Apply(ClusterSnapshot& snap, const DisruptionCommand& cmd, const SolveResult& placement,
           const scheduling::PoolCatalogs& catalogs, absl::Time now);

}  // namespace karp::disruption

#endif  // KARP_SRC_DISRUPTION_APPLY_H_
