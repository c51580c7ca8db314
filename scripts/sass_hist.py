#!/usr/bin/env python3
"""sass_hist.py — per-kernel SASS instruction histograms of the sm90 objects of a build, and the
difference between two builds (behaviour-preserving refactors: the kernels' code must not move).

    scripts/sass_hist.py BUILD_DIR                 # one line per kernel: key, instructions, top opcodes
    scripts/sass_hist.py OLD_BUILD NEW_BUILD       # per kernel: identical / histogram difference

A kernel's key is its canonical configuration (kernel kind, dtype, tile, epilogue kind, ...) read
from the demangled template arguments, so that the same instance compiled from differently named
templates (an old monolithic one, a per-variant one) pairs up. With --exact, the instruction
streams (opcodes and operands, register names included) are compared, not only the histograms.
Needs cuobjdump (CUDA toolkit) and c++filt.
"""
import collections
import glob
import os
import re
import shutil
import subprocess
import sys

CUOBJDUMP = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump") or os.path.join(
    os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "cuobjdump")
KINDS = {"cooperative", "pingpong", "pixels_n", "pixels_n_pingpong", "halo_rows", "split_cluster", "stem_rows"}


def canon(name):
    """Canonical key of a demangled kernel name, or None for kernels that are not instances."""
    m = re.match(r"(?:void )?(\w+)<(.*)>\(", name)
    if not m:
        return name.split("(")[0]
    fn, args = m.group(1), [a.strip() for a in m.group(2).split(",")]
    args = [a.replace("(igemm_dtype_t)", "") for a in args]
    if fn == "igemm_sm90_conv2d_fprop_kernel":
        # DT, BN, WM, EPI, TMA_EPI, NC, PP, TP, BRES, [GA,] SKC, HALO, HROWS
        if len(args) == 13:
            dt, bn, wm, epi, tma, nc, pp, tp, bres, ga, skc, halo, hrows = args
            if ga == "true":
                return "gathered-a/" + "/".join(args)
        else:
            dt, bn, wm, epi, tma, nc, pp, tp, bres, skc, halo, hrows = args
        pp, bres, skc, halo = pp == "true", bres == "true", skc == "true", halo == "true"
        tp = int(tp)
        kind = ("halo_rows" if halo else "split_cluster" if skc else
                ("pixels_n_pingpong" if pp else "pixels_n") if tp else "pingpong" if pp else "cooperative")
        return f"{kind} dt{dt} bn{bn} wm{wm} nc{nc} tp{tp} epi{epi} tma{int(tma == 'true')} bres{int(bres)} rows{hrows}"
    if fn.startswith("igemm_sm90_conv_"):
        # the per-variant kernels: igemm_sm90_conv_<kind><DT, BN, WM, EPI, TMA_EPI, NC, TP, BRES, HROWS>
        kind = fn[len("igemm_sm90_conv_"):]
        dt, bn, wm, epi, tma, nc, tp, bres, hrows = args
        return f"{kind} dt{dt} bn{bn} wm{wm} nc{nc} tp{tp} epi{epi} tma{int(tma == 'true')} bres{int(bres == 'true')} rows{hrows}"
    return fn + "<" + ",".join(args) + ">"


def kernels(build):
    """{key: [instruction lines]} over build/src/sm90/**/*.o (and generated instances)."""
    out = {}
    objs = sorted(glob.glob(os.path.join(build, "src", "sm90", "**", "*.o"), recursive=True) +
                  glob.glob(os.path.join(build, "gen", "**", "*.o"), recursive=True))
    for obj in objs:
        sass = subprocess.run([CUOBJDUMP, "--dump-sass", obj], capture_output=True, text=True).stdout
        cur = None
        for line in sass.splitlines():
            m = re.match(r"\s*Function : (\S+)", line)
            if m:
                dem = subprocess.run(["c++filt", m.group(1)], capture_output=True, text=True).stdout.strip()
                cur = canon(dem)
                out[cur] = []
                continue
            m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
            if m and cur is not None:
                out[cur].append(m.group(1).strip())
    return out


def hist(ins):
    return collections.Counter(i.split()[0] if not i.startswith("@") else i.split()[1] for i in ins)


def main(argv):
    exact = "--exact" in argv
    argv = [a for a in argv if a != "--exact"]
    if len(argv) == 1:
        for k, ins in sorted(kernels(argv[0]).items()):
            h = hist(ins)
            top = " ".join(f"{op}:{n}" for op, n in h.most_common(6))
            print(f"{k}: {len(ins)} instructions; {top}")
        return 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    old, new = kernels(argv[0]), kernels(argv[1])
    same = differ = 0
    for k in sorted(set(old) | set(new)):
        if k not in new:
            print(f"only old: {k}")
            continue
        if k not in old:
            print(f"only new: {k}")
            continue
        a, b = old[k], new[k]
        if (a == b) if exact else (hist(a) == hist(b)):
            same += 1
            continue
        differ += 1
        ha, hb = hist(a), hist(b)
        d = {op: hb[op] - ha[op] for op in set(ha) | set(hb) if hb[op] != ha[op]}
        ds = " ".join(f"{op}{v:+d}" for op, v in sorted(d.items(), key=lambda t: -abs(t[1]))[:10])
        print(f"differ: {k}: {len(a)} -> {len(b)} instructions; {ds if ds else '(same histogram, other order)'}")
    print(f"{same} kernels {'identical' if exact else 'with identical histograms'}, {differ} differ")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
