#include "tools/cli_common.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <system_error>

#include "absl/strings/str_split.h"
#include "internal/strings.h"
#include "karp/aws_catalog.h"
#include "karp/json/codec.h"
#include "karp/json/command_io.h"
#include "karp/json/commitments.h"
#include "karp/pricing.h"
#include "karp/resources.h"
#include "karp/topology_defaults.h"

namespace karp::cli {

int UsageError(std::string_view usage, std::string_view message) {
  std::cerr << "karp: " << internal::EscapeForMessage(message) << "\n\n" << usage;
  return kExitUsage;
}

int InputError(const absl::Status& status) {
  std::cerr << internal::EscapeForMessage(internal::Message(status)) << "\n";
  return status.code() == absl::StatusCode::kNotFound ? kExitUsage : kExitInvalidInput;
}

std::string SkippedText(const std::vector<std::string>& skipped) {
  if (skipped.empty()) return "";
  constexpr size_t kNamed = 10;
  std::string text = internal::StrCat("skipped ", skipped.size(),
                                      skipped.size() == 1 ? " object: " : " objects: ");
  for (size_t i = 0; i < skipped.size() && i < kNamed; ++i) {
    if (i > 0) text += ", ";
    text += skipped[i];
  }
  if (skipped.size() > kNamed) text += internal::StrCat(" and ", skipped.size() - kNamed, " more");
  return text;
}

TerminalText& TerminalText::operator<<(std::string_view data) {
  out_ << internal::EscapeForMessage(data);
  return *this;
}

void ReportReadNotes(const std::vector<std::string>& skipped,
                     const std::vector<std::string>& warnings,
                     const std::vector<std::string>& notes) {
  for (const std::string& w : warnings) {
    std::cerr << "karp: warning: " << internal::EscapeForMessage(w) << "\n";
  }
  constexpr size_t kShown = 10;
  for (size_t i = 0; i < notes.size() && i < kShown; ++i) {
    std::cerr << "karp: " << internal::EscapeForMessage(notes[i]) << "\n";
  }
  if (notes.size() > kShown) std::cerr << "karp: and " << notes.size() - kShown << " more notes\n";
  if (skipped.empty()) return;
  std::cerr << "karp: " << internal::EscapeForMessage(SkippedText(skipped)) << "\n";
}

absl::StatusOr<ClusterSnapshot> ReadSnapshot(const std::vector<std::string>& files,
                                             const json::ReadOptions& options) {
  absl::StatusOr<ClusterSnapshot> snapshot = json::ReadSnapshotFiles(files, options);
  if (snapshot.ok()) ReportReadNotes(snapshot->skipped, snapshot->warnings, snapshot->notes);
  return snapshot;
}

void PrintSkippedSummary(const std::vector<std::string>& skipped) {
  if (skipped.empty()) return;
  std::string text = SkippedText(skipped);
  text[0] = 'S';
  std::cout << internal::EscapeForMessage(text) << "\n";
}

int TakeFlag(const std::vector<std::string>& args, size_t& i, std::string_view name,
             std::string* value) {
  const std::string& a = args[i];
  if (a == name) {
    if (i + 1 >= args.size()) return -1;
    *value = args[++i];
    return 1;
  }
  const std::string prefix = internal::StrCat(name, "=");
  if (a.rfind(prefix, 0) == 0) {
    *value = a.substr(prefix.size());
    return 1;
  }
  return 0;
}

absl::StatusOr<std::vector<TopologySpreadConstraint>> CatalogFlags::DefaultTopologySpread() const {
  if (scheduler_config.empty()) return std::vector<TopologySpreadConstraint>();
  absl::StatusOr<SchedulerConfig> config = json::SchedulerConfigFromFlag(scheduler_config);
  if (!config.ok()) return config.status();
  return std::move(config->default_topology_spread);
}

void ApplyDefaultSpreadWithNote(ClusterSnapshot* snapshot,
                                const std::vector<TopologySpreadConstraint>& defaults) {
  if (defaults.empty()) return;
  const DefaultSpreadReport r = ApplyDefaultTopologySpread(snapshot, defaults);
  std::cerr << "karp: default topology spread: " << r.defaulted << " pod"
            << (r.defaulted == 1 ? "" : "s") << " got the defaults";
  if (r.own > 0)
    std::cerr << ", " << r.own << " ha" << (r.own == 1 ? "s" : "ve") << " constraints of "
              << (r.own == 1 ? "its" : "their") << " own";
  if (r.no_selector > 0) {
    std::cerr << ", " << r.no_selector << " ha" << (r.no_selector == 1 ? "s" : "ve")
              << " no Service or controller selecting " << (r.no_selector == 1 ? "it" : "them");
    if (r.owner_missing > 0) {
      std::cerr << " (" << r.owner_missing << " whose controller is not in the input)";
    }
  }
  std::cerr << "\n";
}

int CatalogFlags::TakeFeatureGates(const std::vector<std::string>& args, size_t& i,
                                   std::string* error) {
  std::string gates;
  const int r = TakeFlag(args, i, "--feature-gates", &gates);
  if (r < 0) *error = "missing value for --feature-gates";
  if (r <= 0) return r;
  for (absl::string_view gate : absl::StrSplit(gates, ',', absl::SkipEmpty())) {
    const std::vector<absl::string_view> kv = absl::StrSplit(gate, absl::MaxSplits('=', 1));
    const absl::string_view value = kv.size() == 2 ? kv[1] : "";
    if (kv[0] != "NodeOverlay") {
      *error = internal::StrCat("--feature-gates: unknown gate \"", kv[0],
                                "\" (karp reads NodeOverlay; consolidate has --spot-to-spot for "
                                "SpotToSpotConsolidation)");
      return -1;
    }
    if (value != "true" && value != "false") {
      *error = internal::StrCat("--feature-gates: ", kv[0], " must be =true or =false, got \"",
                                gate, "\"");
      return -1;
    }
    node_overlay = value == "true";
  }
  return 1;
}

int CatalogFlags::Take(const std::vector<std::string>& args, size_t& i, std::string* error) {
  std::string zones_text;
  std::string max_text;
  if (int r = TakeFlag(args, i, "--max-input-bytes", &max_text); r != 0) {
    if (r < 0) {
      *error = "missing value for --max-input-bytes";
      return r;
    }
    absl::StatusOr<int64_t> bytes = ParseQuantity(max_text, "memory");
    if (!bytes.ok() || *bytes < 1) {
      *error = internal::StrCat("--max-input-bytes must be a positive size such as 4Gi, got \"",
                                max_text, "\"");
      return -1;
    }
    // One flag for every cap (ReadOptions): a person who raises it means every input.
    read.max_input_bytes = *bytes;
    read.max_stream_bytes = *bytes;
    read.max_yaml_bytes = *bytes;
    return 1;
  }
  std::string validate;
  if (int r = TakeFlag(args, i, "--validate", &validate); r != 0) {
    if (r < 0) {
      *error = "missing value for --validate";
      return r;
    }
    if (validate == "strict" || validate == "true") {
      read.validation = json::FieldValidation::kStrict;
    } else if (validate == "warn") {
      read.validation = json::FieldValidation::kWarn;
    } else if (validate == "ignore" || validate == "false") {
      read.validation = json::FieldValidation::kIgnore;
    } else {
      *error =
          internal::StrCat("--validate must be strict, warn or ignore, got \"", validate, "\"");
      return -1;
    }
    return 1;
  }
  if (args[i] == "--no-expand-workloads") {
    read.expand_workloads = false;
    return 1;
  }
  if (int r = TakeFeatureGates(args, i, error); r != 0) return r;
  if (int r = TakeFlag(args, i, "--scheduler-config", &scheduler_config); r != 0) {
    if (r < 0) *error = "missing value for --scheduler-config";
    return r;
  }
  if (int r = TakeFlag(args, i, "--commitments", &commitments); r != 0) {
    if (r < 0) *error = "missing value for --commitments";
    return r;
  }
  if (int r = TakeFlag(args, i, "--catalog", &catalog); r != 0) {
    if (r < 0) *error = "missing value for --catalog";
    return r;
  }
  if (int r = TakeFlag(args, i, "--region", &region); r != 0) {
    if (r < 0) *error = "missing value for --region";
    return r;
  }
  if (int r = TakeFlag(args, i, "--zones", &zones_text); r != 0) {
    if (r > 0) zones = absl::StrSplit(zones_text, ',', absl::SkipEmpty());
    if (r < 0) *error = "missing value for --zones";
    return r;
  }
  return 0;
}

int FileFlags::Take(const std::vector<std::string>& args, size_t& i, std::string* error) {
  if (args[i] == "-R" || args[i] == "--recursive") {
    recursive = true;
    return 1;
  }
  std::string value;
  int r = TakeFlag(args, i, "-f", &value);
  if (r == 0) r = TakeFlag(args, i, "--filename", &value);
  if (r < 0) *error = "missing value for -f";
  if (r > 0) {
    for (absl::string_view f : absl::StrSplit(value, ',', absl::SkipEmpty())) paths.emplace_back(f);
  }
  return r;
}

namespace {

bool IsManifest(const std::filesystem::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".json" || ext == ".yaml" || ext == ".yml";
}

// The manifests in `dir` (and below it when `recursive`), sorted.
absl::StatusOr<std::vector<std::string>> DirectoryFiles(const std::string& dir, bool recursive) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  auto add = [&](const fs::directory_entry& e) {
    std::error_code ignored;
    if (e.is_regular_file(ignored) && IsManifest(e.path())) found.push_back(e.path().string());
  };
  if (recursive) {
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      add(*it);
    }
  } else {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) add(*it);
  }
  if (ec) return absl::NotFoundError(internal::StrCat(dir, ": cannot read directory"));
  if (found.empty()) {
    return absl::NotFoundError(internal::StrCat(dir, ": no .json, .yaml or .yml file in directory",
                                                recursive ? " (or below it)" : ""));
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> FileFlags::Files() const {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (p == "-" || !std::filesystem::is_directory(p, ec)) {
      files.push_back(p);
      continue;
    }
    absl::StatusOr<std::vector<std::string>> in_dir = DirectoryFiles(p, recursive);
    if (!in_dir.ok()) return in_dir.status();
    files.insert(files.end(), in_dir->begin(), in_dir->end());
  }
  return files;
}

std::string CatalogFlags::Currency() const {
  return catalog == "aws" ? std::string(EmbeddedAwsCurrency(region)) : std::string();
}

std::string PerHour(double price, std::string_view currency) {
  std::ostringstream out;
  if (currency.empty() || currency == "USD") {
    out << "$" << price << "/h";
  } else {
    out << price << " " << currency << "/h";
  }
  return out.str();
}

bool OfferingPriceEstimated(const InstanceCatalog& catalog, std::string_view type,
                            std::string_view zone, std::string_view capacity_type) {
  const InstanceType* it = catalog.Find(type);
  if (it == nullptr) return false;
  for (const Offering& o : it->offerings) {
    if (o.zone == zone && o.capacity_type == capacity_type) return o.price_estimated;
  }
  return false;
}

absl::StatusOr<InstanceCatalog> CatalogFlags::Load() const {
  absl::StatusOr<InstanceCatalog> loaded;
  if (catalog == "aws") {
    AwsCatalogOptions options;
    options.region = region;
    options.zones = zones;
    loaded = EmbeddedAwsCatalog(options);
  } else {
    loaded = json::ReadCatalogFile(catalog, read);
  }
  if (!loaded.ok() || commitments.empty()) return loaded;
  absl::StatusOr<Commitments> c = json::ReadCommitmentsFile(commitments, read.max_input_bytes);
  if (!c.ok()) return c.status();
  absl::StatusOr<InstanceCatalog> with = WithCapacityReservations(*loaded, *c);
  if (!with.ok()) {
    return absl::InvalidArgumentError(
        internal::StrCat(commitments, ": ", internal::Message(with.status())));
  }
  // A commitment of a type or region the catalog lacks is said, not dropped silently.
  for (const std::string& line : UnmatchedCommitments(*c, *loaded)) {
    std::cerr << "karp: warning: " << internal::EscapeForMessage(commitments) << ": "
              << internal::EscapeForMessage(line) << "\n";
  }
  return with;
}

absl::StatusOr<std::shared_ptr<const PricingModel>> CatalogFlags::Pricing(absl::Time now) const {
  if (commitments.empty()) return std::shared_ptr<const PricingModel>();
  absl::StatusOr<Commitments> c = json::ReadCommitmentsFile(commitments, read.max_input_bytes);
  if (!c.ok()) return c.status();
  return MakeCommitmentPricing(*std::move(c), now);
}

}  // namespace karp::cli
