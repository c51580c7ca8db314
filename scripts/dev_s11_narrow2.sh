#!/bin/bash
# Session-11 device call 3 (issue 27): narrow row tiles with deep rings — 64 x 32 (one consumer)
# for M <= 64, 128 x 32 for M <= 128, up to 16 stages, the A box cut to M's rows — against the
# build before (out/old.tgz: HEAD's CLI + library) and cuBLASLt in the same process, interleaved,
# two reps. New build: out/bin.tgz.
#   (1) the C tests (all), memcheck and racecheck of gpu_sm90_cooperative_tiles; (2) few-row GEMMs:
#   old planner / new planner / new with stages=8 (is the depth the lever?) / forced tile=64x32;
#   (3) bench/fewrows.csv old / new; (4) the GEMM suite old / new (plain and fused).
tar xzf out/bin.tgz
mkdir -p out/old && tar xzf out/old.tgz -C out/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/s11c.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
timeout 400 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log")" >> "$L"
grep -E "FAIL" "$OUT/tests.log" | head -8 >> "$L"
for tool in memcheck racecheck; do
  timeout 250 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm_tests gpu_sm90_cooperative_tiles > "$OUT/$tool.log" 2>&1
  echo "$tool rc=$?: $(tail -2 "$OUT/$tool.log" | tr '\n' ' ')" >> "$L"
done
cat > /tmp/few.csv <<'C'
llm_decode_b64,64,4096,4096
decode_b32,32,4096,4096
decode_b96,96,4096,4096
decode_b128,128,4096,4096
decode_b64_n3072,64,3072,4096
decode_b64_k2048,64,4096,2048
decode_b64_k11008,64,4096,11008
decode_b64_k14336,64,4096,14336
decode_b16_n4096,16,4096,4096
cnn_fc,32,1000,2048
C
B() { # B BIN_DIR CSV HINTS TAG [--fused]
  echo "=== $4 [$3]" >> "$L"
  LD_LIBRARY_PATH="$1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 150 "$1/igemm" bench --gemm $5 --shapes "$2" --vs cublas \
    --iters 60 ${3:+--hints "$3"} 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
}
for rep in 1 2; do
  B out/old /tmp/few.csv "" "few old rep $rep"
  B build /tmp/few.csv "" "few new rep $rep"
  B build /tmp/few.csv "stages=8" "few s8 rep $rep"
  B build /tmp/few.csv "tile=64x32" "few forced64 rep $rep"
done
for rep in 1 2; do for v in out/old build; do
  echo "=== fewrows $v rep $rep" >> "$L"
  LD_LIBRARY_PATH="$v${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 100 "$v/igemm" bench --shapes bench/fewrows.csv --iters 60 2>&1 |
    grep -vE "^\[|^#|^igemm" | awk '{print $1, $2, $3, $NF}' >> "$L"
done; done
for rep in 1 2; do
  B out/old bench/gemm_shapes.csv "" "suite old rep $rep"
  B build bench/gemm_shapes.csv "" "suite new rep $rep"
done
B out/old bench/gemm_shapes.csv "" "suitefused old" --fused
B build bench/gemm_shapes.csv "" "suitefused new" --fused
