// Pod-level facts of the disruption methods (see pods.h).

#include "disruption/pods.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <utility>

#include "internal/duration.h"
#include "internal/namespace.h"
#include "karp/labels.h"
#include "karp/taints.h"

namespace karp::disruption {

std::string Annotation(const ObjectMeta& m, std::string_view key) {
  auto it = m.annotations.find(std::string(key));
  return it == m.annotations.end() ? std::string() : it->second;
}

std::string Label(const ObjectMeta& m, std::string_view key) {
  auto it = m.labels.find(std::string(key));
  return it == m.labels.end() ? std::string() : it->second;
}

bool IsActive(const Pod& p) { return !p.IsTerminal() && !p.IsTerminating(); }
bool IsMirror(const Pod& p) { return p.IsOwnedBy("Node"); }

bool IsReschedulable(const Pod& p) {
  if (p.IsDaemon() || IsMirror(p)) return false;
  if (p.IsTerminal()) return false;
  return !p.IsTerminating() || p.IsOwnedBy("StatefulSet");
}

bool PodDoNotDisrupt(const Pod& p, absl::Time now) {
  if (!IsActive(p)) return false;
  const std::string v = Annotation(p.metadata, kAnnotationDoNotDisrupt);
  if (v.empty()) return false;
  if (v == "true") return true;
  absl::StatusOr<absl::Duration> d = ParseGoDuration(v, DurationSign::kAllowed);
  if (!d.ok() || *d <= absl::ZeroDuration()) return false;
  if (!p.start_time) return true;
  return now < *p.start_time + *d;
}

double EvictionCost(const Pod& p) {
  double cost = 1.0;
  const std::string dc = Annotation(p.metadata, "controller.kubernetes.io/pod-deletion-cost");
  if (!dc.empty()) {
    char* end = nullptr;
    const double v = std::strtod(dc.c_str(), &end);
    if (end != dc.c_str() && std::isfinite(v)) cost += v / std::pow(2.0, 27);
  }
  cost += static_cast<double>(p.priority) / std::pow(2.0, 25);
  return std::clamp(cost, -10.0, 10.0);
}

bool PdbSelects(const PodDisruptionBudget& pdb, const Pod& pod) { return pdb.Selects(pod); }

int64_t PdbAllowances::Of(const PodDisruptionBudget& pdb) {
  if (pdb.disruptions_allowed) return *pdb.disruptions_allowed;
  auto cached = derived_.find(&pdb);
  if (cached != derived_.end()) return cached->second;
  const int64_t allowed = Derive(pdb);
  derived_[&pdb] = allowed;
  return allowed;
}

int64_t PdbAllowances::Derive(const PodDisruptionBudget& pdb) const {
  int64_t total = 0, healthy = 0;
  for (const Pod& q : snap_.pods) {
    if (!PdbSelects(pdb, q) || !IsActive(q)) continue;
    ++total;
    if (q.phase == "Running") ++healthy;
  }
  auto resolve = [&](const std::string& s) {
    absl::StatusOr<IntOrPercent> count = ParseIntOrPercent(s, /*max_percent_100=*/false);
    return count.ok() ? count->Resolve(total) : 0;
  };
  if (!pdb.max_unavailable.empty()) return resolve(pdb.max_unavailable) - (total - healthy);
  if (!pdb.min_available.empty()) return healthy - resolve(pdb.min_available);
  return 1;
}

const PodFacts& PodCache::Of(const Pod& p, const ClusterSnapshot& snap) {
  auto it = facts.find(&p);
  if (it != facts.end()) return *it->second;
  std::string key = p.Key();
  auto k = by_key.find(key);
  if (k == by_key.end()) {
    PodFacts f;
    f.key = key;
    for (const PodDisruptionBudget& pdb : snap.pdbs) {
      if (PdbSelects(pdb, p)) f.pdbs.push_back(&pdb);
    }
    f.eviction_cost = EvictionCost(p);
    f.mirror = IsMirror(p);
    f.tolerates_disrupted = ToleratesTaint(p.tolerations, DisruptedTaint());
    k = by_key.emplace(std::move(key), std::move(f)).first;
  }
  facts.emplace(&p, &k->second);
  return k->second;
}

}  // namespace karp::disruption
