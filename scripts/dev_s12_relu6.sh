#!/bin/bash
# Session-12 closing device call: ReLU6 inline in the sm90 epilogue (it went through the
# out-of-line activation call per element, like GELU / SiLU), on top of the narrow family's
# wide-output kernel. All C tests; bench/shapes.csv against the session's starting build
# (out/old.tgz, f103601), plain and fused, per call, cuDNN beside, interleaved; MobileNetV2 /
# EfficientNet-B0 (bias + ReLU6 / SiLU epilogues after BatchNorm folding) against the same build,
# two reps, torch.compile beside.
tar xzf out/bin.tgz
mkdir -p out/old && tar xzf out/old.tgz -C out/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/relu6.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|configs ran" "$OUT/tests.log" | head -20 >> "$L"
for f in "" --fused; do
  echo "=== new $f" >> "$L"
  timeout 150 ./build/igemm bench --shapes bench/shapes.csv --vs cudnn --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  echo "=== old $f" >> "$L"
  LD_LIBRARY_PATH=$PWD/out/old timeout 150 out/old/igemm bench --shapes bench/shapes.csv --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
done
echo "shapes done ($(( $(date +%s) - t0 )) s)" >> "$L"
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
for lib in build out/old build out/old; do
  IGEMM_LIBRARY=$PWD/$lib/libigemm.so PYTHONPATH=$PWD/python timeout 100 python3 python/bench_models.py \
    --model mobilenet_v2,efficientnet_b0 --batch 32,1 --variants igemm 2>&1 | grep -E "^  (mobilenet|efficient)" | sed "s|^|$lib |" >> "$L"
done
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 150 python3 python/bench_models.py \
  --model mobilenet_v2,efficientnet_b0 --batch 32,1 --variants compile 2>&1 | grep -E "^  (mobilenet|efficient)" >> "$L"
echo "done ($(( $(date +%s) - t0 )) s)" >> "$L"
