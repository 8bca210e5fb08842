// Local search over a planned packing for the cost mode (docs/design.md §13.3): single pods
// moved from one planned node to another while each move lowers the plan's summed price, in
// the abstract node model of exact_packing.h (a node is the cheapest kind its pods may all use
// that holds their summed needs). A move takes a pod out of a node whose kind then shrinks
// (or that it leaves empty) and puts it where that costs less than the shrink saves, usually
// into room a node already pays for. It reaches what windows of consecutive claims cannot:
// any two nodes of a template, including nodes that hold pods the exact model does not capture
// (those stay where they are; pods may still join them).
//
// The model is plain data so the search can be tested on its own; the caller (PlanRepack)
// builds it from a finished packing and replays the result under every constraint.

#ifndef KARP_SRC_SCHEDULING_LOCAL_MOVES_H_
#define KARP_SRC_SCHEDULING_LOCAL_MOVES_H_

#include <cstdint>
#include <functional>
#include <vector>

namespace karp::scheduling {

struct MoveModel {
  // One way to build a node: its price and its capacity per resource.
  struct Kind {
    double price = 0;
    std::vector<int64_t> cap;
  };
  // One pod: its need per resource (the resources of `kinds`), the kinds it may use (bit k of
  // the mask set: kinds[k] allowed), whether the search may move it, and the group of nodes
  // it may move into (-1: any node).
  struct Item {
    std::vector<int64_t> need;
    std::vector<uint64_t> kinds;
    bool movable = true;
    int group = -1;
  };
  std::vector<Kind> kinds;  // cheapest first
  std::vector<Item> items;
  // The planned nodes: indexes into `items`; each item in at most one node. A node none of
  // whose allowed kinds holds it is left as it is (no pod moves into or out of it).
  std::vector<std::vector<size_t>> nodes;
  // True when items a and b may not share a node (anti-affinity, host ports, spread); null:
  // never.
  std::function<bool(size_t, size_t)> conflict;
  // Per node, its group (Item::group; a zone, say); empty: every node in group -1.
  std::vector<int> node_groups;
  // True when `item` may move into node `node` beyond its group; null: always.
  std::function<bool(size_t item, size_t node)> may_enter;
};

struct MoveLimits {
  int passes = 2;  // sweeps over every movable pod; a sweep that moves nothing ends the search
  // Checks of a (pod, node) pair or of a kind, over the whole search: a deterministic budget
  // (the search stops when it is spent, keeping the moves made).
  int64_t max_checks = 4000000;
};

// Moves items of `model.nodes` between nodes while a move lowers the summed node price, each
// to the node where its cost is least (ties: the first node); nodes may end empty. Returns the
// price saved (0: no move). Deterministic: depends only on the model and the limits.
// Complexity: O(passes · movable items · nodes of their group · resources) checks at most,
// capped by max_checks.
double ImproveByMoves(MoveModel& model, const MoveLimits& limits = {});

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_LOCAL_MOVES_H_
