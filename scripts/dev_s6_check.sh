#!/bin/bash
# Session-6 first device call (issues 27/28): validation of the build carried in out/bin.tgz (all C
# tests, the Python tests with the torch op, memcheck on the narrow family), the narrow-v2 branch's
# build (out/nv2.tgz) against it on the zoo's 1x1 layers, and a long-K / few-tile GEMM sweep of
# hint texts against cuBLASLt (the wide_k rule).
tar xzf out/bin.tgz
mkdir -p /tmp/nv2 && tar xzf out/nv2.tgz -C /tmp/nv2
NEW=$PWD/build
export LD_LIBRARY_PATH=$NEW
. "$(dirname "$0")/device_env.sh"
L=$OUT/check.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL" "$OUT/tests.log" | head -20 >> "$L"
timeout 120 compute-sanitizer --tool memcheck ./build/igemm_tests gpu_narrow 2>&1 | tail -2 >> "$L"
# narrow-v2 against main on the zoo's 1x1 layers (2 reps, interleaved)
awk -F, '$7==1 && $8==1' bench/zoo.csv > /tmp/z1.csv
for rep in 1 2; do
  echo "=== main rep $rep" >> "$L"
  timeout 100 ./build/igemm bench --shapes /tmp/z1.csv $([ $rep = 1 ] && echo --vs cudnn) 2>&1 | grep -vE "^\[" >> "$L"
  echo "=== nv2 rep $rep" >> "$L"
  LD_LIBRARY_PATH=/tmp/nv2 timeout 100 /tmp/nv2/igemm bench --shapes /tmp/z1.csv 2>&1 | grep -vE "^\[" >> "$L"
done
LD_LIBRARY_PATH=/tmp/nv2 timeout 200 /tmp/nv2/igemm_tests gpu_narrow >> "$L" 2>&1; echo "nv2 narrow tests rc=$?" >> "$L"
LD_LIBRARY_PATH=/tmp/nv2 timeout 120 compute-sanitizer --tool memcheck /tmp/nv2/igemm_tests gpu_narrow 2>&1 | tail -2 >> "$L"
# long-K and few-tile GEMM sweep (ours under hint texts; cuBLASLt once)
cat > /tmp/longk.csv <<'C'
wide_k,1024,1024,32768
k16k_1k,1024,1024,16384
k16k_2k,2048,2048,16384
k32k_1x2k,1024,2048,32768
k64k_512,512,512,65536
k8k_2kx1k,2048,1024,8192
k12k_1536,1536,1536,12288
k16k_4k,4096,4096,16384
llm_decode_b64,64,4096,4096
llm_decode_b256,256,14336,4096
C
for h in "" "tile=128x128,split_k=1" "tile=128x128,split_k=2" "tile=128x128,split_k=4" "tile=256x128,split_k=1" "tile=256x128,split_k=2" "tile=256x128,split_k=4" "tile=128x256,split_k=2"; do
  echo "=== longk [$h]" >> "$L"
  timeout 150 ./build/igemm bench --gemm --shapes /tmp/longk.csv --iters 30 --warmup 5 $([ -z "$h" ] && echo --vs cublas) ${h:+--hints "$h"} 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
done
grep -E "^llm_decode_b64" /tmp/longk.csv > /tmp/dec.csv
for h in "kernel=pixels_n,tile_m=32,split_k=2" "kernel=pixels_n,tile_m=64,split_k=4" "kernel=pixels_n,tile_m=64,split_k=1" "kernel=pixels_n,tile_m=32,split_k=1"; do
  echo "=== decode [$h]" >> "$L"
  timeout 60 ./build/igemm bench --gemm --shapes /tmp/dec.csv --iters 30 --warmup 5 --hints "$h" 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
done
"$NVCC" -gencode arch=compute_90a,code=sm_90a -o /tmp/clspread dev/probes/cluster_spread.cu && /tmp/clspread >> "$L" 2>&1
echo "sweep done at $(( $(date +%s) - t0 )) s" >> "$L"
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
IGEMM_LIBRARY=$NEW/libigemm.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -x python/tests > "$OUT/py.log" 2>&1
echo "python rc=$?: $(tail -1 "$OUT/py.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
