#!/bin/bash
# Session-6 fourth device call (issue 28): the grouped family (build in out/bin.tgz): its tests and
# sanitizers, all C tests, the zoo's grouped layers against cuDNN (CLI) and PyTorch
# (python/bench.py) with this build and the build before (out/old.tgz), plain and fused; and the
# grouped layers of bench/grouped_extra.csv.
tar xzf out/bin.tgz
mkdir -p /tmp/old && tar xzf out/old.tgz -C /tmp/old
NEW=$PWD/build; OLD=/tmp/old
. "$(dirname "$0")/device_env.sh"
L=$OUT/grouped.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
export LD_LIBRARY_PATH=$NEW
timeout 200 ./build/igemm_tests gpu_grouped >> "$L" 2>&1; echo "grouped tests rc=$?" >> "$L"
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log")" >> "$L"
grep FAIL "$OUT/tests.log" | head >> "$L"
for tool in memcheck racecheck; do
  echo "== $tool" >> "$L"; timeout 200 compute-sanitizer --tool $tool ./build/igemm_tests gpu_grouped_planner 2>&1 | tail -2 >> "$L"
done
echo "tests done at $(( $(date +%s) - t0 )) s" >> "$L"
awk -F, 'NF>=15 && $15>1 && $15!=$5' bench/zoo.csv > /tmp/zg.csv
grep -v '^#' bench/grouped_extra.csv >> /tmp/zg.csv
cat /tmp/zg.csv >> "$L"
for rep in 1 2; do
  for side in new old; do
    d=$NEW; [ $side = old ] && d=$OLD
    echo "=== zoo grouped $side rep $rep" >> "$L"
    LD_LIBRARY_PATH=$d timeout 100 $d/igemm bench --shapes /tmp/zg.csv $([ $rep = 1 ] && [ $side = new ] && echo --vs cudnn) 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  done
done
echo "=== zoo grouped new fused" >> "$L"
timeout 100 ./build/igemm bench --shapes /tmp/zg.csv --fused --vs cudnn 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
IGEMM_LIBRARY=$NEW/libigemm.so PYTHONPATH=$PWD/python timeout 200 python3 python/bench.py --shapes /tmp/zg.csv --no-compile \
  --csv "$OUT/zg_py.csv" > "$OUT/zg_py.log" 2>&1; echo "py bench rc=$?" >> "$L"
echo "done at $(( $(date +%s) - t0 )) s" >> "$L"
if [ "${GROUPED_NCU:-}" = 1 ]; then
  head -2 /tmp/zg.csv | tail -1 > /tmp/zg1.csv
  timeout 120 ncu --clock-control none -k regex:grouped --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis ./build/igemm bench --shapes /tmp/zg1.csv --iters 3 --warmup 2 \
    2>&1 | grep -E "Duration|Throughput|Registers|Achieved Occ|Theoretical Occ|Stall|stalled|cycles being|Hit Rate|Issue|Executed Ipc" | cut -c1-160 >> "$L"
fi
