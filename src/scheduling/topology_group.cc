// A topology group (docs/design.md §5.12, karpenter's topologygroup.go): the pods a selector
// matches, counted per domain of one topology key, and the domains a pod may go to next under
// spread, affinity or anti-affinity; and a spread constraint's node filter.

#include "scheduling/topology_group.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "internal/strings.h"
#include "karp/labels.h"

namespace karp::scheduling {
namespace {

constexpr int32_t kMaxInt32 = std::numeric_limits<int32_t>::max();

bool SingleNodeDomain(const std::string& key, const Requirement& node_domains) {
  return key == kLabelHostname && node_domains.op() == Operator::kIn &&
         node_domains.values().size() == 1;
}

}  // namespace

bool NodeFilter::Matches(const Requirements& node_reqs, const std::vector<Taint>& taints) const {
  if (honor_taints && !ToleratesAll(taints, tolerations)) return false;
  if (terms.empty()) return true;
  for (const Requirements& term : terms) {
    if (node_reqs.IsCompatible(term, nullptr)) return true;
  }
  return false;
}

std::string NodeFilter::Id() const {
  std::string out = honor_taints ? "honor:" : "ignore:";
  for (const Requirements& t : terms) internal::StrAppend(&out, "(", t.ToString(), ")");
  if (honor_taints) {
    for (const Toleration& t : tolerations) {
      internal::StrAppend(&out, "[", t.key, TolerationOperatorName(t.op), t.value,
                          TaintEffectName(t.effect), "]");
    }
  }
  return out;
}

bool TopologyGroup::Selects(const Pod& pod) const {
  if (!selector) return false;
  static const std::string* const kDefault = new std::string("default");
  const std::string& ns = pod.metadata.namespace_.empty() ? *kDefault : pod.metadata.namespace_;
  if (namespaces.size() == 1) {
    const std::string& only = *namespaces.begin();
    if (only != ns && only != kAllNamespaces) return false;
  } else if (namespaces.count(kAllNamespaces) == 0 && namespaces.count(ns) == 0) {
    return false;
  }
  return selector->Matches(pod.metadata.labels);
}

bool TopologyGroup::Counts(const Pod& pod, const Requirements& node_reqs,
                           const std::vector<Taint>& taints) const {
  return Selects(pod) && filter.Matches(node_reqs, taints);
}

void TopologyGroup::Register(const std::string& domain) {
  if (!Find(domain)) counts.Insert(std::make_pair(domain, 0));
}

void TopologyGroup::Record(const std::string& domain) {
  RecordClaimSlot(domain, view.registry != nullptr ? view.registry->SlotOf(domain) : -1);
}

void TopologyGroup::RecordClaimSlot(const std::string& domain, int32_t slot) {
  const int32_t count = ++counts.Ref(domain);
  if (view.registry != nullptr) SetSlotCount(slot, count);
}

void TopologyGroup::TakeBack(const std::string& domain, bool keep) {
  const int32_t count = --counts.Ref(domain);
  const HostnameRegistry::Entry* e =
      view.registry != nullptr ? view.registry->Find(domain) : nullptr;
  if (e != nullptr) SetSlotCount(e->slot, count);
  if (count > 0) return;
  // A name the view sees is a domain at 0 without an entry of its own.
  if (!keep || (e != nullptr && view.Sees(*e))) counts.Erase(domain);
}

void TopologyGroup::SetSlotCount(int32_t slot, int32_t count) {
  if (slot < 0) return;
  const size_t s = static_cast<size_t>(slot);
  if (slot_counts.size() <= s) slot_counts.resize(s + 1, 0);
  const int32_t before = slot_counts[s];
  slot_counts[s] = count;
  if (slot_histogram.size() <= static_cast<size_t>(count)) {
    slot_histogram.resize(static_cast<size_t>(count) + 1, 0);
  }
  if (before > 0) --slot_histogram[static_cast<size_t>(before)];
  if (count > 0) ++slot_histogram[static_cast<size_t>(count)];
}

std::optional<int32_t> TopologyGroup::Find(const std::string& domain) const {
  auto it = counts.find(domain);
  if (it != counts.end()) return it->second;
  if (view.registry == nullptr) return std::nullopt;
  const HostnameRegistry::Entry* e = view.registry->Find(domain);
  if (e != nullptr && view.Sees(*e)) return 0;
  return std::nullopt;
}

bool TopologyGroup::AnyCounted() const {
  for (const auto& [domain, count] : counts) {
    if (count > 0) return true;
  }
  return false;
}

int32_t TopologyGroup::DomainMinCount(const Requirement& pod_domains) const {
  if (key == kLabelHostname) return 0;
  int32_t min = kMaxInt32;
  int32_t supported = 0;
  ForEachDomain([&](const std::string& domain, int32_t count) {
    if (pod_domains.Has(domain)) {
      ++supported;
      min = std::min(min, count);
    }
    return true;
  });
  if (min_domains && supported < *min_domains) min = 0;
  return min;
}

bool TopologyGroup::AnyCompatiblePodDomain(const Requirement& pod_domains) const {
  // Domains the view adds are at 0: only the group's own counts can be positive.
  for (const auto& [domain, count] : counts) {
    if (count > 0 && pod_domains.Has(domain)) return true;
  }
  return false;
}

Requirement TopologyGroup::Next(const Pod& pod, const Requirement& pod_domains,
                                const Requirement& node_domains) const {
  if (std::optional<bool> single = NextOnSingleDomain(pod, pod_domains, node_domains)) {
    return *single ? Requirement::In(key, {node_domains.values()[0]})
                   : Requirement::DoesNotExist(key);
  }
  switch (type) {
    case TopologyType::kSpread:
      return NextSpread(pod, pod_domains, node_domains);
    case TopologyType::kAffinity:
      return NextAffinity(pod, pod_domains, node_domains);
    case TopologyType::kAntiAffinity:
      return NextAntiAffinity(pod_domains, node_domains);
  }
  return Requirement::DoesNotExist(key);
}

std::optional<bool> TopologyGroup::NextOnSingleDomain(const Pod& pod,
                                                      const Requirement& pod_domains,
                                                      const Requirement& node_domains) const {
  if (!SingleNodeDomain(key, node_domains)) return std::nullopt;
  const std::string& host = node_domains.values()[0];
  switch (type) {
    case TopologyType::kSpread:
      return static_cast<int64_t>(CountOf(host)) + (Selects(pod) ? 1 : 0) <= max_skew;
    case TopologyType::kAffinity:
      if (!pod_domains.Has(host)) return false;
      if (CountOf(host) > 0) return true;
      return Selects(pod) && (!AnyCounted() || !AnyCompatiblePodDomain(pod_domains));
    case TopologyType::kAntiAffinity:
      return CountOf(host) == 0;
  }
  return false;
}

Requirement TopologyGroup::NextSpread(const Pod& pod, const Requirement& pod_domains,
                                      const Requirement& node_domains) const {
  const int32_t self = Selects(pod) ? 1 : 0;  // a single node domain: NextOnSingleDomain
  const int64_t min = DomainMinCount(pod_domains);
  const std::string* best = nullptr;
  int64_t best_count = kMaxInt32;
  auto consider = [&](const std::string& domain, int32_t stored) {
    const int64_t count = static_cast<int64_t>(stored) + self;
    if (count - min <= max_skew && count < best_count) {
      best = &domain;
      best_count = count;
    }
  };
  if (node_domains.op() == Operator::kIn) {
    for (const std::string& d : node_domains.values()) {
      if (std::optional<int32_t> count = Find(d)) consider(d, *count);
    }
  } else {
    ForEachDomain([&](const std::string& domain, int32_t count) {
      if (node_domains.Has(domain)) consider(domain, count);
      return true;
    });
  }
  if (best == nullptr) return Requirement::DoesNotExist(key);
  return Requirement::In(key, {*best});
}

Requirement TopologyGroup::NextAffinity(const Pod& pod, const Requirement& pod_domains,
                                        const Requirement& node_domains) const {
  const bool self = Selects(pod);  // a single node domain: NextOnSingleDomain
  const bool none_anywhere = !AnyCounted();
  std::vector<std::string> options;
  for (const auto& [domain, count] : counts) {  // positive counts are the group's own
    if (count > 0 && pod_domains.Has(domain) && node_domains.Has(domain)) {
      options.push_back(domain);
    }
  }
  if (!options.empty()) return Requirement::In(key, std::move(options));
  if (self && (none_anywhere || !AnyCompatiblePodDomain(pod_domains))) {
    // Bootstrap: the first domain (by name) allowed by both the pod and the node, and the
    // first allowed by the pod.
    const Requirement both = pod_domains.Intersection(node_domains);
    auto first_in = [&](const Requirement& allowed) {
      ForEachDomain([&](const std::string& domain, int32_t) {
        if (!allowed.Has(domain)) return true;
        options.push_back(domain);
        return false;
      });
    };
    first_in(both);
    first_in(pod_domains);
  }
  if (options.empty()) return Requirement::DoesNotExist(key);
  return Requirement::In(key, std::move(options));
}

Requirement TopologyGroup::NextAntiAffinity(const Requirement& pod_domains,
                                            const Requirement& node_domains) const {
  std::vector<std::string> options;  // a single node domain: NextOnSingleDomain
  ForEachDomain([&](const std::string& domain, int32_t count) {
    if (count == 0 && node_domains.Has(domain) && pod_domains.Has(domain)) {
      options.push_back(domain);
    }
    return true;
  });
  if (options.empty()) return Requirement::DoesNotExist(key);
  return Requirement::In(key, std::move(options));
}

std::string TopologyGroup::CountsString() const {
  std::vector<std::string> parts;
  ForEachDomain([&](const std::string& d, int32_t c) {
    parts.push_back(internal::StrCat(d, ":", c));
    return true;
  });
  return internal::StrCat("map[", absl::StrJoin(parts, " "), "]");
}

// Without bounds (values are sorted and unique): In ∩ In keeps a's values iff they are all b's,
// In ∩ NotIn iff none is b's, NotIn ∩ NotIn iff b's are all a's; NotIn ∩ In is never a
// complement. The intersection's minValues is the larger one.
bool IntersectionKeeps(const Requirement& a, const Requirement& b) {
  if (a.gte() || a.lte() || b.gte() || b.lte()) return a == a.Intersection(b);
  const std::optional<int>& amv = a.min_values();
  const std::optional<int>& bmv = b.min_values();
  if (bmv && (!amv || *bmv > *amv)) return false;
  const std::vector<std::string>& x = a.values();
  const std::vector<std::string>& y = b.values();
  if (!a.complement() && !b.complement())
    return std::includes(y.begin(), y.end(), x.begin(), x.end());
  if (a.complement() && b.complement())
    return std::includes(x.begin(), x.end(), y.begin(), y.end());
  if (a.complement()) return false;
  // In ∩ NotIn: no value in common.
  for (size_t i = 0, j = 0; i < x.size() && j < y.size();) {
    if (x[i] == y[j]) return false;
    (x[i] < y[j]) ? ++i : ++j;
  }
  return true;
}

}  // namespace karp::scheduling
