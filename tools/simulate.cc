// `karp simulate`: replays a workload trace through the simulated control loop under several
// autoscaling policies and compares them (docs/simulator.md).

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "internal/strings.h"
#include "karp/json/codec.h"
#include "karp/json/sim_trace.h"
#include "karp/sim/simulator.h"
#include "tools/cli_common.h"

namespace karp::cli {
namespace {

constexpr char kSimulateUsage[] =
    "usage: karp simulate (--trace FILE | --openb PODS.csv [--from D] [--until D])\n"
    "                     [--policy NAME[,NAME...]] [--catalog sim|aws|FILE]\n"
    "                     [--csv FILE] [--svg FILE] [--events] [options]\n"
    "\n"
    "Replays a workload trace (docs/simulator.md) through a simulated cluster: pending pods\n"
    "batched, solved and launched with latency and capacity errors, bound when nodes are\n"
    "ready, emptiness, consolidation, expiration and spot interruptions. Simulated time only:\n"
    "the same trace gives byte-identical CSV. Prints a summary table (Markdown) per policy.\n"
    "\n"
    "Options:\n"
    "  --trace FILE                 a trace (JSON or YAML)\n"
    "  --openb FILE                 the Alibaba openb pod CSV (e.g. openb_pod_list_default.csv)\n"
    "  --from D, --until D          replay window of --openb, as offsets (e.g. 115d is not\n"
    "                               accepted: use hours, 2760h); default: the whole file\n"
    "  --policy LIST                policies to compare (default: all): underutilized-spot,\n"
    "                               underutilized-on-demand, empty-spot, empty-on-demand,\n"
    "                               static-groups\n"
    "  --catalog sim|aws|FILE       instance types (default sim: the embedded AWS catalog with\n"
    "                               spot modelled per type and zone; aws: with its per-category\n"
    "                               spot estimates)\n"
    "  --csv FILE                   write the per-sample CSV ('-' for stdout)\n"
    "  --svg FILE                   draw a chart with gnuplot (writes the CSV next to it when\n"
    "                               --csv is not given)\n"
    "  --events                     print every decision of every run\n"
    "  --sample D                   sampling period (default 60s)\n"
    "  --disruption-interval D      how often disruption is evaluated (default 30s)\n"
    "  --launch-latency D           launch to ready node (default 45s)\n"
    "  -h, --help                   this help\n";

bool HaveGnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

// A two-panel chart: hourly price and nodes over time, one line per policy.
int DrawChart(const std::string& csv, const std::string& svg, const std::string& title,
              const std::vector<std::string>& policies) {
  if (!HaveGnuplot()) {
    std::cerr << "karp: gnuplot not found; chart " << svg << " not drawn (the CSV " << csv
              << " was written)\n";
    return kExitOk;
  }
  std::string names;
  for (const std::string& p : policies) names += (names.empty() ? "" : " ") + p;
  std::string script = internal::StrCat(
      "set terminal svg size 1000,720 dynamic font 'sans,11' background '#ffffff'\n",
      "set output '", svg, "'\n",
      "set datafile separator ','\n",
      "set multiplot layout 2,1 title '", title, "'\n",
      "set grid\nset key outside right top\nset xlabel 'simulated hours'\n",
      "names = '", names, "'\n",
      "set ylabel 'price per hour ($)'\n",
      "plot for [p in names] '", csv,
      "' using (strcol(1) eq p ? $2/3600 : NaN):7 with steps lw 2 title p\n",
      "set ylabel 'nodes (ready + launching)'\n",
      "plot for [p in names] '", csv,
      "' using (strcol(1) eq p ? $2/3600 : NaN):($3+$4) with steps lw 2 title p\n",
      "unset multiplot\n");
  std::FILE* gp = popen("gnuplot", "w");
  if (gp == nullptr) {
    std::cerr << "karp: cannot run gnuplot; chart " << svg << " not drawn\n";
    return kExitInvalidInput;
  }
  std::fwrite(script.data(), 1, script.size(), gp);
  const int rc = pclose(gp);
  if (rc != 0) {
    std::cerr << "karp: gnuplot failed (status " << rc << "); chart " << svg << " not drawn\n";
    return kExitInvalidInput;
  }
  return kExitOk;
}

bool ParseDurationFlag(const std::string& text, absl::Duration* out) {
  absl::Duration d;
  if (!absl::ParseDuration(text, &d) || d < absl::ZeroDuration() ||
      d == absl::InfiniteDuration()) {
    return false;
  }
  *out = d;
  return true;
}

}  // namespace

int RunSimulate(const std::vector<std::string>& args) {
  std::string trace_path, openb_path, csv_path, svg_path, catalog = "sim";
  std::vector<std::string> policy_names;
  absl::Duration from = absl::ZeroDuration(), until = absl::InfiniteDuration();
  bool window = false;  // --from or --until given
  bool events = false;
  sim::SimOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kSimulateUsage;
      return kExitOk;
    }
    std::string value;
    int r = 0;
    auto take = [&](std::string_view name) {
      r = TakeFlag(args, i, name, &value);
      return r != 0;
    };
    // Periods below a second would only multiply events and samples (and `--sample 1ns`
    // exhausts memory): the simulated clock has a resolution of one second.
    auto duration = [&](std::string_view flag, absl::Duration* out) {
      if (r < 0 || !ParseDurationFlag(value, out) || *out < absl::Seconds(1)) {
        return UsageError(kSimulateUsage, internal::StrCat(flag, " must be a duration of at "
                                                           "least 1s such as 30s or 1h, got \"",
                                                           value, "\""));
      }
      return kExitOk;
    };
    if (take("--trace")) {
      if (r < 0) return UsageError(kSimulateUsage, "missing value for --trace");
      trace_path = value;
    } else if (take("--openb")) {
      if (r < 0) return UsageError(kSimulateUsage, "missing value for --openb");
      openb_path = value;
    } else if (take("--from")) {
      window = true;
      if (r < 0 || !ParseDurationFlag(value, &from)) {
        return UsageError(kSimulateUsage, "--from must be a duration such as 2760h");
      }
    } else if (take("--until")) {
      window = true;
      if (r < 0 || !ParseDurationFlag(value, &until)) {
        return UsageError(kSimulateUsage, "--until must be a duration such as 2784h");
      }
    } else if (take("--policy")) {
      if (r < 0) return UsageError(kSimulateUsage, "missing value for --policy");
      for (absl::string_view p : absl::StrSplit(value, ',', absl::SkipEmpty())) {
        policy_names.emplace_back(p);
      }
      if (policy_names.empty()) {
        return UsageError(kSimulateUsage, "--policy needs at least one policy name");
      }
    } else if (take("--catalog")) {
      if (r < 0) return UsageError(kSimulateUsage, "missing value for --catalog");
      catalog = value;
    } else if (take("--csv")) {
      if (r < 0) return UsageError(kSimulateUsage, "missing value for --csv");
      csv_path = value;
    } else if (take("--svg")) {
      if (r < 0) return UsageError(kSimulateUsage, "missing value for --svg");
      svg_path = value;
    } else if (a == "--events") {
      events = true;
    } else if (take("--sample")) {
      if (int rc = duration("--sample", &options.sample_interval); rc != kExitOk) return rc;
    } else if (take("--disruption-interval")) {
      if (int rc = duration("--disruption-interval", &options.disruption_interval); rc != kExitOk) {
        return rc;
      }
    } else if (take("--launch-latency")) {
      if (int rc = duration("--launch-latency", &options.launch_latency); rc != kExitOk) return rc;
    } else {
      return UsageError(kSimulateUsage, internal::StrCat("unknown argument \"", a, "\""));
    }
  }
  if (trace_path.empty() == openb_path.empty()) {
    return UsageError(kSimulateUsage, "give exactly one of --trace FILE and --openb FILE");
  }
  if (!trace_path.empty() && window) {
    return UsageError(kSimulateUsage, "--from and --until select a window of --openb only");
  }
  if (until <= from) return UsageError(kSimulateUsage, "--until must be after --from");
  std::vector<sim::Policy> policies;
  for (const sim::Policy& p : sim::StandardPolicies()) {
    if (policy_names.empty()) policies.push_back(p);
  }
  for (const std::string& name : policy_names) {
    bool found = false;
    for (const sim::Policy& p : sim::StandardPolicies()) {
      if (p.name == name) {
        policies.push_back(p);
        found = true;
      }
    }
    if (!found) return UsageError(kSimulateUsage, internal::StrCat("unknown policy \"", name, "\""));
  }

  absl::StatusOr<sim::Trace> trace = trace_path.empty()
                                         ? sim::LoadOpenbTrace(openb_path, from, until)
                                         : json::ReadSimTraceFile(trace_path);
  if (!trace.ok()) return InputError(trace.status());
  // Bound what a run may record: one sample per period over the whole trace.
  constexpr int64_t kMaxSamples = 1000000;
  if (trace->duration / options.sample_interval > kMaxSamples) {
    return UsageError(kSimulateUsage,
                      internal::StrCat("--sample ", absl::FormatDuration(options.sample_interval),
                                       " over ", absl::FormatDuration(trace->duration),
                                       " would record more than ", kMaxSamples,
                                       " samples per policy; use a longer period"));
  }

  absl::StatusOr<InstanceCatalog> types;
  if (catalog == "sim") {
    types = sim::SimulationCatalog();
  } else {
    CatalogFlags flags;
    flags.catalog = catalog;
    types = flags.Load();
  }
  if (!types.ok()) return InputError(types.status());
  auto shared = std::make_shared<const InstanceCatalog>(std::move(*types));

  // Policies run in parallel (each run is independent and deterministic); output is in
  // policy order.
  std::vector<absl::StatusOr<sim::SimResult>> runs(policies.size(),
                                                   absl::UnknownError("not run"));
  std::vector<absl::Duration> took(policies.size());
  {
    std::atomic<size_t> next{0};
    auto worker = [&]() {
      for (size_t i = next++; i < policies.size(); i = next++) {
        const absl::Time started = absl::Now();  // timing for stderr only
        runs[i] = sim::Simulate(*trace, shared, policies[i], options);
        took[i] = absl::Now() - started;
      }
    };
    const size_t threads =
        std::max<size_t>(1, std::min<size_t>(policies.size(), std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
  }
  std::vector<sim::SimResult> results;
  for (size_t i = 0; i < policies.size(); ++i) {
    if (!runs[i].ok()) return InputError(runs[i].status());
    sim::SimResult& r = *runs[i];
    std::cerr << "karp: simulated " << absl::FormatDuration(trace->duration) << " of "
              << trace->name << " under " << r.policy << " in "
              << absl::FormatDuration(absl::Trunc(took[i], absl::Milliseconds(1))) << " ("
              << r.summary.solves << " solves, " << r.summary.plans << " plans)\n";
    if (events) {
      for (const sim::SimEvent& e : r.events) {
        std::cout << r.policy << " +" << absl::FormatDuration(e.at) << " " << e.kind << " "
                  << e.detail << "\n";
      }
    }
    results.push_back(std::move(r));
  }

  const std::string csv = sim::WriteSamplesCsv(results);
  if (csv_path.empty() && !svg_path.empty()) csv_path = svg_path + ".csv";
  if (csv_path == "-") {
    std::cout << csv;
  } else if (!csv_path.empty()) {
    std::ofstream out(csv_path, std::ios::binary);
    out << csv;
    if (!out) {
      std::cerr << csv_path << ": cannot write file\n";
      return kExitInvalidInput;
    }
  }
  if (csv_path != "-") std::cout << sim::WriteSummaryTable(results);
  if (!svg_path.empty()) {
    std::vector<std::string> names;
    for (const sim::SimResult& r : results) names.push_back(r.policy);
    return DrawChart(csv_path, svg_path, internal::StrCat("karp simulate: ", trace->name), names);
  }
  return kExitOk;
}

}  // namespace karp::cli
