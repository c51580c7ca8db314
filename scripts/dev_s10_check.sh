#!/bin/bash
# Session-10 device call 8: the grouped tests and memcheck / racecheck on the final build (after
# the unused kernel argument was dropped), and the grouped layers once beside cuDNN.
tar xzf out/bin.tgz
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
L=$OUT/check.log
nvidia-smi --query-gpu=name --format=csv,noheader > "$L"
timeout 200 ./build/igemm_tests gpu_grouped > "$OUT/tests_grouped.log" 2>&1; echo "grouped tests rc=$?: $(tail -1 "$OUT/tests_grouped.log")" >> "$L"
grep -E "FAIL|configs ran" "$OUT/tests_grouped.log" >> "$L"
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm_tests gpu_grouped_planner 2>&1 | tail -1 | tr '\n' ' ' >> "$L"; echo " ($tool)" >> "$L"
done
{ grep -E "^(resnext|regnety)" bench/zoo.csv; grep -vE "^#" bench/grouped_extra.csv; } > /tmp/grp.csv
timeout 120 ./build/igemm bench --shapes /tmp/grp.csv --vs cudnn --iters 60 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3, $4, $5}' >> "$L"
