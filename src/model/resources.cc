// ResourceList (see karp/resources.h).

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "internal/strings.h"
#include "karp/resources.h"

namespace karp {
namespace {

int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return r;
}

int64_t SatSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) {
    return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return r;
}

}  // namespace

std::string_view ResourceList::WellKnownName(int index) {
  switch (index) {
    case 0:
      return kResourceCpu;
    case 1:
      return kResourceMemory;
    case 2:
      return kResourceEphemeralStorage;
    default:
      return kResourcePods;
  }
}

int ResourceList::WellKnownIndex(std::string_view name) {
  if (name == kResourceCpu) return 0;
  if (name == kResourceMemory) return 1;
  if (name == kResourceEphemeralStorage) return 2;
  if (name == kResourcePods) return 3;
  return -1;
}

ResourceList::ResourceList(std::initializer_list<std::pair<std::string_view, int64_t>> entries) {
  for (const auto& [name, value] : entries) Set(name, value);
}

absl::StatusOr<ResourceList> ResourceList::Parse(
    const std::vector<std::pair<std::string, std::string>>& entries, bool allow_negative) {
  ResourceList out;
  for (const auto& [name, text] : entries) {
    absl::StatusOr<int64_t> v = ParseQuantity(text, name, allow_negative);
    if (!v.ok()) {
      return absl::InvalidArgumentError(internal::StrCat(name, ": ", v.status().message()));
    }
    out.Set(name, *v);
  }
  return out;
}

bool ResourceList::Has(std::string_view name) const {
  int k = WellKnownIndex(name);
  if (k >= 0) return (present_ >> k) & 1u;
  auto it = std::lower_bound(extended_.begin(), extended_.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  return it != extended_.end() && it->first == name;
}

int64_t ResourceList::Get(std::string_view name) const {
  int k = WellKnownIndex(name);
  if (k >= 0) return wk_[k];
  auto it = std::lower_bound(extended_.begin(), extended_.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  return (it != extended_.end() && it->first == name) ? it->second : 0;
}

void ResourceList::Set(std::string_view name, int64_t value) {
  int k = WellKnownIndex(name);
  if (k >= 0) {
    wk_[k] = value;
    present_ |= static_cast<uint8_t>(1u << k);
    return;
  }
  auto it = std::lower_bound(extended_.begin(), extended_.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  if (it != extended_.end() && it->first == name) {
    it->second = value;
  } else {
    extended_.insert(it, {std::string(name), value});
  }
}

void ResourceList::Erase(std::string_view name) {
  int k = WellKnownIndex(name);
  if (k >= 0) {
    wk_[k] = 0;
    present_ &= static_cast<uint8_t>(~(1u << k));
    return;
  }
  auto it = std::lower_bound(extended_.begin(), extended_.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  if (it != extended_.end() && it->first == name) extended_.erase(it);
}

size_t ResourceList::size() const {
  return static_cast<size_t>(__builtin_popcount(present_)) + extended_.size();
}

std::vector<std::string> ResourceList::Names() const {
  std::vector<std::string> out;
  ForEach([&](std::string_view name, int64_t) { out.emplace_back(name); });
  return out;
}

namespace {

using Extended = std::vector<std::pair<std::string, int64_t>>;

// For each entry of `other` (sorted by name, as `mine`): mine's value becomes
// combine(mine's, other's), or other's entry is inserted when mine has none. Linear in both
// sizes; allocates only when an entry is new.
template <typename Fn>
void MergeExtended(Extended& mine, const Extended& other, Fn combine) {
  size_t i = 0;
  size_t missing = 0;
  for (const auto& [name, value] : other) {
    while (i < mine.size() && mine[i].first < name) ++i;
    if (i < mine.size() && mine[i].first == name) {
      mine[i].second = combine(mine[i].second, value);
      ++i;
    } else {
      ++missing;
    }
  }
  if (missing == 0) return;
  Extended merged;
  merged.reserve(mine.size() + missing);
  size_t a = 0;
  for (const auto& entry : other) {
    while (a < mine.size() && mine[a].first < entry.first) merged.push_back(std::move(mine[a++]));
    if (a < mine.size() && mine[a].first == entry.first) {
      merged.push_back(std::move(mine[a++]));  // combined above
    } else {
      merged.push_back(entry);
    }
  }
  while (a < mine.size()) merged.push_back(std::move(mine[a++]));
  mine = std::move(merged);
}

}  // namespace

void ResourceList::Add(const ResourceList& other) {
  for (int k = 0; k < 4; ++k) {
    if ((other.present_ >> k) & 1u) {
      wk_[k] = SatAdd(wk_[k], other.wk_[k]);
      present_ |= static_cast<uint8_t>(1u << k);
    }
  }
  MergeExtended(extended_, other.extended_, [](int64_t a, int64_t b) { return SatAdd(a, b); });
}

void ResourceList::Subtract(const ResourceList& other) {
  for (int k = 0; k < 4; ++k) {
    if ((present_ >> k) & 1u) wk_[k] = SatSub(wk_[k], other.wk_[k]);
  }
  for (auto& [name, value] : extended_) value = SatSub(value, other.Get(name));
}

void ResourceList::MaxWith(const ResourceList& other) {
  for (int k = 0; k < 4; ++k) {
    if (!((other.present_ >> k) & 1u)) continue;
    if ((present_ >> k) & 1u) {
      wk_[k] = std::max(wk_[k], other.wk_[k]);
    } else {
      wk_[k] = other.wk_[k];
      present_ |= static_cast<uint8_t>(1u << k);
    }
  }
  MergeExtended(extended_, other.extended_, [](int64_t a, int64_t b) { return std::max(a, b); });
}

void ResourceList::MinWith(const ResourceList& other) {
  for (int k = 0; k < 4; ++k) {
    if (!((present_ >> k) & 1u)) continue;
    if ((other.present_ >> k) & 1u) {
      wk_[k] = std::min(wk_[k], other.wk_[k]);
    } else {
      wk_[k] = 0;
      present_ &= static_cast<uint8_t>(~(1u << k));
    }
  }
  std::vector<std::pair<std::string, int64_t>> kept;
  for (auto& [name, value] : extended_) {
    if (other.Has(name)) kept.emplace_back(name, std::min(value, other.Get(name)));
  }
  extended_ = std::move(kept);
}

ResourceList ResourceList::Sum(const ResourceList& a, const ResourceList& b) {
  ResourceList r = a;
  r.Add(b);
  return r;
}

ResourceList ResourceList::Difference(const ResourceList& a, const ResourceList& b) {
  ResourceList r = a;
  r.Subtract(b);
  return r;
}

bool ResourceList::AnyNegative() const {
  for (int k = 0; k < 4; ++k) {
    if (((present_ >> k) & 1u) && wk_[k] < 0) return true;
  }
  for (const auto& e : extended_) {
    if (e.second < 0) return true;
  }
  return false;
}

bool ResourceList::Admits(const ResourceList& candidate) const {
  if (AnyNegative()) return false;
  // Absent well-known entries hold 0, so the inline comparison is exact.
  for (int k = 0; k < 4; ++k) {
    if (candidate.wk_[k] > wk_[k]) return false;
  }
  for (const auto& [name, value] : candidate.extended_) {
    if (value > Get(name)) return false;
  }
  return true;
}

std::vector<std::string> ResourceList::Shortfall(const ResourceList& candidate) const {
  std::vector<std::string> out;
  candidate.ForEach([&](std::string_view name, int64_t value) {
    if (value > Get(name) || Get(name) < 0) out.emplace_back(name);
  });
  return out;
}

std::string ResourceList::ToString() const {
  std::string out = "{";
  bool first = true;
  ForEach([&](std::string_view name, int64_t value) {
    if (!first) out += ",";
    first = false;
    internal::StrAppend(&out, "\"", internal::AV(name), "\":\"", FormatQuantity(value, name), "\"");
  });
  out += "}";
  return out;
}

bool operator==(const ResourceList& a, const ResourceList& b) {
  if (a.present_ != b.present_ || a.extended_ != b.extended_) return false;
  for (int k = 0; k < 4; ++k) {
    if (((a.present_ >> k) & 1u) && a.wk_[k] != b.wk_[k]) return false;
  }
  return true;
}

}  // namespace karp
