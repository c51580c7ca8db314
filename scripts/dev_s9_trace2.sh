#!/bin/bash
# Session-9 (issue 27, dev experiment): the split pixels-as-N kernel's cluster sum split into its
# steps (partial stored, first cluster barrier, remote values gathered, stores issued, end) from a
# -DIGEMM_TRACE build (out/trace.tgz); parsed by dev/probes/trace_phases.py.
mkdir -p /tmp/tr; tar xzf out/trace.tgz -C /tmp/tr
. "$(dirname "$0")/device_env.sh"
for g in "llm_decode_b64,64,4096,4096" "cnn_fc,32,1000,2048" "fc_b128,128,1000,2048"; do
  n=${g%%,*}; echo "$g" > /tmp/g.csv
  LD_LIBRARY_PATH=/tmp/tr:$LD_LIBRARY_PATH timeout 60 /tmp/tr/igemm bench --gemm --shapes /tmp/g.csv --iters 6 --warmup 2 2> "$OUT/trace_$n.txt" > /dev/null
  LD_LIBRARY_PATH=/tmp/tr:$LD_LIBRARY_PATH timeout 60 /tmp/tr/igemm bench --gemm --fused --shapes /tmp/g.csv --iters 6 --warmup 2 2> "$OUT/tracef_$n.txt" > /dev/null
done
tar czf "$OUT/traces.tgz" -C "$OUT" $(cd "$OUT" && ls trace*_*.txt) && rm -f "$OUT"/trace*_*.txt
