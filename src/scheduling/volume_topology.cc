// Volume topology and limits for the scheduler (see scheduling/volume_topology.h).

#include "scheduling/volume_topology.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "scheduling/scheduler_internal.h"

namespace karp::scheduling {

absl::StatusOr<std::shared_ptr<const PodVolumes>> PodVolumesFor(const StorageIndex& storage,
                                                                const Pod& pod, bool validate) {
  if (pod.volumes.empty()) return std::shared_ptr<const PodVolumes>();
  if (validate) {
    if (absl::Status s = storage.ValidatePod(pod); !s.ok()) return s;
  }
  auto out = std::make_shared<PodVolumes>();
  absl::StatusOr<VolumeTopology> topology = storage.Topology(pod);
  if (topology.ok()) {
    out->topology = std::move(*topology);
  } else if (validate) {
    // Only a malformed volume affinity gets here once the claims are valid.
    return absl::FailedPreconditionError(topology.status().message());
  }
  absl::StatusOr<VolumeUsage> usage = storage.Usage(pod);
  if (usage.ok()) {
    out->usage = std::move(*usage);
  } else {
    out->usage_known = false;
  }
  if (out->topology.alternatives.empty() && out->usage.empty() && out->usage_known) {
    return std::shared_ptr<const PodVolumes>();
  }
  return std::shared_ptr<const PodVolumes>(std::move(out));
}

void AttachVolumeLimits(const ClusterSnapshot& snapshot, const StorageIndex& storage,
                        std::vector<ExistingNodeInit>* existing) {
  if (snapshot.csi_nodes.empty()) return;
  std::map<std::string, std::shared_ptr<NodeVolumes>> by_node;
  for (ExistingNodeInit& e : *existing) {
    if (e.in_flight) continue;  // no node yet, so no CSINode
    VolumeLimits limits = storage.Limits(e.name);
    if (limits.empty()) continue;
    auto v = std::make_shared<NodeVolumes>();
    v->limits = std::move(limits);
    by_node.emplace(e.name, v);
  }
  if (by_node.empty()) return;
  for (const Pod& p : snapshot.pods) {
    if (p.volumes.empty() || p.node_name.empty() || p.IsTerminal()) continue;
    auto it = by_node.find(p.node_name);
    if (it == by_node.end()) continue;
    absl::StatusOr<VolumeUsage> usage = storage.Usage(p);
    if (usage.ok()) AddVolumeUsage(*usage, &it->second->usage);
  }
  for (ExistingNodeInit& e : *existing) {
    if (e.in_flight) continue;
    auto it = by_node.find(e.name);
    if (it == by_node.end()) continue;
    it->second->over_limit = !CheckVolumeLimits(it->second->usage, {}, it->second->limits).ok();
    e.volumes = it->second;
  }
}

}  // namespace karp::scheduling
