#!/usr/bin/env bash
# NodeOverlays in `karp solve`, `karp consolidate` and `karp simulate` (docs/design.md §7.4):
# the prices and extended resources of the instance types they select, per NodePool, as the
# reference's overlay controller applies them. Run by ctest with the karp binary as argument.
set -u
KARP=$1
. "$(dirname "$0")/lib.sh"

pool() {  # pool NAME [LABEL]
  printf -- '---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: %s}\n' "$1"
  printf 'spec:\n  template:\n'
  [[ -n ${2:-} ]] && printf '    metadata: {labels: {%s}}\n' "$2"
  printf '    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n'
  printf '      requirements:\n'
  printf '        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}\n'
  printf '        - {key: kubernetes.io/arch, operator: In, values: [amd64]}\n'
  printf '        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge, c5.large]}\n'
}
pod() {  # pod NAME REQUESTS
  printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default}\n' "$1"
  printf 'spec:\n  containers: [{name: c, image: x, resources: {requests: %s}}]\n' "$2"
}
overlay() {  # overlay NAME SPEC
  printf -- '---\napiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: %s}\n' "$1"
  printf 'spec: %s\n' "$2"
}
field() {  # field FILE EXPRESSION over the JSON document d
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# Without overlays the cheapest type of the three takes the pod.
{ pool default; pod web '{cpu: 100m}'; } > "$TMP/plain.yaml"
run plain solve -f "$TMP/plain.yaml"
check plain "exit 0" test "$status" -eq 0
check plain "c5.large is the cheapest" test "$(field "$TMP/plain.out" 'd["nodeClaims"][0]["launch"]["instanceType"]')" = "c5.large"

# A price overlay on c5.large: m5.large becomes the cheapest; the claim says so.
{ cat "$TMP/plain.yaml"; overlay dear '{requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [c5.large]}], price: "5"}'; } > "$TMP/price.yaml"
run price solve -f "$TMP/price.yaml"
check price "exit 0, nothing on stderr" test "$status" -eq 0 -a ! -s "$TMP/price.err"
check price "m5.large launches" test "$(field "$TMP/price.out" 'd["nodeClaims"][0]["launch"]["instanceType"]')" = "m5.large"
check price "c5.large is last at 5" test "$(field "$TMP/price.out" 'd["nodeClaims"][0]["instanceTypes"][-1]')" = "c5.large"
run price-claims solve -f "$TMP/price.yaml" -o nodeclaims
check price-claims "annotation karpenter.sh/price-overlay-applied" grep -q 'karpenter.sh/price-overlay-applied.*true' "$TMP/price-claims.out"

# priceAdjustment -100% makes m5.xlarge free; the launch price and the bound follow.
{ cat "$TMP/plain.yaml"; overlay free '{requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge]}], priceAdjustment: "-100%"}'; } > "$TMP/free.yaml"
run free solve -f "$TMP/free.yaml"
check free "m5.xlarge launches at 0" test "$(field "$TMP/free.out" 'd["nodeClaims"][0]["launch"]["instanceType"], d["nodeClaims"][0]["launch"]["price"] == 0')" = "('m5.xlarge', True)"
check free "the lower bound is 0 too" test "$(field "$TMP/free.out" 'd["summary"]["lowerBoundPerHour"] == 0')" = "True"

# Capacity: a pod asking for an extended resource fits only where an overlay adds it.
{ pool default; pod fpga '{cpu: 100m, example.com/fpga: 1}'; } > "$TMP/fpga.yaml"
run fpga-none solve -f "$TMP/fpga.yaml"
check fpga-none "unschedulable without the overlay" test "$(field "$TMP/fpga-none.out" 'len(d["podErrors"])')" = "1"
{ cat "$TMP/fpga.yaml"; overlay fpga '{requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge]}], capacity: {example.com/fpga: "2"}}'; } > "$TMP/fpga-overlay.yaml"
run fpga solve -f "$TMP/fpga-overlay.yaml"
check fpga "exit 0" test "$status" -eq 0
check fpga "m5.xlarge only" test "$(field "$TMP/fpga.out" 'd["nodeClaims"][0]["instanceTypes"]')" = "['m5.xlarge']"
run fpga-claims solve -f "$TMP/fpga-overlay.yaml" -o nodeclaims
check fpga-claims "annotation karpenter.sh/capacity-overlay-applied" grep -q 'karpenter.sh/capacity-overlay-applied.*true' "$TMP/fpga-claims.out"

# NodePool scope: through the template labels.
pinned() {  # pinned NAME NODEPOOL
  printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default}\n' "$1"
  printf 'spec:\n  nodeSelector: {karpenter.sh/nodepool: %s}\n' "$2"
  printf '  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]\n'
}
{ pool zzz; pool ml 'team: ml'; pinned web zzz; pinned train ml;
  overlay ml '{requirements: [{key: team, operator: In, values: [ml]}], price: "9"}'; } > "$TMP/scope.yaml"
run scope solve -f "$TMP/scope.yaml"
check scope "the labelled pool pays the overlay's price, the other its own" test "$(field "$TMP/scope.out" 'sorted((c["nodePool"], c["launch"]["price"]) for c in d["nodeClaims"])')" = "[('ml', 9.0), ('zzz', 0.085)]"

# Conflicts: equal weights on the same offering; the name that sorts first is not applied.
{ cat "$TMP/plain.yaml"; overlay a '{requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [c5.large]}], price: "5", weight: 10}';
  overlay b '{requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}], price: "7", weight: 10}'; } > "$TMP/conflict.yaml"
run conflict solve -f "$TMP/conflict.yaml"
check conflict "exit 0" test "$status" -eq 0
check conflict "one line naming a, the other overlay, the type and the pool" grep -qx 'karp: nodeoverlay a: not applied (Conflict): conflict with another overlay: nodeoverlay b has the same weight (10) and sets the price of instance type c5.large in nodepool default' "$TMP/conflict.err"
check conflict "b's price everywhere" test "$(field "$TMP/conflict.out" 'd["nodeClaims"][0]["launch"]["price"] == 7')" = "True"

# The feature gate off: the bytes of the input without overlays.
run gate-off solve -f "$TMP/price.yaml" --feature-gates NodeOverlay=false
check gate-off "same bytes as without the overlay" cmp -s "$TMP/gate-off.out" "$TMP/plain.out"
run gate-bad solve -f "$TMP/price.yaml" --feature-gates NodeOverlays=false
check gate-bad "an unknown gate is an error" test "$status" -ne 0
check gate-bad "naming it" grep -q 'unknown gate "NodeOverlays"' "$TMP/gate-bad.err"

# Input errors: what the CRD refuses is one line naming the file and the field.
{ cat "$TMP/plain.yaml"; overlay bad '{requirements: [], price: "1e10"}'; } > "$TMP/bad.yaml"
run bad solve -f "$TMP/bad.yaml"
check bad "exit 1" test "$status" -eq 1
check bad "one line naming file and field" grep -qx "$TMP/bad.yaml: documents\\[2\\].spec.price: \"1e10\" is not an unsigned decimal (e.g. \"0.5\")" "$TMP/bad.err"
# What only the controller refuses is read, reported and not applied.
long=$(printf 'k%.0s' $(seq 70))
{ cat "$TMP/plain.yaml"; overlay runtime "{requirements: [{key: example.com/$long, operator: Exists}], price: \"5\"}"; } > "$TMP/runtime.yaml"
run runtime solve -f "$TMP/runtime.yaml"
check runtime "exit 0" test "$status" -eq 0
check runtime "one line with RuntimeValidation" grep -q '^karp: nodeoverlay runtime: not applied (RuntimeValidation): ' "$TMP/runtime.err"
check runtime "prices unchanged" cmp -s "$TMP/runtime.out" "$TMP/plain.out"

# consolidate: a node's price is its NodePool's overlaid price.
node() {
  printf -- '---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  creationTimestamp: "2025-12-01T00:00:00Z"\n'
  printf '  labels: {karpenter.sh/nodepool: default, node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a, karpenter.sh/capacity-type: on-demand, kubernetes.io/arch: amd64, karpenter.sh/initialized: "true", karpenter.sh/registered: "true"}\n'
  printf 'status:\n  capacity: {cpu: "2", memory: 8Gi, pods: "29"}\n  allocatable: {cpu: 1930m, memory: 7Gi, pods: "29"}\n'
}
{ pool default; node; } > "$TMP/node.yaml"
{ cat "$TMP/node.yaml"; overlay dear '{requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}], price: "3"}'; } > "$TMP/node-overlay.yaml"
run empty consolidate -f "$TMP/node.yaml" --now 2026-01-01T00:00:00Z
run empty-overlay consolidate -f "$TMP/node-overlay.yaml" --now 2026-01-01T00:00:00Z
check empty-overlay "exit 0" test "$status" -eq 0
check empty "the empty node saves its list price" test "$(field "$TMP/empty.out" 'd["summary"]["savingsPerHour"] == 0.096')" = "True"
check empty-overlay "the empty node saves its overlaid price" test "$(field "$TMP/empty-overlay.out" 'd["summary"]["savingsPerHour"] == 3')" = "True"

# karp convert passes a NodeOverlay through (it has no older form) and checks it.
overlay dear '{requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}], price: "3"}' > "$TMP/overlay.yaml"
run convert convert -f "$TMP/overlay.yaml" -o json
check convert "exit 0" test "$status" -eq 0
check convert "the overlay unchanged" test "$(field "$TMP/convert.out" '[(o["kind"], o["spec"]["price"]) for o in d["items"]]')" = "[('NodeOverlay', '3')]"
run convert-bad convert -f "$TMP/bad.yaml"
check convert-bad "an invalid overlay is an error" test "$status" -eq 1

finish
