#!/usr/bin/env bash
# Dynamic resource allocation as the reference does by default (docs/design.md §5.19): pods
# that reference resource claims are not provisioned for, with the reference's message, and a
# DaemonSet whose pod references claims adds nothing to the daemon overhead. Run by ctest with
# the karp binary as argument.
set -u
KARP=$1
. "$(dirname "$0")/lib.sh"

on_demand_pool > "$TMP/pool.yaml"
pod() {  # pod NAME EXTRA-SPEC CONTAINER-RESOURCES-EXTRA
  printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default}\nspec:\n' "$1"
  [[ -n $2 ]] && printf '  %s\n' "$2"
  printf '  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}%s}}]\n' "$3"
}
{ cat "$TMP/pool.yaml"; pod plain '' '';
  pod pod-claims 'resourceClaims: [{name: gpu, resourceClaimName: gpu-claim}]' ", claims: [{name: gpu}]";
  pod container-claims '' ", claims: [{name: gpu}]"; } > "$TMP/pods.yaml"
run pods solve -f "$TMP/pods.yaml"
check pods "exit 0" test "$status" -eq 0
errors() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sorted((e["pod"], e["message"]) for e in d["podErrors"]), [c["pods"] for c in d["nodeClaims"]])' "$1"; }
want="[('default/container-claims', 'pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter'), ('default/pod-claims', 'pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter')] [['default/plain']]"
check pods "the two pods with claims are errors, the plain one is placed" test "$(errors "$TMP/pods.out")" = "$want"

# A DaemonSet with claims: no overhead (the same claim as without the DaemonSet).
ds() {  # ds NAME CLAIMS
  printf -- '---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: %s, namespace: kube-system}\n' "$1"
  printf 'spec:\n  selector: {matchLabels: {app: %s}}\n  template:\n    metadata: {labels: {app: %s}}\n' "$1" "$1"
  printf '    spec:\n      containers: [{name: c, image: x, resources: {requests: {cpu: "3"}%s}}]\n' "$2"
}
{ cat "$TMP/pool.yaml"; pod plain '' ''; } > "$TMP/none.yaml"
{ cat "$TMP/none.yaml"; ds gpu-agent ", claims: [{name: gpu}]"; } > "$TMP/ds-claims.yaml"
{ cat "$TMP/none.yaml"; ds agent ''; } > "$TMP/ds.yaml"
run none solve -f "$TMP/none.yaml"
run ds-claims solve -f "$TMP/ds-claims.yaml"
run ds solve -f "$TMP/ds.yaml"
requests() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["nodeClaims"][0]["requests"]["cpu"])' "$1"; }
check ds-claims "the DaemonSet with claims adds no overhead" test "$(requests "$TMP/ds-claims.out")" = "$(requests "$TMP/none.out")"
check ds "a DaemonSet without claims does" test "$(requests "$TMP/ds.out")" = "4"

finish
