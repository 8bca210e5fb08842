// libFuzzer target: karp::json::ParseSimTrace on arbitrary bytes (a simulator trace, JSON or
// YAML, docs/simulator.md). It must never crash, hang or throw; errors must be InvalidArgument
// and start with the source name. A parsed trace must be sane: non-negative duration, every
// time offset non-negative, deployment steps ascending, jobs with positive parallelism, pods
// that leave no earlier than they arrive; its cluster's Validate() must not crash.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/json/sim_trace.h"
#include "karp/sim/trace.h"

namespace {

[[noreturn]] void Fail(std::string_view what, std::string_view input) {
  std::fprintf(stderr, "sim_trace_fuzz: %.*s\ninput: %.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(input.size()), input.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<karp::sim::Trace> trace = karp::json::ParseSimTrace(text, "fuzz.yaml");
  if (!trace.ok()) {
    if (trace.status().code() != absl::StatusCode::kInvalidArgument) {
      Fail("error is not InvalidArgument: " + trace.status().ToString(), text);
    }
    if (trace.status().message().substr(0, 10) != "fuzz.yaml:") {
      Fail("error does not name the source: " + trace.status().ToString(), text);
    }
    return 0;
  }
  const absl::Duration zero = absl::ZeroDuration();
  if (trace->duration < zero) Fail("negative duration", text);
  if (trace->spot_interruption_rate < 0) Fail("negative spot interruption rate", text);
  for (const karp::sim::DeploymentTrace& d : trace->deployments) {
    for (size_t i = 0; i < d.replicas.size(); ++i) {
      if (d.replicas[i].first < zero || d.replicas[i].second < 0) Fail("bad replica step", text);
      if (i > 0 && d.replicas[i].first < d.replicas[i - 1].first) Fail("steps not ascending", text);
    }
  }
  for (const karp::sim::JobTrace& j : trace->jobs) {
    if (j.at < zero || j.parallelism < 1) Fail("bad job", text);
  }
  for (const karp::sim::PodTrace& p : trace->pods) {
    if (p.arrive_at < zero || p.leave_at < p.arrive_at) Fail("bad pod times", text);
  }
  for (const karp::sim::InterruptionTrace& i : trace->interruptions) {
    if (i.at < zero) Fail("bad interruption time", text);
  }
  (void)trace->cluster.Validate();
  return 0;
}
