#!/bin/bash
# Session-14 closing device call (issue 28 item 2): the build in out/bin.txz (grouped convs of
# 32-channel groups and of k/g a multiple of 64 on the sm90 cooperative kernel, the grouped family
# deferring to it under AUTO) validated and measured in one call (10-minute limit, steps under
# their own timeouts): all C tests; memcheck / racecheck of four grouped plans, plain and fused;
# the grouped layers (bench/zoo.csv's, grouped_extra.csv, grouped_wide.csv) on the planner's choice,
# on --path memory (the grouped family) and on the build before (out/old.txz, HEAD ce4974b: the
# family, or the general path for the wide groups), cuDNN beside, plain and fused; ResNeXt-50 end to
# end (python/bench_models.py) with this build and the one before; the zoo (scripts/zoo_table.py).
tar xJf out/bin.txz
mkdir -p out/old && tar xJf out/old.txz -C out/old
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/final.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 200 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|configs ran" "$OUT/tests.log" | head -20 >> "$L"
cat > /tmp/san.csv <<'C'
san_g32,2,9,13,64,64,3,3,1,1,1,1,1,1,2
san_g32_odd,1,11,7,160,160,3,3,2,2,1,1,1,1,5
san_g32_64,2,7,9,96,192,5,5,1,1,2,2,1,1,3
san_g64,1,6,10,192,192,3,3,1,1,1,1,1,1,3
C
for tf in "memcheck " "racecheck " "memcheck --fused" "racecheck --fused"; do
  set -- $tf
  timeout 50 compute-sanitizer --tool $1 --error-exitcode 9 ./build/igemm bench --shapes /tmp/san.csv --iters 1 --warmup 0 --hints grid=3 $2 > "$OUT/san_$1$2.log" 2>&1
  echo "$1 $2 rc=$?: $(tail -1 "$OUT/san_$1$2.log") / $(grep -c ' sm90 ' "$OUT/san_$1$2.log") sm90 rows" >> "$L"
done
{ grep -E "^(resnext|regnety)" bench/zoo.csv; grep -vhE "^#" bench/grouped_extra.csv bench/grouped_wide.csv; } > /tmp/grp.csv
for f in "" --fused; do
  echo "=== auto $f" >> "$L"
  timeout 60 ./build/igemm bench --shapes /tmp/grp.csv $f --vs cudnn --iters 60 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  echo "=== memory $f" >> "$L"
  timeout 40 ./build/igemm bench --shapes /tmp/grp.csv $f --path memory --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
  echo "=== old $f" >> "$L"
  LD_LIBRARY_PATH=$PWD/out/old/build:$LD_LIBRARY_PATH timeout 40 ./build/igemm bench --shapes /tmp/grp.csv $f --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
done
echo "grouped done ($(( $(date +%s) - t0 )) s)" >> "$L"
timeout 90 make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
for lib in build out/old/build; do
  IGEMM_LIBRARY=$PWD/$lib/libigemm.so PYTHONPATH=$PWD/python timeout 80 python3 python/bench_models.py \
    --model resnext50_32x4d --batch 32,1 --variants $([ $lib = build ] && echo eager,compile,igemm || echo igemm) \
    --csv "$OUT/models_$(echo $lib | tr / _).csv" > "$OUT/models_$(echo $lib | tr / _).log" 2>&1
  echo "models $lib rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
done
mkdir -p /tmp/z
timeout 50 ./build/igemm bench --shapes bench/zoo.csv --vs cudnn --csv /tmp/z/zoo_cli.csv > /tmp/z/zoo.log 2>&1
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 90 python3 python/bench.py --shapes bench/zoo.csv --no-compile --csv /tmp/z/zoo_py.csv >> /tmp/z/zoo.log 2>&1
python3 scripts/zoo_table.py /tmp/z/zoo_cli.csv /tmp/z/zoo_py.csv > "$OUT/zoo_table.md" 2>&1
tar czf "$OUT/zoo.tgz" -C /tmp/z .
echo "done ($(( $(date +%s) - t0 )) s)" >> "$L"
