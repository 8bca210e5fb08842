// Evaluating a candidate set (the reference's SimulateScheduling and computeConsolidation):
// the scheduling simulation with the candidates removed, the check that every moving pod
// schedules, the command with its replacements and savings, and the Balanced policy's veto.

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <utility>

#include "disruption/loop.h"
#include "disruption/price_filter.h"
#include "internal/strings.h"

namespace karp::disruption {

// Under a pricing model, savings up to this ($/h) are rounding noise of marginal costs.
constexpr double kNoSavings = 1e-6;

// Why the simulation does not place every pod moving off `cands`; "" when it does.
std::string UnplacedMoves(const std::vector<const NodeView*>& cands, const SolveResult& r) {
  std::set<std::string> moving;
  for (const NodeView* c : cands) {
    for (const Pod* p : c->reschedulable) moving.insert(p->Key());
  }
  std::vector<std::string> errors;
  for (const PodError& pe : r.pod_errors) {
    if (moving.count(pe.pod) > 0) errors.push_back(internal::StrCat(pe.pod, " => ", pe.message));
  }
  if (errors.empty()) return "";
  return internal::StrCat(
      "not all pods would schedule, ", errors.front(),
      errors.size() > 1 ? internal::StrCat(" and ", errors.size() - 1, " other(s)") : "");
}

// A command for `cands` with no decision yet: sorted candidates, their price as savings.
DisruptionCommand CandidatesCommand(const std::vector<const NodeView*>& cands,
                                    DisruptionReason reason) {
  DisruptionCommand cmd;
  cmd.reason = reason;
  for (const NodeView* c : cands) {
    cmd.candidates.push_back(c->name);
    cmd.savings_per_hour += c->price;
  }
  std::sort(cmd.candidates.begin(), cmd.candidates.end());
  return cmd;
}

absl::StatusOr<SolveResult> Loop::Simulate(const std::vector<const NodeView*>& cands,
                                           bool consolidation,
                                           const std::set<std::string>* also_excluded, bool pending,
                                           bool* stopped) const {
  scheduling::Simulation sim;
  if (also_excluded != nullptr) sim.excluded = *also_excluded;
  if (stopped != nullptr) {
    sim.stop_at_new_claims = 2;
    sim.stopped = stopped;
  }
  std::vector<Pod> moved;
  for (const NodeView* c : cands) {
    sim.excluded.insert(c->name);
    for (const Pod* p : c->reschedulable) {
      Pod copy = *p;
      copy.node_name.clear();
      sim.moving.insert(copy.Key());
      moved.push_back(std::move(copy));
    }
  }
  // Only consolidation (and its validation) passes the reference's consolidation-simulation
  // flag: drift, expiration, emptiness and interruption do not skip such nodes.
  for (const NodeView& v : views_) {
    if (!consolidation || v.claim == nullptr || !v.initialized) continue;
    if (UnderConsolidateAfter(v, state_.now)) sim.under_consolidate_after.insert(v.name);
  }
  std::vector<const Pod*> pods;
  if (pending) pods = snap_.PendingPods();
  for (const Pod& p : moved) pods.push_back(&p);
  return scheduling::Simulate(*scheduler_, pods, sim);
}

Evaluation Loop::Evaluate(const std::vector<const NodeView*>& cands, bool multi,
                          DisruptionReason reason, SolveResult* placement) const {
  Evaluation e;
  const std::string_view method = reason != DisruptionReason::kUnderutilized
                                      ? DisruptionReasonName(reason)
                                  : multi ? "multi-node consolidation"
                                          : "single-node consolidation";
  if (!budget_->Take(method)) {
    e.why_not = kNotEvaluated;
    return e;
  }
  const bool consolidation = reason == DisruptionReason::kUnderutilized;
  // Drift and interruption take every new claim; the other methods need at most one, so their
  // simulation stops at the second (the reason then cannot give the full count).
  const bool take_all =
      reason == DisruptionReason::kDrifted || reason == DisruptionReason::kInterrupted;
  bool stopped = false;
  absl::StatusOr<SolveResult> r = Simulate(
      cands, consolidation, nullptr, pending_ || !consolidation, take_all ? nullptr : &stopped);
  if (!r.ok()) {
    e.why_not = std::string(r.status().message());
    return e;
  }
  if (stopped) {
    e.why_not = kNeedsTwoNewNodes;
    return e;
  }
  if (e.why_not = UnplacedMoves(cands, *r); !e.why_not.empty()) return e;
  // Every new claim counts, including claims that hold only pending pods: the reference
  // simulates with all pending pods and turns m nodes into at most one (computeConsolidation),
  // so while pending pods need new nodes of their own it consolidates nothing.
  std::vector<NewNodeClaim> replacements = r->node_claims;
  DisruptionCommand cmd = CandidatesCommand(cands, reason);
  // Under a pricing model: the fleet without the candidates, and what removing them saves.
  std::unique_ptr<PricingLedger> ledger;
  MarginalInput marginal;
  if (marginal_) {
    ledger = marginal_->Without(cands);
    marginal = {ledger.get(), marginal_->RemovalSavings(cands)};
    cmd.savings_per_hour = marginal.candidate_price;
  }
  if (take_all) {
    // Drift and interruption take every new claim, with no price check.
    cmd.decision =
        replacements.empty() ? DisruptionDecision::kDelete : DisruptionDecision::kReplace;
    for (NewNodeClaim& nc : replacements) {
      if (ledger) {
        cmd.savings_per_hour -=
            RepriceLaunch(&nc, state_.catalogs.TypesOf(nc.node_pool), ledger.get());
      } else if (nc.launch) {
        cmd.savings_per_hour -= nc.launch->price;
      }
    }
    cmd.replacements = std::move(replacements);
  } else if (replacements.empty()) {
    if (ledger && cmd.savings_per_hour <= kNoSavings) {
      e.why_not = std::string(kPrepaidReason);
      return e;
    }
    cmd.decision = DisruptionDecision::kDelete;
  } else if (replacements.size() > 1) {
    e.why_not =
        internal::StrCat("can't remove without creating ", replacements.size(), " candidates");
    return e;
  } else {
    PriceFilterResult priced = RestrictAndPrice(replacements[0], cands, multi,
                                                state_.catalogs.TypesOf(replacements[0].node_pool),
                                                state_.options, ledger ? &marginal : nullptr);
    if (!priced.claim) {
      e.why_not = std::move(priced.why_not);
      return e;
    }
    cmd.decision = DisruptionDecision::kReplace;
    cmd.savings_per_hour -= priced.claim->launch->price;
    cmd.replacements.push_back(std::move(*priced.claim));
  }
  cmd.savings_per_hour = std::round(cmd.savings_per_hour * 1e9) / 1e9;
  if (reason == DisruptionReason::kUnderutilized) {
    if (e.why_not = BalancedVeto(cands, cmd.savings_per_hour); !e.why_not.empty()) return e;
  }
  e.command = std::move(cmd);
  if (placement != nullptr) *placement = std::move(*r);
  return e;
}

// consolidationPolicy Balanced (docs/design.md §6.9, k = 2): every Balanced source pool must score
// (savings / pool cost) / (move disruption / pool disruption) >= 1/2; savings are attributed
// to pools pro rata by candidate price. Returns "" when approved.
std::string Loop::BalancedVeto(const std::vector<const NodeView*>& cands, double savings) const {
  constexpr double kThreshold = 0.5;
  double total_price = 0;
  for (const NodeView* c : cands) total_price += c->price;
  std::set<const NodePool*> pools;
  for (const NodeView* c : cands) {
    if (c->pool != nullptr && c->pool->consolidation_policy == ConsolidationPolicy::kBalanced) {
      pools.insert(c->pool);
    }
  }
  for (const NodePool* pool : pools) {
    double pool_price = 0, move_disruption = 0, pool_cost = 0, pool_disruption = 0;
    for (const NodeView* c : cands) {
      if (c->pool != pool) continue;
      pool_price += c->price;
      move_disruption += c->reschedule_cost;
    }
    for (const NodeView& v : views_) {
      if (v.pool != pool) continue;
      pool_cost += v.price;
      pool_disruption += v.reschedule_cost;
    }
    const double pool_savings = total_price > 0 ? savings * pool_price / total_price : 0;
    double score = 0;
    if (pool_savings <= 0 || pool_cost <= 0 || pool_disruption <= 0) {
      score = 0;
    } else if (move_disruption <= 0) {
      score = std::numeric_limits<double>::infinity();
    } else {
      score = (pool_savings / pool_cost) / (move_disruption / pool_disruption);
    }
    if (!(score >= kThreshold)) {
      return internal::StrCat("consolidationPolicy Balanced: nodepool \"", pool->name(),
                              "\" scores ", score, ", below ", kThreshold);
    }
  }
  return "";
}

}  // namespace karp::disruption
