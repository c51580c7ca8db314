#!/bin/bash
# Session-12 last device call: SiLU and hardswish inline in the sm90 epilogue too (with ReLU6:
# igemm_act_dev_array). All C tests; EfficientNet-B0 (SiLU), MobileNetV3-Large (hardswish) and
# MobileNetV2 against the session's starting build (out/old.tgz), two reps.
tar xzf out/bin.tgz
mkdir -p out/old && tar xzf out/old.tgz -C out/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/silu.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL" "$OUT/tests.log" | head -10 >> "$L"
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
for lib in build out/old build out/old; do
  IGEMM_LIBRARY=$PWD/$lib/libigemm.so PYTHONPATH=$PWD/python timeout 100 python3 python/bench_models.py \
    --model efficientnet_b0,mobilenet_v3_large,mobilenet_v2 --batch 32,1 --variants igemm 2>&1 | grep -E "^  (mobilenet|efficient)" | sed "s|^|$lib |" >> "$L"
done
echo "done ($(( $(date +%s) - t0 )) s)" >> "$L"
