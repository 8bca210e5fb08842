#!/usr/bin/env bash
# Installs the Debian 12 packages karp needs to build and test, skipping those already present
# (golang-go, pybind11-dev, python3-dev, python3-pytest and python3-matplotlib are for the Go
# and Python bindings, which the build skips with a message when they are missing).
# ccache is installed too: a top-level configure compiles through it when present (docs/ci.md).
# Usage: scripts/deps.sh [--main] [--fuzz] [--report]   (--main: only what building the library
# and the karp command needs, without the bindings' toolchains: the quick start's first
# command; --fuzz also installs clang, clang-tidy and the
# sanitizer and libFuzzer runtimes, for the clang presets: the ASan+UBSan tests and the fuzz
# targets, TSan, thread-safety, and scripts/clang_tidy_changed.sh; --report also
# installs gnuplot-nox, for the charts of scripts/bench_report.py and `karp simulate --svg`)
set -euo pipefail

packages=(cmake g++ make pkg-config python3 ccache
          libabsl-dev libboost-graph-dev nlohmann-json3-dev rapidjson-dev catch2 libbenchmark-dev
          coinor-libclp-dev
          libyaml-cpp-dev libcurl4-openssl-dev libssl-dev libpugixml-dev zlib1g-dev)
bindings=(golang-go pybind11-dev python3-dev python3-pytest python3-matplotlib)
main_only=0
for flag in "$@"; do
  case "$flag" in
    --main) main_only=1 ;;
    --fuzz) packages+=(clang clang-tidy libclang-rt-dev) ;;
    --report) packages+=(gnuplot-nox) ;;
    *) echo "usage: scripts/deps.sh [--main] [--fuzz] [--report]" >&2; exit 2 ;;
  esac
done
if ((main_only == 0)); then packages+=("${bindings[@]}"); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "installing: ${missing[*]}" >&2
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
