// File: karp/json/convert.h
//
// Conversion of Karpenter objects of older APIs to their v1 form, as the reference's conversion
// tool (karpenter-convert) and v1 conversion webhooks did (docs/older-apis.md has the table of
// every old field and where it goes):
//   karpenter.sh/v1alpha5 Provisioner          -> karpenter.sh/v1 NodePool (and an
//                                                 EC2NodeClass for an inline spec.provider)
//   karpenter.k8s.aws/v1alpha1 AWSNodeTemplate -> karpenter.k8s.aws/v1 EC2NodeClass
//   karpenter.sh/v1beta1 NodePool, NodeClaim   -> karpenter.sh/v1 NodePool, NodeClaim
//   karpenter.k8s.aws/v1beta1 EC2NodeClass     -> karpenter.k8s.aws/v1 EC2NodeClass
// Kubelet settings of a Provisioner or v1beta1 NodePool move into the converted EC2NodeClass
// it refers to (or stay in the compatibility annotation, with a warning, when that class is
// not in the input or already has other settings).
//
// ParseSnapshot/ReadSnapshotFiles (karp/json/codec.h) apply the same conversion to the old
// kinds they meet, so `karp solve` reads a v1alpha5 Provisioner as the NodePool printed here.
//
// Errors: InvalidArgument `<source>: <path>: <what>` naming the old field, for what has no v1
// equivalent (e.g. `spec.launchTemplate`, `aws::ids` combined with tags, Ubuntu without AMI
// selectors) or is malformed; a converted NodePool or NodeClaim that fails karp's v1 field
// rules is reported as `<source>: <path>: as converted to karpenter.sh/v1 <Kind>: <v1 path>:
// <what>`. Fields the reference dropped or defaulted differently are warnings, never silent.
//
// Thread-safety: all functions are thread-safe (no shared state). Complexity: linear in the
// input, except selector maps with comma-delimited values, which expand to the product of
// their value counts as the reference's conversion did.

#ifndef KARP_JSON_CONVERT_H_
#define KARP_JSON_CONVERT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/json/codec.h"

namespace karp::json {

enum class ConvertFormat {
  kYaml,  // one YAML document per object, separated by `---`
  kJson,  // a `v1` `List` of the objects
};

struct Conversion {
  // The v1 objects in input order: converted ones, and karpenter.sh/v1 NodePools, NodeClaims
  // and karpenter.k8s.aws/v1 EC2NodeClasses of the input copied unchanged.
  std::string output;
  int converted = 0;       // older-API objects converted
  int passed_through = 0;  // v1 objects copied unchanged
  // `<source>: <path>: <what>`: fields dropped, defaults that changed, placeholders to fill in.
  std::vector<std::string> warnings;
  // `<apiVersion> <Kind> <name> (not a kind karp converts)` for every other object.
  std::vector<std::string> skipped;
};

// Converts the objects of one input text (JSON, or YAML with several documents); `source`
// names it in messages. Errors: as above; `no objects in <source>` for an empty input.
[[nodiscard]] absl::StatusOr<Conversion> ConvertText(std::string_view text, std::string_view source,
                                                     ConvertFormat format);

// Reads and converts several files ("-" is standard input) as one input set (a Provisioner
// and the AWSNodeTemplate it refers to may be in different files). Errors: as ConvertText;
// NotFound / ResourceExhausted as ReadSnapshotFiles.
[[nodiscard]] absl::StatusOr<Conversion> ConvertFiles(const std::vector<std::string>& paths,
                                                      ConvertFormat format,
                                                      const ReadOptions& options = {});

}  // namespace karp::json

#endif  // KARP_JSON_CONVERT_H_
