// Layered<C> (scheduling/cow.h) reads as one container holding both layers, whatever the
// sequence of writes, and never changes a base another Cow shares.

#include "scheduling/cow.h"

#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

namespace karp::scheduling {
namespace {

template <typename C>
std::vector<typename C::value_type> Items(const C& c) {
  return {c.begin(), c.end()};
}

TEST_CASE("Layered map reads as the union of its layers", "[cow]") {
  std::map<std::string, int32_t> start = {{"b", 1}, {"d", 0}, {"f", 2}};
  const Cow<std::map<std::string, int32_t>> shared(start);
  Layered<std::map<std::string, int32_t>> layered = shared;
  layered.Insert(std::make_pair(std::string("a"), 0));
  layered.Insert(std::make_pair(std::string("e"), 0));
  layered.Insert(std::make_pair(std::string("d"), 7));  // present: unchanged
  ++layered.Ref("e");
  // New keys went to the own layer: the shared base is unchanged.
  CHECK(Items(shared.get()) == Items(start));
  const std::vector<std::pair<const std::string, int32_t>> want = {
      {"a", 0}, {"b", 1}, {"d", 0}, {"e", 1}, {"f", 2}};
  CHECK(Items(layered) == want);
  CHECK(layered.size() == 5);
  CHECK(layered.find("e")->second == 1);
  CHECK(layered.find("c") == layered.end());
  // Iterating on from a found element continues in key order across layers.
  auto it = layered.find("b");
  ++it;
  CHECK(it->first == "d");
  ++it;
  CHECK(it->first == "e");
  // Writing a base entry copies the base; the shared one still holds the old count.
  ++layered.Ref("b");
  CHECK(layered.find("b")->second == 2);
  CHECK(shared.get().at("b") == 1);
  layered.Erase("a");
  layered.Erase("f");
  CHECK(layered.count("a") == 0);
  CHECK(layered.count("f") == 0);
  CHECK(shared.get().count("f") == 1);
  // Flat() gives the union as one container.
  const Cow<std::map<std::string, int32_t>> flat = layered.Flat();
  const std::vector<std::pair<const std::string, int32_t>> after = {{"b", 2}, {"d", 0}, {"e", 1}};
  CHECK(Items(flat.get()) == after);
  CHECK(Items(layered) == after);
}

TEST_CASE("Layered set matches a plain set under random writes", "[cow]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::set<std::string> plain;
    for (int i = 0; i < 20; ++i) plain.insert(std::to_string(rng() % 40));
    Cow<std::set<std::string>> base(plain);
    Layered<std::set<std::string>> layered = base;
    // Half the rounds keep the base shared (writes go to the own layer), half do not.
    if (round % 2 == 0) base = Cow<std::set<std::string>>();
    for (int op = 0; op < 60; ++op) {
      const std::string k = std::to_string(rng() % 40);
      if (rng() % 3 == 0) {
        plain.erase(k);
        layered.Erase(k);
      } else {
        plain.insert(k);
        layered.Insert(k);
      }
      REQUIRE(layered.size() == plain.size());
      REQUIRE(layered.count(k) == plain.count(k));
      REQUIRE((layered.find(k) == layered.end()) == (plain.find(k) == plain.end()));
    }
    CHECK(Items(layered) == Items(plain));
  }
}

}  // namespace
}  // namespace karp::scheduling
