#include "karp/aws/client_options.h"

#include <string>

#include "internal/strings.h"

namespace karp::aws {
namespace {

using internal::StrCat;

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

absl::Status AwsClientOptions::Validate() const {
  if (region.empty()) return absl::InvalidArgumentError("aws client options: region is empty");
  for (const std::string* e : {&ec2_endpoint, &pricing_endpoint, &iam_endpoint, &sqs_endpoint}) {
    if (!e->empty() && !StartsWith(*e, "http://") && !StartsWith(*e, "https://")) {
      return absl::InvalidArgumentError(
          StrCat("aws client options: endpoint \"", *e, "\" must start with http:// or https://"));
    }
  }
  if (credentials.access_key_id().empty()) {
    return absl::InvalidArgumentError("aws client options: credentials.access_key_id is empty");
  }
  if (credentials.secret_access_key().empty()) {
    return absl::InvalidArgumentError("aws client options: credentials.secret_access_key is empty");
  }
  if (connect_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("aws client options: connect_timeout must be > 0");
  }
  if (request_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("aws client options: request_timeout must be > 0");
  }
  if (retry.max_attempts < 1 || retry.max_attempts > 100) {
    return absl::InvalidArgumentError(StrCat("aws client options: retry.max_attempts ",
                                             retry.max_attempts, " is outside [1, 100]"));
  }
  if (retry.base_delay < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("aws client options: retry.base_delay is negative");
  }
  if (retry.max_delay < retry.base_delay) {
    return absl::InvalidArgumentError(
        "aws client options: retry.max_delay is less than retry.base_delay");
  }
  return absl::OkStatus();
}

std::string AwsClientOptions::ResolvedEc2Endpoint() const {
  if (!ec2_endpoint.empty()) return ec2_endpoint;
  return StrCat("https://ec2.", region, ".amazonaws.com", StartsWith(region, "cn-") ? ".cn" : "");
}

std::string AwsClientOptions::ResolvedPricingRegion() const {
  if (!pricing_region.empty()) return pricing_region;
  if (StartsWith(region, "ap-")) return "ap-south-1";
  if (StartsWith(region, "eu-")) return "eu-central-1";
  if (StartsWith(region, "cn-")) return "cn-northwest-1";
  return "us-east-1";
}

std::string AwsClientOptions::ResolvedPricingEndpoint() const {
  if (!pricing_endpoint.empty()) return pricing_endpoint;
  const std::string r = ResolvedPricingRegion();
  return StrCat("https://api.pricing.", r, ".amazonaws.com", StartsWith(r, "cn-") ? ".cn" : "");
}

std::string AwsClientOptions::ResolvedIamRegion() const {
  if (!iam_region.empty()) return iam_region;
  if (StartsWith(region, "cn-")) return "cn-north-1";
  if (StartsWith(region, "us-gov-")) return "us-gov-west-1";
  return "us-east-1";
}

std::string AwsClientOptions::ResolvedIamEndpoint() const {
  if (!iam_endpoint.empty()) return iam_endpoint;
  if (StartsWith(region, "cn-")) return "https://iam.cn-north-1.amazonaws.com.cn";
  if (StartsWith(region, "us-gov-")) return "https://iam.us-gov.amazonaws.com";
  return "https://iam.amazonaws.com";
}

std::string AwsClientOptions::ResolvedSqsEndpoint() const {
  if (!sqs_endpoint.empty()) return sqs_endpoint;
  return StrCat("https://sqs.", region, ".amazonaws.com", StartsWith(region, "cn-") ? ".cn" : "");
}

}  // namespace karp::aws
