// libFuzzer target: karp::ParseQuantity on arbitrary text. The first byte chooses the resource
// (and, with its top bit, allow_negative); the rest is the quantity text. Whatever parses must
// print canonically (FormatQuantity), parse back to the same value, and print the same again.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "karp/resources.h"

namespace {

constexpr std::string_view kResources[] = {
    "cpu",           "memory",  "pods",  "ephemeral-storage", "nvidia.com/gpu",
    "hugepages-2Mi", "storage", "nodes",
};

[[noreturn]] void Fail(std::string_view what, std::string_view resource, std::string_view text,
                       const std::string& detail) {
  std::fprintf(stderr, "quantity_fuzz: %.*s (resource %.*s, text \"%.*s\"): %s\n",
               static_cast<int>(what.size()), what.data(), static_cast<int>(resource.size()),
               resource.data(), static_cast<int>(text.size()), text.data(), detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view resource =
      kResources[(data[0] & 0x7f) % (sizeof(kResources) / sizeof(kResources[0]))];
  const bool allow_negative = (data[0] & 0x80) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  absl::StatusOr<int64_t> value = karp::ParseQuantity(text, resource, allow_negative);
  if (!value.ok()) return 0;
  if (!allow_negative && *value < 0) Fail("negative value accepted", resource, text, "");

  const std::string formatted = karp::FormatQuantity(*value, resource);
  absl::StatusOr<int64_t> again = karp::ParseQuantity(formatted, resource, /*allow_negative=*/true);
  if (!again.ok()) {
    Fail("canonical text does not parse", resource, text,
         formatted + ": " + std::string(again.status().message()));
  }
  if (*again != *value) {
    Fail("round trip changed the value", resource, text,
         std::to_string(*value) + " -> " + formatted + " -> " + std::to_string(*again));
  }
  if (karp::FormatQuantity(*again, resource) != formatted) {
    Fail("canonical text is not a fixed point", resource, text, formatted);
  }
  return 0;
}
