#!/usr/bin/env bash
# The C API prints the same bytes as the CLI: solve, consolidate, catalog and simulate on the
# examples and on a scenario with its own catalog (tests/bindings/testdata). Run by ctest as
#   same_bytes_test.sh KARP KARP_C_TEST SOURCE_DIR OUT_DIR
set -u
KARP=$1
CAPI=$2
SRC=$3
OUT=$4
mkdir -p "$OUT"
failures=0
passed=0

# same NAME "CLI ARGS..." -- CAPI ARGS...: both outputs, and their exit statuses, must match.
same() {
  local name=$1 cli=$2
  shift 3
  eval "\"$KARP\" $cli" > "$OUT/$name.cli" 2> "$OUT/$name.cli.err"
  local cli_rc=$?
  "$CAPI" "$@" > "$OUT/$name.capi" 2> "$OUT/$name.capi.err"
  local capi_rc=$?
  if [[ $cli_rc -ne 0 || $capi_rc -ne 0 ]] || ! cmp -s "$OUT/$name.cli" "$OUT/$name.capi"; then
    echo "FAIL: $name (karp status $cli_rc, C API status $capi_rc; outputs in $OUT/$name.*)"
    head -n 3 "$OUT/$name.cli.err" "$OUT/$name.capi.err"
    failures=$((failures + 1))
  elif [[ ! -s "$OUT/$name.cli" ]]; then
    echo "FAIL: $name: empty output"
    failures=$((failures + 1))
  else
    passed=$((passed + 1))
  fi
}

EX=$SRC/examples
NOW=2026-01-05T12:00:00Z
same solve-json "solve -f $EX/inflate.yaml" -- solve "$EX/inflate.yaml" - '{}'
same solve-yaml "solve -f $EX/inflate.yaml -o yaml" -- solve "$EX/inflate.yaml" - '{"output": "yaml"}'
same solve-nodeclaims "solve -f $EX/inflate.yaml -o nodeclaims --region us-gov-east-1" -- \
  solve "$EX/inflate.yaml" - '{"output": "nodeclaims", "region": "us-gov-east-1"}'
same solve-options "solve -f $EX/inflate.yaml --preference-policy Ignore --min-values-policy BestEffort --max-instance-types 7 --zones us-east-1b" -- \
  solve "$EX/inflate.yaml" - '{"preferencePolicy": "Ignore", "minValuesPolicy": "BestEffort", "maxInstanceTypes": 7, "zones": ["us-east-1b"]}'
same solve-cost-packing "solve -f $EX/inflate.yaml --packing cost --cost-attempts 3 --cost-threads 1" -- \
  solve "$EX/inflate.yaml" - '{"packing": "cost", "costAttempts": 3, "costThreads": 1}'
for o in json yaml nodeclaims; do
  same "consolidate-$o" "consolidate -f $EX/consolidate_cluster.yaml --now $NOW -o $o" -- \
    consolidate "$EX/consolidate_cluster.yaml" - "{\"now\": \"$NOW\", \"output\": \"$o\"}"
done
REPLACE=$SRC/tests/bindings/testdata/replace-cluster.yaml
for o in json yaml nodeclaims; do
  same "consolidate-replace-$o" "consolidate -f $REPLACE --now $NOW -o $o" -- \
    consolidate "$REPLACE" - "{\"now\": \"$NOW\", \"output\": \"$o\"}"
done
same consolidate-once "consolidate -f $EX/consolidate_cluster.yaml --now $NOW --once --legacy-order" -- \
  consolidate "$EX/consolidate_cluster.yaml" - "{\"now\": \"$NOW\", \"once\": true, \"legacyOrder\": true}"
same consolidate-repack "consolidate -f $EX/consolidate_cluster.yaml --now $NOW --repack" -- \
  consolidate "$EX/consolidate_cluster.yaml" - "{\"now\": \"$NOW\", \"repack\": true}"
# Manifests as kept in repositories: the older walkthrough (Provisioner, AWSNodeTemplate and a
# Deployment the C API expands as the CLI does), the same without expansion, and EC2NodeClasses.
WALK=$EX/older-api/walkthrough.yaml
same solve-walkthrough "solve -f $WALK" -- solve "$WALK" - '{}'
same solve-walkthrough-unexpanded "solve -f $WALK --no-expand-workloads" -- \
  solve "$WALK" - '{"expandWorkloads": false}'
for f in "$EX"/aws/*.yaml; do
  same "solve-$(basename "$f" .yaml)" "solve -f $f" -- solve "$f" - '{}'
done
same catalog-json "catalog -o json --region us-gov-west-1" -- catalog - - '{"region": "us-gov-west-1"}'
same catalog-yaml "catalog -o yaml --region cn-north-1" -- catalog - - '{"region": "cn-north-1", "output": "yaml"}'
same simulate "simulate --trace $EX/traces/inflate.yaml --policy empty-spot,static-groups --sample 5m --csv -" -- \
  simulate "$EX/traces/inflate.yaml" - '{"policies": ["empty-spot", "static-groups"], "sample": "5m"}'

# The scenario: objects as a List, its catalog beside them.
python3 - "$SRC/tests/bindings/testdata/zone-spread-scenario.json" "$OUT" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
json.dump({"apiVersion": "v1", "kind": "List", "items": s["objects"]}, open(sys.argv[2] + "/scenario-objects.json", "w"))
json.dump(s["catalog"], open(sys.argv[2] + "/scenario-catalog.json", "w"))
EOF
same scenario-json "solve -f $OUT/scenario-objects.json --catalog $OUT/scenario-catalog.json" -- \
  solve "$OUT/scenario-objects.json" "$OUT/scenario-catalog.json" '{}'
same scenario-yaml "solve -f $OUT/scenario-objects.json --catalog $OUT/scenario-catalog.json -o yaml" -- \
  solve "$OUT/scenario-objects.json" "$OUT/scenario-catalog.json" '{"output": "yaml"}'
same scenario-catalog "catalog --catalog $OUT/scenario-catalog.json -o json" -- \
  catalog - "$OUT/scenario-catalog.json" '{}'

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
