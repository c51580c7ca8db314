#!/bin/bash
# Session-14 device call (issue 28 item 2, branch grouped-16): the sm90 grouped slabs' filter boxes
# from a 2-D filter map {R*S*cg, K} (each box reads real channels of neighbouring taps where its
# window reads none) instead of the 4-D map's zero fill, and slabs of four 16-channel groups back
# (windows m64n16k16). Carried: out/bin.txz (this build), out/prev.txz (main's build f6e84b8: the
# 4-D map, no 16-channel slabs). The sm90 grouped tests; memcheck of a 16- and a 32-channel slab;
# the grouped layers on --path memory (the family), --path sm90 (this build) and --path sm90 of the
# previous build, two reps, plain and fused, cuDNN beside.
tar xJf out/bin.txz
mkdir -p out/prev && tar xJf out/prev.txz -C out/prev
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/g16.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 120 ./build/igemm_tests sm90_grouped > "$OUT/t_grp.log" 2>&1; echo "sm90 grouped tests rc=$?: $(tail -1 "$OUT/t_grp.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|configs ran" "$OUT/t_grp.log" | head -12 >> "$L"
printf "san_g16,1,11,7,208,208,3,3,2,2,1,1,1,1,13\nsan_g32,2,9,13,96,96,3,3,1,1,1,1,1,1,3\n" > /tmp/san.csv
for f in "" --fused; do
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 ./build/igemm bench --shapes /tmp/san.csv --path sm90 --iters 1 --warmup 0 --hints grid=3 $f > "$OUT/san$f.log" 2>&1
  echo "memcheck $f rc=$?: $(tail -1 "$OUT/san$f.log")" >> "$L"
done
{ grep -E "^(resnext|regnety)" bench/zoo.csv; grep -vhE "^#" bench/grouped_extra.csv bench/grouped_wide.csv; } | grep -vE "g24|_128,|g2_|g4_|alexnet|g8_1x1|_2048|g32_3x3_256|g6_|g8_3x3" > /tmp/grp.csv
for rep in 1 2; do for f in "" --fused; do
  echo "=== sm90 $f rep $rep" >> "$L"
  timeout 60 ./build/igemm bench --shapes /tmp/grp.csv $f --path sm90 $([ $rep = 1 ] && echo --vs cudnn) --iters 60 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  echo "=== memory $f rep $rep" >> "$L"
  timeout 40 ./build/igemm bench --shapes /tmp/grp.csv $f --path memory --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
  echo "=== prev sm90 $f rep $rep" >> "$L"
  LD_LIBRARY_PATH=$PWD/out/prev/build:$LD_LIBRARY_PATH timeout 40 ./build/igemm bench --shapes /tmp/grp.csv $f --path sm90 --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
done; done
echo "elapsed $(( $(date +%s) - t0 )) s" >> "$L"
