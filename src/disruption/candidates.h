// Disruption candidates: the NodeView of every node of a snapshot (its NodeClaim, NodePool,
// instance type, pods, price and costs), why it is or is not a candidate, whether it is
// consolidatable, drifted or expired (docs/design.md §6.2, §6.5, §6.6).

#ifndef KARP_SRC_DISRUPTION_CANDIDATES_H_
#define KARP_SRC_DISRUPTION_CANDIDATES_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "disruption/pods.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/objects.h"
#include "scheduling/access.h"

namespace karp::disruption {

// One node of the snapshot with everything the methods need.
struct NodeView {
  const Node* node = nullptr;
  const NodeClaim* claim = nullptr;
  const NodePool* pool = nullptr;
  const InstanceType* it = nullptr;
  std::string name;
  std::string pool_name;      // the karpenter.sh/nodepool label, else the NodeClaim's
  std::string instance_type;  // the node.kubernetes.io/instance-type label
  std::string zone;
  std::string capacity_type;
  bool managed = false;
  bool initialized = false;
  bool deleting = false;         // NodeDeleting: the Node or its NodeClaim is going away
  std::vector<const Pod*> pods;  // all pods bound to the node
  std::vector<const Pod*> reschedulable;
  double price = 0;
  double disruption_cost = 0;
  double reschedule_cost = 1.0;
  // When the node's NodeClaim (or, without one or without a timestamp on it, the Node) was
  // created; nullopt when neither says (docs/design.md §6.2: the age is unknown, so the node
  // never counts as expired and keeps its whole lifetime in its disruption cost).
  std::optional<absl::Time> created;
  // Why the node is not a candidate for graceful methods ("" = candidate), and for the
  // eventual class (drift), where pod-level blocks are ignored under terminationGracePeriod.
  std::string reject;
  std::string reject_eventual;
  bool consolidatable = false;
  std::string consolidatable_reason;
  std::string drift_reason;  // "" = not drifted
  absl::Time drift_time;
  bool expired = false;

  bool empty() const { return reschedule_cost <= 1.0; }
  double savings_ratio() const { return price / reschedule_cost; }
};

// The NodePool a node belongs to: its karpenter.sh/nodepool label, else its NodeClaim's
// (`claim` may be null); "" when neither names one.
std::string NodePoolNameOf(const Node& node, const NodeClaim* claim);

// The time consolidateAfter counts from: the NodeClaim's last pod event, else its
// initialization, else the node's creation.
absl::Time ConsolidateAfterStart(const NodeView& v);

// The reference's IsUnderConsolidateAfter: an initialized managed node whose consolidateAfter
// (set and non-zero) has not elapsed since ConsolidateAfterStart at `now`.
bool UnderConsolidateAfter(const NodeView& v, absl::Time now);

// The views of every node of `snap`, in snapshot order. `cache` keeps pod facts and static
// drift verdicts across the loops of one plan.
std::vector<NodeView> BuildNodeViews(const ClusterSnapshot& snap,
                                     const scheduling::PoolCatalogs& catalogs, absl::Time now,
                                     const ConsolidationOptions& options, PodCache* cache);

}  // namespace karp::disruption

#endif  // KARP_SRC_DISRUPTION_CANDIDATES_H_
