#include "aws/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {
namespace {

using internal::StrCat;

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";

bool IsUnreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

bool IsTokenChar(unsigned char c) {
  // RFC 7230 tchar.
  if (std::isalnum(c)) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Trims, and collapses every run of whitespace (including the line breaks of a folded value)
// into one space.
std::string CanonicalHeaderValue(std::string_view v) {
  std::string out;
  bool pending_space = false;
  for (char ch : v) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(ch);
  }
  return out;
}

std::string CanonicalPath(std::string_view path) {
  if (path.empty()) return "/";
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view seg = path.substr(start, end - start);
    if (seg == "..") {
      if (!segments.empty()) segments.pop_back();
    } else if (!seg.empty() && seg != ".") {
      segments.push_back(seg);
    }
    start = end + 1;
  }
  std::string out = "/";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) out.push_back('/');
    out += UriEncode(segments[i]);
  }
  if (path.back() == '/' && !segments.empty()) out.push_back('/');
  return out;
}

std::string CanonicalQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> params;
  size_t start = 0;
  while (start < query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    std::string_view kv = query.substr(start, end - start);
    if (!kv.empty()) {
      const size_t eq = kv.find('=');
      std::string_view k = kv.substr(0, eq);
      std::string_view v = eq == std::string_view::npos ? std::string_view() : kv.substr(eq + 1);
      params.emplace_back(UriEncode(PercentDecode(k)), UriEncode(PercentDecode(v)));
    }
    start = end + 1;
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (size_t i = 0; i < params.size(); ++i) {
    if (i > 0) out.push_back('&');
    out += params[i].first;
    out.push_back('=');
    out += params[i].second;
  }
  return out;
}

std::string DigestSha256(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(md), len);
}

}  // namespace

std::string HexEncode(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char ch : bytes) {
    const unsigned char c = static_cast<unsigned char>(ch);
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
  }
  return out;
}

std::string Sha256Hex(std::string_view data) { return HexEncode(DigestSha256(data)); }

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), md, &len);
  return std::string(reinterpret_cast<const char*>(md), len);
}

std::string UriEncode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::string PercentDecode(std::string_view s) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

std::string AmzDate(absl::Time time) {
  return absl::FormatTime("%Y%m%dT%H%M%SZ", time, absl::UTCTimeZone());
}

absl::StatusOr<absl::Time> ParseAmzDate(std::string_view text) {
  auto bad = [&] {
    return absl::InvalidArgumentError(
        StrCat("x-amz-date \"", text.substr(0, 40), "\" is not YYYYMMDDTHHMMSSZ"));
  };
  if (text.size() != 16 || text[8] != 'T' || text[15] != 'Z') return bad();
  int64_t v[6];
  const size_t pos[6] = {0, 4, 6, 9, 11, 13};
  const size_t len[6] = {4, 2, 2, 2, 2, 2};
  for (int i = 0; i < 6; ++i) {
    int64_t n = 0;
    for (size_t k = 0; k < len[i]; ++k) {
      const char c = text[pos[i] + k];
      if (c < '0' || c > '9') return bad();
      n = n * 10 + (c - '0');
    }
    v[i] = n;
  }
  const absl::CivilSecond cs(v[0], static_cast<int>(v[1]), static_cast<int>(v[2]),
                             static_cast<int>(v[3]), static_cast<int>(v[4]),
                             static_cast<int>(v[5]));
  // CivilSecond normalises out-of-range fields; a round trip detects them.
  if (cs.year() != v[0] || cs.month() != v[1] || cs.day() != v[2] || cs.hour() != v[3] ||
      cs.minute() != v[4] || cs.second() != v[5]) {
    return bad();
  }
  return absl::FromCivil(cs, absl::UTCTimeZone());
}

absl::StatusOr<SigV4Signature> ComputeSigV4(const HttpRequest& request,
                                            const Credentials& credentials, const SigV4Scope& scope,
                                            absl::Time time) {
  if (credentials.access_key_id().empty()) {
    return absl::InvalidArgumentError("sigv4: credentials have an empty access key id");
  }
  if (credentials.secret_access_key().empty()) {
    return absl::InvalidArgumentError(StrCat("sigv4: credentials of access key id ",
                                             credentials.access_key_id(),
                                             " have an empty secret access key"));
  }
  if (scope.region.empty()) return absl::InvalidArgumentError("sigv4: scope has an empty region");
  if (scope.service.empty()) {
    return absl::InvalidArgumentError("sigv4: scope has an empty service");
  }
  if (request.method.empty()) return absl::InvalidArgumentError("sigv4: empty HTTP method");

  // Canonical headers: lower-case names, sorted; repeats joined with ',' in order.
  std::map<std::string, std::vector<std::string>> headers;
  for (const auto& [name, value] : request.headers) {
    if (name.empty()) return absl::InvalidArgumentError("sigv4: empty header name");
    for (char c : name) {
      if (!IsTokenChar(static_cast<unsigned char>(c))) {
        return absl::InvalidArgumentError(
            StrCat("sigv4: header name \"", name, "\" has a character outside RFC 7230 tokens"));
      }
    }
    headers[Lower(name)].push_back(CanonicalHeaderValue(value));
  }
  std::string canonical_headers;
  std::vector<std::string> names;
  for (const auto& [name, values] : headers) {
    canonical_headers += name;
    canonical_headers.push_back(':');
    canonical_headers += absl::StrJoin(values, ",");
    canonical_headers.push_back('\n');
    names.push_back(name);
  }

  SigV4Signature sig;
  sig.amz_date = AmzDate(time);
  const std::string date = sig.amz_date.substr(0, 8);
  sig.credential_scope = StrCat(date, "/", scope.region, "/", scope.service, "/aws4_request");
  sig.signed_headers = absl::StrJoin(names, ";");
  sig.canonical_request =
      StrCat(request.method, "\n", CanonicalPath(request.path), "\n", CanonicalQuery(request.query),
             "\n", canonical_headers, "\n", sig.signed_headers, "\n", Sha256Hex(request.body));
  sig.string_to_sign = StrCat(kAlgorithm, "\n", sig.amz_date, "\n", sig.credential_scope, "\n",
                              Sha256Hex(sig.canonical_request));
  std::string key = HmacSha256(StrCat("AWS4", credentials.secret_access_key()), date);
  key = HmacSha256(key, scope.region);
  key = HmacSha256(key, scope.service);
  key = HmacSha256(key, "aws4_request");
  sig.signature = HexEncode(HmacSha256(key, sig.string_to_sign));
  sig.authorization =
      StrCat(kAlgorithm, " Credential=", credentials.access_key_id(), "/", sig.credential_scope,
             ", SignedHeaders=", sig.signed_headers, ", Signature=", sig.signature);
  return sig;
}

absl::Status SignRequest(const Credentials& credentials, const SigV4Scope& scope, absl::Time time,
                         HttpRequest* request) {
  if (request == nullptr) return absl::InvalidArgumentError("sigv4: null request");
  bool has_date = false, has_token = false;
  for (const auto& [name, value] : request->headers) {
    const std::string lower = Lower(name);
    if (lower == "authorization") {
      return absl::InvalidArgumentError("sigv4: request is already signed (has Authorization)");
    }
    if (lower == "x-amz-date") has_date = true;
    if (lower == "x-amz-security-token") has_token = true;
  }
  if (!has_date) request->headers.emplace_back("X-Amz-Date", AmzDate(time));
  if (!has_token && !credentials.session_token().empty()) {
    request->headers.emplace_back("X-Amz-Security-Token", credentials.session_token());
  }
  KARP_ASSIGN_OR_RETURN(SigV4Signature sig, ComputeSigV4(*request, credentials, scope, time));
  request->headers.emplace_back("Authorization", std::move(sig.authorization));
  return absl::OkStatus();
}

absl::StatusOr<SigV4Authorization> ParseSigV4Authorization(std::string_view value) {
  const std::string prefix = StrCat(kAlgorithm, " ");
  if (value.substr(0, prefix.size()) != prefix) {
    return absl::InvalidArgumentError(
        StrCat("sigv4 authorization: does not start with \"", kAlgorithm, " \""));
  }
  std::string_view rest = value.substr(prefix.size());
  std::map<std::string, std::string> parts;
  size_t start = 0;
  while (start < rest.size()) {
    size_t end = rest.find(',', start);
    if (end == std::string_view::npos) end = rest.size();
    std::string_view part = rest.substr(start, end - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      return absl::InvalidArgumentError(
          StrCat("sigv4 authorization: part \"", part, "\" has no '='"));
    }
    parts[std::string(part.substr(0, eq))] = std::string(part.substr(eq + 1));
    start = end + 1;
  }
  for (const char* need : {"Credential", "SignedHeaders", "Signature"}) {
    if (parts.count(need) == 0) {
      return absl::InvalidArgumentError(StrCat("sigv4 authorization: missing ", need));
    }
  }
  SigV4Authorization out;
  std::vector<std::string> cred;
  {
    std::string_view c = parts["Credential"];
    size_t s = 0;
    while (true) {
      size_t e = c.find('/', s);
      cred.emplace_back(c.substr(s, e == std::string_view::npos ? std::string_view::npos : e - s));
      if (e == std::string_view::npos) break;
      s = e + 1;
    }
  }
  if (cred.size() != 5 || cred[4] != "aws4_request" || cred[1].size() != 8) {
    return absl::InvalidArgumentError(
        "sigv4 authorization: Credential is not <key>/<yyyymmdd>/<region>/<service>/aws4_request");
  }
  out.access_key_id = cred[0];
  out.date = cred[1];
  out.region = cred[2];
  out.service = cred[3];
  {
    std::string_view h = parts["SignedHeaders"];
    size_t s = 0;
    while (s <= h.size()) {
      size_t e = h.find(';', s);
      if (e == std::string_view::npos) e = h.size();
      if (e > s) out.signed_headers.emplace_back(h.substr(s, e - s));
      s = e + 1;
    }
  }
  out.signature = parts["Signature"];
  if (out.signed_headers.empty()) {
    return absl::InvalidArgumentError("sigv4 authorization: SignedHeaders is empty");
  }
  return out;
}

}  // namespace karp::aws
