// libFuzzer target: karp::json::ParseInstanceTypes / ParseCatalog on arbitrary bytes. It must
// never crash, hang or throw. A catalog that parses and builds must survive
// WriteCatalog -> ParseCatalog unchanged, and the written text must be a fixed point.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/catalog.h"
#include "karp/json/codec.h"

namespace {

[[noreturn]] void Fail(std::string_view what, const std::string& detail) {
  std::fprintf(stderr, "catalog_fuzz: %.*s\n%s\n", static_cast<int>(what.size()), what.data(),
               detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<karp::InstanceType>> types =
      karp::json::ParseInstanceTypes(text, "fuzz.json");
  if (!types.ok()) {
    if (types.status().code() != absl::StatusCode::kInvalidArgument) {
      Fail("error is not InvalidArgument", std::string(types.status().ToString()));
    }
    return 0;
  }
  absl::StatusOr<karp::InstanceCatalog> catalog = karp::InstanceCatalog::Create(*std::move(types));
  if (!catalog.ok()) return 0;

  const std::string written = karp::json::WriteCatalog(*catalog);
  absl::StatusOr<karp::InstanceCatalog> again = karp::json::ParseCatalog(written, "written.json");
  if (!again.ok()) {
    Fail("written catalog does not parse", std::string(again.status().message()) + "\n" + written);
  }
  if (!(again->instance_types() == catalog->instance_types())) Fail("catalogs differ", written);
  if (karp::json::WriteCatalog(*again) != written)
    Fail("written text is not a fixed point", written);
  if (karp::json::WriteCatalog(*again, -1) != karp::json::WriteCatalog(*catalog, -1)) {
    Fail("one-line output differs", written);
  }
  return 0;
}
