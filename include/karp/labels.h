// File: karp/labels.h
//
// Well-known label keys, label sets and the label rules of the reference (karpenter
// `pkg/apis/v1/labels.go`): beta -> GA key normalization, the well-known label set that pods
// may constrain even when a NodePool does not mention them, and the restricted labels that
// NodePools and pods may not use.
//
// The well-known set is not global state: the core set is returned by WellKnownLabels() and a
// cloud catalog extends it with its own keys (InstanceCatalog::well_known_labels()).
//
// Thread-safety: LabelSet is a value type (thread-compatible); the free functions are
// thread-safe.

#ifndef KARP_LABELS_H_
#define KARP_LABELS_H_

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace karp {

inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kLabelZone = "topology.kubernetes.io/zone";
inline constexpr std::string_view kLabelRegion = "topology.kubernetes.io/region";
inline constexpr std::string_view kLabelInstanceType = "node.kubernetes.io/instance-type";
inline constexpr std::string_view kLabelArch = "kubernetes.io/arch";
inline constexpr std::string_view kLabelOs = "kubernetes.io/os";
inline constexpr std::string_view kLabelWindowsBuild = "node.kubernetes.io/windows-build";
inline constexpr std::string_view kLabelCapacityType = "karpenter.sh/capacity-type";
inline constexpr std::string_view kLabelNodePool = "karpenter.sh/nodepool";
inline constexpr std::string_view kLabelInitialized = "karpenter.sh/initialized";
inline constexpr std::string_view kLabelRegistered = "karpenter.sh/registered";
inline constexpr std::string_view kLabelDoNotSyncTaints = "karpenter.sh/do-not-sync-taints";

inline constexpr std::string_view kCapacityTypeSpot = "spot";
inline constexpr std::string_view kCapacityTypeOnDemand = "on-demand";
inline constexpr std::string_view kCapacityTypeReserved = "reserved";
inline constexpr std::string_view kArchAmd64 = "amd64";
inline constexpr std::string_view kArchArm64 = "arm64";

inline constexpr std::string_view kAnnotationDoNotDisrupt = "karpenter.sh/do-not-disrupt";
inline constexpr std::string_view kAnnotationNodePoolHash = "karpenter.sh/nodepool-hash";
inline constexpr std::string_view kAnnotationNodePoolHashVersion =
    "karpenter.sh/nodepool-hash-version";
inline constexpr std::string_view kAnnotationMinValuesRelaxed =
    "karpenter.sh/nodeclaim-min-values-relaxed";
// Set to "true" on a NodeClaim when one of its instance types has a NodeOverlay price or
// capacity (karp/node_overlay.h).
inline constexpr std::string_view kAnnotationPriceOverlayApplied =
    "karpenter.sh/price-overlay-applied";
inline constexpr std::string_view kAnnotationCapacityOverlayApplied =
    "karpenter.sh/capacity-overlay-applied";

// A sorted set of label keys with O(log n) lookup.
class LabelSet {
 public:
  LabelSet() = default;
  LabelSet(std::initializer_list<std::string_view> keys);

  bool Contains(std::string_view key) const;
  void Insert(std::string_view key);
  void InsertAll(const LabelSet& other);
  const std::vector<std::string>& keys() const { return keys_; }
  size_t size() const { return keys_.size(); }

  friend bool operator==(const LabelSet& a, const LabelSet& b) { return a.keys_ == b.keys_; }

 private:
  std::vector<std::string> keys_;  // sorted, unique
};

// The core well-known labels: nodepool, zone, region, instance-type, arch, os, capacity-type,
// windows-build.
const LabelSet& WellKnownLabels();

// Labels that no NodePool or pod may set or select on: kubernetes.io/hostname.
const LabelSet& RestrictedLabels();

// Rewrites a deprecated beta key to its GA key (e.g. `failure-domain.beta.kubernetes.io/zone`
// -> `topology.kubernetes.io/zone`); other keys are returned unchanged.
std::string_view NormalizeLabelKey(std::string_view key);

// karpenter `IsRestrictedLabel`: OK for well-known keys (of `well_known`); InvalidArgument for
// `kubernetes.io/hostname` and for keys in the `karpenter.sh` domain or a subdomain of it, with
// the reference's message ("using label <key> is not allowed as it might interfere with the
// internal provisioning logic; ...").
[[nodiscard]] absl::Status CheckRestrictedLabel(std::string_view key,
                                                const LabelSet& well_known = WellKnownLabels());

// Kubernetes syntax rules. A qualified name is `[prefix/]name` where prefix is a DNS subdomain
// (<= 253 chars) and name is <= 63 chars of [A-Za-z0-9_.-] starting and ending alphanumeric.
// A label value is empty or such a name. Errors: InvalidArgument naming the text.
[[nodiscard]] absl::Status ValidateQualifiedName(std::string_view key);
// A DNS-1123 subdomain (object names: at most 253 characters, dot-separated parts of
// [a-z0-9-] starting and ending alphanumeric) and a DNS-1123 label (namespaces: one such part
// of at most 63 characters), as the Kubernetes API server checks them.
bool IsDnsSubdomain(std::string_view s);
bool IsDnsLabel(std::string_view s);
[[nodiscard]] absl::Status ValidateLabelValue(std::string_view value);

}  // namespace karp

#endif  // KARP_LABELS_H_
