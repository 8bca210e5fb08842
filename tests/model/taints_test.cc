// Tests of taints and tolerations (karp/taints.h), written from docs/design.md §3 and
// the header contract.

#include "karp/taints.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace {

using karp::Taint;
using karp::TaintEffect;
using karp::Toleration;
using karp::TolerationOperator;

constexpr TaintEffect kNoSchedule = TaintEffect::kNoSchedule;
constexpr TaintEffect kPreferNoSchedule = TaintEffect::kPreferNoSchedule;
constexpr TaintEffect kNoExecute = TaintEffect::kNoExecute;
constexpr TaintEffect kAnyEffect = TaintEffect::kNone;

const std::vector<TaintEffect>& Effects() {
  static const std::vector<TaintEffect> effects = {kNoSchedule, kPreferNoSchedule, kNoExecute};
  return effects;
}

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

// Tolerates() and ToleratesAll() must agree.
void CheckTolerates(const std::vector<Taint>& taints, const std::vector<Toleration>& tolerations,
                    bool want) {
  absl::Status s = karp::Tolerates(taints, tolerations);
  CHECK(s.ok() == want);
  CHECK(karp::ToleratesAll(taints, tolerations) == want);
  if (!want) CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
}

bool Contains(const std::vector<Taint>& taints, const Taint& t) {
  for (const Taint& x : taints) {
    if (x == t) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("taints print as key=value:Effect", "[taints]") {
  CHECK(Taint{"example.com/special-taint", "", kNoSchedule}.ToString() ==
        "example.com/special-taint=:NoSchedule");
  CHECK(Taint{"dedicated", "gpu", kNoExecute}.ToString() == "dedicated=gpu:NoExecute");
  CHECK(Taint{"k", "v", kPreferNoSchedule}.ToString() == "k=v:PreferNoSchedule");
}

TEST_CASE("effect and operator names parse and print", "[taints]") {
  CHECK(karp::TaintEffectName(kAnyEffect).empty());
  CHECK(karp::TaintEffectName(kNoSchedule) == "NoSchedule");
  CHECK(karp::TaintEffectName(kPreferNoSchedule) == "PreferNoSchedule");
  CHECK(karp::TaintEffectName(kNoExecute) == "NoExecute");
  for (TaintEffect e : {kAnyEffect, kNoSchedule, kPreferNoSchedule, kNoExecute}) {
    absl::StatusOr<TaintEffect> parsed = karp::ParseTaintEffect(karp::TaintEffectName(e));
    REQUIRE(parsed.ok());
    CHECK(*parsed == e);
  }
  absl::StatusOr<TaintEffect> bad = karp::ParseTaintEffect("NoSched");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(Msg(bad.status()), Catch::Contains("NoSched"));

  CHECK(karp::TolerationOperatorName(TolerationOperator::kEqual) == "Equal");
  CHECK(karp::TolerationOperatorName(TolerationOperator::kExists) == "Exists");
  CHECK(karp::TolerationOperatorName(TolerationOperator::kGt) == "Gt");
  CHECK(karp::TolerationOperatorName(TolerationOperator::kLt) == "Lt");
  for (TolerationOperator op : {TolerationOperator::kEqual, TolerationOperator::kExists,
                                TolerationOperator::kGt, TolerationOperator::kLt}) {
    absl::StatusOr<TolerationOperator> parsed =
        karp::ParseTolerationOperator(karp::TolerationOperatorName(op));
    REQUIRE(parsed.ok());
    CHECK(*parsed == op);
  }
  absl::StatusOr<TolerationOperator> empty = karp::ParseTolerationOperator("");
  REQUIRE(empty.ok());
  CHECK(*empty == TolerationOperator::kEqual);
  absl::StatusOr<TolerationOperator> bogus = karp::ParseTolerationOperator("Bogus");
  REQUIRE_FALSE(bogus.ok());
  CHECK(bogus.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(Msg(bogus.status()), Catch::Contains("Bogus"));
}

TEST_CASE("Equal tolerations match key and value", "[taints]") {
  Toleration t{"dedicated", TolerationOperator::kEqual, "gpu", kNoSchedule};
  CHECK(t.Tolerates(Taint{"dedicated", "gpu", kNoSchedule}));
  CHECK_FALSE(t.Tolerates(Taint{"dedicated", "cpu", kNoSchedule}));
  CHECK_FALSE(t.Tolerates(Taint{"dedicated", "", kNoSchedule}));
  CHECK_FALSE(t.Tolerates(Taint{"other", "gpu", kNoSchedule}));

  Toleration empty_value{"example.com/special-taint", TolerationOperator::kEqual, "", kAnyEffect};
  CHECK(empty_value.Tolerates(Taint{"example.com/special-taint", "", kNoSchedule}));
  CHECK_FALSE(empty_value.Tolerates(Taint{"example.com/special-taint", "x", kNoSchedule}));
}

TEST_CASE("an empty effect on a toleration matches every effect", "[taints]") {
  Toleration any{"dedicated", TolerationOperator::kEqual, "gpu", kAnyEffect};
  for (TaintEffect e : Effects()) {
    INFO(karp::TaintEffectName(e));
    CHECK(any.Tolerates(Taint{"dedicated", "gpu", e}));
  }
  Toleration exists_any{"dedicated", TolerationOperator::kExists, "", kAnyEffect};
  for (TaintEffect e : Effects()) CHECK(exists_any.Tolerates(Taint{"dedicated", "x", e}));
}

TEST_CASE("a toleration with a different effect does not match", "[taints]") {
  for (TaintEffect tol : Effects()) {
    for (TaintEffect taint : Effects()) {
      INFO(karp::TaintEffectName(tol) << " vs " << karp::TaintEffectName(taint));
      Toleration t{"k", TolerationOperator::kEqual, "v", tol};
      CHECK(t.Tolerates(Taint{"k", "v", taint}) == (tol == taint));
      Toleration e{"k", TolerationOperator::kExists, "", tol};
      CHECK(e.Tolerates(Taint{"k", "v", taint}) == (tol == taint));
      Toleration all{"", TolerationOperator::kExists, "", tol};
      CHECK(all.Tolerates(Taint{"k", "v", taint}) == (tol == taint));
    }
  }
}

TEST_CASE("Exists with a key tolerates every value of that key", "[taints]") {
  Toleration t{"dedicated", TolerationOperator::kExists, "", kNoSchedule};
  CHECK(t.Tolerates(Taint{"dedicated", "gpu", kNoSchedule}));
  CHECK(t.Tolerates(Taint{"dedicated", "", kNoSchedule}));
  CHECK_FALSE(t.Tolerates(Taint{"other", "gpu", kNoSchedule}));
}

TEST_CASE("Exists with an empty key tolerates everything", "[taints]") {
  Toleration all{"", TolerationOperator::kExists, "", kAnyEffect};
  const std::vector<Taint> taints = {
      {"dedicated", "gpu", kNoSchedule},
      {"example.com/special-taint", "", kPreferNoSchedule},
      {"node.kubernetes.io/unreachable", "", kNoExecute},
      {"karpenter.sh/disrupted", "", kNoSchedule},
  };
  for (const Taint& taint : taints) CHECK(all.Tolerates(taint));
  CheckTolerates(taints, {all}, true);
}

TEST_CASE("Equal with an empty key matches the value on any key", "[taints]") {
  Toleration t{"", TolerationOperator::kEqual, "v", kAnyEffect};
  CHECK(t.Tolerates(Taint{"a", "v", kNoSchedule}));
  CHECK(t.Tolerates(Taint{"b", "v", kNoExecute}));
  CHECK_FALSE(t.Tolerates(Taint{"a", "w", kNoSchedule}));
}

TEST_CASE("Gt and Lt tolerations compare integers", "[taints]") {
  Toleration gt{"example.com/level", TolerationOperator::kGt, "5", kAnyEffect};
  CHECK(gt.Tolerates(Taint{"example.com/level", "6", kNoSchedule}));
  CHECK(gt.Tolerates(Taint{"example.com/level", "100", kNoSchedule}));
  CHECK_FALSE(gt.Tolerates(Taint{"example.com/level", "5", kNoSchedule}));
  CHECK_FALSE(gt.Tolerates(Taint{"example.com/level", "4", kNoSchedule}));
  CHECK_FALSE(gt.Tolerates(Taint{"example.com/other", "6", kNoSchedule}));

  Toleration lt{"example.com/level", TolerationOperator::kLt, "5", kAnyEffect};
  CHECK(lt.Tolerates(Taint{"example.com/level", "4", kNoSchedule}));
  CHECK(lt.Tolerates(Taint{"example.com/level", "0", kNoSchedule}));
  CHECK_FALSE(lt.Tolerates(Taint{"example.com/level", "5", kNoSchedule}));
  CHECK_FALSE(lt.Tolerates(Taint{"example.com/level", "6", kNoSchedule}));

  // Numeric, not lexicographic.
  CHECK(gt.Tolerates(Taint{"example.com/level", "10", kNoSchedule}));
  CHECK_FALSE(lt.Tolerates(Taint{"example.com/level", "10", kNoSchedule}));
}

TEST_CASE("Gt and Lt never match non-integer values", "[taints]") {
  Toleration gt{"example.com/level", TolerationOperator::kGt, "5", kAnyEffect};
  Toleration lt{"example.com/level", TolerationOperator::kLt, "5", kAnyEffect};
  for (const char* v : {"abc", "", "6.5", "4.5", "1e3"}) {
    INFO("taint value '" << v << "'");
    CHECK_FALSE(gt.Tolerates(Taint{"example.com/level", v, kNoSchedule}));
    CHECK_FALSE(lt.Tolerates(Taint{"example.com/level", v, kNoSchedule}));
  }
  Toleration bad_gt{"example.com/level", TolerationOperator::kGt, "x", kAnyEffect};
  Toleration bad_lt{"example.com/level", TolerationOperator::kLt, "", kAnyEffect};
  for (const char* v : {"0", "6", "100"}) {
    CHECK_FALSE(bad_gt.Tolerates(Taint{"example.com/level", v, kNoSchedule}));
    CHECK_FALSE(bad_lt.Tolerates(Taint{"example.com/level", v, kNoSchedule}));
  }
}

TEST_CASE("an untolerated taint is reported in the reference's words", "[taints]") {
  Taint t{"example.com/special-taint", "", kNoSchedule};
  absl::Status s = karp::Tolerates({t}, {});
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(Msg(s) == "did not tolerate example.com/special-taint=:NoSchedule");
  CHECK_FALSE(karp::ToleratesAll({t}, {}));
  CHECK_FALSE(karp::ToleratesTaint({}, t));
}

TEST_CASE("every untolerated taint is reported, joined by a semicolon", "[taints]") {
  const std::vector<Taint> taints = {
      {"a", "1", kNoSchedule},
      {"b", "2", kPreferNoSchedule},
      {"c", "3", kNoExecute},
  };
  const std::vector<Toleration> tolerations = {{"b", TolerationOperator::kEqual, "2", kAnyEffect}};
  absl::Status s = karp::Tolerates(taints, tolerations);
  REQUIRE_FALSE(s.ok());
  CHECK(Msg(s) == "did not tolerate a=1:NoSchedule; did not tolerate c=3:NoExecute");
  CHECK_FALSE(karp::ToleratesAll(taints, tolerations));
}

TEST_CASE("PreferNoSchedule and NoExecute taints are checked like NoSchedule", "[taints]") {
  for (TaintEffect e : Effects()) {
    INFO(karp::TaintEffectName(e));
    Taint t{"dedicated", "gpu", e};
    CheckTolerates({t}, {}, false);
    CHECK(Msg(karp::Tolerates({t}, {})) ==
          std::string("did not tolerate dedicated=gpu:").append(karp::TaintEffectName(e)));
    CheckTolerates({t}, {{"dedicated", TolerationOperator::kEqual, "gpu", e}}, true);
    CheckTolerates({t}, {{"dedicated", TolerationOperator::kEqual, "cpu", e}}, false);
  }
}

TEST_CASE("a taint is tolerated if any toleration matches", "[taints]") {
  Taint t{"dedicated", "gpu", kNoSchedule};
  const std::vector<Toleration> tolerations = {
      {"other", TolerationOperator::kExists, "", kAnyEffect},
      {"dedicated", TolerationOperator::kEqual, "cpu", kAnyEffect},
      {"dedicated", TolerationOperator::kEqual, "gpu", kNoSchedule},
  };
  CHECK(karp::ToleratesTaint(tolerations, t));
  CHECK_FALSE(karp::ToleratesTaint({tolerations[0], tolerations[1]}, t));
  CheckTolerates({}, {}, true);
  CheckTolerates({t, Taint{"other", "x", kNoExecute}}, tolerations, true);
}

TEST_CASE("MergeTaints deduplicates by key and effect, base entries winning", "[taints]") {
  const std::vector<Taint> base = {{"a", "base", kNoSchedule}, {"b", "", kNoExecute}};
  const std::vector<Taint> extra = {
      {"a", "extra", kNoSchedule},   // same key+effect as base: dropped
      {"a", "extra", kNoExecute},    // different effect: kept
      {"b", "other", kNoExecute},    // same key+effect: dropped
      {"c", "", kPreferNoSchedule},  // new key: kept
  };
  std::vector<Taint> merged = karp::MergeTaints(base, extra);
  REQUIRE(merged.size() == size_t{4});
  CHECK(merged[0] == base[0]);
  CHECK(merged[1] == base[1]);
  CHECK(Contains(merged, Taint{"a", "extra", kNoExecute}));
  CHECK(Contains(merged, Taint{"c", "", kPreferNoSchedule}));
  CHECK_FALSE(Contains(merged, Taint{"a", "extra", kNoSchedule}));
  CHECK_FALSE(Contains(merged, Taint{"b", "other", kNoExecute}));

  CHECK(karp::MergeTaints({}, {}).empty());
  CHECK(karp::MergeTaints(base, {}) == base);
  CHECK(Taint{"a", "x", kNoSchedule}.Matches(Taint{"a", "y", kNoSchedule}));
  CHECK_FALSE(Taint{"a", "x", kNoSchedule}.Matches(Taint{"a", "x", kNoExecute}));
}

TEST_CASE("the known ephemeral taints", "[taints]") {
  for (const Taint& t : std::vector<Taint>{
           {"node.kubernetes.io/not-ready", "", kNoSchedule},
           {"node.kubernetes.io/not-ready", "", kNoExecute},
           {"node.kubernetes.io/unreachable", "", kNoSchedule},
           {"node.cloudprovider.kubernetes.io/uninitialized", "true", kNoSchedule},
           {"karpenter.sh/unregistered", "", kNoExecute},
           {"readiness.k8s.io/network", "", kNoSchedule},
           {"readiness.k8s.io/storage-ready", "x", kNoExecute},
           {"readiness.k8s.io/gpu", "", kPreferNoSchedule},
       }) {
    INFO(t.ToString());
    CHECK(karp::IsKnownEphemeralTaint(t));
  }
  for (const Taint& t : std::vector<Taint>{
           {"node.kubernetes.io/unreachable", "", kNoExecute},
           {"karpenter.sh/unregistered", "", kNoSchedule},
           {"node.cloudprovider.kubernetes.io/uninitialized", "true", kNoExecute},
           {"node.kubernetes.io/not-ready", "", kPreferNoSchedule},
           {"example.com/readiness.k8s.io/x", "", kNoSchedule},
           {"readiness.k8s.io", "", kNoSchedule},
           {"karpenter.sh/disrupted", "", kNoSchedule},
           {"dedicated", "gpu", kNoSchedule},
       }) {
    INFO(t.ToString());
    CHECK_FALSE(karp::IsKnownEphemeralTaint(t));
  }
}

TEST_CASE("an uninitialized managed node ignores ephemeral and startup taints", "[taints]") {
  const std::vector<Taint> taints = {
      {"node.kubernetes.io/not-ready", "", kNoSchedule},
      {"dedicated", "gpu", kNoSchedule},
      {"example.com/startup", "pending", kNoSchedule},
      {"readiness.k8s.io/network", "", kNoSchedule},
      {"example.com/startup", "pending", kNoExecute},
      {"karpenter.sh/unregistered", "", kNoExecute},
      {"node.kubernetes.io/unreachable", "", kNoExecute},
  };
  // Startup taints match by key and effect; the value is ignored.
  const std::vector<Taint> startup = {{"example.com/startup", "other-value", kNoSchedule}};
  std::vector<Taint> got =
      karp::SchedulingTaints(taints, /*managed=*/true, /*initialized=*/false, startup);
  const std::vector<Taint> want = {
      {"dedicated", "gpu", kNoSchedule},
      {"example.com/startup", "pending", kNoExecute},
      {"node.kubernetes.io/unreachable", "", kNoExecute},
  };
  CHECK(got == want);
}

TEST_CASE("initialized or unmanaged nodes keep all their taints", "[taints]") {
  const std::vector<Taint> taints = {
      {"node.kubernetes.io/not-ready", "", kNoSchedule},
      {"dedicated", "gpu", kNoSchedule},
      {"example.com/startup", "pending", kNoSchedule},
      {"readiness.k8s.io/network", "", kNoSchedule},
  };
  const std::vector<Taint> startup = {{"example.com/startup", "", kNoSchedule}};
  CHECK(karp::SchedulingTaints(taints, /*managed=*/true, /*initialized=*/true, startup) == taints);
  CHECK(karp::SchedulingTaints(taints, /*managed=*/false, /*initialized=*/false, startup) ==
        taints);
  CHECK(karp::SchedulingTaints(taints, /*managed=*/false, /*initialized=*/true, startup) == taints);
  CHECK(karp::SchedulingTaints({}, true, false, startup).empty());
}

TEST_CASE("the disrupted taint is karpenter.sh/disrupted:NoSchedule", "[taints]") {
  Taint t = karp::DisruptedTaint();
  CHECK(t.key == "karpenter.sh/disrupted");
  CHECK(t.value.empty());
  CHECK(t.effect == kNoSchedule);
  CHECK(t.ToString() == "karpenter.sh/disrupted=:NoSchedule");
}
