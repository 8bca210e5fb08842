// Internal to karp::json: the commitments object decoder, shared by the commitments document
// (commitments.cc) and simulator traces (sim_trace.cc, field `commitments`).

#ifndef KARP_SRC_JSON_COMMITMENTS_CODEC_H_
#define KARP_SRC_JSON_COMMITMENTS_CODEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "json/document.h"
#include "karp/pricing.h"

namespace karp::json::codec_internal {

// Decodes and validates a commitments object at `path` ("" for a document's top level,
// where apiVersion and kind are allowed too). Errors: InvalidArgument `<path>.<field>: <what>`.
absl::StatusOr<Commitments> DecodeCommitments(const Json& v, const std::string& path);

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_COMMITMENTS_CODEC_H_
