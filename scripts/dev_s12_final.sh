#!/bin/bash
# Session-12 closing device call (issues 27/28): the build in out/bin.tgz (the narrow family's
# wide-output kernel for 1x1s of c <= 32, 16 < k <= 512, 32-row blocks for every resident warp)
# validated — all C tests, memcheck of gpu_narrow_wide_out, racecheck / synccheck of a forced layer
# (its per-warp staging), the Python tests — then the 1x1 layers it takes against the sm90 plan
# (--path sm90, same build) and the build before (out/old.tgz, HEAD f103601), plain and fused,
# interleaved, two reps, cuDNN beside; GEMMs of the kind vs cuBLASLt; the zoo (scripts/zoo_table.py);
# MobileNetV2 / EfficientNet-B0 end to end with this build and the one before.
# Two calls (each within the 10-minute limit): $1 = check (tests, sanitizers, layer and GEMM
# timings) or nets (the zoo, the networks).
tar xzf out/bin.tgz
mkdir -p out/old && tar xzf out/old.tgz -C out/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/final_$1.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
if [ "$1" = check ]; then
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|configs ran" "$OUT/tests.log" | head -20 >> "$L"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 ./build/igemm_tests gpu_narrow_wide_out > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$?: $(tail -1 "$OUT/memcheck.log")" >> "$L"
echo "rc_24_144,2,190,190,24,144,1,1,1,1,0,0,1,1" > /tmp/one.csv
for tool in racecheck synccheck; do
  for f in "" --fused; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm bench --shapes /tmp/one.csv --iters 1 --warmup 0 $f > "$OUT/$tool$f.log" 2>&1
    echo "$tool $f rc=$?: $(tail -1 "$OUT/$tool$f.log") / $(grep -c 'mem_narrow\|memory' "$OUT/$tool$f.log") memory-path lines" >> "$L"
  done
done
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 240 python3 -m pytest -q -x python/tests > "$OUT/py.log" 2>&1
echo "python rc=$?: $(tail -1 "$OUT/py.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
cat > /tmp/w.csv <<'C'
mbv2_expand_16_96,32,112,112,16,96,1,1,1,1,0,0,1,1
mbv2_expand_24_144,32,56,56,24,144,1,1,1,1,0,0,1,1
c32_k64,32,112,112,32,64,1,1,1,1,0,0,1,1
c16_k32_b8,8,112,112,16,32,1,1,1,1,0,0,1,1
c32_k256,32,56,56,32,256,1,1,1,1,0,0,1,1
c24_k512_s2,32,112,112,24,512,1,1,2,2,0,0,1,1
c8_k40,16,128,128,8,40,1,1,1,1,0,0,1,1
mbv2_expand_32_192,32,28,28,32,192,1,1,1,1,0,0,1,1
effnet_expand_40_240,32,28,28,40,240,1,1,1,1,0,0,1,1
yolov8_cls_1x1_80,16,80,80,64,80,1,1,1,1,0,0,1,1
C
for f in "" --fused; do
  echo "=== cudnn $f" >> "$L"
  timeout 150 ./build/igemm bench --shapes /tmp/w.csv --vs cudnn --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
done
for rep in 1 2; do
  for f in "" "--fused"; do
    echo "=== old $f rep $rep" >> "$L"
    LD_LIBRARY_PATH=$PWD/out/old timeout 150 out/old/igemm bench --shapes /tmp/w.csv --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
    echo "=== new $f rep $rep" >> "$L"
    timeout 150 ./build/igemm bench --shapes /tmp/w.csv --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
    echo "=== newsm90 $f rep $rep" >> "$L"
    timeout 150 ./build/igemm bench --shapes /tmp/w.csv --iters 60 --path sm90 $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
  done
done
printf "g_200k_128_32,200704,128,32\ng_400k_96_16,401408,96,16\ng_100k_256_32,100352,256,32\n" > /tmp/g.csv
for f in "" --fused; do
  echo "=== gemm $f" >> "$L"
  timeout 100 ./build/igemm bench --gemm --shapes /tmp/g.csv --vs cublas --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
  echo "=== gemm old $f" >> "$L"
  LD_LIBRARY_PATH=$PWD/out/old timeout 100 out/old/igemm bench --gemm --shapes /tmp/g.csv --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
done
echo "bench done ($(( $(date +%s) - t0 )) s)" >> "$L"
else
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log >> "$L"
mkdir -p /tmp/z
timeout 150 ./build/igemm bench --shapes bench/zoo.csv --vs cudnn --csv /tmp/z/zoo_cli.csv > /tmp/z/zoo.log 2>&1
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 200 python3 python/bench.py --shapes bench/zoo.csv --no-compile --csv /tmp/z/zoo_py.csv >> /tmp/z/zoo.log 2>&1
python3 scripts/zoo_table.py /tmp/z/zoo_cli.csv /tmp/z/zoo_py.csv > "$OUT/zoo_table.md" 2>&1
tar czf "$OUT/zoo.tgz" -C /tmp/z .
echo "zoo done ($(( $(date +%s) - t0 )) s)" >> "$L"
for lib in build out/old; do
  IGEMM_LIBRARY=$PWD/$lib/libigemm.so PYTHONPATH=$PWD/python timeout 150 python3 python/bench_models.py \
    --model mobilenet_v2,efficientnet_b0 --batch 32,1 --variants $([ $lib = build ] && echo eager,compile,igemm || echo igemm) \
    --csv "$OUT/models_$(basename $lib).csv" > "$OUT/models_$(basename $lib).log" 2>&1
  echo "models $lib rc=$? ($(( $(date +%s) - t0 )) s)" >> "$L"
done
fi
echo "done ($(( $(date +%s) - t0 )) s)" >> "$L"
