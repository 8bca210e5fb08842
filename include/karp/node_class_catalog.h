// File: karp/node_class_catalog.h
//
// The instance types each NodePool launches under its node class: an EC2NodeClass's kubelet
// settings, AMI family, block device mappings and instance-store policy change the capacity
// and overhead of the AWS instance types exactly as in the reference provider's
// NewInstanceType (aws/karpenter-provider-aws pkg/providers/instancetype/types.go), and a
// NodePool picks its class through spec.template.spec.nodeClassRef. docs/aws-catalog.md
// ("Node classes in solve, consolidate and simulate") has the rules and their sources.
//
// Example:
//   auto base = std::make_shared<const karp::InstanceCatalog>(*karp::EmbeddedAwsCatalog());
//   karp::NodePoolCatalogOptions options;
//   options.embedded = karp::AwsCatalogOptions{};  // `base` is EmbeddedAwsCatalog({})
//   absl::StatusOr<karp::NodePoolCatalogs> catalogs =
//       karp::CatalogsByNodePool(snapshot, base, options);
//   if (!catalogs.ok()) return catalogs.status();  // ec2nodeclass "small": spec.kubelet...
//   absl::StatusOr<karp::Scheduler> s =
//       karp::Scheduler::Create(snapshot, catalogs->by_node_pool);
//
// Thread-safety: the functions are thread-safe (no shared mutable state; the embedded table
// is immutable); the structs are value types (thread-compatible).

#ifndef KARP_NODE_CLASS_CATALOG_H_
#define KARP_NODE_CLASS_CATALOG_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/aws_catalog.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/node_class.h"
#include "karp/node_overlay.h"

namespace karp {

inline constexpr std::string_view kNodeClassGroup = "karpenter.k8s.aws";
inline constexpr std::string_view kNodeClassKind = "EC2NodeClass";

// Checks the fields of `node_class` that karp reads, with the reference CRD's rules: amiFamily
// one of AwsAmiFamilyName()'s names; an alias `<family>@<version>` with family al2, al2023,
// bottlerocket, windows2019, windows2022 or windows2025 that agrees with amiFamily (or
// amiFamily Custom); maxPods and podsPerCore >= 0; kubeReserved and systemReserved keys among
// cpu, memory, ephemeral-storage and pid with non-negative quantities; evictionHard and
// evictionSoft signals among memory.available, nodefs.available, nodefs.inodesFree,
// imagefs.available, imagefs.inodesFree and pid.available with a non-negative quantity or a
// percentage in [0, 100]; at most one rootVolume mapping; volume sizes > 0;
// instanceStorePolicy "" or RAID0. Neither amiFamily nor an alias is accepted (the family is
// then Custom, as the reference's AMIFamily() falls back to).
// Errors: InvalidArgument `<field path>: <what>`, the path relative to the object (e.g.
// `spec.kubelet.maxPods: must be >= 0, got -1`). O(size of the class).
[[nodiscard]] absl::Status ValidateNodeClass(const NodeClass& node_class);

// The family of an amiSelectorTerms alias `<family>@<version>` ("al2023@latest" -> kAl2023),
// with the CRD's rules: `^[a-zA-Z0-9]+@.+$`, at most 30 characters, family al2, al2023,
// bottlerocket, windows2019, windows2022 or windows2025, Windows families only `@latest`.
// Errors: InvalidArgument quoting the alias (no field path). O(length).
[[nodiscard]] absl::StatusOr<AwsAmiFamily> AwsAmiFamilyOfAlias(std::string_view alias);

// The family an alias's lower-case prefix names ("al2", "al2023", "bottlerocket",
// "windows2019", "windows2022", "windows2025"; Custom has no alias), or nullopt. O(1).
std::optional<AwsAmiFamily> AwsAmiFamilyOfAliasPrefix(std::string_view family);

// The AMI family as the reference's EC2NodeClass.AMIFamily(): spec.amiFamily, else the alias's
// family, else Custom. Errors: InvalidArgument naming the field when it is not a known family.
[[nodiscard]] absl::StatusOr<AwsAmiFamily> NodeClassAmiFamily(const NodeClass& node_class);

// The size of the volume that holds ephemeral storage, as the reference's ephemeralStorage()
// picks it from the block device mappings (RAID0 aside, which depends on the instance type):
//   1. the rootVolume mapping, if it has a volumeSize;
//   2. Custom: the LAST mapping's volumeSize (unset when it has none: 20Gi, DefaultEBS);
//      other families: the mapping on the family's ephemeral device (/dev/xvda on AL2,
//      AL2023; /dev/xvdb on Bottlerocket; /dev/sda1 on Windows), if it has a volumeSize;
//   3. unset: the family's default (20Gi; 50Gi on Windows).
// A rootVolume mapping without volumeSize therefore falls through to step 2.
std::optional<int64_t> NodeClassEphemeralVolumeBytes(const NodeClass& node_class,
                                                     AwsAmiFamily family);

// `base` with the settings of `node_class` applied: ami_family (NodeClassAmiFamily), max_pods,
// pods_per_core, kube_reserved and system_reserved (pid entries left out), eviction_hard
// (evictionSoft is not applied), ephemeral_volume_bytes (NodeClassEphemeralVolumeBytes; when
// unset, base's value is kept) and instance_store_raid0 (instanceStorePolicy RAID0). Settings
// the class leaves unset keep base's values.
// Errors: InvalidArgument `ec2nodeclass "<name>": <field path>: <what>` (ValidateNodeClass),
// or from AwsCatalogOptions::Validate(). O(size of the class).
[[nodiscard]] absl::StatusOr<AwsCatalogOptions> AwsCatalogOptionsForNodeClass(
    const NodeClass& node_class, AwsCatalogOptions base);

// What the base catalog of NodeClassCatalog() and CatalogsByNodePool() is.
struct NodePoolCatalogOptions {
  // Set: the base catalog is EmbeddedAwsCatalog(*embedded), possibly with reserved offerings
  // added (WithCapacityReservations). Each type is then rebuilt as
  // EmbeddedAwsCatalog(AwsCatalogOptionsForNodeClass(class, *embedded)) builds it (labels,
  // requirements, capacity, overhead, offerings: the AMI family's os and windows-build labels
  // and its offering exclusions included), and keeps the base type's reserved offerings
  // (those with a reservation id).
  // Unset: the base catalog is any catalog (a catalog file, the simulation catalog). A type
  // whose name is in EmbeddedAwsInstanceTypeInfos() gets the capacity and overhead
  // MakeAwsInstanceType(info, price, AwsCatalogOptionsForNodeClass(class, {})) computes; its
  // labels, requirements and offerings (prices, availability, reservations) stay as the base
  // gives them. Any other type keeps its capacity and overhead except what applies without
  // the EC2 facts: maxPods replaces the pods capacity; podsPerCore caps it at podsPerCore x
  // whole cores of the cpu capacity (not on Bottlerocket); each kubeReserved and
  // systemReserved key replaces that key of the overhead; evictionHard memory.available and
  // nodefs.available replace the memory and ephemeral-storage eviction thresholds (a
  // percentage of the type's memory or ephemeral-storage capacity). The AMI family's
  // defaults, the block device mappings and RAID0 do not change such types.
  // Default: unset.
  std::optional<AwsCatalogOptions> embedded;
  // CatalogsByNodePool: apply the snapshot's NodeOverlays to the NodePools' catalogs
  // (ApplyNodeOverlays, karp/node_overlay.h). false is the reference with its NodeOverlay
  // feature gate off. Default: true (overlays in the input are there to be applied).
  bool node_overlays = true;
};

// The catalog of the NodePools of `node_class` over `base`, as NodePoolCatalogOptions
// describes. Types are in base's order; the well-known labels are base's.
// Errors: InvalidArgument from AwsCatalogOptionsForNodeClass, or naming the instance type
// whose rebuild fails. O(types in base) calls of MakeAwsInstanceType.
[[nodiscard]] absl::StatusOr<InstanceCatalog> NodeClassCatalog(
    const InstanceCatalog& base, const NodeClass& node_class,
    const NodePoolCatalogOptions& options = {});

// Each NodePool's catalog (CatalogsByNodePool).
struct NodePoolCatalogs {
  // One entry per NodePool of the snapshot, by name. NodePools whose classes give the same
  // settings share one catalog object; a NodePool without an EC2NodeClass reference, whose
  // class is not in the snapshot, or whose class changes nothing (settings equal to the base
  // options: e.g. an AL2023 alias and no kubelet, block device or instance-store settings)
  // gets the base catalog object itself.
  std::map<std::string, std::shared_ptr<const InstanceCatalog>> by_node_pool;
  // EC2NodeClass names that NodePools refer to but the snapshot lacks -> those NodePools
  // (sorted). Their NodePools use the base catalog.
  std::map<std::string, std::vector<std::string>> missing_classes;
  // With NodePoolCatalogOptions::node_overlays: what became of each NodeOverlay of the
  // snapshot, in application order (NodeOverlayResult::overlays); empty otherwise.
  std::vector<NodeOverlayOutcome> overlays;

  // The catalog every NodePool shares, or null when NodePools use different catalogs (or
  // there is no NodePool).
  std::shared_ptr<const InstanceCatalog> Uniform() const;
};

// The catalog of every NodePool of `snapshot`: the NodeClassCatalog() of the EC2NodeClass of
// the snapshot its spec.template.spec.nodeClassRef names (kind EC2NodeClass, group
// karpenter.k8s.aws or empty), else `base` (see NodePoolCatalogs); then, with
// options.node_overlays, the snapshot's NodeOverlays applied (ApplyNodeOverlays; a NodePool
// that no applied overlay changes keeps its catalog object). Each class's catalog is built
// once, in the order of snapshot.node_classes; classes no NodePool refers to are still
// checked (AwsCatalogOptionsForNodeClass), so a broken class is an error either way.
// Errors: InvalidArgument when `base` is null, from AwsCatalogOptionsForNodeClass (naming the
// nodeclass and field), from NodeClassCatalog or from ApplyNodeOverlays. Complexity:
// O(P log P + C x T) for P NodePools, C distinct class settings and T types in base, plus
// ApplyNodeOverlays'.
[[nodiscard]] absl::StatusOr<NodePoolCatalogs> CatalogsByNodePool(
    const ClusterSnapshot& snapshot, std::shared_ptr<const InstanceCatalog> base,
    const NodePoolCatalogOptions& options = {});

}  // namespace karp

#endif  // KARP_NODE_CLASS_CATALOG_H_
