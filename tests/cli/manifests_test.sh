#!/usr/bin/env bash
# Manifests as users keep them (issue 35, docs/design.md §2.6): the older API's walkthrough
# file (Provisioner, AWSNodeTemplate and a Deployment) schedules the Deployment's pods;
# --no-expand-workloads keeps workloads out and names them; skipped objects are listed in
# the JSON summary. Run by ctest with the karp binary and the source directory.
set -u
KARP=$1
SRC=$2
. "$SRC/tests/cli/lib.sh"
EX=$SRC/examples
WALK=$EX/older-api/walkthrough.yaml

# The walkthrough: 5 pending pods of the inflate Deployment, one node.
"$KARP" solve -f "$WALK" -o text > "$TMP/walk.txt" 2> "$TMP/walk.err"
expect "walkthrough: exit 0" test $? -eq 0
expect "walkthrough: 5 pods scheduled on one node" \
  grep -q '^Scheduled 5 of 5 pod(s): 1 new nodeclaim(s)' "$TMP/walk.txt"
expect "walkthrough: stderr says which pods were created" \
  grep -qx 'karp: created 5 pods from workloads: Deployment default/inflate: 5 pods' "$TMP/walk.err"
"$KARP" solve -f "$WALK" > "$TMP/walk.json" 2> /dev/null
expect "walkthrough: pods named after the Deployment's ReplicaSet" \
  grep -Eq '"default/inflate-[bcdfghjklmnpqrstvwxz2456789]{8,10}-[bcdfghjklmnpqrstvwxz2456789]{5}"' \
  "$TMP/walk.json"
"$KARP" solve -f "$WALK" > "$TMP/walk2.json" 2> /dev/null
expect "walkthrough: the same bytes twice" cmp -s "$TMP/walk.json" "$TMP/walk2.json"

# --no-expand-workloads: today's behaviour, the Deployment named as skipped.
"$KARP" solve -f "$WALK" --no-expand-workloads -o text > "$TMP/none.txt" 2> "$TMP/none.err"
expect "--no-expand-workloads: no pods" grep -q '^Scheduled 0 of 0 pod(s)' "$TMP/none.txt"
expect "--no-expand-workloads: the Deployment is named" \
  grep -q 'apps/v1 Deployment default/inflate (workloads not expanded)' "$TMP/none.txt"
"$KARP" solve -f "$WALK" --no-expand-workloads > "$TMP/none.json" 2> /dev/null
expect "summary.skipped lists the skipped objects" python3 -c "
import json, sys
s = json.load(open('$TMP/none.json'))['summary']
assert s['skippedObjects'] == len(s['skipped']), s
assert 'apps/v1 Deployment default/inflate (workloads not expanded)' in s['skipped'], s
"
"$KARP" consolidate -f "$WALK" --no-expand-workloads --now 2026-01-05T12:00:00Z > /dev/null 2>&1
expect "consolidate takes --no-expand-workloads" test $? -eq 0

# Nothing skipped: no `skipped` list (outputs of such inputs are unchanged).
"$KARP" solve -f "$EX/inflate.yaml" > "$TMP/inflate.json"
expect "no skipped list without skipped objects" sh -c "! grep -q '\"skipped\"' '$TMP/inflate.json'"

finish
