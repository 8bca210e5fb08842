// The first-fit index (see first_fit_index.h): a treap with per-subtree room maxima.

#include "scheduling/first_fit_index.h"

#include <algorithm>

namespace karp::scheduling {
namespace {

// A fixed pseudo-random priority per id (splitmix64): balanced in expectation, and the same
// shape on every run (the shape never affects results, only speed).
uint64_t PriorityOf(int64_t id) {
  uint64_t z = static_cast<uint64_t>(id) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

void FirstFitIndex::Pull(int64_t t) {
  Node& n = nodes_[static_cast<size_t>(t)];
  n.max = n.room;
  for (int64_t child : {n.left, n.right}) {
    if (child < 0) continue;
    const Room& m = nodes_[static_cast<size_t>(child)].max;
    for (size_t d = 0; d < n.max.size(); ++d) n.max[d] = std::max(n.max[d], m[d]);
  }
}

std::pair<int64_t, int64_t> FirstFitIndex::Split(int64_t t, const Key& key) {
  if (t < 0) return {-1, -1};
  Node& n = nodes_[static_cast<size_t>(t)];
  if (KeyOf(t) < key) {
    auto [l, r] = Split(n.right, key);
    nodes_[static_cast<size_t>(t)].right = l;
    Pull(t);
    return {t, r};
  }
  auto [l, r] = Split(n.left, key);
  nodes_[static_cast<size_t>(t)].left = r;
  Pull(t);
  return {l, t};
}

int64_t FirstFitIndex::Merge(int64_t a, int64_t b) {
  if (a < 0) return b;
  if (b < 0) return a;
  if (nodes_[static_cast<size_t>(a)].priority > nodes_[static_cast<size_t>(b)].priority) {
    const int64_t right = Merge(nodes_[static_cast<size_t>(a)].right, b);
    nodes_[static_cast<size_t>(a)].right = right;
    Pull(a);
    return a;
  }
  const int64_t left = Merge(a, nodes_[static_cast<size_t>(b)].left);
  nodes_[static_cast<size_t>(b)].left = left;
  Pull(b);
  return b;
}

void FirstFitIndex::Insert(int64_t id, int64_t rank, const Room& room) {
  if (nodes_.size() <= static_cast<size_t>(id)) nodes_.resize(static_cast<size_t>(id) + 1);
  Node& n = nodes_[static_cast<size_t>(id)];
  n.rank = rank;
  n.priority = PriorityOf(id);
  n.room = room;
  n.max = room;
  n.left = n.right = -1;
  n.present = true;
  auto [l, r] = Split(root_, {rank, id});
  root_ = Merge(Merge(l, id), r);
}

void FirstFitIndex::Erase(int64_t id) {
  const Key key = KeyOf(id);
  auto [l, rest] = Split(root_, key);
  auto [mid, r] = Split(rest, {key.first, key.second + 1});
  (void)mid;  // the entry itself
  nodes_[static_cast<size_t>(id)].present = false;
  root_ = Merge(l, r);
}

FirstFitIndex::Cursor::Cursor(const FirstFitIndex& index, const Room& need)
    : index_(&index), need_(need) {
  PushLeftSpine(index.root_);
  Advance();
}

void FirstFitIndex::Cursor::PushLeftSpine(int64_t t) {
  while (t >= 0) {
    const Node& n = index_->nodes_[static_cast<size_t>(t)];
    if (!Covers(n.max, need_)) return;
    stack_.push_back(t);
    t = n.left;
  }
}

void FirstFitIndex::Cursor::Advance() {
  while (!stack_.empty()) {
    const int64_t t = stack_.back();
    stack_.pop_back();
    const Node& n = index_->nodes_[static_cast<size_t>(t)];
    PushLeftSpine(n.right);
    if (Covers(n.room, need_)) {
      current_ = t;
      return;
    }
  }
  current_ = -1;
}

}  // namespace karp::scheduling
