#!/bin/bash
# Session-8 second device call (issue 28 item 3 / issue 27's 1x1 layers): the narrow 1x1 family
# with the next block's rows loaded before the current block's work and two CTAs per SM
# (out/exp.tgz: the CLI and a library whose narrow family also has dev-only k <= 96 instances,
# NW_MAX_K=96; out/tests.tgz: the C tests of the production build): the narrow tests, memcheck,
# A/B against the build before (out/old.tgz) on the narrow layers (interleaved, two reps, plain
# and fused), and the k <= 96 instances forced (--path memory) against the planner's sm90 plan
# and cuDNN on the wider narrow-channel 1x1s.
mkdir -p /tmp/new /tmp/old
tar xzf out/exp.tgz -C /tmp/new; tar xzf out/tests.tgz; tar xzf out/old.tgz -C /tmp/old
NEW=/tmp/new; OLD=/tmp/old
. "$(dirname "$0")/device_env.sh"
L=$OUT/narrow.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 200 ./build/igemm_tests gpu_narrow > "$OUT/narrow_tests.log" 2>&1
echo "tests rc=$? ($(( $(date +%s) - t0 )) s): $(tail -1 "$OUT/narrow_tests.log")" >> "$L"
grep -E "FAIL" "$OUT/narrow_tests.log" | head -10 >> "$L"
export LD_LIBRARY_PATH=$NEW:${LD_LIBRARY_PATH:-}
for s in "a,2,19,23,32,16,1,1,1,1,0,0,1,1" "b,2,21,17,64,13,1,1,2,2,1,1,1,1" "c,2,30,31,16,96,1,1,1,1,0,0,1,1" "d,1,37,29,64,80,1,1,1,1,0,0,1,1" "e,1,20,20,40,72,1,1,2,2,1,1,1,1"; do
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $NEW/igemm check --shape "$s" --path memory --epilogue full,none 2>&1 | grep -E "PASS|FAIL|ERROR SUMMARY|error" | tail -3 >> "$L"
  for dt in bf16 fp16; do
    timeout 100 $NEW/igemm check --shape "$s" --path memory --dtype $dt --epilogue all 2>&1 | tail -1 >> "$L"
  done
done
echo "checks done at $(( $(date +%s) - t0 )) s" >> "$L"
cat > /tmp/nar.csv <<'C'
mbv2_project_32_16,32,112,112,32,16,1,1,1,1,0,0,1,1
seg_head_1x1_2,4,512,512,32,2,1,1,1,1,0,0,1,1
c64_k16_b32,32,56,56,64,16,1,1,1,1,0,0,1,1
head64_k2,8,256,256,64,2,1,1,1,1,0,0,1,1
c24_k8,32,112,112,24,8,1,1,1,1,0,0,1,1
C
for rep in 1 2; do
  for side in new old; do
    d=$NEW; [ $side = old ] && d=$OLD
    for f in "" "--fused"; do
      echo "=== narrow $side $f rep $rep" >> "$L"
      LD_LIBRARY_PATH=$d:$LD_LIBRARY_PATH timeout 100 $d/igemm bench --shapes /tmp/nar.csv $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
    done
  done
done
echo "=== narrow cudnn" >> "$L"
timeout 100 $NEW/igemm bench --shapes /tmp/nar.csv --vs cudnn 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
cat > /tmp/wide.csv <<'C'
mbv2_expand_16_96,32,112,112,16,96,1,1,1,1,0,0,1,1
yolov8_cls_1x1_80,16,80,80,64,80,1,1,1,1,0,0,1,1
mbv2_expand_24_144s,32,56,56,24,96,1,1,1,1,0,0,1,1
effnet_c40_k80,32,28,28,40,80,1,1,1,1,0,0,1,1
c32_k64,32,112,112,32,64,1,1,1,1,0,0,1,1
c64_k32,32,56,56,64,32,1,1,1,1,0,0,1,1
C
for rep in 1 2; do
  for p in memory sm90; do
    echo "=== wide $p rep $rep" >> "$L"
    timeout 100 $NEW/igemm bench --shapes /tmp/wide.csv --path $p 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
  done
done
echo "=== wide cudnn" >> "$L"
timeout 100 $NEW/igemm bench --shapes /tmp/wide.csv --vs cudnn 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
echo "all done at $(( $(date +%s) - t0 )) s" >> "$L"
