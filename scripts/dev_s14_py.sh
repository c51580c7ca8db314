#!/bin/bash
# Session-14 device call (issues 28): the Python side with this build (out/bin.txz): the torch op,
# the Python tests (GPU included), and ResNeXt-101 32x8d at batch 32 (python/bench_models.py): the
# default optimize() now sending its 64-channel groups to the sm90 grouped tiles, against the rule
# before (those convs in torch: igemm._optimize._on_sm90 patched to False), eager and torch.compile
# beside.
tar xJf out/bin.txz
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/py.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 90 make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
export IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python
timeout 150 python3 -m pytest -q -x python/tests > "$OUT/pytest.log" 2>&1; echo "python rc=$?: $(tail -1 "$OUT/pytest.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAILED|Error" "$OUT/pytest.log" | head -5 >> "$L"
timeout 120 python3 python/bench_models.py --model resnext101_32x8d --batch 32 --variants eager,compile,igemm --csv "$OUT/rx101_new.csv" > "$OUT/rx101_new.log" 2>&1
echo "rx101 new rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"; tail -4 "$OUT/rx101_new.log" >> "$L"
timeout 60 python3 -c "
import sys, runpy
import igemm._optimize as o
o._on_sm90 = lambda: False
sys.argv = ['bench_models.py', '--model', 'resnext101_32x8d', '--batch', '32', '--variants', 'igemm', '--csv', '$OUT/rx101_old.csv']
runpy.run_path('python/bench_models.py', run_name='__main__')" > "$OUT/rx101_old.log" 2>&1
echo "rx101 old rule rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"; tail -3 "$OUT/rx101_old.log" >> "$L"
