#!/bin/bash
# Probe for the next 1x1 step (issues 27 / 28; decisions.md "zoo-1x1-sweep", session 16's "Next"):
# where a one-k-block pointwise conv's time goes on the sm90 tiles. Carried: out/bin.txz (CLI,
# library). (1) The A box's zero fill: the same M and N at c = 16, 24, 32, 48, 64 (a 64-channel box
# reads c channels and zero-fills the rest); (2) the output width: N = 64, 128, 144, 192, 256 at
# c = 24; each on the planner's plan and forced onto ping-pong 128x64 / 128x128 and cooperative
# 128x256, cuDNN beside; (3) ncu (L2 / DRAM throughput, TMA and L2 sectors) of the planner's plan at
# c = 24 and 64, N = 144.
. "$(dirname "$0")/dev_preamble.sh" probe
{
  for c in 16 24 32 48 64; do echo "pw_c${c}_n144,32,56,56,$c,144,1,1,1,1,0,0,1,1,1"; done
  for n in 64 128 144 192 256; do echo "pw_c24_n${n},32,56,56,24,$n,1,1,1,1,0,0,1,1,1"; done
} > /tmp/probe.csv
for hh in "" "kernel=pingpong,tile=128x64" "kernel=pingpong,tile=128x128" "tile=128x256" "tile=128x128,filter_resident=1"; do
  echo "=== [$hh]" >> "$L"
  timeout 60 ./build/igemm bench --shapes /tmp/probe.csv --iters 60 ${hh:+--hints $hh} 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $2, $3, $NF}' >> "$L"
done
echo "=== cudnn" >> "$L"
timeout 60 ./build/igemm bench --shapes /tmp/probe.csv --iters 60 --vs cudnn 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $4}' >> "$L"
grep -E "^(pw_c24_n144|pw_c64_n144)," /tmp/probe.csv > /tmp/ncu.csv
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,dram__bytes_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio \
  ./build/igemm bench --shapes /tmp/ncu.csv --iters 1 --warmup 0 > "$OUT/ncu.log" 2>&1
for s in $(cut -d, -f1 /tmp/ncu.csv); do ./build/igemm run --shape "$(grep "^$s," /tmp/ncu.csv)" --iters 1 2>&1 | grep "plan:" | cut -c1-300; done >> "$L"
