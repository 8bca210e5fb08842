// Preference relaxation (docs/design.md §5.7, karpenter's preferences.go): one step at a time,
// from required node-affinity terms to a PreferNoSchedule toleration.

#include "scheduling/preferences.h"

#include <algorithm>

namespace karp::scheduling {
namespace {

bool HasPreferNoScheduleToleration(const Pod& pod) {
  for (const Toleration& t : pod.tolerations) {
    if (t.op == TolerationOperator::kExists && t.effect == TaintEffect::kPreferNoSchedule &&
        t.key.empty()) {
      return true;
    }
  }
  return false;
}

}  // namespace

// One relaxation step (docs/design.md §5.7). Returns false when nothing could be relaxed.
bool Relax(Pod& pod, bool tolerate_prefer_no_schedule) {
  if (pod.node_affinity.required.size() >= 2) {
    pod.node_affinity.required.erase(pod.node_affinity.required.begin());
    return true;
  }
  auto drop_heaviest = [](auto& terms) {
    if (terms.empty()) return false;
    std::stable_sort(terms.begin(), terms.end(),
                     [](const auto& a, const auto& b) { return a.weight > b.weight; });
    terms.erase(terms.begin());
    return true;
  };
  if (drop_heaviest(pod.pod_affinity.preferred)) return true;
  if (drop_heaviest(pod.pod_anti_affinity.preferred)) return true;
  if (drop_heaviest(pod.node_affinity.preferred)) return true;
  for (auto it = pod.topology_spread_constraints.begin();
       it != pod.topology_spread_constraints.end(); ++it) {
    if (it->when_unsatisfiable == WhenUnsatisfiable::kScheduleAnyway) {
      pod.topology_spread_constraints.erase(it);
      return true;
    }
  }
  if (tolerate_prefer_no_schedule && !HasPreferNoScheduleToleration(pod)) {
    pod.tolerations.push_back(
        {"", TolerationOperator::kExists, "", TaintEffect::kPreferNoSchedule});
    return true;
  }
  return false;
}

}  // namespace karp::scheduling
