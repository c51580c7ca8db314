#!/bin/bash
# Session-12 last device calls: the wide-output kernel's rule narrowed (first to k <= 160, 96 with
# a residual; then, after this script showed k = 128 / 160 slower at 100k rows, to 24 < k <= 96),
# and the narrow kernel's instance for 16 < k <= 24 at c <= 64 fixed. All C tests, the boundary
# layers (auto against --path sm90, plain and fused), MobileNetV2 / EfficientNet-B0 against the
# build before (out/old.tgz).
tar xzf out/bin.tgz
mkdir -p out/old && tar xzf out/old.tgz -C out/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/rule.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|wide output" "$OUT/tests.log" | head -20 >> "$L"
cat > /tmp/w.csv <<'C'
mbv2_expand_16_96,32,112,112,16,96,1,1,1,1,0,0,1,1
mbv2_expand_24_144,32,56,56,24,144,1,1,1,1,0,0,1,1
c32_k160,32,56,56,32,160,1,1,1,1,0,0,1,1
c32_k256,32,56,56,32,256,1,1,1,1,0,0,1,1
c16_k128_b8,8,112,112,16,128,1,1,1,1,0,0,1,1
C
for rep in 1 2; do for f in "" --fused; do for path in auto sm90; do
  echo "=== $path $f rep $rep" >> "$L"
  timeout 100 ./build/igemm bench --shapes /tmp/w.csv --iters 60 --path $path $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
done; done; done
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
for lib in build out/old build out/old; do
  IGEMM_LIBRARY=$PWD/$lib/libigemm.so PYTHONPATH=$PWD/python timeout 100 python3 python/bench_models.py \
    --model mobilenet_v2,efficientnet_b0 --batch 32,1 --variants igemm 2>&1 | grep -E "^  (mobilenet|efficient)" | sed "s|^|$lib |" >> "$L"
done
echo "done ($(( $(date +%s) - t0 )) s)" >> "$L"
