#!/bin/bash
# Session-7 second device call (issue 28): the tiled depthwise kernel's profile (ncu: warp states,
# scheduler, instruction mix) on two layers, and its tile (rows_per_tile / tile_m hints) swept on
# four layers, ours only, back to back (comparable among themselves).
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/prof.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
awk -F, 'NF>=15 && $15>1 && $15==$5' bench/zoo.csv > /tmp/zdw.csv
grep -v '^#' bench/depthwise_extra.csv >> /tmp/zdw.csv
for lay in convnext_dw_7x7_192 mbv2_dw_3x3_144; do
  grep "^$lay," /tmp/zdw.csv > /tmp/one.csv
  echo "=== ncu $lay" >> "$L"
  timeout 120 ncu --clock-control none -k regex:dwt --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --section Occupancy --section MemoryWorkloadAnalysis \
    ./build/igemm bench --shapes /tmp/one.csv --iters 3 --warmup 2 2>&1 | grep -vE "^\[|^==PROF==|^igemm|^name|^$|----" | cut -c1-150 >> "$L"
done
echo "ncu done at $(( $(date +%s) - t0 )) s" >> "$L"
grep -E "^(convnext_dw_7x7_192|mbv2_dw_3x3_144|mbv2_dw_3x3_32|effnet_dw_5x5_240|mbv2_dw_3x3s2_96|convnext_dw_7x7_96)," /tmp/zdw.csv > /tmp/sw.csv
for h in "" "rows_per_tile=1" "rows_per_tile=2" "rows_per_tile=4" "rows_per_tile=8" "rows_per_tile=16" "tile_m=64" "tile_m=128" "tile_m=256" "tile_m=512"; do
  echo "=== sweep [$h]" >> "$L"
  timeout 100 ./build/igemm bench --shapes /tmp/sw.csv --iters 50 ${h:+--hints "$h"} 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $NF}' >> "$L"
done
echo "sweep done at $(( $(date +%s) - t0 )) s" >> "$L"
