// karp::json decoding of instance-type catalogs (docs/formats.md §2): karp's own format,
// always read strictly against docs/schemas/catalog.schema.json, by the fast reader when it takes
// the text.

#include "karp/json/codec.h"

#include <string.h>

#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/codec_fields.h"
#include "json/document.h"
#include "json/fast_json.h"
#include "json/field_reader.h"
#include "json/schema.h"

namespace karp::json {
namespace {

using codec_internal::AsInt64;
using codec_internal::Document;
using codec_internal::Escaped;
using codec_internal::FieldReader;
using codec_internal::ForEachObject;
using codec_internal::IndexPath;
using codec_internal::JoinPath;
using codec_internal::Json;
using codec_internal::KubernetesObject;
using codec_internal::LiteFieldReader;
using codec_internal::LiteValue;
using codec_internal::LoadDocuments;
using codec_internal::LoadJsonStreamingItems;
using codec_internal::PathError;
using codec_internal::ReadMeta;
using codec_internal::ReadNodeSelectorTerm;
using codec_internal::ReadWholeFile;
using codec_internal::WithSource;
using codec_internal::WrongType;
using internal::Message;

// ---------------------------------------------------------------------------------------------
// Catalog

// The highest price per hour an offering may have.
constexpr double kMaxOfferingPrice = 1e6;

template <typename R>
absl::Status ReadInstanceType(const R& o, InstanceType* out) {
  std::string name;
  KARP_RETURN_IF_ERROR(o.RequiredString("name", &name));
  if (name.empty()) return PathError(o.At("name"), "must not be empty");
  std::map<std::string, std::string> labels;
  KARP_RETURN_IF_ERROR(o.StringMap("labels", &labels));
  // Derived from the name and the offerings (docs/formats.md §2).
  labels.erase(std::string(kLabelInstanceType));
  labels.erase(std::string(kLabelZone));
  labels.erase(std::string(kLabelCapacityType));
  ResourceList capacity;
  KARP_RETURN_IF_ERROR(o.Resources("capacity", &capacity));
  Overhead overhead;
  KARP_ASSIGN_OR_RETURN(R oh, o.Object("overhead"));
  KARP_RETURN_IF_ERROR(oh.Resources("kubeReserved", &overhead.kube_reserved));
  KARP_RETURN_IF_ERROR(oh.Resources("systemReserved", &overhead.system_reserved));
  KARP_RETURN_IF_ERROR(oh.Resources("evictionThreshold", &overhead.eviction_threshold));
  std::vector<Offering> offerings;
  absl::flat_hash_map<std::string, size_t> seen_offerings;  // key -> first index
  KARP_RETURN_IF_ERROR(o.Objects("offerings", [&](const R& f) -> absl::Status {
    Offering off;
    KARP_RETURN_IF_ERROR(f.RequiredString("zone", &off.zone));
    if (off.zone.empty()) return PathError(f.At("zone"), "must not be empty");
    KARP_RETURN_IF_ERROR(f.RequiredString("capacityType", &off.capacity_type));
    if (off.capacity_type != kCapacityTypeOnDemand && off.capacity_type != kCapacityTypeSpot &&
        off.capacity_type != kCapacityTypeReserved) {
      return PathError(f.At("capacityType"),
                       internal::StrCat("unsupported value \"", off.capacity_type,
                                        "\"; expected on-demand, spot or reserved"));
    }
    const auto* price = f.Get("price");
    if (price == nullptr) return PathError(f.At("price"), "required");
    if (!price->is_number()) return WrongType(f.At("price"), "a number", *price);
    off.price = price->template get<double>();
    // No instance costs a million an hour; larger prices are typos that would overflow sums.
    if (!std::isfinite(off.price) || off.price < 0 || off.price > kMaxOfferingPrice) {
      return PathError(f.At("price"), internal::StrCat("must be a number between 0 and ",
                                                       static_cast<int64_t>(kMaxOfferingPrice),
                                                       ", got ", off.price));
    }
    KARP_RETURN_IF_ERROR(f.Bool("available", &off.available));
    KARP_RETURN_IF_ERROR(f.Bool("priceEstimated", &off.price_estimated));
    KARP_RETURN_IF_ERROR(f.String("reservationId", &off.reservation_id));
    std::optional<int64_t> rc;
    KARP_RETURN_IF_ERROR(f.Int64("reservationCapacity", &rc));
    if (rc) {
      if (*rc < 0) return PathError(f.At("reservationCapacity"), "must be >= 0");
      off.reservation_capacity = *rc;
    }
    // One offering per zone, capacity type and reservation: two at different prices would
    // otherwise be merged silently.
    auto [first, inserted] = seen_offerings.emplace(
        internal::StrCat(off.zone, "\n", off.capacity_type, "\n", off.reservation_id),
        offerings.size());
    if (!inserted) {
      return PathError(f.path(), internal::StrCat("duplicate offering (zone ", off.zone,
                                                  ", capacity type ", off.capacity_type,
                                                  "; first at offerings[", first->second, "])"));
    }
    offerings.push_back(std::move(off));
    return absl::OkStatus();
  }));
  // Optional constraints beyond the single-valued labels (karp extension of docs/formats.md §2),
  // e.g. DoesNotExist for optional provider labels the type lacks.
  std::vector<NodeSelectorRequirement> extra_api;
  KARP_RETURN_IF_ERROR(codec_internal::DecodeRequirements(
      o, codec_internal::RequirementOwner::kNodeClaim, &extra_api));
  absl::StatusOr<Requirements> extra = Requirements::FromApi(extra_api);
  if (!extra.ok()) {
    return PathError(o.At("requirements"), std::string(extra.status().message()));
  }
  *out = InstanceType::Make(std::move(name), std::move(labels), std::move(capacity),
                            std::move(overhead), std::move(offerings));
  if (!extra->empty()) out->RebuildRequirements(*extra);
  return absl::OkStatus();
}

// The instance types of a catalog document whose root is `root` (null: absent).
template <typename R>
absl::StatusOr<std::vector<InstanceType>> DecodeInstanceTypes(const R& root) {
  if (!root.present() || root.Get("instanceTypes") == nullptr) {
    return PathError(root.At("instanceTypes"), "required");
  }
  // karp's own format (docs/schemas/catalog.schema.json): always strict.
  KARP_RETURN_IF_ERROR(codec_internal::CheckKnownFields(
      *root.value(), codec_internal::FindSchema("", "karp.catalog"), root.path(),
      FieldValidation::kStrict, "", nullptr, nullptr));
  std::vector<InstanceType> types;
  std::map<std::string, std::string> seen;
  KARP_RETURN_IF_ERROR(root.Objects("instanceTypes", [&](const R& o) -> absl::Status {
    InstanceType it;
    KARP_RETURN_IF_ERROR(ReadInstanceType(o, &it));
    auto [pos, inserted] = seen.emplace(it.name, o.path());
    if (!inserted) {
      return PathError(o.At("name"), internal::StrCat("duplicate instance type \"", it.name,
                                                      "\" (first defined at ", pos->second, ")"));
    }
    types.push_back(std::move(it));
    return absl::OkStatus();
  }));
  return types;
}

absl::StatusOr<std::vector<InstanceType>> DecodeInstanceTypes(const std::vector<Document>& docs) {
  const Document* doc = nullptr;
  for (const Document& d : docs) {
    if (d.value.is_null()) continue;
    if (doc != nullptr) return PathError(d.path, "a catalog is a single document");
    doc = &d;
  }
  if (doc == nullptr) return PathError("", "empty catalog document");
  KARP_ASSIGN_OR_RETURN(FieldReader root, FieldReader::Make(doc->value, doc->path));
  return DecodeInstanceTypes(root);
}

}  // namespace

absl::StatusOr<std::vector<InstanceType>> ParseInstanceTypes(std::string_view text,
                                                             std::string_view source) {
  if (absl::Status s = codec_internal::CheckNoNulByte(text, source); !s.ok()) return Escaped(s);
  try {
    absl::StatusOr<std::vector<InstanceType>> types;
    // A JSON object is read from the fast reader's values when it takes the text.
    bool object = false;
    const bool fast = codec_internal::FastParseJsonRoot(text, [&](const LiteValue& root) {
      object = root.is_object();
      if (object) types = DecodeInstanceTypes(LiteFieldReader::Make(root, "").value());
    });
    if (!fast || !object) {
      absl::StatusOr<std::vector<Document>> docs = LoadDocuments(text, source);
      if (!docs.ok()) return Escaped(docs.status());
      types = DecodeInstanceTypes(*docs);
    }
    if (!types.ok()) return Escaped(WithSource(source, types.status()));
    return types;
  } catch (const std::exception& e) {
    return Escaped(absl::InvalidArgumentError(internal::StrCat(source, ": ", e.what())));
  } catch (...) {
    return Escaped(absl::InvalidArgumentError(internal::StrCat(source, ": unreadable input")));
  }
}

absl::StatusOr<InstanceCatalog> ParseCatalog(std::string_view text, std::string_view source) {
  KARP_ASSIGN_OR_RETURN(std::vector<InstanceType> types, ParseInstanceTypes(text, source));
  absl::StatusOr<InstanceCatalog> catalog = InstanceCatalog::Create(std::move(types));
  if (!catalog.ok()) return Escaped(WithSource(source, catalog.status()));
  return catalog;
}

absl::StatusOr<InstanceCatalog> ReadCatalogFile(const std::string& path,
                                                const ReadOptions& options) {
  KARP_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, options));
  return ParseCatalog(text, path);
}

}  // namespace karp::json
