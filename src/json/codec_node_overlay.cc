// karp::json: NodeOverlay (`karpenter.sh/v1alpha1`) objects of a snapshot (karp/node_overlay.h),
// read and written in their Kubernetes form. An overlay the CRD's schema and CEL rules would
// refuse is an input error; one that only the controller's runtime validation refuses is read,
// and ApplyNodeOverlays reports it.

#include <string>

#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_fields.h"
#include "json/encoders.h"
#include "karp/node_overlay.h"

namespace karp::json::codec_internal {

absl::Status DecodeNodeOverlay(const FieldReader& item, NodeOverlay* out) {
  KARP_ASSIGN_OR_RETURN(FieldReader meta, item.Object("metadata"));
  KARP_RETURN_IF_ERROR(ReadMeta(meta, &out->metadata));
  out->metadata.namespace_.clear();  // cluster-scoped
  KARP_ASSIGN_OR_RETURN(FieldReader spec, item.Object("spec"));
  KARP_RETURN_IF_ERROR(DecodeRequirements(spec, RequirementOwner::kNodeClaim, &out->requirements));
  KARP_RETURN_IF_ERROR(spec.String("price", &out->price));
  KARP_RETURN_IF_ERROR(spec.String("priceAdjustment", &out->price_adjustment));
  KARP_RETURN_IF_ERROR(spec.Resources("capacity", &out->capacity));
  KARP_RETURN_IF_ERROR(spec.Int32("weight", &out->weight));
  absl::Status valid = ValidateNodeOverlay(*out, NodeOverlayChecks::kSchema);
  if (!valid.ok()) {
    return absl::InvalidArgumentError(JoinPath(item.path(), internal::Message(valid)));
  }
  return absl::OkStatus();
}

Json NodeOverlayJson(const NodeOverlay& o) {
  Json j = Json::object();
  j["apiVersion"] = "karpenter.sh/v1alpha1";
  j["kind"] = "NodeOverlay";
  j["metadata"] = ObjectMetaJson(o.metadata, false);
  Json spec = Json::object();
  spec["requirements"] = RequirementsJson(o.requirements);
  if (o.price) spec["price"] = *o.price;
  if (o.price_adjustment) spec["priceAdjustment"] = *o.price_adjustment;
  if (!o.capacity.empty()) spec["capacity"] = ResourcesJson(o.capacity);
  if (o.weight) spec["weight"] = *o.weight;
  j["spec"] = std::move(spec);
  return j;
}

}  // namespace karp::json::codec_internal
