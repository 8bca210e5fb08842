// The EC2 Query client against the local signature-checking server: signing, retries with
// deterministic backoff, error mapping, pagination, malformed responses, timeouts.

#include "aws/ec2_client.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "aws/support/fake_aws_server.h"

namespace karp::aws {
namespace {

using testing::Ec2Xml;
using testing::FakeAwsServer;
using testing::FakeRequest;
using testing::FakeResponse;

struct Fixture {
  std::unique_ptr<FakeAwsServer> server;
  std::vector<absl::Duration> sleeps;

  Fixture() {
    auto s = FakeAwsServer::Start();
    REQUIRE(s.ok());
    server = std::move(*s);
  }

  AwsClientOptions Options() {
    AwsClientOptions o;
    o.ec2_endpoint = server->endpoint();
    o.pricing_endpoint = server->endpoint();
    o.credentials = testing::TestCredentials();
    o.connect_timeout = absl::Seconds(2);
    o.request_timeout = absl::Seconds(5);
    o.retry.seed = 7;
    o.sleep = [this](absl::Duration d) { sleeps.push_back(d); };
    return o;
  }

  std::unique_ptr<Ec2Client> Client() { return Client(Options()); }
  std::unique_ptr<Ec2Client> Client(AwsClientOptions o) {
    auto c = Ec2Client::Create(std::move(o));
    REQUIRE(c.ok());
    return std::move(*c);
  }
};

FakeResponse Hello(const FakeRequest&) {
  return FakeResponse::Xml(Ec2Xml("DescribeRegions",
                                  "<regionInfo><item><regionName>us-east-1"
                                  "</regionName></item></regionInfo>"));
}

TEST_CASE("EC2 client signs a form POST the server verifies", "[aws][client]") {
  Fixture f;
  f.server->On("DescribeRegions", Hello);
  auto client = f.Client();
  QueryParams params = {{"RegionName.1", "us-east-1"}, {"Odd Key", "a b&c=d/é"}};
  absl::StatusOr<XmlResponse> r = client->Call("DescribeRegions", params);
  REQUIRE(r.ok());
  CHECK(XmlText(r->root(), "regionInfo/item/regionName") == "us-east-1");
  CHECK(r->request_id() == "fake-request");
  std::vector<FakeRequest> reqs = f.server->Requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].signature_ok);
  CHECK(reqs[0].signing_service == "ec2");
  CHECK(reqs[0].method == "POST");
  CHECK(reqs[0].Header("content-type") == "application/x-www-form-urlencoded; charset=utf-8");
  CHECK(reqs[0].Param("Version") == "2016-11-15");
  CHECK(reqs[0].Param("Odd Key") == "a b&c=d/é");
  CHECK(reqs[0].params.front().first == "Action");
}

TEST_CASE("EC2 client with a wrong secret is refused with PermissionDenied", "[aws][client]") {
  Fixture f;
  f.server->On("DescribeRegions", Hello);
  AwsClientOptions o = f.Options();
  o.credentials = Credentials(std::string(testing::kTestAccessKeyId), "not-the-secret-XYZ");
  auto client = f.Client(o);
  absl::StatusOr<XmlResponse> r = client->Call("DescribeRegions", {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kPermissionDenied);
  CHECK(AwsErrorCode(r.status()) == "SignatureDoesNotMatch");
  CHECK(f.server->BadSignatures() == 1);
  CHECK(std::string(r.status().message()).find("not-the-secret-XYZ") == std::string::npos);
}

TEST_CASE("EC2 client retries throttling then succeeds with deterministic backoff",
          "[aws][client]") {
  Fixture f;
  f.server->On("DescribeRegions", Hello);
  f.server->ThrottleNext("DescribeRegions", 2, "RequestLimitExceeded", 503);
  auto client = f.Client();
  absl::StatusOr<XmlResponse> r = client->Call("DescribeRegions", {});
  REQUIRE(r.ok());
  CHECK(f.server->Count("DescribeRegions") == 3);
  CHECK(client->attempts() == 3);
  REQUIRE(f.sleeps.size() == 2);
  // Attempt k waits within [d/2, d], d = 200ms * 2^(k-1).
  CHECK(f.sleeps[0] >= absl::Milliseconds(100));
  CHECK(f.sleeps[0] <= absl::Milliseconds(200));
  CHECK(f.sleeps[1] >= absl::Milliseconds(200));
  CHECK(f.sleeps[1] <= absl::Milliseconds(400));

  // Same seed, same delays.
  Fixture g;
  g.server->On("DescribeRegions", Hello);
  g.server->ThrottleNext("DescribeRegions", 2, "Throttling", 400);
  auto again = g.Client();
  REQUIRE(again->Call("DescribeRegions", {}).ok());
  CHECK(g.sleeps == f.sleeps);
}

TEST_CASE("EC2 client gives up after max attempts of HTTP 500", "[aws][client]") {
  Fixture f;
  f.server->On("DescribeRegions", Hello);
  f.server->FailNext("DescribeRegions", 10, 500, "InternalError");
  AwsClientOptions o = f.Options();
  o.retry.max_attempts = 4;
  o.retry.base_delay = absl::Seconds(1);
  o.retry.max_delay = absl::Seconds(3);
  auto client = f.Client(o);
  absl::StatusOr<XmlResponse> r = client->Call("DescribeRegions", {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  const std::string msg(r.status().message());
  CHECK(msg.find("EC2 DescribeRegions") == 0);
  CHECK(msg.find("InternalError") != std::string::npos);
  CHECK(msg.find("4 attempts") != std::string::npos);
  CHECK(f.server->Count("DescribeRegions") == 4);
  REQUIRE(f.sleeps.size() == 3);
  CHECK(f.sleeps[2] <= absl::Seconds(3));  // capped
  CHECK(f.sleeps[2] >= absl::Milliseconds(1500));
}

TEST_CASE("EC2 client maps error codes", "[aws][client]") {
  Fixture f;
  f.server->RespondNext(
      "DescribeInstances", 1,
      FakeResponse::Ec2Error("InvalidInstanceID.NotFound", "The instance ID 'i-1' does not exist"));
  f.server->RespondNext("DescribeInstances", 1,
                        FakeResponse::Ec2Error("InsufficientInstanceCapacity", "none left"));
  f.server->RespondNext("DescribeInstances", 1,
                        FakeResponse::Ec2Error("UnauthorizedOperation", "no", 403));
  f.server->RespondNext("DescribeInstances", 1,
                        FakeResponse::Ec2Error("InvalidParameterValue", "bad"));
  f.server->RespondNext("DescribeInstances", 1, FakeResponse::Xml("not xml at all", 400));
  auto client = f.Client();
  absl::StatusOr<XmlResponse> r = client->Call("DescribeInstances", {});
  CHECK(r.status().code() == absl::StatusCode::kNotFound);
  CHECK(AwsErrorCode(r.status()) == "InvalidInstanceID.NotFound");
  CHECK(client->Call("DescribeInstances", {}).status().code() ==
        absl::StatusCode::kResourceExhausted);
  CHECK(client->Call("DescribeInstances", {}).status().code() ==
        absl::StatusCode::kPermissionDenied);
  CHECK(client->Call("DescribeInstances", {}).status().code() ==
        absl::StatusCode::kInvalidArgument);
  r = client->Call("DescribeInstances", {});
  CHECK(r.status().code() == absl::StatusCode::kInternal);
  CHECK(std::string(r.status().message()).find("unparseable error body") != std::string::npos);
  CHECK(f.sleeps.empty());  // none of these is retried
  CHECK(f.server->Count("DescribeInstances") == 5);
}

TEST_CASE("EC2 client reports malformed XML naming the action", "[aws][client]") {
  Fixture f;
  f.server->On("DescribeRegions", Hello);
  f.server->MalformedNext("DescribeRegions", 1);
  f.server->RespondNext("DescribeRegions", 1,
                        FakeResponse::Xml(Ec2Xml("DescribeSubnets", "<subnetSet/>")));
  auto client = f.Client();
  absl::StatusOr<XmlResponse> r = client->Call("DescribeRegions", {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kInternal);
  CHECK(std::string(r.status().message()).find("EC2 DescribeRegions: malformed XML") == 0);
  r = client->Call("DescribeRegions", {});
  CHECK(r.status().code() == absl::StatusCode::kInternal);
  CHECK(std::string(r.status().message()).find("DescribeSubnetsResponse") != std::string::npos);
  CHECK(client->Call("DescribeRegions", {}).ok());
}

TEST_CASE("EC2 client follows nextToken and stops a server that never ends", "[aws][client]") {
  Fixture f;
  f.server->On("DescribeSubnets", [](const FakeRequest& r) {
    const std::string token = r.Param("NextToken");
    if (token.empty()) {
      return FakeResponse::Xml(Ec2Xml("DescribeSubnets",
                                      "<subnetSet><item><subnetId>a</subnetId>"
                                      "</item></subnetSet><nextToken>t1"
                                      "</nextToken>"));
    }
    if (token == "t1") {
      return FakeResponse::Xml(Ec2Xml("DescribeSubnets",
                                      "<subnetSet><item><subnetId>b</subnetId>"
                                      "</item></subnetSet><nextToken>t2"
                                      "</nextToken>"));
    }
    return FakeResponse::Xml(Ec2Xml("DescribeSubnets",
                                    "<subnetSet><item><subnetId>c</subnetId>"
                                    "</item></subnetSet><nextToken/>"));
  });
  f.server->On("Loop", [](const FakeRequest&) {
    return FakeResponse::Xml(Ec2Xml("Loop", "<nextToken>same</nextToken>"));
  });
  auto client = f.Client();
  std::vector<std::string> ids;
  REQUIRE(client
              ->CallPaginated("DescribeSubnets", {{"MaxResults", "5"}},
                              [&](const XmlResponse& page) {
                                for (auto item : XmlItems(page.root(), "subnetSet")) {
                                  ids.push_back(XmlText(item, "subnetId"));
                                }
                                return absl::OkStatus();
                              })
              .ok());
  CHECK(ids == std::vector<std::string>{"a", "b", "c"});
  std::vector<FakeRequest> reqs = f.server->Requests();
  REQUIRE(reqs.size() == 3);
  CHECK(reqs[2].Param("NextToken") == "t2");
  CHECK(reqs[2].Param("MaxResults") == "5");
  absl::Status loop =
      client->CallPaginated("Loop", {}, [](const XmlResponse&) { return absl::OkStatus(); });
  CHECK(loop.code() == absl::StatusCode::kInternal);
  CHECK(std::string(loop.message()).find("repeated") != std::string::npos);
}

TEST_CASE("EC2 client turns an unreachable endpoint into Unavailable", "[aws][client]") {
  Fixture f;
  const std::string endpoint = f.server->endpoint();
  f.server->Stop();  // nothing listens on the port any more
  AwsClientOptions o = f.Options();
  o.ec2_endpoint = endpoint;
  o.retry.max_attempts = 2;
  auto client = f.Client(o);
  absl::StatusOr<XmlResponse> r = client->Call("DescribeRegions", {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK(f.sleeps.size() == 1);
  CHECK(std::string(r.status().message()).find(std::string(testing::kTestSecretAccessKey)) ==
        std::string::npos);
}

TEST_CASE("EC2 client JSON protocol call for the Price List API", "[aws][client]") {
  Fixture f;
  f.server->On("GetProducts", [](const FakeRequest& r) {
    return FakeResponse::Json("{\"echo\":" + r.body + "}");
  });
  auto client = f.Client();
  JsonCall call;
  call.operation = "GetProducts";
  absl::StatusOr<std::string> body = client->CallJson(call, "{\"x\":1}");
  REQUIRE(body.ok());
  CHECK(*body == "{\"echo\":{\"x\":1}}");
  std::vector<FakeRequest> reqs = f.server->Requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].signature_ok);
  CHECK(reqs[0].signing_service == "pricing");
  CHECK(reqs[0].Header("x-amz-target") == "AWSPriceListService.GetProducts");
  f.server->RespondNext("GetProducts", 1,
                        FakeResponse::Json(R"({"__type":"com.amazon#NotFoundException",
                                              "message":"no such service"})",
                                           400));
  CHECK(client->CallJson(call, "{}").status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("EC2 client options are validated", "[aws][client]") {
  AwsClientOptions o;
  CHECK(Ec2Client::Create(o).status().code() == absl::StatusCode::kInvalidArgument);
  o.credentials = testing::TestCredentials();
  CHECK(Ec2Client::Create(o).ok());
  o.ec2_endpoint = "ftp://x";
  CHECK(Ec2Client::Create(o).status().code() == absl::StatusCode::kInvalidArgument);
  o.ec2_endpoint = "";
  o.retry.max_attempts = 0;
  CHECK(Ec2Client::Create(o).status().code() == absl::StatusCode::kInvalidArgument);
  AwsClientOptions d;
  d.region = "eu-west-1";
  CHECK(d.ResolvedEc2Endpoint() == "https://ec2.eu-west-1.amazonaws.com");
  CHECK(d.ResolvedPricingRegion() == "eu-central-1");
  d.region = "cn-north-1";
  CHECK(d.ResolvedEc2Endpoint() == "https://ec2.cn-north-1.amazonaws.com.cn");
  CHECK(d.ResolvedPricingEndpoint() == "https://api.pricing.cn-northwest-1.amazonaws.com.cn");
}

TEST_CASE("EC2 form encoding and parameter helpers", "[aws][client]") {
  QueryParams p;
  AddFilter(&p, 1, "tag:Name", {"a b", "c"});
  AddList(&p, "InstanceId", {"i-1"});
  CHECK(FormEncode(p) ==
        "Filter.1.Name=tag%3AName&Filter.1.Value.1=a%20b&Filter.1.Value.2=c&InstanceId.1=i-1");
  CHECK(FormDecode(FormEncode(p)) == p);
  CHECK(IsInsufficientCapacityCode("UnfulfillableCapacity"));
  CHECK_FALSE(IsInsufficientCapacityCode("InvalidParameterValue"));
  CHECK(IsNotFoundCode("InvalidSubnetID.NotFound"));
  CHECK(IsThrottlingCode("RequestLimitExceeded"));
  CHECK(StatusCodeForAwsError("", 503) == absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace karp::aws
