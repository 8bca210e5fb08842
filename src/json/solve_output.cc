// `karp solve` JSON outputs (formats.md §3): WriteSolveResult and WriteNodeClaims.

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "karp/json/codec.h"
#include "karp/labels.h"

namespace karp::json {
namespace {

using ordered = nlohmann::ordered_json;

// Prices are sums of float64 list prices; round away representation noise.
double RoundPrice(double p) { return std::round(p * 1e9) / 1e9; }

ordered Quantities(const ResourceList& r) {
  ordered out = ordered::object();
  r.ForEach([&](std::string_view name, int64_t value) {
    out[std::string(name)] = FormatQuantity(value, name);
  });
  return out;
}

ordered RequirementsJson(const Requirements& reqs) {
  ordered out = ordered::array();
  for (const NodeSelectorRequirement& r : reqs.ToApi()) {
    ordered e = ordered::object();
    e["key"] = r.key;
    e["operator"] = std::string(OperatorName(r.op));
    if (r.op != Operator::kExists && r.op != Operator::kDoesNotExist) e["values"] = r.values;
    if (r.min_values) e["minValues"] = *r.min_values;
    out.push_back(std::move(e));
  }
  return out;
}

ordered TaintsJson(const std::vector<Taint>& taints) {
  ordered out = ordered::array();
  for (const Taint& t : taints) {
    ordered e = ordered::object();
    e["key"] = t.key;
    if (!t.value.empty()) e["value"] = t.value;
    e["effect"] = std::string(TaintEffectName(t.effect));
    out.push_back(std::move(e));
  }
  return out;
}

std::string DurationText(absl::Duration d) {
  // Go-style durations ("720h", "1h30m", "45s") for the NodeClaim spec.
  int64_t secs = absl::ToInt64Seconds(d);
  std::string out;
  if (secs >= 3600) {
    out += std::to_string(secs / 3600) + "h";
    secs %= 3600;
  }
  if (secs >= 60) {
    out += std::to_string(secs / 60) + "m";
    secs %= 60;
  }
  if (secs > 0 || out.empty()) out += std::to_string(secs) + "s";
  return out;
}

std::string Dump(const ordered& j, int indent) {
  return j.dump(indent < 0 ? -1 : indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

ordered ClaimJson(const NewNodeClaim& nc) {
  ordered c = ordered::object();
  c["name"] = nc.name;
  c["nodePool"] = nc.node_pool;
  c["instanceTypes"] = nc.instance_types;
  c["requirements"] = RequirementsJson(nc.requirements);
  c["requests"] = Quantities(nc.requests);
  c["pods"] = nc.pods;
  if (nc.launch) {
    ordered l = ordered::object();
    l["instanceType"] = nc.launch->instance_type;
    l["zone"] = nc.launch->zone;
    l["capacityType"] = nc.launch->capacity_type;
    l["price"] = RoundPrice(nc.launch->price);
    if (nc.launch->price_estimated) l["priceEstimated"] = true;
    c["launch"] = std::move(l);
  }
  return c;
}

std::string WriteConsolidationPlan(const ConsolidationPlan& plan, int indent) {
  ordered root = ordered::object();
  ordered commands = ordered::array();
  for (const DisruptionCommand& cmd : plan.commands) {
    ordered c = ordered::object();
    c["decision"] = std::string(DisruptionDecisionName(cmd.decision));
    c["reason"] = std::string(DisruptionReasonName(cmd.reason));
    c["candidates"] = cmd.candidates;
    ordered replacements = ordered::array();
    for (const NewNodeClaim& nc : cmd.replacements) replacements.push_back(ClaimJson(nc));
    c["replacements"] = std::move(replacements);
    c["savingsPerHour"] = RoundPrice(cmd.savings_per_hour);
    commands.push_back(std::move(c));
  }
  root["commands"] = std::move(commands);
  ordered kept = ordered::array();
  for (const KeptNode& k : plan.kept) {
    ordered o = ordered::object();
    o["node"] = k.node;
    o["reason"] = k.reason;
    kept.push_back(std::move(o));
  }
  root["kept"] = std::move(kept);
  ordered summary = ordered::object();
  summary["nodes"] = plan.nodes;
  summary["candidates"] = plan.candidates;
  summary["commands"] = plan.commands.size();
  summary["savingsPerHour"] = RoundPrice(plan.savings_per_hour);
  root["summary"] = std::move(summary);
  return Dump(root, indent);
}

std::string WriteSolveResult(const SolveResult& result, int skipped_objects, int indent) {
  ordered root = ordered::object();
  ordered claims = ordered::array();
  int scheduled = 0;
  for (const NewNodeClaim& nc : result.node_claims) {
    scheduled += static_cast<int>(nc.pods.size());
    claims.push_back(ClaimJson(nc));
  }
  root["nodeClaims"] = std::move(claims);
  ordered existing = ordered::array();
  for (const ExistingPlacement& e : result.existing_nodes) {
    ordered n = ordered::object();
    n["name"] = e.name;
    if (e.in_flight) n["inFlight"] = true;
    n["pods"] = e.pods;
    scheduled += static_cast<int>(e.pods.size());
    existing.push_back(std::move(n));
  }
  root["existingNodes"] = std::move(existing);
  ordered errors = ordered::array();
  for (const PodError& e : result.pod_errors) {
    ordered o = ordered::object();
    o["pod"] = e.pod;
    o["message"] = e.message;
    errors.push_back(std::move(o));
  }
  root["podErrors"] = std::move(errors);
  ordered summary = ordered::object();
  summary["pods"] = result.pods;
  summary["scheduled"] = scheduled;
  summary["nodeClaims"] = result.node_claims.size();
  summary["launchPricePerHour"] = RoundPrice(result.LaunchPricePerHour());
  summary["skippedObjects"] = skipped_objects;
  if (result.timed_out) summary["timedOut"] = true;
  root["summary"] = std::move(summary);
  return Dump(root, indent);
}

std::string WriteNodeClaims(const SolveResult& result, const ClusterSnapshot& snapshot,
                            int indent) {
  ordered items = ordered::array();
  for (const NewNodeClaim& nc : result.node_claims) {
    const NodePool* pool = snapshot.FindNodePool(nc.node_pool);
    ordered o = ordered::object();
    o["apiVersion"] = "karpenter.sh/v1";
    o["kind"] = "NodeClaim";
    ordered meta = ordered::object();
    meta["name"] = nc.name;
    meta["labels"] = nc.labels;
    meta["annotations"] = nc.annotations;
    o["metadata"] = std::move(meta);
    ordered spec = ordered::object();
    spec["requirements"] = RequirementsJson(nc.requirements);
    spec["resources"] = ordered{{"requests", Quantities(nc.requests)}};
    if (!nc.taints.empty()) spec["taints"] = TaintsJson(nc.taints);
    if (!nc.startup_taints.empty()) spec["startupTaints"] = TaintsJson(nc.startup_taints);
    if (pool != nullptr) {
      spec["nodeClassRef"] = ordered{{"group", pool->node_class_ref.group},
                                     {"kind", pool->node_class_ref.kind},
                                     {"name", pool->node_class_ref.name}};
      spec["expireAfter"] = pool->expire_after ? DurationText(*pool->expire_after) : "Never";
      if (pool->termination_grace_period) {
        spec["terminationGracePeriod"] = DurationText(*pool->termination_grace_period);
      }
    }
    o["spec"] = std::move(spec);
    items.push_back(std::move(o));
  }
  ordered root = ordered::object();
  root["apiVersion"] = "v1";
  root["kind"] = "List";
  root["items"] = std::move(items);
  return Dump(root, indent);
}

}  // namespace karp::json
