// What a scheduler keeps of its snapshot's pods for the consolidation simulations over it:
// every simulation schedules all pending pods again, so each pod's validated working context
// (requests, requirements, host ports, volumes, label class) and the prototypes of its
// topology groups are built once; a simulation's solver copies a context only when it places
// the pod (scheduling::PodInput). Internal.

#ifndef KARP_SRC_SCHEDULING_PREPARED_PODS_H_
#define KARP_SRC_SCHEDULING_PREPARED_PODS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "karp/cluster.h"
#include "scheduling/solver.h"

namespace karp::scheduling {

class PreparedPods {
 public:
  // One snapshot pod, prepared as a Solve would (not moving: a moving pod with volumes is
  // validated differently and is prepared afresh).
  struct Entry {
    PodData ctx;             // ready for the solver when `invalid` is empty
    std::string invalid;     // the pod error (PodValidationError and volumes), or ""
    bool bound_key = false;  // a pod of the snapshot bound to a node has this pod's key
  };

  // The snapshot must outlive the cache.
  explicit PreparedPods(const ClusterSnapshot* snapshot)
      : snapshot_(snapshot), entries_(snapshot->pods.size()) {}

  // Guards everything below; a Solve holds it while it prepares its pods.
  absl::Mutex mu;

  // The index of `pod` in the snapshot's pods, or -1 when it is not one of them.
  int64_t IndexOf(const Pod* pod) const {
    const std::vector<Pod>& pods = snapshot_->pods;
    if (pods.empty() || pod < pods.data() || pod >= pods.data() + pods.size()) return -1;
    return pod - pods.data();
  }
  // The entry of snapshot pod `i`, or null before Set.
  const Entry* Find(size_t i) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return entries_[i].get(); }
  const Entry* Set(size_t i, std::unique_ptr<const Entry> e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    entries_[i] = std::move(e);
    return entries_[i].get();
  }
  // The snapshot pod whose key is `key` (Pod::Key()), or -1.
  int64_t IndexOfKey(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (index_by_key_.empty()) {
      for (size_t i = 0; i < snapshot_->pods.size(); ++i) {
        index_by_key_.emplace(snapshot_->pods[i].Key(), static_cast<int64_t>(i));
      }
    }
    auto it = index_by_key_.find(key);
    return it == index_by_key_.end() ? -1 : it->second;
  }
  // Whether a pod of the snapshot bound to a node has the key `key`.
  bool IsBoundKey(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (!bound_keys_built_) {
      for (const Pod& p : snapshot_->pods) {
        if (!p.node_name.empty()) bound_keys_.insert(p.Key());
      }
      bound_keys_built_ = true;
    }
    return bound_keys_.count(key) > 0;
  }
  // The queue order (Solver::QueueOrder) of the last simulation's shared contexts, as a
  // permutation of `queue_inputs` (those contexts in input order): the next simulation with
  // the same shared contexts reuses it.
  std::vector<const PodData*> queue_inputs ABSL_GUARDED_BY(mu);
  std::vector<uint32_t> queue_order ABSL_GUARDED_BY(mu);
  // Topology group prototypes by (inverse, id and minDomains): pods with equal groups share one
  // prototype, so
  // a simulation finds their group by its address after the first pod (Topology::Update).
  std::map<std::pair<bool, std::string>, std::shared_ptr<const TopologyGroup>> prototypes
      ABSL_GUARDED_BY(mu);
  // Label class ids (PodData::label_class) by namespace and labels; lookups only.
  absl::flat_hash_map<std::string, size_t> label_classes ABSL_GUARDED_BY(mu);

 private:
  const ClusterSnapshot* snapshot_;
  std::vector<std::unique_ptr<const Entry>> entries_ ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<std::string, int64_t> index_by_key_ ABSL_GUARDED_BY(mu);
  bool bound_keys_built_ ABSL_GUARDED_BY(mu) = false;
  absl::flat_hash_set<std::string> bound_keys_ ABSL_GUARDED_BY(mu);
};

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_PREPARED_PODS_H_
