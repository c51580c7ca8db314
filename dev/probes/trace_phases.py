#!/usr/bin/env python3
"""Parse the per-CTA phase lines of an IGEMM_TRACE build of the split pixels-as-N kernel ("TR call
split cta" + 8 globaltimer ns: entry, set-up done, first stage full, mainloop drained, end, partial
stored, first cluster barrier passed, stores issued; 0 = not recorded) and print, for the last call,
each phase's min / median / max in us from the earliest CTA entry, and the cluster-sum steps
measured from the cluster's last drained mainloop (dev experiment, docs/decisions.md "pixn-phases")."""
import sys, collections, statistics as st
calls = collections.defaultdict(list)
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) >= 9 and f[0] == "TR":
        calls[int(f[1])].append((int(f[2]), int(f[3]), [int(x) for x in f[4:]]))
c = sorted(calls)[-1]
rows = calls[c]
S = rows[0][0]
t0 = min(t[0] for _, _, t in rows)
q = lambda v: f"min {min(v):6.2f}  med {st.median(v):6.2f}  max {max(v):6.2f}"
names = ["entry", "set-up done", "first stage", "mainloop done", "end", "partial stored", "barrier 1 passed",
         "stores issued", "gathered"]
print(f"call {c}: {len(rows)} CTAs, split {S}")
for i, n in enumerate(names):
    v = [(t[i] - t0) / 1000.0 for _, _, t in rows if len(t) > i and t[i]]
    if v: print(f"  {n:17s} {q(v)}")
by = {cta: t for _, cta, t in rows}
steps = collections.defaultdict(list)
for cta, t in by.items():
    last = max(by[cta - cta % S + r][3] for r in range(S))
    steps["own drained -> cluster's last"].append((last - t[3]) / 1000)
    for i, n in [(5, "partial stored"), (6, "barrier 1 passed"), (8, "gathered"), (7, "stores issued"), (4, "end")]:
        if len(t) > i and t[i]: steps["last drained -> " + n].append((t[i] - last) / 1000)
for n, v in steps.items(): print(f"  {n:32s} {q(v)}")
