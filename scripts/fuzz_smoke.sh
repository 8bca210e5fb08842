#!/usr/bin/env bash
# Fuzz smoke test: runs each of karp's libFuzzer targets on its seed corpus for a fixed time.
# The targets come from the `sanitize` configuration (CMakePresets.json: clang, ASan+UBSan,
# the libraries built with -fsanitize=fuzzer-no-link), the same build that runs the tests under
# the sanitizers in CI, so CI builds the instrumented libraries once.
#
#   scripts/fuzz_smoke.sh [BUILD_DIR]      (default: build-fuzz under the repository root;
#                                           a relative BUILD_DIR is taken from the repository root)
#   A BUILD_DIR already configured with KARP_BUILD_FUZZERS=ON (e.g. build-san of
#   `cmake --preset sanitize`) is reused as it is; otherwise it is configured from the
#   `sanitize` preset without tests and tools (a fuzzing-only build).
#
#   FUZZ_SECONDS=30   seconds per target          FUZZ_JOBS=<nproc>  parallel build jobs
#   CXX_FUZZ=clang++  the clang C++ compiler      FUZZ_AWS=ON  build the AWS adapter's targets
#   FUZZ_TARGETS="quantity snapshot ..."  default: every configured target (fuzz/CMakeLists.txt
#     writes them to BUILD_DIR/fuzz/fuzz_targets.txt: quantity snapshot catalog sim_trace openb
#     json_io old_api commitments, plus eventbridge nodeclass ec2_xml when the AWS adapter is built)
#   A longer campaign is the same script with a larger FUZZ_SECONDS (CI runs 10 s per target).
#
# New inputs found during the run go to BUILD_DIR/fuzz-corpus/<target> (the checked-in seeds in
# fuzz/corpus/<target> are only read); crash reproducers to BUILD_DIR/fuzz-artifacts/.
# Exit status: 0 when every target ran clean, 1 if any crashed (or leaked, timed out, ran out of
# memory), 2 if the build failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-build-fuzz}"
case "${BUILD}" in
  /*) ;;
  *) BUILD="${ROOT}/${BUILD}" ;;
esac
SECONDS_PER_TARGET="${FUZZ_SECONDS:-30}"
JOBS="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}"
CXX_FUZZ="${CXX_FUZZ:-clang++}"
AWS="${FUZZ_AWS:-ON}"

if ! command -v "${CXX_FUZZ}" >/dev/null 2>&1; then
  echo "fuzz_smoke: ${CXX_FUZZ} not found (set CXX_FUZZ to a clang++ with libFuzzer)" >&2
  exit 2
fi

if grep -qs '^KARP_BUILD_FUZZERS:BOOL=ON$' "${BUILD}/CMakeCache.txt"; then
  echo "fuzz_smoke: reusing the configured build ${BUILD}"
else
  echo "fuzz_smoke: configuring ${BUILD} from the sanitize preset with ${CXX_FUZZ}"
  if ! (cd "${ROOT}" && cmake --preset sanitize -B "${BUILD}" \
        -DCMAKE_CXX_COMPILER="${CXX_FUZZ}" -DKARP_BUILD_AWS="${AWS}" \
        -DKARP_BUILD_TESTS=OFF -DKARP_BUILD_TOOLS=OFF -DKARP_INSTALL=OFF \
        -DKARP_BUILD_PYTHON=OFF) >"${BUILD}.configure.log" 2>&1; then
    cat "${BUILD}.configure.log" >&2
    echo "fuzz_smoke: configure failed" >&2
    exit 2
  fi
  rm -f "${BUILD}.configure.log"
fi

if [[ -n "${FUZZ_TARGETS:-}" ]]; then
  TARGETS="${FUZZ_TARGETS}"
elif [[ -f "${BUILD}/fuzz/fuzz_targets.txt" ]]; then
  TARGETS="$(cat "${BUILD}/fuzz/fuzz_targets.txt")"
else
  TARGETS="quantity snapshot catalog old_api"
fi

build_targets=()
for t in ${TARGETS}; do build_targets+=("${t}_fuzz"); done
echo "fuzz_smoke: building ${build_targets[*]}"
if ! cmake --build "${BUILD}" -j "${JOBS}" --target "${build_targets[@]}"; then
  echo "fuzz_smoke: build failed" >&2
  exit 2
fi

failed=()
summary=()
for t in ${TARGETS}; do
  bin="${BUILD}/fuzz/${t}_fuzz"
  seeds="${ROOT}/fuzz/corpus/${t}"
  work="${BUILD}/fuzz-corpus/${t}"
  artifacts="${BUILD}/fuzz-artifacts"
  log="${BUILD}/fuzz-${t}.log"
  mkdir -p "${work}" "${artifacts}"
  echo "fuzz_smoke: running ${t}_fuzz for ${SECONDS_PER_TARGET}s (log: ${log})"
  status=0
  "${bin}" "${work}" "${seeds}" \
      -max_total_time="${SECONDS_PER_TARGET}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="${artifacts}/${t}-" -print_final_stats=1 >"${log}" 2>&1 || status=$?
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "${log}" | tail -n 1)"
  if [[ ${status} -ne 0 ]]; then
    failed+=("${t}")
    summary+=("${t}_fuzz: FAILED (exit ${status}) after ${execs:-?} executions")
    echo "---- last lines of ${log} ----" >&2
    tail -n 40 "${log}" >&2
  else
    summary+=("${t}_fuzz: ok, ${execs:-?} executions")
  fi
done

echo "fuzz_smoke: summary"
for line in "${summary[@]}"; do echo "  ${line}"; done
if [[ ${#failed[@]} -ne 0 ]]; then
  echo "fuzz_smoke: crashes in: ${failed[*]} (reproducers in ${BUILD}/fuzz-artifacts)" >&2
  exit 1
fi
