#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The include graph of lib/, proto/ and pmd-glue/ follows the layers.

Inside lib/ every module has a layer (docs/design.md); a file may include
the headers of its own layer and those below, never above.  proto/ includes
nothing of lib/ or pmd-glue/ and no DPDK header; pmd-glue/ includes nothing
of lib/.  A header of lib/ that is not in the table below fails the test:
a new module must be given its layer.

    layers.py <source root>          check the tree
    layers.py --self-test <root>     check that the checker catches an
                                     upward include (on a copy of lib/)
"""
import os
import re
import shutil
import sys
import tempfile

LAYERS = [
    ("leaves", ["list", "mtab", "clock", "lock", "config", "stats",
                "request"]),
    ("board", ["board"]),
    ("partners", ["endpoint", "xmit", "naming"]),
    ("engine", ["connect", "recv", "send", "rndv", "reliable", "unexp",
                "match", "timers"]),
    ("progress", ["progress"]),
    ("api", ["api", "ext", "info", "init", "wait"]),
]
RANK = {m: i for i, (_, mods) in enumerate(LAYERS) for m in mods}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path):
    with open(path) as f:
        return INCLUDE.findall(f.read())


def sources(d, exts=(".c", ".h")):
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.endswith(exts))


def check(root):
    errors = []
    lib = os.path.join(root, "lib")
    lib_headers = {f for f in os.listdir(lib) if f.endswith(".h")}
    for path in sources(lib):
        mod = os.path.splitext(os.path.basename(path))[0]
        if mod not in RANK:
            errors.append(f"{path}: module '{mod}' has no layer "
                          "(tests/unit/layers.py)")
            continue
        for inc in includes(path):
            if inc not in lib_headers:
                continue        # proto/, pmd-glue/, public headers
            dep = os.path.splitext(inc)[0]
            if dep not in RANK:
                errors.append(f"{path}: includes unclassified {inc}")
            elif RANK[dep] > RANK[mod]:
                errors.append(
                    f"{path}: {LAYERS[RANK[mod]][0]} module '{mod}' "
                    f"includes {inc} of the {LAYERS[RANK[dep]][0]} layer "
                    "above it")
    for path in sources(os.path.join(root, "proto")):
        for inc in includes(path) + re.findall(
                r'#\s*include\s+<(rte_[^>]+)>', open(path).read()):
            if inc in lib_headers or inc.startswith("rte_") or \
                    inc in ("glue.h", "link.h", "fault.h"):
                errors.append(f"{path}: proto/ includes {inc}")
    for path in sources(os.path.join(root, "pmd-glue")):
        for inc in includes(path):
            if inc in lib_headers:
                errors.append(f"{path}: pmd-glue/ includes lib/{inc}")
    return errors


def self_test(root):
    tmp = tempfile.mkdtemp(prefix="mxd-layers.")
    try:
        for d in ("lib", "proto", "pmd-glue"):
            shutil.copytree(os.path.join(root, d), os.path.join(tmp, d))
        if check(tmp):
            print("self-test: the copy fails before any change")
            return 1
        victim = os.path.join(tmp, "lib", "board.c")
        with open(victim, "a") as f:
            f.write('\n#include "progress.h"\n')
        errs = check(tmp)
        if not any("board.c" in e and "progress.h" in e for e in errs):
            print("self-test: board.c including progress.h was not caught")
            return 1
        print("self-test: caught:", errs[0])
        return 0
    finally:
        shutil.rmtree(tmp)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--self-test":
        return self_test(sys.argv[2])
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    errs = check(sys.argv[1])
    for e in errs:
        print(e)
    if not errs:
        n = sum(len(m) for _, m in LAYERS)
        print(f"layers: {n} modules of lib/ in {len(LAYERS)} layers, "
              "no upward include")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
