#!/bin/bash
# Session-6 closing device call (issue 28): the grouped family's checks and A/B
# (scripts/dev_s6_grouped.sh), then the whole zoo with this build: ours and cuDNN (CLI), PyTorch
# (python/bench.py), merged by scripts/zoo_table.py into zoo_table.md.
bash "$(dirname "$0")/dev_s6_grouped.sh"
export LD_LIBRARY_PATH=$PWD/build
. "$(dirname "$0")/device_env.sh"
timeout 200 ./build/igemm bench --shapes bench/zoo.csv --vs cudnn --csv "$OUT/zoo_cli.csv" > "$OUT/zoo.log" 2>&1
IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 300 python3 python/bench.py --shapes bench/zoo.csv --no-compile --csv "$OUT/zoo_py.csv" >> "$OUT/zoo.log" 2>&1
python3 scripts/zoo_table.py "$OUT/zoo_cli.csv" "$OUT/zoo_py.csv" > "$OUT/zoo_table.md" 2>&1
