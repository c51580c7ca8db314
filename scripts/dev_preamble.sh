# scripts/dev_preamble.sh — sourced (not run) by the device scripts (scripts/dev_*.sh from session 16 on)
# with the log's name: `. "$(dirname "$0")/dev_preamble.sh" NAME`. Unpacks the carried build
# (out/bin.txz; out/old.txz into out/old where present), finds the anchor libraries
# (device_env.sh), puts this build's library first on LD_LIBRARY_PATH, and starts $OUT/NAME.log
# (L) with the GPU's name and clock; t0 is the start time.
tar xJf out/bin.txz
if [ -f out/old.txz ]; then mkdir -p out/old && tar xJf out/old.txz -C out/old; fi
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
export LD_LIBRARY_PATH=$PWD/build:$LD_LIBRARY_PATH
L=$OUT/$1.log
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$L"
t0=$(date +%s)
