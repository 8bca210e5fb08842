// File: karp/limit_range.h
//
// LimitRange (`v1`): the per-namespace defaults and bounds the LimitRanger admission plugin
// applies to pods as they are created (docs/design.md §2.6). A namespace whose LimitRange
// says `defaultRequest: {cpu: 500m, memory: 512Mi}` gives every container created without
// requests those requests; karp places such pods at those requests, not at zero.
//
// Example:
//   karp::LimitRangeAdmission a = karp::ApplyLimitRanges(&snapshot);
//   // a.defaulted: "pod default/web-1: cpu, memory request for container app"; a.rejected:
//   // the pods LimitRanger would refuse, removed from the snapshot.
//
// Thread-safety: value types; thread-compatible. ApplyLimitRanges is thread-compatible.

#ifndef KARP_LIMIT_RANGE_H_
#define KARP_LIMIT_RANGE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "karp/objects.h"
#include "karp/resources.h"

namespace karp {

struct ClusterSnapshot;

// One entry of spec.limits.
struct LimitRangeItem {
  std::string type;  // "Container", "Pod" or "PersistentVolumeClaim"
  ResourceList max;
  ResourceList min;
  ResourceList default_limit;    // `default`
  ResourceList default_request;  // `defaultRequest`
  // maxLimitRequestRatio, each ratio in thousandths (2 -> 2000, 1.5 -> 1500) whatever the
  // resource.
  ResourceList max_limit_request_ratio;

  friend bool operator==(const LimitRangeItem& a, const LimitRangeItem& b) {
    return a.type == b.type && a.max == b.max && a.min == b.min &&
           a.default_limit == b.default_limit && a.default_request == b.default_request &&
           a.max_limit_request_ratio == b.max_limit_request_ratio;
  }
};

struct LimitRange {
  ObjectMeta metadata;  // namespaced; namespace defaults to "default"
  std::vector<LimitRangeItem> limits;

  friend bool operator==(const LimitRange& a, const LimitRange& b) {
    return a.metadata == b.metadata && a.limits == b.limits;
  }
};

// What the API server does to a LimitRange item when it is stored
// (SetDefaults_LimitRangeItem), for a Container item: `default` gains `max` where unset;
// `defaultRequest` gains `default`, then `min`, where unset. Other types are unchanged.
LimitRangeItem DefaultedLimitRangeItem(const LimitRangeItem& item);

// Field rules: type is Container, Pod or PersistentVolumeClaim; quantities >= 0; min <= max,
// and default and defaultRequest within [min, max] (as the API server validates a LimitRange);
// ratios >= 1. Errors: InvalidArgument `spec.limits[i].<field>: <what>`.
[[nodiscard]] absl::Status ValidateLimitRange(const LimitRange& limit_range);

// One pod the LimitRanger admission plugin would refuse, and why (its message, e.g.
// `maximum cpu usage per Container is 2, but limit is 4`).
struct RejectedPod {
  std::string pod;          // namespace/name
  std::string limit_range;  // namespace/name
  std::string reason;
};

struct LimitRangeAdmission {
  // One line per admitted pod that got defaults, in pod order, e.g. `pod default/web-1: cpu,
  // memory request for container app; cpu limit for container app` (the text of the
  // kubernetes.io/limit-ranger annotation the plugin writes).
  std::vector<std::string> defaulted;
  std::vector<RejectedPod> rejected;
};

// Admits the snapshot's pods that were not admitted yet (those without metadata.uid: written
// by hand, or created by ExpandWorkloads) as the LimitRanger admission plugin does, with the
// LimitRanges of their namespace in name order:
//   defaults: for each Container item (DefaultedLimitRangeItem), every container and init
//     container without a limit of a `default` resource gets it, and without a request of a
//     `defaultRequest` resource gets it (requests already defaulted from limits, as the API
//     server defaults them before admission, are kept); the pod is annotated
//     kubernetes.io/limit-ranger as the plugin does;
//   checks: per container (Container items) and per pod (Pod items: containers summed, init
//     containers as their maximum) min <= request, min <= limit, limit present and <= max,
//     request <= max, limit/request <= maxLimitRequestRatio. A pod failing one is removed from
//     the snapshot and listed in `rejected` with the plugin's message.
// Pods with a uid were admitted when they were created: they are left as they are. No-op
// without LimitRanges. Complexity: O(P·C·L) for P pods of C containers and L items.
LimitRangeAdmission ApplyLimitRanges(ClusterSnapshot* snapshot);

}  // namespace karp

#endif  // KARP_LIMIT_RANGE_H_
