#!/usr/bin/env bash
# clang-tidy (the checks of .clang-tidy at the repository root) on the .cc files changed
# between BASE and HEAD, or with --all on every .cc file of the build's compile database.
#
#   scripts/clang_tidy_changed.sh [--all] [BUILD_DIR] [BASE]
#
# BUILD_DIR (default build-san; a relative one is taken from the repository root) must be
# configured: its compile_commands.json gives each file's flags (CMakeLists.txt exports it). A
# clang build is best (the `sanitize` preset, what CI uses): clang-tidy is clang, and GCC-only
# flags would be warned about.
#
# BASE (default: see below) is any commit. Without one:
#   - on a branch that has left origin/main (or main), the merge base with it: every .cc file
#     the branch changed;
#   - otherwise (CI on a fresh clone of main, where HEAD is origin/main), HEAD~1: the files of
#     the newest commit. A push of several commits is checked by its last one only; run with an
#     older BASE (or --all) to check more.
# Deleted files, files that are not C++ sources (.cc), the generated src/json/schemas_gen.cc
# and files the build does not compile (e.g. bench/ in a build without benchmarks) are left
# out, each said on stdout. Headers are checked through the .cc files that include them
# (HeaderFilterRegex in .clang-tidy), not on their own.
#
#   JOBS=<nproc>        files checked in parallel
#   CLANG_TIDY=clang-tidy
#
# Exit status: 0 when every file is clean or there is nothing to check (said on stdout), 1 when
# clang-tidy reported a finding (each file's findings are printed), 2 on a usage or setup error.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"
CLANG_TIDY="${CLANG_TIDY:-clang-tidy}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
GENERATED=("src/json/schemas_gen.cc")

all=0
args=()
for a in "$@"; do
  case "$a" in
    --all) all=1 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "usage: scripts/clang_tidy_changed.sh [--all] [BUILD_DIR] [BASE]" >&2
      exit 2
      ;;
    *) args+=("$a") ;;
  esac
done
if ((${#args[@]} > 2)); then
  echo "usage: scripts/clang_tidy_changed.sh [--all] [BUILD_DIR] [BASE]" >&2
  exit 2
fi
BUILD="${args[0]:-build-san}"
BASE="${args[1]:-}"
case "${BUILD}" in
  /*) ;;
  *) BUILD="${ROOT}/${BUILD}" ;;
esac
DB="${BUILD}/compile_commands.json"

if ! command -v "${CLANG_TIDY}" >/dev/null 2>&1; then
  echo "clang_tidy_changed: ${CLANG_TIDY} not found (Debian: apt-get install clang-tidy)" >&2
  exit 2
fi
if [[ ! -f "${DB}" ]]; then
  echo "clang_tidy_changed: ${DB} not found; configure the build first" \
    "(e.g. cmake --preset sanitize)" >&2
  exit 2
fi

# The repository-relative .cc files of the compile database, once each.
compiled="$(python3 - "${DB}" "${ROOT}" <<'EOF'
import json, os, sys
db, root = sys.argv[1], os.path.realpath(sys.argv[2])
files = set()
for entry in json.load(open(db)):
    path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    if path.endswith(".cc") and path.startswith(root + os.sep):
        files.add(os.path.relpath(path, root))
print("\n".join(sorted(files)))
EOF
)"

candidates=()
if ((all)); then
  if [[ -n "${BASE}" ]]; then
    echo "usage: --all takes no BASE" >&2
    exit 2
  fi
  mapfile -t candidates <<<"${compiled}"
  echo "clang_tidy_changed: every .cc file of ${DB} (but ${GENERATED[*]}, generated)"
else
  if [[ -z "${BASE}" ]]; then
    head="$(git rev-parse HEAD)"
    for upstream in origin/main main; do
      if git rev-parse -q --verify "${upstream}^{commit}" >/dev/null; then
        merge_base="$(git merge-base HEAD "${upstream}" || true)"
        if [[ -n "${merge_base}" && "${merge_base}" != "${head}" ]]; then
          BASE="${merge_base}"
          echo "clang_tidy_changed: base ${BASE:0:12}, the merge base with ${upstream}"
        fi
        break
      fi
    done
    if [[ -z "${BASE}" ]]; then
      if ! git rev-parse -q --verify "HEAD~1^{commit}" >/dev/null; then
        echo "clang_tidy_changed: nothing to check: HEAD has no parent here (a shallow clone?);" \
          "pass a BASE or --all"
        exit 0
      fi
      BASE="HEAD~1"
      echo "clang_tidy_changed: base HEAD~1 (the files of the newest commit)"
    fi
  fi
  if ! git rev-parse -q --verify "${BASE}^{commit}" >/dev/null; then
    echo "clang_tidy_changed: ${BASE} is not a commit here" >&2
    exit 2
  fi
  mapfile -t changed < <(git diff --name-only --diff-filter=d "${BASE}" HEAD -- '*.cc')
  for f in "${changed[@]}"; do
    [[ -z "$f" ]] && continue
    if grep -qxF "$f" <<<"${compiled}"; then
      candidates+=("$f")
    else
      echo "  skipped (not compiled in ${BUILD##*/}): $f"
    fi
  done
fi

files=()
for f in "${candidates[@]}"; do
  [[ -z "$f" ]] && continue
  if printf '%s\n' "${GENERATED[@]}" | grep -qxF "$f"; then
    ((all)) || echo "  skipped (generated): $f"
  else
    files+=("$f")
  fi
done
if ((${#files[@]} == 0)); then
  echo "clang_tidy_changed: nothing to check: no changed .cc file that the build compiles"
  exit 0
fi

echo "clang_tidy_changed: ${#files[@]} file(s), ${JOBS} at a time, $(${CLANG_TIDY} --version |
  sed -n 's/.*LLVM version \([0-9.]*\).*/clang-tidy \1/p')"
out="$(mktemp -d)"
trap 'rm -rf "${out}"' EXIT
start=$(date +%s)
# Each file's output goes to its own log; the files clang-tidy failed on are listed in `failed`.
printf '%s\0' "${files[@]}" | xargs -0 -P "${JOBS}" -n 1 sh -c '
  log="$1/$(printf %s "$4" | tr / _).log"
  "$2" -p "$3" --quiet "$4" >"$log" 2>&1 || echo "$4" >>"$1/failed"
' tidy_one "${out}" "${CLANG_TIDY}" "${BUILD}"
secs=$(($(date +%s) - start))

failed=()
if [[ -f "${out}/failed" ]]; then mapfile -t failed < <(sort "${out}/failed"); fi
for f in "${failed[@]}"; do
  echo
  echo "==== ${f}"
  # clang-tidy's count lines ("N warnings generated.") say nothing the findings do not.
  grep -Ev '^[0-9]+ (warnings?|errors?)( and [0-9]+ errors?)? generated\.$' \
    "${out}/$(printf %s "$f" | tr / _).log" || true
done
echo
if ((${#failed[@]} > 0)); then
  echo "clang_tidy_changed: findings in ${#failed[@]} of ${#files[@]} file(s) (${secs} s)"
  exit 1
fi
echo "clang_tidy_changed: ${#files[@]} file(s) clean (${secs} s)"
