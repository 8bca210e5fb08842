// The scheduler's internal access seam: everything code outside src/scheduling/ may use of the
// scheduler beyond the public karp/scheduler.h. Its user:
//   - the consolidator (src/disruption/): schedulers over shared, already validated snapshots
//     that reuse the NodePool-level state of the previous loop (CreateUnchecked, PoolsOf), and
//     consolidation simulations (Simulate, Simulation);
// Scheduler befriends only scheduling::Access; nothing else here touches its private state.

#ifndef KARP_SRC_SCHEDULING_ACCESS_H_
#define KARP_SRC_SCHEDULING_ACCESS_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/scheduler.h"
#include "karp/taints.h"

namespace karp::scheduling {

// The instance types of each NodePool: one catalog for every pool (a shared_ptr converts
// implicitly), or one per pool by name.
struct PoolCatalogs {
  PoolCatalogs() = default;
  PoolCatalogs(std::shared_ptr<const InstanceCatalog> shared_catalog,  // NOLINT: implicit
               std::map<std::string, std::shared_ptr<const InstanceCatalog>> by_pool = {})
      : shared(std::move(shared_catalog)), by_node_pool(std::move(by_pool)) {}

  std::shared_ptr<const InstanceCatalog> shared;
  std::map<std::string, std::shared_ptr<const InstanceCatalog>> by_node_pool;

  // The catalog of `pool`, or null.
  std::shared_ptr<const InstanceCatalog> Of(const std::string& pool) const;
  // The catalog to look up the instance type of a node of `pool`: Of(pool), else the first
  // per-pool catalog.
  std::shared_ptr<const InstanceCatalog> ForNodeOf(const std::string& pool) const;
  // *ForNodeOf(pool), or an empty catalog when there is none.
  const InstanceCatalog& TypesOf(const std::string& pool) const;
};

// What depends only on the NodePools, DaemonSets and catalogs (defined in
// scheduler_internal.h); opaque outside the scheduler.
struct PoolsState;
// Thresholds of the solver's indexes (scheduler_internal.h).
struct SolverTuning;

// A consolidation simulation (docs/design.md §6.6 SimulateScheduling): the scheduler's existing
// nodes minus `excluded`, with `pods` to place (pending pods and the candidates' pods).
struct Simulation {
  std::set<std::string> excluded;  // node / in-flight NodeClaim names
  // Pods that are not pending (moved from candidates): they skip nodes in
  // `under_consolidate_after`.
  std::set<std::string> moving;
  std::set<std::string> under_consolidate_after;
  // Placing a moving pod on an uninitialized node is an error (the reference's
  // "would schedule against uninitialized nodeclaim").
  bool consolidation = true;
  // Stop as soon as this many new claims are open whose NodePool has no minValues (such a claim
  // always survives finalization, so the result would have at least this many): the run then
  // returns an empty result and sets `*stopped`. 0: never stop (the default).
  int stop_at_new_claims = 0;
  bool* stopped = nullptr;
};

// The only friend of karp::Scheduler.
class Access {
 public:
  // A scheduler over a snapshot that is already validated and shared (consolidation loops).
  // `reuse`, when set, supplies the NodePool-level state of an earlier scheduler over a
  // snapshot with the same NodePools, DaemonSets and catalog (and NodePool objects at the same
  // addresses).
  static absl::StatusOr<Scheduler> CreateUnchecked(std::shared_ptr<const ClusterSnapshot> snapshot,
                                                   const PoolCatalogs& catalogs,
                                                   const SchedulerOptions& options,
                                                   std::shared_ptr<const PoolsState> reuse);
  // The NodePool-level state of schedulers over snapshots with the NodePools and DaemonSets of
  // `snapshot` (which must outlive it), for CreateUnchecked's `reuse`.
  // Errors: InvalidArgument for a NodePool whose requirements do not parse.
  static absl::StatusOr<std::shared_ptr<const PoolsState>> PreparePools(
      const ClusterSnapshot& snapshot, const PoolCatalogs& catalogs,
      const SchedulerOptions& options);
  // The NodePool-level state of a scheduler, for reuse.
  static std::shared_ptr<const PoolsState> PoolsOf(const Scheduler& scheduler);
  // A copy of `scheduler` whose solves use `tuning` (tests comparing the indexed and plain
  // walks; decisions are the same).
  static Scheduler WithTuning(const Scheduler& scheduler, const SolverTuning& tuning);
  // Runs a simulation on a prepared scheduler. Errors: InvalidArgument for duplicate pods.
  static absl::StatusOr<SolveResult> Simulate(const Scheduler& scheduler,
                                              const std::vector<const Pod*>& pods,
                                              const Simulation& simulation);
};

// The Access functions under their usual names.
inline absl::StatusOr<Scheduler> CreateUnchecked(
    std::shared_ptr<const ClusterSnapshot> snapshot, const PoolCatalogs& catalogs,
    const SchedulerOptions& options, std::shared_ptr<const PoolsState> reuse = nullptr) {
  return Access::CreateUnchecked(std::move(snapshot), catalogs, options, std::move(reuse));
}
inline absl::StatusOr<std::shared_ptr<const PoolsState>> PreparePoolsFor(
    const ClusterSnapshot& snapshot, const PoolCatalogs& catalogs,
    const SchedulerOptions& options) {
  return Access::PreparePools(snapshot, catalogs, options);
}
inline std::shared_ptr<const PoolsState> PoolsOf(const Scheduler& scheduler) {
  return Access::PoolsOf(scheduler);
}
inline absl::StatusOr<SolveResult> Simulate(const Scheduler& scheduler,
                                            const std::vector<const Pod*>& pods,
                                            const Simulation& simulation) {
  return Access::Simulate(scheduler, pods, simulation);
}

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_ACCESS_H_
