// Cow<C>: a container shared between copies until one of them changes it (copy on write).
// Topology groups of one key start from the same domains (every node's zone, say): copies of a
// group, and groups built from one cached state, share them until a pod is recorded.
// Reads go through the const interface; Mut() gives the container to change, copying it first
// when another Cow shares it. Copies of one Cow may live in different threads: a container is
// never changed while shared, and use_count() > 1 only errs towards copying. Internal.

#ifndef KARP_SRC_SCHEDULING_COW_H_
#define KARP_SRC_SCHEDULING_COW_H_

#include <cstddef>
#include <iterator>
#include <memory>
#include <type_traits>

namespace karp::scheduling {

template <typename C>
class Cow {
 public:
  using const_iterator = typename C::const_iterator;
  using key_type = typename C::key_type;

  Cow() = default;
  explicit Cow(C c) : p_(std::make_shared<C>(std::move(c))) {}

  const C& get() const { return p_ ? *p_ : Empty(); }
  // Whether another Cow shares the container (Mut() would copy it).
  bool shared() const { return p_ && p_.use_count() > 1; }
  C& Mut() {
    if (!p_) {
      p_ = std::make_shared<C>();
    } else if (p_.use_count() > 1) {
      p_ = std::make_shared<C>(*p_);
    }
    return *p_;
  }

  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }
  const_iterator find(const key_type& k) const { return get().find(k); }
  size_t count(const key_type& k) const { return get().count(k); }
  size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }

 private:
  static const C& Empty() {
    static const C* const kEmpty = new C();
    return *kEmpty;
  }
  std::shared_ptr<C> p_;
};

// Layered<C>: a Cow<C> base plus a small container of keys added while the base is shared
// (an ordered map or set). A topology group built from a shared state (the bound-pod counts of
// a simulation) that counts a pod in a new domain (a new claim's hostname) puts it into its own
// layer instead of copying the shared base. The keys of the two layers are disjoint; reads see
// their union in key order, exactly as one container holding both. Writing an entry of the
// base copies it first (Cow).
template <typename C>
class Layered {
 public:
  using key_type = typename C::key_type;
  using value_type = typename C::value_type;

  // Iterates both layers in key order (the keys are disjoint).
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = typename C::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;

    reference operator*() const { return *Current(); }
    pointer operator->() const { return &*Current(); }
    const_iterator& operator++() {
      if (TopFirst()) {
        ++top_;
      } else {
        ++base_;
      }
      return *this;
    }
    bool operator==(const const_iterator& o) const { return top_ == o.top_ && base_ == o.base_; }
    bool operator!=(const const_iterator& o) const { return !(*this == o); }

   private:
    friend class Layered;
    using It = typename C::const_iterator;
    const_iterator(It top, It top_end, It base, It base_end)
        : top_(top), top_end_(top_end), base_(base), base_end_(base_end) {}
    bool TopFirst() const {
      if (top_ == top_end_) return false;
      if (base_ == base_end_) return true;
      return typename C::key_compare()(KeyOf(*top_), KeyOf(*base_));
    }
    It Current() const { return TopFirst() ? top_ : base_; }
    It top_, top_end_, base_, base_end_;
  };

  Layered() = default;
  // A base shared with `base` and no own keys.
  Layered(Cow<C> base) : base_(std::move(base)) {}  // NOLINT: converts like Cow
  Layered& operator=(Cow<C> base) {
    base_ = std::move(base);
    top_.clear();
    return *this;
  }

  const_iterator begin() const {
    const C& b = base_.get();
    return const_iterator(top_.begin(), top_.end(), b.begin(), b.end());
  }
  const_iterator end() const {
    const C& b = base_.get();
    return const_iterator(top_.end(), top_.end(), b.end(), b.end());
  }
  const_iterator find(const key_type& k) const {
    const C& b = base_.get();
    if (top_.empty()) {
      auto it = b.find(k);
      return it == b.end() ? end() : const_iterator(top_.end(), top_.end(), it, b.end());
    }
    auto t = top_.find(k);
    if (t != top_.end()) return const_iterator(t, top_.end(), b.lower_bound(k), b.end());
    auto it = b.find(k);
    if (it == b.end()) return end();
    return const_iterator(top_.lower_bound(k), top_.end(), it, b.end());
  }
  size_t count(const key_type& k) const { return top_.count(k) + base_.count(k); }
  size_t size() const { return top_.size() + base_.size(); }
  bool empty() const { return top_.empty() && base_.empty(); }

  // Adds `v` unless its key is present: to the base when no other Cow shares it, else to the
  // own layer. Returns the stored element.
  template <typename V>
  const value_type& Insert(V&& v) {
    const key_type& k = KeyOf(v);
    auto t = top_.find(k);
    if (t != top_.end()) return *t;
    auto b = base_.find(k);
    if (b != base_.end()) return *b;
    if (base_.shared()) return *top_.insert(std::forward<V>(v)).first;
    return *base_.Mut().insert(std::forward<V>(v)).first;
  }
  // Maps only: the value under `k`, inserted value-initialized when absent (as Insert).
  template <typename M = C>
  typename M::mapped_type& Ref(const key_type& k) {
    if (!top_.empty()) {
      auto t = top_.find(k);
      if (t != top_.end()) return t->second;
    }
    // Not shared: one lookup in the base, whether `k` is there or not.
    if (!base_.shared() || base_.count(k) > 0) return base_.Mut()[k];
    return top_[k];
  }
  // Removes `k` from whichever layer holds it.
  void Erase(const key_type& k) {
    if (top_.erase(k) > 0) return;
    if (base_.count(k) > 0) base_.Mut().erase(k);
  }
  // The union as one Cow (folds the own layer into the base, copying it if shared).
  Cow<C> Flat() {
    if (!top_.empty()) {
      base_.Mut().insert(top_.begin(), top_.end());
      top_.clear();
    }
    return base_;
  }

 private:
  template <typename V>
  static const key_type& KeyOf(const V& v) {
    if constexpr (std::is_same_v<std::decay_t<V>, key_type>) {
      return v;
    } else {
      return v.first;
    }
  }
  Cow<C> base_;
  C top_;
};

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_COW_H_
