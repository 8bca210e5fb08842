// libFuzzer target: the older-API conversion (karp/json/convert.h) on arbitrary bytes, as
// `karp convert` (YAML and JSON output) and as ParseSnapshot sees it. It must never crash, hang
// or throw; errors must be InvalidArgument. Whatever converts must convert again to the same
// text (the v1 output is a fixed point) and parse as a snapshot.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/cluster.h"
#include "karp/json/codec.h"
#include "karp/json/convert.h"

namespace {

[[noreturn]] void Fail(std::string_view what, const std::string& detail) {
  std::fprintf(stderr, "old_api_fuzz: %.*s\n%s\n", static_cast<int>(what.size()), what.data(),
               detail.c_str());
  std::abort();
}

void CheckError(const absl::Status& s) {
  if (s.code() != absl::StatusCode::kInvalidArgument)
    Fail("error is not InvalidArgument", s.ToString());
}

void CheckFormat(std::string_view text, karp::json::ConvertFormat format) {
  absl::StatusOr<karp::json::Conversion> c = karp::json::ConvertText(text, "fuzz.yaml", format);
  if (!c.ok()) return CheckError(c.status());
  if (c->output.empty()) return;
  absl::StatusOr<karp::json::Conversion> again =
      karp::json::ConvertText(c->output, "out.yaml", format);
  if (!again.ok())
    Fail("output does not convert", std::string(again.status().message()) + "\n" + c->output);
  if (again->output != c->output)
    Fail("output is not a fixed point", c->output + "\n" + again->output);
  if (again->converted != 0) Fail("output still holds older-API objects", c->output);
  absl::StatusOr<karp::ClusterSnapshot> snap = karp::json::ParseSnapshot(c->output, "out.yaml");
  if (!snap.ok())
    Fail("output does not parse", std::string(snap.status().message()) + "\n" + c->output);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckFormat(text, karp::json::ConvertFormat::kYaml);
  CheckFormat(text, karp::json::ConvertFormat::kJson);
  absl::StatusOr<karp::ClusterSnapshot> snap = karp::json::ParseSnapshot(text, "fuzz.yaml");
  if (!snap.ok()) CheckError(snap.status());
  return 0;
}
