// Step 1 of Solver::Add (docs/design.md §5.6, karpenter's existingnode.go): an existing node or
// in-flight NodeClaim takes the pod when its taints, remaining resources, host ports, volume
// limits, requirements and topology allow.

#include "scheduling/solver.h"

#include <utility>
#include <vector>

#include "internal/strings.h"
#include "scheduling/instance_filter.h"

namespace karp::scheduling {

void Solver::IndexExisting(size_t i) {
  const int64_t id = static_cast<int64_t>(i);
  if (existing_index_.Contains(id)) existing_index_.Erase(id);
  const ResourceList& r = existing_[i].remaining;
  existing_index_.Insert(id, 0, {r.cpu(), r.memory(), r.pods()});
}

absl::Status Solver::ExistingVolumeUsage(const ExistingNodeState& node, const PodData& pod) const {
  if (pod.volumes != nullptr && !pod.volumes->usage_known) {
    return absl::FailedPreconditionError("failed tracking volume usage");
  }
  const scheduling::NodeVolumes* limited = node.init->volumes.get();
  if (limited == nullptr) return absl::OkStatus();
  static const VolumeUsage kNoVolumes;
  const VolumeUsage& claims = pod.volumes != nullptr ? pod.volumes->usage : kNoVolumes;
  if (claims.empty() && !limited->over_limit) return absl::OkStatus();
  absl::Status s =
      CheckVolumeLimits(node.volumes ? *node.volumes : limited->usage, claims, limited->limits);
  if (s.ok()) return s;
  return absl::FailedPreconditionError(internal::StrCat("checking volume usage, ", s.message()));
}

absl::Status Solver::CanAddExisting(ExistingNodeState& node, PodData& pod, Requirements* out_reqs) {
  if (!ToleratesAll(node.init->taints, pod.working().tolerations)) {
    return absl::FailedPreconditionError("did not tolerate taint");
  }
  if (pod.volumes != nullptr || node.init->volumes != nullptr) {
    if (absl::Status s = ExistingVolumeUsage(node, pod); !s.ok()) return s;
  }
  if (!pod.ports.empty() && (HostPortsConflict(pod.ports, node.init->host_ports) ||
                             HostPortsConflict(pod.ports, node.added_ports))) {
    return absl::FailedPreconditionError(
        "checking host port usage, pod hostport conflicts with existing hostport configuration");
  }
  if (!Fits(pod.requests, node.remaining)) {
    return absl::FailedPreconditionError("exceeds node resources");
  }
  if (!node.requirements().IsCompatible(pod.requirements, nullptr)) {
    return absl::FailedPreconditionError("incompatible requirements");
  }
  Requirements reqs = node.requirements();
  reqs.Add(pod.requirements);
  if (pod.volumes == nullptr || pod.volumes->topology.alternatives.empty()) {
    return AddExistingTopology(node, pod, std::move(reqs), out_reqs);
  }
  // Volume topology (docs/design.md §5.13): the first alternative the node satisfies. It narrows
  // the node's requirements, never the pod's own.
  absl::Status last;
  for (const Requirements& alt : pod.volumes->topology.alternatives) {
    if (!reqs.IsCompatible(alt, nullptr)) {
      last = absl::FailedPreconditionError("incompatible volume requirements");
      continue;
    }
    Requirements with_volumes = reqs;
    with_volumes.Add(alt);
    last = AddExistingTopology(node, pod, std::move(with_volumes), out_reqs);
    if (last.ok()) return last;
  }
  return last;
}

absl::Status Solver::AddExistingTopology(ExistingNodeState& node, PodData& pod, Requirements reqs,
                                         Requirements* out_reqs) {
  std::vector<Requirement> narrowing;
  if (absl::Status s = topology_->AddRequirements(pod.working(), pod.groups, node.init->taints,
                                                  pod.strict, reqs, &narrowing, /*explain=*/false);
      !s.ok()) {
    return s;
  }
  if (!narrowing.empty()) {
    Requirements topo;
    for (const Requirement& r : narrowing) topo.Add(r);
    if (!reqs.IsCompatible(topo, nullptr)) {
      return absl::FailedPreconditionError("incompatible topology requirements");
    }
    reqs.Add(topo);
  }
  *out_reqs = std::move(reqs);
  return absl::OkStatus();
}

void Solver::CommitExisting(ExistingNodeState& node, PodData& pod, Requirements reqs) {
  node.pods.push_back(pod.key);
  node.remaining.Subtract(pod.requests);
  IndexExisting(static_cast<size_t>(&node - existing_.data()));
  node.narrowed = std::move(reqs);
  if (pod.volumes != nullptr && node.init->volumes != nullptr) {
    if (!node.volumes) node.volumes = node.init->volumes->usage;
    AddVolumeUsage(pod.volumes->usage, &*node.volumes);
  }
  node.added_ports.insert(node.added_ports.end(), pod.ports.begin(), pod.ports.end());
  topology_->Record(pod.working(), pod.key, node.init->taints, node.requirements(),
                    &label_caches_[pod.label_class], &pod.record_cache);
}

bool Solver::PlaceOnExisting(PodData& pod) {
  const bool moving = simulation_ != nullptr && simulation_->moving.count(pod.key) > 0;
  // Only nodes with room for the pod's cpu, memory and pod slot (Fits' own comparison).
  const FirstFitIndex::Room need = {pod.requests.cpu(), pod.requests.memory(), pod.requests.pods()};
  for (FirstFitIndex::Cursor cursor(existing_index_, need); cursor.id() >= 0; cursor.Advance()) {
    ExistingNodeState& node = existing_[static_cast<size_t>(cursor.id())];
    if (moving && simulation_->under_consolidate_after.count(node.init->name) > 0) continue;
    // Most nodes of a running cluster are full or of the wrong kind: reject them on resources,
    // taints and requirements, three of CanAddExisting's own (pure) checks, without building
    // an error status per node.
    if (!Fits(pod.requests, node.remaining) ||
        !ToleratesAll(node.init->taints, pod.working().tolerations) ||
        !node.requirements().IsCompatible(pod.requirements, nullptr)) {
      continue;
    }
    Requirements reqs;
    if (!CanAddExisting(node, pod, &reqs).ok()) continue;
    CommitExisting(node, pod, std::move(reqs));
    return true;
  }
  return false;
}

}  // namespace karp::scheduling
