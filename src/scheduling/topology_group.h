// A topology group (docs/design.md §5.12): the pods that match a selector, counted per domain of
// one topology key. Groups are deduplicated by a canonical id (key, type, namespaces, maxSkew,
// node filter, selector), so every replica of a Deployment shares one group. Domains are kept in
// ordered maps: ties between equal counts are broken by domain name (the reference uses Go map
// order, i.e. random). Also the node filter of a spread constraint, the domain universe and the
// registry of hostname domains that hostname groups share.

#ifndef KARP_SRC_SCHEDULING_TOPOLOGY_GROUP_H_
#define KARP_SRC_SCHEDULING_TOPOLOGY_GROUP_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/container/node_hash_set.h"
#include "karp/cluster.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/scheduler.h"
#include "karp/taints.h"
#include "scheduling/bound_counts.h"
#include "scheduling/cow.h"

namespace karp::scheduling {

enum class TopologyType { kSpread, kAffinity, kAntiAffinity };

// In a group's namespace set: every namespace.
inline constexpr char kAllNamespaces[] = "*";

// TopologyNodeFilter: which nodes take part in a spread constraint.
struct NodeFilter {
  std::vector<Requirements> terms;  // ORed; empty: every node
  bool honor_taints = false;
  std::vector<Toleration> tolerations;

  // Strict Compatible against any term (the reference ignores allow-undefined here).
  bool Matches(const Requirements& node_reqs, const std::vector<Taint>& taints) const;
  std::string Id() const;
};

// One domain of a topology key in the universe, with the taint sets of the NodePools that
// offer it.
struct DomainSource {
  bool untainted = false;
  std::vector<std::vector<Taint>> taint_sets;
};
using DomainUniverse = std::map<std::string, std::map<std::string, DomainSource>>;

// The hostname domains of one Solve that hostname groups hold at count 0 without storing
// them: new claims' placeholder hostnames and existing nodes' hostnames, each name once, in
// name order. A hostname group stores only its counted domains (and those of the universe) and
// sees the registry's names through its HostnameView, so a new claim costs one entry here
// instead of one in every hostname group. Not thread-safe (one per Topology).
class HostnameRegistry {
 public:
  struct Entry {
    int32_t node = -1;   // index of the node domain (node masks), -1: not a node's hostname
    int32_t slot = -1;   // the claim slot of a new claim's placeholder, -1: none
    uint32_t epoch = 0;  // 1 + the epoch of the name's last Register, 0: never registered
  };
  using Map = std::map<std::string, Entry, std::less<>>;

  // A RegisterHostname: the groups that exist now see `name` from here on.
  void Register(const std::string& name) { names_[name].epoch = ++epoch_; }
  // Maps a new claim's placeholder hostname to its slot.
  void SetSlot(const std::string& name, int slot) {
    names_[name].slot = slot;
    ++slots_;
  }
  // The node-domain index of `name` (added on first call; indexes count from 0).
  int32_t AddNode(const std::string& name) {
    Entry& e = names_[name];
    if (e.node < 0) e.node = nodes_++;
    return e.node;
  }
  // Registers so far: a group created now sees the names registered after it.
  uint32_t epoch() const { return epoch_; }
  int32_t nodes() const { return nodes_; }
  int64_t slots() const { return slots_; }
  const Map& names() const { return names_; }
  const Entry* Find(std::string_view name) const {
    auto it = names_.find(name);
    return it == names_.end() ? nullptr : &it->second;
  }
  // The claim slot of `name`, or -1.
  int32_t SlotOf(std::string_view name) const {
    const Entry* e = slots_ > 0 ? Find(name) : nullptr;
    return e == nullptr ? -1 : e->slot;
  }

 private:
  Map names_;
  uint32_t epoch_ = 0;
  int32_t nodes_ = 0;
  int64_t slots_ = 0;
};

// Which registry names one hostname group has as domains: those registered while it existed
// (RegisterHostname) and the node hostnames its node filter admits (registered when the group
// counted its domains).
struct HostnameView {
  const HostnameRegistry* registry = nullptr;  // null: none
  uint32_t since = 0;                          // sees names registered at epochs >= since
  const std::vector<char>* nodes = nullptr;    // by node-domain index; null: no node domains
  bool Sees(const HostnameRegistry::Entry& e) const {
    return e.epoch > since ||
           (nodes != nullptr && e.node >= 0 && (*nodes)[static_cast<size_t>(e.node)] != 0);
  }
};

// True when `a` == `b` and `a` has no numeric bounds: then a.Intersection(b) == a (each set
// operation on a list and itself gives the list back), so a test for whether `b` narrows `a`
// need not build the intersection.
inline bool SameUnbounded(const Requirement& a, const Requirement& b) {
  return !a.gte() && !a.lte() && a == b;
}

// Whether `a` == a.Intersection(b) (b narrows nothing of a), without building the
// intersection when neither has bounds.
bool IntersectionKeeps(const Requirement& a, const Requirement& b);

class TopologyGroup {
 public:
  std::string id;
  std::string key;
  TopologyType type = TopologyType::kSpread;
  std::set<std::string> namespaces;
  std::optional<LabelSelector> selector;  // nullopt selects nothing
  int32_t max_skew = 1;
  std::optional<int32_t> min_domains;
  NodeFilter filter;
  // domain -> count, shared copy-on-write between groups built from one state (cow.h). The
  // group's domains are these plus, at count 0, the names `view` sees (hostname groups: their
  // domains here are only those with a count and those of the universe). Read them through
  // ForEachDomain and Find, which see the union in name order.
  Layered<std::map<std::string, int32_t>> counts;
  HostnameView view;
  // Pod keys: views of strings that outlive the Topology (never iterated).
  absl::flat_hash_set<std::string_view> owners;
  // Counts of the hostname domains of this solve's new claims, by claim slot (mirrors the
  // counts; lets the scheduler reject claims in O(1)).
  std::vector<int32_t> slot_counts;
  std::vector<int32_t> slot_histogram;  // slot_histogram[c]: claims with count c (c >= 1)

  bool Selects(const Pod& pod) const;
  bool Counts(const Pod& pod, const Requirements& node_reqs,
              const std::vector<Taint>& taints) const;
  // Adds `domain` at count 0 unless it is a domain already.
  void Register(const std::string& domain);
  // One more pod counted in `domain` (made a domain if it is not one).
  void Record(const std::string& domain);
  // Record(domain) when `domain` is a new claim's placeholder hostname registered with claim
  // slot `slot` (Topology::RegisterClaimSlot): no registry lookup.
  void RecordClaimSlot(const std::string& domain, int32_t slot);
  // One pod fewer in `domain`, whose count is positive; at 0 the domain stays a domain only
  // if `keep` (or the view sees it).
  void TakeBack(const std::string& domain, bool keep);
  // The count of `domain`, or nullopt when it is not a domain of the group.
  std::optional<int32_t> Find(const std::string& domain) const;
  int32_t CountOf(const std::string& domain) const { return Find(domain).value_or(0); }
  // Whether some domain has a positive count.
  bool AnyCounted() const;
  // Calls f(domain, count) for every domain in name order while f returns true.
  template <typename F>
  void ForEachDomain(F&& f) const;
  // Number of claim slots whose count exceeds `limit`.
  int64_t SlotsAbove(int32_t limit) const {
    int64_t n = 0;
    for (size_t c = static_cast<size_t>(std::max<int32_t>(limit + 1, 1)); c < slot_histogram.size();
         ++c) {
      n += slot_histogram[c];
    }
    return n;
  }
  int32_t SlotCount(int slot) const {
    return slot < static_cast<int>(slot_counts.size()) ? slot_counts[static_cast<size_t>(slot)] : 0;
  }
  // The domains `pod` may use given its own domains and the node's (nextDomain*).
  Requirement Next(const Pod& pod, const Requirement& pod_domains,
                   const Requirement& node_domains) const;
  // Next's answer when the node has a single hostname (`node_domains` = hostname In [h]):
  // whether it is In [h] (true) or DoesNotExist (false), built as no Requirement; nullopt for
  // any other node domain.
  std::optional<bool> NextOnSingleDomain(const Pod& pod, const Requirement& pod_domains,
                                         const Requirement& node_domains) const;
  std::string CountsString() const;
  int32_t DomainMinCount(const Requirement& pod_domains) const;
  bool AnyCompatiblePodDomain(const Requirement& pod_domains) const;

 private:
  // Keeps slot_counts and slot_histogram in step with the count of a claim's hostname
  // (slot < 0: not a claim's).
  void SetSlotCount(int32_t slot, int32_t count);
  Requirement NextSpread(const Pod& pod, const Requirement& pod_domains,
                         const Requirement& node_domains) const;
  Requirement NextAffinity(const Pod& pod, const Requirement& pod_domains,
                           const Requirement& node_domains) const;
  Requirement NextAntiAffinity(const Requirement& pod_domains,
                               const Requirement& node_domains) const;
};

template <typename F>
void TopologyGroup::ForEachDomain(F&& f) const {
  auto own = counts.begin();
  const auto own_end = counts.end();
  const HostnameRegistry::Map* names = view.registry != nullptr ? &view.registry->names() : nullptr;
  if (names == nullptr || (view.nodes == nullptr && view.since >= view.registry->epoch())) {
    for (; own != own_end; ++own) {
      if (!f(own->first, own->second)) return;
    }
    return;
  }
  // Merge by name; a name in both is the group's own (with its count).
  auto reg = names->begin();
  while (own != own_end || reg != names->end()) {
    if (reg != names->end() && !view.Sees(reg->second)) {
      ++reg;
      continue;
    }
    const int order = reg == names->end() ? -1
                      : own == own_end    ? 1
                                          : own->first.compare(reg->first);
    if (order <= 0) {
      if (order == 0) ++reg;
      if (!f(own->first, own->second)) return;
      ++own;
    } else {
      if (!f(reg->first, 0)) return;
      ++reg;
    }
  }
}

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_TOPOLOGY_GROUP_H_
