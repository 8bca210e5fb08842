// Cow<C>: a container shared between copies until one of them changes it (copy on write).
// Topology groups of one key start from the same domains (every node's hostname, say): copies
// of a group, and groups built from one cached state, share them until a pod is recorded.
// Reads go through the const interface; Mut() gives the container to change, copying it first
// when another Cow shares it. Copies of one Cow may live in different threads: a container is
// never changed while shared, and use_count() > 1 only errs towards copying. Internal.

#ifndef KARP_SRC_SCHEDULING_COW_H_
#define KARP_SRC_SCHEDULING_COW_H_

#include <cstddef>
#include <memory>

namespace karp::scheduling {

template <typename C>
class Cow {
 public:
  using const_iterator = typename C::const_iterator;
  using key_type = typename C::key_type;

  Cow() = default;
  explicit Cow(C c) : p_(std::make_shared<C>(std::move(c))) {}

  const C& get() const { return p_ ? *p_ : Empty(); }
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

}  // namespace karp::scheduling

#endif  // KARP_SRC_SCHEDULING_COW_H_
