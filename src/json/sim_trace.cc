// karp::json: simulator traces (karp/json/sim_trace.h, format in docs/simulator.md).

#include "karp/json/sim_trace.h"

#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
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
#include "json/document.h"
#include "karp/json/codec.h"
#include "karp/labels.h"

namespace karp::json {
namespace {

using codec_internal::Document;
using codec_internal::Json;

constexpr double kPi = 3.14159265358979323846;

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

absl::Status PathError(std::string_view path, std::string_view what) {
  return absl::InvalidArgumentError(internal::StrCat(path, ": ", what));
}

std::string Join(std::string_view base, std::string_view key) {
  return base.empty() ? std::string(key) : internal::StrCat(base, ".", key);
}

std::string Index(std::string_view base, size_t i) { return internal::StrCat(base, "[", i, "]"); }

// An object whose keys must all be among `known`.
absl::Status CheckObject(const Json& v, std::string_view path,
                         std::initializer_list<std::string_view> known) {
  if (!v.is_object()) return PathError(path.empty() ? "(document)" : path, "expected an object");
  for (auto it = v.begin(); it != v.end(); ++it) {
    bool ok = false;
    for (std::string_view k : known) ok |= it.key() == k;
    if (!ok) return PathError(Join(path, it.key()), "unknown field");
  }
  return absl::OkStatus();
}

const Json* Field(const Json& o, std::string_view key) {
  auto it = o.find(std::string(key));
  if (it == o.end() || it->is_null()) return nullptr;
  return &*it;
}

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
  if (!d.ok()) return PathError(path, Msg(d.status()));
  return *d;
}

absl::Status Name(const Json& o, std::string_view path, std::string* out) {
  const Json* v = Field(o, "name");
  if (v == nullptr) return PathError(Join(path, "name"), "required");
  KARP_ASSIGN_OR_RETURN(*out, String(*v, Join(path, "name")));
  if (out->empty() || out->size() > 50 || !ValidateLabelValue(*out).ok() ||
      (*out)[0] == '.' || (*out)[0] == '_') {
    return PathError(Join(path, "name"),
                     internal::StrCat("invalid name \"", *out,
                                      "\" (1-50 characters of [A-Za-z0-9-], starting and "
                                      "ending alphanumeric)"));
  }
  for (char c : *out) {
    if (c == '_' || c == '.') {
      return PathError(Join(path, "name"), internal::StrCat("invalid name \"", *out, "\""));
    }
  }
  return absl::OkStatus();
}

absl::Status StringMap(const Json& o, std::string_view key, std::string_view path,
                       std::map<std::string, std::string>* out) {
  const Json* v = Field(o, key);
  if (v == nullptr) return absl::OkStatus();
  const std::string p = Join(path, key);
  if (!v->is_object()) return PathError(p, "expected an object");
  for (auto it = v->begin(); it != v->end(); ++it) {
    KARP_ASSIGN_OR_RETURN(std::string s, String(it.value(), Join(p, it.key())));
    (*out)[it.key()] = s;
  }
  return absl::OkStatus();
}

// requests, nodeSelector, tolerations, labels, claims.
absl::Status Shape(const Json& o, std::string_view path, sim::PodShape* shape) {
  const Json* req = Field(o, "requests");
  const std::string rp = Join(path, "requests");
  if (req == nullptr) return PathError(rp, "required");
  if (!req->is_object() || req->empty()) return PathError(rp, "expected a non-empty object");
  for (auto it = req->begin(); it != req->end(); ++it) {
    const std::string p = Join(rp, it.key());
    std::string text;
    if (it.value().is_string()) {
      text = it.value().get<std::string>();
    } else if (it.value().is_number_integer()) {
      text = std::to_string(it.value().get<int64_t>());
    } else {
      return PathError(p, "expected a quantity string or an integer");
    }
    absl::StatusOr<int64_t> q = ParseQuantity(text, it.key());
    if (!q.ok()) return PathError(p, Msg(q.status()));
    shape->requests.Set(it.key(), *q);
  }
  KARP_RETURN_IF_ERROR(StringMap(o, "nodeSelector", path, &shape->node_selector));
  KARP_RETURN_IF_ERROR(StringMap(o, "labels", path, &shape->labels));
  if (const Json* c = Field(o, "claims")) {
    const std::string cp = Join(path, "claims");
    if (!c->is_array()) return PathError(cp, "expected an array of claim names");
    for (size_t i = 0; i < c->size(); ++i) {
      KARP_ASSIGN_OR_RETURN(std::string claim, String((*c)[i], Index(cp, i)));
      if (claim.empty()) return PathError(Index(cp, i), "must not be empty");
      shape->claims.push_back(std::move(claim));
    }
  }
  if (const Json* t = Field(o, "tolerations")) {
    const std::string tp = Join(path, "tolerations");
    if (!t->is_array()) return PathError(tp, "expected an array");
    for (size_t i = 0; i < t->size(); ++i) {
      const Json& e = (*t)[i];
      const std::string ep = Index(tp, i);
      KARP_RETURN_IF_ERROR(CheckObject(e, ep, {"key", "operator", "value", "effect"}));
      Toleration tol;
      if (const Json* k = Field(e, "key")) {
        KARP_ASSIGN_OR_RETURN(tol.key, String(*k, Join(ep, "key")));
      }
      if (const Json* v = Field(e, "value")) {
        KARP_ASSIGN_OR_RETURN(tol.value, String(*v, Join(ep, "value")));
      }
      if (const Json* op = Field(e, "operator")) {
        KARP_ASSIGN_OR_RETURN(std::string s, String(*op, Join(ep, "operator")));
        absl::StatusOr<TolerationOperator> parsed = ParseTolerationOperator(s);
        if (!parsed.ok()) return PathError(Join(ep, "operator"), Msg(parsed.status()));
        tol.op = *parsed;
      }
      if (const Json* ef = Field(e, "effect")) {
        KARP_ASSIGN_OR_RETURN(std::string s, String(*ef, Join(ep, "effect")));
        absl::StatusOr<TaintEffect> parsed = ParseTaintEffect(s);
        if (!parsed.ok()) return PathError(Join(ep, "effect"), Msg(parsed.status()));
        tol.effect = *parsed;
      }
      shape->tolerations.push_back(std::move(tol));
    }
  }
  return absl::OkStatus();
}

absl::Status Namespace(const Json& o, std::string_view path, std::string* out) {
  if (const Json* v = Field(o, "namespace")) {
    KARP_ASSIGN_OR_RETURN(*out, String(*v, Join(path, "namespace")));
    if (out->empty() || !ValidateLabelValue(*out).ok()) {
      return PathError(Join(path, "namespace"), "invalid namespace");
    }
  }
  return absl::OkStatus();
}

// The diurnal deployments of one trace expand to at most this many samples in total (a year
// every minute is 527040), so a small input cannot ask for gigabytes of replica steps.
constexpr int64_t kMaxDiurnalSamples = 1000000;

// `samples_left`: what remains of kMaxDiurnalSamples for this trace.
absl::Status Deployment(const Json& o, std::string_view path, absl::Duration duration,
                        int64_t* samples_left, sim::DeploymentTrace* d) {
  KARP_RETURN_IF_ERROR(CheckObject(o, path, {"name", "namespace", "requests", "nodeSelector",
                                             "tolerations", "labels", "claims", "replicas",
                                             "diurnal"}));
  KARP_RETURN_IF_ERROR(Name(o, path, &d->name));
  KARP_RETURN_IF_ERROR(Namespace(o, path, &d->namespace_));
  KARP_RETURN_IF_ERROR(Shape(o, path, &d->pod));
  const Json* steps = Field(o, "replicas");
  const Json* diurnal = Field(o, "diurnal");
  if ((steps == nullptr) == (diurnal == nullptr)) {
    return PathError(path, "exactly one of replicas and diurnal is required");
  }
  if (steps != nullptr) {
    const std::string sp = Join(path, "replicas");
    if (!steps->is_array()) return PathError(sp, "expected an array of {at, replicas}");
    absl::Duration prev = -absl::InfiniteDuration();
    for (size_t i = 0; i < steps->size(); ++i) {
      const Json& s = (*steps)[i];
      const std::string ep = Index(sp, i);
      KARP_RETURN_IF_ERROR(CheckObject(s, ep, {"at", "replicas"}));
      const Json* at = Field(s, "at");
      const Json* n = Field(s, "replicas");
      if (at == nullptr) return PathError(Join(ep, "at"), "required");
      if (n == nullptr) return PathError(Join(ep, "replicas"), "required");
      KARP_ASSIGN_OR_RETURN(absl::Duration t, Duration(*at, Join(ep, "at")));
      KARP_ASSIGN_OR_RETURN(int64_t r, Int(*n, Join(ep, "replicas"), 0, 100000));
      if (t < prev) return PathError(Join(ep, "at"), "steps must be in time order");
      prev = t;
      d->replicas.emplace_back(t, r);
    }
    return absl::OkStatus();
  }
  // diurnal: min + (max - min) * (1 + cos(2 pi (t - peakAt) / period)) / 2, sampled every step.
  const std::string dp = Join(path, "diurnal");
  KARP_RETURN_IF_ERROR(CheckObject(*diurnal, dp, {"min", "max", "peakAt", "period", "step"}));
  const Json* mn = Field(*diurnal, "min");
  const Json* mx = Field(*diurnal, "max");
  if (mn == nullptr) return PathError(Join(dp, "min"), "required");
  if (mx == nullptr) return PathError(Join(dp, "max"), "required");
  KARP_ASSIGN_OR_RETURN(int64_t lo, Int(*mn, Join(dp, "min"), 0, 100000));
  KARP_ASSIGN_OR_RETURN(int64_t hi, Int(*mx, Join(dp, "max"), 0, 100000));
  if (hi < lo) return PathError(Join(dp, "max"), "must be >= min");
  absl::Duration peak = absl::Hours(14), period = absl::Hours(24), step = absl::Minutes(10);
  if (const Json* v = Field(*diurnal, "peakAt")) {
    KARP_ASSIGN_OR_RETURN(peak, Duration(*v, Join(dp, "peakAt")));
  }
  if (const Json* v = Field(*diurnal, "period")) {
    KARP_ASSIGN_OR_RETURN(period, Duration(*v, Join(dp, "period")));
  }
  if (const Json* v = Field(*diurnal, "step")) {
    KARP_ASSIGN_OR_RETURN(step, Duration(*v, Join(dp, "step")));
  }
  if (period <= absl::ZeroDuration()) return PathError(Join(dp, "period"), "must be positive");
  if (step < absl::Seconds(1)) return PathError(Join(dp, "step"), "must be at least 1s");
  absl::Duration rem;
  const int64_t samples = absl::IDivDuration(duration, step, &rem) + (rem > absl::ZeroDuration());
  if (samples > *samples_left) {
    return PathError(Join(dp, "step"),
                     internal::StrCat(samples, " samples over the trace duration; the diurnal "
                                      "deployments of a trace may have at most ",
                                      kMaxDiurnalSamples, " in total (use a larger step)"));
  }
  *samples_left -= samples;
  int64_t last = -1;
  for (absl::Duration t = absl::ZeroDuration(); t < duration; t += step) {
    const double phase = 2 * kPi * absl::FDivDuration(t - peak, period);
    const double v = static_cast<double>(lo) +
                     static_cast<double>(hi - lo) * (1 + std::cos(phase)) / 2;
    const int64_t r = static_cast<int64_t>(std::llround(v));
    if (r != last) d->replicas.emplace_back(t, r);
    last = r;
  }
  return absl::OkStatus();
}

absl::Status Job(const Json& o, std::string_view path, sim::JobTrace* j) {
  KARP_RETURN_IF_ERROR(CheckObject(o, path, {"name", "namespace", "requests", "nodeSelector",
                                             "tolerations", "labels", "claims", "at", "every",
                                             "until",
                                             "parallelism", "runFor"}));
  KARP_RETURN_IF_ERROR(Name(o, path, &j->name));
  KARP_RETURN_IF_ERROR(Namespace(o, path, &j->namespace_));
  KARP_RETURN_IF_ERROR(Shape(o, path, &j->pod));
  if (const Json* v = Field(o, "at")) {
    KARP_ASSIGN_OR_RETURN(j->at, Duration(*v, Join(path, "at")));
  }
  if (const Json* v = Field(o, "every")) {
    KARP_ASSIGN_OR_RETURN(absl::Duration every, Duration(*v, Join(path, "every")));
    if (every < absl::Seconds(1)) return PathError(Join(path, "every"), "must be at least 1s");
    j->every = every;
  }
  if (const Json* v = Field(o, "until")) {
    KARP_ASSIGN_OR_RETURN(j->until, Duration(*v, Join(path, "until")));
  }
  if (const Json* v = Field(o, "parallelism")) {
    KARP_ASSIGN_OR_RETURN(j->parallelism, Int(*v, Join(path, "parallelism"), 1, 10000));
  }
  const Json* run = Field(o, "runFor");
  if (run == nullptr) return PathError(Join(path, "runFor"), "required");
  KARP_ASSIGN_OR_RETURN(j->run_for, Duration(*run, Join(path, "runFor")));
  if (j->run_for <= absl::ZeroDuration()) return PathError(Join(path, "runFor"), "must be positive");
  return absl::OkStatus();
}

absl::StatusOr<sim::Trace> Decode(const Json& root, std::string_view source) {
  sim::Trace trace;
  KARP_RETURN_IF_ERROR(CheckObject(root, "", {"name", "start", "duration", "seed", "cluster",
                                              "deployments", "jobs", "pods", "interruptions",
                                              "spotInterruptionRate", "capacityErrors",
                                              "baseline"}));
  if (const Json* v = Field(root, "name")) {
    KARP_ASSIGN_OR_RETURN(trace.name, String(*v, "name"));
  }
  if (trace.name.empty()) trace.name = std::string(source);
  if (const Json* v = Field(root, "start")) {
    KARP_ASSIGN_OR_RETURN(std::string s, String(*v, "start"));
    std::string err;
    if (!absl::ParseTime(absl::RFC3339_full, s, &trace.start, &err)) {
      return PathError("start", internal::StrCat("invalid RFC 3339 time \"", s, "\""));
    }
  }
  const Json* dur = Field(root, "duration");
  if (dur == nullptr) return PathError("duration", "required");
  KARP_ASSIGN_OR_RETURN(trace.duration, Duration(*dur, "duration"));
  if (trace.duration <= absl::ZeroDuration() || trace.duration > absl::Hours(24 * 366)) {
    return PathError("duration", "must be positive and at most a year");
  }
  if (const Json* v = Field(root, "seed")) {
    KARP_ASSIGN_OR_RETURN(int64_t seed, Int(*v, "seed", 0, INT64_MAX));
    trace.seed = static_cast<uint64_t>(seed);
  }
  const Json* cluster = Field(root, "cluster");
  if (cluster == nullptr) return PathError("cluster", "required (NodePools and DaemonSets)");
  if (!cluster->is_array()) return PathError("cluster", "expected an array of Kubernetes objects");
  {
    Json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", *cluster}};
    absl::StatusOr<ClusterSnapshot> snap =
        ParseSnapshot(list.dump(), internal::StrCat(source, ": cluster"));
    if (!snap.ok()) return absl::InvalidArgumentError(snap.status().message());
    if (absl::Status s = snap->Validate(); !s.ok()) {
      return absl::InvalidArgumentError(internal::StrCat(source, ": cluster: ", s.message()));
    }
    if (snap->node_pools.empty()) return PathError("cluster", "no NodePool");
    trace.cluster.node_pools = std::move(snap->node_pools);
    trace.cluster.daemon_sets = std::move(snap->daemon_sets);
    trace.cluster.persistent_volume_claims = std::move(snap->persistent_volume_claims);
    trace.cluster.persistent_volumes = std::move(snap->persistent_volumes);
    trace.cluster.storage_classes = std::move(snap->storage_classes);
    trace.cluster.csi_nodes = std::move(snap->csi_nodes);
  }

  std::set<std::string> names;  // workloads share the pod name space
  std::set<std::string> claims;  // "namespace/name" of the cluster's claims
  for (const PersistentVolumeClaim& c : trace.cluster.persistent_volume_claims) {
    claims.insert(c.Key());
  }
  // Workload names are unique per namespace, and their claims are declared in `cluster`.
  auto unique = [&](const std::string& ns, const std::string& name, const sim::PodShape& shape,
                    std::string_view path) -> absl::Status {
    if (!names.insert(internal::StrCat(ns, "/", name)).second) {
      return PathError(Join(path, "name"), internal::StrCat("duplicate workload \"", name, "\""));
    }
    for (size_t i = 0; i < shape.claims.size(); ++i) {
      if (claims.count(internal::StrCat(ns, "/", shape.claims[i])) == 0) {
        return PathError(Index(Join(path, "claims"), i),
                         internal::StrCat("no PersistentVolumeClaim \"", shape.claims[i],
                                          "\" in namespace ", ns, " in cluster"));
      }
    }
    return absl::OkStatus();
  };
  auto array = [&](std::string_view key) -> absl::StatusOr<const Json*> {
    const Json* v = Field(root, key);
    if (v != nullptr && !v->is_array()) return PathError(key, "expected an array");
    return v;
  };
  KARP_ASSIGN_OR_RETURN(const Json* deployments, array("deployments"));
  if (deployments != nullptr) {
    int64_t samples_left = kMaxDiurnalSamples;
    for (size_t i = 0; i < deployments->size(); ++i) {
      sim::DeploymentTrace d;
      const std::string p = Index("deployments", i);
      KARP_RETURN_IF_ERROR(Deployment((*deployments)[i], p, trace.duration, &samples_left, &d));
      KARP_RETURN_IF_ERROR(unique(d.namespace_, d.name, d.pod, p));
      trace.deployments.push_back(std::move(d));
    }
  }
  KARP_ASSIGN_OR_RETURN(const Json* jobs, array("jobs"));
  if (jobs != nullptr) {
    for (size_t i = 0; i < jobs->size(); ++i) {
      sim::JobTrace j;
      const std::string p = Index("jobs", i);
      KARP_RETURN_IF_ERROR(Job((*jobs)[i], p, &j));
      KARP_RETURN_IF_ERROR(unique(j.namespace_, j.name, j.pod, p));
      trace.jobs.push_back(std::move(j));
    }
  }
  KARP_ASSIGN_OR_RETURN(const Json* pods, array("pods"));
  if (pods != nullptr) {
    for (size_t i = 0; i < pods->size(); ++i) {
      const Json& o = (*pods)[i];
      const std::string p = Index("pods", i);
      KARP_RETURN_IF_ERROR(CheckObject(o, p, {"name", "namespace", "requests", "nodeSelector",
                                              "tolerations", "labels", "claims", "at", "leaveAt"}));
      sim::PodTrace pt;
      KARP_RETURN_IF_ERROR(Name(o, p, &pt.name));
      KARP_RETURN_IF_ERROR(Namespace(o, p, &pt.namespace_));
      KARP_RETURN_IF_ERROR(Shape(o, p, &pt.pod));
      if (const Json* v = Field(o, "at")) {
        KARP_ASSIGN_OR_RETURN(pt.arrive_at, Duration(*v, Join(p, "at")));
      }
      if (const Json* v = Field(o, "leaveAt")) {
        KARP_ASSIGN_OR_RETURN(pt.leave_at, Duration(*v, Join(p, "leaveAt")));
        if (pt.leave_at <= pt.arrive_at) return PathError(Join(p, "leaveAt"), "must be after at");
      }
      KARP_RETURN_IF_ERROR(unique(pt.namespace_, pt.name, pt.pod, p));
      trace.pods.push_back(std::move(pt));
    }
  }
  KARP_ASSIGN_OR_RETURN(const Json* interruptions, array("interruptions"));
  if (interruptions != nullptr) {
    for (size_t i = 0; i < interruptions->size(); ++i) {
      const Json& o = (*interruptions)[i];
      const std::string p = Index("interruptions", i);
      KARP_RETURN_IF_ERROR(CheckObject(o, p, {"at", "node", "capacityType"}));
      sim::InterruptionTrace it;
      const Json* at = Field(o, "at");
      if (at == nullptr) return PathError(Join(p, "at"), "required");
      KARP_ASSIGN_OR_RETURN(it.at, Duration(*at, Join(p, "at")));
      if (const Json* v = Field(o, "node")) {
        KARP_ASSIGN_OR_RETURN(it.node, String(*v, Join(p, "node")));
      }
      if (const Json* v = Field(o, "capacityType")) {
        KARP_ASSIGN_OR_RETURN(it.capacity_type, String(*v, Join(p, "capacityType")));
      }
      if (it.node.empty() == it.capacity_type.empty()) {
        return PathError(p, "exactly one of node and capacityType is required");
      }
      trace.interruptions.push_back(std::move(it));
    }
  }
  if (const Json* v = Field(root, "spotInterruptionRate")) {
    KARP_ASSIGN_OR_RETURN(trace.spot_interruption_rate, Number(*v, "spotInterruptionRate"));
  }
  KARP_ASSIGN_OR_RETURN(const Json* ices, array("capacityErrors"));
  if (ices != nullptr) {
    for (size_t i = 0; i < ices->size(); ++i) {
      const Json& o = (*ices)[i];
      const std::string p = Index("capacityErrors", i);
      KARP_RETURN_IF_ERROR(
          CheckObject(o, p, {"from", "until", "capacityType", "instanceType", "zone"}));
      sim::CapacityErrorTrace ce;
      if (const Json* v = Field(o, "from")) {
        KARP_ASSIGN_OR_RETURN(ce.from, Duration(*v, Join(p, "from")));
      }
      if (const Json* v = Field(o, "until")) {
        KARP_ASSIGN_OR_RETURN(ce.until, Duration(*v, Join(p, "until")));
        if (ce.until <= ce.from) return PathError(Join(p, "until"), "must be after from");
      }
      const Json* ct = Field(o, "capacityType");
      const Json* type = Field(o, "instanceType");
      if (ct == nullptr) return PathError(Join(p, "capacityType"), "required");
      if (type == nullptr) return PathError(Join(p, "instanceType"), "required");
      KARP_ASSIGN_OR_RETURN(ce.capacity_type, String(*ct, Join(p, "capacityType")));
      KARP_ASSIGN_OR_RETURN(ce.instance_type, String(*type, Join(p, "instanceType")));
      if (const Json* v = Field(o, "zone")) {
        KARP_ASSIGN_OR_RETURN(ce.zone, String(*v, Join(p, "zone")));
      }
      trace.capacity_errors.push_back(std::move(ce));
    }
  }
  if (const Json* b = Field(root, "baseline")) {
    KARP_RETURN_IF_ERROR(CheckObject(*b, "baseline", {"instanceTypes"}));
    if (const Json* types = Field(*b, "instanceTypes")) {
      if (!types->is_object()) return PathError("baseline.instanceTypes", "expected an object");
      for (auto it = types->begin(); it != types->end(); ++it) {
        const std::string p = Join("baseline.instanceTypes", it.key());
        std::vector<std::string> list;
        if (it.value().is_string()) {
          list.push_back(it.value().get<std::string>());
        } else if (it.value().is_array() && !it.value().empty()) {
          for (size_t i = 0; i < it.value().size(); ++i) {
            KARP_ASSIGN_OR_RETURN(std::string s, String(it.value()[i], Index(p, i)));
            list.push_back(std::move(s));
          }
        } else {
          return PathError(p, "expected an instance type or a non-empty array of them");
        }
        trace.baseline_instance_types[it.key()] = std::move(list);
      }
    }
  }
  return trace;
}

}  // namespace

absl::StatusOr<sim::Trace> ParseSimTrace(std::string_view text, std::string_view source) {
  try {
    KARP_ASSIGN_OR_RETURN(std::vector<Document> docs,
                          codec_internal::LoadDocuments(text, source));
    if (docs.size() != 1 || docs[0].value.is_null()) {
      return absl::InvalidArgumentError(
          internal::StrCat(source, ": expected exactly one trace document"));
    }
    absl::StatusOr<sim::Trace> trace = Decode(docs[0].value, source);
    if (!trace.ok() && trace.status().message().rfind(internal::StrCat(source, ": "), 0) != 0) {
      return absl::InvalidArgumentError(
          internal::StrCat(source, ": ", trace.status().message()));
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
