#!/bin/bash
# Session-15 closing device call (issue 28 item 1): the build in out/bin.txz (the depthwise family's
# TMA kernel, taken under AUTO for 3x3 / 5x5 windows of <= 192 channels on sm_90) validated and
# measured in one call (10-minute limit, steps under their own timeouts): all C tests; the TMA
# sanitizer cases; the depthwise layers (bench/zoo.csv's + depthwise_extra.csv) on the planner's
# choice and forced onto the tiled kernel, interleaved, plain and fused; MobileNetV2 and
# EfficientNet-B0 end to end (python/bench_models.py) with this build and the one before
# (out/old.txz, HEAD c00a47d); the zoo (scripts/zoo_table.py: cuDNN and PyTorch beside).
tar xJf out/bin.txz
mkdir -p out/old && tar xJf out/old.txz -C out/old
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/final.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 200 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|depthwise: |plans:" "$OUT/tests.log" | head -20 >> "$L"
for s in "dw3_tma_auto,2,23,19,64,64,3,3,2,2,1,1,1,1,64:grid=3" "dw5_tma_f32,1,17,15,96,96,5,5,1,1,2,2,1,1,96:kernel=depthwise_tma,grid=2"; do
  for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm check --shape "${s%%:*}" --epilogue full,none --hints "${s##*:}" > /tmp/san.log 2>&1; rc=$?
    echo "sanitize $tool ${s%%,*}: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1) $(grep -c PASS /tmp/san.log) pass" >> "$L"
  done
done
( grep -v "^#" bench/zoo.csv | awk -F, '$15 > 1 && $15 == $5'; grep -v "^#" bench/depthwise_extra.csv ) > /tmp/dw.csv
for f in "" "--fused"; do
  for v in auto tiled; do
    echo "=== $v $f" >> "$L"
    H=""; [ $v = tiled ] && H="--hints kernel=depthwise_tiled"
    timeout 60 ./build/igemm bench --shapes /tmp/dw.csv --iters 60 $H $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3}' >> "$L"
  done
done
echo "dw done ($(( $(date +%s) - t0 )) s)" >> "$L"
timeout 90 make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
for m in mobilenet_v2 efficientnet_b0; do
  for lib in build out/old/build; do
    IGEMM_LIBRARY=$PWD/$lib/libigemm.so PYTHONPATH=$PWD/python timeout 100 python3 python/bench_models.py \
      --model $m --batch 32,1 --variants $([ $lib = build ] && echo eager,compile,igemm || echo igemm) \
      > "/tmp/m.log" 2>&1
    echo "=== model $m $lib rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"; grep -vE "^\s*$" /tmp/m.log | tail -8 >> "$L"
  done
done
mkdir -p /tmp/z
timeout 50 ./build/igemm bench --shapes bench/zoo.csv --vs cudnn --csv /tmp/z/zoo_cli.csv > /tmp/z/zoo.log 2>&1
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 90 python3 python/bench.py --shapes bench/zoo.csv --no-compile --csv /tmp/z/zoo_py.csv >> /tmp/z/zoo.log 2>&1
python3 scripts/zoo_table.py /tmp/z/zoo_cli.csv /tmp/z/zoo_py.csv > "$OUT/zoo_table.md" 2>&1
echo "done ($(( $(date +%s) - t0 )) s)" >> "$L"
