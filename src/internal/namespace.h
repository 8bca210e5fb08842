// The default-namespace rule of namespaced objects: an empty namespace is "default", as the
// API server defaults it.

#ifndef KARP_SRC_INTERNAL_NAMESPACE_H_
#define KARP_SRC_INTERNAL_NAMESPACE_H_

#include <string>

#include "karp/objects.h"

namespace karp::internal {

// The namespace of a namespaced object: its own, or "default" when unset.
inline const std::string& NamespaceOrDefault(const ObjectMeta& m) {
  static const std::string* const kDefault = new std::string("default");
  return m.namespace_.empty() ? *kDefault : m.namespace_;
}

}  // namespace karp::internal

#endif  // KARP_SRC_INTERNAL_NAMESPACE_H_
