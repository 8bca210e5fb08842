// `karp solve` and `karp consolidate` JSON outputs (docs/formats.md §3): WriteSolveResult,
// WriteNodeClaims and WriteConsolidationPlan, streamed by JsonWriter (no document is built;
// the text is the one nlohmann's ordered_json gave, keys in the order written here).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "json/codec_util.h"
#include "json/json_writer.h"
#include "karp/json/codec.h"
#include "karp/labels.h"

namespace karp::json {
namespace {

using codec_internal::FormatGoDuration;
using codec_internal::FormatGoDurationOrNever;
using codec_internal::JsonWriter;

// Prices are sums of float64 list prices; round away representation noise.
double RoundPrice(double p) { return std::round(p * 1e9) / 1e9; }

// {name: quantity text} (karp::FormatQuantity).
void WriteResources(JsonWriter& w, const ResourceList& r) {
  w.BeginObject();
  r.ForEach(
      [&](std::string_view name, int64_t value) { w.Member(name, FormatQuantity(value, name)); });
  w.EndObject();
}

// [{key, value (when not empty), effect}].
void WriteTaints(JsonWriter& w, const std::vector<Taint>& taints) {
  w.BeginArray();
  for (const Taint& t : taints) {
    w.BeginObject();
    w.Member("key", t.key);
    if (!t.value.empty()) w.Member("value", t.value);
    w.Member("effect", TaintEffectName(t.effect));
    w.EndObject();
  }
  w.EndArray();
}

// [{key, operator, values (when not empty), minValues (when set)}].
void WriteRequirements(JsonWriter& w, const std::vector<NodeSelectorRequirement>& reqs) {
  w.BeginArray();
  for (const NodeSelectorRequirement& r : reqs) {
    w.BeginObject();
    w.Member("key", r.key);
    w.Member("operator", OperatorName(r.op));
    if (!r.values.empty()) {
      w.Key("values");
      w.RecurringStringList(r.values);
    }
    if (r.min_values) {
      w.Key("minValues");
      w.Int(*r.min_values);
    }
    w.EndObject();
  }
  w.EndArray();
}

void WriteLaunch(JsonWriter& w, const Launch& launch) {
  w.BeginObject();
  w.Member("instanceType", launch.instance_type);
  w.Member("zone", launch.zone);
  w.Member("capacityType", launch.capacity_type);
  w.Key("price");
  w.Double(RoundPrice(launch.price));
  if (launch.list_price != launch.price) {  // under a pricing model: price is the marginal cost
    w.Key("listPrice");
    w.Double(RoundPrice(launch.list_price));
  }
  if (launch.price_estimated) {
    w.Key("priceEstimated");
    w.Bool(true);
  }
  w.EndObject();
}

void WriteClaim(JsonWriter& w, const NewNodeClaim& nc) {
  w.BeginObject();
  w.Member("name", nc.name);
  w.Member("nodePool", nc.node_pool);
  w.Key("instanceTypes");
  w.RecurringStringList(nc.instance_types);
  w.Key("requirements");
  WriteRequirements(w, nc.requirements.ToApi());
  w.Key("requests");
  WriteResources(w, nc.requests);
  w.Key("pods");
  w.StringList(nc.pods);
  if (nc.launch) {
    w.Key("launch");
    WriteLaunch(w, *nc.launch);
  }
  w.EndObject();
}

void WriteCommand(JsonWriter& w, const DisruptionCommand& cmd) {
  w.BeginObject();
  w.Member("decision", DisruptionDecisionName(cmd.decision));
  w.Member("reason", DisruptionReasonName(cmd.reason));
  w.Key("candidates");
  w.StringList(cmd.candidates);
  w.Key("replacements");
  w.BeginArray();
  for (const NewNodeClaim& nc : cmd.replacements) WriteClaim(w, nc);
  w.EndArray();
  w.Key("savingsPerHour");
  w.Double(RoundPrice(cmd.savings_per_hour));
  w.EndObject();
}

void WriteExisting(JsonWriter& w, const ExistingPlacement& e) {
  w.BeginObject();
  w.Member("name", e.name);
  if (e.in_flight) {
    w.Key("inFlight");
    w.Bool(true);
  }
  w.Key("pods");
  w.StringList(e.pods);
  w.EndObject();
}

void WritePodError(JsonWriter& w, const PodError& e) {
  w.BeginObject();
  w.Member("pod", e.pod);
  w.Member("message", e.message);
  w.EndObject();
}

// The spec of a NodeClaim to create (WriteNodeClaims); `pool` may be null.
void WriteNodeClaimSpec(JsonWriter& w, const NewNodeClaim& nc, const NodePool* pool) {
  w.BeginObject();
  w.Key("requirements");
  WriteRequirements(w, nc.requirements.ToApi());
  w.Key("resources");
  w.BeginObject();
  w.Key("requests");
  WriteResources(w, nc.requests);
  w.EndObject();
  if (!nc.taints.empty()) {
    w.Key("taints");
    WriteTaints(w, nc.taints);
  }
  if (!nc.startup_taints.empty()) {
    w.Key("startupTaints");
    WriteTaints(w, nc.startup_taints);
  }
  if (pool != nullptr) {
    w.Key("nodeClassRef");
    w.BeginObject();
    w.Member("group", pool->node_class_ref.group);
    w.Member("kind", pool->node_class_ref.kind);
    w.Member("name", pool->node_class_ref.name);
    w.EndObject();
    w.Member("expireAfter", FormatGoDurationOrNever(pool->expire_after));
    if (pool->termination_grace_period) {
      w.Member("terminationGracePeriod", FormatGoDuration(*pool->termination_grace_period));
    }
  }
  w.EndObject();
}

// The cost packing's report (summary.packing).
void WritePacking(JsonWriter& w, const PackingReport& p) {
  w.Key("packing");
  w.BeginObject();
  w.Member("mode", "cost");
  w.Key("faithfulPricePerHour");
  w.Double(RoundPrice(p.faithful_price_per_hour));
  w.Key("attempts");
  w.Int(p.attempts);
  w.Key("faithfulKept");
  w.Bool(p.faithful_kept);
  if (p.stopped_early) {
    w.Key("stoppedEarly");
    w.Bool(true);
  }
  w.EndObject();
}

// The re-pack mode's figures (summary of a re-pack plan only; faithful plans keep their bytes).
void WriteRepackSummary(JsonWriter& w, const RepackSummary& r) {
  w.Member("mode", "repack");
  w.Key("priceBeforePerHour");
  w.Double(RoundPrice(r.price_before_per_hour));
  w.Key("priceAfterPerHour");
  w.Double(RoundPrice(r.price_after_per_hour));
  w.Key("lowerBoundPerHour");
  w.Double(RoundPrice(r.lower_bound_per_hour));
  w.Key("allPodsLowerBoundPerHour");
  w.Double(RoundPrice(r.all_pods_lower_bound_per_hour));
  w.Key("evictions");
  w.Int(r.evictions);
  w.Key("rounds");
  w.Int(r.rounds);
  if (r.faithful_plan) {
    w.Key("faithfulPlan");
    w.Bool(true);
  }
}

// About the size of the text of `names` as an indented array at depth 3 (what claims list),
// to reserve the output once.
size_t ListBytes(const std::vector<std::string>& names, int indent) {
  const size_t per_line = 4 + 4 * static_cast<size_t>(std::max(indent, 0));
  size_t n = 0;
  for (const std::string& s : names) n += s.size() + per_line;
  return n;
}

size_t ClaimBytes(const NewNodeClaim& nc, int indent) {
  return ListBytes(nc.instance_types, indent) + ListBytes(nc.pods, indent) + 1024;
}

}  // namespace

std::string WriteConsolidationPlan(const ConsolidationPlan& plan, int indent) {
  JsonWriter w(indent);
  w.BeginObject();
  w.Key("commands");
  w.BeginArray();
  for (const DisruptionCommand& cmd : plan.commands) WriteCommand(w, cmd);
  w.EndArray();
  w.Key("kept");
  w.BeginArray();
  for (const KeptNode& k : plan.kept) {
    w.BeginObject();
    w.Member("node", k.node);
    w.Member("reason", k.reason);
    w.EndObject();
  }
  w.EndArray();
  w.Key("summary");
  w.BeginObject();
  w.Key("nodes");
  w.Int(plan.node_count);
  w.Key("candidates");
  w.Int(plan.candidate_count);
  w.Key("commands");
  w.Int(static_cast<int64_t>(plan.commands.size()));
  w.Key("savingsPerHour");
  w.Double(RoundPrice(plan.savings_per_hour));
  if (plan.repack) WriteRepackSummary(w, *plan.repack);
  if (plan.stopped_early) {  // only then: unbounded plans print what they always printed
    w.Key("stoppedEarly");
    w.Bool(true);
  }
  w.EndObject();
  w.EndObject();
  return w.Take();
}

namespace {

// The document of WriteSolveResult, into `w`.
void WriteSolveResultTo(JsonWriter& w, const SolveResult& result, int skipped_objects,
                        const std::vector<std::string>* skipped,
                        const std::vector<std::string>* warnings = nullptr) {
  int scheduled = 0;
  w.BeginObject();
  w.Key("nodeClaims");
  w.BeginArray();
  for (const NewNodeClaim& nc : result.node_claims) {
    scheduled += static_cast<int>(nc.pods.size());
    WriteClaim(w, nc);
  }
  w.EndArray();
  w.Key("existingNodes");
  w.BeginArray();
  for (const ExistingPlacement& e : result.existing_nodes) {
    scheduled += static_cast<int>(e.pods.size());
    WriteExisting(w, e);
  }
  w.EndArray();
  w.Key("podErrors");
  w.BeginArray();
  for (const PodError& e : result.pod_errors) WritePodError(w, e);
  w.EndArray();
  w.Key("summary");
  w.BeginObject();
  w.Key("pods");
  w.Int(result.pod_count);
  w.Key("scheduled");
  w.Int(scheduled);
  w.Key("nodeClaims");
  w.Int(static_cast<int64_t>(result.node_claims.size()));
  w.Key("launchPricePerHour");
  w.Double(RoundPrice(result.LaunchPricePerHour()));
  if (result.lower_bound_per_hour) {
    w.Key("lowerBoundPerHour");
    w.Double(RoundPrice(*result.lower_bound_per_hour));
    if (!result.lower_bound_method.empty()) w.Member("lowerBoundMethod", result.lower_bound_method);
  }
  w.Key("skippedObjects");
  w.Int(skipped_objects);
  if (skipped != nullptr && !skipped->empty()) {
    w.Key("skipped");
    w.StringList(*skipped);
  }
  if (warnings != nullptr && !warnings->empty()) {
    w.Key("warnings");
    w.StringList(*warnings);
  }
  if (result.timed_out) {
    w.Key("timedOut");
    w.Bool(true);
  }
  if (result.packing.mode == PackingMode::kCost) WritePacking(w, result.packing);
  w.EndObject();
  w.EndObject();
}

}  // namespace

std::string WriteSolveResult(const SolveResult& result, int skipped_objects, int indent) {
  size_t expected = 1024;
  for (const NewNodeClaim& nc : result.node_claims) expected += ClaimBytes(nc, indent);
  for (const ExistingPlacement& e : result.existing_nodes) expected += ListBytes(e.pods, indent);
  for (const PodError& e : result.pod_errors) expected += e.pod.size() + e.message.size() + 64;
  JsonWriter w(indent, expected);
  WriteSolveResultTo(w, result, skipped_objects, nullptr);
  return w.Take();
}

void WriteSolveResult(const SolveResult& result, int skipped_objects, std::ostream& out,
                      int indent) {
  JsonWriter w(indent, out);
  WriteSolveResultTo(w, result, skipped_objects, nullptr);
  w.Finish();
}

std::string WriteSolveResult(const SolveResult& result, const std::vector<std::string>& skipped,
                             int indent) {
  JsonWriter w(indent);
  WriteSolveResultTo(w, result, static_cast<int>(skipped.size()), &skipped);
  return w.Take();
}

void WriteSolveResult(const SolveResult& result, const std::vector<std::string>& skipped,
                      std::ostream& out, int indent) {
  JsonWriter w(indent, out);
  WriteSolveResultTo(w, result, static_cast<int>(skipped.size()), &skipped);
  w.Finish();
}

std::string WriteSolveResult(const SolveResult& result, const ClusterSnapshot& snapshot,
                             int indent) {
  JsonWriter w(indent);
  WriteSolveResultTo(w, result, static_cast<int>(snapshot.skipped.size()), &snapshot.skipped,
                     &snapshot.warnings);
  return w.Take();
}

void WriteSolveResult(const SolveResult& result, const ClusterSnapshot& snapshot, std::ostream& out,
                      int indent) {
  JsonWriter w(indent, out);
  WriteSolveResultTo(w, result, static_cast<int>(snapshot.skipped.size()), &snapshot.skipped,
                     &snapshot.warnings);
  w.Finish();
}

std::string WriteNodeClaims(const SolveResult& result, const ClusterSnapshot& snapshot,
                            int indent) {
  JsonWriter w(indent);
  w.BeginObject();
  w.Member("apiVersion", "v1");
  w.Member("kind", "List");
  w.Key("items");
  w.BeginArray();
  for (const NewNodeClaim& nc : result.node_claims) {
    w.BeginObject();
    w.Member("apiVersion", "karpenter.sh/v1");
    w.Member("kind", "NodeClaim");
    w.Key("metadata");
    w.BeginObject();
    w.Member("name", nc.name);
    w.Key("labels");
    w.StringMap(nc.labels);
    w.Key("annotations");
    w.StringMap(nc.annotations);
    w.EndObject();
    w.Key("spec");
    WriteNodeClaimSpec(w, nc, snapshot.FindNodePool(nc.node_pool));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace karp::json
