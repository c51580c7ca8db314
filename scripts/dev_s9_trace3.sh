#!/bin/bash
# Session-9 (issue 27, dev experiment): is the split pixels-as-N kernel's 2.5 us cluster-sum tail
# cold code / descriptors after the bench's L2 rotation? The phase trace (out/trace.tgz, a
# -DIGEMM_TRACE build of the gather variant) with the default buffer rotation and with --sets 1
# (warm L2: operands, code and descriptors resident), plus the plain timings of both beside cuBLASLt.
mkdir -p /tmp/tr; tar xzf out/trace.tgz -C /tmp/tr
. "$(dirname "$0")/device_env.sh"
for g in "llm_decode_b64,64,4096,4096" "cnn_fc,32,1000,2048"; do
  n=${g%%,*}; echo "$g" > /tmp/g.csv
  for s in default 1; do
    S=""; [ $s = 1 ] && S="--sets 1"
    LD_LIBRARY_PATH=/tmp/tr:$LD_LIBRARY_PATH timeout 60 /tmp/tr/igemm bench --gemm --shapes /tmp/g.csv --iters 6 --warmup 2 $S 2> "$OUT/trace_${n}_sets_$s.txt" > /dev/null
  done
done
tar czf "$OUT/traces.tgz" -C "$OUT" $(cd "$OUT" && ls trace_*.txt) && rm -f "$OUT"/trace_*.txt
