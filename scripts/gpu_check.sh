#!/usr/bin/env bash
# scripts/gpu_check.sh — the one script run on the GPU machine (from the repository root): build,
# test, check, sanitize, inspect SASS and benchmark against cuDNN in the same process, writing logs
# under $OUT (at most 8 files with the default stages: the device returns at most 8).
#   usage: scripts/gpu_check.sh [stages...]   (stages are arguments, not a variable; they run in
#   the order given). Default: build smoke tests check sanitize sass ncuconv1 bench fused fp16 b2b
#   py pybench. A build made elsewhere can be carried in build/ and the build stage left out. Each
#   stage appends to $OUT/<stage group>.log; a summary ($OUT/summary.txt) is printed last;
#   GPU_CHECK_APPEND=1 keeps the logs of an earlier call (several calls, one set of logs).
#   The suite: $IGEMM_SHAPES, else bench/shapes.csv. cuDNN: the pip wheel beside PyTorch
#   (exported as IGEMM_CUDNN_LIB), else whatever IGEMM_CUDNN_LIB already names.
#   Planner settings (a kernel, a tile, a ring depth, a grid cap ... forced) are EXPERIMENTAL plan
#   hints, passed as `igemm check/bench/run --hints "key=value,key=value"` (keys in include/igemm.h);
#   the variables below that take settings (KS_CFGS, AB_KNOB_OLD/AB_KNOB_NEW, STRESS_HINTS) take
#   hint texts. What each stage's measurements decided: docs/decisions.md.
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
STAGES=${*:-build smoke tests check sanitize sass ncuconv1 bench fused fp16 b2b py pybench}
# optional stages: ladder (the GEMM ladder's ten programs), gemm (the GEMM suite against cuBLASLt), gemmsweep (GEMM shapes x hint texts), ncugemm (ncu durations of ours, and of cuBLASLt with NG_VS=1, on GEMM shapes under hint texts), fewrows (the few-row family on bench/fewrows.csv, by path), models (networks: python/bench_models.py), overhead (host cost per call), profile
# (kernels and gaps of a network's CUDA-graph replay: dev/probes/profile_model.py), diag (Nsight Compute stall samples per SASS line, and cuDNN's kernels), sweep (every
# row tile on every layer), ncudur (kernel durations against event-timed ones), fusediag (each part of
# the fused epilogue alone), splitsweep (split-K x tile), epidiag (the plain against the fused instance
# under ncu), abfused / abplain (A/B against the build in $AB_OLD), abknob (A/B of two hint texts in
# one build), dnncfg (cuDNN's kernels and launch shapes), stress (repeated checks for races),
# checkpixn (the suite with each pixels-as-N tile forced), smemdiag (ncu SOL of the r50_l4 tiles and
# cuDNN's), stagesweep (time against ring depth), l4tiles (other tiles for r50_l4), knobsweep (KS_SHAPES
# x KS_CFGS, ours only, back to back), stem (the stem-rows family alone: tests, checks, sanitizers,
# conv1 raw mode against the pre-pass), stemdiag (ncu of the stem)
# binaries built on another machine (same nvcc) may come as out/bin.tgz (carried: build/igemm,
# build/libigemm.so*, build/igemm_tests): unpacked when the build stage is not asked for
if [ -f out/bin.tgz ] && ! case " $STAGES " in *" build "*) true;; *) false;; esac; then tar xzf out/bin.tgz; fi
export LD_LIBRARY_PATH=$PWD/build:${LD_LIBRARY_PATH:-}
SHAPES=${IGEMM_SHAPES:-bench/shapes.csv}
[ -f "$SHAPES" ] || echo "gpu_check: shape file $SHAPES not found (run from the repository root, or set IGEMM_SHAPES): the suite stages will fail"
export IGEMM_SHAPES=$(readlink -f "$SHAPES" 2>/dev/null || echo "$SHAPES")
# nvcc, CUDA_HOME, cuDNN and cuBLASLt for the baselines
. "$(dirname "$0")/device_env.sh"
SUMMARY=$OUT/summary.txt
CHK=$OUT/checks.log   # smoke, check, sanitizer, SASS, ncu: one file (the device returns at most 8)
if [ -z "${GPU_CHECK_APPEND:-}" ]; then : > "$CHK"; : > "$SUMMARY"; fi  # GPU_CHECK_APPEND=1: several calls, one set of logs
note() { echo "$*" | tee -a "$SUMMARY"; }
has() { case " $STAGES " in *" $1 "*) return 0;; esac; return 1; }
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 ))s] $*"; }

note "== gpu_check $(date -u +%FT%TZ) stages: $STAGES"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader 2>&1 | tee -a "$SUMMARY"
note "nvcc: $($NVCC --version | tail -1); cuDNN lib: ${IGEMM_CUDNN_LIB:-none}"

stage_build() {
  stamp build
  if make -j16 all HAVE_CUDA=1 NVCC="$NVCC" > /tmp/igemm_build.log 2>&1; then note "build: ok"; else note "build: FAILED"; tail -40 /tmp/igemm_build.log | tee -a "$CHK"; exit 1; fi
  # the C++ kernel of torch.ops.igemm.conv2d, where torch imports (python/igemm/csrc)
  if python3 -c "import torch" 2> /dev/null; then
    if make torchop > /tmp/igemm_torchop.log 2>&1; then note "torchop: ok"; else note "torchop: FAILED"; tail -20 /tmp/igemm_torchop.log | tee -a "$CHK"; fi
  fi
  { echo "=== ptxas (sm90)"; grep -hE "Compiling|registers|spill" build/src/sm90/*.ptxas.txt build/gen/sm90/*.ptxas.txt; } >> "$CHK" 2>/dev/null
}
stage_oldbuild() {
  stamp oldbuild
  # the A/B's old side built here from a source archive of an earlier commit (AB_OLD_SRC, e.g.
  # `git archive -o out/old_src.tar REV`, carried): its library and CLI into /tmp/igemm_old/build,
  # which becomes AB_OLD for the abplain / abfused stages
  [ -n "${AB_OLD_SRC:-}" ] && [ -f "$AB_OLD_SRC" ] || { note "oldbuild: AB_OLD_SRC (a source archive) not given"; return; }
  rm -rf /tmp/igemm_old && mkdir -p /tmp/igemm_old && tar -xf "$AB_OLD_SRC" -C /tmp/igemm_old
  if (cd /tmp/igemm_old && make -j16 build/libigemm.so build/igemm HAVE_CUDA=1 NVCC="$NVCC" > /tmp/igemm_oldbuild.log 2>&1); then
    export AB_OLD=/tmp/igemm_old/build; note "oldbuild: ok ($AB_OLD_SRC)"
  else note "oldbuild: FAILED"; tail -20 /tmp/igemm_oldbuild.log | tee -a "$CHK"; fi
}
stage_sass() {
  stamp sass
  if ! ls build/gen/sm90/*.o > /dev/null 2>&1; then note "sass: no objects under build/gen (carry the build directory, not only the binaries)"; return; fi
  # (into its own file first, then appended to checks.log: the counts are this stage's alone)
  local sl=/tmp/igemm_sass.log
  { for f in build/src/sm90/*.o build/gen/sm90/*.o build/src/sm80/*.o; do echo "== $f"; cuobjdump --dump-sass "$f" | grep -oE "HGMMA\.[0-9A-Za-z]+|HMMA\.[0-9A-Za-z.]+|UTMALDG[.0-9A-Z]*|UTMASTG|LDGSTS[.A-Z0-9]*|LDL|STL|LDSM[.A-Z0-9]*" | sort | uniq -c; done; grep -h -E "registers|spill|stack" build/src/sm90/*.ptxas.txt build/gen/sm90/*.ptxas.txt; } > "$sl" 2>&1
  cat "$sl" >> "$CHK"
  note "sass: $(grep -c . "$sl") lines; HGMMA=$(grep -E 'HGMMA' "$sl" | awk '{s+=$1} END {print s+0}') UTMALDG=$(grep -E 'UTMALDG' "$sl" | awk '{s+=$1} END {print s+0}') LDL/STL=$(grep -E ' (LDL|STL)$' "$sl" | awk '{s+=$1} END {print s+0}')"
}
stage_smoke() {
  stamp smoke
  for path in direct general sm90; do
    for s in "t1x1,1,8,8,64,64,1,1,1,1,0,0,1,1" "t3x3,2,12,12,64,128,3,3,1,1,1,1,1,1" "ts2,2,15,15,128,64,3,3,2,2,1,1,1,1" "tdil,1,20,20,64,72,3,3,1,1,2,2,2,2" "t7x7,3,7,7,128,256,3,3,1,1,1,1,1,1" "todd,1,9,11,24,40,3,5,2,1,2,1,1,2" "tconv1,2,40,36,3,64,7,7,2,2,3,3,1,1" "tc5dil,1,19,23,5,24,3,3,1,2,2,1,2,1"; do
      timeout 60 ./build/igemm check --shape "$s" --path $path --epilogue none,full >> "$CHK" 2>&1; echo "smoke $path ${s%%,*} rc=$?" >> "$CHK"
    done
  done
  note "smoke: $(grep -c 'rc=0' "$CHK") ok of $(grep -c 'rc=' "$CHK")"; grep -E 'rc=[1-9]' "$CHK" | tee -a "$SUMMARY"
}
stage_tests() {
  stamp tests
  timeout 400 ./build/igemm_tests ${TESTS:-} > "$OUT/tests.log" 2>&1; rc=$?
  note "C tests (rc=$rc): $(tail -1 "$OUT/tests.log")"
  grep -E "FAIL" "$OUT/tests.log" | head -30 | tee -a "$SUMMARY"
}
stage_check() {
  stamp check
  for dt in bf16 fp16; do
    timeout 300 ./build/igemm check --shapes "$IGEMM_SHAPES" --dtype $dt --epilogue all > /tmp/igemm_check.log 2>&1; rc=$?
    cat /tmp/igemm_check.log >> "$CHK"
    note "check $dt, every epilogue (rc=$rc): $(grep -c ' PASS' /tmp/igemm_check.log) PASS, $(grep -c ' FAIL' /tmp/igemm_check.log) FAIL; $(tail -1 /tmp/igemm_check.log)"
    grep ' FAIL' /tmp/igemm_check.log | head -10 | tee -a "$SUMMARY"
  done
}
# the plan hints of each sanitizer case, by the case's name (none: the planner's own plan)
san_hints() {
  case "$1" in
    wm2_tail) echo "tile=256x128";;
    pp_es2_tail) echo "kernel=pingpong,tile=128x128,staging_boxes=2";;
    nc3_tail) echo "tile=192x128,consumers=3";;
    pp_tail) echo "kernel=pingpong,tile=128x128,grid=4";;
    pixn_tail) echo "kernel=pixels_n,tile_m=96,grid=4";;
    fold_stem) echo "kernel=fold";;
    rstem_g3|rstem_raw_g3) echo "grid=3";;
    bresp_tail) echo "kernel=pingpong,tile=128x64,filter_resident=1,grid=5";;
    pxpp_tail) echo "kernel=pixels_n_pingpong,grid=3";;
    pxppbr_tail) echo "kernel=pixels_n_pingpong,filter_resident=1,grid=2";;
    skc_tail) echo "kernel=split_cluster";;
    halo_rows|halo2_rows) echo "kernel=halo_rows,grid=3";;
    halo_turn_es2) echo "kernel=halo_rows,grid=2,consumers=3,staging_boxes=2";;
    splitk_grid3) echo "kernel=cooperative,split_k=4,grid=3";;
    fold_whole_vit) echo "kernel=fold";;
    pixn64_split) echo "kernel=pixels_n,tile=64x64,split_k=3";;
    dw3_grid2) echo "kernel=depthwise_tiled,grid=2";;
    dw7_s2) echo "kernel=depthwise_tiled";;
    dw3_tma_grid2) echo "kernel=depthwise_tma,grid=2";;
    dw5_tma_s2) echo "kernel=depthwise_tma,grid=3";;
    dw3_mma) echo "kernel=depthwise_mma,grid=2";;
    dw5x3_dil_mma) echo "grid=3";;
    grouped_g32_family) echo "filter_resident=1,grid=3";;
    grouped_g32_sm90|grouped_g64_sm90) echo "grid=3";;
  esac
}
stage_sanitize() {
  stamp sanitize
  # memcheck, racecheck and synccheck, each case checked with the full and the plain epilogue. The
  # first three take the planner's plans (a small ResNet 3x3 layer, odd sizes with stride, dilation
  # and asymmetric padding, a ResNet stage-4 layer). Then, by plan hints (san_hints): the 256 x 128
  # tile (two 64-row blocks per consumer; its residual through the operand ring); a 128 x 128
  # ping-pong plan with 2 staging boxes per consumer, fewer than the tile's 4, so residual boxes are
  # reloaded inside the epilogue; the 192 x 128 tile (3 consumer warpgroups); ping-pong consumers on
  # a 4-CTA grid (each consumer several tiles, in turn); pixels as wgmma N (96 x 128 tiles) on a
  # 4-CTA grid; the fold path of a ResNet stem (c = 3: 2 filter rows folded into 48 channels); the
  # stem-rows path (pre-pass mode: w c % 8 != 0) on the planner's grid and on a 3-CTA grid (the
  # ring wraps many times); a filter-resident ping-pong plan on a 5-CTA grid (N-tiles with unequal
  # CTA counts); pixels as N in ping-pong plans of <= 64 channels (128 pixels, on a 3-CTA grid; N =
  # 40 with the filter resident on a 2-CTA grid: the staging box and its residual reused by each
  # consumer); split in cluster (2-CTA clusters on one tile's two K halves, partials by st.async;
  # stride 2, M and N tails); halo rows (112-pixel row tiles, each input row loaded once with its
  # halo, the taps along W read it shifted) on a 3-CTA grid, and the same with tiles of two 56-pixel
  # rows (4 input rows per tile); their fused runs take three consumers in turn, and the last case
  # forces that with two staging boxes each on a 2-CTA grid; split-K pixels-as-N tiles of 64 channels
  # (3 ranks: 6 finishing units for 8 groups) on a decode-like 1x1; the grouped family's slabs of 8
  # groups of 4 and of 4 groups of 8 (stride 2), its 16-pixel units (groups of 24) and 32-pixel
  # units (groups of 32); the narrow 1x1 family's three instances (c 48 -> k 13, c 32 -> k 16, and
  # the wider one: 144 -> 24 at 72k pixels; each warp's next block in flight); the tiled depthwise kernel on a
  # 2-CTA grid (three channel blocks: the weights restaged, both input buffers in turn) and 7x7
  # stride 2 with 40 channels (a partial 8-channel chunk count per position); the mma depthwise kernel
  # forced on the 3x3 case (2-CTA grid) and by the planner's choice on a dilated 5x3 of stride 1x2; the
  # TMA depthwise kernel on the 3x3 case (2-CTA grid: the ring's stages wrap) and a 5x5 stride 2 of 40
  # channels (five 8-channel chunks per thread group row) on a 3-CTA grid
  for s in ${SAN_CASES:-"r50_l1_3x3_64_small,2,56,56,64,64,3,3,1,1,1,1,1,1" "odd,1,17,13,24,40,3,5,2,1,2,1,1,2" "r50_l4_3x3_512_n2,2,7,7,512,512,3,3,1,1,1,1,1,1" "wm2_tail,1,23,29,128,200,3,3,1,1,1,1,1,1" "pp_es2_tail,1,23,29,128,200,3,3,1,1,1,1,1,1" "nc3_tail,2,19,20,64,200,3,3,1,1,1,1,1,1" "pp_tail,1,23,29,128,200,3,3,1,1,1,1,1,1" "pixn_tail,1,23,29,128,200,3,3,1,1,1,1,1,1" "fold_stem,2,40,36,3,64,7,7,2,2,3,3,1,1" "rstem,2,40,36,3,64,7,7,2,2,3,3,1,1" "rstem_g3,1,21,300,3,64,7,7,2,2,3,3,1,1" "bresp_tail,2,19,20,64,200,3,3,1,1,1,1,1,1" "pxpp_tail,2,19,20,64,64,3,3,1,1,1,1,1,1" "pxppbr_tail,2,19,20,64,40,3,3,1,1,1,1,1,1" "skc_tail,3,14,14,256,200,3,3,2,2,1,1,1,1" "halo_rows,2,3,224,64,64,3,3,1,1,1,1,1,1" "halo2_rows,2,6,56,64,64,3,3,1,1,1,1,1,1" "halo_turn_es2,2,4,224,64,64,3,3,1,1,1,1,1,1" "splitk_grid3,1,13,17,96,72,3,3,1,1,1,1,1,1" "pixn64_split,1,1,64,512,200,1,1,1,1,0,0,1,1" "grouped_g4,2,11,13,128,128,3,3,1,1,1,1,1,1,32" "grouped_g8s2,2,9,11,64,64,3,3,2,2,1,1,1,1,8" "grouped_g24,1,9,10,96,96,3,3,1,1,1,1,1,1,4" "grouped_g32,1,7,9,128,128,3,3,1,1,1,1,1,1,4" "narrow_1x1,2,17,19,48,13,1,1,1,1,0,0,1,1" "narrow_c32,2,33,31,32,16,1,1,1,1,0,0,1,1" "narrow_wide,2,190,190,144,24,1,1,1,1,0,0,1,1" "dw3_grid2,2,13,19,144,144,3,3,1,1,1,1,1,1,144" "dw7_s2,1,15,17,40,40,7,7,2,2,3,3,1,1,40" "dw3_mma,2,13,19,144,144,3,3,1,1,1,1,1,1,144" "dw5x3_dil_mma,2,21,23,72,72,5,3,1,2,4,3,2,3,72" "dw3_tma_grid2,2,13,19,144,144,3,3,1,1,1,1,1,1,144" "dw5_tma_s2,1,15,17,40,40,5,5,2,2,2,2,1,1,40" "grouped_g32_family,1,7,9,128,128,3,3,1,1,1,1,1,1,4" "grouped_g32_sm90,1,11,7,160,160,3,3,2,2,1,1,1,1,5" "grouped_g64_sm90,1,6,10,192,192,3,3,1,1,1,1,1,1,3"}; do
    h=$(san_hints "${s%%,*}")
    for tool in memcheck racecheck synccheck; do
      timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm check --shape "$s" --epilogue full,none ${h:+--hints "$h"} >> "$CHK" 2>&1; rc=$?
      note "sanitize $tool ${s%%,*}${h:+ [$h]}: rc=$rc $(grep -E 'ERROR SUMMARY' "$CHK" | tail -1)"
    done
  done
}
stage_stress() {
  stamp stress
  # races: one layer checked 20 times per process (seeds 1-3), each under the plan hints in
  # STRESS_HINTS (';'-separated hint texts, "default" for the planner's plan; default: the pixels-as-N
  # ping-pong plans, alone, on a 7-CTA grid, and with the filter in the ring)
  local shp=${STRESS_SHAPE:-"pxs,4,56,56,64,64,3,3,1,1,1,1,1,1"} args="" hs
  for i in $(seq 20); do args="$args --shape $shp"; done
  IFS=';' read -ra hs <<< "${STRESS_HINTS:-kernel=pixels_n_pingpong;kernel=pixels_n_pingpong,grid=7;kernel=pixels_n_pingpong,filter_resident=-1}"
  for e in "${hs[@]}"; do
    [ "$e" = default ] && e=""
    for seed in 1 2 3; do
      timeout 120 ./build/igemm check $args --epilogue residual-relu,full --seed $seed ${e:+--hints "$e"} > /tmp/stress.log 2>&1; rc=$?
      cat /tmp/stress.log >> "$CHK"
      note "stress [${e:-default}] seed $seed (rc=$rc): $(grep -c ' PASS' /tmp/stress.log) PASS, $(grep -c ' FAIL' /tmp/stress.log) FAIL"
    done
  done
}
stage_checkpixn() {
  stamp checkpixn
  # pixels as wgmma N forced on every layer of the suite the conv kernels take (c % 8 == 0: a hinted
  # kernel fails the plan rather than fall back, so r50_conv1 is left out) (TP = 80, 96, 208; bf16,
  # plain and the full epilogue)
  awk -F, '/^#/ || $5 % 8 == 0' "$IGEMM_SHAPES" > /tmp/pixn.csv
  for tp in 80 96 208; do
    timeout 200 ./build/igemm check --shapes /tmp/pixn.csv --epilogue none,full --hints "kernel=pixels_n,tile_m=$tp" > /tmp/igemm_checkp.log 2>&1; rc=$?
    cat /tmp/igemm_checkp.log >> "$CHK"
    note "check pixels-as-N TP=$tp (rc=$rc): $(grep -c ' PASS' /tmp/igemm_checkp.log) PASS, $(grep -c ' FAIL' /tmp/igemm_checkp.log) FAIL; $(tail -1 /tmp/igemm_checkp.log)"
    grep ' FAIL' /tmp/igemm_checkp.log | head -5 | tee -a "$SUMMARY"
  done
}
stage_ncuconv1() {
  stamp ncuconv1
  { echo "=== ncu r50_conv1 (stem rows, raw mode)"; timeout 120 ncu --clock-control none --launch-skip 3 --launch-count 3 --section SpeedOfLight \
      ./build/igemm run --shape "r50_conv1,32,224,224,3,64,7,7,2,2,3,3,1,1" --iters 2 --warmup 1 2>&1 | grep -E "igemm_|Duration|Compute \(SM\) Throughput|DRAM Throughput"; } >> "$CHK"
  grep -A3 "=== ncu r50_conv1" "$CHK" >/dev/null; note "ncu conv1: $(grep -cE 'Duration' "$CHK") kernel durations logged"
}
# the stem kernel under Nsight Compute (plain conv1): where its time goes (pipes, warp stalls, memory)
stage_stemdiag() {
  stamp stemdiag
  # raw mode (the planner's) and pre-pass mode (hint stem_prepass=1)
  for raw in 1 0; do
    h=""; [ $raw = 0 ] && h="stem_prepass=1"
    { echo "=== stemdiag raw=$raw"; timeout 150 ncu --clock-control none -k regex:"igemm_sm90_stem|igemm_stem_prep" --launch-skip 2 --launch-count 2 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
        ./build/igemm run --shape "r50_conv1,32,224,224,3,64,7,7,2,2,3,3,1,1" --iters 2 --warmup 1 ${h:+--hints "$h"} 2>&1 | grep -vE "^==PROF==|^ *-+ *$|^ *$"; } >> "$OUT/stemdiag.log"
  done
  note "stemdiag: $(grep -cE 'Duration' "$OUT/stemdiag.log") kernel durations; $(grep -E '^=== |Duration' "$OUT/stemdiag.log" | tr -s ' ' | tr '\n' ' ' | cut -c1-300)"
}
stage_diag() {
  stamp diag
  # where the consumers wait (stall samples per SASS line) and what cuDNN runs, on the short-K layers
  for s in ${DIAG_SHAPES:-"r50_l1_1x1_64_64,32,56,56,64,64,1,1,1,1,0,0,1,1" "r50_l1_1x1_64_256,32,56,56,64,256,1,1,1,1,0,0,1,1" "vgg_3x3_64,16,224,224,64,64,3,3,1,1,1,1,1,1"}; do
    nm=${s%%,*}
    { echo "=== diag $nm: ours"; timeout 150 ncu --clock-control none -k regex:sm90_conv2d --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section SourceCounters --import-source yes -o /tmp/d_$nm -f \
        ./build/igemm run --shape "$s" --iters 3 --warmup 2 > /tmp/ncu_run.log 2>&1; echo "ncu rc=$?"
      ncu -i /tmp/d_$nm.ncu-rep --page details 2>&1 | grep -E "igemm_|Duration|Throughput|Hit Rate|Registers|Shared Memory Config|Grid Size|Block Size|Warp Cycles Per Issued|Issued Warp|Stall|Bank" | head -40
      ncu -i /tmp/d_$nm.ncu-rep --page source --csv --print-source sass > /tmp/d_$nm.csv 2>&1
      python3 dev/probes/ncu_top.py /tmp/d_$nm.csv 28
      echo "=== diag $nm: cuDNN"; echo "$s" > /tmp/one.csv
      timeout 150 ncu --clock-control none --launch-skip 0 --launch-count 400 --section SpeedOfLight --section LaunchStats \
        ./build/igemm bench --shapes /tmp/one.csv --vs cudnn --iters 2 --warmup 1 2>&1 | grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Grid Size|Registers Per|Dynamic Shared" | awk '/\(/{k=$0; c[k]++} c[k]<=1' | head -60
    } >> "$OUT/diag.log" 2>&1
  done
  note "diag: $(grep -c 'ncu rc=0' "$OUT/diag.log") profiles"
}
stage_ncudur() {
  stamp ncudur
  # kernel durations (ncu) vs event-timed medians: how much of a small layer is launch overhead
  printf '%s\n' "tiny_1tile,1,8,16,64,64,1,1,1,1,0,0,1,1" "tiny_132tiles,1,132,128,64,128,1,1,1,1,0,0,1,1" "r50_l3_1x1_256_1024,32,14,14,256,1024,1,1,1,1,0,0,1,1" "r50_l4_3x3_512,32,7,7,512,512,3,3,1,1,1,1,1,1" > /tmp/small.csv
  timeout 120 ./build/igemm bench --shapes /tmp/small.csv --vs cudnn --iters 100 2>&1 | grep -vE "^\[" | tee -a "$OUT/diag.log" | tail -6 | tee -a "$SUMMARY"
  timeout 200 ncu --clock-control none -k regex:"igemm_sm90|sm90_xmma|nvjet|cutlass" --launch-skip 0 --launch-count 60 --section SpeedOfLight \
    ./build/igemm bench --shapes /tmp/small.csv --vs cudnn --iters 3 --warmup 1 2>&1 | grep -E "^  [a-zA-Z_].*\(|Duration" | sed -E 's/\(CUtensorMap.*\) \(/ (/; s/, Context.*//' | awk '/Duration/{print k " :: " $0; next} {k=substr($0,1,110)}' | sort | uniq -c | sort -k1,1nr | head -40 | tee -a "$OUT/diag.log" | tee -a "$SUMMARY"
}
stage_fusediag() {
  stamp fusediag
  # which part of the fused epilogue costs what (ours only), and where the fused kernel waits
  grep -E "^(r50_l4_3x3_512|r50_l4_1x1_1024_512|vgg_3x3_128|vgg_3x3_64|r50_l1_1x1_64_64|sd_unet_3x3_320|r50_l2_3x3_128)," "$IGEMM_SHAPES" > /tmp/fd.csv
  timeout 60 ./build/igemm bench --shapes /tmp/fd.csv --iters 50 2>/dev/null | grep " sm90 " | awk '{print "parts=plain", $1, $3}' >> "$OUT/diag.log"
  for parts in b r a br bra; do
    timeout 60 ./build/igemm bench --fused --fused-parts $parts --shapes /tmp/fd.csv --iters 50 2>/dev/null | grep " sm90 " | awk -v p=$parts '{print "parts=" p, $1, $3}' >> "$OUT/diag.log"
  done
  grep "^parts=" "$OUT/diag.log" | sort -k2,2 -s | awk '{printf "%-24s %-12s %8s\n", $2, $1, $3}' | tee -a "$SUMMARY"
  grep -E "^r50_l4_3x3_512," "$IGEMM_SHAPES" > /tmp/one.csv
  timeout 150 ncu --clock-control none -k regex:igemm_sm90 --launch-skip 12 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters --import-source yes -o /tmp/fd -f \
    ./build/igemm bench --fused --shapes /tmp/one.csv --iters 3 --warmup 1 > /tmp/ncu_run.log 2>&1; echo "ncu rc=$?" >> "$OUT/diag.log"
  ncu -i /tmp/fd.ncu-rep --page details 2>&1 | grep -E "igemm_|Duration" >> "$OUT/diag.log"
  ncu -i /tmp/fd.ncu-rep --page source --csv --print-source sass > /tmp/fd.csv 2>&1
  python3 dev/probes/ncu_top.py /tmp/fd.csv 30 >> "$OUT/diag.log"
}
stage_smemdiag() {
  stamp smemdiag
  # what bounds the 104-CTA r50_l4 tiles: SOL (SM, L1/shared, L2) and pipes, ours (128x64; 128x128 split 2) and cuDNN
  s="r50_l4_3x3_512,32,7,7,512,512,3,3,1,1,1,1,1,1"; echo "$s" > /tmp/one.csv
  for h in "pdl=-1" "tile=128x128,split_k=2" "tile=256x128"; do
    { echo "=== smemdiag ours [$h]"; ./build/igemm run --shape "$s" --iters 20 --warmup 5 --hints "$h" 2>&1 | tail -3
      timeout 150 ncu --clock-control none -k regex:"igemm_sm90" --launch-skip 4 --launch-count 2 --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
        ./build/igemm run --shape "$s" --iters 3 --warmup 2 --hints "$h" 2>&1 | grep -E "^  [a-zA-Z_].*\(|Duration|Throughput|Busy|Shared|Pipe|Issue|Executed Ipc|Bank" | sed -E 's/\(CUtensorMap.*\) \(/ (/; s/, Context.*//' | head -70; } >> "$OUT/diag.log" 2>&1
  done
  { echo "=== smemdiag cuDNN"; timeout 150 ncu --clock-control none -k regex:"sm90_xmma|cutlass|nvjet|implicit" --launch-skip 3 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
      ./build/igemm bench --shapes /tmp/one.csv --vs cudnn --iters 3 --warmup 1 2>&1 | grep -E "^  [a-zA-Z_].*\(|Duration|Throughput|Busy|Shared|Pipe|Issue|Executed Ipc|Bank" | sed -E 's/\(CUtensorMap.*\) \(/ (/; s/, Context.*//' | head -40; } >> "$OUT/diag.log" 2>&1
  note "smemdiag: $(grep -c Duration "$OUT/diag.log") durations"
}
stage_stagesweep() {
  stamp stagesweep
  # how the time scales with the operand ring's depth (the stages hint caps it): latency-bound tiles scale with the bytes in flight
  for s in "r50_l4_3x3_512,32,7,7,512,512,3,3,1,1,1,1,1,1" "r50_l4_1x1_2048_512,32,7,7,2048,512,1,1,1,1,0,0,1,1" "r50_l3_1x1_512_256,32,14,14,512,256,1,1,1,1,0,0,1,1" "vgg_3x3_512,16,28,28,512,512,3,3,1,1,1,1,1,1" "sd_vae_3x3_256,1,256,256,256,256,3,3,1,1,1,1,1,1"; do
    for st in 3 4 5 6 7 8; do
      t=$(timeout 60 ./build/igemm run --shape "$s" --iters 60 --warmup 10 --hints "stages=$st" 2>&1 | grep -E "time:|stages" | sed -E 's/.*tile ([0-9x]+)x64, ([0-9]+) stages.*/tile \1 stages \2/; s/.*time: ([0-9.]+) us median.*/\1 us/' | paste -sd' ')
      echo "stagesweep ${s%%,*} cap $st: $t" | tee -a "$SUMMARY" >> "$OUT/diag.log"
    done
  done
}
stage_l4tiles() {
  stamp l4tiles
  # other tiles for the 104-CTA r50_l4 layers, per call, ours only: one consumer per 128x64 tile (ping-pong instance), by ring depth
  for s in "r50_l4_3x3_512,32,7,7,512,512,3,3,1,1,1,1,1,1" "r50_l4_1x1_2048_512,32,7,7,2048,512,1,1,1,1,0,0,1,1"; do
    for cfg in default "kernel=pingpong,tile=128x64" "kernel=pingpong,tile=128x64,filter_resident=-1" "kernel=pingpong,tile=128x128" "tile=128x128,split_k=2"; do
      h=$cfg; [ "$h" = default ] && h=""
      t=$(timeout 60 ./build/igemm run --shape "$s" --iters 60 --warmup 10 ${h:+--hints "$h"} 2>&1 | grep -E "time:|plan:" | sed -E 's/.*tile ([0-9x]+)x64, ([0-9]+) stages.*(grid [0-9]+).*/tile \1 stages \2 \3/; s/.*time: ([0-9.]+) us median.*/\1 us/' | paste -sd' ')
      echo "l4tiles ${s%%,*} [$cfg]: $t" | tee -a "$SUMMARY" >> "$OUT/diag.log"
    done
  done
}
stage_knobsweep() {
  stamp knobsweep
  # ours only, back to back (KS_TIMING=per-call for the default timing), on KS_SHAPES (regex of names), under each setting in KS_CFGS ('|'-separated hint texts, "default" for the planner's plan), plain and fused (KS_FUSED_ONLY=1: fused only), twice
  grep -E "^(${KS_SHAPES:-vgg_3x3_256|sd_vae_3x3_256}),"  "$IGEMM_SHAPES" > /tmp/ks.csv
  IFS='|' read -r -a cfgs <<< "${KS_CFGS:-default}"
  for rep in 1 2; do
    for cfg in "${cfgs[@]}"; do
      fl=("" "--fused"); [ -n "${KS_FUSED_ONLY:-}" ] && fl=("--fused")
      for f in "${fl[@]}"; do
        h=$cfg; [ "$h" = default ] && h=""
        timeout 120 ./build/igemm bench --shapes /tmp/ks.csv --timing ${KS_TIMING:-back-to-back} $f --iters 30 --warmup 5 ${h:+--hints "$h"} 2>&1 | grep -E " sm90 " | awk -v c="$cfg" -v f="${f:-plain}" -v r=$rep '{printf "knobsweep %-6s rep %d %-22s %8s us  [%s]\n", f, r, $1, $3, c}' | tee -a "$SUMMARY" >> "$OUT/diag.log"
      done
    done
  done
}
stage_epidiag() {
  stamp epidiag
  # the plain instance against the ReLU-only general instance (EPI 1, no residual) on a 128x64-tile
  # layer: where the general instance's extra time goes (ncu stall samples per SASS line)
  grep -E "^${EPIDIAG_LAYER:-vgg_3x3_64}," "$IGEMM_SHAPES" > /tmp/ed.csv
  for parts in ${EPIDIAG_PARTS:-plain a}; do
    if [ $parts = plain ]; then F=""; else F="--fused --fused-parts $parts"; fi
    { echo "=== epidiag $parts"; timeout 150 ncu --clock-control none -k regex:igemm_sm90_conv --launch-skip 3 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters --section InstructionStats --import-source yes -o /tmp/ed_$parts -f \
        ./build/igemm bench $F --shapes /tmp/ed.csv --iters 3 --warmup 1 > /tmp/ncu_run.log 2>&1; echo "ncu rc=$?"
      ncu -i /tmp/ed_$parts.ncu-rep --page details 2>&1 | grep -E "igemm_sm90|Duration|Throughput|Warp Cycles Per Issued|Executed Instructions  |Issued Instructions  "
      ncu -i /tmp/ed_$parts.ncu-rep --page source --csv --print-source sass > /tmp/ed_$parts.csv 2>&1
      python3 dev/probes/ncu_top.py /tmp/ed_$parts.csv 40; } >> "$OUT/diag.log" 2>&1
  done
  grep -E "=== epidiag|Duration|igemm_sm90" "$OUT/diag.log" | cut -c1-160 | tee -a "$SUMMARY"
}
stage_splitsweep() {
  stamp splitsweep
  # split-K x tile on the small-M, long-K layers (ours only; WM:BN:split, tile 128*WM x BN)
  grep -E "^(r50_l4_3x3_512|r50_l4_3x3s2_512|r50_l4_1x1_1024_512|r50_l4_1x1_2048_512|r50_l4_1x1_512_2048|r50_l3_1x1_1024_256|sd_vae_3x3_512)," "$IGEMM_SHAPES" > /tmp/ss.csv
  timeout 60 ./build/igemm bench --shapes /tmp/ss.csv --iters 50 2>/dev/null | grep " sm90 " | awk '{print "split=auto", $1, $3}' >> "$OUT/bench.log"
  for cfg in 1:64:2 1:64:3 1:128:2 1:128:3 1:128:4 2:128:2 2:128:4 1:256:2; do
    IFS=: read wm bn sp <<< "$cfg"
    timeout 60 ./build/igemm bench --shapes /tmp/ss.csv --iters 50 --hints "tile=$((128 * wm))x$bn,split_k=$sp" 2>/dev/null | grep " sm90 " | awk -v c=$cfg '{print "split=" c, $1, $3}' >> "$OUT/bench.log"
  done
  grep "^split=" "$OUT/bench.log" | sort -k2,2 -k3,3n | awk '{printf "%-24s %-14s %8s\n", $2, $1, $3}' | tee -a "$SUMMARY"
}
stage_sweep() {
  stamp sweep
  # every two-consumer row tile (WM:BN: 128*WM x BN) on every layer, plain bf16, ours only: calibrates the planner's cost model
  for cfg in 1:64 1:128 1:256 2:64 2:128; do
    timeout 150 ./build/igemm bench --shapes "$IGEMM_SHAPES" --iters 40 --warmup 5 --hints "tile=$((128 * ${cfg%%:*}))x${cfg##*:}" 2>/dev/null | grep -E " sm90 " | awk -v c=$cfg '{print "tile=" c, $1, $3}' >> "$OUT/bench.log"
  done
  python3 - "$OUT/bench.log" <<'PY' | tee -a "$SUMMARY"
import sys, collections
t = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    if l.startswith('tile='):
        c, name, us = l.split()[:3]
        t[name][c[5:]] = float(us)
cs = ['1:64', '1:128', '1:256', '2:64', '2:128']
print('%-22s' % 'sweep us (WM:BN)' + ''.join('%9s' % c for c in cs) + '   best')
for n, d in t.items():
    b = min(d, key=d.get)
    print('%-22s' % n + ''.join('%9.2f' % d[c] if c in d else '%9s' % '-' for c in cs) + '   ' + b)
PY
}
stage_b2b() {
  stamp b2b
  # the suite timed back to back (an event pair per 16 calls: launch overlap as in a network), plain and fused
  for f in "" "--fused"; do
    # (tables in bench.log only: the device returns at most 8 files)
    timeout 400 ./build/igemm bench --shapes "$IGEMM_SHAPES" --vs cudnn --dtype bf16 --timing back-to-back $f >> "$OUT/bench.log" 2>&1; note "bench back-to-back ${f:-plain} rc=$?: $(grep geomean "$OUT/bench.log" | tail -1)"
  done
}
# the stem-rows family (conv2d_stem.cu) alone: its tests and the fold's, igemm check of ResNet-50
# conv1 (every epilogue, bf16 and fp16; raw mode and pre-pass mode), compute-sanitizer on four stems
# (pre-pass and raw mode, each also on a 3-CTA grid), conv1 against cuDNN, plain and fused, and
# raw mode against the pre-pass (hint stem_prepass=1) in 3 alternating rounds
stage_stem() {
  stamp stem
  timeout 300 ./build/igemm_tests sm90_stem > "$OUT/stem_tests.log" 2>&1; rc=$?
  timeout 200 ./build/igemm_tests fold_rows >> "$OUT/stem_tests.log" 2>&1; rc2=$?
  note "stem tests rc=$rc/$rc2: $(grep -cE '^\[FAIL\]' "$OUT/stem_tests.log") failed; $(grep -E 'passed' "$OUT/stem_tests.log" | tr '\n' ' ')"
  grep -E "FAIL|fail" "$OUT/stem_tests.log" | head -20 | tee -a "$SUMMARY"
  for dt in bf16 fp16; do
    for raw in 1 0; do
      h=""; [ $raw = 0 ] && h="stem_prepass=1"
      timeout 200 ./build/igemm check --shape "r50_conv1,32,224,224,3,64,7,7,2,2,3,3,1,1" --dtype $dt --epilogue all ${h:+--hints "$h"} > /tmp/igemm_stem.log 2>&1; rc=$?
      cat /tmp/igemm_stem.log >> "$CHK"
      note "stem check conv1 $dt raw=$raw (rc=$rc): $(tail -1 /tmp/igemm_stem.log)"
    done
  done
  for s in "rstem,2,40,36,3,64,7,7,2,2,3,3,1,1" "rstem_g3,1,21,300,3,64,7,7,2,2,3,3,1,1" "rstem_raw,2,40,40,3,64,7,7,2,2,3,3,1,1" "rstem_raw_g3,1,21,296,3,64,7,7,2,2,3,3,1,1"; do
    h=$(san_hints "${s%%,*}")
    for tool in memcheck racecheck synccheck; do
      timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 ./build/igemm check --shape "$s" --epilogue full,none,bias-residual-relu ${h:+--hints "$h"} >> "$CHK" 2>&1; rc=$?
      note "stem sanitize $tool ${s%%,*}: rc=$rc $(grep -E 'ERROR SUMMARY' "$CHK" | tail -1)"
    done
  done
  timeout 200 ./build/igemm bench --shape "r50_conv1,32,224,224,3,64,7,7,2,2,3,3,1,1" --vs cudnn --dtype bf16 > "$OUT/stem_bench.log" 2>&1
  timeout 200 ./build/igemm bench --shape "r50_conv1,32,224,224,3,64,7,7,2,2,3,3,1,1" --vs cudnn --fused --dtype bf16 >> "$OUT/stem_bench.log" 2>&1
  for round in 1 2 3; do
    for raw in 1 0; do
      h=""; [ $raw = 0 ] && h="stem_prepass=1"
      for f in "" "--fused"; do
        timeout 200 ./build/igemm bench --shape "r50_conv1_raw${raw}${f:+_fused}_r$round,32,224,224,3,64,7,7,2,2,3,3,1,1" $f --dtype bf16 ${h:+--hints "$h"} >> "$OUT/stem_bench.log" 2>&1
      done
    done
  done
  grep -E "^r50_conv1|geomean" "$OUT/stem_bench.log" | tee -a "$SUMMARY"
}
stage_bench() {
  stamp bench
  timeout 400 ./build/igemm bench --shapes "$IGEMM_SHAPES" --vs cudnn --dtype bf16 --csv "$OUT/bench_bf16.csv" > "$OUT/bench.log" 2>&1; note "bench bf16 rc=$?"
  tail -40 "$OUT/bench.log" | tee -a "$SUMMARY"
}
stage_fused() {
  stamp fused
  timeout 400 ./build/igemm bench --shapes "$IGEMM_SHAPES" --vs cudnn --fused --dtype bf16 --csv "$OUT/bench_fused.csv" >> "$OUT/bench.log" 2>&1; note "bench fused rc=$?"
  tail -38 "$OUT/bench.log" | tee -a "$SUMMARY"
}
stage_fp16() {
  stamp fp16
  timeout 400 ./build/igemm bench --shapes "$IGEMM_SHAPES" --vs cudnn --dtype fp16 >> "$OUT/bench.log" 2>&1; note "bench fp16 rc=$?"
  tail -38 "$OUT/bench.log" | tee -a "$SUMMARY"
}
stage_py() {
  stamp py
  IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 400 python3 -m pytest -q -x python/tests > "$OUT/py.log" 2>&1; note "python tests rc=$?: $(tail -1 "$OUT/py.log")"
}
stage_pybench() {
  stamp pybench
  IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 400 python3 python/bench.py --shapes "$IGEMM_SHAPES" --png "$OUT/bench_speedup.png" >> "$OUT/py.log" 2>&1; note "python bench rc=$?"
  tail -40 "$OUT/py.log" | tee -a "$SUMMARY"
}
stage_models() {
  stamp models
  # whole networks (issue 26): igemm.optimize against eager / torch.compile, with and without CUDA
  # graphs, and each one's error against the fp32 model. MODELS / MODEL_BATCHES / MODEL_VARIANTS pick the set.
  IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 560 python3 python/bench_models.py \
      --model "${MODELS:-resnet50,resnet18,mobilenet_v2,efficientnet_b0}" --batch "${MODEL_BATCHES:-1,32}" \
      --variants "${MODEL_VARIANTS:-eager,compile,compile-max,igemm}" --csv "$OUT/models.csv" --png "$OUT/models.png" > "$OUT/models.log" 2>&1; note "models rc=$?"
  grep -vE "^\[|^  " "$OUT/models.log" | tail -40 | tee -a "$SUMMARY"
}
stage_overhead() {
  stamp overhead
  # host cost per call (issue 26): igemm's torch entry points against F.conv2d, same tensors
  IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 300 python3 python/bench_overhead.py \
      --breakdown --csv "$OUT/overhead.csv" > "$OUT/overhead.log" 2>&1; note "overhead rc=$?"
  grep -vE "^  " "$OUT/overhead.log" | tail -12 | tee -a "$SUMMARY"
}
stage_profile() {
  stamp profile
  # where a network's CUDA-graph replay spends its time, igemm.optimize against torch.compile
  IGEMM_LIBRARY=$PWD/build/libigemm.so PYTHONPATH=$PWD/python timeout 300 python3 dev/probes/profile_model.py \
      --model "${PROFILE_MODEL:-resnet50}" --batch "${MODEL_BATCHES:-1,32}" > "$OUT/profile.log" 2>&1
  note "profile rc=$?"; grep "^==" "$OUT/profile.log" | tee -a "$SUMMARY"
}
stage_ladder() {
  stamp ladder
  # the GEMM ladder's ten programs (examples/gemm_ladder, issue 27): build, run at LADDER_SIZES
  if ! make -j16 ladder NVCC="$NVCC" > /tmp/igemm_ladder_build.log 2>&1; then note "ladder build: FAILED"; tail -30 /tmp/igemm_ladder_build.log | tee -a "$OUT/ladder.log"; return; fi
  for b in build/ladder/step*; do
    timeout 20 "$b" --sizes "${LADDER_SIZES:-4096,8192}" >> "$OUT/ladder.log" 2>&1; echo "$(basename "$b") rc=$?" >> "$OUT/ladder.log"
  done
  grep -E "^step|rc=[1-9]" "$OUT/ladder.log" | tee -a "$SUMMARY"
}
stage_fewrows() {
  stamp fewrows
  # the few-row family (IGEMM_PATH_MEMORY) against the tensor-core path and cuDNN on few-row
  # layers (classifier heads, ResNet-50's 7x7 stage at batch 1), then the planner's choice
  for path in memory sm90 auto; do
    timeout 120 ./build/igemm bench --shapes bench/fewrows.csv --path $path >> "$OUT/fewrows.log" 2>&1
    note "fewrows $path rc=$?: $(grep -E '^geomean' "$OUT/fewrows.log" | tail -1)"
  done
  grep -vE "^\[" "$OUT/fewrows.log" | tail -45 | tee -a "$SUMMARY" > /dev/null
}
stage_gemm() {
  stamp gemm
  # issue 27: the GEMM suite through igemm_gemm_plan_create against cuBLASLt (same process, same
  # timing, L2 rotated), plain and with bias + ReLU (cuBLASLt's EPILOGUE_RELU_BIAS)
  note "cuBLASLt: ${IGEMM_CUBLASLT_LIB:-not found}"
  timeout 280 ./build/igemm bench --gemm --shapes bench/gemm_shapes.csv --vs cublas --csv "$OUT/gemm.csv" > "$OUT/gemm.log" 2>&1
  note "gemm bench rc=$?: $(grep -E '^geomean' "$OUT/gemm.log")"
  timeout 280 ./build/igemm bench --gemm --shapes bench/gemm_shapes.csv --vs cublas --fused >> "$OUT/gemm.log" 2>&1
  note "gemm bench fused rc=$?: $(grep -E '^geomean' "$OUT/gemm.log" | tail -1)"
  grep -vE "^\[" "$OUT/gemm.log" | tail -40 | tee -a "$SUMMARY" > /dev/null
}
stage_gemmsweep() {
  stamp gemmsweep
  # issue 27: ours under each hint text of GS_CFGS ('|'-separated, "default" = the planner's plan) on
  # the GEMM shapes of GS_SHAPES (regex of names) in GS_FILE (default bench/gemm_shapes.csv), against
  # cuBLASLt in the same process, twice
  grep -E "^(${GS_SHAPES:-llm_decode_b64|llm_decode_b256|cnn_fc|wide_k})," "${GS_FILE:-bench/gemm_shapes.csv}" > /tmp/gs.csv
  IFS='|' read -r -a cfgs <<< "${GS_CFGS:-default}"
  for rep in 1 2; do
    for cfg in "${cfgs[@]}"; do
      h=$cfg; [ "$h" = default ] && h=""
      timeout 120 ./build/igemm bench --gemm --shapes /tmp/gs.csv --vs cublas --iters 30 --warmup 5 ${h:+--hints "$h"} 2>&1 \
        | grep -vE "^(igemm|geomean|name|#|\[)" | awk -v c="$cfg" -v r=$rep 'NF>2{printf "gemmsweep rep %d %s  [%s]\n", r, $0, c}' | tee -a "$SUMMARY" >> "$OUT/diag.log"
    done
  done
}
stage_ncugemm() {
  stamp ncugemm
  # issue 27: kernel durations, grid, cluster and DRAM throughput of the kernels matching NG_KERNELS
  # (default: ours, main and reduce, and cuBLASLt's) on the GEMM shapes of GS_SHAPES in GS_FILE,
  # under each hint text of NG_CFGS ('|'-separated, "default" = the planner's plan); cuBLASLt runs
  # only with NG_VS=1 (its algorithm search launches many kernels first)
  grep -E "^(${GS_SHAPES:-llm_decode_b64|llm_decode_b256|cnn_fc|wide_k})," "${GS_FILE:-bench/gemm_shapes.csv}" > /tmp/ng.csv
  IFS='|' read -r -a ngcfgs <<< "${NG_CFGS:-default}"
  while IFS= read -r s; do
    echo "$s" > /tmp/ng1.csv
    for cfg in "${ngcfgs[@]}"; do
      h=$cfg; [ "$h" = default ] && h=""
      { echo "=== ncugemm ${s%%,*} [$cfg]"; timeout 150 ncu --clock-control none -k regex:"${NG_KERNELS:-igemm|nvjet|splitK|cutlass}" \
          --launch-skip 4 --launch-count "${NG_COUNT:-4}" --section SpeedOfLight --section LaunchStats \
          ./build/igemm bench --gemm --shapes /tmp/ng1.csv ${NG_VS:+--vs cublas} --iters 3 --warmup 2 ${h:+--hints "$h"} 2>&1 \
          | grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Grid Size|Cluster Size" \
          | sed -E 's/\(CUtensorMap.*\) \(/ (/; s/, Context.*//' | cut -c1-150; } >> "$OUT/diag.log" 2>&1
    done
  done < /tmp/ng.csv
  grep -E "=== ncugemm|^  [a-zA-Z_]|Duration|DRAM Throughput|Grid Size" "$OUT/diag.log" | cut -c1-170 | tee -a "$SUMMARY" > /dev/null
}
stage_abfused() {
  stamp abfused
  # fused conv+bias+residual+ReLU, ours only: the build in $AB_OLD (carried, e.g. out/old) against build/
  AB_FUSED=1 OUT=/tmp/abf bash scripts/ab_bench.sh "${AB_OLD:-out/old}" build > /tmp/abf_res.txt 2>&1
  { echo "=== fused A/B: build (new) vs ${AB_OLD:-out/old} (old)"; cat /tmp/abf_res.txt; } | tee -a "$SUMMARY" >> "$OUT/bench.log"
}
stage_abplain() {
  stamp abplain
  OUT=/tmp/abp bash scripts/ab_bench.sh "${AB_OLD:-out/old}" build > /tmp/abp_res.txt 2>&1
  { echo "=== plain A/B: build (new) vs ${AB_OLD:-out/old} (old)"; cat /tmp/abp_res.txt; } | tee -a "$SUMMARY" >> "$OUT/bench.log"
}
stage_abknob() {
  stamp abknob
  # one build, two planner settings (AB_KNOB_OLD / AB_KNOB_NEW: hint texts, empty = the planner's
  # plan) on AB_KNOB_SHAPES (a regex of layer names; default all), plain or (AB_KNOB_FUSED=1) fused
  grep -E "^(${AB_KNOB_SHAPES:-.*})," "$IGEMM_SHAPES" > /tmp/abk.csv
  IGEMM_SHAPES=/tmp/abk.csv AB_FUSED=${AB_KNOB_FUSED:-} AB_OLD_HINTS="${AB_KNOB_OLD:-}" AB_NEW_HINTS="${AB_KNOB_NEW:-}" OUT=/tmp/abk \
    bash scripts/ab_bench.sh build build > /tmp/abk_res.txt 2>&1
  { echo "=== knob A/B${AB_KNOB_FUSED:+ (fused)}: new [${AB_KNOB_NEW:-}] vs old [${AB_KNOB_OLD:-}]"; cat /tmp/abk_res.txt; } | tee -a "$SUMMARY" >> "$OUT/bench.log"
}
stage_dnncfg() {
  stamp dnncfg
  # what cuDNN launches on the given layers (kernel name, grid, block, cluster, shared memory, duration)
  grep -E "^(${DNNCFG_SHAPES:-r50_l3_1x1_1024_256|r50_l4_1x1_2048_512|r50_l4_3x3_512})," "$IGEMM_SHAPES" > /tmp/dc.csv
  while IFS= read -r s; do
    echo "$s" > /tmp/dc1.csv
    { echo "=== dnncfg ${s%%,*}"; timeout 120 ncu --clock-control none -k regex:"^(nvjet|sm90|sm80|cutlass|xmma|cudnn|implicit|void cudnn)" --launch-skip 0 --launch-count 12 --section LaunchStats --section SpeedOfLight \
        ./build/igemm bench --shapes /tmp/dc1.csv --vs cudnn --iters 2 --warmup 1 2>&1 | grep -E "^  [a-zA-Z_].*\(|Duration|Grid Size|Block Size|Cluster Size|Registers Per|Dynamic Shared|Waves" | sed -E 's/\(CUtensorMap.*\) \(/ (/; s/, Context.*//' | awk '/\(/{k=substr($0,1,150); c[k]++} c[k]<=1' | head -24; } >> "$OUT/diag.log" 2>&1
  done < /tmp/dc.csv
  grep -E "=== dnncfg|^  [a-zA-Z_]|Duration|Cluster Size|Grid Size" "$OUT/diag.log" | cut -c1-170 | tee -a "$SUMMARY" > /dev/null
}
for st in $STAGES; do
  if declare -f "stage_$st" > /dev/null; then stage_$st; else note "unknown stage: $st"; fi
done
stamp done
