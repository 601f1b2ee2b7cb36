#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""lib/, proto/ and pmd-glue/ follow their layers, by includes and by calls.

lib/ is six layers, one folder each (docs/design.md), lowest first:

    util  board  partners  engine  progress  api

and lib/portals/ (Portals 3.2) beside api, at its rank (BESIDE).

A file may include the headers of its own layer and those below, by path
("engine/send.h"), and may call functions of files of its own layer and
those below, never above.  No two files of lib/ call each other, however
indirectly: the calls between files form no cycle (nor do those of
pmd-glue/'s files).  proto/ includes and calls nothing of lib/ or
pmd-glue/ and no DPDK; pmd-glue/ nothing of lib/.

Includes are read from the sources.  Calls are read from the objects of a
build (nm: the symbols a file defines, and those it needs), so calls that
the preprocessor hides, or that a header declares for another file, are
seen too; inline functions of headers are the include check's.

    layers.py SRC BUILD               check the tree and its build
    layers.py --self-test SRC BUILD   plant an upward include, an upward
                                      call and a cycle, and show each is
                                      caught
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

LAYERS = ["util", "board", "partners", "engine", "progress", "api"]
RANK = {name: i for i, name in enumerate(LAYERS)}
# Folders at the rank of a layer, beside it: Portals 3.2 (lib/portals) is
# a public face as the MX API is, on the same layers below.
BESIDE = {"portals": "api"}
RANK.update({folder: RANK[layer] for folder, layer in BESIDE.items()})
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SYSTEM_DPDK = re.compile(r'^\s*#\s*include\s+<(rte_[^>]+)>', re.M)
GLUE_HEADERS = ("glue.h", "link.h", "fault.h", "log.h")


def includes(path):
    with open(path) as f:
        return INCLUDE.findall(f.read())


def sources(d, exts=(".c", ".h")):
    out = []
    for dirpath, _, files in os.walk(d):
        out += [os.path.join(dirpath, f) for f in files if f.endswith(exts)]
    return sorted(out)


def lib_module(root, path):
    """'engine/send' for lib/engine/send.c, None outside a layer folder."""
    rel = os.path.relpath(path, os.path.join(root, "lib"))
    parts = rel.split(os.sep)
    if len(parts) != 2 or parts[0] == "include":
        return None
    return parts[0] + "/" + os.path.splitext(parts[1])[0]


def check_includes(root):
    errors = []
    lib = os.path.join(root, "lib")
    lib_headers = {os.path.relpath(p, lib) for p in sources(lib, (".h",))}
    bare = {os.path.basename(h): h for h in lib_headers
            if not h.startswith("include" + os.sep)}
    for path in sources(lib):
        mod = lib_module(root, path)
        if mod is None:
            if not os.path.relpath(path, lib).startswith("include"):
                errors.append(f"{path}: not in a layer folder of lib/")
            continue
        layer = mod.split("/")[0]
        if layer not in RANK:
            errors.append(f"{path}: folder '{layer}' is not a layer "
                          "(tests/unit/layers.py)")
            continue
        for inc in includes(path):
            if inc in bare:
                errors.append(f"{path}: includes {inc} without its layer "
                              f"(write \"{bare[inc]}\")")
                continue
            if inc not in lib_headers:
                continue        # proto/, pmd-glue/, the public headers
            dep = inc.split("/")[0]
            if dep in RANK and RANK[dep] > RANK[layer]:
                errors.append(f"{path}: the {layer} layer includes {inc} "
                              f"of the {dep} layer above it")
    lib_names = {os.path.basename(h) for h in lib_headers}
    for path in sources(os.path.join(root, "proto")):
        with open(path) as f:
            text = f.read()
        for inc in INCLUDE.findall(text) + SYSTEM_DPDK.findall(text):
            if inc in lib_headers or inc in lib_names or \
                    inc.startswith("rte_") or inc in GLUE_HEADERS:
                errors.append(f"{path}: proto/ includes {inc}")
    for path in sources(os.path.join(root, "pmd-glue")):
        for inc in includes(path):
            if inc in lib_headers or (inc in lib_names and
                                      inc not in GLUE_HEADERS):
                errors.append(f"{path}: pmd-glue/ includes lib's {inc}")
    return errors


# ---- calls ---------------------------------------------------------------

def objects(build):
    """{module: object path} for lib/, proto/ and pmd-glue/ of a build,
    from its compile_commands.json; modules are 'engine/send',
    'proto/wire', 'glue/port'."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        cmds = json.load(f)
    out = {}
    for c in cmds:
        src = os.path.normpath(os.path.join(c["directory"], c["file"]))
        obj = os.path.join(c["directory"], c["output"])
        parts = src.split(os.sep)
        if "tests" in parts or "apps" in parts or "examples" in parts:
            continue
        for top, tag in (("lib", None), ("proto", "proto"),
                         ("pmd-glue", "glue")):
            if top in parts and "lib" + os.sep + "include" not in src:
                i = len(parts) - 1 - parts[::-1].index(top)
                rest = parts[i + 1:]
                name = os.path.splitext("/".join(rest))[0]
                mod = name if tag is None else tag + "/" + name
                if tag is None and len(rest) != 2:
                    continue
                out[mod] = (obj, c)
                break
    return out


def symbols(obj):
    """(defined, undefined) global symbols of an object file."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRVWGS":
            defined.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            undefined.add(f[1])
    return defined, undefined


def call_graph(objs):
    """{caller module: {callee module: [symbols]}}."""
    syms = {m: symbols(o) for m, (o, _) in objs.items()}
    owner = {}
    for m, (defined, _) in syms.items():
        for s in defined:
            owner[s] = m
    graph = collections.defaultdict(lambda: collections.defaultdict(list))
    for m, (_, undefined) in syms.items():
        for s in sorted(undefined):
            if s in owner and owner[s] != m:
                graph[m][owner[s]].append(s)
    return graph


def rank(mod):
    top = mod.split("/")[0]
    if top == "glue":
        return -1
    if top == "proto":
        return -2
    return RANK.get(top)


def cycles(graph):
    """The strongly connected components of more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_calls(objs):
    errors = []
    graph = call_graph(objs)
    for caller in sorted(graph):
        for callee, syms in sorted(graph[caller].items()):
            rc, re_ = rank(caller), rank(callee)
            if rc is None or re_ is None:
                errors.append(f"{caller} -> {callee}: not in a layer")
            elif re_ > rc:
                errors.append(f"{caller} calls {callee}, a layer above it: "
                              + ", ".join(syms[:4]))
            elif rc < 0 and re_ != rc:
                errors.append(f"{caller} calls {callee}: "
                              + ", ".join(syms[:4]))
    for comp in cycles(graph):
        path = " <-> ".join(comp)
        detail = "; ".join(f"{a} -> {b}: {graph[a][b][0]}"
                           for a in comp for b in comp if b in graph[a])
        errors.append(f"a cycle of calls between {path} ({detail})")
    return errors, graph


# ---- self-test -----------------------------------------------------------

def plant_object(objs, mod, code, tmp):
    """Recompiles mod's source with 'code' appended, with the build's own
    command, into tmp; returns a copy of objs with the planted object."""
    obj, cmd = objs[mod]
    src = os.path.normpath(os.path.join(cmd["directory"], cmd["file"]))
    planted_src = os.path.join(tmp, os.path.basename(src))
    planted_obj = os.path.join(tmp, os.path.basename(obj))
    with open(src) as f, open(planted_src, "w") as g:
        g.write(f.read() + "\n" + code + "\n")
    line = cmd["command"].split()
    line = [planted_obj if a == cmd["output"] else
            planted_src if a == cmd["file"] else a for a in line]
    # -MD/-MF write a depfile beside the object: keep it in tmp too.
    line = [os.path.join(tmp, "planted.d") if i > 0 and line[i - 1] == "-MF"
            else a for i, a in enumerate(line)]
    subprocess.run(line, cwd=cmd["directory"], check=True)
    out = dict(objs)
    out[mod] = (planted_obj, cmd)
    return out


def self_test(root, build):
    tmp = tempfile.mkdtemp(prefix="mxd-layers.")
    try:
        # An upward include, in a copy of the tree.
        for d in ("lib", "proto", "pmd-glue"):
            shutil.copytree(os.path.join(root, d), os.path.join(tmp, d))
        if check_includes(tmp):
            print("self-test: the copy fails before any change")
            return 1
        with open(os.path.join(tmp, "lib", "board", "board.c"), "a") as f:
            f.write('\n#include "progress/progress.h"\n')
        errs = check_includes(tmp)
        if not any("board.c" in e and "progress/progress.h" in e
                   for e in errs):
            print("self-test: board.c including progress.h not caught")
            return 1
        print("self-test: caught:", errs[0])
        objs = objects(build)
        if check_calls(objs)[0]:
            print("self-test: the build fails before any change")
            return 1
        # An upward call: the board calls the progress pass.
        up = plant_object(objs, "board/board", '#include "progress/progress.h"\n'
                          "void mxd_planted_up(void);\n"
                          "void mxd_planted_up(void) { mxd_progress_any(); }",
                          tmp)
        errs = check_calls(up)[0]
        if not any(e.startswith("board/board calls progress/progress")
                   for e in errs):
            print("self-test: board calling progress was not caught:", errs)
            return 1
        print("self-test: caught:", errs[0])
        # A cycle inside a layer: match (called by recv) calls recv.
        cyc = plant_object(objs, "engine/match", '#include "engine/recv.h"\n'
                           "void mxd_planted_cycle(void);\n"
                           "void mxd_planted_cycle(void) "
                           "{ mxd_recv_post(NULL); }", tmp)
        errs = check_calls(cyc)[0]
        if not any(e.startswith("a cycle") and "engine/match" in e and
                   "engine/recv" in e for e in errs):
            print("self-test: the cycle match <-> recv was not caught:",
                  errs)
            return 1
        print("self-test: caught:", [e for e in errs
                                      if e.startswith("a cycle")][0])
        return 0
    finally:
        shutil.rmtree(tmp)


def main():
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "--self-test":
        return self_test(args[1], args[2])
    if len(args) != 2:
        print(__doc__)
        return 2
    root, build = args
    errs = check_includes(root)
    call_errs, graph = check_calls(objects(build))
    errs += call_errs
    for e in errs:
        print(e)
    if not errs:
        mods = {m for m in graph} | {c for m in graph for c in graph[m]}
        lib = sorted(m for m in mods if rank(m) is not None and rank(m) >= 0)
        edges = sum(len(graph[m]) for m in graph)
        beside = "".join(f", {f} beside {l}" for f, l in BESIDE.items())
        print(f"layers: {len(lib)} files of lib/ in {len(LAYERS)} layers "
              f"({', '.join(LAYERS)}{beside}); {edges} calling pairs among "
              "lib/, proto/ and pmd-glue/: none upward, no cycle; no "
              "upward include")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
