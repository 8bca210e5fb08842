#!/usr/bin/env python3
"""Checks karp's embedded AWS catalog against the public AWS facts (Python 3 standard library).

Usage:
  scripts/check_aws_catalog.py [KARP_BINARY] [--json FILE] [--data DIR]

For every region with a pricing-on-demand-<region>.json in DIR (default: ../shared/data/aws
relative to the repo root), runs `KARP_BINARY catalog --catalog aws --region R -o json`
(default binary: build/tools/karp under the repo root), or reads one catalog JSON file given
with --json ("-" for stdin; checked as us-east-1 unless --region says otherwise), in the
format of docs/formats.md §2, and compares every instance type it lists with the facts in DIR:
vCPUs, memory capacity, max pods, labels (region included), extended resources, the region's
on-demand price and the AL2023 allocatable cpu, memory, pods and ephemeral-storage published
in Karpenter's instance-type reference. Every type of the data with a price in the region
must be listed (types without ENI limits are reported apart: their max pods is unknown).

Prints one line per mismatch, one summary line per region and a closing line
`N types checked in K region(s), M mismatches`. Exit status:
0 when everything matches (or the data directory is absent: the check is skipped), 1 on any
mismatch, 2 when the catalog cannot be obtained or read.
"""

import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys
from fractions import Fraction

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MI = 2**20
GI = 2**30

# Kubernetes quantity suffixes.
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": 1,
            "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
_QUANTITY = re.compile(
    r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$")

# Data labels: catalog label key -> function(data entry) giving the expected value or None.
_AWS = "karpenter.k8s.aws/"


def _gpu(field):
    return lambda i: None if i["gpu"] is None else str(i["gpu"][field])


def _accel(field):
    return lambda i: None if i["accelerator"] is None else str(i["accelerator"][field])


def _opt(field):
    return lambda i: None if i[field] is None else str(i[field])


LABELS = {
    "kubernetes.io/arch": lambda i: i["arch"],
    _AWS + "instance-family": lambda i: i["family"],
    _AWS + "instance-size": lambda i: i["size"],
    _AWS + "instance-category": lambda i: i["category"],
    _AWS + "instance-generation": lambda i: str(i["generation"]),
    _AWS + "instance-capability-flex": lambda i: "true" if i["capability_flex"] else "false",
    _AWS + "instance-cpu": lambda i: str(i["vcpu"]),
    _AWS + "instance-memory": lambda i: str(i["memory_mib"]),
    _AWS + "instance-cpu-manufacturer": _opt("cpu_manufacturer"),
    _AWS + "instance-cpu-sustained-clock-speed-mhz": _opt("cpu_sustained_clock_speed_mhz"),
    _AWS + "instance-hypervisor": lambda i: i["hypervisor"],
    _AWS + "instance-encryption-in-transit-supported":
        lambda i: "true" if i["encryption_in_transit_supported"] else "false",
    _AWS + "instance-ebs-bandwidth": _opt("ebs_bandwidth_mbps"),
    _AWS + "instance-network-bandwidth": _opt("network_bandwidth_mbps"),
    _AWS + "instance-local-nvme": _opt("local_nvme_gb"),
    _AWS + "instance-gpu-name": _gpu("name"),
    _AWS + "instance-gpu-manufacturer": _gpu("manufacturer"),
    _AWS + "instance-gpu-count": _gpu("count"),
    _AWS + "instance-gpu-memory": _gpu("memory_mib"),
    _AWS + "instance-accelerator-name": _accel("name"),
    _AWS + "instance-accelerator-manufacturer": _accel("manufacturer"),
    _AWS + "instance-accelerator-count": _accel("count"),
}

WELL_KNOWN_RESOURCES = {"cpu", "memory", "ephemeral-storage", "pods"}


def parse_quantity(text, resource):
    """A Kubernetes quantity in canonical units: millicores for cpu, else bytes or units."""
    m = _QUANTITY.match(str(text).strip())
    if not m:
        raise ValueError(f"invalid quantity {text!r} for {resource}")
    number, suffix, exponent = m.group(1), m.group(2), m.group(3)
    value = Fraction(number)
    if exponent is not None:
        value *= Fraction(10) ** int(exponent)
    elif suffix in _BINARY:
        value *= _BINARY[suffix]
    else:
        value *= _DECIMAL[suffix or ""]
    if resource == "cpu":
        value *= 1000
    return math.ceil(value)


def parse_resources(obj, resource_path):
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise ValueError(f"{resource_path}: expected an object")
    return {k: parse_quantity(v, k) for k, v in obj.items()}


def format_quantity(value, resource):
    if resource == "cpu":
        return f"{value // 1000}" if value % 1000 == 0 else f"{value}m"
    if resource in ("memory", "ephemeral-storage"):
        for suffix, mult in (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", GI),
                             ("Mi", MI), ("Ki", 2**10)):
            if value != 0 and value % mult == 0:
                return f"{value // mult}{suffix}"
    return str(value)


def memory_capacity_mib(memory_mib, arch, overhead_percent=0.075):
    m = memory_mib - (64 if arch == "arm64" else 0)
    return m - math.ceil(m * overhead_percent)


def load_catalog(args, region):
    if args.json:
        text = sys.stdin.read() if args.json == "-" else open(args.json).read()
        source = args.json
    else:
        binary = args.karp
        if not os.path.exists(binary):
            raise RuntimeError(f"karp binary {binary} not found (build it, or pass --json FILE)")
        cmd = [binary, "catalog", "--catalog", "aws", "--region", region, "-o", "json"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()}")
        text = proc.stdout
        source = " ".join(cmd)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise RuntimeError(f"{source}: not JSON: {e}")
    types = doc.get("instanceTypes") if isinstance(doc, dict) else None
    if not isinstance(types, list):
        raise RuntimeError(f"{source}: no instanceTypes list")
    return types


def check_type(it, data, prices, region):
    """Mismatch messages for one catalog entry."""
    name = it.get("name", "<unnamed>")
    out = []
    labels = it.get("labels") or {}
    if labels.get("topology.kubernetes.io/region") != region:
        out.append(f"{name}: label topology.kubernetes.io/region="
                   f"{labels.get('topology.kubernetes.io/region')!r}, want {region!r}")

    def want(what, got, expected):
        if got != expected:
            out.append(f"{name}: {what} {got}, want {expected}")

    d = data.get(name)
    if d is None:
        return [f"{name}: not in instance-types.json"]

    capacity = parse_resources(it.get("capacity"), f"{name}.capacity")
    overhead = it.get("overhead") or {}
    kube = parse_resources(overhead.get("kubeReserved"), f"{name}.overhead.kubeReserved")
    system = parse_resources(overhead.get("systemReserved"), f"{name}.overhead.systemReserved")
    evict = parse_resources(overhead.get("evictionThreshold"),
                            f"{name}.overhead.evictionThreshold")

    want("vCPU (capacity cpu)", format_quantity(capacity.get("cpu", 0), "cpu"),
         format_quantity(d["vcpu"] * 1000, "cpu"))
    want("memory capacity", format_quantity(capacity.get("memory", 0), "memory"),
         format_quantity(memory_capacity_mib(d["memory_mib"], d["arch"]) * MI, "memory"))

    alloc_doc = d.get("docs_allocatable_al2023") or {}
    if alloc_doc.get("pods") is not None:
        want("max pods", capacity.get("pods", 0), alloc_doc["pods"])

    # Labels the catalog sets must agree with the data; labels the data has must be set.
    labels = it.get("labels") or {}
    for key, fn in LABELS.items():
        expected = fn(d)
        got = labels.get(key)
        if expected is None:
            if got is not None:
                out.append(f"{name}: label {key}={got!r}, want absent")
        elif got != expected:
            out.append(f"{name}: label {key}={got!r}, want {expected!r}")

    # Extended resources (absent = 0).
    ext_want = d.get("extended_resources") or {}
    for key in sorted(set(ext_want) | {k for k in capacity if k not in WELL_KNOWN_RESOURCES}):
        want(f"capacity {key}", capacity.get(key, 0), ext_want.get(key, 0))

    # On-demand price; without a price every on-demand offering is unavailable, and AL2023
    # (the default AMI family) does not run on a1 types, so theirs are unavailable too.
    price = prices.get(name)
    excluded = d["family"] == "a1"
    on_demand = [o for o in it.get("offerings") or [] if o.get("capacityType") == "on-demand"]
    if not on_demand:
        out.append(f"{name}: no on-demand offering")
    for o in on_demand:
        zone = o.get("zone")
        available = o.get("available", True)
        if price is None or excluded:
            if available:
                why = "on AL2023" if excluded else "without a price"
                out.append(f"{name}: on-demand offering in {zone} available {why}")
        elif not available:
            out.append(f"{name}: on-demand offering in {zone} unavailable, want available")
        elif not math.isclose(float(o.get("price", -1)), price, rel_tol=1e-9, abs_tol=1e-12):
            out.append(f"{name}: on-demand price in {zone} {o.get('price')}, want {price}")

    # Allocatable = capacity - kubeReserved - systemReserved - evictionThreshold (AL2023 docs).
    def allocatable(resource):
        return capacity.get(resource, 0) - kube.get(resource, 0) - system.get(resource, 0) \
            - evict.get(resource, 0)

    for resource, field, unit in (("cpu", "cpu_millicores", 1),
                                  ("memory", "memory_mib", MI),
                                  ("ephemeral-storage", "ephemeral_storage_gib", GI),
                                  ("pods", "pods", 1)):
        if alloc_doc.get(field) is None:
            continue
        expected = int(round(alloc_doc[field] * unit))
        want(f"allocatable {resource}", format_quantity(allocatable(resource), resource),
             format_quantity(expected, resource))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("karp", nargs="?",
                        default=os.path.join(REPO_ROOT, "build", "tools", "karp"),
                        help="path to the karp binary (default: build/tools/karp)")
    parser.add_argument("--json", metavar="FILE",
                        help="read the catalog JSON from FILE ('-' for stdin), not from karp")
    parser.add_argument("--data", metavar="DIR",
                        help="AWS data directory (default: ../shared/data/aws from the repo root)")
    parser.add_argument("--region", action="append", metavar="R",
                        help="check the embedded catalog of region R (repeatable; default: every "
                             "region with a pricing-on-demand-R.json, or us-east-1 with --json)")
    args = parser.parse_args()
    shown = args.data
    if args.data is None:
        args.data = os.path.join(REPO_ROOT, "..", "shared", "data", "aws")
        shown = "../shared/data/aws"

    types_path = os.path.join(args.data, "instance-types.json")
    price_files = sorted(glob.glob(os.path.join(args.data, "pricing-on-demand-*.json")))
    if not os.path.isfile(types_path) or not price_files:
        print(f"skipped: {shown} not found")
        return 0
    with open(types_path) as f:
        data = {i["name"]: i for i in json.load(f)["instance_types"]}
    region_prices = {}
    for path in price_files:
        with open(path) as f:
            doc = json.load(f)
        region_prices[doc["region"]] = doc["prices"]
    regions = args.region or (["us-east-1"] if args.json else sorted(region_prices))
    for region in regions:
        if region not in region_prices:
            print(f"error: no pricing-on-demand-{region}.json in {shown}", file=sys.stderr)
            return 2

    total_types = total_mismatches = 0
    for region in regions:
        try:
            types = load_catalog(args, region)
        except (OSError, RuntimeError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        prices = region_prices[region]
        mismatches = 0
        seen = set()
        for it in types:
            name = it.get("name", "<unnamed>") if isinstance(it, dict) else str(it)
            try:
                problems = check_type(it, data, prices, region)
            except (ValueError, TypeError, AttributeError) as e:
                problems = [f"{name}: {e}"]
            if name in seen:
                problems.append(f"{name}: listed twice")
            seen.add(name)
            for p in problems:
                print(f"{region}: {p}")
            mismatches += len(problems)
        # Every type of the data with a price in the region must be listed; types without ENI
        # limits cannot be (their max pods is unknown) and are counted apart.
        missing = sorted(n for n, d in data.items()
                         if n in prices and d.get("eni") is not None and n not in seen)
        for n in missing:
            print(f"{region}: {n}: has facts and a price but is not in the catalog")
        mismatches += len(missing)
        no_eni = sorted(n for n, d in data.items() if n in prices and d.get("eni") is None)
        print(f"{region}: {len(types)} types checked, {mismatches} mismatches"
              + (f" ({len(no_eni)} priced types without ENI limits in the data cannot be "
                 f"embedded: {', '.join(no_eni)})" if no_eni else ""))
        total_types += len(types)
        total_mismatches += mismatches
    print(f"{total_types} types checked in {len(regions)} region(s), "
          f"{total_mismatches} mismatches")
    return 1 if total_mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
