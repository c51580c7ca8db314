#!/bin/bash
# Session-15 device call (issue 28 item 1): the depthwise family's TMA kernel (depthwise_tma.cuh)
# against its tiled kernel. Carried: out/bin.txz (CLI, library, tests, depthwise.o). (1) the
# depthwise tests (CPU plans + GPU random with the TMA kernel in turn) and the API tests; (2)
# memcheck / racecheck / synccheck of two forced TMA plans, plain and fused; (3) the depthwise layers
# (bench/zoo.csv's, bench/depthwise_extra.csv) on kernel=depthwise_tiled and kernel=depthwise_tma,
# interleaved, two reps, plain and fused; (4) ncu counters of both kernels on two layers; the SASS
# histogram of two TMA instances.
tar xJf out/bin.txz
. "$(dirname "$0")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/dw.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
timeout 200 ./build/igemm_tests depthwise > "$OUT/t_dw.log" 2>&1; echo "depthwise tests rc=$?: $(tail -1 "$OUT/t_dw.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|configs ran|plans:" "$OUT/t_dw.log" | head -12 >> "$L"
timeout 60 ./build/igemm_tests api > "$OUT/t_api.log" 2>&1; echo "api tests rc=$?: $(tail -1 "$OUT/t_api.log")" >> "$L"
for s in "dw3_tma_grid2,2,13,19,144,144,3,3,1,1,1,1,1,1,144:kernel=depthwise_tma,grid=2" "dw5_tma_s2,1,15,17,40,40,5,5,2,2,2,2,1,1,40:kernel=depthwise_tma,grid=3"; do
  for tool in memcheck racecheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm check --shape "${s%%:*}" --epilogue full,none --hints "${s##*:}" > /tmp/san.log 2>&1; rc=$?
    echo "sanitize $tool ${s%%,*}: rc=$rc $(grep -E 'ERROR SUMMARY' /tmp/san.log | tail -1) $(grep -cE 'PASS|ok' /tmp/san.log)" >> "$L"
    [ $rc != 0 ] && tail -20 /tmp/san.log >> "$L"
  done
done
echo "checks done $(( $(date +%s) - t0 )) s" >> "$L"
( grep -v "^#" bench/zoo.csv | awk -F, '$15 > 1 && $15 == $5'; grep -v "^#" bench/depthwise_extra.csv ) > /tmp/dw.csv
for rep in 1 2; do
  for f in "" "--fused"; do
    for k in depthwise_tiled depthwise_tma; do
      echo "=== $k $f rep $rep" >> "$L"
      timeout 100 ./build/igemm bench --shapes /tmp/dw.csv --iters 60 --hints kernel=$k $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3}' >> "$L"
    done
  done
done
echo "bench done $(( $(date +%s) - t0 )) s" >> "$L"
grep -E "^(mbv2_dw_3x3_32|mbv2_dw_3x3s2_144)," /tmp/dw.csv > /tmp/two.csv
for hh in "" ",tile_n=32,rows_per_tile=8,tile_m=224" ",tile_n=32,rows_per_tile=16,tile_m=448" ",tile_n=32,rows_per_tile=4,tile_m=448" ",tile_n=48,rows_per_tile=7,tile_m=112" ",tile_n=72,rows_per_tile=7,tile_m=112" ",tile_n=144,rows_per_tile=4,tile_m=32"; do
  echo "=== variant $hh" >> "$L"
  timeout 60 ./build/igemm bench --shapes /tmp/two.csv --iters 60 --hints kernel=depthwise_tma$hh 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3}' >> "$L"
done
while read -r line; do ./build/igemm run --shape "$line" --iters 1 --hints kernel=depthwise_tma 2>&1 | grep -E "plan:"; done < /tmp/dw.csv > "$OUT/describe.log"
grep -E "^(mbv2_dw_3x3_32|convnext_dw_7x7_192)," /tmp/dw.csv > /tmp/ncu.csv
for k in depthwise_tiled depthwise_tma; do
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,sm__inst_executed.sum,sm__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
    ./build/igemm bench --shapes /tmp/ncu.csv --iters 1 --warmup 0 --hints kernel=$k > /tmp/ncu_$k.log 2>&1
  echo "=== ncu $k" >> "$L"; grep -E "dw[xt]_kernel|gpu__time|inst_executed|issue_active|dram__|bank_conflicts|wavefronts|warps_active" /tmp/ncu_$k.log | head -30 >> "$L"
done
cuobjdump --dump-sass build/depthwise.o 2>/dev/null > /tmp/dw.sass
python3 - >> "$L" <<'PY'
import re, collections
cur=None; hist={}
for line in open('/tmp/dw.sass'):
    m=re.search(r'Function : (\S+)', line)
    if m: cur=m.group(1); hist[cur]=collections.Counter(); continue
    m=re.search(r'/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(\.[A-Z0-9_.]*)?', line)
    if m and cur: hist[cur][m.group(1)+('.'+m.group(2).split('.')[1] if m.group(2) and m.group(1) in ('LDS','STG','LDG','STS','UTMALDG') else '')]+=1
for f,h in hist.items():
    if 'dwx_kernel' in f and ('Li3ELi1ELi8' in f or 'Li7ELi1ELi4' in f) and 'bfloat' in f:
        print('SASS', f[:60], sum(h.values()), dict(h.most_common(14)))
PY
echo "elapsed $(( $(date +%s) - t0 )) s" >> "$L"
