// The reference provisioner's per-pod Validate (semantics of its provisioner.go): pods that
// fail it are left pending with a pod error `ignoring pod, <reasons>` while every other pod is
// scheduled. See docs/design.md, "One bad pod never stops a cluster".

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "scheduling/scheduler_internal.h"

namespace karp::scheduling {
namespace {

void CheckTerm(const NodeSelectorTerm& term, const LabelSet& well_known,
               std::vector<std::string>* errors) {
  if (term.has_match_fields)
    errors->push_back("node selector term with matchFields is not supported");
  for (const NodeSelectorRequirement& r : term.match_expressions) {
    if (absl::Status s = ValidateRequirement(r, well_known); !s.ok()) {
      errors->emplace_back(internal::Message(s));
    }
  }
}

}  // namespace

std::string PodValidationError(const Pod& pod, const LabelSet& well_known, bool check_fields,
                               const Requirements* full) {
  std::vector<std::string> errors;
  // Fields a host could have set that no API server would accept (negative requests, ...).
  if (check_fields) {
    if (absl::Status s = ValidatePod(pod); !s.ok()) errors.emplace_back(internal::Message(s));
  }
  // In the reference's order: the nodepool DoesNotExist requirement, nodeSelector entries
  // (sorted by key here; Go's map order is random), required node-affinity terms. Preferred
  // terms are not validated.
  // The full requirements (the heaviest preferred term included), as the reference's
  // NewPodRequirements: a pod that only prefers not to run on a Karpenter node is ignored too.
  std::optional<Requirements> built;
  if (full == nullptr) full = &built.emplace(PodRequirements(pod));
  const Requirement* np = full->Find(kLabelNodePool);
  if (np != nullptr && np->op() == Operator::kDoesNotExist) {
    errors.push_back(
        internal::StrCat("configured to not run on a Karpenter provisioned node "
                         "(requirement=",
                         kLabelNodePool, " DoesNotExist)"));
  }
  for (const auto& [key, value] : pod.node_selector) {
    CheckTerm(NodeSelectorTerm{{{key, Operator::kIn, {value}, std::nullopt}}, false}, well_known,
              &errors);
  }
  for (const NodeSelectorTerm& term : pod.node_affinity.required) {
    CheckTerm(term, well_known, &errors);
  }
  if (errors.empty()) return "";
  return internal::StrCat("ignoring pod, ", absl::StrJoin(errors, "; "));
}

}  // namespace karp::scheduling
