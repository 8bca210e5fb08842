#!/usr/bin/env bash
# Bounded reading (issue 36, group 3): an endless or oversized input is refused quickly, with
# exit status 1 and one line naming the input, the limit that applies and the flag; the openb
# reader refuses a line longer than 1 MiB; a catalog type with 100,000 offerings loads. Run by
# ctest with the karp binary as argument. Inputs are generated here (pipes, a FIFO, /dev/zero,
# temporary files); each command gets a time limit, so a reader without a bound fails the test
# instead of filling memory.
set -u
KARP=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
passed=0
LIMIT=60  # seconds per command; a bounded read takes about one

# expect STATUS PATTERN -- CMD... : runs CMD (a shell command line, karp as "$KARP") with a
# time limit, checks the exit status and that stderr is one line matching PATTERN (grep -E).
expect() {
  local want=$1 pattern=$2
  shift 3
  local got first
  KARP="$KARP" TMP="$TMP" timeout "$LIMIT" bash -c "$*" > "$TMP/out" 2> "$TMP/err"
  got=$?
  first=$(head -n 1 "$TMP/err")
  if [[ $got -ne $want ]] || [[ $(wc -l < "$TMP/err") -ne 1 ]] || ! grep -Eq -- "$pattern" <<< "$first"; then
    echo "FAIL: $* -> status $got (want $want), stderr: $(head -c 300 "$TMP/err") (want /$pattern/)"
    failures=$((failures + 1))
  else
    passed=$((passed + 1))
  fi
}

YAML_CAP='larger than the input limit of 134217728 bytes for YAML \(see --max-input-bytes\)$'

# Devices and pipes without end: refused at the YAML cap (their first byte is not { or [).
expect 1 "^/dev/zero: $YAML_CAP" -- '"$KARP" solve -f /dev/zero'
expect 1 "^/dev/zero: $YAML_CAP" -- '"$KARP" consolidate -f /dev/zero'
expect 1 "^/dev/zero: $YAML_CAP" -- '"$KARP" convert -f /dev/zero'
expect 1 "^/dev/zero: $YAML_CAP" -- '"$KARP" catalog --catalog /dev/zero'
expect 1 "^-: $YAML_CAP" -- 'yes "a: b" | "$KARP" solve -f -'
# A JSON stream: the stream cap, here set by the flag (which sets every cap).
expect 1 '^-: larger than the input limit of 1048576 bytes \(see --max-input-bytes\)$' -- \
  '{ printf "{\"items\": ["; yes "1,"; } | "$KARP" solve -f - --max-input-bytes 1Mi'
mkfifo "$TMP/fifo.json"
expect 1 "^$TMP/fifo.json: larger than the input limit of 1048576 bytes" -- \
  '{ printf "{\"items\": ["; yes "1,"; } > "$TMP/fifo.json" & "$KARP" solve -f "$TMP/fifo.json" --max-input-bytes 1Mi; s=$?; kill %1 2>/dev/null; exit $s'
# A regular YAML file over the YAML cap is refused before it is read (a sparse file: no disk).
truncate -s 200M "$TMP/sparse.yaml"
expect 1 "^$TMP/sparse.yaml: $YAML_CAP" -- '"$KARP" solve -f "$TMP/sparse.yaml"'
# Raising the flag raises the YAML cap too.
printf 'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\n# %0200000d\n' 0 > "$TMP/pool.yaml"
expect 1 "^$TMP/pool.yaml: larger than the input limit of 100000 bytes \\(see --max-input-bytes\\)\$" -- \
  '"$KARP" solve -f "$TMP/pool.yaml" --max-input-bytes 100000'
KARP="$KARP" TMP="$TMP" timeout "$LIMIT" bash -c '"$KARP" solve -f "$TMP/pool.yaml" -o text' > "$TMP/out" 2>&1
if [[ $? -eq 0 ]] && grep -q '^Scheduled 0 of 0 pod' "$TMP/out"; then
  passed=$((passed + 1))
else
  echo "FAIL: a small YAML file padded to 200 kB: $(head -c 300 "$TMP/out")"
  failures=$((failures + 1))
fi

# openb: one line of 2 MB, no line break; and /dev/zero (which used to be read without end).
head -c 2000000 /dev/zero | tr '\0' a > "$TMP/one-line.csv"
expect 1 "^$TMP/one-line.csv: line 1: longer than 1048576 bytes \\(not an openb CSV file\\?\\)\$" -- \
  '"$KARP" simulate --openb "$TMP/one-line.csv"'
expect 1 '^/dev/zero: line 1: longer than 1048576 bytes \(not an openb CSV file\?\)$' -- \
  '"$KARP" simulate --openb /dev/zero'

# One instance type with 100,000 offerings (one zone each) loads well within the time limit.
awk 'BEGIN {
  printf "{\"instanceTypes\": [{\"name\": \"big.metal\", \"capacity\": {\"cpu\": \"96\", \"memory\": \"384Gi\", \"pods\": \"737\"}, \"offerings\": ["
  for (i = 0; i < 100000; i++) printf "%s{\"zone\": \"zone-%d\", \"capacityType\": \"on-demand\", \"price\": %d}", (i ? "," : ""), i, 1 + i % 97
  print "]}]}"
}' > "$TMP/many.catalog.json"
KARP="$KARP" TMP="$TMP" timeout "$LIMIT" bash -c '"$KARP" catalog --catalog "$TMP/many.catalog.json" --no-headers' > "$TMP/out" 2> "$TMP/err"
if [[ $? -eq 0 ]] && grep -Eq '^big.metal .* 100000$' "$TMP/out"; then
  passed=$((passed + 1))
else
  echo "FAIL: catalog with 100,000 offerings: $(head -c 300 "$TMP/out" "$TMP/err")"
  failures=$((failures + 1))
fi

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
