#!/bin/bash
# Session-8 fourth device call (issues 27/28): staging boxes for plain row-tile plans (hints
# staging_boxes=2..6 now honoured where y is stored by TMA; the epilogue waits for the store ES boxes
# ago): a sweep on the memory-bound 1x1s beside cuDNN, and bench/shapes.csv plain and fused against
# the session's starting build (out/old.tgz; interleaved, two reps: the epilogue's wait changed in
# every TMA-store instance). out/exp.tgz: CLI + library of this build.
mkdir -p /tmp/new /tmp/old; tar xzf out/exp.tgz -C /tmp/new; tar xzf out/old.tgz -C /tmp/old
NEW=/tmp/new; OLD=/tmp/old
. "$(dirname "$0")/device_env.sh"
L=$OUT/boxes.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
cat > /tmp/w.csv <<'C'
mbv2_expand_16_96,32,112,112,16,96,1,1,1,1,0,0,1,1
yolov8_cls_1x1_80,16,80,80,64,80,1,1,1,1,0,0,1,1
effnet_expand_40_240,32,28,28,40,240,1,1,1,1,0,0,1,1
effnet_project_240_40,32,28,28,240,40,1,1,1,1,0,0,1,1
mbv2_expand_24_144,32,56,56,24,144,1,1,1,1,0,0,1,1
c32_k64,32,112,112,32,64,1,1,1,1,0,0,1,1
mbv2_project_144_24,32,56,56,144,24,1,1,1,1,0,0,1,1
r50_l1_1x1_64_256,32,56,56,64,256,1,1,1,1,0,0,1,1
C
echo "=== cudnn" >> "$L"
LD_LIBRARY_PATH=$NEW:$LD_LIBRARY_PATH timeout 100 $NEW/igemm bench --shapes /tmp/w.csv --vs cudnn 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
for h in "" "staging_boxes=3" "staging_boxes=4" "staging_boxes=6" "tile=128x64,staging_boxes=4" "tile=128x64,staging_boxes=6" "kernel=pingpong,tile=128x64,staging_boxes=4" "kernel=pingpong,tile=128x64,staging_boxes=6" "tile=128x128,staging_boxes=4" "kernel=pingpong,tile=128x128,staging_boxes=4" "stages=2,staging_boxes=6" ""; do
  echo "=== sweep [$h]" >> "$L"
  LD_LIBRARY_PATH=$NEW:$LD_LIBRARY_PATH timeout 100 $NEW/igemm bench --shapes /tmp/w.csv --iters 60 ${h:+--hints "$h"} 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $NF}' >> "$L"
done
echo "sweep done at $(( $(date +%s) - t0 )) s" >> "$L"
for rep in 1 2; do
  for side in new old; do
    d=$NEW; [ $side = old ] && d=$OLD
    for f in "" "--fused"; do
      echo "=== shapes $side $f rep $rep" >> "$L"
      LD_LIBRARY_PATH=$d:$LD_LIBRARY_PATH timeout 200 $d/igemm bench --shapes bench/shapes.csv $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
    done
  done
done
echo "all done at $(( $(date +%s) - t0 )) s" >> "$L"
