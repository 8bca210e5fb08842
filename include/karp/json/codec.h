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
// cluster (a 100,000-pod snapshot is about 100 MB), low enough that `-f /dev/zero` or an
// endless pipe fails fast instead of exhausting memory.
inline constexpr int64_t kDefaultMaxInputBytes = int64_t{2} << 30;  // 2 GiB

struct ReadOptions {
  // Inputs larger than this fail with ResourceExhausted naming the file.
  int64_t max_input_bytes = kDefaultMaxInputBytes;
};

// Parses one input text (JSON, or YAML with one or more `---`-separated documents) holding
// Kubernetes objects or Lists of them into a snapshot. `source` names the input in error
// messages (usually the file name). Objects of unknown kinds are skipped, counted and named
// (ClusterSnapshot::skipped); older Karpenter APIs (v1alpha5 Provisioner, v1beta1 NodePool and
// NodeClaim; AWS node classes) are read as their v1 form (karp/json/convert.h). Every
// object passes its field validator (ValidatePod, ValidateNodePool, ... of karp/objects.h);
// repeated keys in a mapping are rejected as Kubernetes' strict decoding does. Pod scheduling
// constraints that the reference ignores pods for are not errors here (Solve reports them).
// Errors: InvalidArgument `<source>: <path>: <what>` (input text escaped); `no objects in
// <source>` for an input with no document.
[[nodiscard]] absl::StatusOr<ClusterSnapshot> ParseSnapshot(std::string_view text,
                                                            std::string_view source);

// Reads and merges several files ("-" reads standard input); an object defined twice, in one
// file or across files, is an error naming both places. Errors: InvalidArgument as above;
// NotFound when a file cannot be read; ResourceExhausted when one is larger than
// `options.max_input_bytes`.
[[nodiscard]] absl::StatusOr<ClusterSnapshot> ReadSnapshotFiles(
    const std::vector<std::string>& paths, const ReadOptions& options = {});

// Writes a snapshot as a `v1` `List` of Kubernetes objects (NodePools, NodeClaims, Nodes,
// Pods, DaemonSets, PodDisruptionBudgets, PersistentVolumeClaims, PersistentVolumes,
// StorageClasses, CSINodes, in that order). ParseSnapshot(WriteSnapshot(s))
// reproduces `s` (round trip).
std::string WriteSnapshot(const ClusterSnapshot& snapshot);

// Parses a catalog document (docs/formats.md §2) into instance types. Errors: InvalidArgument
// `<source>: instanceTypes[i].<field>: <what>`.
[[nodiscard]] absl::StatusOr<std::vector<InstanceType>> ParseInstanceTypes(
    std::string_view text, std::string_view source);
// ParseInstanceTypes then InstanceCatalog::Create (label keys registered as well-known).
[[nodiscard]] absl::StatusOr<InstanceCatalog> ParseCatalog(std::string_view text,
                                                           std::string_view source);
// Reads a catalog file. Errors: NotFound when unreadable, InvalidArgument as above,
// ResourceExhausted when larger than `options.max_input_bytes`.
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
