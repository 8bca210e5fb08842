// Shared pieces of the karp CLI commands: exit-status helpers and catalog flags.
#ifndef KARP_TOOLS_CLI_COMMON_H_
#define KARP_TOOLS_CLI_COMMON_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/json/codec.h"
#include "karp/objects.h"
#include "karp/pricing.h"

namespace karp::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalidInput = 1;
inline constexpr int kExitUsage = 2;

// Prints "karp: <message>" (escaped: it may quote arguments) and the usage to stderr; returns
// kExitUsage.
int UsageError(std::string_view usage, std::string_view message);
// Prints the status message as one line on stderr; returns kExitInvalidInput (or kExitUsage
// for NotFound files, which are usage errors per docs/formats.md §5).
int InputError(const absl::Status& status);

// `karp solve`.
int RunSolve(const std::vector<std::string>& args);
// `karp consolidate`.
int RunConsolidate(const std::vector<std::string>& args);
// `karp convert` (tools/convert.cc).
int RunConvert(const std::vector<std::string>& args);

// "skipped 1 object: A" or "skipped 3 objects: A, B, C" (at most 10 named, then "and N more");
// "" when nothing was skipped.
std::string SkippedText(const std::vector<std::string>& skipped);
// Text for a terminal, streamed as to std::ostream: a string literal is karp's own text,
// written as it is (its '\n' ends a line); every other value (a std::string or string_view,
// such as a name taken from the input) is data, written escaped (EscapeForMessage), so that it
// cannot move the cursor, retitle the terminal or forge a line; numbers are written as an
// ostream writes them.
class TerminalText {
 public:
  explicit TerminalText(std::ostream& out) : out_(out) {}
  TerminalText& operator<<(const char* literal) {
    out_ << literal;
    return *this;
  }
  TerminalText& operator<<(std::string_view data);
  TerminalText& operator<<(const std::string& data) { return *this << std::string_view(data); }
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  TerminalText& operator<<(T number) {
    out_ << number;
    return *this;
  }

 private:
  std::ostream& out_;
};

// Writes what reading skipped (SkippedText), the codec's warnings and its notes (pods created
// from workloads, at most 10 lines) to stderr, one line each, in every output format:
// nothing is dropped silently.
void ReportReadNotes(const std::vector<std::string>& skipped,
                     const std::vector<std::string>& warnings,
                     const std::vector<std::string>& notes = {});
// json::ReadSnapshotFiles, then ReportReadNotes of what it skipped and warned about.
absl::StatusOr<ClusterSnapshot> ReadSnapshot(const std::vector<std::string>& files,
                                             const json::ReadOptions& options);
// The `-o text` line beside the summary: "Skipped 1 object: ..." on stdout (nothing when none).
void PrintSkippedSummary(const std::vector<std::string>& skipped);

// If args[i] is `name VALUE` or `name=VALUE`, stores VALUE (advancing i past it) and returns 1;
// returns -1 when the value is missing, 0 when args[i] is another argument.
int TakeFlag(const std::vector<std::string>& args, size_t& i, std::string_view name,
             std::string* value);

// --catalog aws|FILE, --region R, --zones a,b,c, --max-input-bytes N (the cap on what one
// read of a snapshot or catalog file accepts; quantities such as 4Gi are accepted) and
// --no-expand-workloads (ReadOptions::expand_workloads false), --validate strict|warn|ignore
// (ReadOptions::validation).
struct CatalogFlags {
  std::string catalog = "aws";
  std::string region = "us-east-1";
  std::vector<std::string> zones;
  json::ReadOptions read;
  std::string commitments;  // --commitments FILE (docs/commitments.md)
  // --feature-gates NodeOverlay=true|false (the reference's flag): whether the input's
  // NodeOverlays are applied. Default: true (the reference's gate defaults to false, but
  // overlays in the input are there to be applied; false ignores them, as the reference does
  // with its gate off).
  bool node_overlay = true;
  // --scheduler-config DOC|FILE (the reference's flag), as given.
  std::string scheduler_config;

  // If args[i] is one of the flags, consumes it (and its value) and returns 1; returns -1 when
  // its value is missing or invalid (`*error` says why); 0 when args[i] is not one of them.
  int Take(const std::vector<std::string>& args, size_t& i, std::string* error);
  // --feature-gates, as Take.
  int TakeFeatureGates(const std::vector<std::string>& args, size_t& i, std::string* error);
  // The catalog, with the capacity reservations of --commitments as reserved offerings.
  [[nodiscard]] absl::StatusOr<InstanceCatalog> Load() const;
  // podTopologySpread.defaultConstraints of --scheduler-config (none without the flag), for
  // SchedulerOptions::default_topology_spread. Errors: json::SchedulerConfigFromFlag's.
  [[nodiscard]] absl::StatusOr<std::vector<TopologySpreadConstraint>> DefaultTopologySpread() const;
  // The commitment pricing model of --commitments at `now`, or null without the flag.
  [[nodiscard]] absl::StatusOr<std::shared_ptr<const PricingModel>> Pricing(absl::Time now) const;
  // The currency of the catalog's prices: the embedded region's ("USD", "CNY"), or "" for a
  // catalog file (prices in whatever unit the file uses; shown with "$").
  std::string Currency() const;
};

// -f/--filename FILE|DIR|- (repeatable; FILE1,FILE2 also accepted) and -R/--recursive, as
// kubectl: a directory stands for every .json, .yaml and .yml file in it (in its
// subdirectories too with -R), in path order; '-' is standard input.
struct FileFlags {
  std::vector<std::string> paths;
  bool recursive = false;

  // As CatalogFlags::Take.
  int Take(const std::vector<std::string>& args, size_t& i, std::string* error);
  // The files to read, directories expanded. Errors: NotFound naming a path that does not
  // exist or a directory without any such file.
  [[nodiscard]] absl::StatusOr<std::vector<std::string>> Files() const;
};

// Gives `defaults` to the pods of `snapshot` (karp::ApplyDefaultTopologySpread, which the
// scheduler would do) and prints one line on stderr saying what became of the pods, e.g.
//   karp: default topology spread: 6 pods got the defaults, 2 have constraints of their own,
//   3 have no Service or controller selecting them (1 whose controller is not in the input)
// Nothing without defaults.
void ApplyDefaultSpreadWithNote(ClusterSnapshot* snapshot,
                                const std::vector<TopologySpreadConstraint>& defaults);

// `price` per hour as text: "$0.1376/h" in USD (or an unknown currency), "2.119 CNY/h"
// otherwise; the number as std::ostream prints a double.
std::string PerHour(double price, std::string_view currency);

// Whether the offering of `type` in `zone` with `capacity_type` has an estimated price.
bool OfferingPriceEstimated(const InstanceCatalog& catalog, std::string_view type,
                            std::string_view zone, std::string_view capacity_type);

}  // namespace karp::cli

#endif  // KARP_TOOLS_CLI_COMMON_H_
