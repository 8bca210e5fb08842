// Bottlerocket's settings as TOML (see toml.h): a parser of the subset karp reads and a writer
// with sorted keys.

#include "aws/toml.h"

#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {

using internal::StrAppend;
using internal::StrCat;

namespace {

class TomlParser {
 public:
  explicit TomlParser(std::string_view text) : s_(text) {}

  absl::StatusOr<TomlValue> Parse() {
    TomlValue root;
    TomlValue* current = &root;
    while (true) {
      SkipBlankAndComments();
      if (pos_ >= s_.size()) break;
      if (s_[pos_] == '[') {
        if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '[') {
          return Error("arrays of tables ([[...]]) are not supported");
        }
        ++pos_;
        KARP_ASSIGN_OR_RETURN(std::vector<std::string> path, Key());
        SkipSpaces();
        if (pos_ >= s_.size() || s_[pos_] != ']') return Error("expected ] after a table name");
        ++pos_;
        KARP_RETURN_IF_ERROR(EndOfLine());
        current = &root;
        for (const std::string& part : path) {
          KARP_ASSIGN_OR_RETURN(current, Descend(current, part));
        }
        continue;
      }
      KARP_ASSIGN_OR_RETURN(std::vector<std::string> path, Key());
      SkipSpaces();
      if (pos_ >= s_.size() || s_[pos_] != '=') return Error("expected = after a key");
      ++pos_;
      SkipSpaces();
      KARP_ASSIGN_OR_RETURN(TomlValue value, Value(0));
      KARP_RETURN_IF_ERROR(EndOfLine());
      TomlValue* table = current;
      for (size_t i = 0; i + 1 < path.size(); ++i) {
        KARP_ASSIGN_OR_RETURN(table, Descend(table, path[i]));
      }
      if (table->table.count(path.back()) != 0) {
        return Error(StrCat("duplicate key \"", path.back(), "\""));
      }
      table->table.emplace(path.back(), std::move(value));
    }
    return root;
  }

 private:
  absl::Status Error(std::string_view what) const {
    int line = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) line += s_[i] == '\n';
    return absl::InvalidArgumentError(StrCat("line ", line, ": ", what));
  }

  absl::StatusOr<TomlValue*> Descend(TomlValue* t, const std::string& key) {
    auto [it, inserted] = t->table.try_emplace(key);
    if (!inserted && it->second.type != TomlValue::Type::kTable) {
      return Error(StrCat("key \"", key, "\" is not a table"));
    }
    return &it->second;
  }

  void SkipSpaces() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  void SkipBlankAndComments() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  absl::Status EndOfLine() {
    SkipSpaces();
    if (pos_ < s_.size() && s_[pos_] == '#') {
      while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == '\r') ++pos_;
    if (pos_ < s_.size() && s_[pos_] != '\n') return Error("unexpected text after a value");
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> QuotedString() {
    const char q = s_[pos_++];
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != q) {
      char c = s_[pos_++];
      if (c == '\n') return Error("newline in a string");
      if (q == '"' && c == '\\') {
        if (pos_ >= s_.size()) break;
        const char e = s_[pos_++];
        switch (e) {
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          default:
            return Error(StrCat("unsupported escape \\", std::string(1, e)));
        }
        continue;
      }
      out += c;
    }
    if (pos_ >= s_.size()) return Error("unterminated string");
    ++pos_;
    return out;
  }

  absl::StatusOr<std::vector<std::string>> Key() {
    std::vector<std::string> parts;
    while (true) {
      SkipSpaces();
      if (pos_ >= s_.size()) return Error("expected a key");
      if (s_[pos_] == '"' || s_[pos_] == '\'') {
        KARP_ASSIGN_OR_RETURN(std::string k, QuotedString());
        parts.push_back(std::move(k));
      } else {
        const size_t start = pos_;
        while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                    s_[pos_] == '-' || s_[pos_] == '_')) {
          ++pos_;
        }
        if (pos_ == start) return Error("expected a key");
        parts.emplace_back(s_.substr(start, pos_ - start));
      }
      SkipSpaces();
      if (pos_ < s_.size() && s_[pos_] == '.') {
        ++pos_;
        continue;
      }
      return parts;
    }
  }

  absl::StatusOr<TomlValue> Value(int depth) {
    if (depth > 32) return Error("arrays nested too deeply");
    if (pos_ >= s_.size()) return Error("expected a value");
    const char c = s_[pos_];
    if (c == '"' || c == '\'') {
      if (s_.substr(pos_, 3) == "\"\"\"" || s_.substr(pos_, 3) == "'''") {
        return Error("multi-line strings are not supported");
      }
      KARP_ASSIGN_OR_RETURN(std::string str, QuotedString());
      return TomlValue::String(std::move(str));
    }
    if (c == '{') return Error("inline tables are not supported");
    if (c == '[') {
      ++pos_;
      TomlValue arr;
      arr.type = TomlValue::Type::kArray;
      while (true) {
        SkipBlankAndComments();
        if (pos_ >= s_.size()) return Error("unterminated array");
        if (s_[pos_] == ']') {
          ++pos_;
          return arr;
        }
        KARP_ASSIGN_OR_RETURN(TomlValue v, Value(depth + 1));
        arr.array.push_back(std::move(v));
        SkipBlankAndComments();
        if (pos_ < s_.size() && s_[pos_] == ',') ++pos_;
      }
    }
    const size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != ']' && s_[pos_] != '#' &&
           s_[pos_] != '\n' && s_[pos_] != ' ' && s_[pos_] != '\t' && s_[pos_] != '\r') {
      ++pos_;
    }
    const std::string_view word = s_.substr(start, pos_ - start);
    TomlValue v;
    if (word == "true" || word == "false") {
      v.type = TomlValue::Type::kBool;
      v.b = word == "true";
      return v;
    }
    bool digits = !word.empty(), is_float = false;
    for (size_t i = 0; i < word.size(); ++i) {
      const char d = word[i];
      if ((d == '+' || d == '-') && (i == 0 || word[i - 1] == 'e' || word[i - 1] == 'E')) continue;
      if (d == '.' || d == 'e' || d == 'E') {
        is_float = true;
        continue;
      }
      if (!(d >= '0' && d <= '9') && d != '_') digits = false;
    }
    if (!digits) return Error(StrCat("unsupported value \"", word, "\""));
    v.type = is_float ? TomlValue::Type::kFloat : TomlValue::Type::kInteger;
    v.text = std::string(word);
    return v;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

std::string TomlKey(std::string_view k) {
  bool bare = !k.empty();
  for (char c : k) {
    bare = bare && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_');
  }
  if (bare) return std::string(k);
  if (k.find('\'') == std::string_view::npos) return StrCat("'", k, "'");
  std::string out = "\"";
  for (char c : k) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}
std::string TomlString(std::string_view s) {
  if (s.find('\'') == std::string_view::npos && s.find('\n') == std::string_view::npos) {
    return StrCat("'", s, "'");
  }
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}
std::string TomlInline(const TomlValue& v) {
  switch (v.type) {
    case TomlValue::Type::kString:
      return TomlString(v.text);
    case TomlValue::Type::kInteger:
    case TomlValue::Type::kFloat:
      return v.text;
    case TomlValue::Type::kBool:
      return v.b ? "true" : "false";
    case TomlValue::Type::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < v.array.size(); ++i) {
        StrAppend(&out, i == 0 ? "" : ", ", TomlInline(v.array[i]));
      }
      return out + "]";
    }
    case TomlValue::Type::kTable:
      break;
  }
  return "{}";
}

}  // namespace

absl::StatusOr<TomlValue> ParseToml(std::string_view text) { return TomlParser(text).Parse(); }

void WriteToml(const TomlValue& table, const std::string& path, std::string* out) {
  bool has_values = false;
  for (const auto& [k, v] : table.table) {
    has_values = has_values || v.type != TomlValue::Type::kTable;
  }
  if (!path.empty() && (has_values || table.table.empty())) {
    StrAppend(out, out->empty() ? "" : "\n", "[", path, "]\n");
  }
  for (const auto& [k, v] : table.table) {
    if (v.type != TomlValue::Type::kTable) StrAppend(out, TomlKey(k), " = ", TomlInline(v), "\n");
  }
  for (const auto& [k, v] : table.table) {
    if (v.type == TomlValue::Type::kTable) {
      WriteToml(v, path.empty() ? TomlKey(k) : StrCat(path, ".", TomlKey(k)), out);
    }
  }
}

TomlValue TomlStringTable(const std::map<std::string, std::string>& m) {
  TomlValue t;
  for (const auto& [k, v] : m) t.table[k] = TomlValue::String(v);
  return t;
}

}  // namespace karp::aws
