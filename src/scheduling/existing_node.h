// An existing node or in-flight NodeClaim as one Solve sees it (karpenter's ExistingNode): its
// remaining resources and requirements, narrowed by the pods this solve places there.

#ifndef KARP_SRC_SCHEDULING_EXISTING_NODE_H_
#define KARP_SRC_SCHEDULING_EXISTING_NODE_H_

#include <optional>
#include <string>
#include <vector>

#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "scheduling/scheduler_internal.h"
#include "scheduling/volume_topology.h"

namespace karp::scheduling {

struct ExistingNodeState {
  const ExistingNodeInit* init = nullptr;
  std::optional<Requirements> narrowed;  // set once a pod narrowed the node's requirements
  ResourceList remaining;
  std::vector<ContainerPort> added_ports;  // host ports of pods placed by this solve
  std::vector<std::string> pods;
  // Claims in use once this solve placed a pod with volumes here (nodes with limits only).
  std::optional<VolumeUsage> volumes;

  const Requirements& requirements() const { return narrowed ? *narrowed : init->requirements; }
};

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_EXISTING_NODE_H_
