// The simulator's reports (docs/simulator.md): the per-sample CSV and the summary table.

#include "karp/sim/simulator.h"

#include <string>
#include <vector>

#include "internal/strings.h"
#include "sim/format.h"

namespace karp::sim {
namespace {

// With commitments: the bill's split per policy (Summary::committed_cost and the others).
std::string CommitmentTable(const std::vector<SimResult>& results) {
  std::string out =
      "\n| policy | total cost $ | committed $ | of which discounted usage $ | on-demand $ | "
      "spot $ |\n|---|---:|---:|---:|---:|---:|\n";
  for (const SimResult& r : results) {
    const Summary& s = r.summary;
    internal::StrAppend(&out, "| ", r.policy, " | ", FormatFixed(s.total_cost, 2), " | ",
                        FormatFixed(s.committed_cost, 2), " | ", FormatFixed(s.discounted_cost, 2),
                        " | ", FormatFixed(s.on_demand_cost, 2), " | ", FormatFixed(s.spot_cost, 2),
                        " |\n");
  }
  return out;
}

}  // namespace

std::string WriteSamplesCsv(const std::vector<SimResult>& results) {
  std::string out =
      "policy,time_s,nodes,launching,pods_running,pods_pending,price_per_hour,disruptions,"
      "evictions\n";
  for (const SimResult& r : results) {
    for (const Sample& s : r.samples) {
      internal::StrAppend(&out, r.policy, ",", FormatSeconds(s.at), ",", s.nodes, ",", s.launching,
                          ",", s.pods_running, ",", s.pods_pending, ",",
                          FormatFixed(s.price_per_hour, 4), ",", s.disruptions, ",", s.evictions,
                          "\n");
    }
  }
  return out;
}

std::string WriteSummaryTable(const std::vector<SimResult>& results) {
  std::string out =
      "| policy | total cost $ | node-hours | max nodes | launches | pending p50 s | "
      "pending p99 s | evictions | disruptions | ICE | interruptions | never scheduled |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n";
  for (const SimResult& r : results) {
    const Summary& s = r.summary;
    std::string dis;
    for (const auto& [reason, n] : s.disruptions) {
      internal::StrAppend(&dis, dis.empty() ? "" : ", ", reason, " ", n);
    }
    if (dis.empty()) dis = "-";
    internal::StrAppend(&out, "| ", r.policy, " | ", FormatFixed(s.total_cost, 2), " | ",
                        FormatFixed(s.node_hours, 1), " | ", s.max_nodes, " | ", s.launches, " | ",
                        FormatFixed(s.pending_p50_seconds, 1), " | ",
                        FormatFixed(s.pending_p99_seconds, 1), " | ", s.evictions, " | ", dis,
                        " | ", s.capacity_errors, " | ", s.interruptions, " | ",
                        s.pods_never_scheduled, " |\n");
  }
  bool commitments = false;
  for (const SimResult& r : results) commitments = commitments || r.summary.has_commitments;
  if (commitments) out += CommitmentTable(results);
  return out;
}

}  // namespace karp::sim
