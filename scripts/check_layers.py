#!/usr/bin/env python3
"""Checks that the folders of src/ include each other only downwards (docs/design.md §0.1).

The layers are written once, here: each folder of src/ with the folders it may include
(directly or through them; the allowed set is the transitive closure). A file of src/A that
includes "B/..." for a folder B not below A is an error naming the file, the line and both
folders. Exit 0 when every include points down, 1 otherwise.

    scripts/check_layers.py [ROOT]     # ROOT: the repository (default: this script's parent)
    scripts/check_layers.py --self-test  # plants an upward include in a scratch tree: must fail
"""

import os
import re
import sys
import tempfile

# folder -> the folders it may include (lower layers). Public headers (karp/...) and
# third-party headers are not folders of src/ and are not checked here.
LAYERS = {
    "internal": [],
    "model": ["internal"],
    "aws_catalog": ["model"],
    "pricing": ["model"],
    "quality": ["model"],
    "scheduling": ["quality", "pricing"],
    "cloud": ["scheduling"],
    "disruption": ["scheduling", "quality", "cloud"],
    "json": ["model"],
    "sim": ["disruption", "json", "aws_catalog"],
    # The AWS adapter reads EC2NodeClass and the Price List through the codec's readers.
    "aws": ["json", "cloud", "aws_catalog"],
    "capi": ["json", "sim"],
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def closure(layers):
    """The folders each folder may include, transitively; exits on a cycle."""
    below = {}

    def visit(folder, stack):
        if folder in below:
            return below[folder]
        if folder in stack:
            sys.exit(f"check_layers: the layers have a cycle: {' -> '.join(stack + [folder])}")
        allowed = set()
        for lower in layers[folder]:
            allowed |= {lower} | visit(lower, stack + [folder])
        below[folder] = allowed
        return allowed

    for folder in layers:
        visit(folder, [])
    return below


def check(root):
    below = closure(LAYERS)
    src = os.path.join(root, "src")
    errors = []
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        if folder not in LAYERS:
            errors.append(f"src/{folder}/: a folder with no layer (add it to LAYERS in "
                          f"scripts/check_layers.py and docs/design.md §0.1)")
            continue
        for dirpath, _, files in os.walk(path):
            for name in sorted(files):
                if not name.endswith((".h", ".cc", ".inc")):
                    continue
                file = os.path.join(dirpath, name)
                with open(file, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) == folder:
                            continue
                        target = m.group(1)
                        if target in LAYERS and target not in below[folder]:
                            rel = os.path.relpath(file, root)
                            errors.append(f"{rel}:{number}: src/{folder} includes src/{target}, "
                                          f"which is not below it")
    return errors


def self_test():
    with tempfile.TemporaryDirectory() as root:
        for folder in ("model", "scheduling"):
            os.makedirs(os.path.join(root, "src", folder))
        with open(os.path.join(root, "src", "scheduling", "ok.cc"), "w") as f:
            f.write('#include "model/fine.h"\n')
        with open(os.path.join(root, "src", "model", "planted.cc"), "w") as f:
            f.write('#include "model/fine.h"\n#include "scheduling/solver.h"\n')
        errors = check(root)
    want = ["src/model/planted.cc:2: src/model includes src/scheduling, which is not below it"]
    if errors != want:
        print(f"check_layers: self-test failed: got {errors}, want {want}")
        return 1
    print("check_layers: self-test: the planted upward include is caught")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    errors = check(root)
    for e in errors:
        print(e)
    if errors:
        print(f"check_layers: {len(errors)} include(s) point up")
        return 1
    print("check_layers: every include of src/ points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
