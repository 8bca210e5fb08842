// karp::json: simulator traces (karp/json/sim_trace.h, format in docs/simulator.md).

#include "karp/json/sim_trace.h"

#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_util.h"
#include "json/commitments_codec.h"
#include "json/document.h"
#include "json/field_reader.h"
#include "karp/json/codec.h"
#include "karp/labels.h"

namespace karp::json {
namespace {

using codec_internal::Document;
using codec_internal::FieldReader;
using codec_internal::IndexPath;
using codec_internal::Json;
using codec_internal::PathError;
using internal::Message;

constexpr double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------------------------------------
// Scalars. A trace is karp's own format: its type errors are terser than those of Kubernetes
// objects ("expected a string", without the type found), and durations may be seconds.

absl::StatusOr<std::string> String(const Json& v, std::string_view path) {
  if (!v.is_string()) return PathError(path, "expected a string");
  return v.get<std::string>();
}

absl::StatusOr<int64_t> Int(const Json& v, std::string_view path, int64_t min, int64_t max) {
  int64_t out = 0;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(max)) return PathError(path, "out of range");
      out = static_cast<int64_t>(u);
    } else {
      out = v.get<int64_t>();
    }
  } else {
    return PathError(path, "expected an integer");
  }
  if (out < min || out > max) {
    return PathError(path, internal::StrCat("must be in [", min, ", ", max, "], got ", out));
  }
  return out;
}

absl::StatusOr<double> Number(const Json& v, std::string_view path) {
  if (!v.is_number()) return PathError(path, "expected a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < 0) return PathError(path, "expected a finite non-negative number");
  return d;
}

// A Go duration string ("90s", "1h30m") or a number of seconds.
absl::StatusOr<absl::Duration> Duration(const Json& v, std::string_view path) {
  if (v.is_number()) {
    const double s = v.get<double>();
    if (!std::isfinite(s) || s < 0 || s > 1e10) {
      return PathError(path, "expected a non-negative number of seconds");
    }
    return absl::Seconds(s);
  }
  if (!v.is_string()) return PathError(path, "expected a duration (\"90s\", \"1h30m\") or seconds");
  absl::StatusOr<absl::Duration> d = codec_internal::ParseGoDuration(v.get<std::string>());
  if (!d.ok()) return PathError(path, Message(d.status()));
  return *d;
}

// Reads the field `key` of `o`, if present, with `convert` (String, Duration, ...) into *out.
template <typename T, typename Convert>
absl::Status Optional(const FieldReader& o, std::string_view key, Convert convert, T* out) {
  const Json* v = o.Get(key);
  if (v == nullptr) return absl::OkStatus();
  KARP_ASSIGN_OR_RETURN(*out, convert(*v, o.At(key)));
  return absl::OkStatus();
}

// Optional, but `<path>.<key>: required` when the field is absent.
template <typename T, typename Convert>
absl::Status Required(const FieldReader& o, std::string_view key, Convert convert, T* out) {
  if (o.Get(key) == nullptr) return PathError(o.At(key), "required");
  return Optional(o, key, convert, out);
}

// An Int conversion bounded to [min, max].
auto IntIn(int64_t min, int64_t max) {
  return [min, max](const Json& v, std::string_view path) { return Int(v, path, min, max); };
}

// Calls fn(element, path) for each element of the array field `key` of `o` (absent: none).
template <typename Fn>
absl::Status ForEachElement(const FieldReader& o, std::string_view key, Fn&& fn) {
  const Json* v = o.Get(key);
  if (v == nullptr) return absl::OkStatus();
  if (!v->is_array()) return PathError(o.At(key), "expected an array");
  for (size_t i = 0; i < v->size(); ++i) {
    KARP_RETURN_IF_ERROR(fn((*v)[i], IndexPath(o.At(key), i)));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Workloads

absl::Status Name(const FieldReader& o, std::string* out) {
  KARP_RETURN_IF_ERROR(Required(o, "name", String, out));
  if (out->empty() || out->size() > 50 || !ValidateLabelValue(*out).ok() || (*out)[0] == '.' ||
      (*out)[0] == '_') {
    return PathError(o.At("name"),
                     internal::StrCat("invalid name \"", *out,
                                      "\" (1-50 characters of [A-Za-z0-9-], starting and "
                                      "ending alphanumeric)"));
  }
  for (char c : *out) {
    if (c == '_' || c == '.') {
      return PathError(o.At("name"), internal::StrCat("invalid name \"", *out, "\""));
    }
  }
  return absl::OkStatus();
}

absl::Status StringMap(const FieldReader& o, std::string_view key,
                       std::map<std::string, std::string>* out) {
  const Json* v = o.Get(key);
  if (v == nullptr) return absl::OkStatus();
  const std::string p = o.At(key);
  if (!v->is_object()) return PathError(p, "expected an object");
  for (auto it = v->begin(); it != v->end(); ++it) {
    KARP_ASSIGN_OR_RETURN(std::string s, String(it.value(), codec_internal::JoinPath(p, it.key())));
    (*out)[it.key()] = s;
  }
  return absl::OkStatus();
}

absl::Status Requests(const FieldReader& o, ResourceList* out) {
  const Json* req = o.Get("requests");
  const std::string rp = o.At("requests");
  if (req == nullptr) return PathError(rp, "required");
  if (!req->is_object() || req->empty()) return PathError(rp, "expected a non-empty object");
  for (auto it = req->begin(); it != req->end(); ++it) {
    const std::string p = codec_internal::JoinPath(rp, it.key());
    std::string text;
    if (it.value().is_string()) {
      text = it.value().get<std::string>();
    } else if (it.value().is_number_integer()) {
      text = std::to_string(it.value().get<int64_t>());
    } else {
      return PathError(p, "expected a quantity string or an integer");
    }
    absl::StatusOr<int64_t> q = ParseQuantity(text, it.key());
    if (!q.ok()) return PathError(p, Message(q.status()));
    out->Set(it.key(), *q);
  }
  return absl::OkStatus();
}

absl::Status Claims(const FieldReader& o, std::vector<std::string>* out) {
  const Json* c = o.Get("claims");
  if (c == nullptr) return absl::OkStatus();
  if (!c->is_array()) return PathError(o.At("claims"), "expected an array of claim names");
  return ForEachElement(o, "claims", [&](const Json& e, const std::string& p) -> absl::Status {
    KARP_ASSIGN_OR_RETURN(std::string claim, String(e, p));
    if (claim.empty()) return PathError(p, "must not be empty");
    out->push_back(std::move(claim));
    return absl::OkStatus();
  });
}

absl::Status ReadToleration(const Json& e, const std::string& path, Toleration* tol) {
  KARP_ASSIGN_OR_RETURN(FieldReader o,
                        FieldReader::MakeStrict(e, path, {"key", "operator", "value", "effect"}));
  KARP_RETURN_IF_ERROR(Optional(o, "key", String, &tol->key));
  KARP_RETURN_IF_ERROR(Optional(o, "value", String, &tol->value));
  std::string op, effect;
  if (o.Get("operator") != nullptr) {
    KARP_RETURN_IF_ERROR(Optional(o, "operator", String, &op));
    absl::StatusOr<TolerationOperator> parsed = ParseTolerationOperator(op);
    if (!parsed.ok()) return PathError(o.At("operator"), Message(parsed.status()));
    tol->op = *parsed;
  }
  if (o.Get("effect") != nullptr) {
    KARP_RETURN_IF_ERROR(Optional(o, "effect", String, &effect));
    absl::StatusOr<TaintEffect> parsed = ParseTaintEffect(effect);
    if (!parsed.ok()) return PathError(o.At("effect"), Message(parsed.status()));
    tol->effect = *parsed;
  }
  return absl::OkStatus();
}

// requests, nodeSelector, tolerations, labels, claims.
absl::Status Shape(const FieldReader& o, sim::PodShape* shape) {
  KARP_RETURN_IF_ERROR(Requests(o, &shape->requests));
  KARP_RETURN_IF_ERROR(StringMap(o, "nodeSelector", &shape->node_selector));
  KARP_RETURN_IF_ERROR(StringMap(o, "labels", &shape->labels));
  KARP_RETURN_IF_ERROR(Claims(o, &shape->claims));
  return ForEachElement(o, "tolerations", [&](const Json& e, const std::string& p) {
    Toleration tol;
    KARP_RETURN_IF_ERROR(ReadToleration(e, p, &tol));
    shape->tolerations.push_back(std::move(tol));
    return absl::OkStatus();
  });
}

absl::Status Namespace(const FieldReader& o, std::string* out) {
  if (o.Get("namespace") == nullptr) return absl::OkStatus();
  KARP_RETURN_IF_ERROR(Optional(o, "namespace", String, out));
  if (out->empty() || !ValidateLabelValue(*out).ok()) {
    return PathError(o.At("namespace"), "invalid namespace");
  }
  return absl::OkStatus();
}

// The fields every workload has: name, namespace and the pod shape.
absl::Status Workload(const FieldReader& o, std::string* name, std::string* namespace_,
                      sim::PodShape* shape) {
  KARP_RETURN_IF_ERROR(Name(o, name));
  KARP_RETURN_IF_ERROR(Namespace(o, namespace_));
  return Shape(o, shape);
}

// The diurnal deployments of one trace expand to at most this many samples in total (a year
// every minute is 527040), so a small input cannot ask for gigabytes of replica steps.
constexpr int64_t kMaxDiurnalSamples = 1000000;

// replicas: an array of {at, replicas} in time order.
absl::Status ReplicaSteps(const FieldReader& o, sim::DeploymentTrace* d) {
  const Json* steps = o.Get("replicas");
  if (!steps->is_array()) return PathError(o.At("replicas"), "expected an array of {at, replicas}");
  absl::Duration prev = -absl::InfiniteDuration();
  return ForEachElement(o, "replicas", [&](const Json& e, const std::string& ep) -> absl::Status {
    KARP_ASSIGN_OR_RETURN(FieldReader s, FieldReader::MakeStrict(e, ep, {"at", "replicas"}));
    if (s.Get("at") == nullptr) return PathError(s.At("at"), "required");
    if (s.Get("replicas") == nullptr) return PathError(s.At("replicas"), "required");
    absl::Duration t;
    int64_t r = 0;
    KARP_RETURN_IF_ERROR(Optional(s, "at", Duration, &t));
    KARP_RETURN_IF_ERROR(Optional(s, "replicas", IntIn(0, 100000), &r));
    if (t < prev) return PathError(s.At("at"), "steps must be in time order");
    prev = t;
    d->replicas.emplace_back(t, r);
    return absl::OkStatus();
  });
}

// diurnal: min + (max - min) * (1 + cos(2 pi (t - peakAt) / period)) / 2, sampled every step.
// `samples_left`: what remains of kMaxDiurnalSamples for this trace.
absl::Status Diurnal(const FieldReader& o, absl::Duration duration, int64_t* samples_left,
                     sim::DeploymentTrace* d) {
  KARP_ASSIGN_OR_RETURN(FieldReader dr,
                        FieldReader::MakeStrict(*o.Get("diurnal"), o.At("diurnal"),
                                                {"min", "max", "peakAt", "period", "step"}));
  if (dr.Get("min") == nullptr) return PathError(dr.At("min"), "required");
  if (dr.Get("max") == nullptr) return PathError(dr.At("max"), "required");
  int64_t lo = 0, hi = 0;
  KARP_RETURN_IF_ERROR(Optional(dr, "min", IntIn(0, 100000), &lo));
  KARP_RETURN_IF_ERROR(Optional(dr, "max", IntIn(0, 100000), &hi));
  if (hi < lo) return PathError(dr.At("max"), "must be >= min");
  absl::Duration peak = absl::Hours(14), period = absl::Hours(24), step = absl::Minutes(10);
  KARP_RETURN_IF_ERROR(Optional(dr, "peakAt", Duration, &peak));
  KARP_RETURN_IF_ERROR(Optional(dr, "period", Duration, &period));
  KARP_RETURN_IF_ERROR(Optional(dr, "step", Duration, &step));
  if (period <= absl::ZeroDuration()) return PathError(dr.At("period"), "must be positive");
  if (step < absl::Seconds(1)) return PathError(dr.At("step"), "must be at least 1s");
  absl::Duration rem;
  const int64_t samples = absl::IDivDuration(duration, step, &rem) + (rem > absl::ZeroDuration());
  if (samples > *samples_left) {
    return PathError(dr.At("step"),
                     internal::StrCat(samples,
                                      " samples over the trace duration; the diurnal "
                                      "deployments of a trace may have at most ",
                                      kMaxDiurnalSamples, " in total (use a larger step)"));
  }
  *samples_left -= samples;
  int64_t last = -1;
  for (absl::Duration t = absl::ZeroDuration(); t < duration; t += step) {
    const double phase = 2 * kPi * absl::FDivDuration(t - peak, period);
    const double v =
        static_cast<double>(lo) + static_cast<double>(hi - lo) * (1 + std::cos(phase)) / 2;
    const int64_t r = static_cast<int64_t>(std::llround(v));
    if (r != last) d->replicas.emplace_back(t, r);
    last = r;
  }
  return absl::OkStatus();
}

absl::Status Deployment(const Json& v, const std::string& path, absl::Duration duration,
                        int64_t* samples_left, sim::DeploymentTrace* d) {
  KARP_ASSIGN_OR_RETURN(
      FieldReader o,
      FieldReader::MakeStrict(v, path,
                              {"name", "namespace", "requests", "nodeSelector", "tolerations",
                               "labels", "claims", "replicas", "diurnal"}));
  KARP_RETURN_IF_ERROR(Workload(o, &d->name, &d->namespace_, &d->pod));
  if ((o.Get("replicas") == nullptr) == (o.Get("diurnal") == nullptr)) {
    return PathError(path, "exactly one of replicas and diurnal is required");
  }
  if (o.Get("replicas") != nullptr) return ReplicaSteps(o, d);
  return Diurnal(o, duration, samples_left, d);
}

absl::Status Job(const Json& v, const std::string& path, sim::JobTrace* j) {
  KARP_ASSIGN_OR_RETURN(
      FieldReader o, FieldReader::MakeStrict(
                         v, path,
                         {"name", "namespace", "requests", "nodeSelector", "tolerations", "labels",
                          "claims", "at", "every", "until", "parallelism", "runFor"}));
  KARP_RETURN_IF_ERROR(Workload(o, &j->name, &j->namespace_, &j->pod));
  KARP_RETURN_IF_ERROR(Optional(o, "at", Duration, &j->at));
  std::optional<absl::Duration> every;
  KARP_RETURN_IF_ERROR(Optional(o, "every", Duration, &every));
  if (every.has_value()) {
    if (*every < absl::Seconds(1)) return PathError(o.At("every"), "must be at least 1s");
    j->every = *every;
  }
  KARP_RETURN_IF_ERROR(Optional(o, "until", Duration, &j->until));
  KARP_RETURN_IF_ERROR(Optional(o, "parallelism", IntIn(1, 10000), &j->parallelism));
  KARP_RETURN_IF_ERROR(Required(o, "runFor", Duration, &j->run_for));
  if (j->run_for <= absl::ZeroDuration()) return PathError(o.At("runFor"), "must be positive");
  return absl::OkStatus();
}

absl::Status Pod(const Json& v, const std::string& path, sim::PodTrace* pt) {
  KARP_ASSIGN_OR_RETURN(
      FieldReader o, FieldReader::MakeStrict(v, path,
                                             {"name", "namespace", "requests", "nodeSelector",
                                              "tolerations", "labels", "claims", "at", "leaveAt"}));
  KARP_RETURN_IF_ERROR(Workload(o, &pt->name, &pt->namespace_, &pt->pod));
  KARP_RETURN_IF_ERROR(Optional(o, "at", Duration, &pt->arrive_at));
  if (o.Get("leaveAt") != nullptr) {
    KARP_RETURN_IF_ERROR(Optional(o, "leaveAt", Duration, &pt->leave_at));
    if (pt->leave_at <= pt->arrive_at) return PathError(o.At("leaveAt"), "must be after at");
  }
  return absl::OkStatus();
}

// Workload names are unique per namespace (workloads share the pod name space), and their
// claims are declared in the trace's cluster.
class WorkloadNames {
 public:
  explicit WorkloadNames(const ClusterSnapshot& cluster) {
    for (const PersistentVolumeClaim& c : cluster.persistent_volume_claims) {
      claims_.insert(c.Key());
    }
  }

  absl::Status Add(const std::string& ns, const std::string& name, const sim::PodShape& shape,
                   std::string_view path) {
    if (!names_.insert(internal::StrCat(ns, "/", name)).second) {
      return PathError(codec_internal::JoinPath(path, "name"),
                       internal::StrCat("duplicate workload \"", name, "\""));
    }
    for (size_t i = 0; i < shape.claims.size(); ++i) {
      if (claims_.count(internal::StrCat(ns, "/", shape.claims[i])) == 0) {
        return PathError(IndexPath(codec_internal::JoinPath(path, "claims"), i),
                         internal::StrCat("no PersistentVolumeClaim \"", shape.claims[i],
                                          "\" in namespace ", ns, " in cluster"));
      }
    }
    return absl::OkStatus();
  }

 private:
  std::set<std::string> names_;
  std::set<std::string> claims_;  // "namespace/name" of the cluster's claims
};

// deployments, jobs and pods.
absl::Status Workloads(const FieldReader& root, sim::Trace* trace) {
  WorkloadNames names(trace->cluster);
  int64_t samples_left = kMaxDiurnalSamples;
  KARP_RETURN_IF_ERROR(
      ForEachElement(root, "deployments", [&](const Json& v, const std::string& p) {
        sim::DeploymentTrace d;
        KARP_RETURN_IF_ERROR(Deployment(v, p, trace->duration, &samples_left, &d));
        KARP_RETURN_IF_ERROR(names.Add(d.namespace_, d.name, d.pod, p));
        trace->deployments.push_back(std::move(d));
        return absl::OkStatus();
      }));
  KARP_RETURN_IF_ERROR(ForEachElement(root, "jobs", [&](const Json& v, const std::string& p) {
    sim::JobTrace j;
    KARP_RETURN_IF_ERROR(Job(v, p, &j));
    KARP_RETURN_IF_ERROR(names.Add(j.namespace_, j.name, j.pod, p));
    trace->jobs.push_back(std::move(j));
    return absl::OkStatus();
  }));
  return ForEachElement(root, "pods", [&](const Json& v, const std::string& p) {
    sim::PodTrace pt;
    KARP_RETURN_IF_ERROR(Pod(v, p, &pt));
    KARP_RETURN_IF_ERROR(names.Add(pt.namespace_, pt.name, pt.pod, p));
    trace->pods.push_back(std::move(pt));
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------------------------
// Events and the rest of the trace

absl::Status Interruption(const Json& v, const std::string& path, sim::InterruptionTrace* it) {
  KARP_ASSIGN_OR_RETURN(FieldReader o,
                        FieldReader::MakeStrict(v, path, {"at", "node", "capacityType"}));
  KARP_RETURN_IF_ERROR(Required(o, "at", Duration, &it->at));
  KARP_RETURN_IF_ERROR(Optional(o, "node", String, &it->node));
  KARP_RETURN_IF_ERROR(Optional(o, "capacityType", String, &it->capacity_type));
  if (it->node.empty() == it->capacity_type.empty()) {
    return PathError(path, "exactly one of node and capacityType is required");
  }
  return absl::OkStatus();
}

absl::Status CapacityError(const Json& v, const std::string& path, sim::CapacityErrorTrace* ce) {
  KARP_ASSIGN_OR_RETURN(
      FieldReader o,
      FieldReader::MakeStrict(v, path, {"from", "until", "capacityType", "instanceType", "zone"}));
  KARP_RETURN_IF_ERROR(Optional(o, "from", Duration, &ce->from));
  if (o.Get("until") != nullptr) {
    KARP_RETURN_IF_ERROR(Optional(o, "until", Duration, &ce->until));
    if (ce->until <= ce->from) return PathError(o.At("until"), "must be after from");
  }
  if (o.Get("capacityType") == nullptr) return PathError(o.At("capacityType"), "required");
  if (o.Get("instanceType") == nullptr) return PathError(o.At("instanceType"), "required");
  KARP_RETURN_IF_ERROR(Optional(o, "capacityType", String, &ce->capacity_type));
  KARP_RETURN_IF_ERROR(Optional(o, "instanceType", String, &ce->instance_type));
  return Optional(o, "zone", String, &ce->zone);
}

// baseline: {instanceTypes: {<nodepool>: <type> or [<type>, ...]}}.
absl::Status Baseline(const FieldReader& root,
                      std::map<std::string, std::vector<std::string>>* out) {
  if (root.Get("baseline") == nullptr) return absl::OkStatus();
  KARP_ASSIGN_OR_RETURN(
      FieldReader b, FieldReader::MakeStrict(*root.Get("baseline"), "baseline", {"instanceTypes"}));
  const Json* types = b.Get("instanceTypes");
  if (types == nullptr) return absl::OkStatus();
  if (!types->is_object()) return PathError("baseline.instanceTypes", "expected an object");
  for (auto it = types->begin(); it != types->end(); ++it) {
    const std::string p = codec_internal::JoinPath("baseline.instanceTypes", it.key());
    std::vector<std::string> list;
    if (it.value().is_string()) {
      list.push_back(it.value().get<std::string>());
    } else if (it.value().is_array() && !it.value().empty()) {
      for (size_t i = 0; i < it.value().size(); ++i) {
        KARP_ASSIGN_OR_RETURN(std::string s, String(it.value()[i], IndexPath(p, i)));
        list.push_back(std::move(s));
      }
    } else {
      return PathError(p, "expected an instance type or a non-empty array of them");
    }
    (*out)[it.key()] = std::move(list);
  }
  return absl::OkStatus();
}

// name, start, duration, seed.
absl::Status Header(const FieldReader& root, std::string_view source, sim::Trace* trace) {
  KARP_RETURN_IF_ERROR(Optional(root, "name", String, &trace->name));
  if (trace->name.empty()) trace->name = std::string(source);
  if (root.Get("start") != nullptr) {
    std::string s;
    KARP_RETURN_IF_ERROR(Optional(root, "start", String, &s));
    std::string err;
    if (!absl::ParseTime(absl::RFC3339_full, s, &trace->start, &err)) {
      return PathError("start", internal::StrCat("invalid RFC 3339 time \"", s, "\""));
    }
  }
  KARP_RETURN_IF_ERROR(Required(root, "duration", Duration, &trace->duration));
  if (trace->duration <= absl::ZeroDuration() || trace->duration > absl::Hours(24 * 366)) {
    return PathError("duration", "must be positive and at most a year");
  }
  int64_t seed = -1;
  KARP_RETURN_IF_ERROR(Optional(root, "seed", IntIn(0, INT64_MAX), &seed));
  if (seed >= 0) trace->seed = static_cast<uint64_t>(seed);
  return absl::OkStatus();
}

// cluster: an array of Kubernetes objects (NodePools, DaemonSets, storage and EC2NodeClasses),
// decoded and validated as a snapshot.
absl::Status Cluster(const FieldReader& root, std::string_view source, ClusterSnapshot* out) {
  const Json* cluster = root.Get("cluster");
  if (cluster == nullptr) return PathError("cluster", "required (NodePools and DaemonSets)");
  if (!cluster->is_array()) return PathError("cluster", "expected an array of Kubernetes objects");
  Json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", *cluster}};
  absl::StatusOr<ClusterSnapshot> snap =
      ParseSnapshot(list.dump(), internal::StrCat(source, ": cluster"));
  if (!snap.ok()) return absl::InvalidArgumentError(snap.status().message());
  if (absl::Status s = snap->Validate(); !s.ok()) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": cluster: ", s.message()));
  }
  if (snap->node_pools.empty()) return PathError("cluster", "no NodePool");
  out->node_pools = std::move(snap->node_pools);
  out->daemon_sets = std::move(snap->daemon_sets);
  out->persistent_volume_claims = std::move(snap->persistent_volume_claims);
  out->persistent_volumes = std::move(snap->persistent_volumes);
  out->storage_classes = std::move(snap->storage_classes);
  out->csi_nodes = std::move(snap->csi_nodes);
  out->node_classes = std::move(snap->node_classes);  // the NodePools' instance types
  out->node_overlays = std::move(snap->node_overlays);
  return absl::OkStatus();
}

absl::StatusOr<sim::Trace> Decode(const Json& v, std::string_view source) {
  KARP_ASSIGN_OR_RETURN(
      FieldReader root,
      FieldReader::MakeStrict(
          v, "",
          {"name", "start", "duration", "seed", "cluster", "deployments", "jobs", "pods",
           "interruptions", "spotInterruptionRate", "capacityErrors", "baseline", "commitments"}));
  sim::Trace trace;
  KARP_RETURN_IF_ERROR(Header(root, source, &trace));
  KARP_RETURN_IF_ERROR(Cluster(root, source, &trace.cluster));
  KARP_RETURN_IF_ERROR(Workloads(root, &trace));
  KARP_RETURN_IF_ERROR(
      ForEachElement(root, "interruptions", [&](const Json& e, const std::string& p) {
        sim::InterruptionTrace it;
        KARP_RETURN_IF_ERROR(Interruption(e, p, &it));
        trace.interruptions.push_back(std::move(it));
        return absl::OkStatus();
      }));
  KARP_RETURN_IF_ERROR(
      Optional(root, "spotInterruptionRate", Number, &trace.spot_interruption_rate));
  KARP_RETURN_IF_ERROR(
      ForEachElement(root, "capacityErrors", [&](const Json& e, const std::string& p) {
        sim::CapacityErrorTrace ce;
        KARP_RETURN_IF_ERROR(CapacityError(e, p, &ce));
        trace.capacity_errors.push_back(std::move(ce));
        return absl::OkStatus();
      }));
  KARP_RETURN_IF_ERROR(Baseline(root, &trace.baseline_instance_types));
  if (const Json* c = root.Get("commitments")) {
    KARP_ASSIGN_OR_RETURN(trace.commitments, codec_internal::DecodeCommitments(*c, "commitments"));
  }
  return trace;
}

}  // namespace

absl::StatusOr<sim::Trace> ParseSimTrace(std::string_view text, std::string_view source) {
  try {
    KARP_ASSIGN_OR_RETURN(std::vector<Document> docs, codec_internal::LoadDocuments(text, source));
    if (docs.size() != 1 || docs[0].value.is_null()) {
      return absl::InvalidArgumentError(
          internal::StrCat(source, ": expected exactly one trace document"));
    }
    absl::StatusOr<sim::Trace> trace = Decode(docs[0].value, source);
    if (!trace.ok() && trace.status().message().rfind(internal::StrCat(source, ": "), 0) != 0) {
      return absl::InvalidArgumentError(internal::StrCat(source, ": ", trace.status().message()));
    }
    return trace;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": ", e.what()));
  } catch (...) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": unreadable input"));
  }
}

absl::StatusOr<sim::Trace> ReadSimTraceFile(const std::string& path) {
  KARP_ASSIGN_OR_RETURN(std::string data, codec_internal::ReadWholeFile(path));
  return ParseSimTrace(data, path);
}

}  // namespace karp::json
