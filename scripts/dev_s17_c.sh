#!/bin/bash
# Session-17 device call 2. Carried: out/bin.txz (this build: the whole-N rule narrowed to ragged N
# without a residual, 64 x 64 / 64 x 128 ping-pong tiles (hinted only), the self-check's context
# created through the 3.2 ABI of cuCtxCreate). In order, each step while BUDGET seconds last
# (device time was short): (1) all C tests; (2) every 1x1 of shapes / zoo / fewrows / pointwise,
# plain: the planner (cuDNN beside), then forced onto the 64 x 64 and 64 x 128 ping-pong tiles;
# (3) the fused residual on the 64 x 256 tile: the planner's plan against the hinted tile with its
# default staging ring and with 6 / 3 boxes per consumer; (4) memcheck / racecheck of a 64 x 64 and
# a 64 x 256 plan; (5) the zoo against the best of cuDNN and PyTorch (scripts/zoo_table.py).
. "$(dirname "$0")/dev_preamble.sh" c
left() { echo $(( ${BUDGET:-570} - ($(date +%s) - t0) )); }
timeout 150 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|selfcheck|whole" "$OUT/tests.log" | head -30 >> "$L"
for f in bench/shapes.csv bench/zoo.csv bench/fewrows.csv bench/pointwise.csv; do
  grep -v "^#" $f | awk -F, 'NF >= 14 && $7 == 1 && $8 == 1 && $9 == 1 && $10 == 1 && ($15 == "" || $15 == 1)'
done > /tmp/pw.csv
for hh in "" "kernel=pingpong,tile=64x64" "kernel=pingpong,tile=64x128"; do
  [ $(left) -lt 60 ] && break
  V=""; [ -z "$hh" ] && V="--vs cudnn"
  echo "=== [$hh] $V" >> "$L"
  timeout 60 ./build/igemm bench --shapes /tmp/pw.csv --iters 60 ${hh:+--hints $hh} $V 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $4}' >> "$L"
done
echo "1x1 bench done $(( $(date +%s) - t0 )) s" >> "$L"
grep -E "^(pw_expand_24_144|effnet_expand_40_240|pw_expand_24_144_b8|pw_expand_32_192|r50_l1_1x1_64_256|pw_expand_40_240_b8)," /tmp/pw.csv > /tmp/wn.csv
for hh in "" "kernel=pingpong,tile=64x256" "kernel=pingpong,tile=64x256,staging_boxes=6" "kernel=pingpong,tile=64x256,staging_boxes=3"; do
  [ $(left) -lt 40 ] && break
  echo "=== fused [$hh]" >> "$L"
  timeout 30 ./build/igemm bench --shapes /tmp/wn.csv --iters 60 --fused ${hh:+--hints $hh} 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3}' >> "$L"
done
for s in "pp64,2,14,15,120,40,1,1,1,1,0,0,1,1,1:kernel=pingpong,tile=64x64,grid=3" "wn_2x2,1,20,22,64,200,2,2,2,2,0,0,1,1,1:kernel=pingpong,tile=64x256,grid=2"; do
  for tool in memcheck racecheck; do
    [ $(left) -lt 25 ] && break
    timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm check --shape "${s%%:*}" --epilogue full,none --hints "${s##*:}" > /tmp/san.log 2>&1; rc=$?
    echo "sanitize $tool ${s%%,*}: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1) $(grep -c PASS /tmp/san.log) pass" >> "$L"
    [ $rc != 0 ] && tail -20 /tmp/san.log >> "$L"
  done
done
if [ $(left) -gt 130 ]; then
  mkdir -p /tmp/z
  timeout 50 ./build/igemm bench --shapes bench/zoo.csv --vs cudnn --csv /tmp/z/zoo_cli.csv > /tmp/z/zoo.log 2>&1
  IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 80 python3 python/bench.py --shapes bench/zoo.csv --no-compile --csv /tmp/z/zoo_py.csv >> /tmp/z/zoo.log 2>&1
  python3 scripts/zoo_table.py /tmp/z/zoo_cli.csv /tmp/z/zoo_py.csv > "$OUT/zoo_table.md" 2>&1
  cp /tmp/z/zoo.log "$OUT/"
fi
echo "elapsed $(( $(date +%s) - t0 )) s" >> "$L"
