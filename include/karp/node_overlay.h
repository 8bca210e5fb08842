// NodeOverlay (karpenter.sh/v1alpha1): adjusts the offering prices and adds capacity to the
// instance types its requirements select, per NodePool. The reference's behaviour, which this
// follows, is in docs/notes/nodeoverlay-reference.md. This header holds the object, its
// validation (the reference's CRD rules and runtime validation), the price arithmetic and the
// order overlays are applied in; applying them to a NodePool's instance types is not modelled
// yet (issue 37).
//
// Thread-safety: value types and pure functions.

#ifndef KARP_NODE_OVERLAY_H_
#define KARP_NODE_OVERLAY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"

namespace karp {

struct NodeOverlay {
  ObjectMeta metadata;  // cluster-scoped
  // spec.requirements: select instance types by their labels, offerings by zone and capacity
  // type, NodePools by karpenter.sh/nodepool and their template labels. Empty: everything.
  std::vector<NodeSelectorRequirement> requirements;
  // spec.price: an absolute price ("0.5"); spec.priceAdjustment: a change ("+0.5", "-0.25",
  // "+10%", "-15%", "-100%"). At most one of the two.
  std::optional<std::string> price;
  std::optional<std::string> price_adjustment;
  // spec.capacity: extended resources added to (or replacing those of) the selected types.
  ResourceList capacity;
  // spec.weight, 1..10000; unset counts as 0. Higher weights apply first.
  std::optional<int32_t> weight;

  friend bool operator==(const NodeOverlay& a, const NodeOverlay& b) {
    return a.metadata == b.metadata && a.requirements == b.requirements && a.price == b.price &&
           a.price_adjustment == b.price_adjustment && a.capacity == b.capacity &&
           a.weight == b.weight;
  }
};

// Whether `text` is a valid spec.price: an unsigned decimal ("43", "34.43").
bool IsOverlayPrice(std::string_view text);
// Whether `text` is a valid spec.priceAdjustment: a signed delta ("+5", "-2.5", "+.5"), a
// positive percentage ("+10%", "+298%"), a negative one of at most two integer digits
// ("-1%", "-99.5%"), or "-100%".
bool IsOverlayPriceAdjustment(std::string_view text);

// `price` after `change`, as the reference computes it: "" leaves it; an unsigned number
// replaces it; "+p%"/"-p%" multiply it by 1 + p/100; "+d"/"-d" add d; an adjusted price below
// 0 becomes 0. Errors: InvalidArgument when `change` is none of those.
[[nodiscard]] absl::StatusOr<double> AdjustedPrice(double price, std::string_view change);

// The overlay's own rules, as the reference's CRD and runtime validation check them: price and
// priceAdjustment formats and not both; capacity keys other than cpu, memory,
// ephemeral-storage and pods; weight in 1..10000; requirements with valid keys (not in the
// karpenter.sh domain but karpenter.sh/capacity-type and karpenter.sh/nodepool, not
// kubernetes.io/hostname), In/NotIn with values, Gt/Lt/Gte/Lte with one integer >= 0, and
// capacity types known for In. Errors: InvalidArgument naming the field ("spec.price", ...).
[[nodiscard]] absl::Status ValidateNodeOverlay(const NodeOverlay& overlay);

// `overlays` in the order they apply: weight descending (unset: 0), then name descending (the
// reference's order; of two overlays of equal weight that conflict, the later one by this
// order, i.e. the name that sorts first, is the one reported).
void OrderNodeOverlays(std::vector<NodeOverlay>& overlays);

}  // namespace karp

#endif  // KARP_NODE_OVERLAY_H_
