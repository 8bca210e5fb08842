// The topology state of one Solve (docs/design.md §5.12): spread, pod affinity and pod
// anti-affinity groups (topology_group.h) created from the pods' specs and the bound pods'
// anti-affinity, their domains counted over the snapshot, the requirements they add to a pod,
// and the counts as pods are placed.

#ifndef KARP_SRC_SCHEDULING_TOPOLOGY_H_
#define KARP_SRC_SCHEDULING_TOPOLOGY_H_

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
#include "karp/cluster.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/scheduler.h"
#include "karp/taints.h"
#include "scheduling/bound_counts.h"
#include "scheduling/cow.h"
#include "scheduling/selector_index.h"
#include "scheduling/topology_group.h"

namespace karp::scheduling {

// The topology state of one Solve.
class Topology {
 public:
  // `scheduling` are the pods of this Solve (their bound counterparts are not counted).
  // `nodes_by_name` and `anti_affinity_pods` (bound pods with required anti-affinity) are
  // indexes over `snapshot`; all pointers must outlive the Topology.
  Topology(const ClusterSnapshot* snapshot, const DomainUniverse* universe, PreferencePolicy policy,
           const absl::flat_hash_set<std::string_view>* scheduling,
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
  // Calls f(id, inverse, build) for each of PrototypesOf(pod, policy)'s groups, in its order:
  // `build()` returns the group (whose id is `id`), built only if f calls it (defined and used
  // in topology.cc only).
  template <typename F>
  static void ForEachPrototype(const Pod& pod, PreferencePolicy policy, F&& f);
  // Update(pod) with `protos` = PrototypesOf(pod, policy) and `key` = pod.Key(). `protos` and
  // `key` must outlive the Topology: groups are found again by the prototype's address.
  // `first`: this is the pod's first Update (it owns no group yet).
  void Update(const Pod& pod, const std::string& key, const Prototypes& protos, bool first = false);
  // The groups that matter for one pod: those it owns and the inverse groups selecting it.
  // Valid until the next Update() or GetOrCreate.
  struct PodGroups {
    std::vector<const TopologyGroup*> owned;
    std::vector<const TopologyGroup*> inverse;
    bool empty() const { return owned.empty() && inverse.empty(); }
  };
  // `key` is pod.Key() (passed to avoid rebuilding it). `label_class` is shared only by pods
  // with the same namespace and labels (PodData::label_class): the inverse groups selecting
  // them are looked up once per class and new group instead of once per call.
  PodGroups GroupsFor(const Pod& pod, const std::string& key, size_t label_class) const;

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
  // Written into `out` (cleared first; its capacity is reused).
  void HostnameChecks(const Pod& pod, const PodGroups& groups,
                      std::vector<HostnameCheck>* out) const;
  // For claims whose zone is pinned to one value: the zones each zonal group of `pod` would
  // accept. A claim pinned to a zone outside any returned set certainly fails
  // AddRequirements (exact: mirrors NextSpread/NextAffinity/NextAntiAffinity for a
  // single-valued node domain). Written into `lists`, one list per such group (their
  // capacity is reused).
  void PinnedZoneChecks(const Pod& pod, const PodGroups& groups,
                        const Requirements& strict_pod_reqs,
                        std::vector<std::vector<std::string>>* lists) const;

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
  // `by_pod` (its owned_inverse part) belongs to this pod. On a new claim, `claim_hostname`
  // and `claim_slot` are its placeholder hostname and slot (RegisterClaimSlot), which spares
  // hostname groups a registry lookup; null and -1 otherwise.
  void Record(const Pod& pod, const std::string& key, const std::vector<Taint>& taints,
              const Requirements& node_reqs, RecordCache* by_labels, RecordCache* by_pod,
              const std::string* claim_hostname = nullptr, int32_t claim_slot = -1);
  // Registers a hostname domain (a new claim's placeholder or an existing node): every
  // hostname group that exists now has it as a domain (at count 0 until a pod is recorded
  // there); groups created later do not. One registry entry, O(log names), whatever the number
  // of groups.
  void RegisterHostname(const std::string& hostname);

 private:
  // The group with `proto`'s id (created from `proto` when new), now owned by `owner` (whose
  // key is `key`). `persistent`: `proto` outlives this Topology (its address is remembered).
  TopologyGroup* GetOrCreate(const TopologyGroup& proto, bool inverse, const Pod& owner,
                             std::string_view key, bool persistent);
  // Update's first step: `key` owns none of its groups any more (inverse groups excepted).
  void Disown(std::string_view key);
  // Makes the pod with `key` an owner of `g` (once).
  void Own(TopologyGroup* g, bool inverse, std::string_view key);
  // A copy of `key` that lives as long as the Topology.
  const std::string& Intern(std::string key);
  // The inverse anti-affinity group of one required term of `pod`.
  static TopologyGroup InverseGroup(const Pod& pod, const PodAffinityTerm& term);
  void CountDomains(TopologyGroup& g) const;
  // CountDomains' first step: registers the domain of every node that `g`'s filter admits
  // (hostname groups: makes their view see those nodes' hostnames).
  void RegisterNodes(TopologyGroup& g) const;
  // The node hostnames that `filter` admits, by node-domain index (built once per filter).
  const std::shared_ptr<const std::vector<char>>& NodeMask(const NodeFilter& filter) const;
  // Adds every node's hostname to the registry, in snapshot order (once).
  void AddNodeDomains() const;
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
  const absl::flat_hash_set<std::string_view>* scheduling_;  // looked up, never iterated
  mutable std::optional<std::vector<std::pair<const Pod*, const Node*>>> counted_bound_pods_;
  // CountedBoundPods' positions by label pair (built on first use; looked up, never
  // iterated): the pods a group's selector may select, from a label pair it requires.
  mutable std::optional<
      absl::flat_hash_map<std::pair<std::string_view, std::string_view>, std::vector<uint32_t>>>
      bound_pods_by_label_;
  // Ascending positions in CountedBoundPods() that include every pod `g` selects, or null
  // when `g` requires no label pair (then every pod is a candidate). `scratch` holds a
  // merged list.
  const std::vector<uint32_t>* BoundPodsMaybeSelected(const TopologyGroup& g,
                                                      std::vector<uint32_t>* scratch) const;
  // Shared counts of bound pods (null: count per group), and which of its pods this solve
  // schedules (by index into BoundCountCache::Pods(), built on first use).
  BoundCountCache* bound_counts_ = nullptr;
  mutable std::vector<char> scheduled_bound_;
  // RegisterNodes' results by (key, node filter, domains before), for keys other than hostname.
  mutable std::map<std::string, Cow<std::map<std::string, int32_t>>> registered_;
  // This solve's hostname domains (claims' placeholders and nodes' hostnames), and per node
  // filter the node hostnames it admits (HostnameView::nodes).
  mutable HostnameRegistry registry_;  // node entries are added on first use
  mutable std::map<std::string, std::shared_ptr<const std::vector<char>>> node_masks_;
  mutable bool node_domains_added_ = false;
  // By id; looked up only (creation order: group_list_, inverse_list_).
  absl::flat_hash_map<std::string, std::unique_ptr<TopologyGroup>> groups_;
  absl::flat_hash_map<std::string, std::unique_ptr<TopologyGroup>> inverse_;
  const std::map<std::string, const Node*>& nodes_by_name_;
  const std::vector<const Pod*>& anti_affinity_pods_;
  // pod key -> owned groups, in group id order (lookups only, never iterated: hash order
  // cannot leak out)
  absl::flat_hash_map<std::string_view, std::vector<TopologyGroup*>> owned_by_pod_;
  // pod key -> the inverse groups it owns, in creation order (lookups only)
  absl::flat_hash_map<std::string_view, std::vector<TopologyGroup*>> inverse_owned_by_pod_;
  // By label class: the inverse groups selecting its pods among the first `seen` of
  // inverse_list_, in id order (GroupsFor's order).
  struct InverseSelecting {
    size_t seen = 0;
    std::vector<const TopologyGroup*> groups;
  };
  mutable std::vector<InverseSelecting> inverse_by_label_class_;
  absl::node_hash_set<std::string> interned_;  // keys the Topology built itself (Intern)
  // Persistent prototypes (Update with prototypes) -> their group, found without the id.
  absl::flat_hash_map<const TopologyGroup*, TopologyGroup*> by_prototype_;
  // groups_ and inverse_ in creation order (for RecordCache), and their selectors indexed.
  std::vector<TopologyGroup*> group_list_;
  std::vector<TopologyGroup*> inverse_list_;
  mutable SelectorIndex group_selectors_;
  mutable SelectorIndex inverse_selectors_;
};

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_TOPOLOGY_H_
