#!/usr/bin/env bash
# Keeps README.md and docs/*.md true: every C example compiles against the
# installed library and runs, and every sample output is what the code prints.
#
# It installs fixstep into a scratch prefix (make install PREFIX=...), then
# reads README.md and docs/*.md and checks their fenced blocks. A fence must
# start at the beginning of a line; its first word names the kind:
#
#   ```c         A C example. A block containing `int main` is a whole program
#                and is compiled as it is. Any other block is a fragment: its
#                #include lines are moved to the top, after
#                  #include <fixstep/fixstep.h>, <inttypes.h>, <stdio.h>,
#                  <stdlib.h>, <string.h>
#                and the rest becomes the body of `int main(void)` (followed by
#                `return 0;`). Either way it is compiled with
#                  cc -std=c17 -Wall -Werror ... $(pkg-config --cflags --libs fixstep)
#                and run; it must exit with status 0.
#   ```c no-check
#                A C block that is not compiled (use sparingly: a declaration
#                that cannot stand alone).
#   ```output    What the nearest ```c block above it prints on stdout (text may
#                stand between them, another ```c block may not), compared line
#                by line as below.
#   ```console   Commands and their output. A line starting with "$ " is a
#                command, run by bash from the repository root; the lines after
#                it, up to the next "$ " line or the end of the block, are its
#                expected output (stdout and stderr together, line-buffered, so
#                in the order a terminal shows them). Compared line by line,
#                trailing blanks ignored; a line "..." matches any number of
#                lines (for long or timing-dependent output). The exit status
#                is not checked: show it with `; echo "exit $?"`.
#                In the commands, `fixstep` is build/fixstep, and $T is a
#                scratch directory, one per page, shared by the page's blocks in
#                order and emptied before the page: write files there. Where
#                the output names $T's path, write $T.
#   any other    (sh, text, ...) not checked: use ```sh for commands whose
#                output is not shown.
#
# Also: README.md has at most 250 lines, no page names a path under shared/,
# and every relative link of a page points to a file of the repository (and, with
# #anchor, to one of its headings).
# The README's first C example must leave its ball resting on the ground.
#
#   bash tools/check_docs.sh             everything
#   bash tools/check_docs.sh docs/faq.md   only the pages named (and the install)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
B=${BUILD:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
D=$B/docs-check
rm -rf "$D"
mkdir -p "$D/bin"
make --no-print-directory -s install PREFIX="$D/prefix" >/dev/null
export PKG_CONFIG_PATH="$D/prefix/lib/pkgconfig"
# the pages' programs link the shared library, as `pkg-config fixstep` says
export LD_LIBRARY_PATH="$D/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ln -s "$B/fixstep" "$D/bin/fixstep"
exec python3 - "$ROOT" "$D" "$@" <<'PY'
import difflib, glob, os, re, shlex, subprocess, sys

root, work, only = sys.argv[1], sys.argv[2], sys.argv[3:]
os.chdir(root)
pages = only or ["README.md"] + sorted(glob.glob("docs/*.md"))
cc = os.environ.get("CC", "cc")
pkg = shlex.split(subprocess.check_output(["pkg-config", "--cflags", "--libs", "fixstep"], text=True))
env = dict(os.environ)
env["PATH"] = os.path.join(work, "bin") + os.pathsep + env["PATH"]
failures = []
counts = {"c": 0, "skipped": 0, "output": 0, "commands": 0}
readme_y = None

PRELUDE = ["#include <fixstep/fixstep.h>", "#include <inttypes.h>", "#include <stdio.h>",
           "#include <stdlib.h>", "#include <string.h>"]


def fail(where, msg):
    failures.append(f"{where}: {msg}")
    print(f"FAIL {where}: {msg}", file=sys.stderr)


def blocks(text):
    """(line number, kind, info, lines) of every fenced block."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^```(\S*)(.*)$", lines[i])
        if not m:
            i += 1
            continue
        start, j = i + 1, i + 1
        while j < len(lines) and lines[j] != "```":
            j += 1
        out.append((start, m.group(1), m.group(2).strip(), lines[i + 1:j]))
        i = j + 1
    return out


def anchors(path):
    """The anchors GitHub makes of a page's headings."""
    out = set()
    if path.endswith(".md"):
        for h in re.findall(r"^#+ (.*)$", open(path, encoding="utf-8").read(), re.M):
            out.add(re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-"))
    return out


def match(expected, actual):
    """Line by line; a line '...' in expected matches any number of lines."""
    e = [l.rstrip() for l in expected]
    a = [l.rstrip() for l in actual]
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(e):
            r = j == len(a)
        elif e[i] == "...":
            r = any(go(i + 1, k) for k in range(j, len(a) + 1))
        else:
            r = j < len(a) and e[i] == a[j] and go(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return go(0, 0)


def show_diff(expected, actual):
    for l in difflib.unified_diff(expected, actual, "expected", "got", lineterm="", n=2):
        print("    " + l, file=sys.stderr)


def check_c(page, line, code, expected):
    global readme_y
    where = f"{page}:{line}"
    name = re.sub(r"[^A-Za-z0-9]", "_", page) + f"_{line}"
    src, exe = os.path.join(work, name + ".c"), os.path.join(work, name)
    if re.search(r"\bint\s+main\s*\(", "\n".join(code)):
        text = "\n".join(code) + "\n"
    else:
        inc = [l for l in code if l.startswith("#include")]
        body = [l for l in code if not l.startswith("#include")]
        text = "\n".join(PRELUDE + [l for l in inc if l not in PRELUDE] + ["", "int main(void)", "{"] + body
                         + ["return 0;", "}", ""])
    with open(src, "w") as f:
        f.write(text)
    r = subprocess.run([cc, "-std=c17", "-Wall", "-Werror", "-o", exe, src] + pkg,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        fail(where, f"does not compile ({src}):\n{r.stdout}")
        return
    r = subprocess.run([exe], cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    counts["c"] += 1
    if r.returncode != 0:
        fail(where, f"exits with status {r.returncode}:\n{r.stdout}{r.stderr}")
        return
    got = r.stdout.split("\n")
    if got and got[-1] == "":
        got.pop()
    if expected is not None:
        counts["output"] += 1
        if not match(expected, got):
            fail(where, "the program's output differs from the ```output block")
            show_diff(expected, got)
    if page == "README.md" and readme_y is None:
        m = re.search(r"y = (-?\d+) raw", r.stdout)
        readme_y = int(m.group(1)) if m else "missing"


def check_console(page, line, lines, tmp):
    cmds, cur = [], None
    for k, l in enumerate(lines):
        if l.startswith("$ "):
            cur = (line + k, l[2:], [])
            cmds.append(cur)
        elif cur is None:
            fail(f"{page}:{line + k}", "a console block must start with a '$ ' command")
            return
        else:
            cur[2].append(l)
    for n, cmd, expected in cmds:
        e = dict(env, T=tmp)
        r = subprocess.run(["stdbuf", "-oL", "-eL", "bash", "-c", cmd], cwd=root, env=e, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        out = r.stdout.decode("utf-8", "replace").replace(tmp, "$T")
        got = out.split("\n")
        if got and got[-1] == "":
            got.pop()
        counts["commands"] += 1
        if not match(expected, got):
            fail(f"{page}:{n}", f"`{cmd}` prints something else")
            show_diff(expected, got)


for page in pages:
    text = open(page, encoding="utf-8").read()
    tmp = os.path.join(work, "T_" + re.sub(r"[^A-Za-z0-9]", "_", page))
    subprocess.run(["rm", "-rf", tmp])
    os.makedirs(tmp)
    bs = blocks(text)
    for k, (line, kind, info, lines) in enumerate(bs):
        if kind == "c":
            if "no-check" in info.split():
                counts["skipped"] += 1
                continue
            expected = None
            for later in bs[k + 1:]:
                if later[1] == "c":
                    break
                if later[1] == "output":
                    expected = later[3]
                    break
            check_c(page, line, lines, expected)
        elif kind == "output":
            before = [b[1] for b in bs[:k] if b[1] in ("c", "output")]
            c_before = [b for b in bs[:k] if b[1] == "c"]
            if not c_before or "no-check" in c_before[-1][2].split() or before[-1] != "c":
                fail(f"{page}:{line}", "an ```output block that belongs to no checked ```c block")
        elif kind == "console":
            check_console(page, line, lines, tmp)
    # no path outside the repository, and relative links that resolve
    for n, l in enumerate(text.split("\n"), 1):
        if "shared/" in l:
            fail(f"{page}:{n}", "names a path under shared/ (outside the repository)")
        for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", l):
            if re.match(r"^[a-z]+:", target):
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(page), target)) if target else page
            if not os.path.exists(path):
                fail(f"{page}:{n}", f"links to {target}, which does not exist")
            elif anchor and anchor not in anchors(path):
                fail(f"{page}:{n}", f"links to {target}#{anchor}, a heading {path} does not have")

if "README.md" in pages:
    n = open("README.md", encoding="utf-8").read().count("\n")
    if n > 250:
        fail("README.md", f"{n} lines (at most 250)")
    # the README's example: the ball comes to rest on the ground, its centre at
    # the radius 0.5 m (32768 raw) within 1 mm
    if not isinstance(readme_y, int) or not 32702 <= readme_y <= 32834:
        fail("README.md", f"the example's ball at y = {readme_y} raw, expected about 32768")

print(f"check_docs: {len(pages)} pages: {counts['c']} C examples built against the installed library and run "
      f"({counts['skipped']} marked no-check), {counts['output']} program outputs and {counts['commands']} console "
      f"commands compared" + (f"; the README example's ball at y = {readme_y} raw" if isinstance(readme_y, int) else ""))
if not failures:
    print("check_docs: ok")
if failures:
    print(f"check_docs: {len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
PY
