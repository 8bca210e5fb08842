// Re-pack consolidation (ConsolidationMode::kRepack, docs/repack.md): a target placement of
// the candidates' pods from the cost packer, its connected components as candidate commands,
// each validated by the consolidation simulation on the cluster as the commands before it left
// it. The rounds and their bookkeeping; the validation of one command is in repack_eval.cc.

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "boost/graph/adjacency_list.hpp"
#include "boost/graph/connected_components.hpp"
#include "disruption/apply.h"
#include "disruption/loop.h"
#include "internal/strings.h"
#include "karp/lower_bound.h"
#include "quality/lower_bound_internal.h"
#include "scheduling/access.h"

namespace karp::disruption {
namespace {

// Candidates the target placement ties together (their pods share new claims): one command.
struct Group {
  std::vector<std::string> sources;  // node names, sorted
  double savings = 0;                // estimated from the target placement
  int64_t evictions = 0;             // reschedulable pods on the sources
  bool split = false;                // a piece of a group that failed; never split again
  // The target's new claims for the sources' pods, staged as nodes of these names while the
  // group is validated, and the allocatable each staged node offers (the launch type's less
  // the DaemonSet overhead the claim reserved).
  std::vector<NewNodeClaim> claims;
  std::vector<ResourceList> allocatable;
  // The kept nodes the target put the sources' pods on: the only existing nodes the group's
  // validation may use (so that it takes no room the target gave another group). Unset for the
  // pieces of a split group, which may use any.
  std::optional<std::set<std::string>> existing;
  // Where the target put each of the sources' pods (pod key -> kept node or staged claim),
  // and whether the validation pins them there (kPinLabel, only while the group is
  // validated): the first-fit simulation then reproduces the target instead of
  // packing the pods in its own order (which overflows the staged nodes into extra claims).
  // Unset for placement-coupled pods (a selector changes which nodes their spread counts).
  std::map<std::string, std::string> pins;
  bool pin = false;
};

// A node stays for the rest of the plan, with `why` as its kept reason unless it has one.
void Freeze(PlanWork& w, std::set<std::string>* frozen, const std::string& node,
            const std::string& why) {
  frozen->insert(node);
  w.first_reason.emplace(node, internal::StrCat("re-pack: ", why));
}

// The target placement's scheduler options: the plan's, packing for cost, reserved capacity
// in fallback mode (as every consolidation simulation).
SchedulerOptions TargetOptions(const ConsolidationOptions& o) {
  SchedulerOptions s = o.scheduler;
  s.packing = PackingMode::kCost;
  s.reserved_capacity_mode = ReservedCapacityMode::kFallback;
  s.compute_lower_bound = false;
  return s;
}

// The taint that closes a node to the target placement (nodes the consolidation simulation
// does not let moved pods use).
constexpr char kClosedTaint[] = "karp.sh/repack-closed";

// `snap` without the `gone` nodes, their NodeClaims and the pods bound to them, and with the
// `closed` nodes tainted NoSchedule.
std::shared_ptr<ClusterSnapshot> TargetSnapshot(const ClusterSnapshot& snap,
                                                const std::set<std::string>& gone,
                                                const std::set<std::string>& closed) {
  auto out = std::make_shared<ClusterSnapshot>(snap);
  auto on_gone = [&](const std::string& node) { return gone.count(node) > 0; };
  out->nodes.erase(std::remove_if(out->nodes.begin(), out->nodes.end(),
                                  [&](const Node& n) { return on_gone(n.metadata.name); }),
                   out->nodes.end());
  out->node_claims.erase(std::remove_if(out->node_claims.begin(), out->node_claims.end(),
                                        [&](const NodeClaim& nc) { return on_gone(nc.node_name); }),
                         out->node_claims.end());
  out->pods.erase(std::remove_if(out->pods.begin(), out->pods.end(),
                                 [&](const Pod& p) { return on_gone(p.node_name); }),
                  out->pods.end());
  for (Node& n : out->nodes) {
    if (closed.count(n.metadata.name) > 0) {
      n.taints.push_back(Taint{kClosedTaint, "", TaintEffect::kNoSchedule});
    }
  }
  return out;
}

// The nodes moved pods may not use in a consolidation simulation: managed nodes that are not
// initialized, and those still inside consolidateAfter.
std::set<std::string> ClosedNodes(const std::vector<NodeView>& views, absl::Time now) {
  std::set<std::string> closed;
  for (const NodeView& v : views) {
    if (v.claim == nullptr) continue;
    if (!v.initialized || UnderConsolidateAfter(v, now)) closed.insert(v.name);
  }
  return closed;
}

// The cost packer's placement of the `movable` nodes' reschedulable pods, with every other
// node as existing capacity. `cost_pools` caches the NodePool-level state across rounds.
absl::StatusOr<SolveResult> TargetPlacement(
    const PlanWork& w, const std::vector<NodeView>& views,
    const std::vector<const NodeView*>& movable,
    std::shared_ptr<const scheduling::PoolsState>* cost_pools) {
  const SchedulerOptions options = TargetOptions(w.state.options);
  if (*cost_pools == nullptr) {
    absl::StatusOr<std::shared_ptr<const scheduling::PoolsState>> pools =
        scheduling::PreparePoolsFor(*w.state.pools_source, w.state.catalogs, options);
    if (!pools.ok()) return pools.status();
    *cost_pools = std::move(*pools);
  }
  std::set<std::string> gone;
  std::vector<Pod> moving;
  for (const NodeView* v : movable) {
    gone.insert(v->name);
    for (const Pod* p : v->reschedulable) {
      moving.push_back(*p);
      moving.back().node_name.clear();
    }
  }
  absl::StatusOr<Scheduler> s =
      scheduling::CreateUnchecked(TargetSnapshot(*w.snap, gone, ClosedNodes(views, w.state.now)),
                                  w.state.catalogs, options, *cost_pools);
  if (!s.ok()) return s.status();
  std::vector<const Pod*> pods;
  pods.reserve(moving.size());
  for (const Pod& p : moving) pods.push_back(&p);
  return s->Solve(pods);
}

// Orders groups by estimated savings per evicted pod (descending), then by first source.
void SortGroups(std::vector<Group>* groups) {
  std::sort(groups->begin(), groups->end(), [](const Group& a, const Group& b) {
    const double ra = a.savings / static_cast<double>(std::max<int64_t>(a.evictions, 1));
    const double rb = b.savings / static_cast<double>(std::max<int64_t>(b.evictions, 1));
    if (ra != rb) return ra > rb;
    return a.sources < b.sources;
  });
}

// A copy of target claim `nc` under a fresh name, no pods, to stage as a node.
NewNodeClaim StagedClaim(PlanWork& w, const NewNodeClaim& nc) {
  NewNodeClaim out = nc;
  out.pods.clear();
  do {
    out.name = internal::StrCat("repack-target-", ++w.staged_names);
  } while (w.used_names.count(out.name) > 0);
  return out;
}

// The launch type's allocatable less the DaemonSet overhead claim `nc` reserved (its requests
// less its pods' requests).
ResourceList StagedAllocatable(const NewNodeClaim& nc,
                               const std::map<std::string, const Pod*>& pods,
                               const InstanceCatalog& catalog) {
  const InstanceType* it = catalog.Find(nc.launch->instance_type);
  if (it == nullptr) return {};
  ResourceList used;
  for (const std::string& key : nc.pods) {
    if (auto f = pods.find(key); f != pods.end()) used.Add(f->second->Requests());
  }
  ResourceList overhead = ResourceList::Difference(nc.requests, used);
  ResourceList positive;
  overhead.ForEach([&](std::string_view name, int64_t v) {
    if (v > 0) positive.Set(name, v);
  });
  ResourceList allocatable = ResourceList::Difference(it->Allocatable(), positive);
  ResourceList clamped;
  allocatable.ForEach([&](std::string_view name, int64_t v) { clamped.Set(name, v > 0 ? v : 0); });
  return clamped;
}

// Whether a pod's placement depends on other pods beyond capacity: pod (anti-)affinity,
// topology spread, host ports, volumes (attach limits, zonal volumes).
bool PlacementCoupled(const Pod& p) {
  if (!p.pod_affinity.empty() || !p.pod_anti_affinity.empty() ||
      !p.topology_spread_constraints.empty() || !p.volumes.empty()) {
    return true;
  }
  for (const Container& c : p.containers) {
    for (const ContainerPort& port : c.ports) {
      if (port.host_port != 0) return true;
    }
  }
  return false;
}

// Whether a pod group `g` pins is placement-coupled (then it is not pinned).
bool PinsCoupled(const Group& g, const std::map<std::string, const Pod*>& pods) {
  for (const auto& [key, node] : g.pins) {
    if (auto p = pods.find(key); p != pods.end() && PlacementCoupled(*p->second)) return true;
  }
  return false;
}

// The connected components of the target placement (sources joined by the new claims their
// pods share), without the sources it could not place, as groups that save money by its
// estimate; the other sources are frozen.
std::vector<Group> GroupsOf(PlanWork& w, const SolveResult& target,
                            const std::vector<const NodeView*>& movable,
                            std::set<std::string>* frozen) {
  std::map<std::string, size_t> source_of;  // pod key -> index in movable
  std::map<std::string, const Pod*> pods;
  for (size_t i = 0; i < movable.size(); ++i) {
    for (const Pod* p : movable[i]->reschedulable) {
      source_of[p->Key()] = i;
      pods[p->Key()] = p;
    }
  }
  std::vector<bool> unplaced(movable.size(), false);
  for (const PodError& e : target.pod_errors) {
    auto f = source_of.find(e.pod);
    if (f == source_of.end() || unplaced[f->second]) continue;
    unplaced[f->second] = true;
    Freeze(w, frozen, movable[f->second]->name,
           internal::StrCat("the target placement cannot place pod ", e.pod, ": ", e.message));
  }
  // Source nodes joined by a target claim holding pods of both: Boost.Graph's connected
  // components, numbered in order of their first source (as the groups are visited).
  boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> joined(movable.size());
  std::vector<std::pair<size_t, const NewNodeClaim*>> claims;  // first source, claim
  for (const NewNodeClaim& nc : target.node_claims) {
    std::vector<size_t> srcs;
    for (const std::string& pod : nc.pods) {
      if (auto f = source_of.find(pod); f != source_of.end()) srcs.push_back(f->second);
    }
    if (srcs.empty() || !nc.launch) continue;
    for (size_t s : srcs) {
      if (s != srcs[0]) boost::add_edge(srcs[0], s, joined);
    }
    claims.emplace_back(srcs[0], &nc);
  }
  std::vector<size_t> group_of(movable.size());
  boost::connected_components(joined, group_of.data());
  std::map<size_t, Group> by_root;
  std::map<std::string, std::string> target_node;  // pod key -> kept node or staged claim
  for (const auto& [first, nc] : claims) {
    Group& g = by_root[group_of[first]];
    g.savings -= nc->launch->price;
    g.claims.push_back(StagedClaim(w, *nc));
    g.allocatable.push_back(StagedAllocatable(*nc, pods, w.state.catalogs.TypesOf(nc->node_pool)));
    for (const std::string& pod : nc->pods) target_node[pod] = g.claims.back().name;
  }
  for (const ExistingPlacement& e : target.existing_nodes) {
    for (const std::string& pod : e.pods) {
      auto f = source_of.find(pod);
      if (f == source_of.end()) continue;
      Group& g = by_root[group_of[f->second]];
      if (!g.existing) g.existing.emplace();
      g.existing->insert(e.name);
      target_node[pod] = e.name;
    }
  }
  for (size_t i = 0; i < movable.size(); ++i) {
    Group& g = by_root[group_of[i]];
    if (!g.existing) g.existing.emplace();
    if (unplaced[i]) continue;
    g.sources.push_back(movable[i]->name);
    g.savings += movable[i]->price;
    g.evictions += static_cast<int64_t>(movable[i]->reschedulable.size());
    for (const Pod* p : movable[i]->reschedulable) {
      if (auto t = target_node.find(p->Key()); t != target_node.end()) g.pins[p->Key()] = t->second;
    }
  }
  for (auto& [root, g] : by_root) g.pin = !g.pins.empty() && !PinsCoupled(g, pods);
  std::vector<Group> groups;
  for (auto& [root, g] : by_root) {
    if (g.sources.empty()) continue;
    std::sort(g.sources.begin(), g.sources.end());
    if (g.savings > 1e-9) {
      groups.push_back(std::move(g));
      continue;
    }
    for (const std::string& n : g.sources) {
      Freeze(w, frozen, n, "the target placement of its pods saves nothing");
    }
  }
  SortGroups(&groups);
  return groups;
}

// Whether the pods of `sources` are placement-coupled: such a group is validated alone on a
// fresh loop, which sees every earlier command applied.
bool TopologySensitive(const std::vector<const NodeView*>& sources) {
  for (const NodeView* v : sources) {
    for (const Pod* p : v->reschedulable) {
      if (PlacementCoupled(*p)) return true;
    }
  }
  return false;
}

// What the commands accepted on one loop changed that the loop's snapshot does not show: the
// nodes they delete, and the requests they added to kept nodes.
struct LoopChanges {
  std::set<std::string> deleted;
  std::map<std::string, ResourceList> added;
};

// Whether the pods `placement` puts on kept nodes fit them on top of what earlier commands of
// the loop added (the simulation saw the nodes without those pods); records them when they do.
bool FitsChanges(const SolveResult& placement, const std::vector<const NodeView*>& sources,
                 const std::map<std::string, const NodeView*>& views, LoopChanges* changes) {
  std::map<std::string, const Pod*> moving;
  for (const NodeView* v : sources) {
    for (const Pod* p : v->reschedulable) moving.emplace(p->Key(), p);
  }
  std::map<std::string, ResourceList> adding;
  for (const ExistingPlacement& e : placement.existing_nodes) {
    ResourceList& add = adding[e.name];
    for (const std::string& key : e.pods) {
      if (auto f = moving.find(key); f != moving.end()) add.Add(f->second->Requests());
    }
    auto before = changes->added.find(e.name);
    auto view = views.find(e.name);
    if (before == changes->added.end() || view == views.end()) continue;
    ResourceList free = view->second->node->allocatable;
    ResourceList used = before->second;
    for (const Pod* p : view->second->pods) {
      if (!p->IsTerminal()) used.Add(p->Requests());
    }
    used.Add(add);
    if (!Fits(used, free)) return false;
  }
  for (auto& [node, add] : adding) changes->added[node].Add(add);
  return true;
}

// The groups of one round and where the validation is in them.
struct RoundQueue {
  std::vector<Group> groups;
  size_t next = 0;
  std::set<std::string> pending;  // sources of groups not yet validated
  std::set<std::string> staged;   // staged target nodes in the snapshot now
  // Pods pinned in the snapshot now (indices in its pods), and the nodes labelled as targets.
  std::vector<size_t> pinned;
  std::set<std::string> pin_targets;
};

// Replaces the failed group `q->groups[q->next]` by one group per source, right after it; a
// single source keeps no staged claim (the simulation launches what it needs).
void Split(RoundQueue* q, const std::map<std::string, const NodeView*>& views) {
  const Group failed = q->groups[q->next];
  std::vector<Group> singles;
  for (const std::string& n : failed.sources) {
    q->pending.insert(n);
    Group g;
    g.sources = {n};
    const NodeView* v = views.find(n)->second;  // every source has a view (SubRound)
    g.savings = v->price;
    g.evictions = static_cast<int64_t>(v->reschedulable.size());
    g.split = true;
    singles.push_back(std::move(g));
  }
  SortGroups(&singles);
  q->groups.insert(q->groups.begin() + static_cast<std::ptrdiff_t>(q->next) + 1, singles.begin(),
                   singles.end());
}

// The label that pins a pod to its target node during a validation: a nodeSelector on the
// pod, the node's name as a label on the node (hostname selectors are not allowed).
constexpr char kPinLabel[] = "karp.sh/repack-pin";

// Pins the pods of the pinned groups not yet validated to their target nodes.
void Pin(PlanWork& w, RoundQueue* q) {
  std::map<std::string, const std::string*> pin;
  std::set<std::string_view> sources;  // of the pinned groups: only their pods are looked up
  for (size_t i = q->next; i < q->groups.size(); ++i) {
    if (!q->groups[i].pin) continue;
    sources.insert(q->groups[i].sources.begin(), q->groups[i].sources.end());
    for (const auto& [key, node] : q->groups[i].pins) {
      pin.emplace(key, &node);
      q->pin_targets.insert(node);
    }
  }
  std::vector<Pod>& pods = w.snap->pods;
  for (size_t i = 0; i < pods.size() && !pin.empty(); ++i) {
    if (pods[i].node_name.empty() || sources.count(pods[i].node_name) == 0) continue;
    auto f = pin.find(pods[i].Key());
    if (f == pin.end()) continue;
    q->pinned.push_back(i);
    pods[i].node_selector[kPinLabel] = *f->second;
  }
  for (Node& n : w.snap->nodes) {
    if (q->pin_targets.count(n.metadata.name) > 0) n.metadata.labels[kPinLabel] = n.metadata.name;
  }
}

// Adds the target claims of the groups not yet validated to the snapshot as initialized,
// empty nodes that consolidateAfter does not hold back (Apply's replacement nodes), so the
// validation simulations can place the sources' pods where the target put them.
void Stage(PlanWork& w, RoundQueue* q) {
  DisruptionCommand staging;
  std::vector<const ResourceList*> allocatable;
  for (size_t i = q->next; i < q->groups.size(); ++i) {
    const Group& g = q->groups[i];
    for (size_t c = 0; c < g.claims.size(); ++c) {
      staging.replacements.push_back(g.claims[c]);
      allocatable.push_back(&g.allocatable[c]);
      q->staged.insert(g.claims[c].name);
    }
  }
  const size_t first = w.snap->nodes.size();
  Apply(*w.snap, staging, SolveResult{}, w.state.catalogs, w.state.now);
  for (size_t i = first; i < w.snap->nodes.size(); ++i) {
    w.snap->nodes[i].allocatable = *allocatable[i - first];
  }
  for (NodeClaim& nc : w.snap->node_claims) {
    if (q->staged.count(nc.metadata.name) > 0) nc.last_pod_event_time = absl::InfinitePast();
  }
  Pin(w, q);
}

// Removes the staged nodes and the pins from the snapshot.
void Unstage(PlanWork& w, RoundQueue* q) {
  for (size_t i : q->pinned) w.snap->pods[i].node_selector.erase(kPinLabel);
  for (Node& n : w.snap->nodes) {
    if (q->pin_targets.count(n.metadata.name) > 0) n.metadata.labels.erase(kPinLabel);
  }
  q->pinned.clear();
  q->pin_targets.clear();
  auto staged = [&](const std::string& name) { return q->staged.count(name) > 0; };
  ClusterSnapshot& snap = *w.snap;
  snap.nodes.erase(std::remove_if(snap.nodes.begin(), snap.nodes.end(),
                                  [&](const Node& n) { return staged(n.metadata.name); }),
                   snap.nodes.end());
  snap.node_claims.erase(
      std::remove_if(snap.node_claims.begin(), snap.node_claims.end(),
                     [&](const NodeClaim& nc) { return staged(nc.metadata.name); }),
      snap.node_claims.end());
  q->staged.clear();
}

using Accepted = std::vector<std::pair<DisruptionCommand, SolveResult>>;

// The nodes group `g`'s simulation may not use: the sources of the groups after it, the nodes
// the commands accepted before it delete, the other groups' staged nodes, and the kept nodes
// the target did not give it.
std::set<std::string> Excluded(const RoundQueue& q, const Group& g,
                               const std::set<std::string>& deleted,
                               const std::map<std::string, const NodeView*>& views) {
  std::set<std::string> excluded = q.pending;
  if (g.existing) {
    for (const auto& [name, view] : views) {
      if (g.existing->count(name) == 0) excluded.insert(name);
    }
  }
  excluded.insert(deleted.begin(), deleted.end());
  excluded.insert(q.staged.begin(), q.staged.end());
  for (const NewNodeClaim& nc : g.claims) excluded.erase(nc.name);
  return excluded;
}

// Validates group `g` on loop `l`. When its placement counts on room that earlier commands of
// the loop took (the loop's snapshot does not show them), `*conflict` asks for a fresh loop.
Evaluation EvaluateGroup(const Loop& l, const RoundQueue& q, const Group& g,
                         const std::vector<const NodeView*>& sources,
                         const std::map<std::string, const NodeView*>& views, LoopChanges* changes,
                         SolveResult* placement, bool* conflict) {
  Evaluation e =
      l.RepackEvaluate(sources, Excluded(q, g, changes->deleted, views), g.claims, placement);
  if (e.command && !FitsChanges(*placement, sources, views, changes)) *conflict = true;
  return e;
}

// Whether `cmd` launches a claim that is not one of `g`'s staged target claims.
bool OpensClaims(const DisruptionCommand& cmd, const Group& g) {
  for (const NewNodeClaim& r : cmd.replacements) {
    if (std::none_of(g.claims.begin(), g.claims.end(),
                     [&](const NewNodeClaim& nc) { return nc.name == r.name; })) {
      return true;
    }
  }
  return false;
}

// Validates groups from q->next on one loop over the current snapshot (with the target claims
// staged) until a group needs a fresh loop (topology-sensitive, after others were accepted)
// or the queue ends. Each accepted command is valid on the cluster the ones before it leave.
absl::Status SubRound(PlanWork& w, RoundQueue* q, std::set<std::string>* frozen,
                      Accepted* accepted) {
  Loop l = w.MakeLoop();
  if (absl::Status s = l.Init(); !s.ok()) return s;
  std::map<std::string, const NodeView*> views;
  for (const NodeView& v : l.views()) views.emplace(v.name, &v);
  LoopChanges changes;
  for (; q->next < q->groups.size(); ++q->next) {
    const Group g = q->groups[q->next];
    std::vector<const NodeView*> sources;
    for (const std::string& n : g.sources) {
      auto f = views.find(n);
      if (f != views.end()) sources.push_back(f->second);
    }
    if (sources.size() != g.sources.size()) {  // defensive: a source is gone
      for (const std::string& n : g.sources) q->pending.erase(n);
      continue;
    }
    const bool sensitive = TopologySensitive(sources);
    if (sensitive && !accepted->empty()) return absl::OkStatus();
    for (const std::string& n : g.sources) q->pending.erase(n);
    SolveResult placement;
    bool conflict = false;
    Evaluation e = EvaluateGroup(l, *q, g, sources, views, &changes, &placement, &conflict);
    if (w.budget.exhausted()) return absl::OkStatus();
    if (g.pin && (!e.command || OpensClaims(*e.command, g))) {
      // The target's placement does not validate as it is: the group is validated again,
      // unpinned, on a fresh loop (its pods' selectors are part of the loop's snapshot).
      q->groups[q->next].pin = false;
      for (const std::string& n : g.sources) q->pending.insert(n);
      return absl::OkStatus();
    }
    if (conflict) {
      // It needs room earlier commands of this loop took: validate it again on a fresh loop
      // that sees them (it is never the first of its loop).
      for (const std::string& n : g.sources) q->pending.insert(n);
      return absl::OkStatus();
    }
    if (!e.command) {
      if (g.sources.size() > 1 && !g.split) {
        Split(q, views);
      } else {
        Freeze(w, frozen, g.sources[0], e.why_not);
      }
      continue;
    }
    changes.deleted.insert(g.sources.begin(), g.sources.end());
    accepted->emplace_back(std::move(*e.command), std::move(placement));
    if (sensitive || w.state.options.once) {
      ++q->next;
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

// Validates and applies the groups of one round; the number of commands accepted.
absl::StatusOr<int> RunGroups(PlanWork& w, std::vector<Group> groups,
                              std::set<std::string>* frozen) {
  RoundQueue q;
  q.groups = std::move(groups);
  for (const Group& g : q.groups) q.pending.insert(g.sources.begin(), g.sources.end());
  int n = 0;
  while (q.next < q.groups.size()) {
    Accepted accepted;
    Stage(w, &q);
    absl::Status s = SubRound(w, &q, frozen, &accepted);
    Unstage(w, &q);
    if (!s.ok()) return s;
    const size_t first = w.plan.commands.size();
    w.AcceptAll(std::move(accepted));
    for (size_t i = first; i < w.plan.commands.size(); ++i) {
      for (const NewNodeClaim& nc : w.plan.commands[i].replacements) frozen->insert(nc.name);
      ++n;
    }
    w.budget.command_count = static_cast<int>(w.plan.commands.size());
    if (w.budget.exhausted() || (w.state.options.once && n > 0)) break;
  }
  return n;
}

// One round's groups: the target placement of the candidates not frozen. Empty when none.
absl::StatusOr<std::vector<Group>> RoundGroups(
    PlanWork& w, std::set<std::string>* frozen,
    std::shared_ptr<const scheduling::PoolsState>* cost_pools) {
  Loop l = w.MakeLoop();
  if (absl::Status s = l.Init(); !s.ok()) return s;
  KeptReasons kept;
  const std::vector<const NodeView*> movable = l.RepackCandidates(&kept, *frozen);
  for (const auto& [node, reason] : kept) w.first_reason.emplace(node, reason);
  if (movable.empty() || !w.budget.Take("repack target")) return std::vector<Group>{};
  absl::StatusOr<SolveResult> target = TargetPlacement(w, l.views(), movable, cost_pools);
  if (!target.ok()) return target.status();
  ++w.repack_rounds;
  return GroupsOf(w, *target, movable, frozen);
}

// The nodes expiration or an interruption removes whether or not their pods fit elsewhere.
bool ForcefullyRemoved(const NodeView& v, const ConsolidationOptions& options) {
  if (v.expired && !v.deleting) return true;
  if (!v.managed) return false;
  return std::any_of(options.interruptions.begin(), options.interruptions.end(),
                     [&](const InterruptionEvent& ev) { return ev.node == v.name; });
}

// Whether no method of a plan may remove node `v` (RepackSummary::lower_bound_per_hour): the
// graceful methods reject it, and neither drift (a drifted node whose pod-level blocks its
// terminationGracePeriod lifts), expiration nor an interruption takes it.
bool MustStay(const NodeView& v, const ConsolidationOptions& options) {
  if (v.reject.empty() || ForcefullyRemoved(v, options)) return false;
  const bool drift_removes = !v.drift_reason.empty() && v.reject_eventual.empty() &&
                             v.pool != nullptr && !v.pool->replicas;
  return !drift_removes;
}

// The free room of node `v`: its allocatable less the requests of its pods that are not
// terminal, per resource, never negative.
ResourceList FreeRoom(const NodeView& v) {
  ResourceList used;
  for (const Pod* p : v.pods) {
    if (!p->IsTerminal()) used.Add(p->Requests());
  }
  ResourceList free;
  v.node->allocatable.ForEach([&](std::string_view name, int64_t a) {
    const int64_t left = a - used.Get(name);
    if (left > 0) free.Set(name, left);
  });
  return free;
}

struct ClusterBound {
  double must_stay_price = 0;
  double moving_bound = 0;
};

// The lower bound's view of the NodePools' catalogs.
quality::Catalogs BoundCatalogs(const scheduling::PoolCatalogs& catalogs) {
  return catalogs.shared != nullptr ? quality::Catalogs(*catalogs.shared)
                                    : quality::Catalogs(catalogs.by_node_pool);
}

// RepackSummary::lower_bound_per_hour in two parts. Why it is a lower bound on the price after
// any plan that keeps the nodes that must stay and places every pod it moves: such a plan
// pays every node that must stay (must_stay_price). The reschedulable pods of the other nodes
// (those of expired and interrupted nodes left out) end in the free room of the nodes that
// stay, on the other nodes the plan keeps (each paid at its price), or on new nodes (each
// paid at least its kind's price, karp/lower_bound.h). Only the free room is unpaid, and the
// pods use at most all of it, so the paid nodes hold at least the pods' demand less the room:
// quality::PriceLowerBoundWithRoom with the kept nodes as extra options bounds their price.
absl::StatusOr<ClusterBound> ClusterLowerBound(const disruption::ConsolidatorState& state,
                                               const std::vector<NodeView>& views) {
  ClusterBound out;
  ResourceList room;
  std::vector<quality::RoomOption> keepable;
  std::vector<const Pod*> moving;
  for (const NodeView& v : views) {
    if (MustStay(v, state.options)) {
      out.must_stay_price += v.price;
      room.Add(FreeRoom(v));
      continue;
    }
    if (ForcefullyRemoved(v, state.options)) continue;
    keepable.push_back(quality::RoomOption{v.price, v.node->allocatable});
    moving.insert(moving.end(), v.reschedulable.begin(), v.reschedulable.end());
  }
  absl::StatusOr<double> b = quality::PriceLowerBoundWithRoom(
      state.snapshot, BoundCatalogs(state.catalogs), moving, room, keepable);
  if (!b.ok()) return b.status();
  out.moving_bound = *b;
  return out;
}

}  // namespace

std::vector<const NodeView*> Loop::RepackCandidates(KeptReasons* kept,
                                                    const std::set<std::string>& frozen) const {
  std::vector<const NodeView*> out;
  for (const NodeView* v : ConsolidationCandidates(kept)) {
    if (frozen.count(v->name) == 0) out.push_back(v);
  }
  return out;
}

absl::StatusOr<RepackSummary> RepackStart(const disruption::ConsolidatorState& state) {
  PodCache cache;
  const std::vector<NodeView> views =
      BuildNodeViews(state.snapshot, state.catalogs, state.now, state.options, &cache);
  RepackSummary s;
  std::vector<const Pod*> pods;
  for (const NodeView& v : views) {
    s.price_before_per_hour += v.price;
    pods.insert(pods.end(), v.reschedulable.begin(), v.reschedulable.end());
  }
  absl::StatusOr<CostLowerBound> lb =
      state.catalogs.shared != nullptr
          ? PriceLowerBound(state.snapshot, *state.catalogs.shared, pods)
          : PriceLowerBound(state.snapshot, state.catalogs.by_node_pool, pods);
  if (!lb.ok()) return lb.status();
  s.all_pods_lower_bound_per_hour = lb->price_per_hour;
  absl::StatusOr<ClusterBound> cluster = ClusterLowerBound(state, views);
  if (!cluster.ok()) return cluster.status();
  s.must_stay_price_per_hour = cluster->must_stay_price;
  s.lower_bound_per_hour = cluster->must_stay_price + cluster->moving_bound;
  return s;
}

absl::Status RepackRounds(PlanWork& w) {
  std::set<std::string> frozen;
  std::shared_ptr<const scheduling::PoolsState> cost_pools;
  for (int round = 0; round < w.state.options.repack_rounds; ++round) {
    w.budget.loop = static_cast<int>(w.budget.loop) + 1;
    absl::StatusOr<std::vector<Group>> groups = RoundGroups(w, &frozen, &cost_pools);
    if (!groups.ok()) return groups.status();
    if (groups->empty()) break;
    absl::StatusOr<int> n = RunGroups(w, std::move(*groups), &frozen);
    if (!n.ok()) return n.status();
    if (*n == 0 || w.budget.exhausted() || w.state.options.once) break;
  }
  return absl::OkStatus();
}

}  // namespace karp::disruption
