#include "scheduling/bound_counts.h"

#include <utility>

namespace karp::scheduling {

const std::vector<BoundCountCache::BoundPod>& BoundCountCache::Pods() {
  absl::MutexLock lock(&mu_);
  if (pods_built_) return pods_;
  for (const Pod& p : snapshot_->pods) {
    if (p.node_name.empty() || p.IsTerminal() || p.IsTerminating()) continue;
    auto node = nodes_by_name_->find(p.node_name);
    if (node == nodes_by_name_->end()) continue;
    pods_.push_back({&p, node->second, p.Key()});
  }
  pods_built_ = true;
  return pods_;
}

const BoundCountCache::Entry* BoundCountCache::Find(const std::string& key) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second.get();
}

const BoundCountCache::Entry* BoundCountCache::Insert(const std::string& key,
                                                      std::unique_ptr<Entry> entry) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.emplace(key, std::move(entry)).first;
  return it->second.get();
}

}  // namespace karp::scheduling
