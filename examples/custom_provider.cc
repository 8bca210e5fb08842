// A host-supplied CloudProvider: "acme", a made-up cloud with its own instance catalog, two
// zones, spot and on-demand capacity, and no capacity left for one offering. The host
// implements karp::CloudProvider, builds the NodePool's catalog from GetInstanceTypes, calls
// Scheduler::Solve, and launches each new NodeClaim through karp::Launcher, which falls back
// past the offering without capacity and remembers it (UnavailableOfferings) so the next
// solve avoids it.
//
//   build/examples/example_custom_provider

#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/karp.h"

namespace {

// The acme cloud. Like a RunInstances call, Create tries only the first option of a request;
// the Launcher retries with the next one when it fails with insufficient capacity.
class AcmeCloud : public karp::CloudProvider {
 public:
  std::string_view name() const override { return "acme"; }

  absl::StatusOr<std::vector<karp::InstanceType>> GetInstanceTypes(
      const karp::NodePool&) const override {
    std::vector<karp::InstanceType> types;
    // name, vCPUs, GiB, max pods, on-demand $/h; spot is 40 % of on-demand.
    const std::tuple<const char*, int, int, int, double> shapes[] = {
        {"acme.small", 2, 4, 30, 0.080},
        {"acme.medium", 4, 8, 60, 0.160},
        {"acme.large", 8, 16, 110, 0.320},
        {"acme.highmem", 4, 32, 60, 0.250},
    };
    for (const auto& [type, cpu, gib, pods, price] : shapes) {
      std::vector<karp::Offering> offerings;
      for (const char* zone : {"acme-east-1", "acme-east-2"}) {
        for (const char* capacity_type : {"on-demand", "spot"}) {
          karp::Offering o;
          o.zone = zone;
          o.capacity_type = capacity_type;
          o.price = std::string(capacity_type) == "spot" ? price * 0.4 : price;
          offerings.push_back(o);
        }
      }
      karp::Overhead overhead;
      overhead.kube_reserved = karp::ResourceList{{"cpu", 100}, {"memory", 256LL << 20}};
      types.push_back(karp::InstanceType::Make(
          type,
          {{"kubernetes.io/arch", "amd64"},
           {"kubernetes.io/os", "linux"},
           {"acme.example/family", std::string(type).substr(5)}},
          karp::ResourceList{
              {"cpu", cpu * 1000LL}, {"memory", static_cast<int64_t>(gib) << 30}, {"pods", pods}},
          overhead, offerings));
    }
    return types;
  }

  absl::StatusOr<karp::Instance> Create(const karp::LaunchRequest& request,
                                        std::vector<karp::LaunchOption>* failed) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (request.options.empty()) return absl::InvalidArgumentError("acme: no launch options");
    const karp::LaunchOption& o = request.options.front();
    if (sold_out_.count({o.capacity_type, o.instance_type, o.zone}) > 0) {
      if (failed != nullptr) failed->push_back(o);
      return absl::ResourceExhaustedError("acme: InsufficientInstanceCapacity for " +
                                          o.instance_type + " in " + o.zone);
    }
    karp::Instance i;
    i.provider_id = "acme://" + o.zone + "/vm-" + std::to_string(next_id_++);
    i.instance_type = o.instance_type;
    i.zone = o.zone;
    i.capacity_type = o.capacity_type;
    i.price = o.price;
    i.node_pool = request.claim.node_pool;
    i.labels = request.claim.labels;
    i.labels["node.kubernetes.io/instance-type"] = o.instance_type;
    i.labels["topology.kubernetes.io/zone"] = o.zone;
    i.labels["karpenter.sh/capacity-type"] = o.capacity_type;
    instances_[i.provider_id] = i;
    return i;
  }

  absl::Status Delete(const std::string& provider_id) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (instances_.erase(provider_id) == 0) {
      return absl::NotFoundError("acme: no instance " + provider_id);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<karp::Instance> Get(const std::string& provider_id) const override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = instances_.find(provider_id);
    if (it == instances_.end()) return absl::NotFoundError("acme: no instance " + provider_id);
    return it->second;
  }

  absl::StatusOr<std::vector<karp::Instance>> List() const override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<karp::Instance> out;
    for (const auto& [id, i] : instances_) out.push_back(i);
    return out;
  }

 private:
  mutable std::mutex mu_;
  // The spot pool of acme.medium in acme-east-1 is exhausted.
  std::set<std::tuple<std::string, std::string, std::string>> sold_out_ = {
      {"spot", "acme.medium", "acme-east-1"}};
  std::map<std::string, karp::Instance> instances_;
  int next_id_ = 1;
};

int Fail(const absl::Status& s) {
  std::cerr << s.message() << "\n";
  return 1;
}

}  // namespace

int main() {
  AcmeCloud cloud;
  karp::ClusterSnapshot snapshot;
  karp::NodePool pool;
  pool.metadata.name = "general";
  pool.requirements = {
      {"karpenter.sh/capacity-type", karp::Operator::kIn, {"spot", "on-demand"}, std::nullopt}};
  snapshot.node_pools.push_back(pool);
  for (int i = 0; i < 6; ++i) {
    karp::Pod pod;
    pod.metadata.name = "worker-" + std::to_string(i);
    karp::Container c;
    c.name = "app";
    c.requests = karp::ResourceList{{"cpu", 500}, {"memory", 1LL << 30}};  // 500m, 1Gi
    pod.containers.push_back(c);
    snapshot.pods.push_back(pod);
  }

  // The NodePool's catalog comes from the provider; the provider's label keys are registered
  // as well-known so pods may select on them.
  absl::StatusOr<std::vector<karp::InstanceType>> types = cloud.GetInstanceTypes(pool);
  if (!types.ok()) return Fail(types.status());
  absl::StatusOr<karp::InstanceCatalog> built = karp::InstanceCatalog::Create(*types);
  if (!built.ok()) return Fail(built.status());
  auto catalog = std::make_shared<const karp::InstanceCatalog>(std::move(*built));

  // A fixed clock keeps the output reproducible; a host passes absl::Now().
  const absl::Time now = absl::FromUnixSeconds(1767225600);  // 2026-01-01T00:00:00Z
  karp::UnavailableOfferings cache;
  karp::Launcher launcher(&cloud, &cache);

  for (int round = 1; round <= 2; ++round) {
    // Later solves see the offerings that recently failed as unavailable.
    absl::StatusOr<karp::InstanceCatalog> fresh = cache.Apply(*catalog, now);
    if (!fresh.ok()) return Fail(fresh.status());
    auto current = std::make_shared<const karp::InstanceCatalog>(std::move(*fresh));
    absl::StatusOr<karp::Scheduler> scheduler =
        karp::Scheduler::Create(snapshot, {{pool.name(), current}});
    if (!scheduler.ok()) return Fail(scheduler.status());
    absl::StatusOr<karp::SolveResult> result = scheduler->Solve();
    if (!result.ok()) return Fail(result.status());
    std::cout << "solve " << round << ":\n";
    for (const karp::NewNodeClaim& nc : result->node_claims) {
      std::cout << "  " << nc.name << ": " << nc.pods.size() << " pods, solve picked "
                << nc.launch->instance_type << " " << nc.launch->capacity_type << " in "
                << nc.launch->zone << " ($" << nc.launch->price << "/h)\n";
      absl::StatusOr<karp::Instance> instance = launcher.Launch(nc, *current, now);
      if (!instance.ok()) return Fail(instance.status());
      std::cout << "  launched " << instance->provider_id << ": " << instance->instance_type << " "
                << instance->capacity_type << " in " << instance->zone << " ($" << instance->price
                << "/h)\n";
    }
    std::cout << "  offerings cached as unavailable: " << cache.Size(now) << "\n";
    // The launched node takes the first batch; a second batch of pods arrives.
    for (karp::Pod& pod : snapshot.pods) pod.metadata.name = "batch2-" + pod.metadata.name;
  }
  absl::StatusOr<std::vector<karp::Instance>> running = cloud.List();
  if (!running.ok()) return Fail(running.status());
  std::cout << running->size() << " instances running on " << cloud.name() << "\n";
  // The first launch hit the exhausted offering and fell back; the second solve avoided it.
  return cache.Size(now) == 1 && running->size() == 2 ? 0 : 1;
}
