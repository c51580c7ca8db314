#!/usr/bin/env python3
"""igemm vs PyTorch eager (cuDNN) and torch.compile on the layers of shapes.csv (or zoo.csv, whose
15th column is the groups).

For every layer: plain conv, and conv + bias + residual + ReLU fused
(eager: F.relu(F.conv2d(x, w, b) + res); compiled: torch.compile of that; igemm: one call with
the fused epilogue). Times are GPU times from CUDA events around each call, median of --reps
calls after --warmup calls; the GPU is kept busy (torch.cuda._sleep) while the calls are
enqueued, so Python / launch overhead is not counted, and inputs rotate over more than twice
the L2 cache so each call reads them from HBM. cuDNN runs with torch.backends.cudnn.benchmark.
floor_us is the layer's bytes floor (x, w and y moved once at the device's measured copy rate) and
floor_frac = floor_us / igemm's plain time: the figure of merit of memory-bound layers.

    python python/bench.py [--shapes bench/shapes.csv] [--dtype bf16] \
        [--png bench_speedup.png] [--csv bench.csv] [--only REGEX] [--no-compile]
    python python/bench.py --model resnet50,mobilenet_v2 --batch 1,32   (networks:
        python/bench_models.py)
    python python/bench.py --overhead        (host cost per call: python/bench_overhead.py)

Prints a table on stdout, progress on stderr.
"""

import argparse
import math
import os
import re
import statistics
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import igemm  # noqa: E402
from bench_util import fmt, print_table, write_csv  # noqa: E402


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def default_shapes():
    env = os.environ.get("IGEMM_SHAPES")
    if env:
        return env
    return os.path.join(os.path.dirname(HERE), "bench", "shapes.csv")  # the repository's suite


def read_shapes(path):
    cols = ["n", "h", "w", "c", "k", "r", "s", "stride_h", "stride_w", "pad_h", "pad_w",
            "dil_h", "dil_w"]
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("name,"):
                continue
            parts = [p.strip() for p in line.split(",")]
            d = {"name": parts[0]}
            d.update({c: int(v) for c, v in zip(cols, parts[1:])})
            # the 15th column (bench/zoo.csv): groups, 1 where absent
            d["groups"] = int(parts[14]) if len(parts) > 14 and parts[14] else 1
            if d["c"] % d["groups"] or d["k"] % d["groups"]:
                raise ValueError("%s: c = %d, k = %d not divisible by groups = %d"
                                 % (path, d["c"], d["k"], d["groups"]))
            out.append(d)
    return out


# ------------------------------------------------------------------------------------- timing

_CYCLES_PER_MS = None


def cycles_per_ms():
    """Rate of torch.cuda._sleep, measured once."""
    global _CYCLES_PER_MS
    if _CYCLES_PER_MS is None:
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        cycles = 20_000_000
        s.record()
        torch.cuda._sleep(cycles)
        e.record()
        e.synchronize()
        _CYCLES_PER_MS = cycles / max(s.elapsed_time(e), 1e-3)
    return _CYCLES_PER_MS


def time_us(fn, arg_sets, reps, warmup):
    """Median GPU time (microseconds) of fn(*args), args rotating over arg_sets."""
    fn(*arg_sets[0])  # first call: plan creation / compilation, not counted anywhere
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(warmup):
        fn(*arg_sets[i % len(arg_sets)])
    torch.cuda.synchronize()
    cpu_per_call = (time.perf_counter() - t0) / max(warmup, 1)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    # Keep the GPU busy while the CPU enqueues all calls (capped at 2 s).
    sleep_ms = min(2000.0, 1.5 * reps * cpu_per_call * 1e3 + 1.0)
    torch.cuda._sleep(int(sleep_ms * cycles_per_ms()))
    for i in range(reps):
        a = arg_sets[(i + warmup) % len(arg_sets)]
        starts[i].record()
        fn(*a)
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends))


_DRAM_BPS = None


def dram_bytes_per_s():
    """The device's copy rate (bytes read + written per second, a 256 MiB device-to-device copy,
    well past L2, best of 5): the rate the bytes floor of a layer is computed at."""
    global _DRAM_BPS
    if _DRAM_BPS is None:
        a = torch.empty(2 ** 27, dtype=torch.float16, device="cuda")
        b = torch.empty_like(a)
        best = None
        for _ in range(5):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            b.copy_(a)
            e.record()
            e.synchronize()
            ms = s.elapsed_time(e)
            best = ms if best is None else min(best, ms)
        _DRAM_BPS = 2 * a.numel() * a.element_size() / (best * 1e-3)
        del a, b
    return _DRAM_BPS


def l2_bytes():
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return int(getattr(props, "L2_cache_size", 0) or 50 * 2 ** 20)


# -------------------------------------------------------------------------------------- bench


def bench_layer(d, args, dtype):
    n = args.batch or d["n"]
    g = d.get("groups", 1)
    stride = (d["stride_h"], d["stride_w"])
    padding = (d["pad_h"], d["pad_w"])
    dil = (d["dil_h"], d["dil_w"])
    p = (d["h"] + 2 * d["pad_h"] - d["dil_h"] * (d["r"] - 1) - 1) // d["stride_h"] + 1
    q = (d["w"] + 2 * d["pad_w"] - d["dil_w"] * (d["s"] - 1) - 1) // d["stride_w"] + 1
    cl = torch.channels_last
    esize = torch.empty((), dtype=dtype).element_size()
    x_bytes = esize * n * d["c"] * d["h"] * d["w"]
    w_bytes = esize * d["k"] * (d["c"] // g) * d["r"] * d["s"]
    y_bytes = esize * n * d["k"] * p * q
    set_bytes = x_bytes + w_bytes + 2 * y_bytes
    nsets = max(2, math.ceil(2 * l2_bytes() / set_bytes) + 1)
    nsets = min(nsets, max(2, int(args.max_rotate_gb * 2 ** 30 // set_bytes)))
    sets = []
    for _ in range(nsets):
        x = torch.randn(n, d["c"], d["h"], d["w"], device="cuda").to(dtype).contiguous(
            memory_format=cl)
        w = (torch.randn(d["k"], d["c"] // g, d["r"], d["s"], device="cuda") /
             math.sqrt(d["c"] // g * d["r"] * d["s"])).to(dtype).contiguous(memory_format=cl)
        b32 = torch.randn(d["k"], device="cuda")
        res = torch.randn(n, d["k"], p, q, device="cuda").to(dtype).contiguous(memory_format=cl)
        sets.append((x, w, b32, b32.to(dtype), res))

    def ig_plain(x, w, b32, b, res):
        return igemm.conv2d(x, w, None, stride, padding, dil, g)

    def ig_fused(x, w, b32, b, res):
        return igemm.conv2d(x, w, b32, stride, padding, dil, g, residual=res, activation="relu")

    def eager_plain(x, w, b32, b, res):
        return F.conv2d(x, w, None, stride, padding, dil, g)

    def eager_fused(x, w, b32, b, res):
        return F.relu(F.conv2d(x, w, b, stride, padding, dil, g) + res)

    row = {"name": d["name"], "n": n}
    flop = 2.0 * n * p * q * d["k"] * (d["c"] // g) * d["r"] * d["s"]
    # the bytes floor: x, w and y each moved once at the device's copy rate (plain conv)
    row["floor_us"] = (x_bytes + w_bytes + y_bytes) / dram_bytes_per_s() * 1e6
    with torch.no_grad():
        # correctness spot check against cuDNN
        a = sets[0]
        for tag, ig, ea in (("plain", ig_plain, eager_plain), ("fused", ig_fused, eager_fused)):
            yi, ye = ig(*a).float(), ea(*a).float()
            row["%s_maxrel" % tag] = float((yi - ye).abs().max() / ye.abs().max().clamp_min(1e-6))
        row["path"] = igemm.plan_info(a[0], a[1], None, stride, padding, dil, g)["path"].name
        for tag, ig, ea in (("plain", ig_plain, eager_plain), ("fused", ig_fused, eager_fused)):
            if tag == "fused" and args.no_fused:
                continue
            row["igemm_%s_us" % tag] = time_us(ig, sets, args.reps, args.warmup)
            row["eager_%s_us" % tag] = time_us(ea, sets, args.reps, args.warmup)
            if not args.no_compile:
                torch._dynamo.reset()
                comp = torch.compile(ea, dynamic=False)
                row["compile_%s_us" % tag] = time_us(comp, sets, args.reps, args.warmup)
    row["igemm_tflops"] = flop / (row["igemm_plain_us"] * 1e-6) / 1e12
    row["floor_frac"] = row["floor_us"] / row["igemm_plain_us"]
    for tag in ("plain", "fused"):
        ig = row.get("igemm_%s_us" % tag)
        for base in ("eager", "compile"):
            t = row.get("%s_%s_us" % (base, tag))
            if ig and t:
                row["%s_vs_%s" % (tag, base)] = t / ig
    del sets
    torch.cuda.empty_cache()
    return row


COLUMNS = ["name", "n", "igemm_plain_us", "eager_plain_us", "compile_plain_us", "plain_vs_eager",
           "plain_vs_compile", "igemm_fused_us", "eager_fused_us", "compile_fused_us",
           "fused_vs_eager", "fused_vs_compile", "igemm_tflops", "floor_us", "floor_frac",
           "plain_maxrel", "fused_maxrel", "path"]


def geomean(vals):
    vals = [v for v in vals if v]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def write_png(rows, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = [(k, lbl) for k, lbl in (("plain_vs_eager", "conv vs cuDNN eager"),
                                      ("plain_vs_compile", "conv vs torch.compile"),
                                      ("fused_vs_eager", "fused vs eager"),
                                      ("fused_vs_compile", "fused vs torch.compile"))
              if any(r.get(k) for r in rows)]
    names = [r["name"] for r in rows]
    fig, ax = plt.subplots(figsize=(max(10, 0.45 * len(rows) + 3), 6))
    width = 0.8 / max(1, len(series))
    for i, (k, lbl) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(rows))]
        ax.bar(xs, [r.get(k) or 0 for r in rows], width, label=lbl)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(names, rotation=75, ha="right", fontsize=8)
    ax.set_ylabel("speedup of igemm (x, higher is better)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main():
    if any(a == "--model" or a.startswith("--model=") for a in sys.argv[1:]):
        import bench_models  # whole networks: python/bench_models.py
        bench_models.main(sys.argv[1:])
        return
    if "--overhead" in sys.argv[1:]:
        import bench_overhead  # host cost per call: python/bench_overhead.py
        bench_overhead.main([a for a in sys.argv[1:] if a != "--overhead"])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default=default_shapes())
    ap.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    ap.add_argument("--reps", type=int, default=100, help="timed calls per measurement (>= 50)")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--batch", type=int, default=0, help="override every layer's batch")
    ap.add_argument("--only", default="", help="regex on layer names")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--no-fused", action="store_true", help="skip the fused epilogue runs")
    ap.add_argument("--max-rotate-gb", type=float, default=8.0,
                    help="cap on the rotated input sets' memory")
    ap.add_argument("--png", default="bench_speedup.png")
    ap.add_argument("--csv", default="")
    args = ap.parse_args()
    if args.reps < 50:
        ap.error("--reps must be >= 50")
    if not torch.cuda.is_available():
        sys.exit("bench.py needs a CUDA GPU")
    torch.backends.cudnn.benchmark = True
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    shapes = read_shapes(args.shapes)
    if args.only:
        shapes = [d for d in shapes if re.search(args.only, d["name"])]
    dev = torch.cuda.get_device_name()
    log("igemm %s (%s) on %s, torch %s, %d layers, %s" % (
        igemm.library_version(), igemm.library_path(), dev, torch.__version__, len(shapes),
        args.dtype))
    rows = []
    for i, d in enumerate(shapes):
        t0 = time.time()
        log("[%d/%d] %s ..." % (i + 1, len(shapes), d["name"]))
        try:
            row = bench_layer(d, args, dtype)
        except Exception as e:  # keep going: one failing layer should not lose the others
            log("  FAILED: %s: %s" % (type(e).__name__, e))
            row = {"name": d["name"], "path": "FAILED: %s" % type(e).__name__}
        rows.append(row)
        log("  %.1fs  %s" % (time.time() - t0, "  ".join(
            "%s=%s" % (k, fmt(row.get(k))) for k in ("igemm_plain_us", "eager_plain_us",
                                                      "compile_plain_us", "plain_vs_eager"))))
    cols = [c for c in COLUMNS if any(r.get(c) is not None for r in rows)]
    summary = {"name": "geomean"}
    for k in ("plain_vs_eager", "plain_vs_compile", "fused_vs_eager", "fused_vs_compile"):
        summary[k] = geomean([r.get(k) for r in rows])
    print("# igemm vs PyTorch on %s (%s), median GPU us of %d calls" % (dev, args.dtype, args.reps))
    print_table(rows + [summary], cols)
    if args.csv:
        write_csv(rows, cols, args.csv)
        log("wrote %s" % args.csv)
    if args.png:
        ok = [r for r in rows if r.get("plain_vs_eager")]
        if ok:
            write_png(ok, args.png, "igemm speedup on %s (%s)" % (dev, args.dtype))
            log("wrote %s" % args.png)


if __name__ == "__main__":
    main()
