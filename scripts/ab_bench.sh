#!/usr/bin/env bash
# tools/ab_bench.sh — A/B two builds in one device call: plain bf16 over the suite, ours only,
# interleaved (old, new, old, new), best of the two runs per layer, and the geomean of
# new against old. Differences under ~5% between separate device calls are noise; this is
# how to decide them (docs/perf.md S3-4).
#   usage: OUT=dir tools/ab_bench.sh OLD_DIR [NEW_DIR]
#   OLD_DIR/NEW_DIR hold an `igemm` CLI and its libigemm.so.0 (NEW_DIR defaults to build/);
#   carry OLD_DIR to the device (e.g. out/old: git ignores out/).
#   AB_OLD_ENV / AB_NEW_ENV: VAR=value words set for the old / new runs (one build, two planner
#   settings: AB_OLD_ENV=IGEMM_SM90_CLUSTER=1 AB_NEW_ENV=IGEMM_SM90_CLUSTER=2 tools/ab_bench.sh build);
#   AB_FUSED=1 times the fused conv+bias+residual+ReLU instead of the plain conv; AB_REPS (default 2)
#   rounds of (old, new), the best of them per layer.
set -uo pipefail
OLD=${1:?usage: OUT=dir tools/ab_bench.sh OLD_DIR [NEW_DIR]}
NEW=${2:-build}
OUT=${OUT:-out}
mkdir -p "$OUT"
S=${IGEMM_SHAPES:-bench/shapes.csv}
[ -f "$S" ] || S=../shared/bench/shapes.csv
: > "$OUT/ab.log"
for rep in $(seq 1 ${AB_REPS:-2}); do
  for v in old new; do
    if [ $v = old ]; then B=$OLD/igemm; else B=$NEW/igemm; fi
    if [ $v = old ]; then E=${AB_OLD_ENV:-}; else E=${AB_NEW_ENV:-}; fi
    timeout 150 env $E "$B" bench ${AB_FUSED:+--fused} --shapes "$S" --iters 40 --warmup 5 2>/dev/null | grep " sm90 " | awk -v v=$v '{print v, $1, $3}' >> "$OUT/ab.log"
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
