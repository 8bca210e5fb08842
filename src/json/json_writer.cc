// The streaming JSON writer (json_writer.h). The layout rules are nlohmann's serializer's:
//  - a non-empty object or array opens with its bracket, puts each member on its own line
//    indented one level deeper (members separated by ","), and closes on a line of its own at
//    its own level; an empty one is "{}" or "[]";
//  - keys are followed by ": " (":" on one line);
//  - strings escape '"', '\\' and the control characters (\b \t \n \f \r, others \u00xx),
//    and keep every other UTF-8 character as it is;
//  - doubles use nlohmann's shortest round-trip formatting (so the numbers are the same text).

#include "json/json_writer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

#include "json/document.h"

namespace karp::json::codec_internal {
namespace {

bool IsAscii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

}  // namespace

void JsonWriter::Grow(size_t n) { out_.resize(std::max(2 * out_.size(), size_ + n + 4096)); }

void JsonWriter::Flush() {
  if (sink_ != nullptr && size_ > 0) sink_->write(out_.data(), static_cast<std::streamsize>(size_));
  size_ = 0;
}

void JsonWriter::NewLine(size_t depth) {
  const size_t spaces = depth * static_cast<size_t>(indent_);
  char* p = Extend(1 + spaces);
  *p = '\n';
  std::memset(p + 1, ' ', spaces);
}

void JsonWriter::BeforeValue() {
  MaybeFlush();
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (open_.empty()) return;
  Level& top = open_.back();  // an array: the value is its next element
  if (!top.empty) Append(',');
  top.empty = false;
  if (indent_ >= 0) NewLine(open_.size());
}

void JsonWriter::Open(char bracket, bool object) {
  BeforeValue();
  Append(bracket);
  open_.push_back(Level{object, true});
}

void JsonWriter::Close(char bracket) {
  const bool empty = open_.back().empty;
  open_.pop_back();
  if (!empty && indent_ >= 0) NewLine(open_.size());
  Append(bracket);
}

void JsonWriter::BeginObject() { Open('{', true); }
void JsonWriter::EndObject() { Close('}'); }
void JsonWriter::BeginArray() { Open('[', false); }
void JsonWriter::EndArray() { Close(']'); }

void JsonWriter::Key(std::string_view key) {
  MaybeFlush();
  Level& top = open_.back();
  if (!top.empty) Append(',');
  top.empty = false;
  if (indent_ >= 0) NewLine(open_.size());
  Escaped(key);
  Append(indent_ >= 0 ? std::string_view(": ") : std::string_view(":"));
  after_key_ = true;
}

void JsonWriter::Escaped(std::string_view s) {
  // Most strings need no escaping and are ASCII: one scan, one copy.
  size_t plain = 0;
  while (plain < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[plain]);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
    ++plain;
  }
  if (plain == s.size()) {
    char* p = Extend(s.size() + 2);
    *p = '"';
    std::memcpy(p + 1, s.data(), s.size());
    p[s.size() + 1] = '"';
    return;
  }
  EscapedSlow(s);
}

void JsonWriter::EscapedSlow(std::string_view s) {
  if (!IsAscii(s) && !IsValidUtf8(s)) {
    // Rare: let nlohmann replace the invalid bytes exactly as it always has.
    Append(nlohmann::json(std::string(s))
               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return;
  }
  Append('"');
  size_t run = 0;  // start of the pending run of characters copied as they are
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    Append(s.substr(run, i - run));
    run = i + 1;
    switch (c) {
      case '"':
        Append(std::string_view("\\\""));
        break;
      case '\\':
        Append(std::string_view("\\\\"));
        break;
      case '\b':
        Append(std::string_view("\\b"));
        break;
      case '\t':
        Append(std::string_view("\\t"));
        break;
      case '\n':
        Append(std::string_view("\\n"));
        break;
      case '\f':
        Append(std::string_view("\\f"));
        break;
      case '\r':
        Append(std::string_view("\\r"));
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        Append(std::string_view("\\u00"));
        Append(kHex[c >> 4]);
        Append(kHex[c & 0xF]);
      }
    }
  }
  Append(s.substr(run));
  Append('"');
}

void JsonWriter::String(std::string_view s) {
  BeforeValue();
  Escaped(s);
}

void JsonWriter::Int(int64_t v) {
  BeforeValue();
  std::array<char, 24> buf;
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  (void)ec;  // 24 characters hold any int64_t
  Append(std::string_view(buf.data(), static_cast<size_t>(end - buf.data())));
}

void JsonWriter::Double(double v) {
  BeforeValue();
  if (!std::isfinite(v)) {
    Append(std::string_view("null"));
    return;
  }
  std::array<char, 64> buf;
  char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
  Append(std::string_view(buf.data(), static_cast<size_t>(end - buf.data())));
}

void JsonWriter::Bool(bool b) {
  BeforeValue();
  Append(b ? std::string_view("true") : std::string_view("false"));
}

void JsonWriter::StringList(const std::vector<std::string>& v) {
  BeginArray();
  for (const std::string& s : v) String(s);
  EndArray();
}

void JsonWriter::RecurringStringList(const std::vector<std::string>& v) {
  BeforeValue();
  const size_t depth = open_.size();
  for (const ListText& l : lists_) {
    if (l.depth == depth && l.items == v) {
      Append(l.text);
      return;
    }
  }
  const size_t begin = size_;
  after_key_ = true;  // BeforeValue is done: StringList's opening bracket goes right here
  capturing_ = true;  // out_ from `begin` on must stay until it is kept
  StringList(v);
  capturing_ = false;
  ListText entry{v, depth, std::string(out_.data() + begin, size_ - begin)};
  if (lists_.size() < kListTexts) {
    lists_.push_back(std::move(entry));
  } else {
    lists_[next_list_] = std::move(entry);
    next_list_ = (next_list_ + 1) % kListTexts;
  }
}

void JsonWriter::StringMap(const std::map<std::string, std::string>& m) {
  BeginObject();
  for (const auto& [k, v] : m) {
    Key(k);
    String(v);
  }
  EndObject();
}

}  // namespace karp::json::codec_internal
