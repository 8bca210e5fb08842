// The NodePool template and DaemonSet helpers that the scheduler's preparation and the price
// lower bound share (docs/design.md §5): which NodePools may launch, the requirements of a
// NodePool's NodeClaim template, the pod of each DaemonSet, and which daemons a template (and
// an instance type) runs. Pure functions of model types; below scheduling and quality in the
// layers (docs/design.md §0.1). Internal to karp.

#ifndef KARP_SRC_MODEL_NODE_POOL_TEMPLATES_H_
#define KARP_SRC_MODEL_NODE_POOL_TEMPLATES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "karp/cluster.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/taints.h"

namespace karp {

// The NodePools that can launch NodeClaims: dynamic (no replicas) and not being deleted, in
// snapshot order.
std::vector<const NodePool*> EligibleNodePools(const ClusterSnapshot& snapshot);

// The NodeClaim template requirements of a NodePool: its requirements, template labels,
// nodepool and node class labels, registered and initialized.
// Errors: InvalidArgument naming the NodePool when its requirements do not parse.
absl::StatusOr<Requirements> TemplateRequirements(const NodePool& np);

// The pod of each DaemonSet (its template, namespace and name defaulted from the DaemonSet),
// in snapshot order.
std::vector<Pod> DaemonPods(const ClusterSnapshot& snapshot);

// karpenter isDaemonPodCompatible: the daemon pod `ds` tolerates the template `taints` (with
// an implicit PreferNoSchedule toleration) and its strict requirements fit `template_reqs` and
// the instance type `it` (skipped when null), dropping leading required node-affinity terms
// while more than one remains.
bool DaemonCompatible(const Pod& ds, const Requirements& template_reqs,
                      const std::vector<Taint>& taints, const InstanceType* it,
                      const LabelSet& well_known);

// DaemonCompatible of each of `daemon_pods` (parallel to it).
std::vector<bool> CompatibleDaemons(const std::vector<Pod>& daemon_pods,
                                    const Requirements& template_reqs,
                                    const std::vector<Taint>& taints, const InstanceType* it,
                                    const LabelSet& well_known);

}  // namespace karp

#endif  // KARP_SRC_MODEL_NODE_POOL_TEMPLATES_H_
