#include "aws/ec2_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "aws/sigv4.h"
#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {
namespace {

using internal::StrCat;

constexpr char kAwsErrorCodePayload[] = "type.karp.dev/aws-error-code";

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

struct Endpoint {
  std::string url;        // what curl is given (path ends with '/' when it was empty)
  std::string authority;  // host[:port], the Host header
  std::string path;       // "/..." decoded form used for signing
};

absl::StatusOr<Endpoint> ParseEndpoint(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) {
    return absl::InvalidArgumentError(StrCat("endpoint \"", url, "\" has no scheme"));
  }
  std::string_view rest = url.substr(scheme + 3);
  const size_t slash = rest.find('/');
  Endpoint e;
  e.authority = std::string(rest.substr(0, slash));
  if (e.authority.empty()) {
    return absl::InvalidArgumentError(StrCat("endpoint \"", url, "\" has no host"));
  }
  e.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  e.url = StrCat(url.substr(0, scheme + 3), e.authority, e.path);
  return e;
}

size_t WriteBody(char* data, size_t size, size_t nmemb, void* user) {
  static_cast<std::string*>(user)->append(data, size * nmemb);
  return size * nmemb;
}

void GlobalInitCurl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// The code and message of an EC2 (or other Query-protocol) XML error body.
bool ParseXmlError(const std::string& body, std::string* code, std::string* message) {
  pugi::xml_document doc;
  if (!doc.load_buffer(body.data(), body.size())) return false;
  pugi::xml_node root = doc.document_element();
  pugi::xml_node error = root.child("Errors").child("Error");
  if (!error) error = root.child("Error");
  if (!error && std::string_view(root.name()) == "Error") error = root;
  if (!error) return false;
  *code = error.child("Code").text().get();
  *message = error.child("Message").text().get();
  return !code->empty();
}

// `{"__type": "prefix#Code", "message": "..."}` of the JSON protocols.
bool ParseJsonError(const std::string& body, std::string* code, std::string* message) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  auto type = j.find("__type");
  if (type == j.end() || !type->is_string()) return false;
  std::string t = type->get<std::string>();
  const size_t hash = t.rfind('#');
  *code = hash == std::string::npos ? t : t.substr(hash + 1);
  for (const char* key : {"message", "Message"}) {
    auto m = j.find(key);
    if (m != j.end() && m->is_string()) *message = m->get<std::string>();
  }
  return !code->empty();
}

std::string Clip(std::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  return StrCat(s.substr(0, n), "...");
}

bool ValidAction(std::string_view action) {
  if (action.empty()) return false;
  for (char c : action) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

// ---- Error classification --------------------------------------------------------------------

bool IsInsufficientCapacityCode(std::string_view code) {
  static const std::set<std::string_view> kCodes = {
      "InsufficientInstanceCapacity",
      "MaxSpotInstanceCountExceeded",
      "VcpuLimitExceeded",
      "UnfulfillableCapacity",
      "Unsupported",
      "InsufficientFreeAddressesInSubnet",
      "MaxFleetCountExceeded",
      "ReservationCapacityExceeded",
      "InsufficientHostCapacity",
      "InsufficientReservedInstanceCapacity",
      "InsufficientCapacity",
      "SpotMaxPriceTooLow",
  };
  return kCodes.count(code) > 0;
}

bool IsNotFoundCode(std::string_view code) {
  static const std::set<std::string_view> kCodes = {
      "InvalidInstanceID.NotFound",
      "InvalidLaunchTemplateName.NotFoundException",
      "InvalidLaunchTemplateId.NotFound",
      "InvalidCapacityReservationId.NotFound",
      "QueueDoesNotExist",
      "NoSuchEntity",
      "ParameterNotFound",
  };
  return kCodes.count(code) > 0 || EndsWith(code, ".NotFound") || EndsWith(code, "NotFound") ||
         EndsWith(code, "NotFoundException");
}

bool IsThrottlingCode(std::string_view code) {
  static const std::set<std::string_view> kCodes = {
      "RequestLimitExceeded",
      "Throttling",
      "ThrottlingException",
      "RequestThrottled",
      "RequestThrottledException",
      "TooManyRequestsException",
      "EC2ThrottledException",
      "PriorRequestNotComplete",
      "SlowDown",
      "BandwidthLimitExceeded",
      "ProvisionedThroughputExceededException",
  };
  return kCodes.count(code) > 0;
}

bool IsRetryableHttpStatus(int http_status) {
  return http_status == 429 || (http_status >= 500 && http_status <= 599);
}

absl::StatusCode StatusCodeForAwsError(std::string_view code, int http_status) {
  if (IsThrottlingCode(code) || (code.empty() && IsRetryableHttpStatus(http_status))) {
    return absl::StatusCode::kUnavailable;
  }
  if (IsInsufficientCapacityCode(code)) return absl::StatusCode::kResourceExhausted;
  if (IsNotFoundCode(code)) return absl::StatusCode::kNotFound;
  if (code == "DryRunOperation") return absl::StatusCode::kFailedPrecondition;
  if (StartsWith(code, "AuthFailure") || code == "UnauthorizedOperation" ||
      code == "SignatureDoesNotMatch" || code == "InvalidClientTokenId" ||
      code == "OptInRequired" || code == "AccessDenied" || code == "AccessDeniedException" ||
      code == "UnrecognizedClientException" || code == "Blocked") {
    return absl::StatusCode::kPermissionDenied;
  }
  if (http_status >= 500) return absl::StatusCode::kUnavailable;
  if (code.empty() && (http_status == 401 || http_status == 403)) {
    return absl::StatusCode::kPermissionDenied;
  }
  if (http_status >= 400) return absl::StatusCode::kInvalidArgument;
  return absl::StatusCode::kInternal;
}

std::string AwsErrorCode(const absl::Status& status) {
  auto payload = status.GetPayload(kAwsErrorCodePayload);
  if (!payload.has_value()) return "";
  return std::string(*payload);
}

absl::Status WithAwsErrorCode(absl::Status status, std::string_view code) {
  if (!status.ok() && !code.empty()) {
    status.SetPayload(kAwsErrorCodePayload, absl::Cord(internal::AV(code)));
  }
  return status;
}

// ---- Parameters ------------------------------------------------------------------------------

void AddList(QueryParams* params, std::string_view prefix, const std::vector<std::string>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    params->emplace_back(StrCat(prefix, ".", i + 1), values[i]);
  }
}

void AddFilter(QueryParams* params, int index, std::string_view name,
               const std::vector<std::string>& values) {
  params->emplace_back(StrCat("Filter.", index, ".Name"), std::string(name));
  AddList(params, StrCat("Filter.", index, ".Value"), values);
}

std::string FormEncode(const QueryParams& params) {
  std::string out;
  for (size_t i = 0; i < params.size(); ++i) {
    if (i > 0) out.push_back('&');
    out += UriEncode(params[i].first);
    out.push_back('=');
    out += UriEncode(params[i].second);
  }
  return out;
}

QueryParams FormDecode(std::string_view body) {
  QueryParams out;
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find('&', start);
    if (end == std::string_view::npos) end = body.size();
    std::string kv(body.substr(start, end - start));
    std::replace(kv.begin(), kv.end(), '+', ' ');
    if (!kv.empty()) {
      const size_t eq = kv.find('=');
      out.emplace_back(PercentDecode(std::string_view(kv).substr(0, eq)),
                       eq == std::string::npos
                           ? std::string()
                           : PercentDecode(std::string_view(kv).substr(eq + 1)));
    }
    start = end + 1;
  }
  return out;
}

// ---- XML -------------------------------------------------------------------------------------

absl::StatusOr<XmlResponse> XmlResponse::Parse(std::string_view action, std::string body,
                                               std::string_view service) {
  XmlResponse r;
  r.action_ = std::string(action);
  r.body_ = std::make_shared<const std::string>(std::move(body));
  r.doc_ = std::make_shared<pugi::xml_document>();
  pugi::xml_parse_result parsed = r.doc_->load_buffer(r.body_->data(), r.body_->size());
  if (!parsed) {
    return absl::InternalError(StrCat(service, " ", action, ": malformed XML response (",
                                      parsed.description(), " at offset ", parsed.offset, ")"));
  }
  r.root_ = r.doc_->document_element();
  const std::string want = StrCat(action, "Response");
  if (want != r.root_.name()) {
    return absl::InternalError(StrCat(service, " ", action, ": unexpected root element <",
                                      r.root_.name(), ">, want <", want, ">"));
  }
  r.request_id_ = r.root_.child("requestId").text().get();
  return r;
}

pugi::xml_node XmlChild(pugi::xml_node node, std::string_view path) {
  size_t start = 0;
  while (node && start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) node = node.child(std::string(path.substr(start, end - start)).c_str());
    start = end + 1;
  }
  return node;
}

std::string XmlText(pugi::xml_node node, std::string_view path) {
  pugi::xml_node n = XmlChild(node, path);
  return n ? std::string(n.text().get()) : std::string();
}

std::vector<pugi::xml_node> XmlItems(pugi::xml_node node, std::string_view set_path) {
  std::vector<pugi::xml_node> out;
  pugi::xml_node set = XmlChild(node, set_path);
  if (!set) return out;
  for (pugi::xml_node item : set.children("item")) out.push_back(item);
  return out;
}

absl::StatusOr<std::string> XmlRequiredText(pugi::xml_node node, std::string_view path,
                                            std::string_view where) {
  pugi::xml_node n = XmlChild(node, path);
  if (!n || std::string_view(n.text().get()).empty()) {
    return absl::InternalError(StrCat(where, "/", path, ": missing"));
  }
  return std::string(n.text().get());
}

absl::StatusOr<std::optional<int64_t>> XmlOptionalInt(pugi::xml_node node, std::string_view path,
                                                      std::string_view where) {
  pugi::xml_node n = XmlChild(node, path);
  if (!n) return std::optional<int64_t>();
  const std::string text = n.text().get();
  int64_t v = 0;
  if (!absl::SimpleAtoi(text, &v)) {
    return absl::InternalError(
        StrCat(where, "/", path, ": not an integer: \"", Clip(text, 40), "\""));
  }
  return std::optional<int64_t>(v);
}

absl::StatusOr<int64_t> XmlRequiredInt(pugi::xml_node node, std::string_view path,
                                       std::string_view where) {
  KARP_ASSIGN_OR_RETURN(std::optional<int64_t> v, XmlOptionalInt(node, path, where));
  if (!v.has_value()) return absl::InternalError(StrCat(where, "/", path, ": missing"));
  return *v;
}

absl::StatusOr<std::optional<double>> XmlOptionalDouble(pugi::xml_node node, std::string_view path,
                                                        std::string_view where) {
  pugi::xml_node n = XmlChild(node, path);
  if (!n) return std::optional<double>();
  const std::string text = n.text().get();
  double v = 0;
  if (!absl::SimpleAtod(text, &v) || !std::isfinite(v)) {
    return absl::InternalError(
        StrCat(where, "/", path, ": not a number: \"", Clip(text, 40), "\""));
  }
  return std::optional<double>(v);
}

absl::StatusOr<std::optional<bool>> XmlOptionalBool(pugi::xml_node node, std::string_view path,
                                                    std::string_view where) {
  pugi::xml_node n = XmlChild(node, path);
  if (!n) return std::optional<bool>();
  const std::string_view text = n.text().get();
  if (text == "true") return std::optional<bool>(true);
  if (text == "false") return std::optional<bool>(false);
  return absl::InternalError(StrCat(where, "/", path, ": not a boolean: \"", Clip(text, 40), "\""));
}

// ---- Client ----------------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<Ec2Client>> Ec2Client::Create(AwsClientOptions options) {
  KARP_RETURN_IF_ERROR(options.Validate());
  KARP_RETURN_IF_ERROR(ParseEndpoint(options.ResolvedEc2Endpoint()).status());
  KARP_RETURN_IF_ERROR(ParseEndpoint(options.ResolvedPricingEndpoint()).status());
  GlobalInitCurl();
  return std::unique_ptr<Ec2Client>(new Ec2Client(std::move(options)));
}

Ec2Client::Ec2Client(AwsClientOptions options)
    : options_(std::move(options)), rng_(options_.retry.seed) {
  ec2_endpoint_ = options_.ResolvedEc2Endpoint();
}

Ec2Client::~Ec2Client() = default;

absl::Duration Ec2Client::NextDelay(int attempt) const {
  absl::Duration d = options_.retry.base_delay;
  for (int i = 1; i < attempt && d < options_.retry.max_delay; ++i) d *= 2;
  d = std::min(d, options_.retry.max_delay);
  double u = 0;
  {
    absl::MutexLock lock(&rng_mu_);
    u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  }
  return d / 2 + (d / 2) * u;
}

Ec2Client::HttpResult Ec2Client::SendOnce(
    const std::string& endpoint, const std::string& region, const std::string& service,
    const std::vector<std::pair<std::string, std::string>>& extra_headers,
    const std::string& body) const {
  attempts_.fetch_add(1);
  HttpResult result;
  absl::StatusOr<Endpoint> ep = ParseEndpoint(endpoint);
  if (!ep.ok()) {
    result.transport_error = std::string(ep.status().message());
    return result;
  }
  HttpRequest req;
  req.method = "POST";
  req.path = PercentDecode(ep->path);
  req.headers.emplace_back("Host", ep->authority);
  for (const auto& h : extra_headers) req.headers.push_back(h);
  req.body = body;
  const absl::Time now = options_.clock ? options_.clock() : absl::Now();
  absl::Status signed_ok = SignRequest(options_.credentials, {region, service}, now, &req);
  if (!signed_ok.ok()) {
    result.transport_error = std::string(signed_ok.message());
    return result;
  }

  CURL* curl = curl_easy_init();
  if (curl == nullptr) {
    result.transport_error = "curl_easy_init failed";
    return result;
  }
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : req.headers) {
    headers = curl_slist_append(headers, StrCat(name, ": ", value).c_str());
  }
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, ep->url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req.body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(options_.connect_timeout)));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(options_.request_timeout)));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  // A proxy from the environment must never see loopback test traffic.
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "localhost,127.0.0.1,::1");
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  const CURLcode rc = curl_easy_perform(curl);
  if (rc != CURLE_OK) {
    result.status = 0;
    result.transport_error = StrCat(curl_easy_strerror(rc), error[0] != 0 ? ": " : "", error);
  } else {
    long code = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    result.status = static_cast<int>(code);
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return result;
}

absl::StatusOr<Ec2Client::HttpResult> Ec2Client::SendWithRetries(
    const std::string& label, const std::string& endpoint, const std::string& region,
    const std::string& service,
    const std::vector<std::pair<std::string, std::string>>& extra_headers, const std::string& body,
    bool json_protocol) const {
  const int max_attempts = options_.retry.max_attempts;
  for (int attempt = 1;; ++attempt) {
    HttpResult r = SendOnce(endpoint, region, service, extra_headers, body);
    if (r.status >= 200 && r.status <= 299) return r;
    std::string code, message, what;
    if (r.status == 0) {
      what = StrCat("request failed: ", r.transport_error);
    } else {
      const bool parsed = json_protocol ? ParseJsonError(r.body, &code, &message)
                                        : ParseXmlError(r.body, &code, &message);
      if (parsed) {
        what = StrCat(code, ": ", Clip(message, 500), " (HTTP ", r.status, ")");
      } else {
        what = StrCat("HTTP ", r.status, " with an unparseable error body \"", Clip(r.body, 120),
                      "\"");
      }
    }
    const bool retryable =
        r.status == 0 || IsRetryableHttpStatus(r.status) || IsThrottlingCode(code);
    if (!retryable) {
      absl::StatusCode sc = StatusCodeForAwsError(code, r.status);
      if (code.empty() && r.status >= 400 && r.status < 500 && r.status != 401 && r.status != 403) {
        sc = absl::StatusCode::kInternal;  // an error we cannot read is a malformed response
      }
      return WithAwsErrorCode(absl::Status(sc, StrCat(label, ": ", what)), code);
    }
    if (attempt >= max_attempts) {
      return WithAwsErrorCode(
          absl::UnavailableError(StrCat(label, ": ", what, "; gave up after ", attempt,
                                        attempt == 1 ? " attempt" : " attempts")),
          code);
    }
    const absl::Duration delay = NextDelay(attempt);
    if (options_.sleep) {
      options_.sleep(delay);
    } else {
      absl::SleepFor(delay);
    }
  }
}

absl::StatusOr<XmlResponse> Ec2Client::Call(std::string_view action,
                                            const QueryParams& params) const {
  return CallQuery({"EC2", std::string(kEc2ApiVersion), "ec2", ec2_endpoint_, options_.region},
                   action, params);
}

absl::StatusOr<XmlResponse> Ec2Client::CallQuery(const QueryService& service,
                                                 std::string_view action,
                                                 const QueryParams& params) const {
  if (!ValidAction(action)) {
    return absl::InvalidArgumentError(StrCat(service.label, " call: action \"", Clip(action, 60),
                                             "\" must be non-empty ASCII letters"));
  }
  QueryParams all;
  all.reserve(params.size() + 2);
  all.emplace_back("Action", std::string(action));
  all.emplace_back("Version", service.version);
  all.insert(all.end(), params.begin(), params.end());
  const std::string label = StrCat(service.label, " ", action);
  KARP_ASSIGN_OR_RETURN(
      HttpResult r,
      SendWithRetries(label, service.endpoint, service.region, service.signing_service,
                      {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}},
                      FormEncode(all), /*json_protocol=*/false));
  return XmlResponse::Parse(action, std::move(r.body), service.label);
}

absl::Status Ec2Client::CallPaginated(
    std::string_view action, const QueryParams& params,
    const std::function<absl::Status(const XmlResponse& page)>& on_page, int max_pages) const {
  std::set<std::string> seen;
  std::string token;
  for (int page = 1;; ++page) {
    if (page > max_pages) {
      return absl::InternalError(
          StrCat("EC2 ", action, ": more than ", max_pages, " pages; giving up"));
    }
    QueryParams p = params;
    if (!token.empty()) p.emplace_back("NextToken", token);
    KARP_ASSIGN_OR_RETURN(XmlResponse r, Call(action, p));
    KARP_RETURN_IF_ERROR(on_page(r));
    token = XmlText(r.root(), "nextToken");
    if (token.empty()) return absl::OkStatus();
    if (!seen.insert(token).second) {
      return absl::InternalError(
          StrCat("EC2 ", action, ": nextToken \"", Clip(token, 60), "\" repeated on page ", page));
    }
  }
}

absl::StatusOr<std::string> Ec2Client::CallJson(const JsonCall& call, std::string_view body) const {
  if (!ValidAction(call.operation) || call.target_prefix.empty()) {
    return absl::InvalidArgumentError("JSON call: operation and target prefix must be set");
  }
  const std::string endpoint =
      call.endpoint.empty() ? options_.ResolvedPricingEndpoint() : call.endpoint;
  const std::string region = call.region.empty() ? options_.ResolvedPricingRegion() : call.region;
  const std::string label = StrCat(call.label, " ", call.operation);
  KARP_ASSIGN_OR_RETURN(
      HttpResult r,
      SendWithRetries(label, endpoint, region, call.signing_service,
                      {{"Content-Type", call.content_type},
                       {"X-Amz-Target", StrCat(call.target_prefix, ".", call.operation)}},
                      std::string(body), /*json_protocol=*/true));
  return std::move(r.body);
}

}  // namespace karp::aws
