#!/usr/bin/env bash
# EC2NodeClasses in `karp solve`, `karp consolidate` and `karp simulate` (docs/aws-catalog.md,
# "Node classes in solve, consolidate and simulate"): each NodePool's instance types follow the
# kubelet, AMI and volume settings of the class its nodeClassRef names. Run by ctest with the
# karp binary and the examples directory as arguments.
set -u
KARP=$1
EXAMPLES=$2
. "$(dirname "$0")/lib.sh"

# The issue's row: six one-pod pending pods of 100m cpu, a NodePool and its class.
pods() {
  for i in 1 2 3 4 5 6; do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%s, namespace: default}\n' "$i"
    printf 'spec:\n  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]\n'
  done
}
pool() {  # pool NAME CLASS
  printf -- '---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: %s}\n' "$1"
  printf 'spec:\n  template:\n    spec:\n      requirements: []\n'
  printf '      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: %s}\n' "$2"
}
node_class() {  # node_class NAME KUBELET
  printf -- '---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: %s}\n' "$1"
  printf 'spec:\n  amiSelectorTerms: [{alias: al2023@latest}]\n  role: KarpenterNodeRole\n'
  printf '  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]\n'
  printf '  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]\n'
  [[ -n $2 ]] && printf '  kubelet: %s\n' "$2"
  return 0
}
{ node_class small '{maxPods: 2}'; pool default small; pods; } > "$TMP/max-pods.yaml"
{ pool default small; pods; } > "$TMP/no-class.yaml"
{ node_class small ''; pool default small; pods; } > "$TMP/plain-class.yaml"

# At most 2 pods per node: 3 NodeClaims of 2 pods, where the class-less input packs all 6.
pods_per_claim() { python3 -c '
import json, sys
print(" ".join(str(len(c["pods"])) for c in json.load(open(sys.argv[1]))["nodeClaims"]))' "$1"; }
run max-pods solve -f "$TMP/max-pods.yaml"
check max-pods "exit 0" test "$status" -eq 0
check max-pods "three claims of two pods" test "$(pods_per_claim "$TMP/max-pods.out")" = "2 2 2"
check max-pods "nothing on stderr" test ! -s "$TMP/max-pods.err"
run no-class solve -f "$TMP/no-class.yaml"
check no-class "one claim for the six pods" test "$(pods_per_claim "$TMP/no-class.out")" = "6"
check no-class "no note without any EC2NodeClass" test ! -s "$TMP/no-class.err"
# -o text says the same.
run max-pods-text solve -f "$TMP/max-pods.yaml" -o text
check max-pods-text "the text summary" grep -q '^Scheduled 6 of 6 pod(s): 3 new nodeclaim(s)' "$TMP/max-pods-text.out"

# A class that changes nothing gives the bytes of the class-less input.
run plain solve -f "$TMP/plain-class.yaml"
check plain "same bytes as without a class" cmp -s "$TMP/plain.out" "$TMP/no-class.out"

# A catalog file: the file's types are rebuilt with the class's settings.
run catalog catalog -o json
check catalog "karp catalog writes a file" test "$status" -eq 0
run file solve -f "$TMP/max-pods.yaml" --catalog "$TMP/catalog.out"
check file "--catalog FILE: three claims of two pods" test "$(pods_per_claim "$TMP/file.out")" = "2 2 2"

# The older API: a v1alpha5 Provisioner's kubelet moves to its converted AWSNodeTemplate.
cat > "$TMP/old.yaml" <<'YAML'
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec:
  providerRef: {name: small}
  kubeletConfiguration: {maxPods: 2}
  consolidation: {enabled: true}
---
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: small}
spec:
  amiFamily: AL2023
  subnetSelector: {karpenter.sh/discovery: demo}
  securityGroupSelector: {karpenter.sh/discovery: demo}
  instanceProfile: KarpenterNodeInstanceProfile
YAML
pods > "$TMP/pods.yaml"
run old solve -f "$TMP/old.yaml" -f "$TMP/pods.yaml"
check old "AWSNodeTemplate: three claims of two pods" test "$(pods_per_claim "$TMP/old.out")" = "2 2 2"
check old "the converted class is read, not skipped" test "$(grep -c 'skipped' "$TMP/old.err")" -eq 0

# A nodeClassRef to a class the input lacks: today's defaults, and one note per class.
{ node_class small '{maxPods: 2}'; pool default missing; pool other missing; pods; } > "$TMP/missing.yaml"
run missing solve -f "$TMP/missing.yaml"
check missing "exit 0" test "$status" -eq 0
check missing "one line on stderr" test "$(wc -l < "$TMP/missing.err")" -eq 1
check missing "the note" grep -qx 'karp: nodepools default, other: nodeClassRef EC2NodeClass "missing" is not in the input; their instance types use the default kubelet and volume settings' "$TMP/missing.err"
check missing "the defaults: one claim" test "$(pods_per_claim "$TMP/missing.out")" = "6"
{ node_class small '{maxPods: 2}'; pool default missing; pods; } > "$TMP/missing-one.yaml"
run missing-one solve -f "$TMP/missing-one.yaml" -o text
check missing-one "the note for one NodePool" grep -qx 'karp: nodepool default: nodeClassRef EC2NodeClass "missing" is not in the input; its instance types use the default kubelet and volume settings' "$TMP/missing-one.err"

# Two NodePools with different classes: solve gives each its own types.
{ node_class small '{maxPods: 2}'; node_class roomy ''; pool default small
  printf -- '---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: roomy}\n'
  printf 'spec:\n  weight: 10\n  template:\n    spec:\n      requirements: []\n'
  printf '      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: roomy}\n'
  pods; } > "$TMP/two.yaml"
run two solve -f "$TMP/two.yaml"
check two "the heavier NodePool's class holds all six" test "$(pods_per_claim "$TMP/two.out")" = "6"
python3 - "$TMP/two.yaml" "$TMP/two-heavy-small.yaml" <<'PY'
import sys
text = open(sys.argv[1]).read()
# The small NodePool first by weight: its class's limit applies to its claims.
text = text.replace("metadata: {name: default}\nspec:\n  template:",
                    "metadata: {name: default}\nspec:\n  weight: 50\n  template:")
open(sys.argv[2], "w").write(text)
PY
run two-small solve -f "$TMP/two-heavy-small.yaml"
check two-small "the heavier small NodePool: claims of two pods" test "$(pods_per_claim "$TMP/two-small.out")" = "2 2 2"

# An invalid class: exit 1, one line naming the file and the field.
{ node_class bad '{maxPods: -1}'; pool default bad; pods; } > "$TMP/bad.yaml"
run bad solve -f "$TMP/bad.yaml"
check bad "exit 1" test "$status" -eq 1
check bad "one line naming file and field" grep -qx "$TMP/bad.yaml: documents\\[0\\].spec.kubelet.maxPods: must be >= 0, got -1" "$TMP/bad.err"

# consolidate: one class for every NodePool is used, and so are different classes (each
# NodePool's own instance types; nothing on stderr).
NOW=2026-01-01T00:00:00Z
run consolidate consolidate -f "$TMP/max-pods.yaml" --now $NOW
check consolidate "exit 0, nothing on stderr" test "$status" -eq 0 -a ! -s "$TMP/consolidate.err"
run consolidate-two consolidate -f "$TMP/two.yaml" --now $NOW
check consolidate-two "exit 0" test "$status" -eq 0
check consolidate-two "each NodePool's catalog, nothing on stderr" test ! -s "$TMP/consolidate-two.err"

# simulate: a trace whose cluster holds the class launches nodes of at most 2 pods.
cat > "$TMP/trace.yaml" <<'YAML'
name: max-pods
duration: 10m
cluster:
  - apiVersion: karpenter.k8s.aws/v1
    kind: EC2NodeClass
    metadata: {name: small}
    spec:
      amiSelectorTerms: [{alias: al2023@latest}]
      kubelet: {maxPods: 2}
  - apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata: {name: default}
    spec:
      template:
        spec:
          nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: small}
          requirements:
            - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
deployments:
  - name: inflate
    requests: {cpu: 100m}
    replicas:
      - {at: 0s, replicas: 6}
YAML
run simulate simulate --trace "$TMP/trace.yaml" --policy empty-on-demand --events
check simulate "exit 0" test "$status" -eq 0
check simulate "three launches" test "$(grep -c ' launch ' "$TMP/simulate.out")" -eq 3
python3 - "$TMP/trace.yaml" "$TMP/trace-no-class.yaml" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
start = lines.index("  - apiVersion: karpenter.k8s.aws/v1")
# The class is the first item of `cluster`, 6 lines long.
open(sys.argv[2], "w").write("\n".join(lines[:start] + lines[start + 6:]))
PY
run simulate-no-class simulate --trace "$TMP/trace-no-class.yaml" --policy empty-on-demand --events
check simulate-no-class "one launch without the class" test "$(grep -c ' launch ' "$TMP/simulate-no-class.out")" -eq 1

echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
