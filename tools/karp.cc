// karp — command-line front end of the karp library (docs/formats.md).
//
//   karp catalog [--catalog aws|FILE] [-o json|table] [filters]
//   karp version
//
// Exit status: 0 success; 1 invalid input (one line on stderr naming file and JSON path);
// 2 wrong usage (the usage is printed).

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_split.h"
#include "internal/strings.h"
#include "karp/aws_catalog.h"
#include "karp/catalog.h"
#include "karp/json/codec.h"
#include "karp/json/command_io.h"
#include "karp/labels.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/version.h"
#include "tools/cli_common.h"

namespace karp::cli {

// `karp simulate` (tools/simulate.cc).
int RunSimulate(const std::vector<std::string>& args);

namespace {

constexpr char kMainUsage[] =
    "usage: karp <command> [options]\n"
    "\n"
    "Commands:\n"
    "  solve        decide which nodes to launch for the pending pods of a snapshot\n"
    "  consolidate  decide which nodes to delete or replace to cut cost\n"
    "  catalog      print or filter an instance-type catalog\n"
    "  simulate     replay a workload trace through a simulated cluster, comparing policies\n"
    "  convert      convert v1alpha5/v1beta1 Karpenter objects to their v1 form\n"
    "  version      print karp's version\n"
    "\n"
    "Run 'karp <command> --help' for a command's options.\n";

constexpr char kCatalogUsage[] =
    "usage: karp catalog [--catalog aws|FILE] [--region R] [--zones Z1,Z2,...]\n"
    "                    [-o json|yaml|table] [--no-headers] [filters...]\n"
    "\n"
    "Prints an instance-type catalog: the embedded AWS catalog (default) or a catalog file\n"
    "(docs/formats.md §2). '-o json' prints the catalog format, which 'karp --catalog FILE' reads "
    "back.\n"
    "\n"
    "Filters (all must hold, like ec2-instance-selector):\n"
    "  --vcpus N | MIN-MAX          vCPUs\n"
    "  --memory Q | MIN-MAX         memory of the instance (e.g. 4Gi, 8Gi-32Gi)\n"
    "  --arch amd64|arm64           architecture\n"
    "  --gpus N | MIN-MAX           GPUs (nvidia.com/gpu + amd.com/gpu)\n"
    "  --capacity-type T            on-demand, spot or reserved\n"
    "  --zone Z                     zone with an available offering\n"
    "  --max-price P                cheapest available offering at most P per hour\n"
    "  --requirement 'KEY OP [V1,V2]'  a node selector requirement, e.g.\n"
    "                               'karpenter.k8s.aws/instance-family In m5,c6i'\n"
    "                               (repeatable; OP: In NotIn Exists DoesNotExist Gt Lt Gte Lte)\n"
    "\n"
    "Options:\n"
    "  --catalog aws|FILE           catalog source (default aws)\n"
    "  --region R                   region of the embedded AWS catalog (default us-east-1;\n"
    "                               prices for cn-north-1 (CNY), us-east-1, us-gov-east-1,\n"
    "                               us-gov-west-1)\n"
    "  --zones Z1,Z2                zones of its offerings, all of the region\n"
    "                               (default <region>a,b,c)\n"
    "  --max-input-bytes N          refuse a catalog file larger than N bytes (default 2Gi;\n"
    "                               a stream 1Gi, YAML 128Mi)\n"
    "  -o, --output json|yaml|table  output format (default table)\n"
    "  --no-headers                 table rows only (no header line, count or notes)\n"
    "  -h, --help                   this help\n"
    "\n"
    "The embedded catalog's spot prices are estimates (on-demand less a per-category discount,\n"
    "marked 'est' in the table and \"priceEstimated\": true in JSON); a catalog file can give\n"
    "real ones.\n";

struct Range {
  int64_t min = 0;
  int64_t max = INT64_MAX;
  bool Contains(int64_t v) const { return v >= min && v <= max; }
};

absl::StatusOr<Range> ParseRange(std::string_view flag, std::string_view text,
                                 std::string_view resource) {
  Range r;
  size_t dash = text.find('-', 1);
  std::string_view lo = dash == std::string_view::npos ? text : text.substr(0, dash);
  std::string_view hi = dash == std::string_view::npos ? text : text.substr(dash + 1);
  absl::StatusOr<int64_t> a = ParseQuantity(lo, resource);
  absl::StatusOr<int64_t> b = ParseQuantity(hi, resource);
  if (!a.ok() || !b.ok() || *a > *b) {
    return absl::InvalidArgumentError(
        internal::StrCat(flag, ": expected N or MIN-MAX, got \"", text, "\""));
  }
  r.min = *a;
  r.max = *b;
  return r;
}

// "key Op v1,v2" -> Requirement.
absl::StatusOr<Requirement> ParseRequirementFlag(std::string_view text) {
  std::vector<std::string> parts = absl::StrSplit(internal::AV(text), ' ', absl::SkipEmpty());
  if (parts.size() < 2 || parts.size() > 3) {
    return absl::InvalidArgumentError(
        internal::StrCat("--requirement: expected 'KEY OPERATOR [V1,V2,...]', got \"", text, "\""));
  }
  absl::StatusOr<Operator> op = ParseOperator(parts[1]);
  if (!op.ok()) {
    return absl::InvalidArgumentError(
        internal::StrCat("--requirement \"", text, "\": ", op.status().message()));
  }
  std::vector<std::string> values;
  if (parts.size() == 3) values = absl::StrSplit(parts[2], ',', absl::SkipEmpty());
  NodeSelectorRequirement api{parts[0], *op, values, std::nullopt};
  if (absl::Status s = ValidateRequirement(api, LabelSet{}); !s.ok()) {
    return absl::InvalidArgumentError(
        internal::StrCat("--requirement \"", text, "\": ", s.message()));
  }
  return Requirement::Create(api);
}

int64_t LabelInt(const InstanceType& it, std::string_view key, int64_t fallback) {
  auto found = it.labels.find(std::string(key));
  if (found == it.labels.end()) return fallback;
  char* end = nullptr;
  long long v = std::strtoll(found->second.c_str(), &end, 10);
  return (end != nullptr && *end == '\0') ? v : fallback;
}

std::string FormatPrice(double p) {
  if (p == kNoPrice) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4f", p);
  return buf;
}

// Prices per hour in `currency` ("" for a catalog file: shown as "$"); an estimated spot
// price is marked "est" and explained below the table.
void PrintTable(const std::vector<const InstanceType*>& types, std::string_view currency,
                bool headers) {
  const std::string unit =
      currency.empty() || currency == "USD" ? "$/H" : internal::StrCat(currency, "/H");
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"NAME", "ARCH", "VCPU", "MEMORY", "PODS", "ALLOC CPU", "ALLOC MEMORY", "GPU",
                  "ON-DEMAND " + unit, "SPOT " + unit, "ZONES"});
  bool estimated = false;
  Requirements od{Requirement::In(kLabelCapacityType, {std::string(kCapacityTypeOnDemand)})};
  Requirements spot{Requirement::In(kLabelCapacityType, {std::string(kCapacityTypeSpot)})};
  for (const InstanceType* it : types) {
    ResourceList alloc = it->Allocatable();
    auto arch = it->labels.find(std::string(kLabelArch));
    const Offering* o = it->CheapestOffering(od);
    const Offering* s = it->CheapestOffering(spot);
    const Requirement* zones = it->requirements.Find(kLabelZone);
    const int64_t gpus = it->capacity.Get("nvidia.com/gpu") + it->capacity.Get("amd.com/gpu");
    // Names come from the catalog file: escaped, they cannot drive the terminal.
    rows.push_back(
        {internal::EscapeForMessage(it->name),
         arch == it->labels.end() ? "" : internal::EscapeForMessage(arch->second),
         FormatQuantity(it->capacity.cpu(), kResourceCpu),
         FormatQuantity(it->capacity.memory(), kResourceMemory),
         FormatQuantity(it->capacity.pods(), kResourcePods),
         FormatQuantity(alloc.cpu(), kResourceCpu), FormatQuantity(alloc.memory(), kResourceMemory),
         std::to_string(gpus), FormatPrice(o ? o->price : kNoPrice),
         FormatPrice(s ? s->price : kNoPrice) + (s != nullptr && s->price_estimated ? " est" : ""),
         std::to_string(zones ? zones->values().size() : 0)});
    estimated = estimated || (s != nullptr && s->price_estimated);
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (size_t r = headers ? 0 : 1; r < rows.size(); ++r) {
    const std::vector<std::string>& row = rows[r];
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    std::cout << line << "\n";
  }
  if (!headers) return;
  std::cout << types.size() << " instance type(s)\n";
  if (estimated) {
    std::cout << "est: estimated spot price, the on-demand price less a typical discount for "
                 "the instance category (docs/aws-catalog.md); a catalog file can give real "
                 "prices\n";
  }
}

// What `karp catalog` filters on.
struct CatalogFilters {
  std::optional<Range> vcpus, memory, gpus;
  std::optional<std::string> arch, capacity_type, zone;
  std::optional<double> max_price;
  bool no_headers = false;
  Requirements reqs;  // --requirement, then --arch, --capacity-type and --zone

  bool any() const { return !reqs.empty() || vcpus || memory || gpus || max_price; }
};

// Parses `args`. Returns the exit status when the command ends here (help, usage errors),
// nullopt to go on.
std::optional<int> ParseCatalogArgs(const std::vector<std::string>& args, CatalogFlags* flags,
                                    std::string* output, CatalogFilters* f) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kCatalogUsage;
      return 0;
    }
    std::string value;
    auto take = [&](std::string_view name) { return TakeFlag(args, i, name, &value) > 0; };
    auto range = [&](std::string_view flag, std::string_view unit,
                     std::optional<Range>* out) -> std::optional<int> {
      absl::StatusOr<Range> r = ParseRange(flag, value, unit);
      if (!r.ok()) return UsageError(kCatalogUsage, std::string(r.status().message()));
      *out = *r;
      return std::nullopt;
    };
    std::string flag_error;
    if (int r = flags->Take(args, i, &flag_error); r > 0) {
      continue;
    } else if (r < 0) {
      return UsageError(kCatalogUsage, flag_error);
    } else if (take("-o") || take("--output")) {
      if (value != "json" && value != "yaml" && value != "table") {
        return UsageError(kCatalogUsage, "-o must be json, yaml or table");
      }
      *output = value;
    } else if (a == "--no-headers") {
      f->no_headers = true;
    } else if (take("--vcpus")) {
      if (auto rc = range("--vcpus", kResourcePods, &f->vcpus)) return rc;
    } else if (take("--memory")) {
      if (auto rc = range("--memory", kResourceMemory, &f->memory)) return rc;
    } else if (take("--gpus")) {
      if (auto rc = range("--gpus", kResourcePods, &f->gpus)) return rc;
    } else if (take("--arch")) {
      f->arch = value;
    } else if (take("--capacity-type")) {
      f->capacity_type = value;
    } else if (take("--zone")) {
      f->zone = value;
    } else if (take("--max-price")) {
      char* end = nullptr;
      double p = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0' || !(p >= 0)) {
        return UsageError(kCatalogUsage, "--max-price must be a non-negative number");
      }
      f->max_price = p;
    } else if (take("--requirement")) {
      absl::StatusOr<Requirement> r2 = ParseRequirementFlag(value);
      if (!r2.ok()) return UsageError(kCatalogUsage, std::string(r2.status().message()));
      f->reqs.Add(*r2);
    } else {
      return UsageError(kCatalogUsage, internal::StrCat("unknown argument \"", a, "\""));
    }
  }
  if (f->arch) f->reqs.Add(Requirement::In(kLabelArch, {*f->arch}));
  if (f->capacity_type) f->reqs.Add(Requirement::In(kLabelCapacityType, {*f->capacity_type}));
  if (f->zone) f->reqs.Add(Requirement::In(kLabelZone, {*f->zone}));
  return std::nullopt;
}

// The types of `catalog` that pass every filter, in catalog order.
std::vector<const InstanceType*> SelectTypes(const InstanceCatalog& catalog,
                                             const CatalogFilters& f) {
  std::vector<const InstanceType*> selected;
  for (const InstanceType& it : catalog.instance_types()) {
    if (!f.reqs.empty() && (!it.requirements.IsCompatible(f.reqs, &catalog.well_known_labels()) ||
                            !it.HasCompatibleOffering(f.reqs))) {
      continue;
    }
    const int64_t cpu_count =
        LabelInt(it, "karpenter.k8s.aws/instance-cpu", it.capacity.cpu() / 1000);
    if (f.vcpus && !f.vcpus->Contains(cpu_count)) continue;
    const int64_t mem = LabelInt(it, "karpenter.k8s.aws/instance-memory", -1);
    if (f.memory && !f.memory->Contains(mem >= 0 ? mem * 1024 * 1024 : it.capacity.memory())) {
      continue;
    }
    if (f.gpus &&
        !f.gpus->Contains(it.capacity.Get("nvidia.com/gpu") + it.capacity.Get("amd.com/gpu"))) {
      continue;
    }
    if (f.max_price) {
      const Offering* o = it.CheapestOffering(f.reqs);
      if (o == nullptr || o->price > *f.max_price) continue;
    }
    selected.push_back(&it);
  }
  return selected;
}

int RunCatalog(const std::vector<std::string>& args) {
  CatalogFlags catalog_flags;
  std::string output = "table";
  CatalogFilters filters;
  if (std::optional<int> rc = ParseCatalogArgs(args, &catalog_flags, &output, &filters)) {
    return *rc;
  }
  absl::StatusOr<InstanceCatalog> catalog = catalog_flags.Load();
  if (!catalog.ok()) return InputError(catalog.status());
  std::vector<const InstanceType*> selected = SelectTypes(*catalog, filters);
  if (output != "table") {
    std::vector<InstanceType> copy;
    copy.reserve(selected.size());
    for (const InstanceType* it : selected) copy.push_back(*it);
    absl::StatusOr<InstanceCatalog> out =
        filters.any() ? InstanceCatalog::Create(std::move(copy), catalog->well_known_labels())
                      : std::move(catalog);
    if (!out.ok()) return InputError(out.status());
    absl::StatusOr<std::string> text = json::CatalogOutput(*out, output);
    if (!text.ok()) return InputError(text.status());
    std::cout << *text;
    return 0;
  }
  OrderByPrice(selected, filters.reqs);
  PrintTable(selected, catalog_flags.Currency(), !filters.no_headers);
  return 0;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return UsageError(kMainUsage, "no command given");
  const std::string command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "-h" || command == "--help" || command == "help") {
    std::cout << kMainUsage;
    return 0;
  }
  if (command == "version" || command == "--version") {
    std::cout << "karp " << KARP_VERSION_STRING << "\n";
    return 0;
  }
  if (command == "catalog") return RunCatalog(rest);
  if (command == "solve") return RunSolve(rest);
  if (command == "consolidate") return RunConsolidate(rest);
  if (command == "convert") return RunConvert(rest);
  if (command == "simulate") return RunSimulate(rest);
  return UsageError(kMainUsage, internal::StrCat("unknown command \"", command, "\""));
}

// Output that cannot be written is an error, never a success: standard output is flushed
// before exit and a failed write (a full device, a closed descriptor) exits 1 with one line on
// stderr. A command that already failed keeps its own status.
int CheckStandardOutput(int status) {
  errno = 0;
  std::cout.flush();
  const bool stream_failed = !std::cout;
  const bool flush_failed = std::fflush(stdout) != 0;  // sets errno to the reason
  const bool failed = stream_failed || flush_failed || std::ferror(stdout) != 0;
  if (!failed) return status;
  const int err = errno;
  std::cerr << "karp: cannot write standard output" << internal::OsReason(err) << "\n";
  return status == kExitOk ? kExitInvalidInput : status;
}

}  // namespace
}  // namespace karp::cli

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // A Solve frees millions of small objects; glibc's fastbins then cost more than they save
  // (docs/performance.md): free small chunks at once instead.
  mallopt(M_MXFAST, 0);
  // A short-lived process: memory freed between phases (the parsed input, a solve's working
  // state) is kept for the next phase instead of going back to the OS and being faulted in
  // again page by page; large buffers come from the heap too. Peak RSS is unchanged.
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
#endif
  return karp::cli::CheckStandardOutput(karp::cli::Main(argc, argv));
}
