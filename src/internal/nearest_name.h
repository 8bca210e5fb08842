// The "did you mean" of error messages: the known name nearest to a misspelt one, shared by the
// codec's unknown-field check (src/json/schema.cc) and the model's validators
// (src/model/validation.cc).

#ifndef KARP_SRC_INTERNAL_NEAREST_NAME_H_
#define KARP_SRC_INTERNAL_NEAREST_NAME_H_

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string_view>
#include <vector>

namespace karp::internal {

// Case-insensitive optimal string alignment distance (a transposition is one edit), stopping
// early: bound + 1 when the distance is above `bound`. O(|a| |b|).
inline size_t NameDistance(std::string_view a, std::string_view b, size_t bound) {
  const size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > bound) return bound + 1;
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  std::vector<size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    size_t row_min = cur[0];
    for (size_t j = 1; j <= m; ++j) {
      const bool same = lower(a[i - 1]) == lower(b[j - 1]);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1])) {
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      }
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > bound) return bound + 1;
    prev2.swap(prev);
    prev.swap(cur);
  }
  return prev[m];
}

// The name of `names` nearest to `key` (distance at most 2, or a third of the key's length;
// ties: the first), or empty when none is near enough.
inline std::string_view NearestName(std::string_view key,
                                    const std::vector<std::string_view>& names) {
  const size_t bound = std::max<size_t>(2, key.size() / 3);
  std::string_view best;
  size_t best_distance = bound + 1;
  for (std::string_view name : names) {
    const size_t d = NameDistance(key, name, bound);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace karp::internal

#endif  // KARP_SRC_INTERNAL_NEAREST_NAME_H_
