#!/bin/bash
# Session-6 second device call (issue 27): the long-K model change (build in out/bin.tgz) against
# the build before (out/old.tgz) on the GEMM suite (plain and fused, interleaved, two reps), a long-K
# sweep of plans with cuBLASLt timed beside every row (same power state), and an ncu look at the
# decode M = 64 kernels (ours and cuBLASLt's: memory and warp-state sections).
tar xzf out/bin.tgz
mkdir -p /tmp/old && tar xzf out/old.tgz -C /tmp/old
NEW=$PWD/build; OLD=/tmp/old
. "$(dirname "$0")/device_env.sh"
L=$OUT/longk.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
for rep in 1 2; do
  for side in new old; do
    d=$NEW; [ $side = old ] && d=$OLD
    for f in "" "--fused"; do
      echo "=== gemm $side $f rep $rep" >> "$L"
      LD_LIBRARY_PATH=$d timeout 200 $d/igemm bench --gemm --shapes bench/gemm_shapes.csv --vs cublas $f 2>&1 | grep -vE "^\[" >> "$L"
    done
  done
done
echo "suite done at $(( $(date +%s) - t0 )) s" >> "$L"
export LD_LIBRARY_PATH=$NEW
cat > /tmp/longk.csv <<'C'
wide_k,1024,1024,32768
k16k_1k,1024,1024,16384
k8k_1k,1024,1024,8192
k32k_1x2k,1024,2048,32768
k64k_512,512,512,65536
k8k_2kx1k,2048,1024,8192
k16k_2k,2048,2048,16384
C
for h in "" "tile=256x128,split_k=4" "tile=128x128,split_k=2" "kernel=split_cluster" "tile=128x128,split_k=8" "tile=256x128,split_k=2"; do
  echo "=== longk [$h]" >> "$L"
  timeout 150 ./build/igemm bench --gemm --shapes /tmp/longk.csv --vs cublas ${h:+--hints "$h"} 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
done
echo "sweep done at $(( $(date +%s) - t0 )) s" >> "$L"
grep -E "^llm_decode_b64," bench/gemm_shapes.csv > /tmp/dec.csv
for k in igemm nvjet; do
  timeout 150 ncu --clock-control none -k regex:"$k" --launch-skip 6 --launch-count 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy \
    ./build/igemm bench --gemm --shapes /tmp/dec.csv $([ $k = nvjet ] && echo --vs cublas) --iters 3 --warmup 2 >> "$OUT/ncu_decode.log" 2>&1
done
echo "ncu done at $(( $(date +%s) - t0 )) s" >> "$L"
