// File: karp/json/command_io.h
//
// What the `karp` CLI and the C API (karp/c/karp.h) share, so that both print the same bytes:
// snapshots from in-memory inputs, the run options of the C API as a JSON object, and the
// outputs of `karp solve`, `karp consolidate` and `karp catalog` in each format (json, yaml,
// nodeclaims), exactly as the CLI writes them to standard output.
//
// Example:
//   absl::StatusOr<karp::ClusterSnapshot> snap =
//       karp::json::ParseSnapshotInputs({{"pods.json", pods_text}, {"pools.yaml", pools_text}});
//   ...
//   absl::StatusOr<std::string> out = karp::json::SolveOutput(result, *snap, "yaml");
//
// Thread-safety: all functions are thread-safe (no shared state). Errors are absl::Status
// values; nothing throws.

#ifndef KARP_JSON_COMMAND_IO_H_
#define KARP_JSON_COMMAND_IO_H_

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/json/codec.h"
#include "karp/scheduler.h"
#include "karp/topology_defaults.h"

namespace karp::json {

// One input text (JSON, or YAML with one or more documents) and the name it has in errors.
struct Input {
  std::string source;
  std::string text;
};

// ParseSnapshot over several inputs merged into one snapshot, as ReadSnapshotFiles merges
// files: an object defined twice, in one input or across inputs, is an error naming both
// places; older-API objects are converted and workloads expanded as ReadSnapshotFiles does
// (per `options`; max_input_bytes does not apply to texts already in memory).
// Errors: InvalidArgument `<source>: <path>: <what>`; `no objects in <source>`;
// ResourceExhausted when workloads would create too many pods. O(total input size).
[[nodiscard]] absl::StatusOr<ClusterSnapshot> ParseSnapshotInputs(const std::vector<Input>& inputs,
                                                                  const ReadOptions& options = {});

// The options of one run of the C API, a JSON object whose fields are all optional
// (docs/bindings.md lists them with their CLI flags):
//   output            "json" (default) | "yaml" | "nodeclaims" (solve, consolidate)
//   catalog           "aws" (default) | "sim" (simulate's default): the catalog when no
//                     catalog text is given
//   region, zones     of the embedded AWS catalog ("us-east-1", its zones a-c)
//   preferencePolicy  "Respect" | "Ignore";  minValuesPolicy "Strict" | "BestEffort"
//   maxInstanceTypes  1..100000
//   packing           "faithful" (default) | "cost";  costAttempts 1..10;  costThreads
//                     0..1024;  costDeadline a positive duration such as "2s"
//   now               RFC 3339 (consolidate's clock; default: the current time)
//   once, spotToSpot, legacyOrder, repack   booleans (consolidate; repack selects
//                     ConsolidationMode::kRepack, as `karp consolidate --repack`)
//   expandWorkloads   boolean, default true: workloads become pods (ReadOptions::
//                     expand_workloads; false as `--no-expand-workloads`)
//   validate          "strict" (default) | "warn" | "ignore": a field its kind's schema
//                     lacks is an error, a warning (summary `warnings` of solve's output), or
//                     ignored (ReadOptions::validation; `--validate`)
//   policies          names of sim::StandardPolicies() (simulate; default all)
//   sample, disruptionInterval, launchLatency   durations such as "60s" (simulate, >= 1s)
// Errors: InvalidArgument `<source>: <field>: <what>` for a field of the wrong type or value
// or an unknown field; `<source>: ...` for text that is not a JSON object. An empty text is
// the defaults.
struct RunOptions {
  std::string output = "json";
  std::string catalog;  // "" = the command's default
  std::string region = "us-east-1";
  std::vector<std::string> zones;
  SchedulerOptions scheduler;
  std::optional<absl::Time> now;
  bool once = false;
  bool spot_to_spot = false;
  bool legacy_order = false;
  bool repack = false;
  bool expand_workloads = true;
  bool node_overlays = true;  // "nodeOverlays": false ignores the input's NodeOverlays
  FieldValidation validation = FieldValidation::kStrict;
  std::vector<std::string> policies;
  std::optional<absl::Duration> sample, disruption_interval, launch_latency;
};
// The reference's `--scheduler-config` document (JSON or YAML; SchedulerConfiguration):
// `podTopologySpread.defaultConstraints[]` with the fields of a pod's topology spread
// constraints, checked strictly (unknown fields are errors, as the reference's
// UnmarshalStrict) and by ValidateDefaultTopologySpread. An empty document: no defaults.
// Errors: InvalidArgument `<source>: <path>: <what>`.
[[nodiscard]] absl::StatusOr<SchedulerConfig> ParseSchedulerConfig(std::string_view text,
                                                                   std::string_view source);

// The value of `--scheduler-config`, as the reference takes it: the document itself; a value
// that reads as a plain string instead (`sched.yaml`) is the path of a file holding it.
// Errors: InvalidArgument from ParseSchedulerConfig, or naming a file that cannot be read.
[[nodiscard]] absl::StatusOr<SchedulerConfig> SchedulerConfigFromFlag(std::string_view value);

[[nodiscard]] absl::StatusOr<RunOptions> ParseRunOptions(std::string_view text,
                                                         std::string_view source);

// `karp solve -o <format>`'s standard output: format "json" (WriteSolveResult), "yaml" (the
// same document as YAML) or "nodeclaims" (WriteNodeClaims), each ending in a newline.
// Errors: InvalidArgument for another format.
[[nodiscard]] absl::StatusOr<std::string> SolveOutput(const SolveResult& result,
                                                      const ClusterSnapshot& snapshot,
                                                      std::string_view format);

// SolveOutput written to `out` (json streamed as it is produced: the large outputs are not held
// whole). Errors: InvalidArgument for another format (nothing written); a stream that failed is
// left in `out`'s state for the caller to check.
[[nodiscard]] absl::Status WriteSolveOutput(const SolveResult& result,
                                            const ClusterSnapshot& snapshot,
                                            std::string_view format, std::ostream& out);

// `karp consolidate -o <format>`'s standard output: "json" (WriteConsolidationPlan), "yaml",
// or "nodeclaims" (every command's replacements as karpenter.sh/v1 NodeClaims in a List).
// Errors: InvalidArgument for another format.
[[nodiscard]] absl::StatusOr<std::string> ConsolidateOutput(const ConsolidationPlan& plan,
                                                            const ClusterSnapshot& snapshot,
                                                            std::string_view format);

// `karp catalog -o json|yaml`'s standard output (WriteCatalog). Errors: InvalidArgument for
// another format.
[[nodiscard]] absl::StatusOr<std::string> CatalogOutput(const InstanceCatalog& catalog,
                                                        std::string_view format);

// A JSON document as block-style YAML, keys in the document's order, strings quoted unless
// they read back as the same string, numbers as JSON wrote them. Deterministic.
// Errors: InvalidArgument when `json_text` is not JSON.
[[nodiscard]] absl::StatusOr<std::string> JsonToYaml(std::string_view json_text);

}  // namespace karp::json

#endif  // KARP_JSON_COMMAND_IO_H_
