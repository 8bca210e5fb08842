// The topology state of one Solve (docs/design.md §5.12, karpenter's topology.go): the groups of
// the pods' spread constraints, affinities and anti-affinities (and the inverse groups of bound
// pods' anti-affinity), their domains counted over the snapshot, the requirements they add to a
// pod and the checks and counts as pods are placed.

#include "scheduling/topology.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::scheduling {
namespace {

constexpr int32_t kMaxInt32 = std::numeric_limits<int32_t>::max();
// Groups left to test for a label class from which the SelectorIndex finds the candidates
// instead of a scan of each (same groups found either way).
constexpr size_t kIndexedScanMin = 16;

std::string_view TypeName(TopologyType t) {
  switch (t) {
    case TopologyType::kSpread:
      return "topology spread";
    case TopologyType::kAffinity:
      return "pod affinity";
    case TopologyType::kAntiAffinity:
      return "pod anti-affinity";
  }
  return "";
}

std::string SelectorId(const std::optional<LabelSelector>& s) {
  if (!s) return "nil";
  std::string out = "{";
  for (const auto& [k, v] : s->match_labels) internal::StrAppend(&out, k, "=", v, ",");
  out += "|";
  for (const LabelSelectorRequirement& e : s->match_expressions) {
    internal::StrAppend(&out, e.key, " ", OperatorName(e.op), " [", absl::StrJoin(e.values, ","),
                        "],");
  }
  out += "}";
  return out;
}

// The id of an (anti-)affinity or inverse group: `prefix` (its kind), key, namespaces, selector.
std::string AffinityId(std::string_view prefix, const PodAffinityTerm& term,
                       const std::set<std::string>& namespaces) {
  return internal::StrCat(prefix, term.topology_key, "|", absl::StrJoin(namespaces, ","), "|",
                          SelectorId(term.label_selector));
}

// Requirements of a node-affinity term (unvalidated, as the reference).
Requirements TermRequirements(const std::vector<NodeSelectorRequirement>& exprs) {
  Requirements r;
  for (const NodeSelectorRequirement& e : exprs) {
    absl::StatusOr<Requirement> req = Requirement::Create(e.key, e.op, e.values, std::nullopt);
    if (req.ok()) r.Add(*req);
  }
  return r;
}

NodeFilter MakeNodeFilter(const Pod& pod, const TopologySpreadConstraint& tsc) {
  NodeFilter f;
  f.honor_taints = tsc.node_taints_policy == NodeInclusionPolicy::kHonor;
  if (f.honor_taints) f.tolerations = pod.tolerations;
  if (tsc.node_affinity_policy == NodeInclusionPolicy::kIgnore) return f;
  Requirements selector = Requirements::FromLabels(pod.node_selector);
  if (pod.node_affinity.required.empty()) {
    f.terms.push_back(selector);
    return f;
  }
  for (const NodeSelectorTerm& term : pod.node_affinity.required) {
    Requirements r = selector;
    r.Add(TermRequirements(term.match_expressions));
    f.terms.push_back(std::move(r));
  }
  return f;
}

// The label value of `key` on a node (hostname falls back to the node name).
std::optional<std::string> NodeDomain(const Node& node, const std::string& key) {
  auto it = node.metadata.labels.find(key);
  if (it != node.metadata.labels.end()) return it->second;
  if (key == kLabelHostname) return node.metadata.name;
  return std::nullopt;
}

Requirements NodeRequirements(const Node& node) {
  Requirements r = Requirements::FromLabels(node.metadata.labels);
  if (!r.Has(kLabelHostname)) r.Add(Requirement::In(kLabelHostname, {node.metadata.name}));
  return r;
}

std::string DomainsString(const Requirement& r) { return r.ToString(); }

// A cache key: `prefix` and then the group's domains (its state before counting).
std::string DomainsKey(std::string prefix, const TopologyGroup& g) {
  g.ForEachDomain([&](const std::string& domain, int32_t) {
    prefix.push_back('\0');
    prefix += domain;
    return true;
  });
  return prefix;
}

// Requirement::Exists(key): built once for the hostname and zone keys (most groups), else in
// `storage`.
const Requirement& ExistsOf(std::string_view key, std::optional<Requirement>& storage) {
  static const Requirement* const kAnyHostname =
      new Requirement(Requirement::Exists(kLabelHostname));
  static const Requirement* const kAnyZone = new Requirement(Requirement::Exists(kLabelZone));
  if (key == kLabelHostname) return *kAnyHostname;
  if (key == kLabelZone) return *kAnyZone;
  return storage.emplace(Requirement::Exists(key));
}

}  // namespace

Topology::Topology(const ClusterSnapshot* snapshot, const DomainUniverse* universe,
                   PreferencePolicy policy, const absl::flat_hash_set<std::string_view>* scheduling,
                   const std::map<std::string, const Node*>* nodes_by_name,
                   const std::vector<const Pod*>* anti_affinity_pods, BoundCountCache* bound_counts)
    : snapshot_(snapshot),
      universe_(universe),
      policy_(policy),
      scheduling_(scheduling),
      nodes_by_name_(*nodes_by_name),
      anti_affinity_pods_(*anti_affinity_pods) {
  bound_counts_ = bound_counts;
}

std::set<std::string> Topology::Namespaces(const Pod& pod, const PodAffinityTerm& term) {
  std::set<std::string> out(term.namespaces.begin(), term.namespaces.end());
  // Namespace labels are not part of the snapshot: an empty namespaceSelector selects every
  // namespace; a non-empty one adds none.
  if (term.namespace_selector && term.namespace_selector->empty()) out.insert(kAllNamespaces);
  if (out.empty()) {
    out.insert(pod.metadata.namespace_.empty() ? std::string("default") : pod.metadata.namespace_);
  }
  return out;
}

void Topology::InitDomains(TopologyGroup& g, const Pod& owner, bool filter_by_taints) const {
  auto it = universe_->find(g.key);
  if (it == universe_->end()) return;
  for (const auto& [domain, source] : it->second) {
    bool include = !filter_by_taints || source.untainted;
    for (size_t i = 0; !include && i < source.taint_sets.size(); ++i) {
      include = ToleratesAll(source.taint_sets[i], owner.tolerations);
    }
    if (include) g.Register(domain);
  }
}

const Requirements& Topology::RequirementsOf(const Node& node) const {
  auto it = node_requirements_.find(&node);
  if (it == node_requirements_.end()) {
    it = node_requirements_.emplace(&node, NodeRequirements(node)).first;
  }
  return it->second;
}

const std::optional<std::string>& Topology::DomainOf(const Node& node,
                                                     const std::string& key) const {
  absl::node_hash_map<const Node*, std::optional<std::string>>& by_node = node_domains_[key];
  auto it = by_node.find(&node);
  if (it == by_node.end()) it = by_node.emplace(&node, NodeDomain(node, key)).first;
  return it->second;
}

const std::vector<std::pair<const Pod*, const Node*>>& Topology::CountedBoundPods() const {
  if (counted_bound_pods_) return *counted_bound_pods_;
  counted_bound_pods_.emplace();
  for (const Pod& p : snapshot_->pods) {
    if (p.node_name.empty() || p.IsTerminal() || p.IsTerminating()) continue;
    if (scheduling_->count(p.Key()) > 0) continue;
    auto node = nodes_by_name_.find(p.node_name);
    if (node == nodes_by_name_.end()) continue;
    counted_bound_pods_->emplace_back(&p, node->second);
  }
  return *counted_bound_pods_;
}

void Topology::CountDomains(TopologyGroup& g) const {
  // Claim slots exist once this solve opened claims; the cache's records ignore them.
  if (bound_counts_ != nullptr && registry_.slots() == 0) {
    CountDomainsCached(g);
    return;
  }
  RegisterNodes(g);
  const std::vector<std::pair<const Pod*, const Node*>>& pods = CountedBoundPods();
  auto count = [&](const Pod& p, const Node& node) {
    if (!g.Selects(p)) return;
    const std::optional<std::string>& d = DomainOf(node, g.key);
    if (!d) return;
    if (!g.filter.Matches(RequirementsOf(node), node.taints)) return;
    g.Record(*d);
  };
  // Counts only add up: visiting only the pods that may be selected counts the same.
  std::vector<uint32_t> scratch;
  if (const std::vector<uint32_t>* some = BoundPodsMaybeSelected(g, &scratch)) {
    for (uint32_t i : *some) count(*pods[i].first, *pods[i].second);
    return;
  }
  for (const auto& [p, node] : pods) count(*p, *node);
}

const std::vector<uint32_t>* Topology::BoundPodsMaybeSelected(
    const TopologyGroup& g, std::vector<uint32_t>* scratch) const {
  static const std::vector<uint32_t>* const kNone = new std::vector<uint32_t>();
  if (!g.selector) return kNone;  // selects nothing
  if (!ForEachRequiredPair(*g.selector, [](std::string_view, std::string_view) {})) {
    return nullptr;
  }
  if (!bound_pods_by_label_) {
    bound_pods_by_label_.emplace();
    const std::vector<std::pair<const Pod*, const Node*>>& pods = CountedBoundPods();
    for (size_t i = 0; i < pods.size(); ++i) {
      for (const auto& [k, v] : pods[i].first->metadata.labels) {
        (*bound_pods_by_label_)[{k, v}].push_back(static_cast<uint32_t>(i));
      }
    }
  }
  // The union of the required pairs' lists, ascending.
  scratch->clear();
  ForEachRequiredPair(*g.selector, [&](std::string_view k, std::string_view v) {
    auto it = bound_pods_by_label_->find(std::make_pair(k, v));
    if (it != bound_pods_by_label_->end()) {
      scratch->insert(scratch->end(), it->second.begin(), it->second.end());
    }
  });
  std::sort(scratch->begin(), scratch->end());
  scratch->erase(std::unique(scratch->begin(), scratch->end()), scratch->end());
  return scratch;
}

void Topology::RegisterNodes(TopologyGroup& g) const {
  if (g.view.registry != nullptr) {  // hostname: the registry holds the nodes' hostnames
    g.view.nodes = NodeMask(g.filter).get();
    return;
  }
  // Groups of one key and node filter register the same domains: register once, share them.
  auto [it, fresh] =
      registered_.try_emplace(DomainsKey(internal::StrCat(g.key, "|", g.filter.Id()), g));
  if (!fresh) {
    g.counts = it->second;
    return;
  }
  for (const Node& node : snapshot_->nodes) {
    const std::optional<std::string>& d = DomainOf(node, g.key);
    if (d && g.filter.Matches(RequirementsOf(node), node.taints)) g.Register(*d);
  }
  it->second = g.counts.Flat();
}

void Topology::AddNodeDomains() const {
  if (node_domains_added_) return;
  node_domains_added_ = true;
  static const std::string* const kHostname = new std::string(kLabelHostname);
  for (const Node& node : snapshot_->nodes) {
    if (const std::optional<std::string>& d = DomainOf(node, *kHostname)) registry_.AddNode(*d);
  }
}

const std::shared_ptr<const std::vector<char>>& Topology::NodeMask(const NodeFilter& filter) const {
  auto [it, fresh] = node_masks_.try_emplace(filter.Id());
  if (!fresh) return it->second;
  AddNodeDomains();
  static const std::string* const kHostname = new std::string(kLabelHostname);
  static const Requirements* const kNone = new Requirements();
  auto mask = std::make_shared<std::vector<char>>(static_cast<size_t>(registry_.nodes()), 0);
  for (const Node& node : snapshot_->nodes) {
    const std::optional<std::string>& d = DomainOf(node, *kHostname);
    if (!d) continue;
    // Without terms the filter looks at taints only: no node requirements built for it.
    const Requirements& reqs = filter.terms.empty() ? *kNone : RequirementsOf(node);
    if (filter.Matches(reqs, node.taints)) {
      (*mask)[static_cast<size_t>(registry_.Find(*d)->node)] = 1;
    }
  }
  it->second = std::move(mask);
  return it->second;
}

std::unique_ptr<BoundCountCache::Entry> Topology::CountAllBound(const TopologyGroup& g) const {
  TopologyGroup counted;  // Register and Record touch only these (no claim slots)
  counted.key = g.key;
  counted.counts = g.counts;
  counted.view = g.view;
  counted.filter = g.filter;
  RegisterNodes(counted);
  const TopologyGroup registered = counted;  // its domains before the records (shared)
  auto entry = std::make_unique<BoundCountCache::Entry>();
  const std::vector<BoundCountCache::BoundPod>& pods = bound_counts_->Pods();
  for (size_t i = 0; i < pods.size(); ++i) {
    const Node& node = *pods[i].node;
    if (!g.Selects(*pods[i].pod)) continue;
    const std::optional<std::string>& d = DomainOf(node, g.key);
    if (!d || !g.filter.Matches(RequirementsOf(node), node.taints)) continue;
    entry->records.push_back({static_cast<uint32_t>(i), registered.Find(*d).has_value(), *d});
    counted.Record(*d);
  }
  entry->domains = counted.counts.Flat();
  if (g.view.registry != nullptr) entry->nodes = NodeMask(g.filter);
  return entry;
}

void Topology::CountDomainsCached(TopologyGroup& g) const {
  const std::string key = DomainsKey(g.id, g);
  const BoundCountCache::Entry* entry = bound_counts_->Find(key);
  if (entry == nullptr) entry = bound_counts_->Insert(key, CountAllBound(g));
  const std::vector<BoundCountCache::BoundPod>& pods = bound_counts_->Pods();
  if (scheduled_bound_.size() != pods.size()) {
    scheduled_bound_.resize(pods.size());
    for (size_t i = 0; i < pods.size(); ++i) {
      scheduled_bound_[i] = scheduling_->count(pods[i].key) > 0 ? 1 : 0;
    }
  }
  // Hostname groups see the nodes' hostnames through the registry (the entry keeps which
  // ones, so no node is matched against the filter again), the entry has the rest.
  if (g.view.registry != nullptr) {
    AddNodeDomains();
    g.view.nodes = entry->nodes.get();
  }
  g.counts = entry->domains;  // shared until changed
  for (const BoundCountCache::Entry::Rec& r : entry->records) {
    if (scheduled_bound_[r.pod] != 0) g.TakeBack(r.domain, r.registered);
  }
}

TopologyGroup* Topology::GetOrCreate(const TopologyGroup& proto, bool inverse, const Pod& owner,
                                     std::string_view key, bool persistent) {
  auto known = persistent ? by_prototype_.find(&proto) : by_prototype_.end();
  TopologyGroup* g = nullptr;
  if (known != by_prototype_.end()) {
    g = known->second;
  } else {
    auto& map = inverse ? inverse_ : groups_;
    auto it = map.find(proto.id);
    if (it == map.end()) {
      auto group = std::make_unique<TopologyGroup>(proto);
      if (group->key == kLabelHostname) group->view = {&registry_, registry_.epoch(), nullptr};
      const bool filter_by_taints =
          group->type != TopologyType::kSpread || group->filter.honor_taints;
      InitDomains(*group, owner, filter_by_taints);
      if (!inverse) CountDomains(*group);
      it = map.emplace(group->id, std::move(group)).first;
      (inverse ? inverse_list_ : group_list_).push_back(it->second.get());
    }
    g = it->second.get();
    if (persistent) by_prototype_.emplace(&proto, g);
  }
  Own(g, inverse, key);
  return g;
}

void Topology::Own(TopologyGroup* g, bool inverse, std::string_view key) {
  if (!g->owners.insert(key).second) return;
  if (inverse) {
    inverse_owned_by_pod_[key].push_back(g);  // Record reads it by position: appended
    return;
  }
  // Kept in group id order, GroupsFor's deterministic order (the reference's map iteration
  // is not), so that it is not sorted again on every call.
  std::vector<TopologyGroup*>& owned = owned_by_pod_[key];
  owned.insert(std::upper_bound(
                   owned.begin(), owned.end(), g,
                   [](const TopologyGroup* a, const TopologyGroup* b) { return a->id < b->id; }),
               g);
}

TopologyGroup Topology::InverseGroup(const Pod& pod, const PodAffinityTerm& term) {
  TopologyGroup g;
  g.key = term.topology_key;
  g.type = TopologyType::kAntiAffinity;
  g.namespaces = Namespaces(pod, term);
  g.selector = term.label_selector;
  g.max_skew = kMaxInt32;
  g.id = AffinityId("inverse|", term, g.namespaces);
  return g;
}

void Topology::InitExisting() {
  for (const Pod* pp : anti_affinity_pods_) {
    const Pod& p = *pp;
    if (p.pod_anti_affinity.required.empty()) continue;
    if (p.node_name.empty() || p.IsTerminal() || p.IsTerminating()) continue;
    if (scheduling_->count(p.Key()) > 0) continue;
    auto node = nodes_by_name_.find(p.node_name);
    if (node == nodes_by_name_.end()) continue;
    const std::string& key = Intern(p.Key());
    for (const PodAffinityTerm& term : p.pod_anti_affinity.required) {
      TopologyGroup* tg =
          GetOrCreate(InverseGroup(p, term), /*inverse=*/true, p, key, /*persistent=*/false);
      if (std::optional<std::string> d = NodeDomain(*node->second, tg->key)) tg->Record(*d);
    }
  }
}

const std::string& Topology::Intern(std::string key) {
  return *interned_.insert(std::move(key)).first;
}

void Topology::Disown(std::string_view key) {
  auto owned = owned_by_pod_.find(key);
  if (owned != owned_by_pod_.end()) {
    for (TopologyGroup* g : owned->second) g->owners.erase(key);
    owned->second.clear();
  }
}

void Topology::Update(const Pod& pod) { Update(pod, Intern(pod.Key())); }

void Topology::Update(const Pod& pod, const std::string& key) {
  Disown(key);
  // Each prototype only to find or create its group: found by id, built only when new.
  ForEachPrototype(pod, policy_, [&](const std::string& id, bool inverse, auto&& build) {
    auto& map = inverse ? inverse_ : groups_;
    if (auto it = map.find(id); it != map.end()) {
      Own(it->second.get(), inverse, key);
      return;
    }
    GetOrCreate(build(), inverse, pod, key, /*persistent=*/false);
  });
}

void Topology::Update(const Pod& pod, const std::string& key, const Prototypes& protos,
                      bool first) {
  if (!first) Disown(key);
  for (const Prototype& p : protos) {
    GetOrCreate(*p.group, p.inverse, pod, key, /*persistent=*/true);
  }
}

template <typename F>
void Topology::ForEachPrototype(const Pod& pod, PreferencePolicy policy, F&& f) {
  // Inverse groups for the pod's required anti-affinity terms.
  for (const PodAffinityTerm& term : pod.pod_anti_affinity.required) {
    const std::string id = AffinityId("inverse|", term, Namespaces(pod, term));
    f(id, true, [&] { return InverseGroup(pod, term); });
  }
  const std::string ns = pod.metadata.namespace_.empty() ? "default" : pod.metadata.namespace_;
  for (const TopologySpreadConstraint& tsc : pod.topology_spread_constraints) {
    if (policy == PreferencePolicy::kIgnore &&
        tsc.when_unsatisfiable == WhenUnsatisfiable::kScheduleAnyway) {
      continue;
    }
    // The selector with the pod's values of matchLabelKeys added (a copy only when any is).
    std::optional<LabelSelector> with_keys;
    if (tsc.label_selector) {
      for (const std::string& k : tsc.match_label_keys) {
        auto v = pod.metadata.labels.find(k);
        if (v == pod.metadata.labels.end()) continue;
        if (!with_keys) with_keys = tsc.label_selector;
        with_keys->match_expressions.push_back({k, Operator::kIn, {v->second}});
      }
    }
    const std::optional<LabelSelector>& selector = with_keys ? with_keys : tsc.label_selector;
    NodeFilter filter = MakeNodeFilter(pod, tsc);
    const std::string id = internal::StrCat("spread|", tsc.topology_key, "|", ns, "|", tsc.max_skew,
                                            "|", filter.Id(), "|", SelectorId(selector));
    f(id, false, [&] {
      TopologyGroup g;
      g.key = tsc.topology_key;
      g.type = TopologyType::kSpread;
      g.namespaces = {ns};
      g.selector = selector;
      g.max_skew = tsc.max_skew;
      g.min_domains = tsc.min_domains;
      g.filter = std::move(filter);
      g.id = id;
      return g;
    });
  }
  auto add_affinity = [&](const PodAffinityTerm& term, TopologyType type) {
    std::set<std::string> namespaces = Namespaces(pod, term);
    const std::string id =
        AffinityId(type == TopologyType::kAffinity ? "affinity|" : "anti|", term, namespaces);
    f(id, false, [&] {
      TopologyGroup g;
      g.key = term.topology_key;
      g.type = type;
      g.namespaces = std::move(namespaces);
      g.selector = term.label_selector;
      g.max_skew = kMaxInt32;
      g.id = id;
      return g;
    });
  };
  for (const PodAffinityTerm& t : pod.pod_affinity.required)
    add_affinity(t, TopologyType::kAffinity);
  for (const PodAffinityTerm& t : pod.pod_anti_affinity.required) {
    add_affinity(t, TopologyType::kAntiAffinity);
  }
  if (policy == PreferencePolicy::kRespect) {
    for (const WeightedPodAffinityTerm& t : pod.pod_affinity.preferred) {
      add_affinity(t.term, TopologyType::kAffinity);
    }
    for (const WeightedPodAffinityTerm& t : pod.pod_anti_affinity.preferred) {
      add_affinity(t.term, TopologyType::kAntiAffinity);
    }
  }
}

Topology::Prototypes Topology::PrototypesOf(const Pod& pod, PreferencePolicy policy) {
  Prototypes out;
  ForEachPrototype(pod, policy, [&](const std::string&, bool inverse, auto&& build) {
    out.push_back({inverse, std::make_shared<const TopologyGroup>(build())});
  });
  return out;
}

Topology::PodGroups Topology::GroupsFor(const Pod& pod, const std::string& key,
                                        size_t label_class) const {
  PodGroups out;
  auto owned = owned_by_pod_.find(key);
  if (owned != owned_by_pod_.end()) {
    // Already in group id order (Own).
    out.owned.assign(owned->second.begin(), owned->second.end());
  }
  if (inverse_by_label_class_.size() <= label_class) {
    inverse_by_label_class_.resize(label_class + 1);
  }
  InverseSelecting& cache = inverse_by_label_class_[label_class];
  if (cache.seen < inverse_list_.size()) {
    if (inverse_list_.size() - cache.seen >= kIndexedScanMin) {
      inverse_selectors_.Extend(inverse_list_);
      for (uint32_t i : inverse_selectors_.Candidates(pod.metadata.labels, cache.seen)) {
        if (inverse_list_[i]->Selects(pod)) cache.groups.push_back(inverse_list_[i]);
      }
      cache.seen = inverse_list_.size();
    }
    for (; cache.seen < inverse_list_.size(); ++cache.seen) {
      if (inverse_list_[cache.seen]->Selects(pod))
        cache.groups.push_back(inverse_list_[cache.seen]);
    }
    std::sort(cache.groups.begin(), cache.groups.end(),
              [](const TopologyGroup* a, const TopologyGroup* b) { return a->id < b->id; });
  }
  out.inverse = cache.groups;
  return out;
}

absl::Status Topology::AddRequirements(const Pod& pod, const PodGroups& groups,
                                       const std::vector<Taint>& taints,
                                       const Requirements& strict_pod_reqs,
                                       const Requirements& node_reqs,
                                       std::vector<Requirement>* narrowing, bool explain) const {
  auto apply = [&](const TopologyGroup& g) -> absl::Status {
    const Requirement* pd = strict_pod_reqs.Find(g.key);
    const Requirement* nd = node_reqs.Find(g.key);
    // The requirements themselves when present (no copy per group and pod), else Exists.
    std::optional<Requirement> pod_exists;
    std::optional<Requirement> node_exists;
    const Requirement& pod_domains = pd ? *pd : ExistsOf(g.key, pod_exists);
    const Requirement& node_domains = nd ? *nd : ExistsOf(g.key, node_exists);
    // A node with a single hostname: Next is that hostname (which narrows nothing, the node
    // requiring it already) or nothing, known without building it.
    const std::optional<bool> single = g.NextOnSingleDomain(pod, pod_domains, node_domains);
    if (single && *single) return absl::OkStatus();
    Requirement domains =
        single ? Requirement::DoesNotExist(g.key) : g.Next(pod, pod_domains, node_domains);
    if (domains.Len() == 0) {
      if (!explain) return absl::FailedPreconditionError("unsatisfiable topology constraint");
      return absl::FailedPreconditionError(internal::StrCat(
          "unsatisfiable topology constraint for ", TypeName(g.type), ", key=", g.key,
          " (counts = ", g.CountsString(), ", podDomains = ", DomainsString(pod_domains),
          ", nodeDomains = ", DomainsString(node_domains)));
    }
    // Skip a requirement that would not narrow the node (e.g. its own hostname again).
    if (nd == nullptr || !(SameUnbounded(*nd, domains) || IntersectionKeeps(*nd, domains))) {
      narrowing->push_back(std::move(domains));
    }
    return absl::OkStatus();
  };
  for (const TopologyGroup* g : groups.owned) {
    if (absl::Status s = apply(*g); !s.ok()) return s;
  }
  for (const TopologyGroup* g : groups.inverse) {
    if (!g->filter.Matches(node_reqs, taints)) continue;
    if (absl::Status s = apply(*g); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void Topology::HostnameChecks(const Pod& pod, const PodGroups& groups,
                              std::vector<HostnameCheck>* out) const {
  out->clear();
  for (const TopologyGroup* g : groups.owned) {
    if (g->key != kLabelHostname) continue;
    if (g->type == TopologyType::kAntiAffinity) {
      out->push_back({g, 0});
    } else if (g->type == TopologyType::kSpread) {
      out->push_back({g, g->max_skew - (g->Selects(pod) ? 1 : 0)});
    }
  }
  for (const TopologyGroup* g : groups.inverse) {
    if (g->key == kLabelHostname && g->filter.terms.empty() && !g->filter.honor_taints) {
      out->push_back({g, 0});
    }
  }
}

void Topology::PinnedZoneChecks(const Pod& pod, const PodGroups& groups,
                                const Requirements& strict_pod_reqs,
                                std::vector<std::vector<std::string>>* lists) const {
  // The next list to fill: an existing one, cleared (its capacity kept), or a new one.
  size_t used = 0;
  auto next = [&]() -> std::vector<std::string>& {
    if (used == lists->size()) lists->emplace_back();
    std::vector<std::string>& l = (*lists)[used++];
    l.clear();
    return l;
  };
  const Requirement* pd = strict_pod_reqs.Find(kLabelZone);
  std::optional<Requirement> exists;
  const Requirement& pod_domains = pd ? *pd : ExistsOf(kLabelZone, exists);
  auto anti = [&](const TopologyGroup& g) {
    std::vector<std::string>& allowed = next();
    g.ForEachDomain([&](const std::string& d, int32_t count) {
      if (count == 0 && pod_domains.Has(d)) allowed.push_back(d);
      return true;
    });
  };
  for (const TopologyGroup* g : groups.owned) {
    if (g->key != kLabelZone) continue;
    if (g->type == TopologyType::kSpread) {
      const int64_t min = g->DomainMinCount(pod_domains);
      const int64_t self = g->Selects(pod) ? 1 : 0;
      std::vector<std::string>& allowed = next();
      g->ForEachDomain([&](const std::string& d, int32_t count) {
        if (count + self - min <= g->max_skew) allowed.push_back(d);
        return true;
      });
    } else if (g->type == TopologyType::kAffinity) {
      const bool self = g->Selects(pod);
      const bool none_anywhere = !g->AnyCounted();
      if (self && (none_anywhere || !g->AnyCompatiblePodDomain(pod_domains))) continue;
      std::vector<std::string>& allowed = next();
      for (const auto& [d, count] : g->counts) {  // positive counts are the group's own
        if (count > 0 && pod_domains.Has(d)) allowed.push_back(d);
      }
    } else {
      anti(*g);
    }
  }
  for (const TopologyGroup* g : groups.inverse) {
    if (g->key == kLabelZone && g->filter.terms.empty() && !g->filter.honor_taints) anti(*g);
  }
  lists->resize(used);
}

void Topology::RegisterClaimSlot(const std::string& hostname, int slot) {
  registry_.SetSlot(hostname, slot);
}

void Topology::Record(const Pod& pod, const std::vector<Taint>& taints,
                      const Requirements& node_reqs) {
  for (TopologyGroup* g : group_list_) {
    if (!g->Counts(pod, node_reqs, taints)) continue;
    const Requirement* r = node_reqs.Find(g->key);
    if (r == nullptr) continue;  // Exists: no values to record
    if (g->type == TopologyType::kAntiAffinity) {
      for (const std::string& d : r->values()) g->Record(d);
    } else if (r->Len() == 1) {
      g->Record(r->values()[0]);
    }
  }
  const std::string key = pod.Key();
  for (TopologyGroup* g : inverse_list_) {
    if (g->owners.count(key) == 0) continue;
    const Requirement* r = node_reqs.Find(g->key);
    if (r == nullptr) continue;
    for (const std::string& d : r->values()) g->Record(d);
  }
}

void Topology::Record(const Pod& pod, const std::string& key, const std::vector<Taint>& taints,
                      const Requirements& node_reqs, RecordCache* by_labels, RecordCache* by_pod,
                      const std::string* claim_hostname, int32_t claim_slot) {
  auto record = [&](TopologyGroup& g, const std::string& d) {
    if (claim_hostname != nullptr && g.key == kLabelHostname && d == *claim_hostname) {
      g.RecordClaimSlot(d, claim_slot);
    } else {
      g.Record(d);
    }
  };
  if (group_list_.size() - by_labels->groups_seen >= kIndexedScanMin) {
    // Many groups to test (a new label class): only those the index says may select the pod.
    group_selectors_.Extend(group_list_);
    for (uint32_t i : group_selectors_.Candidates(pod.metadata.labels, by_labels->groups_seen)) {
      if (group_list_[i]->Selects(pod)) by_labels->selecting.push_back(group_list_[i]);
    }
    by_labels->groups_seen = group_list_.size();
  }
  for (; by_labels->groups_seen < group_list_.size(); ++by_labels->groups_seen) {
    TopologyGroup* g = group_list_[by_labels->groups_seen];
    if (g->Selects(pod)) by_labels->selecting.push_back(g);
  }
  // The inverse groups this pod owns, from its own list (not a scan of every inverse group).
  if (auto mine = inverse_owned_by_pod_.find(key); mine != inverse_owned_by_pod_.end()) {
    for (; by_pod->inverse_seen < mine->second.size(); ++by_pod->inverse_seen) {
      by_pod->owned_inverse.push_back(mine->second[by_pod->inverse_seen]);
    }
  }
  // As Record(pod, taints, node_reqs); the order of groups does not matter (counts only).
  for (TopologyGroup* g : by_labels->selecting) {
    if (!g->filter.Matches(node_reqs, taints)) continue;
    const Requirement* r = node_reqs.Find(g->key);
    if (r == nullptr) continue;
    if (g->type == TopologyType::kAntiAffinity) {
      for (const std::string& d : r->values()) record(*g, d);
    } else if (r->Len() == 1) {
      record(*g, r->values()[0]);
    }
  }
  for (TopologyGroup* g : by_pod->owned_inverse) {
    const Requirement* r = node_reqs.Find(g->key);
    if (r == nullptr) continue;
    for (const std::string& d : r->values()) record(*g, d);
  }
}

void Topology::RegisterHostname(const std::string& hostname) {
  registry_.Register(hostname);  // every hostname group sees it from now on
}

}  // namespace karp::scheduling
