#!/bin/bash
# Session-11 device call 6 (issue 27): the skinny family leaves few-row decodes that fill the SMs
# to the sm90 split plans. The C tests, then decode GEMMs of 1-16 rows and the GEMM suite on the
# planner, cuBLASLt beside (the build before's numbers: call 5, the same GPU model).
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/s11f.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
timeout 200 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log")" >> "$L"
grep -E "FAIL" "$OUT/tests.log" | head -8 >> "$L"
printf "d1,1,4096,4096\nd4,4,4096,4096\nd8,8,4096,4096\nd16,16,4096,4096\nd16_k2048,16,4096,2048\nd8_n5120,8,5120,4096\nfc_b1,1,1000,2048\nd1_k14336,1,4096,14336\nd1_n14336,1,14336,4096\n" > /tmp/sk.csv
for rep in 1 2; do for f in "" --fused; do
  echo "=== sk $f rep $rep" >> "$L"
  timeout 100 ./build/igemm bench --gemm $f --shapes /tmp/sk.csv --vs cublas --iters 60 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
done; done
echo "=== skinny forced (--path memory)" >> "$L"
timeout 100 ./build/igemm bench --gemm --path memory --shapes /tmp/sk.csv --vs cublas --iters 60 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
