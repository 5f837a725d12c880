#!/usr/bin/env python3
"""Writes compile_commands.json (for clangd and other editors) from the build's
own compile commands: `make -n -B` prints every command without running it,
so the flags are exactly the Makefile's, per-file vector flags included."""
import json, os, shlex, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = sys.argv[1] if len(sys.argv) > 1 else "build"
out = subprocess.run(["make", "-n", "-B", "--no-print-directory", "DEPS_CHECK=0", "BUILD=" + build,
                      "all", build + "/fixstep_tests"], cwd=root, check=True, capture_output=True, text=True).stdout
entries = []
for line in out.splitlines():
    words = shlex.split(line)
    if "-c" in words and words[-1].endswith((".c", ".cpp")):
        entries.append({"directory": root, "arguments": words, "file": words[-1]})
with open(os.path.join(root, "compile_commands.json"), "w") as f:
    json.dump(entries, f, indent=1)
print(f"compile_commands.json: {len(entries)} files")
