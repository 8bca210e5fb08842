// Internal string helpers. The Debian Abseil is built with ABSL_OPTION_USE_STD_STRING_VIEW=0,
// so absl::StrCat/StrAppend do not accept std::string_view; these wrappers adapt it.
#ifndef KARP_SRC_INTERNAL_STRINGS_H_
#define KARP_SRC_INTERNAL_STRINGS_H_

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace karp::internal {

inline absl::string_view AV(std::string_view s) { return absl::string_view(s.data(), s.size()); }

template <typename T>
const T& Adapt(const T& v) {
  return v;
}
inline absl::string_view Adapt(std::string_view s) { return AV(s); }

// absl::StrCat / absl::StrAppend that also take std::string_view.
template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(Adapt(args)...);
}
template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, Adapt(args)...);
}

}  // namespace karp::internal

#endif  // KARP_SRC_INTERNAL_STRINGS_H_
