// The simulator's seeded random source: fixed, portable hashing and mixing, so that a run
// draws the same numbers on every platform and standard library.

#ifndef KARP_SRC_SIM_RANDOM_H_
#define KARP_SRC_SIM_RANDOM_H_

#include <cstdint>
#include <string_view>

namespace karp::sim {

// FNV-1a, for hashes that must not depend on the standard library's implementation.
inline uint64_t Fnv1a(std::string_view s, uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// splitmix64: a fixed, portable mixing function (the seeded random source).
inline uint64_t SplitMix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// A uniform double in [0, 1) from 53 bits of `x`.
inline double Unit(uint64_t x) { return static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0); }

}  // namespace karp::sim

#endif  // KARP_SRC_SIM_RANDOM_H_
