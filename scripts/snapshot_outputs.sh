#!/usr/bin/env bash
# Writes karp's decisions on the bundled examples, the conformance scenarios and the benchmark
# workloads into one folder, so that a refactor can be checked byte for byte (CONTRIBUTING.md,
# "Refactors keep outputs byte-identical"):
#
#   scripts/snapshot_outputs.sh build/tools/karp /tmp/before      # on the old commit
#   scripts/snapshot_outputs.sh build/tools/karp /tmp/after       # on the new one
#   diff -r /tmp/before /tmp/after && echo identical
#
# Usage: snapshot_outputs.sh KARP OUTDIR [SHARED]
#   SHARED is the folder holding conformance/ and data/workloads/ (default: ../shared next to
#   the repository). Parts whose inputs are absent are skipped with a message; the examples are
#   always compared. Exit status 1 when karp crashes (exit status above 1) on any input.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
karp=$(readlink -f "$1")
out=$(mkdir -p "$2" && readlink -f "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
shared=${3:-$repo/../shared}
failed=0

# run NAME ARGS...: karp's stdout into OUTDIR/NAME.out, its exit status into NAME.rc.
run() {
  local name=$1
  shift
  local rc=0
  "$karp" "$@" >"$out/$name.out" 2>/dev/null || rc=$?
  echo "$rc" >"$out/$name.rc"
  if [[ $rc -gt 1 ]]; then
    echo "snapshot_outputs: karp $* exited $rc" >&2
    failed=1
  fi
}

cd "$repo"
for f in examples/inflate.yaml examples/statefulset.yaml examples/older-api/walkthrough.yaml \
         examples/aws/nodeclass-nodepool.yaml; do
  name=example-$(basename "${f%.yaml}")
  run "$name-solve" solve -f "$f" -o json
done
run example-consolidate_cluster consolidate -f examples/consolidate_cluster.yaml -o json
run example-commitments solve -f examples/commitments/cluster.yaml \
  --commitments examples/commitments/commitments.yaml -o json
for f in examples/traces/*.yaml; do
  case $f in *-commitments.yaml) continue ;; esac
  run "trace-$(basename "${f%.yaml}")" simulate --trace "$f" --csv - --events
done

if [[ -d $shared/conformance ]]; then
  # The runner starts karp in a scratch folder per scenario; a wrapper keeps each stdout under
  # a name made of the scenario's inputs, so that both snapshots name the same runs alike.
  wrapper=$out/.karp-wrapper.sh
  cat >"$wrapper" <<EOF
#!/usr/bin/env bash
key=\$( (printf '%s\n' "\$@"; cat objects.json catalog.json 2>/dev/null) | sha1sum | cut -c1-16)
rc=0
"$karp" "\$@" >stdout.txt 2>stderr.txt || rc=\$?
cp stdout.txt "$out/conformance-\$key.out"
echo "\$rc" >"$out/conformance-\$key.rc"
cat stdout.txt
cat stderr.txt >&2
exit \$rc
EOF
  chmod +x "$wrapper"
  dirs=("$shared/conformance")
  [[ -d tests/conformance ]] && dirs+=(tests/conformance)
  python3 "$shared/conformance/run.py" --karp "$wrapper" "${dirs[@]}" >"$out/.conformance.log" ||
    { echo "snapshot_outputs: conformance failures (see $out/.conformance.log)" >&2; failed=1; }
  rm -f "$wrapper"
else
  echo "snapshot_outputs: $shared/conformance absent: conformance scenarios skipped" >&2
fi

wl=$shared/data/workloads
if [[ -f $wl/aws-us-east-1.catalog.json.gz ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  for g in "$wl"/*.gz; do gunzip -c "$g" >"$tmp/$(basename "${g%.gz}")"; done
  catalog=$tmp/aws-us-east-1.catalog.json
  for f in "$tmp"/*.objects.json; do
    name=workload-$(basename "${f%.objects.json}")
    run "$name-solve" solve -f "$f" --catalog "$catalog" -o json
  done
  run workload-running-cluster-consolidate consolidate \
    -f "$tmp/running-cluster-20k-pending-1000-nodes.objects.json" --catalog "$catalog" -o json
else
  echo "snapshot_outputs: $wl absent: benchmark workloads skipped" >&2
fi

echo "snapshot_outputs: $(ls "$out" | grep -c '\.out$') outputs in $out"
exit $failed
