#!/bin/bash
# Session-10 device call 5 (issue 28): the tiled grouped kernel with three CTAs per SM for the
# one-block instances of groups of 8-16 output channels (80 registers), the epilogue's scale and
# bias read per chunk from shared memory. Grouped tests + memcheck; the grouped layers (tiled
# default, the gather kernel in the same process, two reps); a tile sweep by hints on the NT <= 2
# layers (which plans reach three CTAs per SM).
tar xzf out/bin.tgz
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/occ.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
timeout 200 ./build/igemm_tests gpu_grouped > "$OUT/tests_grouped.log" 2>&1; echo "grouped tests rc=$?: $(tail -1 "$OUT/tests_grouped.log")" >> "$L"
grep -E "FAIL|configs ran" "$OUT/tests_grouped.log" | head -12 >> "$L"
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 ./build/igemm_tests gpu_grouped_planner 2>&1 | tail -1 >> "$L"
{ grep -E "^(resnext|regnety)" bench/zoo.csv; grep -vE "^#" bench/grouped_extra.csv; } > /tmp/grp.csv
for rep in 1 2; do for v in tiled gather; do
  H=""; [ $v = gather ] && H="--hints filter_resident=-1"
  for f in "" --fused; do
    echo "=== $v $f rep $rep" >> "$L"
    timeout 120 ./build/igemm bench --shapes /tmp/grp.csv $f $H --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3}' >> "$L"
  done
done; done
grep -E "^resnext_g32_3x3_256|^regnety_g6|^regnety_g16|^resnext_g32_3x3_512" /tmp/grp.csv > /tmp/n2.csv
for H in rows_per_tile=2 rows_per_tile=4 rows_per_tile=7 tile_n=32,rows_per_tile=4 tile_n=32,rows_per_tile=2; do
  echo "--- $H" >> "$L"
  timeout 60 ./build/igemm bench --shapes /tmp/n2.csv --hints $H --iters 40 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3}' >> "$L"
  timeout 60 ./build/igemm bench --shapes /tmp/n2.csv --fused --hints $H --iters 40 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, "fused", $3}' >> "$L"
done
