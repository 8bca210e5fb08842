// Topology spread, pod affinity and pod anti-affinity (docs/design.md §5.12), internal.
//
// A TopologyGroup counts the pods that match a selector per domain of one topology key.
// Groups are deduplicated by a canonical id (key, type, namespaces, maxSkew, node filter,
// selector), so every replica of a Deployment shares one group. Domains are kept in ordered
// maps: ties between equal counts are broken by domain name (the reference uses Go map
// order, i.e. random).

#ifndef KARP_SRC_SCHEDULING_TOPOLOGY_H_
#define KARP_SRC_SCHEDULING_TOPOLOGY_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/container/node_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/cluster.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/scheduler.h"
#include "karp/taints.h"
#include "scheduling/bound_counts.h"
#include "scheduling/cow.h"

namespace karp::scheduling {

enum class TopologyType { kSpread, kAffinity, kAntiAffinity };

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
  // domain -> count; new claims' hostnames go to a layer of the group's own (cow.h)
  Layered<std::map<std::string, int32_t>> domains;
  Layered<std::set<std::string>> empty_domains;
  // Pod keys: views of strings that outlive the Topology (never iterated).
  absl::flat_hash_set<std::string_view> owners;
  // Counts of the hostname domains of this solve's new claims, by claim slot (mirrors
  // `domains`; lets the scheduler reject claims in O(1)).
  std::vector<int32_t> slot_counts;
  std::vector<int32_t> slot_histogram;  // slot_histogram[c]: claims with count c (c >= 1)
  const std::map<std::string, int>* slots = nullptr;  // hostname -> slot (owned by Topology)

  bool Selects(const Pod& pod) const;
  bool Counts(const Pod& pod, const Requirements& node_reqs,
              const std::vector<Taint>& taints) const;
  void Register(const std::string& domain);
  void Record(const std::string& domain);
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
  std::string CountsString() const;
  int32_t DomainMinCount(const Requirement& pod_domains) const;
  bool AnyCompatiblePodDomain(const Requirement& pod_domains) const;

 private:
  Requirement NextSpread(const Pod& pod, const Requirement& pod_domains,
                         const Requirement& node_domains) const;
  Requirement NextAffinity(const Pod& pod, const Requirement& pod_domains,
                           const Requirement& node_domains) const;
  Requirement NextAntiAffinity(const Requirement& pod_domains,
                               const Requirement& node_domains) const;
};

// The topology state of one Solve.
class Topology {
 public:
  // `scheduling` are the pods of this Solve (their bound counterparts are not counted).
  // `nodes_by_name` and `anti_affinity_pods` (bound pods with required anti-affinity) are
  // indexes over `snapshot`; all pointers must outlive the Topology.
  Topology(const ClusterSnapshot* snapshot, const DomainUniverse* universe,
           PreferencePolicy policy, const std::set<std::string>* scheduling,
           const std::map<std::string, const Node*>* nodes_by_name,
           const std::vector<const Pod*>* anti_affinity_pods,
           BoundCountCache* bound_counts = nullptr);

  // Builds the inverse anti-affinity groups of bound pods (call once, before Update).
  void InitExisting();
  // (Re)creates the groups of `pod` from its current (possibly relaxed) spec.
  void Update(const Pod& pod);
  // The same with `key` = pod.Key(), which must outlive the Topology.
  void Update(const Pod& pod, const std::string& key);
  // The groups Update(pod) joins (creating those that do not exist yet), in order, without
  // domains or owners: a function of the pod's spec and the preference policy only, so a
  // scheduler can keep them across the solves of one snapshot.
  struct Prototype {
    bool inverse = false;
    std::shared_ptr<const TopologyGroup> group;  // pods may share equal prototypes
  };
  using Prototypes = std::vector<Prototype>;
  static Prototypes PrototypesOf(const Pod& pod, PreferencePolicy policy);
  // Update(pod) with `protos` = PrototypesOf(pod, policy) and `key` = pod.Key(). `protos` and
  // `key` must outlive the Topology: groups are found again by the prototype's address.
  // `first`: this is the pod's first Update (it owns no group yet).
  void Update(const Pod& pod, const std::string& key, const Prototypes& protos,
              bool first = false);
  // The groups that matter for one pod: those it owns and the inverse groups selecting it.
  // Valid until the next Update() or GetOrCreate.
  struct PodGroups {
    std::vector<const TopologyGroup*> owned;
    std::vector<const TopologyGroup*> inverse;
    bool empty() const { return owned.empty() && inverse.empty(); }
  };
  // `key` is pod.Key() (passed to avoid rebuilding it).
  PodGroups GroupsFor(const Pod& pod, const std::string& key) const;

  // The requirements that every group owned by `pod`, and every inverse group that counts it
  // on a node with `node_reqs`, adds (appended to `narrowing`). Errors: FailedPrecondition
  // `unsatisfiable topology constraint for ...` (the message is built only if `explain`).
  absl::Status AddRequirements(const Pod& pod, const PodGroups& groups,
                               const std::vector<Taint>& taints,
                               const Requirements& strict_pod_reqs, const Requirements& node_reqs,
                               std::vector<Requirement>* narrowing, bool explain) const;

  // Hostname groups that can reject a claim by its slot alone: (group, limit) pairs where a
  // claim whose slot count exceeds the limit certainly fails AddRequirements for `pod`.
  struct HostnameCheck {
    const TopologyGroup* group;
    int32_t limit;
  };
  std::vector<HostnameCheck> HostnameChecks(const Pod& pod, const PodGroups& groups) const;
  // For claims whose zone is pinned to one value: the zones each zonal group of `pod` would
  // accept. A claim pinned to a zone outside any returned set certainly fails
  // AddRequirements (exact: mirrors NextSpread/NextAffinity/NextAntiAffinity for a
  // single-valued node domain).
  std::vector<std::vector<std::string>> PinnedZoneChecks(const Pod& pod, const PodGroups& groups,
                                                         const Requirements& strict_pod_reqs) const;

  // Maps a new claim's placeholder hostname to its slot.
  void RegisterClaimSlot(const std::string& hostname, int slot);
  // Records a placement of `pod` on a node with `node_reqs`.
  void Record(const Pod& pod, const std::vector<Taint>& taints, const Requirements& node_reqs);
  // What Record needs to know about one pod, kept by the caller between placements: the groups
  // whose selector selects it and the inverse groups it owns, among the first `groups_seen` /
  // `inverse_seen` groups created. Groups are never destroyed, a group's selector never
  // changes and a pod never stops owning an inverse group, so only newer groups are examined.
  struct RecordCache {
    size_t groups_seen = 0;
    size_t inverse_seen = 0;
    std::vector<TopologyGroup*> selecting;
    std::vector<TopologyGroup*> owned_inverse;
  };
  // Record() with caches; `key` is pod.Key(). Same effect as Record(pod, taints, node_reqs).
  // `by_labels` (its selecting part) may be shared by pods with the same namespace and labels;
  // `by_pod` (its owned_inverse part) belongs to this pod.
  void Record(const Pod& pod, const std::string& key, const std::vector<Taint>& taints,
              const Requirements& node_reqs, RecordCache* by_labels, RecordCache* by_pod);
  // Registers a hostname domain (a new claim's placeholder or an existing node).
  void RegisterHostname(const std::string& hostname);

 private:
  // The group with `proto`'s id (created from `proto` when new), now owned by `owner` (whose
  // key is `key`). `persistent`: `proto` outlives this Topology (its address is remembered).
  TopologyGroup* GetOrCreate(const TopologyGroup& proto, bool inverse, const Pod& owner,
                             std::string_view key, bool persistent);
  // Update's first step: `key` owns none of its groups any more (inverse groups excepted).
  void Disown(std::string_view key);
  // A copy of `key` that lives as long as the Topology.
  const std::string& Intern(std::string key);
  // The inverse anti-affinity group of one required term of `pod`.
  static TopologyGroup InverseGroup(const Pod& pod, const PodAffinityTerm& term);
  void CountDomains(TopologyGroup& g) const;
  // CountDomains' first step: registers the domain of every node that `g`'s filter admits.
  void RegisterNodes(TopologyGroup& g) const;
  // CountDomains through bound_counts_ (same result): the cached counts over every bound pod,
  // less the pods this solve schedules.
  void CountDomainsCached(TopologyGroup& g) const;
  // The cache entry of `g` (after InitDomains): every bound pod counted.
  std::unique_ptr<BoundCountCache::Entry> CountAllBound(const TopologyGroup& g) const;
  void InitDomains(TopologyGroup& g, const Pod& owner, bool filter_by_taints) const;
  static std::set<std::string> Namespaces(const Pod& pod, const PodAffinityTerm& term);

  // A node's labels as requirements (plus its hostname), built once per node and Solve: every
  // new topology group counts domains over all nodes.
  const Requirements& RequirementsOf(const Node& node) const;
  // The node's domain for a topology key (its label, or its name for the hostname key), built
  // once per node, key and Solve.
  const std::optional<std::string>& DomainOf(const Node& node, const std::string& key) const;
  // The bound pods that topology groups count (bound to a node of the snapshot, not terminal,
  // not terminating, not being scheduled by this solve) with their nodes, in snapshot order;
  // built once per Solve.
  const std::vector<std::pair<const Pod*, const Node*>>& CountedBoundPods() const;

  const ClusterSnapshot* snapshot_;
  const DomainUniverse* universe_;
  // node_hash_map: references handed out stay valid while the caches grow.
  mutable absl::node_hash_map<const Node*, Requirements> node_requirements_;
  mutable absl::node_hash_map<std::string,
                              absl::node_hash_map<const Node*, std::optional<std::string>>>
      node_domains_;
  PreferencePolicy policy_;
  const std::set<std::string>* scheduling_;
  mutable std::optional<std::vector<std::pair<const Pod*, const Node*>>> counted_bound_pods_;
  // Shared counts of bound pods (null: count per group), and which of its pods this solve
  // schedules (by index into BoundCountCache::Pods(), built on first use).
  BoundCountCache* bound_counts_ = nullptr;
  mutable std::vector<char> scheduled_bound_;
  // RegisterNodes' results by (key, node filter, domains before): domains and empty domains.
  mutable std::map<std::string, std::pair<Cow<std::map<std::string, int32_t>>,
                                          Cow<std::set<std::string>>>>
      registered_;
  std::map<std::string, std::unique_ptr<TopologyGroup>> groups_;
  std::map<std::string, std::unique_ptr<TopologyGroup>> inverse_;
  const std::map<std::string, const Node*>& nodes_by_name_;
  const std::vector<const Pod*>& anti_affinity_pods_;
  std::map<std::string, int> slots_;  // claim placeholder hostname -> slot
  // pod key -> owned groups (lookups only, never iterated: hash order cannot leak out)
  absl::flat_hash_map<std::string_view, std::vector<TopologyGroup*>> owned_by_pod_;
  absl::node_hash_set<std::string> interned_;  // keys the Topology built itself (Intern)
  std::vector<TopologyGroup*> hostname_groups_;  // groups (and inverse groups) on hostname
  // Persistent prototypes (Update with prototypes) -> their group, found without the id.
  absl::flat_hash_map<const TopologyGroup*, TopologyGroup*> by_prototype_;
  // groups_ and inverse_ in creation order (for RecordCache).
  std::vector<TopologyGroup*> group_list_;
  std::vector<TopologyGroup*> inverse_list_;
};

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_TOPOLOGY_H_
