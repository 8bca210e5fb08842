// Tests at two sizes: property tests over many random cases and long replays run at a CI size
// in a default test run and at their full size under the ctest label `slow`.
//
//   void CheckRandomCases(int cases) { ... }
//   KARP_SIZED_TEST_CASE("random cases satisfy the rules", "[property]", 150, 500,
//                        CheckRandomCases)
//
// registers two Catch2 test cases with the same assertions: "random cases satisfy the rules"
// (CheckRandomCases(150)) and "random cases satisfy the rules (full size)"
// (CheckRandomCases(500)), the second hidden and tagged [slow]. tests/CMakeLists.txt gives the
// [slow] ones the ctest label `slow`:
//
//   ctest --test-dir build -LE slow    the CI size only (the sanitizer run in CI)
//   ctest --test-dir build -L slow     the full sizes only
//   ctest --test-dir build             everything (the README's command; Release CI)

#ifndef KARP_TESTS_SUPPORT_SIZED_TEST_H_
#define KARP_TESTS_SUPPORT_SIZED_TEST_H_

#include <catch2/catch.hpp>

#define KARP_SIZED_TEST_CASE(NAME, TAGS, CI_SIZE, FULL_SIZE, RUN) \
  TEST_CASE(NAME, TAGS) { RUN(CI_SIZE); }                         \
  TEST_CASE(NAME " (full size)", TAGS "[.][slow]") { RUN(FULL_SIZE); }

#endif  // KARP_TESTS_SUPPORT_SIZED_TEST_H_
