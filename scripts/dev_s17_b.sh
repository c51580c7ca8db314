#!/bin/bash
# Session-17 device call: validation of HEAD (session 16's sm100 family + self-check, never run on a
# GPU, and the whole-N ping-pong tile) and the whole-N A/B (decisions.md "whole-n-tiles").
# Carried: out/bin.txz (this build), out/old.txz (8fbcff5 + compute_90 PTX: CLI + library).
# (1) all C tests (test_selfcheck, the sm100 planner test under a fake B200, gpu_sm90_whole_n, the
#     random tests with the 64x256 hint); (2) every 1x1 of shapes / zoo / fewrows / pointwise: this
#     build's planner against the old build's, interleaved, plain and fused, cuDNN beside; the
#     64x256 tile forced on all of them; (3) memcheck / racecheck of two whole-N plans; (4)
#     bench/shapes.csv new vs old, plain; each part checks the clock
# (the sm100 SASS histogram was taken on the build machine: docs/sm100.md).
. "$(dirname "$0")/dev_preamble.sh" b
left() { echo $(( 570 - ($(date +%s) - t0) )); }
timeout 200 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|selfcheck|sm100|whole" "$OUT/tests.log" | head -30 >> "$L"
for f in bench/shapes.csv bench/zoo.csv bench/fewrows.csv bench/pointwise.csv; do
  grep -v "^#" $f | awk -F, 'NF >= 14 && $7 == 1 && $8 == 1 && $9 == 1 && $10 == 1 && ($15 == "" || $15 == 1)'
done > /tmp/pw.csv
echo "1x1 layers: $(wc -l < /tmp/pw.csv)" >> "$L"
while read -r line; do echo "$(./build/igemm run --shape "$line" --iters 1 2>&1 | grep -E 'plan:' | cut -c1-400)"; done < /tmp/pw.csv > "$OUT/plans.log"
OLDLP=$PWD/out/old/build
for f in "" "--fused"; do
  for v in new old wide; do
    [ $(left) -lt 200 ] && break
    V=""; [ $v = new ] && [ -z "$f" ] && V="--vs cudnn"
    echo "=== $v $f $V" >> "$L"
    if [ $v = old ]; then
      LD_LIBRARY_PATH=$OLDLP:$LD_LIBRARY_PATH timeout 100 ./out/old/build/igemm bench --shapes /tmp/pw.csv --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
    elif [ $v = wide ]; then
      [ -n "$f" ] && continue
      timeout 100 ./build/igemm bench --shapes /tmp/pw.csv --iters 60 --hints kernel=pingpong,tile=64x256 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
    else
      timeout 100 ./build/igemm bench --shapes /tmp/pw.csv --iters 60 $f $V 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
    fi
  done
done
echo "1x1 bench done $(( $(date +%s) - t0 )) s" >> "$L"
for s in "wn_c24,2,19,21,24,144,1,1,1,1,0,0,1,1,1:kernel=pingpong,tile=64x256,grid=3" "wn_2x2,1,20,22,64,200,2,2,2,2,0,0,1,1,1:kernel=pingpong,tile=64x256,grid=2"; do
  for tool in memcheck racecheck; do
    [ $(left) -lt 100 ] && break
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm check --shape "${s%%:*}" --epilogue full,none --hints "${s##*:}" > /tmp/san.log 2>&1; rc=$?
    echo "sanitize $tool ${s%%,*}: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1) $(grep -c PASS /tmp/san.log) pass" >> "$L"
    [ $rc != 0 ] && tail -20 /tmp/san.log >> "$L"
  done
done
for v in new old; do
  [ $(left) -lt 60 ] && break
  LP=$PWD/build; BIN=./build/igemm; [ $v = old ] && LP=$OLDLP && BIN=./out/old/build/igemm
  echo "=== shapes $v" >> "$L"
  LD_LIBRARY_PATH=$LP:$LD_LIBRARY_PATH timeout 80 $BIN bench --shapes bench/shapes.csv --iters 30 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3}' >> "$L"
done
echo "elapsed $(( $(date +%s) - t0 )) s" >> "$L"
