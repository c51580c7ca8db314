#!/bin/bash
# Session-9 (issue 27): dev/probes/cluster_sum_probe (carried as out/cluster_sum_probe): the cost of
# barrier.cluster, DSMEM loads and a cluster fence on their own, idle and after streaming.
./out/cluster_sum_probe > "$OUT/clprobe.log" 2>&1
PROBE_STREAM=1 ./out/cluster_sum_probe >> "$OUT/clprobe.log" 2>&1
nvidia-smi --query-gpu=name --format=csv,noheader >> "$OUT/clprobe.log"
