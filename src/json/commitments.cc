// karp::json: commitments (karp/json/commitments.h, format in docs/formats.md §6).

#include "karp/json/commitments.h"

#include <cmath>
#include <exception>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/commitments_codec.h"
#include "json/document.h"
#include "json/field_reader.h"

namespace karp::json {
namespace codec_internal {
namespace {

constexpr std::string_view kKind = "Commitments";
constexpr std::string_view kApiVersion = "karp.dev/v1alpha1";

// A finite number >= 0 (absent: unchanged).
absl::Status Number(const FieldReader& o, std::string_view key, double* out) {
  const Json* v = o.Get(key);
  if (v == nullptr) return absl::OkStatus();
  if (!v->is_number()) return WrongType(o.At(key), "a number", *v);
  *out = v->get<double>();
  if (!std::isfinite(*out) || *out < 0) return o.Error(key, "must be a finite number >= 0");
  return absl::OkStatus();
}

absl::Status Count(const FieldReader& o, std::string_view key, bool required, int64_t* out) {
  std::optional<int64_t> v;
  KARP_RETURN_IF_ERROR(o.Int64(key, &v));
  if (!v && required) return o.Error(key, "required");
  if (v) *out = *v;
  return absl::OkStatus();
}

absl::Status End(const FieldReader& o, std::optional<absl::Time>* out) {
  return o.Time("end", out);
}

// The discount fractions of a plan: {<type or family>: fraction}.
absl::Status Discounts(const FieldReader& o, std::map<std::string, double>* out) {
  const Json* v = o.Get("discounts");
  if (v == nullptr) return absl::OkStatus();
  if (!v->is_object()) return WrongType(o.At("discounts"), "an object", *v);
  KARP_ASSIGN_OR_RETURN(FieldReader d, FieldReader::Make(*v, o.At("discounts")));
  for (auto it = v->begin(); it != v->end(); ++it) {
    double f = 0;
    KARP_RETURN_IF_ERROR(Number(d, it.key(), &f));
    (*out)[it.key()] = f;
  }
  return absl::OkStatus();
}

absl::Status ReadRi(const Json& v, const std::string& path, ReservedInstance* ri) {
  KARP_ASSIGN_OR_RETURN(
      FieldReader o, FieldReader::MakeStrict(v, path,
                                             {"id", "instanceType", "sizeFlexible", "region",
                                              "availabilityZone", "count", "hourlyPrice", "end"}));
  KARP_RETURN_IF_ERROR(o.RequiredString("id", &ri->id));
  KARP_RETURN_IF_ERROR(o.RequiredString("instanceType", &ri->instance_type));
  KARP_RETURN_IF_ERROR(o.Bool("sizeFlexible", &ri->size_flexible));
  KARP_RETURN_IF_ERROR(o.String("region", &ri->region));
  KARP_RETURN_IF_ERROR(o.String("availabilityZone", &ri->zone));
  KARP_RETURN_IF_ERROR(Count(o, "count", true, &ri->count));
  KARP_RETURN_IF_ERROR(Number(o, "hourlyPrice", &ri->hourly_price));
  return End(o, &ri->end);
}

absl::Status ReadSp(const Json& v, const std::string& path, SavingsPlan* sp) {
  KARP_ASSIGN_OR_RETURN(
      FieldReader o, FieldReader::MakeStrict(v, path,
                                             {"id", "type", "hourlyCommitment", "region",
                                              "instanceFamily", "discount", "discounts", "end"}));
  KARP_RETURN_IF_ERROR(o.RequiredString("id", &sp->id));
  std::string type;
  KARP_RETURN_IF_ERROR(o.RequiredString("type", &type));
  if (type != "Compute" && type != "EC2Instance") {
    return o.Error("type", internal::StrCat("must be Compute or EC2Instance, got \"", type, "\""));
  }
  sp->type = type == "Compute" ? SavingsPlanType::kCompute : SavingsPlanType::kEc2Instance;
  if (o.Get("hourlyCommitment") == nullptr) return o.Error("hourlyCommitment", "required");
  KARP_RETURN_IF_ERROR(Number(o, "hourlyCommitment", &sp->hourly_commitment));
  KARP_RETURN_IF_ERROR(o.String("region", &sp->region));
  KARP_RETURN_IF_ERROR(o.String("instanceFamily", &sp->family));
  KARP_RETURN_IF_ERROR(Number(o, "discount", &sp->default_discount));
  KARP_RETURN_IF_ERROR(Discounts(o, &sp->discounts));
  return End(o, &sp->end);
}

absl::Status ReadCr(const Json& v, const std::string& path, CapacityReservation* cr) {
  KARP_ASSIGN_OR_RETURN(
      FieldReader o,
      FieldReader::MakeStrict(v, path,
                              {"id", "instanceType", "availabilityZone", "count", "available",
                               "hourlyPrice", "instanceMatchCriteria", "end"}));
  KARP_RETURN_IF_ERROR(o.RequiredString("id", &cr->id));
  KARP_RETURN_IF_ERROR(o.RequiredString("instanceType", &cr->instance_type));
  KARP_RETURN_IF_ERROR(o.RequiredString("availabilityZone", &cr->zone));
  KARP_RETURN_IF_ERROR(Count(o, "count", true, &cr->count));
  cr->available = cr->count;
  KARP_RETURN_IF_ERROR(Count(o, "available", false, &cr->available));
  KARP_RETURN_IF_ERROR(Number(o, "hourlyPrice", &cr->hourly_price));
  std::string match = "open";
  KARP_RETURN_IF_ERROR(o.String("instanceMatchCriteria", &match));
  if (match != "open" && match != "targeted") {
    return o.Error("instanceMatchCriteria",
                   internal::StrCat("must be open or targeted, got \"", match, "\""));
  }
  cr->targeted = match == "targeted";
  return End(o, &cr->end);
}

// Calls read(element, path, &item) for each element of array `key`, appending to *out.
template <typename T, typename Read>
absl::Status ReadList(const FieldReader& root, std::string_view key, Read read,
                      std::vector<T>* out) {
  const Json* v = root.Get(key);
  if (v == nullptr) return absl::OkStatus();
  if (!v->is_array()) return WrongType(root.At(key), "an array", *v);
  for (size_t i = 0; i < v->size(); ++i) {
    T item;
    KARP_RETURN_IF_ERROR(read((*v)[i], IndexPath(root.At(key), i), &item));
    out->push_back(std::move(item));
  }
  return absl::OkStatus();
}

absl::Status Header(const FieldReader& root) {
  std::string api_version(kApiVersion), kind(kKind);
  KARP_RETURN_IF_ERROR(root.String("apiVersion", &api_version));
  KARP_RETURN_IF_ERROR(root.String("kind", &kind));
  if (api_version != kApiVersion) {
    return root.Error("apiVersion", internal::StrCat("must be ", kApiVersion));
  }
  if (kind != kKind) return root.Error("kind", internal::StrCat("must be ", kKind));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Commitments> DecodeCommitments(const Json& v, const std::string& path) {
  std::initializer_list<std::string_view> fields = {"reservedInstances", "savingsPlans",
                                                    "capacityReservations", "normalizationFactors"};
  std::initializer_list<std::string_view> top = {"apiVersion",           "kind",
                                                 "reservedInstances",    "savingsPlans",
                                                 "capacityReservations", "normalizationFactors"};
  KARP_ASSIGN_OR_RETURN(FieldReader root,
                        FieldReader::MakeStrict(v, path, path.empty() ? top : fields));
  if (path.empty()) KARP_RETURN_IF_ERROR(Header(root));
  Commitments c;
  KARP_RETURN_IF_ERROR(ReadList(root, "reservedInstances", ReadRi, &c.reserved_instances));
  KARP_RETURN_IF_ERROR(ReadList(root, "savingsPlans", ReadSp, &c.savings_plans));
  KARP_RETURN_IF_ERROR(ReadList(root, "capacityReservations", ReadCr, &c.capacity_reservations));
  if (const Json* nf = root.Get("normalizationFactors")) {
    if (!nf->is_object()) return WrongType(root.At("normalizationFactors"), "an object", *nf);
    KARP_ASSIGN_OR_RETURN(FieldReader f, FieldReader::Make(*nf, root.At("normalizationFactors")));
    for (auto it = nf->begin(); it != nf->end(); ++it) {
      KARP_RETURN_IF_ERROR(Number(f, it.key(), &c.normalization_factors[it.key()]));
    }
  }
  if (absl::Status s = c.Validate(); !s.ok()) {
    return PathError(path, internal::Message(s));
  }
  return c;
}

}  // namespace codec_internal

absl::StatusOr<Commitments> ParseCommitments(std::string_view text, std::string_view source) {
  using codec_internal::Document;
  try {
    KARP_ASSIGN_OR_RETURN(std::vector<Document> docs, codec_internal::LoadDocuments(text, source));
    if (docs.size() != 1 || docs[0].value.is_null()) {
      return absl::InvalidArgumentError(
          internal::StrCat(source, ": expected exactly one commitments document"));
    }
    absl::StatusOr<Commitments> c = codec_internal::DecodeCommitments(docs[0].value, "");
    if (!c.ok()) {
      return absl::InvalidArgumentError(
          internal::StrCat(source, ": ", internal::Message(c.status())));
    }
    return c;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": ", e.what()));
  }
}

absl::StatusOr<Commitments> ReadCommitmentsFile(const std::string& path, int64_t max_input_bytes) {
  KARP_ASSIGN_OR_RETURN(std::string text, codec_internal::ReadWholeFile(path, max_input_bytes));
  return ParseCommitments(text, path);
}

namespace {

using codec_internal::Json;

void PutEnd(const std::optional<absl::Time>& end, Json* j) {
  if (end) (*j)["end"] = absl::FormatTime(absl::RFC3339_full, *end, absl::UTCTimeZone());
}

Json RiJson(const ReservedInstance& ri) {
  Json j = {{"id", ri.id},
            {"instanceType", ri.instance_type},
            {"count", ri.count},
            {"hourlyPrice", ri.hourly_price}};
  if (ri.size_flexible) j["sizeFlexible"] = true;
  if (!ri.region.empty()) j["region"] = ri.region;
  if (!ri.zone.empty()) j["availabilityZone"] = ri.zone;
  PutEnd(ri.end, &j);
  return j;
}

Json SpJson(const SavingsPlan& sp) {
  Json j = {{"id", sp.id},
            {"type", sp.type == SavingsPlanType::kCompute ? "Compute" : "EC2Instance"},
            {"hourlyCommitment", sp.hourly_commitment},
            {"discount", sp.default_discount}};
  if (!sp.region.empty()) j["region"] = sp.region;
  if (!sp.family.empty()) j["instanceFamily"] = sp.family;
  if (!sp.discounts.empty()) j["discounts"] = sp.discounts;
  PutEnd(sp.end, &j);
  return j;
}

Json CrJson(const CapacityReservation& cr) {
  Json j = {{"id", cr.id},
            {"instanceType", cr.instance_type},
            {"availabilityZone", cr.zone},
            {"count", cr.count},
            {"available", cr.available},
            {"hourlyPrice", cr.hourly_price},
            {"instanceMatchCriteria", cr.targeted ? "targeted" : "open"}};
  PutEnd(cr.end, &j);
  return j;
}

}  // namespace

std::string WriteCommitments(const Commitments& c) {
  Json j = {{"apiVersion", std::string(codec_internal::kApiVersion)},
            {"kind", std::string(codec_internal::kKind)}};
  Json& ris = j["reservedInstances"] = Json::array();
  for (const ReservedInstance& ri : c.reserved_instances) ris.push_back(RiJson(ri));
  Json& sps = j["savingsPlans"] = Json::array();
  for (const SavingsPlan& sp : c.savings_plans) sps.push_back(SpJson(sp));
  Json& crs = j["capacityReservations"] = Json::array();
  for (const CapacityReservation& cr : c.capacity_reservations) crs.push_back(CrJson(cr));
  if (!c.normalization_factors.empty()) j["normalizationFactors"] = c.normalization_factors;
  return j.dump(2) + "\n";
}

}  // namespace karp::json
