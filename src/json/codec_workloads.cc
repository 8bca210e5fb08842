// karp::json: workload objects of a snapshot (karp/workloads.h) — Deployment, ReplicaSet,
// StatefulSet, Job, CronJob and ReplicationController — read and written in their Kubernetes
// form (docs/formats.md §1.3).

#include <string>
#include <utility>

#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_fields.h"

namespace karp::json::codec_internal {
namespace {

// spec.volumeClaimTemplates of a StatefulSet.
absl::Status ReadClaimTemplates(const FieldReader& spec, Workload* w) {
  return spec.Objects("volumeClaimTemplates", [&](const FieldReader& t) -> absl::Status {
    VolumeClaimTemplate vct;
    KARP_ASSIGN_OR_RETURN(FieldReader meta, t.Object("metadata"));
    KARP_RETURN_IF_ERROR(meta.RequiredString("name", &vct.name));
    KARP_RETURN_IF_ERROR(meta.StringMap("labels", &vct.labels));
    KARP_ASSIGN_OR_RETURN(FieldReader tspec, t.Object("spec"));
    KARP_RETURN_IF_ERROR(tspec.String("storageClassName", &vct.storage_class_name));
    w->volume_claim_templates.push_back(std::move(vct));
    return absl::OkStatus();
  });
}

// A Job's spec (of a Job, or the jobTemplate of a CronJob).
absl::Status ReadJobSpec(const FieldReader& spec, Workload* w) {
  KARP_RETURN_IF_ERROR(spec.Int32("parallelism", &w->parallelism));
  KARP_RETURN_IF_ERROR(spec.Int32("completions", &w->completions));
  KARP_RETURN_IF_ERROR(spec.String("completionMode", &w->completion_mode));
  bool suspend = false;
  KARP_RETURN_IF_ERROR(spec.Bool("suspend", &suspend));
  w->suspended = w->suspended || suspend;
  KARP_ASSIGN_OR_RETURN(FieldReader tmpl, spec.Object("template"));
  return ReadPodTemplate(tmpl, w->metadata.namespace_, &w->pod_template);
}

}  // namespace

absl::Status DecodeWorkload(const FieldReader& item, WorkloadKind kind, Workload* w) {
  w->kind = kind;
  KARP_ASSIGN_OR_RETURN(FieldReader meta, item.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(meta, &w->metadata));
  if (w->metadata.namespace_.empty()) w->metadata.namespace_ = "default";
  KARP_ASSIGN_OR_RETURN(FieldReader spec, item.Object("spec"));
  switch (kind) {
    case WorkloadKind::kJob: {
      KARP_RETURN_IF_ERROR(ReadJobSpec(spec, w));
      KARP_ASSIGN_OR_RETURN(FieldReader status, item.Object("status"));
      KARP_RETURN_IF_ERROR(status.Int32("succeeded", &w->succeeded));
      KARP_RETURN_IF_ERROR(status.String("completedIndexes", &w->completed_indexes));
      return status.Objects("conditions", [&](const FieldReader& c) -> absl::Status {
        std::string type, value;
        KARP_RETURN_IF_ERROR(c.String("type", &type));
        KARP_RETURN_IF_ERROR(c.String("status", &value));
        if ((type == "Complete" || type == "Failed") && value == "True") w->finished = true;
        return absl::OkStatus();
      });
    }
    case WorkloadKind::kCronJob: {
      KARP_RETURN_IF_ERROR(spec.String("schedule", &w->schedule));
      KARP_RETURN_IF_ERROR(spec.Bool("suspend", &w->suspended));
      KARP_ASSIGN_OR_RETURN(FieldReader job, spec.Object("jobTemplate"));
      KARP_ASSIGN_OR_RETURN(FieldReader job_spec, job.Object("spec"));
      return ReadJobSpec(job_spec, w);
    }
    case WorkloadKind::kReplicationController: {
      // spec.selector is a plain map here; unset, the template's labels.
      std::map<std::string, std::string> selector;
      KARP_RETURN_IF_ERROR(spec.StringMap("selector", &selector));
      KARP_RETURN_IF_ERROR(spec.Int32("replicas", &w->replicas));
      KARP_ASSIGN_OR_RETURN(FieldReader tmpl, spec.Object("template"));
      KARP_RETURN_IF_ERROR(ReadPodTemplate(tmpl, w->metadata.namespace_, &w->pod_template));
      LabelSelector sel;
      sel.match_labels = selector.empty() ? w->pod_template.metadata.labels : selector;
      w->selector = std::move(sel);
      return absl::OkStatus();
    }
    default:
      break;
  }
  // Deployment, ReplicaSet, StatefulSet.
  KARP_RETURN_IF_ERROR(spec.Int32("replicas", &w->replicas));
  KARP_RETURN_IF_ERROR(ReadSelector(spec, "selector", &w->selector));
  if (kind == WorkloadKind::kStatefulSet) {
    KARP_RETURN_IF_ERROR(ReadClaimTemplates(spec, w));
    KARP_ASSIGN_OR_RETURN(FieldReader ordinals, spec.Object("ordinals"));
    KARP_RETURN_IF_ERROR(ordinals.Int32("start", &w->start_ordinal));
  }
  KARP_ASSIGN_OR_RETURN(FieldReader tmpl, spec.Object("template"));
  return ReadPodTemplate(tmpl, w->metadata.namespace_, &w->pod_template);
}

Json WorkloadJson(const Workload& w) {
  Json o = Json::object();
  o["apiVersion"] = std::string(WorkloadApiVersion(w.kind));
  o["kind"] = std::string(WorkloadKindName(w.kind));
  o["metadata"] = ObjectMetaJson(w.metadata, true);
  Json tmpl = Json::object();
  tmpl["metadata"] = ObjectMetaJson(w.pod_template.metadata, false);
  tmpl["spec"] = PodSpecToJson(w.pod_template);
  Json spec = Json::object();
  auto job_spec = [&](Json* s) {
    if (w.parallelism) (*s)["parallelism"] = *w.parallelism;
    if (w.completions) (*s)["completions"] = *w.completions;
    if (!w.completion_mode.empty()) (*s)["completionMode"] = w.completion_mode;
    (*s)["template"] = std::move(tmpl);
  };
  switch (w.kind) {
    case WorkloadKind::kJob:
      if (w.suspended) spec["suspend"] = true;
      job_spec(&spec);
      o["spec"] = std::move(spec);
      {
        Json status = Json::object();
        if (w.succeeded != 0) status["succeeded"] = w.succeeded;
        if (!w.completed_indexes.empty()) status["completedIndexes"] = w.completed_indexes;
        if (w.finished) {
          status["conditions"] = Json::array({Json{{"type", "Complete"}, {"status", "True"}}});
        }
        if (!status.empty()) o["status"] = std::move(status);
      }
      return o;
    case WorkloadKind::kCronJob: {
      spec["schedule"] = w.schedule;
      if (w.suspended) spec["suspend"] = true;
      Json js = Json::object();
      job_spec(&js);
      spec["jobTemplate"] = Json{{"spec", std::move(js)}};
      o["spec"] = std::move(spec);
      return o;
    }
    case WorkloadKind::kReplicationController:
      if (w.replicas) spec["replicas"] = *w.replicas;
      if (w.selector) spec["selector"] = w.selector->match_labels;
      spec["template"] = std::move(tmpl);
      o["spec"] = std::move(spec);
      return o;
    default:
      break;
  }
  if (w.replicas) spec["replicas"] = *w.replicas;
  if (w.selector) spec["selector"] = LabelSelectorToJson(*w.selector);
  if (w.kind == WorkloadKind::kStatefulSet) {
    if (w.start_ordinal != 0) spec["ordinals"] = Json{{"start", w.start_ordinal}};
    if (!w.volume_claim_templates.empty()) {
      Json templates = Json::array();
      for (const VolumeClaimTemplate& t : w.volume_claim_templates) {
        Json meta = Json{{"name", t.name}};
        if (!t.labels.empty()) meta["labels"] = t.labels;
        Json tspec = Json::object();
        if (!t.storage_class_name.empty()) tspec["storageClassName"] = t.storage_class_name;
        templates.push_back(Json{{"metadata", std::move(meta)}, {"spec", std::move(tspec)}});
      }
      spec["volumeClaimTemplates"] = std::move(templates);
    }
  }
  spec["template"] = std::move(tmpl);
  o["spec"] = std::move(spec);
  return o;
}

}  // namespace karp::json::codec_internal
