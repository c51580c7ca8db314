#!/bin/bash
# Session-14 device call (issue 28 item 2): grouped convs on the sm90 cooperative kernel
# (heuristics_grouped.c, conv_cooperative.cuh GW > 0), and the depthwise-mma-upw branch (session
# 13, never run). Carried: out/bin.txz (this build: CLI, library, tests), out/upw.txz (the branch's
# library and tests). (1) the sm90 grouped tests (CPU + GPU random); (2) memcheck / racecheck of grouped plans (slabs of 8,
# 16, 32; a tile inside a group), plain and fused; with ALL=1 the whole C suite; (3) the grouped layers (bench/zoo.csv's, bench/
# grouped_extra.csv, bench/grouped_wide.csv) on --path memory (the grouped family) and --path sm90, cuDNN in
# the same process, interleaved, two reps, plain and fused; (4) the branch: depthwise tests, the
# depthwise layers on kernel=depthwise_tiled / depthwise_mma (the branch's library under this CLI).
tar xJf out/bin.txz
mkdir -p out/upw && tar xJf out/upw.txz -C out/upw
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/grp.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 150 ./build/igemm_tests sm90_grouped > "$OUT/t_grp.log" 2>&1; echo "sm90 grouped tests rc=$?: $(tail -1 "$OUT/t_grp.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|configs ran" "$OUT/t_grp.log" | head -12 >> "$L"
cat > /tmp/san.csv <<'C'
san_g32,2,9,13,64,64,3,3,1,1,1,1,1,1,2
san_g32_odd,1,11,7,160,160,3,3,2,2,1,1,1,1,5
san_g32_64,2,7,9,96,192,5,5,1,1,2,2,1,1,3
san_g64,1,6,10,192,192,3,3,1,1,1,1,1,1,3
C
for tf in "memcheck " "racecheck " "memcheck --fused" "racecheck --fused"; do
  set -- $tf
  timeout 90 compute-sanitizer --tool $1 --error-exitcode 9 ./build/igemm bench --shapes /tmp/san.csv --path sm90 --iters 1 --warmup 0 --hints grid=3 $2 > "$OUT/san_$1$2.log" 2>&1
  echo "$1 $2 rc=$?: $(tail -1 "$OUT/san_$1$2.log")" >> "$L"
done
{ grep -E "^(resnext|regnety)" bench/zoo.csv; grep -vhE "^#" bench/grouped_extra.csv bench/grouped_wide.csv; } > /tmp/grp.csv
for rep in 1 2; do for v in memory sm90; do
  P="--path $v"
  for f in "" --fused; do
    echo "=== $v $f rep $rep" >> "$L"
    timeout 150 ./build/igemm bench --shapes /tmp/grp.csv $f $P --vs cudnn --iters 60 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  done
done; done
echo "grouped done $(( $(date +%s) - t0 )) s" >> "$L"
if [ "${ALL:-0}" = 1 ]; then
  timeout 300 ./build/igemm_tests > "$OUT/tests_all.log" 2>&1; echo "all C tests rc=$?: $(tail -1 "$OUT/tests_all.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
  grep -E "FAIL" "$OUT/tests_all.log" | head -10 >> "$L"
fi
# the depthwise-mma-upw branch
timeout 100 ./out/upw/build/igemm_tests depthwise > "$OUT/upw_tests.log" 2>&1; echo "upw dw tests rc=$?: $(tail -1 "$OUT/upw_tests.log")" >> "$L"
grep -E "FAIL|configs ran" "$OUT/upw_tests.log" | head -10 >> "$L"
( grep -v "^#" bench/zoo.csv | awk -F, '$15 > 1 && $15 == $5'; grep -v "^#" bench/depthwise_extra.csv ) > /tmp/dw.csv
for f in "" "--fused"; do
  for k in depthwise_tiled depthwise_mma; do
    echo "=== upw $k $f" >> "$L"
    LD_LIBRARY_PATH=$PWD/out/upw/build:$LD_LIBRARY_PATH timeout 100 ./build/igemm bench --shapes /tmp/dw.csv --iters 30 --hints kernel=$k $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3}' >> "$L"
  done
done
echo "elapsed $(( $(date +%s) - t0 )) s" >> "$L"
