// Credentials: environment, shared credentials file, the default chain, redaction.

#include "karp/aws/credentials.h"

#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace karp::aws {
namespace {

namespace fs = std::filesystem;

EnvironmentLookup Env(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& content) {
    path = fs::temp_directory_path() / ("karp-aws-creds-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::ofstream(path) << content;
  }
  ~TempFile() { fs::remove(path); }
};

constexpr char kFile[] =
    "# comment\n"
    "[default]\n"
    "aws_access_key_id = AKIDDEFAULT\n"
    "aws_secret_access_key = defaultSECRET/abc\n"
    "\n"
    "[prod]\n"
    "AWS_ACCESS_KEY_ID=AKIDPROD\n"
    "aws_secret_access_key=prodSECRET+xyz\n"
    "aws_session_token = prodTOKEN123\n"
    "; trailing comment\n"
    "[broken]\n"
    "aws_access_key_id = AKIDBROKEN\n";

TEST_CASE("Credentials from the environment", "[aws][credentials]") {
  absl::StatusOr<Credentials> c =
      CredentialsFromEnvironment(Env({{"AWS_ACCESS_KEY_ID", "AKIDENV"},
                                      {"AWS_SECRET_ACCESS_KEY", "envSECRET"},
                                      {"AWS_SESSION_TOKEN", "envTOKEN"}}));
  REQUIRE(c.ok());
  CHECK(c->access_key_id() == "AKIDENV");
  CHECK(c->secret_access_key() == "envSECRET");
  CHECK(c->session_token() == "envTOKEN");
  CHECK(c->source() == "environment");
  CHECK(CredentialsFromEnvironment(Env({})).status().code() == absl::StatusCode::kNotFound);
  absl::StatusOr<Credentials> half =
      CredentialsFromEnvironment(Env({{"AWS_ACCESS_KEY_ID", "AKIDENV"}}));
  CHECK(half.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(half.status().message()).find("AWS_SECRET_ACCESS_KEY") != std::string::npos);
  half = CredentialsFromEnvironment(Env({{"AWS_SECRET_ACCESS_KEY", "onlySECRET"}}));
  CHECK(half.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(half.status().message()).find("onlySECRET") == std::string::npos);
}

TEST_CASE("Credentials from a temporary shared credentials file", "[aws][credentials]") {
  TempFile file(kFile);
  absl::StatusOr<Credentials> d = CredentialsFromSharedFile(file.path.string(), "default");
  REQUIRE(d.ok());
  CHECK(d->access_key_id() == "AKIDDEFAULT");
  CHECK(d->secret_access_key() == "defaultSECRET/abc");
  CHECK(d->session_token().empty());
  absl::StatusOr<Credentials> p = CredentialsFromSharedFile(file.path.string(), "prod");
  REQUIRE(p.ok());
  CHECK(p->access_key_id() == "AKIDPROD");
  CHECK(p->secret_access_key() == "prodSECRET+xyz");
  CHECK(p->session_token() == "prodTOKEN123");
  CHECK(p->source().find("profile prod") != std::string::npos);

  absl::StatusOr<Credentials> broken = CredentialsFromSharedFile(file.path.string(), "broken");
  CHECK(broken.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(broken.status().message()).find("aws_secret_access_key is missing") !=
        std::string::npos);
  CHECK(CredentialsFromSharedFile(file.path.string(), "nope").status().code() ==
        absl::StatusCode::kNotFound);
  CHECK(CredentialsFromSharedFile("/nonexistent/karp/credentials", "default").status().code() ==
        absl::StatusCode::kNotFound);
  TempFile bad("[default]\nthis line has no equals sign\n");
  absl::StatusOr<Credentials> malformed = CredentialsFromSharedFile(bad.path.string(), "default");
  CHECK(malformed.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(malformed.status().message()).find("line 2") != std::string::npos);
}

TEST_CASE("Credentials default chain: environment first, then the profile", "[aws][credentials]") {
  TempFile file(kFile);
  const std::string path = file.path.string();
  absl::StatusOr<Credentials> c =
      ResolveCredentials(Env({{"AWS_SHARED_CREDENTIALS_FILE", path}, {"AWS_PROFILE", "prod"}}));
  REQUIRE(c.ok());
  CHECK(c->access_key_id() == "AKIDPROD");
  c = ResolveCredentials(Env({{"AWS_SHARED_CREDENTIALS_FILE", path}}));
  REQUIRE(c.ok());
  CHECK(c->access_key_id() == "AKIDDEFAULT");
  c = ResolveCredentials(Env({{"AWS_SHARED_CREDENTIALS_FILE", path},
                              {"AWS_PROFILE", "prod"},
                              {"AWS_ACCESS_KEY_ID", "AKIDENV"},
                              {"AWS_SECRET_ACCESS_KEY", "envSECRET"}}));
  REQUIRE(c.ok());
  CHECK(c->access_key_id() == "AKIDENV");
  // HOME/.aws/credentials when no file is named.
  const fs::path home = fs::temp_directory_path() / ("karp-home-" + std::to_string(::getpid()));
  fs::create_directories(home / ".aws");
  std::ofstream(home / ".aws" / "credentials") << kFile;
  c = ResolveCredentials(Env({{"HOME", home.string()}}));
  REQUIRE(c.ok());
  CHECK(c->access_key_id() == "AKIDDEFAULT");
  fs::remove_all(home);
  absl::StatusOr<Credentials> none =
      ResolveCredentials(Env({{"AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/creds"}}));
  CHECK(none.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(none.status().message()).find("environment") != std::string::npos);
}

TEST_CASE("Credentials never print their secrets", "[aws][credentials]") {
  Credentials c("AKIDPRINT", "printSECRET/123", "printTOKEN");
  std::ostringstream os;
  os << c;
  const std::string text = os.str();
  CHECK(text == c.DebugString());
  CHECK(text.find("AKIDPRINT") != std::string::npos);
  CHECK(text.find("printSECRET") == std::string::npos);
  CHECK(text.find("printTOKEN") == std::string::npos);
  CHECK(text.find("<redacted>") != std::string::npos);
  CHECK(Credentials().DebugString().find("<none>") != std::string::npos);
  CHECK_FALSE(Credentials("a", "").valid());
  CHECK(c.valid());
}

}  // namespace
}  // namespace karp::aws
