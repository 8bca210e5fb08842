// The hot-path instance-type filter (src/scheduling/instance_filter.h) against the full one:
// for random claims on templates prepared as the scheduler prepares them, FastFilter keeps
// exactly the types FilterInstanceTypes keeps (no minValues), on both of its paths.
//
// The templates come from PreparePools over NodePools with and without requirements and
// DaemonSets that fall on different types (by arch, instance family or a numeric label; some
// with host ports, one with an extended resource), so types of one template fall into several
// daemon groups. The catalogs hold random types: random cpu, memory, pods and ephemeral storage,
// some GPU types, some offerings unavailable; one catalog has more than 64 (zone, capacity
// type) pairs. Each case narrows a base claim (whose candidates meet the filter's invariant) by
// up to two requirements, asks for random requests (often at a type's exact headroom, sometimes
// with an extended resource) and sometimes host ports.

#include "scheduling/instance_filter.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/scheduler.h"
#include "scheduling/prepare.h"
#include "scheduling/scheduler_internal.h"
#include "support/builders.h"

namespace {

using karp::ContainerPort;
using ContainerPorts = std::vector<karp::ContainerPort>;
using karp::InstanceType;
using karp::Operator;
using karp::Requirement;
using karp::Requirements;
using karp::ResourceList;
using karp::scheduling::Template;
using karp::testing::Expr;
using karp::testing::MakePod;

constexpr char kFamily[] = "karpenter.k8s.aws/instance-family";
constexpr char kCpuLabel[] = "karpenter.k8s.aws/instance-cpu";
constexpr char kGpuName[] = "karpenter.k8s.aws/instance-gpu-name";
constexpr char kGpu[] = "nvidia.com/gpu";
constexpr char kUndefinedKey[] = "example.com/no-type-defines-this";
constexpr char kSpot[] = "spot";
constexpr char kOnDemand[] = "on-demand";

using Rng = std::mt19937;

int Uniform(Rng& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
bool Chance(Rng& rng, double p) { return std::bernoulli_distribution(p)(rng); }
template <typename T>
const T& Pick(Rng& rng, const std::vector<T>& v) {
  return v[static_cast<size_t>(Uniform(rng, 0, static_cast<int>(v.size()) - 1))];
}

struct Family {
  std::string name, arch, gpu_name;  // gpu_name empty: no GPU
};

const std::vector<Family>& Families() {
  static const std::vector<Family> families = {
      {"m5", "amd64", ""},  {"c5", "amd64", ""},     {"r5", "amd64", ""},    {"m6g", "arm64", ""},
      {"c6g", "arm64", ""}, {"g5", "amd64", "a10g"}, {"p3", "amd64", "v100"}};
  return families;
}

std::vector<std::string> Zones(int n) {
  std::vector<std::string> zones;
  for (int z = 0; z < n; ++z) zones.push_back("zone-" + std::to_string(z));
  return zones;
}

// Random offerings over `zones` x {spot, on-demand}, about a quarter of them unavailable.
std::vector<karp::Offering> RandomOfferings(Rng& rng, const std::vector<std::string>& zones,
                                            double density) {
  std::vector<karp::Offering> out;
  for (const std::string& zone : zones) {
    for (const char* ct : {kSpot, kOnDemand}) {
      if (!Chance(rng, density)) continue;
      const double price = 0.01 * Uniform(rng, 1, 500);
      out.push_back(karp::Offering{zone, ct, price, Chance(rng, 0.75), "", 0});
    }
  }
  return out;
}

// A random instance type numbered `index`: labelled arch, os, instance family and cpu count;
// GPU families carry nvidia.com/gpu and a GPU name; half the others say DoesNotExist on the
// GPU name, the rest leave it undefined.
InstanceType RandomType(Rng& rng, int index, const std::vector<std::string>& zones,
                        double offering_density) {
  const Family& f = Pick(rng, Families());
  const int64_t cores = Pick(rng, std::vector<int64_t>{1, 2, 4, 8, 16, 32, 48, 64});
  ResourceList capacity;
  capacity.Set(karp::kResourceCpu, cores * 1000);
  capacity.Set(karp::kResourceMemory,
               cores * Uniform(rng, 1, 8) * (int64_t{1} << 30) + Uniform(rng, 0, 3) * (1 << 20));
  capacity.Set(karp::kResourcePods, Pick(rng, std::vector<int64_t>{4, 8, 29, 58, 110, 234}));
  if (Chance(rng, 0.8)) {
    capacity.Set(karp::kResourceEphemeralStorage, int64_t{Uniform(rng, 2, 200)} << 30);
  }
  std::map<std::string, std::string> labels = {{std::string(karp::kLabelArch), f.arch},
                                               {std::string(karp::kLabelOs), "linux"},
                                               {kFamily, f.name},
                                               {kCpuLabel, std::to_string(cores)}};
  if (!f.gpu_name.empty()) {
    capacity.Set(kGpu, Uniform(rng, 1, 8));
    labels[kGpuName] = f.gpu_name;
  }
  karp::Overhead overhead;
  overhead.kube_reserved.Set(karp::kResourceCpu, Uniform(rng, 0, 200));
  overhead.kube_reserved.Set(karp::kResourceMemory, int64_t{Uniform(rng, 0, 600)} << 20);
  if (Chance(rng, 0.5)) {
    overhead.eviction_threshold.Set(karp::kResourceEphemeralStorage,
                                    int64_t{Uniform(rng, 0, 2)} << 30);
  }
  InstanceType it = InstanceType::Make(
      f.name + "." + std::to_string(cores) + "x-" + std::to_string(index), std::move(labels),
      std::move(capacity), std::move(overhead), RandomOfferings(rng, zones, offering_density));
  if (f.gpu_name.empty() && Chance(rng, 0.5)) {
    it.RebuildRequirements(Requirements{Requirement::DoesNotExist(kGpuName)});
  }
  return it;
}

std::shared_ptr<const karp::InstanceCatalog> RandomCatalog(Rng& rng, int types, int zones,
                                                           double offering_density) {
  std::vector<InstanceType> out;
  for (int i = 0; i < types; ++i) out.push_back(RandomType(rng, i, Zones(zones), offering_density));
  return karp::testing::MakeCatalog(std::move(out), karp::LabelSet{});
}

// DaemonSets that fall on different types: everywhere, by arch (with host ports), by
// instance family (one with an nvidia.com/gpu request), by a numeric label.
std::vector<karp::DaemonSet> DaemonSets() {
  using karp::testing::MakeDaemonSet;
  const std::string arch(karp::kLabelArch);
  std::vector<karp::DaemonSet> out;
  out.push_back(MakeDaemonSet("logs", MakePod("logs", "100m", "128Mi")));
  out.push_back(MakeDaemonSet(
      "node-exporter",
      MakePod("node-exporter", "50m", "64Mi").NodeSelector(arch, "amd64").HostPort(9100)));
  out.push_back(
      MakeDaemonSet("c-agent", MakePod("c-agent", "250m", "256Mi")
                                   .Request(karp::kResourceEphemeralStorage, "2Gi")
                                   .RequiredTerm({Expr(kFamily, Operator::kIn, {"c5", "c6g"})})));
  out.push_back(
      MakeDaemonSet("gpu-plugin", MakePod("gpu-plugin", "100m")
                                      .Request(kGpu, "1")
                                      .RequiredTerm({Expr(kFamily, Operator::kIn, {"g5", "p3"})})));
  out.push_back(MakeDaemonSet("arm-dns", MakePod("arm-dns", "100m", "32Mi")
                                             .NodeSelector(arch, "arm64")
                                             .HostPort(53, "UDP", "10.0.0.1")));
  out.push_back(
      MakeDaemonSet("big-cache", MakePod("big-cache", "", "4Gi")
                                     .Request(karp::kResourceEphemeralStorage, "10Gi")
                                     .RequiredTerm({Expr(kCpuLabel, Operator::kGt, {"15"})})));
  return out;
}

// The prepared NodePool state with what it points into.
struct Fixture {
  karp::ClusterSnapshot snapshot;
  karp::scheduling::PoolCatalogs catalogs;
  std::shared_ptr<const karp::scheduling::PoolsState> pools;
};

// The names of the first `n` types of `catalog` without GPUs that a template keeps (an
// available offering, a valid allocatable).
std::vector<std::string> FirstCpuTypes(const karp::InstanceCatalog& catalog, size_t n) {
  std::vector<std::string> names;
  for (const InstanceType& it : catalog.instance_types()) {
    if (names.size() == n) break;
    if (it.labels.count(kGpuName) > 0 || !it.HasCompatibleOffering(Requirements{}) ||
        it.Allocatable().AnyNegative()) {
      continue;
    }
    names.push_back(it.name);
  }
  REQUIRE(names.size() == n);
  return names;
}

// NodePools: "general" (no requirements: GPU types, so an extended daemon overhead),
// "cpu-only" (more than 64 types, no GPU), "arm" (fewer than 64 types), "spot-amd" (capacity
// type and families), "types-64" and "types-65" (exactly 64 and 65 types: the bit sets' word
// boundary and the last key decided by class), "wide" (a catalog with more than 64 offering
// pairs).
std::unique_ptr<Fixture> MakeFixture() {
  Rng rng(20261126);
  auto f = std::make_unique<Fixture>();
  auto narrow = RandomCatalog(rng, 130, 4, 0.6);
  auto wide = RandomCatalog(rng, 40, 33, 0.3);
  using karp::testing::MakeNodePool;
  const std::vector<std::string> gpu_families = {"g5", "p3"};
  const std::string type_key(karp::kLabelInstanceType);
  f->snapshot.node_pools = {
      MakeNodePool("general"),
      MakeNodePool("cpu-only", {Expr(kFamily, Operator::kNotIn, gpu_families)}),
      MakeNodePool("arm", {Expr(std::string(karp::kLabelArch), Operator::kIn, {"arm64"})}),
      MakeNodePool("spot-amd", {Expr(std::string(karp::kLabelCapacityType), Operator::kIn, {kSpot}),
                                Expr(kFamily, Operator::kIn, {"m5", "c5", "r5"})}),
      MakeNodePool("types-64", {Expr(type_key, Operator::kIn, FirstCpuTypes(*narrow, 64))}),
      MakeNodePool("types-65", {Expr(type_key, Operator::kIn, FirstCpuTypes(*narrow, 65))}),
      MakeNodePool("wide", {Expr(kFamily, Operator::kNotIn, gpu_families)})};
  f->snapshot.node_pools[1].template_labels["team"] = "batch";
  f->snapshot.daemon_sets = DaemonSets();
  for (const karp::NodePool& np : f->snapshot.node_pools) {
    f->catalogs.by_node_pool[np.name()] = np.name() == "wide" ? wide : narrow;
  }
  absl::StatusOr<std::shared_ptr<const karp::scheduling::PoolsState>> pools =
      karp::scheduling::PreparePools(f->snapshot, f->catalogs, karp::SchedulerOptions{});
  REQUIRE(pools.ok());
  f->pools = std::move(*pools);
  return f;
}

// A random requirement on `key`, with values drawn from `values` (plus one no type has).
Requirement RandomRequirement(Rng& rng, const std::string& key, std::vector<std::string> values) {
  values.push_back("no-such-value");
  auto some = [&](int max) {
    std::vector<std::string> out;
    const int n = Uniform(rng, 1, max);
    for (int i = 0; i < n; ++i) out.push_back(Pick(rng, values));
    return out;
  };
  switch (Uniform(rng, 0, 9)) {
    case 0:
      return Requirement::Exists(key);
    case 1:
      return Requirement::DoesNotExist(key);
    case 2:
    case 3:
      return Requirement::NotIn(key, some(3));
    default:
      return Requirement::In(key, some(key == karp::kLabelInstanceType ? 40 : 3));
  }
}

// A random narrowing requirement of a claim on template `t`: zone, capacity type, arch,
// family, instance type, OS, GPU name, cpu count (also Gt/Lt) or a key no type defines.
Requirement RandomNarrowing(Rng& rng, const Template& t) {
  std::vector<std::string> zones, names;
  for (const auto& [zone, ct] : t.offering_keys) zones.push_back(zone);
  for (const InstanceType* it : t.instance_types) names.push_back(it->name);
  std::vector<std::string> families;
  for (const Family& f : Families()) families.push_back(f.name);
  switch (Uniform(rng, 0, 9)) {
    case 0:
    case 1:
      return RandomRequirement(rng, std::string(karp::kLabelZone), zones);
    case 2:
      return RandomRequirement(rng, std::string(karp::kLabelCapacityType), {kSpot, kOnDemand});
    case 3:
      return RandomRequirement(rng, std::string(karp::kLabelArch), {"amd64", "arm64"});
    case 4:
      return RandomRequirement(rng, kFamily, families);
    case 5:
    case 6:
      return RandomRequirement(rng, std::string(karp::kLabelInstanceType), names);
    case 7:
      return RandomRequirement(rng, kGpuName, {"a10g", "v100"});
    case 8:
      if (Chance(rng, 0.5)) return RandomRequirement(rng, std::string(karp::kLabelOs), {"linux"});
      return RandomRequirement(rng, kUndefinedKey, {"x"});
    default: {
      const int64_t n = Pick(rng, std::vector<int64_t>{0, 1, 3, 8, 15, 31, 63});
      if (Chance(rng, 0.4)) return Requirement::Gt(kCpuLabel, n);
      if (Chance(rng, 0.6)) return Requirement::Lt(kCpuLabel, n + 1);
      return RandomRequirement(rng, kCpuLabel, {"2", "8", "64"});
    }
  }
}

// The base requirements of a claim: the template's, maybe restricted in zone, capacity type
// and arch.
Requirements RandomBase(Rng& rng, const Template& t) {
  Requirements base = t.requirements;
  if (Chance(rng, 0.3)) {
    std::vector<std::string> zones;
    for (const auto& [zone, ct] : t.offering_keys) {
      if (Chance(rng, 0.5)) zones.push_back(zone);
    }
    if (!zones.empty()) base.Add(Requirement::In(karp::kLabelZone, zones));
  }
  if (Chance(rng, 0.2)) {
    base.Add(Requirement::In(karp::kLabelCapacityType, {Chance(rng, 0.5) ? kSpot : kOnDemand}));
  }
  if (Chance(rng, 0.2)) {
    base.Add(Requirement::In(karp::kLabelArch, {Chance(rng, 0.5) ? "amd64" : "arm64"}));
  }
  return base;
}

// What type i of `t` has for pods in `resource`: allocatable minus its daemon overhead.
int64_t Room(const Template& t, int i, std::string_view resource) {
  const size_t ui = static_cast<size_t>(i);
  const karp::scheduling::DaemonGroup& g = t.daemon_groups[static_cast<size_t>(t.daemon_group[ui])];
  return t.allocatable[ui].Get(resource) - g.overhead.Get(resource);
}

// Random requests: per well-known resource absent, random, or a candidate's exact room (+-1);
// sometimes a huge cpu, sometimes an extended resource.
ResourceList RandomRequests(Rng& rng, const Template& t, const std::vector<int>& candidates) {
  ResourceList r;
  const int edge = candidates.empty() ? -1 : Pick(rng, candidates);
  const bool one_type = Chance(rng, 0.5);  // every resource at the same type's edge
  const std::vector<std::pair<std::string_view, int64_t>> scale = {
      {karp::kResourceCpu, 64000},
      {karp::kResourceMemory, int64_t{256} << 30},
      {karp::kResourceEphemeralStorage, int64_t{200} << 30},
      {karp::kResourcePods, 234}};
  for (const auto& [name, max] : scale) {
    const int mode = Uniform(rng, 0, 3);
    if (mode == 0) continue;
    if (mode == 1 || edge < 0) {
      r.Set(name, std::uniform_int_distribution<int64_t>(0, max / 2)(rng));
      continue;
    }
    const int i = one_type ? edge : Pick(rng, candidates);
    r.Set(name, std::max<int64_t>(0, Room(t, i, name) + Uniform(rng, -1, 1)));
  }
  if (Chance(rng, 0.02)) r.Set(karp::kResourceCpu, int64_t{1000000} * 1000);
  if (Chance(rng, 0.12)) r.Set(kGpu, Uniform(rng, 0, 3));
  if (Chance(rng, 0.02)) r.Set("example.com/fpga", 1);
  return r;
}

// Host ports from a small pool: some collide with the daemon ports (9100/TCP on amd64 types,
// 53/UDP on 10.0.0.1 on arm64 types) or with each other.
std::vector<ContainerPort> RandomPorts(Rng& rng, double p) {
  static const std::vector<ContainerPort> pool = {
      {9100, 9100, "TCP", ""},        {53, 53, "UDP", ""},     {53, 53, "UDP", "10.0.0.2"},
      {53, 53, "UDP", "10.0.0.1"},    {8080, 8080, "TCP", ""}, {9100, 9100, "UDP", "0.0.0.0"},
      {8080, 8080, "TCP", "10.0.0.3"}};
  std::vector<ContainerPort> out;
  if (!Chance(rng, p)) return out;
  const int n = Uniform(rng, 1, 2);
  for (int i = 0; i < n; ++i) out.push_back(Pick(rng, pool));
  return out;
}

// Why FastFilter takes its general loop, mirroring its dispatch ("" for the branch-free one).
std::string GeneralPathReason(const Template& t, const Requirements& reqs,
                              const std::vector<std::string>& changed, const ResourceList& requests,
                              const std::vector<ContainerPort>& pod_ports) {
  if (!pod_ports.empty()) return "host ports";
  if (requests.HasExtended()) return "extended request";
  if (t.overhead_has_extended) return "extended daemon overhead";
  for (const std::string& key : changed) {
    auto kc = t.key_classes.find(key);
    if (reqs.Has(key) && kc != t.key_classes.end() && kc->second.representative.size() > 64) {
      return "key with more than 64 classes";
    }
  }
  const bool offerings_changed =
      std::count(changed.begin(), changed.end(), std::string(karp::kLabelZone)) +
          std::count(changed.begin(), changed.end(), std::string(karp::kLabelCapacityType)) >
      0;
  if (offerings_changed && t.available_offering_bits.empty()) return "more than 64 offering pairs";
  return "";
}

std::string Names(const Template& t, const std::vector<int>& types) {
  std::string out;
  for (int i : types) out += t.instance_types[static_cast<size_t>(i)]->name + " ";
  return out;
}

std::string PortsText(const std::vector<ContainerPort>& ports) {
  std::string out;
  for (const ContainerPort& p : ports) {
    out += std::to_string(p.host_port) + "/" + p.protocol + "@" + p.host_ip + " ";
  }
  return out;
}

// One FastFilter call: a claim on `t` whose `candidates` meet the filter's invariant for
// `base`, narrowed to `reqs` on the keys `changed`.
struct Case {
  const Template* t = nullptr;
  std::vector<int> candidates;
  Requirements reqs;
  std::vector<std::string> changed;
  ResourceList requests;
  ContainerPorts pod_ports, claim_ports;
};

Case RandomCase(Rng& rng, const std::vector<Template>& templates) {
  Case c;
  c.t = &Pick(rng, templates);
  Requirements base = RandomBase(rng, *c.t);
  std::vector<int> all(c.t->instance_types.size());
  std::iota(all.begin(), all.end(), 0);
  c.candidates = karp::scheduling::FilterInstanceTypes(*c.t, all, base, {}, {}, {}, false).kept;
  c.reqs = base;
  for (int n = Uniform(rng, 0, 2); n > 0; --n) {
    Requirement r = RandomNarrowing(rng, *c.t);
    if (std::find(c.changed.begin(), c.changed.end(), r.key()) == c.changed.end()) {
      c.changed.push_back(r.key());
    }
    c.reqs.Add(r);
  }
  c.requests = RandomRequests(rng, *c.t, c.candidates);
  c.pod_ports = RandomPorts(rng, 0.2);
  c.claim_ports = RandomPorts(rng, 0.3);
  return c;
}

// The full filter's kept types for `c`, with or without its host ports.
std::vector<int> FullFilter(Case& c, bool with_ports) {
  return karp::scheduling::FilterInstanceTypes(*c.t, c.candidates, c.reqs, c.requests,
                                               with_ports ? c.pod_ports : ContainerPorts{},
                                               with_ports ? c.claim_ports : ContainerPorts{},
                                               /*relax_min_values=*/false)
      .kept;
}

std::string Describe(const Case& c, const std::string& reason, const std::vector<int>& fast,
                     const std::vector<int>& full) {
  std::string changed;
  for (const std::string& k : c.changed) changed += k + " ";
  return "pool " + c.t->pool->name() + " (path: " + (reason.empty() ? "branch-free" : reason) +
         ")\n  reqs: " + c.reqs.ToString() + "\n  changed: " + changed +
         "\n  requests: " + c.requests.ToString() + "\n  pod ports: " + PortsText(c.pod_ports) +
         "\n  claim ports: " + PortsText(c.claim_ports) +
         "\n  candidates: " + Names(*c.t, c.candidates) + "\n  FastFilter: " + Names(*c.t, fast) +
         "\n  full filter: " + Names(*c.t, full);
}

TEST_CASE("FastFilter keeps exactly the types the full filter keeps", "[scheduler][filter]") {
  const std::unique_ptr<Fixture> f = MakeFixture();
  REQUIRE(f->pools->templates.size() == 7);
  Rng rng(7);
  std::map<std::string, int> paths;  // reason -> cases ("" = branch-free loop)
  int kept_some = 0, kept_none = 0, narrowed = 0, well_known_narrowed = 0, ports_mattered = 0;
  int by_words = 0, ports_by_words = 0;  // cases the bit-set path answered (with host ports)
  int all_kept_cases = 0;                // ... keeping every candidate
  constexpr int kCases = 4000;
  for (int i = 0; i < kCases; ++i) {
    Case c = RandomCase(rng, f->pools->templates);
    const std::vector<int> fast = karp::scheduling::FastFilter(
        *c.t, c.candidates, c.reqs, c.changed, c.requests, c.pod_ports, c.claim_ports);
    const std::vector<int> full = FullFilter(c, /*with_ports=*/true);
    const std::string reason = GeneralPathReason(*c.t, c.reqs, c.changed, c.requests, c.pod_ports);
    if (fast != full) FAIL("case " << i << ": " << Describe(c, reason, fast, full));
    // With a `dropped` list: the same kept types, and the others of `candidates` in order.
    std::vector<int> dropped = {-1};  // overwritten
    const std::vector<int> fast2 = karp::scheduling::FastFilter(
        *c.t, c.candidates, c.reqs, c.changed, c.requests, c.pod_ports, c.claim_ports, &dropped);
    std::vector<int> others;
    for (int t : c.candidates) {
      if (std::find(full.begin(), full.end(), t) == full.end()) others.push_back(t);
    }
    if (fast2 != full || dropped != others) {
      FAIL("case " << i << " with dropped: " << Describe(c, reason, fast2, full) << "\n  dropped: "
                   << Names(*c.t, dropped) << "\n  expected dropped: " << Names(*c.t, others));
    }
    // With the candidates as a bit set (the solver's claims): the same kept and dropped types,
    // and the kept set as bits whenever the call could produce it (the branch-free case).
    std::vector<uint64_t> candidate_bits(c.t->words, 0);
    for (int t : c.candidates) {
      candidate_bits[static_cast<size_t>(t) / 64] |= uint64_t{1} << (t % 64);
    }
    std::vector<int> fast3 = {-1, -2}, dropped3 = {-3};  // buffers are reused: overwritten
    std::vector<uint64_t> kept_bits = {7};
    karp::scheduling::FastFilter(*c.t, c.candidates, c.reqs, c.changed, c.requests, c.pod_ports,
                                 c.claim_ports, &fast3, &dropped3, &candidate_bits, &kept_bits);
    std::vector<int> from_bits;
    for (size_t w = 0; w < kept_bits.size(); ++w) {
      for (int b = 0; b < 64; ++b) {
        if ((kept_bits[w] >> b) & 1u) from_bits.push_back(static_cast<int>(w * 64) + b);
      }
    }
    // By words: the branch-free cases, and those whose only reason for the general loop is
    // host ports (decided per daemon group as bits).
    const bool words_expected =
        c.t->has_headroom_rows() &&
        GeneralPathReason(*c.t, c.reqs, c.changed, c.requests, ContainerPorts{}).empty();
    // By words, a call that keeps nothing leaves `dropped` empty (a refusal needs no list).
    const std::vector<int> others3 = words_expected && full.empty() ? std::vector<int>{} : others;
    if (fast3 != full || dropped3 != others3 || kept_bits.empty() == words_expected ||
        (!kept_bits.empty() && from_bits != full)) {
      FAIL("case " << i << " with candidate bits: " << Describe(c, reason, fast3, full)
                   << "\n  dropped: " << Names(*c.t, dropped3)
                   << "\n  kept bits: " << Names(*c.t, from_bits));
    }
    // With `all_kept`: when every candidate stays, no list is written; else as without it.
    bool all_kept = false;
    std::vector<int> fast4 = {-1}, dropped4 = {-3};
    std::vector<uint64_t> kept_bits4;
    karp::scheduling::FastFilter(*c.t, c.candidates, c.reqs, c.changed, c.requests, c.pod_ports,
                                 c.claim_ports, &fast4, &dropped4, &candidate_bits, &kept_bits4,
                                 &all_kept);
    if (all_kept ? (full != c.candidates || !fast4.empty() || !dropped4.empty() || !words_expected)
                 : (fast4 != full || dropped4 != others3)) {
      FAIL("case " << i << " with all_kept=" << all_kept << ": "
                   << Describe(c, reason, fast4, full));
    }
    if (all_kept) ++all_kept_cases;
    if (!kept_bits.empty()) {
      ++by_words;
      if (!c.pod_ports.empty()) ++ports_by_words;
    }
    ++paths[reason];
    if (!c.pod_ports.empty() && FullFilter(c, /*with_ports=*/false) != full) ++ports_mattered;
    (full.empty() ? kept_none : kept_some) += 1;
    if (!full.empty() && full.size() < c.candidates.size()) {
      ++narrowed;
      if (reason.empty() && !c.changed.empty()) ++well_known_narrowed;
    }
  }
  // Both loops ran, the general one for each of its reasons, on decisions that matter: some
  // types kept and some dropped, by the changed keys on the branch-free loop, by host ports.
  CHECK(paths[""] > kCases / 10);
  CHECK(by_words > paths[""]);
  CHECK(ports_by_words > kCases / 20);
  CHECK(all_kept_cases > 0);  // a handful of the random cases keep every candidate
  CHECK(all_kept_cases < by_words);
  for (const char* reason : {"host ports", "extended request", "extended daemon overhead",
                             "key with more than 64 classes", "more than 64 offering pairs"}) {
    INFO(reason);
    CHECK(paths[reason] > 0);
  }
  CHECK(kept_some > kCases / 4);
  CHECK(kept_none > kCases / 20);
  CHECK(narrowed > kCases / 10);
  CHECK(well_known_narrowed > kCases / 50);
  CHECK(ports_mattered > kCases / 100);
}

TEST_CASE("the templates of the filter test have the shapes it relies on", "[scheduler][filter]") {
  const std::unique_ptr<Fixture> f = MakeFixture();
  std::map<std::string, const Template*> by_pool;
  for (const Template& t : f->pools->templates) by_pool[t.pool->name()] = &t;
  REQUIRE(by_pool.size() == 7);
  const std::string type_key(karp::kLabelInstanceType);
  // More than 64 types (bit sets of several words, a type-name key decided per type) and
  // fewer (decided by class).
  CHECK(by_pool["cpu-only"]->instance_types.size() > 64);
  CHECK(by_pool["cpu-only"]->key_classes.at(type_key).representative.size() > 64);
  CHECK(by_pool["arm"]->instance_types.size() <= 64);
  CHECK(by_pool["types-64"]->instance_types.size() == 64);
  CHECK(by_pool["types-65"]->instance_types.size() == 65);
  CHECK_FALSE(by_pool["cpu-only"]->overhead_has_extended);
  CHECK(by_pool["general"]->overhead_has_extended);
  CHECK(by_pool["wide"]->available_offering_bits.empty());
  CHECK_FALSE(by_pool["general"]->available_offering_bits.empty());
  // Several daemon groups, some with host ports; a type whose daemons take more than it has
  // (no request fits it).
  for (const char* pool : {"general", "cpu-only", "arm", "spot-amd", "types-64", "types-65"}) {
    INFO(pool);
    CHECK(by_pool[pool]->daemon_groups.size() >= 2);
  }
  const Template& general = *by_pool["general"];
  CHECK(general.daemon_groups.size() >= 4);
  bool any_ports = false, any_overfull = false;
  for (const auto& g : general.daemon_groups) any_ports |= !g.ports.empty();
  for (int i = 0; i < static_cast<int>(general.instance_types.size()); ++i) {
    for (std::string_view r : {karp::kResourceCpu, karp::kResourceMemory,
                               karp::kResourceEphemeralStorage, karp::kResourcePods}) {
      any_overfull |= Room(general, i, r) < 0;
    }
  }
  CHECK(any_ports);
  CHECK(any_overfull);
}

}  // namespace
