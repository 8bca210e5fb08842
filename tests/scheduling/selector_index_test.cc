// SelectorIndex (scheduling/selector_index.h) finds every group that selects a pod: over random
// selectors (matchLabels, In, NotIn, Exists, DoesNotExist, empty, none) and random pod labels,
// the candidates it returns from a position on are ascending, distinct, and include each group
// from that position on whose selector matches the pod, whatever the order in which groups were
// added and indexed.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "karp/objects.h"
#include "scheduling/topology.h"

namespace karp::scheduling {
namespace {

const std::vector<std::string> kKeys = {"app", "tier", "zone", "team"};
const std::vector<std::string> kValues = {"a", "b", "c"};

std::string Pick(std::mt19937& rng, const std::vector<std::string>& from) {
  return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
}

std::optional<LabelSelector> RandomSelector(std::mt19937& rng) {
  const int shape = std::uniform_int_distribution<int>(0, 9)(rng);
  if (shape == 0) return std::nullopt;  // selects nothing
  LabelSelector s;
  if (shape == 1) return s;  // empty: selects every pod
  if (shape <= 5) {
    const int n = std::uniform_int_distribution<int>(1, 2)(rng);
    for (int i = 0; i < n; ++i) s.match_labels[Pick(rng, kKeys)] = Pick(rng, kValues);
  }
  const int exprs = std::uniform_int_distribution<int>(0, 2)(rng);
  for (int i = 0; i < exprs; ++i) {
    LabelSelectorRequirement e;
    e.key = Pick(rng, kKeys);
    const Operator ops[] = {Operator::kIn, Operator::kNotIn, Operator::kExists,
                            Operator::kDoesNotExist};
    e.op = ops[std::uniform_int_distribution<int>(0, 3)(rng)];
    if (e.op == Operator::kIn || e.op == Operator::kNotIn) {
      const int values = std::uniform_int_distribution<int>(0, 3)(rng);         // 0: In never holds
      for (int v = 0; v < values; ++v) e.values.push_back(Pick(rng, kValues));  // maybe twice
    }
    s.match_expressions.push_back(std::move(e));
  }
  return s;
}

Pod RandomPod(std::mt19937& rng) {
  Pod p;
  p.metadata.name = "p";
  for (const std::string& k : kKeys) {
    if (std::uniform_int_distribution<int>(0, 2)(rng) > 0)
      p.metadata.labels[k] = Pick(rng, kValues);
  }
  return p;
}

TEST_CASE("SelectorIndex candidates include every group that selects the pod",
          "[scheduling][topology]") {
  std::mt19937 rng(20261127);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::unique_ptr<TopologyGroup>> owned;
    std::vector<TopologyGroup*> groups;
    SelectorIndex index;
    const int total = std::uniform_int_distribution<int>(1, 60)(rng);
    while (static_cast<int>(groups.size()) < total) {
      // Groups arrive in batches; the index is extended between some of them.
      const int batch = std::uniform_int_distribution<int>(1, 10)(rng);
      for (int b = 0; b < batch && static_cast<int>(groups.size()) < total; ++b) {
        auto g = std::make_unique<TopologyGroup>();
        g->namespaces = {"default"};
        g->selector = RandomSelector(rng);
        groups.push_back(g.get());
        owned.push_back(std::move(g));
      }
      if (std::uniform_int_distribution<int>(0, 1)(rng) == 0) index.Extend(groups);
    }
    index.Extend(groups);
    for (int probe = 0; probe < 20; ++probe) {
      const Pod pod = RandomPod(rng);
      const size_t from = std::uniform_int_distribution<size_t>(0, groups.size())(rng);
      const std::vector<uint32_t> got = index.Candidates(pod.metadata.labels, from);
      for (size_t i = 1; i < got.size(); ++i) REQUIRE(got[i - 1] < got[i]);
      for (uint32_t i : got) REQUIRE(i >= from);
      for (size_t i = from; i < groups.size(); ++i) {
        if (!groups[i]->Selects(pod)) continue;
        INFO("trial " << trial << ", group " << i);
        REQUIRE(std::binary_search(got.begin(), got.end(), static_cast<uint32_t>(i)));
      }
      // Groups without a selector select nothing and are never candidates.
      for (uint32_t i : got) REQUIRE(groups[i]->selector.has_value());
    }
  }
}

TEST_CASE("SelectorIndex narrows the candidates to the groups a pod's labels allow",
          "[scheduling][topology]") {
  std::vector<std::unique_ptr<TopologyGroup>> owned;
  std::vector<TopologyGroup*> groups;
  for (int i = 0; i < 100; ++i) {
    auto g = std::make_unique<TopologyGroup>();
    g->namespaces = {"default"};
    g->selector = LabelSelector{{{"app", "app-" + std::to_string(i)}}, {}};
    groups.push_back(g.get());
    owned.push_back(std::move(g));
  }
  SelectorIndex index;
  index.Extend(groups);
  Pod pod;
  pod.metadata.labels = {{"app", "app-42"}, {"pod", "unique-7"}};
  CHECK(index.Candidates(pod.metadata.labels, 0) == std::vector<uint32_t>{42});
  CHECK(index.Candidates(pod.metadata.labels, 43).empty());
}

}  // namespace
}  // namespace karp::scheduling
