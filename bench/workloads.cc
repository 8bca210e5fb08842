#include "workloads.h"

#include <random>
#include <string>
#include <utility>

#include "absl/time/time.h"
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
  static const int64_t kValues[] = {100 * kMi, 256 * kMi, 512 * kMi, 1024 * kMi, 2048 * kMi,
                                    4096 * kMi};
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
    std::map<std::string, std::string> labels = {
        {std::string(kLabelArch), "amd64"}, {"integer", std::to_string(cpu)}};
    const bool large = cpu > 4 && 2 * cpu * kGi > 8 * kGi;
    labels["size"] = large ? "large" : "small";
    if (large) labels["special"] = "optional";
    InstanceType it = InstanceType::Make(
        "fake-it-" + std::to_string(i), labels,
        ResourceList{{"cpu", cpu * 1000}, {"memory", 2 * cpu * kGi}, {"pods", 10 * cpu}},
        overhead, std::move(offerings));
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
  static const Shape kShapes[] = {{"m5.xlarge", 4, 16, 58},  {"m5.2xlarge", 8, 32, 58},
                                  {"c5.2xlarge", 8, 16, 58}, {"r5.xlarge", 4, 32, 58},
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
    n.capacity = ResourceList{{"cpu", shape.cpu * 1000}, {"memory", shape.mem_gi * kGi},
                              {"pods", shape.pods}};
    n.allocatable = ResourceList{{"cpu", shape.cpu * 1000 - 100},
                                 {"memory", shape.mem_gi * kGi - kGi}, {"pods", shape.pods}};
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
      if (pod_index % 97 == 0) p.metadata.annotations[std::string(kAnnotationDoNotDisrupt)] = "true";
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

}  // namespace karp::bench
