// libFuzzer target: karp::json::ParseSnapshot on arbitrary bytes (JSON or YAML), every kind
// including the storage kinds, workloads, LimitRanges, node classes and NodeOverlays (applied
// to a small catalog: no error, one outcome each, prices in range). It must never crash,
// hang or throw; errors must be InvalidArgument. Whatever parses must survive WriteSnapshot ->
// ParseSnapshot unchanged (operator== on every object), and the written text must be a fixed
// point. A snapshot that validates also goes through the volume rules (karp/volumes.h) for
// every pod, and through admission (ExpandWorkloads with a small pod budget, then
// ApplyLimitRanges), after which it must still validate and expanding again adds nothing. The
// three field-validation modes (strict, warn, ignore) must agree on what they accept.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "karp/cluster.h"
#include "karp/json/codec.h"
#include "karp/limit_range.h"
#include "karp/node_overlay.h"
#include "karp/volumes.h"
#include "karp/workloads.h"

namespace {

[[noreturn]] void Fail(std::string_view what, const std::string& detail) {
  std::fprintf(stderr, "snapshot_fuzz: %.*s\n%s\n", static_cast<int>(what.size()), what.data(),
               detail.c_str());
  std::abort();
}

template <typename T>
bool SameVector(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i])) return false;
  }
  return true;
}

// The snapshot's NodeOverlays over a two-type catalog for every NodePool: no error, one outcome
// per overlay, prices finite and >= 0.
void CheckOverlays(const karp::ClusterSnapshot& snap) {
  if (snap.node_overlays.empty()) return;
  static const auto* const kCatalog = [] {
    std::vector<karp::InstanceType> types;
    auto offering = [](const char* zone, const char* capacity_type, double price) {
      karp::Offering o;
      o.zone = zone;
      o.capacity_type = capacity_type;
      o.price = price;
      return o;
    };
    types.push_back(karp::InstanceType::Make(
        "small", {{"kubernetes.io/arch", "amd64"}}, karp::ResourceList{{"cpu", 2000}}, {},
        {offering("z1", "spot", 0.1), offering("z2", "on-demand", 0.2)}));
    types.push_back(karp::InstanceType::Make("large", {{"kubernetes.io/arch", "arm64"}},
                                             karp::ResourceList{{"cpu", 8000}}, {},
                                             {offering("z1", "on-demand", 0.8)}));
    return new std::shared_ptr<const karp::InstanceCatalog>(
        std::make_shared<const karp::InstanceCatalog>(*karp::InstanceCatalog::Create(types)));
  }();
  std::map<std::string, std::shared_ptr<const karp::InstanceCatalog>> by_pool;
  for (const karp::NodePool& np : snap.node_pools) by_pool[np.name()] = *kCatalog;
  absl::StatusOr<karp::NodeOverlayResult> r =
      karp::ApplyNodeOverlays(snap.node_pools, snap.node_overlays, by_pool);
  if (!r.ok()) Fail("ApplyNodeOverlays failed", std::string(r.status().message()));
  if (r->overlays.size() != snap.node_overlays.size()) Fail("an overlay without outcome", "");
  for (const auto& [pool, catalog] : r->by_node_pool) {
    for (const karp::InstanceType& it : catalog->instance_types()) {
      for (const karp::Offering& o : it.offerings) {
        if (!(o.price >= 0) || o.price == karp::kNoPrice) Fail("overlaid price out of range", "");
      }
    }
  }
}

// Workloads expanded (at most 1,000 pods, so that a large `replicas` stays fast), then
// LimitRange admission: the result must validate, and a second expansion adds nothing.
void Admit(karp::ClusterSnapshot snap) {
  karp::WorkloadOptions options;
  options.max_pods = 1000;
  absl::StatusOr<karp::WorkloadExpansion> e = karp::ExpandWorkloads(&snap, options);
  if (!e.ok()) {
    if (e.status().code() != absl::StatusCode::kResourceExhausted) {
      Fail("expansion error is not ResourceExhausted", std::string(e.status().ToString()));
    }
    return;
  }
  const karp::LimitRangeAdmission admission = karp::ApplyLimitRanges(&snap);
  if (absl::Status s = snap.Validate(); !s.ok()) {
    Fail("admitted snapshot does not validate", std::string(s.message()));
  }
  // A second expansion adds nothing, except pods in place of those admission rejected (as a
  // controller creates them again).
  absl::StatusOr<karp::WorkloadExpansion> again = karp::ExpandWorkloads(&snap, options);
  if (!again.ok() || again->pods_created > static_cast<int64_t>(admission.rejected.size())) {
    Fail("second expansion added pods", "");
  }
}

// The field-validation modes agree: what strict decoding accepts, ignore and warn accept as the
// same snapshot without unknown-field warnings; what ignore accepts, warn accepts as the same
// snapshot.
void CheckValidationModes(std::string_view text,
                          const absl::StatusOr<karp::ClusterSnapshot>& strict) {
  using karp::json::FieldValidation;
  absl::StatusOr<karp::ClusterSnapshot> ignored =
      karp::json::ParseSnapshot(text, "fuzz.json", FieldValidation::kIgnore);
  if (strict.ok() && !ignored.ok()) {
    Fail("strict accepts what ignore refuses", std::string(ignored.status().message()));
  }
  if (!ignored.ok()) return;
  absl::StatusOr<karp::ClusterSnapshot> warned =
      karp::json::ParseSnapshot(text, "fuzz.json", FieldValidation::kWarn);
  if (!warned.ok()) {
    Fail("warn refuses what ignore accepts", std::string(warned.status().message()));
  }
  const std::string written = karp::json::WriteSnapshot(*ignored);
  if (karp::json::WriteSnapshot(*warned) != written) Fail("warn and ignore differ", written);
  if (strict.ok()) {
    if (karp::json::WriteSnapshot(*strict) != written) Fail("strict and ignore differ", written);
    for (const std::string& w : warned->warnings) {
      if (w.find(": unknown field") != std::string::npos) {
        Fail("strict accepted an unknown field that warn reports", w);
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<karp::ClusterSnapshot> snap = karp::json::ParseSnapshot(text, "fuzz.json");
  CheckValidationModes(text, snap);
  if (!snap.ok()) {
    if (snap.status().code() != absl::StatusCode::kInvalidArgument) {
      Fail("error is not InvalidArgument", std::string(snap.status().ToString()));
    }
    return 0;
  }
  const bool valid = snap->Validate().ok();
  (void)snap->PendingPods();
  if (valid) {
    // The volume rules must not crash on whatever the codec accepts.
    const karp::StorageIndex storage(*snap);
    for (const karp::Pod& pod : snap->pods) {
      (void)storage.ValidatePod(pod);
      (void)storage.Topology(pod);
      (void)storage.Usage(pod);
      if (!pod.node_name.empty()) (void)storage.Limits(pod.node_name);
    }
    CheckOverlays(*snap);
  }

  const std::string written = karp::json::WriteSnapshot(*snap);
  absl::StatusOr<karp::ClusterSnapshot> again = karp::json::ParseSnapshot(written, "written.json");
  if (!again.ok()) {
    Fail("written snapshot does not parse", std::string(again.status().message()) + "\n" + written);
  }
  if (!SameVector(snap->node_pools, again->node_pools)) Fail("node pools differ", written);
  if (!SameVector(snap->node_claims, again->node_claims)) Fail("node claims differ", written);
  if (!SameVector(snap->nodes, again->nodes)) Fail("nodes differ", written);
  if (!SameVector(snap->pods, again->pods)) Fail("pods differ", written);
  if (!SameVector(snap->daemon_sets, again->daemon_sets)) Fail("daemon sets differ", written);
  if (!SameVector(snap->pdbs, again->pdbs)) Fail("pdbs differ", written);
  if (!SameVector(snap->persistent_volume_claims, again->persistent_volume_claims)) {
    Fail("persistent volume claims differ", written);
  }
  if (!SameVector(snap->persistent_volumes, again->persistent_volumes)) {
    Fail("persistent volumes differ", written);
  }
  if (!SameVector(snap->storage_classes, again->storage_classes)) {
    Fail("storage classes differ", written);
  }
  if (!SameVector(snap->csi_nodes, again->csi_nodes)) Fail("csi nodes differ", written);
  if (!SameVector(snap->workloads, again->workloads)) Fail("workloads differ", written);
  if (!SameVector(snap->limit_ranges, again->limit_ranges)) Fail("limit ranges differ", written);
  if (!SameVector(snap->node_classes, again->node_classes)) Fail("node classes differ", written);
  if (!SameVector(snap->node_overlays, again->node_overlays)) {
    Fail("node overlays differ", written);
  }
  if (karp::json::WriteSnapshot(*again) != written)
    Fail("written text is not a fixed point", written);
  if (valid) Admit(*std::move(snap));
  return 0;
}
