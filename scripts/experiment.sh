#!/usr/bin/env bash
# The benchmark sweep behind docs/paper-figures.md, on a GPU host that has the
# CUDA driver but no Go. Cross-build the binary first on a Go machine:
#   make dev-binaries                  (writes .dev/ecmul)
# then, from a copy of the repository with .dev/ on the GPU host:
#   scripts/experiment.sh [OUT]        (or: make experiment [OUT=dir])
#
# Writes to OUT (default bench/<device>, e.g. bench/h200):
#   <date>-<commit>-p224.{json,csv,log}              P-224: co-Z and paper schedules × Shenoy and
#                                                    Kawamura × 16- and 30-bit channels (Shenoy
#                                                    only) × warp and block mappings × 1, 2, 4, 8,
#                                                    16, 32 items per block, the tile mapping
#                                                    (tensor cores: co-Z, Shenoy, 16-bit, 16 per block)
#                                                    and the spread mapping (co-Z, Shenoy, up to 16)
#   <date>-<commit>-p256-secp256k1.{json,csv,log}    P-256 and secp256k1: both schedules, both
#                                                    extensions, both channel widths, block
#                                                    mapping, 8, 16, 28 items per block, and the
#                                                    tile and spread mappings
#   <date>-<commit>-devices-*.{json,csv,log}         on a host with several GPUs: each curve's default
#                                                    kernel on one GPU and on all of them (--gpus 1,all),
#                                                    batches up to 2^22
#   plots/*.svg, plots/*.png                         the charts of tools/plot, where ECMUL_PLOT is
#                                                    there: on a Go machine,
#                                                    (cd tools/plot && CGO_ENABLED=0 go build -o ../../.dev/ecmul-plot .)
# and prints the summary table, with every figure as a ratio to the best CPU
# peer. Each batch size (1, 2, 4, ..., 2^20, and each items-per-block value,
# for the one-block panel) runs once to warm up, then REPS times. About 10 to 12 minutes on an H200 with both schedules (twice the 5 to 6 of one).
#
# Environment overrides: OUT, REPS (3), BATCHES, SCHEDULES (coz,paper), CHANNELS (16,30), IPB_224 (1,2,4,8,16,32),
# IPB_256 (8,16,28), PEER_SECONDS (3), ECMUL (.dev/ecmul), ECMUL_PLOT (.dev/ecmul-plot), ECMUL_FATBIN (a
# fatbin to load instead of the embedded one). QUICK=1 is a smoke run of
# about a minute: three batch sizes, one timed run, fewer items per block.
set -euo pipefail
# OUT and ECMUL given relative to the caller's folder stay so after the cd.
OUT=${1:-${OUT:-}}
[[ -n $OUT && $OUT != /* ]] && OUT=$PWD/$OUT
[[ -n ${ECMUL:-} && $ECMUL != /* && $ECMUL == */* ]] && ECMUL=$PWD/$ECMUL
[[ -n ${ECMUL_PLOT:-} && $ECMUL_PLOT != /* && $ECMUL_PLOT == */* ]] && ECMUL_PLOT=$PWD/$ECMUL_PLOT
cd "$(dirname "$0")/.."

ECMUL=${ECMUL:-.dev/ecmul}
ECMUL_PLOT=${ECMUL_PLOT:-.dev/ecmul-plot}
log() { echo "== $*" >&2; }

if [[ ! -x $ECMUL ]]; then
  echo "experiment: $ECMUL is missing: run 'make dev-binaries' on a machine with Go, then copy .dev/ here" >&2
  exit 1
fi

pow2_batches() {
  local b=1 out=1
  while ((b < 1048576)); do
    b=$((b * 2))
    out+=",$b"
  done
  echo "$out"
}

if [[ ${QUICK:-0} == 1 ]]; then
  : "${BATCHES:=1,1024,131072}" "${REPS:=1}" "${IPB_224:=4,8}" "${IPB_256:=28}" "${PEER_SECONDS:=1}"
fi
BATCHES=${BATCHES:-$(pow2_batches)}
REPS=${REPS:-3}
SCHEDULES=${SCHEDULES:-coz,paper}
CHANNELS=${CHANNELS:-16,30}
IPB_224=${IPB_224:-1,2,4,8,16,32}
IPB_256=${IPB_256:-8,16,28}
PEER_SECONDS=${PEER_SECONDS:-3}
max_batch=$(tr ',' '\n' <<<"$BATCHES" | sort -n | tail -1)

# The device, as the binary sees it: "0: NVIDIA H200 (sm_90, ...)" gives h200.
if ! devices=$("$ECMUL" devices 2>&1); then
  echo "experiment: no usable GPU: $devices" >&2
  exit 1
fi
device=$(sed -n 's/^0: \([^(]*\).*/\1/p' <<<"$devices" | head -1)
slug=$(tr 'A-Z' 'a-z' <<<"$device" | sed -e 's/^ *nvidia *//' -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/^-//' -e 's/-$//')
OUT=${OUT:-bench/${slug:-gpu}}
mkdir -p "$OUT"
log "device: $(head -2 <<<"$devices" | tail -1); results in $OUT"
log "batches $BATCHES, $REPS timed run(s) after a warm-up"

status=0
jsons=()
date=$(date -u +%F)

# with_one_block BATCHES IPB: BATCHES plus each items-per-block value, so that
# every configuration has the paper's one-block point (batch = items per block).
with_one_block() {
  tr ',' '\n' <<<"$1,$2" | sort -nu | paste -sd, -
}

# run_bench NAME BATCHES FLAGS...: one ecmul bench run; the files are renamed
# after the commit the binary was built from, which the JSON records.
run_bench() {
  local name=$1 batches=$2
  shift 2
  local tmp="$OUT/.running-$name" t0=$SECONDS rc
  rm -f "$tmp".*
  log "bench $name: $*"
  set +e
  {
    "$ECMUL" bench --backend gpu --batch "$batches" --reps "$REPS" --peer-seconds "$PEER_SECONDS" \
      --json "$tmp.json" --csv "$tmp.csv" "$@" 2>&1
    echo "rc=$?" >"$tmp.rc"
  } | tee "$tmp.log" | grep --line-buffered -E "^bench:|^ecmul bench|^peer |batch=$max_batch:"
  set -e
  rc=$(sed -n 's/^rc=//p' "$tmp.rc" 2>/dev/null)
  rm -f "$tmp.rc"
  if [[ ${rc:-1} != 0 ]]; then
    log "bench $name failed (exit ${rc:-?}): see $tmp.log"
    status=1
  fi
  if [[ ! -s $tmp.json ]]; then
    return
  fi
  local full short
  full=$(sed -n 's/^  "commit": "\([^"]*\)".*/\1/p' "$tmp.json" | head -1)
  short=${full:0:7}
  [[ $full == *-dirty ]] && short+=-dirty
  local stem="$OUT/$date-${short:-unknown}-$name"
  for ext in json csv log; do
    mv "$tmp.$ext" "$stem.$ext"
  done
  jsons+=("$stem.json")
  log "bench $name: $((SECONDS - t0)) s, $stem.{json,csv,log}"
}

run_bench p224 "$(with_one_block "$BATCHES" "$IPB_224")" --curve p224 --schedule "$SCHEDULES" --ext shenoy,kawamura --channel-bits "$CHANNELS" --mapping warp,block,tile,spread --ipb "$IPB_224" --gpus 1
run_bench p256-secp256k1 "$(with_one_block "$BATCHES" "$IPB_256")" --curve p256,secp256k1 --schedule "$SCHEDULES" --ext shenoy,kawamura --channel-bits "$CHANNELS" --mapping block,tile,spread --ipb "$IPB_256" --gpus 1
# the devices dimension: each curve's default kernel on one GPU and on all
if (($(grep -c '^[0-9]*: ' <<<"$devices") > 1)); then
  run_bench devices-p224 "$BATCHES,4194304" --curve p224 --schedule coz --ext shenoy --channel-bits 30 --mapping block --ipb 56 --gpus 1,all
  run_bench devices-p256-secp256k1 "$BATCHES,4194304" --curve p256,secp256k1 --schedule coz --ext shenoy --channel-bits 30 --mapping block --ipb 51 --gpus 1,all
fi

if ((${#jsons[@]} == 0)); then
  log "no results"
  exit 1
fi
in=$(IFS=,; echo "${jsons[*]}")
if [[ -x $ECMUL_PLOT ]]; then
  log "plots in $OUT/plots"
  "$ECMUL_PLOT" --in "$in" --out "$OUT/plots" || status=1
else
  log "no $ECMUL_PLOT: charts not drawn; on a machine with Go, from tools/plot: go run . --in <the JSON files> --out <folder>"
fi
log "done in $SECONDS s; copy $OUT back to the repository to keep the results"
exit $status
