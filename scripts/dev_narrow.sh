#!/bin/bash
# One device call for the narrow 1x1 family (issue 28/27): all C tests, memcheck on the family's
# tests, the narrow zoo layers (and their neighbours) against cuDNN (CLI) with this build and the
# build before (out/old.tgz), and against PyTorch (python/bench.py).
tar xzf out/bin.tgz
mkdir -p /tmp/old && tar xzf out/old.tgz -C /tmp/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader > "$OUT/narrow.log"
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log")" >> "$OUT/narrow.log"
grep -E "FAIL|narrow" "$OUT/tests.log" | head -20 >> "$OUT/narrow.log"
timeout 120 compute-sanitizer --tool memcheck ./build/igemm_tests gpu_narrow_planner 2>&1 | tail -2 >> "$OUT/narrow.log"
grep -E "^(mbv2_project_32_16|mbv2_expand_16_96|effnet_project_240_40|seg_head_1x1_2)," bench/zoo.csv > /tmp/nz.csv
for rep in 1 2; do
  echo "=== new rep $rep" >> "$OUT/narrow.log"
  timeout 100 ./build/igemm bench --shapes /tmp/nz.csv --vs cudnn 2>&1 | grep -vE "^\[" >> "$OUT/narrow.log"
  echo "=== old rep $rep" >> "$OUT/narrow.log"
  LD_LIBRARY_PATH=/tmp/old timeout 100 /tmp/old/igemm bench --shapes /tmp/nz.csv 2>&1 | grep -vE "^\[" >> "$OUT/narrow.log"
done
echo "=== fused new" >> "$OUT/narrow.log"
timeout 100 ./build/igemm bench --shapes /tmp/nz.csv --vs cudnn --fused 2>&1 | grep -vE "^\[" >> "$OUT/narrow.log"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 150 python3 python/bench.py --shapes /tmp/nz.csv --no-compile \
  --csv "$OUT/narrow_py.csv" > "$OUT/narrow_py.log" 2>&1
