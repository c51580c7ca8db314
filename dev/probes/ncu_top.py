#!/usr/bin/env python3
"""ncu_top.py — condense an `ncu --page source --csv --print-source sass` dump: the SASS
instructions with the most warp-stall samples, and the stall-reason columns summed.
usage: dev/probes/ncu_top.py SRC.csv [N]   (scripts/gpu_check.sh's Nsight Compute stages call it)"""
import csv, sys

def num(x):
    try:
        return float(str(x).replace(',', ''))
    except ValueError:
        return 0.0

rows = list(csv.reader(open(sys.argv[1], errors='replace')))
n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
hdr_i = next((i for i, r in enumerate(rows) if any('Source' == c.strip() for c in r)), None)
if hdr_i is None:
    print('no header found; first lines:'); [print(r) for r in rows[:5]]; sys.exit(0)
hdr = rows[hdr_i]
body = [r for r in rows[hdr_i + 1:] if len(r) == len(hdr)]
col = {c: i for i, c in enumerate(hdr)}
samp = next((c for c in hdr if c.startswith('Warp Stall Sampling (All')), None)
src = col['Source']
addr = col.get('Address', 0)
tot = sum(num(r[col[samp]]) for r in body) if samp else 0
print(f'{len(body)} SASS lines, {tot:.0f} stall samples ({samp})')
# stall-reason columns: every numeric column whose name mentions stall reasons
reasons = [c for c in hdr if c.startswith('stall_') or 'Stall' in c and c != samp and 'Not-issued' not in c]
sums = sorted(((sum(num(r[col[c]]) for r in body), c) for c in reasons), reverse=True)
for v, c in sums[:14]:
    if v > 0: print(f'  {c:60s} {v:10.0f}')
if samp:
    top = sorted(body, key=lambda r: -num(r[col[samp]]))[:n]
    for r in top:
        v = num(r[col[samp]])
        # the two largest reasons of this line
        rs = sorted(((num(r[col[c]]), c) for c in reasons), reverse=True)[:2]
        why = ', '.join(f'{c.replace("stall_", "")}={x:.0f}' for x, c in rs if x > 0)
        print(f'{v:7.0f} {100 * v / max(tot, 1):5.1f}%  {r[addr]:>6s}  {r[src].strip()[:70]:70s} {why}')
