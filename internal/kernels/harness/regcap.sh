#!/usr/bin/env bash
# regcap.sh sweeps the cap on registers per thread for the co-Z entry points on a GPU machine:
# for each cap it builds an sm_90 fatbin with -DECM_MAX_REGS=CAP (which overrides the caps of
# internal/kernels/entries.go), checks the entry points of each CURVE_SCHEDULE_CHANNELS key against its
# kernelvec file and times them at 2^18 (choosing the block size) and 2^20 items. One line per
# cap and entry point at 2^20.
#
#   internal/kernels/harness/regcap.sh VECDIR OUTDIR [CAPS [KEYS]]
#     (CAPS default "96 80 72 64 56", KEYS default "p224_coz_c16 p256_coz_c16")
set -u
vec=${1:?vector folder}
out=${2:?output folder}
caps=${3:-96 80 72 64 56}
keys=${4:-p224_coz_c16 p256_coz_c16}
mkdir -p "$out"
make kernels-harness >"$out/harness-build.log" 2>&1 || { echo "harness build failed"; exit 1; }
for r in $caps; do
  fb=/tmp/ecmul-cap$r.fatbin
  if ! nvcc -O3 -std=c++17 --threads 0 -Xptxas -v -DECM_MAX_REGS="$r" --fatbin -gencode arch=compute_90,code=sm_90 \
    -o "$fb" internal/kernels/ecmul.cu >"$out/build$r.log" 2>&1; then
    echo "cap $r: build failed"; tail -5 "$out/build$r.log"; continue
  fi
  echo "== cap $r: entry points with spills: $(grep "spill stores" "$out/build$r.log" | grep -vc " 0 bytes spill stores")"
  for c in $keys; do
    internal/kernels/harness/harness "$fb" "$c" "$vec/$c.bin" --batches 262144,1048576 >"$out/h$r-$c.log" 2>&1
    grep -E "MISMATCH|failed" "$out/h$r-$c.log" | tail -2
    awk -v r="$r" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "cap %s %-40s threads %4s %8.3f M/s\n", r, $1, $2, $5/1e6}' "$out/h$r-$c.log"
  done
done
