#!/usr/bin/env bash
# Text taken from the input never reaches the terminal raw (issue 36, group 2): an instance
# type, a label value in a pod's nodeSelector or a trace named with an escape sequence, a bell
# and a forged line is printed escaped by every writer people read — solve and consolidate -o
# text, the catalog table and the simulator's lines. (Object names cannot carry them: they are
# DNS-1123 names, checked as the API server does.) Run by ctest with the karp binary and the
# source directory.
set -u
KARP=$1
SRC=$2
. "$SRC/tests/cli/lib.sh"
# No byte of ESC (0x1b), BEL (0x07) or CR (0x0d) in the file, and the forged text is not at
# the start of a line.
clean() {
  ! LC_ALL=C grep -q $'[\x1b\x07\r]' "$1" && ! grep -q '^FORGED' "$1"
}
EVIL='evil\u001b]0;title\u0007\r\nFORGED'

cat > "$TMP/pods.json" <<JSON
{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
  "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws",
    "kind": "EC2NodeClass", "name": "default"}, "requirements": []}}}},
 {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fine", "namespace": "default"},
  "spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]}},
 {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "huge", "namespace": "default"},
  "spec": {"nodeSelector": {"x": "$EVIL"},
           "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]}}]}
JSON
"$KARP" solve -f "$TMP/pods.json" -o text > "$TMP/solve.txt" 2> "$TMP/solve.err"
expect "solve -o text: exit 0" test $? -eq 0
expect "solve -o text: names escaped" clean "$TMP/solve.txt"
expect "solve -o text: the escape is visible" grep -q 'evil\\x1b\]0;title\\x07\\r\\nFORGED' "$TMP/solve.txt"
expect "solve stderr: escaped" clean "$TMP/solve.err"

cat > "$TMP/catalog.json" <<JSON
{"instanceTypes": [{"name": "$EVIL", "labels": {"kubernetes.io/arch": "amd64",
  "kubernetes.io/os": "linux"}, "capacity": {"cpu": "4", "memory": "8Gi", "pods": "20"},
  "offerings": [{"zone": "z1", "capacityType": "on-demand", "price": 0.1, "available": true}]}]}
JSON
"$KARP" catalog --catalog "$TMP/catalog.json" > "$TMP/table.txt" 2>&1
expect "catalog table: exit 0" test $? -eq 0
expect "catalog table: names escaped" clean "$TMP/table.txt"
"$KARP" solve -f "$TMP/pods.json" --catalog "$TMP/catalog.json" -o text > "$TMP/solve2.txt" 2>&1
expect "solve -o text with the type: names escaped" clean "$TMP/solve2.txt"

# A node replaced by the catalog's type: the type's name is in the plan's text.
cat > "$TMP/catalog2.json" <<JSON
{"instanceTypes": [
 {"name": "$EVIL", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
  "capacity": {"cpu": "4", "memory": "8Gi", "pods": "20"},
  "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.1}]},
 {"name": "big", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
  "capacity": {"cpu": "16", "memory": "64Gi", "pods": "50"},
  "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 1.0}]}]}
JSON
cat > "$TMP/cluster.json" <<JSON
{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
  "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws",
    "kind": "EC2NodeClass", "name": "default"}, "requirements": []}},
   "disruption": {"consolidateAfter": "0s"}}},
 {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1",
   "labels": {"karpenter.sh/nodepool": "default", "node.kubernetes.io/instance-type": "big",
     "topology.kubernetes.io/zone": "us-east-1a", "karpenter.sh/capacity-type": "on-demand",
     "karpenter.sh/initialized": "true", "karpenter.sh/registered": "true"},
   "creationTimestamp": "2026-01-01T00:00:00Z"},
  "status": {"capacity": {"cpu": "16", "memory": "64Gi", "pods": "50"},
             "allocatable": {"cpu": "16", "memory": "64Gi", "pods": "50"}}},
 {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
  "spec": {"nodeName": "n1",
           "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}]},
  "status": {"phase": "Running"}}]}
JSON
"$KARP" consolidate -f "$TMP/cluster.json" --catalog "$TMP/catalog2.json" \
    --now 2026-01-05T12:00:00Z -o text > "$TMP/plan.txt" 2>&1
expect "consolidate -o text: exit 0" test $? -eq 0
expect "consolidate -o text: names escaped" clean "$TMP/plan.txt"
expect "consolidate -o text: the type is named" grep -q 'evil\\x1b' "$TMP/plan.txt"

# The trace's name is free text (its deployments' names are checked: 1-50 of [A-Za-z0-9-]).
sed -e 's/^name: inflate$/name: "evil\\e]0;title\\a\\r\\nFORGED"/' \
    "$SRC/examples/traces/inflate.yaml" > "$TMP/trace.yaml"
"$KARP" simulate --trace "$TMP/trace.yaml" --policy underutilized-spot --events > "$TMP/sim.out" 2> "$TMP/sim.err"
expect "simulate: exit 0" test $? -eq 0
expect "simulate: stdout escaped" clean "$TMP/sim.out"
expect "simulate: stderr escaped" clean "$TMP/sim.err"
expect "simulate: the trace is named" grep -q 'evil\\x1b' "$TMP/sim.err"

finish
