// Text -> nlohmann::json documents for karp::json (see document.h).
//
// Valid JSON is read by the RapidJSON fast path (fast_json.h); anything it declines is parsed
// again by nlohmann, whose messages name the JSON path.
//
// Hostile input is handled here, at the seam with the third-party parsers:
//  - nesting is measured by a linear scan before nlohmann or yaml-cpp see the text (both
//    recurse or build recursive values); yaml-cpp's own depth guard (DeepRecursion) covers
//    block nesting the scan cannot see, and the YAML event builder re-checks kMaxDepth;
//  - YAML is read through yaml-cpp's event API (YAML::Parser + EventHandler), not
//    YAML::LoadAll/YAML::Node: LoadAll in yaml-cpp 0.7 loops forever on some inputs (a leading
//    ','), and Node iterators hand out temporary proxies that are easy to dangle;
//  - YAML aliases may expand a small text into a huge tree: the builder is charged per node
//    and per byte against a budget proportional to the input size;
//  - every exception thrown by the parsers is caught and turned into InvalidArgument.

#include "json/document.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <exception>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <streambuf>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "json/fast_json.h"
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
  return absl::InvalidArgumentError(internal::StrCat(
      source, ": ", Where(text, pos), ": nesting deeper than ", kMaxDepth, " levels"));
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
// nesting is bounded by yaml-cpp's depth guard and by JsonEventBuilder.
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
bool IsHex(char c) { return IsDec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

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
    auto [p, ec] =
        std::from_chars(signed_text.data(), signed_text.data() + signed_text.size(), i64);
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
      auto [p, ec] =
          std::from_chars(digits.data(), digits.data() + digits.size(), u64, hex ? 16 : 8);
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

// Thrown by the event handler below and caught in LoadYaml (never escapes this file).
struct YamlBuildError {
  YAML::Mark mark;
  std::string what;
};

// Builds one nlohmann::json value per YAML document from yaml-cpp's parse events. Iterative
// (an explicit stack of open collections), so nothing here recurses on the input's nesting.
// Anchors are copied on use; every node and byte produced, aliases included, is charged to a
// budget so that alias bombs fail instead of exhausting memory.
class JsonEventBuilder : public YAML::EventHandler {
 public:
  // `sink`, when set, takes the elements of the first document's List items (see
  // LoadYamlStreamingItems) instead of the document.
  JsonEventBuilder(size_t budget, const JsonItemSink* sink) : budget_(budget), sink_(sink) {}

  // Output of the last document handled.
  Json TakeRoot() { return std::move(root_); }
  const YAML::Mark& document_mark() const { return document_mark_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    document_mark_ = mark;
    stack_.clear();
    anchors_.clear();
    root_ = nullptr;
    ++documents_;
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (ExpectingKey()) {
      stack_.back().key = "null";
      stack_.back().has_key = true;
      return;
    }
    Add(mark, nullptr, anchor, kNodeCost);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end())
      throw YamlBuildError{mark, "alias to an unknown or unfinished anchor"};
    if (ExpectingKey()) {
      if (!it->second.value.is_string()) throw YamlBuildError{mark, "mapping keys must be scalars"};
      Charge(mark, it->second.cost);
      stack_.back().key = it->second.value.get<std::string>();
      stack_.back().has_key = true;
      return;
    }
    Add(mark, it->second.value, YAML::NullAnchor, it->second.cost);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (!IsValidUtf8(value)) throw YamlBuildError{mark, "invalid UTF-8 in scalar"};
    const size_t cost = kNodeCost + value.size();
    if (ExpectingKey()) {
      Charge(mark, cost);
      stack_.back().key = value;
      stack_.back().has_key = true;
      if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchored{Json(value), cost};
      return;
    }
    // "!" marks a quoted or block scalar: always a string. Plain scalars are resolved.
    if (tag == "!" || tag == "tag:yaml.org,2002:str") {
      Add(mark, Json(value), anchor, cost);
    } else {
      Add(mark, ResolvePlainScalar(value), anchor, cost);
    }
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    // The root mapping's "items" of the first document (unless anchored: an alias to it would
    // see it empty) goes to the sink element by element.
    const bool streaming = sink_ != nullptr && documents_ == 1 && stack_.size() == 1 &&
                           stack_[0].value.is_object() && stack_[0].has_key &&
                           stack_[0].key == "items" && anchor == YAML::NullAnchor;
    Open(mark, Json::array(), anchor);
    stack_.back().streaming = streaming;
  }
  void OnSequenceEnd() override { Close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    Open(mark, Json::object(), anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  static constexpr size_t kNodeCost = 16;

  struct Frame {
    Json value;  // array or object under construction
    YAML::anchor_t anchor = YAML::NullAnchor;
    YAML::Mark mark;
    size_t cost = kNodeCost;
    std::string key;  // objects: the key waiting for its value
    bool has_key = false;
    size_t elements = 0;     // arrays: the elements attached (streamed ones too)
    bool streaming = false;  // elements go to sink_, not into value
  };
  struct Anchored {
    Json value;
    size_t cost = 0;
  };

  bool ExpectingKey() const {
    return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().has_key;
  }

  void Charge(const YAML::Mark& mark, size_t cost) {
    if (cost > budget_) throw YamlBuildError{mark, "document too large once aliases are expanded"};
    budget_ -= cost;
  }

  void Open(const YAML::Mark& mark, Json value, YAML::anchor_t anchor) {
    if (ExpectingKey()) throw YamlBuildError{mark, "mapping keys must be scalars"};
    if (stack_.size() >= static_cast<size_t>(kMaxDepth)) {
      throw YamlBuildError{mark, internal::StrCat("nesting deeper than ", kMaxDepth, " levels")};
    }
    Charge(mark, kNodeCost);
    Frame f;
    f.value = std::move(value);
    f.anchor = anchor;
    f.mark = mark;
    stack_.push_back(std::move(f));
  }

  void Close() {
    if (stack_.empty()) return;  // unbalanced events: yaml-cpp reports the error itself
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (f.anchor != YAML::NullAnchor) anchors_[f.anchor] = Anchored{f.value, f.cost};
    Attach(f.mark, std::move(f.value), f.cost);
  }

  // A finished node: `cost` is already charged except for aliases (charged here).
  void Add(const YAML::Mark& mark, Json value, YAML::anchor_t anchor, size_t cost) {
    Charge(mark, cost);
    if (anchor != YAML::NullAnchor) anchors_[anchor] = Anchored{value, cost};
    Attach(mark, std::move(value), cost);
  }

  void Attach(const YAML::Mark& mark, Json value, size_t cost) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return;
    }
    Frame& parent = stack_.back();
    parent.cost += cost;
    if (parent.streaming) {
      (*sink_)(value, parent.elements++);
    } else if (parent.value.is_array()) {
      parent.value.push_back(std::move(value));
      ++parent.elements;
    } else {
      // Kubernetes decodes strictly: a repeated key is an error, not "the last one wins".
      if (parent.value.contains(parent.key)) {
        throw YamlBuildError{
            mark, internal::StrCat(PathOfOpenNodes(), ": duplicate key \"", parent.key, "\"")};
      }
      parent.value[parent.key] = std::move(value);
      parent.key.clear();
      parent.has_key = false;
    }
  }

  // The JSON path of the node being attached ("items[2].metadata.labels.app").
  std::string PathOfOpenNodes() const {
    std::string path;
    for (const Frame& f : stack_) {
      if (f.value.is_array()) {
        path += internal::StrCat("[", f.elements, "]");
      } else if (f.has_key) {
        path += path.empty() ? f.key : internal::StrCat(".", f.key);
      }
    }
    return path;
  }

  size_t budget_;
  const JsonItemSink* sink_;
  int documents_ = 0;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, Anchored> anchors_;
  Json root_;
  YAML::Mark document_mark_;
};

// Thrown by JsonPathTracker on a repeated key (never escapes LoadJson).
struct JsonDuplicateKey {
  std::string path;
  std::string key;
};

// nlohmann's parse callback, following where the parser is: rejects repeated keys (as
// Kubernetes' strict decoding) and names the path of a value the parser fails on (e.g. a
// number out of the double range).
class JsonPathTracker {
 public:
  bool operator()(int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        stack_.emplace_back();
        stack_.back().object = event == Json::parse_event_t::object_start;
        break;
      case Json::parse_event_t::key: {
        Frame& f = stack_.back();
        f.key = parsed.get<std::string>();
        f.has_key = true;
        if (!f.Insert(f.key)) throw JsonDuplicateKey{Path(), f.key};
        break;
      }
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        stack_.pop_back();
        Completed();
        break;
      case Json::parse_event_t::value:
        Completed();
        break;
    }
    return true;
  }

  // The path of the value being parsed.
  std::string Path() const {
    std::string path;
    for (const Frame& f : stack_) {
      if (!f.object) {
        path += internal::StrCat("[", f.index, "]");
      } else if (f.has_key) {
        path += path.empty() ? f.key : internal::StrCat(".", f.key);
      }
    }
    return path;
  }

 private:
  struct Frame {
    bool object = false;
    bool has_key = false;
    std::string key;
    size_t index = 0;
    std::vector<std::string> keys;  // small objects: a linear scan
    std::set<std::string> many;     // from kLinear keys on
    static constexpr size_t kLinear = 16;

    bool Insert(const std::string& k) {
      if (many.empty()) {
        for (const std::string& seen : keys) {
          if (seen == k) return false;
        }
        keys.push_back(k);
        if (keys.size() >= kLinear) {
          many.insert(keys.begin(), keys.end());
          keys.clear();
        }
        return true;
      }
      return many.insert(k).second;
    }
  };

  void Completed() {
    if (stack_.empty()) return;
    Frame& f = stack_.back();
    if (f.object) {
      f.has_key = false;
    } else {
      ++f.index;
    }
  }

  std::vector<Frame> stack_;
};

absl::StatusOr<std::vector<Document>> LoadJson(std::string_view text, std::string_view source) {
  std::vector<Document> docs(1);
  // The fast reader handles valid input (its own depth bound is kMaxDepth); nlohmann parses
  // the rest, after the depth check, and names what is wrong.
  if (std::optional<Json> fast = FastParseJson(text)) {
    docs[0].value = std::move(*fast);
    return docs;
  }
  if (absl::Status s = CheckJsonDepth(text, source); !s.ok()) return s;
  JsonPathTracker tracker;
  try {
    docs[0].value = Json::parse(text.begin(), text.end(), std::ref(tracker));
  } catch (const JsonDuplicateKey& e) {
    return absl::InvalidArgumentError(
        internal::StrCat(source, ": ", e.path, ": duplicate key \"", e.key, "\""));
  } catch (const Json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." -> drop the tag.
    std::string_view what = e.what();
    if (size_t p = what.find("] "); p != std::string_view::npos) what.remove_prefix(p + 2);
    const std::string path = tracker.Path();
    if (path.empty()) return absl::InvalidArgumentError(internal::StrCat(source, ": ", what));
    return absl::InvalidArgumentError(internal::StrCat(source, ": ", path, ": ", what));
  }
  return docs;
}

// A read-only stream buffer over text in memory: yaml-cpp reads a std::istream, and an
// istringstream would hold a copy of the whole text.
class TextBuf : public std::streambuf {
 public:
  explicit TextBuf(std::string_view text) {
    // The get area is only read (putback of the same character moves the pointer back).
    char* begin = const_cast<char*>(text.data());
    setg(begin, begin, begin + text.size());
  }
};

// `docs_sink`, when set, takes each document as soon as the next one starts (or the text
// ends) instead of the returned vector, which stays empty: at most two documents are held.
absl::StatusOr<std::vector<Document>> LoadYaml(std::string_view text, std::string_view source,
                                               const JsonItemSink* sink = nullptr,
                                               const DocumentSink* docs_sink = nullptr) {
  if (absl::Status s = CheckYamlFlowDepth(text, source); !s.ok()) return s;
  auto error = [&](const YAML::Mark& mark, std::string_view what) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": ", MarkText(mark), what));
  };
  TextBuf buf(text);
  std::istream stream(&buf);
  // Without aliases the converted size is about the text size; allow generous slack.
  JsonEventBuilder builder(16 * text.size() + (size_t{1} << 20), sink);
  std::vector<Document> docs;
  std::optional<Json> pending;  // docs_sink: the last document, until its path is known
  size_t count = 0;
  try {
    YAML::Parser parser(stream);
    int last_start = -1;
    while (parser.HandleNextDocument(builder)) {
      // yaml-cpp 0.7 can report the same document forever when a token it cannot handle
      // (e.g. a leading ',') is never consumed (jbeder/yaml-cpp#1040): every real document
      // starts past the previous one.
      const YAML::Mark& start = builder.document_mark();
      if (start.pos <= last_start || count > text.size()) {
        return error(start, "unexpected token");
      }
      last_start = start.pos;
      ++count;
      if (docs_sink == nullptr) {
        docs.push_back(Document{builder.TakeRoot(), ""});
        continue;
      }
      // A document followed by another is `documents[i]`.
      if (pending) (*docs_sink)(*pending, internal::StrCat("documents[", count - 2, "]"));
      pending = builder.TakeRoot();
    }
    if (pending) {
      (*docs_sink)(*pending, count > 1 ? internal::StrCat("documents[", count - 1, "]") : "");
    }
  } catch (const YamlBuildError& e) {
    return error(e.mark, e.what);
  } catch (const YAML::DeepRecursion& e) {
    return error(e.mark, internal::StrCat("nesting deeper than ", kMaxDepth, " levels"));
  } catch (const YAML::Exception& e) {
    return error(e.mark, e.msg);
  }
  if (docs.size() > 1) {
    for (size_t i = 0; i < docs.size(); ++i) docs[i].path = internal::StrCat("documents[", i, "]");
  }
  return docs;
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t len = internal::Utf8SequenceAt(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

namespace {

// `text` without a UTF-8 byte order mark (not content); *first: its first character that is
// not white space (text.size() if none).
std::string_view WithoutBom(std::string_view text, size_t* first) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  size_t i = 0;
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) {
    ++i;
  }
  *first = i;
  return text;
}

}  // namespace

std::optional<Json> LoadJsonStreamingItems(std::string_view text, const LiteItemSink& sink) {
  size_t first = 0;
  text = WithoutBom(text, &first);
  if (first == text.size() || text[first] != '{') return std::nullopt;
  return FastParseJsonStreamingItems(text, sink);
}

bool MayHoldSeveralYamlDocuments(std::string_view text) {
  // A document after the first starts after a `---` or `...` marker at the start of a line.
  bool content = false;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    const bool marker = line.substr(0, 3) == "---" || line.substr(0, 3) == "...";
    if (marker && content) return true;
    const size_t first = line.find_first_not_of(" \t\r");
    if (!marker && first != std::string_view::npos && line[first] != '#') content = true;
    at = end + 1;
  }
  return false;
}

absl::Status LoadYamlDocuments(std::string_view text, std::string_view source,
                               const DocumentSink& sink) {
  try {
    absl::StatusOr<std::vector<Document>> docs = LoadYaml(text, source, nullptr, &sink);
    return docs.status();
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": ", e.what()));
  } catch (...) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": unreadable input"));
  }
}

bool IsJsonText(std::string_view text) {
  size_t first = 0;
  text = WithoutBom(text, &first);
  return first < text.size() && (text[first] == '{' || text[first] == '[');
}

bool MayBeList(const Json& root) {
  auto kind = root.find("kind");
  if (kind == root.end() || !kind->is_string()) return true;
  const std::string& k = kind->get_ref<const std::string&>();
  return k.size() >= 4 && k.compare(k.size() - 4, 4, "List") == 0;
}

std::optional<absl::StatusOr<std::vector<Document>>> LoadYamlStreamingItems(
    std::string_view text, std::string_view source, const JsonItemSink& sink) {
  if (IsJsonText(text)) return std::nullopt;
  size_t first = 0;
  text = WithoutBom(text, &first);
  try {
    return LoadYaml(text, source, &sink);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": ", e.what()));
  } catch (...) {
    return absl::InvalidArgumentError(internal::StrCat(source, ": unreadable input"));
  }
}

absl::Status CheckNoNulByte(std::string_view text, std::string_view source) {
  const void* nul = std::memchr(text.data(), '\0', text.size());
  if (nul == nullptr) return absl::OkStatus();
  const size_t offset = static_cast<size_t>(static_cast<const char*>(nul) - text.data());
  const std::string_view before = text.substr(0, offset);
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t line_start = before.rfind('\n');
  const size_t column = offset - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  return absl::InvalidArgumentError(
      internal::StrCat(source, ": line ", line, ", column ", column, " (byte offset ", offset,
                       "): NUL byte (a JSON or YAML text cannot contain one)"));
}

absl::StatusOr<std::vector<Document>> LoadDocuments(std::string_view text,
                                                    std::string_view source) {
  KARP_RETURN_IF_ERROR(CheckNoNulByte(text, source));
  size_t first = 0;
  text = WithoutBom(text, &first);
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
