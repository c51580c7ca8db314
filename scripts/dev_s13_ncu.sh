#!/bin/bash
# Session-13 second device call (issue 28): why the depthwise mma kernel (fewer instructions) runs
# no faster than the tiled one: ncu sections and counters of both kernels on mbv2_dw_3x3_32 and
# convnext_dw_7x7_192 (plain), and the SASS of the 3x3 mma instance. Build: out/bin.tgz.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/ncu.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
echo "mbv2_dw_3x3_32,32,112,112,32,32,3,3,1,1,1,1,1,1,32" > /tmp/a.csv
echo "convnext_dw_7x7_192,32,28,28,192,192,7,7,1,1,3,3,1,1,192" > /tmp/b.csv
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats"
M="--metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed_pipe_tensor.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_not_selected_per_warp_active.pct,smsp__warp_issue_stalled_drain_per_warp_active.pct,smsp__warp_issue_stalled_membar_per_warp_active.pct,smsp__warp_issue_stalled_sleeping_per_warp_active.pct,smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct,smsp__warp_issue_stalled_imc_miss_per_warp_active.pct,smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,smsp__warp_issue_stalled_tex_throttle_per_warp_active.pct"
for layer in a b; do
  for k in depthwise_mma depthwise_tiled; do
    timeout 120 ncu --clock-control none -k regex:'dw[mt]_kernel' --launch-skip 2 --launch-count 1 $S $M \
      ./build/igemm bench --shapes /tmp/$layer.csv --iters 2 --warmup 1 --hints kernel=$k > "$OUT/ncu_${layer}_$k.log" 2>&1
    echo "=== $layer $k rc=$?" >> "$L"
    grep -E "dw[mt]_kernel|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issued Warp|No Eligible|Block Limit|Dynamic Shared|Grid Size|Executed Ipc|L1/TEX Hit|L2 Hit| [a-z_]+__[a-z_.]+ " "$OUT/ncu_${layer}_$k.log" | head -70 >> "$L"
  done
done
cuobjdump --dump-sass build/libigemm.so 2>/dev/null | awk '/Function : .*dwm_kernelI13__nv_bfloat16Li5E/{p=1} p{print} p&&/EXIT/{n++} n>=2&&/\.L_x_[0-9]+:$/{}' | head -1500 > "$OUT/sass_dwm5.txt"
wc -l "$OUT/sass_dwm5.txt" >> "$L"
