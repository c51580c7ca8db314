#!/usr/bin/env python3
"""scripts/ab_log.py — the A/B and hint-sweep sections of a device log as tables (scripts/dev_s19_*.sh
write them): each section starts with a header line

    === LABEL [rep N] [HINTS]          e.g. "=== mc few rep 2 [kernel=multicast_n,tile=64x32]",
                                            "=== dw new rep 1 [kernel=depthwise_tma]", "=== dw fused old"

followed by bench rows `NAME PATH OURS_US [ANCHOR_US ...]` (the CLI table's first columns; a trailing
"[hints]" tag is ignored). Sections whose LABEL differs only in the rep number, or in a last word
new/old, belong to one family; per family the table has a row per layer and a column per variant
(hint text, or new/old), each cell the best (lowest) time over the reps, then the anchor (best
over the family's rows), the best variant and its speed-up over the first variant (the planner or
"new"). Rows that did not time (no number) are left blank, not guessed.

    usage: scripts/ab_log.py LOG [--family REGEX]
"""
import argparse
import math
import re
import sys
from collections import OrderedDict

HEADER = re.compile(r"^=== (?P<label>.*?)(?: rep (?P<rep>\d+))?(?: \[(?P<hint>[^\]]*)\])?\s*$")


def num(tok):
    try:
        v = float(tok)
    except ValueError:
        return None
    return v if math.isfinite(v) and v > 0 else None


def parse(lines):
    """{family: {"variants": [..], "rows": {layer: {variant: best}}, "anchor": {layer: best}}}"""
    fams = OrderedDict()
    cur = None
    for line in lines:
        line = line.rstrip("\n")
        m = HEADER.match(line)
        if m:
            label = m.group("label").strip()
            variant = m.group("hint")
            words = label.split()
            if variant is None:  # "dw new" / "dw fused old": the last word names the build
                if words and words[-1] in ("new", "old"):
                    variant = words[-1]
                    words = words[:-1]
                else:
                    variant = ""
            elif words and words[-1] in ("new", "old"):  # "dw new rep 1 [hint]": build + hint
                variant = words[-1] + (" " + variant if variant else "")
                words = words[:-1]
            fam = " ".join(words)
            f = fams.setdefault(fam, {"variants": [], "rows": OrderedDict(), "anchor": {}})
            variant = variant or "planner"
            if variant not in f["variants"]:
                f["variants"].append(variant)
            cur = (f, variant)
            continue
        if cur is None or not line.strip() or line.startswith(("#", "[", "sanitize", "C tests", "step", "elapsed")):
            if line.startswith("==="):
                cur = None
            continue
        toks = line.split("[")[0].split()
        if len(toks) < 3:
            continue
        ours = num(toks[2])  # NAME PATH OURS [ANCHOR]: a failed row has "-" there
        anchor = num(toks[3]) if len(toks) > 3 else None
        f, variant = cur
        if ours is not None:
            row = f["rows"].setdefault(toks[0], {})
            row[variant] = min(row.get(variant, ours), ours)
        if anchor is not None:
            f["anchor"][toks[0]] = min(f["anchor"].get(toks[0], anchor), anchor)
    return fams


def table(fam, f):
    vs = f["variants"]
    # the ratio columns: each "new X" variant against its "old X" (two builds), else the first
    # variant against the second
    pairs = [(v, "old" + v[3:]) for v in vs if v.startswith("new") and "old" + v[3:] in vs]
    if not pairs and len(vs) > 1:
        pairs = [(vs[0], vs[1])]
    out = ["### " + fam, "",
           "| layer | " + " | ".join(vs) + " | anchor | best | best vs " + vs[0] + " | " + vs[0] + " vs anchor |" +
           "".join(" %s vs %s |" % pr for pr in pairs),
           "|---|" + "---:|" * (len(vs) + 4 + len(pairs))]
    logs = []
    for layer, row in f["rows"].items():
        cells = [("%.2f" % row[v]) if v in row else "" for v in vs]
        have = {v: row[v] for v in vs if v in row}
        best = min(have, key=have.get) if have else ""
        gain = row[vs[0]] / have[best] if best and vs[0] in row else None
        anc = f["anchor"].get(layer)
        vsa = anc / row[vs[0]] if anc and vs[0] in row else None
        if gain:
            logs.append(math.log(gain))
        ratios = "".join((" %.3f |" % (row[b] / row[a])) if a in row and b in row else " |" for a, b in pairs)
        out.append("| %s | %s | %s | %s | %s | %s |" % (layer, " | ".join(cells), "%.2f" % anc if anc else "",
                                                        best, "%.3f" % gain if gain else "", "%.3f" % vsa if vsa else "") +
                   ratios)
    if logs:
        out.append("")
        out.append("geomean best-variant speed-up over %s: %.3f (%d layers)" % (vs[0], math.exp(sum(logs) / len(logs)), len(logs)))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--family", default=None, help="only families matching this regex")
    a = ap.parse_args()
    with open(a.log) as fh:
        fams = parse(fh)
    if not fams:
        print("ab_log: no '=== ' sections in %s" % a.log, file=sys.stderr)
        return 1
    for fam, f in fams.items():
        if (a.family and not re.search(a.family, fam)) or not f["rows"]:
            continue
        print(table(fam, f))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
