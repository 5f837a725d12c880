#!/usr/bin/env bash
# Cross-architecture determinism check (`make crosscheck`).
#
# Builds the fixstep program for nine targets (x86-64 gcc -O0/-O2/-O3 -march=native,
# clang -O2, i686 static, aarch64 and s390x static under qemu-user, wasm32 via Debian's
# emscripten in node, portable and with SIMD128: wasm32-simd128), runs every built-in scene for $STEPS steps (default 600) on each,
# prints one table scene x target -> final hash, and exits non-zero if any cell differs
# from the x86-64 gcc -O2 cell or any target failed to build or run.
#
#   tools/crosscheck.sh                 the scene table (scenes, settle and event digests, the corpus)
#   tools/crosscheck.sh each ARGS...    run `fixstep ARGS...` on every target and compare
#                                       the last line of output (e.g. a replay verify)
#   TARGETS="gcc-O2 s390x" tools/crosscheck.sh    only some targets
#   STEPS=1000 BUDGET=0 tools/crosscheck.sh        every scene exactly 1000 steps
#
# On aarch64 (whose NEON kernels run only under qemu here) and wasm32-simd128 (the SIMD128
# kernels, under node) the test program is built too and its vector-kernel tests
# (tests/test_batch.c, np_box_tests_vector, np_recycle_vector, integrate_vector) must pass.
#
# Cross sysroots (Debian's libfixmath-dev, libxxhash-dev and libsodium-dev of each
# architecture, and libfixmath built from Debian's source package with emcc for wasm32)
# are cached under build/x/; missing toolchains are installed with apt-get when run as
# root. The wasm32 program is built without its networked sessions (SESSIONS=0: no
# UDP under node); the wasm32 sysroot has libsodium all the same (compiled with emcc
# from Debian's source package), for the npm package's sessions (bindings/js/build.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
X=build/x
STEPS=${STEPS:-600}
# Seconds of x86-64 gcc -O2 time a scene may take; a scene that needs more runs for fewer
# steps (STEPS halved until it fits, at least MIN_STEPS), so that the slow targets
# (qemu: 5-7x, gcc -O0: 3.5x) keep CI short. BUDGET=0: every scene runs exactly STEPS.
BUDGET=${BUDGET:-5}
MIN_STEPS=${MIN_STEPS:-30}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
ALL_TARGETS="gcc-O0 gcc-O2 gcc-O3-native clang-O2 i686 aarch64 s390x wasm32 wasm32-simd128"
TARGETS=${TARGETS:-$ALL_TARGETS}
REF=gcc-O2
case " $TARGETS " in *" $REF "*) ;; *) REF=${TARGETS%% *} ;; esac
export DEBIAN_FRONTEND=noninteractive

# Progress, by the rules of the program's own bar (tools/cli/progress.h): drawn only
# when stdout is a terminal (FIXSTEP_PROGRESS=1 draws it anywhere, =0 never), at most
# ten times a second, and erased when done, so pipes and CI logs never see it.
case ${FIXSTEP_PROGRESS:-} in
    1) PROGRESS=1 ;; 0) PROGRESS=0 ;; *) if [ -t 1 ]; then PROGRESS=1; else PROGRESS=0; fi ;;
esac
progress_draw() { # WHAT DONE TOTAL UNITS
    [ "$PROGRESS" = 1 ] && [ "$3" -gt 0 ] || return 0
    local fill=$(($2 * 40 / $3)) bar
    bar=$(printf '%*s' "$fill" '' | tr ' ' '#')$(printf '%*s' $((40 - fill)) '' | tr ' ' '.')
    printf '\r%s [%s] %d/%d %s %3d%%' "$1" "$bar" "$2" "$3" "$4" $(($2 * 100 / $3))
}
progress_end() { [ "$PROGRESS" = 1 ] && printf '\r\033[K'; return 0; }
say() { [ "$PROGRESS" = 1 ] && printf '\r\033[K' >&2; printf 'crosscheck: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }
is_root() { [ "$(id -u)" = 0 ]; }

# ---------------------------------------------------------------- toolchains
# target -> debian arch and GNU triplet of the cross targets
deb_arch() { case $1 in i686) echo i386 ;; aarch64) echo arm64 ;; s390x) echo s390x ;; esac; }
triplet() { case $1 in i686) echo i386-linux-gnu ;; aarch64) echo aarch64-linux-gnu ;; s390x) echo s390x-linux-gnu ;; esac; }
cross_cc() { case $1 in i686) echo i686-linux-gnu-gcc ;; aarch64) echo aarch64-linux-gnu-gcc ;; s390x) echo s390x-linux-gnu-gcc ;; esac; }

APT_UPDATED=0
apt_update_once() {
    [ "$APT_UPDATED" = 1 ] && return 0
    say "apt-get update"
    # A mirror mid-sync can fail one index; retry, then go on (later checks catch real gaps).
    mkdir -p "$X"
    apt-get update -qq >"$X/apt-update.log" 2>&1 || { sleep 5; apt-get update -qq >"$X/apt-update.log" 2>&1; } \
        || say "warning: apt-get update reported errors (see $X/apt-update.log); going on with the lists it has"
    APT_UPDATED=1
}

# The Debian packages target $1 needs (the cross libc comes with the compiler only as a
# Recommends, so it is named here).
target_packages() {
    case $1 in
        gcc-*) echo gcc libc6-dev make ;;
        clang-*) echo clang libc6-dev make ;;
        i686) echo gcc-i686-linux-gnu libc6-dev-i386-cross ;;
        aarch64) echo gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static ;;
        s390x) echo gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user-static ;;
        wasm32|wasm32-simd128) echo emscripten node-acorn nodejs libxxhash-dev patch xz-utils autoconf automake libtool ;;
        *) die "unknown target '$1' (targets: $ALL_TARGETS)" ;;
    esac
}
installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q ' installed$'; }
missing_packages() {
    local t p
    for t in $TARGETS; do for p in $(target_packages "$t"); do installed "$p" || echo "$p"; done; done | sort -u | tr '\n' ' '
}

# A deb-src line for this Debian release's main archive, derived from the apt sources
# already configured (one-line or deb822 format), so no mirror is hard-coded here.
deb_src_line() {
    local c f; c=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$c" ] || return 1
    {
        cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk -v c="$c" '
            $1 == "deb" { i = 2; o = ""
                if ($2 ~ /^\[/) { while (i < NF && $i !~ /\]$/) { o = o " " $i; i++ } o = o " " $i; i++ }
                if ($(i + 1) == c) { print "deb-src" o, $i, c, "main"; exit } }'
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] || continue
            awk -v c="$c" 'BEGIN { RS = ""; FS = "\n" }
                { t = ""; u = ""; s = ""; k = ""
                  for (i = 1; i <= NF; i++) { if ($i ~ /^#/) continue
                      split($i, kv, /:[ \t]*/); v = substr($i, length(kv[1]) + 2); sub(/^[ \t]+/, "", v)
                      if (kv[1] == "Types") t = v; else if (kv[1] == "URIs") u = v
                      else if (kv[1] == "Suites") s = v; else if (kv[1] == "Signed-By") k = v }
                  if (index(" " t " ", " deb ") && index(" " s " ", " " c " ") && u != "") {
                      split(u, us, /[ \t]+/); print "deb-src" (k != "" ? " [signed-by=" k "]" : ""), us[1], c, "main"; exit } }' "$f"
        done
    } | sed -n 1p
}

# Makes apt able to fetch what the missing sysroots need: the foreign architectures
# (dpkg --add-architecture) and, for wasm32, a deb-src line. Needs no package lists.
# Sets APT_CHANGED=1 when it changed something (an apt-get update is then due).
APT_CHANGED=0
apt_sources() {
    local t arch line
    for t in $TARGETS; do
        case $t in
            i686|aarch64|s390x)
                arch=$(deb_arch "$t")
                sysroot_done "$t" && continue
                dpkg --print-architecture | grep -qx "$arch" && continue
                dpkg --print-foreign-architectures | grep -qx "$arch" && continue
                is_root || die "$t needs Debian's $arch libraries; run:  sudo dpkg --add-architecture $arch && sudo apt-get update"
                say "dpkg --add-architecture $arch"; dpkg --add-architecture "$arch"; APT_CHANGED=1 ;;
            wasm32|wasm32-simd128)
                wasm_sysroot_done && continue
                grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/ && continue
                is_root || die "wasm32 needs libfixmath's Debian source: add a deb-src line for your Debian archive, then  sudo apt-get update"
                line=$(deb_src_line) || true
                [ -n "$line" ] || die "cannot derive a deb-src line from /etc/apt/sources.list*"
                say "adding '$line' to /etc/apt/sources.list.d/fixstep-deb-src.list"
                echo "$line" >/etc/apt/sources.list.d/fixstep-deb-src.list; APT_CHANGED=1 ;;
        esac
    done
}

# Everything the selected targets need, with at most one apt-get update.
setup() {
    local missing t arch stale=0
    apt_sources
    missing=$(missing_packages)
    for t in $TARGETS; do
        case $t in
            i686|aarch64|s390x) arch=$(deb_arch "$t"); sysroot_done "$t" && continue
                apt-cache show "libfixmath-dev:$arch" "libsodium-dev:$arch" >/dev/null 2>&1 || stale=1 ;;
            wasm32|wasm32-simd128) wasm_sysroot_done && continue
                apt-get source -qq --print-uris libfixmath libsodium 2>/dev/null | grep -c orig | grep -qx 2 || stale=1 ;;
        esac
    done
    if [ -n "${missing// /}" ] || [ "$APT_CHANGED" = 1 ] || [ "$stale" = 1 ]; then
        is_root || die "missing:${missing:- (package lists out of date)}; run:  sudo apt-get update && sudo apt-get install -y $missing"
        apt_update_once
    fi
    if [ -n "${missing// /}" ]; then
        say "installing $missing"
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing >/dev/null || die "apt-get install $missing failed"
    fi
    for t in $TARGETS; do
        case $t in
            i686|aarch64|s390x) ensure_sysroot "$t" ;;
            wasm32|wasm32-simd128) ensure_wasm_sysroot ;;
        esac
    done
}

# ---------------------------------------------------------------- sysroots
# build/x/sysroot/ARCH: Debian's libfixmath-dev, libxxhash-dev and libsodium-dev for
# ARCH, unpacked (a sysroot made before libsodium was needed is made again).
sysroot_done() {
    local arch trip; arch=$(deb_arch "$1"); trip=$(triplet "$1")
    [ -f "$X/sysroot/$arch/.done" ] && [ -f "$X/sysroot/$arch/usr/lib/$trip/libsodium.a" ]
}
ensure_sysroot() {
    local t=$1 arch trip dir tmp
    arch=$(deb_arch "$t"); trip=$(triplet "$t"); dir=$X/sysroot/$arch
    sysroot_done "$t" && return 0
    say "sysroot $arch: apt-get download libfixmath-dev:$arch libxxhash-dev:$arch libsodium-dev:$arch"
    rm -rf "$dir"; mkdir -p "$dir"
    tmp=$(mktemp -d "$X/dl.XXXXXX")
    (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "libfixmath-dev:$arch" "libxxhash-dev:$arch" \
        "libsodium-dev:$arch" >/dev/null) || die "apt-get download for $arch failed"
    for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dir"; done
    rm -rf "$tmp"
    [ -f "$dir/usr/include/libfixmath/fix16.h" ] && [ -f "$dir/usr/lib/$trip/liblibfixmath.a" ] \
        && [ -f "$dir/usr/lib/$trip/libxxhash.a" ] && [ -f "$dir/usr/include/sodium.h" ] \
        && [ -f "$dir/usr/lib/$trip/libsodium.a" ] || die "sysroot $dir is incomplete"
    touch "$dir/.done"
}

# build/x/sysroot/wasm32: libfixmath and libsodium compiled with emcc from Debian's
# source packages (there is no wasm32 Debian build), plus xxhash.h (header-only use,
# XXH_INLINE=1). A sysroot made before libsodium was needed gets it added.
wasm_sysroot_done() { [ -f "$X/sysroot/wasm32/.done" ] && [ -f "$X/sysroot/wasm32/usr/lib/libsodium.a" ]; }
ensure_wasm_sysroot() {
    local dir=$X/sysroot/wasm32 src f orig sum deb
    wasm_sysroot_done && return 0
    [ -f "$dir/.done" ] && { ensure_wasm_sodium; return 0; }
    rm -rf "$dir"; mkdir -p "$dir/src" "$dir/usr/include/libfixmath" "$dir/usr/lib"
    say "wasm32: apt-get source --download-only libfixmath, compiled with emcc"
    # apt checks each file against the signed Sources index. The upstream tarball is what
    # we need; the small Debian tarball (packaging, and patches if any) is applied when it
    # can be fetched (some mirrors lack it).
    (cd "$dir/src" && apt-get source --download-only -qq -o APT::Sandbox::User=root libfixmath >/dev/null 2>&1) || true
    orig=$(find "$dir/src" -maxdepth 1 -name 'libfixmath_*.orig.tar.*' | sed -n 1p)
    [ -n "$orig" ] || die "apt-get source --download-only libfixmath fetched no upstream tarball"
    sum=$(sha256sum "$orig" | cut -d' ' -f1)
    grep -q "$sum .*$(basename "$orig")" "$dir"/src/*.dsc 2>/dev/null || die "$orig does not match its .dsc"
    src=$dir/src/libfixmath; mkdir -p "$src"
    tar -xf "$orig" -C "$src"
    deb=$(find "$dir/src" -maxdepth 1 -name 'libfixmath_*.debian.tar.*' | sed -n 1p)
    if [ -n "$deb" ]; then
        tar -xf "$deb" -C "$src"
        if [ -f "$src/debian/patches/series" ]; then
            grep -v '^#' "$src/debian/patches/series" | while read -r p _; do
                [ -n "$p" ] && patch -s -d "$src" -p1 <"$src/debian/patches/$p"
            done
        fi
    else
        say "wasm32: Debian tarball not available; using the upstream tarball as is"
    fi
    [ -f "$src/libfixmath/fix16.h" ] || die "unexpected libfixmath source layout in $src"
    # Debian's liblibfixmath.a is libfixmath/*.c built by upstream's CMake with no defines.
    cp "$src"/libfixmath/*.h "$dir/usr/include/libfixmath/"
    cp /usr/include/xxhash.h "$dir/usr/include/" 2>/dev/null || die "needs /usr/include/xxhash.h (apt-get install libxxhash-dev)"
    for f in "$src"/libfixmath/*.c; do
        emcc -O2 -std=c11 -ffp-contract=off -I"$src/libfixmath" -c -o "$dir/src/$(basename "${f%.c}").o" "$f" \
            || die "emcc failed on $f"
    done
    emar rcs "$dir/usr/lib/liblibfixmath.a" "$dir"/src/*.o
    touch "$dir/.done"
    ensure_wasm_sodium
}

# Debian's libsodium source package (upstream tarball checked against its .dsc, Debian's
# patches applied), built with emconfigure / emmake as upstream's dist-build/emscripten.sh
# does (no assembly, no threads, no stack protector; the tarball is a git snapshot, so
# autoreconf makes its configure first, as Debian's build does), so that the sessions in
# wasm (the npm package's Session) MAC their packets with the same code as native
# builds. Only libsodium.a and its headers go into the sysroot.
ensure_wasm_sodium() {
    local dir=$X/sysroot/wasm32 work orig sum deb src
    [ -f "$dir/usr/lib/libsodium.a" ] && return 0
    work=$dir/src/sodium; rm -rf "$work"; mkdir -p "$work"
    say "wasm32: apt-get source --download-only libsodium, compiled with emcc"
    (cd "$work" && apt-get source --download-only -qq -o APT::Sandbox::User=root libsodium >/dev/null 2>&1) || true
    orig=$(find "$work" -maxdepth 1 -name 'libsodium_*.orig.tar.*' | sed -n 1p)
    [ -n "$orig" ] || die "apt-get source --download-only libsodium fetched no upstream tarball"
    sum=$(sha256sum "$orig" | cut -d' ' -f1)
    grep -q "$sum .*$(basename "$orig")" "$work"/*.dsc 2>/dev/null || die "$orig does not match its .dsc"
    src=$work/libsodium; mkdir -p "$src"
    tar -xf "$orig" -C "$src" --strip-components=1
    deb=$(find "$work" -maxdepth 1 -name 'libsodium_*.debian.tar.*' | sed -n 1p)
    if [ -n "$deb" ]; then
        tar -xf "$deb" -C "$src"
        if [ -f "$src/debian/patches/series" ]; then
            grep -v '^#' "$src/debian/patches/series" | while read -r p _; do
                [ -n "$p" ] && patch -s -d "$src" -p1 <"$src/debian/patches/$p"
            done
        fi
    else
        say "wasm32: libsodium's Debian tarball not available; using the upstream tarball as is"
    fi
    [ -f "$src/configure.ac" ] || die "unexpected libsodium source layout in $src"
    (cd "$src" && autoreconf -fi && emconfigure ./configure --host=wasm32-unknown-emscripten --prefix="$ROOT/$dir/usr" --disable-shared --enable-static \
            --without-pthreads --disable-ssp --disable-asm --disable-pie CFLAGS=-O2 \
        && emmake make -j"$JOBS" && emmake make install) >"$work/build.log" 2>&1 \
        || { tail -n 30 "$work/build.log" >&2; die "building libsodium with emcc failed (log: $work/build.log)"; }
    [ -f "$dir/usr/include/sodium.h" ] && [ -f "$dir/usr/lib/libsodium.a" ] || die "libsodium did not install into $dir"
    rm -rf "$src" "$dir/usr/lib/libsodium.la" "$dir/usr/lib/pkgconfig"
}

# ---------------------------------------------------------------- targets
# The program file of a target.
# A target's program, and its test program (wasm: .js files run by node).
prog() { case $1 in wasm32*) echo "$X/$1/fixstep.js" ;; *) echo "$X/$1/fixstep" ;; esac; }
tests_prog() { case $1 in wasm32*) echo "$X/$1/fixstep_tests.js" ;; *) echo "$X/$1/fixstep_tests" ;; esac; }

# Runs the program of target $1 with the remaining arguments.
I686_RUNNER=
run_on() {
    local t=$1; shift
    case $t in
        aarch64) qemu-aarch64-static "$(prog "$t")" "$@" ;;
        s390x) qemu-s390x-static "$(prog "$t")" "$@" ;;
        i686) $I686_RUNNER "$(prog "$t")" "$@" ;;
        wasm32*) node "$(prog "$t")" "$@" ;;
        *) "$(prog "$t")" "$@" ;;
    esac
}

export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

# Builds target $1 with the repo's Makefile into build/x/$1; log in build/x/$1.log.
build_target() {
    local t=$1 sys trip
    local -a args=(BUILD="$X/$t" DEPS_CHECK=0)
    case $t in
        gcc-O0) args+=(CC=gcc OPT=-O0) ;;
        gcc-O2) args+=(CC=gcc OPT=-O2) ;;
        gcc-O3-native) args+=(CC=gcc "OPT=-O3 -march=native") ;;
        clang-O2) args+=(CC=clang OPT=-O2) ;;
        i686|aarch64|s390x)
            sys=$ROOT/$X/sysroot/$(deb_arch "$t"); trip=$(triplet "$t")
            args+=(CC="$(cross_cc "$t")" AR="${trip/i386/i686}-ar" OPT=-O2
                   CPPFLAGS="-I$sys/usr/include" LDFLAGS="-static -L$sys/usr/lib/$trip") ;;
        wasm32|wasm32-simd128)
            sys=$ROOT/$X/sysroot/wasm32
            args+=(CC=emcc AR=emar OPT=-O2 XXH_INLINE=1 SESSIONS=0 EXE=.js CPPFLAGS="-I$sys/usr/include"
                   LDFLAGS="-L$sys/usr/lib -sSINGLE_FILE=1 -sEXIT_RUNTIME=1 -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1")
            [ "$t" = wasm32-simd128 ] && args+=(CFLAGS=-msimd128) ;;
    esac
    local -a goals=("$(prog "$t")")
    is_vector_test_target "$t" && goals+=("$(tests_prog "$t")")
    make --no-print-directory -j"$JOBS" "${args[@]}" "${goals[@]}" >"$X/$t.log" 2>&1
}

# The targets whose vector kernels no x86 test runs (NEON on aarch64, under qemu; SIMD128 on
# wasm32-simd128, under node): their test program is built too, and its kernel tests
# (tests/test_batch.c: every scene step by step against the portable kernels, saturating
# states; test_narrowphase.c: the box-box tests field by field) must pass.
VECTOR_TEST_TARGETS="aarch64 wasm32-simd128"
is_vector_test_target() { case " $VECTOR_TEST_TARGETS " in *" $1 "*) return 0 ;; esac; return 1; }

# ---------------------------------------------------------------- main
mkdir -p "$X"
case ${1:-} in
    apt-sources) apt_sources; exit 0 ;;            # for CI: before its one apt-get update
    packages) missing_packages; echo; exit 0 ;;    # the packages still missing
    setup) setup; exit 0 ;;
esac
setup

declare -A OK
built=0
for t in $TARGETS; do
    progress_draw "crosscheck: building" "$built" "$(wc -w <<<"$TARGETS")" targets; built=$((built + 1))
    start=$SECONDS
    if build_target "$t"; then OK[$t]=1; say "built $t ($((SECONDS - start)) s)"
    else OK[$t]=0; say "BUILD FAILED: $t (log: $X/$t.log)"; tail -n 20 "$X/$t.log" | sed 's/^/    /' >&2; fi
done

# i686 static binaries run natively when the kernel has IA-32 emulation; else under qemu.
if [ "${OK[i686]:-0}" = 1 ] && ! "$(prog i686)" scenes >/dev/null 2>&1; then
    command -v qemu-i386-static >/dev/null || die "i686 binary does not run natively and qemu-i386-static is missing"
    I686_RUNNER=qemu-i386-static; say "i686 runs under qemu-i386-static"
fi

# The rows: each row is a label and the arguments of one fixstep run; a cell is the last
# line of that run's output on one target (the arguments are split on spaces).
ROW_LABELS=(); ROW_ARGS=()
add_row() { ROW_LABELS+=("$1"); ROW_ARGS+=("$2"); }
# The steps scene $1 runs for: STEPS, halved while the reference target cannot do them in
# BUDGET seconds (measured by one probe run that prints every step's hash).
scene_steps() {
    local scene=$1 reached steps=$STEPS rc=0
    [ "$BUDGET" = 0 ] && { echo "$STEPS"; return; }
    case $REF in gcc-*|clang-*) ;; *) echo "$STEPS"; return ;; esac   # probes run natively only
    # stdbuf: line-buffered, so a probe stopped by timeout still shows its last step
    reached=$( { timeout "$BUDGET" stdbuf -oL "$(prog "$REF")" run "$scene" --steps "$STEPS" --hash-every 1 2>/dev/null || rc=$?; } \
               | awk '$1 == "step" { n = $2 } $1 == "hash" { n = -1 } END { print n + 0 }')
    if [ "$reached" -ge 0 ] 2>/dev/null && [ "$reached" != -1 ]; then
        while [ "$steps" -gt "$reached" ] && [ $((steps / 2)) -ge "$MIN_STEPS" ]; do steps=$((steps / 2)); done
    fi
    echo "$steps"
}
# One row per built-in scene, the settle rows, then one per replay of the golden corpus.
ROW_STEPS=()
default_rows() {
    local s scenes n
    [ "${OK[$REF]:-0}" = 1 ] || die "the reference target $REF did not build"
    scenes=$(run_on "$REF" scenes | awk 'NF {print $1}') || die "fixstep scenes failed on $REF"
    [ -n "$scenes" ] || die "fixstep scenes listed no scene"
    for s in $scenes; do
        n=$(scene_steps "$s")
        add_row "$s" "run $s --steps $n"; ROW_STEPS+=("$n")
    done
    # The parallel step (docs/threads.md): every scene on 3 workers (the built-in pool; the
    # wasm targets have no threads and run serially), for a quarter of its steps (CI's time),
    # at least 1: a row of its own that must match across targets as the serial rows do.
    for i in "${!ROW_LABELS[@]}"; do
        s=${ROW_LABELS[$i]}; n=$(( ${ROW_STEPS[$i]} / 4 )); [ "$n" -ge 1 ] || n=1
        add_row "$s@3w" "run $s --steps $n --workers 3"; ROW_STEPS+=("$n")
    done
    # The SSE4 kernels (x86 CPUs without AVX2), which no x86 target here would pick: every
    # scene for an eighth of its steps, at least 1, capped at sse4 (the other targets run
    # their own widest level no wider, or the portable one).
    local serial=$(( ${#ROW_LABELS[@]} / 2 ))
    for ((i = 0; i < serial; ++i)); do
        s=${ROW_LABELS[$i]}; n=$(( ${ROW_STEPS[$i]} / 8 )); [ "$n" -ge 1 ] || n=1
        add_row "$s@sse4" "run $s --steps $n --kernels sse4"; ROW_STEPS+=("$n")
    done
    # The settle goldens (tests/test_solver.c): the step at which the 10-box stack and the
    # 20-row pyramid fall asleep, and the hash after 3,000 steps.
    for s in box_stack pyramid_20; do
        add_row "settle:$s" "settle $s --steps 3000"; ROW_STEPS+=(3000)
    done
    # Seed 004's wall spheres (placed by ray casts against the mesh) and a run with them.
    add_row "spherewalls:mesh_level" "spherewalls mesh_level --steps 60 --probes 2000"; ROW_STEPS+=(60)
    # Events and query results (issue 19): a digest of every step's contact, hit and sensor
    # events and of overlap queries and a ray cast, for the arena played by its scripted
    # players and for all_shapes (hulls, compounds, a mesh) with every body asking for events.
    add_row "events:arena" "events arena --steps 600"; ROW_STEPS+=(600)
    add_row "events:all_shapes" "events all_shapes --steps 300 --all-events"; ROW_STEPS+=(300)
    say "steps per scene: $(for i in "${!ROW_LABELS[@]}"; do printf '%s=%s ' "${ROW_LABELS[$i]}" "${ROW_STEPS[$i]}"; done)"
    # The golden replay corpus (replays/corpus, recorded on x86-64): every target re-simulates
    # each replay and must match every tick's recorded hash; the cell is the final hash.
    # replay:calls_demo is the API-call replay (a program with no input layer, every mutating
    # call recorded): each target makes the recorded calls on its own world.
    local f
    for f in replays/corpus/*.fxr; do
        # (the API-call replay verifies only when asked for: --mode calls)
        local mode=""; [ "$(basename "$f")" = calls_demo.fxr ] && mode=" --mode calls"
        [ -f "$f" ] && { add_row "replay:$(basename "$f" .fxr)" "verify $f --quiet$mode"; ROW_STEPS+=("-"); }
    done
}
MODE=scenes
if [ "${1:-}" = each ]; then
    shift; [ $# -gt 0 ] || die "usage: crosscheck.sh each FIXSTEP-ARGS..."
    MODE=each; add_row "$*" "$*"
else
    default_rows
fi

# Runs every row on every target: the rows of one target in sequence, JOBS targets at once.
# Each cell goes to a file build/x/cells/TARGET.ROW (last line of output, or "(exit N)").
run_target() {
    local t=$1 i out rc start=$SECONDS
    for i in "${!ROW_ARGS[@]}"; do
        rc=0
        # shellcheck disable=SC2086
        out=$(run_on "$t" ${ROW_ARGS[$i]} 2>"$X/cells/$t.$i.err") || rc=$?
        # the last line, less any progress bar drawn before it with \r and ANSI escapes
        # (emscripten reports stdout as a terminal)
        if [ "$rc" = 0 ]; then printf '%s\n' "$out" | tail -n 1 | sed $'s/.*\r//; s/\x1b\\[[0-9;]*[A-Za-z]//g' >"$X/cells/$t.$i"
        else echo "(exit $rc)" >"$X/cells/$t.$i"; say "$t: fixstep ${ROW_ARGS[$i]} failed: $(tail -n 1 "$X/cells/$t.$i.err")"; fi
    done
    say "ran $t ($((SECONDS - start)) s)"
}
rm -rf "$X/cells"; mkdir -p "$X/cells"
# the runs' bar: the cells written so far out of rows x built targets, redrawn 5 times a second
runs_total=0
for t in $TARGETS; do [ "${OK[$t]}" = 1 ] && runs_total=$((runs_total + ${#ROW_ARGS[@]})); done
watcher=
if [ "$PROGRESS" = 1 ]; then
    (while :; do
        progress_draw "crosscheck: running" "$(find "$X/cells" -type f ! -name '*.err' | wc -l)" "$runs_total" runs
        sleep 0.2
    done) &
    watcher=$!
fi
# (a target waited for leaves the list: waiting on it again is an error)
pids=()
for t in $TARGETS; do
    [ "${OK[$t]}" = 1 ] || continue
    while [ ${#pids[@]} -ge "$JOBS" ]; do
        wait -n "${pids[@]}" || true
        live=(); for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && live+=("$p"); done
        pids=("${live[@]}")
    done
    run_target "$t" & pids+=($!)
done
[ ${#pids[@]} -eq 0 ] || wait "${pids[@]}" || true
if [ -n "$watcher" ]; then kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null || true; fi
progress_end
declare -A CELL
fails=0
for t in $TARGETS; do
    for i in "${!ROW_ARGS[@]}"; do
        if [ "${OK[$t]}" != 1 ]; then CELL[$t,$i]="(no build)"; continue; fi
        CELL[$t,$i]=$(cat "$X/cells/$t.$i" 2>/dev/null || echo "(no result)")
        if [ "$MODE" = scenes ] && ! [[ ${CELL[$t,$i]} =~ ^(asleep\ [0-9]+\ )?hash\ [0-9a-f]{16}$ ]]; then
            [[ ${CELL[$t,$i]} == \(* ]] || CELL[$t,$i]="(bad: ${CELL[$t,$i]:0:20})"
        fi
    done
done

# The vector kernels' own tests on the targets that have no native run (see above).
for t in $TARGETS; do
    is_vector_test_target "$t" && [ "${OK[$t]}" = 1 ] && [ "$MODE" = scenes ] || continue
    tests=$(tests_prog "$t")
    for filter in batch_ np_box_tests_vector np_recycle_vector integrate_vector; do
        rc=0
        out=$(case $t in aarch64) qemu-aarch64-static "$tests" --quick "$filter" ;; wasm32*) node "$tests" --quick "$filter" ;;
                  *) "$tests" --quick "$filter" ;; esac 2>&1) || rc=$?
        if [ "$rc" = 0 ] && [[ $(tail -n 1 <<<"$out") =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
            say "$t: vector kernel tests '$filter': $(tail -n 1 <<<"$out") ($(grep -m1 -oE '(NEON|AVX2|AVX-512|SIMD128|neon|avx2|avx512|simd128)' <<<"$out" || echo "no vector kernel"))"
        else
            say "$t: vector kernel tests '$filter' FAILED:"; tail -n 20 <<<"$out" | sed 's/^/    /' >&2
            fails=$((fails + 1))
        fi
    done
done

# The table: short hash per target (* marks a difference from $REF), the full reference.
w=5; for l in "${ROW_LABELS[@]}"; do [ ${#l} -gt $w ] && w=${#l}; done
[ "$MODE" = each ] && w=5
printf '\n%-*s' "$w" "$( [ "$MODE" = each ] && echo run || echo scene)"
[ "$MODE" = scenes ] && printf ' %5s' steps
for t in $TARGETS; do printf ' %-13s' "$t"; done
printf ' %s\n' "full ($REF)"
for i in "${!ROW_ARGS[@]}"; do
    ref=${CELL[$REF,$i]:-}
    label=${ROW_LABELS[$i]}; [ "$MODE" = each ] && label=""
    printf '%-*s' "$w" "$label"
    [ "$MODE" = scenes ] && printf ' %5s' "${ROW_STEPS[$i]}"
    for t in $TARGETS; do
        c=${CELL[$t,$i]}
        if [[ $c == \(* ]]; then cell="FAIL"; fails=$((fails + 1))
        elif [[ $c == hash\ * ]]; then cell=${c#hash }; cell=${cell:0:8}
        elif [[ $c == asleep\ * ]]; then n=${c#asleep }; n=${n%% *}; cell="@$n:${c##* }"; cell=${cell:0:12}
        else cell=${c:0:12}; fi
        if [[ $c != \(* ]] && { [ -z "$ref" ] || [[ $ref == \(* ]] || [ "$c" != "$ref" ]; }; then
            cell="$cell*"; fails=$((fails + 1))
        fi
        printf ' %-13s' "$cell"
    done
    printf ' %s\n' "${ref#hash }"
done
[ "$MODE" = each ] && printf '(%s)\n' "${ROW_LABELS[0]}"

cells=$(( ${#ROW_ARGS[@]} * $(wc -w <<<"$TARGETS") ))
if [ "$fails" -gt 0 ]; then
    printf '\ncrosscheck: FAILED: %d of %d cells differ from %s or failed (* = differs, FAIL = no build or bad exit)\n' "$fails" "$cells" "$REF"
    exit 1
fi
printf '\ncrosscheck: OK: %d rows x %d targets identical%s\n' "${#ROW_ARGS[@]}" "$(wc -w <<<"$TARGETS")" "$([ "$MODE" = scenes ] && echo " (STEPS=$STEPS BUDGET=$BUDGET)")"
