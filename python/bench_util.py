"""Table and CSV output shared by the benchmarks (bench.py, bench_models.py,
bench_overhead.py)."""


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        if abs(v) < 1e-2 and v != 0:
            return "%.1e" % v
        return "%.2f" % v if abs(v) < 100 else "%.1f" % v
    return str(v)


def print_table(rows, cols):
    cells = [[fmt(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(wd) if i == 0 else c.rjust(wd) for i, (c, wd) in enumerate(zip(cols, widths))))
    for row in cells:
        print("  ".join(v.ljust(wd) if i == 0 else v.rjust(wd) for i, (v, wd) in enumerate(zip(row, widths))))


def write_csv(rows, cols, path):
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join("" if r.get(c) is None else
                             ("%.4g" % r[c] if isinstance(r[c], float) else str(r[c]).replace(",", ";"))
                             for c in cols) + "\n")
