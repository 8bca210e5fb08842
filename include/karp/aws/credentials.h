// File: karp/aws/credentials.h
//
// AWS credentials for the EC2 adapter (target karp::aws): an access key pair with an optional
// session token, read from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN) or from the shared credentials file (AWS_SHARED_CREDENTIALS_FILE or
// ~/.aws/credentials, profile AWS_PROFILE or "default").
//
// Secrets are never printed: DebugString() and operator<< show the access key id and redact
// the secret key and the session token; no error message of this module contains a secret.
//
// Example:
//   absl::StatusOr<karp::aws::Credentials> creds = karp::aws::ResolveCredentials();
//   if (!creds.ok()) return creds.status();
//   std::cout << *creds;  // Credentials{access_key_id=AKID..., secret=<redacted>, ...}
//
// Thread-safety: Credentials is a value type (thread-compatible). The functions only read the
// environment and files and are thread-safe as long as nobody modifies the environment
// concurrently (setenv is not thread-safe in POSIX).

#ifndef KARP_AWS_CREDENTIALS_H_
#define KARP_AWS_CREDENTIALS_H_

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace karp::aws {

class Credentials {
 public:
  Credentials() = default;
  Credentials(std::string access_key_id, std::string secret_access_key,
              std::string session_token = "")
      : access_key_id_(std::move(access_key_id)),
        secret_access_key_(std::move(secret_access_key)),
        session_token_(std::move(session_token)) {}

  const std::string& access_key_id() const { return access_key_id_; }
  // The secret. Only the SigV4 signer should read it; never log it.
  const std::string& secret_access_key() const { return secret_access_key_; }
  const std::string& session_token() const { return session_token_; }
  // Where the credentials came from: "environment", "shared credentials file <path> profile
  // <name>" or "" when built directly.
  const std::string& source() const { return source_; }
  void set_source(std::string source) { source_ = std::move(source); }

  // True iff both the access key id and the secret are non-empty.
  bool valid() const { return !access_key_id_.empty() && !secret_access_key_.empty(); }

  // `Credentials{access_key_id=AKIDEXAMPLE, secret_access_key=<redacted>,
  // session_token=<redacted>|<none>, source=...}`. Never contains a secret.
  std::string DebugString() const;

  friend std::ostream& operator<<(std::ostream& os, const Credentials& c) {
    return os << c.DebugString();
  }

 private:
  std::string access_key_id_;
  std::string secret_access_key_;
  std::string session_token_;
  std::string source_;
};

// Reads an environment variable; std::nullopt when unset. Injectable for tests.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The process environment (std::getenv).
EnvironmentLookup ProcessEnvironment();

// AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN).
// Errors: NotFound when AWS_ACCESS_KEY_ID is unset or empty; InvalidArgument when only one of
// the pair is set (the message names the variable, never its value).
[[nodiscard]] absl::StatusOr<Credentials> CredentialsFromEnvironment(
    const EnvironmentLookup& env = ProcessEnvironment());

// The INI-style shared credentials file: `[profile]` sections with aws_access_key_id,
// aws_secret_access_key and aws_session_token (keys case-insensitive, `#`/`;` comments,
// whitespace around `=` ignored).
// Errors: NotFound when the file cannot be read or has no such profile; InvalidArgument (naming
// the file, profile and line number, never a value) when the profile lacks a key or a line is
// malformed.
[[nodiscard]] absl::StatusOr<Credentials> CredentialsFromSharedFile(const std::string& path,
                                                                    const std::string& profile);

// The default chain: the environment, then the shared credentials file
// (AWS_SHARED_CREDENTIALS_FILE, else $HOME/.aws/credentials) with profile AWS_PROFILE (else
// "default"). Credentials in the environment win over AWS_PROFILE, as in the AWS CLI.
// Errors: NotFound when no source has credentials (the message lists the sources tried);
// InvalidArgument from a malformed source.
[[nodiscard]] absl::StatusOr<Credentials> ResolveCredentials(
    const EnvironmentLookup& env = ProcessEnvironment());

}  // namespace karp::aws

#endif  // KARP_AWS_CREDENTIALS_H_
