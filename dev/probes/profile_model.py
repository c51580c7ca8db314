#!/usr/bin/env python3
"""Where a network's time goes under a CUDA graph: the kernels of igemm.optimize(model) and of
torch.compile(model), each graph replayed under torch.profiler (CUPTI sees the kernels inside
graph replays). Prints, per variant, the event-timed replay, the summed kernel time (the rest
is launch gaps inside the graph) and the kernels by total time.

    PYTHONPATH=python python dev/probes/profile_model.py [--model resnet50] [--batch 1,32]
"""

import argparse
import collections
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import igemm  # noqa: E402
from bench_models import build, graphed, time_ms  # noqa: E402


def profile(replay, reps=20):
    from torch.profiler import ProfilerActivity, profile as prof
    for _ in range(5):
        replay()
    torch.cuda.synchronize()
    with prof(activities=[ProfilerActivity.CUDA]) as p:
        for _ in range(reps):
            replay()
        torch.cuda.synchronize()
    tot = collections.defaultdict(float)
    cnt = collections.Counter()
    for ev in p.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA and ev.name and "Memcpy" not in ev.name:
            tot[ev.name] += ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
            cnt[ev.name] += 1
    return {k: v / reps for k, v in tot.items()}, {k: c // reps for k, c in cnt.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="resnet50")
    ap.add_argument("--batch", default="1,32")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    dt = torch.bfloat16
    for batch in [int(b) for b in a.batch.split(",")]:
        model = build(a.model).cuda()
        x = torch.randn(batch, 3, 224, 224, device="cuda").to(dt).contiguous(
            memory_format=torch.channels_last)
        base = model.to(dt).to(memory_format=torch.channels_last)
        variants = {"igemm": igemm.optimize(base, dtype=dt), "compile": torch.compile(base)}
        with torch.no_grad():
            for name, m in variants.items():
                replay, _ = graphed(m, x)
                ms = time_ms(replay, 50)
                per, cnt = profile(replay)
                busy = sum(per.values()) / 1e3
                print("== %s batch %d %s: replay %.3f ms, kernels %.3f ms (%d launches), gaps "
                      "%.3f ms" % (a.model, batch, name, ms, busy, sum(cnt.values()), ms - busy))
                for k, v in sorted(per.items(), key=lambda kv: -kv[1])[:a.top]:
                    print("  %8.1f us  x%-3d %s" % (v, cnt[k], k[:110]))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
