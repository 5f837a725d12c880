#!/usr/bin/env bash
# The kernel's include order (docs/architecture.md): a header under
# kernel/src/ includes headers of its own folder, of the folders before it
# in ORDER, and the leaf headers, which include no kernel/src header at all.
# Source files (.c) may include any header: they are the calls between the
# stages (world/step.c runs them all). Exits 1, naming each include that
# breaks the order.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ORDER="simd geometry world broadphase collide island solve joint character query state"
LEAVES="state/serialize.h solve/lcp_stats.h"
rank() { local i=0; for d in $ORDER; do [ "$d" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo -1; }
bad=0 n=0
for d in kernel/src/*/; do
    d=${d%/}; d=${d#kernel/src/}
    [ "$(rank "$d")" -ge 0 ] || { echo "check_includes: kernel/src/$d is not in the order (tools/check_includes.sh, docs/architecture.md)"; bad=1; }
done
for f in kernel/src/*/*.h; do
    rel=${f#kernel/src/}; dir=${rel%%/*}
    while read -r inc; do
        idir=${inc%%/*}
        [ -d "kernel/src/$idir" ] || continue
        n=$((n + 1))
        if [[ " $LEAVES " == *" $rel "* ]]; then
            echo "check_includes: $rel is a leaf header but includes $inc"; bad=1; continue
        fi
        [ "$idir" = "$dir" ] && continue
        [[ " $LEAVES " == *" $inc "* ]] && continue
        if [ "$(rank "$idir")" -gt "$(rank "$dir")" ]; then
            echo "check_includes: $rel includes $inc: $idir comes after $dir"; bad=1
        fi
    done < <(sed -n 's/^#include "\([a-z_0-9]*\/[a-z_0-9]*\.h\)".*/\1/p' "$f")
done
[ "$bad" = 0 ] && echo "check_includes: the kernel's $n includes between headers keep the order ($ORDER)"
exit "$bad"
