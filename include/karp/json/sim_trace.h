// File: karp/json/sim_trace.h
//
// Reading simulator traces (karp/sim/trace.h) from JSON or YAML, in the format documented in
// docs/simulator.md. Part of karp::json, the only user of nlohmann/json and yaml-cpp.
//
// Errors name the source and the path of the offending value, e.g.
//   traces/web.yaml: deployments[1].replicas[0].at: invalid duration "5 minutes": ...
//
// Example:
//   absl::StatusOr<karp::sim::Trace> trace =
//       karp::json::ReadSimTraceFile("examples/traces/inflate.yaml");
//   if (!trace.ok()) { std::cerr << trace.status().message() << "\n"; return 1; }
//
// Thread-safety: thread-safe (no shared state).

#ifndef KARP_JSON_SIM_TRACE_H_
#define KARP_JSON_SIM_TRACE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "karp/sim/trace.h"

namespace karp::json {

// Parses one trace document. `source` names the input in error messages.
// Errors: InvalidArgument `<source>: <path>: <what>` (unknown fields are errors too).
[[nodiscard]] absl::StatusOr<sim::Trace> ParseSimTrace(std::string_view text,
                                                       std::string_view source);

// Reads a trace file. Errors: NotFound when it cannot be read; InvalidArgument as above.
[[nodiscard]] absl::StatusOr<sim::Trace> ReadSimTraceFile(const std::string& path);

}  // namespace karp::json

#endif  // KARP_JSON_SIM_TRACE_H_
