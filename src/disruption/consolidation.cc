// What both consolidation methods share: their candidates (ShouldDisrupt, docs/design.md §6.6)
// within the Underutilized budgets, and the candidate order.

#include <algorithm>

#include "disruption/budgets.h"
#include "disruption/loop.h"
#include "internal/strings.h"

namespace karp::disruption {

std::vector<const NodeView*> Loop::Sorted(std::vector<const NodeView*> v) const {
  const bool legacy = state_.options.candidate_order == CandidateOrder::kDisruptionCost;
  std::stable_sort(v.begin(), v.end(), [&](const NodeView* a, const NodeView* b) {
    if (legacy) {
      if (a->disruption_cost != b->disruption_cost) return a->disruption_cost < b->disruption_cost;
    } else if (a->savings_ratio() != b->savings_ratio()) {
      return a->savings_ratio() > b->savings_ratio();
    }
    if (a->created != b->created) return a->created < b->created;  // older first
    return a->name < b->name;
  });
  return v;
}

std::vector<const NodeView*> Loop::ConsolidationCandidates(KeptReasons* kept) const {
  std::vector<const NodeView*> consolidation;
  for (const NodeView& v : views_) {
    // Drifted nodes that drift could not disrupt (budget, no placement) remain candidates:
    // the methods are independent (docs/design.md §6.1).
    if (!v.reject.empty() || v.empty()) continue;
    if (v.pool->replicas) continue;
    if (!v.pool->consolidate_after) {
      AddKeptReason(kept, v.name, "consolidateAfter Never");
      continue;
    }
    if (v.pool->consolidation_policy == ConsolidationPolicy::kWhenEmpty) {
      AddKeptReason(kept, v.name, "consolidationPolicy WhenEmpty");
      continue;
    }
    if (v.it == nullptr || v.zone.empty() || v.capacity_type.empty()) {
      AddKeptReason(kept, v.name, "instance type, zone or capacity type unknown");
      continue;
    }
    if (!v.consolidatable) {
      AddKeptReason(kept, v.name, v.consolidatable_reason);
      continue;
    }
    if (marginal_ && v.price <= kPrepaidBelow) {
      AddKeptReason(kept, v.name, std::string(kPrepaidReason));
      continue;
    }
    consolidation.push_back(&v);
  }
  std::map<std::string, int64_t> left =
      BuildBudgets(snap_, views_, kReasonUnderutilized, state_.now, deleting_);
  std::vector<const NodeView*> within_budget;
  for (const NodeView* v : Sorted(consolidation)) {
    if (left[v->pool->name()] <= 0) {
      AddKeptReason(kept, v->name,
                    internal::StrCat("budget: nodepool \"", v->pool->name(),
                                     "\" allows no more Underutilized disruptions"));
      continue;
    }
    --left[v->pool->name()];
    within_budget.push_back(v);
  }
  return within_budget;
}

}  // namespace karp::disruption
