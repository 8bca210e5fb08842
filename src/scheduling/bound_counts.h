// What a topology group counts of the bound pods, shared by the simulations of one scheduler
// (consolidation evaluates many candidate sets over the same snapshot). The bound pods a group
// counts depend only on the snapshot, except that pods being scheduled by a Solve (a
// candidate's pods, moving) are not counted: the cache keeps each group's counts over every
// bound pod and the records to take back for the pods a simulation moves, so a group costs a
// copy of its domain map instead of a scan of every node and bound pod. Internal.

#ifndef KARP_SRC_SCHEDULING_BOUND_COUNTS_H_
#define KARP_SRC_SCHEDULING_BOUND_COUNTS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "karp/cluster.h"
#include "karp/objects.h"
#include "scheduling/cow.h"

namespace karp::scheduling {

class BoundCountCache {
 public:
  // A bound pod that topology groups may count (bound to a node of the snapshot, not terminal,
  // not terminating), in snapshot order.
  struct BoundPod {
    const Pod* pod;
    const Node* node;
    std::string key;  // pod.Key()
  };
  // One group's state after counting every bound pod, from a given state after InitDomains:
  // its own domain counts (TopologyGroup::counts; a hostname group's zero-count node hostnames
  // come from its view instead).
  struct Entry {
    Cow<std::map<std::string, int32_t>> domains;
    // Hostname groups: the node hostnames the group's filter admits, by node-domain index
    // (HostnameRegistry indexes them in snapshot order, the same in every simulation).
    std::shared_ptr<const std::vector<char>> nodes;
    // Each Record of a bound pod: the pod (index into Pods()), its domain, and whether the
    // domain existed before the records (so it stays, at 0, when all its pods are taken back).
    struct Rec {
      uint32_t pod;
      bool registered;
      std::string domain;
    };
    std::vector<Rec> records;
  };

  // The snapshot and index must outlive the cache.
  BoundCountCache(const ClusterSnapshot* snapshot,
                  const std::map<std::string, const Node*>* nodes_by_name)
      : snapshot_(snapshot), nodes_by_name_(nodes_by_name) {}

  // The bound pods, built on first use. Thread-safe.
  const std::vector<BoundPod>& Pods();
  // The entry stored under `key`, or null. Thread-safe; entries are never changed or removed.
  const Entry* Find(const std::string& key);
  // Stores `entry` under `key` unless one is there; returns the stored one. Thread-safe.
  const Entry* Insert(const std::string& key, std::unique_ptr<Entry> entry);

 private:
  const ClusterSnapshot* snapshot_;
  const std::map<std::string, const Node*>* nodes_by_name_;
  absl::Mutex mu_;
  bool pods_built_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<BoundPod> pods_;  // written once under mu_, read-only after
  std::map<std::string, std::unique_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_BOUND_COUNTS_H_
