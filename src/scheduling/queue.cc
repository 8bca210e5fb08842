// The queue order of a Solve's pods (docs/design.md §5.5, karpenter's queue.go): cpu and memory
// descending, then creation time, uid and key, sorted by keys gathered once per pod.

#include "scheduling/solver.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "karp/labels.h"
#include "scheduling/cost_packing.h"
#include "scheduling/prepared_pods.h"

namespace karp::scheduling {
namespace {

// The fields of the queue order (docs/design.md §5.5) gathered once per pod, so that sorting
// compares flat keys instead of reaching each pod through its reference.
struct QueueKey {
  int64_t cpu;
  int64_t memory;
  absl::Time created;
  uint64_t uid_bytes;  // UidBytes: the uids' order where these differ
  const std::string* uid;
  const std::string* key;
  size_t index;
};

// Queue order: cpu desc, memory desc, creation asc, uid asc, then key (unique within a Solve,
// so the order is total).
inline bool KeyBefore(const QueueKey& x, const QueueKey& y) {
  if (x.cpu != y.cpu) return x.cpu > y.cpu;
  if (x.memory != y.memory) return x.memory > y.memory;
  if (x.created != y.created) return x.created < y.created;
  if (x.uid_bytes != y.uid_bytes) return x.uid_bytes < y.uid_bytes;
  if (*x.uid != *y.uid) return *x.uid < *y.uid;
  return *x.key < *y.key;
}

// The 8 bytes of `uid` from `from` on (zero-padded), big-endian. When every uid compared
// shares its first `from` bytes, a smaller value means a smaller uid (equal values decide
// nothing: the strings are then compared).
uint64_t UidBytes(std::string_view uid, size_t from) {
  uint64_t v = 0;
  for (size_t k = 0; k < 8; ++k) {
    const size_t i = from + k;
    v = (v << 8) | (i < uid.size() ? static_cast<unsigned char>(uid[i]) : 0u);
  }
  return v;
}

QueueKey KeyOf(const PodData& p, size_t index, size_t uid_prefix) {
  const std::string& uid = p.original->metadata.uid;
  return {p.requests.cpu(),
          p.requests.memory(),
          p.original->metadata.creation_timestamp,
          UidBytes(uid, uid_prefix),
          &uid,
          &p.key,
          index};
}

}  // namespace

bool Solver::QueueBefore(size_t a, size_t b) const {
  return KeyBefore(KeyOf(View(a), a, 0), KeyOf(View(b), b, 0));
}

std::vector<uint32_t> Solver::QueuePermutation(const std::vector<size_t>& indices) const {
  // One pass over the pods (each context and pod read once): the keys, and the uids' first
  // kUidCopy bytes in one compact buffer. Generated uids often share a long prefix (the bytes
  // before a counter): the integer key starts after the prefix every uid shares, which is
  // the common prefix of the smallest and the largest uid.
  constexpr size_t kUidCopy = 48;
  std::vector<QueueKey> keys;
  keys.reserve(indices.size());
  std::vector<char> uid_bytes(indices.size() * kUidCopy, 0);
  const std::string* lo = nullptr;
  const std::string* hi = nullptr;
  for (size_t k = 0; k < indices.size(); ++k) {
    const PodData& p = View(indices[k]);
    const std::string& uid = p.original->metadata.uid;
    keys.push_back({p.requests.cpu(), p.requests.memory(), p.original->metadata.creation_timestamp,
                    0, &uid, &p.key, k});
    std::copy_n(uid.data(), std::min(uid.size(), kUidCopy), &uid_bytes[k * kUidCopy]);
    if (lo == nullptr || uid < *lo) lo = &uid;
    if (hi == nullptr || *hi < uid) hi = &uid;
  }
  size_t prefix = 0;
  if (lo != nullptr) {
    while (prefix < lo->size() && prefix < hi->size() && (*lo)[prefix] == (*hi)[prefix]) ++prefix;
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    const std::string& uid = *keys[k].uid;
    keys[k].uid_bytes =
        prefix + 8 <= kUidCopy || uid.size() <= kUidCopy
            ? UidBytes(std::string_view(&uid_bytes[k * kUidCopy], std::min(uid.size(), kUidCopy)),
                       prefix)
            : UidBytes(uid, prefix);
  }
  // A lambda, not the function pointer, so that the comparison is inlined into the sort.
  std::sort(keys.begin(), keys.end(),
            [](const QueueKey& x, const QueueKey& y) { return KeyBefore(x, y); });
  std::vector<uint32_t> perm(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) perm[k] = static_cast<uint32_t>(keys[k].index);
  return perm;
}

std::vector<size_t> Solver::SharedQueueOrder(const std::vector<size_t>& shared) const {
  std::vector<const PodData*> contexts(shared.size());
  for (size_t k = 0; k < shared.size(); ++k) contexts[k] = refs_[shared[k]].shared;
  PreparedPods& cache = *state_.prepared_pods;
  std::vector<uint32_t> perm;
  {
    absl::MutexLock lock(&cache.mu);
    if (cache.queue_inputs == contexts) perm = cache.queue_order;
  }
  if (perm.size() != shared.size()) {
    perm = QueuePermutation(shared);
    absl::MutexLock lock(&cache.mu);
    cache.queue_inputs = std::move(contexts);
    cache.queue_order = perm;
  }
  std::vector<size_t> order(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) order[k] = shared[perm[k]];
  return order;
}

std::vector<size_t> Solver::QueueOrder() const {
  // The shared contexts (the same pending pods in every simulation) keep their order between
  // simulations; the others are sorted and merged in (the same order: it is total).
  std::vector<size_t> shared, own;
  for (size_t i = 0; i < refs_.size(); ++i)
    (refs_[i].shared != nullptr ? shared : own).push_back(i);
  auto before = [&](size_t a, size_t b) { return QueueBefore(a, b); };
  {
    const std::vector<uint32_t> perm = QueuePermutation(own);
    std::vector<size_t> sorted(own.size());
    for (size_t k = 0; k < perm.size(); ++k) sorted[k] = own[perm[k]];
    own = std::move(sorted);
  }
  std::vector<size_t> order;
  if (shared.empty()) {
    order = std::move(own);
  } else {
    const std::vector<size_t> sorted_shared = SharedQueueOrder(shared);
    order.reserve(refs_.size());
    std::merge(sorted_shared.begin(), sorted_shared.end(), own.begin(), own.end(),
               std::back_inserter(order), before);
  }
  if (cost_ != nullptr) {
    std::stable_partition(order.begin(), order.end(),
                          [&](size_t i) { return !View(i).dearer_than_template; });
  }
  if (cost_ != nullptr && cost_->strategy().exclusive_first) {
    std::stable_partition(order.begin(), order.end(), [&](size_t i) {
      for (const PodAffinityTerm& t : View(i).working().pod_anti_affinity.required) {
        if (t.topology_key == kLabelHostname) return true;
      }
      return false;
    });
  }
  return order;
}

}  // namespace karp::scheduling
