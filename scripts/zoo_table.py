#!/usr/bin/env python3
"""scripts/zoo_table.py — one table of a layer suite against the best of cuDNN and PyTorch (issue 28's
fair benchmark) from the two CSVs one device call writes:

  igemm bench --shapes bench/zoo.csv --vs cudnn --csv CLI.csv      (ours, cuDNN's legacy call, best algorithm)
  python/bench.py --shapes bench/zoo.csv --no-compile --csv PY.csv (ours again, PyTorch F.conv2d
                                                                     channels-last, the bytes floor)

  usage: scripts/zoo_table.py CLI.csv PY.csv [--csv OUT.csv] [--ours cli|py]

Prints a markdown table — layer, path, ours, cuDNN, PyTorch, best, ours vs best, floor, floor / ours —
and the geomean of ours vs best; a layer missing from either file is listed as such, not guessed.
--ours picks which measurement of ours the ratios use (default: the CLI's, timed the same way as
cuDNN in the same process; python/bench.py times ours and PyTorch the same way in its process)."""
import argparse
import csv
import math
import sys


def read_rows(path):
    with open(path, newline="") as f:
        return {r["name"].strip('"'): r for r in csv.DictReader(f)}


def num(r, key):
    """float(r[key]) or None (absent, empty, '-', nan)."""
    if r is None:
        return None
    try:
        v = float(r.get(key, ""))
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) and v > 0 else None


def merge(cli, py, ours_from="cli"):
    """Rows (dicts) in the CLI file's order, then layers only the Python file has."""
    names = list(cli) + [n for n in py if n not in cli]
    out = []
    for n in names:
        c, p = cli.get(n), py.get(n)
        ours = num(c, "ours_us") if ours_from == "cli" else num(p, "igemm_plain_us")
        cudnn, torch_us, floor = num(c, "cudnn_us"), num(p, "eager_plain_us"), num(p, "floor_us")
        anchors = [v for v in (cudnn, torch_us) if v is not None]
        best = min(anchors) if anchors else None
        path = (c or {}).get("path") or (p or {}).get("path") or "-"
        out.append({
            "name": n, "path": path.lower(), "ours_us": ours, "cudnn_us": cudnn, "pytorch_us": torch_us,
            "best_us": best, "vs_best": best / ours if best and ours else None, "floor_us": floor,
            "floor_frac": floor / ours if floor and ours else None,
            "missing": ", ".join(w for w, r in (("CLI", c), ("python", p)) if r is None),
        })
    return out


def geomean(vals):
    vals = [v for v in vals if v]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def fmt(v, nd=1, suffix=""):
    return "-" if v is None else ("%.*f%s" % (nd, v, suffix))


def table(rows):
    lines = ["| layer | path | ours | cuDNN | PyTorch | best | ours vs best | floor | floor / ours |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"] + (" (missing: %s)" % r["missing"] if r["missing"] else ""), r["path"], fmt(r["ours_us"]),
            fmt(r["cudnn_us"]), fmt(r["pytorch_us"]), fmt(r["best_us"]), fmt(r["vs_best"], 2, "x"),
            fmt(r["floor_us"]), fmt(r["floor_frac"], 2)))
    g = geomean([r["vs_best"] for r in rows])
    n = sum(1 for r in rows if r["vs_best"])
    lines.append("")
    lines.append("geomean ours vs best-of(cuDNN, PyTorch): %s over %d layers" % (fmt(g, 3), n))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli_csv")
    ap.add_argument("py_csv")
    ap.add_argument("--csv", help="write the merged rows here too")
    ap.add_argument("--ours", choices=("cli", "py"), default="cli")
    a = ap.parse_args(argv)
    rows = merge(read_rows(a.cli_csv), read_rows(a.py_csv), a.ours)
    print(table(rows))
    if a.csv:
        keys = ["name", "path", "ours_us", "cudnn_us", "pytorch_us", "best_us", "vs_best", "floor_us", "floor_frac",
                "missing"]
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            for r in rows:
                w.writerow({k: ("" if r[k] is None else r[k]) for k in keys})
    return 0


if __name__ == "__main__":
    sys.exit(main())
