#!/bin/bash
# Session-11 device call 5 (issue 27, measurement only): decode GEMMs of 1-32 rows (N = K = 4096)
# on the skinny family (the planner's for M <= 16), the whole-K 64 x 32 tile and the 32-pixel
# split pixels-as-N tile, one process per setting, interleaved, two reps, cuBLASLt beside; fused
# (bias + ReLU) for the planner and the split tile.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/s11e.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
printf "d1,1,4096,4096\nd4,4,4096,4096\nd8,8,4096,4096\nd16,16,4096,4096\nd24,24,4096,4096\nd32,32,4096,4096\nd16_k2048,16,4096,2048\nd8_n5120,8,5120,4096\n" > /tmp/sk.csv
B() { echo "=== $3 [$2]" >> "$L"; timeout 100 ./build/igemm bench --gemm $4 --shapes "$1" --vs cublas --iters 60 ${2:+--hints "$2"} 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"; }
for rep in 1 2; do
  B /tmp/sk.csv "" "planner rep $rep"
  B /tmp/sk.csv "tile=64x32" "narrow rep $rep"
  B /tmp/sk.csv "kernel=pixels_n,tile=32x64,split_k=2" "split32 rep $rep"
done
B /tmp/sk.csv "" "fused planner" --fused
B /tmp/sk.csv "kernel=pixels_n,tile=32x64,split_k=2" "fused split32" --fused
B /tmp/sk.csv "tile=64x32" "fused narrow" --fused
