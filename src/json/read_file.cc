// Reading an input file whole, within ReadOptions' byte cap (see document.h): regular files,
// pipes and `-` (stdin) alike, in chunks, with the cap's error naming the file.

#include "json/document.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "internal/strings.h"
#include "karp/json/codec.h"

namespace karp::json::codec_internal {
namespace {

constexpr size_t kChunkBytes = size_t{1} << 16;

// Tells, as a text grows, whether LoadDocuments will read it as JSON or YAML (WithoutBom's
// rules), without scanning the leading white space twice.
class FormatSniffer {
 public:
  enum Format { kUnknown, kJson, kYaml };

  Format Update(std::string_view text) {
    if (format_ != kUnknown) return format_;
    if (pos_ == 0 && text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    while (pos_ < text.size() &&
           (text[pos_] == ' ' || text[pos_] == '\t' || text[pos_] == '\n' || text[pos_] == '\r')) {
      ++pos_;
    }
    if (pos_ < text.size()) format_ = text[pos_] == '{' || text[pos_] == '[' ? kJson : kYaml;
    return format_;
  }

 private:
  size_t pos_ = 0;
  Format format_ = kUnknown;
};

// The cap of `options` on a `regular` file or a stream of `format`, and the words naming it.
struct Cap {
  int64_t bytes;
  const char* what;
};
Cap CapFor(const ReadOptions& options, bool regular, FormatSniffer::Format format) {
  Cap cap{options.max_input_bytes, ""};
  if (!regular && options.max_stream_bytes < cap.bytes) {
    cap = {options.max_stream_bytes, " for a stream"};
  }
  if (format == FormatSniffer::kYaml && options.max_yaml_bytes < cap.bytes) {
    cap = {options.max_yaml_bytes, " for YAML"};
  }
  return cap;
}

// Reads the rest of `f` into *data (which holds what was read before) in chunks, until the end
// or until *data would exceed the cap that applies; false when it would. A chunk is measured
// before it is appended: the string's doubling then stops at the cap (the caps are powers of
// two), and a refused stream holds at most 1.5x its cap while it grows.
bool ReadRest(std::FILE* f, const ReadOptions& options, bool regular, FormatSniffer& sniffer,
              std::string* data) {
  std::vector<char> buf(kChunkBytes);
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    size_t pending = n;
    if (sniffer.Update(*data) == FormatSniffer::kUnknown) {  // only white space so far
      data->append(buf.data(), n);
      sniffer.Update(*data);
      pending = 0;
    }
    const int64_t cap = CapFor(options, regular, sniffer.Update(*data)).bytes;
    if (static_cast<int64_t>(data->size() + pending) > cap) return false;
    data->append(buf.data(), pending);
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, const ReadOptions& options) {
  bool regular = false;
  FormatSniffer sniffer;
  auto too_large = [&]() {
    const Cap cap = CapFor(options, regular, sniffer.Update(""));
    return absl::ResourceExhaustedError(
        internal::StrCat(internal::EscapeForMessage(path), ": larger than the input limit of ",
                         cap.bytes, " bytes", cap.what, " (see --max-input-bytes)"));
  };
  // The OS's reason goes with the message ("No such file or directory", "Permission denied",
  // "Is a directory"): a person can act on it.
  auto cannot_read = [&](int err) {
    return absl::NotFoundError(internal::StrCat(internal::EscapeForMessage(path),
                                                ": cannot read file", internal::OsReason(err)));
  };
  errno = 0;
  std::FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) return cannot_read(errno);
  std::string data;
  struct stat st;
  regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
  bool over = regular && st.st_size > options.max_input_bytes;
  if (regular && !over) {
    // The first chunk tells JSON from YAML (whose cap is smaller) before the rest is read;
    // the rest is read in place: the text is not copied through a buffer.
    data.resize(static_cast<size_t>(std::min<int64_t>(st.st_size, kChunkBytes)));
    data.resize(std::fread(data.data(), 1, data.size(), f));
    over = st.st_size > CapFor(options, regular, sniffer.Update(data)).bytes;
    if (!over && data.size() < static_cast<size_t>(st.st_size)) {
      const size_t have = data.size();
      data.resize(static_cast<size_t>(st.st_size));
      data.resize(have + std::fread(data.data() + have, 1, data.size() - have, f));
    }
  }
  // What is left (a stream, or a file that grew).
  if (!over) over = !ReadRest(f, options, regular, sniffer, &data);
  // A text whose first chunk was white space only is told apart now.
  if (!over) {
    over = static_cast<int64_t>(data.size()) > CapFor(options, regular, sniffer.Update(data)).bytes;
  }
  const bool failed = std::ferror(f) != 0;
  const int read_errno = errno;
  if (f != stdin) std::fclose(f);
  if (over) return too_large();
  if (failed) return cannot_read(read_errno);
  return data;
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, int64_t max_bytes) {
  ReadOptions options;
  options.max_input_bytes = max_bytes;
  options.max_stream_bytes = std::min(max_bytes, options.max_stream_bytes);
  options.max_yaml_bytes = std::min(max_bytes, options.max_yaml_bytes);
  return ReadWholeFile(path, options);
}

}  // namespace karp::json::codec_internal
