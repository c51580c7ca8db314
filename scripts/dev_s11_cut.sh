#!/bin/bash
# Session-11 device call 2 (issue 27): the A box cut to M's rows (one M-tile of M < bm rows; the
# TMA's zero fill of rows past M measured slow in call 1) and the 128 x 32 whole-K tiles for
# few-row GEMMs, against the build before (out/old.tgz: HEAD's CLI + library) and cuBLASLt in the
# same process, interleaved, two reps. New build: out/bin.tgz.
#   (1) the C tests (all), memcheck of the cooperative and split pixels-as-N tests; (2) few-row
#   GEMMs: old planner / new planner / new forced tile=128x32; (3) bench/fewrows.csv (conv-shaped
#   few rows: M = 49 im2col boxes cut to 56) old / new; (4) the GEMM suite old / new.
tar xzf out/bin.tgz
mkdir -p out/old && tar xzf out/old.tgz -C out/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/s11b.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
timeout 400 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log")" >> "$L"
grep -E "FAIL" "$OUT/tests.log" | head -8 >> "$L"
for t in gpu_sm90_cooperative_tiles gpu_sm90_pixels_n_split; do
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ./build/igemm_tests $t > "$OUT/memcheck_$t.log" 2>&1
  echo "memcheck $t rc=$?: $(tail -2 "$OUT/memcheck_$t.log" | tr '\n' ' ')" >> "$L"
done
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
decode_b16_n4096,16,4096,4096
decode_b8_n4096,8,4096,4096
cnn_fc,32,1000,2048
fc_b128,128,1000,2048
fc_b48,48,1024,2048
C
B() { # B BIN_DIR CSV HINTS TAG
  echo "=== $4 [$3]" >> "$L"
  LD_LIBRARY_PATH="$1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 150 "$1/igemm" bench --gemm --shapes "$2" --vs cublas \
    --iters 60 ${3:+--hints "$3"} 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
}
for rep in 1 2; do
  B out/old /tmp/few.csv "" "few old rep $rep"
  B build /tmp/few.csv "" "few new rep $rep"
  B build /tmp/few.csv "tile=128x32" "few forced rep $rep"
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
