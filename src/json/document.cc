// Text -> nlohmann::json documents for karp::json (see document.h).
//
// Hostile input is handled here, at the seam with the third-party parsers:
//  - nesting is measured by a linear scan before nlohmann or yaml-cpp see the text (both
//    recurse or build recursive values); yaml-cpp's own depth guard covers block
//    nesting the scan cannot see, and the YAML -> JSON conversion re-checks kMaxDepth;
//  - YAML aliases may expand a small text into a huge tree: the conversion is charged per node
//    and per byte against a budget proportional to the input size;
//  - every exception thrown by the parsers is caught and turned into InvalidArgument.

#include "json/document.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include "absl/status/status.h"
#include "internal/strings.h"
#include "karp/json/codec.h"

namespace karp::json::codec_internal {
namespace {

// Line and column (1-based) of byte `pos` of `text`.
std::string Where(std::string_view text, size_t pos) {
  size_t line = 1;
  size_t col = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return internal::StrCat("line ", line, ", column ", col);
}

absl::Status TooDeep(std::string_view source, std::string_view text, size_t pos) {
  return absl::InvalidArgumentError(internal::StrCat(source, ": ", Where(text, pos),
                                                     ": nesting deeper than ", kMaxDepth,
                                                     " levels"));
}

// Maximum depth of `[`/`{` outside JSON strings; rejects past kMaxDepth at the first offender.
absl::Status CheckJsonDepth(std::string_view text, std::string_view source) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return TooDeep(source, text, i);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return absl::OkStatus();
}

// Flow-collection depth of YAML text (`[`/`{` outside quoted scalars and comments). Block
// nesting is bounded by yaml-cpp's depth guard and by the conversion below.
absl::Status CheckYamlFlowDepth(std::string_view text, std::string_view source) {
  int depth = 0;
  char quote = 0;  // '\'' or '"' while inside a quoted scalar
  bool comment = false;
  char prev = '\n';
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (comment) {
      if (c == '\n') comment = false;
    } else if (quote == '"') {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        quote = 0;
      }
    } else if (quote == '\'') {
      if (c == '\'') {
        if (i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;  // escaped quote
        } else {
          quote = 0;
        }
      }
    } else if (c == '#' && (prev == ' ' || prev == '\t' || prev == '\n')) {
      comment = true;
    } else if ((c == '"' || c == '\'') &&
               (prev == ' ' || prev == '\t' || prev == '\n' || prev == '[' || prev == '{' ||
                prev == ',' || prev == ':' || prev == '-')) {
      quote = c;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return TooDeep(source, text, i);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    prev = c;
  }
  return absl::OkStatus();
}

// ----- YAML 1.2 core schema resolution of plain scalars --------------------------------------

bool AllOf(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}
bool IsDec(char c) { return c >= '0' && c <= '9'; }
bool IsOct(char c) { return c >= '0' && c <= '7'; }
bool IsHex(char c) {
  return IsDec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
bool IsYamlFloat(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
  size_t int_digits = 0;
  while (i < n && IsDec(s[i])) ++i, ++int_digits;
  size_t frac_digits = 0;
  if (i < n && s[i] == '.') {
    ++i;
    while (i < n && IsDec(s[i])) ++i, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < n && IsDec(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == n;
}

Json ResolvePlainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  std::string_view v = s;
  const bool negative = !v.empty() && v[0] == '-';
  std::string_view unsigned_part = (!v.empty() && (v[0] == '-' || v[0] == '+')) ? v.substr(1) : v;
  if (AllOf(unsigned_part, IsDec)) {
    // from_chars does not take '+'; parse the signed text without it.
    std::string_view signed_text = (!v.empty() && v[0] == '+') ? v.substr(1) : v;
    int64_t i64 = 0;
    auto [p, ec] = std::from_chars(signed_text.data(), signed_text.data() + signed_text.size(), i64);
    if (ec == std::errc() && p == signed_text.data() + signed_text.size()) return i64;
    if (!negative) {
      uint64_t u64 = 0;
      auto [p2, ec2] =
          std::from_chars(unsigned_part.data(), unsigned_part.data() + unsigned_part.size(), u64);
      if (ec2 == std::errc() && p2 == unsigned_part.data() + unsigned_part.size()) return u64;
    }
    // Too large for 64 bits: a float, as JSON parsers do.
  }
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'o' || v[1] == 'x')) {
    const bool hex = v[1] == 'x';
    std::string_view digits = v.substr(2);
    if (AllOf(digits, hex ? IsHex : IsOct)) {
      uint64_t u64 = 0;
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), u64,
                                     hex ? 16 : 8);
      if (ec == std::errc() && p == digits.data() + digits.size()) {
        if (u64 <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(u64);
        return u64;
      }
    }
    return s;
  }
  if (IsYamlFloat(v)) {
    std::string_view t = (v[0] == '+') ? v.substr(1) : v;
    double d = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
    if (ec == std::errc() && p == t.data() + t.size()) return d;
    return s;  // out of the double range: kept as text
  }
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf" || s == "+.Inf" || s == "+.INF") {
    return HUGE_VAL;
  }
  if (s == "-.inf" || s == "-.Inf" || s == "-.INF") return -HUGE_VAL;
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::nan("");
  return s;
}

std::string MarkText(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return internal::StrCat("line ", mark.line + 1, ", column ", mark.column + 1, ": ");
}

class YamlConverter {
 public:
  YamlConverter(std::string_view source, size_t budget) : source_(source), budget_(budget) {}

  absl::Status Convert(const YAML::Node& node, int depth, Json* out) {
    if (depth > kMaxDepth) {
      return Error(node, internal::StrCat("nesting deeper than ", kMaxDepth, " levels"));
    }
    if (!Charge(16)) return Error(node, "document too large once aliases are expanded");
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        *out = nullptr;
        return absl::OkStatus();
      case YAML::NodeType::Scalar: {
        const std::string& text = node.Scalar();
        if (!Charge(text.size())) {
          return Error(node, "document too large once aliases are expanded");
        }
        if (!IsValidUtf8(text)) return Error(node, "invalid UTF-8 in scalar");
        const std::string& tag = node.Tag();
        if (tag == "!" || tag == "tag:yaml.org,2002:str") {
          *out = text;
        } else {
          *out = ResolvePlainScalar(text);
        }
        return absl::OkStatus();
      }
      case YAML::NodeType::Sequence: {
        *out = Json::array();
        for (YAML::const_iterator it = node.begin(); it != node.end(); ++it) {
          const YAML::Node element = *it;
          Json child;
          if (absl::Status s = Convert(element, depth + 1, &child); !s.ok()) return s;
          out->push_back(std::move(child));
        }
        return absl::OkStatus();
      }
      case YAML::NodeType::Map: {
        *out = Json::object();
        for (YAML::const_iterator it = node.begin(); it != node.end(); ++it) {
          // `it->` yields a temporary proxy: copy the nodes out, never bind references.
          const YAML::Node key = it->first;
          const YAML::Node value = it->second;
          std::string key_text;
          if (key.Type() == YAML::NodeType::Scalar) {
            key_text = key.Scalar();
          } else if (key.Type() == YAML::NodeType::Null) {
            key_text = "null";
          } else {
            return Error(key, "mapping keys must be scalars");
          }
          if (!Charge(key_text.size())) {
            return Error(key, "document too large once aliases are expanded");
          }
          if (!IsValidUtf8(key_text)) return Error(key, "invalid UTF-8 in mapping key");
          Json child;
          if (absl::Status s = Convert(value, depth + 1, &child); !s.ok()) return s;
          (*out)[key_text] = std::move(child);
        }
        return absl::OkStatus();
      }
    }
    return Error(node, "unsupported YAML node");
  }

 private:
  bool Charge(size_t cost) {
    if (cost > budget_) return false;
    budget_ -= cost;
    return true;
  }

  absl::Status Error(const YAML::Node& node, std::string_view what) const {
    YAML::Mark mark = YAML::Mark::null_mark();
    try {
      mark = node.Mark();
    } catch (...) {
    }
    return absl::InvalidArgumentError(internal::StrCat(source_, ": ", MarkText(mark), what));
  }

  std::string_view source_;
  size_t budget_;
};

absl::StatusOr<std::vector<Document>> LoadJson(std::string_view text, std::string_view source) {
  if (absl::Status s = CheckJsonDepth(text, source); !s.ok()) return s;
  std::vector<Document> docs(1);
  try {
    docs[0].value = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." -> drop the tag.
    std::string_view what = e.what();
    if (size_t p = what.find("] "); p != std::string_view::npos) what.remove_prefix(p + 2);
    return absl::InvalidArgumentError(internal::StrCat(source, ": ", what));
  }
  return docs;
}

absl::StatusOr<std::vector<Document>> LoadYaml(std::string_view text, std::string_view source) {
  if (absl::Status s = CheckYamlFlowDepth(text, source); !s.ok()) return s;
  std::vector<YAML::Node> nodes;
  try {
    nodes = YAML::LoadAll(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    return absl::InvalidArgumentError(internal::StrCat(
        source, ": ", MarkText(e.mark), "nesting deeper than ", kMaxDepth, " levels"));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": ", MarkText(e.mark), e.msg));
  }
  // Without aliases the converted size is about the text size; allow generous slack.
  YamlConverter converter(source, 16 * text.size() + (size_t{1} << 20));
  std::vector<Document> docs(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (absl::Status s = converter.Convert(nodes[i], 0, &docs[i].value); !s.ok()) return s;
    if (nodes.size() > 1) docs[i].path = internal::StrCat("documents[", i, "]");
  }
  return docs;
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (int k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

absl::StatusOr<std::vector<Document>> LoadDocuments(std::string_view text,
                                                    std::string_view source) {
  // A UTF-8 byte order mark is not content.
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  size_t first = 0;
  while (first < text.size() && (text[first] == ' ' || text[first] == '\t' ||
                                 text[first] == '\n' || text[first] == '\r')) {
    ++first;
  }
  try {
    if (first < text.size() && (text[first] == '{' || text[first] == '[')) {
      return LoadJson(text, source);
    }
    return LoadYaml(text, source);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": ", e.what()));
  } catch (...) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": unreadable input"));
  }
}

}  // namespace karp::json::codec_internal
