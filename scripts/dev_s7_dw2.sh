#!/bin/bash
# Session-7 third device call (issue 28): the tiled depthwise kernel with compile-time column
# offsets ([row][chunk][column] buffers), [pair][tap] weights and the channel block searched (build
# in out/bin.tgz): its tests under racecheck / memcheck, A/B against the session's starting build
# (out/old.tgz) on the zoo's depthwise layers and bench/depthwise_extra.csv (interleaved, two
# reps), PyTorch F.conv2d (python/bench.py, same process as ours), the stall reasons on two layers
# and a (channels, rows) tile sweep on four (DW2_QUICK=1 leaves out ncu and the sweep).
tar xzf out/bin.tgz
mkdir -p /tmp/old && tar xzf out/old.tgz -C /tmp/old
NEW=$PWD/build; OLD=/tmp/old
export LD_LIBRARY_PATH=$NEW
. "$(dirname "$0")/device_env.sh"
L=$OUT/dw2.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 200 ./build/igemm_tests gpu_depthwise >> "$L" 2>&1; echo "depthwise tests rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
for tool in racecheck memcheck; do
  echo "== $tool" >> "$L"; timeout 300 compute-sanitizer --tool $tool ./build/igemm_tests gpu_depthwise_random 2>&1 | tail -2 >> "$L"
done
awk -F, 'NF>=15 && $15>1 && $15==$5' bench/zoo.csv > /tmp/zdw.csv
grep -v '^#' bench/depthwise_extra.csv >> /tmp/zdw.csv
for rep in 1 2; do
  for side in new old; do
    d=$NEW; [ $side = old ] && d=$OLD
    echo "=== dw $side rep $rep" >> "$L"
    LD_LIBRARY_PATH=$d timeout 100 $d/igemm bench --shapes /tmp/zdw.csv 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $NF}' >> "$L"
  done
done
echo "=== dw new fused" >> "$L"
timeout 100 ./build/igemm bench --shapes /tmp/zdw.csv --fused 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $NF}' >> "$L"
echo "bench done at $(( $(date +%s) - t0 )) s" >> "$L"
IGEMM_LIBRARY=$NEW/libigemm.so PYTHONPATH=$PWD/python timeout 200 python3 python/bench.py --shapes /tmp/zdw.csv --no-compile \
  --csv "$OUT/dw2_py.csv" > "$OUT/dw2_py.log" 2>&1; echo "py bench rc=$?" >> "$L"
[ "${DW2_QUICK:-}" = 1 ] && exit 0   # DW2_QUICK=1: no ncu, no sweep
M=smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_not_selected_per_warp_active.pct,smsp__warp_issue_stalled_selected_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct,smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct,smsp__warp_issue_stalled_drain_per_warp_active.pct,smsp__warp_issue_stalled_membar_per_warp_active.pct,smsp__warp_issue_stalled_sleeping_per_warp_active.pct,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__occupancy_limit_shared_mem
for lay in convnext_dw_7x7_192 mbv2_dw_3x3_32 mbv2_dw_3x3_144; do
  grep "^$lay," /tmp/zdw.csv > /tmp/one.csv
  echo "=== ncu $lay" >> "$L"
  timeout 120 ncu --clock-control none -k regex:dwt --launch-skip 3 --launch-count 1 --metrics $M \
    ./build/igemm bench --shapes /tmp/one.csv --iters 3 --warmup 2 2>&1 | grep -E "smsp__|sm__|gpu__|dram__|launch__" | awk '{print $1, $NF}' >> "$L"
done
echo "ncu done at $(( $(date +%s) - t0 )) s" >> "$L"
grep -E "^(convnext_dw_7x7_192|mbv2_dw_3x3_144|mbv2_dw_3x3_32|effnet_dw_5x5_240|mbv2_dw_3x3s2_96|mbv2_dw_3x3_384)," /tmp/zdw.csv > /tmp/sw.csv
for h in "" "tile_n=64" "tile_n=32" "tile_n=16" "tile_n=64,rows_per_tile=8" "tile_n=32,rows_per_tile=8" "tile_n=32,rows_per_tile=4" "tile_n=16,rows_per_tile=4" "tile_n=32,tile_m=128" "tile_n=64,tile_m=128"; do
  echo "=== sweep [$h]" >> "$L"
  timeout 100 ./build/igemm bench --shapes /tmp/sw.csv --iters 50 ${h:+--hints "$h"} 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $NF}' >> "$L"
done
echo "sweep done at $(( $(date +%s) - t0 )) s" >> "$L"
