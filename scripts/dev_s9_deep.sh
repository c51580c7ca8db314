#!/bin/bash
# Session-9 device call 3 (issue 27): deeper rings for the split pixels-as-N plans (few-row GEMMs:
# decode steps, classifiers). Build: out/bin.tgz (CLI, library, tests) with up to 16 stages in
# those plans; `--hints stages=8` gives the build before's plans. (1) the split pixels-as-N tests;
# (2) few-row GEMMs beside cuBLASLt at stages 8 / 10 / 12 / 16 (the planner's), interleaved, two
# reps; (3) bench/fewrows.csv and the GEMM suite, stages=8 against the planner's, interleaved.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/deep.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
timeout 120 ./build/igemm_tests gpu_sm90_pixels_n > "$OUT/tests.log" 2>&1; echo "tests rc=$?: $(tail -1 "$OUT/tests.log")" >> "$L"
grep -E "FAIL" "$OUT/tests.log" | head -5 >> "$L"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 ./build/igemm_tests gpu_sm90_pixels_n_split 2>&1 | tail -2 >> "$L"
cat > /tmp/few.csv <<'C'
llm_decode_b64,64,4096,4096
decode_b32,32,4096,4096
decode_b64_k14336,64,4096,14336
decode_b128,128,4096,4096
cnn_fc,32,1000,2048
fc_b128,128,1000,2048
fc_b64_4096,64,1024,4096
C
for rep in 1 2; do for h in stages=8 stages=10 stages=12 ""; do
  echo "=== gemm [$h] rep $rep" >> "$L"
  timeout 100 ./build/igemm bench --gemm --shapes /tmp/few.csv --vs cublas --iters 60 ${h:+--hints "$h"} 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
done; done
for rep in 1 2; do for h in stages=8 ""; do
  echo "=== fewrows [$h] rep $rep" >> "$L"
  timeout 100 ./build/igemm bench --shapes bench/fewrows.csv --iters 60 ${h:+--hints "$h"} 2>&1 | grep -vE "^\[|^#|^igemm" | awk '{print $1, $2, $3, $NF}' >> "$L"
done; done
for h in stages=8 ""; do
  echo "=== suite [$h]" >> "$L"
  timeout 150 ./build/igemm bench --gemm --shapes bench/gemm_shapes.csv --vs cublas --iters 40 ${h:+--hints "$h"} 2>&1 | grep -vE "^\[|^#" >> "$L"
done
