// The requirements algebra (see karp/requirements.h and docs/design.md §1).

#include "karp/requirements.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "internal/strings.h"

namespace karp {
namespace {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

// Go `strconv.Atoi`: optional sign, decimal digits, must fit in int64.
bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  size_t i = 0;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    i = 1;
  }
  if (i >= s.size()) return false;
  uint128 v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
    if (v > static_cast<uint128>(kMaxInt64) + 1) return false;
  }
  if (!neg && v > static_cast<uint128>(kMaxInt64)) return false;
  *out = neg ? static_cast<int64_t>(-static_cast<int128>(v)) : static_cast<int64_t>(v);
  return true;
}

// Non-negative decimal integer without sign (the API's Gt/Lt/Gte/Lte values).
bool ParseNonNegative(std::string_view s, int64_t* out) {
  if (s.empty() || s[0] == '+' || s[0] == '-') return false;
  return ParseInt64(s, out);
}

void SortUnique(std::vector<std::string>& v) {
  if (std::adjacent_find(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
        return !(a < b);
      }) == v.end()) {
    return;  // already sorted and unique
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

bool Contains(const std::vector<std::string>& sorted, std::string_view v) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), v,
                             [](const std::string& a, std::string_view b) { return a < b; });
  return it != sorted.end() && *it == v;
}

std::optional<int64_t> MaxOpt(const std::optional<int64_t>& a, const std::optional<int64_t>& b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

std::optional<int64_t> MinOpt(const std::optional<int64_t>& a, const std::optional<int64_t>& b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

std::optional<int> MaxOpt(const std::optional<int>& a, const std::optional<int>& b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

bool InBounds(std::string_view value, const std::optional<int64_t>& gte,
              const std::optional<int64_t>& lte) {
  if (!gte && !lte) return true;
  int64_t v;
  if (!ParseInt64(value, &v)) return false;
  if (gte && v < *gte) return false;
  if (lte && v > *lte) return false;
  return true;
}

bool IsNegativeOp(Operator op) { return op == Operator::kNotIn || op == Operator::kDoesNotExist; }

}  // namespace

std::string_view OperatorName(Operator op) {
  switch (op) {
    case Operator::kIn:
      return "In";
    case Operator::kNotIn:
      return "NotIn";
    case Operator::kExists:
      return "Exists";
    case Operator::kDoesNotExist:
      return "DoesNotExist";
    case Operator::kGt:
      return "Gt";
    case Operator::kLt:
      return "Lt";
    case Operator::kGte:
      return "Gte";
    case Operator::kLte:
      return "Lte";
  }
  return "";
}

absl::StatusOr<Operator> ParseOperator(std::string_view text) {
  static constexpr Operator kAll[] = {Operator::kIn,           Operator::kNotIn, Operator::kExists,
                                      Operator::kDoesNotExist, Operator::kGt,    Operator::kLt,
                                      Operator::kGte,          Operator::kLte};
  for (Operator op : kAll) {
    if (OperatorName(op) == text) return op;
  }
  return absl::InvalidArgumentError(
      internal::StrCat("unsupported operator \"", text,
                       "\"; expected one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte"));
}

// ---------------------------------------------------------------------------------------------
// Requirement

Requirement Requirement::In(std::string_view key, std::vector<std::string> values) {
  Requirement r;
  r.key_ = std::string(NormalizeLabelKey(key));
  SortUnique(values);
  r.SetValues(std::move(values));
  return r;
}

const std::vector<std::string>& Requirement::NoValues() {
  static const std::vector<std::string>* const kNone = new std::vector<std::string>();
  return *kNone;
}

void Requirement::SetValues(std::vector<std::string> values) {
  if (values.empty()) {
    values_.reset();
  } else {
    values_ = std::make_shared<const std::vector<std::string>>(std::move(values));
  }
}

Requirement Requirement::NotIn(std::string_view key, std::vector<std::string> values) {
  Requirement r = In(key, std::move(values));
  r.complement_ = true;
  return r;
}

Requirement Requirement::Exists(std::string_view key) {
  Requirement r;
  r.key_ = std::string(NormalizeLabelKey(key));
  r.complement_ = true;
  return r;
}

Requirement Requirement::DoesNotExist(std::string_view key) {
  Requirement r;
  r.key_ = std::string(NormalizeLabelKey(key));
  return r;
}

Requirement Requirement::Gt(std::string_view key, int64_t n) {
  if (n == kMaxInt64) return DoesNotExist(key);
  Requirement r = Exists(key);
  r.gte_ = n + 1;
  return r;
}

Requirement Requirement::Lt(std::string_view key, int64_t n) {
  Requirement r = Exists(key);
  r.lte_ = n == std::numeric_limits<int64_t>::min() ? n : n - 1;
  return r;
}

Requirement Requirement::Gte(std::string_view key, int64_t n) {
  Requirement r = Exists(key);
  r.gte_ = n;
  return r;
}

Requirement Requirement::Lte(std::string_view key, int64_t n) {
  Requirement r = Exists(key);
  r.lte_ = n;
  return r;
}

absl::StatusOr<Requirement> Requirement::Create(std::string_view key, Operator op,
                                                const std::vector<std::string>& values,
                                                std::optional<int> min_values) {
  if (key.empty()) return absl::InvalidArgumentError("requirement key must not be empty");
  if (min_values && (*min_values < 1 || *min_values > kMaxMinValues)) {
    return absl::InvalidArgumentError(internal::StrCat("key ", key, ": minValues ", *min_values,
                                                       " must be between 1 and ", kMaxMinValues));
  }
  Requirement r;
  switch (op) {
    case Operator::kIn:
    case Operator::kNotIn: {
      if (op == Operator::kIn && values.empty()) {
        return absl::InvalidArgumentError(
            internal::StrCat("key ", key, " with operator In must have a value defined"));
      }
      r = op == Operator::kIn ? In(key, values) : NotIn(key, values);
      if (op == Operator::kIn && min_values &&
          static_cast<int64_t>(r.values().size()) < *min_values) {
        return absl::InvalidArgumentError(
            internal::StrCat("key ", key, " with operator In must have at least minValues (",
                             *min_values, ") values, got ", r.values().size()));
      }
      break;
    }
    case Operator::kExists:
    case Operator::kDoesNotExist:
      if (!values.empty()) {
        return absl::InvalidArgumentError(internal::StrCat(
            "key ", key, " with operator ", OperatorName(op), " must not have values"));
      }
      r = op == Operator::kExists ? Exists(key) : DoesNotExist(key);
      break;
    case Operator::kGt:
    case Operator::kLt:
    case Operator::kGte:
    case Operator::kLte: {
      int64_t n = 0;
      if (values.size() != 1 || !ParseNonNegative(values[0], &n)) {
        std::string got = values.size() == 1 ? internal::StrCat("\"", values[0], "\"")
                                             : internal::StrCat(values.size(), " values");
        return absl::InvalidArgumentError(
            internal::StrCat("key ", key, " with operator ", OperatorName(op),
                             " must have a single non-negative integer value, got ", got));
      }
      r = op == Operator::kGt    ? Gt(key, n)
          : op == Operator::kLt  ? Lt(key, n)
          : op == Operator::kGte ? Gte(key, n)
                                 : Lte(key, n);
      break;
    }
  }
  r.min_values_ = min_values;
  return r;
}

Operator Requirement::op() const {
  if (complement_) return values_ == nullptr ? Operator::kExists : Operator::kNotIn;
  return values_ == nullptr ? Operator::kDoesNotExist : Operator::kIn;
}

bool Requirement::WithinBounds(std::string_view value) const { return InBounds(value, gte_, lte_); }

bool Requirement::Has(std::string_view value) const {
  const bool listed = Contains(values(), value);
  if (complement_ ? listed : !listed) return false;
  return WithinBounds(value);
}

int64_t Requirement::Len() const {
  if (complement_) return kMaxInt64 - static_cast<int64_t>(values().size());
  return static_cast<int64_t>(values().size());
}

std::string Requirement::Any() const {
  switch (op()) {
    case Operator::kIn:
      for (const std::string& v : values()) {
        if (WithinBounds(v)) return v;
      }
      return "";
    case Operator::kNotIn:
    case Operator::kExists: {
      int64_t lo = gte_ ? std::max<int64_t>(*gte_, 0) : 0;
      const int64_t hi = lte_ ? *lte_ : kMaxInt64;
      for (int64_t v = lo; v <= hi; ++v) {
        std::string s = std::to_string(v);
        if (!Contains(values(), s)) return s;
        if (v == kMaxInt64) break;
      }
      return "";
    }
    default:
      return "";
  }
}

Requirement Requirement::Intersection(const Requirement& other) const {
  Requirement r;
  r.key_ = key_;
  r.complement_ = complement_ && other.complement_;
  r.gte_ = MaxOpt(gte_, other.gte_);
  r.lte_ = MinOpt(lte_, other.lte_);
  r.min_values_ = MaxOpt(min_values_, other.min_values_);
  if (r.gte_ && r.lte_ && *r.gte_ > *r.lte_) {
    Requirement none = DoesNotExist(key_);
    none.min_values_ = r.min_values_;
    return none;
  }
  const std::vector<std::string>& mine = values();
  const std::vector<std::string>& theirs = other.values();
  std::vector<std::string> out;
  if (complement_ && other.complement_) {
    std::set_union(mine.begin(), mine.end(), theirs.begin(), theirs.end(), std::back_inserter(out));
  } else if (complement_) {
    std::set_difference(theirs.begin(), theirs.end(), mine.begin(), mine.end(),
                        std::back_inserter(out));
  } else if (other.complement_) {
    std::set_difference(mine.begin(), mine.end(), theirs.begin(), theirs.end(),
                        std::back_inserter(out));
  } else {
    std::set_intersection(mine.begin(), mine.end(), theirs.begin(), theirs.end(),
                          std::back_inserter(out));
  }
  if (r.gte_ || r.lte_) {
    out.erase(std::remove_if(out.begin(), out.end(),
                             [&](const std::string& v) { return !InBounds(v, r.gte_, r.lte_); }),
              out.end());
  }
  // Every operation above yields a subset of one side or a superset of both: the same size
  // as a side's (sorted, unique) list means the same list, which is then shared.
  if (!out.empty() && out.size() == mine.size() && out == mine) {
    r.values_ = values_;
  } else if (!out.empty() && out.size() == theirs.size() && out == theirs) {
    r.values_ = other.values_;
  } else {
    r.SetValues(std::move(out));
  }
  if (!r.complement_) {
    r.gte_.reset();
    r.lte_.reset();
  }
  return r;
}

bool Requirement::HasIntersection(const Requirement& other) const {
  const std::optional<int64_t> gte = MaxOpt(gte_, other.gte_);
  const std::optional<int64_t> lte = MinOpt(lte_, other.lte_);
  if (gte && lte && *gte > *lte) return false;
  if (complement_ && other.complement_) return true;
  if (complement_ || other.complement_) {
    const Requirement& concrete = complement_ ? other : *this;
    const Requirement& comp = complement_ ? *this : other;
    for (const std::string& v : concrete.values()) {
      if (!Contains(comp.values(), v) && InBounds(v, gte, lte)) return true;
    }
    return false;
  }
  // Both concrete: walk the sorted lists.
  const std::vector<std::string>& mine = values();
  const std::vector<std::string>& theirs = other.values();
  auto a = mine.begin();
  auto b = theirs.begin();
  while (a != mine.end() && b != theirs.end()) {
    int c = a->compare(*b);
    if (c < 0) {
      ++a;
    } else if (c > 0) {
      ++b;
    } else {
      if (InBounds(*a, gte, lte)) return true;
      ++a;
      ++b;
    }
  }
  return false;
}

std::string Requirement::ToString() const {
  const Operator o = op();
  std::string s;
  if (o == Operator::kExists || o == Operator::kDoesNotExist) {
    s = internal::StrCat(key_, " ", OperatorName(o));
  } else {
    std::vector<std::string> shown;
    const std::vector<std::string>& values = this->values();
    const size_t n = values.size();
    for (size_t i = 0; i < n && i < 5; ++i) shown.push_back(values[i]);
    if (n > 5) shown.push_back(internal::StrCat("and ", n - 5, " others"));
    s = internal::StrCat(key_, " ", OperatorName(o), " [", absl::StrJoin(shown, " "), "]");
  }
  if (gte_) internal::StrAppend(&s, " >=", *gte_);
  if (lte_) internal::StrAppend(&s, " <=", *lte_);
  if (min_values_) internal::StrAppend(&s, " minValues ", *min_values_);
  return s;
}

std::vector<NodeSelectorRequirement> Requirement::ToApi() const {
  std::vector<NodeSelectorRequirement> out;
  if (gte_ || lte_) {
    if (gte_) out.push_back({key_, Operator::kGte, {std::to_string(*gte_)}, min_values_});
    if (lte_) {
      out.push_back(
          {key_, Operator::kLte, {std::to_string(*lte_)}, gte_ ? std::nullopt : min_values_});
    }
    return out;
  }
  out.push_back({key_, op(), values(), min_values_});
  return out;
}

// ---------------------------------------------------------------------------------------------
// Requirements

namespace {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

auto LowerBoundByKey(const std::vector<Requirement>& reqs, std::string_view key) {
  return std::lower_bound(reqs.begin(), reqs.end(), key,
                          [](const Requirement& r, std::string_view k) { return r.key() < k; });
}

}  // namespace

Requirements::Requirements(std::initializer_list<Requirement> reqs) {
  for (const Requirement& r : reqs) Add(r);
}

Requirements Requirements::FromLabels(const std::map<std::string, std::string>& labels) {
  Requirements out;
  for (const auto& [k, v] : labels) out.Add(Requirement::In(k, {v}));
  return out;
}

absl::StatusOr<Requirements> Requirements::FromApi(
    const std::vector<NodeSelectorRequirement>& api) {
  Requirements out;
  for (size_t i = 0; i < api.size(); ++i) {
    absl::StatusOr<Requirement> r = Requirement::Create(api[i]);
    if (!r.ok()) {
      return absl::InvalidArgumentError(internal::StrCat("[", i, "]: ", r.status().message()));
    }
    out.Add(*r);
  }
  return out;
}

void Requirements::Add(const Requirement& r) {
  if (reqs_.empty() || reqs_.back().key() < r.key()) {  // in key order: append
    reqs_.push_back(r);
    return;
  }
  auto it = LowerBoundByKey(reqs_, r.key());
  if (it != reqs_.end() && it->key() == r.key()) {
    auto pos = reqs_.begin() + (it - reqs_.cbegin());
    *pos = pos->Intersection(r);
  } else {
    reqs_.insert(it, r);
  }
}

void Requirements::Add(Requirement&& r) {
  if (reqs_.empty() || reqs_.back().key() < r.key()) {  // in key order: append
    reqs_.push_back(std::move(r));
    return;
  }
  auto it = LowerBoundByKey(reqs_, r.key());
  if (it != reqs_.end() && it->key() == r.key()) {
    auto pos = reqs_.begin() + (it - reqs_.cbegin());
    *pos = pos->Intersection(r);
  } else {
    reqs_.insert(it, std::move(r));
  }
}

void Requirements::Add(const Requirements& other) {
  // A few requirements: one by one. Many: one merge of the two key-sorted lists (the same
  // result, without shifting the tail of reqs_ for every insertion).
  if (other.reqs_.size() * 4 < reqs_.size() || reqs_.empty()) {
    for (const Requirement& r : other.reqs_) Add(r);
    return;
  }
  std::vector<Requirement> merged;
  merged.reserve(reqs_.size() + other.reqs_.size());
  auto a = reqs_.begin();
  auto b = other.reqs_.begin();
  while (a != reqs_.end() && b != other.reqs_.end()) {
    if (a->key() < b->key()) {
      merged.push_back(std::move(*a++));
    } else if (b->key() < a->key()) {
      merged.push_back(*b++);
    } else {
      merged.push_back(a->Intersection(*b));  // (a may be b when other is *this)
      ++a;
      ++b;
    }
  }
  for (; a != reqs_.end(); ++a) merged.push_back(std::move(*a));
  for (; b != other.reqs_.end(); ++b) merged.push_back(*b);
  reqs_ = std::move(merged);
}

void Requirements::Set(const Requirement& r) {
  auto it = LowerBoundByKey(reqs_, r.key());
  if (it != reqs_.end() && it->key() == r.key()) {
    reqs_[static_cast<size_t>(it - reqs_.cbegin())] = r;
  } else {
    reqs_.insert(it, r);
  }
}

void Requirements::Erase(std::string_view key) {
  auto it = LowerBoundByKey(reqs_, key);
  if (it != reqs_.end() && it->key() == key) reqs_.erase(it);
}

const Requirement* Requirements::Find(std::string_view key) const {
  auto it = LowerBoundByKey(reqs_, key);
  if (it != reqs_.end() && it->key() == key) return &*it;
  return nullptr;
}

Requirement Requirements::Get(std::string_view key) const {
  const Requirement* r = Find(key);
  return r ? *r : Requirement::Exists(key);
}

bool Requirements::HasMinValues() const {
  return std::any_of(reqs_.begin(), reqs_.end(),
                     [](const Requirement& r) { return r.min_values().has_value(); });
}

std::vector<std::string> Requirements::Keys() const {
  std::vector<std::string> out;
  out.reserve(reqs_.size());
  for (const Requirement& r : reqs_) out.push_back(r.key());
  return out;
}

namespace {

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

// The first key (allowed-undefined set, then existing keys, each in sorted order) that looks
// like a typo of `key`: it contains `key`, or it ends with `key`'s suffix (the part after the
// first '/', or the whole key) — karpenter `labelHint`.
std::string LabelHint(const Requirements& existing, std::string_view key,
                      const LabelSet* allow_undefined) {
  size_t slash = key.find('/');
  const std::string_view suffix = slash == std::string_view::npos ? key : key.substr(slash + 1);
  auto matches = [&](std::string_view candidate) {
    if (candidate.find(key) != std::string_view::npos) return true;
    return !suffix.empty() && candidate.size() >= suffix.size() &&
           candidate.substr(candidate.size() - suffix.size()) == suffix;
  };
  if (allow_undefined != nullptr) {
    for (const std::string& k : allow_undefined->keys()) {
      if (matches(k)) return internal::StrCat(" (typo of \"", k, "\"?)");
    }
  }
  for (const Requirement& r : existing) {
    if (matches(r.key())) return internal::StrCat(" (typo of \"", r.key(), "\"?)");
  }
  return "";
}

}  // namespace

absl::Status Requirements::Compatible(const Requirements& incoming,
                                      const LabelSet* allow_undefined) const {
  for (const Requirement& r : incoming.reqs_) {
    if (allow_undefined != nullptr && allow_undefined->Contains(r.key())) continue;
    if (Has(r.key()) || IsNegativeOp(r.op())) continue;
    return absl::FailedPreconditionError(
        internal::StrCat("label \"", r.key(), "\" does not have known values",
                         LabelHint(*this, r.key(), allow_undefined)));
  }
  return Intersects(incoming);
}

bool Requirements::IsCompatible(const Requirements& incoming,
                                const LabelSet* allow_undefined) const {
  for (const Requirement& r : incoming.reqs_) {
    if (allow_undefined != nullptr && allow_undefined->Contains(r.key())) continue;
    if (Has(r.key()) || IsNegativeOp(r.op())) continue;
    return false;
  }
  return DoesIntersect(incoming);
}

namespace {

// Calls on_conflict(existing, incoming) for every key defined on both sides whose requirements
// do not intersect, unless both are negative (NotIn/DoesNotExist); stops when it returns false.
template <typename Fn>
void ForEachConflict(const std::vector<Requirement>& existing,
                     const std::vector<Requirement>& incoming, Fn&& on_conflict) {
  auto a = existing.begin();
  auto b = incoming.begin();
  while (a != existing.end() && b != incoming.end()) {
    const int c = a->key().compare(b->key());
    if (c < 0) {
      ++a;
    } else if (c > 0) {
      ++b;
    } else {
      if (!a->HasIntersection(*b) && !(IsNegativeOp(b->op()) && IsNegativeOp(a->op()))) {
        if (!on_conflict(*a, *b)) return;
      }
      ++a;
      ++b;
    }
  }
}

}  // namespace

absl::Status Requirements::Intersects(const Requirements& incoming) const {
  std::vector<std::string> errors;
  ForEachConflict(reqs_, incoming.reqs_, [&](const Requirement& e, const Requirement& i) {
    errors.push_back(
        internal::StrCat("key ", e.key(), ", ", i.ToString(), " not in ", e.ToString()));
    return true;
  });
  if (errors.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrJoin(errors, "; "));
}

bool Requirements::DoesIntersect(const Requirements& incoming) const {
  bool ok = true;
  ForEachConflict(reqs_, incoming.reqs_, [&](const Requirement&, const Requirement&) {
    ok = false;
    return false;
  });
  return ok;
}

std::string Requirements::ToString() const {
  std::vector<std::string> parts;
  for (const Requirement& r : reqs_) {
    if (RestrictedLabels().Contains(r.key())) continue;
    parts.push_back(r.ToString());
  }
  std::sort(parts.begin(), parts.end());
  return absl::StrJoin(parts, ", ");
}

std::vector<NodeSelectorRequirement> Requirements::ToApi() const {
  std::vector<NodeSelectorRequirement> out;
  for (const Requirement& r : reqs_) {
    for (NodeSelectorRequirement& e : r.ToApi()) out.push_back(std::move(e));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Validation

absl::Status ValidateRequirement(const NodeSelectorRequirement& req, const LabelSet& well_known) {
  const std::string_view key = NormalizeLabelKey(req.key);
  if (absl::Status s = ValidateQualifiedName(key); !s.ok()) return s;
  if (absl::Status s = CheckRestrictedLabel(key, well_known); !s.ok()) return s;
  absl::StatusOr<Requirement> r = Requirement::Create(req);
  if (!r.ok()) return r.status();
  if (req.op == Operator::kIn || req.op == Operator::kNotIn) {
    for (const std::string& v : req.values) {
      if (absl::Status s = ValidateLabelValue(v); !s.ok()) {
        return absl::InvalidArgumentError(internal::StrCat("key ", key, ": ", s.message()));
      }
    }
  }
  if (key == kLabelCapacityType && req.op == Operator::kIn) {
    static const std::vector<std::string> kKnown = {"on-demand", "reserved", "spot"};
    int known = 0;
    for (const std::string& v : r->values()) {
      if (Contains(kKnown, v)) ++known;
    }
    if (known == 0) {
      return absl::InvalidArgumentError(
          internal::StrCat("key ", key, " with operator In has no known values; expected some of [",
                           absl::StrJoin(kKnown, " "), "]"));
    }
    if (req.min_values && known < *req.min_values) {
      return absl::InvalidArgumentError(internal::StrCat("key ", key, " has only ", known,
                                                         " known values, fewer than minValues ",
                                                         *req.min_values));
    }
  }
  return absl::OkStatus();
}

}  // namespace karp
