#!/usr/bin/env python3
"""Whole networks: igemm.optimize against torch eager and torch.compile, with and without CUDA
graphs, and the accuracy of each against the float32 model.

    python python/bench_models.py [--model resnet50,mobilenet_v2] [--batch 1,32] [--dtype bf16]
        [--csv models.csv] [--png models.png] [--reps 30] [--image 224] [--device cuda]
    python python/bench.py --model resnet50 --batch 1,32     (the same, through bench.py)

torchvision models with random weights (no downloads) and randomised BatchNorm statistics (so
the fold is really tested), in eval mode, `dtype`, channels_last. Variants:
  eager            the model as torch runs it (cuDNN)
  compile          torch.compile(model) (default mode)
  compile-max      torch.compile(model, mode="max-autotune-no-cudagraphs")
  igemm            igemm.optimize(model): convs on igemm, BN folded, activation/residual fused
                   (depthwise and narrow-group convs too: grouped="fast", the default; other
                   grouped convs in torch)
  igemm-tg         igemm.optimize(model, grouped=False): grouped and depthwise convs in torch (only
                   with --variants)
  igemm-dw         igemm.optimize(model, grouped="depthwise"): depthwise convs on igemm, the other
                   grouped ones in torch (the default before 2026-11-28; only with --variants)
  igemm-all        igemm.optimize(model, grouped=True): every grouped and depthwise conv too (only
                   with --variants)
  ... + "+graph"   the same captured in a CUDA graph and replayed
Time per forward: CUDA events around --reps back-to-back calls (eager variants: host cost
included, as a user meets it) or replays, median of 5 such groups, after warm-up. Error: max
|y - y_fp32| / max |y_fp32| of the logits. --device cpu runs eager and igemm in float32 (a
smoke test of the harness and the rewrite; no speed meaning).

Prints a table on stdout, progress on stderr; writes CSV and PNG when asked.
"""

import argparse
import os
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import igemm  # noqa: E402
from bench_util import print_table, write_csv  # noqa: E402

DEFAULT_MODELS = ("resnet18,resnet50,resnext50_32x4d,mobilenet_v2,mobilenet_v3_large,"
                  "efficientnet_b0,convnext_tiny,regnet_y_400mf,vgg16")
VARIANTS = ("eager", "compile", "compile-max", "igemm")
EXTRA_VARIANTS = ("igemm-tg", "igemm-dw", "igemm-all")  # optimize(grouped=False / "depthwise" / True): by --variants


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def randomize_bn(model, seed=0):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
                m.running_mean.copy_(torch.rand(m.running_mean.shape, generator=g) * 0.2 - 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) * 0.5 + 0.75)
                if m.weight is not None:
                    m.weight.copy_(torch.rand(m.weight.shape, generator=g) * 0.5 + 0.75)
                    m.bias.copy_(torch.rand(m.bias.shape, generator=g) * 0.2 - 0.1)
    return model


def build(name):
    import torchvision
    torch.manual_seed(0)
    return randomize_bn(getattr(torchvision.models, name)(weights=None)).eval()


def rel_err(ref, y):
    ref, y = ref.double(), y.double()
    return ((ref - y).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


def time_ms(fn, reps, groups=5, device="cuda"):
    """Median over `groups` of the mean time of `reps` back-to-back calls (ms)."""
    out = []
    for _ in range(groups):
        if device == "cuda":
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            s.record()
            for _ in range(reps):
                fn()
            e.record()
            e.synchronize()
            out.append(s.elapsed_time(e) / reps)
        else:
            t0 = time.perf_counter()
            for _ in range(reps):
                fn()
            out.append((time.perf_counter() - t0) * 1e3 / reps)
    return statistics.median(out)


def graphed(fn, x):
    """fn captured in a CUDA graph on a static copy of x; returns (replay, static_out)."""
    static_x = x.clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn(static_x)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_y = fn(static_x)
    return g.replay, static_y


def bench_model(name, batch, args, dtype, device):
    model = build(name).to(device)
    x32 = torch.randn(batch, 3, args.image, args.image, device=device)
    with torch.no_grad():
        ref = model(x32).float()
    x = x32.to(dtype).contiguous(memory_format=torch.channels_last)
    base = model.to(dtype).to(memory_format=torch.channels_last)
    fns = {}
    for v in args.variants:
        if v == "eager":
            fns[v] = base
        elif v == "compile" and device == "cuda":
            fns[v] = torch.compile(base)
        elif v == "compile-max" and device == "cuda":
            fns[v] = torch.compile(base, mode="max-autotune-no-cudagraphs")
        elif v == "igemm":
            fns[v] = igemm.optimize(build(name).to(device), dtype=dtype)
        elif v == "igemm-tg":
            fns[v] = igemm.optimize(build(name).to(device), dtype=dtype, grouped=False)
        elif v == "igemm-dw":
            fns[v] = igemm.optimize(build(name).to(device), dtype=dtype, grouped="depthwise")
        elif v == "igemm-all":
            fns[v] = igemm.optimize(build(name).to(device), dtype=dtype, grouped=True)
    rows = []
    for v, fn in fns.items():
        row = {"model": name, "batch": batch, "variant": v}
        t0 = time.perf_counter()
        try:
            with torch.no_grad():
                y = fn(x)  # compilation / plan creation happens here, not timed
                for _ in range(args.warmup):
                    y = fn(x)
                row["err"] = rel_err(ref, y.float())
                row["ms"] = time_ms(lambda: fn(x), args.reps, device=device)
                if device == "cuda" and not args.no_graphs:
                    replay, gy = graphed(fn, x)
                    replay()
                    torch.cuda.synchronize()
                    row["graph_ms"] = time_ms(replay, args.reps)
                    row["graph_err"] = rel_err(ref, gy.float())
        except Exception as e:  # one variant failing must not lose the others
            row["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:120])
        log("  %-20s b%-3d %-12s %s (%.0f s)" % (name, batch, v,
            row.get("error") or "%.3f ms%s" % (row["ms"], ", graph %.3f ms" % row["graph_ms"]
                                              if "graph_ms" in row else ""),
            time.perf_counter() - t0))
        rows.append(row)
    # speedups of igemm over each other variant, same graph mode
    ig = next((r for r in rows if r["variant"] == "igemm" and "ms" in r), None)
    for r in rows:
        if ig is not None and "ms" in r:
            r["igemm_x"] = r["ms"] / ig["ms"]
            if "graph_ms" in r and "graph_ms" in ig:
                r["igemm_graph_x"] = r["graph_ms"] / ig["graph_ms"]
    return rows


COLS = ["model", "batch", "variant", "ms", "graph_ms", "igemm_x", "igemm_graph_x", "err",
        "graph_err", "error"]


def write_png(rows, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = sorted({(r["model"], r["batch"]) for r in rows}, key=lambda k: (k[1], k[0]))
    series = [(v, g) for v in VARIANTS for g in (False, True)
              if any(r["variant"] == v and (("graph_ms" if g else "ms") in r) for r in rows)]
    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(keys) + 3), 5.5))
    width = 0.8 / max(1, len(series))
    for i, (v, g) in enumerate(series):
        col = "graph_ms" if g else "ms"
        vals = []
        for k in keys:
            r = next((r for r in rows if (r["model"], r["batch"]) == k and r["variant"] == v), {})
            vals.append(r.get(col) or 0)
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(keys))]
        ax.bar(xs, vals, width, label=v + (" + CUDA graph" if g else ""))
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels(["%s\nbatch %d" % k for k in keys], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("ms per forward (lower is better)")
    ax.set_title(title)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=DEFAULT_MODELS, help="comma-separated torchvision names")
    ap.add_argument("--batch", default="1,32", help="comma-separated batch sizes")
    ap.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--image", type=int, default=224, help="input height and width")
    ap.add_argument("--reps", type=int, default=30, help="calls per timed group")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--no-graphs", action="store_true", help="skip the CUDA-graph variants")
    ap.add_argument("--csv", default="")
    ap.add_argument("--png", default="")
    args = ap.parse_args(argv)
    try:
        batches = [int(b) for b in args.batch.split(",") if b]
    except ValueError:
        ap.error("--batch %r: expected comma-separated integers" % args.batch)
    if not batches or min(batches) < 1:
        ap.error("--batch %r: expected batch sizes >= 1" % args.batch)
    args.variants = [v for v in args.variants.split(",") if v]
    bad = [v for v in args.variants if v not in VARIANTS + EXTRA_VARIANTS]
    if bad:
        ap.error("--variants: unknown %s (expected some of %s)" % (bad, ",".join(VARIANTS + EXTRA_VARIANTS)))
    device = args.device
    if device == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda: no CUDA device (use --device cpu for a smoke run)")
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    if device == "cpu":
        dtype = torch.float32
        args.variants = [v for v in args.variants if v in ("eager", "igemm", "igemm-tg", "igemm-dw", "igemm-all")]
    models = [m for m in args.model.split(",") if m]
    rows = []
    for i, name in enumerate(models):
        for b in batches:
            log("[%d/%d] %s batch %d" % (i + 1, len(models), name, b))
            rows += bench_model(name, b, args, dtype, device)
        save(rows, args, device, final=i + 1 == len(models))  # after each model: a cut-off run keeps them
    print_table(rows, [c for c in COLS if any(c in r for r in rows)])
    return rows


def save(rows, args, device, final):
    cols = [c for c in COLS if any(c in r for r in rows)]
    if args.csv:
        write_csv(rows, cols, args.csv)
        if final:
            log("wrote", args.csv)
    if args.png:
        dev = torch.cuda.get_device_name() if device == "cuda" else "cpu"
        try:
            write_png(rows, args.png, "networks, %s, %s" % (args.dtype if device == "cuda"
                                                             else "fp32", dev))
            if final:
                log("wrote", args.png)
        except ImportError:
            if final:
                log("matplotlib is not installed: no PNG (pip install matplotlib)")


if __name__ == "__main__":
    main()
