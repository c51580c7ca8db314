#!/bin/bash
# Session-13 closing device call (issue 28): the build in out/bin.tgz (the depthwise family's mma
# kernel for the filters the tiled kernel cannot take; kernel=depthwise_mma / depthwise_tiled hints)
# validated — all C tests, racecheck / memcheck of the mma kernel forced and planned — then the
# other filters (dilated, 7x1, stride 2 dilated) against the build before (out/old.tgz, HEAD 431b257:
# the strip kernel), interleaved, two reps; ncu of both kernels on two layers (why the mma kernel is
# slower in the streaming regime). (The Python tests were left out: the device time was short.)
tar xzf out/bin.tgz
mkdir -p out/old && tar xzf out/old.tgz -C out/old
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/final.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 300 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|configs ran" "$OUT/tests.log" | head -20 >> "$L"
echo "san_a,2,13,19,144,144,3,3,1,1,1,1,1,1,144" > /tmp/s1.csv
echo "san_b,2,21,23,72,72,5,3,1,2,4,3,2,3,72" > /tmp/s2.csv
for tool in racecheck memcheck; do
  for f in "" --fused; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm bench --shapes /tmp/s1.csv --iters 1 --warmup 0 --hints kernel=depthwise_mma,grid=2 $f > "$OUT/${tool}_a$f.log" 2>&1
    echo "$tool a $f rc=$?: $(tail -1 "$OUT/${tool}_a$f.log")" >> "$L"
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm bench --shapes /tmp/s2.csv --iters 1 --warmup 0 --hints grid=3 $f > "$OUT/${tool}_b$f.log" 2>&1
    echo "$tool b $f rc=$?: $(tail -1 "$OUT/${tool}_b$f.log")" >> "$L"
  done
done
cat > /tmp/gen.csv <<'C'
dw_3x3_dil2_256,8,32,32,256,256,3,3,1,1,2,2,2,2,256
dlv3_dw_3x3_dil4_960,8,33,33,960,960,3,3,1,1,4,4,4,4,960
dw_5x5_dil2_s2,8,40,40,64,64,5,5,2,2,4,4,2,2,64
dw_7x1,8,28,28,128,128,7,1,1,1,3,0,1,1,128
dw_1x5_s3,8,56,56,96,96,1,5,1,3,0,2,1,1,96
dw_3x3_s3_b32,32,56,56,144,144,3,3,3,3,1,1,1,1,144
C
for rep in 1 2; do
  for f in "" --fused; do
    echo "=== old $f rep $rep" >> "$L"
    LD_LIBRARY_PATH=$PWD/out/old timeout 60 out/old/igemm bench --shapes /tmp/gen.csv --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
    echo "=== new $f rep $rep" >> "$L"
    timeout 60 ./build/igemm bench --shapes /tmp/gen.csv --iters 60 $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $2}' >> "$L"
  done
done
echo "bench done ($(( $(date +%s) - t0 )) s)" >> "$L"
echo "mbv2_dw_3x3_32,32,112,112,32,32,3,3,1,1,1,1,1,1,32" > /tmp/a.csv
echo "convnext_dw_7x7_192,32,28,28,192,192,7,7,1,1,3,3,1,1,192" > /tmp/b.csv
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats"
M="--metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed_pipe_tensor.sum,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_not_selected_per_warp_active.pct,smsp__warp_issue_stalled_drain_per_warp_active.pct"
for layer in a b; do
  for k in depthwise_mma depthwise_tiled; do
    timeout 60 ncu --clock-control none -k regex:'dw[mt]_kernel' --launch-skip 2 --launch-count 1 $S $M \
      ./build/igemm bench --shapes /tmp/$layer.csv --iters 2 --warmup 1 --hints kernel=$k > "$OUT/ncu_${layer}_$k.log" 2>&1
    echo "=== ncu $layer $k rc=$?" >> "$L"
  done
done
echo "ncu done ($(( $(date +%s) - t0 )) s)" >> "$L"
