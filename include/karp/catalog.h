// File: karp/catalog.h
//
// InstanceCatalog: an immutable, indexed set of instance types with the queries the scheduler
// needs (compatible with requirements, fits resources, ordered by price, truncated), plus the
// label keys the catalog's provider registers as well-known.
//
// A catalog is built once (from the embedded AWS table, a catalog file, or a CloudProvider)
// and then shared read-only, typically as std::shared_ptr<const InstanceCatalog>.
//
// Example:
//   absl::StatusOr<karp::InstanceCatalog> cat = karp::InstanceCatalog::Create(types);
//   std::vector<const karp::InstanceType*> its = cat->Compatible(reqs);
//   karp::OrderByPrice(its, reqs);
//
// Thread-safety: immutable after Create(); safe to share between threads.

#ifndef KARP_CATALOG_H_
#define KARP_CATALOG_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/instance_type.h"
#include "karp/labels.h"

namespace karp {

class InstanceCatalog {
 public:
  InstanceCatalog() = default;

  // Builds a catalog. Types are kept sorted by name. `well_known` extends the core
  // WellKnownLabels(); when `register_label_keys` is true every label key used by an instance
  // type is registered as well-known too (what a provider does for its own label keys).
  // Errors: InvalidArgument for an empty or duplicate name, a negative capacity, a negative
  // or NaN price, or an offering without zone or capacity type; the message names the type.
  [[nodiscard]] static absl::StatusOr<InstanceCatalog> Create(std::vector<InstanceType> types,
                                                              const LabelSet& well_known = {},
                                                              bool register_label_keys = true);

  const std::vector<InstanceType>& instance_types() const { return types_; }
  size_t size() const { return types_.size(); }
  // By name; nullptr if absent. O(log n).
  const InstanceType* Find(std::string_view name) const;
  // Core well-known labels plus the provider's.
  const LabelSet& well_known_labels() const { return well_known_; }

  // Types whose requirements intersect `reqs` and that have an available offering compatible
  // with `reqs` (karpenter `InstanceTypes.Compatible` plus the Intersects check), in name order.
  std::vector<const InstanceType*> Compatible(const Requirements& reqs) const;

 private:
  std::vector<InstanceType> types_;
  LabelSet well_known_;
};

// karpenter `OrderByPrice`: ascending by the cheapest available offering compatible with
// `reqs` (types without one last); ties by name, so the order is deterministic.
void OrderByPrice(std::vector<const InstanceType*>& types, const Requirements& reqs);

// Keeps the types whose allocatable admits `requests` (karpenter Fits).
std::vector<const InstanceType*> FilterFits(const std::vector<const InstanceType*>& types,
                                            const ResourceList& requests);

// karpenter `SatisfiesMinValues`: the length of the shortest prefix of `types` whose values
// span every key's minValues, or an error `minValues requirement is not met for label(s)`
// naming each key and the count achieved (FailedPrecondition). 0 when `reqs` has no minValues.
[[nodiscard]] absl::StatusOr<size_t> SatisfiesMinValues(
    const std::vector<const InstanceType*>& types, const Requirements& reqs);

// karpenter `Truncate`: OrderByPrice, keep the first `max_types`, then check minValues on the
// kept list. Errors: FailedPrecondition from SatisfiesMinValues (unless `best_effort`).
[[nodiscard]] absl::StatusOr<std::vector<const InstanceType*>> Truncate(
    std::vector<const InstanceType*> types, const Requirements& reqs, size_t max_types,
    bool best_effort = false);

}  // namespace karp

#endif  // KARP_CATALOG_H_
