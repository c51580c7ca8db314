#!/bin/bash
# Session-9 device call (issue 27): the split pixels-as-N plans' cluster sum with every remote load
# of a thread in flight at once (core/cluster_sum.cuh). Carried: out/bin.tgz (this build: CLI,
# library, tests), out/old.tgz (the build before: CLI + library), out/trace.tgz (this build with
# -DIGEMM_TRACE: per-CTA phase times). (1) the split pixels-as-N tests, memcheck / racecheck /
# synccheck; (2) few-row GEMMs and layers, old / new interleaved, two reps, beside cuBLASLt;
# (3) the phase trace of the new kernel; (4) the GEMM suite (new) beside cuBLASLt.
tar xzf out/bin.tgz
mkdir -p /tmp/old /tmp/tr; tar xzf out/old.tgz -C /tmp/old; tar xzf out/trace.tgz -C /tmp/tr
. "$(dirname "$0")/device_env.sh"
L=$OUT/gather.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH timeout 150 ./build/igemm_tests gpu_sm90_pixels_n > "$OUT/tests.log" 2>&1; echo "tests rc=$?: $(tail -1 "$OUT/tests.log")" >> "$L"
grep -E "FAIL" "$OUT/tests.log" | head -5 >> "$L"
for tool in memcheck racecheck synccheck; do
  LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm_tests gpu_sm90_pixels_n_split 2>&1 | tail -1 | tr '\n' ' ' >> "$L"; echo " ($tool)" >> "$L"
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
  D=$PWD/build; [ $v = old ] && D=/tmp/old
  echo "=== gemm $v rep $rep" >> "$L"
  LD_LIBRARY_PATH=$D:$LD_LIBRARY_PATH timeout 100 $D/igemm bench --gemm --shapes /tmp/few.csv --vs cublas --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" >> "$L"
  echo "=== fused $v rep $rep" >> "$L"
  LD_LIBRARY_PATH=$D:$LD_LIBRARY_PATH timeout 100 $D/igemm bench --gemm --fused --shapes /tmp/few.csv --vs cublas --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" >> "$L"
  echo "=== fewrows $v rep $rep" >> "$L"
  LD_LIBRARY_PATH=$D:$LD_LIBRARY_PATH timeout 100 $D/igemm bench --shapes bench/fewrows.csv --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
done; done
for g in "llm_decode_b64,64,4096,4096" "cnn_fc,32,1000,2048" "fc_b128,128,1000,2048"; do
  n=${g%%,*}; echo "$g" > /tmp/g.csv
  LD_LIBRARY_PATH=/tmp/tr:$LD_LIBRARY_PATH timeout 60 /tmp/tr/igemm bench --gemm --shapes /tmp/g.csv --iters 6 --warmup 2 2> "$OUT/trace_$n.txt" > /dev/null
done
tar czf "$OUT/traces.tgz" -C "$OUT" $(cd "$OUT" && ls trace_*.txt) && rm -f "$OUT"/trace_*.txt
for f in "" --fused; do
  echo "=== suite new $f" >> "$L"
  LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH timeout 150 ./build/igemm bench --gemm $f --shapes bench/gemm_shapes.csv --vs cublas --iters 40 2>&1 | grep -vE "^\[|^#" >> "$L"
done
