#!/bin/bash
# The closing device call of a session (issue 27/28): the build carried in out/bin.tgz against the
# build before it carried in out/old.tgz (libigemm.so*, igemm), same machine, interleaved: the GEMM
# suite plain and fused against cuBLASLt, the few-row layers; then with the new build only: the
# zoo against cuDNN (CLI) and PyTorch (python/bench.py), ResNet-50 batch 1 against torch.compile
# (not with AB_ONLY=1); a few-tile GEMM sweep of hint texts.
tar xzf out/bin.tgz
mkdir -p /tmp/old && tar xzf out/old.tgz -C /tmp/old
NEW=$PWD/build; OLD=/tmp/old
. "$(dirname "$0")/device_env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$OUT/ab.log"
for rep in 1 2; do
  for side in new old; do
    d=$NEW; [ $side = old ] && d=$OLD
    for f in "" "--fused"; do
      echo "=== gemm $side $f rep $rep" >> "$OUT/ab.log"
      LD_LIBRARY_PATH=$d timeout 200 $d/igemm bench --gemm --shapes bench/gemm_shapes.csv --vs cublas $f 2>&1 | grep -vE "^\[" >> "$OUT/ab.log"
    done
    echo "=== fewrows $side rep $rep" >> "$OUT/ab.log"
    LD_LIBRARY_PATH=$d timeout 100 $d/igemm bench --shapes bench/fewrows.csv 2>&1 | grep -vE "^\[" >> "$OUT/ab.log"
  done
done
export LD_LIBRARY_PATH=$NEW
[ "${AB_ONLY:-}" = 1 ] || {
timeout 200 ./build/igemm bench --shapes bench/zoo.csv --vs cudnn --csv "$OUT/zoo_cli.csv" > "$OUT/zoo.log" 2>&1
make torchop > /tmp/to.log 2>&1 || tail -3 /tmp/to.log
IGEMM_LIBRARY=$NEW/libigemm.so PYTHONPATH=$PWD/python timeout 300 python3 python/bench.py --shapes bench/zoo.csv --no-compile --csv "$OUT/zoo_py.csv" >> "$OUT/zoo.log" 2>&1
python3 scripts/zoo_table.py "$OUT/zoo_cli.csv" "$OUT/zoo_py.csv" > "$OUT/zoo_table.md" 2>&1
IGEMM_LIBRARY=$NEW/libigemm.so PYTHONPATH=$PWD/python timeout 200 python3 python/bench_models.py --model resnet50 --batch 1 \
  --variants eager,compile,igemm --csv "$OUT/models.csv" > "$OUT/models.log" 2>&1
}
# few-tile GEMMs under other plans (ours only vs cuBLASLt, new build)
grep -E "^(wide_k|llm_decode_b256|llm_decode_b64)," bench/gemm_shapes.csv > /tmp/gs.csv
grep -E "^(fc_b128|decode_b128)," dev/probes/fewrow_gemms.csv >> /tmp/gs.csv
for h in "" "kernel=split_cluster" "tile=128x128,split_k=2" "tile=256x128,split_k=2"; do
  echo "=== gemmsweep [$h]" >> "$OUT/ab.log"
  timeout 100 ./build/igemm bench --gemm --shapes /tmp/gs.csv --vs cublas --iters 30 --warmup 5 ${h:+--hints "$h"} 2>&1 | grep -vE "^\[|^#|^igemm" >> "$OUT/ab.log"
done
