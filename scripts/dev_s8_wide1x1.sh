#!/bin/bash
# Session-8 third device call (issues 27/28: the memory-bound 1x1s with wide outputs on the sm90
# path, 0.74-0.93x best-of): which plan runs them fastest (a sweep of hint texts beside cuDNN),
# and what bounds the planner's plan on mbv2_expand_16_96 (ncu sections). Build: out/tests.tgz
# (build/igemm_tests) and out/exp.tgz (CLI + library of this build).
mkdir -p /tmp/new; tar xzf out/exp.tgz -C /tmp/new
NEW=/tmp/new
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$NEW:${LD_LIBRARY_PATH:-}
L=$OUT/wide.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
cat > /tmp/w.csv <<'C'
mbv2_expand_16_96,32,112,112,16,96,1,1,1,1,0,0,1,1
yolov8_cls_1x1_80,16,80,80,64,80,1,1,1,1,0,0,1,1
effnet_expand_40_240,32,28,28,40,240,1,1,1,1,0,0,1,1
effnet_project_240_40,32,28,28,240,40,1,1,1,1,0,0,1,1
mbv2_project_960_160,32,7,7,960,160,1,1,1,1,0,0,1,1
mbv2_expand_160_960,32,7,7,160,960,1,1,1,1,0,0,1,1
r50_l1_1x1_64_256_b1,1,56,56,64,256,1,1,1,1,0,0,1,1
mbv2_expand_24_144,32,56,56,24,144,1,1,1,1,0,0,1,1
c32_k64,32,112,112,32,64,1,1,1,1,0,0,1,1
C
echo "=== cudnn" >> "$L"
timeout 100 $NEW/igemm bench --shapes /tmp/w.csv --vs cudnn 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
for h in "" "tile=128x64" "tile=128x128" "tile=256x64" "tile=256x128" "tile=128x256" "kernel=pingpong,tile=128x64" "kernel=pingpong,tile=128x128" "kernel=pixels_n" "stages=2" "tile=128x128,stages=3" "kernel=pingpong,tile=128x64,filter_resident=1" "grid=66" "pdl=-1"; do
  echo "=== sweep [$h]" >> "$L"
  timeout 100 $NEW/igemm bench --shapes /tmp/w.csv --iters 60 ${h:+--hints "$h"} 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $NF}' >> "$L"
done
echo "sweep done at $(( $(date +%s) - t0 )) s" >> "$L"
grep "^mbv2_expand_16_96," /tmp/w.csv > /tmp/one.csv
timeout 150 ncu --clock-control none -k regex:igemm --launch-skip 3 --launch-count 1 --section SpeedOfLight \
  --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy \
  $NEW/igemm bench --shapes /tmp/one.csv --iters 3 --warmup 2 > "$OUT/ncu_expand.log" 2>&1
echo "ncu done at $(( $(date +%s) - t0 )) s" >> "$L"
