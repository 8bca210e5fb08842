// Workload objects and their expansion into the pods their controllers would create
// (karp/workloads.h; docs/design.md §2.6).

#include "karp/workloads.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/cluster.h"
#include "karp/objects.h"

namespace karp {
namespace {

using internal::StrCat;

struct KindNames {
  WorkloadKind kind;
  std::string_view name;
  std::string_view api_version;
};
constexpr KindNames kKindNames[] = {
    {WorkloadKind::kDeployment, "Deployment", "apps/v1"},
    {WorkloadKind::kReplicaSet, "ReplicaSet", "apps/v1"},
    {WorkloadKind::kStatefulSet, "StatefulSet", "apps/v1"},
    {WorkloadKind::kJob, "Job", "batch/v1"},
    {WorkloadKind::kCronJob, "CronJob", "batch/v1"},
    {WorkloadKind::kReplicationController, "ReplicationController", "v1"},
};

const KindNames& NamesOf(WorkloadKind kind) {
  for (const KindNames& k : kKindNames) {
    if (k.kind == kind) return k;
  }
  return kKindNames[0];
}

// The alphabet of Kubernetes' generated names (k8s.io/apimachinery/pkg/util/rand): no vowels,
// no 0, 1 or 3, so that no word is spelled.
constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";

uint64_t Fnv1a64(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

// Five characters of the alphabet from a digest of `seed` (the form of a generateName suffix).
std::string Suffix(std::string_view seed) {
  uint64_t h = Fnv1a64(seed);
  std::string out;
  for (int i = 0; i < 5; ++i) {
    out += kAlphabet[h % kAlphabet.size()];
    h /= kAlphabet.size();
  }
  return out;
}

// The form of a pod-template-hash: the decimal digits of a 32-bit digest, each mapped through
// the alphabet as rand.SafeEncodeString does.
std::string TemplateHash(std::string_view seed) {
  const std::string digits = std::to_string(static_cast<uint32_t>(Fnv1a64(seed) >> 32));
  std::string out;
  for (char c : digits) out += kAlphabet[static_cast<unsigned char>(c) % kAlphabet.size()];
  return out;
}

// What the template hash digests: the workload's identity and the template fields that make
// its pods differ (labels, annotations, containers' names and requests, node selector).
std::string TemplateSeed(const Workload& w) {
  std::string seed = StrCat(w.metadata.namespace_, "/", w.metadata.name, "|");
  const Pod& t = w.pod_template;
  for (const auto& [k, v] : t.metadata.labels) seed += StrCat(k, "=", v, ",");
  seed += "|";
  for (const auto& [k, v] : t.metadata.annotations) seed += StrCat(k, "=", v, ",");
  seed += "|";
  for (const Container& c : t.containers) seed += StrCat(c.name, ":", c.requests.ToString(), ",");
  for (const Container& c : t.init_containers) {
    seed += StrCat(c.name, ":", c.requests.ToString(), ",");
  }
  seed += "|";
  for (const auto& [k, v] : t.node_selector) seed += StrCat(k, "=", v, ",");
  return seed;
}

// The owner references that count: the controller references, or every reference when none
// is marked controller (hand-written manifests often leave `controller` out).
template <typename Fn>
void ForEachOwnerRef(const ObjectMeta& meta, Fn&& fn) {
  const bool any_controller =
      std::any_of(meta.owner_references.begin(), meta.owner_references.end(),
                  [](const OwnerReference& r) { return r.controller; });
  for (const OwnerReference& r : meta.owner_references) {
    if (!any_controller || r.controller) fn(r);
  }
}

bool Active(const Pod& p) { return !p.IsTerminal() && !p.IsTerminating(); }

// Indexes listed in a Job's status.completedIndexes ("1,3-5"); malformed parts are ignored
// (the field is the controller's, not the user's).
std::vector<bool> CompletedIndexes(std::string_view text, int32_t completions) {
  std::vector<bool> done(static_cast<size_t>(std::max(completions, 0)), false);
  size_t at = 0;
  while (at < text.size()) {
    size_t comma = text.find(',', at);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view part = text.substr(at, comma - at);
    at = comma + 1;
    const size_t dash = part.find('-');
    int64_t lo = 0, hi = 0;
    auto parse = [](std::string_view s, int64_t* out) {
      if (s.empty() || s.size() > 9) return false;
      int64_t v = 0;
      for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
      }
      *out = v;
      return true;
    };
    const bool ok = dash == std::string_view::npos
                        ? parse(part, &lo) && parse(part, &hi)
                        : parse(part.substr(0, dash), &lo) && parse(part.substr(dash + 1), &hi);
    if (!ok) continue;
    for (int64_t i = lo; i <= hi && i < completions; ++i) done[static_cast<size_t>(i)] = true;
  }
  return done;
}

// Builds the expansion: indexes of the snapshot, then the pods, appended at the end so that a
// failure (too many pods) leaves the snapshot unchanged.
class Expander {
 public:
  Expander(ClusterSnapshot* snap, const WorkloadOptions& options)
      : snap_(*snap), options_(options) {
    for (size_t i = 0; i < snap_.workloads.size(); ++i) Index(i);
    names_.reserve(snap_.pods.size());
    for (const Pod& p : snap_.pods) {
      names_.insert(StrCat(p.metadata.namespace_, "/", p.metadata.name));
      if (!Active(p)) continue;
      if (std::optional<size_t> owner = Owner(p.metadata, std::nullopt)) ++active_[*owner];
    }
    for (const PersistentVolumeClaim& c : snap_.persistent_volume_claims) {
      claims_.insert(StrCat(c.metadata.namespace_, "/", c.metadata.name));
    }
  }

  absl::Status Run() {
    // Deployments first: they may add ReplicaSets, which the second pass must see as owned.
    const size_t n = snap_.workloads.size();
    for (size_t i = 0; i < n; ++i) {
      if (snap_.workloads[i].kind != WorkloadKind::kReplicaSet) continue;
      if (std::optional<size_t> d = Owner(snap_.workloads[i].metadata, WorkloadKind::kDeployment)) {
        replica_sets_[*d].push_back(i);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (snap_.workloads[i].kind == WorkloadKind::kDeployment) {
        absl::Status s = Deployment(i);
        if (!s.ok()) return s;
      }
    }
    for (size_t i = 0; i < snap_.workloads.size(); ++i) {
      absl::Status s = Other(i);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // Commits to the snapshot.
  WorkloadExpansion Commit() {
    for (Workload& w : new_workloads_) snap_.workloads.push_back(std::move(w));
    snap_.pods.reserve(snap_.pods.size() + new_pods_.size());
    for (Pod& p : new_pods_) snap_.pods.push_back(std::move(p));
    for (PersistentVolumeClaim& c : new_claims_) {
      snap_.persistent_volume_claims.push_back(std::move(c));
    }
    return std::move(report_);
  }

 private:
  const Workload& At(size_t i) const {
    return i < snap_.workloads.size() ? snap_.workloads[i]
                                      : new_workloads_[i - snap_.workloads.size()];
  }
  size_t Count() const { return snap_.workloads.size() + new_workloads_.size(); }

  // Makes workload `i` findable as an owner.
  void Index(size_t i) {
    const Workload& w = At(i);
    if (!w.metadata.uid.empty()) by_uid_.emplace(w.metadata.uid, i);
    by_name_.emplace(
        StrCat(w.metadata.namespace_, "/", WorkloadKindName(w.kind), "/", w.metadata.name), i);
  }

  // The workload (of `kind` when set) that `meta` names as its controller: by uid when both
  // carry one, else by kind and name in the same namespace.
  std::optional<size_t> Owner(const ObjectMeta& meta, std::optional<WorkloadKind> kind) const {
    std::optional<size_t> found;
    ForEachOwnerRef(meta, [&](const OwnerReference& r) {
      if (found) return;
      if (!r.uid.empty()) {
        if (auto it = by_uid_.find(r.uid); it != by_uid_.end()) {
          const Workload& w = At(it->second);
          if (WorkloadKindName(w.kind) == r.kind && w.metadata.namespace_ == meta.namespace_ &&
              (!kind || w.kind == *kind)) {
            found = it->second;
          }
          return;
        }
      }
      auto it = by_name_.find(StrCat(meta.namespace_, "/", r.kind, "/", r.name));
      if (it == by_name_.end()) return;
      const Workload& w = At(it->second);
      if (kind && w.kind != *kind) return;
      if (!r.uid.empty() && !w.metadata.uid.empty() && r.uid != w.metadata.uid) return;
      found = it->second;
    });
    return found;
  }

  // Active pods workload `i` owns, in the snapshot and among the pods made so far.
  int64_t ActivePods(size_t i) const {
    auto it = active_.find(i);
    return it == active_.end() ? 0 : it->second;
  }

  // Whether a Deployment of the snapshot owns ReplicaSet `rs` (then the Deployment sizes it).
  bool OwnedByDeployment(const Workload& rs) const {
    return Owner(rs.metadata, WorkloadKind::kDeployment).has_value();
  }

  absl::Status Budget(const Workload& w, int64_t pods) {
    if (pods > options_.max_pods - made_) {
      return absl::ResourceExhaustedError(
          StrCat(absl::AsciiStrToLower(std::string(WorkloadKindName(w.kind))), " ", w.Key(),
                 ": creating ", pods, " pods would exceed the limit of ", options_.max_pods,
                 " pods created from workloads"));
    }
    made_ += pods;
    return absl::OkStatus();
  }

  absl::Status Deployment(size_t index) {
    const Workload d = At(index);  // a copy: new_workloads_ may grow
    const int64_t want = d.replicas.value_or(1);
    int64_t active = 0;
    std::optional<size_t> newest;
    for (size_t rs : replica_sets_[index]) {
      active += ActivePods(rs);
      if (!newest || Newer(At(rs), At(*newest))) newest = rs;
    }
    if (active >= want) return absl::OkStatus();
    KARP_RETURN_IF_ERROR(Budget(d, want - active));
    if (!newest) {
      Workload rs = ReplicaSetFor(d, want);
      if (absl::Status s = ValidateWorkload(rs); !s.ok()) {
        // The API server would refuse it (a name too long for the hash): nothing is created.
        Refused(d, s);
        return absl::OkStatus();
      }
      new_workloads_.push_back(std::move(rs));
      newest = Count() - 1;
      Index(*newest);
    }
    const Workload rs = At(*newest);
    for (int64_t k = 0; k < want - active; ++k) new_pods_.push_back(GeneratedPod(rs, *newest, ""));
    Created(d, want - active);
    return absl::OkStatus();
  }

  // A ReplicaSet whose `deployment.kubernetes.io/revision` is higher, then newer, then whose
  // name sorts later.
  static bool Newer(const Workload& a, const Workload& b) {
    auto revision = [](const Workload& w) -> int64_t {
      auto it = w.metadata.annotations.find("deployment.kubernetes.io/revision");
      if (it == w.metadata.annotations.end() || it->second.empty() || it->second.size() > 18) {
        return -1;
      }
      int64_t v = 0;
      for (char c : it->second) {
        if (c < '0' || c > '9') return -1;
        v = v * 10 + (c - '0');
      }
      return v;
    };
    const int64_t ra = revision(a), rb = revision(b);
    if (ra != rb) return ra > rb;
    if (a.metadata.creation_timestamp != b.metadata.creation_timestamp) {
      return a.metadata.creation_timestamp > b.metadata.creation_timestamp;
    }
    return a.metadata.name > b.metadata.name;
  }

  static Workload ReplicaSetFor(const Workload& d, int64_t replicas) {
    Workload rs;
    rs.kind = WorkloadKind::kReplicaSet;
    const std::string hash = TemplateHash(TemplateSeed(d));
    rs.metadata.name = StrCat(d.metadata.name, "-", hash);
    rs.metadata.namespace_ = d.metadata.namespace_;
    rs.metadata.creation_timestamp = d.metadata.creation_timestamp;
    rs.metadata.labels = d.pod_template.metadata.labels;
    rs.metadata.labels["pod-template-hash"] = hash;
    rs.metadata.annotations["deployment.kubernetes.io/revision"] = "1";
    rs.metadata.owner_references.push_back(
        {"apps/v1", "Deployment", d.metadata.name, d.metadata.uid, true});
    rs.replicas = static_cast<int32_t>(replicas);
    rs.selector = d.selector;
    if (rs.selector) rs.selector->match_labels["pod-template-hash"] = hash;
    rs.pod_template = d.pod_template;
    rs.pod_template.metadata.labels["pod-template-hash"] = hash;
    return rs;
  }

  absl::Status Other(size_t index) {
    const Workload w = At(index);
    switch (w.kind) {
      case WorkloadKind::kDeployment:
        return absl::OkStatus();
      case WorkloadKind::kReplicaSet:
      case WorkloadKind::kReplicationController:
        if (w.kind == WorkloadKind::kReplicaSet && OwnedByDeployment(w)) return absl::OkStatus();
        return Replicated(w, index);
      case WorkloadKind::kStatefulSet:
        return StatefulSet(w, index);
      case WorkloadKind::kJob:
        return Job(w, index);
      case WorkloadKind::kCronJob:
        report_.notes.push_back(w.suspended
                                    ? StrCat("CronJob ", w.Key(), ": suspended; no pods")
                                    : StrCat("CronJob ", w.Key(), ": no pods until its schedule \"",
                                             w.schedule, "\" fires"));
        return absl::OkStatus();
    }
    return absl::OkStatus();
  }

  absl::Status Replicated(const Workload& w, size_t index) {
    const int64_t missing = w.replicas.value_or(1) - ActivePods(index);
    if (missing <= 0) return absl::OkStatus();
    KARP_RETURN_IF_ERROR(Budget(w, missing));
    for (int64_t k = 0; k < missing; ++k) new_pods_.push_back(GeneratedPod(w, index, ""));
    Created(w, missing);
    return absl::OkStatus();
  }

  absl::Status StatefulSet(const Workload& w, size_t index) {
    const int64_t replicas = w.replicas.value_or(1);
    KARP_RETURN_IF_ERROR(Budget(w, std::max<int64_t>(replicas - ActivePods(index), 0)));
    int64_t made = 0;
    const size_t claims_before = new_claims_.size();
    const std::string revision = StrCat(w.metadata.name, "-", TemplateHash(TemplateSeed(w)));
    for (int64_t k = 0; k < replicas; ++k) {
      const int64_t ordinal = w.start_ordinal + k;
      const std::string name = StrCat(w.metadata.name, "-", ordinal);
      if (names_.count(StrCat(w.metadata.namespace_, "/", name)) != 0) continue;
      Pod pod = PodFrom(w, index, name);
      pod.metadata.labels["statefulset.kubernetes.io/pod-name"] = name;
      pod.metadata.labels["apps.kubernetes.io/pod-index"] = std::to_string(ordinal);
      pod.metadata.labels["controller-revision-hash"] = revision;
      for (const VolumeClaimTemplate& t : w.volume_claim_templates) {
        const std::string claim = StrCat(t.name, "-", name);
        AddClaim(w, t, claim);
        auto same = [&](const PodVolume& v) { return v.name == t.name; };
        pod.volumes.erase(std::remove_if(pod.volumes.begin(), pod.volumes.end(), same),
                          pod.volumes.end());
        pod.volumes.push_back(PodVolume{t.name, claim, false});
      }
      new_pods_.push_back(std::move(pod));
      ++made;
    }
    if (made > 0) Created(w, made, claims_before);
    return absl::OkStatus();
  }

  void AddClaim(const Workload& w, const VolumeClaimTemplate& t, const std::string& name) {
    if (!claims_.insert(StrCat(w.metadata.namespace_, "/", name)).second) return;
    PersistentVolumeClaim c;
    c.metadata.name = name;
    c.metadata.namespace_ = w.metadata.namespace_;
    c.metadata.labels = t.labels;
    if (w.selector) {
      for (const auto& [k, v] : w.selector->match_labels) c.metadata.labels[k] = v;
    }
    c.storage_class_name = t.storage_class_name;
    c.phase = std::string(kClaimPending);
    new_claims_.push_back(std::move(c));
  }

  absl::Status Job(const Workload& w, size_t index) {
    if (w.suspended || w.finished) return absl::OkStatus();
    const int64_t parallelism = w.parallelism.value_or(1);
    int64_t want = parallelism;
    if (w.completions) {
      want = std::min<int64_t>(parallelism, std::max<int64_t>(*w.completions - w.succeeded, 0));
    } else if (w.succeeded > 0) {
      want = 0;  // a work queue: once one pod succeeded, no new pods start
    }
    const int64_t missing = want - ActivePods(index);
    if (missing <= 0) return absl::OkStatus();
    KARP_RETURN_IF_ERROR(Budget(w, missing));
    if (w.completion_mode != "Indexed" || !w.completions) {
      for (int64_t k = 0; k < missing; ++k) new_pods_.push_back(GeneratedPod(w, index, ""));
      Created(w, missing);
      return absl::OkStatus();
    }
    // Indexed: the lowest indexes neither completed nor held by an active pod.
    std::vector<bool> taken = CompletedIndexes(w.completed_indexes, *w.completions);
    for (const Pod& p : snap_.pods) {
      if (!Active(p) || Owner(p.metadata, WorkloadKind::kJob) != index) continue;
      auto it = p.metadata.annotations.find("batch.kubernetes.io/job-completion-index");
      if (it == p.metadata.annotations.end()) continue;
      std::vector<bool> one = CompletedIndexes(it->second, *w.completions);
      for (size_t i = 0; i < one.size(); ++i) taken[i] = taken[i] || one[i];
    }
    int64_t made = 0;
    for (size_t i = 0; i < taken.size() && made < missing; ++i) {
      if (taken[i]) continue;
      Pod pod = GeneratedPod(w, index, StrCat(i, "-"));
      pod.metadata.annotations["batch.kubernetes.io/job-completion-index"] = std::to_string(i);
      pod.metadata.labels["batch.kubernetes.io/job-completion-index"] = std::to_string(i);
      new_pods_.push_back(std::move(pod));
      ++made;
    }
    if (made > 0) Created(w, made);
    return absl::OkStatus();
  }

  // A pod of `owner` named `<owner>-<infix><5 characters>`, the first such name not taken; as
  // the API server's generateName, a prefix longer than 58 characters is cut to 58.
  Pod GeneratedPod(const Workload& owner, size_t index, const std::string& infix) {
    constexpr size_t kMaxGeneratedPrefix = 63 - 5;
    std::string prefix = StrCat(owner.metadata.name, "-", infix);
    if (prefix.size() > kMaxGeneratedPrefix) prefix.resize(kMaxGeneratedPrefix);
    std::string name;
    for (int64_t counter = 0;; ++counter) {
      name = StrCat(prefix, Suffix(StrCat(owner.metadata.namespace_, "/", prefix, "#", counter)));
      if (names_.count(StrCat(owner.metadata.namespace_, "/", name)) == 0) break;
    }
    Pod pod = PodFrom(owner, index, name);
    if (owner.kind == WorkloadKind::kJob) {
      pod.metadata.labels["batch.kubernetes.io/job-name"] = owner.metadata.name;
      pod.metadata.labels["job-name"] = owner.metadata.name;
      if (!owner.metadata.uid.empty()) {
        pod.metadata.labels["batch.kubernetes.io/controller-uid"] = owner.metadata.uid;
        pod.metadata.labels["controller-uid"] = owner.metadata.uid;
      }
    }
    return pod;
  }

  // The template as a pending pod `name`, owned by `owner`; the name is taken.
  Pod PodFrom(const Workload& owner, size_t index, const std::string& name) {
    names_.insert(StrCat(owner.metadata.namespace_, "/", name));
    ++active_[index];
    Pod pod = owner.pod_template;
    pod.metadata.name = name;
    pod.metadata.namespace_ = owner.metadata.namespace_;
    pod.metadata.uid.clear();
    pod.metadata.creation_timestamp = owner.metadata.creation_timestamp;
    pod.metadata.deletion_timestamp.reset();
    pod.metadata.owner_references = {OwnerReference{std::string(WorkloadApiVersion(owner.kind)),
                                                    std::string(WorkloadKindName(owner.kind)),
                                                    owner.metadata.name, owner.metadata.uid, true}};
    pod.node_name.clear();
    pod.phase = "Pending";
    pod.start_time.reset();
    return pod;
  }

  // The `pods` last pods made for `w` are kept when the API server would accept each (their
  // names and the labels derived from names can be too long, their template labels invalid);
  // otherwise none is, with the workload's claims made since `claims_before`, and a note says
  // why.
  void Created(const Workload& w, int64_t pods, size_t claims_before = SIZE_MAX) {
    const size_t first = new_pods_.size() - static_cast<size_t>(pods);
    for (size_t i = first; i < new_pods_.size(); ++i) {
      if (absl::Status s = ValidatePod(new_pods_[i]); !s.ok()) {
        new_pods_.resize(first);
        if (claims_before != SIZE_MAX) new_claims_.resize(claims_before);
        made_ -= pods;
        Refused(w, s);
        return;
      }
    }
    report_.created.push_back(
        StrCat(WorkloadKindName(w.kind), " ", w.Key(), ": ", pods, pods == 1 ? " pod" : " pods"));
    report_.pods_created += static_cast<int>(pods);
  }

  void Refused(const Workload& w, const absl::Status& why) {
    report_.notes.push_back(StrCat(WorkloadKindName(w.kind), " ", w.Key(),
                                   ": creates no pods: the API server would refuse them (",
                                   internal::Message(why), ")"));
  }

  ClusterSnapshot& snap_;
  const WorkloadOptions& options_;
  absl::flat_hash_map<std::string, size_t> by_uid_;   // workload uid -> index
  absl::flat_hash_map<std::string, size_t> by_name_;  // "<namespace>/<kind>/<name>" -> index
  absl::flat_hash_map<size_t, int64_t> active_;       // workload index -> active pods owned
  // Deployment index -> the indexes of the ReplicaSets it owns, in input order.
  absl::flat_hash_map<size_t, std::vector<size_t>> replica_sets_;
  absl::flat_hash_set<std::string> names_;   // "<namespace>/<pod name>" taken
  absl::flat_hash_set<std::string> claims_;  // "<namespace>/<claim name>" existing
  std::vector<Workload> new_workloads_;
  std::vector<Pod> new_pods_;
  std::vector<PersistentVolumeClaim> new_claims_;
  int64_t made_ = 0;
  WorkloadExpansion report_;
};

}  // namespace

std::string_view WorkloadKindName(WorkloadKind kind) { return NamesOf(kind).name; }
std::string_view WorkloadApiVersion(WorkloadKind kind) { return NamesOf(kind).api_version; }

std::optional<WorkloadKind> ParseWorkloadKind(std::string_view name) {
  for (const KindNames& k : kKindNames) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

std::string Workload::Key() const { return StrCat(metadata.namespace_, "/", metadata.name); }

bool operator==(const Workload& a, const Workload& b) {
  return a.kind == b.kind && a.metadata == b.metadata && a.replicas == b.replicas &&
         a.selector == b.selector && a.pod_template == b.pod_template &&
         a.volume_claim_templates == b.volume_claim_templates &&
         a.start_ordinal == b.start_ordinal && a.parallelism == b.parallelism &&
         a.completions == b.completions && a.completion_mode == b.completion_mode &&
         a.succeeded == b.succeeded && a.completed_indexes == b.completed_indexes &&
         a.finished == b.finished && a.suspended == b.suspended && a.schedule == b.schedule;
}

absl::StatusOr<WorkloadExpansion> ExpandWorkloads(ClusterSnapshot* snapshot,
                                                  const WorkloadOptions& options) {
  if (snapshot->workloads.empty()) return WorkloadExpansion{};
  Expander expander(snapshot, options);
  if (absl::Status s = expander.Run(); !s.ok()) return s;
  return expander.Commit();
}

}  // namespace karp
