// Preparation of a Scheduler (docs/design.md §5): the NodePool-level state (eligible NodePools,
// NodeClaim templates with prefiltered instance types, offering and key-class indexes, daemon
// groups, the topology domain universe) and the cluster-level state (snapshot indexes,
// existing nodes and in-flight NodeClaims, NodePool limits). The NodePool template and daemon
// helpers it shares with the price lower bound are in src/model/node_pool_templates.h.

#include "scheduling/prepare.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "internal/namespace.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "model/node_pool_templates.h"
#include "scheduling/prepared_pods.h"

namespace karp::scheduling {

std::shared_ptr<const InstanceCatalog> PoolCatalogs::Of(const std::string& pool) const {
  if (shared) return shared;
  auto it = by_node_pool.find(pool);
  return it == by_node_pool.end() ? nullptr : it->second;
}

std::shared_ptr<const InstanceCatalog> PoolCatalogs::ForNodeOf(const std::string& pool) const {
  std::shared_ptr<const InstanceCatalog> c = Of(pool);
  if (!c && !by_node_pool.empty()) c = by_node_pool.begin()->second;
  return c;
}

const InstanceCatalog& PoolCatalogs::TypesOf(const std::string& pool) const {
  if (shared) return *shared;
  auto it = by_node_pool.find(pool);
  if (it != by_node_pool.end()) return *it->second;
  if (!by_node_pool.empty()) return *by_node_pool.begin()->second;
  static const InstanceCatalog* const kEmpty = new InstanceCatalog();
  return *kEmpty;
}

namespace {

// ---------------------------------------------------------------------------------------------
// NodePool-level state

// Eligible NodePools by weight desc, then name desc (the order of new-claim attempts).
std::vector<const NodePool*> PoolsByWeight(const ClusterSnapshot& snapshot) {
  std::vector<const NodePool*> pools = EligibleNodePools(snapshot);
  std::sort(pools.begin(), pools.end(), [](const NodePool* a, const NodePool* b) {
    const int32_t wa = a->weight.value_or(0), wb = b->weight.value_or(0);
    if (wa != wb) return wa > wb;
    return a->name() > b->name();
  });
  return pools;
}

// The catalog's types that intersect the template's requirements, have a compatible offering
// and a non-negative allocatable.
void PrefilterTypes(const InstanceCatalog& catalog, Template& t) {
  for (const InstanceType& it : catalog.instance_types()) {
    if (!it.requirements.DoesIntersect(t.requirements)) continue;
    if (!it.HasCompatibleOffering(t.requirements)) continue;
    ResourceList alloc = it.Allocatable();
    if (alloc.AnyNegative()) continue;
    t.instance_types.push_back(&it);
    t.allocatable.push_back(std::move(alloc));
  }
}

// The template's distinct (zone, capacity type) offering pairs and each offering's pair.
void IndexOfferings(Template& t) {
  std::map<std::pair<std::string, std::string>, int> key_index;
  for (const InstanceType* it : t.instance_types) {
    std::vector<int> keys;
    for (const Offering& o : it->offerings) {
      auto [pos, inserted] = key_index.emplace(std::make_pair(o.zone, o.capacity_type),
                                               static_cast<int>(t.offering_keys.size()));
      if (inserted) t.offering_keys.emplace_back(o.zone, o.capacity_type);
      keys.push_back(pos->second);
    }
    t.offering_key_of.push_back(std::move(keys));
  }
  if (t.offering_keys.size() > 64) return;
  for (size_t i = 0; i < t.instance_types.size(); ++i) {
    uint64_t bits = 0;
    const std::vector<int>& keys = t.offering_key_of[i];
    for (size_t o = 0; o < keys.size(); ++o) {
      if (t.instance_types[i]->offerings[o].available) bits |= uint64_t{1} << keys[o];
    }
    t.available_offering_bits.push_back(bits);
  }
}

// Per label key, the classes of equal type requirements (Template::key_classes).
void IndexKeyClasses(Template& t) {
  std::map<std::string, std::map<std::string, int>> class_ids;  // key -> serialized -> class
  for (size_t i = 0; i < t.instance_types.size(); ++i) {
    for (const Requirement& r : t.instance_types[i]->requirements) {
      Template::KeyClasses& kc = t.key_classes[r.key()];
      if (kc.class_of.empty()) kc.class_of.assign(t.instance_types.size(), -1);
      std::string id = internal::StrCat(
          r.complement() ? "!" : "=", absl::StrJoin(r.values(), "\x1f"), "|",
          r.gte() ? std::to_string(*r.gte()) : "", "|", r.lte() ? std::to_string(*r.lte()) : "",
          "|", r.min_values() ? std::to_string(*r.min_values()) : "");
      auto [pos, inserted] =
          class_ids[r.key()].emplace(std::move(id), static_cast<int>(kc.representative.size()));
      if (inserted) kc.representative.push_back(&r);
      kc.class_of[i] = pos->second;
    }
  }
  const size_t words = (t.instance_types.size() + 63) / 64;
  for (auto& [key, kc] : t.key_classes) {
    kc.members.assign(kc.representative.size(), std::vector<uint64_t>(words, 0));
    for (size_t i = 0; i < kc.class_of.size(); ++i) {
      if (kc.class_of[i] >= 0) {
        SetTypeBit(kc.members[static_cast<size_t>(kc.class_of[i])], i);
      }
    }
  }
}

// The template of `np` (without daemon groups), or nullopt when the NodePool has no usable
// instance types or (Strict) cannot meet its minValues.
absl::StatusOr<std::optional<Template>> MakeTemplate(const NodePool& np,
                                                     std::shared_ptr<const InstanceCatalog> catalog,
                                                     const SchedulerOptions& options) {
  Template t;
  t.pool = &np;
  t.catalog = catalog;
  t.taints = np.taints;
  absl::StatusOr<Requirements> reqs = TemplateRequirements(np);
  if (!reqs.ok()) return reqs.status();
  t.requirements = std::move(*reqs);
  PrefilterTypes(*catalog, t);
  if (t.instance_types.empty()) return std::nullopt;
  IndexOfferings(t);
  IndexKeyClasses(t);
  if (t.requirements.HasMinValues()) {
    absl::StatusOr<size_t> mv = SatisfiesMinValues(t.instance_types, t.requirements);
    if (!mv.ok()) {
      if (options.min_values_policy == MinValuesPolicy::kStrict) return std::nullopt;
      t.min_values_relaxed = true;  // lowered per claim by the filter
    }
  }
  return std::optional<Template>(std::move(t));
}

// Daemon overhead groups of a template, keyed by the exact set of compatible daemon pods.
void AddDaemonGroups(const std::vector<Pod>& daemon_pods, const LabelSet& well_known, Template& t) {
  std::map<std::vector<bool>, int> groups;
  for (const InstanceType* it : t.instance_types) {
    std::vector<bool> set =
        CompatibleDaemons(daemon_pods, t.requirements, t.taints, it, well_known);
    auto [pos, inserted] = groups.emplace(set, static_cast<int>(t.daemon_groups.size()));
    if (inserted) {
      DaemonGroup g;
      for (size_t d = 0; d < daemon_pods.size(); ++d) {
        if (!set[d]) continue;
        g.overhead.Add(daemon_pods[d].Requests());
        std::vector<ContainerPort> ports = HostPorts(daemon_pods[d]);
        g.ports.insert(g.ports.end(), ports.begin(), ports.end());
      }
      t.daemon_groups.push_back(std::move(g));
    }
    t.daemon_group.push_back(pos->second);
    const ResourceList& alloc = t.allocatable[t.headroom.size()];
    const ResourceList& overhead = t.daemon_groups[static_cast<size_t>(pos->second)].overhead;
    if (overhead.HasExtended()) t.overhead_has_extended = true;
    t.headroom_wk.push_back({alloc.cpu() - overhead.cpu(), alloc.memory() - overhead.memory(),
                             alloc.ephemeral_storage() - overhead.ephemeral_storage(),
                             alloc.pods() - overhead.pods()});
    ResourceList room = alloc;
    room.Subtract(overhead);
    t.max_headroom.MaxWith(room);
    t.headroom.push_back(std::move(room));
  }
}

// Template::headroom_rows, daemon_group_types and offering_pair_types, from headroom_wk,
// daemon_group and available_offering_bits. Skipped (left empty) when the rows of one
// resource would exceed kMaxRowWords words: a catalog of thousands of types with distinct
// headrooms.
void IndexHeadroomBits(Template& t) {
  constexpr size_t kMaxRowWords = size_t{1} << 16;
  const size_t n = t.headroom_wk.size();
  const size_t words = (n + 63) / 64;
  std::array<Template::HeadroomRows, 4> rows;
  for (size_t k = 0; k < 4; ++k) {
    std::vector<int64_t>& values = rows[k].values;
    for (const std::array<int64_t, 4>& h : t.headroom_wk) values.push_back(h[k]);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (values.size() * words > kMaxRowWords) return;
    // Row j: the types whose headroom is at least values[j]; built from the top row down.
    std::vector<uint64_t>& at_least = rows[k].at_least;
    at_least.assign(values.size() * words, 0);
    std::vector<std::vector<size_t>> at_value(values.size());
    for (size_t i = 0; i < n; ++i) {
      const size_t j = static_cast<size_t>(
          std::lower_bound(values.begin(), values.end(), t.headroom_wk[i][k]) - values.begin());
      at_value[j].push_back(i);
    }
    for (size_t j = values.size(); j-- > 0;) {
      uint64_t* row = &at_least[j * words];
      if (j + 1 < values.size()) std::copy_n(&at_least[(j + 1) * words], words, row);
      for (size_t i : at_value[j]) row[i / 64] |= uint64_t{1} << (i % 64);
    }
  }
  t.words = words;
  t.headroom_rows = std::move(rows);
  t.daemon_group_types.assign(t.daemon_groups.size(), std::vector<uint64_t>(words, 0));
  for (size_t i = 0; i < n; ++i) {
    SetTypeBit(t.daemon_group_types[static_cast<size_t>(t.daemon_group[i])], i);
  }
  if (t.available_offering_bits.empty()) return;
  t.offering_pair_types.assign(t.offering_keys.size(), std::vector<uint64_t>(words, 0));
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < t.offering_keys.size(); ++k) {
      if ((t.available_offering_bits[i] >> k) & 1u) SetTypeBit(t.offering_pair_types[k], i);
    }
  }
}

// The topology domains a template can create (docs/design.md §5.12).
void AddDomains(const Template& t, DomainUniverse& universe) {
  auto add = [&](const std::string& key, const std::string& value) {
    DomainSource& src = universe[key][value];
    if (t.taints.empty()) {
      src.untainted = true;
    } else {
      src.taint_sets.push_back(t.taints);
    }
  };
  for (const Requirement& r : t.requirements) {
    if (r.op() == Operator::kIn) {
      for (const std::string& v : r.values()) add(r.key(), v);
    }
  }
  for (const InstanceType* it : t.instance_types) {
    Requirements combined = t.requirements;
    combined.Add(it->requirements);
    for (const Requirement& r : combined) {
      for (const std::string& v : r.values()) add(r.key(), v);
    }
  }
}

bool HasPreferNoScheduleTaint(const std::vector<Taint>& taints) {
  return std::any_of(taints.begin(), taints.end(),
                     [](const Taint& x) { return x.effect == TaintEffect::kPreferNoSchedule; });
}

}  // namespace

absl::StatusOr<std::shared_ptr<const PoolsState>> PreparePools(const ClusterSnapshot& snapshot,
                                                               const PoolCatalogs& catalogs,
                                                               const SchedulerOptions& options) {
  auto pools_state = std::make_shared<PoolsState>();
  pools_state->well_known = WellKnownLabels();
  const std::vector<const NodePool*> pools = PoolsByWeight(snapshot);
  pools_state->has_node_pools = !pools.empty();
  for (const NodePool* np : pools) {
    std::shared_ptr<const InstanceCatalog> catalog = catalogs.Of(np->name());
    if (!catalog || catalog->size() == 0) continue;
    pools_state->well_known.InsertAll(catalog->well_known_labels());
    absl::StatusOr<std::optional<Template>> t = MakeTemplate(*np, catalog, options);
    if (!t.ok()) return t.status();
    if (!t->has_value()) continue;
    if (HasPreferNoScheduleTaint((*t)->taints)) pools_state->tolerate_prefer_no_schedule = true;
    pools_state->templates.push_back(std::move(**t));
  }
  // Daemon groups and domains once every catalog's well-known labels are in.
  pools_state->daemon_pods = DaemonPods(snapshot);
  for (Template& t : pools_state->templates) {
    AddDaemonGroups(pools_state->daemon_pods, pools_state->well_known, t);
    IndexHeadroomBits(t);
  }
  for (const Template& t : pools_state->templates) AddDomains(t, pools_state->universe);
  return std::shared_ptr<const PoolsState>(std::move(pools_state));
}

namespace {

// ---------------------------------------------------------------------------------------------
// Cluster-level state

// Lookups over the snapshot used while preparing existing nodes.
struct SnapshotIndex {
  const ClusterSnapshot* snapshot = nullptr;
  const PoolCatalogs* catalogs = nullptr;
  const std::vector<Pod>* daemon_pods = nullptr;  // the pools' (PoolsState::daemon_pods)
  std::map<std::string, std::vector<const Pod*>> pods_by_node;
  std::map<std::string, const NodeClaim*> claim_by_node;

  const std::vector<const Pod*>& PodsOn(const std::string& node) const {
    static const std::vector<const Pod*> kNone;
    auto it = pods_by_node.find(node);
    return it == pods_by_node.end() ? kNone : it->second;
  }
  // The catalog type named by `labels` for a node of `pool`, or null.
  const InstanceType* CatalogType(const std::string& pool,
                                  const std::map<std::string, std::string>& labels) const {
    auto name = labels.find(std::string(kLabelInstanceType));
    if (name == labels.end()) return nullptr;
    std::shared_ptr<const InstanceCatalog> c = catalogs->ForNodeOf(pool);
    return c ? c->Find(name->second) : nullptr;
  }
};

// Builds the index and fills the state's own snapshot indexes (nodes by name, bound pods
// with required anti-affinity).
SnapshotIndex IndexSnapshot(const PoolCatalogs& catalogs, scheduling::SchedulerState& state) {
  const ClusterSnapshot& snap = *state.snapshot;
  SnapshotIndex index;
  index.snapshot = &snap;
  index.catalogs = &catalogs;
  index.daemon_pods = &state.pools->daemon_pods;
  for (const Pod& p : snap.pods) {
    if (p.node_name.empty()) continue;
    index.pods_by_node[p.node_name].push_back(&p);
    if (!p.pod_anti_affinity.required.empty()) state.bound_anti_affinity_pods.push_back(&p);
  }
  for (const NodeClaim& nc : snap.node_claims) {
    if (!nc.node_name.empty()) index.claim_by_node.emplace(nc.node_name, &nc);
  }
  for (const Node& n : snap.nodes) state.nodes_by_name.emplace(n.metadata.name, &n);
  return index;
}

// Requests of the DaemonSets that would run on a node but are not running there yet.
ResourceList MissingDaemonOverhead(const SnapshotIndex& index, const Requirements& node_reqs,
                                   const std::vector<Taint>& taints, const std::string& node_name) {
  const ClusterSnapshot& snap = *index.snapshot;
  ResourceList total;
  for (size_t d = 0; d < snap.daemon_sets.size(); ++d) {
    const Pod& ds = (*index.daemon_pods)[d];
    if (!ToleratesAll(taints, ds.tolerations)) continue;
    if (!node_reqs.IsCompatible(StrictPodRequirements(ds), nullptr)) continue;
    bool running = false;
    for (const Pod* p : index.PodsOn(node_name)) {
      for (const OwnerReference& o : p->metadata.owner_references) {
        if (o.kind == "DaemonSet" && o.name == snap.daemon_sets[d].metadata.name) running = true;
      }
    }
    if (!running) total.Add(ds.Requests());
  }
  return total;
}

// An existing node as the scheduler sees it (docs/design.md §5.4), or nullopt when it takes no
// pods (deleting, unschedulable or disrupted).
std::optional<ExistingNodeInit> PrepareNode(const SnapshotIndex& index, const Node& node) {
  auto claim_it = index.claim_by_node.find(node.metadata.name);
  const NodeClaim* nc = claim_it == index.claim_by_node.end() ? nullptr : claim_it->second;
  if (NodeDeleting(node, nc) || node.unschedulable) return std::nullopt;
  bool disrupted = false;
  for (const Taint& t : node.taints) disrupted |= t.key == DisruptedTaint().key;
  if (disrupted) return std::nullopt;
  ExistingNodeInit e;
  e.name = node.metadata.name;
  auto pool = node.metadata.labels.find(std::string(kLabelNodePool));
  const bool managed = pool != node.metadata.labels.end() || nc != nullptr;
  if (pool != node.metadata.labels.end()) e.node_pool = pool->second;
  if (e.node_pool.empty() && nc != nullptr) e.node_pool = nc->NodePoolName();
  auto init = node.metadata.labels.find(std::string(kLabelInitialized));
  e.initialized = !managed || (init != node.metadata.labels.end() && init->second == "true") ||
                  (nc != nullptr && nc->ConditionTrue("Initialized"));
  e.requirements = Requirements::FromLabels(node.metadata.labels);
  if (!e.requirements.Has(kLabelHostname)) {
    e.requirements.Add(Requirement::In(kLabelHostname, {node.metadata.name}));
  }
  // An unregistered managed node's taints are not synced yet: its NodeClaim's count (§3).
  auto registered = node.metadata.labels.find(std::string(kLabelRegistered));
  const bool is_registered =
      (registered != node.metadata.labels.end() && registered->second == "true") ||
      (nc != nullptr && nc->ConditionTrue("Registered"));
  const std::vector<Taint>& base_taints =
      (managed && nc != nullptr && !is_registered) ? nc->taints : node.taints;
  e.taints = SchedulingTaints(base_taints, managed, e.initialized,
                              nc != nullptr ? nc->startup_taints : std::vector<Taint>{});
  ResourceList alloc = node.allocatable;
  if (!e.initialized && nc != nullptr) {
    // Until the node is initialized, resources it reports as zero (e.g. a device plugin not
    // yet registered) come from its NodeClaim.
    nc->allocatable.ForEach([&](std::string_view name, int64_t value) {
      if (alloc.Get(name) == 0) alloc.Set(name, value);
    });
  }
  for (const Pod* p : index.PodsOn(node.metadata.name)) {
    if (p->IsTerminal()) continue;
    alloc.Subtract(p->Requests());
    std::vector<ContainerPort> ports = HostPorts(*p);
    e.host_ports.insert(e.host_ports.end(), ports.begin(), ports.end());
  }
  alloc.Subtract(MissingDaemonOverhead(index, e.requirements, e.taints, node.metadata.name));
  e.remaining = std::move(alloc);
  e.capacity = node.capacity;
  e.capacity.Set(kResourceNodes, 1);
  return e;
}

// An in-flight NodeClaim as the scheduler sees it (docs/design.md §5.9).
ExistingNodeInit PrepareInFlightClaim(const SnapshotIndex& index, const NodeClaim& nc) {
  ExistingNodeInit e;
  e.name = nc.metadata.name;
  e.in_flight = true;
  e.initialized = false;
  e.node_pool = nc.NodePoolName();
  std::map<std::string, std::string> labels = nc.metadata.labels;
  for (const NodeSelectorRequirement& r : nc.requirements) {
    if (r.op == Operator::kIn && r.values.size() == 1 && labels.count(r.key) == 0) {
      labels[r.key] = r.values[0];
    }
  }
  e.requirements = Requirements::FromLabels(labels);
  e.requirements.Add(Requirement::In(kLabelHostname, {nc.metadata.name}));
  e.taints = SchedulingTaints(nc.taints, true, false, nc.startup_taints);
  ResourceList alloc = nc.allocatable;
  if (alloc.empty()) {
    if (const InstanceType* it = index.CatalogType(e.node_pool, labels)) alloc = it->Allocatable();
  }
  alloc.Subtract(MissingDaemonOverhead(index, e.requirements, e.taints, nc.metadata.name));
  e.remaining = std::move(alloc);
  e.capacity = nc.capacity;
  if (e.capacity.empty()) {
    if (const InstanceType* it = index.CatalogType(e.node_pool, labels)) e.capacity = it->capacity;
  }
  e.capacity.Set(kResourceNodes, 1);
  return e;
}

// Existing nodes and in-flight NodeClaims (docs/design.md §5.4, §5.9): initialized first, then by
// name.
std::vector<ExistingNodeInit> PrepareExisting(const SnapshotIndex& index) {
  const ClusterSnapshot& snap = *index.snapshot;
  std::vector<ExistingNodeInit> existing;
  for (const Node& node : snap.nodes) {
    std::optional<ExistingNodeInit> e = PrepareNode(index, node);
    if (e) existing.push_back(std::move(*e));
  }
  for (const NodeClaim* nc : snap.InFlightNodeClaims()) {
    if (nc->metadata.deletion_timestamp) continue;
    existing.push_back(PrepareInFlightClaim(index, *nc));
  }
  std::stable_sort(existing.begin(), existing.end(),
                   [](const ExistingNodeInit& a, const ExistingNodeInit& b) {
                     if (a.initialized != b.initialized) return a.initialized;
                     return a.name < b.name;
                   });
  return existing;
}

// NodePool limits minus the capacity of the pool's nodes and in-flight NodeClaims (docs/design.md
// §5.11), for the eligible pools with limits.
std::map<std::string, ResourceList> RemainingLimits(const SnapshotIndex& index) {
  const ClusterSnapshot& snap = *index.snapshot;
  std::map<std::string, ResourceList> limits;
  for (const NodePool* np : EligibleNodePools(snap)) {
    if (np->limits.empty()) continue;
    ResourceList remaining = np->limits;
    for (const Node& node : snap.nodes) {
      auto pool = node.metadata.labels.find(std::string(kLabelNodePool));
      if (pool == node.metadata.labels.end() || pool->second != np->name()) continue;
      ResourceList cap = node.capacity;
      cap.Set(kResourceNodes, 1);
      remaining.Subtract(cap);
    }
    for (const NodeClaim* nc : snap.InFlightNodeClaims()) {
      if (nc->NodePoolName() != np->name()) continue;
      ResourceList cap = nc->capacity;
      if (cap.empty()) {
        if (const InstanceType* it = index.CatalogType(np->name(), nc->metadata.labels)) {
          cap = it->capacity;
        }
      }
      cap.Set(kResourceNodes, 1);
      remaining.Subtract(cap);
    }
    limits[np->name()] = std::move(remaining);
  }
  return limits;
}

}  // namespace

std::shared_ptr<scheduling::SchedulerState> PrepareCluster(
    std::shared_ptr<const ClusterSnapshot> snapshot, std::shared_ptr<const PoolsState> pools,
    const PoolCatalogs& catalogs, const SchedulerOptions& options) {
  auto state = std::make_shared<scheduling::SchedulerState>();
  state->options = options;
  state->snapshot = std::move(snapshot);
  state->pools = std::move(pools);
  const SnapshotIndex index = IndexSnapshot(catalogs, *state);
  std::vector<ExistingNodeInit> existing = PrepareExisting(index);
  state->storage = std::make_shared<const StorageIndex>(*state->snapshot);
  AttachVolumeLimits(*state->snapshot, *state->storage, &existing);
  state->existing = std::move(existing);
  state->remaining_limits = RemainingLimits(index);
  state->bound_counts =
      std::make_shared<BoundCountCache>(state->snapshot.get(), &state->nodes_by_name);
  state->prepared_pods = std::make_shared<PreparedPods>(state->snapshot.get());
  return state;
}

}  // namespace karp::scheduling
