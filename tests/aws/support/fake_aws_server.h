// Test support of karp::aws: a local AWS endpoint for the adapter's tests and the example's
// --self-test. Nothing leaves the machine.
//
// FakeAwsServer is a small HTTP/1.1 server on 127.0.0.1 (ephemeral port, one thread, POSIX
// sockets, one request per connection, `Connection: close`). For every request it
//   1. parses the request (request line, headers, Content-Length body; 5 s socket timeouts),
//   2. verifies the SigV4 signature with the test credentials: the access key id, the scope
//      (region and service: "ec2" for Query requests, "iam" in `iam_region` for Query requests
//      of Version 2010-05-08; for JSON requests the service named by the X-Amz-Target prefix:
//      AmazonSSM -> "ssm", AWSPriceListService -> "pricing", AmazonSQS -> "sqs"; the region is
//      `pricing_region` for pricing, `region` otherwise), the x-amz-date / scope date
//      agreement and the signature itself; a failure
//      answers HTTP 403 with an EC2 error `AuthFailure` / `SignatureDoesNotMatch`,
//   3. finds the action: the form parameter `Action` (EC2 Query) or the operation after the
//      '.' of `X-Amz-Target` (JSON, e.g. "GetProducts"),
//   4. applies the first scripted fault queued for that action, if any (throttling, HTTP
//      errors, malformed bodies), else calls the handler registered with On(action);
//      an action without a handler answers HTTP 400 `InvalidAction`,
//   5. records the request (whatever the outcome) for the test to inspect.
//
// Example:
//   auto server = karp::aws::testing::FakeAwsServer::Start();
//   REQUIRE(server.ok());
//   (*server)->On("DescribeInstances", [](const FakeRequest& r) {
//     return FakeResponse::Xml(Ec2Xml("DescribeInstances", "<reservationSet/>"));
//   });
//   (*server)->ThrottleNext("DescribeInstances", 2);
//   options.ec2_endpoint = (*server)->endpoint();   // http://127.0.0.1:PORT
//
// Thread-safety: every public method is thread-safe; handlers run on the server thread, one
// at a time.

#ifndef KARP_TESTS_AWS_SUPPORT_FAKE_AWS_SERVER_H_
#define KARP_TESTS_AWS_SUPPORT_FAKE_AWS_SERVER_H_

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/aws/credentials.h"

namespace karp::aws::testing {

// The credentials the server expects (fake values; never real keys).
inline constexpr std::string_view kTestAccessKeyId = "AKIDKARPTEST";
inline constexpr std::string_view kTestSecretAccessKey = "karp/test/SECRET+key/do-not-print";
Credentials TestCredentials();

struct FakeRequest {
  std::string method;
  std::string target;                          // request target as sent, e.g. "/"
  std::map<std::string, std::string> headers;  // lower-case names; repeats joined with ','
  std::string body;
  std::string action;                                       // "DescribeInstances", "GetProducts"
  std::vector<std::pair<std::string, std::string>> params;  // decoded form body (Query only)
  bool signature_ok = false;
  std::string signing_service;  // from the Authorization scope
  std::string signing_region;

  // The first value of form parameter `name`, or "".
  std::string Param(std::string_view name) const;
  // Every parameter whose name starts with `prefix`, in order.
  std::vector<std::pair<std::string, std::string>> ParamsWithPrefix(std::string_view prefix) const;
  // The header value (lower-case name), or "".
  std::string Header(std::string_view name) const;
};

struct FakeResponse {
  int status = 200;
  std::string content_type = "text/xml;charset=UTF-8";
  std::string body;

  static FakeResponse Xml(std::string body, int status = 200);
  static FakeResponse Json(std::string body, int status = 200);
  // An EC2 error document (<Response><Errors><Error><Code>... ).
  static FakeResponse Ec2Error(std::string_view code, std::string_view message, int status = 400);
};

using FakeHandler = std::function<FakeResponse(const FakeRequest&)>;

// `<name>inner</name>` (inner as is) and XML text escaping (& < > ").
std::string XmlElement(std::string_view name, std::string_view inner);
std::string XmlEscape(std::string_view text);

// `<ActionResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>..</requestId>`
// + inner + `</ActionResponse>`.
std::string Ec2Xml(std::string_view action, std::string_view inner);

class FakeAwsServer {
 public:
  struct Options {
    Credentials credentials = TestCredentials();
    std::string region = "us-east-1";          // expected scope region of EC2 requests
    std::string pricing_region = "us-east-1";  // expected scope region of pricing requests
    std::string iam_region = "us-east-1";      // expected scope region of IAM requests
    bool verify_signatures = true;
  };

  // Binds 127.0.0.1:0 and starts the server thread.
  // Errors: Internal naming the failing socket call.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<FakeAwsServer>> Start(Options options);
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<FakeAwsServer>> Start() {
    return Start(Options());
  }
  ~FakeAwsServer();  // Stop()
  FakeAwsServer(const FakeAwsServer&) = delete;
  FakeAwsServer& operator=(const FakeAwsServer&) = delete;

  // "http://127.0.0.1:<port>".
  std::string endpoint() const;
  int port() const { return port_; }

  // Registers (replaces) the handler of `action`.
  void On(const std::string& action, FakeHandler handler);

  // Scripted faults, consumed in FIFO order per action before the handler runs.
  // The next `n` requests of `action` answer `status` with EC2 error `code`.
  void ThrottleNext(const std::string& action, int n, std::string code = "RequestLimitExceeded",
                    int status = 503);
  void FailNext(const std::string& action, int n, int status = 500,
                std::string code = "InternalError");
  // The next `n` requests answer HTTP 200 with a body that is not well-formed XML.
  void MalformedNext(const std::string& action, int n);
  // The next `n` requests answer `response` as is.
  void RespondNext(const std::string& action, int n, FakeResponse response);

  // Every request received so far, in arrival order (copies).
  std::vector<FakeRequest> Requests() const;
  // Requests of `action` so far.
  int Count(const std::string& action) const;
  // Requests whose signature did not verify.
  int BadSignatures() const;
  void ClearRequests();

  // Stops the thread and closes the socket; idempotent.
  void Stop();

 private:
  explicit FakeAwsServer(Options options) : options_(std::move(options)) {}
  void Loop();
  void Serve(int fd);
  FakeResponse Dispatch(FakeRequest* request);

  Options options_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::map<std::string, FakeHandler> handlers_;             // guarded by mu_
  std::map<std::string, std::deque<FakeResponse>> faults_;  // guarded by mu_
  std::vector<FakeRequest> requests_;                       // guarded by mu_
};

}  // namespace karp::aws::testing

#endif  // KARP_TESTS_AWS_SUPPORT_FAKE_AWS_SERVER_H_
