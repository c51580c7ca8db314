#!/bin/bash
# device calls for the split-in-cluster pixels-as-N change (issue 27). MODE=full (default): C
# tests, sanitizers on the new tests, the GEMM suite against cuBLASLt, the few-row layers, ncu of
# the new kernel; MODE=sweep: the new tests, the GEMM suite, the few-row GEMM sweep of split / TP
tar xzf out/bin.tgz
if [ "${MODE:-full}" = sweep ]; then
  ./build/igemm_tests gpu_sm90_pixels_n_split gpu_sm90_pdl_chain_pixn_cluster gpu_gemm_plan_random > "$OUT/tests.log" 2>&1
  tail -1 "$OUT/tests.log"
  bash scripts/gpu_check.sh gemm fewrows > "$OUT/run.log" 2>&1
  GPU_CHECK_APPEND=1 GS_FILE=dev/probes/fewrow_gemms.csv GS_SHAPES=".*" \
    GS_CFGS="default|kernel=pixels_n,tile_m=32,split_k=2|kernel=pixels_n,tile_m=64,split_k=3|kernel=pixels_n,tile_m=32,split_k=4|kernel=split_cluster" \
    bash scripts/gpu_check.sh gemmsweep >> "$OUT/run.log" 2>&1
  cp out/summary.txt out/gemm.log out/fewrows.log "$OUT/" 2>/dev/null
  exit 0
fi
bash scripts/gpu_check.sh tests gemm fewrows > "$OUT/run.log" 2>&1
cp out/summary.txt out/tests.log out/gemm.log out/fewrows.log "$OUT/" 2>/dev/null
for t in gpu_sm90_pixels_n_split gpu_sm90_pdl_chain_pixn_cluster; do
  for tool in memcheck racecheck synccheck; do
    echo "== $tool $t"; timeout 200 compute-sanitizer --tool $tool ./build/igemm_tests $t 2>&1 | tail -4
  done
done > "$OUT/san.log" 2>&1
export LD_LIBRARY_PATH=$PWD/build
grep -E "^(llm_decode_b64|cnn_fc)," bench/gemm_shapes.csv > /tmp/s.csv
for f in "" "--fused"; do
  echo "=== ncu $f"; ncu --clock-control none -k regex:igemm --launch-skip 4 --launch-count 2 --section SpeedOfLight \
    ./build/igemm bench --gemm --shapes /tmp/s.csv --iters 3 --warmup 2 $f 2>&1 | grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Through" | cut -c1-120
done > "$OUT/ncu.log" 2>&1
