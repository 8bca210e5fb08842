// The instance the LP bounds of the cost lower bound share (quality/config_lp.h,
// quality/assignment_lp.h): node kinds with a price and a capacity per resource, and item
// classes (pods with equal requests and the same kinds) with a count, a size per resource, the
// kinds that may hold them and the hostname anti-affinity ("exclusive") sets they belong to.
// Internal; the model is in docs/lower-bound.md.
//
// Thread-safety: value types and pure functions.

#ifndef KARP_SRC_QUALITY_LP_INSTANCE_H_
#define KARP_SRC_QUALITY_LP_INSTANCE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"

namespace karp::quality {

struct LpKind {
  double price = 0;              // per hour, > 0
  std::vector<double> capacity;  // per resource, >= 0
};

struct LpItem {
  int64_t count = 0;           // items of this class, >= 1
  std::vector<double> size;    // per resource, >= 0
  std::vector<int> kinds;      // the kinds that may hold it (indexes into the kinds; sorted)
  std::vector<int> exclusive;  // the exclusive sets it belongs to (ids >= 0)
};

// Capacity checks are generous by this relative slack: a filling the slack admits wrongly only
// lowers a bound, never raises it above the true optimum (the bounds stay valid).
inline constexpr double kCapacitySlack = 1e-9;

// How many copies of `item` fit alone on `kind` (at most its count; one for an exclusive item).
int64_t MaxCopies(const LpItem& item, const LpKind& kind);

// OK when every item has a kind, count >= 1, `resources` sizes and non-negative exclusive sets,
// and fits alone on each of its kinds, which exist and have a price > 0 and `resources`
// capacities. Otherwise InvalidArgument naming the item or kind.
absl::Status CheckLpInput(const std::vector<LpKind>& kinds, const std::vector<LpItem>& items,
                          size_t resources);

// The number of exclusive sets: one more than the largest set id (0 without any).
int ExclusiveSetCount(const std::vector<LpItem>& items);

// One kept kind as the LPs see it: the items it may hold and how many of each fit alone.
struct KindItems {
  std::vector<int> items;       // sorted
  std::vector<int64_t> copies;  // parallel: MaxCopies
  std::vector<int> position;    // per item: its index in `items`, -1 when the kind cannot hold it
};

// The kinds worth keeping: of kinds with equal capacities and equal items, the cheapest (ties:
// the lowest index); a dropped kind is never needed by a minimum-price solution. Kinds no item
// may use are dropped. `kept` gets the kept kinds in index order, `kind_items` their items.
void KeepKinds(const std::vector<LpKind>& kinds, const std::vector<LpItem>& items,
               std::vector<LpKind>* kept, std::vector<KindItems>* kind_items);

}  // namespace karp::quality

#endif  // KARP_SRC_QUALITY_LP_INSTANCE_H_
