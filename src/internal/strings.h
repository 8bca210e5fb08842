// Internal string helpers. The Debian Abseil is built with ABSL_OPTION_USE_STD_STRING_VIEW=0,
// so absl::StrCat/StrAppend do not accept std::string_view; these wrappers adapt it.
#ifndef KARP_SRC_INTERNAL_STRINGS_H_
#define KARP_SRC_INTERNAL_STRINGS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace karp::internal {

inline absl::string_view AV(std::string_view s) { return absl::string_view(s.data(), s.size()); }

template <typename T>
const T& Adapt(const T& v) {
  return v;
}
inline absl::string_view Adapt(std::string_view s) { return AV(s); }

// absl::StrCat / absl::StrAppend that also take std::string_view.
template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(Adapt(args)...);
}
template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, Adapt(args)...);
}

// A status message as a std::string_view (the Debian Abseil's string_view is its own type).
inline std::string_view Message(const absl::Status& s) {
  return std::string_view(s.message().data(), s.message().size());
}

// The length (1 to 4) of the well-formed UTF-8 sequence starting at s[i], or 0 when the bytes
// there are not one (overlongs, surrogates and code points above U+10FFFF included). The code
// point goes to `*code_point` when not null.
inline size_t Utf8SequenceAt(std::string_view s, size_t i, uint32_t* code_point = nullptr) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned char c = p[i];
  size_t len = 0;
  uint32_t cp = 0;
  if (c < 0x80) {
    len = 1;
    cp = c;
  } else if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((p[i + k] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i + k] & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  if (code_point != nullptr) *code_point = cp;
  return len;
}

// ": <the system's message for errno value err>" ("No such file or directory"), or "" when err
// is 0: the reason appended to a message about a file or stream that failed.
inline std::string OsReason(int err) {
  return err == 0 ? std::string() : StrCat(": ", std::strerror(err));
}

// The most characters of one quoted value a message shows (CutLongQuotedValues).
inline constexpr size_t kMaxQuotedChars = 200;

// `s` with every double-quoted run longer than kMaxQuotedChars characters (UTF-8 code points;
// a byte that is not valid UTF-8 counts as one) cut to that many (the last an ellipsis),
// followed by how many were cut: `"aaaa…" (99801 more characters)`. A message quotes the values it
// takes from the input, and a 100,000-character value must not fill a terminal. Runs are paired
// quote by quote; a run without its closing quote is cut the same way. Cutting twice changes
// nothing.
inline std::string CutLongQuotedValues(std::string_view s) {
  if (s.size() <= kMaxQuotedChars) return std::string(s);
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const size_t open = s.find('"', i);
    if (open == std::string_view::npos) break;
    size_t close = s.find('"', open + 1);
    const bool closed = close != std::string_view::npos;
    if (!closed) close = s.size();
    // A cut value shows kMaxQuotedChars - 1 characters and an ellipsis: kMaxQuotedChars in
    // all, so that it is not cut again.
    size_t chars = 0, keep = open + 1, at = open + 1;
    while (at < close) {
      const size_t len = std::max<size_t>(Utf8SequenceAt(s, at, nullptr), 1);
      if (chars + 1 < kMaxQuotedChars) keep = at + len;
      at += len;
      ++chars;
    }
    if (chars <= kMaxQuotedChars) keep = close;
    out.append(s.data() + i, keep - i);
    if (chars > kMaxQuotedChars) {
      out += StrCat("\u2026", closed ? "\"" : "", " (", chars - (kMaxQuotedChars - 1),
                    " more characters)");
    } else if (closed) {
      out += '"';
    }
    i = closed ? close + 1 : s.size();
  }
  if (i < s.size()) out.append(s.data() + i, s.size() - i);
  return out;
}

// `s` with every control character (C0, DEL, C1) and every byte that is not part of valid
// UTF-8 written as an escape (\n, \t, \r, \xNN, \u00NN), so that text taken from the input
// cannot move the cursor, retitle a terminal or forge a second line in a message, and quoted
// values longer than 200 characters cut (CutLongQuotedValues). Everything else, backslashes
// included, is copied: escaping twice changes nothing.
inline std::string EscapeForMessage(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::string cut = CutLongQuotedValues(text);
  const std::string_view s = cut;
  std::string out;
  out.reserve(s.size());
  auto hex = [&](std::string_view prefix, uint32_t v) {
    out.append(prefix.data(), prefix.size());
    out.push_back(kHex[(v >> 4) & 0xF]);
    out.push_back(kHex[v & 0xF]);
  };
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = 0;
    const size_t len = Utf8SequenceAt(s, i, &cp);
    if (len == 0) {
      hex("\\x", static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20 || cp == 0x7F) {
      hex("\\x", cp);
    } else if (cp >= 0x80 && cp <= 0x9F) {
      hex("\\u00", cp);  // C1 control
    } else {
      out.append(s.data() + i, len);
    }
    i += len;
  }
  return out;
}

}  // namespace karp::internal

#endif  // KARP_SRC_INTERNAL_STRINGS_H_
