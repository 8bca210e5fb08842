// Taints and tolerations (see karp/taints.h and docs/design.md §3).

#include "karp/taints.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "internal/strings.h"

namespace karp {
namespace {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

bool ParseInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  int128 v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
    if (v > static_cast<int128>(INT64_MAX)) return false;
  }
  *out = static_cast<int64_t>(s[0] == '-' ? -v : v);
  return true;
}

}  // namespace

std::string_view TaintEffectName(TaintEffect effect) {
  switch (effect) {
    case TaintEffect::kNone:
      return "";
    case TaintEffect::kNoSchedule:
      return "NoSchedule";
    case TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case TaintEffect::kNoExecute:
      return "NoExecute";
  }
  return "";
}

absl::StatusOr<TaintEffect> ParseTaintEffect(std::string_view text) {
  if (text.empty()) return TaintEffect::kNone;
  if (text == "NoSchedule") return TaintEffect::kNoSchedule;
  if (text == "PreferNoSchedule") return TaintEffect::kPreferNoSchedule;
  if (text == "NoExecute") return TaintEffect::kNoExecute;
  return absl::InvalidArgumentError(
      internal::StrCat("unsupported taint effect \"", text,
                       "\"; expected NoSchedule, PreferNoSchedule or NoExecute"));
}

std::string Taint::ToString() const {
  return internal::StrCat(key, "=", value, ":", TaintEffectName(effect));
}

std::string_view TolerationOperatorName(TolerationOperator op) {
  switch (op) {
    case TolerationOperator::kEqual:
      return "Equal";
    case TolerationOperator::kExists:
      return "Exists";
    case TolerationOperator::kGt:
      return "Gt";
    case TolerationOperator::kLt:
      return "Lt";
  }
  return "";
}

absl::StatusOr<TolerationOperator> ParseTolerationOperator(std::string_view text) {
  if (text.empty() || text == "Equal") return TolerationOperator::kEqual;
  if (text == "Exists") return TolerationOperator::kExists;
  if (text == "Gt") return TolerationOperator::kGt;
  if (text == "Lt") return TolerationOperator::kLt;
  return absl::InvalidArgumentError(internal::StrCat("unsupported toleration operator \"", text,
                                                     "\"; expected Equal, Exists, Gt or Lt"));
}

bool Toleration::Tolerates(const Taint& taint) const {
  if (effect != TaintEffect::kNone && effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  switch (op) {
    case TolerationOperator::kEqual:
      return value == taint.value;
    case TolerationOperator::kExists:
      return true;
    case TolerationOperator::kGt:
    case TolerationOperator::kLt: {
      int64_t tol, val;
      if (!ParseInt(value, &tol) || !ParseInt(taint.value, &val)) return false;
      return op == TolerationOperator::kGt ? val > tol : val < tol;
    }
  }
  return false;
}

bool ToleratesTaint(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const Toleration& t : tolerations) {
    if (t.Tolerates(taint)) return true;
  }
  return false;
}

absl::Status Tolerates(const std::vector<Taint>& taints,
                       const std::vector<Toleration>& tolerations) {
  std::vector<std::string> errors;
  for (const Taint& taint : taints) {
    if (!ToleratesTaint(tolerations, taint)) {
      errors.push_back(internal::StrCat("did not tolerate ", taint.ToString()));
    }
  }
  if (errors.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrJoin(errors, "; "));
}

bool ToleratesAll(const std::vector<Taint>& taints, const std::vector<Toleration>& tolerations) {
  for (const Taint& taint : taints) {
    if (!ToleratesTaint(tolerations, taint)) return false;
  }
  return true;
}

std::vector<Taint> MergeTaints(const std::vector<Taint>& base, const std::vector<Taint>& extra) {
  std::vector<Taint> out;
  auto add = [&](const Taint& t) {
    for (const Taint& have : out) {
      if (have.Matches(t)) return;
    }
    out.push_back(t);
  };
  for (const Taint& t : base) add(t);
  for (const Taint& t : extra) add(t);
  return out;
}

bool IsKnownEphemeralTaint(const Taint& taint) {
  if (taint.key.rfind("readiness.k8s.io/", 0) == 0) return true;
  if (taint.key == "node.kubernetes.io/not-ready") {
    return taint.effect == TaintEffect::kNoSchedule || taint.effect == TaintEffect::kNoExecute;
  }
  if (taint.key == "node.kubernetes.io/unreachable")
    return taint.effect == TaintEffect::kNoSchedule;
  if (taint.key == "node.cloudprovider.kubernetes.io/uninitialized") {
    return taint.effect == TaintEffect::kNoSchedule;
  }
  if (taint.key == "karpenter.sh/unregistered") return taint.effect == TaintEffect::kNoExecute;
  return false;
}

std::vector<Taint> SchedulingTaints(const std::vector<Taint>& taints, bool managed,
                                    bool initialized, const std::vector<Taint>& startup_taints) {
  if (!managed || initialized) return taints;
  std::vector<Taint> out;
  for (const Taint& t : taints) {
    if (IsKnownEphemeralTaint(t)) continue;
    bool startup = false;
    for (const Taint& s : startup_taints) startup = startup || s.Matches(t);
    if (!startup) out.push_back(t);
  }
  return out;
}

Taint DisruptedTaint() { return Taint{"karpenter.sh/disrupted", "", TaintEffect::kNoSchedule}; }

}  // namespace karp
