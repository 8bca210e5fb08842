# Shared helpers of the CLI test scripts (sourced): KARP names the binary, TMP a scratch
# directory removed on exit; `run`, `check`, `expect`, `pass`, `fail` and `finish` count the
# results.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
passed=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
pass() { passed=$((passed + 1)); }

# run NAME ARGS...: karp ARGS with stdout in $TMP/NAME.out, stderr in $TMP/NAME.err; the exit
# status in $status.
run() {
  local name=$1
  shift
  "$KARP" "$@" < /dev/null > "$TMP/$name.out" 2> "$TMP/$name.err"
  status=$?
}

# check NAME DESCRIPTION COMMAND...: COMMAND must succeed (it reads $TMP/NAME.*).
check() {
  local name=$1 what=$2
  shift 2
  if "$@"; then
    pass
  else
    fail "$name: $what (stdout: $(head -c 300 "$TMP/$name.out"); stderr: $(head -c 300 "$TMP/$name.err"))"
  fi
}

# expect DESCRIPTION COMMAND...: COMMAND must succeed (for checks that are not about one run).
expect() {
  local what=$1
  shift
  if "$@"; then
    pass
  else
    fail "$what"
  fi
}

# on_demand_pool: a NodePool "default" of on-demand capacity (its EC2NodeClass not given), as
# YAML on stdout.
on_demand_pool() {
  cat <<'YAML'
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
YAML
}

# finish: the summary line; the script's status.
finish() {
  echo "$passed passed, $failures failed"
  [[ $failures -eq 0 ]]
}
