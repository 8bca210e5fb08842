// Solve and launch through the AWS EC2 adapter (karp::aws): discovers instance types and prices
// from an EC2-compatible endpoint, runs Scheduler::Solve for three pending pods, and launches
// each new NodeClaim with CreateFleet through karp::Launcher (which falls back past offerings
// without capacity).
//
//   example_aws_provision --endpoint http://127.0.0.1:PORT [--region us-east-1]
//       [--launch-template NAME] [--cluster NAME]
//     Credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the shared credentials file.
//     Point it at a real region only if you mean to launch (and pay for) instances.
//
//   example_aws_provision --self-test
//     Starts the signature-checking fake EC2 of the adapter's tests on 127.0.0.1 (with
//     scripted insufficient capacity for the cheapest spot offering) and runs against it.
//     Nothing leaves the machine; exit status 0 on success.

#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "aws/support/fake_aws_server.h"
#include "aws/support/fake_ec2.h"
#include "karp/aws/aws_cloud_provider.h"
#include "karp/aws/credentials.h"
#include "karp/karp.h"

namespace {

int Fail(const absl::Status& s) {
  std::cerr << "error: " << s << "\n";
  return 1;
}

const karp::AwsInstanceTypeInfo* Embedded(const std::string& name) {
  for (const karp::AwsInstanceTypeInfo& i : karp::EmbeddedAwsInstanceTypeInfos()) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  std::string endpoint, region = "us-east-1", launch_template = "karp-default",
                        cluster = "example";
  bool self_test = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--endpoint") {
      endpoint = value();
    } else if (arg == "--region") {
      region = value();
    } else if (arg == "--launch-template") {
      launch_template = value();
    } else if (arg == "--cluster") {
      cluster = value();
    } else if (arg == "--self-test") {
      self_test = true;
    } else {
      std::cerr << "usage: " << argv[0]
                << " (--endpoint URL [--region R] [--launch-template NAME] [--cluster NAME]"
                   " | --self-test)\n";
      return 2;
    }
  }
  if (endpoint.empty() && !self_test) {
    std::cerr << "give --endpoint http://127.0.0.1:PORT or --self-test\n";
    return 2;
  }

  // --self-test: a local fake EC2 with three instance types in two zones.
  std::unique_ptr<karp::aws::testing::FakeAwsServer> server;
  std::unique_ptr<karp::aws::testing::FakeEc2> ec2;
  karp::aws::AwsCloudProviderOptions options;
  if (self_test) {
    auto started = karp::aws::testing::FakeAwsServer::Start();
    if (!started.ok()) return Fail(started.status());
    server = std::move(*started);
    ec2 = std::make_unique<karp::aws::testing::FakeEc2>(server.get());
    const std::vector<std::string> zones = {"us-east-1a", "us-east-1b"};
    for (const char* name : {"m6g.large", "m6g.xlarge", "m5.large", "c6g.xlarge"}) {
      const karp::AwsInstanceTypeInfo* info = Embedded(name);
      if (info == nullptr) return Fail(absl::NotFoundError(std::string("embedded ") + name));
      ec2->AddInstanceType(*info, zones);
      ec2->SetOnDemandPrice(name, *karp::EmbeddedAwsOnDemandPrice(name));
      ec2->SetSpotPrice(name, "us-east-1a", *karp::EmbeddedAwsOnDemandPrice(name) * 0.35);
      ec2->SetSpotPrice(name, "us-east-1b", *karp::EmbeddedAwsOnDemandPrice(name) * 0.40);
    }
    ec2->SetOnDemandPrice("m5.metal", 4.608);
    ec2->FailCapacity("spot", "c6g.xlarge", "us-east-1a");
    endpoint = server->endpoint();
    options.client.credentials = karp::aws::testing::TestCredentials();
    options.client.sleep = [](absl::Duration) {};
    options.subnets = {{"us-east-1a", "subnet-a"}, {"us-east-1b", "subnet-b"}};
  } else {
    absl::StatusOr<karp::aws::Credentials> creds = karp::aws::ResolveCredentials();
    if (!creds.ok()) return Fail(creds.status());
    options.client.credentials = *creds;
    std::cout << "credentials: " << *creds << "\n";  // redacted form
  }
  options.cluster_name = cluster;
  options.client.region = region;
  options.client.ec2_endpoint = endpoint;
  options.client.pricing_endpoint = endpoint;
  options.launch_template_name = launch_template;

  absl::StatusOr<std::unique_ptr<karp::aws::AwsCloudProvider>> provider =
      karp::aws::AwsCloudProvider::Create(options);
  if (!provider.ok()) return Fail(provider.status());

  karp::ClusterSnapshot snapshot;
  karp::NodePool pool;
  pool.metadata.name = "default";
  pool.requirements = {
      {"kubernetes.io/arch", karp::Operator::kIn, {"arm64"}, std::nullopt}};
  snapshot.node_pools.push_back(pool);
  for (int i = 0; i < 3; ++i) {
    karp::Pod pod;
    pod.metadata.name = "web-" + std::to_string(i);
    karp::Container app;
    app.name = "app";
    app.requests = karp::ResourceList{{"cpu", 1500}, {"memory", 2LL << 30}};
    pod.containers.push_back(app);
    snapshot.pods.push_back(pod);
  }

  absl::StatusOr<karp::InstanceCatalog> catalog = (*provider)->Catalog(pool);
  if (!catalog.ok()) return Fail(catalog.status());
  const karp::aws::AwsDiscoveryStats stats = (*provider)->LastDiscovery();
  std::cout << "discovered " << stats.instance_types << " instance types in "
            << stats.zones.size() << " zones (" << stats.on_demand_prices_api
            << " on-demand prices from the Price List API, " << stats.spot_prices
            << " spot prices)\n";
  auto shared = std::make_shared<const karp::InstanceCatalog>(*catalog);
  absl::StatusOr<karp::Scheduler> scheduler = karp::Scheduler::Create(snapshot, shared);
  if (!scheduler.ok()) return Fail(scheduler.status());
  absl::StatusOr<karp::SolveResult> result = scheduler->Solve();
  if (!result.ok()) return Fail(result.status());

  karp::UnavailableOfferings cache;
  karp::Launcher launcher(provider->get(), &cache);
  int launched = 0;
  for (const karp::NewNodeClaim& claim : result->node_claims) {
    absl::StatusOr<karp::Instance> instance = launcher.Launch(claim, *catalog, absl::Now());
    if (!instance.ok()) {
      std::cerr << claim.name << ": " << instance.status() << "\n";
      continue;
    }
    ++launched;
    std::cout << claim.name << ": " << claim.pods.size() << " pods -> " << instance->provider_id
              << " " << instance->instance_type << " (" << instance->capacity_type << ", $"
              << instance->price << "/h)\n";
  }
  std::cout << "offerings marked unavailable: " << cache.Size(absl::Now()) << "\n";
  for (const karp::PodError& e : result->pod_errors) std::cout << e.pod << ": " << e.message << "\n";
  if (self_test && server->BadSignatures() != 0) {
    std::cerr << "self-test: " << server->BadSignatures() << " requests failed SigV4\n";
    return 1;
  }
  const bool ok = launched == static_cast<int>(result->node_claims.size()) &&
                  !result->node_claims.empty() && result->pod_errors.empty();
  return ok ? 0 : 1;
}
