// File: karp/taints.h
//
// Taints and tolerations with the Kubernetes `ToleratesTaint` rule as the reference uses it
// (karpenter `pkg/scheduling/taints.go`): every taint of every effect, PreferNoSchedule and
// NoExecute included, must be tolerated by some toleration.
//
//   toleration matches taint  <=>  (toleration effect empty or equal)
//                                  and (toleration key empty or equal)
//                                  and operator Equal ("" too): values equal
//                                      operator Exists: always
//                                      operator Gt / Lt: both values integers, taint value
//                                                        greater / less than toleration's
//
// Example:
//   karp::Taint t{"example.com/special-taint", "", karp::TaintEffect::kNoSchedule};
//   absl::Status s = karp::Tolerates({t}, {});
//   // s.message() == "did not tolerate example.com/special-taint=:NoSchedule"
//
// Thread-safety: value types; thread-compatible.

#ifndef KARP_TAINTS_H_
#define KARP_TAINTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace karp {

// kNone is the empty effect, allowed only on tolerations (it matches every effect).
enum class TaintEffect { kNone, kNoSchedule, kPreferNoSchedule, kNoExecute };

// "", "NoSchedule", "PreferNoSchedule", "NoExecute".
std::string_view TaintEffectName(TaintEffect effect);
// Errors: InvalidArgument naming the text.
[[nodiscard]] absl::StatusOr<TaintEffect> ParseTaintEffect(std::string_view text);

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;

  // `key=value:Effect` (the reference's error format).
  std::string ToString() const;
  // karpenter `MatchTaint`: same key and effect (value ignored).
  bool Matches(const Taint& other) const { return key == other.key && effect == other.effect; }

  friend bool operator==(const Taint& a, const Taint& b) {
    return a.key == b.key && a.value == b.value && a.effect == b.effect;
  }
};

enum class TolerationOperator { kEqual, kExists, kGt, kLt };

// "Equal", "Exists", "Gt", "Lt". ParseTolerationOperator maps "" to Equal.
std::string_view TolerationOperatorName(TolerationOperator op);
[[nodiscard]] absl::StatusOr<TolerationOperator> ParseTolerationOperator(std::string_view text);

struct Toleration {
  std::string key;  // empty with Exists: matches every key
  TolerationOperator op = TolerationOperator::kEqual;
  std::string value;
  TaintEffect effect = TaintEffect::kNone;  // kNone: matches every effect

  // Kubernetes `ToleratesTaint`.
  bool Tolerates(const Taint& taint) const;

  friend bool operator==(const Toleration& a, const Toleration& b) {
    return a.key == b.key && a.op == b.op && a.value == b.value && a.effect == b.effect;
  }
};

// True iff some toleration tolerates `taint`.
bool ToleratesTaint(const std::vector<Toleration>& tolerations, const Taint& taint);

// karpenter `Taints.Tolerates`: OK if every taint is tolerated; otherwise FailedPrecondition
// listing each untolerated taint as `did not tolerate <key>=<value>:<Effect>`, joined by "; ".
[[nodiscard]] absl::Status Tolerates(const std::vector<Taint>& taints,
                                     const std::vector<Toleration>& tolerations);
// Allocation-free form of Tolerates().
bool ToleratesAll(const std::vector<Taint>& taints, const std::vector<Toleration>& tolerations);

// karpenter `Taints.Merge`: the union, deduplicated by (key, effect); `base` entries win.
std::vector<Taint> MergeTaints(const std::vector<Taint>& base, const std::vector<Taint>& extra);

// True for the taints that a managed node carries only while it is not yet initialized and
// that the reference ignores then (docs/design.md §3): node.kubernetes.io/not-ready (NoSchedule,
// NoExecute), node.kubernetes.io/unreachable:NoSchedule,
// node.cloudprovider.kubernetes.io/uninitialized:NoSchedule, karpenter.sh/unregistered:NoExecute,
// and any key with the prefix `readiness.k8s.io/`.
bool IsKnownEphemeralTaint(const Taint& taint);

// The taints that count for scheduling on a node. For an uninitialized managed node the known
// ephemeral taints and the NodeClaim's startup taints (matched by key and effect) are removed;
// otherwise `taints` is returned unchanged.
std::vector<Taint> SchedulingTaints(const std::vector<Taint>& taints, bool managed,
                                    bool initialized, const std::vector<Taint>& startup_taints);

// The taint disruption puts on candidates: karpenter.sh/disrupted:NoSchedule.
Taint DisruptedTaint();

}  // namespace karp

#endif  // KARP_TAINTS_H_
