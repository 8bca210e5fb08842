// File: karp/resources.h
//
// Kubernetes quantities and resource lists, held as exact integers in canonical units.
//
//   cpu                                   millicores       ("1.5" -> 1500, "250m" -> 250)
//   memory, ephemeral-storage, storage,   bytes            ("4Gi" -> 4294967296)
//   hugepages-*
//   everything else (pods, nodes,         whole units      ("110", "8", "1k" -> 1000)
//   nvidia.com/gpu, ...)
//
// Parsing accepts the whole Kubernetes quantity grammar: an optional sign, a decimal number
// (`1`, `1.5`, `.5`), then either a binary suffix (`Ki` `Mi` `Gi` `Ti` `Pi` `Ei`), a decimal
// suffix (`n` `u` `m` `k` `M` `G` `T` `P` `E`) or a decimal exponent (`e3`, `E-2`). Values are
// converted to canonical units exactly; a value finer than the unit rounds up, as the
// Kubernetes `Quantity.Value()`/`MilliValue()` accessors do (`0.5m` cpu -> 1m, `1.5` pods -> 2).
//
// Printing is canonical (docs/formats.md): cpu in millicores with `m` unless a whole number of
// cores; memory-like resources in the largest binary suffix that keeps an integer; counts as
// plain integers.
//
// Example:
//   absl::StatusOr<int64_t> cpu = karp::ParseQuantity("1500m", karp::kResourceCpu);  // 1500
//   karp::ResourceList r;
//   r.Set(karp::kResourceCpu, *cpu);
//   r.Set(karp::kResourceMemory, 4LL << 30);
//   r.ToString();  // {"cpu":"1500m","memory":"4Gi"}
//
// Thread-safety: all types here are value types; thread-compatible.

#ifndef KARP_RESOURCES_H_
#define KARP_RESOURCES_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace karp {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourcePods = "pods";
inline constexpr std::string_view kResourceNodes = "nodes";
inline constexpr std::string_view kResourceStorage = "storage";

// How a resource's quantities are scaled and printed.
enum class ResourceUnit {
  kMilli,  // cpu: stored in thousandths
  kBytes,  // memory and storage: stored in bytes, printed with binary suffixes
  kCount,  // everything else: stored in whole units
};

// The unit used for `resource` (see the table at the top of this file).
ResourceUnit UnitOf(std::string_view resource);

// Parses a Kubernetes quantity string for `resource` into canonical units.
// Errors: InvalidArgument naming the text when it is malformed, negative (unless
// `allow_negative`), or does not fit in an int64 in canonical units.
// Complexity: O(length of text).
[[nodiscard]] absl::StatusOr<int64_t> ParseQuantity(std::string_view text,
                                                    std::string_view resource,
                                                    bool allow_negative = false);

// Canonical text for `value` (canonical units of `resource`).
std::string FormatQuantity(int64_t value, std::string_view resource);

// A set of named resource quantities. Presence matters: a resource that is absent differs
// from one that is zero (Subtract keeps only the left side's keys; Fits treats absent
// capacity as zero). The four well-known resources (cpu, memory, ephemeral-storage, pods) are
// stored inline; others (extended resources, `nodes`, hugepages) in a small sorted vector, so
// iteration is always in name order and output is deterministic.
//
// Arithmetic saturates at the int64 range instead of overflowing.
class ResourceList {
 public:
  ResourceList() = default;

  // Builds a list from (name, canonical value) pairs; later duplicates overwrite earlier ones.
  ResourceList(std::initializer_list<std::pair<std::string_view, int64_t>> entries);

  // Parses {name: quantity-string} pairs. Errors: InvalidArgument naming the resource and text.
  [[nodiscard]] static absl::StatusOr<ResourceList> Parse(
      const std::vector<std::pair<std::string, std::string>>& entries, bool allow_negative = false);

  bool Has(std::string_view name) const;
  // The quantity of `name`, or 0 when absent.
  int64_t Get(std::string_view name) const;
  void Set(std::string_view name, int64_t value);
  void Erase(std::string_view name);
  bool empty() const { return size() == 0; }
  size_t size() const;

  // Well-known accessors (0 when absent).
  int64_t cpu() const { return wk_[0]; }
  int64_t memory() const { return wk_[1]; }
  int64_t ephemeral_storage() const { return wk_[2]; }
  int64_t pods() const { return wk_[3]; }

  // Calls fn(name, value) for each present resource in name order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    // Name order: cpu < ephemeral-storage < memory < pods, with extended names interleaved.
    size_t e = 0;
    static constexpr int kOrder[4] = {0, 2, 1, 3};
    for (int k : kOrder) {
      std::string_view wk_name = WellKnownName(k);
      while (e < extended_.size() && std::string_view(extended_[e].first) < wk_name) {
        fn(std::string_view(extended_[e].first), extended_[e].second);
        ++e;
      }
      if (present_ & (1u << k)) fn(wk_name, wk_[k]);
    }
    for (; e < extended_.size(); ++e) fn(std::string_view(extended_[e].first), extended_[e].second);
  }

  // Names of present resources, in name order.
  std::vector<std::string> Names() const;
  // True if a resource other than the four well-known ones is present.
  bool HasExtended() const { return !extended_.empty(); }

  // Per-key sum; a key missing on one side counts as zero (karpenter `Merge`).
  void Add(const ResourceList& other);
  // Per-key difference over the keys of *this only (karpenter `Subtract`).
  void Subtract(const ResourceList& other);
  // Per-key maximum over the union of keys (karpenter `MaxResources`).
  void MaxWith(const ResourceList& other);
  // Per-key minimum, keeping only keys present in both (karpenter `MinResources`).
  void MinWith(const ResourceList& other);

  static ResourceList Sum(const ResourceList& a, const ResourceList& b);
  static ResourceList Difference(const ResourceList& a, const ResourceList& b);

  // True if any present quantity is negative.
  bool AnyNegative() const;

  // karpenter `Fits(candidate, total)`: false if any quantity of *this (total) is negative;
  // otherwise every quantity of `candidate` must be <= the same quantity here, an absent
  // resource counting as zero.
  bool Admits(const ResourceList& candidate) const;

  // Names of resources of `candidate` that exceed *this (empty when Admits is true and
  // nothing here is negative).
  std::vector<std::string> Shortfall(const ResourceList& candidate) const;

  // `{"cpu":"1500m","memory":"4Gi"}` in name order (the reference's log format).
  std::string ToString() const;

  friend bool operator==(const ResourceList& a, const ResourceList& b);
  friend bool operator!=(const ResourceList& a, const ResourceList& b) { return !(a == b); }

 private:
  static std::string_view WellKnownName(int index);
  static int WellKnownIndex(std::string_view name);

  std::array<int64_t, 4> wk_{};  // cpu, memory, ephemeral-storage, pods
  uint8_t present_ = 0;
  std::vector<std::pair<std::string, int64_t>> extended_;  // sorted by name
};

// karpenter `Fits(candidate, total)`.
inline bool Fits(const ResourceList& candidate, const ResourceList& total) {
  return total.Admits(candidate);
}

}  // namespace karp

#endif  // KARP_RESOURCES_H_
