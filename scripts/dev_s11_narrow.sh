#!/bin/bash
# Session-11 device call 1 (issue 27): the 32-column-chunk row tiles — 128 x 32 over the whole K
# for few-row GEMMs (sm90_rule_narrow_rows) and 128 x 224 for one-wave GEMMs — against the build
# before (out/old.tgz: HEAD's igemm + libigemm.so.0) and cuBLASLt, in one process each, interleaved,
# two reps. New build: out/bin.tgz (CLI, library, tests).
#   (1) tests: gpu_sm90_cooperative_tiles (the new tiles by hints), memcheck of it, the split
#       pixels-as-N and random GEMM tests; (2) few-row GEMMs: old planner / new planner / new forced
#       tile=128x32; (3) one-wave GEMMs: old / new / forced tile=128x224; (4) wide_k split variants;
#       (5) the GEMM suite, old / new; (6) bench/fewrows.csv old / new.
tar xzf out/bin.tgz
mkdir -p out/old && tar xzf out/old.tgz -C out/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/s11.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
for t in gpu_sm90_cooperative_tiles gpu_sm90_pixels_n_split gpu_gemm_plan_random; do
  timeout 150 ./build/igemm_tests $t > "$OUT/test_$t.log" 2>&1; echo "$t rc=$?: $(tail -1 "$OUT/test_$t.log")" >> "$L"
  grep -E "FAIL" "$OUT/test_$t.log" | head -5 >> "$L"
done
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ./build/igemm_tests gpu_sm90_cooperative_tiles > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$?: $(tail -2 "$OUT/memcheck.log" | tr '\n' ' ')" >> "$L"
cat > /tmp/few.csv <<'C'
llm_decode_b64,64,4096,4096
decode_b32,32,4096,4096
decode_b96,96,4096,4096
decode_b128,128,4096,4096
decode_b64_n3072,64,3072,4096
decode_b64_n5120,64,5120,4096
decode_b64_k2048,64,4096,2048
decode_b64_k11008,64,4096,11008
decode_b64_k14336,64,4096,14336
decode_b32_n2048,32,2048,2048
cnn_fc,32,1000,2048
fc_b128,128,1000,2048
C
cat > /tmp/wave.csv <<'C'
llm_decode_b256,256,14336,4096
b128_n14336,128,14336,4096
b512_n7168,512,7168,4096
b256_n7168,256,7168,4096
b256_n14336_k8192,256,14336,8192
C
echo wide_k,1024,1024,32768 > /tmp/widek.csv
B() { # B BIN_DIR CSV HINTS TAG
  echo "=== $4 [$3]" >> "$L"
  LD_LIBRARY_PATH="$1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 150 "$1/igemm" bench --gemm --shapes "$2" --vs cublas \
    --iters 60 ${3:+--hints "$3"} 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
}
for rep in 1 2; do
  B out/old /tmp/few.csv "" "few old rep $rep"
  B build /tmp/few.csv "" "few new rep $rep"
  B build /tmp/few.csv "tile=128x32" "few forced rep $rep"
  B out/old /tmp/wave.csv "" "wave old rep $rep"
  B build /tmp/wave.csv "" "wave new rep $rep"
  B build /tmp/wave.csv "tile=128x224" "wave forced rep $rep"
done
for h in "" "tile=256x128,split_k=4" "tile=128x256,split_k=4" "kernel=split_cluster" "tile=128x224,split_k=2" "tile=128x128,split_k=4"; do
  B build /tmp/widek.csv "$h" "wide_k"
done
for rep in 1 2; do
  B out/old bench/gemm_shapes.csv "" "suite old rep $rep"
  B build bench/gemm_shapes.csv "" "suite new rep $rep"
done
for v in out/old build; do
  echo "=== fewrows $v" >> "$L"
  LD_LIBRARY_PATH="$v${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 100 "$v/igemm" bench --shapes bench/fewrows.csv --iters 60 2>&1 |
    grep -vE "^\[|^#|^igemm" | awk '{print $1, $2, $3, $NF}' >> "$L"
done
