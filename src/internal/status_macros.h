// Internal status propagation macros (the Debian Abseil 20220623 has no ABSL_RETURN_IF_ERROR).
// Never used in public headers.
#ifndef KARP_SRC_INTERNAL_STATUS_MACROS_H_
#define KARP_SRC_INTERNAL_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define KARP_STATUS_CONCAT_INNER_(a, b) a##b
#define KARP_STATUS_CONCAT_(a, b) KARP_STATUS_CONCAT_INNER_(a, b)

// NOLINTBEGIN(bugprone-macro-parentheses): `var` and `lhs` below name or declare variables,
// which parentheses would break.

// Returns the status from the enclosing function if `expr` is not OK. Each expansion declares
// its own variable (__COUNTER__), so lambdas that return errors may be nested inside calls that
// return errors without tripping -Wshadow.
#define KARP_RETURN_IF_ERROR(expr) \
  KARP_RETURN_IF_ERROR_IMPL_(KARP_STATUS_CONCAT_(karp_status_, __COUNTER__), expr)
#define KARP_RETURN_IF_ERROR_IMPL_(var, expr) \
  do {                                        \
    ::absl::Status var = (expr);              \
    if (!var.ok()) return var;                \
  } while (0)

// `KARP_ASSIGN_OR_RETURN(auto x, F());` assigns the value of a StatusOr or returns its error.
#define KARP_ASSIGN_OR_RETURN(lhs, expr) \
  KARP_ASSIGN_OR_RETURN_IMPL_(KARP_STATUS_CONCAT_(karp_statusor_, __LINE__), lhs, expr)
#define KARP_ASSIGN_OR_RETURN_IMPL_(var, lhs, expr) \
  auto var = (expr);                                \
  if (!var.ok()) return std::move(var).status();    \
  lhs = std::move(var).value()
// NOLINTEND(bugprone-macro-parentheses)

#endif  // KARP_SRC_INTERNAL_STATUS_MACROS_H_
