#!/usr/bin/env python3
"""scripts/ladder_chart.py CSV PNG — the GEMM ladder's chart: TFLOP/s per step at 4096^3 and
8192^3 (the CSV of docs/gemm_ladder.csv, from the programs' LADDER lines), cuBLAS as lines, and
the seed's B200 reference figures for comparison."""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
steps = list(range(1, 11))
val = {(int(r["step"]), int(r["m"])): float(r["tflops"]) for r in rows if r["m"] == r["n"] == r["k"]}
seed = {4: 330, 5: 505, 6: 575, 7: 598, 8: 1041, 9: 1185, 10: 1284}  # B200, 2048^3 (4-8), 4096^3 (9-10)
fig, ax = plt.subplots(figsize=(10, 5))
w = 0.28
for i, (size, color) in enumerate(((4096, "#4c72b0"), (8192, "#55a868"))):
    ax.bar([s + (i - 1) * w for s in steps], [val.get((s, size), 0) for s in steps], w, color=color,
           label="H200, %d^3" % size)
ax.bar([s + w for s in steps], [seed.get(s, 0) for s in steps], w, color="#cccccc",
       label="seed, B200 (reference)")
ax.axhline(746.8, color="#4c72b0", ls="--", lw=1, label="cuBLASLt 4096^3 (bench --gemm)")
ax.axhline(663.3, color="#55a868", ls="--", lw=1, label="cuBLASLt 8192^3 (bench --gemm)")
ax.set_xticks(steps)
ax.set_xlabel("ladder step (1-2: one CTA only)")
ax.set_ylabel("TFLOP/s (bf16)")
ax.set_title("GEMM ladder on Hopper (examples/gemm_ladder)")
ax.legend(fontsize=8, loc="upper left")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print("wrote", sys.argv[2])
