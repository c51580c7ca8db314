#!/bin/bash
# Session-12 first device call (issues 27/28: the memory-bound 1x1s with wide outputs, 0.74-0.91x
# best-of on the sm90 tiles): the narrow family's new wide-output kernel (src/mem/narrow_wide.cuh)
# checked (its random test, memcheck, the whole C suite) and timed against the sm90 plan and cuDNN
# on 1x1 layers of few input channels (--path memory: the wide kernel under this build's broad
# rule; --path sm90: the tiles), plain and fused, two reps interleaved; GEMMs of the same kind
# against cuBLASLt. Build: out/bin.tgz.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/s12a.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 120 ./build/igemm_tests gpu_narrow_wide_out gpu_narrow_random gpu_narrow_wide gpu_narrow_planner > "$OUT/narrow.log" 2>&1
echo "narrow tests rc=$?: $(tail -1 "$OUT/narrow.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|configs ran" "$OUT/narrow.log" | head -12 >> "$L"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 ./build/igemm_tests gpu_narrow_wide_out > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$?: $(tail -1 "$OUT/memcheck.log")" >> "$L"
cat > /tmp/w.csv <<'C'
mbv2_expand_16_96,32,112,112,16,96,1,1,1,1,0,0,1,1
yolov8_cls_1x1_80,16,80,80,64,80,1,1,1,1,0,0,1,1
effnet_expand_40_240,32,28,28,40,240,1,1,1,1,0,0,1,1
r50_l1_1x1_64_64,32,56,56,64,64,1,1,1,1,0,0,1,1
r50_l1_1x1_64_256,32,56,56,64,256,1,1,1,1,0,0,1,1
r50_l2_1x1_128_512,32,28,28,128,512,1,1,1,1,0,0,1,1
r50_l1_1x1_64_256_b1,1,56,56,64,256,1,1,1,1,0,0,1,1
mbv2_expand_24_144,32,56,56,24,144,1,1,1,1,0,0,1,1
mbv2_expand_32_192,32,28,28,32,192,1,1,1,1,0,0,1,1
mbv2_expand_64_384,32,14,14,64,384,1,1,1,1,0,0,1,1
mbv2_expand_96_576,32,14,14,96,576,1,1,1,1,0,0,1,1
effnet_expand_80_480,32,14,14,80,480,1,1,1,1,0,0,1,1
effnet_expand_112_672,32,14,14,112,672,1,1,1,1,0,0,1,1
c32_k64,32,112,112,32,64,1,1,1,1,0,0,1,1
c16_k32_b8,8,112,112,16,32,1,1,1,1,0,0,1,1
mbv2_expand_16_96_b1,1,112,112,16,96,1,1,1,1,0,0,1,1
c128_k128,32,28,28,128,128,1,1,1,1,0,0,1,1
c64_k1024_s2,32,56,56,64,1024,1,1,2,2,0,0,1,1
C
echo "=== cudnn" >> "$L"
timeout 150 ./build/igemm bench --shapes /tmp/w.csv --vs cudnn --iters 60 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
echo "=== cudnn fused" >> "$L"
timeout 150 ./build/igemm bench --shapes /tmp/w.csv --vs cudnn --iters 60 --fused 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
for rep in 1 2; do
  for f in "" "--fused"; do
    for path in memory sm90; do
      echo "=== $path $f rep $rep" >> "$L"
      timeout 150 ./build/igemm bench --shapes /tmp/w.csv --iters 60 --path $path $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $NF}' >> "$L"
    done
  done
done
echo "bench done at $(( $(date +%s) - t0 )) s" >> "$L"
cat > /tmp/g.csv <<'C'
cnn_1x1_as_gemm,100352,256,64
g_100k_96_16,100352,96,16
g_50k_512_128,50176,512,128
g_200k_128_32,200704,128,32
C
for path in "" "--path sm90"; do
  echo "=== gemm [$path]" >> "$L"
  timeout 150 ./build/igemm bench --gemm --shapes /tmp/g.csv --vs cublas --iters 60 $path 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
done
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1
echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL" "$OUT/tests.log" | head -8 >> "$L"
echo "done ($(( $(date +%s) - t0 )) s)" >> "$L"
