// The shared LP instance (quality/lp_instance.h).

#include "quality/lp_instance.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "internal/strings.h"

namespace karp::quality {

int64_t MaxCopies(const LpItem& item, const LpKind& kind) {
  int64_t n = item.exclusive.empty() ? item.count : 1;
  for (size_t r = 0; r < item.size.size(); ++r) {
    if (item.size[r] <= 0) continue;
    const double room = kind.capacity[r] * (1 + kCapacitySlack) + kCapacitySlack;
    n = std::min<int64_t>(n, static_cast<int64_t>(std::floor(room / item.size[r])));
  }
  return n;
}

absl::Status CheckLpInput(const std::vector<LpKind>& kinds, const std::vector<LpItem>& items,
                          size_t resources) {
  for (size_t i = 0; i < items.size(); ++i) {
    const LpItem& item = items[i];
    if (item.kinds.empty()) {
      return absl::InvalidArgumentError(internal::StrCat("LP bound: items[", i, "] has no kind"));
    }
    if (item.count < 1 || item.size.size() != resources) {
      return absl::InvalidArgumentError(
          internal::StrCat("LP bound: items[", i, "] needs count >= 1 and ", resources, " sizes"));
    }
    for (int e : item.exclusive) {
      if (e < 0) {
        return absl::InvalidArgumentError(
            internal::StrCat("LP bound: items[", i, "] has a negative exclusive set"));
      }
    }
    for (int k : item.kinds) {
      if (k < 0 || static_cast<size_t>(k) >= kinds.size()) {
        return absl::InvalidArgumentError(
            internal::StrCat("LP bound: items[", i, "] names kind ", k, " of ", kinds.size()));
      }
      const LpKind& kind = kinds[static_cast<size_t>(k)];
      if (!(kind.price > 0) || kind.capacity.size() != resources) {
        return absl::InvalidArgumentError(internal::StrCat(
            "LP bound: kinds[", k, "] needs a price > 0 and ", resources, " capacities"));
      }
      if (MaxCopies(item, kind) < 1) {
        return absl::InvalidArgumentError(
            internal::StrCat("LP bound: items[", i, "] does not fit alone on kinds[", k, "]"));
      }
    }
  }
  return absl::OkStatus();
}

int ExclusiveSetCount(const std::vector<LpItem>& items) {
  int sets = 0;
  for (const LpItem& item : items) {
    for (int e : item.exclusive) sets = std::max(sets, e + 1);
  }
  return sets;
}

void KeepKinds(const std::vector<LpKind>& kinds, const std::vector<LpItem>& items,
               std::vector<LpKind>* kept, std::vector<KindItems>* kind_items) {
  std::vector<std::vector<int>> items_of_kind(kinds.size());
  for (size_t i = 0; i < items.size(); ++i) {
    for (int k : items[i].kinds) {
      items_of_kind[static_cast<size_t>(k)].push_back(static_cast<int>(i));
    }
  }
  std::map<std::pair<std::vector<double>, std::vector<int>>, size_t> cheapest;
  for (size_t k = 0; k < kinds.size(); ++k) {
    if (items_of_kind[k].empty()) continue;
    auto [pos, inserted] = cheapest.emplace(std::make_pair(kinds[k].capacity, items_of_kind[k]), k);
    if (!inserted && kinds[k].price < kinds[pos->second].price) pos->second = k;
  }
  std::vector<size_t> order;
  for (const auto& [key, k] : cheapest) order.push_back(k);
  std::sort(order.begin(), order.end());
  for (size_t k : order) {
    kept->push_back(kinds[k]);
    KindItems ki;
    ki.items = items_of_kind[k];
    ki.position.assign(items.size(), -1);
    for (size_t p = 0; p < ki.items.size(); ++p) {
      const int i = ki.items[p];
      ki.copies.push_back(MaxCopies(items[static_cast<size_t>(i)], kinds[k]));
      ki.position[static_cast<size_t>(i)] = static_cast<int>(p);
    }
    kind_items->push_back(std::move(ki));
  }
}

}  // namespace karp::quality
