#!/bin/bash
# Session 19, second device call (the same carried build as dev_s19_c.sh on the branch exp/s19-dev: out/bin.txz,
# main with the kernel branches merged). No new kernel: which existing plan wins where we lose, on
# the machine of the day, to decide planner rules from data (issues 27 / 28).
# (1) the GEMM suite's big shapes (sq_*, llm_*, odd_mnk) on the planner's plan against 128 x 256
#     and 256 x 128 forced, cuBLASLt beside, two reps interleaved;
# (2) the few-tile GEMMs (llm_decode_b64 / b256, cnn_fc, wide_k) under tiles / split-K hints;
# (2b) ncu (SOL, memory workload) of the two decode GEMMs: is the stream L2-bound?
# (3) the zoo's 1x1s (the layers below 0.95x best-of) under the 64 x 32 / 128 x 32 whole-K tiles,
#     64-row whole-N tiles, ping-pong 128 x 128, cuDNN beside.
# (4) the zoo's other groups-1 layers (few output channels, batch 1, dilated) under the narrow
#     whole-K tiles and split-K; (5) the zoo's depthwise layers per call and back to back.
# Each bench line: name, ours us, anchor us (the CLI's table), the hint text after it.
. "$(dirname "$0")/dev_preamble.sh" b
left() { echo $(( ${BUDGET:-570} - ($(date +%s) - t0) )); }
G() { # G FILE HINTS VS: one bench, each data line tagged with the hint text
  local h=$2
  timeout 90 ./build/igemm bench $4 --shapes "$1" --vs $3 --iters ${ITERS:-30} --warmup 5 ${h:+--hints "$h"} 2>&1 \
    | grep -vE "^(igemm|geomean|name|#|\[)" | awk -v c="${h:-planner}" 'NF>2{print $0, " [" c "]"}' >> "$L"
}
grep -E "^(sq_4096|sq_8192|llm_qkv|llm_o|llm_up|llm_down|odd_mnk)," bench/gemm_shapes.csv > /tmp/big.csv
grep -E "^(llm_decode_b64|llm_decode_b256|cnn_fc|wide_k|sq_2048)," bench/gemm_shapes.csv > /tmp/few.csv
for rep in 1 2; do
  for h in "" "tile=128x256" "tile=256x128" "tile=256x128,stages=3"; do
    [ $(left) -lt 300 ] && break
    echo "=== big rep $rep [$h]" >> "$L"; G /tmp/big.csv "$h" cublas --gemm
  done
done
echo "big done $(( $(date +%s) - t0 )) s" >> "$L"
for h in "" "tile=128x128" "tile=128x256" "tile=64x32" "tile=128x32" "tile=128x128,split_k=2" "tile=128x128,split_k=3" "tile=128x128,split_k=4" "tile=128x256,split_k=2" "kernel=split_cluster" "kernel=pingpong,tile=128x128"; do
  [ $(left) -lt 170 ] && break
  echo "=== few [$h]" >> "$L"; ITERS=40 G /tmp/few.csv "$h" cublas --gemm
done
echo "few done $(( $(date +%s) - t0 )) s" >> "$L"
# is the decode stream L2-bound (the case for multicasting x across N-neighbour CTA pairs)?
for s in "d64,64,4096,4096" "d256,256,14336,4096"; do
  [ $(left) -lt 200 ] && break
  timeout 40 ncu --clock-control none -k regex:igemm_sm90 --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section LaunchStats ./build/igemm run --shape "$s" --iters 5 > "$OUT/ncu_${s%%,*}.txt" 2>&1
done
grep -v "^#" bench/zoo.csv | awk -F, '$7 == 1 && $8 == 1 && ($15 == "" || $15 == 1)' > /tmp/z1.csv
for rep in 1 2; do
  for h in "" "tile=64x32" "tile=128x32" "tile=64x128" "tile=64x256" "kernel=pingpong,tile=128x128" "tile=128x128"; do
    [ $(left) -lt 20 ] && break
    echo "=== zoo 1x1 rep $rep [$h]" >> "$L"; ITERS=60 G /tmp/z1.csv "$h" cudnn
  done
done
# (4) every zoo layer of groups 1 that is not a 1x1 (few output channels: sd_conv_out_320_4 on 64
# split-K tiles measured 22.7 us against a 1.8 us floor; batch-1 and dilated 3x3s) under the
# whole-K narrow tiles and split-K
grep -v "^#" bench/zoo.csv | awk -F, 'NF >= 14 && !($7 == 1 && $8 == 1) && ($15 == "" || $15 == 1)' > /tmp/zg.csv
for h in "" "tile=64x32" "tile=128x32" "tile=128x64,split_k=2" "tile=128x64,split_k=3" "tile=128x128,split_k=2" "kernel=pixels_n,split_k=4"; do
  [ $(left) -lt 15 ] && break
  echo "=== zoo kxk [$h]" >> "$L"; ITERS=40 G /tmp/zg.csv "$h" cudnn
done
# (5) the depthwise layers timed back to back (16 calls per event pair: the issue's "CUDA-graph or
# back-to-back replays"), where a per-call event pair's fixed cost caps the floor fraction of the
# 2-15 us layers
grep -v "^#" bench/zoo.csv | awk -F, 'NF >= 15 && $15 == $5 && $15 > 1' > /tmp/dwb.csv
for t in per-call back-to-back; do
  [ $(left) -lt 8 ] && break
  echo "=== dw timing [$t]" >> "$L"
  timeout 30 ./build/igemm bench --shapes /tmp/dwb.csv --iters 40 --timing $t 2>&1 | grep -vE "^(igemm|geomean|name|#|\[)" | awk -v c="$t" 'NF>2{print $1, $2, $3, " [" c "]"}' >> "$L"
done
echo "elapsed $(( $(date +%s) - t0 )) s" >> "$L"
python3 scripts/ab_log.py "$L" > "$OUT/tables.md" 2>&1
