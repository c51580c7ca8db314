#!/bin/bash
# scripts/ncu_ours_probe.sh — ncu kernel durations, grids and DRAM throughput of igemm's own kernels
# (main kernel and any reduce kernel) on GEMM shapes under plan-hint texts (issue 27).
#   NP_SHAPES: regex of names in NP_FILE (default bench/gemm_shapes.csv); NP_CFGS: '|'-separated
#   hint texts ("default" = the planner's plan). Run from the repository root on the GPU machine.
export LD_LIBRARY_PATH=$PWD/build:${LD_LIBRARY_PATH:-}
grep -E "^(${NP_SHAPES:-llm_decode_b64|cnn_fc|llm_decode_b256|wide_k})," "${NP_FILE:-bench/gemm_shapes.csv}" > /tmp/ng.csv
IFS='|' read -r -a cfgs <<< "${NP_CFGS:-default}"
while IFS= read -r s; do
  echo "$s" > /tmp/ng1.csv
  for h in "${cfgs[@]}"; do
    hh=$h; [ "$h" = default ] && hh=""
    echo "=== ${s%%,*} [$h]"
    timeout 100 ncu --clock-control none -k regex:igemm --launch-skip 4 --launch-count 2 --section SpeedOfLight --section LaunchStats \
      ./build/igemm bench --gemm --shapes /tmp/ng1.csv --iters 3 --warmup 2 ${hh:+--hints "$hh"} 2>&1 \
      | grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Grid Size|Cluster Size" | sed -E 's/\(CUtensorMap.*\) \(/ (/; s/, Context.*//' | cut -c1-140
  done
done < /tmp/ng.csv
