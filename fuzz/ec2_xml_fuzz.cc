// libFuzzer target: the EC2 Query API response handling of karp::aws (src/aws/ec2_client.h,
// src/aws/discovery.h) with the fuzzer input as the HTTP response body. It must never crash,
// hang or throw. Checked:
//   - XmlResponse::Parse("DescribeInstanceTypes", body): errors are Internal naming the action;
//     a parsed response has the wanted root;
//   - every instanceTypeSet item through ParseInstanceTypeItem (errors Internal, naming the
//     item) and, when it parses, MakeAwsInstanceType (errors InvalidArgument);
//   - the typed helpers (XmlRequiredText/Int, XmlOptionalInt/Double/Bool) on every child of
//     the first elements of the document: errors Internal, and optional values agree with the
//     required ones;
//   - FormDecode on the body: FormEncode of the result decodes back to the same parameters.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "aws/discovery.h"
#include "aws/ec2_client.h"
#include "karp/aws_catalog.h"
#include "karp/instance_type.h"

namespace {

[[noreturn]] void Fail(std::string_view what, std::string_view input) {
  std::fprintf(stderr, "ec2_xml_fuzz: %.*s\ninput: %.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(input.size()), input.data());
  std::abort();
}

void ExpectInternal(const absl::Status& s, std::string_view what, std::string_view input) {
  if (!s.ok() && s.code() != absl::StatusCode::kInternal) {
    Fail(std::string(what) + " error is not Internal: " + s.ToString(), input);
  }
}

// The typed helpers on `node` and its child named `path`.
void CheckTypedHelpers(pugi::xml_node node, std::string_view path, std::string_view input) {
  constexpr std::string_view kWhere = "EC2 Fuzz: item[1]";
  absl::StatusOr<std::string> text = karp::aws::XmlRequiredText(node, path, kWhere);
  ExpectInternal(text.status(), "XmlRequiredText", input);
  if (text.ok() && (text->empty() || *text != karp::aws::XmlText(node, path))) {
    Fail("XmlRequiredText disagrees with XmlText", input);
  }
  absl::StatusOr<std::optional<int64_t>> opt_int = karp::aws::XmlOptionalInt(node, path, kWhere);
  ExpectInternal(opt_int.status(), "XmlOptionalInt", input);
  absl::StatusOr<int64_t> req_int = karp::aws::XmlRequiredInt(node, path, kWhere);
  ExpectInternal(req_int.status(), "XmlRequiredInt", input);
  if (req_int.ok() != (opt_int.ok() && opt_int->has_value()) ||
      (req_int.ok() && *req_int != **opt_int)) {
    Fail("XmlRequiredInt disagrees with XmlOptionalInt", input);
  }
  absl::StatusOr<std::optional<double>> dbl = karp::aws::XmlOptionalDouble(node, path, kWhere);
  ExpectInternal(dbl.status(), "XmlOptionalDouble", input);
  absl::StatusOr<std::optional<bool>> b = karp::aws::XmlOptionalBool(node, path, kWhere);
  ExpectInternal(b.status(), "XmlOptionalBool", input);
  const bool present = static_cast<bool>(karp::aws::XmlChild(node, path));
  if (opt_int.ok() && opt_int->has_value() != present) Fail("XmlOptionalInt presence", input);
  if (dbl.ok() && dbl->has_value() != present) Fail("XmlOptionalDouble presence", input);
  if (b.ok() && b->has_value() != present) Fail("XmlOptionalBool presence", input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);

  // Form bodies (what the fake servers of the tests decode).
  const karp::aws::QueryParams params = karp::aws::FormDecode(body);
  const std::string encoded = karp::aws::FormEncode(params);
  if (karp::aws::FormDecode(encoded) != params) Fail("FormEncode/FormDecode round trip", body);

  absl::StatusOr<karp::aws::XmlResponse> response =
      karp::aws::XmlResponse::Parse("DescribeInstanceTypes", std::string(body));
  if (!response.ok()) {
    ExpectInternal(response.status(), "XmlResponse::Parse", body);
    if (response.status().message().substr(0, 26) != "EC2 DescribeInstanceTypes:") {
      Fail("error does not name the action: " + response.status().ToString(), body);
    }
    return 0;
  }
  if (std::string_view(response->root().name()) != "DescribeInstanceTypesResponse") {
    Fail("wrong root accepted", body);
  }
  if (response->body() != body) Fail("body not kept", body);

  // Typed helpers on the children of the first elements (bounded: the walk is per input).
  int visited = 0;
  std::vector<pugi::xml_node> stack = {response->root()};
  while (!stack.empty() && visited < 64) {
    pugi::xml_node n = stack.back();
    stack.pop_back();
    ++visited;
    for (pugi::xml_node c : n.children()) {
      if (c.type() != pugi::node_element) continue;
      CheckTypedHelpers(n, c.name(), body);
      stack.push_back(c);
    }
  }
  CheckTypedHelpers(response->root(), "instanceTypeSet/item/vCpuInfo/defaultVCpus", body);
  CheckTypedHelpers(response->root(), "", body);

  const std::vector<pugi::xml_node> items =
      karp::aws::XmlItems(response->root(), "instanceTypeSet");
  for (size_t i = 0; i < items.size() && i < 16; ++i) {
    absl::StatusOr<karp::AwsInstanceTypeInfo> info = karp::aws::ParseInstanceTypeItem(
        items[i], "EC2 DescribeInstanceTypes: instanceTypeSet/item[" + std::to_string(i + 1) + "]");
    if (!info.ok()) {
      ExpectInternal(info.status(), "ParseInstanceTypeItem", body);
      continue;
    }
    if (info->name.empty()) Fail("instance type without a name", body);
    absl::StatusOr<karp::InstanceType> type = karp::MakeAwsInstanceType(*info, 0.25);
    if (!type.ok() && type.status().code() != absl::StatusCode::kInvalidArgument) {
      Fail("MakeAwsInstanceType error is not InvalidArgument: " + type.status().ToString(), body);
    }
    if (type.ok() && type->name != info->name) Fail("instance type renamed", body);
  }
  return 0;
}
