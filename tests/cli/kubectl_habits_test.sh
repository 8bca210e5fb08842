#!/usr/bin/env bash
# The CLI habits people bring from kubectl: -o yaml, -f DIR (with -R), -f -, consolidate
# -o nodeclaims, --no-headers. Run by ctest with the karp binary and the source directory.
set -u
KARP=$1
SRC=$2
. "$SRC/tests/cli/lib.sh"
EX=$SRC/examples
NOW=2026-01-05T12:00:00Z
REPLACE=$SRC/tests/bindings/testdata/replace-cluster.yaml

# -f DIR: every .json/.yaml/.yml file in it, in path order; -R for subdirectories.
mkdir -p "$TMP/dir/sub"
cp "$EX/inflate.yaml" "$TMP/dir/a.yaml"
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: extra, namespace: default}\nspec: {containers: [{name: a, resources: {requests: {cpu: "2"}}}]}\n' > "$TMP/dir/sub/b.yml"
echo "not a manifest" > "$TMP/dir/notes.txt"
"$KARP" solve -f "$EX/inflate.yaml" > "$TMP/file.json"
"$KARP" solve -f "$TMP/dir" > "$TMP/dir.json"
expect "-f DIR reads the manifests of DIR only" cmp -s "$TMP/file.json" "$TMP/dir.json"
"$KARP" solve -f "$TMP/dir" -R > "$TMP/dir-r.json"
expect "-f DIR -R reads subdirectories" grep -q '"pods": 6' "$TMP/dir-r.json"
"$KARP" solve -f "$TMP/dir" --recursive -f "$TMP/dir/sub/b.yml" > /dev/null 2> "$TMP/dup.err"
expect "a file given twice is a duplicate" grep -q 'duplicate pod "default/extra"' "$TMP/dup.err"
mkdir -p "$TMP/empty"
"$KARP" solve -f "$TMP/empty" > /dev/null 2> "$TMP/empty.err"
expect "-f of a directory without manifests exits 2" test $? -eq 2
expect "... naming the directory" grep -q "empty: no .json, .yaml or .yml file in directory" "$TMP/empty.err"

# -f - reads standard input.
"$KARP" solve -f - < "$EX/inflate.yaml" > "$TMP/stdin.json"
expect "-f - reads stdin" cmp -s "$TMP/file.json" "$TMP/stdin.json"
expect "-f - is documented" sh -c "'$KARP' solve --help | grep -q \"'-': stdin\""

# -o yaml: the same document (read back by karp itself: a List of NodeClaims).
"$KARP" solve -f "$EX/inflate.yaml" -o yaml > "$TMP/out.yaml"
expect "solve -o yaml" grep -q '^nodeClaims:$' "$TMP/out.yaml"
"$KARP" consolidate -f "$REPLACE" --now $NOW -o yaml > "$TMP/plan.yaml"
expect "consolidate -o yaml" grep -q '^- decision: replace$' "$TMP/plan.yaml"
"$KARP" catalog --vcpus 2 --arch arm64 -o yaml > "$TMP/catalog.yaml"
"$KARP" catalog --catalog "$TMP/catalog.yaml" -o json > "$TMP/catalog-back.json"
"$KARP" catalog --vcpus 2 --arch arm64 -o json > "$TMP/catalog.json"
expect "catalog -o yaml reads back as the same catalog" cmp -s "$TMP/catalog.json" "$TMP/catalog-back.json"
"$KARP" solve -f "$EX/inflate.yaml" -o nodeclaims > "$TMP/claims.json"
expect "solve -o nodeclaims" grep -q '"kind": "NodeClaim"' "$TMP/claims.json"

# consolidate -o nodeclaims: the replacements as NodeClaims.
"$KARP" consolidate -f "$REPLACE" --now $NOW -o nodeclaims > "$TMP/replacements.json"
expect "consolidate -o nodeclaims lists the replacement" grep -q '"name": "default-1"' "$TMP/replacements.json"
expect "... as a NodeClaim" grep -q '"kind": "NodeClaim"' "$TMP/replacements.json"

# --no-headers: table rows only.
"$KARP" catalog --vcpus 2 --arch arm64 > "$TMP/table.txt"
"$KARP" catalog --vcpus 2 --arch arm64 --no-headers > "$TMP/rows.txt"
expect "--no-headers drops the header" sh -c "! grep -q '^NAME' '$TMP/rows.txt' && grep -q '^NAME' '$TMP/table.txt'"
count=$(sed -n 's/^\([0-9]*\) instance type(s)$/\1/p' "$TMP/table.txt")
expect "--no-headers keeps every row" test "$(wc -l < "$TMP/rows.txt")" -eq "${count:-0}"
expect "--no-headers drops the count and notes" sh -c "! grep -q 'instance type(s)\|^est:' '$TMP/rows.txt'"

finish
