#include "aws/support/fake_aws_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "aws/ec2_client.h"
#include "aws/instance_profile_manager.h"
#include "aws/sigv4.h"
#include "internal/strings.h"

namespace karp::aws::testing {
namespace {

using internal::StrCat;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return std::string(s.substr(b, e - b));
}

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

bool SendAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return false;
    }
    off += static_cast<size_t>(n);
  }
  return true;
}

// Verifies the SigV4 signature of `r` (sets signature_ok, signing_service/region) and returns
// an error response, or nullopt when it verifies.
std::optional<FakeResponse> Verify(const FakeAwsServer::Options& options,
                                   const std::vector<std::pair<std::string, std::string>>& raw,
                                   bool json, FakeRequest* r) {
  auto deny = [](std::string_view code, std::string message) {
    return FakeResponse::Ec2Error(code, message, 403);
  };
  const std::string authz = r->Header("authorization");
  if (authz.empty()) return deny("AuthFailure", "request is not signed (no Authorization)");
  absl::StatusOr<SigV4Authorization> a = ParseSigV4Authorization(authz);
  if (!a.ok()) return deny("AuthFailure", std::string(a.status().message()));
  r->signing_service = a->service;
  r->signing_region = a->region;
  if (a->access_key_id != options.credentials.access_key_id()) {
    return deny("AuthFailure", "unknown access key id");
  }
  // The signing service follows from the protocol: EC2 Query requests sign for "ec2"; JSON
  // requests for the service their X-Amz-Target names (AmazonSSM -> ssm, AWSPriceListService
  // -> pricing). Pricing is signed in the pricing region, everything else in the region.
  std::string want_service = "ec2";
  if (!json && r->Param("Version") == kIamApiVersion) want_service = "iam";
  if (json) {
    const std::string target = r->Header("x-amz-target");
    const std::string prefix = target.substr(0, target.find('.'));
    if (prefix == "AmazonSSM") {
      want_service = "ssm";
    } else if (prefix == "AWSPriceListService") {
      want_service = "pricing";
    } else if (prefix == "AmazonSQS") {
      want_service = "sqs";
    } else {
      return deny("UnknownOperationException",
                  StrCat("X-Amz-Target \"", target, "\" names no service this fake serves"));
    }
  }
  const std::string want_region = want_service == "pricing" ? options.pricing_region
                                  : want_service == "iam"   ? options.iam_region
                                                            : options.region;
  if (a->service != want_service || a->region != want_region) {
    return deny("SignatureDoesNotMatch", StrCat("credential scope ", a->region, "/", a->service,
                                                ", want ", want_region, "/", want_service));
  }
  const std::string amz_date = r->Header("x-amz-date");
  absl::StatusOr<absl::Time> parsed = ParseAmzDate(amz_date);
  if (!parsed.ok()) return deny("AuthFailure", "missing or malformed X-Amz-Date");
  const absl::Time t = *parsed;
  if (amz_date.substr(0, 8) != a->date) {
    return deny("SignatureDoesNotMatch", "X-Amz-Date does not match the credential scope date");
  }
  bool has_host = false, has_date = false;
  HttpRequest req;
  req.method = r->method;
  const size_t q = r->target.find('?');
  req.path = PercentDecode(r->target.substr(0, q));
  if (q != std::string::npos) req.query = r->target.substr(q + 1);
  req.body = r->body;
  for (const std::string& name : a->signed_headers) {
    if (name == "host") has_host = true;
    if (name == "x-amz-date") has_date = true;
    bool found = false;
    for (const auto& [hn, hv] : raw) {
      if (Lower(hn) == name) {
        req.headers.emplace_back(name, hv);
        found = true;
      }
    }
    if (!found) return deny("SignatureDoesNotMatch", StrCat("signed header ", name, " missing"));
  }
  if (!has_host || !has_date) {
    return deny("SignatureDoesNotMatch", "host and x-amz-date must be signed");
  }
  absl::StatusOr<SigV4Signature> sig =
      ComputeSigV4(req, options.credentials, {a->region, a->service}, t);
  if (!sig.ok()) return deny("AuthFailure", std::string(sig.status().message()));
  if (sig->signature != a->signature) {
    return deny("SignatureDoesNotMatch",
                "The request signature we calculated does not match the signature you provided");
  }
  r->signature_ok = true;
  return std::nullopt;
}

}  // namespace

Credentials TestCredentials() {
  Credentials c{std::string(kTestAccessKeyId), std::string(kTestSecretAccessKey)};
  c.set_source("test");
  return c;
}

std::string FakeRequest::Param(std::string_view name) const {
  for (const auto& [k, v] : params) {
    if (k == name) return v;
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> FakeRequest::ParamsWithPrefix(
    std::string_view prefix) const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& kv : params) {
    if (std::string_view(kv.first).substr(0, prefix.size()) == prefix) out.push_back(kv);
  }
  return out;
}

std::string FakeRequest::Header(std::string_view name) const {
  auto it = headers.find(std::string(name));
  return it == headers.end() ? "" : it->second;
}

FakeResponse FakeResponse::Xml(std::string body, int status) {
  FakeResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

FakeResponse FakeResponse::Json(std::string body, int status) {
  FakeResponse r;
  r.status = status;
  r.content_type = "application/x-amz-json-1.1";
  r.body = std::move(body);
  return r;
}

FakeResponse FakeResponse::Ec2Error(std::string_view code, std::string_view message, int status) {
  return Xml(StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error><Code>",
                    code, "</Code><Message>", message,
                    "</Message></Error></Errors><RequestID>fake-request</RequestID></Response>"),
             status);
}

std::string XmlElement(std::string_view name, std::string_view inner) {
  return StrCat("<", name, ">", inner, "</", name, ">");
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string Ec2Xml(std::string_view action, std::string_view inner) {
  return StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<", action,
                "Response xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">"
                "<requestId>fake-request</requestId>",
                inner, "</", action, "Response>");
}

absl::StatusOr<std::unique_ptr<FakeAwsServer>> FakeAwsServer::Start(Options options) {
  std::unique_ptr<FakeAwsServer> s(new FakeAwsServer(std::move(options)));
  s->listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s->listen_fd_ < 0) return absl::InternalError(StrCat("socket: ", std::strerror(errno)));
  const int one = 1;
  ::setsockopt(s->listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return absl::InternalError(StrCat("bind 127.0.0.1:0: ", std::strerror(errno)));
  }
  if (::listen(s->listen_fd_, 64) != 0) {
    return absl::InternalError(StrCat("listen: ", std::strerror(errno)));
  }
  socklen_t len = sizeof(addr);
  if (::getsockname(s->listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return absl::InternalError(StrCat("getsockname: ", std::strerror(errno)));
  }
  s->port_ = ntohs(addr.sin_port);
  s->thread_ = std::thread([p = s.get()] { p->Loop(); });
  return s;
}

FakeAwsServer::~FakeAwsServer() { Stop(); }

void FakeAwsServer::Stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    listen_fd_ = -1;
  }
}

std::string FakeAwsServer::endpoint() const { return StrCat("http://127.0.0.1:", port_); }

void FakeAwsServer::On(const std::string& action, FakeHandler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  handlers_[action] = std::move(handler);
}

void FakeAwsServer::ThrottleNext(const std::string& action, int n, std::string code, int status) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < n; ++i) {
    faults_[action].push_back(FakeResponse::Ec2Error(code, "Request limit exceeded.", status));
  }
}

void FakeAwsServer::FailNext(const std::string& action, int n, int status, std::string code) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < n; ++i) {
    faults_[action].push_back(
        FakeResponse::Ec2Error(code, "An internal error has occurred", status));
  }
}

void FakeAwsServer::MalformedNext(const std::string& action, int n) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < n; ++i) {
    faults_[action].push_back(
        FakeResponse::Xml(StrCat("<", action, "Response><requestId>x</requestId><oops>")));
  }
}

void FakeAwsServer::RespondNext(const std::string& action, int n, FakeResponse response) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int i = 0; i < n; ++i) faults_[action].push_back(response);
}

std::vector<FakeRequest> FakeAwsServer::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

int FakeAwsServer::Count(const std::string& action) const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const FakeRequest& r : requests_) n += r.action == action ? 1 : 0;
  return n;
}

int FakeAwsServer::BadSignatures() const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const FakeRequest& r : requests_) n += r.signature_ok ? 0 : 1;
  return n;
}

void FakeAwsServer::ClearRequests() {
  std::lock_guard<std::mutex> lock(mu_);
  requests_.clear();
}

void FakeAwsServer::Loop() {
  while (!stop_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, 50);
    if (ready <= 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    Serve(fd);
    ::close(fd);
  }
}

void FakeAwsServer::Serve(int fd) {
  std::string data;
  char buf[8192];
  size_t header_end = std::string::npos;
  while (header_end == std::string::npos) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return;
    data.append(buf, static_cast<size_t>(n));
    header_end = data.find("\r\n\r\n");
    if (data.size() > (1 << 20)) return;
  }
  FakeRequest req;
  std::vector<std::pair<std::string, std::string>> raw;
  {
    const std::string head = data.substr(0, header_end);
    size_t line_end = head.find("\r\n");
    const std::string request_line = head.substr(0, line_end);
    const size_t sp1 = request_line.find(' ');
    const size_t sp2 = request_line.rfind(' ');
    if (sp1 == std::string::npos || sp2 == sp1) return;
    req.method = request_line.substr(0, sp1);
    req.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
    size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t e = head.find("\r\n", pos);
      if (e == std::string::npos) e = head.size();
      const std::string line = head.substr(pos, e - pos);
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        std::string value = Trim(std::string_view(line).substr(colon + 1));
        raw.emplace_back(name, value);
        std::string& slot = req.headers[Lower(name)];
        slot = slot.empty() ? value : StrCat(slot, ",", value);
      }
      pos = e + 2;
    }
  }
  size_t content_length = 0;
  if (!req.Header("content-length").empty()) {
    content_length =
        static_cast<size_t>(std::strtoull(req.Header("content-length").c_str(), nullptr, 10));
  }
  if (content_length > (16u << 20)) return;
  req.body = data.substr(header_end + 4);
  while (req.body.size() < content_length) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return;
    req.body.append(buf, static_cast<size_t>(n));
  }
  req.body.resize(content_length);

  const std::string target_header = req.Header("x-amz-target");
  const bool json = !target_header.empty();
  if (json) {
    const size_t dot = target_header.rfind('.');
    req.action = dot == std::string::npos ? target_header : target_header.substr(dot + 1);
  } else {
    req.params = FormDecode(req.body);
    req.action = req.Param("Action");
  }

  FakeResponse resp;
  std::optional<FakeResponse> denied;
  if (options_.verify_signatures) {
    denied = Verify(options_, raw, json, &req);
  } else {
    req.signature_ok = true;
  }
  if (denied.has_value()) {
    resp = *denied;
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(req);
  } else {
    resp = Dispatch(&req);
  }
  const std::string out = StrCat(
      "HTTP/1.1 ", resp.status, " ", Reason(resp.status), "\r\nContent-Type: ", resp.content_type,
      "\r\nContent-Length: ", resp.body.size(), "\r\nConnection: close\r\n\r\n", resp.body);
  SendAll(fd, out);
}

FakeResponse FakeAwsServer::Dispatch(FakeRequest* request) {
  FakeHandler handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(*request);
    auto f = faults_.find(request->action);
    if (f != faults_.end() && !f->second.empty()) {
      FakeResponse r = f->second.front();
      f->second.pop_front();
      return r;
    }
    auto h = handlers_.find(request->action);
    if (h != handlers_.end()) handler = h->second;
  }
  if (!handler) {
    return FakeResponse::Ec2Error("InvalidAction",
                                  StrCat("The action ", request->action, " is not valid"));
  }
  return handler(*request);
}

}  // namespace karp::aws::testing
