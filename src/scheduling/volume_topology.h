// Volume topology and volume limits inside the scheduler (docs/design.md §5.3, §5.13), internal.
// The rules themselves are karp/volumes.h; this is what one Scheduler and one Solve keep of
// them. Nothing here runs for pods without volumes or nodes without CSINode limits.

#ifndef KARP_SRC_SCHEDULING_VOLUME_TOPOLOGY_H_
#define KARP_SRC_SCHEDULING_VOLUME_TOPOLOGY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/cluster.h"
#include "karp/objects.h"
#include "karp/volumes.h"

namespace karp::scheduling {

struct ExistingNodeInit;

// What one pod's volumes ask of the node that takes it.
struct PodVolumes {
  VolumeTopology topology;  // alternatives for the node / NodeClaim requirements
  VolumeUsage usage;        // the pod's claims per CSI driver
  // False when a bound claim's volume is missing: the reference then keeps the pod off
  // existing nodes (its GetVolumes fails before any node is tried).
  bool usage_known = true;
};

// The attach limits of one existing node and the claims its bound pods already use.
struct NodeVolumes {
  VolumeLimits limits;
  VolumeUsage usage;
  // The bound pods already exceed a limit: the node refuses every pod (ExceedsLimits counts
  // the node's claims whatever the pod's).
  bool over_limit = false;
};

// The volume facts of `pod`, or nullptr when its volumes change nothing (no topology, no CSI
// claims). With `validate` (pending pods, docs/design.md §5.3) an invalid claim is an error
// (FailedPrecondition, the reason without "ignoring pod, "); otherwise, as the reference,
// topology that cannot be resolved leaves the pod unconstrained.
absl::StatusOr<std::shared_ptr<const PodVolumes>> PodVolumesFor(const StorageIndex& storage,
                                                                const Pod& pod, bool validate);

// Sets ExistingNodeInit::volumes for the real nodes (not in-flight NodeClaims) whose CSINode
// has limits, with the claims of their non-terminal bound pods. O(P + N log N).
void AttachVolumeLimits(const ClusterSnapshot& snapshot, const StorageIndex& storage,
                        std::vector<ExistingNodeInit>* existing);

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_VOLUME_TOPOLOGY_H_
