#!/bin/bash
# Session-16 second device call (issues 27 / 28: the 1x1 layers). Carried: out/bin.txz.
# (0) all C tests of this build (generic kernels now with compute_90 PTX);
# (1) Every 1x1 layer of bench/shapes.csv, zoo.csv, fewrows.csv and pointwise.csv under a set of
#     plan hints (tiles, kernels, filter residency, PDL, stages), plain, one pass each, the
#     planner's plan twice (noise) — does any existing plan beat the planner's, and where;
# (2) the per-call floor of the timing method (a tiny 1x1, ours and cuDNN);
# (3) ncu sections (speed of light, memory, warp states) of ours and cuDNN's kernel on two
#     1x1 layers where cuDNN wins.
tar xJf out/bin.txz
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/b.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 200 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL" "$OUT/tests.log" | head -20 >> "$L"
for f in bench/shapes.csv bench/zoo.csv bench/fewrows.csv bench/pointwise.csv; do
  grep -v "^#" $f | awk -F, 'NF >= 14 && $7 == 1 && $8 == 1 && $9 == 1 && $10 == 1 && ($15 == "" || $15 == 1)'
done > /tmp/pw.csv
echo "tiny_1x1_64,1,1,8,64,64,1,1,1,1,0,0,1,1,1" >> /tmp/pw.csv
echo "tiny_1x1_64x4k,1,8,8,64,64,1,1,1,1,0,0,1,1,1" >> /tmp/pw.csv
for hh in "" "tile=128x64" "tile=128x128" "tile=128x256" "tile=256x128" "kernel=cooperative" "filter_resident=-1" "pdl=-1" "kernel=pingpong,tile=128x128" ""; do
  echo "=== [$hh]" >> "$L"
  timeout 60 ./build/igemm bench --shapes /tmp/pw.csv --iters 60 ${hh:+--hints $hh} 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
done
echo "=== cudnn" >> "$L"
timeout 60 ./build/igemm bench --shapes /tmp/pw.csv --iters 60 --vs cudnn 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $4}' >> "$L"
echo "bench done $(( $(date +%s) - t0 )) s" >> "$L"
grep -E "^(pw_expand_24_144|pw_project_144_24)," /tmp/pw.csv > /tmp/ncu.csv
timeout 120 ncu --clock-control none -c 8 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy \
  ./build/igemm bench --shapes /tmp/ncu.csv --iters 1 --warmup 0 > "$OUT/ncu.log" 2>&1
timeout 120 ncu --clock-control none -c 120 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__block_size \
  ./build/igemm bench --shapes /tmp/ncu.csv --iters 1 --warmup 0 --vs cudnn > "$OUT/ncu_all.log" 2>&1
echo "elapsed $(( $(date +%s) - t0 )) s" >> "$L"
