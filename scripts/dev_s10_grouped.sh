#!/bin/bash
# Session-10 device calls 1-4 (issue 28): the grouped family's tiled kernel
# (src/mem/grouped_tiled.cuh), one version per call. Carried: out/bin.tgz (the build: CLI, library,
# tests). (1) the grouped tests (tiled random, gather random, planner), memcheck / racecheck /
# synccheck on the planner test (tiled and gather plans, repeat runs); (2) the grouped layers of
# bench/zoo.csv and bench/grouped_extra.csv: the tiled kernel (default) against the gather kernel
# (filter_resident=-1) interleaved, two reps, plain and fused, cuDNN in the same process; (3) a
# tile sweep by hints on the two ResNeXt layers (SWEEP: the hint sets); (4) with NCU=1, ncu of the
# tiled kernel on resnext_g32_3x3_256, plain and fused; with ALL=1, the whole C suite.
# As run: call 1 ALL=1 SWEEP="tile_n=32 tile_n=64 tile_n=128 tile_n=256 rows_per_tile=1
# rows_per_tile=2 rows_per_tile=4 rows_per_tile=7 tile_n=64,rows_per_tile=14"; call 2 NCU=1, the
# same sweep without rows_per_tile=1; call 3 NCU=1 SWEEP="stages=2 stages=3 stages=4 tile_n=32
# tile_n=64 tile_n=128 rows_per_tile=2 rows_per_tile=4 rows_per_tile=7"; call 4 NCU=1
# SWEEP="stages=2 stages=4 tile_n=64 rows_per_tile=2".
tar xzf out/bin.tgz
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/grouped.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
timeout 200 ./build/igemm_tests gpu_grouped > "$OUT/tests_grouped.log" 2>&1; echo "grouped tests rc=$?: $(tail -1 "$OUT/tests_grouped.log")" >> "$L"
grep -E "FAIL|configs ran" "$OUT/tests_grouped.log" | head -12 >> "$L"
for tool in memcheck racecheck synccheck; do
  timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm_tests gpu_grouped_planner 2>&1 | tail -1 | tr '\n' ' ' >> "$L"; echo " ($tool)" >> "$L"
done
{ grep -E "^(resnext|regnety)" bench/zoo.csv; grep -vE "^#" bench/grouped_extra.csv; } > /tmp/grp.csv
for rep in 1 2; do for v in tiled gather; do
  H=""; [ $v = gather ] && H="--hints filter_resident=-1"
  for f in "" --fused; do
    echo "=== $v $f rep $rep" >> "$L"
    timeout 120 ./build/igemm bench --shapes /tmp/grp.csv $f $H --vs cudnn --iters 60 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  done
done; done
echo "=== sweep" >> "$L"
grep -E "^resnext_g32_3x3_256|^resnext_g32_3x3s2" bench/zoo.csv > /tmp/rx.csv
for H in ${SWEEP:-tile_n=32 tile_n=64 rows_per_tile=4}; do
  echo "--- $H" >> "$L"
  timeout 60 ./build/igemm bench --shapes /tmp/rx.csv --hints $H --iters 40 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
done
if [ "${NCU:-0}" = 1 ]; then
  grep -E "^resnext_g32_3x3_256" bench/zoo.csv > /tmp/r1.csv
  for f in "" --fused; do
    timeout 120 ncu --clock-control none -k regex:grouped_tiled -s 3 -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats ./build/igemm bench --shapes /tmp/r1.csv $f --iters 5 --warmup 1 > "$OUT/ncu_rx256$f.txt" 2>&1
  done
fi
if [ "${ALL:-0}" = 1 ]; then
  timeout 300 ./build/igemm_tests > "$OUT/tests_all.log" 2>&1; echo "all C tests rc=$?: $(tail -1 "$OUT/tests_all.log")" >> "$L"
  grep -E "FAIL" "$OUT/tests_all.log" | head -10 >> "$L"
fi
