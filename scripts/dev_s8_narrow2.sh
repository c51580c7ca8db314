#!/bin/bash
# Session-8 fifth device call (issue 28 item 3): the narrow family with the prefetch, widened as a
# dev experiment (out/exp.tgz: a library built with NW_MAX_C=160, NW_MAX_K=32: a (5, 4, 1)
# instance) on MobileNet-style projections (c 96-160, k 24-32) and c 64 / k 32: --path memory
# against the planner's sm90 plan and cuDNN, after a correctness check of the new instance.
mkdir -p /tmp/new; tar xzf out/exp.tgz -C /tmp/new
NEW=/tmp/new
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$NEW:${LD_LIBRARY_PATH:-}
L=$OUT/narrow2.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
for s in "a,2,21,23,144,24,1,1,1,1,0,0,1,1" "b,2,33,17,96,29,1,1,2,2,1,1,1,1" "c,1,40,41,160,32,1,1,1,1,0,0,1,1"; do
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $NEW/igemm check --shape "$s" --path memory --epilogue full,none 2>&1 | grep -E "ERROR SUMMARY" >> "$L"
  for dt in bf16 fp16; do timeout 100 $NEW/igemm check --shape "$s" --path memory --dtype $dt --epilogue all 2>&1 | tail -1 >> "$L"; done
done
cat > /tmp/p.csv <<'C'
mbv2_project_144_24,32,56,56,144,24,1,1,1,1,0,0,1,1
mbv2_project_96_24,32,56,56,96,24,1,1,1,1,0,0,1,1
mbv2_project_144_32,32,28,28,144,32,1,1,1,1,0,0,1,1
c64_k32,32,56,56,64,32,1,1,1,1,0,0,1,1
c128_k8,8,128,128,128,8,1,1,1,1,0,0,1,1
c160_k32,32,28,28,160,32,1,1,1,1,0,0,1,1
C
for rep in 1 2; do for p in memory sm90; do
  echo "=== $p rep $rep" >> "$L"
  timeout 100 $NEW/igemm bench --shapes /tmp/p.csv --path $p 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
done; done
echo "=== memory fused" >> "$L"
timeout 100 $NEW/igemm bench --shapes /tmp/p.csv --path memory --fused 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
echo "=== sm90 fused" >> "$L"
timeout 100 $NEW/igemm bench --shapes /tmp/p.csv --path sm90 --fused 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
echo "=== cudnn" >> "$L"
timeout 100 $NEW/igemm bench --shapes /tmp/p.csv --path sm90 --vs cudnn 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
