// File: karp/json/codec.h
//
// karp::json — the JSON/YAML codec of the wire formats in docs/formats.md: cluster snapshots as
// `kubectl get ... -o json` prints them (a List or single objects; YAML with several
// documents too), and instance-type catalogs (docs/formats.md §2). This target (karp::json) is the
// only user of nlohmann/json and yaml-cpp; the core library never sees them.
//
// Errors name the source and the JSON path of the offending value:
//   pods.json: items[3].spec.containers[0].resources.requests.cpu: invalid quantity "1.5.3"
// Hostile input (truncated documents, wrong types, 100,000-deep nesting, huge numbers) yields
// InvalidArgument, never a crash, hang or exception.
//
// Example:
//   absl::StatusOr<karp::ClusterSnapshot> snap =
//       karp::json::ReadSnapshotFiles({"nodepools.yaml", "pods.json"});
//   if (!snap.ok()) { std::cerr << snap.status().message() << "\n"; return 1; }
//
// Thread-safety: all functions are thread-safe (no shared state).

#ifndef KARP_JSON_CODEC_H_
#define KARP_JSON_CODEC_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/catalog.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/scheduler.h"

namespace karp::json {

// Maximum nesting depth accepted in any document.
inline constexpr int kMaxDepth = 256;

// Default cap on the bytes one read accepts (a file, or standard input): far above any real
// cluster (a 100,000-pod snapshot is about 100 MB of JSON). A regular file is measured before
// it is read, so this much is never buffered in vain.
inline constexpr int64_t kDefaultMaxInputBytes = int64_t{2} << 30;  // 2 GiB
// Default cap on a stream (standard input, a pipe, a device such as /dev/zero): a stream is
// buffered before its size is known, and JSON peaks at about 3.6x its size while it is read
// and decoded (measured: 127 MB of pods, 460 MB), so about 4 GB at this cap.
inline constexpr int64_t kDefaultMaxStreamBytes = int64_t{1} << 30;  // 1 GiB
// Default cap on a YAML text (any source). A YAML List is decoded item by item and several
// `---` documents one document at a time, so reading peaks near what JSON takes (40,000 pods
// in 13 MB of documents: 157 MB with the decoded snapshot, as their JSON List); one large
// object (a single document that is not a List) is still built whole as a tree of values, up to
// 35x its size, so 4.5 GB at most at this cap. A 100,000-pod snapshot is about 94 MB of YAML.
inline constexpr int64_t kDefaultMaxYamlBytes = int64_t{128} << 20;  // 128 MiB

// The caps apply together: a regular JSON file may have max_input_bytes, a stream the smaller
// of that and max_stream_bytes, a YAML text (as LoadDocuments tells it: the first character
// that is not white space is not `{` or `[`) also no more than max_yaml_bytes. Exceeding the
// cap that applies fails with ResourceExhausted naming the file, the limit and the flag
// (`--max-input-bytes N` sets all three), as soon as it is known: before a regular file is
// read (its first 64 KiB tell JSON from YAML), while a stream is read.
// What an object field that its kind's schema lacks does (a typo such as `requirments:` or
// `memroy:` that would otherwise be ignored and change a decision silently). The schemas are
// Kubernetes' OpenAPI document (release 1.36) and the Karpenter CRDs (v1 and the older
// versions karp converts), generated into karp (docs/formats.md §1.5); objects of kinds karp
// does not read are not checked.
enum class FieldValidation {
  // An error naming the path and the nearest known field, as `kubectl --validate=strict`:
  //   pools.yaml: spec.template.spec.requirments: unknown field; did you mean requirements?
  kStrict,
  // One warning per unknown field (ClusterSnapshot::warnings; the first 20, then a count).
  kWarn,
  // Unknown fields are ignored.
  kIgnore,
};

struct ReadOptions {
  // `--validate=strict|warn|ignore`.
  FieldValidation validation = FieldValidation::kStrict;
  int64_t max_input_bytes = kDefaultMaxInputBytes;
  int64_t max_stream_bytes = kDefaultMaxStreamBytes;
  int64_t max_yaml_bytes = kDefaultMaxYamlBytes;
  // Whether workload objects (Deployment, ReplicaSet, StatefulSet, Job, CronJob,
  // ReplicationController) become the pods their controllers would create
  // (karp::ExpandWorkloads, karp/workloads.h). false (`--no-expand-workloads`): they are kept
  // in ClusterSnapshot::workloads, create nothing and are listed as skipped.
  bool expand_workloads = true;
};

// Parses one input text (JSON, or YAML with one or more `---`-separated documents) holding
// Kubernetes objects or Lists of them into a snapshot. `source` names the input in error
// messages (usually the file name). Objects of unknown kinds are skipped, counted and named
// (ClusterSnapshot::skipped); older Karpenter APIs (v1alpha5 Provisioner, v1beta1 NodePool and
// NodeClaim; AWS node classes) are read as their v1 form (karp/json/convert.h). Every
// object passes its field validator (ValidatePod, ValidateNodePool, ... of karp/objects.h);
// repeated keys in a mapping are rejected as Kubernetes' strict decoding does, and a field its
// kind's schema lacks as `validation` says (FieldValidation). Pod scheduling
// constraints that the reference ignores pods for are not errors here (Solve reports them).
// Errors: InvalidArgument `<source>: <path>: <what>` (input text escaped); `no objects in
// <source>` for an input with no document.
[[nodiscard]] absl::StatusOr<ClusterSnapshot> ParseSnapshot(
    std::string_view text, std::string_view source,
    FieldValidation validation = FieldValidation::kStrict);

// Reads and merges several files ("-" reads standard input); an object defined twice, in one
// file or across files, is an error naming both places. Then what the API server and the
// controllers would do before a controller sees the objects: workloads become the pods their
// controllers create (ReadOptions::expand_workloads; what was created is listed in
// ClusterSnapshot::notes). ParseSnapshot does only the decoding. Errors: InvalidArgument as
// above; NotFound when a file cannot be read; ResourceExhausted when one is larger than
// the cap of `options` that applies to it (ReadOptions) or when workloads would create more than
// 1,000,000 pods.
[[nodiscard]] absl::StatusOr<ClusterSnapshot> ReadSnapshotFiles(
    const std::vector<std::string>& paths, const ReadOptions& options = {});

// The bytes of the file at `path` ("-": standard input) as ReadSnapshotFiles reads each input:
// a regular file is measured before it is read, a stream is cut off as soon as it passes the
// cap of `options` that applies (ReadOptions). For hosts and bindings that read inputs
// themselves (the C API's karp_read_file, the Python module). Errors: NotFound `<path>: cannot
// read file: <the OS's reason>`; ResourceExhausted `<path>: larger than the input limit of N
// bytes[ for a stream| for YAML] (see --max-input-bytes)`. O(size of the file).
[[nodiscard]] absl::StatusOr<std::string> ReadFile(const std::string& path,
                                                   const ReadOptions& options = {});

// Writes a snapshot as a `v1` `List` of Kubernetes objects (NodePools, NodeClaims, Nodes,
// Pods, DaemonSets, PodDisruptionBudgets, PersistentVolumeClaims, PersistentVolumes,
// StorageClasses, CSINodes, in that order). ParseSnapshot(WriteSnapshot(s))
// reproduces `s` (round trip).
std::string WriteSnapshot(const ClusterSnapshot& snapshot);

// Parses a catalog document (docs/formats.md §2) into instance types. Errors: InvalidArgument
// `<source>: instanceTypes[i].<field>: <what>`.
[[nodiscard]] absl::StatusOr<std::vector<InstanceType>> ParseInstanceTypes(std::string_view text,
                                                                           std::string_view source);
// ParseInstanceTypes then InstanceCatalog::Create (label keys registered as well-known).
[[nodiscard]] absl::StatusOr<InstanceCatalog> ParseCatalog(std::string_view text,
                                                           std::string_view source);
// Reads a catalog file. Errors: NotFound when unreadable, InvalidArgument as above,
// ResourceExhausted when larger than the cap of `options` that applies to it (ReadOptions).
[[nodiscard]] absl::StatusOr<InstanceCatalog> ReadCatalogFile(const std::string& path,
                                                              const ReadOptions& options = {});

// Writes a catalog in the format of docs/formats.md §2, types in name order, canonical quantities,
// prices as JSON numbers in the shortest form that reads back exactly. Deterministic.
// `indent` < 0 writes one line; otherwise pretty-prints with that indent.
std::string WriteCatalog(const InstanceCatalog& catalog, int indent = 1);

// Writes a solve result as `karp solve -o json` prints it (docs/formats.md §3): nodeClaims,
// existingNodes, podErrors and summary (`skipped_objects` from the snapshot). Deterministic.
std::string WriteSolveResult(const SolveResult& result, int skipped_objects, int indent = 1);
// The same text written to `out` as it is produced, in chunks of about 1 MiB, instead of
// returned whole (a large result is never held in memory twice). Stream errors are left in
// `out`'s state. Complexity: linear in the size of the text.
void WriteSolveResult(const SolveResult& result, int skipped_objects, std::ostream& out,
                      int indent = 1);
// As above with the snapshot's skipped objects named (ClusterSnapshot::skipped): the summary's
// `skippedObjects` counts them and, when there are any, `skipped` lists them.
std::string WriteSolveResult(const SolveResult& result, const std::vector<std::string>& skipped,
                             int indent = 1);
void WriteSolveResult(const SolveResult& result, const std::vector<std::string>& skipped,
                      std::ostream& out, int indent = 1);
// As above with the snapshot's skipped objects and, when there are any, its warnings (summary
// `warnings`: unknown fields under FieldValidation::kWarn, what an older-API conversion
// dropped): what `karp solve -o json` and the C API write.
std::string WriteSolveResult(const SolveResult& result, const ClusterSnapshot& snapshot,
                             int indent = 1);
void WriteSolveResult(const SolveResult& result, const ClusterSnapshot& snapshot, std::ostream& out,
                      int indent = 1);

// Writes the new claims as karpenter.sh/v1 NodeClaim objects in a v1 List
// (`karp solve -o nodeclaims`); `snapshot` supplies each claim's NodePool (nodeClassRef,
// expireAfter, terminationGracePeriod).
std::string WriteNodeClaims(const SolveResult& result, const ClusterSnapshot& snapshot,
                            int indent = 1);

// Writes a consolidation plan as `karp consolidate -o json` prints it (docs/formats.md §4):
// commands (replacements in the node-claim shape of §3), kept and summary. Deterministic.
std::string WriteConsolidationPlan(const ConsolidationPlan& plan, int indent = 1);

}  // namespace karp::json

#endif  // KARP_JSON_CODEC_H_
