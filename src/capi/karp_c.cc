// The C API (karp/c/karp.h) over the library functions the CLI uses (karp/json/command_io.h), so
// that both give the same bytes. Every entry point catches everything: nothing crosses the C seam.

#include "karp/c/karp.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "internal/strings.h"
#include "karp/aws_catalog.h"
#include "karp/consolidator.h"
#include "karp/json/codec.h"
#include "karp/json/command_io.h"
#include "karp/json/sim_trace.h"
#include "karp/node_class_catalog.h"
#include "karp/scheduler.h"
#include "karp/sim/simulator.h"
#include "karp/version.h"

namespace karp::capi {
namespace {

char* CopyOut(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p == nullptr) return nullptr;
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

karp_status StatusCode(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kOk:
      return KARP_OK;
    case absl::StatusCode::kResourceExhausted:
      return KARP_RESOURCE_EXHAUSTED;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return KARP_INVALID_ARGUMENT;
    default:
      return KARP_INTERNAL;
  }
}

// Fills the out-parameters from `result` (the output text or the error).
karp_status Finish(const absl::StatusOr<std::string>& result, char** out, size_t* out_size,
                   char** error) {
  *out = nullptr;
  if (out_size != nullptr) *out_size = 0;
  if (!result.ok()) {
    if (error != nullptr) {
      *error = CopyOut(internal::EscapeForMessage(internal::Message(result.status())));
    }
    return StatusCode(result.status());
  }
  *out = CopyOut(*result);
  if (*out == nullptr) {
    if (error != nullptr) *error = CopyOut("out of memory");
    return KARP_INTERNAL;
  }
  if (out_size != nullptr) *out_size = result->size();
  return KARP_OK;
}

absl::StatusOr<json::Input> ToInput(const karp_input* in, const char* fallback_source) {
  if (in == nullptr || (in->data == nullptr && in->size > 0)) {
    return absl::InvalidArgumentError(internal::StrCat(fallback_source, ": no data"));
  }
  if (in->size > static_cast<size_t>(json::kDefaultMaxInputBytes)) {
    return absl::ResourceExhaustedError(internal::StrCat(in->source ? in->source : fallback_source,
                                                         ": larger than ",
                                                         json::kDefaultMaxInputBytes, " bytes"));
  }
  // YAML is read as a tree of values, several times its size: the CLI's YAML cap applies to
  // texts in memory too (JSON, the first character that is not white space `{` or `[`).
  if (in->size > static_cast<size_t>(json::kDefaultMaxYamlBytes)) {
    const std::string_view text(in->data, in->size);
    const size_t first = text.find_first_not_of(" \t\r\n");
    const bool json_text =
        first != std::string_view::npos &&
        (text[first] == '{' || text[first] == '[' || text.substr(first, 3) == "\xEF\xBB\xBF");
    if (!json_text) {
      return absl::ResourceExhaustedError(internal::StrCat(
          in->source ? in->source : fallback_source, ": larger than the input limit of ",
          json::kDefaultMaxYamlBytes, " bytes for YAML"));
    }
  }
  json::Input input;
  input.source = in->source != nullptr ? in->source : fallback_source;
  input.text.assign(in->data == nullptr ? "" : in->data, in->size);
  return input;
}

absl::StatusOr<json::RunOptions> Options(const char* options) {
  return json::ParseRunOptions(options == nullptr ? "" : options, "options");
}

absl::StatusOr<ClusterSnapshot> Snapshot(const karp_input* inputs, size_t count,
                                         const json::RunOptions& o) {
  if (inputs == nullptr || count == 0) {
    return absl::InvalidArgumentError("snapshot: no input given");
  }
  std::vector<json::Input> texts;
  for (size_t i = 0; i < count; ++i) {
    absl::StatusOr<json::Input> in = ToInput(&inputs[i], "snapshot");
    if (!in.ok()) return in.status();
    texts.push_back(std::move(*in));
  }
  json::ReadOptions read;
  read.expand_workloads = o.expand_workloads;
  read.validation = o.validation;
  return json::ParseSnapshotInputs(texts, read);
}

// The catalog text, or the embedded catalog the options name ("sim" only where allowed).
absl::StatusOr<std::shared_ptr<const InstanceCatalog>> Catalog(const karp_input* catalog,
                                                               const json::RunOptions& o,
                                                               bool sim_default) {
  absl::StatusOr<InstanceCatalog> loaded = absl::UnknownError("unset");
  const std::string which = o.catalog.empty() ? (sim_default ? "sim" : "aws") : o.catalog;
  if (catalog != nullptr) {
    absl::StatusOr<json::Input> in = ToInput(catalog, "catalog");
    if (!in.ok()) return in.status();
    loaded = json::ParseCatalog(in->text, in->source);
  } else if (which == "sim") {
    if (!sim_default) {
      return absl::InvalidArgumentError("options: catalog: \"sim\" is for simulate only");
    }
    loaded = sim::SimulationCatalog();
  } else {
    AwsCatalogOptions aws;
    aws.region = o.region;
    aws.zones = o.zones;
    loaded = EmbeddedAwsCatalog(aws);
  }
  if (!loaded.ok()) return loaded.status();
  return std::make_shared<const InstanceCatalog>(std::move(*loaded));
}

// The options Catalog() built the embedded AWS catalog with, or nullopt for a catalog text or
// the simulation catalog (NodePoolCatalogOptions::embedded).
std::optional<AwsCatalogOptions> EmbeddedOptions(const karp_input* catalog,
                                                 const json::RunOptions& o, bool sim_default) {
  const std::string which = o.catalog.empty() ? (sim_default ? "sim" : "aws") : o.catalog;
  if (catalog != nullptr || which != "aws") return std::nullopt;
  AwsCatalogOptions aws;
  aws.region = o.region;
  aws.zones = o.zones;
  return aws;
}

// The instance types of the NodePools of `snapshot` under their EC2NodeClasses and
// NodeOverlays (when `node_overlays`), as the CLI builds them (tools/node_classes.cc, without
// its stderr notes): *shared stays `base` without node classes and overlays; otherwise it becomes
// the catalog every NodePool shares, or null with one catalog per NodePool in *by_node_pool.
absl::Status NodeClassCatalogs(
    const ClusterSnapshot& snapshot, const std::optional<AwsCatalogOptions>& embedded,
    bool node_overlays, std::shared_ptr<const InstanceCatalog>* shared,
    std::map<std::string, std::shared_ptr<const InstanceCatalog>>* by_node_pool) {
  if (snapshot.node_classes.empty() && (!node_overlays || snapshot.node_overlays.empty())) {
    return absl::OkStatus();
  }
  NodePoolCatalogOptions options;
  options.embedded = embedded;
  options.node_overlays = node_overlays;
  absl::StatusOr<NodePoolCatalogs> catalogs = CatalogsByNodePool(snapshot, *shared, options);
  if (!catalogs.ok()) return catalogs.status();
  if (catalogs->by_node_pool.empty()) return absl::OkStatus();
  *shared = catalogs->Uniform();
  if (*shared == nullptr) *by_node_pool = std::move(catalogs->by_node_pool);
  return absl::OkStatus();
}

// What solve and consolidate both read: options, snapshot and catalogs.
struct Prepared {
  json::RunOptions options;
  ClusterSnapshot snapshot;
  std::shared_ptr<const InstanceCatalog> base;     // the catalog loaded
  std::shared_ptr<const InstanceCatalog> catalog;  // every NodePool's, or null: by_node_pool
  std::map<std::string, std::shared_ptr<const InstanceCatalog>> by_node_pool;
};

absl::StatusOr<Prepared> Prepare(const karp_input* snapshot, size_t count,
                                 const karp_input* catalog, const char* options) {
  absl::StatusOr<json::RunOptions> o = Options(options);
  if (!o.ok()) return o.status();
  absl::StatusOr<ClusterSnapshot> snap = Snapshot(snapshot, count, *o);
  if (!snap.ok()) return snap.status();
  auto types = Catalog(catalog, *o, false);
  if (!types.ok()) return types.status();
  Prepared p{std::move(*o), std::move(*snap), *types, *types, {}};
  absl::Status s = NodeClassCatalogs(p.snapshot, EmbeddedOptions(catalog, p.options, false),
                                     p.options.node_overlays, &p.catalog, &p.by_node_pool);
  if (!s.ok()) return s;
  return p;
}

absl::StatusOr<std::string> Solve(const karp_input* snapshot, size_t count,
                                  const karp_input* catalog, const char* options) {
  absl::StatusOr<Prepared> in = Prepare(snapshot, count, catalog, options);
  if (!in.ok()) return in.status();
  SchedulerOptions scheduler_options = in->options.scheduler;
  scheduler_options.compute_lower_bound = true;  // as `karp solve`: summary.lowerBoundPerHour
  absl::StatusOr<Scheduler> scheduler =
      in->catalog != nullptr ? Scheduler::Create(in->snapshot, in->catalog, scheduler_options)
                             : Scheduler::Create(in->snapshot, in->by_node_pool, scheduler_options);
  if (!scheduler.ok()) return scheduler.status();
  absl::StatusOr<SolveResult> result = scheduler->Solve();
  if (!result.ok()) return result.status();
  return json::SolveOutput(*result, in->snapshot, in->options.output);
}

absl::StatusOr<std::string> Consolidate(const karp_input* snapshot, size_t count,
                                        const karp_input* catalog, const char* options) {
  absl::StatusOr<Prepared> in = Prepare(snapshot, count, catalog, options);
  if (!in.ok()) return in.status();
  const json::RunOptions& o = in->options;
  ConsolidationOptions co;
  co.scheduler = o.scheduler;
  co.once = o.once;
  co.spot_to_spot = o.spot_to_spot;
  if (o.legacy_order) co.candidate_order = CandidateOrder::kDisruptionCost;
  if (o.repack) co.mode = ConsolidationMode::kRepack;
  const absl::Time now = o.now.value_or(absl::Now());
  absl::StatusOr<Consolidator> consolidator =
      in->catalog != nullptr ? Consolidator::Create(in->snapshot, in->catalog, now, co)
                             : Consolidator::Create(in->snapshot, in->by_node_pool, now, co);
  if (!consolidator.ok()) return consolidator.status();
  absl::StatusOr<ConsolidationPlan> plan = consolidator->Plan();
  if (!plan.ok()) return plan.status();
  return json::ConsolidateOutput(*plan, in->snapshot, o.output);
}

absl::StatusOr<std::string> Catalog(const karp_input* catalog, const char* options) {
  absl::StatusOr<json::RunOptions> o = Options(options);
  if (!o.ok()) return o.status();
  auto types = Catalog(catalog, *o, false);
  if (!types.ok()) return types.status();
  return json::CatalogOutput(**types, o->output);
}

absl::StatusOr<std::vector<sim::Policy>> Policies(const std::vector<std::string>& names) {
  if (names.empty()) return sim::StandardPolicies();
  std::vector<sim::Policy> out;
  for (const std::string& name : names) {
    const size_t before = out.size();
    for (const sim::Policy& p : sim::AllPolicies()) {
      if (p.name == name) out.push_back(p);
    }
    if (out.size() == before) {
      return absl::InvalidArgumentError(
          internal::StrCat("options: policies: unknown policy \"", name, "\""));
    }
  }
  return out;
}

absl::StatusOr<std::string> Simulate(const karp_input* trace, const karp_input* catalog,
                                     const char* options) {
  absl::StatusOr<json::RunOptions> o = Options(options);
  if (!o.ok()) return o.status();
  absl::StatusOr<json::Input> in = ToInput(trace, "trace");
  if (!in.ok()) return in.status();
  absl::StatusOr<sim::Trace> parsed = json::ParseSimTrace(in->text, in->source);
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<std::vector<sim::Policy>> policies = Policies(o->policies);
  if (!policies.ok()) return policies.status();
  sim::SimOptions so;
  if (o->sample) so.sample_interval = *o->sample;
  if (o->disruption_interval) so.disruption_interval = *o->disruption_interval;
  if (o->launch_latency) so.launch_latency = *o->launch_latency;
  so.record_events = false;
  so.default_topology_spread = o->scheduler.default_topology_spread;
  constexpr int64_t kMaxSamples = 1000000;  // as `karp simulate`
  if (parsed->duration / so.sample_interval > kMaxSamples) {
    return absl::InvalidArgumentError(internal::StrCat("options: sample: would record more than ",
                                                       kMaxSamples, " samples per policy"));
  }
  auto types = Catalog(catalog, *o, true);
  if (!types.ok()) return types.status();
  // The simulator takes one catalog: the base when NodePools' classes or overlays differ (as
  // the CLI).
  std::shared_ptr<const InstanceCatalog> shared = *types;
  std::map<std::string, std::shared_ptr<const InstanceCatalog>> by_node_pool;
  absl::Status s = NodeClassCatalogs(parsed->cluster, EmbeddedOptions(catalog, *o, true),
                                     o->node_overlays, &shared, &by_node_pool);
  if (!s.ok()) return s;
  if (shared == nullptr) shared = *types;
  std::vector<sim::SimResult> results;
  for (const sim::Policy& p : *policies) {
    absl::StatusOr<sim::SimResult> r = sim::Simulate(*parsed, shared, p, so);
    if (!r.ok()) return r.status();
    results.push_back(std::move(*r));
  }
  return sim::WriteSamplesCsv(results);
}

// Runs `body` with the C seam's guarantees: a NULL `out` is an error, and no exception leaves.
template <typename Body>
karp_status Guarded(char** out, size_t* out_size, char** error, Body body) {
  if (error != nullptr) *error = nullptr;
  if (out == nullptr) {
    if (error != nullptr) *error = CopyOut("out: must not be NULL");
    return KARP_INVALID_ARGUMENT;
  }
  try {
    return Finish(body(), out, out_size, error);
  } catch (const std::bad_alloc&) {
    return Finish(absl::InternalError("out of memory"), out, out_size, error);
  } catch (const std::exception& e) {
    return Finish(absl::InternalError(internal::StrCat("internal error: ", e.what())), out,
                  out_size, error);
  } catch (...) {
    return Finish(absl::InternalError("internal error"), out, out_size, error);
  }
}

}  // namespace
}  // namespace karp::capi

extern "C" {

int karp_abi_version(void) { return KARP_C_ABI_VERSION; }

const char* karp_version(void) { return KARP_VERSION_STRING; }

const char* karp_status_name(karp_status status) {
  switch (status) {
    case KARP_OK:
      return "OK";
    case KARP_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case KARP_RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case KARP_INTERNAL:
      return "INTERNAL";
  }
  return "UNKNOWN";
}

karp_status karp_solve(const karp_input* snapshot, size_t count, const karp_input* catalog,
                       const char* options, char** out, size_t* out_size, char** error) {
  return karp::capi::Guarded(out, out_size, error,
                             [&] { return karp::capi::Solve(snapshot, count, catalog, options); });
}

karp_status karp_consolidate(const karp_input* snapshot, size_t count, const karp_input* catalog,
                             const char* options, char** out, size_t* out_size, char** error) {
  return karp::capi::Guarded(out, out_size, error, [&] {
    return karp::capi::Consolidate(snapshot, count, catalog, options);
  });
}

karp_status karp_catalog(const karp_input* catalog, const char* options, char** out,
                         size_t* out_size, char** error) {
  return karp::capi::Guarded(out, out_size, error,
                             [&] { return karp::capi::Catalog(catalog, options); });
}

karp_status karp_simulate(const karp_input* trace, const karp_input* catalog, const char* options,
                          char** out, size_t* out_size, char** error) {
  return karp::capi::Guarded(out, out_size, error,
                             [&] { return karp::capi::Simulate(trace, catalog, options); });
}

karp_status karp_read_file(const char* path, long long max_bytes, char** out, size_t* out_size,
                           char** error) {
  return karp::capi::Guarded(out, out_size, error, [&]() -> absl::StatusOr<std::string> {
    if (path == nullptr) return absl::InvalidArgumentError("path: must not be NULL");
    if (max_bytes < 0) {
      return absl::InvalidArgumentError("max_bytes: must be 0 (the defaults) or positive");
    }
    karp::json::ReadOptions read;
    if (max_bytes > 0) {
      read.max_input_bytes = read.max_stream_bytes = read.max_yaml_bytes = max_bytes;
    }
    return karp::json::ReadFile(path, read);
  });
}

void karp_free(void* buffer) { std::free(buffer); }

}  // extern "C"
