// The pods of deleting nodes that Solve() provisions for (docs/design.md §5.3): the reference's
// IsCurrentlyReschedulable leaves out pods whose eviction PodDisruptionBudgets can never allow.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "karp/scheduler.h"
#include "karp/taints.h"
#include "support/builders.h"
#include "support/solve_checks.h"

namespace {

using karp::ClusterSnapshot;
using karp::LabelSelector;
using karp::PodDisruptionBudget;
using karp::SolveResult;
using karp::testing::FakeCatalog;
using karp::testing::MakeNode;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;

PodDisruptionBudget Pdb(const std::string& name, const std::string& app,
                        const std::string& min_available, const std::string& max_unavailable) {
  PodDisruptionBudget pdb;
  pdb.metadata.name = name;
  pdb.metadata.namespace_ = "default";
  LabelSelector selector;
  selector.match_labels = {{"app", app}};
  pdb.selector = selector;
  pdb.min_available = min_available;
  pdb.max_unavailable = max_unavailable;
  return pdb;
}

// A deleting node "old" running web-0 (app=web) and a NodePool to replace it from.
ClusterSnapshot DeletingNodeWithWebPod() {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  karp::Node old = MakeNode("old", "4", "8Gi");
  old.metadata.deletion_timestamp = absl::FromUnixSeconds(1000);
  snap.nodes.push_back(old);
  snap.pods.push_back(MakePod("web-0", "1", "1Gi").Label("app", "web").BoundTo("old"));
  return snap;
}

int PodsProvisionedFor(const ClusterSnapshot& snap) {
  const SolveResult r = karp::testing::MustSolve(snap, FakeCatalog(10));
  int pods = 0;
  for (const karp::NewNodeClaim& nc : r.node_claims) pods += static_cast<int>(nc.pods.size());
  return pods + static_cast<int>(r.pod_errors.size());
}

}  // namespace

TEST_CASE("PodDisruptionBudget::FullyBlocking is the reference's rule", "[pdb]") {
  CHECK(Pdb("a", "web", "", "0").FullyBlocking());
  CHECK(Pdb("a", "web", "", "0%").FullyBlocking());
  CHECK(Pdb("a", "web", "100%", "").FullyBlocking());
  CHECK_FALSE(Pdb("a", "web", "", "1").FullyBlocking());
  CHECK_FALSE(Pdb("a", "web", "", "10%").FullyBlocking());
  CHECK_FALSE(Pdb("a", "web", "99%", "").FullyBlocking());
  // minAvailable equal to the replica count blocks today but is not "fully" blocking.
  CHECK_FALSE(Pdb("a", "web", "3", "").FullyBlocking());
  CHECK_FALSE(Pdb("a", "web", "", "").FullyBlocking());
}

TEST_CASE("pods of a deleting node under a fully blocking PDB are not provisioned for",
          "[scheduler][pdb]") {
  ClusterSnapshot snap = DeletingNodeWithWebPod();
  REQUIRE(PodsProvisionedFor(snap) == 1);
  for (const auto& [min_available, max_unavailable] :
       std::vector<std::pair<std::string, std::string>>{{"", "0"}, {"", "0%"}, {"100%", ""}}) {
    INFO("minAvailable '" << min_available << "', maxUnavailable '" << max_unavailable << "'");
    ClusterSnapshot blocked = snap;
    blocked.pdbs.push_back(Pdb("web", "web", min_available, max_unavailable));
    CHECK(PodsProvisionedFor(blocked) == 0);
  }
}

TEST_CASE("pods of a deleting node selected by two PDBs are not provisioned for",
          "[scheduler][pdb]") {
  ClusterSnapshot snap = DeletingNodeWithWebPod();
  snap.pdbs.push_back(Pdb("web-a", "web", "", "1"));
  snap.pdbs.push_back(Pdb("web-b", "web", "", "1"));
  CHECK(PodsProvisionedFor(snap) == 0);
}

TEST_CASE("a PDB that blocks only for now, or selects other pods, does not stop provisioning",
          "[scheduler][pdb]") {
  ClusterSnapshot snap = DeletingNodeWithWebPod();
  PodDisruptionBudget busy = Pdb("web", "web", "", "1");
  busy.disruptions_allowed = 0;  // another replica is being replaced: this one waits its turn
  snap.pdbs.push_back(busy);
  snap.pdbs.push_back(Pdb("db", "db", "", "0"));
  PodDisruptionBudget elsewhere = Pdb("web-other-ns", "web", "", "0");
  elsewhere.metadata.namespace_ = "other";
  snap.pdbs.push_back(elsewhere);
  CHECK(PodsProvisionedFor(snap) == 1);
}

TEST_CASE("a fully blocking PDB does not hold back pods it would never evict", "[scheduler][pdb]") {
  SECTION("a pod tolerating the disrupted taint") {
    ClusterSnapshot snap = DeletingNodeWithWebPod();
    snap.pdbs.push_back(Pdb("web", "web", "", "0"));
    karp::Toleration t;
    t.key = std::string(karp::DisruptedTaint().key);
    t.op = karp::TolerationOperator::kExists;
    snap.pods[0].tolerations.push_back(t);
    CHECK(PodsProvisionedFor(snap) == 1);
  }
  SECTION("an unhealthy pod under unhealthyPodEvictionPolicy AlwaysAllow") {
    ClusterSnapshot snap = DeletingNodeWithWebPod();
    PodDisruptionBudget pdb = Pdb("web", "web", "100%", "");
    pdb.unhealthy_pod_eviction_policy = "AlwaysAllow";
    snap.pdbs.push_back(pdb);
    CHECK(PodsProvisionedFor(snap) == 0);  // Running: healthy, blocked
    snap.pods[0].phase = "Pending";
    CHECK(PodsProvisionedFor(snap) == 1);
  }
}

TEST_CASE("pending pods are provisioned for whatever their PDBs say", "[scheduler][pdb]") {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.pods.push_back(MakePod("web-0", "1", "1Gi").Label("app", "web"));
  snap.pdbs.push_back(Pdb("web", "web", "", "0"));
  CHECK(PodsProvisionedFor(snap) == 1);
}
