// Batched CreateFleet / DescribeInstances / TerminateInstances (AwsBatchingOptions) with
// concurrent callers against the local fake EC2. The windows are wide (500 ms idle) so that
// the callers meet in one batch even on a loaded machine.

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "aws/support/fake_aws_server.h"
#include "aws/support/fake_ec2.h"
#include "karp/aws/aws_cloud_provider.h"

namespace karp::aws {
namespace {

using testing::FakeAwsServer;
using testing::FakeEc2;
using testing::FakeInstance;
using testing::FakeRequest;

struct BatchFixture {
  std::unique_ptr<FakeAwsServer> server;
  std::unique_ptr<FakeEc2> ec2;
  std::unique_ptr<AwsCloudProvider> provider;

  explicit BatchFixture(AwsBatchingOptions batching = {}) {
    auto s = FakeAwsServer::Start();
    REQUIRE(s.ok());
    server = std::move(*s);
    ec2 = std::make_unique<FakeEc2>(server.get());
    AwsCloudProviderOptions o;
    o.cluster_name = "test-cluster";
    o.client.ec2_endpoint = server->endpoint();
    o.client.pricing_endpoint = server->endpoint();
    o.client.credentials = testing::TestCredentials();
    o.client.sleep = [](absl::Duration) {};
    o.launch_template_name = "karp-default";
    o.subnets = {{"us-east-1a", "subnet-a"}, {"us-east-1b", "subnet-b"}};
    o.batching = batching;
    auto p = AwsCloudProvider::Create(o);
    REQUIRE(p.ok());
    provider = std::move(*p);
  }

  std::vector<FakeRequest> Requests(const std::string& action) {
    std::vector<FakeRequest> out;
    for (const FakeRequest& r : server->Requests()) {
      if (r.action == action) out.push_back(r);
    }
    return out;
  }
};

LaunchRequest Request(const std::string& claim_name) {
  LaunchRequest r;
  r.claim.name = claim_name;
  r.claim.node_pool = "default";
  r.claim.instance_types = {"m5.large"};
  r.options = {{"m5.large", "us-east-1a", "spot", 0.03}, {"m5.large", "us-east-1b", "spot", 0.04}};
  return r;
}

// Runs fn(i) for i in [0, n) on n threads at once. Catch's assertions are not thread-safe: fn
// keeps what it got, and the test checks it afterwards on its own thread.
template <typename Fn>
void Concurrently(int n, Fn fn) {
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) threads.emplace_back([&fn, i] { fn(i); });
  for (std::thread& t : threads) t.join();
}

TEST_CASE("Concurrent identical launches become one CreateFleet with the summed capacity",
          "[aws][batch][threads]") {
  AwsBatchingOptions batching;
  batching.create_fleet = {absl::Milliseconds(500), absl::Seconds(10), 1000};
  BatchFixture f(batching);
  constexpr int kCallers = 8;
  std::vector<absl::StatusOr<Instance>> got(kCallers, absl::UnknownError("not run"));
  Concurrently(kCallers, [&](int i) {
    got[i] = f.provider->Create(Request("claim-" + std::to_string(i)), nullptr);
  });
  std::vector<FakeRequest> fleets = f.Requests("CreateFleet");
  REQUIRE(fleets.size() == 1);
  CHECK(fleets[0].Param("TargetCapacitySpecification.TotalTargetCapacity") == "8");
  // The fleet's tags are shared; no claim's own tag is on the request.
  for (const auto& [k, v] : fleets[0].ParamsWithPrefix("TagSpecification.1.Tag.")) {
    CHECK(v != "karpenter.sh/nodeclaim");
  }
  std::set<std::string> ids;
  for (int i = 0; i < kCallers; ++i) {
    INFO(got[i].status().ToString());
    REQUIRE(got[i].ok());
    ids.insert(got[i]->provider_id);
  }
  CHECK(ids.size() == kCallers);  // each caller its own instance
  // Each instance carries its own claim afterwards.
  const auto instances = f.ec2->instances();
  std::set<std::string> claims;
  for (const auto& [id, inst] : instances) claims.insert(inst.tags.at("karpenter.sh/nodeclaim"));
  CHECK(claims.size() == kCallers);
  for (int i = 0; i < kCallers; ++i) {
    const std::string id = got[i]->provider_id.substr(got[i]->provider_id.rfind('/') + 1);
    CHECK(instances.at(id).tags.at("karpenter.sh/nodeclaim") == "claim-" + std::to_string(i));
  }
  const AwsBatchStats stats = f.provider->BatchStats();
  CHECK(stats.fleet_requests == kCallers);
  CHECK(stats.fleet_calls == 1);
  CHECK(stats.tag_errors == 0);
  CHECK(f.server->BadSignatures() == 0);
}

TEST_CASE("A partly fulfilled batched fleet gives the missing callers its errors",
          "[aws][batch][threads]") {
  AwsBatchingOptions batching;
  batching.create_fleet = {absl::Milliseconds(500), absl::Seconds(10), 1000};
  BatchFixture f(batching);
  f.ec2->LimitCapacity("spot", "m5.large", "us-east-1a", 2);
  f.ec2->FailCapacity("spot", "m5.large", "us-east-1b");
  constexpr int kCallers = 5;
  std::vector<absl::StatusOr<Instance>> got(kCallers, absl::UnknownError("not run"));
  std::vector<std::vector<LaunchOption>> failed(kCallers);
  Concurrently(kCallers, [&](int i) {
    got[i] = f.provider->Create(Request("claim-" + std::to_string(i)), &failed[i]);
  });
  REQUIRE(f.Requests("CreateFleet").size() == 1);
  int launched = 0, exhausted = 0;
  for (int i = 0; i < kCallers; ++i) {
    if (got[i].ok()) {
      ++launched;
      CHECK(got[i]->zone == "us-east-1a");
    } else {
      CHECK(got[i].status().code() == absl::StatusCode::kResourceExhausted);
      ++exhausted;
    }
    // Every caller learns which of its offerings had no capacity.
    CHECK(failed[i].size() == 2);
  }
  CHECK(launched == 2);
  CHECK(exhausted == 3);
}

TEST_CASE("Different launches are not merged, and max_items closes a batch early",
          "[aws][batch][threads]") {
  AwsBatchingOptions batching;
  batching.create_fleet = {absl::Milliseconds(500), absl::Seconds(10), 3};
  BatchFixture f(batching);
  std::vector<absl::Status> created(7);
  Concurrently(7, [&](int i) {
    LaunchRequest r = Request("claim-" + std::to_string(i));
    if (i == 6) r.options.front().price = 0.05;  // another override priority: its own fleet
    created[i] = f.provider->Create(r, nullptr).status();
  });
  for (const absl::Status& s : created) CHECK(s.ok());
  std::vector<std::string> capacities;
  for (const FakeRequest& r : f.Requests("CreateFleet")) {
    capacities.push_back(r.Param("TargetCapacitySpecification.TotalTargetCapacity"));
  }
  std::sort(capacities.begin(), capacities.end());
  CHECK(capacities == std::vector<std::string>{"1", "3", "3"});
  CHECK(f.ec2->instances().size() == 7);
}

TEST_CASE("Batching off: one call per launch, the claim tagged at launch",
          "[aws][batch][threads]") {
  AwsBatchingOptions off;
  off.create_fleet.max_items = 1;
  off.describe_instances.max_items = 1;
  off.terminate_instances.max_items = 1;
  BatchFixture f(off);
  std::vector<absl::Status> created(3);
  Concurrently(3, [&](int i) {
    created[i] = f.provider->Create(Request("claim-" + std::to_string(i)), nullptr).status();
  });
  for (const absl::Status& s : created) CHECK(s.ok());
  CHECK(f.Requests("CreateFleet").size() == 3);
  CHECK(f.server->Count("CreateTags") == 0);
  for (const FakeRequest& r : f.Requests("CreateFleet")) {
    CHECK(r.Param("TargetCapacitySpecification.TotalTargetCapacity") == "1");
  }
}

TEST_CASE("Concurrent Get and Delete share DescribeInstances and TerminateInstances calls",
          "[aws][batch][threads]") {
  AwsBatchingOptions batching;
  batching.describe_instances = {absl::Milliseconds(500), absl::Seconds(10), 500};
  batching.terminate_instances = {absl::Milliseconds(500), absl::Seconds(10), 500};
  BatchFixture f(batching);
  constexpr int kInstances = 6;
  for (int i = 0; i < kInstances; ++i) {
    FakeInstance inst;
    inst.id = "i-00" + std::to_string(i);
    inst.type = "m5.large";
    inst.zone = "us-east-1a";
    inst.tags = {{"karpenter.sh/nodepool", "default"}};
    f.ec2->AddInstance(inst);
  }
  auto pid = [](int i) { return "aws:///us-east-1a/i-00" + std::to_string(i); };
  std::vector<absl::StatusOr<Instance>> got(kInstances + 1, absl::UnknownError("not run"));
  Concurrently(kInstances + 1,
               [&](int i) { got[i] = f.provider->Get(i < kInstances ? pid(i) : pid(99)); });
  for (int i = 0; i < kInstances; ++i) {
    REQUIRE(got[i].ok());
    CHECK(got[i]->provider_id == pid(i));
  }
  CHECK(got[kInstances].status().code() == absl::StatusCode::kNotFound);  // an unknown id alone
  // One batch for all; the unknown id made it fail, so each id was described alone.
  const AwsBatchStats after_get = f.provider->BatchStats();
  CHECK(after_get.describe_requests == kInstances + 1);
  CHECK(f.server->Count("DescribeInstances") == after_get.describe_calls);
  CHECK(f.Requests("DescribeInstances").front().ParamsWithPrefix("InstanceId.").size() ==
        kInstances + 1);

  f.server->ClearRequests();
  std::vector<absl::Status> deleted(kInstances);
  Concurrently(kInstances, [&](int i) { deleted[i] = f.provider->Delete(pid(i)); });
  for (const absl::Status& s : deleted) CHECK(s.ok());
  CHECK(f.server->Count("DescribeInstances") == 1);
  REQUIRE(f.server->Count("TerminateInstances") == 1);
  CHECK(f.Requests("TerminateInstances").front().ParamsWithPrefix("InstanceId.").size() ==
        kInstances);
  for (const auto& [id, inst] : f.ec2->instances()) CHECK(inst.state == "terminated");
  const AwsBatchStats stats = f.provider->BatchStats();
  CHECK(stats.terminate_requests == kInstances);
  CHECK(stats.terminate_calls == 1);
}

TEST_CASE("Batching windows are validated", "[aws][batch]") {
  AwsCloudProviderOptions o;
  o.cluster_name = "c";
  o.client.credentials = testing::TestCredentials();
  o.launch_template_name = "lt";
  o.batching.create_fleet.max_items = 0;
  CHECK(AwsCloudProvider::Create(o).status().code() == absl::StatusCode::kInvalidArgument);
  o.batching.create_fleet = {absl::Milliseconds(50), absl::Milliseconds(10), 10};
  CHECK(std::string(AwsCloudProvider::Create(o).status().message()).find("batching.create_fleet") !=
        std::string::npos);
}

}  // namespace
}  // namespace karp::aws
