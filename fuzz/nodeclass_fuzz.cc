// libFuzzer target: karp::aws::ParseEc2NodeClasses on arbitrary bytes (JSON or YAML
// EC2NodeClass documents). It must never crash, hang or throw; errors must be InvalidArgument
// and start with the source name. Whatever parses must: have unique non-empty names; re-validate
// (ValidateEc2NodeClass); hash stably (a copy hashes the same and compares equal); give the
// tags of §3.8 (Ec2Tags succeeds, karp's keys win); and CatalogOptionsFor either succeeds or
// fails with InvalidArgument.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/aws/ec2nodeclass.h"
#include "karp/aws_catalog.h"

namespace {

[[noreturn]] void Fail(std::string_view what, std::string_view input) {
  std::fprintf(stderr, "nodeclass_fuzz: %.*s\ninput: %.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(input.size()), input.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<karp::aws::Ec2NodeClass>> classes =
      karp::aws::ParseEc2NodeClasses(text, "fuzz.yaml");
  if (!classes.ok()) {
    if (classes.status().code() != absl::StatusCode::kInvalidArgument) {
      Fail("error is not InvalidArgument: " + classes.status().ToString(), text);
    }
    if (classes.status().message().substr(0, 10) != "fuzz.yaml:") {
      Fail("error does not name the source: " + classes.status().ToString(), text);
    }
    return 0;
  }
  std::set<std::string> names;
  for (const karp::aws::Ec2NodeClass& nc : *classes) {
    if (nc.name().empty()) Fail("class without a name", text);
    if (!names.insert(nc.name()).second) Fail("duplicate class " + nc.name(), text);
    if (absl::Status s = karp::aws::ValidateEc2NodeClass(nc); !s.ok()) {
      Fail("parsed class does not re-validate: " + s.ToString(), text);
    }
    if (karp::aws::FindEc2NodeClass(*classes, nc.name()) != &nc) Fail("FindEc2NodeClass", text);
    const karp::aws::Ec2NodeClass copy = nc;
    if (!(copy == nc)) Fail("copy differs", text);
    const std::string hash = karp::aws::Ec2NodeClassHash(nc);
    if (hash.empty() || hash != karp::aws::Ec2NodeClassHash(copy)) Fail("unstable hash", text);
    (void)nc.Alias();
    (void)karp::AwsAmiFamilyName(nc.ResolvedAmiFamily());

    absl::StatusOr<std::map<std::string, std::string>> tags =
        karp::aws::Ec2Tags(nc, "fuzz-cluster", "pool", "claim-1");
    if (!tags.ok()) Fail("Ec2Tags of a valid class failed: " + tags.status().ToString(), text);
    auto has = [&](std::string_view key, std::string_view value) {
      auto it = tags->find(std::string(key));
      return it != tags->end() && it->second == value;
    };
    if (!has(karp::aws::kTagKeyNodePool, "pool") || !has(karp::aws::kTagKeyNodeClaim, "claim-1") ||
        !has(karp::aws::kTagKeyEc2NodeClass, nc.name()) ||
        !has(karp::aws::kTagKeyEksClusterName, "fuzz-cluster") ||
        !has("kubernetes.io/cluster/fuzz-cluster", "owned")) {
      Fail("karp's tags missing", text);
    }
    for (const auto& [k, v] : nc.tags) {
      if (tags->count(k) == 0) Fail("spec tag " + k + " missing", text);
    }

    absl::StatusOr<karp::AwsCatalogOptions> options =
        karp::aws::CatalogOptionsFor(nc, karp::AwsCatalogOptions{});
    if (!options.ok() && options.status().code() != absl::StatusCode::kInvalidArgument) {
      Fail("CatalogOptionsFor error is not InvalidArgument: " + options.status().ToString(), text);
    }
    if (options.ok() && options->ami_family != nc.ResolvedAmiFamily()) {
      Fail("catalog options lost the AMI family", text);
    }
  }
  return 0;
}
