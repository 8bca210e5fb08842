// Tests of the requirements algebra (karp/requirements.h, karp/labels.h), written from
// docs/design.md §1 (1.1–1.11) and the header contracts, not from the implementation.

#include "karp/requirements.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "karp/labels.h"

namespace {

using karp::NodeSelectorRequirement;
using karp::Operator;
using karp::Requirement;
using karp::Requirements;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr const char* kKey = "example.com/size";
constexpr const char* kZone = "topology.kubernetes.io/zone";

// The expected internal shape of a Requirement (§1.1).
struct Shape {
  bool complement = false;
  std::vector<std::string> values;
  std::optional<int64_t> gte;
  std::optional<int64_t> lte;
};

std::string Opt(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }

std::string Describe(const Shape& s) {
  std::ostringstream out;
  out << "complement=" << s.complement << " values=[";
  for (size_t i = 0; i < s.values.size(); ++i) out << (i ? " " : "") << s.values[i];
  out << "] gte=" << Opt(s.gte) << " lte=" << Opt(s.lte);
  return out.str();
}

Shape ShapeOf(const Requirement& r) { return Shape{r.complement(), r.values(), r.gte(), r.lte()}; }

std::string Describe(const Requirement& r) { return Describe(ShapeOf(r)); }

std::string OpName(Operator op) { return std::string(karp::OperatorName(op)); }

// One representative requirement per operator on kKey, chosen so that bounds matter: the In
// set mixes integers below, at and above the bounds with a non-integer.
Requirement Rep(Operator op) {
  switch (op) {
    case Operator::kIn:
      return Requirement::In(kKey, {"1", "5", "a"});
    case Operator::kNotIn:
      return Requirement::NotIn(kKey, {"5", "b"});
    case Operator::kExists:
      return Requirement::Exists(kKey);
    case Operator::kDoesNotExist:
      return Requirement::DoesNotExist(kKey);
    case Operator::kGt:
      return Requirement::Gt(kKey, 3);  // gte 4
    case Operator::kLt:
      return Requirement::Lt(kKey, 5);  // lte 4
    case Operator::kGte:
      return Requirement::Gte(kKey, 5);  // gte 5
    case Operator::kLte:
      return Requirement::Lte(kKey, 5);  // lte 5
  }
  return Requirement::Exists(kKey);
}

const std::vector<Operator>& AllOperators() {
  static const std::vector<Operator> ops = {
      Operator::kIn, Operator::kNotIn, Operator::kExists, Operator::kDoesNotExist,
      Operator::kGt, Operator::kLt,    Operator::kGte,    Operator::kLte};
  return ops;
}

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

// Checks Compatible and IsCompatible agree with `want`, with FailedPrecondition on failure.
void CheckCompatible(const Requirements& existing, const Requirements& incoming,
                     const karp::LabelSet* allow, bool want) {
  INFO("existing {" << existing.ToString() << "} incoming {" << incoming.ToString() << "}"
                    << (allow ? " allow-undefined" : " strict"));
  absl::Status s = existing.Compatible(incoming, allow);
  CHECK(s.ok() == want);
  CHECK(existing.IsCompatible(incoming, allow) == want);
  if (!want) CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
}

void CheckIntersects(const Requirements& existing, const Requirements& incoming, bool want) {
  INFO("existing {" << existing.ToString() << "} incoming {" << incoming.ToString() << "}");
  absl::Status s = existing.Intersects(incoming);
  CHECK(s.ok() == want);
  CHECK(existing.DoesIntersect(incoming) == want);
  if (!want) CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Construction (§1.2) and derived views (§1.3)

TEST_CASE("each operator constructs the complement, values and bounds of the table",
          "[requirements]") {
  CHECK(Describe(Requirement::In(kKey, {"b", "a", "b"})) ==
        Describe(Shape{false, {"a", "b"}, std::nullopt, std::nullopt}));
  CHECK(Describe(Requirement::NotIn(kKey, {"z", "a"})) ==
        Describe(Shape{true, {"a", "z"}, std::nullopt, std::nullopt}));
  CHECK(Describe(Requirement::Exists(kKey)) ==
        Describe(Shape{true, {}, std::nullopt, std::nullopt}));
  CHECK(Describe(Requirement::DoesNotExist(kKey)) ==
        Describe(Shape{false, {}, std::nullopt, std::nullopt}));
  CHECK(Describe(Requirement::Gt(kKey, 5)) == Describe(Shape{true, {}, 6, std::nullopt}));
  CHECK(Describe(Requirement::Lt(kKey, 5)) == Describe(Shape{true, {}, std::nullopt, 4}));
  CHECK(Describe(Requirement::Gte(kKey, 5)) == Describe(Shape{true, {}, 5, std::nullopt}));
  CHECK(Describe(Requirement::Lte(kKey, 5)) == Describe(Shape{true, {}, std::nullopt, 5}));
  CHECK(Describe(Requirement::Lt(kKey, 0)) == Describe(Shape{true, {}, std::nullopt, -1}));
  CHECK(Describe(Requirement::Gt(kKey, 0)) == Describe(Shape{true, {}, 1, std::nullopt}));
  CHECK(Requirement::In(kKey, {"a"}).key() == kKey);
  CHECK_FALSE(Requirement::In(kKey, {"a"}).min_values().has_value());
}

TEST_CASE("Gt on the largest integer becomes DoesNotExist", "[requirements]") {
  Requirement r = Requirement::Gt(kKey, kMax);
  CHECK(Describe(r) == Describe(Shape{false, {}, std::nullopt, std::nullopt}));
  CHECK(r.op() == Operator::kDoesNotExist);
  CHECK(r == Requirement::DoesNotExist(kKey));
  CHECK_FALSE(r.Has("9223372036854775807"));

  Requirement almost = Requirement::Gt(kKey, kMax - 1);
  CHECK(almost.gte() == std::optional<int64_t>(kMax));
  CHECK(almost.Has("9223372036854775807"));
  CHECK_FALSE(almost.Has("9223372036854775806"));
}

TEST_CASE("the derived operator reports bounded requirements as Exists", "[requirements]") {
  CHECK(Requirement::In(kKey, {"a"}).op() == Operator::kIn);
  CHECK(Requirement::NotIn(kKey, {"a"}).op() == Operator::kNotIn);
  CHECK(Requirement::Exists(kKey).op() == Operator::kExists);
  CHECK(Requirement::DoesNotExist(kKey).op() == Operator::kDoesNotExist);
  CHECK(Requirement::In(kKey, {}).op() == Operator::kDoesNotExist);
  CHECK(Requirement::NotIn(kKey, {}).op() == Operator::kExists);
  CHECK(Requirement::Gt(kKey, 3).op() == Operator::kExists);
  CHECK(Requirement::Lt(kKey, 3).op() == Operator::kExists);
  CHECK(Requirement::Gte(kKey, 3).op() == Operator::kExists);
  CHECK(Requirement::Lte(kKey, 3).op() == Operator::kExists);
  // A bounded requirement that also excludes values is NotIn.
  CHECK(Requirement::Gte(kKey, 3).Intersection(Requirement::NotIn(kKey, {"7"})).op() ==
        Operator::kNotIn);
}

TEST_CASE("Has tests membership and integer bounds", "[requirements]") {
  Requirement in = Requirement::In(kKey, {"a", "1"});
  CHECK(in.Has("a"));
  CHECK(in.Has("1"));
  CHECK_FALSE(in.Has("b"));
  CHECK_FALSE(in.Has(""));

  Requirement not_in = Requirement::NotIn(kKey, {"a"});
  CHECK_FALSE(not_in.Has("a"));
  CHECK(not_in.Has("b"));
  CHECK(not_in.Has(""));

  CHECK(Requirement::Exists(kKey).Has("anything"));
  CHECK(Requirement::Exists(kKey).Has(""));
  CHECK_FALSE(Requirement::DoesNotExist(kKey).Has("a"));
  CHECK_FALSE(Requirement::DoesNotExist(kKey).Has(""));

  Requirement gt = Requirement::Gt(kKey, 3);
  CHECK(gt.Has("4"));
  CHECK(gt.Has("1000"));
  CHECK_FALSE(gt.Has("3"));
  CHECK_FALSE(gt.Has("-5"));

  Requirement lt = Requirement::Lt(kKey, 5);
  CHECK(lt.Has("4"));
  CHECK(lt.Has("0"));
  CHECK(lt.Has("-1"));
  CHECK_FALSE(lt.Has("5"));

  CHECK(Requirement::Gte(kKey, 5).Has("5"));
  CHECK_FALSE(Requirement::Gte(kKey, 5).Has("4"));
  CHECK(Requirement::Lte(kKey, 5).Has("5"));
  CHECK_FALSE(Requirement::Lte(kKey, 5).Has("6"));
}

TEST_CASE("non-integer values are never within bounds", "[requirements]") {
  for (const Requirement& r : {Requirement::Gte(kKey, 0), Requirement::Lte(kKey, 100),
                               Requirement::Gt(kKey, 0), Requirement::Lt(kKey, 100)}) {
    INFO(r.ToString());
    for (const char* v : {"abc", "", "1.0", "1.5", "0x1", "1e1", "2a", "a2"}) {
      INFO(v);
      CHECK_FALSE(r.Has(v));
    }
    CHECK(r.Has("10"));
  }
  // An unbounded NotIn admits non-integers.
  CHECK(Requirement::NotIn(kKey, {"1"}).Has("abc"));
}

TEST_CASE("bounds parse values as decimal integers like Go Atoi", "[requirements]") {
  // §1.1: within bounds means the value parses with Go's strconv.Atoi, which accepts a sign
  // and leading zeros but no spaces and nothing outside int64.
  Requirement gte = Requirement::Gte(kKey, 5);
  CHECK(gte.Has("+6"));
  CHECK(gte.Has("007"));
  CHECK_FALSE(gte.Has("004"));
  CHECK_FALSE(gte.Has(" 6"));
  CHECK_FALSE(gte.Has("6 "));
  CHECK_FALSE(gte.Has("99999999999999999999"));
  CHECK_FALSE(gte.Has("+"));
  CHECK_FALSE(gte.Has("--6"));
  CHECK(Requirement::Lte(kKey, 0).Has("-0"));
  CHECK(Requirement::Lte(kKey, 0).Has("-3"));
}

TEST_CASE("Len counts values, or INT64_MAX minus the exclusions", "[requirements]") {
  CHECK(Requirement::In(kKey, {"a", "b"}).Len() == 2);
  CHECK(Requirement::In(kKey, {"a", "a"}).Len() == 1);
  CHECK(Requirement::DoesNotExist(kKey).Len() == 0);
  CHECK(Requirement::Exists(kKey).Len() == kMax);
  CHECK(Requirement::NotIn(kKey, {"a", "b"}).Len() == kMax - 2);
  // Bounds do not shrink the length.
  CHECK(Requirement::Gt(kKey, 3).Len() == kMax);
  CHECK(Requirement::Gte(kKey, 5).Intersection(Requirement::Lte(kKey, 5)).Len() == kMax);
}

TEST_CASE("Any picks a member deterministically", "[requirements]") {
  CHECK(Requirement::In(kKey, {"c", "b", "d"}).Any() == "b");
  CHECK(Requirement::In(kKey, {"9", "10"}).Any() == "10");  // smallest in (string) sort order
  CHECK(Requirement::Exists(kKey).Any() == "0");
  CHECK(Requirement::NotIn(kKey, {"0", "1", "3"}).Any() == "2");
  CHECK(Requirement::NotIn(kKey, {"a"}).Any() == "0");
  CHECK(Requirement::Gt(kKey, 3).Any() == "4");
  CHECK(Requirement::Gte(kKey, 7).Any() == "7");
  CHECK(Requirement::Lte(kKey, 5).Any() == "0");
  CHECK(Requirement::Gt(kKey, 3).Intersection(Requirement::NotIn(kKey, {"4", "5"})).Any() == "6");
  CHECK(Requirement::DoesNotExist(kKey).Any().empty());
  // No admissible non-negative integer.
  CHECK(Requirement::Lt(kKey, 0).Any().empty());
  CHECK(Requirement::Lte(kKey, 2)
            .Intersection(Requirement::NotIn(kKey, {"0", "1", "2"}))
            .Any()
            .empty());
  CHECK(Requirement::Gte(kKey, kMax).Any() == "9223372036854775807");
  CHECK(Requirement::Gte(kKey, kMax)
            .Intersection(Requirement::NotIn(kKey, {"9223372036854775807"}))
            .Any()
            .empty());
  // Any() is a member whenever it is not empty.
  for (Operator op : AllOperators()) {
    Requirement r = Rep(op);
    std::string any = r.Any();
    INFO(r.ToString() << " -> '" << any << "'");
    if (op == Operator::kDoesNotExist) {
      CHECK(any.empty());
    } else {
      CHECK(r.Has(any));
    }
  }
}

TEST_CASE("ToString prints the reference's format", "[requirements]") {
  CHECK(Requirement::In(kKey, {"b", "a"}).ToString() == "example.com/size In [a b]");
  CHECK(Requirement::NotIn(kKey, {"x"}).ToString() == "example.com/size NotIn [x]");
  CHECK(Requirement::Exists(kKey).ToString() == "example.com/size Exists");
  CHECK(Requirement::DoesNotExist(kKey).ToString() == "example.com/size DoesNotExist");
  CHECK(Requirement::Gt(kKey, 3).ToString() == "example.com/size Exists >=4");
  CHECK(Requirement::Lt(kKey, 5).ToString() == "example.com/size Exists <=4");
  CHECK(Requirement::Gte(kKey, 5).ToString() == "example.com/size Exists >=5");
  CHECK(Requirement::Lte(kKey, 5).ToString() == "example.com/size Exists <=5");
  CHECK(Requirement::Gte(kKey, 5).Intersection(Requirement::Lte(kKey, 7)).ToString() ==
        "example.com/size Exists >=5 <=7");
  CHECK(Requirement::Gte(kKey, 5).Intersection(Requirement::NotIn(kKey, {"7"})).ToString() ==
        "example.com/size NotIn [7] >=5");
  Requirement with_min = Requirement::In(kKey, {"a", "b"});
  with_min.set_min_values(2);
  CHECK(with_min.ToString() == "example.com/size In [a b] minValues 2");
  Requirement bounded_min = Requirement::Gte(kKey, 1);
  bounded_min.set_min_values(3);
  CHECK(bounded_min.ToString() == "example.com/size Exists >=1 minValues 3");
}

TEST_CASE("ToString abbreviates more than five values", "[requirements]") {
  CHECK(Requirement::In(kKey, {"e", "d", "c", "b", "a"}).ToString() ==
        "example.com/size In [a b c d e]");
  CHECK(Requirement::In(kKey, {"f", "e", "d", "c", "b", "a"}).ToString() ==
        "example.com/size In [a b c d e and 1 others]");
  CHECK(Requirement::In(kKey, {"g", "f", "e", "d", "c", "b", "a"}).ToString() ==
        "example.com/size In [a b c d e and 2 others]");
  CHECK(Requirement::NotIn(kKey, {"1", "2", "3", "4", "5", "6", "7", "8"}).ToString() ==
        "example.com/size NotIn [1 2 3 4 5 and 3 others]");
}

TEST_CASE("ToApi serializes each operator form", "[requirements]") {
  Requirement in = Requirement::In(kKey, {"b", "a"});
  in.set_min_values(2);
  CHECK(in.ToApi() == std::vector<NodeSelectorRequirement>{{kKey, Operator::kIn, {"a", "b"}, 2}});
  CHECK(Requirement::NotIn(kKey, {"b", "a"}).ToApi() ==
        std::vector<NodeSelectorRequirement>{{kKey, Operator::kNotIn, {"a", "b"}, std::nullopt}});
  CHECK(Requirement::Exists(kKey).ToApi() ==
        std::vector<NodeSelectorRequirement>{{kKey, Operator::kExists, {}, std::nullopt}});
  CHECK(Requirement::DoesNotExist(kKey).ToApi() ==
        std::vector<NodeSelectorRequirement>{{kKey, Operator::kDoesNotExist, {}, std::nullopt}});
  CHECK(Requirement::Gt(kKey, 3).ToApi() ==
        std::vector<NodeSelectorRequirement>{{kKey, Operator::kGte, {"4"}, std::nullopt}});
  CHECK(Requirement::Lt(kKey, 5).ToApi() ==
        std::vector<NodeSelectorRequirement>{{kKey, Operator::kLte, {"4"}, std::nullopt}});
  CHECK(Requirement::Gte(kKey, 5).ToApi() ==
        std::vector<NodeSelectorRequirement>{{kKey, Operator::kGte, {"5"}, std::nullopt}});
  CHECK(Requirement::Lte(kKey, 5).ToApi() ==
        std::vector<NodeSelectorRequirement>{{kKey, Operator::kLte, {"5"}, std::nullopt}});
}

TEST_CASE("ToApi emits Gte and Lte when both bounds exist", "[requirements]") {
  std::vector<NodeSelectorRequirement> api =
      Requirement::Gte(kKey, 5).Intersection(Requirement::Lte(kKey, 7)).ToApi();
  REQUIRE(api.size() == size_t{2});
  CHECK(api[0].key == kKey);
  CHECK(api[0].op == Operator::kGte);
  CHECK(api[0].values == std::vector<std::string>{"5"});
  CHECK(api[1].key == kKey);
  CHECK(api[1].op == Operator::kLte);
  CHECK(api[1].values == std::vector<std::string>{"7"});
}

TEST_CASE("ToApi drops the NotIn values of a bounded requirement", "[requirements]") {
  Requirement r = Requirement::Gte(kKey, 5).Intersection(Requirement::NotIn(kKey, {"7"}));
  REQUIRE(r.values() == std::vector<std::string>{"7"});
  CHECK(r.ToApi() ==
        std::vector<NodeSelectorRequirement>{{kKey, Operator::kGte, {"5"}, std::nullopt}});
}

// ---------------------------------------------------------------------------------------------
// Intersection (§1.4) and HasIntersection (§1.5): the full 8x8 operator table.

namespace {

struct PairCase {
  Operator a;
  Operator b;
  Shape want;       // a ∩ b (and b ∩ a)
  bool intersects;  // HasIntersection(a, b) (and (b, a))
};

// Representatives (see Rep): In [1 5 a], NotIn [5 b], Exists, DoesNotExist, Gt 3 (gte 4),
// Lt 5 (lte 4), Gte 5, Lte 5. Each row follows §1.4 steps 1-6 and §1.5.
const std::vector<PairCase>& IntersectionTable() {
  using O = Operator;
  constexpr auto none = std::nullopt;
  static const std::vector<PairCase> table = {
      // In x ...: a concrete result, filtered by the other side's bounds, carries no bounds.
      {O::kIn, O::kIn, {false, {"1", "5", "a"}, none, none}, true},
      {O::kIn, O::kNotIn, {false, {"1", "a"}, none, none}, true},
      {O::kIn, O::kExists, {false, {"1", "5", "a"}, none, none}, true},
      {O::kIn, O::kDoesNotExist, {false, {}, none, none}, false},
      {O::kIn, O::kGt, {false, {"5"}, none, none}, true},
      {O::kIn, O::kLt, {false, {"1"}, none, none}, true},
      {O::kIn, O::kGte, {false, {"5"}, none, none}, true},
      {O::kIn, O::kLte, {false, {"1", "5"}, none, none}, true},
      // NotIn x ...: exclusions outside the merged bounds (or non-integers) are dropped.
      {O::kNotIn, O::kNotIn, {true, {"5", "b"}, none, none}, true},
      {O::kNotIn, O::kExists, {true, {"5", "b"}, none, none}, true},
      {O::kNotIn, O::kDoesNotExist, {false, {}, none, none}, false},
      {O::kNotIn, O::kGt, {true, {"5"}, 4, none}, true},
      {O::kNotIn, O::kLt, {true, {}, none, 4}, true},
      {O::kNotIn, O::kGte, {true, {"5"}, 5, none}, true},
      {O::kNotIn, O::kLte, {true, {"5"}, none, 5}, true},
      // Exists x ...
      {O::kExists, O::kExists, {true, {}, none, none}, true},
      {O::kExists, O::kDoesNotExist, {false, {}, none, none}, false},
      {O::kExists, O::kGt, {true, {}, 4, none}, true},
      {O::kExists, O::kLt, {true, {}, none, 4}, true},
      {O::kExists, O::kGte, {true, {}, 5, none}, true},
      {O::kExists, O::kLte, {true, {}, none, 5}, true},
      // DoesNotExist x ...: empty concrete set, bounds discarded.
      {O::kDoesNotExist, O::kDoesNotExist, {false, {}, none, none}, false},
      {O::kDoesNotExist, O::kGt, {false, {}, none, none}, false},
      {O::kDoesNotExist, O::kLt, {false, {}, none, none}, false},
      {O::kDoesNotExist, O::kGte, {false, {}, none, none}, false},
      {O::kDoesNotExist, O::kLte, {false, {}, none, none}, false},
      // Bounds x bounds: max of lower, min of upper; crossing -> DoesNotExist.
      {O::kGt, O::kGt, {true, {}, 4, none}, true},
      {O::kGt, O::kLt, {true, {}, 4, 4}, true},
      {O::kGt, O::kGte, {true, {}, 5, none}, true},
      {O::kGt, O::kLte, {true, {}, 4, 5}, true},
      {O::kLt, O::kLt, {true, {}, none, 4}, true},
      {O::kLt, O::kGte, {false, {}, none, none}, false},  // gte 5 > lte 4
      {O::kLt, O::kLte, {true, {}, none, 4}, true},
      {O::kGte, O::kGte, {true, {}, 5, none}, true},
      {O::kGte, O::kLte, {true, {}, 5, 5}, true},
      {O::kLte, O::kLte, {true, {}, none, 5}, true},
  };
  return table;
}

}  // namespace

TEST_CASE("Intersection follows the operator table for all 64 operator pairs", "[requirements]") {
  std::set<std::pair<int, int>> covered;
  for (const PairCase& c : IntersectionTable()) {
    for (bool swap : {false, true}) {
      Operator x = swap ? c.b : c.a;
      Operator y = swap ? c.a : c.b;
      covered.insert({static_cast<int>(x), static_cast<int>(y)});
      Requirement rx = Rep(x);
      Requirement ry = Rep(y);
      INFO(rx.ToString() << "  ∩  " << ry.ToString());
      Requirement got = rx.Intersection(ry);
      CHECK(Describe(got) == Describe(c.want));
      CHECK(got.key() == kKey);
      CHECK_FALSE(got.min_values().has_value());
      CHECK(rx.HasIntersection(ry) == c.intersects);
    }
  }
  CHECK(covered.size() == size_t{64});
}

TEST_CASE("Intersection keeps the larger minValues for all 64 operator pairs", "[requirements]") {
  for (Operator x : AllOperators()) {
    for (Operator y : AllOperators()) {
      INFO(OpName(x) << " ∩ " << OpName(y));
      Requirement rx = Rep(x);
      Requirement ry = Rep(y);
      rx.set_min_values(2);
      ry.set_min_values(5);
      CHECK(rx.Intersection(ry).min_values() == std::optional<int>(5));
      CHECK(ry.Intersection(rx).min_values() == std::optional<int>(5));
      Requirement plain = Rep(y);
      CHECK(rx.Intersection(plain).min_values() == std::optional<int>(2));
      CHECK(plain.Intersection(rx).min_values() == std::optional<int>(2));
    }
  }
}

TEST_CASE("crossing bounds intersect to DoesNotExist", "[requirements]") {
  struct Cross {
    Requirement a;
    Requirement b;
    Shape want;
    bool intersects;
  };
  const std::vector<Cross> cases = {
      {Requirement::Gt(kKey, 5),
       Requirement::Lt(kKey, 3),
       {false, {}, std::nullopt, std::nullopt},
       false},
      {Requirement::Gte(kKey, 5),
       Requirement::Lte(kKey, 4),
       {false, {}, std::nullopt, std::nullopt},
       false},
      {Requirement::Gt(kKey, 5),
       Requirement::Lt(kKey, 6),
       {false, {}, std::nullopt, std::nullopt},
       false},
      {Requirement::Gte(kKey, 5), Requirement::Lte(kKey, 5), {true, {}, 5, 5}, true},
      {Requirement::Gt(kKey, 5), Requirement::Lt(kKey, 7), {true, {}, 6, 6}, true},
      {Requirement::Gt(kKey, 4), Requirement::Lte(kKey, 5), {true, {}, 5, 5}, true},
  };
  for (const Cross& c : cases) {
    INFO(c.a.ToString() << "  ∩  " << c.b.ToString());
    CHECK(Describe(c.a.Intersection(c.b)) == Describe(c.want));
    CHECK(Describe(c.b.Intersection(c.a)) == Describe(c.want));
    CHECK(c.a.HasIntersection(c.b) == c.intersects);
    CHECK(c.b.HasIntersection(c.a) == c.intersects);
  }
  Requirement single = Requirement::Gte(kKey, 5).Intersection(Requirement::Lte(kKey, 5));
  CHECK(single.Has("5"));
  CHECK_FALSE(single.Has("4"));
  CHECK_FALSE(single.Has("6"));
  CHECK(single.op() == Operator::kExists);

  // minValues survives a bounds conflict.
  Requirement a = Requirement::Gt(kKey, 5);
  a.set_min_values(2);
  Requirement b = Requirement::Lt(kKey, 3);
  b.set_min_values(4);
  Requirement dne = a.Intersection(b);
  CHECK(dne.op() == Operator::kDoesNotExist);
  CHECK(dne.min_values() == std::optional<int>(4));
}

TEST_CASE("two complements intersect even when exclusions empty the bounded range",
          "[requirements]") {
  Requirement five = Requirement::Gte(kKey, 5).Intersection(Requirement::Lte(kKey, 5));
  Requirement not_five = Requirement::NotIn(kKey, {"5"});
  CHECK(five.HasIntersection(not_five));  // the reference's quirk (§1.5, §10.3)
  CHECK(not_five.HasIntersection(five));
  Requirement got = five.Intersection(not_five);
  CHECK(Describe(got) == Describe(Shape{true, {"5"}, 5, 5}));
  CHECK(got.op() == Operator::kNotIn);
  CHECK_FALSE(got.Has("5"));
  CHECK(got.Any().empty());

  Requirements existing{five};
  Requirements incoming{not_five};
  CheckIntersects(existing, incoming, true);
}

TEST_CASE("one complement intersects only if a concrete value survives", "[requirements]") {
  Requirement bounded_not_in =
      Requirement::Gt(kKey, 3).Intersection(Requirement::NotIn(kKey, {"5"}));
  REQUIRE(Describe(bounded_not_in) == Describe(Shape{true, {"5"}, 4, std::nullopt}));

  Requirement in5 = Requirement::In(kKey, {"5"});
  CHECK_FALSE(in5.HasIntersection(bounded_not_in));
  CHECK_FALSE(bounded_not_in.HasIntersection(in5));
  CHECK(Describe(in5.Intersection(bounded_not_in)) ==
        Describe(Shape{false, {}, std::nullopt, std::nullopt}));

  Requirement in = Requirement::In(kKey, {"1", "5", "6", "a"});
  CHECK(in.HasIntersection(bounded_not_in));
  CHECK(Describe(in.Intersection(bounded_not_in)) ==
        Describe(Shape{false, {"6"}, std::nullopt, std::nullopt}));
  CHECK(Describe(bounded_not_in.Intersection(in)) ==
        Describe(Shape{false, {"6"}, std::nullopt, std::nullopt}));

  Requirement non_integer = Requirement::In(kKey, {"3", "x"});
  CHECK_FALSE(non_integer.HasIntersection(Requirement::Gte(kKey, 5)));
  CHECK_FALSE(Requirement::Gte(kKey, 5).HasIntersection(non_integer));

  Requirement window = Requirement::Gte(kKey, 5).Intersection(Requirement::Lte(kKey, 9));
  Requirement mixed = Requirement::In(kKey, {"3", "7", "x", "10"});
  CHECK(Describe(mixed.Intersection(window)) ==
        Describe(Shape{false, {"7"}, std::nullopt, std::nullopt}));
  CHECK(mixed.HasIntersection(window));
}

TEST_CASE("two concrete sets intersect iff they share a value", "[requirements]") {
  CHECK(Requirement::In(kKey, {"a", "b"}).HasIntersection(Requirement::In(kKey, {"b", "c"})));
  CHECK_FALSE(Requirement::In(kKey, {"a"}).HasIntersection(Requirement::In(kKey, {"b"})));
  CHECK(
      Describe(Requirement::In(kKey, {"a", "b"}).Intersection(Requirement::In(kKey, {"b", "c"}))) ==
      Describe(Shape{false, {"b"}, std::nullopt, std::nullopt}));
  CHECK(Requirement::NotIn(kKey, {"a"}).HasIntersection(Requirement::NotIn(kKey, {"b"})));
  CHECK(Describe(Requirement::NotIn(kKey, {"a"}).Intersection(Requirement::NotIn(kKey, {"b"}))) ==
        Describe(Shape{true, {"a", "b"}, std::nullopt, std::nullopt}));
}

// ---------------------------------------------------------------------------------------------
// Requirements (§1.6)

TEST_CASE("Requirements.Add intersects requirements on the same key", "[requirements]") {
  Requirements reqs;
  reqs.Add(Requirement::In(kZone, {"a", "b"}));
  reqs.Add(Requirement::In(kZone, {"b", "c"}));
  REQUIRE(reqs.size() == size_t{1});
  CHECK(reqs.Get(kZone) == Requirement::In(kZone, {"b"}));
  reqs.Add(Requirement::NotIn(kZone, {"b"}));
  CHECK(reqs.Get(kZone).op() == Operator::kDoesNotExist);

  Requirements bounded;
  bounded.Add(Requirement::Gte(kKey, 5));
  bounded.Add(Requirement::Lte(kKey, 4));
  CHECK(bounded.Get(kKey) == Requirement::DoesNotExist(kKey));

  Requirements init{Requirement::In(kZone, {"a", "b"}), Requirement::In(kZone, {"b", "c"}),
                    Requirement::Exists(kKey)};
  CHECK(init.size() == size_t{2});
  CHECK(init.Get(kZone).values() == std::vector<std::string>{"b"});

  Requirements other{Requirement::In(kZone, {"b", "z"}), Requirement::In("example.com/new", {"x"})};
  Requirements merged = init;
  merged.Add(other);
  CHECK(merged.size() == size_t{3});
  CHECK(merged.Get(kZone).values() == std::vector<std::string>{"b"});
  CHECK(merged.Get("example.com/new") == Requirement::In("example.com/new", {"x"}));
}

TEST_CASE("Requirements.Set replaces and Erase removes", "[requirements]") {
  Requirements reqs{Requirement::In(kZone, {"a"})};
  reqs.Set(Requirement::In(kZone, {"z"}));
  CHECK(reqs.Get(kZone) == Requirement::In(kZone, {"z"}));
  reqs.Erase(kZone);
  CHECK_FALSE(reqs.Has(kZone));
  CHECK(reqs.empty());
  reqs.Erase("not-there");
  CHECK(reqs.empty());
}

TEST_CASE("Get returns Exists for an undefined key", "[requirements]") {
  Requirements reqs{Requirement::In(kZone, {"a"})};
  CHECK(reqs.Find("example.com/undefined") == nullptr);
  CHECK_FALSE(reqs.Has("example.com/undefined"));
  Requirement got = reqs.Get("example.com/undefined");
  CHECK(got.key() == "example.com/undefined");
  CHECK(got.op() == Operator::kExists);
  CHECK(got == Requirement::Exists("example.com/undefined"));
  REQUIRE(reqs.Find(kZone) != nullptr);
  CHECK(*reqs.Find(kZone) == Requirement::In(kZone, {"a"}));
}

TEST_CASE("Requirements keep keys sorted", "[requirements]") {
  Requirements reqs;
  reqs.Add(Requirement::Exists("z.io/last"));
  reqs.Add(Requirement::Exists("a.io/first"));
  reqs.Add(Requirement::Exists("m.io/middle"));
  CHECK(reqs.Keys() == std::vector<std::string>{"a.io/first", "m.io/middle", "z.io/last"});
  std::vector<std::string> iterated;
  for (const Requirement& r : reqs) iterated.push_back(r.key());
  CHECK(iterated == reqs.Keys());
}

TEST_CASE("HasMinValues reports any requirement with minValues", "[requirements]") {
  Requirements reqs{Requirement::In(kZone, {"a"})};
  CHECK_FALSE(reqs.HasMinValues());
  Requirement it = Requirement::In("node.kubernetes.io/instance-type", {"m5.large", "c5.large"});
  it.set_min_values(2);
  reqs.Add(it);
  CHECK(reqs.HasMinValues());
}

TEST_CASE("FromLabels turns each label into an In requirement", "[requirements]") {
  Requirements reqs = Requirements::FromLabels(
      {{"example.com/team", "a"}, {kZone, "us-east-1a"}, {"beta.kubernetes.io/arch", "amd64"}});
  CHECK(reqs.size() == size_t{3});
  CHECK(reqs.Get("example.com/team") == Requirement::In("example.com/team", {"a"}));
  CHECK(reqs.Get(kZone) == Requirement::In(kZone, {"us-east-1a"}));
  CHECK(reqs.Has("kubernetes.io/arch"));
  CHECK(reqs.Get("kubernetes.io/arch").values() == std::vector<std::string>{"amd64"});
  CHECK(Requirements::FromLabels({}).empty());
}

TEST_CASE("FromApi builds and intersects entries", "[requirements]") {
  absl::StatusOr<Requirements> reqs = Requirements::FromApi({
      {kZone, Operator::kIn, {"a", "b"}, std::nullopt},
      {kKey, Operator::kGt, {"3"}, std::nullopt},
      {kZone, Operator::kNotIn, {"a"}, std::nullopt},
      {"node.kubernetes.io/instance-type", Operator::kIn, {"m5.large", "c5.large"}, 2},
      {"failure-domain.beta.kubernetes.io/region", Operator::kIn, {"us-east-1"}, std::nullopt},
  });
  REQUIRE(reqs.ok());
  CHECK(reqs->size() == size_t{4});
  CHECK(reqs->Get(kZone) == Requirement::In(kZone, {"b"}));
  CHECK(reqs->Get(kKey) == Requirement::Gt(kKey, 3));
  CHECK(reqs->Get("node.kubernetes.io/instance-type").min_values() == std::optional<int>(2));
  CHECK(reqs->Get("topology.kubernetes.io/region").values() ==
        std::vector<std::string>{"us-east-1"});
  CHECK(reqs->HasMinValues());
}

TEST_CASE("FromApi prefixes errors with the entry index", "[requirements]") {
  absl::StatusOr<Requirements> bad = Requirements::FromApi({
      {kZone, Operator::kIn, {"a"}, std::nullopt},
      {kKey, Operator::kIn, {}, std::nullopt},
  });
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(Msg(bad.status()), Catch::StartsWith("[1]: "));
  CHECK_THAT(Msg(bad.status()), Catch::Contains(kKey));

  absl::StatusOr<Requirements> first = Requirements::FromApi({
      {kKey, Operator::kGt, {"abc"}, std::nullopt},
  });
  REQUIRE_FALSE(first.ok());
  CHECK_THAT(Msg(first.status()), Catch::StartsWith("[0]: "));
  CHECK_THAT(Msg(first.status()), Catch::Contains("abc"));
}

TEST_CASE("Requirements.ToString skips the hostname and sorts", "[requirements]") {
  Requirements reqs{Requirement::In(kZone, {"b", "a"}),
                    Requirement::In("kubernetes.io/hostname", {"h"}),
                    Requirement::In("kubernetes.io/arch", {"amd64"}), Requirement::Exists(kKey)};
  CHECK(reqs.ToString() ==
        "example.com/size Exists, kubernetes.io/arch In [amd64], topology.kubernetes.io/zone In [a "
        "b]");
  CHECK(Requirements{}.ToString().empty());
  CHECK(Requirements{Requirement::In("kubernetes.io/hostname", {"h"})}.ToString().empty());
}

TEST_CASE("Requirements.ToApi lists entries in key order", "[requirements]") {
  Requirements reqs{Requirement::In("z.io/b", {"1"}), Requirement::Exists("a.io/a"),
                    Requirement::Gte("m.io/m", 2).Intersection(Requirement::Lte("m.io/m", 8))};
  std::vector<NodeSelectorRequirement> api = reqs.ToApi();
  REQUIRE(api.size() == size_t{4});
  CHECK(api[0] == NodeSelectorRequirement{"a.io/a", Operator::kExists, {}, std::nullopt});
  CHECK(api[1].key == "m.io/m");
  CHECK(api[1].op == Operator::kGte);
  CHECK(api[2].key == "m.io/m");
  CHECK(api[2].op == Operator::kLte);
  CHECK(api[3] == NodeSelectorRequirement{"z.io/b", Operator::kIn, {"1"}, std::nullopt});

  absl::StatusOr<Requirements> back = Requirements::FromApi(api);
  REQUIRE(back.ok());
  CHECK(*back == reqs);
}

TEST_CASE("beta label keys normalize to their GA keys", "[requirements][labels]") {
  const std::vector<std::pair<std::string, std::string>> aliases = {
      {"failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"},
      {"failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region"},
      {"beta.kubernetes.io/arch", "kubernetes.io/arch"},
      {"beta.kubernetes.io/os", "kubernetes.io/os"},
      {"beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type"},
  };
  for (const auto& [beta, ga] : aliases) {
    INFO(beta);
    CHECK(karp::NormalizeLabelKey(beta) == ga);
    CHECK(karp::NormalizeLabelKey(ga) == ga);
    CHECK(Requirement::In(beta, {"x"}).key() == ga);
    CHECK(Requirement::NotIn(beta, {"x"}).key() == ga);
    CHECK(Requirement::Exists(beta).key() == ga);
    CHECK(Requirement::DoesNotExist(beta).key() == ga);
    CHECK(Requirement::Gt(beta, 1).key() == ga);
    CHECK(Requirement::Lte(beta, 1).key() == ga);
    absl::StatusOr<Requirement> created = Requirement::Create(beta, Operator::kIn, {"x"});
    REQUIRE(created.ok());
    CHECK(created->key() == ga);

    // A beta and a GA requirement land on the same key and intersect.
    Requirements reqs;
    reqs.Add(Requirement::In(beta, {"x", "y"}));
    reqs.Add(Requirement::In(ga, {"y", "z"}));
    CHECK(reqs.size() == size_t{1});
    CHECK(reqs.Get(ga) == Requirement::In(ga, {"y"}));
  }
  CHECK(karp::NormalizeLabelKey("example.com/zone") == "example.com/zone");
  CHECK(karp::NormalizeLabelKey("kubernetes.io/hostname") == "kubernetes.io/hostname");
}

// ---------------------------------------------------------------------------------------------
// Compatible and Intersects (§1.7, §1.8)

TEST_CASE("Compatible follows the reference truth table", "[requirements]") {
  // Existing (row) vs incoming (column) on a well-known key, with AllowUndefinedWellKnownLabels.
  const std::vector<std::pair<std::string, Requirements>> reqs = {
      {"unconstrained", Requirements{}},
      {"exists", Requirements{Requirement::Exists(kZone)}},
      {"doesNotExist", Requirements{Requirement::DoesNotExist(kZone)}},
      {"inA", Requirements{Requirement::In(kZone, {"A"})}},
      {"inB", Requirements{Requirement::In(kZone, {"B"})}},
      {"inAB", Requirements{Requirement::In(kZone, {"A", "B"})}},
      {"notInA", Requirements{Requirement::NotIn(kZone, {"A"})}},
      {"in1", Requirements{Requirement::In(kZone, {"1"})}},
      {"in9", Requirements{Requirement::In(kZone, {"9"})}},
      {"in19", Requirements{Requirement::In(kZone, {"1", "9"})}},
      {"notIn12", Requirements{Requirement::NotIn(kZone, {"1", "2"})}},
      {"gt1", Requirements{Requirement::Gt(kZone, 1)}},
      {"gt9", Requirements{Requirement::Gt(kZone, 9)}},
      {"lt1", Requirements{Requirement::Lt(kZone, 1)}},
      {"lt9", Requirements{Requirement::Lt(kZone, 9)}},
  };
  // 1 = compatible. Columns in the same order as the rows.
  const std::vector<std::vector<int>> want = {
      /* unconstrained */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      /* exists        */ {1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      /* doesNotExist  */ {1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0},
      /* inA           */ {1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0},
      /* inB           */ {1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0},
      /* inAB          */ {1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0},
      /* notInA        */ {1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      /* in1           */ {1, 1, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 1},
      /* in9           */ {1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0},
      /* in19          */ {1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1},
      /* notIn12       */ {1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1},
      /* gt1           */ {1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1},
      /* gt9           */ {1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0},
      /* lt1           */ {1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1},
      /* lt9           */ {1, 1, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1},
  };
  REQUIRE(want.size() == reqs.size());
  for (size_t i = 0; i < reqs.size(); ++i) {
    REQUIRE(want[i].size() == reqs.size());
    for (size_t j = 0; j < reqs.size(); ++j) {
      INFO(reqs[i].first << ".Compatible(" << reqs[j].first << ")");
      const bool expected = want[i][j] == 1;
      CheckCompatible(reqs[i].second, reqs[j].second, &karp::WellKnownLabels(), expected);
      // The key is defined on both sides or on neither, so Intersects gives the same answer,
      // except that an unconstrained existing side intersects with everything.
      CheckIntersects(reqs[i].second, reqs[j].second, expected);
    }
  }
}

TEST_CASE("the strict form rejects positive constraints on undefined well-known keys",
          "[requirements]") {
  Requirements unconstrained;
  const std::vector<std::pair<Requirement, bool>> cases = {
      {Requirement::Exists(kZone), false},      {Requirement::In(kZone, {"A"}), false},
      {Requirement::Gt(kZone, 1), false},       {Requirement::Lt(kZone, 9), false},
      {Requirement::NotIn(kZone, {"A"}), true}, {Requirement::DoesNotExist(kZone), true},
  };
  for (const auto& [r, ok] : cases) {
    CheckCompatible(unconstrained, Requirements{r}, nullptr, ok);
    CheckCompatible(unconstrained, Requirements{r}, &karp::WellKnownLabels(), true);
  }
  absl::Status s = unconstrained.Compatible(Requirements{Requirement::In(kZone, {"A"})}, nullptr);
  CHECK(Msg(s) == R"(label "topology.kubernetes.io/zone" does not have known values)");
  CHECK(unconstrained.Compatible(Requirements{}, nullptr).ok());
}

TEST_CASE("undefined custom keys need NotIn or DoesNotExist", "[requirements]") {
  const std::string key = "example.com/team";
  Requirements existing{Requirement::In("kubernetes.io/arch", {"amd64"})};
  const std::string want = R"(label "example.com/team" does not have known values)";
  for (const karp::LabelSet* allow :
       {static_cast<const karp::LabelSet*>(nullptr), &karp::WellKnownLabels()}) {
    for (const Requirement& r :
         {Requirement::In(key, {"a"}), Requirement::Exists(key), Requirement::Gt(key, 3),
          Requirement::Lt(key, 3), Requirement::Gte(key, 3)}) {
      INFO(r.ToString());
      absl::Status s = existing.Compatible(Requirements{r}, allow);
      REQUIRE_FALSE(s.ok());
      CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
      CHECK(Msg(s) == want);
      CHECK_FALSE(existing.IsCompatible(Requirements{r}, allow));
    }
    CheckCompatible(existing, Requirements{Requirement::NotIn(key, {"a"})}, allow, true);
    CheckCompatible(existing, Requirements{Requirement::DoesNotExist(key)}, allow, true);
  }
  // Once the key is defined, an In that intersects is fine.
  Requirements defined{Requirement::In(key, {"a", "b"})};
  CheckCompatible(defined, Requirements{Requirement::In(key, {"a"})}, nullptr, true);
  CheckCompatible(defined, Requirements{Requirement::Exists(key)}, &karp::WellKnownLabels(), true);
}

TEST_CASE("a catalog's well-known keys may be left undefined", "[requirements][labels]") {
  karp::LabelSet catalog = karp::WellKnownLabels();
  catalog.Insert(kKey);
  CHECK(catalog.Contains(kKey));
  Requirements incoming{Requirement::Gt(kKey, 3)};
  CheckCompatible(Requirements{}, incoming, &catalog, true);
  CheckCompatible(Requirements{}, incoming, &karp::WellKnownLabels(), false);
}

TEST_CASE("only the first undefined key is reported", "[requirements]") {
  Requirements incoming{Requirement::In("b.io/y", {"1"}), Requirement::In("a.io/x", {"1"})};
  absl::Status s = Requirements{}.Compatible(incoming, &karp::WellKnownLabels());
  REQUIRE_FALSE(s.ok());
  CHECK(Msg(s) == R"(label "a.io/x" does not have known values)");
}

TEST_CASE("an undefined key that resembles a known key gets a typo hint", "[requirements]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"zone",
       R"(label "zone" does not have known values (typo of "topology.kubernetes.io/zone"?))"},
      {"region",
       R"(label "region" does not have known values (typo of "topology.kubernetes.io/region"?))"},
      {"instance-type",
       R"(label "instance-type" does not have known values (typo of "node.kubernetes.io/instance-type"?))"},
      {"arch", R"(label "arch" does not have known values (typo of "kubernetes.io/arch"?))"},
      {"capacity-type",
       R"(label "capacity-type" does not have known values (typo of "karpenter.sh/capacity-type"?))"},
      // Suffix after "/" matches a well-known key's ending.
      {"example.com/zone",
       R"(label "example.com/zone" does not have known values (typo of "topology.kubernetes.io/zone"?))"},
  };
  for (const auto& [key, want] : cases) {
    INFO(key);
    absl::Status s =
        Requirements{}.Compatible(Requirements{Requirement::Exists(key)}, &karp::WellKnownLabels());
    CHECK(Msg(s) == want);
    CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  }
  // Existing keys are scanned too.
  Requirements existing{Requirement::In("company.io/team", {"x"})};
  absl::Status s =
      existing.Compatible(Requirements{Requirement::Exists("team")}, &karp::WellKnownLabels());
  CHECK(Msg(s) == R"(label "team" does not have known values (typo of "company.io/team"?))");
  // No hint when nothing resembles the key.
  absl::Status plain = Requirements{}.Compatible(Requirements{Requirement::Exists("deployment")},
                                                 &karp::WellKnownLabels());
  CHECK(Msg(plain) == R"(label "deployment" does not have known values)");
}

TEST_CASE("the typo hint matches a known key that ends with the undefined key's suffix",
          "[requirements]") {
  // §1.7: a key "ends with the bad key's suffix after '/'" (reference labelHint:
  // strings.HasSuffix(known, suffix)); the known key need not have a '/' before that suffix.
  absl::Status type = Requirements{}.Compatible(
      Requirements{Requirement::Exists("example.com/type")}, &karp::WellKnownLabels());
  CHECK(
      Msg(type) ==
      R"(label "example.com/type" does not have known values (typo of "karpenter.sh/capacity-type"?))");
  absl::Status one = Requirements{}.Compatible(Requirements{Requirement::Exists("example.com/one")},
                                               &karp::WellKnownLabels());
  CHECK(
      Msg(one) ==
      R"(label "example.com/one" does not have known values (typo of "topology.kubernetes.io/zone"?))");
}

TEST_CASE("an intersection failure names the key and both requirements", "[requirements]") {
  Requirements existing{Requirement::In(kZone, {"A"})};
  Requirements incoming{Requirement::In(kZone, {"B"})};
  absl::Status s = existing.Intersects(incoming);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Msg(s) ==
        "key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [B] not in "
        "topology.kubernetes.io/zone In [A]");
  absl::Status c = existing.Compatible(incoming, &karp::WellKnownLabels());
  CHECK(Msg(c) == Msg(s));

  Requirements gt9{Requirement::Gt(kKey, 9)};
  Requirements lt9{Requirement::Lt(kKey, 9)};
  CHECK(Msg(gt9.Intersects(lt9)) ==
        "key example.com/size, example.com/size Exists <=8 not in example.com/size Exists >=10");
}

TEST_CASE("all failing keys are reported, joined by a semicolon", "[requirements]") {
  Requirements existing{Requirement::In("example.com/a", {"1"}),
                        Requirement::In("example.com/b", {"x"}),
                        Requirement::In("example.com/c", {"ok"})};
  Requirements incoming{Requirement::In("example.com/a", {"2"}),
                        Requirement::In("example.com/b", {"y"}),
                        Requirement::In("example.com/c", {"ok"})};
  absl::Status s = existing.Intersects(incoming);
  REQUIRE_FALSE(s.ok());
  const std::string a = "key example.com/a, example.com/a In [2] not in example.com/a In [1]";
  const std::string b = "key example.com/b, example.com/b In [y] not in example.com/b In [x]";
  const std::string msg = Msg(s);
  CHECK_THAT(msg, Catch::Contains(a));
  CHECK_THAT(msg, Catch::Contains(b));
  CHECK_THAT(msg, Catch::Contains("; "));
  CHECK(msg.size() == a.size() + b.size() + 2);
  CHECK_FALSE(existing.DoesIntersect(incoming));
  CHECK(Msg(existing.Compatible(incoming, nullptr)) == msg);
}

TEST_CASE("two negative constraints never conflict", "[requirements]") {
  // NotIn/DoesNotExist vs NotIn/DoesNotExist: exempt even when HasIntersection is false.
  Requirement not_in_high =
      Requirement::Gte(kKey, 10).Intersection(Requirement::NotIn(kKey, {"12"}));
  Requirement not_in_low = Requirement::Lte(kKey, 5).Intersection(Requirement::NotIn(kKey, {"1"}));
  REQUIRE(not_in_high.op() == Operator::kNotIn);
  REQUIRE(not_in_low.op() == Operator::kNotIn);
  REQUIRE_FALSE(not_in_high.HasIntersection(not_in_low));
  CheckIntersects(Requirements{not_in_high}, Requirements{not_in_low}, true);
  CheckIntersects(Requirements{Requirement::DoesNotExist(kKey)},
                  Requirements{Requirement::NotIn(kKey, {"a"})}, true);
  CheckIntersects(Requirements{Requirement::NotIn(kKey, {"a"})},
                  Requirements{Requirement::DoesNotExist(kKey)}, true);
  CheckIntersects(Requirements{Requirement::DoesNotExist(kKey)},
                  Requirements{Requirement::DoesNotExist(kKey)}, true);

  // Only when BOTH are negative.
  CheckIntersects(Requirements{Requirement::Gte(kKey, 10)}, Requirements{Requirement::Lte(kKey, 5)},
                  false);
  CheckIntersects(Requirements{not_in_high}, Requirements{Requirement::Lte(kKey, 5)}, false);
  CheckIntersects(Requirements{Requirement::In(kKey, {"a"})},
                  Requirements{Requirement::NotIn(kKey, {"a"})}, false);
  CheckIntersects(Requirements{Requirement::NotIn(kKey, {"a"})},
                  Requirements{Requirement::In(kKey, {"a"})}, false);
  CheckIntersects(Requirements{Requirement::Exists(kKey)},
                  Requirements{Requirement::DoesNotExist(kKey)}, false);
  CheckIntersects(Requirements{Requirement::DoesNotExist(kKey)},
                  Requirements{Requirement::Exists(kKey)}, false);
}

TEST_CASE("Intersects ignores keys defined on only one side", "[requirements]") {
  Requirements existing{Requirement::In("example.com/a", {"1"})};
  Requirements incoming{Requirement::In("example.com/b", {"2"})};
  CheckIntersects(existing, incoming, true);
  CheckIntersects(incoming, existing, true);
  CheckIntersects(Requirements{}, incoming, true);
  // Compatible still requires the custom key to be defined.
  CheckCompatible(existing, incoming, &karp::WellKnownLabels(), false);
}

// ---------------------------------------------------------------------------------------------
// Validation (§1.11 ValidateRequirement, Requirement::Create)

namespace {

void CheckCreateFails(const std::string& key, Operator op, const std::vector<std::string>& values,
                      std::optional<int> min_values, const std::string& also_contains = "") {
  INFO(key << " " << OpName(op) << " values=" << values.size()
           << " minValues=" << (min_values ? std::to_string(*min_values) : "-"));
  absl::StatusOr<Requirement> r = Requirement::Create(key, op, values, min_values);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(Msg(r.status()), Catch::Contains(key));
  if (!also_contains.empty()) CHECK_THAT(Msg(r.status()), Catch::Contains(also_contains));
}

}  // namespace

TEST_CASE("Create builds valid requirements", "[requirements]") {
  absl::StatusOr<Requirement> in = Requirement::Create(kKey, Operator::kIn, {"b", "a"}, 2);
  REQUIRE(in.ok());
  CHECK(in->values() == std::vector<std::string>{"a", "b"});
  CHECK(in->min_values() == std::optional<int>(2));
  absl::StatusOr<Requirement> gt = Requirement::Create(kKey, Operator::kGt, {"3"});
  REQUIRE(gt.ok());
  CHECK(*gt == Requirement::Gt(kKey, 3));
  absl::StatusOr<Requirement> lt = Requirement::Create(kKey, Operator::kLt, {"0"});
  REQUIRE(lt.ok());
  CHECK(*lt == Requirement::Lt(kKey, 0));
  absl::StatusOr<Requirement> gte = Requirement::Create(kKey, Operator::kGte, {"5"});
  REQUIRE(gte.ok());
  CHECK(*gte == Requirement::Gte(kKey, 5));
  absl::StatusOr<Requirement> lte = Requirement::Create(kKey, Operator::kLte, {"5"});
  REQUIRE(lte.ok());
  CHECK(*lte == Requirement::Lte(kKey, 5));
  absl::StatusOr<Requirement> ex = Requirement::Create(kKey, Operator::kExists, {});
  REQUIRE(ex.ok());
  CHECK(*ex == Requirement::Exists(kKey));
  absl::StatusOr<Requirement> dne = Requirement::Create(kKey, Operator::kDoesNotExist, {});
  REQUIRE(dne.ok());
  CHECK(*dne == Requirement::DoesNotExist(kKey));
  absl::StatusOr<Requirement> not_in = Requirement::Create(kKey, Operator::kNotIn, {"x"});
  REQUIRE(not_in.ok());
  CHECK(*not_in == Requirement::NotIn(kKey, {"x"}));
  absl::StatusOr<Requirement> max =
      Requirement::Create(kKey, Operator::kGt, {"9223372036854775807"});
  REQUIRE(max.ok());
  CHECK(max->op() == Operator::kDoesNotExist);
  absl::StatusOr<Requirement> api =
      Requirement::Create(NodeSelectorRequirement{kKey, Operator::kIn, {"a"}, 1});
  REQUIRE(api.ok());
  CHECK(api->min_values() == std::optional<int>(1));

  std::vector<std::string> fifty;
  for (int i = 0; i < karp::kMaxMinValues; ++i)
    fifty.push_back(std::string("v").append(std::to_string(i)));
  CHECK(Requirement::Create(kKey, Operator::kIn, fifty, karp::kMaxMinValues).ok());
}

TEST_CASE("In without values is rejected", "[requirements]") {
  CheckCreateFails(kKey, Operator::kIn, {}, std::nullopt);
}

TEST_CASE("Gt on a non-integer value is rejected", "[requirements]") {
  CheckCreateFails(kKey, Operator::kGt, {"abc"}, std::nullopt, "abc");
  CheckCreateFails(kKey, Operator::kGt, {"1.5"}, std::nullopt, "1.5");
  CheckCreateFails(kKey, Operator::kLt, {"x"}, std::nullopt, "x");
  CheckCreateFails(kKey, Operator::kGte, {"five"}, std::nullopt, "five");
  CheckCreateFails(kKey, Operator::kLte, {""}, std::nullopt);
}

TEST_CASE("Gt on a negative value is rejected", "[requirements]") {
  CheckCreateFails(kKey, Operator::kGt, {"-1"}, std::nullopt, "-1");
  CheckCreateFails(kKey, Operator::kLt, {"-5"}, std::nullopt, "-5");
  CheckCreateFails(kKey, Operator::kGte, {"-2"}, std::nullopt, "-2");
  CheckCreateFails(kKey, Operator::kLte, {"-3"}, std::nullopt, "-3");
}

TEST_CASE("Gt with other than exactly one value is rejected", "[requirements]") {
  CheckCreateFails(kKey, Operator::kGt, {"1", "2"}, std::nullopt);
  CheckCreateFails(kKey, Operator::kGt, {}, std::nullopt);
  CheckCreateFails(kKey, Operator::kLt, {"1", "2"}, std::nullopt);
  CheckCreateFails(kKey, Operator::kGte, {}, std::nullopt);
  CheckCreateFails(kKey, Operator::kLte, {"1", "2"}, std::nullopt);
}

TEST_CASE("Exists and DoesNotExist with values are rejected", "[requirements]") {
  CheckCreateFails(kKey, Operator::kExists, {"a"}, std::nullopt);
  CheckCreateFails(kKey, Operator::kDoesNotExist, {"a"}, std::nullopt);
}

TEST_CASE("minValues outside 1..50 is rejected", "[requirements]") {
  CheckCreateFails(kKey, Operator::kIn, {"a", "b"}, 0);
  CheckCreateFails(kKey, Operator::kIn, {"a", "b"}, -1);
  std::vector<std::string> many;
  for (int i = 0; i < 60; ++i) many.push_back(std::string("v").append(std::to_string(i)));
  CheckCreateFails(kKey, Operator::kIn, many, karp::kMaxMinValues + 1);
  CHECK(Requirement::Create(kKey, Operator::kIn, many, karp::kMaxMinValues).ok());
  CHECK(Requirement::Create(kKey, Operator::kIn, {"a"}, 1).ok());
}

TEST_CASE("In with fewer values than minValues is rejected", "[requirements]") {
  CheckCreateFails(kKey, Operator::kIn, {"a"}, 2);
  CheckCreateFails(kKey, Operator::kIn, {"a", "b", "c"}, 4);
  CHECK(Requirement::Create(kKey, Operator::kIn, {"a", "b"}, 2).ok());
}

namespace {

void CheckValid(const NodeSelectorRequirement& req,
                const karp::LabelSet& wk = karp::WellKnownLabels()) {
  INFO(req.key << " " << OpName(req.op));
  absl::Status s = karp::ValidateRequirement(req, wk);
  INFO(Msg(s));
  CHECK(s.ok());
}

void CheckInvalid(const NodeSelectorRequirement& req, const std::string& contains) {
  INFO(req.key << " " << OpName(req.op));
  absl::Status s = karp::ValidateRequirement(req);
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(Msg(s), Catch::Contains(contains));
}

}  // namespace

TEST_CASE("restricted labels are rejected with the reference's message", "[requirements][labels]") {
  CheckInvalid({"kubernetes.io/hostname", Operator::kIn, {"node-1"}, std::nullopt},
               "using label kubernetes.io/hostname is not allowed");
  CheckInvalid({"karpenter.sh/foo", Operator::kIn, {"x"}, std::nullopt},
               "using label karpenter.sh/foo is not allowed");
  CheckInvalid({"sub.karpenter.sh/foo", Operator::kExists, {}, std::nullopt},
               "using label sub.karpenter.sh/foo is not allowed");
  CheckInvalid({"karpenter.sh/initialized", Operator::kIn, {"true"}, std::nullopt},
               "using label karpenter.sh/initialized is not allowed");

  absl::Status direct = karp::CheckRestrictedLabel("karpenter.sh/foo");
  REQUIRE_FALSE(direct.ok());
  CHECK(direct.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(Msg(direct), Catch::StartsWith("using label karpenter.sh/foo is not allowed"));
  CHECK_THAT(Msg(direct), Catch::Contains("might interfere with the internal provisioning logic"));
  CHECK_THAT(Msg(karp::CheckRestrictedLabel("kubernetes.io/hostname")),
             Catch::StartsWith("using label kubernetes.io/hostname is not allowed"));
  CHECK_THAT(Msg(karp::CheckRestrictedLabel("a.b.karpenter.sh/x")),
             Catch::StartsWith("using label a.b.karpenter.sh/x is not allowed"));
}

TEST_CASE("well-known and unrelated keys are not restricted", "[requirements][labels]") {
  CHECK(karp::CheckRestrictedLabel("karpenter.sh/capacity-type").ok());
  CHECK(karp::CheckRestrictedLabel("karpenter.sh/nodepool").ok());
  CHECK(karp::CheckRestrictedLabel(kZone).ok());
  CHECK(karp::CheckRestrictedLabel("example.com/team").ok());
  CHECK(karp::CheckRestrictedLabel("team").ok());
  // The domain must equal karpenter.sh or end with ".karpenter.sh".
  CHECK(karp::CheckRestrictedLabel("notkarpenter.sh/foo").ok());
  // A catalog may extend the well-known set.
  karp::LabelSet extended = karp::WellKnownLabels();
  extended.Insert("karpenter.sh/custom");
  CHECK(karp::CheckRestrictedLabel("karpenter.sh/custom", extended).ok());
  CHECK_FALSE(karp::CheckRestrictedLabel("karpenter.sh/custom").ok());

  CheckValid({"karpenter.sh/capacity-type", Operator::kIn, {"spot"}, std::nullopt});
  CheckValid({"karpenter.sh/nodepool", Operator::kIn, {"default"}, std::nullopt});
  CheckValid({"example.com/team", Operator::kIn, {"a"}, std::nullopt});
  CheckValid({"example.com/size", Operator::kGt, {"3"}, std::nullopt});
  CheckValid({"example.com/size", Operator::kGte, {"3"}, std::nullopt});
  CheckValid({"example.com/size", Operator::kDoesNotExist, {}, std::nullopt});
  CheckValid({"node.kubernetes.io/instance-type", Operator::kIn, {"m5.large", "c5.large"}, 2});
  CheckValid({"karpenter.sh/custom", Operator::kExists, {}, std::nullopt}, extended);
}

TEST_CASE("capacity-type In needs known values", "[requirements][labels]") {
  CheckInvalid({"karpenter.sh/capacity-type", Operator::kIn, {"bogus"}, std::nullopt},
               "karpenter.sh/capacity-type");
  CheckValid({"karpenter.sh/capacity-type", Operator::kIn, {"spot", "bogus"}, std::nullopt});
  CheckInvalid({"karpenter.sh/capacity-type", Operator::kIn, {"spot", "bogus"}, 2},
               "karpenter.sh/capacity-type");
  CheckValid({"karpenter.sh/capacity-type", Operator::kIn, {"spot", "on-demand"}, 2});
  CheckValid({"karpenter.sh/capacity-type", Operator::kIn, {"spot", "on-demand", "reserved"}, 3});
  CheckValid({"karpenter.sh/capacity-type", Operator::kNotIn, {"bogus"}, std::nullopt});
}

TEST_CASE("ValidateRequirement checks operator arity", "[requirements]") {
  CheckInvalid({"example.com/team", Operator::kIn, {}, std::nullopt}, "example.com/team");
  CheckInvalid({"example.com/size", Operator::kGt, {"abc"}, std::nullopt}, "example.com/size");
  CheckInvalid({"example.com/size", Operator::kLt, {"1", "2"}, std::nullopt}, "example.com/size");
  CheckInvalid({"example.com/team", Operator::kExists, {"a"}, std::nullopt}, "example.com/team");
  CheckInvalid({"example.com/team", Operator::kIn, {"a"}, 2}, "example.com/team");
  CheckInvalid({"example.com/team", Operator::kIn, {"a"}, 0}, "example.com/team");
}

TEST_CASE("invalid key syntax is rejected", "[requirements][labels]") {
  for (const char* key : {"-bad", "bad-", "a b", "example.com/", "/name", "a/b/c", "ex ample.com/x",
                          "example.com/na me", "_bad"}) {
    CheckInvalid({key, Operator::kExists, {}, std::nullopt}, key);
  }
  const std::string long_name(64, 'a');
  CheckInvalid({long_name, Operator::kExists, {}, std::nullopt}, long_name);
}

TEST_CASE("invalid label values are rejected", "[requirements][labels]") {
  CheckInvalid({"example.com/team", Operator::kIn, {"bad value"}, std::nullopt},
               "example.com/team");
  CheckInvalid({"example.com/team", Operator::kNotIn, {"-bad"}, std::nullopt}, "example.com/team");
  CheckInvalid({"example.com/team", Operator::kIn, {std::string(64, 'v')}, std::nullopt},
               "example.com/team");
  CheckValid({"example.com/team", Operator::kIn, {std::string(63, 'v')}, std::nullopt});
  CheckValid({"example.com/team", Operator::kIn, {"a.b-c_d"}, std::nullopt});
}

TEST_CASE("ParseOperator accepts the eight operator names exactly", "[requirements]") {
  for (Operator op : AllOperators()) {
    absl::StatusOr<Operator> parsed = karp::ParseOperator(karp::OperatorName(op));
    REQUIRE(parsed.ok());
    CHECK(*parsed == op);
  }
  CHECK(karp::OperatorName(Operator::kIn) == "In");
  CHECK(karp::OperatorName(Operator::kNotIn) == "NotIn");
  CHECK(karp::OperatorName(Operator::kExists) == "Exists");
  CHECK(karp::OperatorName(Operator::kDoesNotExist) == "DoesNotExist");
  CHECK(karp::OperatorName(Operator::kGt) == "Gt");
  CHECK(karp::OperatorName(Operator::kLt) == "Lt");
  CHECK(karp::OperatorName(Operator::kGte) == "Gte");
  CHECK(karp::OperatorName(Operator::kLte) == "Lte");
  for (const char* bad : {"in", "IN", "Foo", "", "Equal", "NotExists", "In "}) {
    INFO("'" << bad << "'");
    absl::StatusOr<Operator> parsed = karp::ParseOperator(bad);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == absl::StatusCode::kInvalidArgument);
    if (*bad != '\0') CHECK_THAT(Msg(parsed.status()), Catch::Contains(bad));
  }
}

// ---------------------------------------------------------------------------------------------
// Label sets (§1.11)

TEST_CASE("the core well-known label set", "[labels]") {
  const karp::LabelSet& wk = karp::WellKnownLabels();
  for (const char* key :
       {"karpenter.sh/nodepool", "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
        "node.kubernetes.io/instance-type", "kubernetes.io/arch", "kubernetes.io/os",
        "karpenter.sh/capacity-type", "node.kubernetes.io/windows-build"}) {
    INFO(key);
    CHECK(wk.Contains(key));
  }
  CHECK(wk.size() == size_t{8});
  CHECK_FALSE(wk.Contains("kubernetes.io/hostname"));
  CHECK_FALSE(wk.Contains("example.com/team"));
  CHECK(karp::RestrictedLabels().Contains("kubernetes.io/hostname"));
  CHECK_FALSE(karp::RestrictedLabels().Contains(kZone));
}

TEST_CASE("LabelSet keeps keys sorted and unique", "[labels]") {
  karp::LabelSet s{"b", "a", "b"};
  CHECK(s.keys() == std::vector<std::string>{"a", "b"});
  s.Insert("c");
  s.Insert("a");
  CHECK(s.size() == size_t{3});
  CHECK(s.Contains("c"));
  CHECK_FALSE(s.Contains("d"));
  karp::LabelSet t{"d", "a"};
  s.InsertAll(t);
  CHECK(s.keys() == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(s == karp::LabelSet{"d", "c", "b", "a"});
  CHECK(karp::LabelSet{}.size() == size_t{0});
}

TEST_CASE("qualified names and label values follow Kubernetes syntax", "[labels]") {
  for (const char* ok : {"team", "a", "example.com/team", "kubernetes.io/hostname", "a.b-c_d", "A1",
                         "sub.example.com/Name.x"}) {
    INFO(ok);
    CHECK(karp::ValidateQualifiedName(ok).ok());
  }
  for (const char* bad : {"", "-a", "a-", ".a", "example.com/", "/a", "a/b/c", "a b",
                          "Example.com/x", "exa_mple.com/x"}) {
    INFO("'" << bad << "'");
    absl::Status s = karp::ValidateQualifiedName(bad);
    CHECK_FALSE(s.ok());
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  }
  CHECK(karp::ValidateQualifiedName(std::string(63, 'a')).ok());
  CHECK_FALSE(karp::ValidateQualifiedName(std::string(64, 'a')).ok());
  CHECK_FALSE(karp::ValidateQualifiedName(std::string(254, 'a') + "/x").ok());

  CHECK(karp::ValidateLabelValue("").ok());
  CHECK(karp::ValidateLabelValue("abc").ok());
  CHECK(karp::ValidateLabelValue("us-east-1a").ok());
  CHECK(karp::ValidateLabelValue(std::string(63, 'v')).ok());
  CHECK_FALSE(karp::ValidateLabelValue(std::string(64, 'v')).ok());
  CHECK_FALSE(karp::ValidateLabelValue("a b").ok());
  CHECK_FALSE(karp::ValidateLabelValue("-a").ok());
  CHECK_FALSE(karp::ValidateLabelValue("a/b").ok());
  absl::Status bad = karp::ValidateLabelValue("bad value");
  CHECK_THAT(Msg(bad), Catch::Contains("bad value"));
}

namespace {

// A requirement of one of a few keys and operators, from a small deterministic generator.
Requirement SampleRequirement(uint32_t& state) {
  auto next = [&state](uint32_t n) {
    state = state * 1664525u + 1013904223u;
    return (state >> 8) % n;
  };
  static const char* const kKeys[] = {"a.io/k1", "b.io/k2", "c.io/k3", "d.io/k4", "e.io/k5",
                                      "f.io/k6", "g.io/k7", "h.io/k8", "i.io/k9", "j.io/k10"};
  const std::string key = kKeys[next(10)];
  std::vector<std::string> values;
  for (uint32_t i = 0, n = next(4); i < n; ++i) values.push_back(std::to_string(next(6)));
  switch (next(6)) {
    case 0:
      return Requirement::In(key, values);
    case 1:
      return Requirement::NotIn(key, values);
    case 2:
      return Requirement::Exists(key);
    case 3:
      return Requirement::DoesNotExist(key);
    case 4:
      return Requirement::Gt(key, next(5));
    default:
      return Requirement::Lt(key, next(5));
  }
}

}  // namespace

TEST_CASE("adding a Requirements equals adding its requirements one by one", "[requirements]") {
  // Add(const Requirements&) merges the two key-sorted lists when `other` is not small; the
  // result must be that of Add(const Requirement&) per entry, whatever the sizes.
  uint32_t state = 7;
  for (int round = 0; round < 500; ++round) {
    Requirements a, b;
    const int na = static_cast<int>(state % 11), nb = static_cast<int>((state >> 4) % 11);
    for (int i = 0; i < na; ++i) a.Add(SampleRequirement(state));
    for (int i = 0; i < nb; ++i) b.Add(SampleRequirement(state));
    Requirements want = a;
    for (const Requirement& r : b) want.Add(r);
    Requirements got = a;
    got.Add(b);
    INFO(a.ToString() << " + " << b.ToString());
    CHECK(got == want);
    Requirements self = a, self_want = a;
    for (const Requirement& r : a) self_want.Add(r);
    self.Add(self);
    CHECK(self == self_want);
  }
  // Requirements built out of key order equal those built in order.
  Requirements forward, backward;
  for (const char* key : {"a.io/x", "b.io/y", "c.io/z"}) forward.Add(Requirement::Exists(key));
  for (const char* key : {"c.io/z", "b.io/y", "a.io/x"}) backward.Add(Requirement::Exists(key));
  CHECK(forward == backward);
  CHECK(forward.Keys() == std::vector<std::string>{"a.io/x", "b.io/y", "c.io/z"});
}
