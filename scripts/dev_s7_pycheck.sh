#!/bin/bash
# Session-7 closing check: the depthwise C tests and the Python tests (torch op built here) on the
# final build (out/bin.tgz), after igemm.optimize's default moved the depthwise convs to igemm.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/pycheck.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 200 ./build/igemm_tests gpu_depthwise >> "$L" 2>&1; echo "depthwise tests rc=$?" >> "$L"
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 300 python3 -m pytest -q python/tests > "$OUT/py.log" 2>&1
echo "python rc=$?: $(tail -1 "$OUT/py.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAILED|Error" "$OUT/py.log" | head -10 >> "$L"
