// Internal to the AWS target (src/aws/).
//
// AWS Signature Version 4 (header form, AWS4-HMAC-SHA256) for the EC2 adapter: the canonical
// request, the string to sign, the signature and the Authorization header, exactly as the
// published AWS SigV4 test suite expects (shared/data/sigv4-testsuite: all 34 cases pass).
//
// Canonical form, as the suite: the path is normalised (empty and "." segments dropped, ".."
// resolved, a trailing slash kept) and each segment URI-encoded once (only A-Z a-z 0-9 - . _ ~
// stay literal); query parameters are percent-decoded, re-encoded and sorted by key then value;
// header names are lower-cased, values trimmed with inner runs of spaces collapsed (continuation
// lines of a folded value joined with one space), repeated headers joined with ',' in order,
// and every given header is signed; the payload hash is the hex SHA-256 of the body.
//
// Example:
//   karp::aws::HttpRequest req;
//   req.method = "POST";
//   req.path = "/";
//   req.headers = {{"Host", "ec2.us-east-1.amazonaws.com"},
//                  {"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}};
//   req.body = "Action=DescribeInstances&Version=2016-11-15";
//   absl::Status s = karp::aws::SignRequest(creds, {"us-east-1", "ec2"}, absl::Now(), &req);
//   // req.headers now also carries X-Amz-Date, X-Amz-Security-Token (if any) and
//   // Authorization.
//
// Thread-safety: functions are thread-safe (no shared state).

#ifndef KARP_SRC_AWS_SIGV4_H_
#define KARP_SRC_AWS_SIGV4_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "karp/aws/credentials.h"

namespace karp::aws {

// A request as it is signed: the decoded path (not percent-encoded; the signer encodes it),
// the raw query string after '?' (may contain percent-encodings), headers in order (names in
// any case; a header may repeat), and the body.
struct HttpRequest {
  std::string method = "GET";
  std::string path = "/";
  std::string query;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// The credential scope: region and service signing name ("ec2", "pricing", "sqs"...).
struct SigV4Scope {
  std::string region;
  std::string service;
};

// Every intermediate of a signature, for tests and for server-side verification.
struct SigV4Signature {
  std::string amz_date;          // 20150830T123600Z
  std::string credential_scope;  // 20150830/us-east-1/service/aws4_request
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // host;x-amz-date
  std::string signature;       // lower-case hex
  std::string authorization;   // the Authorization header value
};

// "20150830T123600Z" for `time` (UTC).
std::string AmzDate(absl::Time time);
// Parses AmzDate's format (exactly 16 characters). Errors: InvalidArgument quoting the text.
[[nodiscard]] absl::StatusOr<absl::Time> ParseAmzDate(std::string_view text);

// Computes the signature of `request` as given (it must already carry X-Amz-Date equal to
// AmzDate(time) if the caller wants it signed; this function adds nothing). Every header is
// signed.
// Errors: InvalidArgument when the credentials are incomplete, the scope has an empty region
// or service, the method is empty, or a header name is empty or has characters outside
// RFC 7230 tokens. Messages never contain the secret.
[[nodiscard]] absl::StatusOr<SigV4Signature> ComputeSigV4(const HttpRequest& request,
                                                          const Credentials& credentials,
                                                          const SigV4Scope& scope, absl::Time time);

// Signs `request` in place: adds X-Amz-Date (unless present) and, for credentials with a
// session token, X-Amz-Security-Token (unless present) before signing, then the
// Authorization header. Errors: as ComputeSigV4; InvalidArgument when `request` is null or
// already carries an Authorization header.
[[nodiscard]] absl::Status SignRequest(const Credentials& credentials, const SigV4Scope& scope,
                                       absl::Time time, HttpRequest* request);

// The parts of an `AWS4-HMAC-SHA256 Credential=AKID/20150830/us-east-1/service/aws4_request,
// SignedHeaders=host;x-amz-date, Signature=...` header. Errors: InvalidArgument naming the
// missing or malformed part.
struct SigV4Authorization {
  std::string access_key_id;
  std::string date;  // 20150830
  std::string region;
  std::string service;
  std::vector<std::string> signed_headers;
  std::string signature;
};
[[nodiscard]] absl::StatusOr<SigV4Authorization> ParseSigV4Authorization(std::string_view value);

// Lower-case hex SHA-256 and HMAC-SHA256 (raw key and data). Exposed for tests.
std::string Sha256Hex(std::string_view data);
std::string HmacSha256(std::string_view key, std::string_view data);  // raw 32 bytes
std::string HexEncode(std::string_view bytes);

// RFC 3986 encoding as SigV4 wants it: everything except A-Z a-z 0-9 - . _ ~ becomes %XX
// (upper-case hex); '/' too unless `keep_slash`.
std::string UriEncode(std::string_view s, bool keep_slash = false);
// Decodes %XX sequences (invalid ones are kept literally); '+' is not special.
std::string PercentDecode(std::string_view s);

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_SIGV4_H_
