// Internal to karp::json: a streaming JSON writer for the large outputs (karp solve and karp
// consolidate). It appends text as values are given, without building a document, in exactly
// the layout of nlohmann::json::dump(indent, ' ', false, replace) for the same values inserted
// in the same order, so outputs stay byte-identical to the DOM writer it replaces.

#ifndef KARP_SRC_JSON_JSON_WRITER_H_
#define KARP_SRC_JSON_JSON_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace karp::json::codec_internal {

// Usage: w.BeginObject(); w.Key("a"); w.Int(1); w.EndObject(); std::string s = w.Take();
// Or streamed: JsonWriter w(1, std::cout); ...; w.Finish(); (the text goes out in chunks of
// about kChunkBytes, so a large output is never held whole.)
// Calls must form one well-nested value (a key before every value in an object); misuse is a
// programming error and is not diagnosed. Strings that are not valid UTF-8 have their invalid
// bytes replaced by U+FFFD, as nlohmann does. Not thread-safe; linear in the output size.
class JsonWriter {
 public:
  // `indent` spaces per level with a line per value; negative: one line without spaces.
  // `reserve`: the expected size of the text, to allocate once.
  explicit JsonWriter(int indent, size_t reserve = 0) : indent_(indent) { out_.resize(reserve); }
  // Streams the text to `sink` (which must outlive the writer); call Finish() at the end.
  JsonWriter(int indent, std::ostream& sink) : indent_(indent), sink_(&sink) {
    out_.resize(kChunkBytes + 4096);
  }
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(std::string_view key);

  void String(std::string_view s);
  // Key(key) then String(value).
  void Member(std::string_view key, std::string_view value) {
    Key(key);
    String(value);
  }
  void Int(int64_t v);
  void Double(double v);  // shortest round-trip form, as nlohmann ("5.0", "0.1376"); NaN: null
  void Bool(bool b);

  // Conveniences: an array of strings; an object of strings (in map order).
  void StringList(const std::vector<std::string>& v);
  void StringMap(const std::map<std::string, std::string>& m);
  // StringList for lists that recur (the instance types of NodeClaims): the text of the last
  // few such lists is kept and copied when an equal list comes again at the same depth.
  // Same output as StringList; a list seen once costs a copy of it more.
  void RecurringStringList(const std::vector<std::string>& v);

  // The text written so far (the value must be complete).
  std::string Take() {
    out_.resize(size_);
    size_ = 0;
    return std::move(out_);
  }
  // Streamed: writes what is left to the sink.
  void Finish() { Flush(); }

 private:
  struct Level {
    bool object = false;
    bool empty = true;
  };
  void BeforeValue();
  void Open(char bracket, bool object);
  void Close(char bracket);
  void NewLine(size_t depth);
  void Escaped(std::string_view s);
  void EscapedSlow(std::string_view s);  // escapes, non-ASCII or invalid UTF-8
  // Room for `n` more characters: where to write them (counted as written).
  char* Extend(size_t n) {
    if (out_.size() - size_ < n) Grow(n);
    char* p = out_.data() + size_;
    size_ += n;
    return p;
  }
  void Grow(size_t n);
  // Streamed: the text so far to the sink, once a chunk is full (between values).
  void MaybeFlush() {
    if (sink_ != nullptr && size_ >= kChunkBytes && !capturing_) Flush();
  }
  void Flush();
  void Append(std::string_view s) {
    if (!s.empty()) std::memcpy(Extend(s.size()), s.data(), s.size());
  }
  void Append(char c) { *Extend(1) = c; }

  // A list written by RecurringStringList: its elements, depth and text.
  struct ListText {
    std::vector<std::string> items;
    size_t depth = 0;
    std::string text;
  };
  static constexpr size_t kListTexts = 32;

  int indent_;
  std::ostream* sink_ = nullptr;
  bool capturing_ = false;       // RecurringStringList is keeping the text being written
  std::vector<ListText> lists_;  // at most kListTexts, replaced round robin
  size_t next_list_ = 0;
  // The text is out_[0, size_): out_ is sized ahead (its capacity in use) so that writing a
  // value is a copy into place, not a std::string append per piece.
  std::string out_;
  size_t size_ = 0;
  std::vector<Level> open_;
  bool after_key_ = false;
};

}  // namespace karp::json::codec_internal

#endif  // KARP_SRC_JSON_JSON_WRITER_H_
