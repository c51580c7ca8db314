#!/bin/bash
# Session-7 closing device call (issue 28): the build in out/bin.tgz validated (all C tests, the
# depthwise sanitizer cases of gpu_check.sh, the Python tests with the torch op), the whole zoo
# (ours and cuDNN from the CLI, PyTorch from python/bench.py, merged by scripts/zoo_table.py), and
# the networks with depthwise convs end to end (python/bench_models.py: eager, torch.compile,
# igemm.optimize with the depthwise convs in torch and on igemm), batch 32 and 1.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/final.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep FAIL "$OUT/tests.log" | head >> "$L"
SAN_CASES="dw3_grid2,2,13,19,144,144,3,3,1,1,1,1,1,1,144 dw7_s2,1,15,17,40,40,7,7,2,2,3,3,1,1,40" OUT=$OUT \
  timeout 120 bash scripts/gpu_check.sh sanitize > /dev/null 2>&1
grep sanitize "$OUT/summary.txt" >> "$L"
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -x python/tests > "$OUT/py.log" 2>&1
echo "python rc=$?: $(tail -1 "$OUT/py.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
timeout 200 ./build/igemm bench --shapes bench/zoo.csv --vs cudnn --csv "$OUT/zoo_cli.csv" > "$OUT/zoo.log" 2>&1
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 300 python3 python/bench.py --shapes bench/zoo.csv --no-compile --csv "$OUT/zoo_py.csv" >> "$OUT/zoo.log" 2>&1
python3 scripts/zoo_table.py "$OUT/zoo_cli.csv" "$OUT/zoo_py.csv" > "$OUT/zoo_table.md" 2>&1
echo "zoo done ($(( $(date +%s) - t0 )) s)" >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 330 python3 python/bench_models.py \
  --model mobilenet_v2,efficientnet_b0,convnext_tiny --batch 32,1 --variants eager,compile,igemm,igemm-dw \
  --csv "$OUT/models.csv" > "$OUT/models.log" 2>&1
echo "models rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
