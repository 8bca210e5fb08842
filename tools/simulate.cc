// `karp simulate`: replays a workload trace through the simulated control loop under several
// autoscaling policies and compares them (docs/simulator.md).

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "internal/strings.h"
#include "karp/json/codec.h"
#include "karp/json/commitments.h"
#include "karp/json/sim_trace.h"
#include "karp/sim/simulator.h"
#include "tools/cli_common.h"
#include "tools/node_classes.h"

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
    "                               static-groups; also repack-spot, repack-on-demand\n"
    "                               (re-pack consolidation, docs/repack.md); NAME-blind: the\n"
    "                               same, deciding by list prices under commitments (billed\n"
    "                               the same way)\n"
    "  --feature-gates NodeOverlay=false  ignore the trace's NodeOverlays (applied by default)\n"
    "  --scheduler-config DOC|FILE  kube-scheduler's podTopologySpread.defaultConstraints\n"
    "  --commitments FILE           Reserved Instances, Savings Plans and capacity reservations\n"
    "                               (docs/commitments.md), instead of the trace's own\n"
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
    "  -h, --help                   this help\n"
    "\n"
    "Progress (the simulated share of each policy) goes to stderr when it is a terminal.\n";

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
      "set output '", svg, "'\n", "set datafile separator ','\n",
      "set multiplot layout 2,1 title '", title, "'\n",
      "set grid\nset key outside right top\nset xlabel 'simulated hours'\n", "names = '", names,
      "'\n", "set ylabel 'price per hour ($)'\n", "plot for [p in names] '", csv,
      "' using (strcol(1) eq p ? $2/3600 : NaN):7 with steps lw 2 title p\n",
      "set ylabel 'nodes (ready + launching)'\n", "plot for [p in names] '", csv,
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
  if (!absl::ParseDuration(text, &d) || d < absl::ZeroDuration() || d == absl::InfiniteDuration()) {
    return false;
  }
  *out = d;
  return true;
}

// What the command line asks for.
struct SimulateFlags {
  std::string trace_path, openb_path, csv_path, svg_path, catalog = "sim", commitments;
  std::vector<std::string> policy_names;
  absl::Duration from = absl::ZeroDuration(), until = absl::InfiniteDuration();
  bool window = false;  // --from or --until given
  bool events = false;
  sim::SimOptions options;
  bool node_overlays = true;     // --feature-gates NodeOverlay=false
  std::string scheduler_config;  // --scheduler-config
};

// Parses `args` into `*f`. Returns the exit status when the command ends here (help, usage
// errors), nullopt to go on.
std::optional<int> ParseSimulateArgs(const std::vector<std::string>& args, SimulateFlags* f) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kSimulateUsage;
      return kExitOk;
    }
    // --feature-gates and --scheduler-config, as solve and consolidate read them.
    CatalogFlags shared;
    std::string shared_error;
    if (a == "--feature-gates" || a.rfind("--feature-gates=", 0) == 0 ||
        a == "--scheduler-config" || a.rfind("--scheduler-config=", 0) == 0) {
      shared.node_overlay = f->node_overlays;
      if (shared.Take(args, i, &shared_error) < 0) {
        return UsageError(kSimulateUsage, shared_error);
      }
      f->node_overlays = shared.node_overlay;
      if (!shared.scheduler_config.empty()) f->scheduler_config = shared.scheduler_config;
      continue;
    }
    std::string value;
    int r = 0;
    auto take = [&](std::string_view name) {
      r = TakeFlag(args, i, name, &value);
      return r != 0;
    };
    auto missing = [&](std::string_view flag) {
      return UsageError(kSimulateUsage, internal::StrCat("missing value for ", flag));
    };
    // Periods below a second would only multiply events and samples (and `--sample 1ns`
    // exhausts memory): the simulated clock has a resolution of one second.
    auto duration = [&](std::string_view flag, absl::Duration* out) -> std::optional<int> {
      if (r < 0 || !ParseDurationFlag(value, out) || *out < absl::Seconds(1)) {
        return UsageError(kSimulateUsage, internal::StrCat(flag,
                                                           " must be a duration of at "
                                                           "least 1s such as 30s or 1h, got \"",
                                                           value, "\""));
      }
      return std::nullopt;
    };
    // Flags whose value is stored as given.
    const std::pair<std::string_view, std::string*> kPlain[] = {
        {"--trace", &f->trace_path}, {"--openb", &f->openb_path},
        {"--catalog", &f->catalog},  {"--csv", &f->csv_path},
        {"--svg", &f->svg_path},     {"--commitments", &f->commitments}};
    bool plain = false;
    for (const auto& [flag, out] : kPlain) {
      if (!take(flag)) continue;
      if (r < 0) return missing(flag);
      *out = value;
      plain = true;
      break;
    }
    if (plain) continue;
    if (take("--from") || take("--until")) {
      const bool is_from = a.rfind("--from", 0) == 0;
      f->window = true;
      if (r < 0 || !ParseDurationFlag(value, is_from ? &f->from : &f->until)) {
        return UsageError(kSimulateUsage, is_from ? "--from must be a duration such as 2760h"
                                                  : "--until must be a duration such as 2784h");
      }
    } else if (take("--policy")) {
      if (r < 0) return missing("--policy");
      for (absl::string_view p : absl::StrSplit(value, ',', absl::SkipEmpty())) {
        f->policy_names.emplace_back(p);
      }
      if (f->policy_names.empty()) {
        return UsageError(kSimulateUsage, "--policy needs at least one policy name");
      }
    } else if (a == "--events") {
      f->events = true;
    } else if (take("--sample")) {
      if (auto rc = duration("--sample", &f->options.sample_interval)) return rc;
    } else if (take("--disruption-interval")) {
      if (auto rc = duration("--disruption-interval", &f->options.disruption_interval)) return rc;
    } else if (take("--launch-latency")) {
      if (auto rc = duration("--launch-latency", &f->options.launch_latency)) return rc;
    } else {
      return UsageError(kSimulateUsage, internal::StrCat("unknown argument \"", a, "\""));
    }
  }
  if (f->trace_path.empty() == f->openb_path.empty()) {
    return UsageError(kSimulateUsage, "give exactly one of --trace FILE and --openb FILE");
  }
  if (!f->trace_path.empty() && f->window) {
    return UsageError(kSimulateUsage, "--from and --until select a window of --openb only");
  }
  if (f->until <= f->from) return UsageError(kSimulateUsage, "--until must be after --from");
  return std::nullopt;
}

// The standard policies named (all of them when none is), in the order given.
std::optional<int> SelectPolicies(const std::vector<std::string>& names,
                                  std::vector<sim::Policy>* out) {
  if (names.empty()) {
    *out = sim::StandardPolicies();
    return std::nullopt;
  }
  constexpr std::string_view kBlind = "-blind";
  for (const std::string& name : names) {
    bool found = false;
    const bool blind = name.size() > kBlind.size() &&
                       name.compare(name.size() - kBlind.size(), kBlind.size(), kBlind) == 0;
    const std::string base = blind ? name.substr(0, name.size() - kBlind.size()) : name;
    for (sim::Policy p : sim::AllPolicies()) {
      if (p.name == base) {
        p.name = name;
        p.commitment_aware = !blind;
        out->push_back(std::move(p));
        found = true;
      }
    }
    if (!found)
      return UsageError(kSimulateUsage, internal::StrCat("unknown policy \"", name, "\""));
  }
  return std::nullopt;
}

absl::StatusOr<InstanceCatalog> LoadSimulationCatalog(const std::string& catalog) {
  if (catalog == "sim") return sim::SimulationCatalog();
  CatalogFlags flags;
  flags.catalog = catalog;
  return flags.Load();
}

// One run per policy, in parallel (each run is independent and deterministic); results in
// policy order, with each run's wall time (for stderr only).
struct PolicyRun {
  absl::StatusOr<sim::SimResult> result = absl::UnknownError("not run");
  absl::Duration took;
};
// Progress of the runs on stderr (when it is a terminal): the simulated share of each policy,
// rewritten in place at most every 200 ms.
class TerminalProgress {
 public:
  explicit TerminalProgress(size_t runs) : done_(runs, 0) {}
  void Update(size_t run, absl::Duration simulated, absl::Duration total) {
    absl::MutexLock lock(&mu_);
    done_[run] = total > absl::ZeroDuration() ? absl::FDivDuration(simulated, total) : 1.0;
    const absl::Time now = absl::Now();
    if (now - last_ < absl::Milliseconds(200)) return;
    last_ = now;
    std::string line = "\rkarp simulate:";
    for (double d : done_) line += internal::StrCat(" ", static_cast<int>(d * 100), "%");
    std::cerr << line << " of " << absl::FormatDuration(total) << " per policy\033[K" << std::flush;
  }
  void Finish() { std::cerr << "\r\033[K" << std::flush; }

 private:
  absl::Mutex mu_;
  std::vector<double> done_ ABSL_GUARDED_BY(mu_);
  absl::Time last_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

std::vector<PolicyRun> RunPolicies(const sim::Trace& trace,
                                   const std::shared_ptr<const InstanceCatalog>& catalog,
                                   const std::vector<sim::Policy>& policies,
                                   const sim::SimOptions& options) {
  std::vector<PolicyRun> runs(policies.size());
  std::atomic<size_t> next{0};
  std::optional<TerminalProgress> progress;
  if (isatty(STDERR_FILENO) && !options.progress) progress.emplace(policies.size());
  auto worker = [&]() {
    for (size_t i = next++; i < policies.size(); i = next++) {
      const absl::Time started = absl::Now();
      sim::SimOptions run_options = options;
      if (progress) {
        run_options.progress = [&progress, i](absl::Duration simulated, absl::Duration total) {
          progress->Update(i, simulated, total);
        };
      }
      runs[i].result = sim::Simulate(trace, catalog, policies[i], run_options);
      runs[i].took = absl::Now() - started;
    }
  };
  const size_t threads =
      std::max<size_t>(1, std::min<size_t>(policies.size(), std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (progress) progress->Finish();
  return runs;
}

// The CSV (to a file or stdout), the summary table and the chart.
int WriteSimulationOutputs(const SimulateFlags& f, const sim::Trace& trace,
                           const std::vector<sim::SimResult>& results) {
  const std::string csv = sim::WriteSamplesCsv(results);
  std::string csv_path = f.csv_path;
  if (csv_path.empty() && !f.svg_path.empty()) csv_path = f.svg_path + ".csv";
  if (csv_path == "-") {
    std::cout << csv;
  } else if (!csv_path.empty()) {
    errno = 0;
    std::ofstream out(csv_path, std::ios::binary);
    out << csv;
    out.close();  // a write error shows only once the buffer is flushed
    if (!out) {
      std::cerr << csv_path << ": cannot write file" << internal::OsReason(errno) << "\n";
      return kExitInvalidInput;
    }
  }
  if (csv_path != "-") std::cout << sim::WriteSummaryTable(results);
  if (f.svg_path.empty()) return kExitOk;
  std::vector<std::string> names;
  for (const sim::SimResult& r : results) names.push_back(r.policy);
  return DrawChart(csv_path, f.svg_path, internal::StrCat("karp simulate: ", trace.name), names);
}

}  // namespace

int RunSimulate(const std::vector<std::string>& args) {
  SimulateFlags f;
  if (std::optional<int> rc = ParseSimulateArgs(args, &f)) return *rc;
  std::vector<sim::Policy> policies;
  if (std::optional<int> rc = SelectPolicies(f.policy_names, &policies)) return *rc;

  absl::StatusOr<sim::Trace> trace = f.trace_path.empty()
                                         ? sim::LoadOpenbTrace(f.openb_path, f.from, f.until)
                                         : json::ReadSimTraceFile(f.trace_path);
  if (!trace.ok()) return InputError(trace.status());
  if (!f.commitments.empty()) {
    absl::StatusOr<Commitments> c = json::ReadCommitmentsFile(f.commitments);
    if (!c.ok()) return InputError(c.status());
    trace->commitments = *std::move(c);
  }
  // Bound what a run may record: one sample per period over the whole trace.
  constexpr int64_t kMaxSamples = 1000000;
  if (trace->duration / f.options.sample_interval > kMaxSamples) {
    return UsageError(
        kSimulateUsage,
        internal::StrCat("--sample ", absl::FormatDuration(f.options.sample_interval), " over ",
                         absl::FormatDuration(trace->duration), " would record more than ",
                         kMaxSamples, " samples per policy; use a longer period"));
  }
  absl::StatusOr<InstanceCatalog> types = LoadSimulationCatalog(f.catalog);
  if (!types.ok()) return InputError(types.status());
  auto base = std::make_shared<const InstanceCatalog>(std::move(*types));
  // The instance types of the trace's EC2NodeClasses, when every NodePool shares one set
  // (--catalog sim and FILE are rebuilt as catalog files: NodePoolCatalogOptions).
  CatalogFlags catalog_flags;  // as LoadSimulationCatalog
  catalog_flags.catalog = f.catalog;
  catalog_flags.scheduler_config = f.scheduler_config;
  absl::StatusOr<std::vector<TopologySpreadConstraint>> spread =
      catalog_flags.DefaultTopologySpread();
  if (!spread.ok()) return InputError(spread.status());
  sim::SimOptions run_options = f.options;
  run_options.default_topology_spread = *std::move(spread);
  absl::StatusOr<CommandCatalogs> catalogs =
      NodePoolCatalogsFor(trace->cluster, base, EmbeddedOptions(catalog_flags), f.node_overlays);
  if (!catalogs.ok()) return InputError(catalogs.status());
  const std::shared_ptr<const InstanceCatalog> shared =
      OneCatalog(*catalogs, std::move(base), "simulate");

  std::vector<PolicyRun> runs = RunPolicies(*trace, shared, policies, run_options);
  std::vector<sim::SimResult> results;
  for (PolicyRun& run : runs) {
    if (!run.result.ok()) return InputError(run.result.status());
    sim::SimResult& r = *run.result;
    std::cerr << "karp: simulated " << absl::FormatDuration(trace->duration) << " of "
              << internal::EscapeForMessage(trace->name) << " under " << r.policy << " in "
              << absl::FormatDuration(absl::Trunc(run.took, absl::Milliseconds(1))) << " ("
              << r.summary.solves << " solves, " << r.summary.plans << " plans)\n";
    if (f.events) {
      for (const sim::SimEvent& e : r.events) {
        std::cout << r.policy << " +" << absl::FormatDuration(e.at) << " " << e.kind << " "
                  << internal::EscapeForMessage(e.detail) << "\n";
      }
    }
    results.push_back(std::move(r));
  }
  return WriteSimulationOutputs(f, *trace, results);
}

}  // namespace karp::cli
