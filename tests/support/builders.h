// Fixture builders for tests and benchmarks of the scheduler (header-only).
//
// Everything is in namespace karp::testing and is plain value construction: no scheduler
// internals. Quantities are Kubernetes quantity strings ("500m", "2Gi"); a malformed one is a
// bug in the test and aborts.
//
//   karp::ClusterSnapshot snap;
//   snap.node_pools.push_back(MakeNodePool("default"));
//   snap.pods.push_back(MakePod("web-0", "500m", "1Gi").Label("app", "web"));
//   auto catalog = FakeCatalog(10);  // docs/design.md §4.5 InstanceTypes(10)
//
// Defaults are chosen so that a test states only what matters to it: pods are in namespace
// "default" with uid = name and creation time = Unix epoch (so queue ties fall to the uid),
// nodes carry their hostname label and allocatable = capacity, in-flight NodeClaims are
// Launched but not Registered/Initialized.

#ifndef KARP_TESTS_SUPPORT_BUILDERS_H_
#define KARP_TESTS_SUPPORT_BUILDERS_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/scheduler.h"
#include "karp/taints.h"

namespace karp::testing {

inline constexpr std::string_view kZone1 = "test-zone-1";
inline constexpr std::string_view kZone2 = "test-zone-2";
inline constexpr std::string_view kZone3 = "test-zone-3";

inline std::vector<std::string> AllZones() {
  return {std::string(kZone1), std::string(kZone2), std::string(kZone3)};
}

[[noreturn]] inline void BuilderFailure(std::string_view what) {
  std::fprintf(stderr, "karp::testing builder failure: %.*s\n", static_cast<int>(what.size()),
               what.data());
  std::abort();
}

// A quantity in canonical units (millicores for cpu, bytes for memory).
inline int64_t Quantity(std::string_view text, std::string_view resource) {
  absl::StatusOr<int64_t> q = ParseQuantity(text, resource);
  if (!q.ok()) BuilderFailure(std::string(q.status().message()));
  return *q;
}

// {"cpu": cpu, "memory": memory, "pods": pods}; an empty string or a negative pod count leaves
// that resource out.
inline ResourceList Resources(std::string_view cpu, std::string_view memory = "",
                              int64_t pods = -1) {
  ResourceList r;
  if (!cpu.empty()) r.Set(kResourceCpu, Quantity(cpu, kResourceCpu));
  if (!memory.empty()) r.Set(kResourceMemory, Quantity(memory, kResourceMemory));
  if (pods >= 0) r.Set(kResourcePods, pods);
  return r;
}

// Any resource list from {name, quantity} pairs, e.g. Res({{"cpu", "10"}, {"nodes", "1"}}).
inline ResourceList Res(std::initializer_list<std::pair<std::string_view, std::string_view>> kv) {
  ResourceList r;
  for (const auto& [name, text] : kv) r.Set(name, Quantity(text, name));
  return r;
}

// A node-selector expression (NodePool requirement or pod node-affinity term entry).
inline NodeSelectorRequirement Expr(std::string key, Operator op,
                                    std::vector<std::string> values = {},
                                    std::optional<int> min_values = std::nullopt) {
  return NodeSelectorRequirement{std::move(key), op, std::move(values), min_values};
}

inline Taint MakeTaint(std::string key, std::string value = "",
                       TaintEffect effect = TaintEffect::kNoSchedule) {
  return Taint{std::move(key), std::move(value), effect};
}

// Toleration with operator Equal.
inline Toleration TolerateEqual(std::string key, std::string value,
                                TaintEffect effect = TaintEffect::kNone) {
  return Toleration{std::move(key), TolerationOperator::kEqual, std::move(value), effect};
}

// Toleration with operator Exists (an empty key tolerates every key).
inline Toleration TolerateExists(std::string key, TaintEffect effect = TaintEffect::kNone) {
  return Toleration{std::move(key), TolerationOperator::kExists, "", effect};
}

inline LabelSelector MatchLabels(std::map<std::string, std::string> labels) {
  LabelSelector s;
  s.match_labels = std::move(labels);
  return s;
}

// A topology spread constraint selecting `match_labels`.
inline TopologySpreadConstraint SpreadConstraint(
    std::string topology_key, int32_t max_skew, std::map<std::string, std::string> match_labels,
    WhenUnsatisfiable when = WhenUnsatisfiable::kDoNotSchedule) {
  TopologySpreadConstraint t;
  t.topology_key = std::move(topology_key);
  t.max_skew = max_skew;
  t.when_unsatisfiable = when;
  t.label_selector = MatchLabels(std::move(match_labels));
  return t;
}

inline PodAffinityTerm AffinityTerm(std::string topology_key,
                                    std::map<std::string, std::string> match_labels) {
  PodAffinityTerm t;
  t.topology_key = std::move(topology_key);
  t.label_selector = MatchLabels(std::move(match_labels));
  return t;
}

// ---------------------------------------------------------------------------------------------
// Pods

class PodBuilder {
 public:
  PodBuilder(std::string name, std::string_view cpu, std::string_view memory) {
    pod_.metadata.name = name;
    pod_.metadata.namespace_ = "default";
    pod_.metadata.uid = std::move(name);
    pod_.phase = "Pending";
    karp::Container c;
    c.name = "app";
    c.requests = Resources(cpu, memory);
    pod_.containers.push_back(std::move(c));
  }

  PodBuilder& Namespace(std::string ns) {
    pod_.metadata.namespace_ = std::move(ns);
    return *this;
  }
  PodBuilder& Uid(std::string uid) {
    pod_.metadata.uid = std::move(uid);
    return *this;
  }
  // Creation time as seconds after the Unix epoch.
  PodBuilder& CreatedAt(int64_t seconds) {
    pod_.metadata.creation_timestamp = absl::FromUnixSeconds(seconds);
    return *this;
  }
  PodBuilder& Label(std::string key, std::string value) {
    pod_.metadata.labels[std::move(key)] = std::move(value);
    return *this;
  }
  PodBuilder& Annotation(std::string key, std::string value) {
    pod_.metadata.annotations[std::move(key)] = std::move(value);
    return *this;
  }
  PodBuilder& NodeSelector(std::string key, std::string value) {
    pod_.node_selector[std::move(key)] = std::move(value);
    return *this;
  }
  PodBuilder& Tolerate(Toleration t) {
    pod_.tolerations.push_back(std::move(t));
    return *this;
  }
  // Appends a required node-affinity term (terms are ORed).
  PodBuilder& RequiredTerm(std::vector<NodeSelectorRequirement> exprs) {
    NodeSelectorTerm term;
    term.match_expressions = std::move(exprs);
    pod_.node_affinity.required.push_back(std::move(term));
    return *this;
  }
  PodBuilder& PreferredTerm(int32_t weight, std::vector<NodeSelectorRequirement> exprs) {
    PreferredSchedulingTerm term;
    term.weight = weight;
    term.preference.match_expressions = std::move(exprs);
    pod_.node_affinity.preferred.push_back(std::move(term));
    return *this;
  }
  PodBuilder& Affinity(std::string topology_key, std::map<std::string, std::string> labels) {
    pod_.pod_affinity.required.push_back(AffinityTerm(std::move(topology_key), std::move(labels)));
    return *this;
  }
  PodBuilder& AntiAffinity(std::string topology_key, std::map<std::string, std::string> labels) {
    pod_.pod_anti_affinity.required.push_back(
        AffinityTerm(std::move(topology_key), std::move(labels)));
    return *this;
  }
  PodBuilder& PreferredAffinity(int32_t weight, std::string topology_key,
                                std::map<std::string, std::string> labels) {
    pod_.pod_affinity.preferred.push_back(
        {weight, AffinityTerm(std::move(topology_key), std::move(labels))});
    return *this;
  }
  PodBuilder& PreferredAntiAffinity(int32_t weight, std::string topology_key,
                                    std::map<std::string, std::string> labels) {
    pod_.pod_anti_affinity.preferred.push_back(
        {weight, AffinityTerm(std::move(topology_key), std::move(labels))});
    return *this;
  }
  PodBuilder& Spread(TopologySpreadConstraint tsc) {
    pod_.topology_spread_constraints.push_back(std::move(tsc));
    return *this;
  }
  // A host port on the first regular container.
  PodBuilder& HostPort(int32_t port, std::string protocol = "TCP", std::string host_ip = "") {
    ContainerPort p;
    p.container_port = port;
    p.host_port = port;
    p.protocol = std::move(protocol);
    p.host_ip = std::move(host_ip);
    pod_.containers.front().ports.push_back(std::move(p));
    return *this;
  }
  // An extra regular container.
  PodBuilder& ExtraContainer(std::string_view cpu, std::string_view memory = "") {
    karp::Container c;
    c.name = "app-" + std::to_string(pod_.containers.size());
    c.requests = Resources(cpu, memory);
    pod_.containers.push_back(std::move(c));
    return *this;
  }
  // An init container; `sidecar` makes it restartable (restartPolicy Always).
  PodBuilder& InitContainer(std::string_view cpu, std::string_view memory = "",
                            bool sidecar = false) {
    karp::Container c;
    c.name = "init-" + std::to_string(pod_.init_containers.size());
    c.requests = Resources(cpu, memory);
    if (sidecar) c.restart_policy = "Always";
    pod_.init_containers.push_back(std::move(c));
    return *this;
  }
  PodBuilder& Request(std::string_view resource, std::string_view quantity) {
    pod_.containers.front().requests.Set(resource, Quantity(quantity, resource));
    return *this;
  }
  PodBuilder& OwnedBy(std::string kind, std::string name) {
    OwnerReference o;
    o.api_version = kind == "DaemonSet" ? "apps/v1" : "v1";
    o.kind = std::move(kind);
    o.name = std::move(name);
    o.uid = o.name + "-uid";
    o.controller = true;
    pod_.metadata.owner_references.push_back(std::move(o));
    return *this;
  }
  // Binds the pod to `node` (phase Running unless given).
  PodBuilder& BoundTo(std::string node, std::string phase = "Running") {
    pod_.node_name = std::move(node);
    pod_.phase = std::move(phase);
    return *this;
  }
  PodBuilder& Phase(std::string phase) {
    pod_.phase = std::move(phase);
    return *this;
  }
  // A volume backed by the PersistentVolumeClaim `claim` (in the pod's namespace).
  PodBuilder& ClaimVolume(std::string volume, std::string claim) {
    pod_.volumes.push_back(PodVolume{std::move(volume), std::move(claim), false});
    return *this;
  }
  // A generic ephemeral volume: its claim is "<pod>-<volume>".
  PodBuilder& EphemeralVolume(std::string volume) {
    pod_.volumes.push_back(PodVolume{std::move(volume), "", true});
    return *this;
  }

  Pod& pod() { return pod_; }
  Pod Build() const { return pod_; }
  operator Pod() const { return pod_; }  // NOLINT(google-explicit-constructor)

 private:
  Pod pod_;
};

// A pending pod in namespace "default" with one container requesting cpu and memory (empty
// strings: no request).
inline PodBuilder MakePod(std::string name, std::string_view cpu = "",
                          std::string_view memory = "") {
  return PodBuilder(std::move(name), cpu, memory);
}

// ---------------------------------------------------------------------------------------------
// NodePools and DaemonSets

inline NodePool MakeNodePool(std::string name,
                             std::vector<NodeSelectorRequirement> requirements = {},
                             std::vector<Taint> taints = {}, ResourceList limits = {},
                             std::optional<int32_t> weight = std::nullopt) {
  NodePool np;
  np.metadata.name = std::move(name);
  np.requirements = std::move(requirements);
  np.taints = std::move(taints);
  np.limits = std::move(limits);
  np.weight = weight;
  return np;
}

// A DaemonSet whose pods look like `pod_template` (its namespace/name default to the set's).
inline DaemonSet MakeDaemonSet(std::string name, Pod pod_template) {
  DaemonSet ds;
  ds.metadata.name = name;
  ds.metadata.namespace_ = "kube-system";
  ds.pod_template = std::move(pod_template);
  ds.pod_template.metadata.namespace_ = "kube-system";
  ds.pod_template.metadata.owner_references.clear();
  OwnerReference o{"apps/v1", "DaemonSet", name, name + "-uid", true};
  ds.pod_template.metadata.owner_references.push_back(std::move(o));
  return ds;
}

// ---------------------------------------------------------------------------------------------
// Instance types and catalogs

// One available offering per (zone, capacity type), all at `price`.
inline std::vector<Offering> MakeOfferings(const std::vector<std::string>& zones,
                                           const std::vector<std::string>& capacity_types,
                                           double price) {
  std::vector<Offering> out;
  for (const std::string& ct : capacity_types) {
    for (const std::string& z : zones) out.push_back(Offering{z, ct, price, true, "", 0});
  }
  return out;
}

// An instance type without kubelet overhead (allocatable = capacity), offered in `zones` x
// `capacity_types` at `price`, labelled amd64/linux unless `labels` says otherwise.
inline InstanceType MakeInstanceType(
    std::string name, std::string_view cpu, std::string_view memory, int64_t pods,
    std::vector<std::string> zones = AllZones(),
    std::vector<std::string> capacity_types = {std::string(kCapacityTypeOnDemand)},
    double price = 1.0,
    std::map<std::string, std::string> labels = {{std::string(kLabelArch), "amd64"},
                                                 {std::string(kLabelOs), "linux"}}) {
  return InstanceType::Make(std::move(name), std::move(labels), Resources(cpu, memory, pods),
                            Overhead{}, MakeOfferings(zones, capacity_types, price));
}

// The label keys the fake provider registers as well-known (docs/design.md §4.5).
inline LabelSet FakeWellKnownLabels() { return LabelSet{"size", "special", "integer"}; }

// karpenter fake `InstanceTypes(n)` (docs/design.md §4.5): fake-it-<i> with cpu i+1, memory
// 2(i+1)Gi, pods 10(i+1), price (i+1)*0.3147483648 on spot/test-zone-1, spot/test-zone-2,
// on-demand/test-zone-1,2,3; kube-reserved cpu 100m memory 10Mi; arch amd64, os {darwin, linux,
// windows}; size small (cpu <= 4) or large with special=optional (cpu > 4, memory > 8Gi);
// integer = cpu.
inline std::vector<InstanceType> FakeInstanceTypes(int n) {
  std::vector<InstanceType> out;
  for (int i = 0; i < n; ++i) {
    const int64_t cores = i + 1;
    const double price = static_cast<double>(cores) * 0.3147483648;
    std::vector<Offering> offerings = {
        {std::string(kZone1), "spot", price, true, "", 0},
        {std::string(kZone2), "spot", price, true, "", 0},
        {std::string(kZone1), "on-demand", price, true, "", 0},
        {std::string(kZone2), "on-demand", price, true, "", 0},
        {std::string(kZone3), "on-demand", price, true, "", 0},
    };
    ResourceList capacity;
    capacity.Set(kResourceCpu, cores * 1000);
    capacity.Set(kResourceMemory, 2 * cores * (int64_t{1} << 30));
    capacity.Set(kResourcePods, 10 * cores);
    Overhead overhead;
    overhead.kube_reserved = Resources("100m", "10Mi");
    const bool large = cores > 4 && 2 * cores > 8;
    std::map<std::string, std::string> labels = {{std::string(kLabelArch), "amd64"},
                                                 {"size", large ? "large" : "small"},
                                                 {"integer", std::to_string(cores)}};
    if (large) labels["special"] = "optional";
    InstanceType it =
        InstanceType::Make("fake-it-" + std::to_string(i), std::move(labels), std::move(capacity),
                           std::move(overhead), std::move(offerings));
    Requirements extra;
    extra.Add(Requirement::In(kLabelOs, {"darwin", "linux", "windows"}));
    if (!large) extra.Add(Requirement::DoesNotExist("special"));
    it.RebuildRequirements(extra);
    out.push_back(std::move(it));
  }
  return out;
}

inline std::shared_ptr<const InstanceCatalog> MakeCatalog(
    std::vector<InstanceType> types, const LabelSet& well_known = FakeWellKnownLabels()) {
  absl::StatusOr<InstanceCatalog> c = InstanceCatalog::Create(std::move(types), well_known);
  if (!c.ok()) BuilderFailure(std::string(c.status().message()));
  return std::make_shared<const InstanceCatalog>(std::move(*c));
}

inline std::shared_ptr<const InstanceCatalog> FakeCatalog(int n) {
  return MakeCatalog(FakeInstanceTypes(n));
}

// ---------------------------------------------------------------------------------------------
// Existing capacity: nodes and in-flight NodeClaims

// A Ready node with capacity = allocatable = {cpu, memory, pods} and its hostname label.
inline Node MakeNode(std::string name, std::string_view cpu, std::string_view memory,
                     int64_t pods = 110, std::map<std::string, std::string> labels = {},
                     std::vector<Taint> taints = {}) {
  Node n;
  n.metadata.name = name;
  n.metadata.labels = std::move(labels);
  n.metadata.labels.emplace(std::string(kLabelHostname), name);
  n.taints = std::move(taints);
  n.capacity = Resources(cpu, memory, pods);
  n.allocatable = n.capacity;
  n.provider_id = "fake:///" + name;
  n.conditions.push_back(NodeCondition{"Ready", "True", "", "", absl::UnixEpoch()});
  return n;
}

// Labels of a node launched by Karpenter for `pool` (initialized unless told otherwise).
inline std::map<std::string, std::string> ManagedNodeLabels(
    std::string pool, std::string instance_type, std::string zone,
    std::string capacity_type = std::string(kCapacityTypeOnDemand), bool initialized = true) {
  std::map<std::string, std::string> l = {
      {std::string(kLabelNodePool), std::move(pool)},
      {std::string(kLabelInstanceType), std::move(instance_type)},
      {std::string(kLabelZone), std::move(zone)},
      {std::string(kLabelCapacityType), std::move(capacity_type)},
      {std::string(kLabelArch), "amd64"},
      {std::string(kLabelOs), "linux"},
      {std::string(kLabelRegistered), "true"},
  };
  if (initialized) l[std::string(kLabelInitialized)] = "true";
  return l;
}

// A NodeClaim of `pool` that is launched but has no node yet (in flight), with capacity =
// allocatable = {cpu, memory, pods}. `labels` are the resolved labels a launch reports
// (instance type, zone, ...); the nodepool label is added.
inline NodeClaim MakeNodeClaim(std::string name, std::string pool, std::string_view cpu,
                               std::string_view memory, int64_t pods = 110,
                               std::map<std::string, std::string> labels = {}) {
  NodeClaim nc;
  nc.metadata.name = std::move(name);
  nc.metadata.labels = std::move(labels);
  nc.metadata.labels[std::string(kLabelNodePool)] = pool;
  nc.requirements.push_back(Expr(std::string(kLabelNodePool), Operator::kIn, {std::move(pool)}));
  nc.capacity = Resources(cpu, memory, pods);
  nc.allocatable = nc.capacity;
  nc.provider_id = "fake:///" + nc.metadata.name;
  nc.conditions.push_back(NodeCondition{"Launched", "True", "Launched", "", absl::UnixEpoch()});
  nc.conditions.push_back(
      NodeCondition{"Registered", "False", "NotRegistered", "", absl::UnixEpoch()});
  nc.conditions.push_back(
      NodeCondition{"Initialized", "False", "NotInitialized", "", absl::UnixEpoch()});
  return nc;
}

// ---------------------------------------------------------------------------------------------
// Result lookups

// The new NodeClaim that holds `pod` ("namespace/name"), or nullptr.
inline const NewNodeClaim* ClaimOf(const SolveResult& r, std::string_view pod) {
  for (const NewNodeClaim& nc : r.node_claims) {
    for (const std::string& p : nc.pods) {
      if (p == pod) return &nc;
    }
  }
  return nullptr;
}

// The existing node or in-flight NodeClaim that received `pod`, or nullptr.
inline const ExistingPlacement* PlacementOf(const SolveResult& r, std::string_view pod) {
  for (const ExistingPlacement& e : r.existing_nodes) {
    for (const std::string& p : e.pods) {
      if (p == pod) return &e;
    }
  }
  return nullptr;
}

// The error message of `pod`, or nullopt when it has none.
inline std::optional<std::string> ErrorOf(const SolveResult& r, std::string_view pod) {
  for (const PodError& e : r.pod_errors) {
    if (e.pod == pod) return e.message;
  }
  return std::nullopt;
}

// A readable dump of a result for failure messages.
inline std::string Describe(const SolveResult& r) {
  std::string out;
  for (const NewNodeClaim& nc : r.node_claims) {
    out += "claim " + nc.name + " pool=" + nc.node_pool + " pods=[";
    for (const std::string& p : nc.pods) out += p + " ";
    out += "] types=[";
    for (const std::string& t : nc.instance_types) out += t + " ";
    out += "] requests=" + nc.requests.ToString() + " reqs={" + nc.requirements.ToString() + "}";
    if (nc.launch) {
      out += " launch=" + nc.launch->instance_type + "/" + nc.launch->zone + "/" +
             nc.launch->capacity_type + "@" + std::to_string(nc.launch->price);
    }
    out += "\n";
  }
  for (const ExistingPlacement& e : r.existing_nodes) {
    out += std::string(e.in_flight ? "in-flight " : "node ") + e.name + " pods=[";
    for (const std::string& p : e.pods) out += p + " ";
    out += "]\n";
  }
  for (const PodError& e : r.pod_errors) out += "error " + e.pod + ": " + e.message + "\n";
  return out;
}

// Field-by-field equality of two results (determinism checks).
inline bool SameResult(const SolveResult& a, const SolveResult& b) {
  if (a.pod_count != b.pod_count || a.timed_out != b.timed_out) return false;
  if (a.node_claims.size() != b.node_claims.size()) return false;
  for (size_t i = 0; i < a.node_claims.size(); ++i) {
    const NewNodeClaim& x = a.node_claims[i];
    const NewNodeClaim& y = b.node_claims[i];
    if (x.name != y.name || x.node_pool != y.node_pool || x.instance_types != y.instance_types ||
        x.requirements != y.requirements || x.requests != y.requests || x.pods != y.pods ||
        x.labels != y.labels || x.annotations != y.annotations || x.taints != y.taints ||
        x.startup_taints != y.startup_taints || x.launch.has_value() != y.launch.has_value()) {
      return false;
    }
    if (x.launch &&
        (x.launch->instance_type != y.launch->instance_type || x.launch->zone != y.launch->zone ||
         x.launch->capacity_type != y.launch->capacity_type ||
         x.launch->price != y.launch->price)) {
      return false;
    }
  }
  if (a.existing_nodes.size() != b.existing_nodes.size()) return false;
  for (size_t i = 0; i < a.existing_nodes.size(); ++i) {
    const ExistingPlacement& x = a.existing_nodes[i];
    const ExistingPlacement& y = b.existing_nodes[i];
    if (x.name != y.name || x.in_flight != y.in_flight || x.pods != y.pods) return false;
  }
  if (a.pod_errors.size() != b.pod_errors.size()) return false;
  for (size_t i = 0; i < a.pod_errors.size(); ++i) {
    if (a.pod_errors[i].pod != b.pod_errors[i].pod ||
        a.pod_errors[i].message != b.pod_errors[i].message) {
      return false;
    }
  }
  return true;
}

}  // namespace karp::testing

#endif  // KARP_TESTS_SUPPORT_BUILDERS_H_
