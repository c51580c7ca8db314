#!/bin/bash
# Session-8 seventh device call (issue 28): the narrow family's residual loaded per column tile as
# 4-byte words before its use (out/exp.tgz: this build's CLI and library, built with
# NW_WIDE_RESIDUAL=1 so that the wider instance also takes fused plans with a residual):
# correctness (igemm check against the direct path, every epilogue, both dtypes, f32 y and odd k on
# the element path; memcheck), A/B against the build before (out/old.tgz) on the narrow layers
# plain and fused (interleaved, two reps), and the wider instance fused against the sm90 plan.
mkdir -p /tmp/new /tmp/old; tar xzf out/exp.tgz -C /tmp/new; tar xzf out/old.tgz -C /tmp/old
NEW=/tmp/new; OLD=/tmp/old
. "$(dirname "$0")/device_env.sh"
L=$OUT/nres.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
export LD_LIBRARY_PATH=$NEW:${LD_LIBRARY_PATH:-}
for s in "a,2,19,23,32,16,1,1,1,1,0,0,1,1" "b,2,21,27,64,13,1,1,2,2,1,1,1,1" "c,3,17,29,24,6,1,1,1,1,0,0,1,1" "d,2,190,190,144,24,1,1,1,1,0,0,1,1" "e,1,270,270,96,29,1,1,1,1,0,0,1,1"; do
  for dt in bf16 fp16; do for od in "" "--out-dtype f32"; do
    timeout 100 $NEW/igemm check --shape "$s" --path memory --dtype $dt $od --epilogue all 2>&1 | tail -1 | sed "s/^/${s%%,*} $dt $od: /" >> "$L"
  done; done
done
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $NEW/igemm check --shape "a,2,19,23,32,16,1,1,1,1,0,0,1,1" --path memory --epilogue full,bias-residual-relu 2>&1 | grep -E "passed|ERROR SUMMARY" | tr '\n' ' ' >> "$L"; echo >> "$L"
cat > /tmp/nar.csv <<'C'
mbv2_project_32_16,32,112,112,32,16,1,1,1,1,0,0,1,1
seg_head_1x1_2,4,512,512,32,2,1,1,1,1,0,0,1,1
c64_k16_b32,32,56,56,64,16,1,1,1,1,0,0,1,1
head64_k2,8,256,256,64,2,1,1,1,1,0,0,1,1
c24_k8,32,112,112,24,8,1,1,1,1,0,0,1,1
C
for rep in 1 2; do for side in new old; do
  d=$NEW; [ $side = old ] && d=$OLD
  for f in "" "--fused"; do
    echo "=== narrow $side $f rep $rep" >> "$L"
    LD_LIBRARY_PATH=$d:$LD_LIBRARY_PATH timeout 100 $d/igemm bench --shapes /tmp/nar.csv $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
  done
done; done
cat > /tmp/p.csv <<'C'
mbv2_project_144_24,32,56,56,144,24,1,1,1,1,0,0,1,1
mbv2_project_96_24,32,56,56,96,24,1,1,1,1,0,0,1,1
c128_k8,8,128,128,128,8,1,1,1,1,0,0,1,1
mbv2_project_144_32_b128,128,28,28,144,32,1,1,1,1,0,0,1,1
C
for rep in 1 2; do for p in memory sm90; do
  echo "=== wide fused $p rep $rep" >> "$L"
  timeout 100 $NEW/igemm bench --shapes /tmp/p.csv --path $p --fused 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
done; done
