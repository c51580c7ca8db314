#!/bin/bash
# Session-16 closing device call. Carried: out/bin.txz (this build: the sm100 family with its
# first-use self-check, generic kernels with compute_90 PTX, the shared TMA-geometry check and conv
# tensor maps) and out/old.txz (HEAD 8fbcff5 + compute_90 PTX, for the A/B). (1) all C tests
# (the sm100 planner test runs its self-check on this Hopper GPU under a fake B200: it must fail and
# fall back); (2) the SASS histogram of the sm100 instances (cuobjdump); (3) bench/shapes.csv and
# the zoo's sm90 layers, this build against the old one, interleaved, plain and fused (the sm90 host
# refactor must change nothing; plain only: the device budget was nearly spent).
. "$(dirname "$0")/dev_preamble.sh" final
timeout 120 ./build/igemm_tests > "$OUT/tests.log" 2>&1; echo "C tests rc=$?: $(tail -1 "$OUT/tests.log") ($(( $(date +%s) - t0 )) s)" >> "$L"
grep -E "FAIL|sm100|selfcheck" "$OUT/tests.log" | head -20 >> "$L"
cuobjdump --dump-sass build/src/sm100/family_conv.o > /tmp/sm100.sass 2>&1; echo "cuobjdump rc=$?" >> "$L"
grep -E "arch = |Function :" /tmp/sm100.sass | head -8 >> "$L"
python3 - >> "$L" <<'PY'
import re, collections
cur=None; hist={}
for line in open('/tmp/sm100.sass'):
    m=re.search(r'Function : (\S+)', line)
    if m: cur=m.group(1); hist[cur]=collections.Counter(); continue
    m=re.search(r'/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)', line)
    if m and cur:
        op=m.group(1); sub=m.group(2)
        key=op+(sub if op.startswith(('UTC','UTMA','LDTM','UGETNEXT','SYNCS','UBLKCP','STTM')) else '')
        hist[cur][key]+=1
for f,h in hist.items():
    if 'conv_fprop' in f:
        sel={k:v for k,v in h.items() if re.match(r'(UTC|UTMA|LDTM|UGETNEXT|STG|LDG|SYNCS|ELECT|UBLKCP|STTM|FENCE|MEMBAR)',k)}
        print('SASS', f[:70], 'total', sum(h.values()), dict(sorted(sel.items())))
PY
echo "sass done $(( $(date +%s) - t0 )) s" >> "$L"
grep -v "^#" bench/zoo.csv | awk -F, '$15 == 1' > /tmp/zoo_dense.csv
for f in ""; do
  for v in new old; do
    LP=$PWD/build; BIN=./build/igemm; [ $v = old ] && LP=$PWD/out/old/build && BIN=./out/old/build/igemm
    # (each build's own CLI: the sonames differ, 0.5 against 0.4)
    for s in bench/shapes.csv; do
      echo "=== $v $f $s" >> "$L"
      LD_LIBRARY_PATH=$LP:$LD_LIBRARY_PATH timeout 80 $BIN bench --shapes $s --iters 30 $f 2>&1 | grep -vE "^\[|^#|^igemm|^name" | awk '{print $1, $3}' >> "$L"
    done
  done
done
echo "elapsed $(( $(date +%s) - t0 )) s" >> "$L"
