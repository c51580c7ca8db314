#!/bin/bash
# Session-9 device call (issue 27): the split pixels-as-N plans' 64-channel form adds its two
# consumers' partials in the CTA before the cluster sum (core/cluster_sum.cuh): half the DSMEM bytes.
# Carried: out/bin.tgz (this build: CLI, library, tests), out/old.tgz (HEAD before it: CLI +
# library). (1) the C tests (all), sanitizers on the split pixels-as-N test; (2) few-row GEMMs
# and layers, old / new interleaved, two reps, beside cuBLASLt; (3) the GEMM suite, plain and fused.
tar xzf out/bin.tgz
mkdir -p /tmp/old; tar xzf out/old.tgz -C /tmp/old
. "$(dirname "$0")/device_env.sh"
L=$OUT/combine.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
export IGEMM_NEW=$PWD/build
LD_LIBRARY_PATH=$IGEMM_NEW:$LD_LIBRARY_PATH timeout 150 ./build/igemm_tests gpu_sm90_pixels_n > "$OUT/tests_pixn.log" 2>&1; echo "pixn tests rc=$?: $(tail -1 "$OUT/tests_pixn.log")" >> "$L"
grep -E "FAIL" "$OUT/tests_pixn.log" | head -5 >> "$L"
for tool in memcheck racecheck synccheck; do
  LD_LIBRARY_PATH=$IGEMM_NEW:$LD_LIBRARY_PATH timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm_tests gpu_sm90_pixels_n_split 2>&1 | tail -1 | tr '\n' ' ' >> "$L"; echo " ($tool)" >> "$L"
done
cat > /tmp/few.csv <<'C'
llm_decode_b64,64,4096,4096
decode_b32,32,4096,4096
decode_b64_k14336,64,4096,14336
decode_b128,128,4096,4096
cnn_fc,32,1000,2048
fc_b128,128,1000,2048
fc_b64_4096,64,1024,4096
C
for rep in 1 2; do for v in old new; do
  D=$IGEMM_NEW; [ $v = old ] && D=/tmp/old
  echo "=== gemm $v rep $rep" >> "$L"
  LD_LIBRARY_PATH=$D:$LD_LIBRARY_PATH timeout 100 $D/igemm bench --gemm --shapes /tmp/few.csv --vs cublas --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" >> "$L"
  echo "=== fused $v rep $rep" >> "$L"
  LD_LIBRARY_PATH=$D:$LD_LIBRARY_PATH timeout 100 $D/igemm bench --gemm --fused --shapes /tmp/few.csv --vs cublas --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" >> "$L"
  echo "=== fewrows $v rep $rep" >> "$L"
  LD_LIBRARY_PATH=$D:$LD_LIBRARY_PATH timeout 100 $D/igemm bench --shapes bench/fewrows.csv --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
done; done
for f in "" --fused; do
  echo "=== suite new $f" >> "$L"
  LD_LIBRARY_PATH=$IGEMM_NEW:$LD_LIBRARY_PATH timeout 150 ./build/igemm bench --gemm $f --shapes bench/gemm_shapes.csv --vs cublas --iters 40 2>&1 | grep -vE "^\[|^#" >> "$L"
done
LD_LIBRARY_PATH=$IGEMM_NEW:$LD_LIBRARY_PATH timeout 300 ./build/igemm_tests > "$OUT/tests_all.log" 2>&1; echo "all C tests rc=$?: $(tail -1 "$OUT/tests_all.log")" >> "$L"
grep -E "FAIL" "$OUT/tests_all.log" | head -5 >> "$L"
