// Internal to karp::json: the field sets of every kind karp reads, generated from the published
// schemas by scripts/gen_schemas.py into schemas_gen.cc (Kubernetes' OpenAPI document, the
// Karpenter CRDs at v1 and the older versions karp converts, karp's own catalog schema in
// docs/schemas/), and the check that an object holds no field its schema lacks — what
// `kubectl --validate=strict` and the API server's strict field validation report.
//
// A schema keeps shapes only: objects with their property names, arrays, maps and leaves
// (scalars, int-or-string, free-form objects). Types and value rules stay with the decoders.

#ifndef KARP_SRC_JSON_SCHEMA_H_
#define KARP_SRC_JSON_SCHEMA_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "json/document.h"
#include "json/fast_json.h"
#include "karp/json/codec.h"

namespace karp::json::codec_internal {

enum class SchemaShape : uint8_t { kLeaf, kObject, kArray, kMap };

// kObject: fields kSchemaFields[a, a + b), sorted by name. kArray, kMap: elements of node a.
// kLeaf: anything (a scalar, or a value the schema leaves free).
struct SchemaNode {
  SchemaShape shape;
  uint16_t a;
  uint16_t b;
};
struct SchemaField {
  std::string_view name;
  uint16_t node;
};
// A kind (api_version empty for karp's own formats, whose kind is "karp.<format>").
struct SchemaRoot {
  std::string_view api_version;
  std::string_view kind;
  uint16_t node;
};

extern const SchemaField kSchemaFields[];
extern const SchemaNode kSchemaNodes[];
extern const SchemaRoot kSchemaRoots[];
extern const size_t kSchemaRootCount;

// The node of (api_version, kind), or -1 when karp has no schema for it.
int FindSchema(std::string_view api_version, std::string_view kind);

// The fields of `v` (a Json or LiteValue) that the schema `node` does not know, in document
// order, as `<path>.<key>: unknown field` (with `; did you mean <nearest>?` when a known field
// is near: case-insensitive edit distance at most 2, or a third of the key's length). Values
// whose JSON type differs from the schema's shape are left to the decoders. At most `limit`
// messages are added to `out`; returns how many unknown fields there were in all.
// O(size of v); no allocation unless a field is unknown.
template <typename V>
size_t FindUnknownFields(const V& v, int node, std::string_view path, size_t limit,
                         std::vector<std::string>* out);

// Applies `validation` to the unknown fields of `v`: kStrict returns the first as
// InvalidArgument; kWarn appends each (up to `max_warnings` in all `warnings` holds) to
// `warnings` as `<source>: <message> (ignored)` and counts the rest in *unreported; kIgnore
// does nothing.
template <typename V>
absl::Status CheckKnownFields(const V& v, int node, std::string_view path,
                              FieldValidation validation, std::string_view source,
                              std::vector<std::string>* warnings, size_t* unreported);

// The known name nearest to `key` by case-insensitive edit distance (ties: the first in
// `names`), or empty when none is near enough (as FindUnknownFields). Exposed for the strict
// readers of karp's own formats.
std::string_view NearestName(std::string_view key, const std::vector<std::string_view>& names);

// Most warnings kept for one read; the rest are counted in one line.
inline constexpr size_t kMaxFieldWarnings = 20;

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_SCHEMA_H_
