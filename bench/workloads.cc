#include "workloads.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <initializer_list>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karp/aws_catalog.h"
#include "karp/labels.h"

namespace karp::bench {
namespace {

constexpr int64_t kGi = 1LL << 30;
constexpr int64_t kMi = 1LL << 20;

std::string RandomLabel(std::mt19937& rng) {
  static const char* kValues[] = {"a", "b", "c", "d", "e", "f", "g"};
  return kValues[std::uniform_int_distribution<int>(0, 6)(rng)];
}

int64_t RandomCpu(std::mt19937& rng) {
  static const int64_t kValues[] = {100, 250, 500, 1000, 1500};
  return kValues[std::uniform_int_distribution<int>(0, 4)(rng)];
}

int64_t RandomMemory(std::mt19937& rng) {
  static const int64_t kValues[] = {100 * kMi,  256 * kMi,  512 * kMi,
                                    1024 * kMi, 2048 * kMi, 4096 * kMi};
  return kValues[std::uniform_int_distribution<int>(0, 5)(rng)];
}

Pod BasePod(int index, int64_t cpu, int64_t memory) {
  Pod p;
  p.metadata.name = "pod-" + std::to_string(index);
  p.metadata.namespace_ = "default";
  char uid[40];
  std::snprintf(uid, sizeof(uid), "00000000-0000-4000-8000-%012d", index);
  p.metadata.uid = uid;
  p.metadata.creation_timestamp = absl::FromUnixSeconds(1767225600);
  p.metadata.labels["testing/cluster"] = "unspecified";
  Container c;
  c.name = "app";
  c.requests.Set("cpu", cpu);
  c.requests.Set("memory", memory);
  p.containers.push_back(std::move(c));
  p.phase = "Pending";
  return p;
}

LabelSelector Selector(const std::string& key, const std::string& value) {
  LabelSelector s;
  s.match_labels[key] = value;
  return s;
}

NodeSelectorRequirement Expr(std::string_view key, Operator op, std::vector<std::string> values) {
  return NodeSelectorRequirement{std::string(key), op, std::move(values), std::nullopt};
}

Toleration TolerateGpu() {
  return Toleration{std::string(kAwsResourceNvidiaGpu), TolerationOperator::kExists, "",
                    TaintEffect::kNone};
}

DaemonSet MakeDaemonSet(const std::string& name, int64_t cpu, int64_t memory) {
  DaemonSet ds;
  ds.metadata.name = name;
  ds.metadata.namespace_ = "kube-system";
  Pod& p = ds.pod_template;
  p.metadata.name = name;
  p.metadata.namespace_ = "kube-system";
  p.metadata.owner_references.push_back({"apps/v1", "DaemonSet", name, name + "-uid", true});
  Container c;
  c.name = name;
  c.requests.Set("cpu", cpu);
  c.requests.Set("memory", memory);
  p.containers.push_back(std::move(c));
  return ds;
}

// The NodePools and DaemonSets shared by the realistic and the trace workloads.
ClusterSnapshot AwsBaseSnapshot() {
  ClusterSnapshot snap;
  const NodeClassRef node_class{"karpenter.k8s.aws", "EC2NodeClass", "default"};
  NodePool general;
  general.metadata.name = "general";
  general.node_class_ref = node_class;
  general.weight = 50;
  general.requirements = {Expr(kLabelArch, Operator::kIn, {"amd64"}),
                          Expr(kLabelCapacityType, Operator::kIn, {"spot", "on-demand"}),
                          Expr(kAwsLabelInstanceCategory, Operator::kIn, {"c", "m", "r"}),
                          Expr(kAwsLabelInstanceGeneration, Operator::kGt, {"4"})};
  NodePool arm = general;
  arm.metadata.name = "arm64";
  arm.weight = 10;
  arm.requirements[0] = Expr(kLabelArch, Operator::kIn, {"arm64"});
  arm.requirements[3] = Expr(kAwsLabelInstanceGeneration, Operator::kGt, {"5"});
  NodePool gpu;
  gpu.metadata.name = "gpu";
  gpu.node_class_ref = node_class;
  gpu.requirements = {Expr(kAwsLabelInstanceGpuManufacturer, Operator::kIn, {"nvidia"}),
                      Expr(kLabelCapacityType, Operator::kIn, {"on-demand"})};
  gpu.taints = {Taint{std::string(kAwsResourceNvidiaGpu), "true", TaintEffect::kNoSchedule}};
  snap.node_pools = {general, arm, gpu};
  const Toleration everything{"", TolerationOperator::kExists, "", TaintEffect::kNone};
  DaemonSet cni = MakeDaemonSet("aws-node", 25, 64 * kMi);
  cni.pod_template.tolerations.push_back(everything);
  DaemonSet logs = MakeDaemonSet("fluent-bit", 100, 128 * kMi);
  logs.pod_template.tolerations.push_back(everything);
  DaemonSet plugin = MakeDaemonSet("nvidia-device-plugin", 50, 64 * kMi);
  plugin.pod_template.tolerations.push_back(TolerateGpu());
  NodeSelectorTerm gpu_nodes;
  gpu_nodes.match_expressions = {Expr(kAwsLabelInstanceGpuManufacturer, Operator::kIn, {"nvidia"})};
  plugin.pod_template.node_affinity.required.push_back(gpu_nodes);
  snap.daemon_sets = {cni, logs, plugin};
  return snap;
}

}  // namespace

std::shared_ptr<const InstanceCatalog> FakeCatalog(int n) {
  std::vector<InstanceType> types;
  for (int i = 0; i < n; ++i) {
    const int64_t cpu = i + 1;
    const double price = (i + 1) * 0.3147483648;
    auto offer = [price](const char* zone, const char* capacity_type) {
      Offering o;
      o.zone = zone;
      o.capacity_type = capacity_type;
      o.price = price;
      return o;
    };
    std::vector<Offering> offerings = {offer("test-zone-1", "spot"), offer("test-zone-2", "spot"),
                                       offer("test-zone-1", "on-demand"),
                                       offer("test-zone-2", "on-demand"),
                                       offer("test-zone-3", "on-demand")};
    Overhead overhead;
    overhead.kube_reserved = ResourceList{{"cpu", 100}, {"memory", 10 * kMi}};
    std::map<std::string, std::string> labels = {{std::string(kLabelArch), "amd64"},
                                                 {"integer", std::to_string(cpu)}};
    const bool large = cpu > 4 && 2 * cpu * kGi > 8 * kGi;
    labels["size"] = large ? "large" : "small";
    if (large) labels["special"] = "optional";
    InstanceType it = InstanceType::Make(
        "fake-it-" + std::to_string(i), labels,
        ResourceList{{"cpu", cpu * 1000}, {"memory", 2 * cpu * kGi}, {"pods", 10 * cpu}}, overhead,
        std::move(offerings));
    Requirements extra{Requirement::In(kLabelOs, {"darwin", "linux", "windows"})};
    if (!large) extra.Add(Requirement::DoesNotExist("special"));
    it.RebuildRequirements(extra);
    types.push_back(std::move(it));
  }
  absl::StatusOr<InstanceCatalog> c =
      InstanceCatalog::Create(std::move(types), LabelSet{"size", "special", "integer"});
  return std::make_shared<const InstanceCatalog>(std::move(*c));
}

NodePool BenchmarkNodePool() {
  NodePool np;
  np.metadata.name = "default";
  np.template_labels["testing/cluster"] = "unspecified";
  np.node_class_ref = {"karpenter.test.sh", "TestNodeClass", "default"};
  np.limits.Set("cpu", 10000000LL * 1000);
  np.limits.Set("memory", 10000000LL * kGi);
  return np;
}

std::vector<Pod> DiversePods(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Pod> pods;
  pods.reserve(static_cast<size_t>(count));
  const int n = count / 5;
  int index = 0;
  auto generic = [&]() {
    std::string label = RandomLabel(rng);
    const int64_t cpu = RandomCpu(rng);
    const int64_t mem = RandomMemory(rng);
    Pod p = BasePod(index++, cpu, mem);
    p.metadata.labels["my-label"] = label;
    return p;
  };
  auto spread = [&](std::string_view key) {
    std::string label = RandomLabel(rng);
    std::string selector = RandomLabel(rng);
    const int64_t cpu = RandomCpu(rng);
    const int64_t mem = RandomMemory(rng);
    Pod p = BasePod(index++, cpu, mem);
    p.metadata.labels["my-label"] = label;
    TopologySpreadConstraint tsc;
    tsc.max_skew = 1;
    tsc.topology_key = std::string(key);
    tsc.when_unsatisfiable = WhenUnsatisfiable::kDoNotSchedule;
    tsc.label_selector = Selector("my-label", selector);
    p.topology_spread_constraints.push_back(std::move(tsc));
    return p;
  };
  for (int i = 0; i < n; ++i) pods.push_back(generic());
  for (int i = 0; i < n; ++i) pods.push_back(spread(kLabelZone));
  for (int i = 0; i < n; ++i) pods.push_back(spread(kLabelHostname));
  for (int i = 0; i < n; ++i) {
    std::string label = RandomLabel(rng);
    const int64_t cpu = RandomCpu(rng);
    const int64_t mem = RandomMemory(rng);
    Pod p = BasePod(index++, cpu, mem);
    p.metadata.labels["my-affininity"] = label;
    PodAffinityTerm term;
    term.label_selector = Selector("my-affininity", label);
    term.topology_key = std::string(kLabelZone);
    p.pod_affinity.required.push_back(std::move(term));
    pods.push_back(std::move(p));
  }
  for (int i = 0; i < n; ++i) {
    const int64_t cpu = RandomCpu(rng);
    const int64_t mem = RandomMemory(rng);
    Pod p = BasePod(index++, cpu, mem);
    p.metadata.labels["app"] = "nginx";
    PodAffinityTerm term;
    term.label_selector = Selector("app", "nginx");
    term.topology_key = std::string(kLabelHostname);
    p.pod_anti_affinity.required.push_back(std::move(term));
    pods.push_back(std::move(p));
  }
  for (int i = 5 * n; i < count; ++i) pods.push_back(generic());
  return pods;
}

std::vector<Pod> PreferencePods(int count, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t cpu = RandomCpu(rng);
  const int64_t mem = RandomMemory(rng);
  std::vector<Pod> pods;
  for (int i = 0; i < count; ++i) {
    Pod p = BasePod(i, cpu, mem);
    p.metadata.labels["app"] = "nginx";
    PreferredSchedulingTerm zone;
    zone.weight = 1;
    zone.preference.match_expressions.push_back(
        {std::string(kLabelZone), Operator::kIn, {"test-zone-1"}, std::nullopt});
    p.node_affinity.preferred.push_back(zone);
    WeightedPodAffinityTerm by_zone;
    by_zone.weight = 10;
    by_zone.term.label_selector = Selector("app", "nginx");
    by_zone.term.topology_key = std::string(kLabelZone);
    WeightedPodAffinityTerm by_host = by_zone;
    by_host.weight = 1;
    by_host.term.topology_key = std::string(kLabelHostname);
    p.pod_anti_affinity.preferred = {by_zone, by_host};
    pods.push_back(std::move(p));
  }
  return pods;
}

ClusterSnapshot BenchmarkSnapshot(std::vector<Pod> pods) {
  ClusterSnapshot s;
  s.node_pools.push_back(BenchmarkNodePool());
  s.pods = std::move(pods);
  return s;
}

ClusterSnapshot ConsolidationCluster(int nodes, uint32_t seed, absl::Time now) {
  std::mt19937 rng(seed);
  ClusterSnapshot snap;
  NodePool np;
  np.metadata.name = "general";
  np.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  np.requirements = {
      {std::string(kLabelCapacityType), Operator::kIn, {"on-demand"}, std::nullopt},
      {"karpenter.k8s.aws/instance-category", Operator::kIn, {"c", "m", "r"}, std::nullopt},
      {"karpenter.k8s.aws/instance-generation", Operator::kIn, {"5"}, std::nullopt}};
  np.budgets = {Budget{"10%", {}, "", std::nullopt}};
  snap.node_pools.push_back(np);
  struct Shape {
    const char* type;
    int64_t cpu, mem_gi, pods;
  };
  static const Shape kShapes[] = {{"m5.xlarge", 4, 16, 58},
                                  {"m5.2xlarge", 8, 32, 58},
                                  {"c5.2xlarge", 8, 16, 58},
                                  {"r5.xlarge", 4, 32, 58},
                                  {"m5.4xlarge", 16, 64, 234}};
  const char* kZones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};
  const int deployments = std::max(1, nodes / 4);
  int pod_index = 0;
  for (int i = 0; i < nodes; ++i) {
    const Shape& shape = kShapes[std::uniform_int_distribution<int>(0, 4)(rng)];
    Node n;
    char name[64];
    std::snprintf(name, sizeof(name), "ip-10-%d-%d-%d.ec2.internal", i / 65536, (i / 256) % 256,
                  i % 256);
    n.metadata.name = name;
    n.metadata.creation_timestamp = now - absl::Hours(24 + i % 100);
    const std::string zone = kZones[i % 3];
    const std::string type(shape.type);
    const std::string family = type.substr(0, type.find('.'));
    n.metadata.labels = {{"karpenter.k8s.aws/instance-category", family.substr(0, 1)},
                         {"karpenter.k8s.aws/instance-generation", "5"},
                         {"karpenter.k8s.aws/instance-family", family},
                         {std::string(kLabelInstanceType), shape.type},
                         {std::string(kLabelZone), zone},
                         {std::string(kLabelCapacityType), "on-demand"},
                         {std::string(kLabelNodePool), "general"},
                         {std::string(kLabelArch), "amd64"},
                         {std::string(kLabelOs), "linux"},
                         {std::string(kLabelInitialized), "true"},
                         {std::string(kLabelHostname), name}};
    n.capacity = ResourceList{
        {"cpu", shape.cpu * 1000}, {"memory", shape.mem_gi * kGi}, {"pods", shape.pods}};
    n.allocatable = ResourceList{{"cpu", shape.cpu * 1000 - 100},
                                 {"memory", shape.mem_gi * kGi - kGi},
                                 {"pods", shape.pods}};
    n.conditions.push_back({"Ready", "True", "", "", n.metadata.creation_timestamp});
    NodeClaim nc;
    nc.metadata.name = std::string("general-") + std::to_string(i);
    nc.metadata.labels = n.metadata.labels;
    nc.metadata.creation_timestamp = n.metadata.creation_timestamp;
    nc.node_name = name;
    nc.capacity = n.capacity;
    nc.allocatable = n.allocatable;
    nc.conditions.push_back({"Initialized", "True", "", "", n.metadata.creation_timestamp});
    nc.conditions.push_back({"Consolidatable", "True", "", "", n.metadata.creation_timestamp});
    // 30-60 % cpu utilisation, about 10 pods.
    const double target = std::uniform_real_distribution<double>(0.3, 0.6)(rng);
    const int64_t budget_cpu = static_cast<int64_t>(target * static_cast<double>(shape.cpu * 1000));
    const int count = std::uniform_int_distribution<int>(6, 14)(rng);
    for (int k = 0; k < count; ++k) {
      const int dep = std::uniform_int_distribution<int>(0, deployments - 1)(rng);
      Pod p = BasePod(pod_index++, std::max<int64_t>(50, budget_cpu / count),
                      std::max<int64_t>(64 * kMi, (shape.mem_gi * kGi / 2) / count));
      p.metadata.name = "app-" + std::to_string(dep) + "-" + std::to_string(pod_index);
      p.metadata.labels["app"] = "app-" + std::to_string(dep);
      p.node_name = name;
      p.phase = "Running";
      p.start_time = n.metadata.creation_timestamp;
      if (pod_index % 97 == 0)
        p.metadata.annotations[std::string(kAnnotationDoNotDisrupt)] = "true";
      snap.pods.push_back(std::move(p));
    }
    snap.nodes.push_back(std::move(n));
    snap.node_claims.push_back(std::move(nc));
  }
  for (int d = 0; d < deployments; d += 10) {
    PodDisruptionBudget pdb;
    pdb.metadata.name = "app-" + std::to_string(d);
    pdb.metadata.namespace_ = "default";
    pdb.selector = Selector("app", "app-" + std::to_string(d));
    pdb.max_unavailable = "1";
    pdb.disruptions_allowed = d % 50 == 0 ? 0 : 1;
    snap.pdbs.push_back(std::move(pdb));
  }
  return snap;
}

std::shared_ptr<const InstanceCatalog> AwsCatalog() {
  static const std::shared_ptr<const InstanceCatalog> catalog =
      []() -> std::shared_ptr<const InstanceCatalog> {
    absl::StatusOr<InstanceCatalog> c = EmbeddedAwsCatalog();
    if (!c.ok()) return nullptr;
    return std::make_shared<const InstanceCatalog>(std::move(*c));
  }();
  return catalog;
}

ClusterSnapshot AwsRealisticSnapshot(int pods, uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto one_of = [&](std::initializer_list<int64_t> v) {
    return *(v.begin() + pick(0, static_cast<int>(v.size()) - 1));
  };
  ClusterSnapshot snap = AwsBaseSnapshot();
  snap.pods.reserve(static_cast<size_t>(pods));
  static const char* kFamilies[] = {"c6i", "m6i", "c7i", "m7i", "r6i"};
  int index = 0;
  for (int unit = 0; index < pods; ++unit) {
    const int kind = pick(0, 99);
    const std::string app = "app-" + std::to_string(unit);
    int replicas = 0;
    int64_t cpu = 0, mem = 0, gpus = 0;
    bool zonal_spread = false, anti_affinity = false, tolerate_gpu = false;
    std::map<std::string, std::string> selector;
    if (kind < 35) {  // web deployment, zonal spread; one in eight also one pod per host
      anti_affinity = pick(0, 7) == 0;
      replicas = anti_affinity ? pick(3, 6) : pick(6, 30);
      cpu = one_of({250, 500, 1000});
      mem = one_of({512 * kMi, 1024 * kMi, 2048 * kMi});
      zonal_spread = true;
    } else if (kind < 55) {  // batch job; half of them spot-only
      replicas = pick(5, 50);
      cpu = one_of({1000, 2000, 4000});
      mem = one_of({2 * kGi, 4 * kGi, 8 * kGi});
      if (pick(0, 1) == 0) selector[std::string(kLabelCapacityType)] = "spot";
    } else if (kind < 65) {  // memory-heavy cache on memory-optimised types
      replicas = pick(3, 12);
      cpu = one_of({500, 1000, 2000});
      mem = one_of({8 * kGi, 16 * kGi, 32 * kGi});
      selector[std::string(kAwsLabelInstanceCategory)] = "r";
    } else if (kind < 77) {  // arm64 service
      replicas = pick(4, 20);
      cpu = one_of({250, 500, 1000});
      mem = one_of({256 * kMi, 1024 * kMi, 2048 * kMi});
      selector[std::string(kLabelArch)] = "arm64";
      zonal_spread = true;
    } else if (kind < 85) {  // pinned to an instance family
      replicas = pick(2, 10);
      cpu = one_of({500, 1000, 2000});
      mem = one_of({1 * kGi, 2 * kGi, 4 * kGi});
      selector[std::string(kAwsLabelInstanceFamily)] = kFamilies[pick(0, 4)];
    } else if (kind < 87) {  // GPU inference / training
      replicas = pick(1, 4);
      cpu = one_of({4000, 8000});
      mem = one_of({16 * kGi, 32 * kGi});
      gpus = one_of({1, 1, 1, 4});
      tolerate_gpu = true;
    } else {  // small sidecar-like services
      replicas = pick(1, 10);
      cpu = one_of({100, 250});
      mem = one_of({128 * kMi, 256 * kMi, 512 * kMi});
    }
    for (int r = 0; r < replicas && index < pods; ++r) {
      Pod p = BasePod(index++, cpu, mem);
      p.metadata.name = app + "-" + std::to_string(r);
      p.metadata.labels["app"] = app;
      p.node_selector = selector;
      if (gpus > 0) p.containers[0].requests.Set(kAwsResourceNvidiaGpu, gpus);
      if (tolerate_gpu) p.tolerations.push_back(TolerateGpu());
      if (zonal_spread) {
        TopologySpreadConstraint tsc;
        tsc.max_skew = 1;
        tsc.topology_key = std::string(kLabelZone);
        tsc.when_unsatisfiable = WhenUnsatisfiable::kDoNotSchedule;
        tsc.label_selector = Selector("app", app);
        p.topology_spread_constraints.push_back(std::move(tsc));
      }
      if (anti_affinity) {
        PodAffinityTerm term;
        term.label_selector = Selector("app", app);
        term.topology_key = std::string(kLabelHostname);
        p.pod_anti_affinity.required.push_back(std::move(term));
      }
      snap.pods.push_back(std::move(p));
    }
  }
  return snap;
}

namespace {

// The NodePools and DaemonSets of AwsPlatformSnapshot.
ClusterSnapshot AwsPlatformBase() {
  ClusterSnapshot snap;
  const NodeClassRef node_class{"karpenter.k8s.aws", "EC2NodeClass", "default"};
  NodePool shared;
  shared.metadata.name = "shared";
  shared.node_class_ref = node_class;
  shared.requirements = {Expr(kLabelArch, Operator::kIn, {"amd64", "arm64"}),
                         Expr(kLabelCapacityType, Operator::kIn, {"spot", "on-demand"}),
                         Expr(kAwsLabelInstanceCategory, Operator::kIn, {"c", "m", "r"}),
                         Expr(kAwsLabelInstanceGeneration, Operator::kGt, {"5"})};
  NodePool critical;
  critical.metadata.name = "critical";
  critical.node_class_ref = node_class;
  critical.requirements = {Expr(kLabelArch, Operator::kIn, {"amd64"}),
                           Expr(kLabelCapacityType, Operator::kIn, {"on-demand"}),
                           Expr(kAwsLabelInstanceCategory, Operator::kIn, {"m", "r"})};
  critical.taints = {Taint{"dedicated", "critical", TaintEffect::kNoSchedule}};
  NodePool gpu;
  gpu.metadata.name = "gpu";
  gpu.node_class_ref = node_class;
  gpu.requirements = {Expr(kAwsLabelInstanceGpuManufacturer, Operator::kIn, {"nvidia"}),
                      Expr(kLabelCapacityType, Operator::kIn, {"spot", "on-demand"})};
  gpu.taints = {Taint{std::string(kAwsResourceNvidiaGpu), "true", TaintEffect::kNoSchedule}};
  snap.node_pools = {shared, critical, gpu};
  const Toleration everything{"", TolerationOperator::kExists, "", TaintEffect::kNone};
  for (auto [name, cpu, memory] : {std::tuple<const char*, int64_t, int64_t>{"aws-node", 25, 64},
                                   {"kube-proxy", 100, 128},
                                   {"node-exporter", 100, 180},
                                   {"datadog-agent", 200, 400}}) {
    DaemonSet ds = MakeDaemonSet(name, cpu, memory * kMi);
    ds.pod_template.tolerations.push_back(everything);
    snap.daemon_sets.push_back(std::move(ds));
  }
  return snap;
}

}  // namespace

ClusterSnapshot AwsPlatformSnapshot(int pods, uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::lognormal_distribution<double> cpu_dist(std::log(300.0), 1.0);  // millicores, median 300m
  ClusterSnapshot snap = AwsPlatformBase();
  snap.pods.reserve(static_cast<size_t>(pods));
  const Toleration critical{"dedicated", TolerationOperator::kEqual, "critical",
                            TaintEffect::kNoSchedule};
  int index = 0;
  for (int unit = 0; index < pods; ++unit) {
    const int kind = pick(0, 99);
    const std::string app = "svc-" + std::to_string(unit);
    // Requests: cpu log-normal, rounded to 50m; memory at 1, 2, 4 or 8 GiB per core with
    // +-25 % jitter, rounded to 64 MiB.
    const int64_t cpu = std::clamp<int64_t>(
        static_cast<int64_t>(std::lround(cpu_dist(rng) / 50.0)) * 50, 50, 14000);
    const double gib_per_core = std::pow(2.0, pick(0, 3)) * (0.75 + 0.5 * pick(0, 100) / 100.0);
    const int64_t mem =
        std::max<int64_t>(128,
                          static_cast<int64_t>(std::lround(cpu / 1000.0 * gib_per_core * 16.0))) *
        64 * kMi;
    int replicas = pick(1, 3) == 1 ? pick(10, 40) : pick(2, 8);
    std::map<std::string, std::string> selector;
    bool tolerate_critical = false, anti_affinity = false, gpu = false;
    if (kind < 15) {  // pinned to on-demand capacity (stateful, latency-sensitive)
      selector[std::string(kLabelCapacityType)] = "on-demand";
    } else if (kind < 35) {  // spot-only batch
      selector[std::string(kLabelCapacityType)] = "spot";
      replicas = pick(10, 60);
    } else if (kind < 45) {  // arm64 builds only
      selector[std::string(kLabelArch)] = "arm64";
    } else if (kind < 50) {  // amd64 builds only
      selector[std::string(kLabelArch)] = "amd64";
    } else if (kind < 56) {  // platform-critical, on the tainted on-demand pool
      selector[std::string(kLabelNodePool)] = "critical";
      tolerate_critical = true;
      anti_affinity = pick(0, 1) == 0;
    } else if (kind < 59) {  // GPU, 1 or 2 devices
      gpu = true;
      replicas = pick(1, 6);
    } else if (kind < 69) {  // one replica per host
      anti_affinity = true;
      replicas = pick(3, 12);
    }  // else: multi-arch, any capacity type
    for (int r = 0; r < replicas && index < pods; ++r) {
      Pod p = BasePod(index++, gpu ? std::max<int64_t>(cpu, 2000) : cpu,
                      gpu ? std::max<int64_t>(mem, 8 * kGi) : mem);
      p.metadata.name = app + "-" + std::to_string(r);
      p.metadata.labels["app"] = app;
      p.node_selector = selector;
      if (gpu) {
        p.containers[0].requests.Set(kAwsResourceNvidiaGpu, pick(1, 2));
        p.tolerations.push_back(TolerateGpu());
      }
      if (tolerate_critical) p.tolerations.push_back(critical);
      if (anti_affinity) {
        PodAffinityTerm term;
        term.label_selector = Selector("app", app);
        term.topology_key = std::string(kLabelHostname);
        p.pod_anti_affinity.required.push_back(std::move(term));
      }
      snap.pods.push_back(std::move(p));
    }
  }
  return snap;
}

absl::StatusOr<ClusterSnapshot> TraceSnapshot(const std::string& csv_path, bool busiest_instant) {
  std::ifstream in(csv_path);
  if (!in) return absl::NotFoundError("cannot read trace " + csv_path);
  struct Row {
    std::string name;
    int64_t cpu_milli, memory_mib, gpus, created, deleted;
  };
  std::vector<Row> rows;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no == 1 || line.empty()) continue;  // header
    if (line.back() == '\r') line.pop_back();
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, ',')) f.push_back(field);
    if (f.size() < 10) {
      return absl::InvalidArgumentError(csv_path + ":" + std::to_string(line_no) +
                                        ": expected at least 10 comma-separated fields");
    }
    Row r;
    r.name = f[0];
    try {
      r.cpu_milli = std::stoll(f[1]);
      r.memory_mib = std::stoll(f[2]);
      r.gpus = std::stoll(f[3]);
      r.created = std::stoll(f[8]);
      r.deleted = std::stoll(f[9]);
    } catch (const std::exception&) {
      return absl::InvalidArgumentError(csv_path + ":" + std::to_string(line_no) +
                                        ": cpu_milli, memory_mib, num_gpu, creation_time and "
                                        "deletion_time must be integers");
    }
    if (r.cpu_milli < 0 || r.memory_mib < 0 || r.gpus < 0) {
      return absl::InvalidArgumentError(csv_path + ":" + std::to_string(line_no) +
                                        ": negative request");
    }
    rows.push_back(std::move(r));
  }
  if (rows.empty()) return absl::InvalidArgumentError(csv_path + ": no pods");
  // Busiest instant: sweep creations (+1) and deletions (-1), deletions first at equal times.
  std::vector<std::pair<int64_t, int>> events;
  for (const Row& r : rows) {
    if (r.deleted <= r.created) continue;
    events.emplace_back(r.created, +1);
    events.emplace_back(r.deleted, -1);
  }
  std::sort(events.begin(), events.end());
  int64_t alive = 0, best = -1, best_time = 0;
  for (size_t i = 0; i < events.size();) {
    const int64_t t = events[i].first;
    for (; i < events.size() && events[i].first == t; ++i) alive += events[i].second;
    if (alive > best) {
      best = alive;
      best_time = t;
    }
  }
  ClusterSnapshot snap = AwsBaseSnapshot();
  int index = 0;
  for (const Row& r : rows) {
    if (busiest_instant && !(r.created <= best_time && best_time < r.deleted)) continue;
    Pod p = BasePod(index++, r.cpu_milli, r.memory_mib * kMi);
    p.metadata.name = r.name;
    p.metadata.labels["app"] = "openb";
    if (r.gpus > 0) {
      p.containers[0].requests.Set(kAwsResourceNvidiaGpu, r.gpus);
      p.tolerations.push_back(TolerateGpu());
    }
    snap.pods.push_back(std::move(p));
  }
  return snap;
}

}  // namespace karp::bench
