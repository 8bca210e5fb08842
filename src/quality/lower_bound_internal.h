// karp::PriceLowerBound without its argument checks, for callers whose snapshot is already
// validated and whose pods are distinct and non-null (the scheduler's own result). Internal.

#ifndef KARP_SRC_QUALITY_LOWER_BOUND_INTERNAL_H_
#define KARP_SRC_QUALITY_LOWER_BOUND_INTERNAL_H_

#include <vector>

#include "absl/status/statusor.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/lower_bound.h"

namespace karp::quality {

// PriceLowerBound(snapshot, catalog, pods) when `snapshot` passed ClusterSnapshot::Validate and
// `pods` are non-null with distinct keys: the same result, without checking either again.
absl::StatusOr<CostLowerBound> PriceLowerBoundUnchecked(const ClusterSnapshot& snapshot,
                                                        const InstanceCatalog& catalog,
                                                        const std::vector<const Pod*>& pods);

}  // namespace karp::quality

#endif  // KARP_SRC_QUALITY_LOWER_BOUND_INTERNAL_H_
