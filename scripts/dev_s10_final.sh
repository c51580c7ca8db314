#!/bin/bash
# Session-10 closing device call (issue 28): the build in out/bin.tgz (the grouped family's tiled
# kernel) validated — all C tests, memcheck on the tiled random test, racecheck / synccheck on the
# planner test, the Python tests with the torch op — then the grouped layers (tiled against the
# gather kernel in the same process, interleaved, two reps, plain and fused, cuDNN beside), the
# zoo (ours and cuDNN from the CLI, PyTorch from python/bench.py, scripts/zoo_table.py), and
# ResNeXt-50 / RegNetY-400MF end to end (python/bench_models.py: grouped convs in torch, the
# default, against all on igemm).
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/final.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|configs ran" "$OUT/tests.log" | head -20 >> "$L"
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 ./build/igemm_tests gpu_grouped_tiled_random 2>&1 | tail -1 | tr '\n' ' ' >> "$L"; echo " (memcheck, tiled random)" >> "$L"
for tool in racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm_tests gpu_grouped_planner 2>&1 | tail -1 | tr '\n' ' ' >> "$L"; echo " ($tool)" >> "$L"
done
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -x python/tests > "$OUT/py.log" 2>&1
echo "python rc=$?: $(tail -1 "$OUT/py.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
{ grep -E "^(resnext|regnety)" bench/zoo.csv; grep -vE "^#" bench/grouped_extra.csv; } > /tmp/grp.csv
for rep in 1 2; do for v in tiled gather; do
  H=""; [ $v = gather ] && H="--hints filter_resident=-1"
  for f in "" --fused; do
    echo "=== $v $f rep $rep" >> "$L"
    timeout 120 ./build/igemm bench --shapes /tmp/grp.csv $f $H --vs cudnn --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" >> "$L"
  done
done; done
mkdir -p /tmp/z
timeout 150 ./build/igemm bench --shapes bench/zoo.csv --vs cudnn --csv /tmp/z/zoo_cli.csv > /tmp/z/zoo.log 2>&1
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 200 python3 python/bench.py --shapes bench/zoo.csv --no-compile --csv /tmp/z/zoo_py.csv >> /tmp/z/zoo.log 2>&1
python3 scripts/zoo_table.py /tmp/z/zoo_cli.csv /tmp/z/zoo_py.csv > "$OUT/zoo_table.md" 2>&1
python3 scripts/zoo_table.py /tmp/z/zoo_cli.csv /tmp/z/zoo_py.csv --ours py > /tmp/z/zoo_table_py.md 2>&1
tar czf "$OUT/zoo.tgz" -C /tmp/z .
echo "zoo done ($(( $(date +%s) - t0 )) s)" >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 280 python3 python/bench_models.py \
  --model resnext50_32x4d,regnet_y_400mf --batch 32,1 --variants eager,compile,igemm,igemm-all \
  --csv "$OUT/models.csv" > "$OUT/models.log" 2>&1
echo "models rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
echo "=== sweep (plain)" >> "$L"
grep -E "^resnext_g32_3x3_256|^resnext_g32_3x3s2|^regnety_g6|^resnext_g32_3x3_512" /tmp/grp.csv > /tmp/rx.csv
for H in rows_per_tile=4 rows_per_tile=7 tile_n=32,rows_per_tile=7 tile_n=64; do
  echo "--- $H" >> "$L"
  timeout 60 ./build/igemm bench --shapes /tmp/rx.csv --hints $H --iters 40 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3}' >> "$L"
done
