// File: karp/workloads.h
//
// Workload objects — Deployment, ReplicaSet, StatefulSet, Job, CronJob (`apps/v1`,
// `batch/v1`) and ReplicationController (`v1`) — and ExpandWorkloads(), which turns them into
// the pending pods their controllers would create (docs/design.md §2.6): the desired replicas
// minus the pods each already owns, named, labelled and owned as the controllers name, label
// and own them, so that topology spread, affinity and PDBs see them as they would see the
// real pods.
//
// Example: a manifest file with `Deployment inflate` (replicas 5) and nothing else:
//   absl::StatusOr<karp::WorkloadExpansion> e = karp::ExpandWorkloads(&snapshot);
//   // snapshot.workloads gains ReplicaSet inflate-<hash>; snapshot.pods gains its 5 pods
//   // inflate-<hash>-<5 characters>; e->created == {"Deployment default/inflate: 5 pods"}.
//
// Thread-safety: value types; thread-compatible. ExpandWorkloads is thread-compatible.

#ifndef KARP_WORKLOADS_H_
#define KARP_WORKLOADS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/objects.h"
#include "karp/storage.h"

namespace karp {

struct ClusterSnapshot;

enum class WorkloadKind {
  kDeployment,             // apps/v1
  kReplicaSet,             // apps/v1
  kStatefulSet,            // apps/v1
  kJob,                    // batch/v1
  kCronJob,                // batch/v1
  kReplicationController,  // v1
};

// "Deployment", "ReplicaSet", ... and the apiVersion of each ("apps/v1", "batch/v1", "v1").
std::string_view WorkloadKindName(WorkloadKind kind);
std::string_view WorkloadApiVersion(WorkloadKind kind);
// The kind named `name` (exact spelling), or nullopt.
std::optional<WorkloadKind> ParseWorkloadKind(std::string_view name);

// A PersistentVolumeClaim template of a StatefulSet (spec.volumeClaimTemplates[]).
struct VolumeClaimTemplate {
  std::string name;  // metadata.name: the volume name the pods mount it as
  std::map<std::string, std::string> labels;
  std::string storage_class_name;  // spec.storageClassName; empty: none

  friend bool operator==(const VolumeClaimTemplate& a, const VolumeClaimTemplate& b) {
    return a.name == b.name && a.labels == b.labels && a.storage_class_name == b.storage_class_name;
  }
};

struct Workload {
  WorkloadKind kind = WorkloadKind::kDeployment;
  ObjectMeta metadata;  // namespaced; namespace defaults to "default"
  // spec.replicas (Deployment, ReplicaSet, StatefulSet, ReplicationController); unset: 1.
  std::optional<int32_t> replicas;
  // spec.selector. A ReplicationController's map selector becomes match_labels; unset there,
  // it is the template's labels (the API server's defaulting).
  std::optional<LabelSelector> selector;
  // spec.template (spec.jobTemplate.spec.template for a CronJob), as a pod: metadata
  // (labels, annotations) and spec; metadata.namespace is the workload's.
  Pod pod_template;
  // StatefulSet: spec.volumeClaimTemplates and spec.ordinals.start.
  std::vector<VolumeClaimTemplate> volume_claim_templates;
  int32_t start_ordinal = 0;
  // Job (and a CronJob's job template): spec.parallelism (unset: 1), spec.completions
  // (unset: as many as succeed), spec.completionMode ("NonIndexed" or "Indexed"), and
  // status.succeeded.
  std::optional<int32_t> parallelism;
  std::optional<int32_t> completions;
  std::string completion_mode;
  int32_t succeeded = 0;
  // Job: status.completedIndexes of an Indexed Job ("0-2,5"), and whether a Complete or Failed
  // condition is True (a finished Job creates nothing).
  std::string completed_indexes;
  bool finished = false;
  // spec.suspend (Job, CronJob): no pods are created.
  bool suspended = false;
  // CronJob: spec.schedule, for the message that it creates no pods until it fires.
  std::string schedule;

  // `namespace/name`.
  std::string Key() const;

  friend bool operator==(const Workload& a, const Workload& b);
};

// Field rules the API server enforces: replicas, parallelism, completions and the start
// ordinal >= 0; Deployments, ReplicaSets and StatefulSets have a non-empty spec.selector that
// selects their template's labels; an Indexed Job has completions; the template passes the
// pod spec rules of ValidatePod. Errors: InvalidArgument `<field path>: <what>`.
[[nodiscard]] absl::Status ValidateWorkload(const Workload& workload);

struct WorkloadOptions {
  // Most pods one expansion may create; more is ResourceExhausted naming the workload (a
  // typo'd `replicas: 2000000000` must not exhaust memory). Default: 1,000,000.
  int64_t max_pods = 1000000;
};

// What ExpandWorkloads did, in input order of the workloads, for people to read.
struct WorkloadExpansion {
  // One line per workload that gained pods: `Deployment default/inflate: 5 pods`.
  std::vector<std::string> created;
  // One line per workload that creates nothing now and why, e.g. `CronJob default/report:
  // no pods until its schedule "0 * * * *" fires`, `Job default/once: suspended`.
  std::vector<std::string> notes;
  int pods_created = 0;
};

// Adds to `snapshot` the pods (and a StatefulSet's PersistentVolumeClaims) that the
// controllers of its workloads would create now:
//   - Deployment: its ReplicaSets (controller ownerReference) hold its pods; when they hold
//     fewer active pods than spec.replicas, the newest ReplicaSet (highest
//     `deployment.kubernetes.io/revision` annotation, then newest, then name) gets the
//     difference; without one, a ReplicaSet `<deployment>-<hash>` is added to the workloads
//     first (hash: a deterministic digest of the template, 10 characters of the controllers'
//     alphabet; pods carry `pod-template-hash: <hash>`).
//   - ReplicaSet, ReplicationController (not owned by a Deployment of the snapshot):
//     spec.replicas minus the active pods they own, named `<owner>-<5 characters>`.
//   - StatefulSet: every missing ordinal in [start, start + replicas), named `<set>-<ordinal>`,
//     with labels statefulset.kubernetes.io/pod-name and apps.kubernetes.io/pod-index, and
//     one claim `<template>-<set>-<ordinal>` per volumeClaimTemplate unless it exists.
//   - Job: min(parallelism, completions - succeeded) minus its active pods (parallelism
//     alone without completions), named `<job>-<5 characters>` (`<job>-<index>-<5
//     characters>` when Indexed), labelled batch.kubernetes.io/job-name and job-name.
//   - CronJob: nothing (a note says so); Jobs it already created are expanded as Jobs.
// A pod is owned through a controller ownerReference (by uid when both carry one, else by
// kind and name in the same namespace); active means not terminal and not terminating.
// Generated pods have no uid and no node; their 5-character suffixes are a deterministic
// digest of the owner and a counter, skipping names already taken. Running it twice adds
// nothing the second time. Complexity: O(P + W·R) for P pods, W workloads and R replicas.
// Errors: ResourceExhausted when more than options.max_pods pods would be created (the
// snapshot is then unchanged).
[[nodiscard]] absl::StatusOr<WorkloadExpansion> ExpandWorkloads(
    ClusterSnapshot* snapshot, const WorkloadOptions& options = {});

}  // namespace karp

#endif  // KARP_WORKLOADS_H_
