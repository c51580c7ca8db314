#!/bin/bash
# Session-11 device call 7 (issue 27, measurement only): few-row GEMMs with wide N that the skinny
# family keeps (0.72-0.77x cuBLASLt in call 6): skinny (--path memory) against the sm90 planner
# (--path sm90) and the 128-channel split tile, two reps, cuBLASLt beside.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/s11g.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
printf "d8_n5120,8,5120,4096\nd1_n14336,1,14336,4096\nd16_n14336,16,14336,4096\nd4_n11008,4,11008,4096\nd1_n28672,1,28672,4096\nd8_n8192,8,8192,8192\nd1_n6144,1,6144,4096\n" > /tmp/w.csv
B() { echo "=== $3 [$2]" >> "$L"; timeout 100 ./build/igemm bench --gemm $1 --shapes /tmp/w.csv --vs cublas --iters 60 ${2:+--hints "$2"} 2>&1 | grep -vE "^\[|^#|^igemm|^name" >> "$L"; }
for rep in 1 2; do
  B "--path memory" "" "skinny"
  B "--path sm90" "" "sm90"
  B "" "kernel=pixels_n,tile=32x128,split_k=2" "split128"
done
