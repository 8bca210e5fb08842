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

}  // namespace karp::bench
