// NodeOverlay (karpenter.sh/v1alpha1): adjusts the offering prices and adds capacity to the
// instance types its requirements select, per NodePool, as the reference's overlay controller
// and instance-type store do (docs/design.md §7.4 has the rules and their sources). This
// header holds the object, its validation (the reference's CRD rules and runtime validation),
// the price arithmetic, the order overlays apply in, and ApplyNodeOverlays: each NodePool's
// instance types with the overlays applied, and what became of each overlay.
//
// Example:
//   absl::StatusOr<karp::NodeOverlayResult> r =
//       karp::ApplyNodeOverlays(snapshot.node_pools, snapshot.node_overlays, by_node_pool);
//   if (!r.ok()) return r.status();
//   for (const karp::NodeOverlayOutcome& o : r->overlays)
//     if (!o.applied()) std::cerr << o.name << ": " << o.reason << ": " << o.message << "\n";
//   absl::StatusOr<karp::Scheduler> s = karp::Scheduler::Create(snapshot, r->by_node_pool);
//
// Thread-safety: value types and pure functions.

#ifndef KARP_NODE_OVERLAY_H_
#define KARP_NODE_OVERLAY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/catalog.h"
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

// Which of the reference's rules ValidateNodeOverlay checks.
enum class NodeOverlayChecks {
  // What the CRD's schema and CEL rules check when the object is written: an object that
  // fails them cannot exist in a cluster (the codec rejects it).
  kSchema,
  // kSchema plus the controller's runtime validation (qualified keys and their lengths,
  // label values, capacity types known for In): an overlay that fails it exists but is not
  // applied (ApplyNodeOverlays reports it).
  kRuntime,
};

// The overlay's own rules. kSchema: price and priceAdjustment formats and not both; capacity
// keys other than cpu, memory, ephemeral-storage and pods; weight in 1..10000; requirement
// keys not in the karpenter.sh domain (but karpenter.sh/capacity-type and
// karpenter.sh/nodepool) and not kubernetes.io/hostname; In/NotIn with values, Gt/Lt/Gte/Lte
// with one integer >= 0. kRuntime adds the reference's ValidateRequirement (qualified keys,
// label values, known capacity types for In) and karp's range: a price or change that would
// turn a price of 1 into more than 10^15 is refused. Errors: InvalidArgument naming the field
// ("spec.price: ...", "spec.requirements[0]: ..."). O(size of the overlay).
[[nodiscard]] absl::Status ValidateNodeOverlay(
    const NodeOverlay& overlay, NodeOverlayChecks checks = NodeOverlayChecks::kRuntime);

// `overlays` in the order they apply: weight descending (unset: 0), then name descending (the
// reference's order; of two overlays of equal weight that conflict, the later one by this
// order, i.e. the name that sorts first, is the one reported).
void OrderNodeOverlays(std::vector<NodeOverlay>& overlays);

// What became of one overlay (the reference's ValidationSucceeded condition).
struct NodeOverlayOutcome {
  std::string name;
  // "" when the overlay is applied (condition True); "RuntimeValidation" when it fails
  // ValidateNodeOverlay (kRuntime); "Conflict" when an overlay of the same weight already set
  // one of the prices (or capacity resources) it would set. Such an overlay changes nothing
  // anywhere.
  std::string reason;
  // The validation error, or "conflict with another overlay: " (the reference's message) and
  // which overlay, instance type and NodePool; empty when applied.
  std::string message;
  // (NodePool, instance type) pairs whose offerings or capacity the overlay selected
  // (0 for an overlay not applied, or one that selects nothing).
  int64_t selected = 0;

  bool applied() const { return reason.empty(); }
  friend bool operator==(const NodeOverlayOutcome& a, const NodeOverlayOutcome& b) {
    return a.name == b.name && a.reason == b.reason && a.message == b.message &&
           a.selected == b.selected;
  }
};

inline constexpr std::string_view kNodeOverlayConflict = "Conflict";
inline constexpr std::string_view kNodeOverlayRuntimeValidation = "RuntimeValidation";

struct NodeOverlayResult {
  // Each NodePool's instance types with the overlays applied: the input catalog object
  // itself for a NodePool no applied overlay changes; NodePools whose input catalog and
  // changes are the same share one catalog object.
  std::map<std::string, std::shared_ptr<const InstanceCatalog>> by_node_pool;
  // One per overlay, in application order (OrderNodeOverlays).
  std::vector<NodeOverlayOutcome> overlays;
};

// Applies `overlays` to the instance types of each NodePool, as the reference's overlay
// controller builds its store and its cloud-provider decorator reads it:
//  - selection: an overlay selects an instance type of a NodePool when its requirements are
//    compatible (strictly: a key the type side lacks matches only NotIn/DoesNotExist) with
//    karpenter.sh/nodepool In [pool], the pool's template labels and the type's
//    requirements, and at least one offering's zone and capacity type (available or not)
//    meets them; the pool's template requirements play no part;
//  - price (spec.price or spec.priceAdjustment, AdjustedPrice): per selected offering, the
//    first overlay in application order sets it, later ones leave it; a price overlay marks
//    the offering (Offering::price_overlay_applied);
//  - capacity: per selected type, merged by resource name, the first overlay setting a name
//    wins; the type's capacity gets those entries (replacing same-named ones), which
//    allocatable follows (InstanceType::capacity_overlay_applied);
//  - conflicts: an overlay whose weight equals the lowest weight already recorded on one of
//    its selected offerings (price), or whose capacity names meet the names the last overlay
//    of that weight set on one of its types, conflicts; it is reported and applies nowhere.
//    Overlays failing runtime validation are reported and skipped.
// Only NodePools of `node_pools` that have a catalog in `catalogs_by_node_pool` are
// evaluated; the result has entries for exactly those.
// Errors: InvalidArgument for a null catalog, or when an adjusted catalog is rejected by
// InstanceCatalog::Create (naming the overlay's type). Complexity: O(overlays x NodePools x
// types x offerings); NodePools sharing a catalog and template labels are evaluated once.
[[nodiscard]] absl::StatusOr<NodeOverlayResult> ApplyNodeOverlays(
    const std::vector<NodePool>& node_pools, std::vector<NodeOverlay> overlays,
    const std::map<std::string, std::shared_ptr<const InstanceCatalog>>& catalogs_by_node_pool);

}  // namespace karp

#endif  // KARP_NODE_OVERLAY_H_
