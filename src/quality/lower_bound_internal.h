// karp::PriceLowerBound without its argument checks, for callers whose snapshot is already
// validated and whose pods are distinct and non-null (the scheduler's own result). Internal.

#ifndef KARP_SRC_QUALITY_LOWER_BOUND_INTERNAL_H_
#define KARP_SRC_QUALITY_LOWER_BOUND_INTERNAL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/lower_bound.h"
#include "karp/resources.h"
#include "quality/config_lp.h"

namespace karp::quality {

// The instance types each NodePool draws from: one catalog for every NodePool (converts
// implicitly), or one per NodePool by name. Refers to the catalogs; they must outlive it.
class Catalogs {
 public:
  Catalogs(const InstanceCatalog& shared);  // NOLINT(google-explicit-constructor)
  explicit Catalogs(const std::map<std::string, std::shared_ptr<const InstanceCatalog>>& by_pool);

  // The catalog of NodePool `pool`, or null when it has none.
  const InstanceCatalog* Of(const std::string& pool) const;
  // The well-known label keys of every catalog.
  const LabelSet& well_known() const { return well_known_; }

 private:
  const InstanceCatalog* shared_ = nullptr;
  const std::map<std::string, std::shared_ptr<const InstanceCatalog>>* by_pool_ = nullptr;
  LabelSet well_known_;
};

// PriceLowerBound(snapshot, catalog, pods) when `snapshot` passed ClusterSnapshot::Validate and
// `pods` are non-null with distinct keys: the same result, without checking either again.
absl::StatusOr<CostLowerBound> PriceLowerBoundUnchecked(const ClusterSnapshot& snapshot,
                                                        const Catalogs& catalogs,
                                                        const std::vector<const Pod*>& pods);

// As above with the configuration LP's options (quality/config_lp.h): the benchmarks lift its
// limits to measure how close the bound is to the LP's optimum.
absl::StatusOr<CostLowerBound> PriceLowerBoundUnchecked(const ClusterSnapshot& snapshot,
                                                        const Catalogs& catalogs,
                                                        const std::vector<const Pod*>& pods,
                                                        const ConfigLpOptions& lp_options);

// A plan for the cost packing (docs/design.md §13.2): the pods grouped into whole nodes near
// the assignment LP's solution (quality/assignment_lp.h RoundedNodes), pods of equal requests,
// class and anti-affinity sets as one item. Returns each pod's node number (from 0), -1 for
// pods no kind can host or that the rounding left out. Same preconditions as
// PriceLowerBoundUnchecked. Errors: those of the LP (Unavailable without an LP solver).
absl::StatusOr<std::vector<int>> LpPlanGroups(const ClusterSnapshot& snapshot,
                                              const Catalogs& catalogs,
                                              const std::vector<const Pod*>& pods);

// Capacity that may be bought at `price` beside the NodePools' kinds (an existing node that a
// plan may keep).
struct RoomOption {
  double price = 0;
  ResourceList capacity;
};

// A lower bound on the price of the new capacity (and kept `extra` options) that any placement
// of `pods` needs when `room` is free capacity any of them may use: for each set of pods the
// bound of karp/lower_bound.h considers (the union of every class, each component, the classes
// nested in each class), the fractional two-resource cover of the set's demand less `room`
// (clamped at 0) by the set's kinds and the `extra` options; the largest over all sets. Valid
// because in any placement the pods of a set use at most `room` of the free room, so the
// nodes of the set's kinds and the extra options bought hold at least the rest, and a
// fractional cover with more options and less demand only costs less. The components' bounds
// are not added (the room and the extra options are shared between them), and the node count
// is not a resource (pods that exclude each other may sit in the room). Same preconditions
// as PriceLowerBoundUnchecked; 0 when no pod can use a kind.
absl::StatusOr<double> PriceLowerBoundWithRoom(const ClusterSnapshot& snapshot,
                                               const Catalogs& catalogs,
                                               const std::vector<const Pod*>& pods,
                                               const ResourceList& room,
                                               const std::vector<RoomOption>& extra);

}  // namespace karp::quality

#endif  // KARP_SRC_QUALITY_LOWER_BOUND_INTERNAL_H_
