// Solve and launch through the AWS adapter (karp::aws) with an EC2NodeClass, then handle the
// interruption queue:
//   1. the EC2NodeClass names an IAM role; the provider derives its instance profile through
//      IAM (created once, role attached) and puts it in the launch template;
//   2. Scheduler::Solve places three pending pods; the NodeClaims are launched concurrently
//      through karp::Launcher, and the provider merges their identical CreateFleet requests
//      into one call (AwsBatchingOptions);
//   3. a host loop polls the SQS interruption queue once: spot warnings mark their offerings
//      unavailable and become InterruptionEvents, the consolidator's input
//      (ConsolidationOptions::interruptions); unparseable messages are deleted and counted.
//
//   example_aws_provision --nodeclass FILE --cluster-endpoint URL --ca-bundle B64
//       --service-cidr CIDR [--region R] [--cluster NAME] [--kubernetes-version 1.31]
//       [--queue NAME|URL]
//     Credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the shared credentials file.
//     Run it against a real account only if you mean to launch (and pay for) instances.
//
//   example_aws_provision --self-test
//     Starts the signature-checking fake EC2, IAM and SQS of the adapter's tests on 127.0.0.1
//     (with scripted insufficient capacity for one spot offering) and runs against them.
//     Nothing leaves the machine; exit status 0 on success.

#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "aws/support/fake_aws_server.h"
#include "aws/support/fake_ec2.h"
#include "aws/support/fake_iam.h"
#include "aws/support/fake_sqs.h"
#include "karp/aws/aws_cloud_provider.h"
#include "karp/aws/credentials.h"
#include "karp/aws/interruption_queue.h"
#include "karp/karp.h"

namespace {

int Fail(const absl::Status& s) {
  std::cerr << "error: " << s << "\n";
  return 1;
}

struct Flags {
  bool self_test = false;
  std::string region = "us-east-1", cluster = "example", nodeclass, queue;
  karp::aws::ClusterInfo info;
  std::string kubernetes_version = "1.31";
};

// Exit code 2 on a usage error.
std::optional<Flags> ParseFlags(int argc, char** argv) {
  Flags f;
  std::map<std::string, std::string*> values = {{"--region", &f.region},
                                                {"--cluster", &f.cluster},
                                                {"--nodeclass", &f.nodeclass},
                                                {"--queue", &f.queue},
                                                {"--cluster-endpoint", &f.info.endpoint},
                                                {"--ca-bundle", &f.info.ca_bundle},
                                                {"--service-cidr", &f.info.cidr},
                                                {"--kubernetes-version", &f.kubernetes_version}};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--self-test") {
      f.self_test = true;
    } else if (values.count(arg) != 0 && i + 1 < argc) {
      *values[arg] = argv[++i];
    } else {
      return std::nullopt;
    }
  }
  if (!f.self_test && (f.nodeclass.empty() || f.info.endpoint.empty())) return std::nullopt;
  return f;
}

// The self-test's EC2NodeClass: role (not instanceProfile), so karp manages the profile.
constexpr char kNodeClass[] = R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole
  amiFamily: AL2023
  amiSelectorTerms: [{id: ami-0arm64example}]
  subnetSelectorTerms: [{id: subnet-a}, {id: subnet-b}]
  securityGroupSelectorTerms: [{id: sg-nodes}]
)";

// The self-test's local AWS: EC2 with four types in two zones (no spot capacity for
// c6g.xlarge in us-east-1a), a subnet per zone, a security group and an arm64 AMI; IAM with
// the node role; SQS with the interruption queue.
struct LocalAws {
  std::unique_ptr<karp::aws::testing::FakeAwsServer> server;
  std::unique_ptr<karp::aws::testing::FakeEc2> ec2;
  std::unique_ptr<karp::aws::testing::FakeIam> iam;
  std::unique_ptr<karp::aws::testing::FakeSqs> sqs;

  absl::Status Start() {
    using namespace karp::aws::testing;  // NOLINT: the fake's many names
    auto started = FakeAwsServer::Start();
    if (!started.ok()) return started.status();
    server = std::move(*started);
    ec2 = std::make_unique<FakeEc2>(server.get());
    for (const char* name : {"m6g.large", "m6g.xlarge", "m5.large", "c6g.xlarge"}) {
      const karp::AwsInstanceTypeInfo* info = nullptr;
      for (const karp::AwsInstanceTypeInfo& i : karp::EmbeddedAwsInstanceTypeInfos()) {
        if (i.name == name) info = &i;
      }
      if (info == nullptr) return absl::NotFoundError(std::string("embedded ") + name);
      ec2->AddInstanceType(*info, {"us-east-1a", "us-east-1b"});
      const double od = *karp::EmbeddedAwsOnDemandPrice(name);
      ec2->SetOnDemandPrice(name, od);
      ec2->SetSpotPrice(name, "us-east-1a", od * 0.35);
      ec2->SetSpotPrice(name, "us-east-1b", od * 0.40);
    }
    ec2->SetOnDemandPrice("m5.metal", 4.608);
    ec2->FailCapacity("spot", "c6g.xlarge", "us-east-1a");
    ec2->AddSubnet({"subnet-a", "us-east-1a", 200});
    ec2->AddSubnet({"subnet-b", "us-east-1b", 100});
    ec2->AddSecurityGroup("sg-nodes");
    ec2->AddImage({"ami-0arm64example", "arm64", "2026-10-01T00:00:00.000Z"});
    iam = std::make_unique<FakeIam>(server.get());
    iam->AddRole("KarpenterNodeRole");
    sqs = std::make_unique<FakeSqs>(server.get(), "Karpenter-example");
    return absl::OkStatus();
  }
};

absl::StatusOr<karp::aws::AwsCloudProviderOptions> ProviderOptions(const Flags& flags,
                                                                   LocalAws* local) {
  karp::aws::AwsCloudProviderOptions o;
  o.cluster_name = flags.cluster;
  o.client.region = flags.region;
  o.cluster = flags.info;
  o.kubernetes_version = flags.kubernetes_version;
  absl::StatusOr<std::vector<karp::aws::Ec2NodeClass>> classes =
      flags.self_test ? karp::aws::ParseEc2NodeClasses(kNodeClass, "self-test")
                      : karp::aws::ReadEc2NodeClassFiles({flags.nodeclass});
  if (!classes.ok()) return classes.status();
  o.node_classes = *classes;
  if (!flags.self_test) {
    absl::StatusOr<karp::aws::Credentials> creds = karp::aws::ResolveCredentials();
    if (!creds.ok()) return creds.status();
    o.client.credentials = *creds;
    std::cout << "credentials: " << *creds << "\n";  // redacted form
    return o;
  }
  o.client.credentials = karp::aws::testing::TestCredentials();
  o.client.sleep = [](absl::Duration) {};
  for (std::string* e : {&o.client.ec2_endpoint, &o.client.pricing_endpoint, &o.client.iam_endpoint,
                         &o.client.sqs_endpoint}) {
    *e = local->server->endpoint();
  }
  o.cluster = {flags.cluster, "https://example.eks.local", "Q0EK", "10.100.0.0/16", ""};
  // A wide window, so the concurrent launches meet in one batch even on a busy machine.
  o.batching.create_fleet.idle = absl::Milliseconds(200);
  return o;
}

// Three pending pods of 3 cpu on arm64: one node each.
karp::ClusterSnapshot PendingPods() {
  karp::ClusterSnapshot snapshot;
  karp::NodePool pool;
  pool.metadata.name = "default";
  pool.node_class_ref = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  pool.requirements = {{"kubernetes.io/arch", karp::Operator::kIn, {"arm64"}, std::nullopt},
                       {"karpenter.sh/capacity-type", karp::Operator::kIn, {"spot"}, std::nullopt}};
  snapshot.node_pools.push_back(pool);
  for (int i = 0; i < 3; ++i) {
    karp::Pod pod;
    pod.metadata.name = "web-" + std::to_string(i);
    karp::Container app;
    app.name = "app";
    app.requests = karp::ResourceList{{"cpu", 3000}, {"memory", 4LL << 30}};
    pod.containers.push_back(app);
    snapshot.pods.push_back(pod);
  }
  return snapshot;
}

// Launches every claim on its own thread (as a host launching a provisioning round at once);
// returns instance id -> claim name of those launched.
std::map<std::string, std::string> LaunchAll(karp::Launcher* launcher,
                                             const std::vector<karp::NewNodeClaim>& claims,
                                             const karp::InstanceCatalog& catalog) {
  std::vector<absl::StatusOr<karp::Instance>> got(claims.size(), absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < claims.size(); ++i) {
    threads.emplace_back([&, i] { got[i] = launcher->Launch(claims[i], catalog, absl::Now()); });
  }
  for (std::thread& t : threads) t.join();
  std::map<std::string, std::string> launched;
  for (size_t i = 0; i < claims.size(); ++i) {
    if (!got[i].ok()) {
      std::cerr << claims[i].name << ": " << got[i].status() << "\n";
      continue;
    }
    std::cout << claims[i].name << ": " << claims[i].pods.size() << " pod(s) -> "
              << got[i]->provider_id << " " << got[i]->instance_type << " ("
              << got[i]->capacity_type << ", $" << got[i]->price << "/h)\n";
    launched[got[i]->provider_id.substr(got[i]->provider_id.rfind('/') + 1)] = claims[i].name;
  }
  return launched;
}

// The host's interruption loop, one round: each parsed message marks spot offerings
// unavailable and becomes consolidator input; the consumer deletes it afterwards.
absl::StatusOr<karp::ConsolidationOptions> PollInterruptions(
    karp::aws::InterruptionQueue* queue, karp::aws::AwsCloudProvider* provider,
    karp::UnavailableOfferings* cache, const std::map<std::string, std::string>& nodes) {
  karp::ConsolidationOptions next_plan;
  auto node_of = [&](std::string_view id) -> std::optional<std::string> {
    auto it = nodes.find(std::string(id));
    if (it == nodes.end()) return std::nullopt;
    return it->second;  // this example names nodes after their claims
  };
  absl::StatusOr<karp::aws::InterruptionPollResult> polled =
      queue->PollOnce([&](const karp::aws::AwsInterruptionMessage& m) -> absl::Status {
        absl::StatusOr<int> marked = provider->MarkInterruptedOfferings(m, cache, absl::Now());
        if (!marked.ok()) return marked.status();  // stays queued; retried after the timeout
        for (karp::InterruptionEvent& e : karp::aws::ToInterruptionEvents(m, node_of)) {
          next_plan.interruptions.push_back(std::move(e));
        }
        return absl::OkStatus();
      });
  if (!polled.ok()) return polled.status();
  std::cout << "interruption queue: " << polled->received << " received, " << polled->handled
            << " handled, " << polled->unparseable << " unparseable (deleted)\n";
  for (const karp::InterruptionEvent& e : next_plan.interruptions) {
    std::cout << "  consolidator input: " << e.kind << " of node " << e.node << "\n";
  }
  return next_plan;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<Flags> flags = ParseFlags(argc, argv);
  if (!flags.has_value()) {
    std::cerr << "usage: " << argv[0]
              << " (--nodeclass FILE --cluster-endpoint URL --ca-bundle B64 --service-cidr CIDR"
                 " [--region R] [--cluster NAME] [--kubernetes-version V] [--queue NAME|URL]"
                 " | --self-test)\n";
    return 2;
  }
  LocalAws local;
  if (flags->self_test) {
    if (absl::Status s = local.Start(); !s.ok()) return Fail(s);
    flags->queue = "Karpenter-example";
  }
  absl::StatusOr<karp::aws::AwsCloudProviderOptions> options = ProviderOptions(*flags, &local);
  if (!options.ok()) return Fail(options.status());
  auto provider = karp::aws::AwsCloudProvider::Create(*options);
  if (!provider.ok()) return Fail(provider.status());

  const karp::ClusterSnapshot snapshot = PendingPods();
  absl::StatusOr<karp::InstanceCatalog> catalog = (*provider)->Catalog(snapshot.node_pools[0]);
  if (!catalog.ok()) return Fail(catalog.status());
  absl::StatusOr<karp::aws::Ec2NodeClassStatus> status = (*provider)->NodeClassStatus("default");
  if (!status.ok()) return Fail(status.status());
  std::cout << "ec2nodeclass default: instance profile " << status->instance_profile
            << " (from its role), " << catalog->instance_types().size() << " instance types\n";
  auto shared = std::make_shared<const karp::InstanceCatalog>(*catalog);
  absl::StatusOr<karp::Scheduler> scheduler = karp::Scheduler::Create(snapshot, shared);
  if (!scheduler.ok()) return Fail(scheduler.status());
  absl::StatusOr<karp::SolveResult> result = scheduler->Solve();
  if (!result.ok()) return Fail(result.status());

  karp::UnavailableOfferings cache;
  karp::Launcher launcher(provider->get(), &cache);
  const std::map<std::string, std::string> launched =
      LaunchAll(&launcher, result->node_claims, *catalog);
  const karp::aws::AwsBatchStats batch = (*provider)->BatchStats();
  std::cout << batch.fleet_requests << " launches in " << batch.fleet_calls
            << " CreateFleet call(s); offerings marked unavailable: " << cache.Size(absl::Now())
            << "\n";

  bool interruptions_ok = true;
  if (!flags->queue.empty()) {
    karp::aws::InterruptionQueueOptions q;
    q.client = options->client;
    q.queue = flags->queue;
    if (flags->self_test && !launched.empty()) {
      local.sqs->Send(R"({"version":"0","id":"example","detail-type":)"
                      R"("EC2 Spot Instance Interruption Warning","source":"aws.ec2",)"
                      R"("time":"2026-11-26T08:00:00Z","region":"us-east-1","detail":)"
                      R"({"instance-id":")" +
                      launched.begin()->first + R"(","instance-action":"terminate"}})");
      local.sqs->Send("not an EventBridge event");
    }
    auto queue = karp::aws::InterruptionQueue::Create(q);
    if (!queue.ok()) return Fail(queue.status());
    absl::StatusOr<karp::ConsolidationOptions> next =
        PollInterruptions(queue->get(), provider->get(), &cache, launched);
    if (!next.ok()) return Fail(next.status());
    interruptions_ok = !flags->self_test || next->interruptions.size() == 1;
  }
  if (flags->self_test && local.server->BadSignatures() != 0) {
    std::cerr << "self-test: " << local.server->BadSignatures() << " requests failed SigV4\n";
    return 1;
  }
  const bool ok = launched.size() == result->node_claims.size() && !launched.empty() &&
                  result->pod_errors.empty() && interruptions_ok &&
                  (!flags->self_test || batch.fleet_calls < batch.fleet_requests);
  return ok ? 0 : 1;
}
