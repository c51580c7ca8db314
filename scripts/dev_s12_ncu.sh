#!/bin/bash
# Session-12 second device call: why the wide-output narrow kernel streams at 1.5-1.9 TB/s (ncu
# sections on r50_l1_1x1_64_256 and yolov8_cls_1x1_80 forced onto it, plain; the sm90 plan of the
# first beside it) and its SASS. Build: out/bin.tgz.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/s12b.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
echo "r50_l1_1x1_64_256,32,56,56,64,256,1,1,1,1,0,0,1,1" > /tmp/a.csv
echo "yolov8_cls_1x1_80,16,80,80,64,80,1,1,1,1,0,0,1,1" > /tmp/b.csv
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section SourceCounters"
timeout 150 ncu --clock-control none -k regex:narrow_wide --launch-skip 3 --launch-count 1 $S \
  ./build/igemm bench --shapes /tmp/a.csv --iters 3 --warmup 2 --path memory > "$OUT/ncu_wide_r50.log" 2>&1
timeout 150 ncu --clock-control none -k regex:narrow_wide --launch-skip 3 --launch-count 1 $S \
  ./build/igemm bench --shapes /tmp/b.csv --iters 3 --warmup 2 --path memory > "$OUT/ncu_wide_yolo.log" 2>&1
timeout 150 ncu --clock-control none -k regex:igemm --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
  ./build/igemm bench --shapes /tmp/a.csv --iters 3 --warmup 2 --path sm90 > "$OUT/ncu_sm90_r50.log" 2>&1
cuobjdump --dump-sass --function '_Z18narrow_wide_kernelI13__nv_bfloat16Li2ELi1ELi2EEv7nw_args' build/libigemm.so > "$OUT/sass_wide.txt" 2>&1 || \
  cuobjdump --dump-sass build/libigemm.so 2>/dev/null | awk '/narrow_wide_kernelI13__nv_bfloat16Li2ELi1/{p=1} p{print} /EXIT/&&p{n++} n>3{exit}' > "$OUT/sass_wide.txt"
wc -l "$OUT"/*.log "$OUT/sass_wide.txt" >> "$L"
grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issued Warp|No Eligible|Stall" "$OUT/ncu_wide_r50.log" | head -40 >> "$L"
