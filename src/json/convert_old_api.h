// Internal to karp::json: conversion of the Karpenter objects of older APIs to their v1 form
// (docs/older-apis.md), on the parsed documents of document.h:
//   karpenter.sh/v1alpha5 Provisioner        -> karpenter.sh/v1 NodePool (+ EC2NodeClass for an
//                                               inline spec.provider)
//   karpenter.k8s.aws/v1alpha1 AWSNodeTemplate -> karpenter.k8s.aws/v1 EC2NodeClass
//   karpenter.sh/v1beta1 NodePool, NodeClaim   -> karpenter.sh/v1 NodePool, NodeClaim
//   karpenter.k8s.aws/v1beta1 EC2NodeClass     -> karpenter.k8s.aws/v1 EC2NodeClass
// v1alpha5/v1alpha1 follow the reference's conversion tool (karpenter-convert, v0.32: the
// Provisioner defaults included) and then the v1beta1 -> v1 conversion webhooks; v1beta1
// follows the webhooks. Cross-object steps (kubelet settings moving to the EC2NodeClass, a
// v1beta1 NodeClaim taking its NodePool's expireAfter) happen in OldApiConverter::Finish.
//
// Errors (InvalidArgument `<path>: <what>`) name the old field; warnings name what the
// reference dropped or defaulted differently.

#ifndef KARP_SRC_JSON_CONVERT_OLD_API_H_
#define KARP_SRC_JSON_CONVERT_OLD_API_H_

#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "json/document.h"
#include "json/field_reader.h"
#include "karp/cluster.h"

namespace karp::json::codec_internal {

inline constexpr std::string_view kGroupCore = "karpenter.sh";
inline constexpr std::string_view kGroupAws = "karpenter.k8s.aws";
inline constexpr std::string_view kApiV1 = "karpenter.sh/v1";
inline constexpr std::string_view kApiAwsV1 = "karpenter.k8s.aws/v1";
// The annotation of the v1 conversion webhooks that carries v1beta1 kubelet settings.
inline constexpr std::string_view kKubeletAnnotation =
    "compatibility.karpenter.sh/v1beta1-kubelet-conversion";

// Whether (kind, apiVersion) is an older-API object the converter reads.
bool IsOldApiObject(std::string_view kind, std::string_view api_version);

// `<source>: <path>`, or `<source>` for the empty path (a single-object document).
std::string SourcePath(std::string_view source, std::string_view path);

// `<apiVersion> <Kind> <name>` of an object, as skipped-object and conversion messages name it.
std::string DescribeObject(const FieldReader& item, std::string_view kind,
                           std::string_view api_version);

// One v1 object produced by the converter.
struct ConvertedObject {
  Json object;         // the v1 object (apiVersion, kind, metadata, spec[, status])
  std::string source;  // the input it came from
  std::string path;    // the path of the old object in that input
  std::string from;    // DescribeObject of the old object
};

// What the conversion of one object produced before the cross-object steps.
struct PendingConversion {
  ConvertedObject converted;
  std::optional<Json> kubelet;          // kubelet settings still to place (NodePools)
  bool take_pool_expire_after = false;  // a v1beta1 NodeClaim: expireAfter from its NodePool
};

// Per-kind conversions (convert_nodepool.cc, convert_nodeclass.cc). `item` is the old object,
// `from` its description; results are appended to `out`, warnings (`<path>: <what>`) to
// `warnings`.
struct ConversionContext {
  const FieldReader& item;
  const std::string& path;
  std::vector<PendingConversion>* out;
  std::vector<std::string>* warnings;
  void Warn(std::string_view field_path, std::string_view what) const;
  // Appends a v1 object converted from `item`.
  void Emit(Json object, std::optional<Json> kubelet = std::nullopt,
            bool take_pool_expire_after = false) const;
};
absl::Status ConvertProvisioner(const ConversionContext& ctx);
absl::Status ConvertBetaNodePool(const ConversionContext& ctx);
absl::Status ConvertBetaNodeClaim(const ConversionContext& ctx);
absl::Status ConvertNodeTemplate(const ConversionContext& ctx);
absl::Status ConvertBetaNodeClass(const ConversionContext& ctx);
// The EC2NodeClass of an inline v1alpha5 `spec.provider` (a v1alpha1 AWS provider), named
// after the Provisioner.
absl::StatusOr<Json> ConvertInlineProvider(const Json& provider, const std::string& path,
                                           const std::string& name,
                                           std::vector<std::string>* warnings);

// Shared helpers of the per-kind conversions.
// The object field `key` of `parent` (nullptr when absent or null). Errors: wrong type.
absl::StatusOr<const Json*> ObjectField(const Json& parent, const std::string& path,
                                        std::string_view key);
// Warns, for each key of `object` not in `known`, `<path>.<key>: not a field of <what>;
// dropped`.
void WarnUnknownFields(const Json& object, const std::string& path,
                       std::initializer_list<std::string_view> known, std::string_view what,
                       std::vector<std::string>* warnings);
// Copies field `key` of `from` into `to[to_key]` when present, after checking its JSON type
// ("string", "object", "array", "boolean", "number", "string map").
absl::Status CopyField(const Json& from, const std::string& path, std::string_view key,
                       std::string_view type, Json* to, std::string_view to_key);
// Sets metadata.annotations[key] = value in `meta`. Errors: annotations not an object.
absl::Status SetAnnotation(Json* meta, std::string_view key, std::string_view value,
                           const std::string& path);
// {name, labels, annotations} of the old metadata (what the reference's tool kept).
absl::StatusOr<Json> NameLabelsAnnotations(const FieldReader& item);

// Converts a whole input set: Add each old object, then Finish.
class OldApiConverter {
 public:
  // Converts one object (IsOldApiObject(kind, api_version)) read from `source`.
  absl::Status Add(const FieldReader& item, const std::string& kind, const std::string& api_version,
                   const std::string& source);

  // Takes a v1 object (NodePool, NodeClaim, EC2NodeClass) as it is, so that Finish keeps the
  // input order, can move kubelet settings into it (an EC2NodeClass) and read its expireAfter
  // (a NodePool).
  void AddAsIs(const Json& object, const std::string& source, const std::string& path);

  // Places kubelet settings (into the converted EC2NodeClass the NodePool refers to, or the
  // compatibility annotation with a warning) and gives each v1beta1 NodeClaim the expireAfter
  // of its NodePool: a converted one, else `native_expire_after(name)` (a v1 NodePool of the
  // input), else the v1 default (with a warning). Returns the v1 objects in input order.
  // Errors: metadata.annotations of a NodePool that is not an object.
  absl::StatusOr<std::vector<ConvertedObject>> Finish(
      const std::function<std::optional<std::string>(const std::string&)>& native_expire_after);

  // `<source>: <path>: <what>` for each warning so far.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  absl::Status PlaceKubelet(PendingConversion& pool, std::map<std::string, Json*>& classes);

  std::vector<PendingConversion> pending_;
  std::vector<std::string> warnings_;
};

// The end of a snapshot decode (codec.cc): Finish with the expireAfter of the v1 NodePools of
// `snap`, the warnings appended to snap->warnings, then `decode(c, reader over c.object)` for
// each converted object (NodePools, NodeClaims and EC2NodeClasses: every converted kind is one
// the snapshot holds). Errors: decode's, as `<source>: <path>: as converted to <apiVersion>
// <Kind>: <what>`.
absl::Status DecodeConverted(
    OldApiConverter& converter, ClusterSnapshot* snap,
    const std::function<absl::Status(const ConvertedObject&, const FieldReader&)>& decode);

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_CONVERT_OLD_API_H_
