// NodeOverlay validation and price arithmetic (karp/node_overlay.h).

#include "karp/node_overlay.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "internal/strings.h"
#include "karp/labels.h"

namespace karp {
namespace {

bool Digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// `\d*\.?\d+` over the whole of `s`.
bool LooseDecimal(std::string_view s) {
  if (s.empty() || !Digit(s.back())) return false;
  size_t dots = 0;
  for (char c : s) {
    if (c == '.') {
      ++dots;
    } else if (!Digit(c)) {
      return false;
    }
  }
  if (dots > 1) return false;
  // A dot must be followed by a digit (the last character is one).
  return true;
}

absl::Status FieldError(std::string_view field, std::string_view why) {
  return absl::InvalidArgumentError(internal::StrCat(field, ": ", why));
}

// One requirement: the CRD's key and arity rules (kSchema), then the reference's
// ValidateRequirement (kRuntime).
absl::Status CheckRequirement(const NodeSelectorRequirement& r, NodeOverlayChecks checks) {
  if (r.key == kLabelHostname) {
    return absl::InvalidArgumentError(internal::StrCat("key ", r.key, " is restricted"));
  }
  const size_t slash = r.key.find('/');
  const std::string_view domain =
      slash == std::string::npos ? "" : std::string_view(r.key).substr(0, slash);
  const bool karpenter_domain =
      domain == "karpenter.sh" ||
      (domain.size() > 13 && domain.substr(domain.size() - 13) == ".karpenter.sh");
  if (karpenter_domain && r.key != kLabelCapacityType && r.key != kLabelNodePool) {
    return absl::InvalidArgumentError(
        internal::StrCat("key ", r.key, " is in the restricted domain karpenter.sh"));
  }
  if ((r.op == Operator::kIn || r.op == Operator::kNotIn) && r.values.empty()) {
    return absl::InvalidArgumentError(internal::StrCat("operator ", OperatorName(r.op), " on ",
                                                       r.key, " needs at least one value"));
  }
  if (checks == NodeOverlayChecks::kSchema) {
    absl::StatusOr<Requirement> parsed = Requirement::Create(r);  // operator arity
    return parsed.ok() ? absl::OkStatus() : parsed.status();
  }
  return ValidateRequirement(r);
}

}  // namespace

bool IsOverlayPrice(std::string_view text) {
  // ^\d+(\.\d+)?$
  const size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  if (whole.empty() || !std::all_of(whole.begin(), whole.end(), Digit)) return false;
  if (dot == std::string_view::npos) return true;
  const std::string_view fraction = text.substr(dot + 1);
  return !fraction.empty() && std::all_of(fraction.begin(), fraction.end(), Digit);
}

bool IsOverlayPriceAdjustment(std::string_view text) {
  if (text.size() < 2 || (text[0] != '+' && text[0] != '-')) return false;
  const bool plus = text[0] == '+';
  std::string_view body = text.substr(1);
  if (body.back() != '%') return LooseDecimal(body);  // a delta, either sign
  body.remove_suffix(1);
  if (plus) return LooseDecimal(body);  // any positive percentage
  if (body == "100") return true;
  // -\d{1,2}(\.\d+)?%
  const size_t dot = body.find('.');
  const std::string_view whole = body.substr(0, dot);
  if (whole.empty() || whole.size() > 2 || !std::all_of(whole.begin(), whole.end(), Digit)) {
    return false;
  }
  if (dot == std::string_view::npos) return true;
  const std::string_view fraction = body.substr(dot + 1);
  return !fraction.empty() && std::all_of(fraction.begin(), fraction.end(), Digit);
}

absl::StatusOr<double> AdjustedPrice(double price, std::string_view change) {
  if (change.empty()) return price;
  const std::string text(change);
  if (change[0] != '+' && change[0] != '-') {
    if (!IsOverlayPrice(change)) {
      return absl::InvalidArgumentError(internal::StrCat("invalid price \"", change, "\""));
    }
    return std::strtod(text.c_str(), nullptr);
  }
  if (!IsOverlayPriceAdjustment(change)) {
    return absl::InvalidArgumentError(
        internal::StrCat("invalid price adjustment \"", change, "\""));
  }
  double adjusted = 0;
  if (change.back() == '%') {
    const double percent = std::strtod(text.substr(0, text.size() - 1).c_str(), nullptr);
    adjusted = price * (1 + percent / 100);
  } else {
    adjusted = price + std::strtod(text.c_str(), nullptr);
  }
  return adjusted < 0 ? 0.0 : adjusted;
}

absl::Status ValidateNodeOverlay(const NodeOverlay& overlay, NodeOverlayChecks checks) {
  if (overlay.price && overlay.price_adjustment) {
    return FieldError("spec", "cannot set both 'price' and 'priceAdjustment'");
  }
  if (overlay.price && !IsOverlayPrice(*overlay.price)) {
    return FieldError(
        "spec.price",
        internal::StrCat("\"", *overlay.price, "\" is not an unsigned decimal (e.g. \"0.5\")"));
  }
  if (overlay.price_adjustment && !IsOverlayPriceAdjustment(*overlay.price_adjustment)) {
    return FieldError("spec.priceAdjustment",
                      internal::StrCat("\"", *overlay.price_adjustment,
                                       "\" is not a change such as \"+0.5\", \"-10%\""));
  }
  if (overlay.weight && (*overlay.weight < 1 || *overlay.weight > 10000)) {
    return FieldError("spec.weight", internal::StrCat(*overlay.weight, " is not in 1..10000"));
  }
  absl::Status capacity = absl::OkStatus();
  overlay.capacity.ForEach([&](std::string_view name, int64_t) {
    if (capacity.ok() && (name == kResourceCpu || name == kResourceMemory ||
                          name == kResourceEphemeralStorage || name == kResourcePods)) {
      capacity = FieldError(internal::StrCat("spec.capacity.", name),
                            "only extended resources may be overlaid (not cpu, memory, "
                            "ephemeral-storage or pods)");
    }
  });
  if (!capacity.ok()) return capacity;
  for (size_t i = 0; i < overlay.requirements.size(); ++i) {
    if (absl::Status s = CheckRequirement(overlay.requirements[i], checks); !s.ok()) {
      return FieldError(internal::StrCat("spec.requirements[", i, "]"), internal::Message(s));
    }
  }
  if (checks == NodeOverlayChecks::kRuntime) {
    // A number the format admits but no price can be ("1" followed by 400 zeros): karp keeps
    // prices below 10^15 per hour so that sums of them stay exact enough and finite.
    for (const std::optional<std::string>* text : {&overlay.price, &overlay.price_adjustment}) {
      if (!*text) continue;
      absl::StatusOr<double> p = AdjustedPrice(1, **text);
      if (!p.ok() || !std::isfinite(*p) || *p > 1e15) {
        return FieldError(text == &overlay.price ? "spec.price" : "spec.priceAdjustment",
                          internal::StrCat("\"", **text, "\" is out of range"));
      }
    }
  }
  return absl::OkStatus();
}

void OrderNodeOverlays(std::vector<NodeOverlay>& overlays) {
  std::stable_sort(overlays.begin(), overlays.end(),
                   [](const NodeOverlay& a, const NodeOverlay& b) {
                     const int32_t wa = a.weight.value_or(0), wb = b.weight.value_or(0);
                     if (wa != wb) return wa > wb;
                     return a.metadata.name > b.metadata.name;
                   });
}

// ---------------------------------------------------------------------------------------------
// ApplyNodeOverlays: the reference's overlay controller (validate, check conflicts, store)
// and instance-type store (apply), pkg/controllers/nodeoverlay/{controller,store}.go.

namespace {

// The price slot of one offering: the change that applies and the lowest weight that touched
// it (the reference's priceUpdate).
struct PriceSlot {
  std::string change;
  int32_t lowest_weight = 0;
  const NodeOverlay* last = nullptr;  // the overlay that set lowest_weight
};

// The capacity of one type: the merged entries, and the names and weight of the last overlay
// stored (the reference's capacityUpdate; the names are replaced, not merged, as there).
struct CapacitySlot {
  ResourceList update;
  ResourceList last_names;
  int32_t lowest_weight = 0;
  const NodeOverlay* last = nullptr;
};

struct TypeUpdate {
  std::map<size_t, PriceSlot> price;  // by offering index
  std::optional<CapacitySlot> capacity;
};

// One evaluated NodePool: its catalog, the requirements each of its types presents to an
// overlay (karpenter.sh/nodepool, template labels, the type's own) and the updates stored.
struct PoolState {
  const NodePool* pool = nullptr;
  std::shared_ptr<const InstanceCatalog> catalog;
  std::vector<Requirements> type_reqs;   // by index in catalog->instance_types()
  std::map<size_t, TypeUpdate> updates;  // by type index
};

// An overlay's selection in one pool: a type and its selected offerings.
struct Selection {
  size_t pool;
  size_t type;
  std::vector<size_t> offerings;
};

std::vector<Selection> Select(const Requirements& overlay_reqs,
                              const std::vector<PoolState>& pools) {
  std::vector<Selection> out;
  for (size_t p = 0; p < pools.size(); ++p) {
    const std::vector<InstanceType>& types = pools[p].catalog->instance_types();
    for (size_t t = 0; t < types.size(); ++t) {
      if (!pools[p].type_reqs[t].IsCompatible(overlay_reqs, nullptr)) continue;
      Selection s{p, t, {}};
      for (size_t o = 0; o < types[t].offerings.size(); ++o) {
        if (OfferingCompatible(overlay_reqs, types[t].offerings[o])) s.offerings.push_back(o);
      }
      if (!s.offerings.empty()) out.push_back(std::move(s));
    }
  }
  return out;
}

bool SharesName(const ResourceList& a, const ResourceList& b) {
  bool shared = false;
  a.ForEach([&](std::string_view name, int64_t) { shared = shared || b.Has(name); });
  return shared;
}

// Whether storing the overlay would meet an equal-weight overlay already stored on one of its
// selections (isOfferingUpdateConflicting, isCapacityUpdateConflicting): "" when not, else
// where (the first such selection in pool and type order).
std::string Conflict(const NodeOverlay& o, const std::vector<Selection>& selected,
                     const std::vector<PoolState>& pools) {
  const int32_t weight = o.weight.value_or(0);
  const bool prices = o.price || o.price_adjustment;
  auto where = [&](const Selection& s, const NodeOverlay& other, std::string_view what) {
    const InstanceType& it = pools[s.pool].catalog->instance_types()[s.type];
    return internal::StrCat("conflict with another overlay: nodeoverlay ", other.metadata.name,
                            " has the same weight (", weight, ") and sets the ", what,
                            " of instance type ", it.name, " in nodepool ",
                            pools[s.pool].pool->name());
  };
  for (const Selection& s : selected) {
    auto u = pools[s.pool].updates.find(s.type);
    if (u == pools[s.pool].updates.end()) continue;
    if (prices) {
      for (size_t off : s.offerings) {
        auto slot = u->second.price.find(off);
        if (slot != u->second.price.end() && slot->second.lowest_weight == weight) {
          return where(s, *slot->second.last, "price");
        }
      }
    }
    const std::optional<CapacitySlot>& c = u->second.capacity;
    if (!o.capacity.empty() && c && c->lowest_weight == weight &&
        SharesName(o.capacity, c->last_names)) {
      return where(s, *c->last, "capacity");
    }
  }
  return "";
}

void Store(const NodeOverlay& o, const std::vector<Selection>& selected,
           std::vector<PoolState>& pools) {
  const int32_t weight = o.weight.value_or(0);
  const std::optional<std::string>& change = o.price ? o.price : o.price_adjustment;
  if (!change && o.capacity.empty()) return;  // nothing stored (store.go returns early)
  for (const Selection& s : selected) {
    TypeUpdate& u = pools[s.pool].updates[s.type];
    if (change) {
      for (size_t off : s.offerings) {
        auto [slot, added] = u.price.try_emplace(off, PriceSlot{*change, weight, &o});
        if (!added) {  // the earlier change stays
          slot->second.lowest_weight = weight;
          slot->second.last = &o;
        }
      }
    }
    if (o.capacity.empty()) continue;
    if (!u.capacity) {
      u.capacity = CapacitySlot{o.capacity, o.capacity, weight, &o};
      continue;
    }
    o.capacity.ForEach([&](std::string_view name, int64_t value) {
      if (!u.capacity->update.Has(name)) u.capacity->update.Set(name, value);
    });
    u.capacity->last_names = o.capacity;
    u.capacity->lowest_weight = weight;
    u.capacity->last = &o;
  }
}

// `pool`'s catalog with its stored updates applied (the reference's ApplyAll), or its input
// catalog when nothing changes.
absl::StatusOr<std::shared_ptr<const InstanceCatalog>> Applied(const PoolState& pool) {
  if (pool.updates.empty()) return pool.catalog;
  std::vector<InstanceType> types = pool.catalog->instance_types();
  for (const auto& [index, u] : pool.updates) {
    InstanceType& it = types[index];
    for (const auto& [off, slot] : u.price) {
      Offering& offering = it.offerings[off];
      absl::StatusOr<double> price = AdjustedPrice(offering.price, slot.change);
      if (!price.ok()) return price.status();  // validated before it was stored
      offering.price = *price;
      offering.price_overlay_applied = true;
      // An absolute price is quoted by the overlay; an adjustment keeps the estimate's flag.
      if (!slot.change.empty() && slot.change[0] != '+' && slot.change[0] != '-') {
        offering.price_estimated = false;
      }
    }
    if (u.capacity && !u.capacity->update.empty()) {
      u.capacity->update.ForEach(
          [&](std::string_view name, int64_t value) { it.capacity.Set(name, value); });
      it.capacity_overlay_applied = true;
    }
  }
  absl::StatusOr<InstanceCatalog> made =
      InstanceCatalog::Create(std::move(types), pool.catalog->well_known_labels(), false);
  if (!made.ok()) return made.status();
  return std::make_shared<const InstanceCatalog>(*std::move(made));
}

// A key for the updates of a pool, so that pools with the same catalog and the same changes
// share one result.
std::string UpdatesKey(const PoolState& pool) {
  std::string key = internal::StrCat(reinterpret_cast<uintptr_t>(pool.catalog.get()), "|");
  for (const auto& [index, u] : pool.updates) {
    key += internal::StrCat(index, ":");
    for (const auto& [off, slot] : u.price) key += internal::StrCat(off, "=", slot.change, ",");
    if (u.capacity) {
      u.capacity->update.ForEach([&](std::string_view name, int64_t value) {
        key += internal::StrCat(name, "=", value, ",");
      });
    }
    key += ";";
  }
  return key;
}

}  // namespace

absl::StatusOr<NodeOverlayResult> ApplyNodeOverlays(
    const std::vector<NodePool>& node_pools, std::vector<NodeOverlay> overlays,
    const std::map<std::string, std::shared_ptr<const InstanceCatalog>>& catalogs_by_node_pool) {
  std::vector<PoolState> pools;
  for (const NodePool& np : node_pools) {
    auto c = catalogs_by_node_pool.find(np.name());
    if (c == catalogs_by_node_pool.end()) continue;  // not evaluated
    if (c->second == nullptr) {
      return absl::InvalidArgumentError(
          internal::StrCat("nodepool ", np.name(), ": catalog must not be null"));
    }
    PoolState state{&np, c->second, {}, {}};
    Requirements pool_reqs = Requirements::FromLabels(np.template_labels);
    pool_reqs.Add(Requirement::In(kLabelNodePool, {np.name()}));
    for (const InstanceType& it : c->second->instance_types()) {
      Requirements r = pool_reqs;
      r.Add(it.requirements);
      state.type_reqs.push_back(std::move(r));
    }
    pools.push_back(std::move(state));
  }
  OrderNodeOverlays(overlays);
  NodeOverlayResult result;
  for (const NodeOverlay& o : overlays) {
    NodeOverlayOutcome& outcome = result.overlays.emplace_back();
    outcome.name = o.metadata.name;
    absl::StatusOr<Requirements> reqs = Requirements::FromApi(o.requirements);
    absl::Status valid = ValidateNodeOverlay(o, NodeOverlayChecks::kRuntime);
    if (valid.ok() && !reqs.ok()) valid = reqs.status();
    if (!valid.ok()) {
      outcome.reason = std::string(kNodeOverlayRuntimeValidation);
      outcome.message = internal::Message(valid);
      continue;
    }
    const std::vector<Selection> selected = Select(*reqs, pools);
    if (std::string conflict = Conflict(o, selected, pools); !conflict.empty()) {
      outcome.reason = std::string(kNodeOverlayConflict);
      outcome.message = std::move(conflict);
      continue;
    }
    Store(o, selected, pools);
    outcome.selected = static_cast<int64_t>(selected.size());
  }
  std::map<std::string, std::shared_ptr<const InstanceCatalog>> made;  // by UpdatesKey
  for (const PoolState& pool : pools) {
    std::string key = UpdatesKey(pool);
    auto found = made.find(key);
    if (found == made.end()) {
      absl::StatusOr<std::shared_ptr<const InstanceCatalog>> c = Applied(pool);
      if (!c.ok()) {
        return absl::InvalidArgumentError(
            internal::StrCat("nodepool ", pool.pool->name(),
                             ": applying nodeoverlays: ", internal::Message(c.status())));
      }
      found = made.emplace(std::move(key), *std::move(c)).first;
    }
    result.by_node_pool[pool.pool->name()] = found->second;
  }
  return result;
}

}  // namespace karp
