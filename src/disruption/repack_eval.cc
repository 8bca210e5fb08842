// Re-pack consolidation (docs/repack.md): validating one command — the consolidation
// simulation of its sources' pods, the reference's price filter on every replacement, the
// command's own savings and the Balanced policy. PDBs are the candidates' rule (a node whose
// pods' PDB allows no eviction is not movable), as in the faithful mode.

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "disruption/loop.h"
#include "disruption/price_filter.h"
#include "internal/strings.h"

namespace karp::disruption {

namespace {

// The replacements of a re-pack command: the staged target claims the simulation filled
// (holding the pods it put there; their placements leave `r`'s existing nodes), then the new
// claims it opened. A staged claim keeps only the types at least as large as its launch type
// in every resource, so that every option holds what the simulation placed.
std::vector<NewNodeClaim> Replacements(const std::vector<NewNodeClaim>& staged,
                                       const scheduling::PoolCatalogs& catalogs, SolveResult* r) {
  std::vector<NewNodeClaim> out;
  std::vector<ExistingPlacement> existing;
  for (ExistingPlacement& e : r->existing_nodes) {
    auto s = std::find_if(staged.begin(), staged.end(),
                          [&](const NewNodeClaim& nc) { return nc.name == e.name; });
    if (s == staged.end()) {
      existing.push_back(std::move(e));
      continue;
    }
    NewNodeClaim nc = *s;
    nc.pods = std::move(e.pods);
    const InstanceCatalog& catalog = catalogs.TypesOf(nc.node_pool);
    const InstanceType* launched = catalog.Find(nc.launch->instance_type);
    std::vector<std::string> types;
    for (const std::string& name : nc.instance_types) {
      const InstanceType* it = catalog.Find(name);
      if (it != nullptr && launched != nullptr &&
          Fits(launched->Allocatable(), it->Allocatable())) {
        types.push_back(name);
      }
    }
    nc.instance_types = std::move(types);
    out.push_back(std::move(nc));
  }
  r->existing_nodes = std::move(existing);
  for (NewNodeClaim& nc : r->node_claims) out.push_back(std::move(nc));
  r->node_claims.clear();
  return out;
}

}  // namespace

Evaluation Loop::RepackEvaluate(const std::vector<const NodeView*>& sources,
                                const std::set<std::string>& excluded,
                                const std::vector<NewNodeClaim>& staged,
                                SolveResult* placement) const {
  Evaluation e;
  if (!budget_->Take("repack")) {
    e.why_not = kNotEvaluated;
    return e;
  }
  // Pending pods are the provisioner's: the simulation places only the sources' pods.
  absl::StatusOr<SolveResult> r = Simulate(sources, /*consolidation=*/true, &excluded,
                                           /*pending=*/false);
  if (!r.ok()) {
    e.why_not = std::string(r.status().message());
    return e;
  }
  if (e.why_not = UnplacedMoves(sources, *r); !e.why_not.empty()) return e;
  DisruptionCommand cmd = CandidatesCommand(sources, DisruptionReason::kUnderutilized);
  const double candidates_price = cmd.savings_per_hour;
  for (const NewNodeClaim& nc : Replacements(staged, state_.catalogs, &*r)) {
    PriceFilterResult priced = RestrictAndPrice(
        nc, sources, sources.size() > 1, state_.catalogs.TypesOf(nc.node_pool), state_.options);
    if (!priced.claim) {
      e.why_not = std::move(priced.why_not);
      return e;
    }
    cmd.savings_per_hour -= priced.claim->launch->price;
    cmd.replacements.push_back(std::move(*priced.claim));
  }
  cmd.decision =
      cmd.replacements.empty() ? DisruptionDecision::kDelete : DisruptionDecision::kReplace;
  cmd.savings_per_hour = std::round(cmd.savings_per_hour * 1e9) / 1e9;
  if (cmd.savings_per_hour <= 0) {
    e.why_not =
        internal::StrCat("its ", cmd.replacements.size(), " replacement(s) cost no less than the ",
                         candidates_price, "/h of the node(s) they replace");
    return e;
  }
  if (e.why_not = BalancedVeto(sources, cmd.savings_per_hour); !e.why_not.empty()) return e;
  e.command = std::move(cmd);
  *placement = std::move(*r);
  return e;
}

}  // namespace karp::disruption
