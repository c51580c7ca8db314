#!/usr/bin/env bash
# scripts/ab_bench.sh — A/B two builds (or two planner settings of one build) in one device call:
# bf16 over the suite, ours only, interleaved (old, new, old, new), best of the runs per layer,
# and the geomean of new against old. Differences under ~5% between separate device calls are
# noise; this is how to decide them (docs/decisions.md "bench-method", S3-4, S11-1).
#   usage: OUT=dir scripts/ab_bench.sh OLD_DIR [NEW_DIR]
#   OLD_DIR/NEW_DIR hold an `igemm` CLI and its libigemm.so.0 (NEW_DIR defaults to build/);
#   carry OLD_DIR to the device (e.g. out/old: git ignores out/).
#   AB_OLD_HINTS / AB_NEW_HINTS: plan hints ("key=value,key=value", include/igemm.h) passed as
#   `igemm bench --hints` to the old / new runs: one build, two planner settings, e.g.
#   AB_OLD_HINTS=kernel=cooperative AB_NEW_HINTS=kernel=pingpong scripts/ab_bench.sh build build
#   (left empty, no --hints is passed, so a build from before the hints can be the old one);
#   AB_OLD_ENV / AB_NEW_ENV: VAR=value words set in the environment of the old / new runs;
#   AB_FUSED=1 times the fused conv+bias+residual+ReLU instead of the plain conv; AB_GEMM=1 plans the
#   suite's lines as GEMMs (`bench --gemm`, name,m,n,k); AB_REPS (default 2) rounds of (old, new),
#   the best of them per layer. The suite: $IGEMM_SHAPES, else bench/shapes.csv. Every timed layer
#   counts, whatever its path (sm90, memory, general, ...); each CLI runs with its own directory
#   first on LD_LIBRARY_PATH (which outranks the CLI's $ORIGIN runpath), so an exported path cannot
#   give both sides one library.
set -uo pipefail
OLD=${1:?usage: OUT=dir scripts/ab_bench.sh OLD_DIR [NEW_DIR]}
NEW=${2:-build}
OUT=${OUT:-out}
mkdir -p "$OUT"
S=${IGEMM_SHAPES:-bench/shapes.csv}
[ -f "$S" ] || { echo "ab_bench: shape file $S not found (run from the repository root, or set IGEMM_SHAPES)"; exit 2; }
: > "$OUT/ab.log"
for rep in $(seq 1 ${AB_REPS:-2}); do
  for v in old new; do
    if [ $v = old ]; then B=$OLD/igemm; E=${AB_OLD_ENV:-}; H=${AB_OLD_HINTS:-}; else B=$NEW/igemm; E=${AB_NEW_ENV:-}; H=${AB_NEW_HINTS:-}; fi
    LD_LIBRARY_PATH="$(dirname "$B")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 150 env $E "$B" bench \
      ${AB_GEMM:+--gemm} ${AB_FUSED:+--fused} ${H:+--hints "$H"} --shapes "$S" --iters 40 --warmup 5 2>/dev/null |
      awk -v v=$v '$2 ~ /^(sm90|sm80|memory|general|direct)$/ && $NF == "ok" {print v, $1, $3}' >> "$OUT/ab.log"
  done
done
python3 - "$OUT/ab.log" <<'PY'
import sys, collections, math
t = collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(sys.argv[1]):
    v, n, us = l.split()
    t[n][v].append(float(us))
g = []
for n, d in t.items():
    if not d['old'] or not d['new']:
        continue
    o, w = min(d['old']), min(d['new'])
    g.append(math.log(o / w))
    print('%-22s old %8.2f new %8.2f  new/old %.3f' % (n, o, w, w / o))
if g:
    print('geomean speedup of new over old: %.3f over %d layers' % (math.exp(sum(g) / len(g)), len(g)))
else:
    print('no layers timed (check the builds and the shape file)')
PY
