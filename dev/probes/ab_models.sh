#!/usr/bin/env bash
# dev/probes/ab_models.sh — on the GPU machine: a network's CUDA-graph replay under several builds
# of the library, interleaved, one process per run (python/bench_models.py, IGEMM_LIBRARY).
#   A  the working tree            B  A + the sed script $AB_SED applied to src/sm90/heuristics.c
#   O  out/old_src.tar (git archive of the baseline, carried)   OB  O + $AB_SED
# (B and OB only with AB_SED; the script decided decisions.md "pdl-small-grids".)
# AB_MODEL (resnet50), AB_BATCH (1), AB_REPS (2). Logs: $OUT/ab_models.log, $OUT/ab_models.csv.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"; L=$OUT/ab_models.log; : > "$L"
ROOT=$PWD
build_lib() { # $1 tree, $2 name, $3 sed file or ""
  (cd "$1" && { [ -z "$3" ] || sed -i -f "$3" src/sm90/heuristics.c; } && make -j16 build/libigemm.so HAVE_CUDA=1 > /tmp/b_$2.log 2>&1) \
    || { echo "build $2 FAILED" >> "$L"; tail -20 /tmp/b_$2.log >> "$L"; return 1; }
  mkdir -p /tmp/libs/$2 && cp -L "$1/build/libigemm.so" /tmp/libs/$2/libigemm.so && echo "built $2" >> "$L"
}
rm -rf /tmp/abA /tmp/abO && mkdir -p /tmp/abA /tmp/abO
tar -cf - --exclude=./out --exclude=./build --exclude=./.git . | tar -xf - -C /tmp/abA
[ -f out/old_src.tar ] && tar -xf out/old_src.tar -C /tmp/abO
SED=${AB_SED:+$ROOT/$AB_SED}
build_lib /tmp/abA A "" && { [ -z "$SED" ] || build_lib /tmp/abA B "$SED"; }
[ -f out/old_src.tar ] && build_lib /tmp/abO O "" && { [ -z "$SED" ] || build_lib /tmp/abO OB "$SED"; }
M=${AB_MODEL:-resnet50}; B=${AB_BATCH:-1}
PYTHONPATH=$ROOT/python IGEMM_LIBRARY=/tmp/libs/A/libigemm.so timeout 200 python3 python/bench_models.py --model $M --batch $B \
  --variants compile --csv /tmp/ab_compile.csv >> "$L" 2>&1
echo "variant,rep,model,batch,ms,graph_ms" > "$OUT/ab_models.csv"
tail -n +2 /tmp/ab_compile.csv | awk -F, '{print "compile,0," $1 "," $2 "," $4 "," $5}' >> "$OUT/ab_models.csv"
for rep in $(seq 1 ${AB_REPS:-2}); do
  for v in O A B OB; do
    [ -f /tmp/libs/$v/libigemm.so ] || continue
    PYTHONPATH=$ROOT/python IGEMM_LIBRARY=/tmp/libs/$v/libigemm.so timeout 120 python3 python/bench_models.py --model $M \
      --batch $B --variants igemm --csv /tmp/ab_$v.csv >> "$L" 2>&1
    tail -n +2 /tmp/ab_$v.csv | awk -F, -v v=$v -v r=$rep '{print v "," r "," $1 "," $2 "," $4 "," $5}' >> "$OUT/ab_models.csv"
  done
done
cat "$OUT/ab_models.csv"
