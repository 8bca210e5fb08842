// The pod each DaemonSet stands for in daemon overhead (docs/design.md §2.4): the newest pod the
// set controls, with the template's required node affinity, else the template — the
// reference's getDaemonSetPods (GetDaemonSetPod, then PodForDaemonSet).

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "karp/scheduler.h"
#include "model/node_pool_templates.h"
#include "support/builders.h"
#include "support/solve_checks.h"

namespace {

using karp::ClusterSnapshot;
using karp::NodeSelectorRequirement;
using karp::NodeSelectorTerm;
using karp::Operator;
using karp::Pod;
using karp::testing::FakeCatalog;
using karp::testing::MakeDaemonSet;
using karp::testing::MakeNodePool;
using karp::testing::MakePod;

int64_t Cpu(const char* text) { return *karp::ParseQuantity(text, karp::kResourceCpu); }

// A DaemonSet "agent" whose template requests 100m cpu.
ClusterSnapshot WithAgent() {
  ClusterSnapshot snap;
  snap.node_pools.push_back(MakeNodePool("default"));
  snap.daemon_sets.push_back(MakeDaemonSet("agent", MakePod("agent", "100m")));
  snap.daemon_sets[0].metadata.uid = "agent-uid";
  return snap;
}

// A pod of the agent set running on `node`, created at `created` (Unix seconds).
Pod AgentPod(const std::string& name, const char* cpu, int64_t created) {
  return MakePod(name, cpu)
      .Namespace("kube-system")
      .OwnedBy("DaemonSet", "agent")
      .CreatedAt(created)
      .BoundTo("node-" + name);
}

using karp::DaemonPods;

}  // namespace

TEST_CASE("without a running pod the template stands for the DaemonSet", "[daemonset]") {
  const std::vector<Pod> pods = DaemonPods(WithAgent());
  REQUIRE(pods.size() == 1);
  CHECK(pods[0].Requests().cpu() == Cpu("100m"));
  CHECK(pods[0].metadata.name == "agent");
}

TEST_CASE("the newest pod the DaemonSet controls stands for it", "[daemonset]") {
  ClusterSnapshot snap = WithAgent();
  // A webhook added a sidecar to the running pods: they request more than the template.
  snap.pods.push_back(AgentPod("agent-old", "300m", 100));
  snap.pods.push_back(AgentPod("agent-new", "500m", 200));
  snap.pods.push_back(AgentPod("agent-tie", "700m", 200));  // same time: the first one wins
  const std::vector<Pod> pods = DaemonPods(snap);
  REQUIRE(pods.size() == 1);
  CHECK(pods[0].metadata.name == "agent-new");
  CHECK(pods[0].Requests().cpu() == Cpu("500m"));
}

TEST_CASE("pods the DaemonSet does not control leave the template in place", "[daemonset]") {
  ClusterSnapshot snap = WithAgent();
  SECTION("an owner reference that is not the controller") {
    Pod p = AgentPod("agent-x", "2", 100);
    p.metadata.owner_references[0].controller = false;
    snap.pods.push_back(p);
  }
  SECTION("another uid: a DaemonSet of the same name, deleted and created again") {
    Pod p = AgentPod("agent-x", "2", 100);
    p.metadata.owner_references[0].uid = "stale-uid";
    snap.pods.push_back(p);
  }
  SECTION("another namespace") {
    Pod p = AgentPod("agent-x", "2", 100);
    p.metadata.namespace_ = "default";
    snap.pods.push_back(p);
  }
  const std::vector<Pod> pods = DaemonPods(snap);
  REQUIRE(pods.size() == 1);
  CHECK(pods[0].Requests().cpu() == Cpu("100m"));
}

TEST_CASE("a set's uid may be absent on either side", "[daemonset]") {
  ClusterSnapshot snap = WithAgent();
  snap.daemon_sets[0].metadata.uid.clear();
  snap.pods.push_back(AgentPod("agent-x", "2", 100));
  REQUIRE(DaemonPods(snap).size() == 1);
  CHECK(DaemonPods(snap)[0].Requests().cpu() == Cpu("2"));
}

TEST_CASE("the template's required node affinity replaces the running pod's", "[daemonset]") {
  ClusterSnapshot snap = WithAgent();
  Pod running = AgentPod("agent-x", "2", 100);
  // The DaemonSet controller pins each pod to its node with matchFields.
  NodeSelectorTerm pinned;
  pinned.has_match_fields = true;
  running.node_affinity.required = {pinned};
  snap.pods.push_back(running);
  SECTION("the template has required node affinity: it replaces the pin") {
    NodeSelectorTerm arm;
    arm.match_expressions = {
        NodeSelectorRequirement{"kubernetes.io/arch", Operator::kIn, {"arm64"}, std::nullopt}};
    snap.daemon_sets[0].pod_template.node_affinity.required = {arm};
    const std::vector<Pod> pods = DaemonPods(snap);
    REQUIRE(pods[0].node_affinity.required.size() == 1);
    CHECK(pods[0].node_affinity.required[0] == arm);
  }
  SECTION("the template has none: the pod keeps its own, as in the reference") {
    const std::vector<Pod> pods = DaemonPods(snap);
    REQUIRE(pods[0].node_affinity.required.size() == 1);
    CHECK(pods[0].node_affinity.required[0].has_match_fields);
  }
}

TEST_CASE("a new claim reserves the running pod's requests for the DaemonSet", "[daemonset]") {
  ClusterSnapshot snap = WithAgent();
  snap.pods.push_back(MakePod("web", "1"));
  auto requests_of_claim = [](const ClusterSnapshot& s) {
    const karp::SolveResult r = karp::testing::MustSolve(s, FakeCatalog(10));
    REQUIRE(r.node_claims.size() == 1);
    return r.node_claims[0].requests.cpu();
  };
  CHECK(requests_of_claim(snap) == Cpu("1100m"));
  snap.pods.push_back(AgentPod("agent-x", "600m", 100));
  CHECK(requests_of_claim(snap) == Cpu("1600m"));
}

TEST_CASE("Scheduler::Update sees a DaemonSet's new pod", "[daemonset][update]") {
  ClusterSnapshot snap = WithAgent();
  snap.pods.push_back(MakePod("web", "1"));
  absl::StatusOr<karp::Scheduler> first = karp::Scheduler::Create(snap, FakeCatalog(10));
  REQUIRE(first.ok());
  snap.pods.push_back(AgentPod("agent-x", "600m", 100));
  absl::StatusOr<karp::Scheduler> second = first->Update(snap);
  REQUIRE(second.ok());
  absl::StatusOr<karp::SolveResult> r = second->Solve();
  REQUIRE(r.ok());
  REQUIRE(r->node_claims.size() == 1);
  CHECK(r->node_claims[0].requests.cpu() == Cpu("1600m"));
}
