// The first-fit index (src/scheduling/first_fit_index.h) against a linear scan: after random
// inserts, erases and room changes, Next() returns exactly the first entry of the ordered list
// whose room covers the need.

#include "scheduling/first_fit_index.h"

#include <catch2/catch.hpp>
#include "support/sized_test.h"

#include <cstdint>
#include <map>
#include <random>
#include <utility>

namespace {

using karp::scheduling::FirstFitIndex;

struct Entry {
  int64_t rank;
  FirstFitIndex::Room room;
};

bool Covers(const FirstFitIndex::Room& room, const FirstFitIndex::Room& need) {
  return room[0] >= need[0] && room[1] >= need[1] && room[2] >= need[2];
}

// The linear scan the index replaces: entries in (rank, id) order, first that covers `need`
// with a key after `after`.
int64_t Scan(const std::map<int64_t, Entry>& entries, const FirstFitIndex::Key* after,
             const FirstFitIndex::Room& need) {
  std::map<FirstFitIndex::Key, int64_t> ordered;
  for (const auto& [id, e] : entries) ordered[{e.rank, id}] = id;
  for (const auto& [key, id] : ordered) {
    if (after != nullptr && !(*after < key)) continue;
    if (Covers(entries.at(id).room, need)) return id;
  }
  return -1;
}

}  // namespace

void CheckAgainstLinearScan(int steps) {
  std::mt19937_64 rng(7);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  FirstFitIndex index;
  std::map<int64_t, Entry> entries;
  for (int step = 0; step < steps; ++step) {
    const int64_t id = uniform(0, 199);
    if (entries.count(id) > 0) {
      index.Erase(id);
      entries.erase(id);
      if (uniform(0, 1) == 0) continue;  // else re-insert with a new rank and room (an update)
    }
    Entry e{uniform(0, 5), {uniform(-2, 8), uniform(-2, 8), uniform(0, 3)}};
    index.Insert(id, e.rank, e.room);
    entries[id] = e;
    REQUIRE(index.Contains(id));
    const FirstFitIndex::Room need = {
        uniform(0, 8), uniform(0, 1) == 0 ? FirstFitIndex::kAny : uniform(0, 8), uniform(0, 3)};
    INFO("step " << step);
    // Walk the whole list as first fit does.
    FirstFitIndex::Cursor cursor(index, need);
    REQUIRE(cursor.id() == Scan(entries, nullptr, need));
    while (cursor.id() >= 0) {
      const FirstFitIndex::Key key = index.KeyOf(cursor.id());
      REQUIRE(cursor.key() == key);
      cursor.Advance();
      REQUIRE(cursor.id() == Scan(entries, &key, need));
    }
  }
  for (const auto& [id, e] : entries) index.Erase(id);
  CHECK(
      FirstFitIndex::Cursor(index, {FirstFitIndex::kAny, FirstFitIndex::kAny, FirstFitIndex::kAny})
          .id() == -1);
}

KARP_SIZED_TEST_CASE("the first-fit index finds what a linear scan finds", "[first_fit_index]",
                     1000, 3000, CheckAgainstLinearScan)
