# scripts/dev_preamble.sh — sourced (not run) by the device scripts (scripts/dev_*.sh from session 16 on)
# with the log's name: `. "$(dirname "$0")/dev_preamble.sh" NAME`. Unpacks the carried build
# (out/bin.txz; out/old.txz into out/old where present), finds the anchor libraries
# (device_env.sh), puts this build's library first on LD_LIBRARY_PATH, and starts $OUT/NAME.log
# (L) with the GPU's name and clock; t0 is the start time. Defines `sanitize TOOL SHAPE HINTS`:
# compute-sanitizer TOOL (memcheck, racecheck, synccheck) over `igemm check` of one shape (the CLI's
# name,n,h,w,c,k,r,s,... form) with every epilogue and without, under HINTS, one line into $L
# (and the tool's last lines when it fails).
tar xJf out/bin.txz
if [ -f out/old.txz ]; then mkdir -p out/old && tar xJf out/old.txz -C out/old; fi
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/$1.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
sanitize() {
  timeout 40 compute-sanitizer --tool "$1" --error-exitcode 9 ./build/igemm check --shape "$2" --epilogue full,none \
    ${3:+--hints "$3"} > /tmp/san.log 2>&1
  local rc=$?
  echo "sanitize $1 ${2%%,*} [$3]: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1) $(grep -c PASS /tmp/san.log) pass" >> "$L"
  [ $rc != 0 ] && tail -20 /tmp/san.log >> "$L"
  return 0
}
