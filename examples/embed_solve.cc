// The smallest host program: build a Scheduler from in-memory objects, call Solve, print the
// decisions. This is the example shown in README.md.
//
//   build/examples/example_embed_solve

#include <iostream>
#include <memory>

#include "karp/karp.h"

int main() {
  karp::ClusterSnapshot snapshot;

  karp::NodePool pool;
  pool.metadata.name = "default";
  pool.requirements = {{"karpenter.sh/capacity-type", karp::Operator::kIn, {"spot"}, std::nullopt},
                       {"kubernetes.io/arch", karp::Operator::kIn, {"arm64"}, std::nullopt}};
  snapshot.node_pools.push_back(pool);

  for (int i = 0; i < 3; ++i) {
    karp::Pod pod;
    pod.metadata.name = "web-" + std::to_string(i);
    karp::Container app;
    app.name = "app";
    app.requests = karp::ResourceList{{"cpu", 1500}, {"memory", 2LL << 30}};  // 1500m, 2Gi
    pod.containers.push_back(app);
    snapshot.pods.push_back(pod);
  }

  absl::StatusOr<karp::InstanceCatalog> aws = karp::EmbeddedAwsCatalog();
  if (!aws.ok()) {
    std::cerr << aws.status().message() << "\n";
    return 1;
  }
  auto catalog = std::make_shared<const karp::InstanceCatalog>(std::move(*aws));
  absl::StatusOr<karp::Scheduler> scheduler = karp::Scheduler::Create(snapshot, catalog);
  if (!scheduler.ok()) {
    std::cerr << scheduler.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<karp::SolveResult> result = scheduler->Solve();
  if (!result.ok()) {
    std::cerr << result.status().message() << "\n";
    return 1;
  }
  for (const karp::NewNodeClaim& nc : result->node_claims) {
    std::cout << nc.name << ": " << nc.pods.size() << " pods on " << nc.launch->instance_type
              << " (" << nc.launch->capacity_type << ", " << nc.launch->zone << ", $"
              << nc.launch->price << "/h" << (nc.launch->price_estimated ? " estimated" : "")
              << "), " << nc.instance_types.size() << " instance types allowed\n";
  }
  for (const karp::PodError& e : result->pod_errors) {
    std::cout << e.pod << ": " << e.message << "\n";
  }
  return result->pod_errors.empty() ? 0 : 2;
}
