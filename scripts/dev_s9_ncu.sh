#!/bin/bash
# Session-9: ncu of decode M = 64 (64 x 4096 x 4096) and the 32-row classifier: ours and
# cuBLASLt's kernels, speed of light + memory workload + warp states. Build: out/bin.tgz.
tar xzf out/bin.tgz
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:${LD_LIBRARY_PATH:-}
printf 'llm_decode_b64,64,4096,4096\n' > /tmp/dec.csv
timeout 250 ncu --clock-control none -k regex:'igemm|nvjet|gemm' --launch-skip 0 --launch-count 24 --section SpeedOfLight \
  --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section LaunchStats \
  ./build/igemm bench --gemm --shapes /tmp/dec.csv --vs cublas --iters 3 --warmup 2 > "$OUT/ncu_decode.log" 2>&1
echo "ncu rc=$?"
