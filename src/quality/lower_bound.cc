// Lower bound on the hourly price of any placement (see karp/lower_bound.h for the model and
// the proof of validity).

#include "karp/lower_bound.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "boost/graph/adjacency_list.hpp"
#include "boost/graph/connected_components.hpp"
#include "internal/strings.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/taints.h"
#include "model/node_pool_templates.h"
#include "quality/assignment_lp.h"
#include "quality/config_lp.h"
#include "quality/lower_bound_internal.h"
#include "quality/lp_instance.h"

namespace karp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// FractionalTwoResourceCover on validated input.
double CoverExact(const std::vector<CoverOption>& options, double a, double b) {
  bool need_a = a > 0, need_b = b > 0;
  for (const CoverOption& o : options) {
    if (o.price != 0) continue;
    if (o.first > 0) need_a = false;
    if (o.second > 0) need_b = false;
  }
  if (!need_a && !need_b) return 0;
  if (!need_a || !need_b) {
    const double demand = need_a ? a : b;
    double best = kInf;
    for (const CoverOption& o : options) {
      const double cap = need_a ? o.first : o.second;
      if (cap > 0 && o.price > 0) best = std::min(best, o.price * demand / cap);
    }
    return best;
  }
  // Spending s_k dollars on option k buys s_k·(alpha_k, beta_k) of the demand (normalised to
  // 1 each); the cheapest budget T has T·min(Σθα, Σθβ) = 1 for the best convex weights θ.
  struct Rate {
    double alpha, beta;
  };
  std::vector<Rate> rates;
  rates.reserve(options.size());
  for (const CoverOption& o : options) {
    if (o.price <= 0) continue;
    const Rate r{o.first / (o.price * a), o.second / (o.price * b)};
    if (r.alpha > 0 || r.beta > 0) rates.push_back(r);
  }
  if (rates.empty()) return kInf;
  std::sort(rates.begin(), rates.end(), [](const Rate& x, const Rate& y) {
    return x.alpha != y.alpha ? x.alpha > y.alpha : x.beta > y.beta;
  });
  // Non-dominated rates: alpha strictly decreasing, beta strictly increasing.
  std::vector<Rate> front;
  for (const Rate& r : rates) {
    if (front.empty() || r.beta > front.back().beta) front.push_back(r);
  }
  double best = 0;
  for (const Rate& r : front) best = std::max(best, std::min(r.alpha, r.beta));
  // alpha - beta decreases along the front: rates richer in the first resource come first.
  // A mix of i (alpha > beta) and j (beta > alpha) balances both at weight theta on i.
  for (size_t i = 0; i < front.size() && front[i].alpha > front[i].beta; ++i) {
    for (size_t j = front.size(); j-- > i + 1 && front[j].beta > front[j].alpha;) {
      const Rate& x = front[i];
      const Rate& y = front[j];
      const double theta = (y.beta - y.alpha) / ((x.alpha - y.alpha) + (y.beta - x.beta));
      best = std::max(best, y.alpha + theta * (x.alpha - y.alpha));
    }
  }
  return best > 0 ? 1 / best : kInf;
}

// The fields that decide which kinds a pod may use (besides its requests), serialized.
std::string ConstraintKey(const Pod& pod) {
  std::string k;
  for (const auto& [key, value] : pod.node_selector) {
    internal::StrAppend(&k, key, "=", value, "\x1e");
  }
  k += '\x1d';
  for (const NodeSelectorTerm& term : pod.node_affinity.required) {
    for (const NodeSelectorRequirement& e : term.match_expressions) {
      internal::StrAppend(&k, e.key, "\x1f", static_cast<int>(e.op));
      for (const std::string& v : e.values) internal::StrAppend(&k, "\x1f", v);
      internal::StrAppend(&k, "\x1f", e.min_values ? *e.min_values : -1, "\x1e");
    }
    k += '\x1c';
  }
  k += '\x1d';
  for (const Toleration& t : pod.tolerations) {
    internal::StrAppend(&k, t.key, "\x1f", static_cast<int>(t.op), "\x1f", t.value, "\x1f",
                        static_cast<int>(t.effect), "\x1e");
  }
  return k;
}

// The pod's alternative strict requirements: nodeSelector with each required term (or alone).
std::vector<Requirements> Alternatives(const Pod& pod) {
  Pod p;
  p.node_selector = pod.node_selector;
  if (pod.node_affinity.required.empty()) return {StrictPodRequirements(p)};
  std::vector<Requirements> out;
  for (const NodeSelectorTerm& term : pod.node_affinity.required) {
    p.node_affinity.required = {term};
    out.push_back(StrictPodRequirements(p));
  }
  return out;
}

// Key of a required anti-affinity term that makes the pods matching it pairwise exclusive
// on a host, or "" when the term is not of that simple form or does not select `pod`.
std::string ExclusiveTermKey(const Pod& pod, const PodAffinityTerm& term) {
  if (term.topology_key != kLabelHostname || !term.label_selector.has_value() ||
      term.namespace_selector.has_value() || !term.match_label_keys.empty() ||
      !term.mismatch_label_keys.empty()) {
    return "";
  }
  if (!term.namespaces.empty() && std::find(term.namespaces.begin(), term.namespaces.end(),
                                            pod.metadata.namespace_) == term.namespaces.end()) {
    return "";
  }
  if (!term.label_selector->Matches(pod.metadata.labels)) return "";
  std::string k = pod.metadata.namespace_;
  k += '\x1d';
  for (const std::string& ns : term.namespaces) internal::StrAppend(&k, ns, "\x1e");
  k += '\x1d';
  for (const auto& [key, value] : term.label_selector->match_labels) {
    internal::StrAppend(&k, key, "=", value, "\x1e");
  }
  k += '\x1d';
  for (const LabelSelectorRequirement& e : term.label_selector->match_expressions) {
    internal::StrAppend(&k, e.key, "\x1f", static_cast<int>(e.op));
    for (const std::string& v : e.values) internal::StrAppend(&k, "\x1f", v);
    k += '\x1e';
  }
  return k;
}

using Mask = std::vector<uint64_t>;

bool Test(const Mask& m, size_t i) { return (m[i / 64] >> (i % 64)) & 1u; }
void SetBit(Mask& m, size_t i) { m[i / 64] |= uint64_t{1} << (i % 64); }
bool SubsetOf(const Mask& a, const Mask& b) {
  for (size_t w = 0; w < a.size(); ++w) {
    if ((a[w] & ~b[w]) != 0) return false;
  }
  return true;
}
bool Empty(const Mask& m) {
  return std::all_of(m.begin(), m.end(), [](uint64_t w) { return w == 0; });
}

struct Kind {
  size_t pool = 0;
  const InstanceType* type = nullptr;
  std::string capacity_type;
  double price = 0;
  ResourceList capacity;  // allocatable minus DaemonSet requests
};

struct Pool {
  const NodePool* node_pool = nullptr;
  Requirements requirements;
  std::vector<Taint> taints;  // without PreferNoSchedule
  size_t first_kind = 0, end_kind = 0;
};

struct Class {
  Mask kinds;
  std::vector<double> demand;  // per resource index
};

class Bounder {
 public:
  Bounder(const std::vector<Kind>& kinds, const std::vector<std::vector<double>>& caps,
          const std::vector<Class>& classes,
          const std::vector<std::vector<std::pair<int, int64_t>>>& exclusive_counts)
      : kinds_(kinds), caps_(caps), classes_(classes), exclusive_(exclusive_counts) {}

  // With free room (quality::PriceLowerBoundWithRoom): every demand is reduced by `room` (per
  // resource index; the room may hold any pod) and the `extra` options (price, capacity per
  // resource index) may be bought beside the kinds. The node count is then not a resource.
  void SetRoom(std::vector<double> room,
               std::vector<std::pair<double, std::vector<double>>> extra) {
    room_ = std::move(room);
    extra_ = std::move(extra);
    with_room_ = true;
  }

  // The best two-resource bound for the pods of `members` on the kinds of `mask`; with
  // `count_nodes` the node count (>= 1 and >= every exclusive set) is a resource too.
  double Evaluate(const std::vector<int>& members, const Mask& mask, bool count_nodes) const {
    if (members.empty()) return 0;
    const size_t resources = caps_.empty() ? 0 : caps_[0].size();  // last index: nodes
    std::vector<double> demand(resources, 0);
    for (int c : members) {
      const std::vector<double>& d = classes_[static_cast<size_t>(c)].demand;
      for (size_t r = 0; r < d.size(); ++r) demand[r] += d[r];
    }
    if (with_room_) {
      for (size_t r = 0; r < resources && r < room_.size(); ++r) {
        demand[r] = std::max(0.0, demand[r] - room_[r]);
      }
      count_nodes = false;
    }
    if (count_nodes && resources > 0) {
      std::vector<char> in(classes_.size(), 0);
      for (int c : members) in[static_cast<size_t>(c)] = 1;
      int64_t nodes = 1;
      for (const auto& counts : exclusive_) {
        int64_t n = 0;
        for (const auto& [c, k] : counts) {
          if (in[static_cast<size_t>(c)]) n += k;
        }
        nodes = std::max(nodes, n);
      }
      demand[resources - 1] = static_cast<double>(nodes);
    }
    std::vector<size_t> active;
    for (size_t r = 0; r < resources; ++r) {
      if (demand[r] > 0) active.push_back(r);
    }
    std::vector<size_t> in_mask;
    for (size_t k = 0; k < kinds_.size(); ++k) {
      if (Test(mask, k)) in_mask.push_back(k);
    }
    double best = 0;
    std::vector<CoverOption> options(in_mask.size() + extra_.size());
    auto cover = [&](size_t r1, size_t r2, double d2) {
      for (size_t i = 0; i < in_mask.size(); ++i) {
        const size_t k = in_mask[i];
        options[i] = CoverOption{kinds_[k].price, caps_[k][r1], caps_[k][r2]};
      }
      for (size_t i = 0; i < extra_.size(); ++i) {
        const auto& [price, cap] = extra_[i];
        options[in_mask.size() + i] = CoverOption{price, cap[r1], cap[r2]};
      }
      best = std::max(best, CoverExact(options, demand[r1], d2));
    };
    if (active.size() == 1) cover(active[0], active[0], 0);
    for (size_t i = 0; i < active.size(); ++i) {
      for (size_t j = i + 1; j < active.size(); ++j) cover(active[i], active[j], demand[active[j]]);
    }
    return best;
  }

 private:
  const std::vector<Kind>& kinds_;
  const std::vector<std::vector<double>>& caps_;
  const std::vector<Class>& classes_;
  const std::vector<std::vector<std::pair<int, int64_t>>>& exclusive_;
  bool with_room_ = false;
  std::vector<double> room_;
  std::vector<std::pair<double, std::vector<double>>> extra_;
};

// PriceLowerBound's argument check: OK, or InvalidArgument for a null or duplicate pod.
absl::Status CheckPods(const std::vector<const Pod*>& pods) {
  std::set<std::string> keys;
  for (size_t i = 0; i < pods.size(); ++i) {
    if (pods[i] == nullptr) {
      return absl::InvalidArgumentError(internal::StrCat("lower bound: pods[", i, "] is null"));
    }
    if (!keys.insert(pods[i]->Key()).second) {
      return absl::InvalidArgumentError(
          internal::StrCat("lower bound: pod ", pods[i]->Key(), ": duplicate"));
    }
  }
  return absl::OkStatus();
}

// The eligible NodePools (by name, for determinism) and their kinds: each instance type with
// the scheduler's template requirements, one kind per capacity type at its cheapest
// compatible offering, with the compatible DaemonSets' requests taken off.
absl::Status BuildPools(const ClusterSnapshot& snapshot, const quality::Catalogs& catalogs,
                        std::vector<Pool>* pools, std::vector<Kind>* kinds) {
  const LabelSet& well_known = catalogs.well_known();
  std::vector<const NodePool*> node_pools = EligibleNodePools(snapshot);
  std::sort(node_pools.begin(), node_pools.end(),
            [](const NodePool* a, const NodePool* b) { return a->name() < b->name(); });
  const std::vector<Pod> daemon_pods = DaemonPods(snapshot);
  for (const NodePool* np : node_pools) {
    Pool pool;
    pool.node_pool = np;
    absl::StatusOr<Requirements> reqs = TemplateRequirements(*np);
    if (!reqs.ok()) return reqs.status();
    pool.requirements = std::move(*reqs);
    for (const Taint& t : np->taints) {
      if (t.effect != TaintEffect::kPreferNoSchedule) pool.taints.push_back(t);
    }
    pool.first_kind = kinds->size();
    const InstanceCatalog* catalog = catalogs.Of(np->name());
    const std::vector<InstanceType> none;
    for (const InstanceType& it : catalog != nullptr ? catalog->instance_types() : none) {
      if (!it.requirements.DoesIntersect(pool.requirements)) continue;
      ResourceList capacity = it.Allocatable();
      const std::vector<bool> daemons =
          CompatibleDaemons(daemon_pods, pool.requirements, np->taints, &it, well_known);
      for (size_t d = 0; d < daemon_pods.size(); ++d) {
        if (daemons[d]) capacity.Subtract(daemon_pods[d].Requests());
      }
      if (capacity.AnyNegative()) continue;
      std::map<std::string, double> cheapest;  // capacity type -> price
      for (const Offering& o : it.offerings) {
        if (!o.available || !OfferingCompatible(pool.requirements, o)) continue;
        auto [pos, inserted] = cheapest.emplace(o.capacity_type, o.price);
        if (!inserted) pos->second = std::min(pos->second, o.price);
      }
      for (const auto& [capacity_type, price] : cheapest) {
        kinds->push_back(Kind{pools->size(), &it, capacity_type, price, capacity});
      }
    }
    pool.end_kind = kinds->size();
    pools->push_back(std::move(pool));
  }
  return absl::OkStatus();
}

// The kinds a pod may use by labels and taints (any of its alternatives on any pool).
Mask AllowedKinds(const Pod& pod, const std::vector<Pool>& pools, const std::vector<Kind>& kinds,
                  size_t words, const LabelSet& well_known) {
  Mask mask(words, 0);
  const std::vector<Requirements> alternatives = Alternatives(pod);
  for (const Pool& pool : pools) {
    if (!ToleratesAll(pool.taints, pod.tolerations)) continue;
    for (const Requirements& alt : alternatives) {
      if (!pool.requirements.IsCompatible(alt, &well_known)) continue;
      Requirements combined = pool.requirements;
      combined.Add(alt);
      const InstanceType* last = nullptr;
      bool type_ok = false;
      for (size_t k = pool.first_kind; k < pool.end_kind; ++k) {
        const Kind& kind = kinds[k];
        if (kind.type != last) {
          last = kind.type;
          type_ok = kind.type->requirements.DoesIntersect(combined);
        }
        if (!type_ok || Test(mask, k)) continue;
        for (const Offering& o : kind.type->offerings) {
          if (o.available && o.capacity_type == kind.capacity_type &&
              OfferingCompatible(combined, o)) {
            SetBit(mask, k);
            break;
          }
        }
      }
    }
  }
  return mask;
}

// Pod classes: pods that may use exactly the same kinds (labels, taints and fit), with their
// summed demand per resource of `names`.
struct Classes {
  std::vector<Class> classes;
  std::vector<int> pod_class;  // parallel to the pods; -1: no kind fits
};

Classes BuildClasses(const std::vector<const Pod*>& pods, const std::vector<ResourceList>& requests,
                     const std::vector<std::string>& names, const std::vector<Pool>& pools,
                     const std::vector<Kind>& kinds, const LabelSet& well_known) {
  const size_t words = (kinds.size() + 63) / 64;
  // Constraint groups: the kinds each group may use by labels and taints.
  std::map<std::string, int> group_of_key;
  std::vector<Mask> group_masks;
  std::vector<int> pod_group(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) {
    auto [pos, inserted] =
        group_of_key.emplace(ConstraintKey(*pods[i]), static_cast<int>(group_masks.size()));
    pod_group[i] = pos->second;
    if (inserted) group_masks.push_back(AllowedKinds(*pods[i], pools, kinds, words, well_known));
  }
  Classes out;
  out.pod_class.assign(pods.size(), -1);
  std::map<std::pair<int, std::string>, int> class_of_shape;  // (group, requests) -> class
  std::map<Mask, int> class_of_mask;
  for (size_t i = 0; i < pods.size(); ++i) {
    if (pods[i]->HasResourceClaims()) continue;  // never scheduled (docs/design.md §5.19)
    const std::pair<int, std::string> shape{pod_group[i], requests[i].ToString()};
    auto found = class_of_shape.find(shape);
    int c = -1;
    if (found != class_of_shape.end()) {
      c = found->second;
    } else {
      Mask mask(words, 0);
      const Mask& allowed = group_masks[static_cast<size_t>(pod_group[i])];
      for (size_t k = 0; k < kinds.size(); ++k) {
        if (Test(allowed, k) && kinds[k].capacity.Admits(requests[i])) SetBit(mask, k);
      }
      if (!Empty(mask)) {
        auto [pos, inserted] = class_of_mask.emplace(mask, static_cast<int>(out.classes.size()));
        if (inserted) {
          out.classes.push_back(Class{std::move(mask), std::vector<double>(names.size() + 1, 0)});
        }
        c = pos->second;
      }
      class_of_shape.emplace(shape, c);
    }
    out.pod_class[i] = c;
    if (c < 0) continue;
    std::vector<double>& demand = out.classes[static_cast<size_t>(c)].demand;
    for (size_t r = 0; r < names.size(); ++r) {
      demand[r] += static_cast<double>(requests[i].Get(names[r]));
    }
  }
  return out;
}

// Sets of pods that need pairwise distinct nodes (two or more pods), counted per class; the
// largest set's size into `anti_affinity_nodes`.
std::vector<std::vector<std::pair<int, int64_t>>> ExclusiveSets(const std::vector<const Pod*>& pods,
                                                                const std::vector<int>& pod_class,
                                                                int64_t* anti_affinity_nodes) {
  std::map<std::string, std::map<int, int64_t>> exclusive_sets;
  for (size_t i = 0; i < pods.size(); ++i) {
    if (pod_class[i] < 0) continue;
    std::set<std::string> seen;
    for (const PodAffinityTerm& term : pods[i]->pod_anti_affinity.required) {
      std::string key = ExclusiveTermKey(*pods[i], term);
      if (key.empty() || !seen.insert(key).second) continue;
      ++exclusive_sets[key][pod_class[i]];
    }
  }
  std::vector<std::vector<std::pair<int, int64_t>>> exclusive;
  for (const auto& [key, counts] : exclusive_sets) {
    int64_t total = 0;
    for (const auto& [c, n] : counts) total += n;
    if (total < 2) continue;
    *anti_affinity_nodes = std::max(*anti_affinity_nodes, total);
    exclusive.emplace_back(counts.begin(), counts.end());
  }
  return exclusive;
}

// Components: classes joined by shared kinds (Boost.Graph's connected components of the
// class-kind graph), numbered in order of their first class.
std::map<int, std::vector<int>> Components(const std::vector<Class>& classes, size_t kinds) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  Graph g(classes.size() + kinds);
  for (size_t c = 0; c < classes.size(); ++c) {
    for (size_t k = 0; k < kinds; ++k) {
      if (Test(classes[c].kinds, k)) boost::add_edge(c, classes.size() + k, g);
    }
  }
  std::vector<int> component(boost::num_vertices(g));
  boost::connected_components(g, component.data());
  std::map<int, std::vector<int>> components;
  for (size_t c = 0; c < classes.size(); ++c) {
    components[component[c]].push_back(static_cast<int>(c));
  }
  return components;
}

// The bound of one component: the best of its whole-union bound and, for each class, the
// bound of the classes whose kinds nest inside it.
double ComponentBound(const Bounder& bounder, const std::vector<Class>& classes,
                      const std::vector<int>& members, size_t words) {
  Mask union_mask(words, 0);
  for (int c : members) {
    for (size_t w = 0; w < words; ++w) union_mask[w] |= classes[static_cast<size_t>(c)].kinds[w];
  }
  double best = bounder.Evaluate(members, union_mask, true);
  for (int c : members) {
    const Mask& mask = classes[static_cast<size_t>(c)].kinds;
    std::vector<int> below;
    for (int d : members) {
      if (SubsetOf(classes[static_cast<size_t>(d)].kinds, mask)) below.push_back(d);
    }
    best = std::max(best, bounder.Evaluate(below, mask, true));
  }
  return best;
}

}  // namespace

absl::StatusOr<double> FractionalTwoResourceCover(const std::vector<CoverOption>& options,
                                                  double first_demand, double second_demand) {
  auto bad = [](double v) { return !std::isfinite(v) || v < 0; };
  if (bad(first_demand) || bad(second_demand)) {
    return absl::InvalidArgumentError(
        internal::StrCat("fractional cover: demands must be finite and >= 0, got ", first_demand,
                         " and ", second_demand));
  }
  for (size_t i = 0; i < options.size(); ++i) {
    const CoverOption& o = options[i];
    if (bad(o.price) || bad(o.first) || bad(o.second)) {
      return absl::InvalidArgumentError(internal::StrCat(
          "fractional cover: options[", i, "] must have finite values >= 0, got price ", o.price,
          ", first ", o.first, ", second ", o.second));
    }
  }
  return CoverExact(options, first_demand, second_demand);
}

absl::StatusOr<CostLowerBound> PriceLowerBound(const ClusterSnapshot& snapshot,
                                               const InstanceCatalog& catalog) {
  return PriceLowerBound(snapshot, catalog, snapshot.PendingPods());
}

absl::StatusOr<CostLowerBound> PriceLowerBound(
    const ClusterSnapshot& snapshot,
    const std::map<std::string, std::shared_ptr<const InstanceCatalog>>& catalogs_by_node_pool,
    const std::vector<const Pod*>& pods) {
  if (absl::Status s = snapshot.Validate(); !s.ok()) return s;
  if (absl::Status s = CheckPods(pods); !s.ok()) return s;
  for (const auto& [pool, catalog] : catalogs_by_node_pool) {
    if (catalog == nullptr) {
      return absl::InvalidArgumentError(
          internal::StrCat("lower bound: nodepool ", pool, ": catalog must not be null"));
    }
  }
  return quality::PriceLowerBoundUnchecked(snapshot, quality::Catalogs(catalogs_by_node_pool),
                                           pods);
}

quality::Catalogs::Catalogs(const InstanceCatalog& shared)
    : shared_(&shared), well_known_(shared.well_known_labels()) {}

quality::Catalogs::Catalogs(
    const std::map<std::string, std::shared_ptr<const InstanceCatalog>>& by_pool)
    : by_pool_(&by_pool) {
  for (const auto& [pool, catalog] : by_pool) well_known_.InsertAll(catalog->well_known_labels());
}

const InstanceCatalog* quality::Catalogs::Of(const std::string& pool) const {
  if (shared_ != nullptr) return shared_;
  auto it = by_pool_->find(pool);
  return it == by_pool_->end() ? nullptr : it->second.get();
}

absl::StatusOr<CostLowerBound> PriceLowerBound(const ClusterSnapshot& snapshot,
                                               const InstanceCatalog& catalog,
                                               const std::vector<const Pod*>& pods) {
  if (absl::Status s = snapshot.Validate(); !s.ok()) return s;
  if (absl::Status s = CheckPods(pods); !s.ok()) return s;
  return quality::PriceLowerBoundUnchecked(snapshot, catalog, pods);
}

namespace {

// What both bounds need: the kinds, the resources (every name a pod requests, then "nodes")
// and each kind's capacity in them, the pod classes and the exclusive sets.
struct Prepared {
  std::vector<ResourceList> requests;  // per pod
  std::vector<Pool> pools;
  std::vector<Kind> kinds;
  std::vector<std::string> names;
  std::vector<std::vector<double>> caps;
  Classes classes;
  std::vector<std::vector<std::pair<int, int64_t>>> exclusive;
  size_t words = 0;
};

absl::Status Prepare(const ClusterSnapshot& snapshot, const quality::Catalogs& catalogs,
                     const std::vector<const Pod*>& pods, Prepared* p, CostLowerBound* out) {
  if (absl::Status s = BuildPools(snapshot, catalogs, &p->pools, &p->kinds); !s.ok()) return s;
  out->kinds = static_cast<int>(p->kinds.size());
  p->words = (p->kinds.size() + 63) / 64;
  std::vector<ResourceList>& requests = p->requests;
  requests.reserve(pods.size());
  std::set<std::string> names_set;
  for (const Pod* pod : pods) {
    requests.push_back(pod->Requests());
    requests.back().ForEach([&](std::string_view name, int64_t) { names_set.emplace(name); });
  }
  p->names.assign(names_set.begin(), names_set.end());
  const size_t resources = p->names.size() + 1;
  p->caps.assign(p->kinds.size(), std::vector<double>(resources, 1.0));
  for (size_t k = 0; k < p->kinds.size(); ++k) {
    for (size_t r = 0; r < p->names.size(); ++r) {
      p->caps[k][r] = static_cast<double>(p->kinds[k].capacity.Get(p->names[r]));
    }
  }
  p->classes = BuildClasses(pods, requests, p->names, p->pools, p->kinds, catalogs.well_known());
  for (size_t i = 0; i < pods.size(); ++i) {
    if (p->classes.pod_class[i] < 0) out->unplaceable_pods.push_back(pods[i]->Key());
  }
  std::sort(out->unplaceable_pods.begin(), out->unplaceable_pods.end());
  out->classes = static_cast<int>(p->classes.classes.size());
  p->exclusive = ExclusiveSets(pods, p->classes.pod_class, &out->anti_affinity_nodes);
  return absl::OkStatus();
}

// Every class, and the union of their kinds.
std::pair<std::vector<int>, Mask> AllClasses(const Prepared& p) {
  Mask all_kinds(p.words, 0);
  std::vector<int> all_classes;
  for (size_t c = 0; c < p.classes.classes.size(); ++c) {
    all_classes.push_back(static_cast<int>(c));
    for (size_t w = 0; w < p.words; ++w) all_kinds[w] |= p.classes.classes[c].kinds[w];
  }
  return {std::move(all_classes), std::move(all_kinds)};
}

// `list`'s amounts in the prepared resources ("nodes" last: `nodes`).
std::vector<double> PerResource(const Prepared& p, const ResourceList& list, double nodes) {
  std::vector<double> out(p.names.size() + 1, nodes);
  for (size_t r = 0; r < p.names.size(); ++r) {
    out[r] = static_cast<double>(std::max<int64_t>(0, list.Get(p.names[r])));
  }
  return out;
}

// The cell of a request on the grid 1, 1+1/64, (1+1/64)^2, ... (exact up to 64): pods whose
// requests fall in the same cells become one item class, of the smallest request of its pods
// in each resource. Smaller items only make every filling easier, so the bound stays valid; it
// loses at most the 1.6 % width of a cell, nothing where pods have equal requests.
int64_t GridCell(int64_t v) {
  if (v <= 64) return std::max<int64_t>(0, v);
  constexpr double kStep = 1.0 + 1.0 / 64;
  return 64 + static_cast<int64_t>(std::floor(std::log(static_cast<double>(v)) / std::log(kStep)));
}

// The LP instance of the prepared pods (quality/lp_instance.h): one item per pods of one
// class with requests in the same grid cells (`exact`: with equal requests) and the same
// exclusive sets (hostname anti-affinity), the kinds with their capacities in the requested
// resources (not the node count: exclusivity is inside the columns). `item_of_pod` (when not
// null) gets each pod's item, -1 for a pod no kind can host.
void BuildLpInstance(const Prepared& p, const std::vector<const Pod*>& pods, bool exact,
                     std::vector<quality::LpKind>* kinds, std::vector<quality::LpItem>* items,
                     std::vector<int>* item_of_pod) {
  const size_t resources = p.names.size();
  kinds->resize(p.kinds.size());
  for (size_t k = 0; k < p.kinds.size(); ++k) {
    (*kinds)[k].price = p.kinds[k].price;
    (*kinds)[k].capacity.assign(p.caps[k].begin(),
                                p.caps[k].begin() + static_cast<long>(resources));
  }
  if (item_of_pod != nullptr) item_of_pod->assign(pods.size(), -1);
  std::map<std::string, int> exclusive_ids;
  std::map<std::tuple<int, std::vector<int64_t>, std::vector<int>>, size_t> item_of_key;
  for (size_t i = 0; i < pods.size(); ++i) {
    const int c = p.classes.pod_class[i];
    if (c < 0) continue;
    std::vector<int> exclusive;
    for (const PodAffinityTerm& term : pods[i]->pod_anti_affinity.required) {
      std::string key = ExclusiveTermKey(*pods[i], term);
      if (key.empty()) continue;
      auto [pos, inserted] =
          exclusive_ids.emplace(std::move(key), static_cast<int>(exclusive_ids.size()));
      exclusive.push_back(pos->second);
    }
    std::sort(exclusive.begin(), exclusive.end());
    exclusive.erase(std::unique(exclusive.begin(), exclusive.end()), exclusive.end());
    std::vector<double> size(resources);
    std::vector<int64_t> cells(resources);
    for (size_t r = 0; r < resources; ++r) {
      const int64_t v = std::max<int64_t>(0, p.requests[i].Get(p.names[r]));
      size[r] = static_cast<double>(v);
      cells[r] = exact ? v : GridCell(v);
    }
    auto [pos, inserted] = item_of_key.emplace(std::make_tuple(c, cells, exclusive), items->size());
    if (!inserted) {
      std::vector<double>& smallest = (*items)[pos->second].size;
      for (size_t r = 0; r < resources; ++r) smallest[r] = std::min(smallest[r], size[r]);
    } else {
      quality::LpItem item;
      item.size = std::move(size);
      const Mask& mask = p.classes.classes[static_cast<size_t>(c)].kinds;
      for (size_t k = 0; k < p.kinds.size(); ++k) {
        if (Test(mask, k)) item.kinds.push_back(static_cast<int>(k));
      }
      item.exclusive = std::move(exclusive);
      items->push_back(std::move(item));
    }
    ++(*items)[pos->second].count;
    if (item_of_pod != nullptr) (*item_of_pod)[i] = static_cast<int>(pos->second);
  }
}

absl::StatusOr<quality::ConfigLpResult> ConfigLp(const Prepared& p,
                                                 const std::vector<const Pod*>& pods,
                                                 const quality::ConfigLpOptions& options) {
  std::vector<quality::LpKind> kinds;
  std::vector<quality::LpItem> items;
  BuildLpInstance(p, pods, /*exact=*/false, &kinds, &items, nullptr);
  return quality::ConfigurationLpBound(kinds, items, options);
}

}  // namespace

absl::StatusOr<CostLowerBound> quality::PriceLowerBoundUnchecked(
    const ClusterSnapshot& snapshot, const Catalogs& catalogs,
    const std::vector<const Pod*>& pods) {
  return PriceLowerBoundUnchecked(snapshot, catalogs, pods, ConfigLpOptions());
}

absl::StatusOr<CostLowerBound> quality::PriceLowerBoundUnchecked(
    const ClusterSnapshot& snapshot, const Catalogs& catalogs, const std::vector<const Pod*>& pods,
    const ConfigLpOptions& lp_options) {
  CostLowerBound out;
  Prepared p;
  if (absl::Status s = Prepare(snapshot, catalogs, pods, &p, &out); !s.ok()) return s;
  if (p.classes.classes.empty()) return out;
  const std::map<int, std::vector<int>> components = Components(p.classes.classes, p.kinds.size());
  out.components = static_cast<int>(components.size());
  const Bounder bounder(p.kinds, p.caps, p.classes.classes, p.exclusive);
  const auto [all_classes, all_kinds] = AllClasses(p);
  out.fractional_price_per_hour = bounder.Evaluate(all_classes, all_kinds, false);
  for (const auto& [root, members] : components) {
    out.price_per_hour += ComponentBound(bounder, p.classes.classes, members, p.words);
  }
  out.components_price_per_hour = out.price_per_hour;
  // The configuration LP is at least as tight once solved; both bounds are valid, the larger
  // is kept. Without an LP solver (or on input it refuses, e.g. a free kind) the fractional
  // bound stands.
  absl::StatusOr<quality::ConfigLpResult> lp = ConfigLp(p, pods, lp_options);
  if (lp.ok()) {
    out.assignment_lp_price_per_hour = lp->assignment_bound;
    out.configuration_lp_price_per_hour = lp->bound;
    out.configuration_lp_optimal = lp->optimal;
    out.configuration_lp_upper_per_hour = lp->master_value;
    if (lp->bound > out.price_per_hour) {
      out.price_per_hour = lp->bound;
      const bool whole = lp->optimal || lp->bound > lp->assignment_bound;
      out.method = std::string(whole ? kLowerBoundConfigurationLp : kLowerBoundAssignmentLp);
    }
  }
  return out;
}

absl::StatusOr<double> quality::PriceLowerBoundWithRoom(const ClusterSnapshot& snapshot,
                                                        const Catalogs& catalogs,
                                                        const std::vector<const Pod*>& pods,
                                                        const ResourceList& room,
                                                        const std::vector<RoomOption>& extra) {
  CostLowerBound unused;
  Prepared p;
  if (absl::Status s = Prepare(snapshot, catalogs, pods, &p, &unused); !s.ok()) return s;
  if (p.classes.classes.empty()) return 0.0;
  Bounder bounder(p.kinds, p.caps, p.classes.classes, p.exclusive);
  std::vector<std::pair<double, std::vector<double>>> options;
  for (const RoomOption& o : extra) options.emplace_back(o.price, PerResource(p, o.capacity, 1));
  bounder.SetRoom(PerResource(p, room, 0), std::move(options));
  // The free room and the extra options may serve pods of any component, so the components'
  // bounds do not add up here: the largest single set's bound is kept.
  const auto [all_classes, all_kinds] = AllClasses(p);
  double best = bounder.Evaluate(all_classes, all_kinds, false);
  for (const auto& [root, members] : Components(p.classes.classes, p.kinds.size())) {
    best = std::max(best, ComponentBound(bounder, p.classes.classes, members, p.words));
  }
  return best;
}

absl::StatusOr<std::vector<int>> quality::LpPlanGroups(const ClusterSnapshot& snapshot,
                                                       const Catalogs& catalogs,
                                                       const std::vector<const Pod*>& pods) {
  std::vector<int> groups(pods.size(), -1);
  CostLowerBound unused;
  Prepared p;
  if (absl::Status s = Prepare(snapshot, catalogs, pods, &p, &unused); !s.ok()) return s;
  if (p.classes.classes.empty()) return groups;
  std::vector<LpKind> kinds;
  std::vector<LpItem> items;
  std::vector<int> item_of_pod;
  BuildLpInstance(p, pods, /*exact=*/true, &kinds, &items, &item_of_pod);
  if (absl::Status s = CheckLpInput(kinds, items, p.names.size()); !s.ok()) return s;
  std::vector<LpKind> kept;
  std::vector<KindItems> kind_items;
  KeepKinds(kinds, items, &kept, &kind_items);
  absl::StatusOr<AssignmentLpResult> solution = AssignmentLpBound(kept, kind_items, items);
  if (!solution.ok()) return solution.status();
  // Each item's pods in input order, handed out to the nodes in turn.
  std::vector<std::vector<size_t>> pods_of_item(items.size());
  for (size_t i = pods.size(); i-- > 0;) {
    if (item_of_pod[i] >= 0) pods_of_item[static_cast<size_t>(item_of_pod[i])].push_back(i);
  }
  int group = 0;
  for (const auto& [k, filling] : RoundedNodes(kept, items, *solution)) {
    bool any = false;
    for (const auto& [item, count] : filling) {
      std::vector<size_t>& left = pods_of_item[static_cast<size_t>(item)];
      for (int64_t n = 0; n < static_cast<int64_t>(count) && !left.empty(); ++n) {
        groups[left.back()] = group;
        left.pop_back();
        any = true;
      }
    }
    if (any) ++group;
  }
  return groups;
}

}  // namespace karp
