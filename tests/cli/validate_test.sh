#!/usr/bin/env bash
# Strict field validation in the CLI (docs/formats.md §1.5): a typo in a NodePool, a pod or a
# catalog file is one error line naming the file, the path and the nearest field (exit 1);
# --validate=warn prints one warning line per unknown field and solves (the JSON summary lists
# them too); --validate=ignore is silent. Run by ctest with the karp binary and the source
# directory as arguments.
set -u
KARP=$1
SRC=$2
. "$SRC/tests/cli/lib.sh"

cat > "$TMP/pool.yaml" <<'YAML'
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirments:
        - {key: kubernetes.io/arch, operator: In, values: [arm64]}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: c
      image: nginx
      resources: {requests: {cpu: "1"}}
YAML

run strict solve -f "$TMP/pool.yaml"
check strict "exit 1" test "$status" -eq 1
check strict "one line" test "$(wc -l < "$TMP/strict.err")" -eq 1
check strict "names file, path and suggestion" grep -qxF \
  "$TMP/pool.yaml: documents[0].spec.template.spec.requirments: unknown field; did you mean requirements?" \
  "$TMP/strict.err"
check strict "nothing on stdout" test ! -s "$TMP/strict.out"

run warn solve -f "$TMP/pool.yaml" --validate=warn
check warn "exit 0" test "$status" -eq 0
check warn "one warning line" grep -qxF \
  "karp: warning: $TMP/pool.yaml: documents[0].spec.template.spec.requirments: unknown field; did you mean requirements? (ignored)" \
  "$TMP/warn.err"
check warn "listed in the summary" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
assert s["warnings"] == [sys.argv[2] + ": documents[0].spec.template.spec.requirments: unknown field; did you mean requirements? (ignored)"], s
' "$TMP/warn.out" "$TMP/pool.yaml"

run ignore solve -f "$TMP/pool.yaml" --validate ignore
check ignore "exit 0" test "$status" -eq 0
check ignore "silent" test ! -s "$TMP/ignore.err"
check ignore "no warnings in the summary" python3 -c '
import json, sys
assert "warnings" not in json.load(open(sys.argv[1]))["summary"]' "$TMP/ignore.out"

run badmode solve -f "$TMP/pool.yaml" --validate=lenient
check badmode "usage error" test "$status" -eq 2
check badmode "names the values" grep -q "strict, warn or ignore" "$TMP/badmode.err"

# consolidate reads the same way.
run consolidate consolidate -f "$TMP/pool.yaml"
check consolidate "exit 1" test "$status" -eq 1
check consolidate "names the field" grep -q "requirments: unknown field" "$TMP/consolidate.err"

# A catalog file (karp's own schema, docs/schemas/catalog.schema.json).
cat > "$TMP/catalog.json" <<'JSON'
{"instanceTypes": [{"name": "m.large", "capacity": {"cpu": "2", "memory": "8Gi", "pods": "10"},
  "offerings": [{"zone": "z1", "capacityType": "on-demand", "price": 0.1, "avialable": false}]}]}
JSON
run catalog solve -f "$TMP/pool.yaml" --validate=ignore --catalog "$TMP/catalog.json"
check catalog "exit 1" test "$status" -eq 1
check catalog "names the field" grep -qxF \
  "$TMP/catalog.json: instanceTypes[0].offerings[0].avialable: unknown field; did you mean available?" \
  "$TMP/catalog.err"

finish
