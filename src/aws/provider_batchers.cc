#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "aws/aws_provider_impl.h"
#include "internal/strings.h"

namespace karp::aws {

using internal::StrCat;

namespace {

std::vector<std::string> SortedUnique(std::vector<std::string> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace

AwsProviderImpl::Batchers::Batchers(AwsProviderImpl* p)
    : provider(p),
      fleet(p->options_.batching.create_fleet,
            [this](const std::vector<FleetCall>& calls) { return RunFleet(calls); }),
      describe(p->options_.batching.describe_instances,
               [this](const std::vector<std::string>& ids) { return RunDescribe(ids); }),
      terminate(p->options_.batching.terminate_instances,
                [this](const std::vector<std::string>& ids) { return RunTerminate(ids); }) {}

std::vector<AwsProviderImpl::Batchers::DescribeResult> AwsProviderImpl::Batchers::RunDescribe(
    const std::vector<std::string>& ids) {
  const Ec2Client& client = *provider->client_;
  const std::vector<std::string> unique = SortedUnique(ids);
  Count(&AwsBatchStats::describe_requests, &AwsBatchStats::describe_calls, ids.size());
  DescribeResult all = DescribeByIds(client, unique);
  std::map<std::string, DescribeResult> by_id;
  if (unique.size() == 1) by_id.emplace(unique.front(), all);
  if (all.ok()) {
    for (const Described& x : *all) by_id[x.id] = std::vector<Described>{x};
  }
  std::vector<DescribeResult> out;
  for (const std::string& id : ids) {
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      // Missing from the batch (gone, or the batch failed because of another id): alone.
      Count(&AwsBatchStats::describe_requests, &AwsBatchStats::describe_calls, 0);
      it = by_id.emplace(id, DescribeByIds(client, {id})).first;
    }
    out.push_back(it->second);
  }
  return out;
}

std::vector<absl::Status> AwsProviderImpl::Batchers::RunTerminate(
    const std::vector<std::string>& ids) {
  const Ec2Client& client = *provider->client_;
  const std::vector<std::string> unique = SortedUnique(ids);
  Count(&AwsBatchStats::terminate_requests, &AwsBatchStats::terminate_calls, ids.size());
  std::map<std::string, absl::Status> by_id;
  if (unique.size() == 1) {
    by_id.emplace(unique.front(), TerminateAlone(client, unique.front()));
  } else {
    QueryParams params;
    AddList(&params, "InstanceId", unique);
    absl::StatusOr<XmlResponse> r = client.Call("TerminateInstances", params);
    for (pugi::xml_node item :
         r.ok() ? XmlItems(r->root(), "instancesSet") : std::vector<pugi::xml_node>()) {
      const std::string state = XmlText(item, "currentState/name");
      if (state == "shutting-down" || state == "terminated") {
        by_id.emplace(XmlText(item, "instanceId"), absl::OkStatus());
      }
    }
  }
  std::vector<absl::Status> out;
  for (const std::string& id : ids) {
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      Count(&AwsBatchStats::terminate_requests, &AwsBatchStats::terminate_calls, 0);
      it = by_id.emplace(id, TerminateAlone(client, id)).first;
    }
    out.push_back(it->second);
  }
  return out;
}

std::vector<FleetOutcome> AwsProviderImpl::Batchers::RunFleet(const std::vector<FleetCall>& calls) {
  Count(&AwsBatchStats::fleet_requests, &AwsBatchStats::fleet_calls, calls.size());
  std::vector<FleetOutcome> out(calls.size());
  FleetRequest request = calls.front().request;
  // One tag set for the whole fleet: the claims' own tags are added after the launch.
  if (calls.size() > 1) request.tags.erase(std::string(kTagKeyNodeClaim));
  absl::StatusOr<XmlResponse> resp = provider->client_->Call(
      "CreateFleet",
      request.Encode(provider->NextClientToken(calls.front().claim_name), calls.size()));
  absl::StatusOr<std::vector<FleetInstance>> launched =
      resp.ok() ? ParseFleetInstances(*resp) : resp.status();
  for (size_t i = 0; i < calls.size(); ++i) {
    if (!launched.ok()) {
      out[i].status = launched.status();
      continue;
    }
    absl::StatusOr<FleetErrors> errors = ParseFleetErrors(*resp, calls[i].chosen, &out[i].failed);
    if (!errors.ok()) {
      out[i].status = errors.status();
      continue;
    }
    out[i].errors = std::move(*errors);
    if (i >= launched->size()) continue;
    out[i].instance = (*launched)[i];
    if (calls.size() == 1) continue;
    const std::string provider_id =
        StrCat("aws:///", out[i].instance->zone, "/", out[i].instance->id);
    if (!provider->TagInstance(provider_id, {{std::string(kTagKeyNodeClaim), calls[i].claim_name}})
             .ok()) {
      absl::MutexLock lock(&mu);
      ++stats.tag_errors;
    }
  }
  return out;
}

}  // namespace karp::aws
