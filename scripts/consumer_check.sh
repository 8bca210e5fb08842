#!/usr/bin/env bash
# Installs karp into a temporary prefix and builds tiny out-of-tree consumers against it
# (find_package(karp) with and without components, and the C API from C), then runs them.
#
#   scripts/consumer_check.sh [BUILD_DIR]   (default: build-install)
#
# A BUILD_DIR that is already configured (e.g. CI's Release `build`) is built as it is and
# installed from; otherwise it is configured as a library-only Release build first.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-install}
PREFIX=$(mktemp -d)
CONSUMER=$(mktemp -d)
trap 'rm -rf "$PREFIX" "$CONSUMER"' EXIT

if [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DKARP_BUILD_TESTS=OFF \
    -DKARP_BUILD_BENCHMARKS=OFF -DKARP_BUILD_EXAMPLES=OFF -DKARP_BUILD_TOOLS=OFF
fi
cmake --build "$BUILD" -j"${JOBS:-2}"
cmake --install "$BUILD" --prefix "$PREFIX"

cat > "$CONSUMER/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.22)
project(karp_consumer LANGUAGES CXX)
find_package(karp REQUIRED COMPONENTS json sim aws)
add_executable(consumer main.cc)
target_link_libraries(consumer PRIVATE karp::karp karp::json karp::testing karp::sim karp::aws)
CMAKE
cat > "$CONSUMER/main.cc" <<'CC'
#include <iostream>
#include "karp/karp.h"
#include "karp/json/codec.h"
#include "karp/testing/fake_cloud_provider.h"
#include "karp/aws/interruption.h"
#include "karp/sim/simulator.h"
int main() {
  karp::Requirements pool{karp::Requirement::In("kubernetes.io/arch", {"arm64"})};
  karp::Requirements pod{karp::Requirement::NotIn("kubernetes.io/arch", {"amd64"})};
  if (!pool.Compatible(pod, &karp::WellKnownLabels()).ok()) return 1;
  absl::StatusOr<karp::InstanceCatalog> cat = karp::EmbeddedAwsCatalog();
  if (!cat.ok() || cat->size() < 400) return 2;
  std::string json = karp::json::WriteCatalog(*cat);
  absl::StatusOr<karp::InstanceCatalog> back = karp::json::ParseCatalog(json, "roundtrip");
  if (!back.ok() || back->size() != cat->size()) return 3;
  auto shared = std::make_shared<const karp::InstanceCatalog>(std::move(*back));
  karp::testing::FakeCloudProvider cloud(shared);
  if (cloud.List()->size() != 0) return 4;
  // karp::aws: an interruption kind's name (docs/aws.md).
  if (karp::aws::AwsInterruptionKindName(karp::aws::AwsInterruptionKind::kSpotInterruption) !=
      "spot-interruption") return 5;
  if (karp::sim::StandardPolicies().empty()) return 6;
  std::cout << "consumer ok: karp " << KARP_VERSION_STRING << ", " << cat->size()
            << " instance types\n";
  return 0;
}
CC
cmake -S "$CONSUMER" -B "$CONSUMER/build" -DCMAKE_PREFIX_PATH="$PREFIX"
cmake --build "$CONSUMER/build"
"$CONSUMER/build/consumer"

# A consumer of karp::karp alone needs Abseil only: its configure step must not look for the
# components' dependencies (yaml-cpp, libcurl, OpenSSL, pugixml).
CORE=$(mktemp -d)
trap 'rm -rf "$PREFIX" "$CONSUMER" "$CORE"' EXIT
cat > "$CORE/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.22)
project(karp_core_consumer LANGUAGES CXX)
find_package(karp REQUIRED)
if(TARGET karp::json OR TARGET karp::aws OR TARGET yaml-cpp OR TARGET CURL::libcurl
   OR TARGET OpenSSL::Crypto OR TARGET pugixml::pugixml)
  message(FATAL_ERROR "find_package(karp) without components loaded a component")
endif()
add_executable(core main.cc)
target_link_libraries(core PRIVATE karp::karp)
CMAKE
cat > "$CORE/main.cc" <<'CC'
#include <iostream>
#include "karp/karp.h"
int main() {
  absl::StatusOr<karp::InstanceCatalog> cat = karp::EmbeddedAwsCatalog();
  if (!cat.ok()) return 1;
  std::cout << "core consumer ok: " << cat->size() << " instance types\n";
  return 0;
}
CC
cmake -S "$CORE" -B "$CORE/build" -DCMAKE_PREFIX_PATH="$PREFIX" --trace-expand \
  2> "$CORE/trace.txt" >/dev/null
if grep -Eq 'find_(package|dependency)\((yaml-cpp|CURL|OpenSSL|pugixml)' "$CORE/trace.txt"; then
  echo "consumer_check: find_package(karp) without components looked for a component dependency" >&2
  exit 1
fi
cmake --build "$CORE/build"
"$CORE/build/core"

# The C API from the install: a C program that includes karp/c/karp.h and links -lkarp_c
# (libkarp_c.so.1) alone, as a Go or Python host does.
CAPI=$(mktemp -d)
trap 'rm -rf "$PREFIX" "$CONSUMER" "$CORE" "$CAPI"' EXIT
# -print -quit, not `| head`: under pipefail, find killed by SIGPIPE would fail the script.
LIBDIR=$(dirname "$(find "$PREFIX" -name 'libkarp_c.so' -print -quit)")
cat > "$CAPI/main.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "karp/c/karp.h"
int main(void) {
  char* out = NULL;
  char* error = NULL;
  size_t size = 0;
  if (karp_abi_version() != KARP_C_ABI_VERSION) return 1;
  if (karp_catalog(NULL, "{\"region\": \"us-gov-west-1\"}", &out, &size, &error) != KARP_OK) {
    fprintf(stderr, "%s\n", error);
    return 2;
  }
  int ok = strstr(out, "\"m5.large\"") != NULL;
  karp_free(out);
  printf("C API consumer ok: karp %s, %zu bytes of catalog\n", karp_version(), size);
  return ok ? 0 : 3;
}
C
cc -std=c99 -Wall -Werror -I"$PREFIX/include" "$CAPI/main.c" -L"$LIBDIR" -lkarp_c \
  -Wl,-rpath,"$LIBDIR" -o "$CAPI/capi"
# Whole output first: `objdump | grep -q` stops reading at the match, and objdump killed by
# SIGPIPE fails the script under pipefail (exit 141 in CI).
objdump -p "$LIBDIR/libkarp_c.so" > "$CAPI/objdump.txt"
grep -q 'SONAME *libkarp_c.so.1' "$CAPI/objdump.txt"
"$CAPI/capi"
