// SelectorIndex: the topology groups that may select a pod, found from the labels a group's
// selector requires.

#ifndef KARP_SRC_SCHEDULING_SELECTOR_INDEX_H_
#define KARP_SRC_SCHEDULING_SELECTOR_INDEX_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "karp/objects.h"

namespace karp::scheduling {

class TopologyGroup;

// The label pairs one of which a pod must carry for `s` to select it: the first matchLabels
// entry, else each value of the first In expression. Calls f(key, value) for each and returns
// true, or returns false when `s` requires no such pair (then any pod may match).
template <typename F>
bool ForEachRequiredPair(const LabelSelector& s, F&& f) {
  if (!s.match_labels.empty()) {
    const auto& [k, v] = *s.match_labels.begin();
    f(std::string_view(k), std::string_view(v));
    return true;
  }
  auto in = std::find_if(s.match_expressions.begin(), s.match_expressions.end(),
                         [](const LabelSelectorRequirement& e) { return e.op == Operator::kIn; });
  if (in == s.match_expressions.end()) return false;
  for (const std::string& v : in->values) f(std::string_view(in->key), std::string_view(v));
  return true;
}

// Groups of a list (by position) under a label pair their selector requires, so that the
// groups that may select a pod are found from the pod's labels instead of by testing every
// group: a pod whose labels are its own (a label class of one pod) would otherwise test them
// all, and a Solve would cost pods x groups. Groups that require no such pair are always
// candidates; groups without a selector select nothing and are never candidates.
class SelectorIndex {
 public:
  // Indexes groups [indexed, groups.size()) of `groups` (a list that only grows). The views
  // kept point into the groups' selectors, which must not change while the index lives.
  void Extend(const std::vector<TopologyGroup*>& groups);
  // The positions >= `from` of the indexed groups that may select a pod with `labels` (every
  // group that does, and maybe others), ascending and distinct.
  std::vector<uint32_t> Candidates(const std::map<std::string, std::string>& labels,
                                   size_t from) const;

 private:
  size_t indexed_ = 0;
  absl::flat_hash_map<std::pair<std::string_view, std::string_view>, std::vector<uint32_t>>
      by_pair_;                 // looked up, never iterated
  std::vector<uint32_t> scan_;  // groups that require no label pair
};

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_SELECTOR_INDEX_H_
