#!/bin/bash
# Session-8 closing device call (issues 27/28): the build in out/bin.tgz validated (all C tests,
# memcheck on the narrow family's wider instance, the Python tests with the torch op), the zoo
# (ours and cuDNN from the CLI, PyTorch from python/bench.py, merged by scripts/zoo_table.py; the
# CSVs tarred: the device returns at most 8 files), and MobileNetV2 / EfficientNet-B0 end to end
# (python/bench_models.py, batch 32 and 1; igemm of the session's starting build, out/old.tgz, in
# a second process).
tar xzf out/bin.tgz
mkdir -p /tmp/old && tar xzf out/old.tgz -C /tmp/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/final.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|narrow" "$OUT/tests.log" | head >> "$L"
for s in "w1,2,190,190,144,24,1,1,1,1,0,0,1,1" "w2,2,380,380,72,8,1,1,2,2,1,1,1,1"; do
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ./build/igemm check --shape "$s" --path memory --epilogue none,bias-relu 2>&1 | grep -E "passed|ERROR SUMMARY" | tr '\n' ' ' >> "$L"; echo >> "$L"
done
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -x python/tests > "$OUT/py.log" 2>&1
echo "python rc=$?: $(tail -1 "$OUT/py.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
mkdir -p /tmp/z
timeout 150 ./build/igemm bench --shapes bench/zoo.csv --vs cudnn --csv /tmp/z/zoo_cli.csv > /tmp/z/zoo.log 2>&1
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 200 python3 python/bench.py --shapes bench/zoo.csv --no-compile --csv /tmp/z/zoo_py.csv >> /tmp/z/zoo.log 2>&1
python3 scripts/zoo_table.py /tmp/z/zoo_cli.csv /tmp/z/zoo_py.csv > "$OUT/zoo_table.md" 2>&1
python3 scripts/zoo_table.py /tmp/z/zoo_cli.csv /tmp/z/zoo_py.csv --ours py > /tmp/z/zoo_table_py.md 2>&1
tar czf "$OUT/zoo.tgz" -C /tmp/z .
echo "zoo done ($(( $(date +%s) - t0 )) s)" >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 200 python3 python/bench_models.py \
  --model mobilenet_v2,efficientnet_b0 --batch 32,1 --variants eager,compile,igemm \
  --csv "$OUT/models.csv" > "$OUT/models.log" 2>&1
echo "models rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
LD_LIBRARY_PATH=/tmp/old IGEMM_LIBRARY=/tmp/old/libigemm.so PYTHONPATH=$PWD/python timeout 100 python3 python/bench_models.py \
  --model mobilenet_v2,efficientnet_b0 --batch 32,1 --variants igemm --csv "$OUT/models_old.csv" > "$OUT/models_old.log" 2>&1
echo "models old rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
