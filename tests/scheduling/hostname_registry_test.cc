// Hostname groups over a shared HostnameRegistry (scheduling/topology_group.h) read exactly as
// groups that hold every registered hostname themselves: the same domains in the same name order,
// the same counts and claim-slot counts, whatever the sequence of registrations, new groups,
// records and take-backs.

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "karp/labels.h"
#include "scheduling/topology.h"

namespace karp::scheduling {
namespace {

using Items = std::vector<std::pair<std::string, int32_t>>;

Items DomainsOf(const TopologyGroup& g) {
  Items out;
  g.ForEachDomain([&](const std::string& d, int32_t c) {
    out.emplace_back(d, c);
    return true;
  });
  return out;
}

// What a group held when every registration was copied into it.
struct PlainGroup {
  std::map<std::string, int32_t> domains;
  std::set<std::string> registered;  // domains before any record (kept at 0 on take-back)
  void Register(const std::string& d) {
    domains.emplace(d, 0);
    registered.insert(d);
  }
};

std::string Name(std::mt19937& rng) { return "host-" + std::to_string(rng() % 60); }

TEST_CASE("Hostname groups over the registry read as groups holding every hostname",
          "[topology][hostreg]") {
  std::mt19937 rng(11);
  for (int round = 0; round < 40; ++round) {
    HostnameRegistry registry;
    // Node hostnames and two node masks (one admits every node, one about half).
    std::vector<char> all;
    std::vector<char> some;
    std::vector<std::string> nodes;
    for (int n = 0; n < 10; ++n) {
      const std::string name = "node-" + std::to_string(rng() % 12);
      const size_t i = static_cast<size_t>(registry.AddNode(name));
      if (all.size() <= i) {
        all.resize(i + 1, 1);
        some.resize(i + 1, static_cast<char>(rng() % 2));
        nodes.push_back(name);
      }
    }
    std::vector<std::unique_ptr<TopologyGroup>> groups;
    std::vector<PlainGroup> plain;
    int next_slot = 0;
    for (int op = 0; op < 150; ++op) {
      const unsigned what = rng() % 6;
      if (what == 0 || groups.empty()) {
        auto g = std::make_unique<TopologyGroup>();
        g->key = std::string(kLabelHostname);
        g->view = {&registry, registry.epoch(), nullptr};
        PlainGroup p;
        if (rng() % 2 == 0) {  // a universe domain of its own
          const std::string d = Name(rng);
          g->Register(d);
          p.Register(d);
        }
        if (rng() % 3 != 0) {  // counted over nodes (RegisterNodes)
          const std::vector<char>& mask = rng() % 2 == 0 ? all : some;
          g->view.nodes = &mask;
          for (size_t i = 0; i < nodes.size(); ++i) {
            if (mask[i] != 0) p.Register(nodes[i]);
          }
        }
        groups.push_back(std::move(g));
        plain.push_back(std::move(p));
      } else if (what == 1) {  // a new claim: its slot, then RegisterHostname
        const std::string d = "hostname-placeholder-" + std::to_string(next_slot);
        registry.SetSlot(d, next_slot++);
        registry.Register(d);
        for (PlainGroup& p : plain) p.Register(d);
      } else if (what == 2) {  // an existing node's name registered again
        const std::string& d = nodes[rng() % nodes.size()];
        registry.Register(d);
        for (PlainGroup& p : plain) p.Register(d);
      } else {
        const size_t k = rng() % groups.size();
        std::string d = next_slot > 0 && rng() % 2 == 0
                            ? "hostname-placeholder-" + std::to_string(rng() % next_slot)
                            : (rng() % 2 == 0 ? nodes[rng() % nodes.size()] : Name(rng));
        auto it = plain[k].domains.find(d);
        if (what == 3 && it != plain[k].domains.end() && it->second > 0) {
          const bool keep = plain[k].registered.count(d) > 0;
          groups[k]->TakeBack(d, keep);
          if (--it->second == 0 && !keep) plain[k].domains.erase(it);
        } else {
          groups[k]->Record(d);
          ++plain[k].domains[d];
        }
      }
      for (size_t k = 0; k < groups.size(); ++k) {
        const TopologyGroup& g = *groups[k];
        const PlainGroup& p = plain[k];
        REQUIRE(DomainsOf(g) == Items(p.domains.begin(), p.domains.end()));
        bool any = false;
        for (const auto& [d, c] : p.domains) any = any || c > 0;
        REQUIRE(g.AnyCounted() == any);
      }
    }
    // Lookups by name and by claim slot agree too, absent names included.
    std::vector<std::string> names = nodes;
    for (int i = 0; i < 60; ++i) names.push_back("host-" + std::to_string(i));
    for (int s = 0; s < next_slot; ++s)
      names.push_back("hostname-placeholder-" + std::to_string(s));
    for (size_t k = 0; k < groups.size(); ++k) {
      for (const std::string& d : names) {
        auto it = plain[k].domains.find(d);
        const std::optional<int32_t> want =
            it == plain[k].domains.end() ? std::nullopt : std::optional<int32_t>(it->second);
        CHECK(groups[k]->Find(d) == want);
      }
      for (int s = 0; s < next_slot; ++s) {
        const std::string d = "hostname-placeholder-" + std::to_string(s);
        auto it = plain[k].domains.find(d);
        CHECK(groups[k]->SlotCount(s) == (it == plain[k].domains.end() ? 0 : it->second));
      }
    }
  }
}

}  // namespace
}  // namespace karp::scheduling
