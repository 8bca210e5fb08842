// File: karp/aws/client_options.h
//
// How the AWS adapter talks to AWS: region, endpoint overrides (any EC2-compatible endpoint,
// e.g. http://127.0.0.1:PORT in tests), credentials, timeouts and the retry policy for
// throttling and server errors (capped exponential backoff with jitter, deterministic for a
// given seed, with an injectable sleep so tests never wait).
//
// Example:
//   karp::aws::AwsClientOptions o;
//   o.region = "eu-west-1";
//   o.ec2_endpoint = "http://127.0.0.1:8080";
//   o.credentials = *karp::aws::ResolveCredentials();
//   o.retry.max_attempts = 3;
//   o.sleep = [](absl::Duration) {};  // tests: do not wait
//
// Thread-safety: value types (thread-compatible).

#ifndef KARP_AWS_CLIENT_OPTIONS_H_
#define KARP_AWS_CLIENT_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "karp/aws/credentials.h"

namespace karp::aws {

// Retries of throttling (RequestLimitExceeded, Throttling..., HTTP 429/503), HTTP 5xx and
// transport failures (connection refused or reset, timeouts). Attempt k (k = 1, 2, ...) after a
// failure waits d = min(max_delay, base_delay * 2^(k-1)), jittered uniformly into [d/2, d]
// with a generator seeded by `seed`.
struct RetryOptions {
  // Attempts in total, including the first; 1 disables retries. Must be in [1, 100].
  // Default: 5.
  int max_attempts = 5;
  // Default: 200ms. Must be >= 0.
  absl::Duration base_delay = absl::Milliseconds(200);
  // Default: 20s. Must be >= base_delay.
  absl::Duration max_delay = absl::Seconds(20);
  // Seed of the jitter generator. Default: 0.
  uint64_t seed = 0;
};

struct AwsClientOptions {
  // The EC2 region (SigV4 scope of EC2 calls, the region label). Must be non-empty.
  // Default: "us-east-1".
  std::string region = "us-east-1";
  // EC2 endpoint URL (scheme, host, optional port, optional path). Empty: the public endpoint
  // https://ec2.<region>.amazonaws.com (.amazonaws.com.cn for cn-* regions). Default: empty.
  std::string ec2_endpoint;
  // Price List API endpoint. Empty: https://api.pricing.<pricing_region>.amazonaws.com
  // (.com.cn in China). Default: empty.
  std::string pricing_endpoint;
  // SigV4 region of the Price List API. Empty: derived from `region` as the reference does
  // (us-east-1; ap-south-1 for ap-*; eu-central-1 for eu-*; cn-northwest-1 for cn-*).
  // Default: empty.
  std::string pricing_region;
  // IAM endpoint (instance profiles). IAM is global: empty means https://iam.amazonaws.com
  // (https://iam.cn-north-1.amazonaws.com.cn for cn-*, https://iam.us-gov.amazonaws.com for
  // us-gov-*). Default: empty.
  std::string iam_endpoint;
  // SigV4 region of IAM calls. Empty: us-east-1 (cn-north-1 for cn-*, us-gov-west-1 for
  // us-gov-*). Default: empty.
  std::string iam_region;
  // SQS endpoint (the interruption queue). Empty: https://sqs.<region>.amazonaws.com (.com.cn
  // for cn-*). Default: empty.
  std::string sqs_endpoint;
  // Must be valid (access key id and secret set).
  Credentials credentials;
  // Connection-establishment timeout of every request. Must be > 0. Default: 5s.
  absl::Duration connect_timeout = absl::Seconds(5);
  // Whole-request timeout (connect + send + receive) of every attempt. Must be > 0.
  // Default: 30s.
  absl::Duration request_timeout = absl::Seconds(30);
  RetryOptions retry;
  // How the client waits between attempts. Empty: absl::SleepFor. Default: empty.
  std::function<void(absl::Duration)> sleep;
  // The signing clock. Empty: absl::Now. Default: empty.
  std::function<absl::Time()> clock;
  // User-Agent header. Default: "karp-aws".
  std::string user_agent = "karp-aws";

  // OK, or InvalidArgument naming the first bad field (never printing a secret).
  [[nodiscard]] absl::Status Validate() const;
  // The endpoints and pricing region after defaults.
  std::string ResolvedEc2Endpoint() const;
  std::string ResolvedPricingEndpoint() const;
  std::string ResolvedPricingRegion() const;
  std::string ResolvedIamEndpoint() const;
  std::string ResolvedIamRegion() const;
  std::string ResolvedSqsEndpoint() const;
};

}  // namespace karp::aws

#endif  // KARP_AWS_CLIENT_OPTIONS_H_
