#!/bin/bash
# Session-8 last device call: the narrow family's tests on the final build (out/bin.tgz), memcheck
# of a fused plan of its wider instance, and MobileNetV2 end to end (python/bench_models.py,
# batch 32 and 1; igemm of the session's starting build, out/old.tgz, in a second process).
tar xzf out/bin.tgz
mkdir -p /tmp/old && tar xzf out/old.tgz -C /tmp/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/last.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 120 ./build/igemm_tests gpu_narrow > "$OUT/narrow_tests.log" 2>&1; echo "narrow tests rc=$?: $(tail -1 "$OUT/narrow_tests.log")" >> "$L"
grep -E "FAIL|configs ran" "$OUT/narrow_tests.log" >> "$L"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ./build/igemm check --shape "w,2,190,190,144,24,1,1,1,1,0,0,1,1" --path memory --epilogue full,bias-residual-relu 2>&1 | grep -E "passed|ERROR SUMMARY" | tr '\n' ' ' >> "$L"; echo >> "$L"
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 150 python3 python/bench_models.py \
  --model mobilenet_v2 --batch 32,1 --variants compile,igemm --csv "$OUT/models.csv" > "$OUT/models.log" 2>&1
echo "models rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
LD_LIBRARY_PATH=/tmp/old IGEMM_LIBRARY=/tmp/old/libigemm.so PYTHONPATH=$PWD/python timeout 80 python3 python/bench_models.py \
  --model mobilenet_v2 --batch 32,1 --variants igemm --csv "$OUT/models_old.csv" > "$OUT/models_old.log" 2>&1
echo "models old rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
