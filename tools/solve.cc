// `karp solve`: decide which nodes to launch for the pending pods of a snapshot.

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "internal/duration.h"
#include "internal/strings.h"
#include "karp/json/codec.h"
#include "karp/json/command_io.h"
#include "karp/lower_bound.h"
#include "karp/scheduler.h"
#include "tools/cli_common.h"
#include "tools/node_classes.h"

namespace karp::cli {
namespace {

// How `-o text` names the lower bound's method (karp/lower_bound.h).
std::string_view BoundMethodNote(std::string_view method) {
  if (method == karp::kLowerBoundConfigurationLp) return " (configuration LP)";
  if (method == karp::kLowerBoundAssignmentLp) return " (assignment LP)";
  return "";
}

constexpr char kSolveUsage[] =
    "usage: karp solve -f SNAPSHOT [-f SNAPSHOT...] [-R] [--catalog aws|FILE]\n"
    "                  [-o json|yaml|text|nodeclaims]\n"
    "\n"
    "Reads a cluster snapshot (what `kubectl get nodepools,nodeclaims,nodes,pods,daemonsets,pdb\n"
    "-A -o json` prints, plus pvc,pv,storageclasses,csinodes for stateful pods; JSON or YAML,\n"
    "several files merged, '-' for stdin) and decides where its pending pods go: existing\n"
    "nodes, in-flight NodeClaims, or new NodeClaims to launch.\n"
    "\n"
    "Options:\n"
    "  -f, --filename FILE|DIR|-    snapshot file (repeatable; FILE1,FILE2 also accepted); a\n"
    "                               directory: its .json, .yaml and .yml files; '-': stdin\n"
    "  -R, --recursive              with -f DIR, the files below DIR too\n"
    "  --catalog aws|FILE           instance types: embedded AWS catalog (default) or a file\n"
    "  --region R, --zones Z1,Z2    region and zones of the embedded AWS catalog\n"
    "  --commitments FILE           Reserved Instances, Savings Plans and capacity reservations:\n"
    "                               launches priced at their marginal cost (docs/commitments.md)\n"
    "  --max-input-bytes N          refuse a file larger than N bytes (default 2Gi;\n"
    "                               a stream 1Gi, YAML 128Mi)\n"
    "  --validate strict|warn|ignore  a field its kind's schema lacks (a typo such as\n"
    "                               requirments:) is an error (default), a warning, or ignored\n"
    "  --no-expand-workloads        Deployments, StatefulSets, Jobs... create no pods (they\n"
    "                               are listed as skipped)\n"
    "  --feature-gates NodeOverlay=false  ignore the input's NodeOverlays (applied by default)\n"
    "  --scheduler-config DOC|FILE  kube-scheduler's podTopologySpread.defaultConstraints\n"
    "                               for pods without constraints (as the reference's flag)\n"
    "  -o, --output json|yaml|text|nodeclaims   output format (default json)\n"
    "  --preference-policy Respect|Ignore  preferred terms as soft requirements (default Respect)\n"
    "  --min-values-policy Strict|BestEffort  (default Strict)\n"
    "  --max-instance-types N       instance types kept per NodeClaim (default 600)\n"
    "  --packing faithful|cost      faithful: the reference's first-fit packing (default);\n"
    "                               cost: a cheaper packing under the same constraints, never\n"
    "                               costlier nor fewer pods than faithful (docs/design.md §13)\n"
    "  --cost-pool-order price|weight  cost packing: new nodes come from the NodePool that\n"
    "                               is cheapest per unit (default) or the first by weight\n"
    "  --cost-attempts N            cost packing: candidate packings tried, 1..10, or 0 for\n"
    "                               auto (default: 4 up to 10,000 pods, fewer above)\n"
    "  --cost-repack-rounds N       cost packing: rounds of exact re-packing of the best\n"
    "                               packing's small groups of claims (default 3, 0..3)\n"
    "  --cost-threads N             cost packing: threads (default 1; 0: one per CPU); more\n"
    "                               are faster and use more memory, the result is the same\n"
    "  --cost-deadline DURATION     cost packing: stop searching after DURATION (e.g. 2s) and\n"
    "                               return the best found so far (default: no deadline)\n"
    "  --now RFC3339                the clock for commitment end dates (default: now)\n"
    "  --timings                    print the time of each phase to stderr (read,\n"
    "                               prepare, solve, write)\n"
    "  -h, --help                   this help\n";

std::string TypesText(const std::vector<std::string>& types) {
  std::vector<std::string> shown(types.begin(), types.begin() + std::min<size_t>(5, types.size()));
  std::string out = absl::StrJoin(shown, ", ");
  if (types.size() > 5) out += internal::StrCat(" and ", types.size() - 5, " other(s)");
  return out;
}

// The result in words, then what reading skipped.
void PrintText(const SolveResult& r, std::string_view currency,
               const std::vector<std::string>& skipped) {
  // Names come from the input: escaped as they are printed (TerminalText).
  TerminalText out(std::cout);
  for (const ExistingPlacement& e : r.existing_nodes) {
    out << "Scheduling " << e.pods.size() << " pod(s) on "
        << (e.in_flight ? "in-flight nodeclaim " : "existing node ") << e.name << ": "
        << absl::StrJoin(e.pods, ", ") << "\n";
  }
  for (const NewNodeClaim& nc : r.node_claims) {
    out << "Launching nodeclaim " << nc.name << " with " << nc.pods.size() << " pods requesting "
        << nc.requests.ToString() << " from types " << TypesText(nc.instance_types);
    if (nc.launch) {
      out << " (launch " << nc.launch->instance_type << " " << nc.launch->capacity_type << " in "
          << nc.launch->zone << " at " << (nc.launch->price_estimated ? "an estimated " : "")
          << PerHour(nc.launch->price, currency)
          << (nc.launch->list_price != nc.launch->price
                  ? internal::StrCat(", list ", PerHour(nc.launch->list_price, currency))
                  : "")
          << ")";
    }
    out << "\n";
  }
  for (const PodError& e : r.pod_errors) {
    out << "Could not schedule pod " << e.pod << ", " << e.message << "\n";
  }
  int scheduled = 0;
  bool estimated = false;
  for (const auto& nc : r.node_claims) {
    scheduled += static_cast<int>(nc.pods.size());
    estimated = estimated || (nc.launch && nc.launch->price_estimated);
  }
  for (const auto& e : r.existing_nodes) scheduled += static_cast<int>(e.pods.size());
  out << "Scheduled " << scheduled << " of " << r.pod_count << " pod(s): " << r.node_claims.size()
      << " new nodeclaim(s), " << PerHour(r.LaunchPricePerHour(), currency);
  if (r.lower_bound_per_hour && *r.lower_bound_per_hour > 0) {
    const double gap = (r.LaunchPricePerHour() / *r.lower_bound_per_hour - 1) * 100;
    out << ", lower bound " << PerHour(*r.lower_bound_per_hour, currency)
        << BoundMethodNote(r.lower_bound_method) << ", gap " << absl::StrFormat("%.1f", gap) << "%";
  }
  out << (estimated ? " (spot prices estimated)" : "") << "\n";
  if (r.packing.mode == PackingMode::kCost) {
    out << "Cost packing: ";
    if (r.packing.faithful_kept) {
      out << "the faithful packing (" << PerHour(r.packing.faithful_price_per_hour, currency)
          << ") was not beaten in " << r.packing.attempts << " attempt(s)";
    } else {
      const double saved = r.packing.faithful_price_per_hour - r.LaunchPricePerHour();
      out << "saves " << PerHour(saved, currency) << " ("
          << absl::StrFormat("%.1f", 100 * saved / r.packing.faithful_price_per_hour)
          << "%) against the faithful packing's "
          << PerHour(r.packing.faithful_price_per_hour, currency);
    }
    out << (r.packing.stopped_early ? ", stopped early at the deadline" : "") << "\n";
  }
  PrintSkippedSummary(skipped);
}

// What the output of `karp solve` reads of the snapshot: its NodePools (-o nodeclaims) and
// what reading skipped.
ClusterSnapshot OutputPart(const ClusterSnapshot& snapshot) {
  ClusterSnapshot part;
  part.node_pools = snapshot.node_pools;
  part.skipped_objects = snapshot.skipped_objects;
  part.skipped = snapshot.skipped;
  part.warnings = snapshot.warnings;
  return part;
}

// When each phase of `karp solve` ended, for --timings.
struct PhaseTimes {
  absl::Time start, read, prepare, solve, write;

  void Print() const {
    std::cerr << "read " << absl::FormatDuration(read - start) << ", prepare "
              << absl::FormatDuration(prepare - read) << ", solve "
              << absl::FormatDuration(solve - prepare) << ", write "
              << absl::FormatDuration(write - solve) << "\n";
  }
};

// Solves the snapshot read and writes the result in the `output` format (json, yaml, text or
// nodeclaims), noting the end of each phase in `times`; returns the exit status.
int SolveAndWrite(ClusterSnapshot snapshot, CommandCatalogs catalogs,
                  const SchedulerOptions& options, const std::string& output,
                  std::string_view currency, PhaseTimes* times) {
  // The scheduler takes the snapshot over (no copy); the output needs only this part of it.
  // ReadSnapshotFiles validated each object as it read it (with file and path in its errors);
  // Create validates the snapshot as a whole once more (storage objects among others), a few
  // tens of milliseconds on the largest inputs, through the public path a host uses.
  const ClusterSnapshot kept = OutputPart(snapshot);
  // NodePools whose EC2NodeClasses give them different instance types draw from their own
  // catalogs (a copy of the snapshot: that overload has no move form).
  absl::StatusOr<Scheduler> scheduler =
      catalogs.shared != nullptr
          ? Scheduler::Create(std::move(snapshot), std::move(catalogs.shared), options)
          : Scheduler::Create(snapshot, std::move(catalogs.by_node_pool), options);
  if (!scheduler.ok()) return InputError(scheduler.status());
  times->prepare = absl::Now();
  absl::StatusOr<SolveResult> result = scheduler->Solve();
  if (!result.ok()) return InputError(result.status());
  times->solve = absl::Now();
  if (output == "text") {
    PrintText(*result, currency, kept.skipped);
  } else if (absl::Status s = json::WriteSolveOutput(*result, kept, output, std::cout);
             !s.ok()) {  // streamed: the JSON of a large result is not held whole
    return InputError(s);
  }
  std::cout.flush();
  times->write = absl::Now();
  return kExitOk;
}

// --preference-policy, --min-values-policy and --max-instance-types, as CatalogFlags::Take.
int TakeSchedulerFlag(const std::vector<std::string>& args, size_t& i, SchedulerOptions* options,
                      std::string* error) {
  std::string value;
  if (TakeFlag(args, i, "--preference-policy", &value) != 0) {
    if (value != "Respect" && value != "Ignore") {
      *error = "--preference-policy must be Respect or Ignore";
      return -1;
    }
    options->preference_policy =
        value == "Ignore" ? PreferencePolicy::kIgnore : PreferencePolicy::kRespect;
    return 1;
  }
  if (TakeFlag(args, i, "--min-values-policy", &value) != 0) {
    if (value != "Strict" && value != "BestEffort") {
      *error = "--min-values-policy must be Strict or BestEffort";
      return -1;
    }
    options->min_values_policy =
        value == "BestEffort" ? MinValuesPolicy::kBestEffort : MinValuesPolicy::kStrict;
    return 1;
  }
  if (TakeFlag(args, i, "--max-instance-types", &value) == 0) return 0;
  char* end = nullptr;
  long n = std::strtol(value.c_str(), &end, 10);
  if (end == value.c_str() || *end != '\0' || n < 1 || n > 100000) {
    *error = "--max-instance-types must be a positive integer";
    return -1;
  }
  options->max_instance_types = static_cast<int>(n);
  return 1;
}

// --packing, --cost-pool-order, --cost-attempts, --cost-threads, --cost-repack-rounds and
// --cost-deadline, as
// CatalogFlags::Take.
int TakePackingFlag(const std::vector<std::string>& args, size_t& i, SchedulerOptions* options,
                    std::string* error) {
  std::string value;
  if (TakeFlag(args, i, "--packing", &value) != 0) {
    if (value != "faithful" && value != "cost") {
      *error = "--packing must be faithful or cost";
      return -1;
    }
    options->packing = value == "cost" ? PackingMode::kCost : PackingMode::kFaithful;
    return 1;
  }
  // An integer flag in [lo, hi].
  auto integer = [&](std::string_view flag, long lo, long hi, int* out) {
    if (TakeFlag(args, i, flag, &value) == 0) return 0;
    char* end = nullptr;
    long n = std::strtol(value.c_str(), &end, 10);
    if (end == value.c_str() || *end != '\0' || n < lo || n > hi) {
      *error = internal::StrCat(flag, " must be an integer from ", lo, " to ", hi);
      return -1;
    }
    *out = static_cast<int>(n);
    return 1;
  };
  if (TakeFlag(args, i, "--cost-pool-order", &value) != 0) {
    if (value != "weight" && value != "price") {
      *error = "--cost-pool-order must be weight or price";
      return -1;
    }
    options->cost_pool_order = value == "price" ? PoolOrder::kPrice : PoolOrder::kWeight;
    return 1;
  }
  if (int r = integer("--cost-attempts", 0, 10, &options->cost_attempts); r != 0) return r;
  if (int r = integer("--cost-threads", 0, 1024, &options->cost_threads); r != 0) return r;
  if (int r = integer("--cost-repack-rounds", 0, 3, &options->cost_repack_rounds); r != 0) {
    return r;
  }
  if (TakeFlag(args, i, "--cost-deadline", &value) == 0) return 0;
  absl::StatusOr<absl::Duration> d = ParseGoDuration(value);
  if (!d.ok() || *d <= absl::ZeroDuration()) {
    *error = internal::StrCat("--cost-deadline must be a positive duration such as 2s, got \"",
                              value, "\"");
    return -1;
  }
  options->cost_time_limit = *d;
  return 1;
}

}  // namespace

int RunSolve(const std::vector<std::string>& args) {
  CatalogFlags catalog_flags;
  FileFlags file_flags;
  std::string output = "json";
  bool timings = false;
  SchedulerOptions options;
  absl::Time now = absl::Now();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kSolveUsage;
      return kExitOk;
    }
    std::string value;
    auto take = [&](std::string_view name) { return TakeFlag(args, i, name, &value); };
    std::string flag_error;
    int r = catalog_flags.Take(args, i, &flag_error);
    if (r == 0) r = file_flags.Take(args, i, &flag_error);
    if (r == 0) r = TakeSchedulerFlag(args, i, &options, &flag_error);
    if (r == 0) r = TakePackingFlag(args, i, &options, &flag_error);
    if (r < 0) return UsageError(kSolveUsage, flag_error);
    if (r > 0) continue;
    if ((r = take("-o")) != 0 || (r = take("--output")) != 0) {
      if (r < 0) return UsageError(kSolveUsage, "missing value for -o");
      if (value != "json" && value != "yaml" && value != "text" && value != "nodeclaims") {
        return UsageError(kSolveUsage, "-o must be json, yaml, text or nodeclaims");
      }
      output = value;
    } else if ((r = take("--now")) != 0) {
      std::string err;
      if (r < 0 || !absl::ParseTime(absl::RFC3339_full, value, &now, &err)) {
        return UsageError(kSolveUsage,
                          internal::StrCat("--now must be an RFC3339 time, got \"", value, "\""));
      }
    } else if (a == "--timings") {
      timings = true;
    } else {
      return UsageError(kSolveUsage, internal::StrCat("unknown argument \"", a, "\""));
    }
  }
  if (file_flags.paths.empty()) return UsageError(kSolveUsage, "no snapshot given (-f FILE)");
  options.compute_lower_bound = true;

  absl::StatusOr<std::vector<std::string>> files = file_flags.Files();
  if (!files.ok()) return InputError(files.status());
  PhaseTimes times;
  times.start = absl::Now();
  absl::StatusOr<ClusterSnapshot> snapshot = ReadSnapshot(*files, catalog_flags.read);
  if (!snapshot.ok()) return InputError(snapshot.status());
  absl::StatusOr<InstanceCatalog> catalog = catalog_flags.Load();
  if (!catalog.ok()) return InputError(catalog.status());
  auto shared = std::make_shared<const InstanceCatalog>(std::move(*catalog));
  absl::StatusOr<CommandCatalogs> catalogs = NodePoolCatalogsFor(
      *snapshot, std::move(shared), EmbeddedOptions(catalog_flags), catalog_flags.node_overlay);
  if (!catalogs.ok()) return InputError(catalogs.status());
  absl::StatusOr<std::shared_ptr<const PricingModel>> pricing = catalog_flags.Pricing(now);
  if (!pricing.ok()) return InputError(pricing.status());
  options.pricing = *std::move(pricing);
  absl::StatusOr<std::vector<TopologySpreadConstraint>> spread =
      catalog_flags.DefaultTopologySpread();
  if (!spread.ok()) return InputError(spread.status());
  options.default_topology_spread = *std::move(spread);
  ApplyDefaultSpreadWithNote(&*snapshot, options.default_topology_spread);
  // The bound is of list prices: beside marginal costs it would mislead.
  options.compute_lower_bound = options.pricing == nullptr;

  times.read = absl::Now();
  const int status = SolveAndWrite(*std::move(snapshot), *std::move(catalogs), options, output,
                                   catalog_flags.Currency(), &times);
  if (timings && status == kExitOk) times.Print();
  return status;
}

}  // namespace karp::cli
