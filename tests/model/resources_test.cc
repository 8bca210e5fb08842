// Tests of karp::ResourceList against the header contract (karp/resources.h) and the list
// arithmetic of docs/design.md §2.2.

#include "karp/resources.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace {

using karp::ResourceList;

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

std::vector<std::pair<std::string, int64_t>> Entries(const ResourceList& r) {
  std::vector<std::pair<std::string, int64_t>> out;
  r.ForEach(
      [&out](std::string_view name, int64_t value) { out.emplace_back(std::string(name), value); });
  return out;
}

using EntryList = std::vector<std::pair<std::string, int64_t>>;

}  // namespace

TEST_CASE("an empty resource list has nothing and reads zero", "[resources]") {
  ResourceList r;
  CHECK(r.empty());
  CHECK(r.size() == size_t{0});
  CHECK_FALSE(r.Has("cpu"));
  CHECK(r.Get("cpu") == 0);
  CHECK(r.Get("nvidia.com/gpu") == 0);
  CHECK(r.cpu() == 0);
  CHECK(r.memory() == 0);
  CHECK(r.ephemeral_storage() == 0);
  CHECK(r.pods() == 0);
  CHECK(r.Names().empty());
  CHECK(r.ToString() == "{}");
}

TEST_CASE("Set, Get, Has and Erase work for well-known and extended resources", "[resources]") {
  ResourceList r;
  r.Set("cpu", 1500);
  r.Set("memory", 4 * kGi);
  r.Set("ephemeral-storage", 20 * kGi);
  r.Set("pods", 110);
  r.Set("nvidia.com/gpu", 2);
  r.Set("hugepages-2Mi", 4 * kMi);
  CHECK(r.size() == size_t{6});
  CHECK_FALSE(r.empty());
  CHECK(r.Get("cpu") == 1500);
  CHECK(r.cpu() == 1500);
  CHECK(r.memory() == 4 * kGi);
  CHECK(r.Get("memory") == 4 * kGi);
  CHECK(r.ephemeral_storage() == 20 * kGi);
  CHECK(r.pods() == 110);
  CHECK(r.Get("nvidia.com/gpu") == 2);
  CHECK(r.Get("hugepages-2Mi") == 4 * kMi);
  CHECK(r.Has("nvidia.com/gpu"));
  CHECK_FALSE(r.Has("amd.com/gpu"));

  r.Set("cpu", 250);  // overwrite
  CHECK(r.cpu() == 250);
  r.Set("nvidia.com/gpu", 3);
  CHECK(r.Get("nvidia.com/gpu") == 3);
  CHECK(r.size() == size_t{6});

  r.Erase("cpu");
  CHECK_FALSE(r.Has("cpu"));
  CHECK(r.Get("cpu") == 0);
  CHECK(r.cpu() == 0);
  r.Erase("nvidia.com/gpu");
  CHECK_FALSE(r.Has("nvidia.com/gpu"));
  CHECK(r.Get("nvidia.com/gpu") == 0);
  r.Erase("not-there");  // erasing an absent resource is a no-op
  CHECK(r.size() == size_t{4});
}

TEST_CASE("a resource set to zero is present, unlike an absent one", "[resources]") {
  ResourceList zero;
  zero.Set("cpu", 0);
  zero.Set("example.com/foo", 0);
  CHECK(zero.Has("cpu"));
  CHECK(zero.Has("example.com/foo"));
  CHECK(zero.size() == size_t{2});
  CHECK_FALSE(zero.empty());
  CHECK(zero.ToString() == R"({"cpu":"0","example.com/foo":"0"})");
  CHECK(zero != ResourceList{});
}

TEST_CASE("the initializer list constructor keeps the last duplicate", "[resources]") {
  ResourceList r{
      {"cpu", 1000}, {"memory", kGi}, {"cpu", 2000}, {"nvidia.com/gpu", 1}, {"nvidia.com/gpu", 4}};
  CHECK(r.size() == size_t{3});
  CHECK(r.cpu() == 2000);
  CHECK(r.Get("nvidia.com/gpu") == 4);
}

TEST_CASE("ForEach and Names visit resources in name order", "[resources]") {
  ResourceList r;
  // Inserted out of order; extended names sort before, between and after the well-known ones.
  r.Set("zzz.io/last", 9);
  r.Set("pods", 110);
  r.Set("nvidia.com/gpu", 2);
  r.Set("memory", kGi);
  r.Set("hugepages-2Mi", 2 * kMi);
  r.Set("example.com/foo", 3);
  r.Set("ephemeral-storage", 10 * kGi);
  r.Set("nodes", 1);
  r.Set("cpu", 1000);
  r.Set("amd.com/gpu", 1);

  const EntryList want = {
      {"amd.com/gpu", 1},
      {"cpu", 1000},
      {"ephemeral-storage", 10 * kGi},
      {"example.com/foo", 3},
      {"hugepages-2Mi", 2 * kMi},
      {"memory", kGi},
      {"nodes", 1},
      {"nvidia.com/gpu", 2},
      {"pods", 110},
      {"zzz.io/last", 9},
  };
  CHECK(Entries(r) == want);
  std::vector<std::string> names;
  for (const auto& entry : want) names.push_back(entry.first);
  CHECK(r.Names() == names);
  CHECK(std::is_sorted(names.begin(), names.end()));
}

TEST_CASE("ToString prints canonical quantities in name order", "[resources]") {
  ResourceList r;
  r.Set("memory", 4 * kGi);
  r.Set("cpu", 1500);
  CHECK(r.ToString() == R"({"cpu":"1500m","memory":"4Gi"})");

  ResourceList full;
  full.Set("pods", 110);
  full.Set("nvidia.com/gpu", 2);
  full.Set("memory", 7577 * kMi);
  full.Set("hugepages-2Mi", 4 * kMi);
  full.Set("ephemeral-storage", 1000);
  full.Set("cpu", 2000);
  full.Set("amd.com/gpu", 1);
  CHECK(full.ToString() ==
        R"({"amd.com/gpu":"1","cpu":"2","ephemeral-storage":"1000","hugepages-2Mi":"4Mi",)"
        R"("memory":"7577Mi","nvidia.com/gpu":"2","pods":"110"})");

  ResourceList pods;
  pods.Set("cpu", 3125);
  pods.Set("pods", 5);
  CHECK(pods.ToString() == R"({"cpu":"3125m","pods":"5"})");
}

TEST_CASE("Parse reads quantity strings per resource", "[resources]") {
  absl::StatusOr<ResourceList> r = ResourceList::Parse(
      {{"cpu", "1500m"}, {"memory", "4Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "1"}});
  REQUIRE(r.ok());
  CHECK(r->cpu() == 1500);
  CHECK(r->memory() == 4 * kGi);
  CHECK(r->pods() == 110);
  CHECK(r->Get("nvidia.com/gpu") == 1);
  CHECK(r->size() == size_t{4});
}

TEST_CASE("Parse names the resource and the text on error", "[resources]") {
  absl::StatusOr<ResourceList> bad = ResourceList::Parse({{"cpu", "1"}, {"memory", "1.5.3"}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(bad.status().message()), Catch::Contains("memory"));
  CHECK_THAT(std::string(bad.status().message()), Catch::Contains("1.5.3"));

  absl::StatusOr<ResourceList> negative = ResourceList::Parse({{"cpu", "-1"}});
  REQUIRE_FALSE(negative.ok());
  CHECK(negative.status().code() == absl::StatusCode::kInvalidArgument);

  absl::StatusOr<ResourceList> allowed =
      ResourceList::Parse({{"cpu", "-1"}}, /*allow_negative=*/true);
  REQUIRE(allowed.ok());
  CHECK(allowed->cpu() == -1000);
}

TEST_CASE("Add sums per key over the union of keys", "[resources]") {
  ResourceList a{{"cpu", 1000}, {"memory", kGi}, {"example.com/a", 1}};
  ResourceList b{{"cpu", 500}, {"pods", 3}, {"example.com/b", 2}};
  a.Add(b);
  CHECK(
      Entries(a) ==
      EntryList{
          {"cpu", 1500}, {"example.com/a", 1}, {"example.com/b", 2}, {"memory", kGi}, {"pods", 3}});
  ResourceList x{{"cpu", 1000}, {"memory", kGi}, {"example.com/a", 1}};
  CHECK(ResourceList::Sum(x, b) == a);
  // Adding an empty list changes nothing, and a zero entry stays present.
  ResourceList z{{"cpu", 0}};
  z.Add(ResourceList{});
  CHECK(z.Has("cpu"));
  CHECK(z.size() == size_t{1});
}

TEST_CASE("Subtract keeps only the left side's keys", "[resources]") {
  ResourceList a{{"cpu", 1000}, {"memory", 2 * kGi}, {"example.com/a", 5}};
  ResourceList b{{"cpu", 300}, {"pods", 5}, {"example.com/a", 7}, {"example.com/b", 1}};
  a.Subtract(b);
  CHECK(Entries(a) == EntryList{{"cpu", 700}, {"example.com/a", -2}, {"memory", 2 * kGi}});
  CHECK_FALSE(a.Has("pods"));
  CHECK_FALSE(a.Has("example.com/b"));
  CHECK(a.AnyNegative());

  ResourceList lhs{{"cpu", 1000}, {"memory", 2 * kGi}};
  ResourceList diff = ResourceList::Difference(lhs, ResourceList{{"cpu", 1500}, {"pods", 1}});
  CHECK(Entries(diff) == EntryList{{"cpu", -500}, {"memory", 2 * kGi}});
}

TEST_CASE("MaxWith takes the per-key maximum over the union of keys", "[resources]") {
  ResourceList a{{"cpu", 1000}, {"memory", kGi}, {"example.com/a", 1}};
  ResourceList b{{"cpu", 2000}, {"memory", 512 * kMi}, {"pods", 4}};
  a.MaxWith(b);
  CHECK(Entries(a) == EntryList{{"cpu", 2000}, {"example.com/a", 1}, {"memory", kGi}, {"pods", 4}});
}

TEST_CASE("MinWith keeps only keys present on both sides", "[resources]") {
  ResourceList a{{"cpu", 1000}, {"memory", kGi}, {"example.com/a", 1}, {"example.com/c", 9}};
  ResourceList b{{"cpu", 2000}, {"memory", 512 * kMi}, {"pods", 4}, {"example.com/c", 3}};
  a.MinWith(b);
  CHECK(Entries(a) == EntryList{{"cpu", 1000}, {"example.com/c", 3}, {"memory", 512 * kMi}});
  CHECK_FALSE(a.Has("pods"));
  CHECK_FALSE(a.Has("example.com/a"));

  ResourceList c{{"cpu", 1}};
  c.MinWith(ResourceList{});
  CHECK(c.empty());
}

TEST_CASE("Admits compares each candidate quantity with the total", "[resources]") {
  ResourceList total{{"cpu", 2000}, {"memory", 4 * kGi}, {"pods", 10}};
  CHECK(total.Admits(ResourceList{}));
  CHECK(total.Admits(ResourceList{{"cpu", 1000}}));
  CHECK(total.Admits(ResourceList{{"cpu", 2000}, {"memory", 4 * kGi}, {"pods", 10}}));
  CHECK_FALSE(total.Admits(ResourceList{{"cpu", 2001}}));
  CHECK_FALSE(total.Admits(ResourceList{{"cpu", 1000}, {"pods", 11}}));
  CHECK(karp::Fits(ResourceList{{"cpu", 1000}}, total));
  CHECK_FALSE(karp::Fits(ResourceList{{"memory", 4 * kGi + 1}}, total));
}

TEST_CASE("an absent capacity counts as zero", "[resources]") {
  ResourceList total{{"cpu", 2000}, {"memory", 4 * kGi}};
  CHECK_FALSE(total.Admits(ResourceList{{"nvidia.com/gpu", 1}}));
  CHECK_FALSE(total.Admits(ResourceList{{"pods", 1}}));
  CHECK(total.Admits(ResourceList{{"nvidia.com/gpu", 0}}));
  CHECK(total.Admits(ResourceList{{"pods", 0}}));
  CHECK_FALSE(karp::Fits(ResourceList{{"cpu", 100}, {"example.com/widget", 1}}, total));
}

TEST_CASE("a negative total admits nothing", "[resources]") {
  ResourceList total{{"cpu", 2000}, {"memory", -1}};
  CHECK(total.AnyNegative());
  CHECK_FALSE(total.Admits(ResourceList{}));
  CHECK_FALSE(total.Admits(ResourceList{{"cpu", 1}}));
  CHECK_FALSE(karp::Fits(ResourceList{}, total));

  ResourceList extended_negative{{"cpu", 2000}, {"example.com/widget", -5}};
  CHECK_FALSE(extended_negative.Admits(ResourceList{{"cpu", 1}}));

  ResourceList fine{{"cpu", 0}};
  CHECK_FALSE(fine.AnyNegative());
  CHECK(fine.Admits(ResourceList{}));
}

TEST_CASE("Shortfall names the resources that do not fit", "[resources]") {
  ResourceList total{{"cpu", 1000}, {"memory", kGi}};
  CHECK(total.Shortfall(ResourceList{{"cpu", 1000}}).empty());
  std::vector<std::string> over =
      total.Shortfall(ResourceList{{"cpu", 2000}, {"memory", 512 * kMi}, {"nvidia.com/gpu", 1}});
  std::sort(over.begin(), over.end());
  CHECK(over == std::vector<std::string>{"cpu", "nvidia.com/gpu"});
  std::vector<std::string> mem = total.Shortfall(ResourceList{{"memory", kGi + 1}});
  CHECK(mem == std::vector<std::string>{"memory"});
}

TEST_CASE("arithmetic saturates instead of overflowing", "[resources]") {
  ResourceList a{{"cpu", kMax}, {"example.com/big", kMax}};
  a.Add(ResourceList{{"cpu", 1}, {"example.com/big", kMax}});
  CHECK(a.cpu() == kMax);
  CHECK(a.Get("example.com/big") == kMax);

  ResourceList b{{"memory", kMin + 1}, {"example.com/small", kMin}};
  b.Subtract(ResourceList{{"memory", 5}, {"example.com/small", 1}});
  CHECK(b.memory() == kMin);
  CHECK(b.Get("example.com/small") == kMin);

  ResourceList c{{"pods", kMax - 1}};
  c.Subtract(ResourceList{{"pods", -10}});
  CHECK(c.pods() == kMax);

  ResourceList d{{"cpu", kMin}};
  d.Add(ResourceList{{"cpu", -1}});
  CHECK(d.cpu() == kMin);

  CHECK(ResourceList::Sum(ResourceList{{"cpu", kMax}}, ResourceList{{"cpu", kMax}}).cpu() == kMax);
}

TEST_CASE("equality compares names and values, not insertion order", "[resources]") {
  ResourceList a;
  a.Set("memory", kGi);
  a.Set("cpu", 1000);
  a.Set("nvidia.com/gpu", 1);
  ResourceList b{{"nvidia.com/gpu", 1}, {"cpu", 1000}, {"memory", kGi}};
  CHECK(a == b);
  CHECK_FALSE(a != b);

  ResourceList c = b;
  c.Set("nvidia.com/gpu", 2);
  CHECK(a != c);

  ResourceList d = b;
  d.Set("pods", 0);
  CHECK(a != d);

  // A resource that was set and then erased no longer counts.
  ResourceList e = b;
  e.Set("pods", 7);
  e.Erase("pods");
  CHECK(e == b);
  ResourceList f = b;
  f.Set("example.com/x", 7);
  f.Erase("example.com/x");
  CHECK(f == b);
  ResourceList g{{"cpu", 5}};
  g.Erase("cpu");
  CHECK(g == ResourceList{});
  CHECK(g.ToString() == "{}");
}
