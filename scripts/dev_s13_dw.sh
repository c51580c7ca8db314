#!/bin/bash
# Session-13 device call (issue 28): the depthwise family's mma kernel (src/mem/depthwise_mma.cuh).
# The build in out/bin.tgz. Depthwise tests (random configs on all three kernels, planner, shared
# kernel), racecheck / memcheck of two forced layers, then the depthwise layers of bench/zoo.csv and
# bench/depthwise_extra.csv: the planner's plan (the mma kernel) against kernel=depthwise_tiled in
# the same build, interleaved, two reps, plain and fused; the plans described.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/dw_$1.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 200 ./build/igemm_tests depthwise > "$OUT/tests.log" 2>&1; echo "dw tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|configs ran" "$OUT/tests.log" | head -20 >> "$L"
( grep -v "^#" bench/zoo.csv | awk -F, '$15 > 1 && $15 == $5'; grep -v "^#" bench/depthwise_extra.csv ) > /tmp/dw.csv
printf "dw_1x7,8,28,28,128,128,1,7,1,1,0,3,1,1,128\ndw_5x5_dil2_s2,8,40,40,64,64,5,5,2,2,4,4,2,2,64\n" >> /tmp/dw.csv
wc -l /tmp/dw.csv >> "$L"
echo "san_a,2,13,19,144,144,3,3,1,1,1,1,1,1,144" > /tmp/s1.csv
echo "san_b,1,15,17,40,40,7,7,2,2,3,3,1,1,40" >> /tmp/s1.csv
for tool in racecheck memcheck; do
  for f in "" --fused; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm bench --shapes /tmp/s1.csv --iters 1 --warmup 0 --hints grid=3 $f > "$OUT/$tool$f.log" 2>&1
    echo "$tool $f rc=$?: $(tail -1 "$OUT/$tool$f.log")" >> "$L"
  done
done
for rep in 1 2; do
  for f in "" "--fused"; do
    echo "=== tiled $f rep $rep" >> "$L"
    timeout 150 ./build/igemm bench --shapes /tmp/dw.csv --iters 60 --hints kernel=depthwise_tiled $f 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
    echo "=== mma $f rep $rep" >> "$L"
    timeout 150 ./build/igemm bench --shapes /tmp/dw.csv --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  done
  echo "=== mma32 rep $rep" >> "$L"
  timeout 150 ./build/igemm bench --shapes /tmp/dw.csv --iters 60 --hints tile_n=32 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  echo "elapsed $(( $(date +%s) - t0 )) s" >> "$L"
done
