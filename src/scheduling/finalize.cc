// Solver::Finalize (docs/design.md §5.16): each new NodeClaim's types ordered by price and
// truncated, its launch offering, requirements, labels and requests, shared between claims
// with the same type lists; the placements on existing nodes; the pod errors.

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "karp/pricing.h"
#include "scheduling/solver.h"

namespace karp::scheduling {
namespace {

constexpr std::string_view kMinValuesRelaxedTrue = "true";

// The price-ordered, truncated type list of a claim, shared by claims with the same template,
// offering mask and candidate types (common: many claims hold the same set of types).
struct FinalPlan {
  std::vector<int> kept_index;  // price order
  SharedStrings names;          // of kept_index, shared by the plan's claims
  // instance-type In the kept types: one list shared by every claim of this plan.
  std::optional<Requirement> instance_types;
  std::set<std::string> capacity_types;
  const Offering* best = nullptr;
  const InstanceType* best_it = nullptr;
  ResourceList min_overhead;
  absl::Status min_values;
  // Some kept type has a NodeOverlay price or capacity (the NodeClaim's overlay annotations).
  bool price_overlay = false;
  bool capacity_overlay = false;
};

// The claim's types ordered by their cheapest compatible available offering (ties: name, as
// template index order is name order), truncated to `max_types` (docs/design.md §5.16).
std::vector<int> PriceOrder(const Template& t, const std::vector<int>& types,
                            const std::vector<char>& mask, int max_types) {
  struct Priced {
    double price;
    int index;
  };
  std::vector<Priced> priced;
  priced.reserve(types.size());
  for (int i : types) {
    const InstanceType* it = t.instance_types[static_cast<size_t>(i)];
    const std::vector<int>& keys = t.offering_key_of[static_cast<size_t>(i)];
    double best = kNoPrice;
    for (size_t o = 0; o < keys.size(); ++o) {
      const Offering& off = it->offerings[o];
      if (off.available && mask[static_cast<size_t>(keys[o])]) best = std::min(best, off.price);
    }
    priced.push_back({best, i});
  }
  std::sort(priced.begin(), priced.end(), [](const Priced& a, const Priced& b) {
    if (a.price != b.price) return a.price < b.price;
    return a.index < b.index;
  });
  if (priced.size() > static_cast<size_t>(max_types)) {
    priced.resize(static_cast<size_t>(max_types));
  }
  std::vector<int> kept;
  kept.reserve(priced.size());
  for (const Priced& p : priced) kept.push_back(p.index);
  return kept;
}

// Daemon overhead: the per-key minimum over the claim's types' groups, taken before
// truncation as the reference's FinalizeScheduling does.
ResourceList MinDaemonOverhead(const Template& t, const std::vector<int>& types) {
  ResourceList min_overhead;
  for (size_t k = 0; k < types.size(); ++k) {
    const DaemonGroup& g =
        t.daemon_groups[static_cast<size_t>(t.daemon_group[static_cast<size_t>(types[k])])];
    if (k == 0) {
      min_overhead = g.overhead;
    } else {
      min_overhead.MinWith(g.overhead);
    }
  }
  return min_overhead;
}

// True if offering `off` of type `it` is a better launch than the plan's best so far:
// cheaper, then by capacity type, type name and zone.
bool BetterLaunch(const Offering* b, const InstanceType* b_it, const InstanceType* it,
                  const Offering& off) {
  if (b == nullptr) return true;
  if (off.price != b->price) return off.price < b->price;
  if (CapacityTypeRank(off.capacity_type) != CapacityTypeRank(b->capacity_type)) {
    return CapacityTypeRank(off.capacity_type) < CapacityTypeRank(b->capacity_type);
  }
  if (it->name != b_it->name) return it->name < b_it->name;
  return off.zone < b->zone;
}

// The plan's names, launch (cheapest compatible available offering) and capacity types.
void ChooseLaunch(const Template& t, const std::vector<char>& mask, FinalPlan* plan) {
  std::vector<char> capacity_type_seen(t.offering_keys.size(), 0);
  std::vector<std::string> names;
  names.reserve(plan->kept_index.size());
  for (int i : plan->kept_index) {
    const InstanceType* it = t.instance_types[static_cast<size_t>(i)];
    names.push_back(it->name);
    const std::vector<int>& keys = t.offering_key_of[static_cast<size_t>(i)];
    for (size_t o = 0; o < keys.size(); ++o) {
      const Offering& off = it->offerings[o];
      if (!off.available || !mask[static_cast<size_t>(keys[o])]) continue;
      capacity_type_seen[static_cast<size_t>(keys[o])] = 1;
      if (BetterLaunch(plan->best, plan->best_it, it, off)) {
        plan->best = &off;
        plan->best_it = it;
      }
    }
  }
  for (size_t k = 0; k < t.offering_keys.size(); ++k) {
    if (capacity_type_seen[k]) plan->capacity_types.insert(t.offering_keys[k].second);
  }
  plan->names = std::move(names);
}

std::shared_ptr<const FinalPlan> MakePlan(const Template& t, const std::vector<int>& types,
                                          const std::vector<char>& mask, const Requirements& reqs,
                                          const SchedulerOptions& options) {
  auto plan = std::make_shared<FinalPlan>();
  plan->kept_index = PriceOrder(t, types, mask, options.max_instance_types);
  if (options.min_values_policy == MinValuesPolicy::kStrict && reqs.HasMinValues()) {
    std::vector<const InstanceType*> kept_types;
    for (int i : plan->kept_index) kept_types.push_back(t.instance_types[static_cast<size_t>(i)]);
    absl::StatusOr<size_t> mv = SatisfiesMinValues(kept_types, reqs);
    if (!mv.ok()) plan->min_values = mv.status();
  }
  plan->min_overhead = MinDaemonOverhead(t, types);
  for (int i : plan->kept_index) {
    const InstanceType& it = *t.instance_types[static_cast<size_t>(i)];
    plan->price_overlay = plan->price_overlay || it.PriceOverlayApplied();
    plan->capacity_overlay = plan->capacity_overlay || it.capacity_overlay_applied;
  }
  ChooseLaunch(t, mask, plan.get());
  std::vector<int> by_name = plan->kept_index;
  std::sort(by_name.begin(), by_name.end());
  std::vector<std::string> sorted_names;
  sorted_names.reserve(by_name.size());
  for (int i : by_name) sorted_names.push_back(t.instance_types[static_cast<size_t>(i)]->name);
  plan->instance_types = Requirement::In(kLabelInstanceType, std::move(sorted_names));
  return plan;
}

// NodePool template labels, the nodepool label, and one value of each custom requirement.
std::map<std::string, std::string> ClaimLabels(const NodePool& pool, const Requirements& reqs,
                                               const LabelSet& well_known) {
  std::map<std::string, std::string> labels = pool.template_labels;
  labels[std::string(kLabelNodePool)] = pool.name();
  for (const Requirement& r : reqs) {
    if (well_known.Contains(r.key()) || RestrictedLabels().Contains(r.key()) ||
        r.key() == kLabelRegistered || r.key() == kLabelInitialized) {
      continue;
    }
    if (labels.count(r.key()) == 0) {
      std::string v = r.Any();
      if (!v.empty() || r.op() == Operator::kIn) labels[r.key()] = v;
    }
  }
  return labels;
}

PricedInstance PricedOf(const InstanceType& it, const Offering& off) {
  return {it.name, off.zone, off.capacity_type, off.price, off.reservation_id};
}

// Under a pricing model: the plan's launch of least marginal cost in `ledger` (ties: list
// price, then as BetterLaunch), which the ledger then holds.
Launch MarginalLaunch(const Template& t, const std::vector<char>& mask, const FinalPlan& plan,
                      PricingLedger& ledger) {
  const InstanceType* best_it = nullptr;
  const Offering* best = nullptr;
  double best_cost = kNoPrice;
  for (int i : plan.kept_index) {
    const InstanceType* it = t.instance_types[static_cast<size_t>(i)];
    const std::vector<int>& keys = t.offering_key_of[static_cast<size_t>(i)];
    for (size_t o = 0; o < keys.size(); ++o) {
      const Offering& off = it->offerings[o];
      if (!off.available || !mask[static_cast<size_t>(keys[o])]) continue;
      const double cost = ledger.Marginal(PricedOf(*it, off));
      if (best == nullptr || cost < best_cost ||
          (cost == best_cost && BetterLaunch(best, best_it, it, off))) {
        best = &off;
        best_it = it;
        best_cost = cost;
      }
    }
  }
  ledger.Add(PricedOf(*best_it, *best));
  return Launch{best_it->name,         best->zone, best->capacity_type, best_cost,
                best->price_estimated, best->price};
}

}  // namespace

// Plans by (template, offering mask, candidate types, minValues requirements), and the
// pricing ledger of the solve (null without a pricing model).
struct PlanCache {
  // Looked up, never iterated: hash order cannot reach a result.
  absl::flat_hash_map<std::tuple<const Template*, std::vector<char>, std::vector<int>, std::string>,
                      std::shared_ptr<const FinalPlan>>
      plans;
  std::unique_ptr<PricingLedger> ledger;
};

std::optional<NewNodeClaim> Solver::FinalizeClaim(
    ClaimState& claim, PlanCache& cache, std::map<std::string, int>& per_pool_count,
    std::map<std::string, std::string>& errors) const {
  const Template& t = *claim.claim_template;
  // The claim is spent once finalized: its requirements, types and pods move out.
  Requirements reqs = std::move(claim.requirements);
  reqs.Erase(kLabelHostname);
  if (!claim.reserved_ids.empty()) {
    reqs.Set(Requirement::In(kLabelCapacityType, {std::string(kCapacityTypeReserved)}));
  }
  std::vector<char> offering_mask = t.OfferingMask(reqs);
  const Requirement* it_req_before = reqs.Find(kLabelInstanceType);
  // Requirements that change minValues outcomes are part of the key.
  std::string min_values_key;
  if (reqs.HasMinValues()) {
    for (const Requirement& r : reqs) {
      if (r.min_values()) min_values_key += r.ToString() + ";";
    }
  }
  auto key = std::make_tuple(&t, std::move(offering_mask), std::move(claim.types),
                             std::move(min_values_key));
  auto found = cache.plans.find(key);
  if (found == cache.plans.end()) {
    std::shared_ptr<const FinalPlan> made =
        MakePlan(t, std::get<2>(key), std::get<1>(key), reqs, state_.options);
    found = cache.plans.emplace(std::move(key), std::move(made)).first;
  }
  // Valid through this call (no other plan is added before it returns).
  const std::vector<char>& mask = std::get<1>(found->first);
  const FinalPlan& plan = *found->second;
  if (!plan.min_values.ok()) {
    for (const std::string& pod : claim.pods) {
      errors[pod] = internal::StrCat(
          "pod didn\u2019t schedule because NodePool couldn\u2019t meet minValues requirements, "
          "validating minValues, ",
          plan.min_values.message());
    }
    return std::nullopt;
  }
  NewNodeClaim nc;
  nc.node_pool = t.pool->name();
  nc.name = internal::StrCat(nc.node_pool, "-", ++per_pool_count[nc.node_pool]);
  nc.instance_types = plan.names;
  Requirement it_req = *plan.instance_types;
  if (it_req_before != nullptr) it_req.set_min_values(it_req_before->min_values());
  reqs.Set(it_req);
  reqs.Set(Requirement::In(kLabelCapacityType,
                           {plan.capacity_types.begin(), plan.capacity_types.end()}));
  if (plan.best != nullptr && cache.ledger != nullptr) {
    nc.launch = MarginalLaunch(t, mask, plan, *cache.ledger);
  } else if (plan.best != nullptr) {
    nc.launch = Launch{plan.best_it->name,         plan.best->zone,
                       plan.best->capacity_type,   plan.best->price,
                       plan.best->price_estimated, plan.best->price};
  }
  nc.labels = ClaimLabels(*t.pool, reqs, state_.pools->well_known);
  reqs.Erase(kLabelRegistered);
  reqs.Erase(kLabelInitialized);
  nc.requirements = std::move(reqs);
  nc.requests = std::move(claim.requests);
  nc.requests.Add(plan.min_overhead);
  nc.pods = std::move(claim.pods);
  nc.annotations = t.pool->template_annotations;
  nc.annotations[std::string(kAnnotationMinValuesRelaxed)] =
      claim.min_values_relaxed ? std::string(kMinValuesRelaxedTrue) : "false";
  // nodeclaimtemplate.go ToNodeClaim: over the kept types.
  if (plan.price_overlay) nc.annotations[std::string(kAnnotationPriceOverlayApplied)] = "true";
  if (plan.capacity_overlay) {
    nc.annotations[std::string(kAnnotationCapacityOverlayApplied)] = "true";
  }
  nc.taints = t.pool->taints;
  nc.startup_taints = t.pool->startup_taints;
  return nc;
}

std::vector<ExistingPlacement> Solver::ExistingPlacements(
    std::map<std::string, std::string>& errors) const {
  std::vector<ExistingPlacement> placements;
  for (const ExistingNodeState& node : existing_) {
    if (node.pods.empty()) continue;
    if (simulation_ != nullptr && simulation_->consolidation && !node.init->initialized) {
      for (const std::string& pod : node.pods) {
        if (simulation_->moving.count(pod) == 0) continue;
        errors[pod] = internal::StrCat("would schedule against uninitialized nodeclaim/",
                                       node.init->name, ", node/", node.init->name);
      }
    }
    placements.push_back({node.init->name, node.init->in_flight, node.pods});
  }
  std::sort(placements.begin(), placements.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return placements;
}

SolveResult Solver::Finalize(std::map<std::string, std::string> errors, bool timed_out) {
  PlanCache cache;
  if (state_.options.pricing != nullptr) {
    std::vector<const InstanceCatalog*> catalogs = {state_.catalog.get()};
    for (const auto& [pool, catalog] : state_.catalogs_by_node_pool) {
      catalogs.push_back(catalog.get());
    }
    cache.ledger = state_.options.pricing->Start(RunningInstances(*state_.snapshot, catalogs));
  }
  SolveResult result;
  result.pod_count = static_cast<int>(refs_.size());
  result.timed_out = timed_out;
  std::map<std::string, int> per_pool_count;
  result.node_claims.reserve(claims_.size());  // no doubling: claims can be many and large
  for (const auto& claim : claims_) {
    std::optional<NewNodeClaim> nc = FinalizeClaim(*claim, cache, per_pool_count, errors);
    if (nc) result.node_claims.push_back(std::move(*nc));
  }
  result.existing_nodes = ExistingPlacements(errors);
  for (auto& [pod, message] : errors) result.pod_errors.push_back({pod, std::move(message)});
  return result;
}

}  // namespace karp::scheduling
