#!/bin/bash
# The first device call owed by session 18 (written then as dev_s18_a.sh; session 18 got no device:
# every start failed; session 19 added step (1b), issue 29's GPU-machine item). Carried: out/bin.txz = main with the branch exp/dwx-empty-barriers merged (the depthwise
# TMA kernel without its CTA-wide barrier per item: per-stage empty mbarriers, pieces round robin;
# on main since 20bed29 also the sm100 2-CTA pair, which never runs on Hopper) and out/old.txz =
# main without it. Package each with `tar cf - build/igemm build/libigemm.so build/libigemm.so.0.5
# build/igemm_tests | xz -2 -T2`. Each step while BUDGET seconds last:
# (1) this build's C tests (session 17's unrun commits, the pair's planner tests on a Hopper GPU,
# 150 random depthwise convs on the changed kernel); (1b) issue 29 on this Hopper GPU: the planner's
# choice under auto / path sm100 / kernel=tcgen05 (never the family, refusals named) and the SASS
# histogram of the library's sm_100a images by this machine's cuobjdump; (2) the depthwise layers (zoo +
# bench/depthwise_extra.csv), old / new interleaved, two reps, the planner and the TMA kernel
# forced, plain; fused once; (3) memcheck / racecheck of TMA plans (a 3x3 stride 1 and a 5x5
# stride 2 with pieces % groups != 0); (4) session 17's rule: every 1x1 on the planner (cuDNN
# beside) and the two deferred layers forced back onto the narrow family (--path memory); (5) the
# zoo against best-of(cuDNN, PyTorch); (6) the GEMM suite against cuBLASLt, plain and fused;
# (7) ncu of the TMA kernel on two layers.
. "$(dirname "$0")/dev_preamble.sh" a
left() { echo $(( ${BUDGET:-570} - ($(date +%s) - t0) )); }
timeout 150 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL" "$OUT/tests.log" | head -30 >> "$L"
echo "=== sm100 family on this Hopper GPU (issue 29)" >> "$L"
timeout 20 ./build/igemm info 2>&1 | head -12 >> "$L"
for a in "--path auto" "--path sm100" "--hints kernel=tcgen05" "--hints kernel=tcgen05,tile_m=256"; do
  for s in "g4096,4096,4096,4096" "c3,32,28,28,256,256,3,3,1,1,1,1,1,1"; do
    echo "-- $a $s: $(timeout 20 ./build/igemm run --shape $s --iters 3 $a 2>&1 | grep -E "plan:|rror|not|NOT" | head -2 | cut -c1-400)" >> "$L"
  done
done
CU=$CUDA_HOME/bin/cuobjdump; [ -x "$CU" ] || CU=$(command -v cuobjdump)
echo "sm_100a images in libigemm.so: $($CU --list-elf build/libigemm.so 2>&1 | grep -c sm_100a) ($CU)" >> "$L"
$CU -sass -arch sm_100a build/libigemm.so 2>&1 | grep -oE "UTCHMMA[A-Z0-9_.]*|UTCBAR[A-Z0-9_.]*|LDTM[A-Z0-9_.]*|UTCATOMSWS[A-Z_.]*|UTMALDG[A-Z0-9_.]*|UTMASTG[A-Z0-9_.]*|UGETNEXTWORKID[A-Z_.]*|\bLDL\b|\bSTL\b" | sort | uniq -c | awk '{printf "%s %s; ", $2, $1} END {print ""}' >> "$L"
grep -v "^#" bench/zoo.csv | awk -F, 'NF >= 15 && $15 == $5 && $15 > 1' > /tmp/dw.csv
grep -v "^#" bench/depthwise_extra.csv >> /tmp/dw.csv
B() { timeout 40 "$@" 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3}'; }
for rep in 1 2; do for b in new old; do for hh in "" kernel=depthwise_tma; do
  [ $(left) -lt 240 ] && break
  bin=./build/igemm; [ $b = old ] && bin=./out/old/build/igemm
  echo "=== dw $b rep $rep [$hh]" >> "$L"
  LD_LIBRARY_PATH=$(dirname $bin):$LD_LIBRARY_PATH B $bin bench --shapes /tmp/dw.csv --iters 40 ${hh:+--hints $hh} >> "$L"
done; done; done
for b in new old; do
  [ $(left) -lt 220 ] && break
  bin=./build/igemm; [ $b = old ] && bin=./out/old/build/igemm
  echo "=== dw fused $b" >> "$L"
  LD_LIBRARY_PATH=$(dirname $bin):$LD_LIBRARY_PATH B $bin bench --shapes /tmp/dw.csv --iters 40 --fused >> "$L"
done
echo "dw done $(( $(date +%s) - t0 )) s" >> "$L"
for s in "dw3,2,30,33,32,32,3,3,1,1,1,1,1,1,32:kernel=depthwise_tma,grid=3" "dw5s2,2,29,31,144,144,5,5,2,2,2,2,1,1,144:kernel=depthwise_tma,grid=2"; do
  for tool in memcheck racecheck; do
    [ $(left) -lt 180 ] && break
    sanitize $tool "${s%%:*}" "${s##*:}"
  done
done
for f in bench/shapes.csv bench/zoo.csv bench/fewrows.csv bench/pointwise.csv; do
  grep -v "^#" $f | awk -F, 'NF >= 14 && $7 == 1 && $8 == 1 && $9 == 1 && $10 == 1 && ($15 == "" || $15 == 1)'
done > /tmp/pw.csv
if [ $(left) -gt 150 ]; then
  echo "=== 1x1 planner, cuDNN beside" >> "$L"
  timeout 70 ./build/igemm bench --shapes /tmp/pw.csv --iters 60 --vs cudnn 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $4}' >> "$L"
  grep -E "^(mbv2_expand_16_96|pw_expand_16_96_b8)," /tmp/pw.csv > /tmp/nw.csv
  for rep in 1 2; do for p in auto memory; do
    echo "=== deferral rep $rep path $p" >> "$L"
    B ./build/igemm bench --shapes /tmp/nw.csv --iters 60 --path $p >> "$L"
  done; done
fi
echo "1x1 done $(( $(date +%s) - t0 )) s" >> "$L"
if [ $(left) -gt 110 ]; then
  mkdir -p /tmp/z
  timeout 50 ./build/igemm bench --shapes bench/zoo.csv --vs cudnn --csv /tmp/z/zoo_cli.csv > /tmp/z/zoo.log 2>&1
  IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 70 python3 python/bench.py --shapes bench/zoo.csv --no-compile --csv /tmp/z/zoo_py.csv >> /tmp/z/zoo.log 2>&1
  python3 scripts/zoo_table.py /tmp/z/zoo_cli.csv /tmp/z/zoo_py.csv > "$OUT/zoo_table.md" 2>&1
  cp /tmp/z/zoo.log /tmp/z/*.csv "$OUT/"
fi
for f in "" --fused; do
  [ $(left) -lt 45 ] && break
  echo "=== gemm suite $f" >> "$L"
  timeout 40 ./build/igemm bench --gemm --shapes bench/gemm_shapes.csv --vs cublas --iters 40 $f 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
done
for s in "effnet_dw_5x5s2_144,32,56,56,144,144,5,5,2,2,2,2,1,1,144" "mbv2_dw_3x3_32,32,112,112,32,32,3,3,1,1,1,1,1,1,32"; do
  [ $(left) -lt 25 ] && break
  timeout 30 ncu --clock-control none -k regex:dwx --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis ./build/igemm run --shape "$s" --iters 5 > "$OUT/ncu_${s%%,*}.txt" 2>&1
done
echo "elapsed $(( $(date +%s) - t0 )) s" >> "$L"
