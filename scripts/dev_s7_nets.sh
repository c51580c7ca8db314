#!/bin/bash
# Session-7 last device call (issue 28): the depthwise tests after the shared-memory-limit fix
# (two live plans of one kernel instance; memcheck), and MobileNetV2 / EfficientNet-B0 end to end
# with the depthwise convs in torch and on igemm (python/bench_models.py), batch 32 and 1.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/nets.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 200 ./build/igemm_tests gpu_depthwise >> "$L" 2>&1; echo "depthwise tests rc=$?" >> "$L"
timeout 200 compute-sanitizer --tool memcheck ./build/igemm_tests gpu_depthwise_plans_share_kernel 2>&1 | tail -2 >> "$L"
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 330 python3 python/bench_models.py \
  --model mobilenet_v2,efficientnet_b0 --batch 32,1 --variants eager,compile,igemm,igemm-dw \
  --csv "$OUT/models.csv" > "$OUT/models.log" 2>&1
echo "models rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
