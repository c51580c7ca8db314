#!/bin/bash
# Session-7 first device call (issue 28): validation of the build in out/bin.tgz (all C tests,
# among them the grouped / narrow random tests through the shared helper, not run on a GPU yet;
# the depthwise tests with racecheck and memcheck; the sanitizer cases of gpu_check.sh), then the
# tiled depthwise kernel against the build before (out/old.tgz) on the zoo's depthwise layers and
# bench/depthwise_extra.csv (interleaved, two reps; cuDNN in the first), PyTorch F.conv2d from
# python/bench.py, and ncu of two layers.
tar xzf out/bin.tgz
mkdir -p /tmp/old && tar xzf out/old.tgz -C /tmp/old
NEW=$PWD/build; OLD=/tmp/old
export LD_LIBRARY_PATH=$NEW
. "$(dirname "$0")/device_env.sh"
L=$OUT/dw.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 200 ./build/igemm_tests gpu_depthwise >> "$L" 2>&1; echo "depthwise tests rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
for tool in racecheck memcheck; do
  echo "== $tool" >> "$L"; timeout 300 compute-sanitizer --tool $tool ./build/igemm_tests gpu_depthwise_random 2>&1 | tail -2 >> "$L"
done
echo "sanitizers done at $(( $(date +%s) - t0 )) s" >> "$L"
awk -F, 'NF>=15 && $15>1 && $15==$5' bench/zoo.csv > /tmp/zdw.csv
grep -v '^#' bench/depthwise_extra.csv >> /tmp/zdw.csv
for rep in 1 2; do
  for side in new old; do
    d=$NEW; [ $side = old ] && d=$OLD
    echo "=== dw $side rep $rep" >> "$L"
    LD_LIBRARY_PATH=$d timeout 100 $d/igemm bench --shapes /tmp/zdw.csv $([ $rep = 1 ] && [ $side = new ] && echo --vs cudnn) 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  done
done
for side in new old; do
  d=$NEW; [ $side = old ] && d=$OLD
  echo "=== dw $side fused" >> "$L"
  LD_LIBRARY_PATH=$d timeout 100 $d/igemm bench --shapes /tmp/zdw.csv --fused 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
done
echo "bench done at $(( $(date +%s) - t0 )) s" >> "$L"
IGEMM_LIBRARY=$NEW/libigemm.so PYTHONPATH=$PWD/python timeout 200 python3 python/bench.py --shapes /tmp/zdw.csv --no-compile \
  --csv "$OUT/dw_py.csv" > "$OUT/dw_py.log" 2>&1; echo "py bench rc=$?" >> "$L"
for lay in convnext_dw_7x7_192 mbv2_dw_3x3_32; do
  grep "^$lay," /tmp/zdw.csv > /tmp/one.csv
  echo "=== ncu $lay" >> "$L"
  timeout 120 ncu --clock-control none -k regex:dwt --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    --section WarpStateStats --section Occupancy --section LaunchStats ./build/igemm bench --shapes /tmp/one.csv --iters 3 --warmup 2 \
    2>&1 | grep -E "Duration|Throughput|Registers|Achieved Occ|Theoretical Occ|Stall|stalled|cycles being|Issue|Executed Ipc|Grid Size|Shared Memory Config" | cut -c1-160 >> "$L"
done
echo "ncu done at $(( $(date +%s) - t0 )) s" >> "$L"
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep FAIL "$OUT/tests.log" | head >> "$L"
GPU_CHECK_APPEND= OUT=$OUT timeout 250 bash scripts/gpu_check.sh sanitize > /dev/null 2>&1
echo "gpu_check sanitize done at $(( $(date +%s) - t0 )) s" >> "$L"
