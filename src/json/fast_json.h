// Internal to karp::json: the fast path of JSON input. RapidJSON's SAX reader builds the same
// nlohmann::json value that nlohmann's own parser would, several times faster, and gives up on
// anything it cannot reproduce exactly; document.cc then parses the text with nlohmann, whose
// error messages (with the JSON path) are the ones karp reports. RapidJSON is used only here.

#ifndef KARP_SRC_JSON_FAST_JSON_H_
#define KARP_SRC_JSON_FAST_JSON_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>

#include "json/document.h"

namespace karp::json::codec_internal {

// The value of the JSON text `text`, equal to nlohmann::json::parse(text) (numbers typed as
// nlohmann types them: unsigned for non-negative integers, integer for negative ones, float
// otherwise), or nullopt when the text is not valid JSON or holds what the fast path leaves to
// nlohmann: a duplicate key, a string that is not valid UTF-8, a NUL byte, a number that does
// not convert exactly (out of range), or nesting deeper than kMaxDepth (the reader recurses
// once per level and stops at the first level too deep, so no depth check is needed before
// it). Never throws (allocation failure aside).
// Complexity: linear in the size of the text.
std::optional<Json> FastParseJson(std::string_view text);

// Called with each element of the root object's "items" array (a List) as soon as it is
// complete, in order, with its index.
using ItemSink = std::function<void(Json&& item, size_t index)>;

// FastParseJson, except that the elements of the root object's "items" array (when it is an
// array) go to `sink` as they are completed instead of into the value, whose "items" stays an
// empty array: a large List is never held whole. The sink sees elements of a text that may
// still turn out invalid (then nullopt is returned, as FastParseJson would).
std::optional<Json> FastParseJsonStreamingItems(std::string_view text, const ItemSink& sink);

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_FAST_JSON_H_
