#!/usr/bin/env bash
# make nofloat: the contact solver's vector kernels cannot be compiled with
# -mgeneral-regs-only (it forbids the vector registers they use), so their
# objects are disassembled instead and any floating-point instruction fails
# the build: x87 (f...), and SSE/AVX arithmetic, conversions and comparisons
# on ps/pd/ss/sd. (Plain moves and bitwise ops such as vmovaps or vxorps are
# data movement the compiler may pick for integer vectors; they compute
# nothing in floating point and are allowed.)
# WebAssembly objects (the wasm build of bindings/js: `make js`) are
# disassembled with llvm-objdump, and any f32 / f64 instruction (scalar, or
# the f32x4 / f64x2 vector forms, conversions included) fails the check.
#   tools/check_nofloat.sh OBJ...
set -euo pipefail
status=0
for obj in "$@"; do
    if [ "$(head -c 4 "$obj" | od -An -c | tr -d ' ')" = '\0asm' ]; then
        # opcode 0x1b is the untyped select (it picks one of two operands of any
        # type), which llvm-objdump 14 prints as f32.select
        bad=$(llvm-objdump -d "$obj" | awk -F'\t' 'NF >= 2 { split($2, w, " "); m = w[1]
                  if (m == "f32.select" && $1 ~ /: 1b *$/) m = "select"; print m }' |
              grep -E '^(f32|f64)|\.(convert|demote|promote|trunc)_(f32|f64)|^i(32|64)\.reinterpret_f|x4\.convert|f32x4|f64x2' |
              sort | uniq -c || true)
    else
    bad=$(objdump -d --no-show-raw-insn "$obj" | awk -F'\t' 'NF >= 2 { split($2, w, " "); print w[1] }' |
          grep -E '^(f[a-z0-9]+|v?(add|sub|mul|div|sqrt|min|max|rcp|rsqrt|round|cvt|fm|fnm|hadd|hsub|dp|comi|ucomi|cmp|getexp|getmant|scalef|range|reduce|fixupimm)[a-z0-9]*(ps|pd|ss|sd|ph|sh))$' |
          sort | uniq -c || true)
    fi
    if [ -n "$bad" ]; then
        echo "nofloat: floating-point instructions in $obj:" >&2
        echo "$bad" >&2
        status=1
    else
        echo "nofloat: $obj: integer instructions only"
    fi
done
exit $status
