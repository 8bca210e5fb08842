// Step 3 of Solver::Add (docs/design.md §5.6): a new claim from the first NodePool (by weight)
// that can take the pod, within the NodePool's remaining limits.

#include "scheduling/solver.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "internal/strings.h"
#include "karp/labels.h"
#include "scheduling/cost_packing.h"
#include "scheduling/instance_filter.h"

namespace karp::scheduling {
namespace {

// True if `capacity` exceeds none of a NodePool's `remaining` limits.
bool WithinLimits(const ResourceList& capacity, const ResourceList& remaining) {
  bool within = true;
  remaining.ForEach([&](std::string_view name, int64_t left) {
    if (within && capacity.Get(name) > left) within = false;
  });
  return within;
}

}  // namespace

std::vector<int> Solver::LimitedCandidates(const Template& t, std::string* skip_reason) const {
  const std::string& pool = t.pool->name();
  std::vector<int> candidates;
  auto limits = remaining_limits_.find(pool);
  if (limits == remaining_limits_.end()) {
    candidates.resize(t.instance_types.size());
    for (size_t i = 0; i < candidates.size(); ++i) candidates[i] = static_cast<int>(i);
    return candidates;
  }
  if (limits->second.Has(kResourceNodes) && limits->second.Get(kResourceNodes) == 0) {
    *skip_reason = internal::StrCat("node limits have been exhausted for nodepool \"", pool, "\"");
    return candidates;
  }
  // Limits only shrink during a solve, so the types within them only shrink too: the last
  // list stands while every limit still covers its largest capacity, else it is re-filtered.
  const ResourceList& remaining = limits->second;
  LimitMemo& memo = limit_memo_[&t];
  if (!memo.valid || !WithinLimits(memo.max_capacity, remaining)) {
    std::vector<int> kept;
    auto keep = [&](int i) {
      if (WithinLimits(t.instance_types[static_cast<size_t>(i)]->capacity, remaining)) {
        kept.push_back(i);
      }
    };
    if (memo.valid) {
      for (int i : memo.candidates) keep(i);
    } else {
      for (size_t i = 0; i < t.instance_types.size(); ++i) keep(static_cast<int>(i));
    }
    memo.max_capacity = ResourceList();
    for (int i : kept)
      memo.max_capacity.MaxWith(t.instance_types[static_cast<size_t>(i)]->capacity);
    memo.candidates = std::move(kept);
    memo.valid = true;
  }
  candidates = memo.candidates;
  if (candidates.empty()) {
    *skip_reason =
        internal::StrCat("all available instance types exceed limits for nodepool \"", pool, "\"");
  }
  return candidates;
}

void Solver::OpenClaim(std::unique_ptr<ClaimState> claim, PodData& pod, ClaimFit fit) {
  ++next_seq_;
  claim->min_values_relaxed |= fit.relaxed_min_values;
  topology_->RegisterClaimSlot(claim->hostname, static_cast<int>(claim->seq));
  topology_->RegisterHostname(claim->hostname);
  claim->taint_set = static_cast<int>(TaintSetOf(*claim));
  const bool planned = cost_ != nullptr && pod.plan_group >= 0 &&
                       group_claims_.emplace(pod.plan_group, claim->seq).second;
  // Cost mode: the target is chosen on the fit, before the commit indexes the claim.
  if (cost_ != nullptr && !planned) cost_->ChooseTarget(*claim, fit, pod);
  CommitClaim(*claim, pod, std::move(fit));
  auto limits = remaining_limits_.find(claim->claim_template->pool->name());
  if (limits != remaining_limits_.end()) {
    // The largest capacity of the claim's types: usually that of the NodePool's candidates
    // (LimitMemo), which the claim's types are a subset of.
    const std::vector<const InstanceType*>& types = claim->claim_template->instance_types;
    auto capacity = [&](int i) -> const ResourceList& {
      return types[static_cast<size_t>(i)]->capacity;
    };
    auto memo = limit_memo_.find(claim->claim_template);
    if (memo != limit_memo_.end() && memo->second.valid &&
        KeepsMax(memo->second.candidates, claim->types, capacity, memo->second.max_capacity)) {
      limits->second.Subtract(memo->second.max_capacity);
    } else {
      ResourceList max_capacity;
      for (int i : claim->types) max_capacity.MaxWith(capacity(i));
      limits->second.Subtract(max_capacity);
    }
  }
  if (!claim->claim_template->requirements.HasMinValues()) ++certain_claims_;
  claims_.push_back(std::move(claim));
}

absl::Status Solver::PlaceOnNewClaim(PodData& pod) {
  if (!state_.pools->has_node_pools) return absl::FailedPreconditionError(kNoDynamicNodePools);
  if (state_.pools->templates.empty()) {
    return absl::FailedPreconditionError(
        "nodepool requirements filtered out all available instance types");
  }
  std::vector<std::string> errors;
  const std::vector<Template>& templates = state_.pools->templates;
  for (size_t k = 0; k < templates.size(); ++k) {
    // Weight order, or the cost mode's order for this pod (CostPolicy::Order).
    const Template& t = cost_ != nullptr ? *cost_->Order(pod)[k] : templates[k];
    std::string skip_reason;
    std::vector<int> candidates = LimitedCandidates(t, &skip_reason);
    if (!skip_reason.empty()) {
      errors.push_back(std::move(skip_reason));
      continue;
    }
    auto claim = std::make_unique<ClaimState>();
    claim->claim_template = &t;
    claim->seq = next_seq_;
    claim->hostname = internal::StrCat("hostname-placeholder-", next_seq_);
    claim->requirements = t.requirements;
    claim->requirements.Add(Requirement::In(kLabelHostname, {claim->hostname}));
    if (candidates.size() == t.instance_types.size()) {  // every type: the template's maximum
      claim->max_allocatable = t.max_headroom;
      claim->max_allocatable_valid = true;
    }
    claim->types = std::move(candidates);
    claim->min_values_relaxed = t.min_values_relaxed;
    absl::StatusOr<ClaimFit> fit =
        CanAddClaim(*claim, pod, state_.options.min_values_policy == MinValuesPolicy::kBestEffort,
                    /*explain=*/true);
    if (fit.status().code() == kReservedOfferingError) {
      // No fallback to lower-weight NodePools while a higher one has compatible reservations.
      return fit.status();
    }
    if (!fit.ok()) {
      errors.push_back(internal::StrCat("incompatible with nodepool \"", t.pool->name(), "\", ",
                                        fit.status().message()));
      continue;
    }
    OpenClaim(std::move(claim), pod, *std::move(fit));
    return absl::OkStatus();
  }
  std::string message = absl::StrJoin(errors, "; ");
  if (pod.volumes != nullptr && !pod.volumes->topology.explanation.empty()) {
    internal::StrAppend(&message, "; the pod's volumes restrict where it can run: ",
                        pod.volumes->topology.explanation);
  }
  return absl::FailedPreconditionError(message);
}

}  // namespace karp::scheduling
