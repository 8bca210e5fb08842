// IntersectionKeeps (scheduling/topology_group.h) answers `a == a.Intersection(b)` without building
// the intersection: over random pairs of requirements on one key (In, NotIn, Exists,
// DoesNotExist, Gt, Lt, with and without minValues), it agrees with the definition, and both
// answers occur for each combination of complements.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "karp/requirements.h"
#include "scheduling/topology.h"

namespace karp::scheduling {
namespace {

Requirement RandomRequirement(std::mt19937& rng) {
  const std::vector<std::string> pool = {"1", "2", "3", "4", "a", "b"};
  std::vector<std::string> values;
  for (const std::string& v : pool) {
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) values.push_back(v);
  }
  const char* key = "example.com/size";
  Requirement r = Requirement::Exists(key);
  switch (std::uniform_int_distribution<int>(0, 6)(rng)) {
    case 0:
    case 1:
      r = Requirement::In(key, values.empty() ? std::vector<std::string>{"a"} : values);
      break;
    case 2:
      r = Requirement::NotIn(key, values);
      break;
    case 3:
      r = Requirement::Exists(key);
      break;
    case 4:
      r = Requirement::DoesNotExist(key);
      break;
    case 5:
      r = Requirement::Gt(key, std::uniform_int_distribution<int>(0, 4)(rng));
      break;
    default:
      r = Requirement::Lt(key, std::uniform_int_distribution<int>(0, 4)(rng));
      break;
  }
  if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
    r.set_min_values(std::uniform_int_distribution<int>(1, 3)(rng));
  }
  return r;
}

TEST_CASE("IntersectionKeeps agrees with building the intersection", "[scheduler][topology]") {
  std::mt19937 rng(11);
  int kept[2][2] = {{0, 0}, {0, 0}}, narrowed[2][2] = {{0, 0}, {0, 0}};
  for (int i = 0; i < 20000; ++i) {
    const Requirement a = RandomRequirement(rng);
    const Requirement b = RandomRequirement(rng);
    const bool expected = a == a.Intersection(b);
    INFO("a: " << a.ToString() << "  b: " << b.ToString());
    REQUIRE(IntersectionKeeps(a, b) == expected);
    (expected ? kept : narrowed)[a.complement()][b.complement()] += 1;
  }
  // Both answers for each pair of complements the cheap path decides (NotIn ∩ In never keeps).
  for (int x = 0; x < 2; ++x) {
    for (int y = 0; y < 2; ++y) {
      if (!(x == 1 && y == 0)) CHECK(kept[x][y] > 0);
      CHECK(narrowed[x][y] > 0);
    }
  }
}

}  // namespace
}  // namespace karp::scheduling
