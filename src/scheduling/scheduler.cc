// The public methods of karp::Scheduler (see karp/scheduler.h) and the internal access seam
// (access.h): creation from a snapshot (prepare.cc does the work), Solve and consolidation
// simulations (the per-pod contexts here; solver.cc places them, finalize.cc builds the
// result).

#include "karp/scheduler.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "karp/lower_bound.h"
#include "karp/taints.h"
#include "karp/topology_defaults.h"
#include "model/node_pool_templates.h"
#include "quality/lower_bound_internal.h"
#include "scheduling/access.h"
#include "scheduling/cost_packing.h"
#include "scheduling/prepare.h"
#include "scheduling/prepared_pods.h"
#include "scheduling/scheduler_internal.h"
#include "scheduling/solver.h"

namespace karp {
namespace {

using scheduling::PodData;

// The snapshot a scheduler keeps: `snapshot`, with SchedulerOptions::default_topology_spread
// given to its pods (karp/topology_defaults.h).
template <typename Snapshot>
std::shared_ptr<const ClusterSnapshot> WithDefaults(Snapshot&& snapshot,
                                                    const SchedulerOptions& options) {
  auto shared = std::make_shared<ClusterSnapshot>(std::forward<Snapshot>(snapshot));
  ApplyDefaultTopologySpread(shared.get(), options.default_topology_spread);
  return shared;
}

// Scheduler::Create's work: validated options and snapshot, then both preparation stages.
// The snapshot is copied, or moved when the caller passes an rvalue, only after the options
// passed (`snapshot` is left as it was when they do not).
template <typename Snapshot>
absl::StatusOr<std::shared_ptr<scheduling::SchedulerState>> PrepareChecked(
    Snapshot&& snapshot, const scheduling::PoolCatalogs& catalogs,
    const SchedulerOptions& options) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  std::shared_ptr<const ClusterSnapshot> shared =
      WithDefaults(std::forward<Snapshot>(snapshot), options);
  if (absl::Status s = shared->Validate(); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<const scheduling::PoolsState>> pools =
      scheduling::PreparePools(*shared, catalogs, options);
  if (!pools.ok()) return pools.status();
  std::shared_ptr<scheduling::SchedulerState> state =
      scheduling::PrepareCluster(std::move(shared), std::move(*pools), catalogs, options);
  state->catalog = catalogs.shared;
  state->catalogs_by_node_pool = catalogs.by_node_pool;
  return state;
}

// Pods with the same namespace and labels share a label class (PodData::label_class).
size_t LabelClass(const Pod& pod, absl::flat_hash_map<std::string, size_t>& label_classes) {
  // The signature is built in a buffer kept per thread (no allocation per pod) and copied
  // only for a new class.
  thread_local std::string signature;
  signature.assign(pod.metadata.namespace_);
  for (const auto& [k, v] : pod.metadata.labels) {
    signature.push_back('\0');
    signature += k;
    signature.push_back('\0');
    signature += v;
  }
  if (auto it = label_classes.find(signature); it != label_classes.end()) return it->second;
  return label_classes.emplace(signature, label_classes.size()).first->second;
}

constexpr std::string_view kDraNotSupported =
    "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter";

// Pod validation (docs/design.md §5.3): "" or the pod error; such pods are ignored by the
// reference, karp reports them so a person can act. Sets the context's volumes.
std::string ValidatePod(const scheduling::SchedulerState& state, const Pod& p, PodData& c,
                        const scheduling::Simulation* simulation, const Requirements* full) {
  // Pods of the snapshot passed ValidatePod in Create; pods a host hands to Solve may not.
  const std::vector<Pod>& own = state.snapshot->pods;
  const bool from_snapshot = !own.empty() && &p >= own.data() && &p < own.data() + own.size();
  std::string invalid = scheduling::PodValidationError(p, state.pools->well_known,
                                                       /*check_fields=*/!from_snapshot, full);
  // The reference's IgnoreDRARequests (its default): a pod with resource claims is not
  // scheduled at all (Scheduler.add's DRAError), after the validation of its pod filter.
  if (invalid.empty() && p.HasResourceClaims()) return std::string(kDraNotSupported);
  if (p.volumes.empty()) return invalid;
  // Volumes (docs/design.md §5.3, §5.13); only pending pods are validated, as the reference.
  // The reference joins every reason of Validate, volume ones last.
  const bool validate =
      p.node_name.empty() && (simulation == nullptr || simulation->moving.count(c.key) == 0);
  absl::StatusOr<std::shared_ptr<const scheduling::PodVolumes>> v =
      scheduling::PodVolumesFor(*state.storage, p, validate);
  if (v.ok()) {
    c.volumes = std::move(*v);
  } else if (invalid.empty()) {
    invalid = internal::StrCat("ignoring pod, ", v.status().message());
  } else {
    invalid = internal::StrCat(invalid, "; ", v.status().message());
  }
  return invalid;
}

// SolveResult::lower_bound_per_hour: the bound of the pods placed on new claims.
void SetLowerBound(const scheduling::SchedulerState& state,
                   const std::map<std::string, const Pod*>& by_key, SolveResult& result) {
  // The catalog of each NodePool with a template; `single` when they all share one.
  std::map<std::string, std::shared_ptr<const InstanceCatalog>> by_pool;
  const InstanceCatalog* single = nullptr;
  for (const scheduling::Template& t : state.pools->templates) {
    by_pool.emplace(t.pool->name(), t.catalog);
    single = by_pool.size() == 1 || single == t.catalog.get() ? t.catalog.get() : nullptr;
  }
  if (by_pool.empty()) {
    if (result.node_claims.empty()) result.lower_bound_per_hour = 0;
    return;
  }
  std::vector<const Pod*> placed;
  for (const NewNodeClaim& nc : result.node_claims) {
    for (const std::string& key : nc.pods) {
      auto it = by_key.find(key);
      if (it != by_key.end()) placed.push_back(it->second);
    }
  }
  // The state's snapshot is validated, the placed pods distinct: no checks again.
  absl::StatusOr<CostLowerBound> bound =
      single != nullptr
          ? quality::PriceLowerBoundUnchecked(*state.snapshot, *single, placed)
          : quality::PriceLowerBoundUnchecked(*state.snapshot, quality::Catalogs(by_pool), placed);
  if (bound.ok()) {
    result.lower_bound_per_hour = bound->price_per_hour;
    result.lower_bound_method = bound->method;
  }
}

// A pod's working context as a Solve prepares it (its label class from `label_classes`):
// "" when it may be scheduled (then the context is refreshed), else the pod error.
std::string PrepareOne(const scheduling::SchedulerState& state, const Pod& p,
                       const scheduling::Simulation* simulation,
                       absl::flat_hash_map<std::string, size_t>& label_classes, PodData& c) {
  c.original = &p;
  if (p.metadata.namespace_.empty()) {
    auto named = std::make_shared<Pod>(p);
    named->metadata.namespace_ = "default";
    c.changed = std::move(named);
  }
  c.key = c.working().Key();
  c.label_class = LabelClass(c.working(), label_classes);
  // The full requirements once, for validation and the context (the namespace the working
  // copy may add changes no requirement).
  Requirements full = PodRequirements(c.working());
  std::string invalid = ValidatePod(state, p, c, simulation, &full);
  if (invalid.empty()) scheduling::Refresh(c, state.options.preference_policy, std::move(full));
  return invalid;
}

absl::Status DuplicatePod(const std::string& key) {
  return absl::InvalidArgumentError(internal::StrCat("pod ", key, ": duplicate"));
}

// The contexts of `pods` (in order) and the pods rejected by validation; InvalidArgument for a
// null or duplicate pod.
absl::Status PreparePods(const scheduling::SchedulerState& state,
                         const std::vector<const Pod*>& pods, std::vector<PodData>* ctxs,
                         std::vector<PodError>* rejected) {
  // Duplicates only, never iterated: (namespace, name) as views into the pods, the namespace
  // as Pod::Key() writes it (names and namespaces hold no '/', so equal pairs are equal keys).
  absl::flat_hash_set<std::pair<std::string_view, std::string_view>> keys;
  keys.reserve(pods.size());
  absl::flat_hash_map<std::string, size_t> label_classes;  // ids only; never iterated
  for (const Pod* p : pods) {
    if (p == nullptr) return absl::InvalidArgumentError("scheduler: null pod");
    PodData c;
    std::string invalid = PrepareOne(state, *p, nullptr, label_classes, c);
    const std::string_view ns =
        p->metadata.namespace_.empty() ? std::string_view("default") : p->metadata.namespace_;
    if (!keys.emplace(ns, p->metadata.name).second) return DuplicatePod(c.key);
    if (!invalid.empty()) {
      rejected->push_back({c.key, invalid});
      continue;
    }
    ctxs->push_back(std::move(c));
  }
  return absl::OkStatus();
}

// PreparePods again for the same pods (the cost mode prepares a set per solve): the same
// contexts, in place, without the duplicate check and the errors it already gave.
std::vector<PodData> PrepareAgain(const scheduling::SchedulerState& state,
                                  const std::vector<const Pod*>& pods) {
  std::vector<PodData> ctxs;
  ctxs.reserve(pods.size());
  absl::flat_hash_map<std::string, size_t> label_classes;  // ids only; never iterated
  for (const Pod* p : pods) {
    PodData& c = ctxs.emplace_back();
    if (!PrepareOne(state, *p, nullptr, label_classes, c).empty()) ctxs.pop_back();
  }
  return ctxs;
}

// PreparePods for a simulation: the snapshot's pods are copied from the scheduler's
// PreparedPods (prepared there on first use), the others prepared afresh. Same result.
absl::Status PrepareSimulatedPods(const scheduling::SchedulerState& state,
                                  const std::vector<const Pod*>& pods,
                                  const scheduling::Simulation& simulation,
                                  std::vector<PodData>* ctxs,
                                  std::vector<scheduling::PodInput>* inputs,
                                  std::vector<PodError>* rejected) {
  scheduling::PreparedPods& cache = *state.prepared_pods;
  absl::MutexLock lock(&cache.mu);
  absl::flat_hash_set<std::string> keys;  // of the pods prepared afresh (lookups only)
  std::vector<char> seen(state.snapshot->pods.size(), 0);  // snapshot pods taken from the cache
  for (const Pod* p : pods) {
    if (p == nullptr) return absl::InvalidArgumentError("scheduler: null pod");
    const int64_t i = cache.IndexOf(p);
    const scheduling::PreparedPods::Entry* e = nullptr;
    if (i >= 0) {
      e = cache.Find(static_cast<size_t>(i));
      if (e == nullptr) {
        auto fresh = std::make_unique<scheduling::PreparedPods::Entry>();
        fresh->invalid = PrepareOne(state, *p, nullptr, cache.label_classes, fresh->ctx);
        fresh->bound_key = cache.IsBoundKey(fresh->ctx.key);
        if (fresh->invalid.empty()) {
          scheduling::Topology::Prototypes protos = scheduling::Topology::PrototypesOf(
              fresh->ctx.working(), state.options.preference_policy);
          for (scheduling::Topology::Prototype& proto : protos) {
            // The id leaves out minDomains: equal only with it.
            const std::optional<int32_t>& min = proto.group->min_domains;
            std::string id = internal::StrCat(proto.group->id, "|", min ? *min : -1);
            proto.group = cache.prototypes.try_emplace({proto.inverse, std::move(id)}, proto.group)
                              .first->second;
          }
          fresh->ctx.prototypes =
              std::make_shared<const scheduling::Topology::Prototypes>(std::move(protos));
        }
        e = cache.Set(static_cast<size_t>(i), std::move(fresh));
      }
      // A moving pod with volumes is validated as moving: prepared afresh.
      if (!p->volumes.empty() && simulation.moving.count(e->ctx.key) > 0) e = nullptr;
    }
    if (e != nullptr) {
      if (seen[static_cast<size_t>(i)] != 0 || keys.count(e->ctx.key) > 0) {
        return DuplicatePod(e->ctx.key);
      }
      seen[static_cast<size_t>(i)] = 1;
      if (!e->invalid.empty()) {
        rejected->push_back({e->ctx.key, e->invalid});
      } else {
        inputs->push_back({&e->ctx, 0, e->bound_key});
      }
      continue;
    }
    PodData c;
    std::string invalid = PrepareOne(state, *p, &simulation, cache.label_classes, c);
    const int64_t same = cache.IndexOfKey(c.key);
    if (!keys.insert(c.key).second || (same >= 0 && seen[static_cast<size_t>(same)] != 0)) {
      return DuplicatePod(c.key);
    }
    if (!invalid.empty()) {
      rejected->push_back({c.key, invalid});
      continue;
    }
    inputs->push_back({nullptr, ctxs->size(), false});
    ctxs->push_back(std::move(c));
  }
  return absl::OkStatus();
}

// SolveImpl's last step: the pod count and the pods rejected by validation, by key.
SolveResult Finish(const std::vector<const Pod*>& pods, std::vector<PodError> rejected,
                   SolveResult result) {
  result.pod_count = static_cast<int>(pods.size());
  if (!rejected.empty()) {
    result.pod_errors.insert(result.pod_errors.end(), rejected.begin(), rejected.end());
    std::sort(result.pod_errors.begin(), result.pod_errors.end(),
              [](const PodError& a, const PodError& b) { return a.pod < b.pod; });
  }
  return result;
}

absl::StatusOr<SolveResult> SolveImpl(const scheduling::SchedulerState& state,
                                      const std::vector<const Pod*>& pods,
                                      const scheduling::Simulation* simulation) {
  std::vector<PodData> ctxs;
  ctxs.reserve(pods.size());
  std::vector<PodError> rejected;
  if (simulation != nullptr) {
    std::vector<scheduling::PodInput> inputs;
    absl::Status s = PrepareSimulatedPods(state, pods, *simulation, &ctxs, &inputs, &rejected);
    if (!s.ok()) return s;
    scheduling::Solver solver(state, std::move(ctxs), std::move(inputs), simulation);
    return Finish(pods, std::move(rejected), solver.Run());
  }
  if (absl::Status s = PreparePods(state, pods, &ctxs, &rejected); !s.ok()) return s;
  const bool bound = state.options.compute_lower_bound;
  std::map<std::string, const Pod*> by_key;
  if (bound) {
    for (const PodData& c : ctxs) by_key.emplace(c.key, c.original);
  }
  SolveResult result;
  if (state.options.packing == PackingMode::kCost) {
    // Each of its solves prepares the pods again (the same contexts) instead of copying these.
    result = scheduling::SolveCostMode(state, std::move(ctxs),
                                       [&state, &pods]() { return PrepareAgain(state, pods); });
  } else {
    scheduling::Solver solver(state, std::move(ctxs), nullptr);
    result = solver.Run();
  }
  if (bound) SetLowerBound(state, by_key, result);
  return Finish(pods, std::move(rejected), std::move(result));
}

}  // namespace

absl::Status SchedulerOptions::Validate() const {
  if (max_instance_types < 1) {
    return absl::InvalidArgumentError("scheduler options: max_instance_types must be >= 1");
  }
  if (absl::Status s = ValidateDefaultTopologySpread(default_topology_spread); !s.ok()) {
    return absl::InvalidArgumentError(
        internal::StrCat("scheduler options: default_topology_spread: ", internal::Message(s)));
  }
  if (time_limit <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("scheduler options: time_limit must be positive");
  }
  if (cost_attempts < 0 || cost_attempts > 10) {
    return absl::InvalidArgumentError(
        "scheduler options: cost_attempts must be from 0 (auto) to 10");
  }
  if (cost_repack_rounds < 0 || cost_repack_rounds > 3) {
    return absl::InvalidArgumentError("scheduler options: cost_repack_rounds must be from 0 to 3");
  }
  if (cost_threads < 0) {
    return absl::InvalidArgumentError("scheduler options: cost_threads must be >= 0");
  }
  if (cost_time_limit <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("scheduler options: cost_time_limit must be positive");
  }
  return absl::OkStatus();
}

double SolveResult::LaunchPricePerHour() const {
  double total = 0;
  for (const NewNodeClaim& nc : node_claims) {
    if (nc.launch) total += nc.launch->price;
  }
  return total;
}

absl::StatusOr<Scheduler> Scheduler::Create(const ClusterSnapshot& snapshot,
                                            std::shared_ptr<const InstanceCatalog> catalog,
                                            const SchedulerOptions& options) {
  if (!catalog) return absl::InvalidArgumentError("scheduler: catalog must not be null");
  absl::StatusOr<std::shared_ptr<scheduling::SchedulerState>> state =
      PrepareChecked(snapshot, {std::move(catalog), {}}, options);
  if (!state.ok()) return state.status();
  return Scheduler(std::move(*state));
}

absl::StatusOr<Scheduler> Scheduler::Create(ClusterSnapshot&& snapshot,
                                            std::shared_ptr<const InstanceCatalog> catalog,
                                            const SchedulerOptions& options) {
  if (!catalog) return absl::InvalidArgumentError("scheduler: catalog must not be null");
  absl::StatusOr<std::shared_ptr<scheduling::SchedulerState>> state =
      PrepareChecked(std::move(snapshot), {std::move(catalog), {}}, options);
  if (!state.ok()) return state.status();
  return Scheduler(std::move(*state));
}

absl::StatusOr<Scheduler> Scheduler::Create(
    const ClusterSnapshot& snapshot,
    std::map<std::string, std::shared_ptr<const InstanceCatalog>> catalogs_by_node_pool,
    const SchedulerOptions& options) {
  absl::StatusOr<std::shared_ptr<scheduling::SchedulerState>> state =
      PrepareChecked(snapshot, {nullptr, std::move(catalogs_by_node_pool)}, options);
  if (!state.ok()) return state.status();
  return Scheduler(std::move(*state));
}

const SchedulerOptions& Scheduler::options() const { return state_->options; }

absl::StatusOr<Scheduler> Scheduler::Update(const ClusterSnapshot& snapshot) const {
  const scheduling::SchedulerState& old = *state_;
  const scheduling::PoolCatalogs catalogs{old.catalog, old.catalogs_by_node_pool};
  // Daemon overhead comes from the DaemonSets and the newest pod each controls (§2.4).
  if (snapshot.node_pools != old.snapshot->node_pools ||
      snapshot.daemon_sets != old.snapshot->daemon_sets ||
      DaemonPods(snapshot) != old.pools->daemon_pods) {
    absl::StatusOr<std::shared_ptr<scheduling::SchedulerState>> state =
        PrepareChecked(snapshot, catalogs, old.options);
    if (!state.ok()) return state.status();
    return Scheduler(std::move(*state));
  }
  std::shared_ptr<const ClusterSnapshot> shared = WithDefaults(snapshot, old.options);
  if (absl::Status s = shared->Validate(); !s.ok()) return s;
  std::shared_ptr<scheduling::SchedulerState> state =
      scheduling::PrepareCluster(std::move(shared), old.pools, catalogs, old.options);
  state->catalog = old.catalog;
  state->catalogs_by_node_pool = old.catalogs_by_node_pool;
  // The reused templates point at the NodePools of the snapshot they were prepared from.
  state->pools_snapshot = old.pools_snapshot ? old.pools_snapshot : old.snapshot;
  return Scheduler(std::move(state));
}

namespace {

// The reference's IsCurrentlyReschedulable (pkg/utils/pdb/pdb.go, docs/design.md §5.3): no
// capacity is provisioned for a pod of a deleting node whose eviction can never succeed —
// selected by more than one PDB (the eviction API refuses such pods) or by one fully blocking
// PDB. A pod tolerating the disrupted taint is not evicted, and an unhealthy pod under
// `unhealthyPodEvictionPolicy: AlwaysAllow` always can be (karp reads "unhealthy" as not
// Running, as the consolidator does).
bool FullyBlockedByPdbs(const Pod& p, const std::vector<PodDisruptionBudget>& pdbs) {
  if (ToleratesTaint(p.tolerations, DisruptedTaint())) return false;
  const PodDisruptionBudget* selecting = nullptr;
  for (const PodDisruptionBudget& pdb : pdbs) {
    if (!pdb.Selects(p)) continue;
    if (selecting != nullptr) return true;
    selecting = &pdb;
  }
  if (selecting == nullptr) return false;
  if (selecting->unhealthy_pod_eviction_policy == "AlwaysAllow" && p.phase != "Running") {
    return false;
  }
  return selecting->FullyBlocking();
}

}  // namespace

absl::StatusOr<SolveResult> Scheduler::Solve() const {
  // Pending pods, plus the reschedulable pods of nodes being deleted (docs/design.md §5.3 step 3).
  std::vector<const Pod*> pods = state_->snapshot->PendingPods();
  std::set<std::string> deleting;
  std::map<std::string_view, const NodeClaim*> claim_by_node;
  for (const NodeClaim& nc : state_->snapshot->node_claims) {
    if (!nc.node_name.empty()) claim_by_node.emplace(nc.node_name, &nc);
  }
  for (const Node& n : state_->snapshot->nodes) {
    auto claim = claim_by_node.find(n.metadata.name);
    bool disrupted = NodeDeleting(n, claim == claim_by_node.end() ? nullptr : claim->second);
    for (const Taint& t : n.taints) disrupted |= t.key == DisruptedTaint().key;
    if (disrupted) deleting.insert(n.metadata.name);
  }
  if (!deleting.empty()) {
    for (const Pod& p : state_->snapshot->pods) {
      if (p.node_name.empty() || deleting.count(p.node_name) == 0) continue;
      if (p.IsDaemon() || p.IsOwnedBy("Node") || p.IsTerminal()) continue;
      if (p.IsTerminating() && !p.IsOwnedBy("StatefulSet")) continue;
      auto dnd = p.metadata.annotations.find(std::string(kAnnotationDoNotDisrupt));
      if (dnd != p.metadata.annotations.end() && dnd->second == "true") continue;
      if (FullyBlockedByPdbs(p, state_->snapshot->pdbs)) continue;
      pods.push_back(&p);
    }
  }
  return Solve(pods);
}

absl::StatusOr<SolveResult> Scheduler::Solve(const std::vector<const Pod*>& pods) const {
  return SolveImpl(*state_, pods, nullptr);
}

absl::StatusOr<Scheduler> scheduling::Access::CreateUnchecked(
    std::shared_ptr<const ClusterSnapshot> snapshot, const PoolCatalogs& catalogs,
    const SchedulerOptions& options, std::shared_ptr<const PoolsState> reuse) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  if (!reuse) {
    absl::StatusOr<std::shared_ptr<const PoolsState>> pools =
        scheduling::PreparePools(*snapshot, catalogs, options);
    if (!pools.ok()) return pools.status();
    reuse = std::move(*pools);
  }
  std::shared_ptr<scheduling::SchedulerState> state =
      PrepareCluster(std::move(snapshot), std::move(reuse), catalogs, options);
  state->catalog = catalogs.shared;
  state->catalogs_by_node_pool = catalogs.by_node_pool;
  return Scheduler(std::move(state));
}

absl::StatusOr<std::shared_ptr<const scheduling::PoolsState>> scheduling::Access::PreparePools(
    const ClusterSnapshot& snapshot, const PoolCatalogs& catalogs,
    const SchedulerOptions& options) {
  return scheduling::PreparePools(snapshot, catalogs, options);
}

std::shared_ptr<const scheduling::PoolsState> scheduling::Access::PoolsOf(
    const Scheduler& scheduler) {
  return scheduler.state_->pools;
}

Scheduler scheduling::Access::WithTuning(const Scheduler& scheduler, const SolverTuning& tuning) {
  auto state = std::make_shared<scheduling::SchedulerState>(*scheduler.state_);
  state->tuning = tuning;
  return Scheduler(std::move(state));
}

absl::StatusOr<SolveResult> scheduling::Access::Simulate(const Scheduler& scheduler,
                                                         const std::vector<const Pod*>& pods,
                                                         const Simulation& simulation) {
  return SolveImpl(*scheduler.state_, pods, &simulation);
}

}  // namespace karp
