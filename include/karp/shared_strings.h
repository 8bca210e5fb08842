// karp::SharedStrings: an immutable list of strings whose copies share one allocation.
//
// A solve often plans thousands of NodeClaims from the same few lists of instance types
// (hundreds of names each); NewNodeClaim::instance_types holds such a list, so claims planned
// from one list share it instead of holding a copy each. It reads like a
// `const std::vector<std::string>` (iteration, size, indexing, comparison, and an implicit
// conversion to `const std::vector<std::string>&`), is built implicitly from a vector or a
// braced list, and copies on write when changed through push_back or pop_back.
//
// Thread-safety: as a value type — concurrent reads of one object, or of copies sharing a list,
// are safe; a writer needs exclusive access to its own object (the shared list is never
// modified in place).
// Complexity: copies and comparisons of copies O(1); push_back and pop_back O(n).

#ifndef KARP_SHARED_STRINGS_H_
#define KARP_SHARED_STRINGS_H_

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace karp {

class SharedStrings {
 public:
  using value_type = std::string;
  using size_type = std::size_t;
  using const_iterator = std::vector<std::string>::const_iterator;
  using iterator = const_iterator;
  using const_reference = const std::string&;

  SharedStrings() = default;
  // NOLINTNEXTLINE(google-explicit-constructor): a list is a drop-in for a vector of names
  SharedStrings(std::vector<std::string> values)
      : list_(values.empty()
                  ? nullptr
                  : std::make_shared<const std::vector<std::string>>(std::move(values))) {}
  SharedStrings(std::initializer_list<std::string> values)
      : SharedStrings(std::vector<std::string>(values)) {}

  // The names as a vector (an empty one when there are none).
  const std::vector<std::string>& vector() const { return list_ ? *list_ : Empty(); }
  // NOLINTNEXTLINE(google-explicit-constructor): reads as the vector it holds
  operator const std::vector<std::string>&() const { return vector(); }

  const_iterator begin() const { return vector().begin(); }
  const_iterator end() const { return vector().end(); }
  size_type size() const { return list_ ? list_->size() : 0; }
  bool empty() const { return size() == 0; }
  const std::string& operator[](size_type i) const { return vector()[i]; }
  const std::string& front() const { return vector().front(); }
  const std::string& back() const { return vector().back(); }

  // Copy-on-write changes: this object gets its own list; copies keep theirs.
  void push_back(std::string value) {
    std::vector<std::string> copy = vector();
    copy.push_back(std::move(value));
    *this = SharedStrings(std::move(copy));
  }
  void pop_back() {
    std::vector<std::string> copy = vector();
    copy.pop_back();
    *this = SharedStrings(std::move(copy));
  }

  // True if both hold the same names in the same order.
  friend bool operator==(const SharedStrings& a, const SharedStrings& b) {
    return a.list_ == b.list_ || a.vector() == b.vector();
  }
  friend bool operator!=(const SharedStrings& a, const SharedStrings& b) { return !(a == b); }

 private:
  static const std::vector<std::string>& Empty() {
    static const std::vector<std::string>* const kEmpty = new std::vector<std::string>();
    return *kEmpty;
  }

  std::shared_ptr<const std::vector<std::string>> list_;  // null when empty
};

}  // namespace karp

#endif  // KARP_SHARED_STRINGS_H_
