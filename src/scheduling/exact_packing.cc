// Exact packing of small groups (exact_packing.h, docs/design.md §13.3).

#include "scheduling/exact_packing.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "karp/labels.h"
#include "scheduling/cost_packing.h"
#include "scheduling/instance_filter.h"
#include "scheduling/local_moves.h"

namespace karp::scheduling {
namespace {

constexpr double kInfinite = std::numeric_limits<double>::infinity();
// The largest solve whose re-pack moves pods between nodes (PlanRepack).
constexpr size_t kMaxMovePods = 10000;

using Mask = std::vector<uint64_t>;

bool Test(const Mask& m, size_t i) { return ((m[i / 64] >> (i % 64)) & 1u) != 0; }
void SetBit(Mask& m, size_t i) { m[i / 64] |= uint64_t{1} << (i % 64); }

// One way to build a node of the group: an instance type of the template at the group's
// capacity type.
struct Kind {
  int type = -1;
  int rank = kNoRank;
  double price = kInfinite;
  std::vector<int64_t> cap;  // per resource of the group
};

struct Item {
  size_t pod = 0;             // index into the pods vector
  std::vector<int64_t> need;  // per resource of the group
  Mask kinds;                 // the kinds the pod may use
};

// True when the abstract model captures every constraint of the pod (exact_packing.h).
bool Modelled(const PodData& p) {
  const Pod& w = p.working();
  if (p.volumes != nullptr || p.requirements.HasMinValues()) return false;
  if (!w.pod_affinity.required.empty() || !w.pod_affinity.preferred.empty()) return false;
  for (const PodAffinityTerm& t : w.pod_anti_affinity.required) {
    if (t.topology_key != kLabelHostname || t.namespace_selector) return false;
  }
  for (const WeightedPodAffinityTerm& t : w.pod_anti_affinity.preferred) {
    if (t.term.topology_key != kLabelHostname || t.term.namespace_selector) return false;
  }
  for (const TopologySpreadConstraint& c : w.topology_spread_constraints) {
    if (c.topology_key == kLabelHostname) return false;
  }
  return true;
}

// `term` of `owner` selects `other` (hostname anti-affinity terms only reach here).
bool Selects(const Pod& owner, const PodAffinityTerm& term, const Pod& other) {
  if (!term.label_selector || !term.label_selector->Matches(other.metadata.labels)) return false;
  if (term.namespaces.empty()) return other.metadata.namespace_ == owner.metadata.namespace_;
  return std::find(term.namespaces.begin(), term.namespaces.end(), other.metadata.namespace_) !=
         term.namespaces.end();
}

bool Excludes(const PodData& a, const PodData& b) {
  for (const PodAffinityTerm& t : a.working().pod_anti_affinity.required) {
    if (Selects(a.working(), t, b.working())) return true;
  }
  for (const WeightedPodAffinityTerm& t : a.working().pod_anti_affinity.preferred) {
    if (Selects(a.working(), t.term, b.working())) return true;
  }
  return false;
}

bool Conflict(const PodData& a, const PodData& b) {
  return Excludes(a, b) || Excludes(b, a) || HostPortsConflict(a.ports, b.ports);
}

// A template's kinds, one per (type, capacity type) it offers, cheapest first (ties by type
// index, then capacity type), with their room; and the kinds each distinct pod requirement
// allows. Built once per template and shared by the groups packed on it.
struct TemplateModel {
  struct Base {
    int type = -1;
    int rank = kNoRank;
    double price = kInfinite;
    ResourceList room;  // allocatable less daemon overhead
  };
  std::vector<Base> kinds;
  std::map<std::string, Mask> masks;  // by the pod requirements' ToString()
  // The kinds with their capacity per resource, by the resources of a group (BuildModel).
  std::map<std::vector<std::string>, std::vector<Kind>> sized;
};

void BuildKinds(const Template& t, TemplateModel* model) {
  std::vector<std::tuple<double, int, int>> priced;  // price, type, rank
  for (size_t i = 0; i < t.instance_types.size(); ++i) {
    for (int rank = kRankSpot; rank < kNoRank; ++rank) {  // reservations: not modelled
      double price = kInfinite;
      for (const Offering& o : t.instance_types[i]->offerings) {
        if (o.available && o.capacity_type == kRankNames[rank] &&
            OfferingCompatible(t.requirements, o)) {
          price = std::min(price, o.price);
        }
      }
      if (price < kInfinite) priced.emplace_back(price, static_cast<int>(i), rank);
    }
  }
  std::sort(priced.begin(), priced.end());
  for (const auto& [price, i, rank] : priced) {
    TemplateModel::Base k{i, rank, price, t.allocatable[static_cast<size_t>(i)]};
    k.room.Subtract(
        t.daemon_groups[static_cast<size_t>(t.daemon_group[static_cast<size_t>(i)])].overhead);
    model->kinds.push_back(std::move(k));
  }
}

// The kinds a pod with requirements `reqs` may use.
const Mask& KindsAllowed(const Template& t, const Requirements& reqs, TemplateModel* model) {
  auto [pos, inserted] = model->masks.emplace(reqs.ToString(), Mask());
  if (!inserted) return pos->second;
  Mask& mask = pos->second;
  mask.assign((model->kinds.size() + 63) / 64, 0);
  Requirements merged = t.requirements;
  merged.Add(reqs);
  for (size_t k = 0; k < model->kinds.size(); ++k) {
    const TemplateModel::Base& kind = model->kinds[k];
    const InstanceType* it = t.instance_types[static_cast<size_t>(kind.type)];
    if (!it->requirements.DoesIntersect(merged)) continue;
    bool offered = false;
    for (const Offering& o : it->offerings) {
      offered = offered || (o.available && o.capacity_type == kRankNames[kind.rank] &&
                            OfferingCompatible(merged, o));
    }
    if (offered) SetBit(mask, k);
  }
  return mask;
}

// The group's kinds (the template's, with capacity per resource of the group; built once
// per set of resources) and each pod's item.
const std::vector<Kind>& BuildModel(const Template& t, const std::vector<PodData>& pods,
                                    const std::vector<size_t>& members, TemplateModel* model,
                                    std::vector<Item>* items) {
  std::vector<std::string> resources;
  for (size_t m : members) {
    pods[m].requests.ForEach([&](std::string_view name, int64_t) {
      if (std::find(resources.begin(), resources.end(), name) == resources.end()) {
        resources.emplace_back(name);
      }
    });
  }
  if (model->kinds.empty()) BuildKinds(t, model);
  auto [sized, inserted] = model->sized.try_emplace(resources);
  if (inserted) {
    sized->second.reserve(model->kinds.size());
    for (const TemplateModel::Base& base : model->kinds) {
      Kind& k = sized->second.emplace_back();
      k.type = base.type;
      k.rank = base.rank;
      k.price = base.price;
      k.cap.reserve(resources.size());
      for (const std::string& r : resources) k.cap.push_back(base.room.Get(r));
    }
  }
  for (size_t m : members) {
    Item item;
    item.pod = m;
    for (const std::string& r : resources) item.need.push_back(pods[m].requests.Get(r));
    item.kinds = KindsAllowed(t, pods[m].requirements, model);
    items->push_back(std::move(item));
  }
  return sized->second;
}

// Branch and bound over set partitions (items in decreasing size, each into an existing node
// or a new one), pruned by the price so far.
class Search {
 public:
  Search(const std::vector<Kind>& kinds, const std::vector<Item>& items,
         std::vector<std::vector<char>> conflicts, int64_t budget)
      : kinds_(kinds),
        items_(items),
        conflicts_(std::move(conflicts)),
        budget_(budget),
        assign_(items.size(), -1) {}

  // The best partition found (node index per item), empty when none.
  std::vector<int> Run() {
    Go(0, 0.0);
    return best_assign_;
  }
  // Its price.
  double best() const { return best_; }

 private:
  struct Node {
    std::vector<int64_t> sum;
    Mask kinds;
    double price = 0;
    std::vector<size_t> members;
  };

  double Cheapest(const Mask& allowed, const std::vector<int64_t>& sum) const {
    for (size_t k = 0; k < kinds_.size(); ++k) {
      if (!Test(allowed, k)) continue;
      bool fits = true;
      for (size_t r = 0; r < sum.size() && fits; ++r) fits = sum[r] <= kinds_[k].cap[r];
      if (fits) return kinds_[k].price;
    }
    return kInfinite;
  }

  void TryNode(size_t j, double cost, size_t b) {
    Node& node = nodes_[b];
    for (size_t m : node.members) {
      if (conflicts_[m][j]) return;
    }
    Mask allowed = node.kinds;
    bool any = false;
    for (size_t w = 0; w < allowed.size(); ++w) {
      allowed[w] &= items_[j].kinds[w];
      any = any || allowed[w] != 0;
    }
    if (!any) return;
    std::vector<int64_t> sum = node.sum;
    for (size_t r = 0; r < sum.size(); ++r) sum[r] += items_[j].need[r];
    const double price = Cheapest(allowed, sum);
    if (price == kInfinite) return;
    // The node's previous state is swapped out and back (deeper levels only append nodes
    // and remove them again, but may move `nodes_`: node b is looked up afresh).
    node.sum.swap(sum);
    node.kinds.swap(allowed);
    node.members.push_back(j);
    const double before = node.price;
    node.price = price;
    assign_[j] = static_cast<int>(b);
    Go(j + 1, cost - before + price);
    Node& restored = nodes_[b];
    restored.sum.swap(sum);
    restored.kinds.swap(allowed);
    restored.members.pop_back();
    restored.price = before;
  }

  void Go(size_t j, double cost) {
    if (++expansions_ > budget_ || cost >= best_ * (1 - 1e-12)) return;
    if (j == items_.size()) {
      best_ = cost;
      best_assign_ = assign_;
      return;
    }
    for (size_t b = 0; b < nodes_.size(); ++b) TryNode(j, cost, b);
    const double price = Cheapest(items_[j].kinds, items_[j].need);
    if (price == kInfinite) return;
    nodes_.push_back(Node{items_[j].need, items_[j].kinds, price, {j}});
    assign_[j] = static_cast<int>(nodes_.size() - 1);
    Go(j + 1, cost + price);
    nodes_.pop_back();
  }

  const std::vector<Kind>& kinds_;
  const std::vector<Item>& items_;
  std::vector<std::vector<char>> conflicts_;
  int64_t budget_;
  int64_t expansions_ = 0;
  std::vector<Node> nodes_;
  std::vector<int> assign_;
  double best_ = kInfinite;
  std::vector<int> best_assign_;
};

// Items in decreasing size: the largest share of the largest kind's capacity, then index.
void SortItems(const std::vector<Kind>& kinds, std::vector<Item>& items) {
  std::vector<int64_t> biggest(items.empty() ? 0 : items[0].need.size(), 1);
  for (const Kind& k : kinds) {
    for (size_t r = 0; r < biggest.size(); ++r) biggest[r] = std::max(biggest[r], k.cap[r]);
  }
  auto size = [&](const Item& it) {
    double s = 0;
    for (size_t r = 0; r < it.need.size(); ++r) {
      s = std::max(s, static_cast<double>(it.need[r]) / static_cast<double>(biggest[r]));
    }
    return s;
  };
  std::stable_sort(items.begin(), items.end(),
                   [&](const Item& a, const Item& b) { return size(a) > size(b); });
}

// Plans one group; returns the pods planned (0 when no partition was found). With
// `no_better_than`, plans only a partition cheaper than that and sets `*price` to its price.
int PlanGroup(const Template& t, std::vector<PodData>& pods, const std::vector<size_t>& members,
              const ExactLimits& limits, TemplateModel* model, int* next_group,
              double no_better_than = kInfinite, double* price = nullptr) {
  std::vector<Item> items;
  const std::vector<Kind>& kinds = BuildModel(t, pods, members, model, &items);
  if (kinds.empty()) return 0;
  SortItems(kinds, items);
  std::vector<std::vector<char>> conflicts(items.size(), std::vector<char>(items.size(), 0));
  for (size_t a = 0; a < items.size(); ++a) {
    for (size_t b = a + 1; b < items.size(); ++b) {
      const bool c = Conflict(pods[items[a].pod], pods[items[b].pod]);
      conflicts[a][b] = conflicts[b][a] = c;
    }
  }
  Search search(kinds, items, std::move(conflicts), limits.max_expansions);
  const std::vector<int> assign = search.Run();
  if (assign.empty() || search.best() >= no_better_than * (1 - 1e-9)) return 0;
  if (price != nullptr) *price = search.best();
  // Groups numbered by their first pod in `pods` order.
  std::map<int, size_t> first_pod;
  for (size_t j = 0; j < items.size(); ++j) {
    auto [pos, inserted] = first_pod.emplace(assign[j], items[j].pod);
    if (!inserted) pos->second = std::min(pos->second, items[j].pod);
  }
  std::vector<std::pair<size_t, int>> order;
  for (const auto& [node, pod] : first_pod) order.push_back({pod, node});
  std::sort(order.begin(), order.end());
  std::map<int, int> number;
  for (const auto& [pod, node] : order) number[node] = (*next_group)++;
  for (size_t j = 0; j < items.size(); ++j) pods[items[j].pod].plan_group = number[assign[j]];
  return static_cast<int>(items.size());
}

}  // namespace

int PlanSmallGroups(const scheduling::SchedulerState& state, std::vector<PodData>& pods,
                    const ExactLimits& limits) {
  const PoolsState& pools = *state.pools;
  // Groups by template in order of their first pod; a group with an unmodelled pod is left to
  // the heuristic.
  std::map<const Template*, size_t> group_of;
  std::vector<std::pair<const Template*, std::vector<size_t>>> groups;
  std::vector<char> spoiled;
  for (size_t i = 0; i < pods.size(); ++i) {
    const Template* t =
        pods[i].cost_template != nullptr ? pods[i].cost_template : FirstTemplate(pools, pods[i]);
    if (t == nullptr) continue;
    auto [pos, inserted] = group_of.emplace(t, groups.size());
    if (inserted) {
      groups.push_back({t, {}});
      spoiled.push_back(0);
    }
    groups[pos->second].second.push_back(i);
    if (!Modelled(pods[i])) spoiled[pos->second] = 1;
  }
  int planned = 0;
  int next_group = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& [t, members] = groups[g];
    if (spoiled[g] || members.size() > limits.max_pods) continue;
    TemplateModel model;
    planned += PlanGroup(*t, pods, members, limits, &model, &next_group);
  }
  return planned;
}

namespace {

// The pods of each new claim of `result` (indexes into `pods`), with the claim's template
// (null: no known template) and whether the exact model captures every pod of it.
struct ClaimPods {
  const Template* claim_template = nullptr;
  bool modelled = true;
  double price = 0;
  std::string zone;  // the zone the claim's requirements pin, "" when none
  std::vector<size_t> members;
  // The template of the claim's exact windows: null for claims the windows keep as they are.
  const Template* window() const { return modelled ? claim_template : nullptr; }
};

// The zone `reqs` allow when they allow exactly one, else "".
std::string PinnedZone(const Requirements& reqs) {
  const Requirement* zone = reqs.Find(kLabelZone);
  if (zone == nullptr || zone->complement() || zone->values().size() != 1) return "";
  return zone->values().front();
}

std::vector<ClaimPods> ClaimsOf(const PoolsState& pools, const std::vector<PodData>& pods,
                                const SolveResult& result) {
  std::map<std::string_view, size_t> by_key;
  for (size_t i = 0; i < pods.size(); ++i) by_key.emplace(pods[i].key, i);
  std::map<std::string_view, const Template*> by_pool;  // a NodePool's first template
  for (const Template& t : pools.templates) by_pool.emplace(t.pool->name(), &t);
  std::vector<ClaimPods> claims;
  for (const NewNodeClaim& nc : result.node_claims) {
    ClaimPods& c = claims.emplace_back();
    auto t = by_pool.find(nc.node_pool);
    c.claim_template = t == by_pool.end() || !nc.launch ? nullptr : t->second;
    c.price = nc.launch ? nc.launch->price : 0;
    c.zone = PinnedZone(nc.requirements);
    for (const std::string& key : nc.pods) {
      auto p = by_key.find(key);
      if (p == by_key.end()) {
        c.claim_template = nullptr;
        continue;
      }
      c.modelled = c.modelled && Modelled(pods[p->second]);
      c.members.push_back(p->second);
    }
  }
  return claims;
}

// A term of some pod of the packing that selects other pods by label: pod affinity (which
// pins the pods it selects: moving one could strand its owner), or a zonal term (topology
// spread or anti-affinity over zones: moving a pod it selects across zones changes its counts).
struct SelectingTerm {
  const LabelSelector* selector = nullptr;
  const Pod* owner = nullptr;
  const std::vector<std::string>* namespaces = nullptr;  // null: the owner's namespace only
  bool affinity = false;

  bool Selects(const Pod& other) const {
    if (selector == nullptr || !selector->Matches(other.metadata.labels)) return false;
    if (namespaces == nullptr || namespaces->empty()) {
      return other.metadata.namespace_ == owner->metadata.namespace_;
    }
    return std::find(namespaces->begin(), namespaces->end(), other.metadata.namespace_) !=
           namespaces->end();
  }
  bool Same(const SelectingTerm& o) const {
    return *selector == *o.selector && affinity == o.affinity &&
           owner->metadata.namespace_ == o.owner->metadata.namespace_ &&
           (namespaces == nullptr) == (o.namespaces == nullptr) &&
           (namespaces == nullptr || *namespaces == *o.namespaces);
  }
};

// What the moves must respect beyond the exact model (local_moves.h): which pods stay where
// they are, and which may change zones only with the claim they sit on.
struct MoveRules {
  std::vector<SelectingTerm> terms;  // distinct

  void Add(SelectingTerm t) {
    if (t.selector == nullptr) return;
    for (const SelectingTerm& o : terms) {
      if (o.Same(t)) return;
    }
    terms.push_back(t);
  }
  void AddPod(const Pod& w) {
    auto add_term = [&](const PodAffinityTerm& t, bool affinity) {
      if (affinity || t.topology_key != kLabelHostname) {
        Add({t.label_selector ? &*t.label_selector : nullptr, &w, &t.namespaces, affinity});
      }
    };
    for (const PodAffinityTerm& t : w.pod_affinity.required) add_term(t, true);
    for (const WeightedPodAffinityTerm& t : w.pod_affinity.preferred) add_term(t.term, true);
    for (const PodAffinityTerm& t : w.pod_anti_affinity.required) add_term(t, false);
    for (const WeightedPodAffinityTerm& t : w.pod_anti_affinity.preferred) add_term(t.term, false);
    for (const TopologySpreadConstraint& c : w.topology_spread_constraints) {
      if (c.topology_key != kLabelHostname && c.label_selector) {
        Add({&*c.label_selector, &w, nullptr, false});
      }
    }
  }
  // A pod some pod affinity selects stays where it is.
  bool Pinned(const Pod& p) const {
    for (const SelectingTerm& t : terms) {
      if (t.affinity && t.Selects(p)) return true;
    }
    return false;
  }
  // A pod that narrows its claim to one zone when it joins it: zonal terms of its own (spread,
  // affinity or anti-affinity over zones) or a zone among its requirements.
  static bool Pins(const PodData& p) {
    if (p.requirements.Has(kLabelZone)) return true;
    const Pod& w = p.working();
    for (const TopologySpreadConstraint& c : w.topology_spread_constraints) {
      if (c.topology_key != kLabelHostname) return true;
    }
    for (const PodAffinityTerm& t : w.pod_anti_affinity.required) {
      if (t.topology_key != kLabelHostname) return true;
    }
    for (const WeightedPodAffinityTerm& t : w.pod_anti_affinity.preferred) {
      if (t.term.topology_key != kLabelHostname) return true;
    }
    for (const PodAffinityTerm& t : w.pod_affinity.required) {
      if (t.topology_key != kLabelHostname) return true;
    }
    for (const WeightedPodAffinityTerm& t : w.pod_affinity.preferred) {
      if (t.term.topology_key != kLabelHostname) return true;
    }
    return false;
  }
  // A pod whose zone matters: it pins its claim, or a zonal term counts it.
  bool Zonal(const PodData& p) const {
    if (Pins(p)) return true;
    for (const SelectingTerm& t : terms) {
      if (!t.affinity && t.Selects(p.working())) return true;
    }
    return false;
  }
};

// `a` spreads over hostnames pods that `b` is one of: conservatively, they never share a node
// (with new nodes always possible the least count is 0, so a skew of 1 allows none).
bool SpreadExcludes(const Pod& a, const Pod& b) {
  for (const TopologySpreadConstraint& c : a.topology_spread_constraints) {
    if (c.topology_key == kLabelHostname && c.label_selector &&
        c.label_selector->Matches(b.metadata.labels)) {
      return true;
    }
  }
  return false;
}

// One node of a plan: a window's exact node or a kept claim.
struct PlanNode {
  const Template* claim_template = nullptr;  // null: kept as it is
  std::string zone;                          // the zone a kept claim is pinned to, "" when none
  std::vector<size_t> members;               // indexes into the pods
};

// Pods that may exclude others from their node (anti-affinity, host ports, hostname spread):
// a pair of pods neither of which has any cannot conflict.
bool HasExclusions(const PodData& p) {
  const Pod& w = p.working();
  if (!p.ports.empty() || !w.pod_anti_affinity.required.empty() ||
      !w.pod_anti_affinity.preferred.empty()) {
    return true;
  }
  for (const TopologySpreadConstraint& c : w.topology_spread_constraints) {
    if (c.topology_key == kLabelHostname) return true;
  }
  return false;
}

// The zonal rules of the moves over the nodes of one template. Zonal topology counts a pod
// only on a claim already narrowed to one zone (karpenter Topology.Record), so a pod whose
// zone matters (MoveRules::Zonal) moves only between nodes where the replay counts it alike:
// in the same zone, both narrowed before its turn, or neither. A node's "pin" is the queue
// position of the first pod that narrows it (-1: narrowed from the start by its NodePool or
// requirements; never when unpinned); that first pod chose the zone and stays, and no move
// changes a pin (a narrowing pod moves only between nodes already narrowed before it).
struct ZoneRules {
  std::vector<int64_t> pin;   // per node
  std::vector<char> zonal;    // per item
  std::vector<char> counted;  // per item: narrowed before its turn where it is now

  // Sets model.node_groups (the zone of a pinned node), each item's group and movability.
  void Build(const std::vector<PodData>& pods, const std::vector<size_t>& item_pod,
             const std::vector<PlanNode>& nodes, const std::vector<size_t>& of_t,
             const MoveRules& rules, const std::vector<int64_t>& position, MoveModel* model) {
    std::map<std::string, int> zone_ids;
    for (size_t n = 0; n < of_t.size(); ++n) {
      const PlanNode& node = nodes[of_t[n]];
      int64_t first = std::numeric_limits<int64_t>::max();
      for (size_t m : node.members) {
        if (MoveRules::Pins(pods[m])) first = std::min(first, position[m]);
      }
      if (first == std::numeric_limits<int64_t>::max() && !node.zone.empty()) first = -1;
      pin.push_back(first);
      int zone = -1;
      if (!node.zone.empty()) {
        zone = zone_ids.emplace(node.zone, static_cast<int>(zone_ids.size())).first->second;
      }
      model->node_groups.push_back(zone);
      for (size_t i : model->nodes[n]) {
        const PodData& p = pods[item_pod[i]];
        MoveModel::Item& item = model->items[i];
        zonal.push_back(rules.Zonal(p));
        counted.push_back(first < position[item_pod[i]]);
        // The node's first narrowing pod chose the zone: it stays.
        if (first == position[item_pod[i]]) item.movable = false;
        if (!zonal[i] || !counted[i]) continue;
        item.group = zone;
        if (zone < 0) item.movable = false;  // a window's new node: its zone is not known yet
      }
    }
  }
  bool MayEnter(size_t item, size_t node, int64_t position) const {
    return !zonal[item] || (pin[node] < position) == static_cast<bool>(counted[item]);
  }
};

// The moves of local_moves.h over the nodes of template `t` (indexes into `nodes`); returns
// the price they save in the model. `position`: each pod's place in the queue (by index).
double MoveWithin(const Template& t, std::vector<PodData>& pods, const std::vector<size_t>& of_t,
                  const MoveRules& rules, const std::vector<int64_t>& position,
                  TemplateModel* tmodel, std::vector<PlanNode>& nodes) {
  std::vector<size_t> members;
  for (size_t n : of_t) {
    members.insert(members.end(), nodes[n].members.begin(), nodes[n].members.end());
  }
  std::vector<Item> items;
  const std::vector<Kind>& kinds = BuildModel(t, pods, members, tmodel, &items);
  MoveModel model;
  for (const Kind& k : kinds) model.kinds.push_back({k.price, k.cap});
  std::vector<size_t> item_pod;
  std::vector<char> excludes;
  for (const Item& it : items) {
    const PodData& p = pods[it.pod];
    model.items.push_back({it.need, it.kinds, Modelled(p) && !rules.Pinned(p.working())});
    item_pod.push_back(it.pod);
    excludes.push_back(HasExclusions(p));
  }
  size_t next = 0;  // items are numbered in node order
  for (size_t n = 0; n < of_t.size(); ++n) {
    std::vector<size_t>& local = model.nodes.emplace_back();
    for (size_t k = 0; k < nodes[of_t[n]].members.size(); ++k) local.push_back(next++);
  }
  ZoneRules zones;
  zones.Build(pods, item_pod, nodes, of_t, rules, position, &model);
  model.conflict = [&](size_t a, size_t b) {
    if (!excludes[a] && !excludes[b]) return false;
    const PodData& pa = pods[item_pod[a]];
    const PodData& pb = pods[item_pod[b]];
    return Conflict(pa, pb) || SpreadExcludes(pa.working(), pb.working()) ||
           SpreadExcludes(pb.working(), pa.working());
  };
  model.may_enter = [&](size_t item, size_t n) {
    return zones.MayEnter(item, n, position[item_pod[item]]);
  };
  MoveLimits limits;
  limits.max_checks = 400 * static_cast<int64_t>(items.size()) + 100000;
  const double saved = ImproveByMoves(model, limits);
  for (size_t n = 0; n < of_t.size(); ++n) {
    std::vector<size_t>& out = nodes[of_t[n]].members;
    out.clear();
    for (size_t i : model.nodes[n]) out.push_back(item_pod[i]);
  }
  return saved;
}

// Each pod's place in the queue, as the Solver orders it (docs/design.md §5.5: cpu and memory
// descending, then creation, uid and key); the strategies' partitions (exclusive pods first,
// pinned dear pods last) are not modelled.
std::vector<int64_t> QueuePositions(const std::vector<PodData>& pods) {
  std::vector<size_t> order(pods.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const PodData& x = pods[a];
    const PodData& y = pods[b];
    if (x.requests.cpu() != y.requests.cpu()) return x.requests.cpu() > y.requests.cpu();
    if (x.requests.memory() != y.requests.memory()) {
      return x.requests.memory() > y.requests.memory();
    }
    const ObjectMeta& mx = x.original->metadata;
    const ObjectMeta& my = y.original->metadata;
    if (mx.creation_timestamp != my.creation_timestamp) {
      return mx.creation_timestamp < my.creation_timestamp;
    }
    if (mx.uid != my.uid) return mx.uid < my.uid;
    return x.key < y.key;
  });
  std::vector<int64_t> position(pods.size());
  for (size_t k = 0; k < order.size(); ++k) position[order[k]] = static_cast<int64_t>(k);
  return position;
}

// Moves pods between the plan's nodes, template by template; returns the price saved.
double MoveBetweenNodes(std::vector<PodData>& pods, std::vector<PlanNode>& nodes,
                        std::map<const Template*, TemplateModel>& models) {
  MoveRules rules;
  for (const PlanNode& n : nodes) {
    for (size_t m : n.members) rules.AddPod(pods[m].working());
  }
  std::vector<const Template*> templates;  // in order of their first node
  std::map<const Template*, std::vector<size_t>> of;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].claim_template == nullptr) continue;
    auto [pos, inserted] = of.try_emplace(nodes[n].claim_template);
    if (inserted) templates.push_back(nodes[n].claim_template);
    pos->second.push_back(n);
  }
  const std::vector<int64_t> position = QueuePositions(pods);
  double saved = 0;
  for (const Template* t : templates) {
    saved += MoveWithin(*t, pods, of[t], rules, position, &models[t], nodes);
  }
  return saved;
}

}  // namespace

double PlanRepack(const scheduling::SchedulerState& state, std::vector<PodData>& pods,
                  const SolveResult& result, const ExactLimits& limits, int round) {
  const std::vector<ClaimPods> claims = ClaimsOf(*state.pools, pods, result);
  // Windows: consecutive claims (by template, then creation order) of at most max_pods pods.
  std::vector<size_t> order(claims.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (claims[a].window() != claims[b].window()) {
      return std::less<const Template*>()(claims[a].window(), claims[b].window());
    }
    if (round == 1) return claims[a].price < claims[b].price;
    if (round == 2) return claims[a].price > claims[b].price;
    return false;
  });
  int next_group = 0;
  double saved = 0;
  std::vector<char> replanned(claims.size(), 0);
  std::map<const Template*, TemplateModel> models;
  for (size_t w = 0; w < order.size();) {
    const ClaimPods& first = claims[order[w]];
    size_t end = w;
    std::vector<size_t> members;
    double price = 0;
    while (end < order.size() && claims[order[end]].window() == first.window() &&
           first.window() != nullptr &&
           members.size() + claims[order[end]].members.size() <= limits.max_pods) {
      const ClaimPods& c = claims[order[end]];
      members.insert(members.end(), c.members.begin(), c.members.end());
      price += c.price;
      ++end;
    }
    if (end == w) {  // an unmodelled or too large claim: kept as it is
      ++w;
      continue;
    }
    double planned_price = 0;
    if (PlanGroup(*first.claim_template, pods, members, limits, &models[first.claim_template],
                  &next_group, price, &planned_price) > 0) {
      saved += price - planned_price;
      for (size_t k = w; k < end; ++k) replanned[order[k]] = 1;
    }
    w = end;
  }
  // The plan's nodes: the windows' exact nodes (by group number), then every kept claim.
  std::vector<PlanNode> nodes(static_cast<size_t>(next_group));
  for (size_t c = 0; c < claims.size(); ++c) {
    if (!replanned[c]) continue;
    for (size_t m : claims[c].members) {
      PlanNode& n = nodes[static_cast<size_t>(pods[m].plan_group)];
      n.claim_template = claims[c].claim_template;
      n.members.push_back(m);
    }
  }
  for (size_t c = 0; c < claims.size(); ++c) {
    if (!replanned[c])
      nodes.push_back({claims[c].claim_template, claims[c].zone, claims[c].members});
  }
  // The moves do not depend on the window order: the first round makes them. Their plan
  // costs one more solve (its replay): like the candidates' budget, they stop at
  // kMaxMovePods pods.
  if (limits.moves && round == 0 && pods.size() <= kMaxMovePods) {
    saved += MoveBetweenNodes(pods, nodes, models);
  }
  if (saved <= 0) return 0;
  int group = 0;
  for (const PlanNode& n : nodes) {
    if (n.members.empty()) continue;
    for (size_t m : n.members) pods[m].plan_group = group;
    ++group;
  }
  return saved;
}

}  // namespace karp::scheduling
