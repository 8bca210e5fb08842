#include "aws/support/fake_sqs.h"

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "internal/strings.h"

namespace karp::aws::testing {
namespace {

using internal::StrCat;
using nlohmann::json;

FakeResponse SqsJson(const json& body, int status = 200) {
  FakeResponse r = FakeResponse::Json(body.dump(), status);
  r.content_type = "application/x-amz-json-1.0";
  return r;
}

FakeResponse SqsError(const std::string& code, const std::string& message) {
  return SqsJson({{"__type", StrCat("com.amazonaws.sqs#", code)}, {"message", message}}, 400);
}

enum class Kind { kString, kStringArray, kInt };

struct Member {
  Kind kind;
  bool required;
  int64_t min = 0, max = 0;  // kInt
};

const std::map<std::string, std::map<std::string, Member>>& Shapes() {
  static const auto* shapes = new std::map<std::string, std::map<std::string, Member>>{
      {"GetQueueUrl",
       {{"QueueName", {Kind::kString, true}}, {"QueueOwnerAWSAccountId", {Kind::kString, false}}}},
      {"ReceiveMessage",
       {{"QueueUrl", {Kind::kString, true}},
        {"MaxNumberOfMessages", {Kind::kInt, false, 1, 10}},
        {"WaitTimeSeconds", {Kind::kInt, false, 0, 20}},
        {"VisibilityTimeout", {Kind::kInt, false, 0, 43200}},
        {"AttributeNames", {Kind::kStringArray, false}},
        {"MessageSystemAttributeNames", {Kind::kStringArray, false}},
        {"MessageAttributeNames", {Kind::kStringArray, false}},
        {"ReceiveRequestAttemptId", {Kind::kString, false}}}},
      {"DeleteMessage",
       {{"QueueUrl", {Kind::kString, true}}, {"ReceiptHandle", {Kind::kString, true}}}},
  };
  return *shapes;
}

std::optional<std::string> CheckMember(const std::string& name, const Member& m, const json& v) {
  switch (m.kind) {
    case Kind::kString:
      if (!v.is_string() || v.get<std::string>().empty()) return StrCat(name, ": not a string");
      return std::nullopt;
    case Kind::kStringArray:
      if (!v.is_array()) return StrCat(name, ": not an array");
      for (const json& e : v) {
        if (!e.is_string()) return StrCat(name, ": an element is not a string");
      }
      return std::nullopt;
    case Kind::kInt:
      if (!v.is_number_integer() || v.get<int64_t>() < m.min || v.get<int64_t>() > m.max) {
        return StrCat(name, ": not an integer in [", m.min, ", ", m.max, "]");
      }
      return std::nullopt;
  }
  return std::nullopt;
}

// The parsed body, or the error answering a malformed request.
std::pair<json, std::optional<FakeResponse>> CheckShape(const FakeRequest& r) {
  if (r.Header("content-type") != "application/x-amz-json-1.0") {
    return {json(),
            SqsError("InvalidParameterValue", StrCat("Content-Type \"", r.Header("content-type"),
                                                     "\" is not application/x-amz-json-1.0"))};
  }
  json body = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) {
    return {json(), SqsError("InvalidParameterValue", "the body is not a JSON object")};
  }
  const auto& shape = Shapes().at(r.action);
  for (const auto& [k, v] : body.items()) {
    auto m = shape.find(k);
    if (m == shape.end()) {
      return {json(), SqsError("InvalidParameterValue", StrCat(r.action, ": unknown member ", k))};
    }
    if (auto bad = CheckMember(k, m->second, v)) {
      return {json(), SqsError("InvalidParameterValue", *bad)};
    }
  }
  for (const auto& [k, m] : shape) {
    if (m.required && !body.contains(k)) {
      return {json(), SqsError("MissingParameter", StrCat(r.action, ": ", k, " is required"))};
    }
  }
  return {std::move(body), std::nullopt};
}

}  // namespace

FakeSqs::FakeSqs(FakeAwsServer* server, std::string name)
    : name_(std::move(name)), url_(StrCat(server->endpoint(), "/123456789012/", name_)) {
  using Method = FakeResponse (FakeSqs::*)(const FakeRequest&);
  const std::vector<std::pair<std::string, Method>> handlers = {
      {"GetQueueUrl", &FakeSqs::GetQueueUrl},
      {"ReceiveMessage", &FakeSqs::Receive},
      {"DeleteMessage", &FakeSqs::Delete},
  };
  for (const auto& [action, method] : handlers) {
    server->On(action, [this, m = method](const FakeRequest& r) { return (this->*m)(r); });
  }
}

void FakeSqs::Send(const std::string& body) {
  std::lock_guard<std::mutex> lock(mu_);
  visible_.emplace_back(StrCat("msg-", next_++), body);
}

int FakeSqs::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(visible_.size() + in_flight_.size());
}

int FakeSqs::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(in_flight_.size());
}

void FakeSqs::ReturnInFlight() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [handle, message] : in_flight_) visible_.push_back(message);
  in_flight_.clear();
}

FakeResponse FakeSqs::GetQueueUrl(const FakeRequest& r) {
  auto [body, bad] = CheckShape(r);
  if (bad) return *bad;
  if (body["QueueName"] != name_) {
    return SqsError("QueueDoesNotExist", "The specified queue does not exist.");
  }
  return SqsJson({{"QueueUrl", url_}});
}

std::pair<json, std::optional<FakeResponse>> FakeSqs::CheckQueueRequest(
    const FakeRequest& r) const {
  auto checked = CheckShape(r);
  if (!checked.second && checked.first["QueueUrl"] != url_) {
    checked.second = SqsError("QueueDoesNotExist", "The specified queue does not exist.");
  }
  return checked;
}

FakeResponse FakeSqs::Receive(const FakeRequest& r) {
  auto [body, bad] = CheckQueueRequest(r);
  if (bad) return *bad;
  const int64_t max = body.value("MaxNumberOfMessages", int64_t{1});
  std::lock_guard<std::mutex> lock(mu_);
  json messages = json::array();
  while (!visible_.empty() && static_cast<int64_t>(messages.size()) < max) {
    auto message = visible_.front();
    visible_.pop_front();
    const std::string handle = StrCat("handle-", message.first, "-", next_++);
    messages.push_back({{"MessageId", message.first},
                        {"ReceiptHandle", handle},
                        {"MD5OfBody", "fake"},
                        {"Body", message.second},
                        {"Attributes", {{"SentTimestamp", "1800000000000"}}}});
    in_flight_[handle] = std::move(message);
  }
  if (messages.empty()) return SqsJson(json::object());
  return SqsJson({{"Messages", messages}});
}

FakeResponse FakeSqs::Delete(const FakeRequest& r) {
  auto [body, bad] = CheckQueueRequest(r);
  if (bad) return *bad;
  std::lock_guard<std::mutex> lock(mu_);
  if (in_flight_.erase(body["ReceiptHandle"].get<std::string>()) == 0) {
    return SqsError("ReceiptHandleIsInvalid", "The input receipt handle is invalid.");
  }
  return SqsJson(json::object());
}

}  // namespace karp::aws::testing
