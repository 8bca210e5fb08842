// Launch with fallback through the unavailable-offerings cache (docs/aws.md §4.2–4.3).

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "karp/cloud_provider.h"
#include "karp/consolidator.h"
#include "karp/labels.h"
#include "karp/scheduler.h"
#include "karp/testing/fake_cloud_provider.h"

namespace {

using karp::Instance;
using karp::InstanceCatalog;
using karp::InstanceType;
using karp::Launcher;
using karp::NewNodeClaim;
using karp::Offering;
using karp::UnavailableOfferings;
using karp::testing::FakeCloudProvider;

Offering Off(const char* zone, const char* ct, double price) {
  Offering o;
  o.zone = zone;
  o.capacity_type = ct;
  o.price = price;
  return o;
}

std::shared_ptr<const InstanceCatalog> Catalog() {
  std::vector<InstanceType> types;
  types.push_back(InstanceType::Make(
      "small", {{"kubernetes.io/arch", "amd64"}}, karp::ResourceList{{"cpu", 2000}, {"pods", 10}},
      {}, {Off("z1", "spot", 0.03), Off("z2", "spot", 0.04), Off("z1", "on-demand", 0.10)}));
  types.push_back(InstanceType::Make("large", {{"kubernetes.io/arch", "amd64"}},
                                     karp::ResourceList{{"cpu", 4000}, {"pods", 20}}, {},
                                     {Off("z1", "spot", 0.06), Off("z1", "on-demand", 0.20)}));
  return std::make_shared<const InstanceCatalog>(*InstanceCatalog::Create(std::move(types)));
}

NewNodeClaim Claim(std::vector<std::string> types) {
  NewNodeClaim nc;
  nc.name = "default-1";
  nc.node_pool = "default";
  nc.instance_types = std::move(types);
  return nc;
}

const absl::Time kNow = absl::FromUnixSeconds(1767225600);

}  // namespace

TEST_CASE("a launch takes the cheapest offering of the claim", "[cloud]") {
  auto catalog = Catalog();
  FakeCloudProvider cloud(catalog);
  UnavailableOfferings cache;
  Launcher launcher(&cloud, &cache);
  absl::StatusOr<Instance> i = launcher.Launch(Claim({"small", "large"}), *catalog, kNow);
  REQUIRE(i.ok());
  CHECK(i->instance_type == "small");
  CHECK(i->zone == "z1");
  CHECK(i->capacity_type == "spot");
  CHECK(i->labels.at(std::string(karp::kLabelNodePool)) == "default");
  CHECK(cache.Size(kNow) == 0);
}

TEST_CASE("insufficient capacity falls back to the next offering and is cached", "[cloud]") {
  auto catalog = Catalog();
  FakeCloudProvider cloud(catalog);
  cloud.FailCapacity("spot", "small", "z1");
  UnavailableOfferings cache;
  Launcher launcher(&cloud, &cache);
  absl::StatusOr<Instance> i = launcher.Launch(Claim({"small", "large"}), *catalog, kNow);
  REQUIRE(i.ok());
  CHECK(i->instance_type == "small");
  CHECK(i->zone == "z2");
  CHECK(cache.IsUnavailable("spot", "small", "z1", kNow));
  CHECK_FALSE(cache.IsUnavailable("spot", "small", "z2", kNow));

  SECTION("later launches skip the cached offering without asking the cloud") {
    const int calls = cloud.create_calls();
    std::vector<karp::LaunchOption> options =
        launcher.Options(Claim({"small"}), *catalog, kNow + absl::Minutes(1));
    REQUIRE_FALSE(options.empty());
    CHECK(options.front().zone == "z2");
    REQUIRE(launcher.Launch(Claim({"small"}), *catalog, kNow + absl::Minutes(1)).ok());
    CHECK(cloud.create_calls() == calls + 1);
  }
  SECTION("the entry expires after three minutes") {
    CHECK(cache.IsUnavailable("spot", "small", "z1", kNow + absl::Seconds(179)));
    CHECK_FALSE(cache.IsUnavailable("spot", "small", "z1", kNow + absl::Minutes(3)));
  }
}

TEST_CASE("a catalog filtered by the cache hides the failed offering from later solves",
          "[cloud]") {
  auto catalog = Catalog();
  UnavailableOfferings cache;
  cache.MarkUnavailable("spot", "large", "z1", kNow);
  absl::StatusOr<InstanceCatalog> fresh = cache.Apply(*catalog, kNow);
  REQUIRE(fresh.ok());
  const InstanceType* large = fresh->Find("large");
  REQUIRE(large != nullptr);
  const karp::Requirement* ct = large->requirements.Find(karp::kLabelCapacityType);
  REQUIRE(ct != nullptr);
  CHECK(ct->values() == std::vector<std::string>{"on-demand"});
  CHECK(fresh->Find("small")->requirements == catalog->Find("small")->requirements);
  CHECK(fresh->well_known_labels() == catalog->well_known_labels());
}

TEST_CASE("when every offering fails the launch reports each of them", "[cloud]") {
  auto catalog = Catalog();
  FakeCloudProvider cloud(catalog);
  for (const char* z : {"z1", "z2"}) cloud.FailCapacity("spot", "small", z);
  cloud.FailCapacity("on-demand", "small", "z1");
  UnavailableOfferings cache;
  Launcher launcher(&cloud, &cache);
  absl::StatusOr<Instance> i = launcher.Launch(Claim({"small"}), *catalog, kNow);
  REQUIRE_FALSE(i.ok());
  CHECK(i.status().code() == absl::StatusCode::kResourceExhausted);
  const std::string msg(i.status().message());
  CHECK_THAT(msg,
             Catch::Contains("insufficient capacity for nodeclaim default-1: all 3 offerings"));
  CHECK_THAT(msg, Catch::Contains("on-demand/small/z1"));
  CHECK(cache.Size(kNow) == 3);
}

TEST_CASE("transient provider errors are returned and not cached", "[cloud]") {
  auto catalog = Catalog();
  FakeCloudProvider cloud(catalog);
  cloud.FailNextCalls(1);
  UnavailableOfferings cache;
  Launcher launcher(&cloud, &cache);
  absl::StatusOr<Instance> i = launcher.Launch(Claim({"small"}), *catalog, kNow);
  REQUIRE_FALSE(i.ok());
  CHECK(i.status().code() == absl::StatusCode::kUnavailable);
  CHECK(cache.Size(kNow) == 0);
  CHECK(launcher.Launch(Claim({"small"}), *catalog, kNow).ok());
}

TEST_CASE("a claim whose requirements allow no offering cannot launch", "[cloud]") {
  auto catalog = Catalog();
  FakeCloudProvider cloud(catalog);
  UnavailableOfferings cache;
  Launcher launcher(&cloud, &cache);
  NewNodeClaim nc = Claim({"large"});
  nc.requirements.Add(karp::Requirement::In(karp::kLabelZone, {"z2"}));
  absl::StatusOr<Instance> i = launcher.Launch(nc, *catalog, kNow);
  REQUIRE_FALSE(i.ok());
  CHECK(i.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(cloud.create_calls() == 0);
}

TEST_CASE("the fake provider keeps instance bookkeeping", "[cloud]") {
  auto catalog = Catalog();
  FakeCloudProvider cloud(catalog);
  UnavailableOfferings cache;
  Launcher launcher(&cloud, &cache);
  absl::StatusOr<Instance> a = launcher.Launch(Claim({"small"}), *catalog, kNow);
  absl::StatusOr<Instance> b = launcher.Launch(Claim({"large"}), *catalog, kNow);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->provider_id != b->provider_id);
  CHECK(cloud.List()->size() == 2);
  CHECK(cloud.Get(a->provider_id)->instance_type == "small");
  REQUIRE(cloud.Delete(a->provider_id).ok());
  CHECK(cloud.Delete(a->provider_id).code() == absl::StatusCode::kNotFound);
  CHECK(cloud.Get(a->provider_id).status().code() == absl::StatusCode::kNotFound);
  CHECK(cloud.List()->size() == 1);
}

TEST_CASE("a solved claim launches and a failed launch steers the next solve", "[cloud]") {
  auto catalog = Catalog();
  karp::ClusterSnapshot snap;
  karp::NodePool pool;
  pool.metadata.name = "default";
  snap.node_pools.push_back(pool);
  karp::Pod pod;
  pod.metadata.name = "web";
  karp::Container c;
  c.name = "app";
  c.requests = karp::ResourceList{{"cpu", 1000}};
  pod.containers.push_back(c);
  snap.pods.push_back(pod);

  absl::StatusOr<karp::SolveResult> first = karp::Scheduler::Create(snap, catalog)->Solve();
  REQUIRE(first.ok());
  REQUIRE(first->node_claims.size() == 1);
  CHECK(first->node_claims[0].launch->zone == "z1");

  FakeCloudProvider cloud(catalog);
  cloud.FailCapacity("spot", "small", "z1");
  UnavailableOfferings cache;
  Launcher launcher(&cloud, &cache);
  REQUIRE(launcher.Launch(first->node_claims[0], *catalog, kNow).ok());

  auto fresh = std::make_shared<const InstanceCatalog>(*cache.Apply(*catalog, kNow));
  absl::StatusOr<karp::SolveResult> second = karp::Scheduler::Create(snap, fresh)->Solve();
  REQUIRE(second.ok());
  REQUIRE(second->node_claims.size() == 1);
  CHECK(second->node_claims[0].launch->instance_type == "small");
  CHECK(second->node_claims[0].launch->zone == "z2");
}

TEST_CASE("the consolidator replaces a node the provider reports drifted", "[cloud]") {
  auto catalog = Catalog();
  karp::ClusterSnapshot snap;
  karp::NodePool pool;
  pool.metadata.name = "default";
  snap.node_pools.push_back(pool);
  karp::Node node;
  node.metadata.name = "n1";
  node.metadata.labels = {{std::string(karp::kLabelNodePool), "default"},
                          {std::string(karp::kLabelInstanceType), "small"},
                          {std::string(karp::kLabelZone), "z1"},
                          {std::string(karp::kLabelCapacityType), "on-demand"},
                          {std::string(karp::kLabelInitialized), "true"}};
  node.capacity = karp::ResourceList{{"cpu", 2000}, {"pods", 10}};
  node.allocatable = node.capacity;
  karp::NodeClaim claim;
  claim.metadata.name = "default-abc";
  claim.metadata.labels = node.metadata.labels;
  claim.node_name = "n1";
  claim.metadata.creation_timestamp = kNow - absl::Hours(2);
  snap.nodes.push_back(node);
  snap.node_claims.push_back(claim);
  karp::Pod pod;
  pod.metadata.name = "web";
  pod.node_name = "n1";
  pod.phase = "Running";
  karp::Container c;
  c.name = "app";
  c.requests = karp::ResourceList{{"cpu", 1000}};
  pod.containers.push_back(c);
  snap.pods.push_back(pod);

  karp::ConsolidationOptions options;
  options.provider_drift = [](const karp::NodeClaim& nc) {
    return nc.metadata.name == "default-abc" ? std::string("AMIDrift") : std::string();
  };
  absl::StatusOr<karp::Consolidator> c1 = karp::Consolidator::Create(snap, catalog, kNow, options);
  REQUIRE(c1.ok());
  absl::StatusOr<karp::ConsolidationPlan> plan = c1->Plan();
  REQUIRE(plan.ok());
  REQUIRE(plan->commands.size() == 1);
  CHECK(plan->commands[0].reason == karp::DisruptionReason::kDrifted);
  CHECK(plan->commands[0].decision == karp::DisruptionDecision::kReplace);

  absl::StatusOr<karp::ConsolidationPlan> without =
      karp::Consolidator::Create(snap, catalog, kNow)->Plan();
  REQUIRE(without.ok());
  for (const auto& cmd : without->commands) CHECK(cmd.reason != karp::DisruptionReason::kDrifted);
}

TEST_CASE("a reserved launch option carries its offering's reservation id", "[cloud]") {
  auto catalog = Catalog();
  std::vector<InstanceType> types = catalog->instance_types();
  Offering reserved = Off("z1", "reserved", 0.03);
  reserved.reservation_id = "cr-1";
  reserved.reservation_capacity = 1;
  types[1].offerings.push_back(reserved);  // "small" (types are sorted by name)
  REQUIRE(types[1].name == "small");
  const InstanceCatalog with = *InstanceCatalog::Create(std::move(types));
  UnavailableOfferings cache;
  FakeCloudProvider cloud(catalog);
  Launcher launcher(&cloud, &cache);
  std::vector<karp::LaunchOption> options = launcher.Options(Claim({"small"}), with, kNow);
  REQUIRE(options.size() == 4);
  // Reserved first at equal price; the others name no reservation.
  CHECK(options[0].capacity_type == "reserved");
  CHECK(options[0].reservation_id == "cr-1");
  for (size_t i = 1; i < options.size(); ++i) CHECK(options[i].reservation_id.empty());
}
