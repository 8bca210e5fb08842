// File: karp/requirements.h
//
// The requirements algebra of the reference (karpenter `pkg/scheduling/requirement.go` and
// `requirements.go`), exactly: a Requirement constrains one label key to a set of values, held
// as a (possibly complemented) value set plus optional integer bounds; Requirements is a map
// from key to Requirement narrowed only by intersection.
//
//   operator       complement  values   bounds
//   In [v...]      false       v...     -
//   NotIn [v...]   true        v...     -
//   Exists         true        -        -
//   DoesNotExist   false       -        -
//   Gt n           true        -        gte = n+1   (Gt INT64_MAX becomes DoesNotExist)
//   Lt n           true        -        lte = n-1
//   Gte n          true        -        gte = n
//   Lte n          true        -        lte = n
//
// Determinism (the reference is random here, see docs/design.md §10): values are kept sorted;
// Any() returns the smallest member (In) or the smallest admissible non-negative integer
// (NotIn/Exists); the typo hint of Compatible() scans keys in sorted order.
//
// Example:
//   karp::Requirements node;
//   node.Add(karp::Requirement::In("topology.kubernetes.io/zone", {"us-east-1a", "us-east-1b"}));
//   karp::Requirements pod;
//   pod.Add(karp::Requirement::NotIn("topology.kubernetes.io/zone", {"us-east-1a"}));
//   absl::Status s = node.Compatible(pod, &karp::WellKnownLabels());  // OK
//   node.Add(pod);  // zone In [us-east-1b]
//
// Thread-safety: value types; thread-compatible.

#ifndef KARP_REQUIREMENTS_H_
#define KARP_REQUIREMENTS_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/labels.h"

namespace karp {

// Node selector operators. Pods may use the first six; NodePools and NodeClaims all eight.
enum class Operator { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt, kGte, kLte };

// "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte".
std::string_view OperatorName(Operator op);
// Parses an operator name (case-sensitive). Errors: InvalidArgument naming the text.
[[nodiscard]] absl::StatusOr<Operator> ParseOperator(std::string_view text);

// The API form: a NodeSelectorRequirement (with Karpenter's optional minValues).
struct NodeSelectorRequirement {
  std::string key;
  Operator op = Operator::kIn;
  std::vector<std::string> values;
  std::optional<int> min_values;

  friend bool operator==(const NodeSelectorRequirement& a, const NodeSelectorRequirement& b) {
    return a.key == b.key && a.op == b.op && a.values == b.values && a.min_values == b.min_values;
  }
};

// Largest accepted minValues (karpenter API validation: 1..50).
inline constexpr int kMaxMinValues = 50;

// A constraint on one label key.
class Requirement {
 public:
  // Constructors mirroring karpenter `NewRequirement`. Keys are normalized (beta -> GA).
  // They do not validate; see Create().
  static Requirement In(std::string_view key, std::vector<std::string> values);
  static Requirement NotIn(std::string_view key, std::vector<std::string> values);
  static Requirement Exists(std::string_view key);
  static Requirement DoesNotExist(std::string_view key);
  static Requirement Gt(std::string_view key, int64_t n);
  static Requirement Lt(std::string_view key, int64_t n);
  static Requirement Gte(std::string_view key, int64_t n);
  static Requirement Lte(std::string_view key, int64_t n);

  // Builds a requirement from API fields and checks the operator's arity: In needs >= 1 value
  // (and >= minValues values), Exists/DoesNotExist take none, Gt/Lt/Gte/Lte exactly one
  // non-negative decimal integer; minValues must be in 1..50. Label key/value syntax and the
  // restricted-label rule are checked by ValidateRequirement(), not here.
  // Errors: InvalidArgument with a message naming the key and the offending value.
  [[nodiscard]] static absl::StatusOr<Requirement> Create(
      std::string_view key, Operator op, const std::vector<std::string>& values,
      std::optional<int> min_values = std::nullopt);
  [[nodiscard]] static absl::StatusOr<Requirement> Create(const NodeSelectorRequirement& api) {
    return Create(api.key, api.op, api.values, api.min_values);
  }

  const std::string& key() const { return key_; }
  bool complement() const { return complement_; }
  // Sorted, unique: the allowed values (not complement) or the excluded values (complement).
  const std::vector<std::string>& values() const { return values_ ? *values_ : NoValues(); }
  const std::optional<int64_t>& gte() const { return gte_; }
  const std::optional<int64_t>& lte() const { return lte_; }
  const std::optional<int>& min_values() const { return min_values_; }
  void set_min_values(std::optional<int> m) { min_values_ = m; }

  // The derived operator used for every decision: In, NotIn, Exists or DoesNotExist
  // (bounded requirements report Exists).
  Operator op() const;

  // Membership: the value is allowed (and, when bounds exist, is an integer within them).
  bool Has(std::string_view value) const;

  // karpenter `Len()`: number of values (In) or INT64_MAX - |excluded| (complement).
  int64_t Len() const;

  // A member of the set, chosen deterministically: In -> the smallest value; NotIn/Exists ->
  // the smallest integer >= max(gte, 0) that is within lte and not excluded; DoesNotExist or
  // no such integer -> "".
  std::string Any() const;

  // karpenter `Intersection`.
  Requirement Intersection(const Requirement& other) const;
  // karpenter `HasIntersection` (allocation-free; keeps the reference's quirk that two
  // complements always intersect when their bounds do).
  bool HasIntersection(const Requirement& other) const;

  // `key In [a b]`, `key Exists`, `... >=N`, `... <=N`, ` minValues N`; more than five values
  // print as the first five then `and N others` (karpenter `String()`).
  std::string ToString() const;

  // The API form (karpenter serialization): Gte/Lte when bounded (two entries when both
  // bounds exist; NotIn values are dropped, a documented quirk), else NotIn/Exists/In/
  // DoesNotExist with sorted values.
  std::vector<NodeSelectorRequirement> ToApi() const;

  friend bool operator==(const Requirement& a, const Requirement& b) {
    return a.key_ == b.key_ && a.complement_ == b.complement_ &&
           (a.values_ == b.values_ || a.values() == b.values()) && a.gte_ == b.gte_ &&
           a.lte_ == b.lte_ && a.min_values_ == b.min_values_;
  }
  friend bool operator!=(const Requirement& a, const Requirement& b) { return !(a == b); }

 private:
  Requirement() = default;
  bool WithinBounds(std::string_view value) const;

  std::string key_;
  bool complement_ = false;
  // Shared, immutable (copies of a requirement, and intersections that keep one side's values,
  // share one list: the instance-type lists of thousands of claims are a few); null when empty.
  std::shared_ptr<const std::vector<std::string>> values_;
  static const std::vector<std::string>& NoValues();
  void SetValues(std::vector<std::string> values);
  std::optional<int64_t> gte_;
  std::optional<int64_t> lte_;
  std::optional<int> min_values_;
};

// A set of requirements keyed by label key, kept sorted by key.
class Requirements {
 public:
  Requirements() = default;
  Requirements(std::initializer_list<Requirement> reqs);

  // Each `k=v` label becomes `k In [v]`.
  static Requirements FromLabels(const std::map<std::string, std::string>& labels);
  // Builds requirements from API entries (validated as Requirement::Create). Entries on the
  // same key are intersected. Errors: InvalidArgument prefixed with `[i]: ` naming the entry.
  [[nodiscard]] static absl::StatusOr<Requirements> FromApi(
      const std::vector<NodeSelectorRequirement>& api);

  // Narrows: intersects each requirement with the existing one of the same key (karpenter
  // `Add`), or inserts it.
  void Add(const Requirement& r);
  void Add(Requirement&& r);  // the same, moving r in when its key is new
  void Add(const Requirements& other);
  // Replaces (not intersects) the requirement of r.key().
  void Set(const Requirement& r);
  void Erase(std::string_view key);

  bool Has(std::string_view key) const { return Find(key) != nullptr; }
  // The stored requirement, or nullptr.
  const Requirement* Find(std::string_view key) const;
  // The stored requirement, or `key Exists` when undefined (karpenter `Get`).
  Requirement Get(std::string_view key) const;
  bool HasMinValues() const;

  bool empty() const { return reqs_.empty(); }
  size_t size() const { return reqs_.size(); }
  std::vector<Requirement>::const_iterator begin() const { return reqs_.begin(); }
  std::vector<Requirement>::const_iterator end() const { return reqs_.end(); }
  std::vector<std::string> Keys() const;

  // karpenter `Compatible`: every key of `incoming` must be defined here unless it is in
  // `allow_undefined` or its operator is NotIn/DoesNotExist (error `label "<key>" does not
  // have known values` with an optional ` (typo of "<key>"?)` hint; only the first such key is
  // reported); then Intersects(). Pass &WellKnownLabels() (or a catalog's set) for
  // AllowUndefinedWellKnownLabels, nullptr for the strict form used against real nodes.
  // Returns OK or FailedPrecondition carrying the reference's message.
  [[nodiscard]] absl::Status Compatible(const Requirements& incoming,
                                        const LabelSet* allow_undefined = nullptr) const;
  // Allocation-free form of Compatible().
  bool IsCompatible(const Requirements& incoming, const LabelSet* allow_undefined = nullptr) const;

  // karpenter `Intersects`: for every key defined on both sides the requirements must
  // intersect, unless both derived operators are NotIn/DoesNotExist. All failing keys are
  // reported, joined by "; ", each as `key <key>, <incoming> not in <existing>`.
  // Returns OK or FailedPrecondition.
  [[nodiscard]] absl::Status Intersects(const Requirements& incoming) const;
  bool DoesIntersect(const Requirements& incoming) const;

  // All requirements except restricted labels (hostname), sorted, joined by ", ".
  std::string ToString() const;
  // Every requirement in API form, in key order.
  std::vector<NodeSelectorRequirement> ToApi() const;

  friend bool operator==(const Requirements& a, const Requirements& b) {
    return a.reqs_ == b.reqs_;
  }
  friend bool operator!=(const Requirements& a, const Requirements& b) { return !(a == b); }

 private:
  std::vector<Requirement> reqs_;  // sorted by key, unique keys
};

// karpenter `ValidateRequirement` for NodePool requirements and pod selectors: supported
// operator with the right arity (Requirement::Create), restricted-label check, qualified key,
// valid label values; for well-known keys with known values (capacity-type) and operator In,
// at least one value must be known and at least minValues values must be known.
// Errors: InvalidArgument naming the key.
[[nodiscard]] absl::Status ValidateRequirement(const NodeSelectorRequirement& req,
                                               const LabelSet& well_known = WellKnownLabels());

}  // namespace karp

#endif  // KARP_REQUIREMENTS_H_
