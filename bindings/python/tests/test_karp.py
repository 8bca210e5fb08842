"""Tests of the Python module karp (run by ctest as python_pytest_bindings, with PYTHONPATH
at build/bindings/python, KARP_CLI at build/tools/karp and KARP_SOURCE_DIR at the repo)."""

import concurrent.futures
import csv
import datetime
import io
import json
import os
import shutil
import subprocess
import sys

import pytest

import karp

SRC = os.environ.get("KARP_SOURCE_DIR",
                     os.path.join(os.path.dirname(__file__), "..", "..", ".."))
EXAMPLES = os.path.join(SRC, "examples")
INFLATE = os.path.join(EXAMPLES, "inflate.yaml")
CLUSTER = os.path.join(EXAMPLES, "consolidate_cluster.yaml")
TRACE = os.path.join(EXAMPLES, "traces", "inflate.yaml")
SCENARIO = os.path.join(SRC, "tests", "bindings", "testdata", "zone-spread-scenario.json")
REPLACE = os.path.join(SRC, "tests", "bindings", "testdata", "replace-cluster.yaml")
NOW = "2026-01-05T12:00:00Z"


def cli(*args):
    """The karp CLI's standard output (KARP_CLI, set by ctest)."""
    binary = os.environ.get("KARP_CLI")
    if not binary:
        pytest.skip("KARP_CLI is not set (ctest sets it to build/tools/karp): no CLI to compare")
    return subprocess.run([binary, *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def scenario(tmp_path):
    with open(SCENARIO) as f:
        s = json.load(f)
    objects, catalog = tmp_path / "objects.json", tmp_path / "catalog.json"
    objects.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": s["objects"]}))
    catalog.write_text(json.dumps(s["catalog"]))
    return s, str(objects), str(catalog)


def test_solve_inflate_same_as_cli():
    assert karp.solve(INFLATE, raw=True) == cli("solve", "-f", INFLATE)
    result = karp.solve(INFLATE)
    assert result == json.loads(cli("solve", "-f", INFLATE))
    (claim,) = result["nodeClaims"]
    assert len(claim["pods"]) == 5
    assert claim["launch"]["capacityType"] == "spot"
    assert result["summary"]["scheduled"] == 5 and result["podErrors"] == []


@pytest.mark.parametrize("output", ["yaml", "nodeclaims"])
def test_solve_outputs_same_as_cli(output):
    got = karp.solve(INFLATE, output=output, region="us-gov-east-1", raw=True)
    assert got == cli("solve", "-f", INFLATE, "-o", output, "--region", "us-gov-east-1")


def test_cost_packing_same_as_cli():
    got = karp.solve(INFLATE, packing="cost", cost_attempts=2, cost_threads=1, raw=True)
    assert got == cli("solve", "-f", INFLATE, "--packing", "cost", "--cost-attempts", "2",
                      "--cost-threads", "1")
    assert "lowerBoundPerHour" in json.loads(got)["summary"]


def test_yaml_output_is_text():
    text = karp.solve(INFLATE, output="yaml")
    assert isinstance(text, str) and "nodeClaims:\n" in text


def test_scenario_same_as_cli(scenario):
    s, objects, catalog = scenario
    want = cli("solve", "-f", objects, "--catalog", catalog)
    # From the files, and from the scenario's dicts.
    assert karp.solve(objects, catalog, raw=True) == want
    assert karp.solve(s["objects"], catalog=s["catalog"], raw=True) == want
    result = karp.solve(s["objects"], s["catalog"])
    failed = {e["pod"]: e["message"] for e in result["podErrors"]}
    assert set(failed) == {"shop/arm-job", "shop/huge"}
    assert "incompatible" in failed["shop/arm-job"]
    zones = [c["launch"]["zone"] for c in result["nodeClaims"] for p in c["pods"]
             if p.startswith("shop/web-")]
    assert sorted(zones) == ["zone-a", "zone-a", "zone-b", "zone-b"]
    listing = karp.catalog(s["catalog"])
    assert listing == json.loads(cli("catalog", "--catalog", catalog, "-o", "json"))
    assert [t["name"] for t in listing["instanceTypes"]] == [
        "arm.medium", "std.large", "std.medium", "std.small"]


@pytest.mark.parametrize("output", ["json", "yaml", "nodeclaims"])
@pytest.mark.parametrize("cluster", [CLUSTER, REPLACE])
def test_consolidate_same_as_cli(cluster, output):
    got = karp.consolidate(cluster, now=NOW, output=output, raw=True)
    assert got == cli("consolidate", "-f", cluster, "--now", NOW, "-o", output)


def test_consolidate_replacements_as_nodeclaims():
    (command,) = karp.consolidate(REPLACE, now=NOW)["commands"]
    assert command["decision"] == "replace" and command["savingsPerHour"] > 0
    claims = karp.consolidate(REPLACE, now=NOW, output="nodeclaims")
    assert [c["metadata"]["name"] for c in claims["items"]] == [
        r["name"] for r in command["replacements"]]
    assert all(c["kind"] == "NodeClaim" for c in claims["items"])


def test_consolidate_now_as_datetime():
    now = datetime.datetime(2026, 1, 5, 12, 0, tzinfo=datetime.timezone.utc)
    plan = karp.consolidate(CLUSTER, now=now, once=True)
    assert plan == json.loads(cli("consolidate", "-f", CLUSTER, "--now", NOW, "--once"))
    assert len(plan["commands"]) == 1 and plan["summary"]["nodes"] == 6


def test_consolidate_repack():
    plan = karp.consolidate(CLUSTER, now=NOW, repack=True)
    assert plan == json.loads(cli("consolidate", "-f", CLUSTER, "--now", NOW, "--repack"))
    s = plan["summary"]
    assert s["mode"] == "repack"
    assert s["lowerBoundPerHour"] <= s["priceAfterPerHour"] <= s["priceBeforePerHour"]
    assert "mode" not in karp.consolidate(CLUSTER, now=NOW)["summary"]


def test_directory_input(tmp_path):
    (tmp_path / "sub").mkdir()
    shutil.copy(INFLATE, tmp_path / "inflate.yaml")
    (tmp_path / "sub" / "extra.yml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: extra, namespace: default}\n"
        "spec: {containers: [{name: a, resources: {requests: {cpu: '2'}}}]}\n")
    (tmp_path / "notes.txt").write_text("not a manifest")
    assert karp.solve(str(tmp_path), raw=True) == cli("solve", "-f", str(tmp_path))
    both = karp.solve(str(tmp_path), recursive=True, raw=True)
    assert both == cli("solve", "-f", str(tmp_path), "-R")
    assert json.loads(both)["summary"]["pods"] == 6


def test_errors_name_input_and_field():
    with pytest.raises(karp.Error) as e:
        karp.solve({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                    "spec": {"containers": [{"name": "a", "resources":
                                             {"requests": {"cpu": "1.5.3"}}}]}})
    assert e.value.code == "INVALID_ARGUMENT"
    assert "objects: items[0].spec.containers[0].resources.requests.cpu" in str(e.value)
    with pytest.raises(karp.Error, match="options: maxInstanceTypes: must be an integer"):
        karp.solve(INFLATE, max_instance_types=0)
    with pytest.raises(karp.Error, match="cannot read file"):
        karp.solve("/nonexistent/snapshot.yaml")
    with pytest.raises(TypeError):
        karp.solve(42)
    assert isinstance(karp.Error("INTERNAL", "x"), ValueError)


def test_files_are_read_by_karps_capped_reader(tmp_path):
    # The CLI's reader: the OS's reason, a regular file measured before it is read, a stream
    # (here /dev/zero) cut off at its cap instead of buffered whole.
    with pytest.raises(karp.Error, match="No such file or directory"):
        karp.solve(str(tmp_path / "missing.yaml"))
    with pytest.raises(karp.Error) as e:
        karp.solve(INFLATE, max_input_bytes=100)
    assert e.value.code == "RESOURCE_EXHAUSTED"
    assert "larger than the input limit of 100 bytes" in str(e.value)
    assert "--max-input-bytes" in str(e.value)
    with pytest.raises(karp.Error) as e:
        karp.solve("/dev/zero", max_input_bytes=1 << 20)
    assert e.value.code == "RESOURCE_EXHAUSTED"
    assert str(e.value).startswith("/dev/zero: larger than the input limit of 1048576 bytes")


def test_validate_option():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}],
                    "nodeSelecter": {"team": "x"}}}
    with pytest.raises(karp.Error, match="nodeSelecter: unknown field; did you mean nodeSelector"):
        karp.solve(pod)
    warned = karp.solve(pod, validate="warn")
    assert warned["summary"]["warnings"] == [
        "objects: items[0].spec.nodeSelecter: unknown field; did you mean nodeSelector? "
        "(ignored)"]
    assert "warnings" not in karp.solve(pod, validate="ignore")["summary"]


def test_simulate_rows_same_as_cli_csv():
    rows = karp.simulate(TRACE, policies=["empty-spot", "static-groups"], sample="5m")
    text = cli("simulate", "--trace", TRACE, "--policy", "empty-spot,static-groups",
               "--sample", "5m", "--csv", "-")
    assert karp.simulate(TRACE, policies=["empty-spot", "static-groups"], sample="5m",
                         raw=True) == text
    want = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == len(want) > 0
    assert all(tuple(r) == karp.SAMPLE_COLUMNS for r in rows)
    assert {r["policy"] for r in rows} == {"empty-spot", "static-groups"}
    assert isinstance(rows[0]["time_s"], int) and isinstance(rows[0]["price_per_hour"], float)
    assert [str(r["nodes"]) for r in rows] == [w["nodes"] for w in want]
    all_rows = karp.simulate(TRACE, sample="5m")
    assert tuple(dict.fromkeys(r["policy"] for r in all_rows)) == karp.POLICIES
    with pytest.raises(karp.Error, match='unknown policy "cheapest"'):
        karp.simulate(TRACE, policies=["cheapest"])


def test_threads_give_the_same_result():
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: karp.solve(INFLATE, raw=True), range(4)))
    assert len(set(results)) == 1


def test_policy_comparison_example(tmp_path):
    pytest.importorskip("matplotlib", reason="python3-matplotlib is not installed")
    chart = tmp_path / "comparison.png"
    script = os.path.join(SRC, "bindings", "python", "examples", "policy_comparison.py")
    out = subprocess.run([sys.executable, script, "--trace", TRACE, "--out", str(chart)],
                         check=True, capture_output=True, text=True).stdout
    assert chart.stat().st_size > 10000
    assert "underutilized-spot" in out and "static-groups" in out


# The project's conformance scenarios, when its shared data is checked out beside the
# repository (as CI's conformance step expects): the module gives the CLI's bytes on each,
# and the CLI's error line on the ones that are input errors.
SHARED = os.environ.get("KARP_SHARED_DIR", os.path.join(SRC, "..", "shared"))
SCENARIOS = sorted(
    os.path.join(root, f) for root, _, files in os.walk(os.path.join(SHARED, "conformance"))
    for f in files if f.endswith(".json") and os.path.basename(root) != "conformance")


@pytest.mark.skipif(not SCENARIOS, reason=f"no conformance scenarios under {SHARED} "
                    "(the project's shared data is not checked out beside the repository)")
def test_conformance_scenarios_same_as_cli(tmp_path):
    compared = 0
    for path in SCENARIOS:
        with open(path) as f:
            s = json.load(f)
        objects = tmp_path / "objects.json"
        if "rawObjects" in s:
            objects.write_text(s["rawObjects"])
        else:
            objects.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                           "items": s["objects"]}))
        cli_args = [s["command"], "-f", str(objects), "-o", "json"]
        catalog = None
        if s.get("catalog", "aws") != "aws":
            catalog = tmp_path / "catalog.json"
            catalog.write_text(json.dumps(s["catalog"]))
            cli_args += ["--catalog", str(catalog)]
        args = s.get("args", [])
        options = {}
        if args:
            assert args[0] == "--now" and len(args) == 2, f"{path}: unexpected args {args}"
            options["now"] = args[1]
        cli_args += args
        run = subprocess.run([os.environ.get("KARP_CLI") or pytest.skip("KARP_CLI is not set"),
                              *cli_args], capture_output=True, text=True)
        call = karp.solve if s["command"] == "solve" else karp.consolidate
        try:
            got = call(str(objects), None if catalog is None else str(catalog), raw=True,
                       **options)
        except karp.Error as e:
            assert run.returncode == 1 and run.stderr == f"{e}\n", path
        else:
            assert run.returncode == 0 and got == run.stdout, path
        compared += 1
    assert compared == len(SCENARIOS)


def test_node_overlays_and_scheduler_config():
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"template": {"spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                 "name": "default"},
                "requirements": [
                    {"key": "node.kubernetes.io/instance-type", "operator": "In",
                     "values": ["m5.large"]},
                    {"key": "karpenter.sh/capacity-type", "operator": "In",
                     "values": ["on-demand"]}]}}}}
    overlay = {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay",
               "metadata": {"name": "dear"}, "spec": {"requirements": [], "price": "5"}}
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
               "spec": {"selector": {"app": "web"}}}
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": name, "labels": {"app": "web"}},
             "spec": {"containers": [{"name": "c", "image": "x",
                                      "resources": {"requests": {"cpu": "500m"}}}]}}
            for name in ("a", "b")]
    objects = [pool, overlay, service] + pods
    spread = ("podTopologySpread:\n  defaultConstraints:\n"
              "  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone,"
              " whenUnsatisfiable: DoNotSchedule}\n")
    r = karp.solve(objects, scheduler_config=spread)
    assert [c["launch"]["price"] for c in r["nodeClaims"]] == [5, 5]  # two zones, overlay price
    plain = karp.solve(objects, node_overlays=False)
    assert len(plain["nodeClaims"]) == 1 and plain["nodeClaims"][0]["launch"]["price"] != 5
    with pytest.raises(karp.Error) as e:
        karp.solve(objects, scheduler_config="{podTopologySpread: {defaultConstraints: [{}]}}")
    assert e.value.code == "INVALID_ARGUMENT" and "topologyKey" in str(e.value)
