#!/bin/bash
# Session-6 third device call (issue 27): the 64-channel split pixels-as-N form (build in
# out/bin.tgz) against the build before (out/old.tgz): its tests and sanitizers, the few-row GEMMs
# and layers A/B (interleaved, two reps), the GEMM suite A/B (one rep plain and fused), and the
# few-row GEMMs under both channel widths by hints, beside cuBLASLt.
tar xzf out/bin.tgz
mkdir -p /tmp/old && tar xzf out/old.tgz -C /tmp/old
NEW=$PWD/build; OLD=/tmp/old
. "$(dirname "$0")/device_env.sh"
L=$OUT/pixn64.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
export LD_LIBRARY_PATH=$NEW
timeout 120 ./build/igemm_tests gpu_sm90_pixels_n_split >> "$L" 2>&1; echo "pixn split test rc=$?" >> "$L"
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log")" >> "$L"
grep FAIL "$OUT/tests.log" | head >> "$L"
for tool in memcheck racecheck synccheck; do
  echo "== $tool" >> "$L"; timeout 200 compute-sanitizer --tool $tool ./build/igemm_tests gpu_sm90_pixels_n_split 2>&1 | tail -2 >> "$L"
done
echo "tests done at $(( $(date +%s) - t0 )) s" >> "$L"
for rep in 1 2; do
  for side in new old; do
    d=$NEW; [ $side = old ] && d=$OLD
    echo "=== fewrows $side rep $rep" >> "$L"
    LD_LIBRARY_PATH=$d timeout 100 $d/igemm bench --shapes bench/fewrows.csv 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
    echo "=== fewgemm $side rep $rep" >> "$L"
    LD_LIBRARY_PATH=$d timeout 100 $d/igemm bench --gemm --shapes dev/probes/fewrow_gemms.csv --vs cublas 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  done
done
echo "fewrows done at $(( $(date +%s) - t0 )) s" >> "$L"
for h in "kernel=pixels_n,tile=64x128,split_k=2" "kernel=pixels_n,tile=64x64,split_k=2" "kernel=pixels_n,tile=64x64,split_k=4" "kernel=pixels_n,tile=32x64,split_k=2" "kernel=pixels_n,tile=32x64,split_k=4"; do
  echo "=== fewsweep [$h]" >> "$L"
  timeout 100 ./build/igemm bench --gemm --shapes dev/probes/fewrow_gemms.csv --vs cublas --hints "$h" 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
done
echo "sweep done at $(( $(date +%s) - t0 )) s" >> "$L"
for side in new old; do
  d=$NEW; [ $side = old ] && d=$OLD
  for f in "" "--fused"; do
    echo "=== gemm $side $f" >> "$L"
    LD_LIBRARY_PATH=$d timeout 200 $d/igemm bench --gemm --shapes bench/gemm_shapes.csv --vs cublas $f 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  done
done
echo "suite done at $(( $(date +%s) - t0 )) s" >> "$L"
