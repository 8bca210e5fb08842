// `karp consolidate`: which nodes to delete or replace, and why the others are kept.

#include <unistd.h>

#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "internal/strings.h"
#include "karp/consolidator.h"
#include "karp/json/codec.h"
#include "karp/json/command_io.h"
#include "tools/cli_common.h"
#include "tools/node_classes.h"

namespace karp::cli {
namespace {

constexpr char kConsolidateUsage[] =
    "usage: karp consolidate -f SNAPSHOT [-f SNAPSHOT...] [-R] [--catalog aws|FILE]\n"
    "                        --now RFC3339 [-o json|yaml|text|nodeclaims] [--once] [--repack]\n"
    "                        [--max-simulations N] [--timeout D]\n"
    "\n"
    "Computes the disruption commands successive loops of the reference controller would run\n"
    "(expiration, emptiness, drift, multi-node and single-node consolidation), each applied to\n"
    "the snapshot before the next, and why every other node is kept.\n"
    "\n"
    "Options:\n"
    "  -f, --filename FILE|DIR|-    snapshot file (repeatable; FILE1,FILE2 also accepted); a\n"
    "                               directory: its .json, .yaml and .yml files; '-': stdin\n"
    "  -R, --recursive              with -f DIR, the files below DIR too\n"
    "  --catalog aws|FILE           instance types (default: the embedded AWS catalog)\n"
    "  --region R, --zones Z1,Z2    region and zones of the embedded AWS catalog\n"
    "  --commitments FILE           Reserved Instances, Savings Plans and capacity reservations:\n"
    "                               prices and savings are marginal costs (docs/commitments.md)\n"
    "  --max-input-bytes N          refuse a file larger than N bytes (default 2Gi;\n"
    "                               a stream 1Gi, YAML 128Mi)\n"
    "  --validate strict|warn|ignore  a field its kind's schema lacks (a typo such as\n"
    "                               requirments:) is an error (default), a warning, or ignored\n"
    "  --no-expand-workloads        Deployments, StatefulSets, Jobs... create no pods (they\n"
    "                               are listed as skipped)\n"
    "  --feature-gates NodeOverlay=false  ignore the input's NodeOverlays (applied by default)\n"
    "  --scheduler-config DOC|FILE  kube-scheduler's podTopologySpread.defaultConstraints\n"
    "                               for pods without constraints (as the reference's flag)\n"
    "  --now RFC3339                the clock for consolidateAfter, expireAfter and budget\n"
    "                               schedules (default: the current time)\n"
    "  --once                       print only the first loop's command\n"
    "  --repack                     re-pack mode: place the candidates' pods afresh with the\n"
    "                               cost packer and emit the difference as commands of m\n"
    "                               nodes deleted and k >= 0 launched (docs/repack.md)\n"
    "  --spot-to-spot               enable SpotToSpotConsolidation\n"
    "  --legacy-order               order candidates by disruption cost (before v1.14)\n"
    "  --max-simulations N          stop after N scheduling simulations (default: no limit)\n"
    "  --timeout D                  start no simulation after D of wall time (e.g. 30s;\n"
    "                               default: none); a plan stopped either way prints the\n"
    "                               commands of its completed loops and says so on stderr\n"
    "  -o, --output json|yaml|text|nodeclaims   output format (default json); nodeclaims:\n"
    "                               the replacements as karpenter.sh/v1 NodeClaims\n"
    "  -h, --help                   this help\n"
    "\n"
    "Progress (loops, commands, simulations) goes to stderr when it is a terminal.\n";

// `-o text`: one line per command and per kept node, then a summary.
void PrintText(const ConsolidationPlan& plan, const ClusterSnapshot& snapshot,
               const CommandCatalogs& catalogs, const InstanceCatalog& base,
               const std::string& currency) {
  // Names come from the input: escaped as they are printed (TerminalText).
  TerminalText out(std::cout);
  // A node's price is its offering's; estimated when that offering's price is.
  auto node_estimated = [&](const std::string& name) {
    for (const Node& n : snapshot.nodes) {
      if (n.metadata.name != name) continue;
      auto label = [&n](std::string_view key) {
        auto f = n.metadata.labels.find(std::string(key));
        return f == n.metadata.labels.end() ? std::string() : f->second;
      };
      return OfferingPriceEstimated(catalogs.Of(label(kLabelNodePool), base),
                                    label(kLabelInstanceType), label(kLabelZone),
                                    label(kLabelCapacityType));
    }
    return false;
  };
  bool any_estimated = false;
  for (const DisruptionCommand& cmd : plan.commands) {
    bool estimated = false;
    for (const std::string& c : cmd.candidates) estimated = estimated || node_estimated(c);
    for (const NewNodeClaim& nc : cmd.replacements) {
      estimated = estimated || (nc.launch && nc.launch->price_estimated);
    }
    any_estimated = any_estimated || estimated;
    out << "Disrupting via " << DisruptionReasonName(cmd.reason) << " "
        << DisruptionDecisionName(cmd.decision) << ", terminating " << cmd.candidates.size()
        << " nodes (" << absl::StrJoin(cmd.candidates, ", ") << ")";
    for (const NewNodeClaim& nc : cmd.replacements) {
      out << " and replacing with nodeclaim " << nc.name;
      if (nc.launch)
        out << " (" << nc.launch->instance_type << " " << nc.launch->capacity_type << ")";
    }
    out << ", saving " << (estimated ? "an estimated " : "")
        << PerHour(cmd.savings_per_hour, currency) << "\n";
  }
  for (const KeptNode& k : plan.kept) out << "Keeping node " << k.node << ": " << k.reason << "\n";
  out << plan.commands.size() << " command(s), " << PerHour(plan.savings_per_hour, currency)
      << " saved over " << plan.node_count << " node(s)"
      << (any_estimated ? " (spot prices estimated)" : "") << "\n";
  if (plan.repack) {
    const RepackSummary& r = *plan.repack;
    out << "Re-pack: the cluster goes from " << PerHour(r.price_before_per_hour, currency) << " to "
        << PerHour(r.price_after_per_hour, currency) << " evicting " << r.evictions
        << " pod(s); no plan ends below " << PerHour(r.lower_bound_per_hour, currency)
        << ", and re-packing every reschedulable pod costs at least "
        << PerHour(r.all_pods_lower_bound_per_hour, currency) << "\n";
  }
}

struct ConsolidateFlags {
  CatalogFlags catalog_flags;
  FileFlags file_flags;
  std::string output = "json";
  ConsolidationOptions options;
  absl::Time now = absl::Now();
  std::optional<absl::Duration> timeout;
};

// --max-simulations and --timeout: 1 when `args[i]` is one of them (consumed), 0 when not,
// -1 with `*error` set for a bad value.
int TakeBoundFlag(const std::vector<std::string>& args, size_t& i, ConsolidateFlags* f,
                  std::string* error) {
  std::string value;
  int r = 0;
  if ((r = TakeFlag(args, i, "--max-simulations", &value)) != 0) {
    if (r < 0 || !absl::SimpleAtoi(value, &f->options.max_simulations) ||
        f->options.max_simulations < 1) {
      *error =
          internal::StrCat("--max-simulations must be a positive integer, got \"", value, "\"");
      return -1;
    }
    return 1;
  }
  if ((r = TakeFlag(args, i, "--timeout", &value)) != 0) {
    absl::Duration d;
    if (r < 0 || !absl::ParseDuration(value, &d) || d <= absl::ZeroDuration() ||
        d == absl::InfiniteDuration()) {
      *error =
          internal::StrCat("--timeout must be a positive duration (e.g. 30s), got \"", value, "\"");
      return -1;
    }
    f->timeout = d;
    return 1;
  }
  return 0;
}

// Progress on stderr, rewritten in place at most every 200 ms; a final newline when done.
std::function<void(const ConsolidationProgress&)> TerminalProgress() {
  auto last = std::make_shared<absl::Time>(absl::InfinitePast());
  return [last](const ConsolidationProgress& p) {
    const bool done = p.method.empty();
    const absl::Time now = absl::Now();
    if (!done && now - *last < absl::Milliseconds(200)) return;
    *last = now;
    std::cerr << "\rkarp consolidate: loop " << p.loop + 1 << ", " << p.command_count
              << " command(s), " << p.simulations << " simulation(s)"
              << (done ? std::string()
                       : internal::StrCat(", ", p.candidate_count, " candidate(s), ", p.method))
              << "\033[K" << (done ? "\n" : "") << std::flush;
  };
}

// Parses the command line into `f`: nullopt to go on, or the exit code to return.
std::optional<int> ParseConsolidateArgs(const std::vector<std::string>& args,
                                        ConsolidateFlags* flags) {
  CatalogFlags& catalog_flags = flags->catalog_flags;
  FileFlags& file_flags = flags->file_flags;
  std::string& output = flags->output;
  ConsolidationOptions& options = flags->options;
  absl::Time& now = flags->now;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kConsolidateUsage;
      return kExitOk;
    }
    std::string value;
    auto take = [&](std::string_view name) { return TakeFlag(args, i, name, &value); };
    std::string flag_error;
    int r = catalog_flags.Take(args, i, &flag_error);
    if (r == 0) r = file_flags.Take(args, i, &flag_error);
    if (r < 0) return UsageError(kConsolidateUsage, flag_error);
    if (r > 0) continue;
    if ((r = TakeBoundFlag(args, i, flags, &flag_error)) < 0) {
      return UsageError(kConsolidateUsage, flag_error);
    }
    if (r > 0) continue;
    if ((r = take("-o")) != 0 || (r = take("--output")) != 0) {
      if (r < 0 ||
          (value != "json" && value != "yaml" && value != "text" && value != "nodeclaims")) {
        return UsageError(kConsolidateUsage, "-o must be json, yaml, text or nodeclaims");
      }
      output = value;
    } else if ((r = take("--now")) != 0) {
      std::string err;
      if (r < 0 || !absl::ParseTime(absl::RFC3339_full, value, &now, &err)) {
        return UsageError(kConsolidateUsage,
                          internal::StrCat("--now must be an RFC3339 time, got \"", value, "\""));
      }
    } else if (a == "--once") {
      options.once = true;
    } else if (a == "--repack") {
      options.mode = ConsolidationMode::kRepack;
    } else if (a == "--spot-to-spot") {
      options.spot_to_spot = true;
    } else if (a == "--legacy-order") {
      options.candidate_order = CandidateOrder::kDisruptionCost;
    } else {
      return UsageError(kConsolidateUsage, internal::StrCat("unknown argument \"", a, "\""));
    }
  }
  if (file_flags.paths.empty()) {
    return UsageError(kConsolidateUsage, "no snapshot given (-f FILE)");
  }
  return std::nullopt;
}

}  // namespace

int RunConsolidate(const std::vector<std::string>& args) {
  ConsolidateFlags flags;
  if (std::optional<int> exit = ParseConsolidateArgs(args, &flags)) return *exit;
  const CatalogFlags& catalog_flags = flags.catalog_flags;
  const std::string& output = flags.output;
  ConsolidationOptions& options = flags.options;
  const absl::Time now = flags.now;
  absl::StatusOr<std::vector<std::string>> files = flags.file_flags.Files();
  if (!files.ok()) return InputError(files.status());
  absl::StatusOr<ClusterSnapshot> snapshot = ReadSnapshot(*files, catalog_flags.read);
  if (!snapshot.ok()) return InputError(snapshot.status());
  absl::StatusOr<InstanceCatalog> catalog = catalog_flags.Load();
  if (!catalog.ok()) return InputError(catalog.status());
  auto base = std::make_shared<const InstanceCatalog>(std::move(*catalog));
  // The instance types of each NodePool under its EC2NodeClass and the NodeOverlays.
  absl::StatusOr<CommandCatalogs> catalogs = NodePoolCatalogsFor(
      *snapshot, base, EmbeddedOptions(catalog_flags), catalog_flags.node_overlay);
  if (!catalogs.ok()) return InputError(catalogs.status());

  absl::StatusOr<std::shared_ptr<const PricingModel>> pricing = catalog_flags.Pricing(now);
  if (!pricing.ok()) return InputError(pricing.status());
  options.pricing = *std::move(pricing);
  absl::StatusOr<std::vector<TopologySpreadConstraint>> spread =
      catalog_flags.DefaultTopologySpread();
  if (!spread.ok()) return InputError(spread.status());
  options.scheduler.default_topology_spread = *std::move(spread);
  ApplyDefaultSpreadWithNote(&*snapshot, options.scheduler.default_topology_spread);
  if (isatty(STDERR_FILENO)) options.progress = TerminalProgress();
  // The timeout counts from here: parsing the input is not part of the plan.
  if (flags.timeout) options.deadline = absl::Now() + *flags.timeout;
  absl::StatusOr<Consolidator> consolidator =
      catalogs->shared != nullptr
          ? Consolidator::Create(*snapshot, catalogs->shared, now, options)
          : Consolidator::Create(*snapshot, catalogs->by_node_pool, now, options);
  if (!consolidator.ok()) return InputError(consolidator.status());
  absl::StatusOr<ConsolidationPlan> plan = consolidator->Plan();
  if (!plan.ok()) return InputError(plan.status());
  if (plan->stopped_early) {
    const bool compared = plan->repack && plan->repack->faithful_plan;
    std::cerr << "karp consolidate: stopped early after " << plan->simulations << " simulation(s) ("
              << (compared ? "the faithful plan re-pack is compared with, bounded"
                           : "--max-simulations/--timeout")
              << "): the " << plan->commands.size()
              << " command(s) are the first of the full plan; later loops were not computed\n";
  }
  if (output != "text") {
    absl::StatusOr<std::string> text = json::ConsolidateOutput(*plan, *snapshot, output);
    if (!text.ok()) return InputError(text.status());
    std::cout << *text;
    return kExitOk;
  }
  PrintText(*plan, *snapshot, *catalogs, *base, catalog_flags.Currency());
  PrintSkippedSummary(snapshot->skipped);
  return kExitOk;
}

}  // namespace karp::cli
