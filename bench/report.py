#!/usr/bin/env python3
"""Joins the JSON lines of benches/compare.rs (cuarray) and bench/peers.py (CuPy, PyTorch)
into one table: case, each library's figure, cuarray over the best peer, and cuarray's
fraction of the ceiling measured in the same run (device copy bandwidth for memory-bound
cases, the best peer's rate for matrix products, a bare cudarc launch for per-call cases).
Host <-> device transfers (kind "wall" with a byte count) show GB/s and the ratio to the
best peer only: the device copy is no ceiling for them.

    python3 bench/report.py results.jsonl [more.jsonl ...] [--markdown]
"""
import json
import sys

rows = {}
order = []
for path in [a for a in sys.argv[1:] if not a.startswith("--")]:
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if "case" not in r:
            continue
        if r["case"] not in rows:
            rows[r["case"]] = {}
            order.append(r["case"])
        rows[r["case"]][r["lib"]] = r

md = "--markdown" in sys.argv
copy = rows.get("copy_f32_2^28", {}).get("cuarray", {}).get("gbps")
bare = rows.get("bare_cudarc_launch_add_1000", {}).get("cuarray", {}).get("us")


def figure(r):
    if r is None:
        return None, ""
    if r.get("tflops"):
        return r["tflops"], f'{r["tflops"]:.1f} TFLOP/s'
    if r.get("gbps"):
        g = r["gbps"]
        return g, f"{g:.0f} GB/s" if g >= 100 else f"{g:.1f} GB/s"
    return -r["us"], f'{r["us"]:.2f} us'


head = ["case", "cuarray", "CuPy", "PyTorch", "cuarray / best peer", "of ceiling"]
out = []
for case in order:
    libs = rows[case]
    cu, cu_s = figure(libs.get("cuarray"))
    peers = [figure(libs.get(p)) for p in ("cupy", "pytorch")]
    best = max((v for v, _ in peers if v is not None), default=None)
    ratio = ""
    if cu is not None and best is not None:
        ratio = f"{cu / best:.2f}x" if cu > 0 else f"{best / cu:.2f}x"
    ceiling = ""
    r = libs.get("cuarray", {})
    transfer = case.startswith(("h2d_", "d2h_"))
    if transfer:
        pass  # host <-> device: GB/s and the ratio to the best peer only
    elif r.get("gbps") and copy and not case.startswith("copy_f32"):
        ceiling = f'{100 * r["gbps"] / copy:.0f}% of copy'
    elif r.get("tflops") and best:
        ceiling = f"{100 * cu / best:.0f}% of best peer"
    elif case.endswith("_wall") and bare and r.get("us"):
        ceiling = f'{r["us"] / bare:.2f}x bare launch'
    out.append([case, cu_s, peers[0][1] or "-", peers[1][1] or "-", ratio, ceiling])

if md:
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in out:
        print("| " + " | ".join(row) + " |")
else:
    widths = [max(len(str(x)) for x in col) for col in zip(head, *out)]
    for row in [head] + out:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))
