#!/bin/bash
# Session-16 first device call. Carried: out/bin.txz (HEAD's CLI, library, tests).
# (1) Validation of HEAD (8fbcff5's review refactor of the depthwise TMA kernel was CPU-checked
#     only): all C tests, memcheck / racecheck / synccheck of two TMA plans, plain and fused.
# (2) The ping-pong A/B owed by session 15 (decisions.md "zoo-1x1-sweep"): every 1x1 layer of
#     bench/shapes.csv, zoo.csv, fewrows.csv and pointwise.csv on the planner's plan and on
#     kernel=pingpong, interleaved, plain and fused, two reps; cuDNN beside in rep 1.
# (3) ncu counters of the planner's plans on four 1x1 layers (where their time goes).
tar xJf out/bin.txz
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/a.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 200 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|depthwise: |plans:" "$OUT/tests.log" | head -20 >> "$L"
for s in "dw3_tma_grid2,2,13,19,144,144,3,3,1,1,1,1,1,1,144:kernel=depthwise_tma,grid=2" "dw5_tma_s2,1,15,17,40,40,5,5,2,2,2,2,1,1,40:kernel=depthwise_tma,grid=3"; do
  for tool in memcheck racecheck synccheck; do
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm check --shape "${s%%:*}" --epilogue full,none --hints "${s##*:}" > /tmp/san.log 2>&1; rc=$?
    echo "sanitize $tool ${s%%,*}: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1) $(grep -c PASS /tmp/san.log) pass" >> "$L"
    [ $rc != 0 ] && tail -20 /tmp/san.log >> "$L"
  done
done
echo "checks done $(( $(date +%s) - t0 )) s" >> "$L"
for f in bench/shapes.csv bench/zoo.csv bench/fewrows.csv bench/pointwise.csv; do
  grep -v "^#" $f | awk -F, 'NF >= 14 && $7 == 1 && $8 == 1 && $9 == 1 && $10 == 1 && ($15 == "" || $15 == 1)'
done > /tmp/pw.csv
echo "1x1 layers: $(wc -l < /tmp/pw.csv)" >> "$L"
while read -r line; do for hh in "" "kernel=pingpong"; do echo "[$hh] $(./build/igemm run --shape "$line" --iters 1 ${hh:+--hints $hh} 2>&1 | grep -E 'plan:')"; done; done < /tmp/pw.csv > "$OUT/plans.log"
for rep in 1 2; do
  for f in "" "--fused"; do
    for hh in "" "kernel=pingpong"; do
      V=""; [ $rep = 1 ] && [ -z "$hh" ] && V="--vs cudnn"
      echo "=== [$hh] $f rep $rep $V" >> "$L"
      timeout 100 ./build/igemm bench --shapes /tmp/pw.csv --iters 60 ${hh:+--hints $hh} $f $V 2>&1 | grep -vE "^\[|^#|^igemm" >> "$L"
    done
  done
done
echo "bench done $(( $(date +%s) - t0 )) s" >> "$L"
grep -E "^(yolov8_cls_1x1_80|effnet_project_240_40|mbv2_project_960_160|effnet_expand_40_240)," /tmp/pw.csv > /tmp/ncu.csv
timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
  ./build/igemm bench --shapes /tmp/ncu.csv --iters 1 --warmup 0 > /tmp/ncu.log 2>&1
echo "=== ncu" >> "$L"; grep -vE "^\[|^==PROF==" /tmp/ncu.log | grep -E "igemm|sm90|narrow|  [a-z_]+__|launch__" | head -80 >> "$L"
echo "elapsed $(( $(date +%s) - t0 )) s" >> "$L"
