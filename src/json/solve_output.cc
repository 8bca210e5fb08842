// `karp solve` JSON outputs (docs/formats.md §3): WriteSolveResult and WriteNodeClaims.

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "json/codec_util.h"
#include "json/encoders.h"
#include "karp/json/codec.h"
#include "karp/labels.h"

namespace karp::json {
namespace {

using ordered = nlohmann::ordered_json;
using codec_internal::Dump;
using codec_internal::FormatGoDuration;
using codec_internal::FormatGoDurationOrNever;
using codec_internal::RequirementsJson;
using codec_internal::ResourcesJson;
using codec_internal::TaintsJson;

// Prices are sums of float64 list prices; round away representation noise.
double RoundPrice(double p) { return std::round(p * 1e9) / 1e9; }

}  // namespace

ordered ClaimJson(const NewNodeClaim& nc) {
  ordered c = ordered::object();
  c["name"] = nc.name;
  c["nodePool"] = nc.node_pool;
  c["instanceTypes"] = nc.instance_types;
  c["requirements"] = RequirementsJson<ordered>(nc.requirements.ToApi());
  c["requests"] = ResourcesJson<ordered>(nc.requests);
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
  if (result.lower_bound_per_hour) {
    summary["lowerBoundPerHour"] = RoundPrice(*result.lower_bound_per_hour);
  }
  summary["skippedObjects"] = skipped_objects;
  if (result.timed_out) summary["timedOut"] = true;
  if (result.packing.mode == PackingMode::kCost) {
    ordered packing = ordered::object();
    packing["mode"] = "cost";
    packing["faithfulPricePerHour"] = RoundPrice(result.packing.faithful_price_per_hour);
    packing["attempts"] = result.packing.attempts;
    packing["faithfulKept"] = result.packing.faithful_kept;
    if (result.packing.stopped_early) packing["stoppedEarly"] = true;
    summary["packing"] = std::move(packing);
  }
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
    spec["requirements"] = RequirementsJson<ordered>(nc.requirements.ToApi());
    spec["resources"] = ordered{{"requests", ResourcesJson<ordered>(nc.requests)}};
    if (!nc.taints.empty()) spec["taints"] = TaintsJson<ordered>(nc.taints);
    if (!nc.startup_taints.empty()) spec["startupTaints"] = TaintsJson<ordered>(nc.startup_taints);
    if (pool != nullptr) {
      spec["nodeClassRef"] = ordered{{"group", pool->node_class_ref.group},
                                     {"kind", pool->node_class_ref.kind},
                                     {"name", pool->node_class_ref.name}};
      spec["expireAfter"] = FormatGoDurationOrNever(pool->expire_after);
      if (pool->termination_grace_period) {
        spec["terminationGracePeriod"] = FormatGoDuration(*pool->termination_grace_period);
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
