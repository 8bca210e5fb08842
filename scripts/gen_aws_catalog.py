#!/usr/bin/env python3
"""Generates karp's embedded AWS instance-type table (Python 3 standard library only).

Usage:
  scripts/gen_aws_catalog.py [--data DIR] [--out FILE] [--check]

Reads the AWS data set in DIR (default: ../shared/data/aws relative to the repo root):
  instance-types.json              facts per instance type (vCPU, memory, ENIs, bandwidth,
                                   GPUs, accelerators, local NVMe, published capacity)
  pricing-on-demand-<region>.json  Linux on-demand prices of one region (one file per region)
and writes FILE (default: src/aws_catalog/aws_table.inc), the compiled-in table in karp's own
compact format (see src/aws_catalog/embedded_table.cc for the row structs).

Every type that has facts (with ENI limits, which max pods needs) and an on-demand price in at
least one region is written, with one price column per region (-1: no price there). Types left
out are listed on stderr. The output is deterministic: the same data gives the same file.

--check regenerates in memory and exits 1 if FILE differs (CI: the table is current).
"""

import argparse
import glob
import json
import os
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO_ROOT, "src", "aws_catalog", "aws_table.inc")


class DataError(Exception):
    """The data set breaks an assumption of the table format."""


def load(data_dir):
    with open(os.path.join(data_dir, "instance-types.json"), encoding="utf-8") as f:
        types_doc = json.load(f)
    regions = []
    for path in sorted(glob.glob(os.path.join(data_dir, "pricing-on-demand-*.json"))):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        regions.append(doc)
    if not regions:
        raise DataError(f"{data_dir}: no pricing-on-demand-<region>.json file")
    # us-east-1 first (the default region and Karpenter's fallback table), then by name.
    regions.sort(key=lambda r: (r["region"] != "us-east-1", r["region"]))
    return types_doc, regions


def device_of(t):
    """(kind, name, manufacturer, neuron cores per device) shared by a family's sizes."""
    ext = t.get("extended_resources") or {}
    if t["gpu"] is not None:
        g = t["gpu"]
        return ("kGpu", g["name"], g["manufacturer"], 0)
    a = t["accelerator"]
    if a is not None:
        if a["manufacturer"] == "aws":
            devices = ext.get("aws.amazon.com/neuron", 0)
            cores = ext.get("aws.amazon.com/neuroncore", 0)
            if devices != a["count"] or devices == 0 or cores % devices != 0:
                raise DataError(f"{t['name']}: neuron devices {devices} / cores {cores} do not "
                                f"match accelerator count {a['count']}")
            return ("kNeuron", a["name"], "aws", cores // devices)
        return ("kAccelerator", a["name"], a["manufacturer"], 0)
    return ("kNoDevice", None, None, 0)


def device_count(t):
    if t["gpu"] is not None:
        return t["gpu"]["count"]
    if t["accelerator"] is not None:
        return t["accelerator"]["count"]
    return 0


def check_type(t):
    """Assumptions the C++ conversion relies on; raises DataError naming the type."""
    name = t["name"]
    if t["family"] + "." + t["size"] != name:
        raise DataError(f"{name}: family/size do not split the name")
    if t["bare_metal"] != (t["hypervisor"] == ""):
        raise DataError(f"{name}: bare_metal and hypervisor disagree")
    if t["bare_metal"] != t["size"].startswith("metal"):
        raise DataError(f"{name}: bare metal exactly when the size starts with 'metal' is assumed")
    if t["arch"] not in ("amd64", "arm64"):
        raise DataError(f"{name}: arch {t['arch']!r}")
    e = t["eni"]
    if e["default_network_card_index"] != 0:
        raise DataError(f"{name}: default network card is not card 0")
    ext = t.get("extended_resources") or {}
    gpus = sum(ext.get(k, 0) for k in ("nvidia.com/gpu", "amd.com/gpu", "habana.ai/gaudi"))
    want_gpus = t["gpu"]["count"] if t["gpu"] is not None else 0
    if gpus != want_gpus:
        raise DataError(f"{name}: GPU resources {gpus} without a single GPU model of that count")
    known = {"nvidia.com/gpu", "amd.com/gpu", "habana.ai/gaudi", "aws.amazon.com/neuron",
             "aws.amazon.com/neuroncore", "vpc.amazonaws.com/efa", "vpc.amazonaws.com/pod-eni"}
    unknown = set(ext) - known
    if unknown:
        raise DataError(f"{name}: unknown extended resources {sorted(unknown)}")
    # Max pods of the published page = the ENI formula (so the table needs only the limits).
    pods = e["max_enis_default_card"] * (e["ipv4_per_eni"] - 1) + 2
    published = (t.get("docs_allocatable_al2023") or {}).get("pods")
    if published is not None and published != pods:
        raise DataError(f"{name}: published pods {published} != ENI-limited pods {pods}")


def aligned(rows, numeric_from):
    """Rows of cells as "a, b, c" padded into columns (cells from numeric_from right-aligned)."""
    widths = [max(len(r[i]) for r in rows) + 1 for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = []
        for i, c in enumerate(r):
            if i == len(r) - 1:
                cells.append(c)
            elif i >= numeric_from:
                cells.append((c + ",").rjust(widths[i]))
            else:
                cells.append((c + ",").ljust(widths[i]))
        lines.append(" ".join(cells))
    return lines


def c_str(s):
    return "nullptr" if s is None else json.dumps(s)


def price_text(p):
    return "-1" if p is None else repr(float(p))


def generate(types_doc, regions):
    prices = [r["prices"] for r in regions]
    kept, left_out = [], []
    for t in types_doc["instance_types"]:
        priced = [p.get(t["name"]) for p in prices]
        if all(p is None for p in priced):
            continue  # not sold in any region of the data
        if t["eni"] is None:
            left_out.append((t["name"], "no ENI limits in the source, so no max pods"))
            continue
        check_type(t)
        kept.append(t)

    families = []  # [(family row fields, [types])]
    by_family = {}
    for t in kept:
        fam = t["family"]
        if fam not in by_family:
            by_family[fam] = []
            families.append(fam)
        by_family[fam].append(t)

    family_rows = []
    for fam in families:
        members = by_family[fam]
        first = members[0]
        shared = {
            "arch": first["arch"],
            "cpu": first["cpu_manufacturer"],
            "eit": first["encryption_in_transit_supported"],
            "device": device_of(first),
        }
        virtual = {t["hypervisor"] for t in members if not t["bare_metal"]}
        if len(virtual) > 1:
            raise DataError(f"family {fam}: several hypervisors {sorted(virtual)}")
        for t in members:
            got = {"arch": t["arch"], "cpu": t["cpu_manufacturer"],
                   "eit": t["encryption_in_transit_supported"], "device": device_of(t)}
            if got != shared:
                raise DataError(f"{t['name']}: family facts differ from {first['name']}")
        family_rows.append((fam, shared, virtual.pop() if virtual else "", len(members)))

    out = []
    w = out.append
    src = types_doc.get("source") or {}
    w("// AWS EC2 instance types for the embedded default catalog, in karp's own compact format.")
    w("// GENERATED by scripts/gen_aws_catalog.py from the AWS data set -- do not edit by hand.")
    w("//")
    w("// Refresh (one command, when new types or prices appear in the data set):")
    w("//   python3 scripts/gen_aws_catalog.py --data DIR")
    w("// where DIR holds instance-types.json and pricing-on-demand-<region>.json (see")
    w("// docs/aws-catalog.md); `--check` verifies that this file is current.")
    w("//")
    w("// Facts: vCPU, memory, ENI limits, bandwidth, devices and local NVMe as EC2")
    w("// DescribeInstanceTypes and the VPC/bandwidth tables published with")
    w(f"// {src.get('repository', 'aws/karpenter-provider-aws')} report them "
      f"(commit {str(src.get('commit', '?'))[:12]}); pod-eni is the")
    w("// capacity Karpenter's instance-type reference publishes. Prices: Linux on-demand per hour")
    w("// from the AWS Price List API as embedded by Karpenter, one column per region below.")
    w(f"// {len(kept)} types in {len(family_rows)} families.")
    for name, why in left_out:
        w(f"// Left out: {name} ({why}).")
    w("// Included only by src/aws_catalog/embedded_table.cc, inside its anonymous namespace.")
    w("")
    w("// Regions with prices: the price columns of kSizes, in this order.")
    w(f"constexpr size_t kRegionCount = {len(regions)};")
    w("constexpr RegionRow kRegions[kRegionCount] = {")
    for r in regions:
        gen = (r.get("source") or {}).get("generated_at", "")
        w(f"    {{{c_str(r['region'])}, {c_str(r['currency'])}}},  // {len(r['prices'])} prices"
          + (f", generated {gen[:10]}" if gen else ""))
    w("};")
    w("")
    w("// Families, each followed in kSizes by `sizes` consecutive size rows. eit: encryption in")
    w("// transit; hypervisor: of the virtualized sizes (\"metal*\" sizes have \"\"); cores: neuron")
    w("// cores per device.")
    fam_cells = []
    for fam, shared, hyper, n in family_rows:
        kind, dname, dmanu, cores = shared["device"]
        arch = "kArm" if shared["arch"] == "arm64" else "kX86"
        fam_cells.append([c_str(fam), arch, c_str(shared["cpu"]),
                          "true" if shared["eit"] else "false", c_str(hyper), kind,
                          c_str(dname), c_str(dmanu), str(cores), str(n)])
    w("// family, arch, cpu, eit, hypervisor, device, device name, manufacturer, cores, sizes")
    w("constexpr FamilyRow kFamilies[] = {")
    for line in aligned(fam_cells, numeric_from=8):
        w(f"    {{{line}}},")
    w("};")
    w("")
    w("// Sizes. enis: max ENIs of the default network card; pod-eni: branch ENIs (0: not")
    w("// trunking-compatible); efa: max EFA interfaces; dev: GPUs or accelerator devices;")
    w("// dev_mib: MiB per GPU; nvme_gb, net_mbps (baseline), ebs_mbps (max): 0 = none;")
    w("// clock: sustained MHz (-1 = unknown); then one price per region of kRegions (-1 = none).")
    w("// size, vcpu, mem_mib, enis, ipv4, pod-eni, efa, dev, dev_mib, nvme_gb, net_mbps, ebs_mbps,")
    w("// clock, {" + ", ".join(r["region"] for r in regions) + "}")
    w("constexpr SizeRow<kRegionCount> kSizes[] = {")
    size_cells = []
    for fam, _, _, _ in family_rows:
        cells = []
        for t in by_family[fam]:
            e = t["eni"]
            ext = t.get("extended_resources") or {}
            dev_mib = t["gpu"]["memory_mib"] if t["gpu"] is not None else 0
            clock = t["cpu_sustained_clock_speed_mhz"]
            cols = [c_str(t["size"]), t["vcpu"], t["memory_mib"], e["max_enis_default_card"],
                    e["ipv4_per_eni"], ext.get("vpc.amazonaws.com/pod-eni", 0),
                    ext.get("vpc.amazonaws.com/efa", 0), device_count(t), dev_mib,
                    t["local_nvme_gb"] or 0, t["network_bandwidth_mbps"] or 0,
                    t["ebs_bandwidth_mbps"] or 0, -1 if clock is None else clock]
            row_prices = ", ".join(price_text(p.get(t["name"])) for p in prices)
            cells.append([str(c) for c in cols] + ["{" + row_prices + "}"])
        size_cells.append((fam, cells))
    lines = aligned([c for _, cells in size_cells for c in cells], numeric_from=1)
    i = 0
    for fam, cells in size_cells:
        w(f"    // {fam}")
        for _ in cells:
            w(f"    {{{lines[i]}}},")
            i += 1
    w("};")
    return "\n".join(out) + "\n", kept, left_out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", metavar="DIR",
                        help="AWS data directory (default: ../shared/data/aws from the repo root)")
    parser.add_argument("--out", metavar="FILE", default=DEFAULT_OUT,
                        help="table to write (default: src/aws_catalog/aws_table.inc)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if FILE is not what the data generates; write nothing")
    args = parser.parse_args()
    data = args.data or os.path.join(REPO_ROOT, "..", "shared", "data", "aws")
    if not os.path.isfile(os.path.join(data, "instance-types.json")):
        print(f"error: {data}/instance-types.json not found (pass --data DIR)", file=sys.stderr)
        return 2
    try:
        types_doc, regions = load(data)
        text, kept, left_out = generate(types_doc, regions)
    except (DataError, KeyError, ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for name, why in left_out:
        print(f"left out {name}: {why}", file=sys.stderr)
    summary = (f"{len(kept)} types, prices for {len(regions)} regions "
               f"({', '.join(r['region'] for r in regions)})")
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                current = f.read()
        except OSError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        if current != text:
            print(f"{args.out} is out of date: run scripts/gen_aws_catalog.py --data DIR",
                  file=sys.stderr)
            return 1
        print(f"{os.path.relpath(args.out, REPO_ROOT)} is current: {summary}")
        return 0
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(args.out, REPO_ROOT)}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
