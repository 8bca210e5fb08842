// Preparation of a Scheduler (once per Scheduler, docs/design.md §5): the NodePool-level state
// (NodeClaim templates with their indexes and daemon groups, the topology domain universe),
// then the cluster-level state given it (existing nodes, in-flight NodeClaims, limits).

#ifndef KARP_SRC_SCHEDULING_PREPARE_H_
#define KARP_SRC_SCHEDULING_PREPARE_H_

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/scheduler.h"
#include "scheduling/access.h"
#include "scheduling/scheduler_internal.h"

namespace karp::scheduling {

// The NodePool-level state of `snapshot` (not validated here).
// Errors: InvalidArgument for a NodePool whose requirements do not parse.
absl::StatusOr<std::shared_ptr<const PoolsState>> PreparePools(const ClusterSnapshot& snapshot,
                                                               const PoolCatalogs& catalogs,
                                                               const SchedulerOptions& options);

// The scheduler state over `snapshot` with the NodePool-level state `pools` (from
// PreparePools of this snapshot or of one with the same NodePools, DaemonSets and catalogs).
std::shared_ptr<scheduling::SchedulerState> PrepareCluster(
    std::shared_ptr<const ClusterSnapshot> snapshot, std::shared_ptr<const PoolsState> pools,
    const PoolCatalogs& catalogs, const SchedulerOptions& options);

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_PREPARE_H_
