#!/usr/bin/env python3
"""A benchmark table as a bar chart (SVG), drawn by gnuplot (Debian: gnuplot-nox).

Reads one table, either as `make bench` prints it (tools/bench.sh: the scenes'
table, fixstep beside Bullet and each Box3D program) or as a Markdown table
(docs/benchmarks.md), and draws one group of bars per row: one bar per value
column chosen. Numbers may carry thousands commas, a unit suffix ("3.8x") or a
range after them ("0.74 (0.69-0.77)": the first number is drawn); "-" or an
empty cell is no bar.

  make bench | python3 tools/bench_chart.py -o build/bench/scenes.svg
  python3 tools/bench_chart.py --markdown docs/benchmarks.md --table 1 \\
      --columns "fixstep ms,Bullet ms" --log --ylabel "ms per step" -o docs/img/bench_bullet.svg
  python3 tools/bench_chart.py --self-test      (part of make test; draws only if gnuplot is there)

Without --columns: every column whose header ends in "ms" (the bench's
milliseconds). The first column names the rows (--label COLUMN[,COLUMN...]
other ones, joined).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

NUM = re.compile(r"^[-+]?[0-9][0-9,]*(\.[0-9]+)?")


def number(cell):
    """The cell's first number, or None ("-", empty, text)."""
    m = NUM.match(cell.strip())
    return float(m.group(0).replace(",", "")) if m else None


def parse_markdown(lines, index=0):
    """The index-th Markdown table of lines (0-based): (header, rows of cells)."""
    tables, cur = [], []
    for line in lines + [""]:
        if line.lstrip().startswith("|"):
            cur.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif cur:
            tables.append(cur)
            cur = []
    if index >= len(tables):
        raise SystemExit("bench_chart: the input has %d Markdown tables, not %d" % (len(tables), index + 1))
    t = [r for r in tables[index] if not all(re.fullmatch(r":?-+:?", c) for c in r if c)]
    return t[0], t[1:]


def parse_bench(lines):
    """The scenes' table as tools/bench.sh prints it: a header of its fixed
    columns, then for each Box3D program P "P ms" and "fixstep/P"; rows of
    9 fixed cells, per program its milliseconds and its ratio ("median
    (range)", one or two words), and the hash last."""
    head = next((l for l in lines if l.startswith("scene ") and "fixstep ms" in l), None)
    if head is None:
        return None
    programs = [w[len("fixstep/"):] for w in head.split() if w.startswith("fixstep/")]
    header = ["scene", "bodies", "steps", "fixstep ms", "Bullet ms", "fixstep/Bullet", "Bullet setting",
              "fixstep B/body", "Bullet B/body"]
    for p in programs:
        header += [p + " ms", "fixstep/" + p]
    rows = []
    for line in lines[lines.index(head) + 1:]:
        w = line.split()
        if not w:
            break  # the table ends at the blank line before the micro-benchmarks
        if len(w) < 10:
            continue
        row, rest = w[:9], w[9:-1]  # (the hash last)
        for _ in programs:
            ms = rest.pop(0) if rest else "-"
            ratio = rest.pop(0) if rest else "-"
            if rest and rest[0].startswith("("):
                ratio += " " + rest.pop(0)
            row += [ms, ratio]
        rows.append(row)
    return header, rows


def table(lines, markdown_index=None):
    if markdown_index is not None:
        return parse_markdown(lines, markdown_index)
    t = parse_bench(lines)
    if t is None:
        t = parse_markdown(lines, 0)
    return t


def series(header, rows, columns, label):
    """(labels, [(column, values)]) of the chosen columns."""
    names = label.split(",")
    for n in names:
        if n not in header:
            raise SystemExit("bench_chart: no column '%s' (columns: %s)" % (n, ", ".join(header)))
    lis = [header.index(n) for n in names]
    if columns is None:
        columns = [h for h in header if h.endswith(" ms")]
    out = []
    for c in columns:
        if c not in header:
            raise SystemExit("bench_chart: no column '%s' (columns: %s)" % (c, ", ".join(header)))
        k = header.index(c)
        vals = [number(r[k]) if k < len(r) else None for r in rows]
        if any(v is not None for v in vals):
            out.append((c, vals))
    if not out:
        raise SystemExit("bench_chart: no numbers in the columns " + ", ".join(columns))
    return [" ".join(r[i] for i in lis if i < len(r)) for r in rows], out


def gnuplot_script(labels, cols, out, title, ylabel, log, width, height):
    q = lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    data = ["$data << EOD", " ".join([q("row")] + [q(c) for c, _ in cols])]
    for i, lab in enumerate(labels):
        data.append(" ".join([q(lab)] + ["NaN" if v[i] is None else repr(v[i]) for _, v in cols]))
    data.append("EOD")
    s = data + [
        "set terminal svg size %d,%d dynamic noenhanced font 'sans,12' background rgb 'white'" % (width, height),
        "set output " + q(out),
        "set title " + q(title) if title else "unset title",
        "set ylabel " + q(ylabel),
        "set style data histograms",
        "set style histogram clustered gap 1",
        "set style fill solid 0.85 border -1",
        "set boxwidth 0.9",
        "set key top left",
        "set grid ytics",
        "set xtics rotate by 30 right nomirror",
        "set bmargin 7",
        "set datafile missing 'NaN'",
        "set logscale y" if log else "set yrange [0:*]",
        "plot " + ", ".join("$data using %d:xtic(1) title columnheader(%d)" % (k + 2, k + 2) for k in range(len(cols))),
    ]
    return "\n".join(s) + "\n"


def draw(script):
    gp = shutil.which("gnuplot")
    if not gp:
        raise SystemExit("bench_chart: gnuplot is not installed (Debian: apt-get install gnuplot-nox)")
    subprocess.run([gp], input=script, text=True, check=True)


SAMPLE = """scene                 bodies  steps fixstep ms  bullet ms  ratio bullet     fx B/body bt B/body  box3d_sse2 ms fixstep/box3d_sse2  box3d_avx2 ms fixstep/box3d_avx2  fixstep hash
large_pyramid_b40         821    200       1.87      13.15   0.14 4x2              753      1487         2.50 0.74 (0.69-0.77)         2.40            0.78  0123456789abcdef
joint_grid              10000    100      11.11          -      - -                285         -        21.30            0.52              -               -  fedcba9876543210

== build/fixstep bench narrowphase
"""


def self_test():
    header, rows = table(SAMPLE.splitlines())
    assert header[9:] == ["box3d_sse2 ms", "fixstep/box3d_sse2", "box3d_avx2 ms", "fixstep/box3d_avx2"], header
    assert len(rows) == 2 and rows[0][10] == "0.74 (0.69-0.77)" and rows[1][9] == "21.30", rows
    labels, cols = series(header, rows, None, "scene")
    got = {c: v for c, v in cols}
    assert labels == ["large_pyramid_b40", "joint_grid"]
    assert got["fixstep ms"] == [1.87, 11.11] and got["Bullet ms"] == [13.15, None], got
    assert got["box3d_sse2 ms"] == [2.5, 21.3] and got["box3d_avx2 ms"] == [2.4, None], got
    md = ["x", "| N | motion | fixstep ms | speed-up |", "|---|---|---|---|", "| 1,024 | fast | 0.17 | 3.8x |", "",
          "| a | b |", "|---|---|", "| r | 2 |"]
    h2, r2 = parse_markdown(md, 0)
    assert h2[2] == "fixstep ms" and number(r2[0][0]) == 1024 and number(r2[0][3]) == 3.8
    assert parse_markdown(md, 1)[1] == [["r", "2"]]
    script = gnuplot_script(labels, cols, "x.svg", "t", "ms per step", True, 800, 400)
    assert '"joint_grid" 11.11 NaN 21.3 NaN' in script and "set logscale y" in script, script
    drawn = "not drawn: no gnuplot"
    if shutil.which("gnuplot"):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "t.svg")
            draw(gnuplot_script(labels, cols, out, "t", "ms per step", True, 800, 400))
            svg = open(out).read()
            for word in ["<svg", "large_pyramid_b40", "joint_grid", "box3d_sse2 ms", "Bullet ms"]:
                assert word in svg, "the chart lacks " + word
        drawn = "drawn by gnuplot"
    print("bench_chart: self-test passed (the bench's table and Markdown parsed; the chart %s)" % drawn)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input", nargs="?", help="the table (default: stdin)")
    ap.add_argument("-o", "--output", help="the SVG to write")
    ap.add_argument("--markdown", action="store_true", help="read Markdown tables (the --table'th, from 1)")
    ap.add_argument("--table", type=int, default=1)
    ap.add_argument("--columns", help="comma-separated value columns (default: those ending in ' ms')")
    ap.add_argument("--label", default=None, help="the column(s) naming the rows, comma-separated (default: the first)")
    ap.add_argument("--title", default="")
    ap.add_argument("--ylabel", default="ms per step")
    ap.add_argument("--log", action="store_true", help="a logarithmic y axis")
    ap.add_argument("--size", default="800,400", help="width,height in pixels")
    ap.add_argument("--script", action="store_true", help="print the gnuplot script instead of drawing")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    text = open(a.input).read() if a.input else sys.stdin.read()
    header, rows = table(text.splitlines(), a.table - 1 if a.markdown else None)
    labels, cols = series(header, rows, a.columns.split(",") if a.columns else None, a.label or header[0])
    w, h = (int(x) for x in a.size.split(","))
    script = gnuplot_script(labels, cols, a.output or "/dev/stdout", a.title, a.ylabel, a.log, w, h)
    if a.script:
        sys.stdout.write(script)
    else:
        if not a.output:
            raise SystemExit("bench_chart: -o FILE.svg is needed")
        draw(script)
        print("bench_chart: wrote %s (%d rows, %d columns: %s)" % (a.output, len(labels), len(cols), ", ".join(c for c, _ in cols)))


if __name__ == "__main__":
    main()
