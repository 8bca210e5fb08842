// The instance types of each NodePool under its EC2NodeClass, for the CLI commands.

#include "tools/node_classes.h"

#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "internal/strings.h"
#include "karp/node_class_catalog.h"
#include "karp/node_overlay.h"

namespace karp::cli {

std::optional<AwsCatalogOptions> EmbeddedOptions(const CatalogFlags& flags) {
  if (flags.catalog != "aws") return std::nullopt;
  AwsCatalogOptions options;  // as CatalogFlags::Load builds the embedded catalog
  options.region = flags.region;
  options.zones = flags.zones;
  return options;
}

const InstanceCatalog& CommandCatalogs::Of(const std::string& pool,
                                           const InstanceCatalog& fallback) const {
  if (shared != nullptr) return *shared;
  auto it = by_node_pool.find(pool);
  return it == by_node_pool.end() ? fallback : *it->second;
}

absl::StatusOr<CommandCatalogs> NodePoolCatalogsFor(
    const ClusterSnapshot& snapshot, std::shared_ptr<const InstanceCatalog> base,
    const std::optional<AwsCatalogOptions>& embedded, bool apply_overlays) {
  CommandCatalogs out;
  const bool overlays = apply_overlays && !snapshot.node_overlays.empty();
  if (snapshot.node_classes.empty() && !overlays) {  // today's path: nothing else is computed
    out.shared = std::move(base);
    return out;
  }
  NodePoolCatalogOptions options;
  options.embedded = embedded;
  options.node_overlays = apply_overlays;
  absl::StatusOr<NodePoolCatalogs> catalogs = CatalogsByNodePool(snapshot, base, options);
  if (!catalogs.ok()) return catalogs.status();
  // Without any node class in the input every NodePool uses the catalog as given: no note.
  for (const auto& [name, pools] : snapshot.node_classes.empty()
                                       ? std::map<std::string, std::vector<std::string>>()
                                       : catalogs->missing_classes) {
    const bool one = pools.size() == 1;
    std::cerr << "karp: "
              << internal::EscapeForMessage(internal::StrCat(
                     one ? "nodepool " : "nodepools ", absl::StrJoin(pools, ", "),
                     ": nodeClassRef EC2NodeClass \"", name, "\" is not in the input; ",
                     one ? "its" : "their",
                     " instance types use the default kubelet and volume settings"))
              << "\n";
  }
  for (const NodeOverlayOutcome& o : catalogs->overlays) {
    if (o.applied()) continue;
    std::cerr << "karp: "
              << internal::EscapeForMessage(internal::StrCat(
                     "nodeoverlay ", o.name, ": not applied (", o.reason, "): ", o.message))
              << "\n";
  }
  out.shared = catalogs->Uniform();
  // No NodePool at all: the base (the commands report the missing NodePools themselves).
  if (out.shared == nullptr && catalogs->by_node_pool.empty()) out.shared = std::move(base);
  if (out.shared == nullptr) out.by_node_pool = std::move(catalogs->by_node_pool);
  return out;
}

std::shared_ptr<const InstanceCatalog> OneCatalog(const CommandCatalogs& catalogs,
                                                  std::shared_ptr<const InstanceCatalog> base,
                                                  std::string_view command) {
  if (catalogs.shared != nullptr) return catalogs.shared;
  std::vector<std::string> differ;
  for (const auto& [pool, catalog] : catalogs.by_node_pool) {
    if (catalog != base) differ.push_back(pool);
  }
  std::cerr << "karp: "
            << internal::EscapeForMessage(internal::StrCat(
                   command,
                   " takes one catalog for every NodePool, and the EC2NodeClasses or "
                   "NodeOverlays of ",
                   differ.size() == 1 ? "nodepool " : "nodepools ", absl::StrJoin(differ, ", "),
                   " give them other instance types than the rest: every NodePool uses the "
                   "catalog without them (default kubelet and volume settings, no overlay)"))
            << "\n";
  return base;
}

}  // namespace karp::cli
