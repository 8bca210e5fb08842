#!/usr/bin/env bash
# The karp CLI on input a person got wrong: each case must exit with the documented status and
# print one line naming the file (or the flag) and what is wrong. Run by ctest with the karp
# binary and the examples directory as arguments.
set -u
KARP=$1
EXAMPLES=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
passed=0

# expect STATUS PATTERN -- ARGS... : runs karp ARGS (stdin from $STDIN_FILE or /dev/null),
# checks the exit status and that the first stderr line matches PATTERN (grep -E).
expect() {
  local want=$1 pattern=$2
  shift 3
  local got first
  "$KARP" "$@" < "${STDIN_FILE:-/dev/null}" > "$TMP/out" 2> "$TMP/err"
  got=$?
  first=$(head -n 1 "$TMP/err")
  if [[ $got -ne $want ]] || ! grep -Eq -- "$pattern" <<< "$first"; then
    echo "FAIL: karp $* -> status $got (want $want), stderr: $first (want /$pattern/)"
    failures=$((failures + 1))
  else
    passed=$((passed + 1))
  fi
}

printf 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\n' > "$TMP/pool.yaml"
: > "$TMP/empty.yaml"
printf '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1","cpu":"64"}}}]}}' > "$TMP/dup.json"
printf '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"\\u001b]0;pwned\\u0007"}}}]}}' > "$TMP/escape.json"
printf 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n  disruption:\n    budgets: [{nodes: "1", schedule: "@every 5m", duration: 10m}]\n' > "$TMP/every.yaml"
cat > "$TMP/typo.yaml" <<'YAML'
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: app, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: typo}
spec:
  nodeSelector: {kubernetes.io/hostname: red-node}
  containers: [{name: app, resources: {requests: {cpu: "1"}}}]
YAML

expect 1 "^no objects in $TMP/empty.yaml\$" -- solve -f "$TMP/empty.yaml"
STDIN_FILE=/dev/null expect 1 '^no objects in -$' -- solve -f -
expect 1 "^$TMP/dup.json: spec.containers\\[0\\].resources.requests.cpu: duplicate key \"cpu\"\$" -- solve -f "$TMP/dup.json"
expect 1 '^/dev/zero: larger than the input limit of 1048576 bytes' -- solve -f /dev/zero --max-input-bytes 1Mi
expect 1 "^$TMP/pool.yaml: metadata.name: duplicate nodepool \"default\" \\(first defined at the top level\\)\$" -- solve -f "$TMP/pool.yaml" -f "$TMP/pool.yaml"
expect 1 'budgets\[0\].schedule: invalid schedule "@every 5m"' -- consolidate -f "$TMP/every.yaml" --now 2026-01-01T00:00:00Z
expect 1 'invalid quantity "\\x1b\]0;pwned\\x07"' -- solve -f "$TMP/escape.json"
# A 100,000-character value is quoted cut to 200 characters, with the count of the rest.
python3 -c "import json; print(json.dumps({'kind': 'Pod', 'apiVersion': 'v' * 100000, 'metadata': {'name': 'a'}}))" > "$TMP/long.json"
expect 1 'unsupported apiVersion "v{199}…" \(99801 more characters\) for kind Pod' -- solve -f "$TMP/long.json"
if [[ $(head -n 1 "$TMP/err" | wc -c) -lt 400 ]]; then passed=$((passed + 1)); else
  echo "FAIL: the long value's error line has $(head -n 1 "$TMP/err" | wc -c) bytes"
  failures=$((failures + 1))
fi
expect 2 '^karp: --now must be an RFC3339 time, got "garbage"$' -- solve -f "$TMP/pool.yaml" --now garbage
expect 2 '^karp: --max-input-bytes must be a positive size' -- solve -f "$TMP/pool.yaml" --max-input-bytes abc
expect 2 '^karp: --packing must be faithful or cost$' -- solve -f "$TMP/pool.yaml" --packing cheapest
expect 2 '^karp: --cost-attempts must be an integer from 0 to 10$' -- solve -f "$TMP/pool.yaml" --cost-attempts 11
expect 2 '^karp: --cost-pool-order must be weight or price$' -- solve -f "$TMP/pool.yaml" --cost-pool-order cheapest
expect 2 '^karp: --cost-threads must be an integer from 0 to 1024$' -- solve -f "$TMP/pool.yaml" --cost-threads -1
expect 2 '^karp: --cost-deadline must be a positive duration such as 2s, got "0s"$' -- solve -f "$TMP/pool.yaml" --cost-deadline 0s
expect 2 '^karp: --from and --until select a window of --openb only$' -- simulate --trace "$EXAMPLES/traces/inflate.yaml" --from 5h
expect 2 '^karp: --policy needs at least one policy name$' -- simulate --trace "$EXAMPLES/traces/inflate.yaml" --policy ""
expect 2 '^karp: --sample must be a duration of at least 1s' -- simulate --trace "$EXAMPLES/traces/inflate.yaml" --sample 1ns
expect 2 '^karp: --disruption-interval must be a duration of at least 1s' -- simulate --trace "$EXAMPLES/traces/inflate.yaml" --disruption-interval 1ns
printf 'kind: Commitments\nreservedInstances:\n  - {id: ri-1, instanceType: m5.large, region: us-east-1, count: 0}\n' > "$TMP/ri.yaml"
printf 'kind: Commitments\ncapacityReservations:\n  - {id: cr-1, instanceType: no.such, availabilityZone: us-east-1a, count: 1}\n' > "$TMP/cr.yaml"
expect 1 "^$TMP/ri.yaml: reservedInstances\\[0\\].count: must be > 0\$" -- solve -f "$EXAMPLES/inflate.yaml" --commitments "$TMP/ri.yaml"
expect 1 "^$TMP/ri.yaml: reservedInstances\\[0\\].count: must be > 0\$" -- consolidate -f "$EXAMPLES/inflate.yaml" --commitments "$TMP/ri.yaml"
expect 1 "^$TMP/ri.yaml: reservedInstances\\[0\\].count: must be > 0\$" -- simulate --trace "$EXAMPLES/traces/inflate.yaml" --commitments "$TMP/ri.yaml"
expect 1 "^$TMP/cr.yaml: capacityReservations\\[0\\].instanceType: \"no.such\" is not in the catalog\$" -- solve -f "$EXAMPLES/inflate.yaml" --commitments "$TMP/cr.yaml"
expect 2 '^karp: missing value for --commitments$' -- solve -f "$EXAMPLES/inflate.yaml" --commitments

# One tenant's typo leaves only that pod pending: exit 0, the other pod scheduled.
"$KARP" solve -f "$TMP/typo.yaml" -o text > "$TMP/out" 2> "$TMP/err"
if [[ $? -eq 0 ]] && grep -q '^Scheduled 1 of 2 pod(s)' "$TMP/out" &&
   grep -q '^Could not schedule pod default/typo, ignoring pod, using label kubernetes.io/hostname' "$TMP/out"; then
  passed=$((passed + 1))
else
  echo "FAIL: solve with one invalid pod:"; cat "$TMP/out" "$TMP/err"
  failures=$((failures + 1))
fi

# An unreadable path says why (the system's reason), and a directory is not "an empty file".
expect 2 "^$TMP/no-such.yaml: cannot read file: No such file or directory\$" -- solve -f "$TMP/no-such.yaml"
expect 2 "^$TMP: cannot read file: Is a directory\$" -- simulate --openb "$TMP"

# Output that cannot be written is an error (a full device, a closed standard output, a CSV
# file on a full device): exit 1 and one line on stderr, never a silent success.
# write_fails WHAT LINES CMD...: status 1 and the last of LINES stderr lines says what could not
# be written (simulate prints a line per policy run before it).
write_fails() {
  local what=$1 lines=$2
  shift 2
  "$@" 2> "$TMP/err"
  local got=$?
  if [[ $got -eq 1 ]] && [[ $(wc -l < "$TMP/err") -eq $lines ]] &&
     tail -n 1 "$TMP/err" | grep -Eq 'cannot write'; then
    passed=$((passed + 1))
  else
    echo "FAIL: $what -> status $got, stderr: $(head -c 300 "$TMP/err")"
    failures=$((failures + 1))
  fi
}
if [[ -w /dev/full ]]; then
  write_fails "solve to /dev/full" 1 sh -c '"$0" solve -f "$1/inflate.yaml" > /dev/full' "$KARP" "$EXAMPLES"
  write_fails "solve -o text to /dev/full" 1 sh -c '"$0" solve -f "$1/inflate.yaml" -o text > /dev/full' "$KARP" "$EXAMPLES"
  write_fails "catalog to /dev/full" 1 sh -c '"$0" catalog > /dev/full' "$KARP"
  write_fails "simulate --csv - to /dev/full" 6 sh -c '"$0" simulate --trace "$1/traces/inflate.yaml" --csv - > /dev/full' "$KARP" "$EXAMPLES"
  write_fails "simulate --csv /dev/full" 6 sh -c '"$0" simulate --trace "$1/traces/inflate.yaml" --csv /dev/full > /dev/null' "$KARP" "$EXAMPLES"
else
  echo "skipped: /dev/full is not writable here (the write-error cases need it)"
fi
write_fails "solve with standard output closed" 1 sh -c '"$0" solve -f "$1/inflate.yaml" >&-' "$KARP" "$EXAMPLES"

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
