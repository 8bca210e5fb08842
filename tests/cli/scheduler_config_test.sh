#!/usr/bin/env bash
# `--scheduler-config` (docs/design.md §5.12): kube-scheduler's default topology spread
# constraints for pods without constraints of their own, with the selector deduced from the
# Services and the controller that select each pod. Run by ctest with the karp binary.
set -u
KARP=$1
. "$(dirname "$0")/lib.sh"

{ on_demand_pool; cat <<'YAML'; } > "$TMP/web.yaml"
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]
YAML
{ cat "$TMP/web.yaml"; printf -- '---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}}\n'; } > "$TMP/web-svc.yaml"
ZONES='{podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]}}'
zones() { python3 -c '
import json, sys
print(len({c["launch"]["zone"] for c in json.load(open(sys.argv[1]))["nodeClaims"]}))' "$1"; }

run plain solve -f "$TMP/web-svc.yaml"
check plain "no defaults: one zone" test "$(zones "$TMP/plain.out")" = "1"
run spread solve -f "$TMP/web-svc.yaml" --scheduler-config "$ZONES"
check spread "exit 0" test "$status" -eq 0
check spread "the defaults spread the replicas over three zones" test "$(zones "$TMP/spread.out")" = "3"
# The Deployment's ReplicaSet alone (no Service) gives the selector too.
run owner solve -f "$TMP/web.yaml" --scheduler-config "$ZONES"
check owner "the ReplicaSet's selector: three zones" test "$(zones "$TMP/owner.out")" = "3"
# A file path instead of the document.
printf 'podTopologySpread:\n  defaultConstraints:\n    - maxSkew: 1\n      topologyKey: topology.kubernetes.io/zone\n      whenUnsatisfiable: DoNotSchedule\n' > "$TMP/sched.yaml"
run file solve -f "$TMP/web-svc.yaml" --scheduler-config "$TMP/sched.yaml"
check file "the same bytes from a file" cmp -s "$TMP/file.out" "$TMP/spread.out"
# A pod with constraints of its own keeps them only.
python3 - "$TMP/web-svc.yaml" "$TMP/own.yaml" <<'PY'
import sys
t = open(sys.argv[1]).read().replace(
    "containers: [{name: c",
    "topologySpreadConstraints: [{maxSkew: 6, topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]\n      containers: [{name: c")
open(sys.argv[2], "w").write(t)
PY
run own solve -f "$TMP/own.yaml" --scheduler-config "$ZONES"
check own "the pod's own constraints win: one zone" test "$(zones "$TMP/own.out")" = "1"

# Bad documents: exit 1, one line naming the flag and the field.
run bad solve -f "$TMP/web-svc.yaml" --scheduler-config '{podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: zone, labelSelector: {}}]}}'
check bad "exit 1" test "$status" -eq 1
check bad "one line naming the field" grep -qx -- '--scheduler-config: podTopologySpread.defaultConstraints\[0\].labelSelector must not be set, as selectors are deduced for each pod' "$TMP/bad.err"
run typo solve -f "$TMP/web-svc.yaml" --scheduler-config '{podTopologySpread: {defaultConstraint: []}}'
check typo "an unknown field names the nearest" grep -q 'did you mean defaultConstraints' "$TMP/typo.err"
run missing solve -f "$TMP/web-svc.yaml" --scheduler-config "$TMP/none.yaml"
check missing "exit 1 naming the file" grep -q 'none.yaml' "$TMP/missing.err"

# consolidate and simulate take the flag too.
run consolidate consolidate -f "$TMP/web-svc.yaml" --now 2026-01-01T00:00:00Z --scheduler-config "$ZONES"
check consolidate "exit 0" test "$status" -eq 0

finish
