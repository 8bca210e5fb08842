// LimitRange defaults and checks as the LimitRanger admission plugin applies them
// (karp/limit_range.h; docs/design.md §2.6). Upstream: k8s.io/kubernetes
// plugin/pkg/admission/limitranger/admission.go (defaultContainerResourceRequirements,
// mergeContainerResources, PodValidateLimitFunc and its min/max/ratio constraints) and
// pkg/apis/core/v1/defaults.go (SetDefaults_LimitRangeItem).

#include "karp/limit_range.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "internal/strings.h"
#include "karp/cluster.h"
#include "karp/resources.h"
#include "model/resource_names.h"

namespace karp {
namespace {

using internal::StrCat;

constexpr std::string_view kAnnotationLimitRanger = "kubernetes.io/limit-ranger";

// Copies into `out` the entries of `from` whose names `out` lacks.
void FillMissing(const ResourceList& from, ResourceList* out) {
  from.ForEach([&](std::string_view name, int64_t value) {
    if (!out->Has(name)) out->Set(name, value);
  });
}

absl::Status FieldError(size_t i, std::string_view field, std::string_view what) {
  return absl::InvalidArgumentError(StrCat("spec.limits[", i, "].", field, ": ", what));
}

// The request and limit of one container, or the sums of a pod.
struct Usage {
  const ResourceList& requests;
  const ResourceList& limits;
};

// The plugin's three constraints for one item over one usage; "" when it holds.
std::string Check(const LimitRangeItem& item, std::string_view type, const Usage& u) {
  std::string error;
  item.min.ForEach([&](std::string_view r, int64_t min) {
    if (!error.empty()) return;
    const std::string enforced = FormatQuantity(min, r);
    if (!u.requests.Has(r)) {
      error = StrCat("minimum ", r, " usage per ", type, " is ", enforced,
                     ".  No request is specified");
    } else if (u.requests.Get(r) < min) {
      error = StrCat("minimum ", r, " usage per ", type, " is ", enforced, ", but request is ",
                     FormatQuantity(u.requests.Get(r), r));
    } else if (u.limits.Has(r) && u.limits.Get(r) < min) {
      error = StrCat("minimum ", r, " usage per ", type, " is ", enforced, ", but limit is ",
                     FormatQuantity(u.limits.Get(r), r));
    }
  });
  item.max.ForEach([&](std::string_view r, int64_t max) {
    if (!error.empty()) return;
    const std::string enforced = FormatQuantity(max, r);
    if (!u.limits.Has(r)) {
      error =
          StrCat("maximum ", r, " usage per ", type, " is ", enforced, ".  No limit is specified");
    } else if (u.limits.Get(r) > max) {
      error = StrCat("maximum ", r, " usage per ", type, " is ", enforced, ", but limit is ",
                     FormatQuantity(u.limits.Get(r), r));
    } else if (u.requests.Has(r) && u.requests.Get(r) > max) {
      error = StrCat("maximum ", r, " usage per ", type, " is ", enforced, ", but request is ",
                     FormatQuantity(u.requests.Get(r), r));
    }
  });
  item.max_limit_request_ratio.ForEach([&](std::string_view r, int64_t ratio_milli) {
    if (!error.empty()) return;
    const std::string enforced = FormatQuantity(ratio_milli, kResourceCpu);
    const int64_t req = u.requests.Has(r) ? u.requests.Get(r) : 0;
    const int64_t lim = u.limits.Has(r) ? u.limits.Get(r) : 0;
    if (req == 0) {
      error = StrCat(r, " max limit to request ratio per ", type, " is ", enforced,
                     ", but no request is specified or request is 0");
    } else if (lim == 0) {
      error = StrCat(r, " max limit to request ratio per ", type, " is ", enforced,
                     ", but no limit is specified or limit is 0");
    } else if (static_cast<double>(lim) / static_cast<double>(req) >
               static_cast<double>(ratio_milli) / 1000.0) {
      char observed[64];
      std::snprintf(observed, sizeof(observed), "%f",
                    static_cast<double>(lim) / static_cast<double>(req));
      error = StrCat(r, " max limit to request ratio per ", type, " is ", enforced,
                     ", but provided ratio is ", observed);
    }
  });
  return error;
}

// Sum of the regular containers, then the maximum with each init container (the plugin's
// podRequests and podLimits).
ResourceList PodTotal(const Pod& pod, ResourceList Container::*field) {
  ResourceList total;
  for (const Container& c : pod.containers) total.Add(c.*field);
  for (const Container& c : pod.init_containers) {
    (c.*field).ForEach([&](std::string_view name, int64_t value) {
      if (!total.Has(name) || total.Get(name) < value) total.Set(name, value);
    });
  }
  return total;
}

// Applies the Container items' defaults to `pod`; returns what was set as the plugin's
// annotation says it ("cpu, memory request for container app; cpu limit for container app"),
// "" when nothing was.
std::string ApplyDefaults(const std::vector<const LimitRangeItem*>& items, Pod* pod) {
  std::string text;
  auto add = [&](const std::vector<std::string>& names, std::string_view what) {
    if (names.empty()) return;
    std::string joined;
    for (const std::string& n : names) joined += (joined.empty() ? "" : ", ") + n;
    text += StrCat(text.empty() ? "" : "; ", joined, what);
  };
  auto merge = [&](Container& c, std::string_view kind) {
    std::vector<std::string> requests, limits;  // sorted: ForEach walks names in order
    for (const LimitRangeItem* item : items) {
      item->default_limit.ForEach([&](std::string_view name, int64_t value) {
        if (c.limits.Has(name)) return;
        c.limits.Set(name, value);
        limits.emplace_back(name);
      });
      item->default_request.ForEach([&](std::string_view name, int64_t value) {
        if (c.requests.Has(name)) return;
        c.requests.Set(name, value);
        requests.emplace_back(name);
      });
    }
    std::sort(requests.begin(), requests.end());
    std::sort(limits.begin(), limits.end());
    add(requests, StrCat(" request for ", kind, " ", c.name));
    add(limits, StrCat(" limit for ", kind, " ", c.name));
  };
  for (Container& c : pod->containers) merge(c, "container");
  for (Container& c : pod->init_containers) merge(c, "init container");
  return text;
}

}  // namespace

LimitRangeItem DefaultedLimitRangeItem(const LimitRangeItem& item) {
  LimitRangeItem out = item;
  if (item.type != "Container") return out;
  FillMissing(out.max, &out.default_limit);
  FillMissing(out.default_limit, &out.default_request);
  FillMissing(out.min, &out.default_request);
  return out;
}

absl::Status ValidateLimitRange(const LimitRange& lr) {
  if (lr.metadata.name.empty()) return absl::InvalidArgumentError("metadata.name: required");
  for (size_t i = 0; i < lr.limits.size(); ++i) {
    const LimitRangeItem& item = lr.limits[i];
    if (item.type != "Container" && item.type != "Pod" && item.type != "PersistentVolumeClaim") {
      return FieldError(i, "type",
                        StrCat("unsupported value \"", item.type,
                               "\"; expected Container, Pod or PersistentVolumeClaim"));
    }
    absl::Status s;
    auto non_negative = [&](const ResourceList& list, std::string_view field) {
      list.ForEach([&](std::string_view name, int64_t value) {
        if (s.ok() && value < 0) s = FieldError(i, StrCat(field, ".", name), "must be >= 0");
      });
    };
    // Names of Container and Pod items: what a container may request (the API server's
    // validateLimitRangeResourceName; PersistentVolumeClaim items are not checked here).
    auto names = [&](const ResourceList& list, std::string_view field) {
      list.ForEach([&](std::string_view name, int64_t) {
        if (!s.ok() || item.type == "PersistentVolumeClaim" || IsContainerResourceName(name)) {
          return;
        }
        s = FieldError(i, StrCat(field, ".", name),
                       "must be a standard resource for containers (cpu, memory, "
                       "ephemeral-storage, hugepages-<size>) or fully qualified "
                       "(example.com/name)");
      });
    };
    names(item.max, "max");
    names(item.min, "min");
    names(item.default_limit, "default");
    names(item.default_request, "defaultRequest");
    names(item.max_limit_request_ratio, "maxLimitRequestRatio");
    non_negative(item.max, "max");
    non_negative(item.min, "min");
    non_negative(item.default_limit, "default");
    non_negative(item.default_request, "defaultRequest");
    item.max_limit_request_ratio.ForEach([&](std::string_view name, int64_t v) {
      if (s.ok() && v < 1000) {
        s = FieldError(i, StrCat("maxLimitRequestRatio.", name), "ratio must be >= 1");
      }
    });
    if (!s.ok()) return s;
    // The API server's checks of a LimitRange (ValidateLimitRange), after its defaulting.
    const LimitRangeItem d = DefaultedLimitRangeItem(item);
    auto within = [&](const ResourceList& list, std::string_view field) {
      list.ForEach([&](std::string_view name, int64_t value) {
        if (!s.ok()) return;
        if (d.min.Has(name) && value < d.min.Get(name)) {
          s = FieldError(i, StrCat(field, ".", name),
                         StrCat(FormatQuantity(value, name), " is below min ",
                                FormatQuantity(d.min.Get(name), name)));
        } else if (d.max.Has(name) && value > d.max.Get(name)) {
          s = FieldError(i, StrCat(field, ".", name),
                         StrCat(FormatQuantity(value, name), " is above max ",
                                FormatQuantity(d.max.Get(name), name)));
        }
      });
    };
    within(d.max, "max");
    within(d.default_limit, "default");
    within(d.default_request, "defaultRequest");
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

LimitRangeAdmission ApplyLimitRanges(ClusterSnapshot* snapshot) {
  LimitRangeAdmission out;
  if (snapshot->limit_ranges.empty()) return out;
  // namespace -> (LimitRange key, defaulted item), LimitRanges in name order.
  std::map<std::string, std::vector<std::pair<std::string, LimitRangeItem>>> by_namespace;
  std::vector<const LimitRange*> ranges;
  for (const LimitRange& lr : snapshot->limit_ranges) ranges.push_back(&lr);
  std::sort(ranges.begin(), ranges.end(), [](const LimitRange* a, const LimitRange* b) {
    return a->metadata.name < b->metadata.name;
  });
  for (const LimitRange* lr : ranges) {
    const std::string ns = lr->metadata.namespace_.empty() ? "default" : lr->metadata.namespace_;
    for (const LimitRangeItem& item : lr->limits) {
      by_namespace[ns].emplace_back(StrCat(ns, "/", lr->metadata.name),
                                    DefaultedLimitRangeItem(item));
    }
  }
  std::vector<Pod> kept;
  kept.reserve(snapshot->pods.size());
  for (Pod& pod : snapshot->pods) {
    auto it =
        by_namespace.find(pod.metadata.namespace_.empty() ? "default" : pod.metadata.namespace_);
    if (!pod.metadata.uid.empty() || it == by_namespace.end()) {
      kept.push_back(std::move(pod));
      continue;
    }
    std::vector<const LimitRangeItem*> containers;
    for (const auto& [key, item] : it->second) {
      if (item.type == "Container") containers.push_back(&item);
    }
    const std::string set = ApplyDefaults(containers, &pod);
    if (!set.empty()) {
      pod.metadata.annotations[std::string(kAnnotationLimitRanger)] =
          StrCat("LimitRanger plugin set: ", set);
    }
    std::string reason, by;
    for (const auto& [key, item] : it->second) {
      if (item.type == "Container") {
        for (const std::vector<Container>* list : {&pod.init_containers, &pod.containers}) {
          for (const Container& c : *list) {
            if (reason.empty()) reason = Check(item, "Container", {c.requests, c.limits});
          }
        }
      } else if (item.type == "Pod") {
        const ResourceList requests = PodTotal(pod, &Container::requests);
        const ResourceList limits = PodTotal(pod, &Container::limits);
        reason = Check(item, "Pod", {requests, limits});
      }
      if (!reason.empty()) {
        by = key;
        break;
      }
    }
    if (reason.empty()) {
      if (!set.empty()) out.defaulted.push_back(StrCat("pod ", pod.Key(), ": ", set));
      kept.push_back(std::move(pod));
    } else {
      out.rejected.push_back({pod.Key(), by, reason});
    }
  }
  snapshot->pods = std::move(kept);
  return out;
}

}  // namespace karp
