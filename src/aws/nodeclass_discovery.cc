// EC2NodeClass discovery through DescribeSubnets, DescribeSecurityGroups, DescribeImages and
// SSM GetParameter (docs/aws.md §3.2-3.4, wire shapes §9.1).

#include "aws/nodeclass_discovery.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "aws/nodeclass_internal.h"
#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {

using internal::StrCat;

namespace {

std::string_view Msg(const absl::Status& s) {
  return std::string_view(s.message().data(), s.message().size());
}

absl::Status ClassError(const Ec2NodeClass& nc, absl::StatusCode code, std::string_view what) {
  return absl::Status(code, StrCat("ec2nodeclass \"", nc.metadata.name, "\": ", what));
}

// Filters of a tag selector: tag:<k>=<v>, or tag-key=<k> for the value "*".
void AddTagFilters(QueryParams* params, int* index,
                   const std::map<std::string, std::string>& tags) {
  for (const auto& [k, v] : tags) {
    if (v == "*") {
      AddFilter(params, (*index)++, "tag-key", {k});
    } else {
      AddFilter(params, (*index)++, StrCat("tag:", k), {v});
    }
  }
}

std::string KubeArch(std::string_view ec2_arch) {
  if (ec2_arch == "x86_64") return "amd64";
  if (ec2_arch == "arm64") return "arm64";
  return "";
}

// DescribeImages with `params` (filters numbered from 1 up to `next_filter` - 1), adding
// state=available and IncludeDeprecated=true.
absl::Status DescribeImages(const Ec2Client& client, QueryParams params, int next_filter,
                            AmiVariant variant, absl::Time now, std::vector<ResolvedAmi>* out) {
  AddFilter(&params, next_filter, "state", {"available"});
  params.emplace_back("IncludeDeprecated", "true");
  return client.CallPaginated("DescribeImages", params, [&](const XmlResponse& page) {
    std::vector<pugi::xml_node> items = XmlItems(page.root(), "imagesSet");
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string where = StrCat("EC2 DescribeImages: imagesSet/item[", i, "]");
      ResolvedAmi ami;
      KARP_ASSIGN_OR_RETURN(ami.id, XmlRequiredText(items[i], "imageId", where));
      ami.name = XmlText(items[i], "name");
      ami.architecture = KubeArch(XmlText(items[i], "architecture"));
      if (ami.architecture.empty()) continue;  // i386 and others cannot run nodes
      ami.creation_date = XmlText(items[i], "creationDate");
      const std::string deprecation = XmlText(items[i], "deprecationTime");
      absl::Time t;
      std::string err;
      if (!deprecation.empty() && absl::ParseTime(absl::RFC3339_full, deprecation, &t, &err)) {
        ami.deprecated = t <= now;
      }
      ami.variant = variant;
      out->push_back(std::move(ami));
    }
    return absl::OkStatus();
  });
}

}  // namespace

SsmGetter MakeSsmGetter(const Ec2Client* client, std::string endpoint) {
  return [client,
          endpoint = std::move(endpoint)](std::string_view name) -> absl::StatusOr<std::string> {
    JsonCall call;
    call.target_prefix = "AmazonSSM";
    call.operation = "GetParameter";
    call.signing_service = "ssm";
    call.region = client->options().region;
    call.endpoint = endpoint.empty()
                        ? StrCat("https://ssm.", client->options().region, ".amazonaws.com")
                        : endpoint;
    nlohmann::json body = {{"Name", std::string(name)}};
    KARP_ASSIGN_OR_RETURN(std::string response, client->CallJson(call, body.dump()));
    nlohmann::json parsed = nlohmann::json::parse(response, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("Parameter") ||
        !parsed["Parameter"].is_object() || !parsed["Parameter"].contains("Value") ||
        !parsed["Parameter"]["Value"].is_string()) {
      return absl::InternalError(
          StrCat("SSM GetParameter ", name, ": malformed response (no Parameter.Value)"));
    }
    return parsed["Parameter"]["Value"].get<std::string>();
  };
}

absl::StatusOr<std::vector<AliasParameter>> AliasParameters(const AmiAlias& alias,
                                                            std::string_view k8s) {
  const size_t dot = k8s.find('.');
  int minor = -1;
  if (dot != std::string_view::npos && k8s.substr(0, dot) == "1" && dot + 1 < k8s.size()) {
    minor = 0;
    for (char c : k8s.substr(dot + 1)) {
      if (c < '0' || c > '9' || minor > 1000) {
        minor = -1;
        break;
      }
      minor = minor * 10 + (c - '0');
    }
  }
  if (minor < 0) {
    return absl::InvalidArgumentError(
        StrCat("invalid Kubernetes version \"", k8s, "\" (want 1.<minor>, e.g. 1.31)"));
  }
  const std::string& v = alias.version;
  std::vector<AliasParameter> out;
  switch (alias.family) {
    case AwsAmiFamily::kAl2023: {
      const std::pair<const char*, AmiVariant> variants[] = {{"standard", AmiVariant::kStandard},
                                                             {"nvidia", AmiVariant::kNvidia},
                                                             {"neuron", AmiVariant::kNeuron}};
      for (const char* arch : {"x86_64", "arm64"}) {
        for (const auto& [name, variant] : variants) {
          const std::string base = StrCat("/aws/service/eks/optimized-ami/", k8s,
                                          "/amazon-linux-2023/", arch, "/", name);
          out.push_back({v == "latest" ? StrCat(base, "/recommended/image_id")
                                       : StrCat(base, "/amazon-eks-node-al2023-", arch, "-", name,
                                                "-", k8s, "-", v, "/image_id"),
                         KubeArch(arch), variant});
        }
      }
      break;
    }
    case AwsAmiFamily::kAl2: {
      if (minor >= 33) {
        return absl::InvalidArgumentError(
            StrCat("the al2 alias is not supported on Kubernetes ", k8s, " (1.33 and later)"));
      }
      const std::tuple<const char*, const char*, AmiVariant> variants[] = {
          {"amazon-linux-2", "amd64", AmiVariant::kStandard},
          {"amazon-linux-2-arm64", "arm64", AmiVariant::kStandard},
          {"amazon-linux-2-gpu", "amd64", AmiVariant::kNvidia},
          {"amazon-linux-2-gpu", "amd64", AmiVariant::kNeuron}};
      for (const auto& [dir, arch, variant] : variants) {
        const std::string base = StrCat("/aws/service/eks/optimized-ami/", k8s, "/", dir);
        out.push_back({v == "latest" ? StrCat(base, "/recommended/image_id")
                                     : StrCat(base, "/amazon-eks-node-", k8s, "-", v, "/image_id"),
                       arch, variant});
      }
      break;
    }
    case AwsAmiFamily::kBottlerocket: {
      const std::string version = v.size() > 1 && v[0] == 'v' ? v.substr(1) : v;
      for (const char* arch : {"x86_64", "arm64"}) {
        out.push_back({StrCat("/aws/service/bottlerocket/aws-k8s-", k8s, "/", arch, "/", version,
                              "/image_id"),
                       KubeArch(arch), AmiVariant::kStandard});
        out.push_back({StrCat("/aws/service/bottlerocket/aws-k8s-", k8s, "-nvidia/", arch, "/",
                              version, "/image_id"),
                       KubeArch(arch), AmiVariant::kNvidia});
      }
      break;
    }
    case AwsAmiFamily::kWindows2019:
    case AwsAmiFamily::kWindows2022:
    case AwsAmiFamily::kWindows2025: {
      const char* year = alias.family == AwsAmiFamily::kWindows2019   ? "2019"
                         : alias.family == AwsAmiFamily::kWindows2022 ? "2022"
                                                                      : "2025";
      if (alias.family == AwsAmiFamily::kWindows2025 && minor < 35) {
        return absl::InvalidArgumentError("the windows2025 alias needs Kubernetes 1.35 or later");
      }
      out.push_back({StrCat("/aws/service/ami-windows-latest/Windows_Server-", year,
                            "-English-Core-EKS_Optimized-", k8s, "/image_id"),
                     "amd64", AmiVariant::kStandard});
      break;
    }
    case AwsAmiFamily::kCustom:
      return absl::InvalidArgumentError("Custom has no alias");
  }
  return out;
}

absl::StatusOr<std::vector<ResolvedSubnet>> DiscoverSubnets(const Ec2Client& client,
                                                            const Ec2NodeClass& nc) {
  std::vector<ResolvedSubnet> out;
  for (const SubnetSelectorTerm& term : nc.subnet_selector_terms) {
    QueryParams params;
    int f = 1;
    if (!term.id.empty()) AddFilter(&params, f++, "subnet-id", {term.id});
    AddTagFilters(&params, &f, term.tags);
    params.emplace_back("MaxResults", "500");
    KARP_RETURN_IF_ERROR(
        client.CallPaginated("DescribeSubnets", params, [&](const XmlResponse& page) {
          std::vector<pugi::xml_node> items = XmlItems(page.root(), "subnetSet");
          for (size_t i = 0; i < items.size(); ++i) {
            const std::string where = StrCat("EC2 DescribeSubnets: subnetSet/item[", i, "]");
            ResolvedSubnet s;
            KARP_ASSIGN_OR_RETURN(s.id, XmlRequiredText(items[i], "subnetId", where));
            KARP_ASSIGN_OR_RETURN(s.zone, XmlRequiredText(items[i], "availabilityZone", where));
            s.zone_id = XmlText(items[i], "availabilityZoneId");
            KARP_ASSIGN_OR_RETURN(std::optional<int64_t> ips,
                                  XmlOptionalInt(items[i], "availableIpAddressCount", where));
            s.available_ips = ips.value_or(0);
            out.push_back(std::move(s));
          }
          return absl::OkStatus();
        }));
  }
  return out;
}

absl::StatusOr<std::vector<ResolvedSecurityGroup>> DiscoverSecurityGroups(const Ec2Client& client,
                                                                          const Ec2NodeClass& nc) {
  std::vector<ResolvedSecurityGroup> out;
  for (const SecurityGroupSelectorTerm& term : nc.security_group_selector_terms) {
    QueryParams params;
    int f = 1;
    if (!term.id.empty()) AddFilter(&params, f++, "group-id", {term.id});
    if (!term.name.empty()) AddFilter(&params, f++, "group-name", {term.name});
    AddTagFilters(&params, &f, term.tags);
    params.emplace_back("MaxResults", "1000");
    KARP_RETURN_IF_ERROR(
        client.CallPaginated("DescribeSecurityGroups", params, [&](const XmlResponse& page) {
          std::vector<pugi::xml_node> items = XmlItems(page.root(), "securityGroupInfo");
          for (size_t i = 0; i < items.size(); ++i) {
            const std::string where =
                StrCat("EC2 DescribeSecurityGroups: securityGroupInfo/item[", i, "]");
            ResolvedSecurityGroup g;
            KARP_ASSIGN_OR_RETURN(g.id, XmlRequiredText(items[i], "groupId", where));
            g.name = XmlText(items[i], "groupName");
            out.push_back(std::move(g));
          }
          return absl::OkStatus();
        }));
  }
  return out;
}

absl::StatusOr<std::vector<ResolvedAmi>> DiscoverAmis(const Ec2Client& client,
                                                      const Ec2NodeClass& nc,
                                                      const DiscoveryOptions& options) {
  std::vector<ResolvedAmi> out;
  for (size_t i = 0; i < nc.ami_selector_terms.size(); ++i) {
    const AmiSelectorTerm& term = nc.ami_selector_terms[i];
    const std::string field = StrCat("spec.amiSelectorTerms[", i, "]");
    if (!term.alias.empty()) {
      absl::StatusOr<AmiAlias> alias = ParseAmiAlias(term.alias);
      if (!alias.ok()) {
        return ClassError(nc, absl::StatusCode::kInvalidArgument,
                          StrCat(field, ".alias: ", Msg(alias.status())));
      }
      if (!options.ssm) return absl::FailedPreconditionError("discovery: no SSM getter");
      absl::StatusOr<std::vector<AliasParameter>> paths =
          AliasParameters(*alias, options.kubernetes_version);
      if (!paths.ok()) {
        return ClassError(nc, absl::StatusCode::kInvalidArgument,
                          StrCat(field, ".alias: ", Msg(paths.status())));
      }
      // Image id -> the variants it was published for (an AL2 GPU image serves two).
      std::map<std::string, std::vector<AmiVariant>> variants;
      for (const AliasParameter& p : *paths) {
        absl::StatusOr<std::string> id = options.ssm(p.path);
        if (absl::IsNotFound(id.status())) continue;  // e.g. no neuron image for arm64
        if (!id.ok()) return id.status();
        variants[*id].push_back(p.variant);
      }
      if (variants.empty()) {
        return ClassError(nc, absl::StatusCode::kFailedPrecondition,
                          StrCat(field, ".alias: no AMI is published for alias \"", term.alias,
                                 "\" on Kubernetes ", options.kubernetes_version));
      }
      for (const auto& [id, vs] : variants) {
        for (AmiVariant variant : vs) {
          QueryParams params;
          params.emplace_back("ImageId.1", id);
          KARP_RETURN_IF_ERROR(DescribeImages(client, params, 1, variant, options.now, &out));
        }
      }
      continue;
    }
    QueryParams params;
    int f = 1;
    std::string id = term.id;
    if (!term.ssm_parameter.empty()) {
      if (!options.ssm) return absl::FailedPreconditionError("discovery: no SSM getter");
      absl::StatusOr<std::string> value = options.ssm(term.ssm_parameter);
      if (!value.ok()) {
        return ClassError(nc, value.status().code(),
                          StrCat(field, ".ssmParameter: ", Msg(value.status())));
      }
      id = *value;
    }
    if (!id.empty()) AddFilter(&params, f++, "image-id", {id});
    if (!term.name.empty()) {
      AddFilter(&params, f++, "name", {term.name});
      if (term.owner.empty()) {
        AddList(&params, "Owner", {"self", "amazon"});
      } else {
        AddList(&params, "Owner", {term.owner});
      }
    } else if (!term.owner.empty()) {
      AddList(&params, "Owner", {term.owner});
    }
    AddTagFilters(&params, &f, term.tags);
    params.emplace_back("MaxResults", "1000");
    KARP_RETURN_IF_ERROR(DescribeImages(client, params, f, AmiVariant::kAny, options.now, &out));
  }
  return NormalizeAmis(std::move(out));
}

absl::StatusOr<Ec2NodeClassStatus> ResolveEc2NodeClass(const Ec2Client& client,
                                                       const Ec2NodeClass& nc,
                                                       const DiscoveryOptions& options) {
  KARP_RETURN_IF_ERROR(ValidateEc2NodeClass(nc));
  Ec2NodeClassStatus status;
  KARP_ASSIGN_OR_RETURN(status.subnets, DiscoverSubnets(client, nc));
  KARP_ASSIGN_OR_RETURN(status.security_groups, DiscoverSecurityGroups(client, nc));
  KARP_ASSIGN_OR_RETURN(status.amis, DiscoverAmis(client, nc, options));
  NormalizeSubnetsAndGroups(&status);
  status.instance_profile = nc.instance_profile;
  if (status.subnets.empty()) {
    return ClassError(nc, absl::StatusCode::kFailedPrecondition,
                      "spec.subnetSelectorTerms: no subnet matched");
  }
  if (status.security_groups.empty()) {
    return ClassError(nc, absl::StatusCode::kFailedPrecondition,
                      "spec.securityGroupSelectorTerms: no security group matched");
  }
  if (status.amis.empty()) {
    return ClassError(nc, absl::StatusCode::kFailedPrecondition,
                      "spec.amiSelectorTerms: no AMI matched");
  }
  return status;
}

}  // namespace karp::aws
