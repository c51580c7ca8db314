#!/bin/bash
# Session-15 sweep (issues 27/28): plan hints on the zoo's six 1x1 layers below 0.95x best-of
# (H100), to see whether any existing plan beats the planner's. Carried: out/bin.txz.
tar xJf out/bin.txz
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/sweep.log
nvidia-smi --query-gpu=name --format=csv,noheader > "$L"
grep -E "^(mbv2_project_960_160|mbv2_expand_160_960|effnet_expand_40_240|effnet_project_240_40|yolov8_cls_1x1_80|mbv2_project_32_16)," bench/zoo.csv > /tmp/s.csv
for hh in "" "split_k=2" "split_k=3" "tile=128x32" "tile=128x128" "tile=128x256" "kernel=pingpong" "kernel=pixels_n" "kernel=pixels_n_pingpong" "kernel=split_cluster"; do
  for f in ""; do
    echo "=== [$hh] $f" >> "$L"
    timeout 40 ./build/igemm bench --shapes /tmp/s.csv --iters 60 ${hh:+--hints $hh} $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3}' >> "$L"
  done
done
# the 3-CTA experiment (out/exp.txz: the 3x3 stride-2 4-column instance at 80 registers, rows not
# unrolled, 3 CTAs per SM in the planner) on the stride-2 depthwise layers, against this build
mkdir -p out/exp && tar xJf out/exp.txz -C out/exp
( grep -v "^#" bench/zoo.csv | awk -F, '$15 > 1 && $15 == $5 && $9 == 2 && $7 == 3'; grep -v "^#" bench/depthwise_extra.csv | awk -F, '$9 == 2 && $7 == 3' ) > /tmp/s2.csv
for rep in 1; do for f in "" "--fused"; do for v in main exp; do
  echo "=== s2 $v $f rep $rep" >> "$L"
  LP=$PWD/build; [ $v = exp ] && LP=$PWD/out/exp/build
  LD_LIBRARY_PATH=$LP:$LD_LIBRARY_PATH timeout 40 ./build/igemm bench --shapes /tmp/s2.csv --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3}' >> "$L"
done; done; done
LD_LIBRARY_PATH=$PWD/out/exp/build:$LD_LIBRARY_PATH timeout 60 ./build/igemm check --shape "dw3s2_exp,2,23,19,64,64,3,3,2,2,1,1,1,1,64" --epilogue full,none --hints kernel=depthwise_tma,grid=3 2>&1 | tail -3 >> "$L"
