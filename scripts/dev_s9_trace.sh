#!/bin/bash
# Session-9 (issue 27, dev experiment): per-CTA phase times (globaltimer: entry, after set-up, first
# stage full, mainloop drained, cluster sum done) of the split pixels-as-N kernel on few-row GEMMs,
# from a build with -DIGEMM_TRACE (out/trace.tgz: CLI + library; the host prints one line per CTA
# after a synchronised launch). Parsed here by dev/probes/trace_phases.py.
mkdir -p /tmp/tr; tar xzf out/trace.tgz -C /tmp/tr
export LD_LIBRARY_PATH=/tmp/tr
. "$(dirname "$0")/device_env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$OUT/trace_gpu.txt"
for g in "llm_decode_b64,64,4096,4096" "decode_b64_k14336,64,4096,14336" "cnn_fc,32,1000,2048" "fc_b128,128,1000,2048"; do
  n=${g%%,*}; echo "$g" > /tmp/g.csv
  timeout 60 /tmp/tr/igemm bench --gemm --shapes /tmp/g.csv --iters 6 --warmup 2 2> "$OUT/trace_$n.txt" | tail -2 >> "$OUT/trace_gpu.txt"
done
