#!/usr/bin/env python3
"""Plots the size sweep of the peer comparison: GB/s against array size for `add_f32_2^K`
and `sum_f32_2^K` (K = 10 .. 28), one line per library (cuarray, CuPy, PyTorch), with
the device-to-device copy ceiling (`copy_f32_2^28`, measured by cuarray in the same run)
as a dashed horizontal line when present. Reads the JSON lines that bench/compare.sh
writes (results.jsonl); a case found in several files (several runs) is plotted at the
median of its figures.

    python3 bench/plot.py results.jsonl [more.jsonl ...] [-o sweep.png]

Needs matplotlib (runs where the results are read, not necessarily on the GPU machine).
The PNG goes next to the first input as sweep.png unless -o says otherwise.
"""
import argparse
import json
import os
import re
import statistics
import sys

LIBS = [("cuarray", "cuarray", "tab:blue", "o"),
        ("cupy", "CuPy", "tab:green", "s"),
        ("pytorch", "PyTorch", "tab:orange", "^")]
OPS = [("add", "add: c = a + b (f32, 3 x 4 bytes per element)"),
       ("sum", "sum: one value from n (f32, 4 bytes per element)")]
CASE = re.compile(r"^(add|sum)_f32_2\^(\d+)$")


def read(paths):
    """{(lib, case): [gbps, ...]} over every JSON line of every file."""
    figures = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if "case" not in r or "lib" not in r or not r.get("gbps"):
                    continue
                figures.setdefault((r["lib"], r["case"]), []).append(float(r["gbps"]))
    return {k: statistics.median(v) for k, v in figures.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results.jsonl file(s)")
    ap.add_argument("-o", "--out", help="output PNG (default: sweep.png beside the first input)")
    args = ap.parse_args()
    out = args.out or os.path.join(os.path.dirname(os.path.abspath(args.results[0])), "sweep.png")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter

    fig_data = read(args.results)
    series = {}  # (op, lib) -> [(k, gbps)]
    for (lib, case), gbps in fig_data.items():
        m = CASE.match(case)
        if m:
            series.setdefault((m.group(1), lib), []).append((int(m.group(2)), gbps))
    if not series:
        sys.exit("no add_f32_2^K / sum_f32_2^K cases with a GB/s figure in " + ", ".join(args.results))
    copy = fig_data.get(("cuarray", "copy_f32_2^28"))

    ks = sorted({k for pts in series.values() for k, _ in pts})
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), sharey=True)
    for ax, (op, title) in zip(axes, OPS):
        for lib, label, color, marker in LIBS:
            pts = sorted(series.get((op, lib), []))
            if pts:
                ax.plot([k for k, _ in pts], [g for _, g in pts], marker=marker, color=color, label=label)
        if copy:
            ax.axhline(copy, color="gray", linestyle="--", linewidth=1,
                       label=f"device copy ceiling ({copy:.0f} GB/s)")
        ax.set_title(title)
        ax.set_xlabel("array size (elements)")
        ax.xaxis.set_major_locator(FixedLocator(ks))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda k, _: f"$2^{{{int(k)}}}$"))
        ax.set_xlim(min(ks) - 0.5, max(ks) + 0.5)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", fontsize="small")
    axes[0].set_ylabel("GB/s (bytes that must move / device time, median)")
    axes[0].set_ylim(bottom=0)
    fig.suptitle("Bandwidth against array size (CUDA events per call; small sizes include launch cost)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
