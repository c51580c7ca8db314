#!/bin/bash
# Session-11 closing device call (issue 27): the build in out/bin.tgz (narrow whole-K row tiles for
# few-row GEMMs with 32 to 128 k-blocks, the A box cut to M's rows) validated — all C tests,
# memcheck / synccheck of gpu_sm90_cooperative_tiles (the one-consumer 64 x 32 kernel), the Python
# tests with the torch op — then few-row GEMMs and the GEMM suite (plain, fused) against the build
# before (out/old.tgz) and cuBLASLt, interleaved; and M <= 16 (the skinny family's) against a
# forced tile=64x32, for the next step.
tar xzf out/bin.tgz
mkdir -p out/old && tar xzf out/old.tgz -C out/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/s11d.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL" "$OUT/tests.log" | head -8 >> "$L"
for tool in memcheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm_tests gpu_sm90_cooperative_tiles > "$OUT/$tool.log" 2>&1
  echo "$tool rc=$?: $(tail -1 "$OUT/$tool.log")" >> "$L"
done
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -x python/tests > "$OUT/py.log" 2>&1
echo "python rc=$?: $(tail -1 "$OUT/py.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
cat > /tmp/few.csv <<'C'
llm_decode_b64,64,4096,4096
decode_b32,32,4096,4096
decode_b96,96,4096,4096
decode_b128,128,4096,4096
decode_b64_k2048,64,4096,2048
decode_b64_k8192,64,4096,8192
decode_b64_k11008,64,4096,11008
decode_b64_n4608,64,4608,4096
C
printf "decode_b1,1,4096,4096\ndecode_b4,4,4096,4096\ndecode_b8,8,4096,4096\ndecode_b16,16,4096,4096\n" > /tmp/sk.csv
B() { # B BIN_DIR CSV HINTS TAG [--fused]
  echo "=== $4 [$3]" >> "$L"
  LD_LIBRARY_PATH="$1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 150 "$1/igemm" bench --gemm $5 --shapes "$2" --vs cublas \
    --iters 60 ${3:+--hints "$3"} 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
}
for rep in 1 2; do
  B out/old /tmp/few.csv "" "few old rep $rep"
  B build /tmp/few.csv "" "few new rep $rep"
  B build /tmp/few.csv "" "fewfused new rep $rep" --fused
  B out/old /tmp/few.csv "" "fewfused old rep $rep" --fused
  B build /tmp/sk.csv "" "skinny planner rep $rep"
  B build /tmp/sk.csv "tile=64x32" "skinny forced64 rep $rep"
done
B out/old bench/gemm_shapes.csv "" "suite old"
B build bench/gemm_shapes.csv "" "suite new"
B build bench/gemm_shapes.csv "" "suitefused new" --fused
B out/old bench/gemm_shapes.csv "" "suitefused old" --fused
echo "done ($(( $(date +%s) - t0 )) s)" >> "$L"
