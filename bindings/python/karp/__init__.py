"""karp from Python: the decision engine of a Kubernetes node autoscaler.

    import karp
    result = karp.solve("examples/inflate.yaml")                # a file, a directory, or
    result = karp.solve([nodepool_dict, pod_dict, ...])          # Kubernetes objects as dicts
    for claim in result["nodeClaims"]:
        print(claim["name"], claim["launch"]["instanceType"])
    plan = karp.consolidate("cluster.yaml", now="2026-01-05T12:00:00Z")
    rows = karp.simulate("examples/traces/inflate.yaml", policies=["empty-spot"])
    pandas.DataFrame(rows)                                       # if pandas is installed

Inputs are the formats of docs/formats.md: snapshots as `kubectl get ... -o json|yaml` prints
them, catalogs as `karp catalog -o json` prints them (None: karp's embedded AWS catalog).
Results are the dicts of `karp solve|consolidate|catalog -o json` (raw=True: the exact text
the CLI prints). Options are the CLI's flags in snake_case (docs/bindings.md). Errors raise
karp.Error (a ValueError) whose message names the input, object and field.

The module calls karp's C API (libkarp_c) and releases the GIL while karp works, so threads
can run several solves at once.
"""

import csv
import datetime
import io
import json
import os

from . import _karp

__all__ = ["Error", "solve", "consolidate", "catalog", "simulate", "version", "POLICIES",
           "SAMPLE_COLUMNS"]

# The standard policies of simulate(), in its default order.
POLICIES = ("underutilized-spot", "underutilized-on-demand", "empty-spot", "empty-on-demand",
            "static-groups")

# The columns of simulate()'s rows, in order.
SAMPLE_COLUMNS = ("policy", "time_s", "nodes", "launching", "pods_running", "pods_pending",
                  "price_per_hour", "disruptions", "evictions")

_MANIFEST_SUFFIXES = (".json", ".yaml", ".yml")


class Error(ValueError):
    """A karp error: `code` is "INVALID_ARGUMENT", "RESOURCE_EXHAUSTED" or "INTERNAL"."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


_CODES = {_karp.INVALID_ARGUMENT: "INVALID_ARGUMENT",
          _karp.RESOURCE_EXHAUSTED: "RESOURCE_EXHAUSTED", _karp.INTERNAL: "INTERNAL"}


def version():
    """karp's version, e.g. "0.1.0"."""
    return _karp.version()


def _directory_files(path, recursive):
    found = []
    if recursive:
        for root, _, files in os.walk(path):
            found += [os.path.join(root, f) for f in files if f.endswith(_MANIFEST_SUFFIXES)]
    else:
        found = [os.path.join(path, f) for f in os.listdir(path)
                 if f.endswith(_MANIFEST_SUFFIXES) and os.path.isfile(os.path.join(path, f))]
    if not found:
        raise Error("INVALID_ARGUMENT", f"{path}: no .json, .yaml or .yml file in directory")
    return sorted(found)


def _read(path, limit):
    """(source, bytes) of a file, read by karp's capped reader (karp_read_file): a regular
    file is measured first, a stream cut off at its cap (limit 0: karp's caps, 2 GiB for a
    file, 1 GiB for a stream, 128 MiB for YAML)."""
    status, out = _karp.read_file(os.fspath(path), limit)
    if status != _karp.OK:
        raise Error(_CODES.get(status, "INTERNAL"), out.decode("utf-8", "replace"))
    return (os.fspath(path), out)


def _document(name, value, limit):
    """One (source, bytes) input from a dict/list (JSON), bytes/str text, or a path."""
    if isinstance(value, (dict, list)):
        return (name, json.dumps(value).encode())
    if isinstance(value, bytes):
        return (name, value)
    if isinstance(value, (str, os.PathLike)):
        return _read(value, limit)
    raise TypeError(f"{name}: expected a dict, a list of dicts, bytes or a path, "
                    f"got {type(value).__name__}")


def _snapshot_inputs(objects, recursive, limit):
    """Snapshot inputs: a path (file or directory), a dict (an object or a List), bytes, or
    a list of those (dicts in a list are gathered into one List)."""
    items = objects if isinstance(objects, (list, tuple)) else [objects]
    inputs, loose = [], []
    for item in items:
        if isinstance(item, dict):
            loose.append(item)
        elif isinstance(item, (str, os.PathLike)) and os.path.isdir(item):
            inputs += [_read(p, limit) for p in _directory_files(item, recursive)]
        else:
            inputs.append(_document("objects", item, limit))
    if loose:
        inputs.insert(0, _document("objects", {"apiVersion": "v1", "kind": "List",
                                               "items": loose}, limit))
    if not inputs:
        raise Error("INVALID_ARGUMENT", "objects: no input given")
    return inputs


def _options(options):
    wire = {}
    for key, value in options.items():
        if value is None:
            continue
        if isinstance(value, datetime.datetime):
            if value.tzinfo is None:
                value = value.replace(tzinfo=datetime.timezone.utc)
            value = value.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")
        if isinstance(value, tuple):
            value = list(value)
        head, *rest = key.split("_")
        wire[head + "".join(w.capitalize() for w in rest)] = value
    return json.dumps(wire)


def _result(status_and_output, raw, output):
    status, out = status_and_output
    if status != _karp.OK:
        raise Error(_CODES.get(status, "INTERNAL"), out.decode("utf-8", "replace"))
    text = out.decode()
    if raw or output == "yaml":
        return text
    return json.loads(text)


def _catalog_input(catalog, limit):
    return None if catalog is None else _document("catalog", catalog, limit)


def solve(objects, catalog=None, *, recursive=False, raw=False, max_input_bytes=0, **options):
    """Where the pending pods of a snapshot go (`karp solve`).

    objects: a path (file, or directory of .json/.yaml/.yml files; recursive=True walks its
    subdirectories), a dict (a Kubernetes object or List), bytes of JSON/YAML, or a list of
    those. catalog: None (embedded AWS catalog), a dict, bytes or a path. options: output
    ("json", "yaml" -> str, "nodeclaims"), region, zones, preference_policy,
    min_values_policy, max_instance_types, packing ("faithful", "cost"), cost_attempts,
    cost_threads, cost_deadline ("2s"), validate ("strict", "warn", "ignore": a field its
    kind's schema lacks), expand_workloads, node_overlays (False: ignore the input's
    NodeOverlays), scheduler_config (the `--scheduler-config` document, a str). Files are read by karp's capped reader
    (max_input_bytes: 0 for karp's caps, or the cap for every file). Returns the dict of
    `karp solve -o json` (raw=True: the text the CLI prints).
    """
    return _result(_karp.solve(_snapshot_inputs(objects, recursive, max_input_bytes),
                               _catalog_input(catalog, max_input_bytes), _options(options)),
                   raw, options.get("output"))


def consolidate(objects, catalog=None, *, recursive=False, raw=False, max_input_bytes=0,
                **options):
    """Which nodes to delete or replace (`karp consolidate`). As solve(), with the options
    now (datetime or RFC 3339 text; default the current time), once, spot_to_spot,
    legacy_order, repack (the re-pack mode, docs/repack.md: the summary then has
    priceBeforePerHour, priceAfterPerHour, lowerBoundPerHour and evictions); output
    "nodeclaims" gives the replacements as NodeClaims."""
    return _result(_karp.consolidate(_snapshot_inputs(objects, recursive, max_input_bytes),
                                     _catalog_input(catalog, max_input_bytes), _options(options)),
                   raw, options.get("output"))


def catalog(catalog=None, *, raw=False, max_input_bytes=0, **options):
    """An instance-type catalog in the catalog format (`karp catalog -o json`): `catalog`
    validated (dict, bytes or path), or the embedded AWS catalog of region/zones."""
    return _result(_karp.catalog(_catalog_input(catalog, max_input_bytes), _options(options)), raw,
                   options.get("output"))


def _typed(row):
    out = {}
    for key, value in row.items():
        if key == "policy":
            out[key] = value
        elif key == "price_per_hour":
            out[key] = float(value)
        else:
            out[key] = int(value) if value.lstrip("-").isdigit() else float(value)
    return out


def simulate(trace, catalog=None, *, policies=None, raw=False, max_input_bytes=0, **options):
    """Replays a workload trace (docs/simulator.md; a dict, bytes or path) under each policy
    (default all: underutilized-spot, underutilized-on-demand, empty-spot, empty-on-demand,
    static-groups), as `karp simulate --csv -`. catalog: None ("sim": the embedded AWS catalog
    with modelled spot prices), a dict, bytes or a path; options: sample,
    disruption_interval, launch_latency (durations such as "60s"). Returns one dict per
    (policy, sample) with the keys SAMPLE_COLUMNS, ready for pandas.DataFrame(rows)
    (raw=True: the CSV text)."""
    status, out = _karp.simulate(_document("trace", trace, max_input_bytes),
                                 _catalog_input(catalog, max_input_bytes),
                                 _options(dict(options, policies=policies)))
    if status != _karp.OK:
        raise Error(_CODES.get(status, "INTERNAL"), out.decode("utf-8", "replace"))
    text = out.decode()
    if raw:
        return text
    return [_typed(row) for row in csv.DictReader(io.StringIO(text))]
