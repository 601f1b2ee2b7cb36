#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The tree's text speaks of the software, not of how the work was organised.

A comment, a test's description, a script's message or a document says
what is required or what was measured ("target: at most 1.15x DPDK's own
ping-pong"), never which numbered piece of the work asked for it: a reader
has no way to look such numbers up, and they go stale.  These fail:

  - an ordinal ("first" to "twentieth", the -teenth words, "1st", "2nd",
    "17th", ...) or one of "this", "that", "previous", "last", "next",
    "earlier", "later", right before the word session (any case; also its
    plural and possessive): the protocol's sessions are spoken of as the
    peer's, an endpoint's, a new or an old one, a stale one, the one a
    NACK names, never by these words, unless the words after it say
    whose session it is ("an earlier one of the peer": the word session
    then "of" and the peer, an endpoint, a partner, ...);
  - the word issue or issues followed by a number ("#" allowed), or with
    the number joined to it (directly, by a hyphen or an underscore: a
    test's or a branch's name);
  - the word item or items followed by a number;
  - and, narrowly, the word session followed by a number from 1 to 99:
    session 0 (none, or any) and a session id in hex stay legitimate.

Between the two parts of a form there may be blanks, quotes, backquotes
and backslashes (a string literal cut in two, a continued line), before
the word session also hyphens and emphasis stars, and one line break
followed by a comment leader (#, *, //, --): a form wrapped across two
lines of a comment is caught too.  Code such as next->session or item * 2
is not.

The files are those git tracks under the source root (git ls-files); when
the root is not the top of a git checkout, every file below it, except in
version control and cache directories (.git, __pycache__, ...) and build
directories (build*, or any holding meson-private).  Skipped: binary
files (a NUL byte, or not UTF-8), captures and images (*.pcap, *.png,
...), the fuzz corpus (a path with a directory named corpus).  This file
is checked like any other: its patterns and the self-test's examples are
built from parts, so that no form appears whole in its text.

    words.py <source root>    exit 0: clean; 1: each hit as file:line:text;
                              77: nothing to check (the reason printed)
    words.py --self-test      each form planted in a scratch tree is
                              caught, legitimate protocol phrases and code
                              are not, the skip rules hold, and this file
                              is clean
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The words the patterns are made of, cut in two (see above).
SESSION = "sess" + "ion"
ISSUE = "iss" + "ue"
ITEM = "it" + "em"

ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth",
            "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth",
            "twentieth"]
TEENS = ["thir", "four", "fif", "six", "seven", "eigh", "nine"]
DEICTIC = ["this", "that", "previous", "last", "next", "earlier", "later"]

ORD_RE = "|".join(ORDINALS + DEICTIC +
                  [r"[a-z]+" + "teenth", r"[0-9]+(?:st|nd|rd|th)"])
# The gap between the two parts of a form.  Inside a line: blanks,
# hyphens, quotes, backquotes, emphasis stars, a string literal's escaped
# newline or tab, a backslash that continues a line of shell or C.  Then
# at most one line break, the next line's indentation and comment leader,
# and the same again.  Before a number, no star or hyphen: item * 2 is
# code.
_LEADER = r"(?:\n[ \t]*(?:#+|/\*+|\*+|//+|--+)?"
_IN_LINE = r"""(?:[ \t"'`*-]|\\[ntr]?)*"""
GAP_WORD = _IN_LINE + _LEADER + _IN_LINE + ")?"
_IN_LINE_NUM = r"""(?:[ \t"'`]|\\[ntr]?)*"""
GAP_NUM = _IN_LINE_NUM + _LEADER + _IN_LINE_NUM + ")?#?"

# Whose session it is, when the words after it say so: "an earlier
# session of the peer" (docs/wire.md) is the protocol's; the work's were
# never a peer's, an endpoint's or a partner's.
PARTY = (r"(?!" + GAP_WORD + r"of\b" + GAP_WORD +
         r"(?:(?:the|a|an|its|their|each|every|one|that|this)\b" +
         GAP_WORD + r")?(?:peer|endpoint|partner|remote|sender|receiver)" +
         r"s?\b)")

PATTERNS = [
    ("ordinal or deictic word before " + SESSION,
     re.compile(r"\b(?:" + ORD_RE + r")\b" + GAP_WORD + SESSION +
                r"(?:s|['\u2019]s|s['\u2019])?\b" + PARTY, re.I)),
    (ISSUE + " number",
     re.compile(r"(?<![a-z0-9])" + ISSUE + r"s?(?:[-_]?[0-9]|\b" +
                GAP_NUM + r"[0-9])", re.I)),
    (ITEM + " number",
     re.compile(r"\b" + ITEM + r"s?\b" + GAP_NUM + r"[0-9]+", re.I)),
    (SESSION + " number",
     re.compile(r"\b" + SESSION + r"s?\b" + GAP_NUM + r"[1-9][0-9]?\b",
                re.I)),
]

SKIP_EXT = (".pcap", ".pcapng", ".png", ".jpg", ".jpeg", ".gif", ".ico",
            ".pdf", ".gz", ".xz", ".bz2", ".zst", ".zip", ".tar", ".o",
            ".a", ".so")


def skipped_path(rel):
    parts = rel.replace(os.sep, "/").split("/")
    return "corpus" in parts[:-1] or rel.lower().endswith(SKIP_EXT)


def read_text(path):
    """The file's text, or None for a binary file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data[:65536]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def scan_text(text):
    """(line number, what, text of the lines) of every hit."""
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    lines = text.split("\n")
    hits = []
    for what, pat in PATTERNS:
        for m in pat.finditer(text):
            first = _line_of(starts, m.start())
            last = _line_of(starts, max(m.start(), m.end() - 1))
            shown = " ".join(lines[i].strip() for i in range(first, last + 1))
            hits.append((first + 1, what, shown))
    return sorted(set(hits))


def _line_of(starts, off):
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= off:
            lo = mid
        else:
            hi = mid - 1
    return lo


def git_env():
    """The environment for git, without the GIT_* variables (GIT_DIR, ...)
    that would point it at another repository than the one asked for."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def git_files(root):
    """The tracked files under root, or None when root is not the top of
    a git checkout (or git is missing)."""
    try:
        top = subprocess.run(["git", "-C", root, "rev-parse",
                              "--show-toplevel"], capture_output=True,
                             text=True, env=git_env())
        if top.returncode != 0 or \
                os.path.realpath(top.stdout.strip()) != \
                os.path.realpath(root):
            return None
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                             capture_output=True, env=git_env())
    except OSError:
        return None
    if out.returncode != 0:
        return None
    return [p for p in out.stdout.decode("utf-8", "replace").split("\0")
            if p]


NOT_SOURCE = {".git", ".hg", ".svn", "__pycache__", ".cache",
              ".mypy_cache", ".pytest_cache"}


def walk_files(root):
    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(
            x for x in dirs if x not in NOT_SOURCE and
            not x.startswith("build") and
            not os.path.isdir(os.path.join(d, x, "meson-private")))
        for n in sorted(names):
            files.append(os.path.relpath(os.path.join(d, n), root))
    return files


def check(root):
    """(files read, hits as 'file:line:text'), how the files were found."""
    rels = git_files(root)
    how = "git ls-files"
    if rels is None:
        rels, how = walk_files(root), "every file (not a git checkout)"
    nread, hits = 0, []
    for rel in rels:
        path = os.path.join(root, rel)
        if skipped_path(rel) or os.path.islink(path) or \
                not os.path.isfile(path):
            continue
        text = read_text(path)
        if text is None:
            continue
        nread += 1
        for line, what, shown in scan_text(text):
            hits.append(f"{rel}:{line}:{shown}  [{what}]")
    return nread, hits, how


def self_test():
    fails = []
    me = os.path.abspath(__file__)
    with open(me, encoding="utf-8") as f:
        own = scan_text(f.read())
    if own:
        fails.append(f"this file trips itself: {own}")

    S, I, T = SESSION, ISSUE, ITEM
    teen = [t + "teenth" for t in TEENS]
    words = ORDINALS + teen + ["1st", "2nd", "3rd", "17th", "21st"] + DEICTIC
    bad = []
    for w in words:
        bad.append(f"# the {w} {S}'s work")
    bad += [
        f"# The Seventh {S.upper()}: what it changed",
        f"# both {DEICTIC[4]} {S}s",
        f"# the {ORDINALS[9]}-{S} figures",
        f" * measured after the {teen[4]}",                    # wrapped:
        f" * {S} (2026), below",                               # caught above
        f"print(\"before {DEICTIC[0]} \"",
        f"      \"{S}'s change\")",
        f"# ({I} 15, {T} 5)",
        f"# {I.capitalize()}s 13 and 14",
        f"# see {I} #4",
        f"/* a context too ({I} 19.4) */",
        f"# that is {I}",
        f"# 19's target",
        f"# {T}s 2 and 6 of the list",
        f"# the {S} 12 run",
        f"msg = \"{I} \" \\",
        f"      \"15\"",
        f"# the {DEICTIC[5]} {S} of the work",
        f"test('{I}15-soak', ...)",
        f"# on branch {I}-19 and in test_{I}_13",
    ]
    # The line each planted form must be reported on (1-based).
    want = list(range(1, len(words) + 1))
    n = len(words)
    want += [n + 1, n + 2, n + 3, n + 4, n + 6, n + 8, n + 9, n + 10,
             n + 11, n + 12, n + 14, n + 15, n + 16, n + 18, n + 19,
             n + 20]
    good = [
        "# the peer's " + S + " and epoch",
        "# a new " + S + "; an old " + S + "'s frames are refused",
        "# its " + S + ", the " + S + " id, the endpoint's " + S,
        "# a stale " + S + ", same " + S + "s on both sides",
        "# the last ack of a " + S + " lost",
        "# the first frame of a new " + S,
        "# a NACK only fails sends to the " + S + " it names",
        "\tuint32_t dst_" + S + ";\t/* 0: any " + S + " */",
        "# " + S + " 0 is none; " + S + " 0x7cf99667",
        "\tq = p->next->" + S + "; r = this->" + S + "_id;",
        "\tn = " + T + " * 2 + " + T + "s[3];",
        "\tmx_" + I + "(3); rc = re" + I + " (4); mx_" + I + "send(7);",
        "\tn = " + T + "1 + " + T + "_2; " + S + "2 = " + S + "_3;",
        "# the " + S + "s, then " + I + "s of layout; an " + T,
        "# last,",
        "# a refusal of frames meant for an " + DEICTIC[5],
        "# " + S + " of the peer is stale; the " + ORDINALS[0] + " " + S +
        " of an endpoint",
        "\t" + S + " = 5;",
    ]
    tmp = tempfile.mkdtemp(prefix="mxd-words.")
    try:
        with open(os.path.join(tmp, "bad.txt"), "w") as f:
            f.write("\n".join(bad) + "\n")
        with open(os.path.join(tmp, "good.c"), "w") as f:
            f.write("\n".join(good) + "\n")
        planted = f"# {I} 1\n"
        for rel in ("capture.pcap", "plot.png",
                    os.path.join("fuzz", "corpus", "ack"),
                    os.path.join("build-x", "log.txt")):
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)) or tmp,
                        exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(planted)
        with open(os.path.join(tmp, "blob.bin"), "wb") as f:
            f.write(b"\0\1" + planted.encode())

        nread, hits, how = check(tmp)
        got = {}
        for h in hits:
            rel, line = h.split(":")[:2]
            got.setdefault(rel, set()).add(int(line))
        missed = [(i, bad[i - 1]) for i in want
                  if i not in got.get("bad.txt", set())]
        extra = sorted(got.get("bad.txt", set()) - set(want))
        for i, text in missed:
            fails.append(f"not caught: bad.txt:{i}: {text}")
        for i in extra:
            fails.append(f"caught where nothing was planted: bad.txt:{i}")
        for h in hits:
            if not h.startswith("bad.txt:"):
                fails.append(f"a legitimate or skipped file tripped: {h}")
        if nread != 2:
            fails.append(f"{nread} files read, not 2 (bad.txt, good.c): "
                         "a skip rule does not hold")
        print(f"self-test ({how}): {len(want)} planted forms, "
              f"{len(want) - len(missed)} caught; {len(good)} legitimate "
              "lines and 5 skipped files, "
              f"{sum(not h.startswith('bad.txt:') for h in hits)} hits")

        # Under git, only tracked files count.
        if shutil.which("git"):
            env = dict(git_env(), GIT_CONFIG_NOSYSTEM="1",
                       GIT_CONFIG_GLOBAL=os.devnull)
            r = subprocess.run(["git", "init", "-q", tmp], env=env,
                               capture_output=True)
            r2 = subprocess.run(["git", "-C", tmp, "add", "good.c",
                                 "bad.txt"], env=env, capture_output=True)
            if r.returncode == 0 and r2.returncode == 0:
                nread, hits2, how = check(tmp)
                if how != "git ls-files" or nread != 2 or \
                        sorted(hits2) != sorted(hits):
                    fails.append(f"under git: {how}, {nread} files read, "
                                 f"{len(hits2)} hits, not the same")
                else:
                    print(f"self-test (git ls-files): the same "
                          f"{len(hits2)} hits; untracked files not read")
            else:
                print("self-test: git init failed here; the git mode "
                      "was not tried")
    finally:
        shutil.rmtree(tmp)
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    root = sys.argv[1]
    if not os.path.isdir(root):
        print(f"skip: {root} is not a directory")
        return 77
    nread, hits, how = check(root)
    if nread == 0:
        print(f"skip: no text file found under {root} ({how})")
        return 77
    for h in hits:
        print(h)
    if hits:
        print(f"words: {len(hits)} hits ({nread} files read, {how}): say "
              "the requirement or the fact itself, not which piece of the "
              "work asked for it (tests/unit/words.py)")
        return 1
    print(f"words: {nread} files ({how}), none speaks of how the work "
          "was organised")
    return 0


if __name__ == "__main__":
    sys.exit(main())
