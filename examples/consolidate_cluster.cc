// Consolidation of a cluster snapshot: load the cluster (Kubernetes objects in YAML or JSON,
// as `kubectl get nodepools,nodeclaims,nodes,pods,pdb -A -o yaml` prints them) with the
// karp::json codec, run the Consolidator, and print its commands and why every other node is
// kept.
//
//   build/examples/example_consolidate_cluster [SNAPSHOT] [NOW]
//
// SNAPSHOT defaults to examples/consolidate_cluster.yaml (run from the repository root); NOW
// (RFC 3339) defaults to 2026-01-05T12:00:00Z so the output is reproducible. A host passes
// absl::Now().

#include <iostream>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "karp/json/codec.h"
#include "karp/karp.h"

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "examples/consolidate_cluster.yaml";
  const std::string now_text = argc > 2 ? argv[2] : "2026-01-05T12:00:00Z";
  absl::Time now;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, now_text, &now, &err)) {
    std::cerr << "usage: example_consolidate_cluster [SNAPSHOT] [NOW as RFC 3339]\n";
    return 2;
  }

  absl::StatusOr<karp::ClusterSnapshot> snapshot = karp::json::ReadSnapshotFiles({path});
  if (!snapshot.ok()) {
    std::cerr << snapshot.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<karp::InstanceCatalog> aws = karp::EmbeddedAwsCatalog();
  if (!aws.ok()) {
    std::cerr << aws.status().message() << "\n";
    return 1;
  }
  auto catalog = std::make_shared<const karp::InstanceCatalog>(std::move(*aws));

  absl::StatusOr<karp::Consolidator> consolidator =
      karp::Consolidator::Create(*snapshot, catalog, now);
  if (!consolidator.ok()) {
    std::cerr << consolidator.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<karp::ConsolidationPlan> plan = consolidator->Plan();
  if (!plan.ok()) {
    std::cerr << plan.status().message() << "\n";
    return 1;
  }

  std::cout << path << ": " << plan->node_count << " nodes, " << plan->candidate_count
            << " consolidation candidates\n";
  for (const karp::DisruptionCommand& cmd : plan->commands) {
    std::cout << karp::DisruptionDecisionName(cmd.decision) << " ("
              << karp::DisruptionReasonName(cmd.reason) << "):";
    for (const std::string& node : cmd.candidates) std::cout << " " << node;
    for (const karp::NewNodeClaim& r : cmd.replacements) {
      std::cout << " -> " << r.name;
      if (r.launch)
        std::cout << " (" << r.launch->instance_type << ", $" << r.launch->price << "/h)";
    }
    std::cout << ", saves $" << cmd.savings_per_hour << "/h\n";
  }
  for (const karp::KeptNode& k : plan->kept) {
    std::cout << "keep " << k.node << ": " << k.reason << "\n";
  }
  std::cout << "total savings $" << plan->savings_per_hour << "/h\n";
  return 0;
}
