#!/usr/bin/env python3
"""Host cost per call: igemm's torch entry points against F.conv2d on the same tensors.

    python python/bench_overhead.py [--calls 2000] [--groups 7] [--csv overhead.csv]
    python python/bench.py --overhead                        (the same, through bench.py)

A tiny layer (batch 1, 8 -> 8 channels, 8 x 8, 3 x 3, bf16, channels_last) keeps the GPU time
per call far below the host time, so the wall-clock time of `--calls` back-to-back calls
(synchronised once at the end) divided by the count is the host cost of one call: argument
checks, dispatch, plan lookup, output allocation, launch. After a warm-up (plans created, caches
filled) the cases are timed in turn, round after round (--groups rounds, so a drift of the host's
speed hits every case alike), and each row is its median over the rounds. Rows:
  F.conv2d                     torch's own conv (cuDNN), plain
  igemm.conv2d                 the public function, plain
  torch.ops.igemm.conv2d       the custom op called directly (what torch.compile records)
  optimized Sequential         igemm.optimize(Conv2d, BN, ReLU): its fx module around one IgemmConv2d
  IgemmConv2d                  that IgemmConv2d module alone (what each conv of a network costs)
  plan.run (floor)             the cached plan's ctypes call alone on preallocated tensors: the
                               library's validation, tensor-map reuse and launch (no allocation)
  eager conv+bias+res+relu     F.relu(F.conv2d(x, w, b) + res): torch's three calls
  igemm.conv2d fused           the same in one igemm call
and, with --breakdown, the pieces of igemm.conv2d's prepared path (output allocation two ways,
the prepared call's launch alone) and a cProfile of igemm.conv2d calls (on stderr).
Prints a table (us per call, and the ratio to F.conv2d); --csv writes it.
"""

import argparse
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import igemm  # noqa: E402
from bench_util import print_table, write_csv  # noqa: E402


def per_call_us(fn, calls):
    """Wall-clock us per call of `calls` back-to-back calls, synchronised at the end."""
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e6 / calls


def interleaved(cases, calls, groups):
    """Median per case over `groups` rounds, each round timing every case once in turn (so
    host-speed drifts hit all cases alike), after a warm-up of each."""
    for _, fn in cases:
        for _ in range(max(10, calls // 10)):
            fn()
    torch.cuda.synchronize()
    times = {name: [] for name, _ in cases}
    for _ in range(groups):
        for name, fn in cases:
            times[name].append(per_call_us(fn, calls))
    return {name: statistics.median(v) for name, v in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--groups", type=int, default=9)
    ap.add_argument("--csv", default="")
    ap.add_argument("--breakdown", action="store_true",
                    help="also time the pieces of the prepared path and cProfile igemm.conv2d")
    args = ap.parse_args(argv)
    if args.calls < 1 or args.groups < 1:
        ap.error("--calls and --groups must be >= 1")
    if not torch.cuda.is_available():
        ap.error("needs a CUDA device")
    dev, dt = "cuda", torch.bfloat16
    cl = torch.channels_last
    g = torch.Generator(device="cpu").manual_seed(0)
    x = torch.randn(1, 8, 8, 8, generator=g).to(dev, dt).contiguous(memory_format=cl)
    w = torch.randn(8, 8, 3, 3, generator=g).to(dev, dt).contiguous(memory_format=cl)
    b = torch.randn(8, generator=g).to(dev)
    bb = b.to(dt)
    res = torch.randn(1, 8, 8, 8, generator=g).to(dev, dt).contiguous(memory_format=cl)
    conv = torch.nn.Sequential(torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.BatchNorm2d(8),
                               torch.nn.ReLU()).eval()
    mod = igemm.optimize(conv, dtype=dt).to(dev)
    op = torch.ops.igemm.conv2d.default
    from igemm._optimize import IgemmConv2d
    imod = [m for m in mod.modules() if isinstance(m, IgemmConv2d)][0]
    plan = igemm._torch.get_plan(x, w, None, 1, 1)
    y = torch.empty_like(x)
    xp, wp, yp = x.data_ptr(), w.data_ptr(), y.data_ptr()
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    with torch.no_grad():
        cases = [
            ("F.conv2d", lambda: F.conv2d(x, w, None, 1, 1)),
            ("igemm.conv2d", lambda: igemm.conv2d(x, w, None, 1, 1)),
            ("torch.ops.igemm.conv2d", lambda: op(x, w, None, None, None, [1, 1], [1, 1, 1, 1],
                                                  [1, 1], 1, 1.0, 1.0, "none", 0.01, None)),
            ("optimized Sequential", lambda: mod(x)),
            ("IgemmConv2d", lambda: imod(x)),
            ("plan.run (floor)", lambda: plan.run(xp, wp, None, None, None, yp, stream)),
            ("eager conv+bias+res+relu", lambda: F.relu(F.conv2d(x, w, bb, 1, 1) + res)),
            ("igemm.conv2d fused", lambda: igemm.conv2d(x, w, b, 1, 1, residual=res,
                                                        activation="relu")),
        ]
        if args.breakdown:
            from igemm import _torch as tb
            igemm.conv2d(x, w, None, 1, 1)
            call = [c for k, c in tb._calls.items() if k[0] == 0 and k[1] == x.shape
                    and k[11] is None and k[13] is None and k[16] is None][0]
            shape, strides = call.shape, call.strides
            cases += [
                ("torch.empty_strided", lambda: torch.empty_strided(shape, strides, dtype=dt,
                                                                    device=call.device)),
                ("x.new_empty_strided", lambda: x.new_empty_strided(shape, strides)),
                ("prepared launch", lambda: call.launch(x, w, None, None, None)),
            ]
        med = interleaved(cases, args.calls, args.groups)
        base = med[cases[0][0]]
        for name, _ in cases:
            us = med[name]
            rows.append({"call": name, "us_per_call": us, "vs_F.conv2d": us / base})
            print("  %-26s %8.2f us  %5.2fx F.conv2d" % (name, us, us / base), file=sys.stderr,
                  flush=True)
        if args.breakdown:
            import cProfile
            import pstats
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(args.calls):
                igemm.conv2d(x, w, None, 1, 1)
            prof.disable()
            torch.cuda.synchronize()
            pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(15)
    cols = ["call", "us_per_call", "vs_F.conv2d"]
    print("host cost per call, %s, torch %s" % (torch.cuda.get_device_name(), torch.__version__))
    print_table(rows, cols)
    if args.csv:
        write_csv(rows, cols, args.csv)
    return rows


if __name__ == "__main__":
    main()
