// Internal status propagation macros (the Debian Abseil 20220623 has no ABSL_RETURN_IF_ERROR).
// Never used in public headers.
#ifndef KARP_SRC_INTERNAL_STATUS_MACROS_H_
#define KARP_SRC_INTERNAL_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define KARP_STATUS_CONCAT_INNER_(a, b) a##b
#define KARP_STATUS_CONCAT_(a, b) KARP_STATUS_CONCAT_INNER_(a, b)

// Returns the status from the enclosing function if `expr` is not OK.
#define KARP_RETURN_IF_ERROR(expr)                       \
  do {                                                   \
    ::absl::Status karp_status_ = (expr);                \
    if (!karp_status_.ok()) return karp_status_;         \
  } while (0)

// `KARP_ASSIGN_OR_RETURN(auto x, F());` assigns the value of a StatusOr or returns its error.
#define KARP_ASSIGN_OR_RETURN(lhs, expr) \
  KARP_ASSIGN_OR_RETURN_IMPL_(KARP_STATUS_CONCAT_(karp_statusor_, __LINE__), lhs, expr)
#define KARP_ASSIGN_OR_RETURN_IMPL_(var, lhs, expr) \
  auto var = (expr);                                \
  if (!var.ok()) return std::move(var).status();    \
  lhs = std::move(var).value()

#endif  // KARP_SRC_INTERNAL_STATUS_MACROS_H_
