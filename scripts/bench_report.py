#!/usr/bin/env python3
"""Runs karp's benchmark suite and writes the report.

Usage: scripts/bench_report.py [--quick] [--build-dir DIR] [--trace PATH] [--workloads DIR]
                               [--timeout SECONDS] [--no-build]
       scripts/bench_report.py --render-only   (re-render the markdown and chart from the JSON)

Builds the Release benchmark binaries (scheduler_bench, consolidator_bench, codec_bench,
catalog_bench, workload_bench) and the karp CLI in DIR (default: build-bench), runs every workload in its own process (so each
row has its own peak resident memory, read from the kernel's rusage of that process), and
writes

  bench/results/latest.json         machine-readable results (also bench/results/quick.json
                                    with --quick, so a smoke run never replaces the baseline)
  bench/results/latest.md           the human report: one table per workload family
  docs/benchmarks.md                its generated part (between its markers) is that report
  docs/bench-pods-per-second.svg    pods/s against pod count, karp beside the reference's
                                    published points (needs gnuplot: scripts/deps.sh --report)
  docs/bench-time-vs-pods.svg       log-log time against pod count per workload, each with the
                                    slope fitted by least squares (time ~ pods^slope)

When the project's shared workloads are checked out beside the repository
(../shared/data/workloads/, or --workloads DIR), they are unpacked into a scratch folder and
run too (bench/workload_bench.cc): the running cluster (20,000 pending pods + 1,000 nodes) at
2,500..20,000 pending pods with a consolidation pass, and realistic 100k pending at
10,000..100,000. The `karp` CLI is also timed end to end (read, solve, write JSON) on the
parity diverse 20,000 input and on those workloads; each run is one process, so each row has
its peak RSS.

Times are medians of the repetitions; every benchmark checks its result once before timing
(see bench/*.cc) and a failed check shows as an error row. --quick runs a subset with one
repetition (CI smoke); a full run takes a few minutes on a 2-core machine.
Only the Python standard library is used.
"""

import argparse
import datetime
import gzip
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Karpenter's published figures: (workload, pods) -> list of
# (seconds per Solve, pods/s, source).
REFERENCE = {
    ("diverse", 1000): [(0.777, 1287, "kubernetes-sigs/karpenter#2486")],
    ("diverse", 5000): [(3.74, 1337, "kubernetes-sigs/karpenter#2486")],
    ("diverse", 10000): [(8.11, 1233, "kubernetes-sigs/karpenter#2486")],
    ("diverse", 20000): [(20.2, 990, "kubernetes-sigs/karpenter#2486"),
                         (35.7, 560, "kubernetes-sigs/karpenter#1938")],
    ("preferences, Respect", 4000): [(11.7, 343, "kubernetes-sigs/karpenter#2486")],
}


class Run:
    """One benchmark (one size) run in its own process."""

    def __init__(self, family, workload, binary, name, size, reps):
        self.family = family      # parity | aws | trace | consolidation | codec | catalog |
        #                           workloads | cli
        self.workload = workload  # label in the tables
        self.binary = binary
        self.name = name          # Google Benchmark name, e.g. BM_Scheduling_Diverse/1000
        self.size = size          # pods (scheduling), nodes (consolidation), pods (codec)
        self.reps = reps


# The shared workloads (file names as in ../shared/data/workloads/README.md).
WORKLOAD_FILES = ["running-cluster-20k-pending-1000-nodes.objects.json",
                  "realistic-100k-pending.objects.json", "aws-us-east-1.catalog.json"]
RUNNING = "running cluster (1,000 nodes, 6,000 bound pods)"
REALISTIC = "realistic 100k pending"
# The cost rows with new claims' NodePools chosen by weight (--cost-pool-order weight; the
# default chooses them by price).
BY_WEIGHT = ", NodePools by weight"
# The cost row with candidates built two at a time (--cost-threads 2; the default is one).
TWO_THREADS = ", 2 threads"


class CliRun:
    """One `karp` CLI invocation timed end to end (wall and peak RSS of its process)."""

    def __init__(self, workload, size, args, reps):
        self.family = "cli"
        self.workload = workload
        self.size = size          # pending pods
        self.args = args          # arguments after `karp`; {dir} is the data folder
        self.reps = reps


def workload_plan(quick):
    """Runs on the shared workloads (only when they are available)."""
    runs = []
    for n in [2500] if quick else [2500, 5000, 10000, 20000]:
        runs.append(Run("workloads", f"{RUNNING}: Solve", "workload_bench",
                        f"BM_Workload_RunningClusterSolve/{n}", n, 1 if quick or n > 5000 else 3))
    runs.append(Run("repack", f"{RUNNING}: re-pack pass", "workload_bench",
                    "BM_Workload_RunningClusterRepack/iterations:1", 1000, 1))
    if not quick:
        runs.append(Run("workloads", f"{RUNNING}: consolidation pass", "workload_bench",
                        "BM_Workload_RunningClusterConsolidate/iterations:1", 20000, 1))
        for n in [10000, 20000, 50000, 100000]:
            runs.append(Run("workloads", f"{REALISTIC}: Solve", "workload_bench",
                            f"BM_Workload_Realistic100kSolve/{n}", n, 1 if n > 20000 else 3))
        runs.append(Run("bound", f"{RUNNING}: 20,000 pending", "workload_bench",
                        "BM_Workload_RunningClusterBound", 20000, 3))
        runs.append(Run("bound", f"{REALISTIC}", "workload_bench",
                        "BM_Workload_Realistic100kBound", 100000, 3))
        catalog = "{dir}/" + WORKLOAD_FILES[2]
        runs.append(CliRun(f"{RUNNING}: karp solve", 20000,
                           ["solve", "-f", "{dir}/" + WORKLOAD_FILES[0], "--catalog", catalog], 1))
        runs.append(CliRun(f"{REALISTIC}: karp solve", 100000,
                           ["solve", "-f", "{dir}/" + WORKLOAD_FILES[1], "--catalog", catalog], 1))
    return runs


def plan(quick):
    runs = []
    diverse = [1, 100, 1000, 5000] if quick else [1, 50, 100, 500, 1000, 2000, 5000, 10000, 20000]
    for n in diverse:
        reps = 1 if quick else (5 if n <= 5000 else 3)
        runs.append(Run("parity", "diverse", "scheduler_bench", f"BM_Scheduling_Diverse/{n}", n,
                        reps))
    for policy in ("Respect", "Ignore"):
        runs.append(Run("parity", f"preferences, {policy}", "scheduler_bench",
                        f"BM_Scheduling_Preferences{policy}/4000", 4000, 1 if quick else 5))
    for n in [1000] if quick else [1000, 10000, 50000]:
        reps = 1 if quick else (5 if n <= 1000 else (3 if n <= 10000 else 1))
        runs.append(Run("aws", "realistic AWS", "scheduler_bench", f"BM_Scheduling_Aws/{n}", n,
                        reps))
    runs.append(Run("trace", "openb, pods alive at the busiest instant", "scheduler_bench",
                    "BM_Scheduling_Trace/busiest:1", None, 1 if quick else 5))
    if not quick:
        runs.append(Run("trace", "openb, all pods at once", "scheduler_bench",
                        "BM_Scheduling_Trace/busiest:0", None, 3))
    # The cost packing mode beside the faithful rows above (same workloads and counters).
    for n in [1000] if quick else [100, 1000, 5000, 20000]:
        runs.append(Run("cost", "diverse", "scheduler_bench", f"BM_Scheduling_DiverseCost/{n}",
                        n, 1 if quick else (3 if n <= 5000 else 1)))
    for n in [1000] if quick else [100, 300, 1000, 10000, 50000]:
        runs.append(Run("cost", "realistic AWS", "scheduler_bench", f"BM_Scheduling_AwsCost/{n}",
                        n, 1 if quick else (3 if n <= 1000 else 1)))
    for n in [300] if quick else [100, 300, 1000, 10000]:
        runs.append(Run("cost", "realistic AWS II (platform mix)", "scheduler_bench",
                        f"BM_Scheduling_AwsPlatformCost/{n}", n,
                        1 if quick else (3 if n <= 1000 else 1)))
    for n in [1000] if quick else [1000, 10000, 50000]:
        runs.append(Run("cost", "realistic AWS" + BY_WEIGHT, "scheduler_bench",
                        f"BM_Scheduling_AwsCostByWeight/{n}", n,
                        1 if quick else (3 if n <= 1000 else 1)))
    if not quick:
        runs.append(Run("cost", "diverse" + TWO_THREADS, "scheduler_bench",
                        "BM_Scheduling_DiverseCostTwoThreads/20000", 20000, 1))
        runs.append(Run("cost", "openb, pods alive at the busiest instant", "scheduler_bench",
                        "BM_Scheduling_TraceCost/busiest:1", None, 3))
    for n in [100] if quick else [100, 1000, 5000]:
        reps = 1 if quick else (5 if n <= 100 else (3 if n <= 1000 else 1))
        runs.append(Run("consolidation", "full consolidation pass", "consolidator_bench",
                        f"BM_Consolidation_FullPass/{n}/iterations:1", n, reps))
    for n in [100] if quick else [100, 1000, 5000]:
        for lifted, label in ((0, "budgets 10 %"), (1, "budgets lifted to 100 %")):
            runs.append(Run("repack", f"consolidation benchmark cluster, {label}",
                            "consolidator_bench",
                            f"BM_Consolidation_Repack/{n}/{lifted}/iterations:1", n, 1))
    if not quick:
        runs.append(Run("bound", "diverse", "scheduler_bench", "BM_LowerBound_Diverse/20000",
                        20000, 3))
        runs.append(Run("bound", "realistic AWS", "scheduler_bench", "BM_LowerBound_Aws/50000",
                        50000, 3))
        runs.append(Run("bound", "realistic AWS II (platform mix)", "scheduler_bench",
                        "BM_LowerBound_AwsPlatform/10000", 10000, 3))
    runs.append(Run("codec", "parse kubectl List (20,000 pods, 1,000 nodes)", "codec_bench",
                    "BM_Codec_ParseKubectlList/20000/1000/0", 20000, 1 if quick else 3))
    runs.append(Run("codec", "the same without the schema check (`--validate=ignore`)",
                    "codec_bench", "BM_Codec_ParseKubectlList/20000/1000/2", 20000,
                    1 if quick else 3))
    runs.append(Run("codec", "JSON reader alone, same document", "codec_bench",
                    "BM_Codec_ReadJson/20000/1000", 20000, 1 if quick else 3))
    runs.append(Run("codec", "write `karp solve` JSON of parity diverse 20,000", "codec_bench",
                    "BM_Codec_WriteSolveResult/20000", 20000, 1 if quick else 3))
    runs.append(Run("codec", "parse + Solve + write JSON, parity diverse 20,000 (in process)",
                    "codec_bench", "BM_Codec_EndToEndDiverse/20000", 20000, 1 if quick else 3))
    runs.append(CliRun("parity diverse 20,000: karp solve", 20000,
                       ["solve", "-f", "{parity}/diverse-20000.json", "--catalog",
                        "{parity}/fake-400.catalog.json"], 1 if quick else 3))
    runs.append(Run("catalog", "EmbeddedAwsCatalog() (us-east-1, default options)",
                    "catalog_bench", "BM_Catalog_EmbeddedAws", None, 1 if quick else 10))
    return runs


def sh(cmd, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, **kw)


def build(build_dir):
    sh(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
        "-DKARP_BUILD_AWS=OFF", "-DKARP_BUILD_BENCHMARKS=ON"], stdout=subprocess.DEVNULL)
    cache = os.path.join(build_dir, "CMakeCache.txt")
    with open(cache, encoding="utf-8") as f:
        if "CMAKE_BUILD_TYPE:STRING=Release" not in f.read():
            sys.exit(f"{build_dir} is not a Release build; pass another --build-dir")
    sh(["cmake", "--build", build_dir, "-j2", "--target", "scheduler_bench",
        "consolidator_bench", "codec_bench", "catalog_bench", "workload_bench", "karp_cli"])


def to_ms(value, unit):
    return value * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[unit]


def wait(proc, timeout):
    """Waits for `proc` (killed after `timeout` seconds when not None); returns
    (exit code, rusage, timed out)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, 0 if deadline is None else os.WNOHANG)
        if pid != 0:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage, False
        if time.monotonic() > deadline:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage, True
        time.sleep(0.2)


def execute_cli(run, build_dir, dirs, tmp):
    """Times `karp` on one input, each repetition its own process; returns a result row."""
    args = [a.format(**dirs) for a in run.args]
    cmd = [os.path.join(build_dir, "tools", "karp")] + args
    row = {"family": run.family, "workload": run.workload, "benchmark": "karp " + args[0],
           "size": run.size, "pods": run.size, "repetitions": run.reps}
    times, cpu, rss = [], [], []
    for _ in range(run.reps):
        print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
        out = os.path.join(tmp, "cli.out")
        with open(out, "wb") as stdout, open(os.path.join(tmp, "cli.err"), "wb") as stderr:
            start = time.monotonic()
            proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr)
            code, usage, _ = wait(proc, None)
            times.append((time.monotonic() - start) * 1e3)
        rss.append(usage.ru_maxrss / 1024.0)
        cpu.append((usage.ru_utime + usage.ru_stime) * 1e3)
        if code != 0:
            with open(os.path.join(tmp, "cli.err"), encoding="utf-8", errors="replace") as f:
                row["error"] = f"karp exited with {code}: {f.readline().strip()}"
            return row
        row["output_mb"] = os.path.getsize(out) / 1e6
    row["time_ms"] = statistics.median(times)
    row["time_ms_min"], row["time_ms_max"] = min(times), max(times)
    row["cpu_time_ms"] = statistics.median(cpu)
    row["peak_rss_mb"] = round(max(rss), 1)
    input_mb = sum(os.path.getsize(a) for a in args if os.path.isfile(a) and "catalog" not in a)
    row["input_mb"] = input_mb / 1e6
    row["pods_per_s"] = run.size / (row["time_ms"] / 1e3)
    return row


def execute(run, build_dir, trace, quick, tmp, dirs, timeout=None):
    """Runs one benchmark process; returns a result row."""
    out = os.path.join(tmp, "out.json")
    if os.path.exists(out):
        os.remove(out)
    base = run.name.split("/iterations:")[0]
    cmd = [os.path.join(build_dir, "bench", run.binary),
           f"--benchmark_filter=^{base}(/iterations:1)?(/real_time|/manual_time)?$",
           f"--benchmark_repetitions={run.reps}",
           f"--benchmark_min_time={0.05 if quick else 0.2}",
           "--benchmark_format=console", f"--benchmark_out={out}",
           "--benchmark_out_format=json"]
    if trace and run.binary == "scheduler_bench":
        cmd.append(f"--trace={trace}")
    if run.binary == "workload_bench":
        cmd.append(f"--workloads={dirs['dir']}")
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    with open(os.path.join(tmp, "console.txt"), "w", encoding="utf-8") as console:
        proc = subprocess.Popen(cmd, stdout=console, stderr=subprocess.STDOUT)
        _, usage, timed_out = wait(proc, timeout)
    row = {"family": run.family, "workload": run.workload, "benchmark": base,
           "size": run.size, "repetitions": run.reps,
           "peak_rss_mb": round(usage.ru_maxrss / 1024.0, 1)}  # ru_maxrss is in KiB on Linux
    if timed_out:
        row["error"] = f"stopped after {timeout:.0f} s (--timeout), no result"
        return row
    if proc.returncode != 0 or not os.path.exists(out):
        row["error"] = f"benchmark process exited with {proc.returncode}"
        return row
    try:
        with open(out, encoding="utf-8") as f:
            data = json.load(f)
    except ValueError:
        row["error"] = "no result (no benchmark of that name?)"
        return row
    iterations = [b for b in data["benchmarks"] if b.get("run_type") == "iteration"]
    if not iterations:
        row["error"] = "no result"
        return row
    first = iterations[0]
    if first.get("error_occurred"):
        row["error"] = first.get("error_message", "error")
        return row
    times = [to_ms(b["real_time"], b["time_unit"]) for b in iterations]
    row["time_ms"] = statistics.median(times)
    row["cpu_time_ms"] = statistics.median(to_ms(b["cpu_time"], b["time_unit"]) for b in iterations)
    row["time_ms_min"] = min(times)
    row["time_ms_max"] = max(times)
    row["iterations"] = sum(int(b["iterations"]) for b in iterations)
    for key in ("pods", "nodes", "price", "bound", "price/bound", "faithful/bound", "unplaceable",
                "commands",
                "savings/h", "cluster/h", "MB", "objects/s", "kinds", "classes", "components",
                "types", "table_ms", "free_ms", "existing", "errors", "create_ms", "MB in",
                "MB out", "evictions", "before/h", "after/h", "bound/h", "after/bound",
                "faithful_after/h", "faithful_commands", "fractional", "assignment_lp",
                "configuration_lp", "method", "lp_upper"):
        if key in first:
            row[key.replace("/", "_per_").replace(" ", "_")] = first[key]
    if "pods" in first and run.family != "bound":
        row["pods_per_s"] = first["pods"] / (row["time_ms"] / 1e3)
    if run.family == "codec":
        if "MB" in first:
            row["mb_per_s"] = first["MB"] / (row["time_ms"] / 1e3)
        if run.name.startswith("BM_Codec_Parse"):
            row["objects_per_s"] = 21000 / (row["time_ms"] / 1e3)
        if "MB in" in first:
            row["pods_per_s"] = run.size / (row["time_ms"] / 1e3)
    refs = REFERENCE.get((run.workload, run.size))
    if refs:
        row["reference"] = [{"seconds": s, "pods_per_s": p, "source": src,
                             "speedup": (s * 1e3) / row["time_ms"]} for s, p, src in refs]
    return row


def bound_table(rows):
    """The lower bound's cost and its parts (docs/lower-bound.md)."""
    methods = {0: "fractional", 1: "assignment LP", 2: "configuration LP"}
    lines = ["### The lower bound (`karp::PriceLowerBound`, computed outside the timed Solve above)",
             "",
             "`fractional` is the cover of classes and components, `assignment LP` and "
             "`configuration LP` the LP bounds (each valid; the bound is the largest). "
             "`LP upper` is the configuration LP's restricted master with its limits lifted "
             "(column generation on every input, 100 times the node budget; outside the "
             "timing): at least that LP's optimum, so `bound / LP upper` is at most how close "
             "the bound is to it.", "",
             "| workload | pods | kinds | classes | fractional $/h | assignment LP $/h | "
             "configuration LP $/h | bound (method) | LP upper $/h | bound / LP upper | time | "
             "peak RSS |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["family"] != "bound" or "error" in r:
            continue
        upper = r.get("lp_upper", 0)
        ratio = f"{r['bound'] / upper:.4f}" if upper > 0 else "—"
        upper_text = f"{upper:,.2f}" if upper > 0 else "—"
        method = methods.get(int(r.get("method", 0)), "?")
        lines.append(f"| {r['workload']} | {fmt_int(r['pods'])} | {fmt_int(r['kinds'])} | "
                     f"{fmt_int(r['classes'])} | {r.get('fractional', 0):,.2f} | "
                     f"{r.get('assignment_lp', 0):,.2f} | {r.get('configuration_lp', 0):,.2f} | "
                     f"{r['bound']:,.2f} ({method}) | {upper_text} | {ratio} | "
                     f"{fmt_time(r['time_ms'])} | {r['peak_rss_mb']:.0f} MB |")
    return lines


def repack_table(rows, errors):
    """The re-pack consolidation rows (docs/repack.md), the faithful result beside them."""
    lines = ["### Re-pack consolidation (`--repack`: price after the plan against its lower bound, "
             "`lowerBoundPerHour`; faithful pass beside it)", "",
             "| workload | nodes | time (Create + Plan) | commands | evictions | price before | "
             "after | bound | after / bound | faithful after | faithful / bound | peak RSS |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["family"] != "repack" or "error" in r:
            continue
        bound = r.get("bound_per_h", 0)
        faithful = r.get("faithful_after_per_h")
        fa = f"${faithful:,.2f}/h" if faithful is not None else "—"
        fb = f"{faithful / bound:.2f}" if faithful is not None and bound > 0 else "—"
        lines.append(f"| {r['workload']} | {fmt_int(r['size'])} | {fmt_time(r['time_ms'])} | "
                     f"{fmt_int(r['commands'])} | {fmt_int(r['evictions'])} | "
                     f"${r['before_per_h']:,.2f}/h | ${r['after_per_h']:,.2f}/h | "
                     f"${bound:,.2f}/h | {r['after_per_bound']:.2f} | {fa} | {fb} | "
                     f"{r['peak_rss_mb']:.0f} MB |")
    return lines + errors("repack")


def fmt_time(ms):
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    if ms >= 10:
        return f"{ms:.0f} ms" if ms >= 100 else f"{ms:.1f} ms"
    if ms >= 0.1:
        return f"{ms:.2f} ms"
    return f"{ms * 1000:.1f} µs"


def fmt_int(v):
    return f"{int(round(v)):,}"


def fmt_rate(v):
    if v >= 100000:
        return f"{v / 1e6:.2f} M" if v >= 1e6 else fmt_int(round(v, -2))
    return fmt_int(v)


def fit_slope(points):
    """Least-squares fit of log10(time) = slope * log10(pods) + b; (slope, b) or None."""
    pts = [(math.log10(x), math.log10(y)) for x, y in points if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return None
    slope = sum((x - mx) * (y - my) for x, y in pts) / sxx
    return slope, my - slope * mx


def time_series(rows):
    """Time (ms) against pending pods per workload, for the log-log chart and its slopes:
    {label: [(pods, ms)]} (sizes of at least 100 pods: below, fixed costs dominate)."""
    series = {}
    for r in rows:
        if "error" in r or "time_ms" not in r or not r.get("pods"):
            continue
        label = None
        if r["family"] == "parity" and r["workload"] == "diverse":
            label = "parity diverse (fake 400 types)"
        elif r["family"] == "aws":
            label = "realistic AWS (embedded catalog)"
        elif r["family"] == "workloads" and r["workload"].endswith(": Solve"):
            label = r["workload"][:-len(": Solve")]
        if label and r["pods"] >= 100:
            series.setdefault(label, []).append((r["pods"], r["time_ms"]))
    return series


def cli_table(rows):
    out = ["### End to end through the `karp` CLI (read the files, Solve, write the JSON result)",
           "", "| input | pods | wall | pods/s | CPU (user + sys) | input | output | peak RSS |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["family"] != "cli" or "error" in r:
            continue
        out.append(f"| {r['workload']} | {fmt_int(r['pods'])} | {fmt_time(r['time_ms'])} | "
                   f"{fmt_rate(r['pods_per_s'])} | "
                   + (fmt_time(r["cpu_time_ms"]) if "cpu_time_ms" in r else "—")
                   + f" | {r['input_mb']:.1f} MB | "
                   f"{r['output_mb']:.1f} MB | {r['peak_rss_mb']:.0f} MB |")
    return out + [f"- `{r['workload']}`: {r['error']}" for r in rows
                  if r["family"] == "cli" and "error" in r]


def workload_tables(rows):
    mine = [r for r in rows if r["family"] == "workloads"]
    if not mine:
        return ["### Workloads at the shape of a real cluster", "",
                "Not run: the shared workloads (../shared/data/workloads/) were not available."]
    out = ["### Workloads at the shape of a real cluster (../shared/data/workloads/, "
           "AWS us-east-1 catalog file)", "",
           "| workload | pending pods | existing nodes | time | CPU time | pods/s | new nodes | "
           "price $/h | pod errors | Scheduler::Create | peak RSS |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in mine:
        if "error" in r or "commands" in r:
            continue
        out.append(f"| {r['workload']} | {fmt_int(r['pods'])} | {fmt_int(r['existing'])} | "
                   f"{fmt_time(r['time_ms'])} | {fmt_time(r['cpu_time_ms'])} | "
                   f"{fmt_rate(r['pods_per_s'])} | "
                   f"{fmt_int(r['nodes'])} | {r['price']:,.2f} | {fmt_int(r['errors'])} | "
                   f"{fmt_time(r['create_ms'])} | {r['peak_rss_mb']:.0f} MB |")
    for r in mine:
        if "error" in r or "commands" not in r:
            continue
        out += ["", "| workload | pods | nodes | time (Create + Plan) | CPU time | commands | "
                "savings found | peak RSS |", "|---|---|---|---|---|---|---|---|",
                f"| {r['workload']} | {fmt_int(r['pods'])} | {fmt_int(r['existing'])} | "
                f"{fmt_time(r['time_ms'])} | {fmt_time(r['cpu_time_ms'])} | "
                f"{fmt_int(r['commands'])} | "
                f"${r['savings_per_h']:,.2f}/h | {r['peak_rss_mb']:.0f} MB |"]
    out += [f"- `{r['benchmark']}`: {r['error']}" for r in mine if "error" in r]
    out += ["", "Time against pending pods, slope of the least-squares fit of log(time) on "
            "log(pods) (1 = linear, 2 = quadratic):", ""]
    for label, points in time_series(rows).items():
        fit = fit_slope(points)
        if fit:
            out.append(f"- {label}: slope {fit[0]:.2f} over {fmt_int(min(points)[0])}.."
                       f"{fmt_int(max(points)[0])} pods")
    by_size = {r["pods"]: r["time_ms"] for r in mine
               if "error" not in r and r["workload"] == f"{REALISTIC}: Solve"}
    if 100000 in by_size and 20000 in by_size:
        out.append(f"- {REALISTIC}: time(100,000) / time(20,000) = "
                   f"{by_size[100000] / by_size[20000]:.1f}")
    return out


def cost_table(rows):
    """The cost packing mode (--packing cost) beside the faithful mode on the same workloads."""
    faithful = {(r["workload"], r["pods"]): r for r in rows
                if r["family"] in ("parity", "aws", "trace") and "error" not in r and "pods" in r}
    out = ["### Cost packing (`--packing cost`, docs/design.md §13) beside the faithful mode", "",
           "| workload | pods | faithful $/h | cost $/h | bound $/h | faithful/bound | cost/bound "
           "| saved | nodes | time faithful | time cost | peak RSS faithful | peak RSS cost |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["family"] != "cost" or "error" in r:
            continue
        f = faithful.get((r["workload"].replace(BY_WEIGHT, "").replace(TWO_THREADS, ""),
                          r["pods"]))
        faithful_price = r["faithful_per_bound"] * r["bound"]
        out.append(f"| {r['workload']} | {fmt_int(r['pods'])} | {faithful_price:,.2f} | "
                   f"{r['price']:,.2f} | {r['bound']:,.2f} | {r['faithful_per_bound']:.3f} | "
                   f"{r['price_per_bound']:.3f} | {100 * (1 - r['price'] / faithful_price):.0f} % | "
                   f"{fmt_int(r['nodes'])} | {fmt_time(f['time_ms']) if f else '—'} | "
                   f"{fmt_time(r['time_ms'])} | "
                   f"{str(round(f['peak_rss_mb'])) + ' MB' if f else '—'} | "
                   f"{r['peak_rss_mb']:.0f} MB |")
    errs = [f"- `{r['benchmark']}`: {r['error']}" for r in rows
            if r["family"] == "cost" and "error" in r]
    return out + errs


def markdown(report):
    rows = report["rows"]
    lines = [f"Measured {report['generated']} on {report['machine']['cpu']} "
             f"({report['machine']['cores']} cores), commit {report['commit']}"
             f"{' (quick run)' if report['quick'] else ''}. Times are medians of the "
             "repetitions of one cold `Solve` (or pass); peak RSS is that of the benchmark's own "
             "process (input generation, the checked run and the timed runs). `bound` is "
             "`karp::PriceLowerBound` (a valid lower bound on the hourly price of any placement "
             "of the same pods); karp runs in its faithful mode (default options). "
             f"1-minute load average {report['load_average_start']} at the start and "
             f"{report.get('load_average_end')} at the end"
             + (" (above the core count: other processes shared the machine, so times are "
                "inflated)." if max(report["load_average_start"] or 0,
                                    report.get("load_average_end") or 0)
                > report["machine"]["cores"] else "."), ""]
    for p in report.get("partial_runs", []):
        lines[-1:-1] = [f"Rows of {', '.join(p['families'])} re-measured {p['generated']}, commit "
                        f"{p['commit']}, 1-minute load average {p['load_average_start']} at the "
                        f"start and {p['load_average_end']} at the end"
                        + (" (a busy machine: times are inflated)." if max(
                            p["load_average_start"] or 0, p["load_average_end"] or 0)
                           > report["machine"]["cores"] else ".")]

    def errors(family):
        return [f"- `{r['benchmark']}`: {r['error']}" for r in rows
                if r["family"] == family and "error" in r]

    def sched_table(family, with_reference):
        header = "| workload | pods | nodes | time | pods/s | price $/h | bound $/h | price/bound | peak RSS |"
        sep = "|---|---|---|---|---|---|---|---|---|"
        if with_reference:
            header += " Karpenter (published) | speed-up |"
            sep += "---|---|"
        out = [header, sep]
        for r in rows:
            if r["family"] != family or "error" in r:
                continue
            cells = [r["workload"], fmt_int(r["pods"]), fmt_int(r["nodes"]),
                     fmt_time(r["time_ms"]), fmt_rate(r["pods_per_s"]), f"{r['price']:,.2f}",
                     f"{r['bound']:,.2f}", f"{r['price_per_bound']:.3f}",
                     f"{r['peak_rss_mb']:.0f} MB"]
            if with_reference:
                refs = r.get("reference", [])
                cells.append("<br>".join(f"{fmt_time(x['seconds'] * 1e3)} ({fmt_int(x['pods_per_s'])} pods/s, {x['source'].split('/')[-1]})" for x in refs) or "—")
                cells.append("<br>".join(f"{x['speedup']:.0f}×" for x in refs) or "—")
            out.append("| " + " | ".join(cells) + " |")
        return out + errors(family)

    lines += ["### Karpenter parity (fake 400 instance types)", ""]
    lines += sched_table("parity", True) + [""]
    lines += ["### Realistic AWS (embedded catalog, 3 NodePools incl. arm64 and a tainted GPU "
              "pool, 3 DaemonSets)", ""]
    lines += sched_table("aws", False) + [""]
    lines += ["### Real trace (Alibaba openb GPU-cluster pods on the embedded AWS catalog with "
              "a GPU NodePool)", ""]
    trace = [r for r in rows if r["family"] == "trace"]
    lines += sched_table("trace", False)
    for r in trace:
        if "unplaceable" in r and r["unplaceable"] > 0:
            lines.append(f"\n{r['workload']}: {fmt_int(r['unplaceable'])} pods fit no instance "
                         "type of the embedded catalog (karp reports exactly those as pod "
                         "errors); nodes, price and bound are for the others.")
    lines += [""]
    lines += cost_table(rows) + [""]
    lines += ["### Consolidation (full pass, every method, default budgets)",
              "", "| nodes | pods | time | commands | savings found | cluster price | peak RSS |",
              "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["family"] != "consolidation" or "error" in r:
            continue
        lines.append(f"| {fmt_int(r['size'])} | {fmt_int(r['pods'])} | {fmt_time(r['time_ms'])} | "
                     f"{fmt_int(r['commands'])} | ${r['savings_per_h']:,.2f}/h | "
                     f"${r['cluster_per_h']:,.2f}/h | {r['peak_rss_mb']:.0f} MB |")
    lines += errors("consolidation") + [""]
    lines += repack_table(rows, errors) + [""]
    lines += bound_table(rows)
    lines += errors("bound") + [""]
    lines += ["### Codec", "",
              "| workload | document | time | CPU time | MB per CPU second | objects/s or pods/s | "
              "peak RSS |",
              "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["family"] != "codec" or "error" in r:
            continue
        size = r.get("MB", r.get("MB_in", 0))
        rate = r.get("objects_per_s", r.get("pods_per_s"))
        lines.append(f"| {r['workload']} | {size:.1f} MB | {fmt_time(r['time_ms'])} | "
                     + (fmt_time(r["cpu_time_ms"]) if "cpu_time_ms" in r else "—") + " | "
                     + (f"{r['MB'] / (r['cpu_time_ms'] / 1e3):,.0f}"
                        if "MB" in r and r.get("cpu_time_ms") else "—") + " | "
                     + (fmt_rate(rate) + (" pods/s" if "objects_per_s" not in r else "")
                        if rate else "—")
                     + f" | {r['peak_rss_mb']:.0f} MB |")
    lines += errors("codec") + [""]
    lines += cli_table(rows) + [""]
    lines += workload_tables(rows) + [""]
    lines += ["### Loading the embedded AWS catalog (every CLI call and every "
              "`EmbeddedAwsCatalog()`; target ≤ 20 ms and ≤ 20 MB)", "",
              "| what | types | time | min – max | heap held | decode rows (once per process) | "
              "destroy | peak RSS |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["family"] != "catalog" or "error" in r:
            continue
        lines.append(f"| {r['workload']} | {fmt_int(r['types'])} | {fmt_time(r['time_ms'])} | "
                     f"{fmt_time(r['time_ms_min'])} – {fmt_time(r['time_ms_max'])} | "
                     f"{r['MB']:.1f} MB | {fmt_time(r['table_ms'])} | "
                     f"{fmt_time(r['free_ms'])} | {r['peak_rss_mb']:.0f} MB |")
    lines += errors("catalog") + [""]
    return "\n".join(lines)


def chart(report, path, tmp):
    gnuplot = shutil.which("gnuplot")
    if gnuplot is None:
        print("gnuplot not found: the chart was not drawn. Install it with "
              "`scripts/deps.sh --report` (Debian package gnuplot-nox).", file=sys.stderr)
        return False
    series = {"diverse": [], "aws": [], "ref2486": [], "ref1938": []}
    for r in report["rows"]:
        if "error" in r or "pods_per_s" not in r:
            continue
        if r["family"] == "parity" and r["workload"] == "diverse":
            series["diverse"].append((r["pods"], r["pods_per_s"]))
        if r["family"] == "aws":
            series["aws"].append((r["pods"], r["pods_per_s"]))
    for (workload, pods), refs in sorted(REFERENCE.items()):
        if workload != "diverse":
            continue
        for _, rate, src in refs:
            series["ref2486" if src.endswith("2486") else "ref1938"].append((pods, rate))
    files = {}
    for name, points in series.items():
        files[name] = os.path.join(tmp, name + ".dat")
        with open(files[name], "w", encoding="utf-8") as f:
            for x, y in sorted(points):
                f.write(f"{x} {y}\n")
            if not points:
                f.write("NaN NaN\n")
    script = f"""
set terminal svg size 760,440 dynamic enhanced font 'sans,12' background rgb 'white'
set output '{path}'
set title 'Scheduling throughput: one cold Solve, pods per second'
set xlabel 'pending pods'
set ylabel 'pods per second'
set logscale xy
set format y '%.0s%c'
set format x '%.0s%c'
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key top left box opaque
set xrange [0.7:80000]
set yrange [100:3000000]
plot '{files['diverse']}' using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'karp, diverse (fake 400 types)', \\
     '{files['aws']}' using 1:2 with linespoints lw 2 pt 5 lc rgb '#2ca02c' title 'karp, realistic AWS', \\
     '{files['ref2486']}' using 1:2 with linespoints lw 2 pt 9 lc rgb '#d62728' title 'Karpenter, diverse (published, #2486, M3 Pro)', \\
     '{files['ref1938']}' using 1:2 with points pt 11 ps 1.5 lc rgb '#ff7f0e' title 'Karpenter, diverse (published, #1938)'
"""
    script_path = os.path.join(tmp, "chart.gp")
    with open(script_path, "w", encoding="utf-8") as f:
        f.write(script)
    sh([gnuplot, script_path])
    return True


def chart_scaling(report, path, tmp):
    """Log-log chart of time against pending pods per workload, with each fitted line."""
    gnuplot = shutil.which("gnuplot")
    series = time_series(report["rows"])
    if gnuplot is None or not series:
        return False
    colors = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e"]
    plots = []
    for i, (label, points) in enumerate(sorted(series.items())):
        data = os.path.join(tmp, f"scaling{i}.dat")
        with open(data, "w", encoding="utf-8") as f:
            for x, y in sorted(points):
                f.write(f"{x} {y / 1e3}\n")
        fit = fit_slope(points)
        title = label.replace("_", " ") + (f", slope {fit[0]:.2f}" if fit else "")
        color = colors[i % len(colors)]
        plots.append(f"'{data}' using 1:2 with points pt 7 ps 0.8 lc rgb '{color}' "
                     f"title '{title}'")
        if fit:
            lo, hi = min(points)[0], max(points)[0]
            # The fit is in milliseconds; the chart in seconds.
            plots.append(f"[{lo}:{hi}] 10**({fit[1]:.6f} - 3) * x**{fit[0]:.6f} with lines lw 2 "
                         f"dt 2 lc rgb '{color}' notitle")
    script = f"""
set terminal svg size 760,440 dynamic enhanced font 'sans,12' background rgb 'white'
set output '{path}'
set title 'Time of one cold Solve against pending pods (dashed: least-squares fit)'
set xlabel 'pending pods'
set ylabel 'seconds'
set logscale xy
set format x '%.0s%c'
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key top left box opaque noenhanced
set xrange [70:150000]
plot {", ".join(plots)}
"""
    script_path = os.path.join(tmp, "scaling.gp")
    with open(script_path, "w", encoding="utf-8") as f:
        f.write(script)
    sh([gnuplot, script_path])
    return True


def workloads_dir(arg, tmp):
    """Unpacks the shared workloads into `tmp`; returns that folder, or None (with a note)."""
    src = arg or os.path.join(ROOT, "..", "shared", "data", "workloads")
    if not os.path.isdir(src):
        print(f"note: the shared workloads are not available ({src}); their rows are not run. "
              "Pass --workloads DIR to include them.", file=sys.stderr)
        return None
    dest = os.path.join(tmp, "workloads")
    os.makedirs(dest, exist_ok=True)
    for name in WORKLOAD_FILES:
        plain, packed = os.path.join(src, name), os.path.join(src, name + ".gz")
        if os.path.exists(plain):
            shutil.copyfile(plain, os.path.join(dest, name))
        elif os.path.exists(packed):
            with gzip.open(packed, "rb") as fin, open(os.path.join(dest, name), "wb") as fout:
                shutil.copyfileobj(fin, fout)
        else:
            print(f"note: {name}(.gz) is missing from {src}; the shared workloads are not run.",
                  file=sys.stderr)
            return None
    return dest


def merge_partial(report, path, families):
    """The rows of `report` (a run of `families` only) in place of those families' rows of the
    report at `path`; the other rows, and the header of that report, are kept, and the partial
    run is recorded in "partial_runs"."""
    if not os.path.exists(path):
        return report
    with open(path, encoding="utf-8") as f:
        old = json.load(f)
    old["rows"] = [r for r in old["rows"] if r["family"] not in families] + report["rows"]
    old.setdefault("partial_runs", []).append(
        {"families": sorted(families), "generated": report["generated"],
         "commit": report["commit"], "load_average_start": report["load_average_start"],
         "load_average_end": report["load_average_end"]})
    return old


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "system": platform.platform()}


def loadavg():
    try:
        with open("/proc/loadavg", encoding="utf-8") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def commit():
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               check=True, capture_output=True, text=True).stdout.strip()
        return head + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


DOC = os.path.join(ROOT, "docs", "benchmarks.md")
DOC_BEGIN = "<!-- begin: generated by scripts/bench_report.py from bench/results/latest.json -->"
DOC_END = "<!-- end: generated by scripts/bench_report.py -->"


def update_doc(md):
    """Replaces the generated part of docs/benchmarks.md (between its markers) with `md`."""
    try:
        with open(DOC, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        print(f"note: {DOC} not found: not updated", file=sys.stderr)
        return
    begin, end = text.find(DOC_BEGIN), text.find(DOC_END)
    if begin < 0 or end < begin:
        print(f"note: {DOC} has no generated-part markers: not updated", file=sys.stderr)
        return
    text = text[:begin + len(DOC_BEGIN)] + "\n\n" + md.strip() + "\n\n" + text[end:]
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="subset, one repetition (CI smoke)")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    parser.add_argument("--trace", default=None,
                        help="openb_pod_list_default.csv (default: ../shared/data/traces/)")
    parser.add_argument("--workloads", default=None,
                        help="folder of the shared workloads, .json or .json.gz "
                             "(default: ../shared/data/workloads/ when it exists)")
    parser.add_argument("--timeout", type=float, default=1200,
                        help="seconds after which a shared-workload benchmark is stopped and "
                             "reported as such (default 1200)")
    parser.add_argument("--only", default=None,
                        help="comma-separated families to run (parity, aws, trace, "
                             "consolidation, repack, bound, codec, catalog, cli, workloads); their rows "
                             "replace those of bench/results/latest.json, the others are kept")
    parser.add_argument("--no-build", action="store_true", help="use the binaries as they are")
    parser.add_argument("--render-only", action="store_true",
                        help="re-render latest.md and the chart from latest.json, run nothing")
    args = parser.parse_args()
    if args.render_only:
        results = os.path.join(ROOT, "bench", "results")
        with open(os.path.join(results, "latest.json"), encoding="utf-8") as f:
            report = json.load(f)
        md = markdown(report)
        with open(os.path.join(results, "latest.md"), "w", encoding="utf-8") as f:
            f.write(md + "\n")
        update_doc(md)
        with tempfile.TemporaryDirectory() as tmp:
            chart(report, os.path.join(ROOT, "docs", "bench-pods-per-second.svg"), tmp)
            chart_scaling(report, os.path.join(ROOT, "docs", "bench-time-vs-pods.svg"), tmp)
        return 0
    build_dir = os.path.abspath(args.build_dir)
    if not args.no_build:
        build(build_dir)
    trace = args.trace
    if trace is None:
        default = os.path.join(ROOT, "..", "shared", "data", "traces", "openb_pod_list_default.csv")
        trace = default if os.path.exists(default) else None
        if trace is None:
            print("note: the real trace is not available (no ../shared/data/traces/); its row "
                  "is reported as skipped. Pass --trace PATH to include it.", file=sys.stderr)
    elif not os.path.exists(trace):
        sys.exit(f"--trace {trace}: no such file")

    report = {"generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "machine": machine(), "commit": commit(), "quick": args.quick,
              "load_average_start": loadavg(), "rows": []}
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {"dir": workloads_dir(args.workloads, tmp), "parity": os.path.join(tmp, "parity")}
        os.makedirs(dirs["parity"])
        sh([os.path.join(build_dir, "bench", "codec_bench"), f"--write-parity={dirs['parity']}"],
           stdout=subprocess.DEVNULL)
        runs = plan(args.quick) + (workload_plan(args.quick) if dirs["dir"] else [])
        only = set(args.only.split(",")) if args.only else None
        if only:
            runs = [r for r in runs if r.family in only]
        for run in runs:
            if isinstance(run, CliRun):
                row = execute_cli(run, build_dir, dirs, tmp)
            else:
                row = execute(run, build_dir, trace, args.quick, tmp, dirs,
                              args.timeout if run.family == "workloads" else None)
            report["rows"].append(row)
            status = row.get("error") or f"{fmt_time(row['time_ms'])}, peak RSS {row['peak_rss_mb']:.0f} MB"
            print(f"  {row['benchmark']}: {status}", file=sys.stderr, flush=True)
        report["load_average_end"] = loadavg()
        results = os.path.join(ROOT, "bench", "results")
        if only and not args.quick:
            report = merge_partial(report, os.path.join(results, "latest.json"), only)
        os.makedirs(results, exist_ok=True)
        stem = "quick" if args.quick else "latest"
        with open(os.path.join(results, stem + ".json"), "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, sort_keys=True)
            f.write("\n")
        md = markdown(report)
        with open(os.path.join(results, stem + ".md"), "w", encoding="utf-8") as f:
            f.write(md + "\n")
        svg = os.path.join(ROOT, "docs", "bench-pods-per-second.svg")
        if not args.quick:
            update_doc(md)
            os.makedirs(os.path.dirname(svg), exist_ok=True)
            chart(report, svg, tmp)
            chart_scaling(report, os.path.join(ROOT, "docs", "bench-time-vs-pods.svg"), tmp)
        print(md)
        print(f"\nwrote bench/results/{stem}.json, bench/results/{stem}.md"
              + ("" if args.quick else ", docs/benchmarks.md (its generated part), "
                 "docs/bench-pods-per-second.svg, docs/bench-time-vs-pods.svg"), file=sys.stderr)
    failed = [r for r in report["rows"] if "error" in r and r["family"] != "trace"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
