// An index for first fit (docs/design.md §5.5): the entries of an ordered list (existing nodes
// in their fixed order, this solve's claims fewest pods first) with their free cpu, memory and
// pod slots, so that walking "the entries with at least this much room" in order skips the
// full ones by subtree instead of testing each. It is a pre-filter only: callers still run
// every check on the entries it returns, so decisions are those of the linear scan.
//
// A treap keyed by (rank, id) with per-subtree maxima of each room dimension. Entries are
// identified by small non-negative ids (an index into the caller's vector). Not thread-safe;
// one per Solve.

#ifndef KARP_SRC_SCHEDULING_FIRST_FIT_INDEX_H_
#define KARP_SRC_SCHEDULING_FIRST_FIT_INDEX_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"

namespace karp::scheduling {

class FirstFitIndex {
 public:
  // Room per dimension: cpu, memory, pods. A need of kAny never rejects.
  using Room = std::array<int64_t, 3>;
  static constexpr int64_t kAny = std::numeric_limits<int64_t>::min();
  // Order of the entries: ascending (rank, id).
  using Key = std::pair<int64_t, int64_t>;

  // Adds entry `id` (not present) at (rank, id) with `room`. O(log n) expected.
  void Insert(int64_t id, int64_t rank, const Room& room);
  // Removes entry `id` (present). O(log n) expected.
  void Erase(int64_t id);
  bool Contains(int64_t id) const {
    return id >= 0 && static_cast<std::size_t>(id) < nodes_.size() &&
           nodes_[static_cast<std::size_t>(id)].present;
  }
  // The key of a present entry.
  Key KeyOf(int64_t id) const { return {nodes_[static_cast<std::size_t>(id)].rank, id}; }

  // Walks the entries whose room covers `need` in every dimension, in key order, in O(k + s)
  // for k entries returned and s subtrees whose maxima cover `need` without an entry that
  // does. Insert and Erase invalidate it.
  class Cursor {
   public:
    Cursor(const FirstFitIndex& index, const Room& need);
    int64_t id() const { return current_; }              // -1 past the last
    Key key() const { return index_->KeyOf(current_); }  // when id() >= 0
    void Advance();

   private:
    // Pushes `t` and its left spine, stopping at the first subtree without room for need_.
    void PushLeftSpine(int64_t t);
    const FirstFitIndex* index_;
    Room need_;
    absl::InlinedVector<int64_t, 48> stack_;
    int64_t current_ = -1;
  };

 private:
  struct Node {
    int64_t rank = 0;
    uint64_t priority = 0;
    Room room{};
    Room max{};  // per dimension, over the subtree
    int64_t left = -1;
    int64_t right = -1;
    bool present = false;
  };
  static bool Covers(const Room& room, const Room& need) {
    return room[0] >= need[0] && room[1] >= need[1] && room[2] >= need[2];
  }
  void Pull(int64_t t);
  // Splits tree `t` into keys < key (first) and keys >= key (second).
  std::pair<int64_t, int64_t> Split(int64_t t, const Key& key);
  int64_t Merge(int64_t a, int64_t b);

  std::vector<Node> nodes_;  // by id
  int64_t root_ = -1;
};

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_FIRST_FIT_INDEX_H_
