// Tests of karp::ParseQuantity / karp::FormatQuantity / karp::UnitOf against the header
// contract (karp/resources.h) and the canonical printing rules of docs/formats.md.

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "karp/resources.h"

namespace {

using karp::FormatQuantity;
using karp::ParseQuantity;

constexpr int64_t kKi = int64_t{1} << 10;
constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kTi = int64_t{1} << 40;
constexpr int64_t kPi = int64_t{1} << 50;
constexpr int64_t kEi = int64_t{1} << 60;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

struct ParseCase {
  const char* text;
  const char* resource;
  int64_t want;
};

void CheckParses(const ParseCase& c) {
  INFO("ParseQuantity(\"" << c.text << "\", \"" << c.resource << "\")");
  absl::StatusOr<int64_t> got = ParseQuantity(c.text, c.resource);
  REQUIRE(got.ok());
  CHECK(*got == c.want);
}

void CheckRejects(const std::string& text, const char* resource, bool allow_negative = false) {
  INFO("ParseQuantity(\"" << text << "\", \"" << resource << "\") must fail");
  absl::StatusOr<int64_t> got = ParseQuantity(text, resource, allow_negative);
  REQUIRE_FALSE(got.ok());
  CHECK(got.status().code() == absl::StatusCode::kInvalidArgument);
  if (!text.empty()) {
    CHECK_THAT(std::string(got.status().message()), Catch::Contains(text));
  }
}

}  // namespace

TEST_CASE("resources map to their canonical unit", "[quantity]") {
  CHECK(karp::UnitOf("cpu") == karp::ResourceUnit::kMilli);
  CHECK(karp::UnitOf("memory") == karp::ResourceUnit::kBytes);
  CHECK(karp::UnitOf("ephemeral-storage") == karp::ResourceUnit::kBytes);
  CHECK(karp::UnitOf("storage") == karp::ResourceUnit::kBytes);
  CHECK(karp::UnitOf("hugepages-2Mi") == karp::ResourceUnit::kBytes);
  CHECK(karp::UnitOf("hugepages-1Gi") == karp::ResourceUnit::kBytes);
  CHECK(karp::UnitOf("pods") == karp::ResourceUnit::kCount);
  CHECK(karp::UnitOf("nodes") == karp::ResourceUnit::kCount);
  CHECK(karp::UnitOf("nvidia.com/gpu") == karp::ResourceUnit::kCount);
  CHECK(karp::UnitOf("example.com/widget") == karp::ResourceUnit::kCount);
}

TEST_CASE("plain integers parse into canonical units", "[quantity]") {
  for (const ParseCase& c : std::vector<ParseCase>{
           {"0", "cpu", 0},
           {"1", "cpu", 1000},
           {"2", "cpu", 2000},
           {"110", "pods", 110},
           {"1024", "memory", 1024},
           {"0", "memory", 0},
           {"8", "nvidia.com/gpu", 8},
           {"9223372036854775807", "pods", kMax},
       }) {
    CheckParses(c);
  }
}

TEST_CASE("the milli suffix m scales by one thousandth", "[quantity]") {
  for (const ParseCase& c : std::vector<ParseCase>{
           {"250m", "cpu", 250},
           {"1500m", "cpu", 1500},
           {"0m", "cpu", 0},
           {"1000m", "pods", 1},
           {"2000m", "memory", 2},
       }) {
    CheckParses(c);
  }
}

TEST_CASE("decimal suffixes k M G T P E scale by powers of 1000", "[quantity]") {
  for (const ParseCase& c : std::vector<ParseCase>{
           {"1k", "memory", 1000},
           {"1M", "memory", 1000000},
           {"1G", "memory", 1000000000},
           {"1T", "memory", 1000000000000},
           {"1P", "memory", 1000000000000000},
           {"1E", "memory", 1000000000000000000},
           {"1k", "pods", 1000},
           {"1k", "cpu", 1000000},
           {"2G", "ephemeral-storage", 2000000000},
       }) {
    CheckParses(c);
  }
}

TEST_CASE("binary suffixes Ki..Ei scale by powers of 1024", "[quantity]") {
  for (const ParseCase& c : std::vector<ParseCase>{
           {"1Ki", "memory", kKi},
           {"1Mi", "memory", kMi},
           {"4Gi", "memory", 4 * kGi},
           {"1Ti", "memory", kTi},
           {"1Pi", "memory", kPi},
           {"1Ei", "memory", kEi},
           {"7Ei", "memory", 7 * kEi},
           {"7577Mi", "memory", 7577 * kMi},
           {"2Ki", "pods", 2048},
           {"1Ki", "cpu", 1024000},
           {"20Gi", "ephemeral-storage", 20 * kGi},
           {"2Mi", "hugepages-2Mi", 2 * kMi},
       }) {
    CheckParses(c);
  }
}

TEST_CASE("nano and micro suffixes n and u are accepted", "[quantity]") {
  for (const ParseCase& c : std::vector<ParseCase>{
           {"1000000n", "cpu", 1},
           {"5000000n", "cpu", 5},
           {"1000u", "cpu", 1},
           {"250000u", "cpu", 250},
           {"1000000000n", "memory", 1},
           {"1000000u", "pods", 1},
       }) {
    CheckParses(c);
  }
}

TEST_CASE("decimal fractions convert exactly", "[quantity]") {
  for (const ParseCase& c : std::vector<ParseCase>{
           {"1.5", "cpu", 1500},
           {".5", "cpu", 500},
           {"0.25", "cpu", 250},
           {"0.001", "cpu", 1},
           {"1.5Gi", "memory", 1610612736},
           {"0.5Ki", "memory", 512},
           {"2.5k", "pods", 2500},
           {"1.5m", "cpu", 2},  // 1.5 millicores rounds up
       }) {
    CheckParses(c);
  }
}

TEST_CASE("values finer than the canonical unit round up", "[quantity]") {
  for (const ParseCase& c : std::vector<ParseCase>{
           {"0.5m", "cpu", 1},
           {"1n", "cpu", 1},
           {"1u", "cpu", 1},
           {"1001u", "cpu", 2},
           {"0.0001", "cpu", 1},
           {"1.5", "pods", 2},
           {"1500m", "pods", 2},
           {"1m", "pods", 1},
           {"0.1Gi", "memory", 107374183},  // 107374182.4 bytes
           {"100n", "memory", 1},
           {"0.5", "memory", 1},
       }) {
    CheckParses(c);
  }
}

TEST_CASE("decimal exponents e and E are accepted", "[quantity]") {
  for (const ParseCase& c : std::vector<ParseCase>{
           {"1e3", "cpu", 1000000},
           {"1E3", "memory", 1000},
           {"1e3", "pods", 1000},
           {"2e-3", "cpu", 2},
           {"2E-3", "cpu", 2},
           {"2e-3", "memory", 1},  // 0.002 bytes rounds up
           {"1.5e3", "memory", 1500},
           {"1e+3", "memory", 1000},
           {"5e0", "pods", 5},
       }) {
    CheckParses(c);
  }
}

TEST_CASE("an explicit plus sign is accepted", "[quantity]") {
  for (const ParseCase& c : std::vector<ParseCase>{
           {"+1", "cpu", 1000},
           {"+250m", "cpu", 250},
           {"+4Gi", "memory", 4 * kGi},
       }) {
    CheckParses(c);
  }
}

TEST_CASE("negative quantities are rejected unless allowed", "[quantity]") {
  CheckRejects("-1", "pods");
  CheckRejects("-500m", "cpu");
  CheckRejects("-1Gi", "memory");

  absl::StatusOr<int64_t> pods = ParseQuantity("-1", "pods", /*allow_negative=*/true);
  REQUIRE(pods.ok());
  CHECK(*pods == -1);
  absl::StatusOr<int64_t> cpu = ParseQuantity("-1.5", "cpu", /*allow_negative=*/true);
  REQUIRE(cpu.ok());
  CHECK(*cpu == -1500);
  absl::StatusOr<int64_t> mem = ParseQuantity("-100Mi", "memory", /*allow_negative=*/true);
  REQUIRE(mem.ok());
  CHECK(*mem == -100 * kMi);
  absl::StatusOr<int64_t> zero = ParseQuantity("-0", "cpu");
  if (zero.ok()) CHECK(*zero == 0);  // "-0" is zero, not negative, if accepted
}

TEST_CASE("malformed quantities are rejected with the offending text", "[quantity]") {
  CheckRejects("", "cpu");
  for (const char* text : {"1.5.3", "abc", "1Kb", "--1", "1 Gi", "Gi", ".", "-", "+", "1K", "1ki",
                           "e3", "1Gi ", " 1", "1.5.3Gi", "1mi", "0x10", "1/2"}) {
    CheckRejects(text, "memory");
  }
  for (const char* text : {"1.5.3", "abc", "--1", "1 m", "m", "1cores"}) {
    CheckRejects(text, "cpu");
  }
  CheckRejects("--1", "pods", /*allow_negative=*/true);
  CheckRejects("+-1", "pods", /*allow_negative=*/true);
}

TEST_CASE("quantities that overflow int64 in canonical units are rejected", "[quantity]") {
  CheckRejects("10Ei", "memory");
  CheckRejects("8Ei", "memory");  // exactly 2^63
  CheckRejects("10E", "memory");
  CheckRejects("9999999999999999999", "pods");
  CheckRejects("9223372036854775808", "pods");
  CheckRejects("1e100", "cpu");
  CheckRejects("1e100", "memory");
  CheckRejects("9223372036854776", "cpu");  // fits as cores, not as millicores
  CheckRejects("100000000000000000000000000000000000000000", "pods");
  CheckRejects("-1e100", "cpu", /*allow_negative=*/true);

  // The largest values that do fit.
  CheckParses({"9223372036854775", "cpu", 9223372036854775000});
  CheckParses({"9223372036854775807m", "cpu", kMax});
  CheckParses({"9223372036854775807", "memory", kMax});
}

TEST_CASE("cpu prints in millicores unless a whole number of cores", "[quantity]") {
  CHECK(FormatQuantity(1500, "cpu") == "1500m");
  CHECK(FormatQuantity(2000, "cpu") == "2");
  CHECK(FormatQuantity(250, "cpu") == "250m");
  CHECK(FormatQuantity(1, "cpu") == "1m");
  CHECK(FormatQuantity(0, "cpu") == "0");
  CHECK(FormatQuantity(100000, "cpu") == "100");
  CHECK(FormatQuantity(3125, "cpu") == "3125m");
  CHECK(FormatQuantity(1001, "cpu") == "1001m");
}

TEST_CASE("memory prints in the largest binary suffix that keeps an integer", "[quantity]") {
  CHECK(FormatQuantity(4 * kGi, "memory") == "4Gi");
  CHECK(FormatQuantity(7577 * kMi, "memory") == "7577Mi");
  CHECK(FormatQuantity(kKi, "memory") == "1Ki");
  CHECK(FormatQuantity(1536 * kMi, "memory") == "1536Mi");
  CHECK(FormatQuantity(1024 * kMi, "memory") == "1Gi");
  CHECK(FormatQuantity(5 * kTi, "memory") == "5Ti");
  CHECK(FormatQuantity(3 * kPi, "memory") == "3Pi");
  CHECK(FormatQuantity(kEi, "memory") == "1Ei");
  CHECK(FormatQuantity(1600 * kMi, "memory") == "1600Mi");
  CHECK(FormatQuantity(3 * kKi, "memory") == "3Ki");
  CHECK(FormatQuantity(0, "memory") == "0");
  CHECK(FormatQuantity(20 * kGi, "ephemeral-storage") == "20Gi");
  CHECK(FormatQuantity(10 * kGi, "storage") == "10Gi");
  CHECK(FormatQuantity(4 * kMi, "hugepages-2Mi") == "4Mi");
}

TEST_CASE("bytes not divisible by 1024 print as a plain integer", "[quantity]") {
  CHECK(FormatQuantity(1000, "memory") == "1000");
  CHECK(FormatQuantity(1536, "memory") == "1536");
  CHECK(FormatQuantity(1, "memory") == "1");
  CHECK(FormatQuantity(1000000000, "memory") == "1000000000");
  CHECK(FormatQuantity(kMax, "memory") == "9223372036854775807");
}

TEST_CASE("counts print as plain integers", "[quantity]") {
  CHECK(FormatQuantity(110, "pods") == "110");
  CHECK(FormatQuantity(1000, "pods") == "1000");
  CHECK(FormatQuantity(1024, "pods") == "1024");
  CHECK(FormatQuantity(0, "pods") == "0");
  CHECK(FormatQuantity(1, "nvidia.com/gpu") == "1");
  CHECK(FormatQuantity(5, "nodes") == "5");
}

TEST_CASE("parse then print gives the canonical form", "[quantity]") {
  struct RoundTrip {
    const char* text;
    const char* resource;
    const char* canonical;
  };
  for (const RoundTrip& c : std::vector<RoundTrip>{
           {"1.5", "cpu", "1500m"},
           {"1500m", "cpu", "1500m"},
           {"2000m", "cpu", "2"},
           {"2", "cpu", "2"},
           {"0.5m", "cpu", "1m"},
           {"4Gi", "memory", "4Gi"},
           {"4096Mi", "memory", "4Gi"},
           {"4294967296", "memory", "4Gi"},
           {"7577Mi", "memory", "7577Mi"},
           {"1024", "memory", "1Ki"},
           {"1k", "memory", "1000"},
           {"1.5Gi", "memory", "1536Mi"},
           {"1k", "pods", "1000"},
           {"110", "pods", "110"},
           {"1e3", "pods", "1000"},
           {"0", "memory", "0"},
       }) {
    INFO(c.text << " as " << c.resource);
    absl::StatusOr<int64_t> v = ParseQuantity(c.text, c.resource);
    REQUIRE(v.ok());
    CHECK(FormatQuantity(*v, c.resource) == c.canonical);
    // The canonical form parses back to the same value.
    absl::StatusOr<int64_t> again = ParseQuantity(FormatQuantity(*v, c.resource), c.resource);
    REQUIRE(again.ok());
    CHECK(*again == *v);
  }
}
