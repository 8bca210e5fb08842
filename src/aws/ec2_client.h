// Internal header of karp::aws (src/aws/): the low-level AWS client every EC2 feature of the
// adapter goes through. Not installed; code outside src/aws and tests/aws must not include it.
//
// Ec2Client::Call(action, params) sends one EC2 Query API request
//   POST <endpoint>/   Content-Type: application/x-www-form-urlencoded; charset=utf-8
//   body: Action=<action>&Version=2016-11-15&<params, form-encoded, in the given order>
// signed with SigV4 (service "ec2", options.region), retries throttling / 5xx / transport
// failures (RetryOptions), maps errors to absl::Status, and returns the parsed XML.
// CallPaginated() follows <nextToken>. CallQuery() sends the same Query protocol to another
// service (IAM: Version 2010-05-08, service "iam", the IAM region and endpoint). CallJson() does
// the same for the JSON protocols (the Price List API and SSM: 1.1; SQS: 1.0).
//
// Error contract of Call / CallPaginated / CallJson (every message starts with
// "EC2 <action>: " or "Pricing <target>: " and never contains a credential):
//   Unavailable        throttling codes (RequestLimitExceeded, Throttling, ThrottlingException,
//                      RequestThrottled, RequestThrottledException, TooManyRequestsException,
//                      EC2ThrottledException, PriorRequestNotComplete, SlowDown), HTTP 429,
//                      HTTP 5xx, connection failures and timeouts, once retries are exhausted
//                      ("... after N attempts")
//   ResourceExhausted  insufficient-capacity codes (IsInsufficientCapacityCode)
//   NotFound           not-found codes (IsNotFoundCode: InvalidInstanceID.NotFound, any code
//                      ending in ".NotFound" or "NotFoundException", NoSuchEntity, ...)
//   PermissionDenied   AuthFailure*, UnauthorizedOperation, SignatureDoesNotMatch,
//                      InvalidClientTokenId, OptInRequired, HTTP 401/403 without a code
//   InvalidArgument    other 4xx codes (InvalidParameterValue, MissingParameter, ...)
//   Internal           a malformed response: not XML, wrong root element, an error body that
//                      cannot be parsed; messages name the action and the XML path
//   FailedPrecondition DryRunOperation (a dry run that would have succeeded)
// The AWS error code, when there is one, is attached to the status: AwsErrorCode(status).
//
// Thread-safety: Ec2Client is thread-safe (each attempt uses its own curl handle; the jitter
// generator is guarded by a mutex). XmlResponse is immutable once returned and may be read
// from several threads.

#ifndef KARP_SRC_AWS_EC2_CLIENT_H_
#define KARP_SRC_AWS_EC2_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pugixml.hpp>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "karp/aws/client_options.h"

namespace karp::aws {

inline constexpr std::string_view kEc2ApiVersion = "2016-11-15";

// Query parameters after Action and Version, in the order they are sent.
using QueryParams = std::vector<std::pair<std::string, std::string>>;

// ---- Error classification --------------------------------------------------------------------

// §4.1: InsufficientInstanceCapacity, MaxSpotInstanceCountExceeded, VcpuLimitExceeded,
// UnfulfillableCapacity, Unsupported, InsufficientFreeAddressesInSubnet, MaxFleetCountExceeded,
// ReservationCapacityExceeded (also InsufficientHostCapacity, InsufficientReservedInstanceCapacity,
// InsufficientCapacity, SpotMaxPriceTooLow).
bool IsInsufficientCapacityCode(std::string_view code);
// §4.4 codes plus any code ending in ".NotFound", "NotFound" or "NotFoundException".
bool IsNotFoundCode(std::string_view code);
bool IsThrottlingCode(std::string_view code);
// HTTP 429 and every 5xx.
bool IsRetryableHttpStatus(int http_status);
// The status code an AWS error code (and its HTTP status) maps to (table above).
absl::StatusCode StatusCodeForAwsError(std::string_view code, int http_status);
// The AWS error code attached to a status returned by this client, or "".
std::string AwsErrorCode(const absl::Status& status);
// Attaches `code` to `status` (what the client does; exposed for adapters that build errors
// from CreateFleet's errorSet).
absl::Status WithAwsErrorCode(absl::Status status, std::string_view code);

// ---- Parameter helpers -----------------------------------------------------------------------

// `<prefix>.1=<v1>`, `<prefix>.2=<v2>`, ... (EC2 flattened lists, numbered from 1).
void AddList(QueryParams* params, std::string_view prefix, const std::vector<std::string>& values);
// `Filter.<index>.Name=<name>`, `Filter.<index>.Value.<j>=<values[j-1]>`; index from 1.
void AddFilter(QueryParams* params, int index, std::string_view name,
               const std::vector<std::string>& values);
// `application/x-www-form-urlencoded` body of `params` (RFC 3986 encoding, %20 for space).
std::string FormEncode(const QueryParams& params);
// Parses a form body (tests and the fake server). '+' decodes to a space.
QueryParams FormDecode(std::string_view body);

// ---- XML access ------------------------------------------------------------------------------

// One parsed response; cheap to copy (shares the document).
class XmlResponse {
 public:
  XmlResponse() = default;
  // Parses `body` and checks that the root element is `<action>Response`.
  // Errors: Internal `<service> <action>: malformed XML response (<parser error> at offset
  // N)` or `<service> <action>: unexpected root element <x>, want <action>Response`.
  [[nodiscard]] static absl::StatusOr<XmlResponse> Parse(std::string_view action, std::string body,
                                                         std::string_view service = "EC2");

  pugi::xml_node root() const { return root_; }
  const std::string& action() const { return action_; }
  const std::string& request_id() const { return request_id_; }
  const std::string& body() const { return *body_; }

 private:
  std::shared_ptr<pugi::xml_document> doc_;
  std::shared_ptr<const std::string> body_;
  pugi::xml_node root_;
  std::string action_;
  std::string request_id_;
};

// Path lookups relative to a node: "a/b/c" follows the first child of each name.
pugi::xml_node XmlChild(pugi::xml_node node, std::string_view path);
// The text of XmlChild(node, path), or "" when absent.
std::string XmlText(pugi::xml_node node, std::string_view path);
// The `item` children of XmlChild(node, set_path) (empty when the set is absent), in order.
std::vector<pugi::xml_node> XmlItems(pugi::xml_node node, std::string_view set_path);

// Typed required/optional fields. `where` names the place for messages, e.g.
// "EC2 DescribeInstanceTypes: instanceTypeSet/item[3]"; errors read
// `<where>/<path>: missing` or `<where>/<path>: not an integer: "abc"` (Internal).
[[nodiscard]] absl::StatusOr<std::string> XmlRequiredText(pugi::xml_node node,
                                                          std::string_view path,
                                                          std::string_view where);
[[nodiscard]] absl::StatusOr<int64_t> XmlRequiredInt(pugi::xml_node node, std::string_view path,
                                                     std::string_view where);
[[nodiscard]] absl::StatusOr<std::optional<int64_t>> XmlOptionalInt(pugi::xml_node node,
                                                                    std::string_view path,
                                                                    std::string_view where);
[[nodiscard]] absl::StatusOr<std::optional<double>> XmlOptionalDouble(pugi::xml_node node,
                                                                      std::string_view path,
                                                                      std::string_view where);
// "true"/"false" (absent: std::nullopt).
[[nodiscard]] absl::StatusOr<std::optional<bool>> XmlOptionalBool(pugi::xml_node node,
                                                                  std::string_view path,
                                                                  std::string_view where);

// ---- The client ------------------------------------------------------------------------------

// A JSON protocol call (Price List API, SSM, SQS): POST / with
// `X-Amz-Target: <target_prefix>.<operation>`, `Content-Type: <content_type>`.
struct JsonCall {
  std::string target_prefix = "AWSPriceListService";
  std::string operation;  // "GetProducts"
  std::string signing_service = "pricing";
  std::string endpoint;  // empty: options.ResolvedPricingEndpoint()
  std::string region;    // empty: options.ResolvedPricingRegion()
  std::string content_type = "application/x-amz-json-1.1";  // SQS: application/x-amz-json-1.0
  std::string label = "Pricing";  // message prefix: "<label> <operation>: ..."
};

// Another AWS service spoken in the EC2 Query protocol (form body with Action and Version,
// XML response `<Action>Response`), e.g. IAM.
struct QueryService {
  std::string label;            // message prefix: "IAM"
  std::string version;          // "2010-05-08"
  std::string signing_service;  // "iam"
  std::string endpoint;         // required
  std::string region;           // SigV4 region; required
};

class Ec2Client {
 public:
  // Errors: InvalidArgument from options.Validate().
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<Ec2Client>> Create(AwsClientOptions options);
  ~Ec2Client();
  Ec2Client(const Ec2Client&) = delete;
  Ec2Client& operator=(const Ec2Client&) = delete;

  // One EC2 Query API action (see the file comment). `action` must be non-empty ASCII letters.
  [[nodiscard]] absl::StatusOr<XmlResponse> Call(std::string_view action,
                                                 const QueryParams& params) const;

  // Calls `action` repeatedly, adding `NextToken=<previous page's nextToken>` (after `params`)
  // until a page has no or an empty <nextToken>; `on_page` sees every page in order and may stop
  // the iteration by returning an error (returned as is). Errors: as Call; Internal when more
  // than `max_pages` pages come back or a token repeats (a server that never ends).
  [[nodiscard]] absl::Status CallPaginated(
      std::string_view action, const QueryParams& params,
      const std::function<absl::Status(const XmlResponse& page)>& on_page,
      int max_pages = 1000) const;

  // Call() against `service` instead of EC2. Errors: as Call, prefixed "<label> <action>: ".
  [[nodiscard]] absl::StatusOr<XmlResponse> CallQuery(const QueryService& service,
                                                      std::string_view action,
                                                      const QueryParams& params) const;

  // A JSON call; returns the response body (not parsed: the caller owns its JSON codec).
  // Error bodies `{"__type": "...#Code", "message": "..."}` map like EC2 codes.
  [[nodiscard]] absl::StatusOr<std::string> CallJson(const JsonCall& call,
                                                     std::string_view body) const;

  const AwsClientOptions& options() const { return options_; }
  // HTTP attempts made so far (including retries); for tests and metrics.
  int64_t attempts() const { return attempts_.load(); }

 private:
  explicit Ec2Client(AwsClientOptions options);

  struct HttpResult {
    int status = 0;  // 0: transport failure
    std::string body;
    std::string transport_error;  // curl's message for status 0
  };
  // One attempt: sign, send, receive. Never returns an error status for HTTP errors.
  HttpResult SendOnce(const std::string& endpoint, const std::string& region,
                      const std::string& service,
                      const std::vector<std::pair<std::string, std::string>>& extra_headers,
                      const std::string& body) const;
  // SendOnce with the retry policy; maps HTTP errors to statuses. `label` prefixes messages
  // ("EC2 DescribeInstances").
  absl::StatusOr<HttpResult> SendWithRetries(
      const std::string& label, const std::string& endpoint, const std::string& region,
      const std::string& service,
      const std::vector<std::pair<std::string, std::string>>& extra_headers,
      const std::string& body, bool json_protocol) const;
  absl::Duration NextDelay(int attempt) const;

  AwsClientOptions options_;
  std::string ec2_endpoint_;
  mutable absl::Mutex rng_mu_;
  mutable std::mt19937_64 rng_ ABSL_GUARDED_BY(rng_mu_);
  mutable std::atomic<int64_t> attempts_{0};
};

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_EC2_CLIENT_H_
