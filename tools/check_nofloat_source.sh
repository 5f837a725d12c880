#!/usr/bin/env bash
# make nofloat, the sources' half: kernel/ and fixmath_glue/ (headers included,
# which -mgeneral-regs-only never sees unless a kernel file includes them) hold
# no float or double and call no libfixmath function (some of them keep caches
# or use floating point, depending on how libfixmath was built; the kernel
# needs only its fix16_t type and constants), comments aside; and the
# kernel's archive leaves no fix16_ symbol to be resolved.
#   tools/check_nofloat_source.sh LIBFIXSTEP.a
set -euo pipefail
python3 - kernel fixmath_glue <<'PY'
import os, re, sys
bad = []
for top in sys.argv[1:]:
    for d, _, files in os.walk(top):
        for n in sorted(files):
            if not n.endswith((".c", ".h")):
                continue
            p = os.path.join(d, n)
            src = open(p, encoding="utf-8").read()
            # drop comments and string literals, keeping line numbers
            code = re.sub(r"/\*.*?\*/|//[^\n]*|\"(\\.|[^\"\\\n])*\"",
                          lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
            for i, line in enumerate(code.split("\n"), 1):
                for m in re.finditer(r"\b(float|double)\b|\bfix16_(?!t\b)[a-z0-9_]+\s*\(", line):
                    bad.append(f"{p}:{i}: {m.group(0).strip()}")
if bad:
    print("nofloat: floating point or a libfixmath call in the kernel's sources:", *bad, sep="\n  ", file=sys.stderr)
    sys.exit(1)
PY
undef=$(nm -u "$1" 2>/dev/null | awk '$2 ~ /^fix16_/ {print $2}' | sort -u)
if [ -n "$undef" ]; then
    echo "nofloat: the kernel's archive calls libfixmath: $undef" >&2
    exit 1
fi
echo "nofloat: kernel/ and fixmath_glue/ sources: no float, no double, no libfixmath call"
