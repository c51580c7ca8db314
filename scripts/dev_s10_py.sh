#!/bin/bash
# Session-10 device call 7 (issue 28): optimize()'s new default grouped="fast" (the narrow-group
# convs on igemm's grouped family too): the Python tests with the torch op (GPU ones included),
# and the networks with grouped convs under the new default (`igemm`) against the old one
# (`igemm-dw`: depthwise only), python/bench_models.py, batch 32 and 1. out/bin.tgz: the build of
# the closing call (dev_s10_final.sh); only python/ changed since.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/py.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q python/tests > "$OUT/pytest.log" 2>&1
echo "python rc=$?: $(tail -1 "$OUT/pytest.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAILED|Error" "$OUT/pytest.log" | head -10 >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 200 python3 python/bench_models.py \
  --model resnext50_32x4d,regnet_y_400mf,mobilenet_v2 --batch 32,1 --variants igemm,igemm-dw \
  --csv "$OUT/models.csv" > "$OUT/models.log" 2>&1
echo "models rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
