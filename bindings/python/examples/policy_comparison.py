#!/usr/bin/env python3
"""Compares karp's autoscaling policies on a workload trace and plots them.

Runs karp.simulate() on a trace (default: examples/traces/diurnal-day.yaml) under every
standard policy, one thread per policy (karp releases the GIL), prints each policy's cost and
peak node count, and draws the hourly price and the node count over time, one line per
policy, with matplotlib.

    PYTHONPATH=build/bindings/python python3 bindings/python/examples/policy_comparison.py \
        --out policy_comparison.png
"""

import argparse
import collections
import concurrent.futures
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import karp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TRACE = os.path.join(HERE, "..", "..", "..", "examples", "traces", "diurnal-day.yaml")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", default=DEFAULT_TRACE, help="a simulator trace")
    parser.add_argument("--out", default="policy_comparison.png", help="the chart (PNG or SVG)")
    parser.add_argument("--sample", default="5m", help="sampling period")
    args = parser.parse_args()

    def run(policy):
        return karp.simulate(args.trace, policies=[policy], sample=args.sample)

    try:
        with concurrent.futures.ThreadPoolExecutor(len(karp.POLICIES)) as pool:
            rows = [row for rows in pool.map(run, karp.POLICIES) for row in rows]
    except karp.Error as e:
        sys.exit(f"karp: {e}")
    by_policy = collections.defaultdict(list)
    for row in rows:  # pandas.DataFrame(rows) works too; plain lists keep this stdlib-only
        by_policy[row["policy"]].append(row)

    print(f"{'policy':<26}{'cost ($)':>10}{'peak nodes':>12}{'max pending':>13}")
    period_h = (rows[1]["time_s"] - rows[0]["time_s"]) / 3600 if len(rows) > 1 else 0
    for policy, samples in by_policy.items():
        cost = sum(s["price_per_hour"] for s in samples) * period_h
        peak = max(s["nodes"] + s["launching"] for s in samples)
        pending = max(s["pods_pending"] for s in samples)
        print(f"{policy:<26}{cost:>10.2f}{peak:>12}{pending:>13}")

    fig, (price, nodes) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    for policy, samples in by_policy.items():
        hours = [s["time_s"] / 3600 for s in samples]
        price.step(hours, [s["price_per_hour"] for s in samples], where="post", label=policy)
        nodes.step(hours, [s["nodes"] + s["launching"] for s in samples], where="post",
                   label=policy)
    price.set_ylabel("price per hour ($)")
    nodes.set_ylabel("nodes (ready + launching)")
    nodes.set_xlabel("simulated hours")
    price.legend(loc="upper left", fontsize="small")
    price.grid(True)
    nodes.grid(True)
    fig.suptitle(f"karp policies on {os.path.basename(args.trace)}")
    fig.savefig(args.out)
    print(f"chart: {args.out}")


if __name__ == "__main__":
    main()
