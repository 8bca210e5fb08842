#include "karp/aws/credentials.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "internal/strings.h"

namespace karp::aws {
namespace {

using internal::StrCat;

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string NonEmpty(const EnvironmentLookup& env, std::string_view name) {
  std::optional<std::string> v = env(name);
  return v.has_value() ? *v : std::string();
}

}  // namespace

std::string Credentials::DebugString() const {
  return StrCat("Credentials{access_key_id=", access_key_id_.empty() ? "<none>" : access_key_id_,
                ", secret_access_key=", secret_access_key_.empty() ? "<none>" : "<redacted>",
                ", session_token=", session_token_.empty() ? "<none>" : "<redacted>",
                ", source=", source_.empty() ? "<direct>" : source_, "}");
}

EnvironmentLookup ProcessEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

absl::StatusOr<Credentials> CredentialsFromEnvironment(const EnvironmentLookup& env) {
  const std::string id = NonEmpty(env, "AWS_ACCESS_KEY_ID");
  const std::string secret = NonEmpty(env, "AWS_SECRET_ACCESS_KEY");
  if (id.empty() && secret.empty()) {
    return absl::NotFoundError("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set");
  }
  if (id.empty()) {
    return absl::InvalidArgumentError("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not");
  }
  if (secret.empty()) {
    return absl::InvalidArgumentError("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not");
  }
  Credentials c(id, secret, NonEmpty(env, "AWS_SESSION_TOKEN"));
  c.set_source("environment");
  return c;
}

absl::StatusOr<Credentials> CredentialsFromSharedFile(const std::string& path,
                                                      const std::string& profile) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(StrCat("shared credentials file ", path, ": cannot be read"));
  }
  std::map<std::string, std::string> keys;  // of `profile`
  bool found = false;
  std::string section;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::string t = Trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t[0] == '[') {
      if (t.back() != ']') {
        return absl::InvalidArgumentError(StrCat("shared credentials file ", path, " line ", lineno,
                                                 ": malformed section header"));
      }
      section = Trim(std::string_view(t).substr(1, t.size() - 2));
      // ~/.aws/config spells "[profile name]"; accept it in the credentials file too.
      if (section.rfind("profile ", 0) == 0) section = Trim(section.substr(8));
      if (section == profile) found = true;
      continue;
    }
    const size_t eq = t.find('=');
    if (eq == std::string::npos) {
      // Value lines of nested settings start with whitespace; anything else is malformed.
      if (std::isspace(static_cast<unsigned char>(line[0]))) continue;
      return absl::InvalidArgumentError(
          StrCat("shared credentials file ", path, " line ", lineno, ": expected key = value"));
    }
    if (section != profile) continue;
    keys[Lower(Trim(std::string_view(t).substr(0, eq)))] = Trim(std::string_view(t).substr(eq + 1));
  }
  if (!found) {
    return absl::NotFoundError(
        StrCat("shared credentials file ", path, ": no profile [", profile, "]"));
  }
  const std::string id = keys["aws_access_key_id"];
  const std::string secret = keys["aws_secret_access_key"];
  if (id.empty()) {
    return absl::InvalidArgumentError(StrCat("shared credentials file ", path, " profile ", profile,
                                             ": aws_access_key_id is missing"));
  }
  if (secret.empty()) {
    return absl::InvalidArgumentError(StrCat("shared credentials file ", path, " profile ", profile,
                                             ": aws_secret_access_key is missing"));
  }
  Credentials c(id, secret, keys["aws_session_token"]);
  c.set_source(StrCat("shared credentials file ", path, " profile ", profile));
  return c;
}

absl::StatusOr<Credentials> ResolveCredentials(const EnvironmentLookup& env) {
  absl::StatusOr<Credentials> from_env = CredentialsFromEnvironment(env);
  if (from_env.ok() || from_env.status().code() != absl::StatusCode::kNotFound) return from_env;

  std::string path = NonEmpty(env, "AWS_SHARED_CREDENTIALS_FILE");
  if (path.empty()) {
    const std::string home = NonEmpty(env, "HOME");
    if (home.empty()) {
      return absl::NotFoundError(
          "no AWS credentials: the environment has none, AWS_SHARED_CREDENTIALS_FILE and HOME "
          "are unset");
    }
    path = StrCat(home, "/.aws/credentials");
  }
  std::string profile = NonEmpty(env, "AWS_PROFILE");
  if (profile.empty()) profile = "default";
  absl::StatusOr<Credentials> from_file = CredentialsFromSharedFile(path, profile);
  if (from_file.ok() || from_file.status().code() != absl::StatusCode::kNotFound) {
    return from_file;
  }
  return absl::NotFoundError(
      StrCat("no AWS credentials: the environment has none and ", from_file.status().message()));
}

}  // namespace karp::aws
