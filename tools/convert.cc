// `karp convert`: print the v1 form of v1alpha5/v1alpha1 and v1beta1 Karpenter objects
// (karp/json/convert.h, docs/older-apis.md), as the reference's karpenter-convert tool did.

#include "karp/json/convert.h"

#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "internal/strings.h"
#include "tools/cli_common.h"

namespace karp::cli {
namespace {

constexpr char kConvertUsage[] =
    "usage: karp convert -f FILE [-f FILE...] [-o yaml|json]\n"
    "\n"
    "Prints the karpenter.sh/v1 and karpenter.k8s.aws/v1 form of older Karpenter objects:\n"
    "v1alpha5 Provisioner -> NodePool, v1alpha1 AWSNodeTemplate -> EC2NodeClass, v1beta1\n"
    "NodePool, NodeClaim and EC2NodeClass -> v1 (docs/older-apis.md lists every field).\n"
    "v1 objects of the input are printed unchanged; other objects are skipped and named on\n"
    "stderr, as are the fields the conversion dropped or defaulted differently.\n"
    "\n"
    "Options:\n"
    "  -f, --filename FILE          input file (repeatable; FILE1,FILE2 also accepted; '-' stdin)\n"
    "  -o, --output yaml|json       YAML documents (default) or a JSON v1 List\n"
    "  --max-input-bytes N          refuse a file larger than N bytes (default 2Gi;\n"
    "                               a stream 1Gi, YAML 128Mi)\n"
    "  --validate strict|warn|ignore  a field its kind's schema lacks is an error (default),\n"
    "                               a warning, or ignored\n"
    "  -h, --help                   this help\n";

}  // namespace

int RunConvert(const std::vector<std::string>& args) {
  CatalogFlags flags;  // for --max-input-bytes and --validate only
  std::vector<std::string> files;
  json::ConvertFormat format = json::ConvertFormat::kYaml;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::cout << kConvertUsage;
      return kExitOk;
    }
    std::string value;
    int r = 0;
    std::string error;
    if ((a.rfind("--max-input-bytes", 0) == 0 || a.rfind("--validate", 0) == 0) &&
        (r = flags.Take(args, i, &error)) != 0) {
      if (r < 0) return UsageError(kConvertUsage, error);
    } else if ((r = TakeFlag(args, i, "-f", &value)) != 0 ||
               (r = TakeFlag(args, i, "--filename", &value)) != 0) {
      if (r < 0) return UsageError(kConvertUsage, "missing value for -f");
      for (absl::string_view f : absl::StrSplit(value, ',', absl::SkipEmpty())) {
        files.emplace_back(f);
      }
    } else if ((r = TakeFlag(args, i, "-o", &value)) != 0 ||
               (r = TakeFlag(args, i, "--output", &value)) != 0) {
      if (r < 0 || (value != "yaml" && value != "json")) {
        return UsageError(kConvertUsage, "-o must be yaml or json");
      }
      format = value == "json" ? json::ConvertFormat::kJson : json::ConvertFormat::kYaml;
    } else {
      return UsageError(kConvertUsage, internal::StrCat("unknown argument \"", a, "\""));
    }
  }
  if (files.empty()) return UsageError(kConvertUsage, "no input given (-f FILE)");
  absl::StatusOr<json::Conversion> conversion = json::ConvertFiles(files, format, flags.read);
  if (!conversion.ok()) return InputError(conversion.status());
  ReportReadNotes(conversion->skipped, conversion->warnings);
  std::cout << conversion->output;
  return kExitOk;
}

}  // namespace karp::cli
