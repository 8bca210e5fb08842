// SelectorIndex: the topology groups that may select a pod, found from the pod's labels.

#include "scheduling/selector_index.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduling/topology_group.h"

namespace karp::scheduling {

void SelectorIndex::Extend(const std::vector<TopologyGroup*>& groups) {
  for (; indexed_ < groups.size(); ++indexed_) {
    const std::optional<LabelSelector>& s = groups[indexed_]->selector;
    const uint32_t i = static_cast<uint32_t>(indexed_);
    if (!s) continue;  // selects nothing
    const bool required = ForEachRequiredPair(*s, [&](std::string_view k, std::string_view v) {
      std::vector<uint32_t>& at = by_pair_[{k, v}];
      if (at.empty() || at.back() != i) at.push_back(i);  // an In value listed twice
    });
    if (!required) scan_.push_back(i);
  }
}

std::vector<uint32_t> SelectorIndex::Candidates(const std::map<std::string, std::string>& labels,
                                                size_t from) const {
  std::vector<uint32_t> out;
  auto add = [&](const std::vector<uint32_t>& list) {
    out.insert(out.end(), std::lower_bound(list.begin(), list.end(), static_cast<uint32_t>(from)),
               list.end());
  };
  add(scan_);
  for (const auto& [k, v] : labels) {
    auto it = by_pair_.find(std::make_pair(std::string_view(k), std::string_view(v)));
    if (it != by_pair_.end()) add(it->second);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace karp::scheduling
