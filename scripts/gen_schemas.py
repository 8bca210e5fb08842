#!/usr/bin/env python3
"""Generates src/json/schemas_gen.cc: the field sets of every kind karp reads, for strict
decoding (unknown fields are errors, with the nearest known field suggested).

The field sets come from the published schemas, never typed by hand:
  - Kubernetes' OpenAPI document (swagger 2.0, every core and apps definition), as the
    Kubernetes Python client vendors it for one Kubernetes release;
  - the CustomResourceDefinitions of Karpenter (karpenter.sh NodePool and NodeClaim,
    karpenter.k8s.aws EC2NodeClass) at v1, and the older versions karp converts (v1beta1,
    v1alpha5 Provisioner, v1alpha1 AWSNodeTemplate), from the AWS provider's repository;
  - karp's own formats (the catalog): docs/schemas/*.schema.json in this repository.

The sources are read from git directories at pinned commits (SOURCES below), so the output is
reproducible:

  scripts/gen_schemas.py \\
      --git kubernetes-client/python=/path/to/python/.git \\
      --git aws/karpenter-provider-aws=/path/to/karpenter-provider-aws/.git \\
      -o src/json/schemas_gen.cc

A clone of each repository (with the pinned commits) is all it needs. What is kept of a schema
is its shape: objects and their property names, arrays, maps (additionalProperties) and
leaves (scalars, int-or-string, free-form objects, x-kubernetes-preserve-unknown-fields).
Types, formats and value rules stay with karp's decoders.
"""

import argparse
import json
import os
import subprocess
import sys

import yaml

K8S = ("kubernetes-client/python", "024658493d124f046fc0a9827a2a3165cf2aee28",
       "kubernetes/swagger.json.unprocessed", "Kubernetes release-1.36 OpenAPI (swagger 2.0)")
AWS = "aws/karpenter-provider-aws"
AWS_V1 = "1d927085dd81a9df9301e613f371dac5b4d16bfe"  # main, 2026-08-21 (after v1.14.1)
AWS_V1BETA1 = "a80b363bb82df94d63872408961b71e0719d7be2"  # v0.37.7
AWS_V1ALPHA5 = "e7e58c6aae40d3abbdeb18f50fade4e1f409b5d5"  # v0.31.4

# (apiVersion, kind) -> OpenAPI definition
K8S_ROOTS = [
    ("v1", "Pod", "io.k8s.api.core.v1.Pod"),
    ("v1", "Node", "io.k8s.api.core.v1.Node"),
    ("v1", "PersistentVolumeClaim", "io.k8s.api.core.v1.PersistentVolumeClaim"),
    ("v1", "PersistentVolume", "io.k8s.api.core.v1.PersistentVolume"),
    ("v1", "ReplicationController", "io.k8s.api.core.v1.ReplicationController"),
    ("v1", "LimitRange", "io.k8s.api.core.v1.LimitRange"),
    ("v1", "Service", "io.k8s.api.core.v1.Service"),
    ("apps/v1", "DaemonSet", "io.k8s.api.apps.v1.DaemonSet"),
    ("apps/v1", "Deployment", "io.k8s.api.apps.v1.Deployment"),
    ("apps/v1", "ReplicaSet", "io.k8s.api.apps.v1.ReplicaSet"),
    ("apps/v1", "StatefulSet", "io.k8s.api.apps.v1.StatefulSet"),
    ("batch/v1", "Job", "io.k8s.api.batch.v1.Job"),
    ("batch/v1", "CronJob", "io.k8s.api.batch.v1.CronJob"),
    ("policy/v1", "PodDisruptionBudget", "io.k8s.api.policy.v1.PodDisruptionBudget"),
    ("storage.k8s.io/v1", "StorageClass", "io.k8s.api.storage.v1.StorageClass"),
    ("storage.k8s.io/v1", "CSINode", "io.k8s.api.storage.v1.CSINode"),
]
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

# (repository, commit, path of the CRD, version) -> the root (group/version, kind)
CRD_ROOTS = [
    (AWS, AWS_V1, "pkg/apis/crds/karpenter.sh_nodepools.yaml", "v1"),
    (AWS, AWS_V1, "pkg/apis/crds/karpenter.sh_nodeclaims.yaml", "v1"),
    (AWS, AWS_V1, "pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml", "v1"),
    (AWS, AWS_V1, "pkg/apis/crds/karpenter.sh_nodeoverlays.yaml", "v1alpha1"),
    (AWS, AWS_V1BETA1, "pkg/apis/crds/karpenter.sh_nodepools.yaml", "v1beta1"),
    (AWS, AWS_V1BETA1, "pkg/apis/crds/karpenter.sh_nodeclaims.yaml", "v1beta1"),
    (AWS, AWS_V1BETA1, "pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml", "v1beta1"),
    (AWS, AWS_V1ALPHA5, "pkg/apis/crds/karpenter.sh_provisioners.yaml", "v1alpha5"),
    (AWS, AWS_V1ALPHA5, "pkg/apis/crds/karpenter.k8s.aws_awsnodetemplates.yaml", "v1alpha1"),
]

# karp's own formats: (name of the root, schema file in this repository)
KARP_ROOTS = [
    ("karp.catalog", "docs/schemas/catalog.schema.json"),
]


class Node:
    """A schema's shape: 'leaf', 'object' (fields), 'array' or 'map' (child)."""

    def __init__(self, shape, fields=None, child=None):
        self.shape, self.fields, self.child = shape, fields, child


LEAF = Node("leaf")


def git_show(gits, repo, commit, path):
    if repo not in gits:
        sys.exit(f"gen_schemas: no --git for {repo}")
    return subprocess.run(["git", "--git-dir", gits[repo], "show", f"{commit}:{path}"],
                          check=True, capture_output=True).stdout


class OpenApi:
    """Shapes of swagger 2.0 definitions (named: shared, cycles allowed)."""

    def __init__(self, definitions):
        self.defs, self.memo = definitions, {}

    def definition(self, name):
        if name not in self.memo:
            node = Node("leaf")
            self.memo[name] = node  # placeholder first: a definition may refer to itself
            shaped = self.shape(self.defs[name])
            node.shape, node.fields, node.child = shaped.shape, shaped.fields, shaped.child
        return self.memo[name]

    def shape(self, s):
        if "$ref" in s:
            return self.definition(s["$ref"].split("/")[-1])
        if "properties" in s:
            return Node("object", {k: self.shape(v) for k, v in s["properties"].items()})
        if s.get("type") == "array" and "items" in s:
            return Node("array", child=self.shape(s["items"]))
        if isinstance(s.get("additionalProperties"), dict):
            return Node("map", child=self.shape(s["additionalProperties"]))
        return LEAF


def structural(s, defs=None):
    """The shape of a structural (CRD, JSON Schema) schema; `defs` resolves local
    `#/$defs/<name>` references (karp's own schemas)."""
    if "$ref" in s:
        return structural(defs[s["$ref"].split("/")[-1]], defs)
    if s.get("x-kubernetes-preserve-unknown-fields") or s.get("x-kubernetes-int-or-string"):
        return LEAF
    if "properties" in s:
        return Node("object", {k: structural(v, defs) for k, v in s["properties"].items()})
    if s.get("type") == "array" and isinstance(s.get("items"), dict):
        return Node("array", child=structural(s["items"], defs))
    if isinstance(s.get("additionalProperties"), dict):
        return Node("map", child=structural(s["additionalProperties"], defs))
    return LEAF


def with_metadata(root, object_meta):
    """A CRD's root with `metadata` as Kubernetes' ObjectMeta (CRDs leave it free-form)."""
    if root.shape == "object" and "metadata" in root.fields:
        root.fields["metadata"] = object_meta
    return root


def crd_root(text, version):
    crd = yaml.safe_load(text)
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    for v in crd["spec"]["versions"]:
        if v["name"] == version:
            return f"{group}/{version}", kind, structural(v["schema"]["openAPIV3Schema"])
    sys.exit(f"gen_schemas: no version {version} in the CRD of {kind}")


class Emitter:
    """Numbers the distinct shapes (node 0 is the leaf) and writes them as C++ tables."""

    def __init__(self):
        self.ids, self.nodes, self.fields = {}, [], []
        self.key_of = {}
        self.intern(LEAF)

    def key(self, node, stack=()):
        # A structural key, so equal shapes share one entry; a cycle is keyed by identity.
        if id(node) in self.key_of:
            return self.key_of[id(node)]
        if node in stack:
            return f"cycle:{id(node)}"
        stack = stack + (node,)
        if node.shape == "leaf":
            k = "L"
        elif node.shape == "object":
            k = "O{" + ",".join(f"{n}:{self.key(c, stack)}" for n, c in sorted(node.fields.items())) + "}"
        else:
            k = node.shape[0].upper() + "(" + self.key(node.child, stack) + ")"
        if not any(s is node for s in stack[:-1]):
            self.key_of[id(node)] = k
        return k

    def intern(self, node):
        k = self.key(node)
        if k in self.ids:
            return self.ids[k]
        i = len(self.nodes)
        self.ids[k] = i
        self.nodes.append(None)
        if node.shape == "leaf":
            self.nodes[i] = ("kLeaf", 0, 0)
        elif node.shape == "object":
            names = sorted(node.fields)
            children = [self.intern(node.fields[n]) for n in names]
            first = len(self.fields)
            self.fields.extend(zip(names, children))
            self.nodes[i] = ("kObject", first, len(names))
        else:
            child = self.intern(node.child)
            self.nodes[i] = ("kArray" if node.shape == "array" else "kMap", child, 0)
        return i


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--git", action="append", default=[], metavar="REPO=GITDIR",
                    help="where a source repository's git directory is")
    ap.add_argument("--repo-root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    gits = dict(g.split("=", 1) for g in args.git)

    swagger = json.loads(git_show(gits, K8S[0], K8S[1], K8S[2]))
    api = OpenApi(swagger["definitions"])
    roots = [(av, kind, api.definition(d)) for av, kind, d in K8S_ROOTS]
    object_meta = api.definition(OBJECT_META)
    for repo, commit, path, version in CRD_ROOTS:
        av, kind, root = crd_root(git_show(gits, repo, commit, path), version)
        roots.append((av, kind, with_metadata(root, object_meta)))
    for name, path in KARP_ROOTS:
        with open(os.path.join(args.repo_root, path)) as f:
            schema = json.load(f)
        roots.append(("", name, structural(schema, schema.get("$defs", {}))))

    em = Emitter()
    root_ids = [(av, kind, em.intern(node)) for av, kind, node in roots]
    root_ids.sort()

    out = []
    w = out.append
    w("// Generated by scripts/gen_schemas.py; do not edit. The shapes of the kinds karp reads:")
    w(f"//   {K8S[3]}: {K8S[0]}@{K8S[1]} {K8S[2]}")
    for repo, commit, path, version in CRD_ROOTS:
        w(f"//   {version}: {repo}@{commit} {path}")
    for _, path in KARP_ROOTS:
        w(f"//   karp: {path}")
    w("")
    w('#include "json/schema.h"')
    w("")
    w("namespace karp::json::codec_internal {")
    w("")
    w(f"const SchemaField kSchemaFields[{max(1, len(em.fields))}] = {{")
    for name, child in em.fields:
        w(f'    {{"{name}", {child}}},')
    w("};")
    w("")
    w(f"const SchemaNode kSchemaNodes[{len(em.nodes)}] = {{")
    for shape, a, b in em.nodes:
        w(f"    {{SchemaShape::{shape}, {a}, {b}}},")
    w("};")
    w("")
    w(f"const SchemaRoot kSchemaRoots[{len(root_ids)}] = {{")
    for av, kind, i in root_ids:
        w(f'    {{"{av}", "{kind}", {i}}},')
    w("};")
    w("")
    w(f"const size_t kSchemaRootCount = {len(root_ids)};")
    w("")
    w("}  // namespace karp::json::codec_internal")
    text = "\n".join(out) + "\n"
    with open(args.output, "w") as f:
        f.write(text)
    print(f"gen_schemas: {len(root_ids)} kinds, {len(em.nodes)} shapes, {len(em.fields)} fields "
          f"-> {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
