// Internal to karp::json: turns input text (JSON, or YAML with one or more documents) into
// nlohmann::json values, defending against hostile input (deep nesting, alias bombs, invalid
// UTF-8) before any recursive parser sees it. Never throws.

#ifndef KARP_SRC_JSON_DOCUMENT_H_
#define KARP_SRC_JSON_DOCUMENT_H_

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "karp/json/codec.h"

namespace karp::json::codec_internal {

using Json = nlohmann::json;

struct Document {
  Json value;        // null for an empty YAML document
  std::string path;  // path prefix of the document: "" or "documents[i]" (multi-document YAML)
};

// Whether LoadDocuments reads `text` as JSON: its first character that is not white space
// (after a UTF-8 byte order mark) is `{` or `[`. O(leading white space).
bool IsJsonText(std::string_view text);

// Whether a document's root may be a List: its kind ends in "List", or is absent or not a
// string (the error the root's decoding reports first). Only a List's items are objects of an
// input, so items streamed from another root must be read again as its fields.
bool MayBeList(const Json& root);

// Parses `text`: JSON when the first non-space character is `{` or `[`, YAML otherwise (YAML
// scalars typed by the YAML 1.2 core schema; quoted scalars stay strings). Nesting deeper than
// kMaxDepth is rejected before parsing. Errors: InvalidArgument `<source>: <where>: <what>`.
[[nodiscard]] absl::StatusOr<std::vector<Document>> LoadDocuments(std::string_view text,
                                                                  std::string_view source);

// JSON and YAML texts never hold a NUL byte (JSON wants control characters escaped, YAML
// excludes them); one would otherwise end a text early or read as a stray escape. Errors:
// InvalidArgument `<source>: line L, column C (byte offset N): NUL byte (a JSON or YAML text
// cannot contain one)`. O(size) (memchr).
[[nodiscard]] absl::Status CheckNoNulByte(std::string_view text, std::string_view source);

class LiteValue;  // json/fast_json.h

// Called with each element of a JSON List's "items" array as it is read, with its index; the
// element lives until the call returns.
using LiteItemSink = std::function<void(const LiteValue& item, size_t index)>;

// The fast path of LoadDocuments for a JSON text whose root is an object: the elements of the
// root's "items" array go to `sink` as they are read, in order, instead of into the value
// (whose "items" stays an empty array), so a large List is never held whole. nullopt when the
// text is not a JSON object or the fast reader declines it — the sink may have seen elements
// by then; LoadDocuments then gives the value or the error. Throws only what `sink` throws.
std::optional<Json> LoadJsonStreamingItems(std::string_view text, const LiteItemSink& sink);

// Called with each element of a YAML List's "items" sequence as it is completed, with its
// index; the element lives until the call returns.
using JsonItemSink = std::function<void(const Json& item, size_t index)>;

// LoadDocuments for a YAML text (nullopt for a text LoadDocuments reads as JSON), except that
// when the first document's root is a mapping, the elements of its "items" sequence go to
// `sink` as they are completed (and are dropped) instead of into the value, whose "items"
// stays an empty sequence: a large List is never held whole. Not when that sequence has an
// anchor. The sink may have seen elements of a text that turns out invalid (the error is
// returned) or to hold more documents (their paths are then `documents[i]`, not the `items[i]`
// the sink was given: the caller reads the text again with LoadDocuments). Never throws:
// exceptions, the sink's too, become InvalidArgument as in LoadDocuments.
std::optional<absl::StatusOr<std::vector<Document>>> LoadYamlStreamingItems(
    std::string_view text, std::string_view source, const JsonItemSink& sink);

// Called with each document of a YAML text and its path ("" for the only document,
// "documents[i]" when there are several); the document lives until the call returns.
using DocumentSink = std::function<void(const Json& document, const std::string& path)>;

// Whether a YAML text may hold more than one document: a `---` or `...` marker starts a line
// after content. False is certain (one document at most); true may be a marker inside a
// block scalar. O(size).
bool MayHoldSeveralYamlDocuments(std::string_view text);

// LoadDocuments for a YAML text, each document going to `sink` as soon as the next one starts
// (or the text ends) and dropped then, so that at most two are held: several documents take
// the memory of the largest, not of all. A syntax error anywhere is the error returned
// (whatever the sink saw). Never throws (the sink's exceptions become InvalidArgument).
[[nodiscard]] absl::Status LoadYamlDocuments(std::string_view text, std::string_view source,
                                             const DocumentSink& sink);

// The bytes of the file at `path` ("-": standard input), within the cap of `options` that
// applies (ReadOptions, karp/json/codec.h: regular JSON file, stream, YAML text). A regular
// file is measured before it is read; a stream is cut off as soon as it exceeds its cap.
// Errors: NotFound `<path>: cannot read file: <reason>`; ResourceExhausted `<path>: larger
// than the input limit of N bytes[ for a stream| for YAML] (see --max-input-bytes)`.
[[nodiscard]] absl::StatusOr<std::string> ReadWholeFile(const std::string& path,
                                                        const ReadOptions& options);
// As above with every cap at most `max_bytes` (the stream and YAML caps keep their smaller
// defaults).
[[nodiscard]] absl::StatusOr<std::string> ReadWholeFile(const std::string& path,
                                                        int64_t max_bytes = kDefaultMaxInputBytes);

// True if `s` is well-formed UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
bool IsValidUtf8(std::string_view s);

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_DOCUMENT_H_
