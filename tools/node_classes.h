// The instance types of each NodePool under its EC2NodeClass (karp/node_class_catalog.h) and
// the NodeOverlays (karp/node_overlay.h), for
// `karp solve`, `karp consolidate` and `karp simulate`: what they build from the catalog they
// loaded when the input has node classes, and the notes they print about it.
#ifndef KARP_TOOLS_NODE_CLASSES_H_
#define KARP_TOOLS_NODE_CLASSES_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "karp/aws_catalog.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "tools/cli_common.h"

namespace karp::cli {

// The catalogs a command runs with: `shared` for every NodePool, or (only when NodePools'
// classes give them different instance types) one per NodePool in `by_node_pool` with `shared`
// null.
struct CommandCatalogs {
  std::shared_ptr<const InstanceCatalog> shared;
  std::map<std::string, std::shared_ptr<const InstanceCatalog>> by_node_pool;

  // The catalog of NodePool `pool`: `shared`, else its entry, else `fallback`.
  const InstanceCatalog& Of(const std::string& pool, const InstanceCatalog& fallback) const;
};

// The options CatalogFlags::Load() built the embedded AWS catalog with (--catalog aws: region
// and zones), or nullopt for a catalog file.
std::optional<AwsCatalogOptions> EmbeddedOptions(const CatalogFlags& flags);

// The catalogs of the NodePools of `snapshot` over `base`. Without node classes in the
// snapshot: `base` for every NodePool, nothing computed and nothing printed (today's path).
// With them: karp::CatalogsByNodePool (`embedded`: the options `base` was built with when it
// is the embedded AWS catalog, see NodePoolCatalogOptions), one shared catalog when every
// NodePool ends up with the same one; and for each EC2NodeClass that NodePools refer to but
// the snapshot lacks, one line on stderr:
//   karp: nodepool default: nodeClassRef EC2NodeClass "missing" is not in the input; its
//   instance types use the default kubelet and volume settings
// Errors: InvalidArgument from CatalogsByNodePool (a class the catalog options reject).
//
// Then, when `apply_overlays` (the NodeOverlay feature gate) and the snapshot has NodeOverlays:
// karp::ApplyNodeOverlays over those catalogs, and for each overlay not applied one line on
// stderr:
//   karp: nodeoverlay cheap: not applied (Conflict): conflict with another overlay: ...
// Errors: InvalidArgument from ApplyNodeOverlays.
absl::StatusOr<CommandCatalogs> NodePoolCatalogsFor(
    const ClusterSnapshot& snapshot, std::shared_ptr<const InstanceCatalog> base,
    const std::optional<AwsCatalogOptions>& embedded, bool apply_overlays);

// For the command that takes one catalog (simulate: karp::sim::Simulate has no per-NodePool
// catalogs): `catalogs.shared`, or, when NodePools' classes or NodeOverlays give them
// different instance types, `base` after one line on stderr naming the NodePools and saying
// so.
std::shared_ptr<const InstanceCatalog> OneCatalog(const CommandCatalogs& catalogs,
                                                  std::shared_ptr<const InstanceCatalog> base,
                                                  std::string_view command);

}  // namespace karp::cli

#endif  // KARP_TOOLS_NODE_CLASSES_H_
