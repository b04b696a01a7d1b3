#!/usr/bin/env bash
# kernels-check.sh checks the kernel source without a GPU: it builds the CPU
# emulation of internal/kernels/ecmul.cu (internal/kernels/harness/emulate)
# and kernelvec, writes vectors for every curve, schedule and channel width,
# and runs every entry point on them at its block sizes, comparing each
# output word with the CPU twin's; and the same for the kernels around the
# ladder of the co-Z ladder and the comb: the wire kernels (wire.cuh) on
# kernelvec -unpack and -pack vectors and the prepare kernel (prepare.cuh)
# on kernelvec -prepare vectors, first (they take seconds), and the finish
# kernel (finish.cuh) on kernelvec -finish vectors and the verify kernel
# (verify.cuh, after the co-Z ladder) on kernelvec -verify vectors, last;
# the wire kernels of a verify batch (verify.cuh, co-Z) on kernelvec
# -verifyunpack and -verifypack vectors and those of a signing batch
# (sign.cuh, comb) on kernelvec -signunpack and -signpack vectors, with the
# unpack and pack; then every 30-bit entry point of P-256's co-Z ladder on
# the constants of bases it must refuse (kernelvec -break-base), where it
# must stop. It fails on any mismatch, on a refused base run, or when an
# entry point of
# internal/kernels/schedule_gen.cuh (a ladder's, or an unpack's, prepare's,
# finish's, verify's, pack's or a verify or signing batch's unpack's or
# pack's of ECM_CURVES) was not run.
#
#   scripts/kernels-check.sh [-n ITEMS] [-e EMULATOR] [-k KERNELVEC] [-o DIR] [-s SEED] [-q]
#
#   -n ITEMS     items per file, each run once per entry point and block size
#                (default 128, or $KERNELS_CHECK_ITEMS; the files of the
#                kernels around the ladder take at least 32, so that their
#                edge items are all there)
#   -e EMULATOR  an emulator already built (default: make kernels-emulate)
#   -k KERNELVEC a kernelvec already built (default: go build)
#   -o DIR       where the vectors and the log go (default .dev/kernels-check)
#   -s SEED      kernelvec's seed and the emulator's order seed (default 1)
#   -q           stop at the first mismatch (scripts/kernels-mutant.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

items=${KERNELS_CHECK_ITEMS:-128}
emu=
vec=
dir=.dev/kernels-check
seed=1
failfast=
while getopts "n:e:k:o:s:q" opt; do
  case $opt in
    n) items=$OPTARG ;;
    e) emu=$OPTARG ;;
    k) vec=$OPTARG ;;
    o) dir=$OPTARG ;;
    s) seed=$OPTARG ;;
    q) failfast=--fail-fast ;;
    *) sed -n '19,30p' "$0" >&2; exit 2 ;;
  esac
done

start=$(date +%s)
mkdir -p "$dir"
if [[ -z $emu ]]; then
  make --no-print-directory kernels-emulate
  emu=internal/kernels/harness/emulate
fi
if [[ -z $vec ]]; then
  go build -o "$dir/kernelvec" ./internal/tools/kernelvec
  vec=$dir/kernelvec
fi

curves="p224 p256 secp256k1"
schedules="coz paper comb combvt"
widths="16 30"
# the ladder entry points the kernel declares (internal/kernels/schedule_gen.cuh)
ladders=$(grep -oE '^[[:space:]]*ENTRY\([a-z0-9]+, [A-Za-z0-9]+, [a-z]+, [A-Za-z]+, [a-z]+, [A-Za-z]+, [a-z]+, [A-Za-z]+, c[0-9]+' internal/kernels/schedule_gen.cuh |
  sed -E 's/^[[:space:]]*ENTRY\(([a-z0-9]+), [A-Za-z0-9]+, ([a-z]+), [A-Za-z]+, ([a-z]+), [A-Za-z]+, ([a-z]+), [A-Za-z]+, (c[0-9]+)/ecm_ladder_\1_\2_\3_\4_\5/' | sort -u)
# widths_of CURVE SCHEDULE: the channel widths it has ladder entry points of
widths_of() {
  echo "$ladders" | grep -oE "^ecm_ladder_$1_$2_[a-z]+_[a-z]+_c[0-9]+$" | sed -E 's/.*_c([0-9]+)$/\1/' | sort -un | tr '\n' ' '
}
for c in $curves; do
  for s in $schedules; do
    for w in $(widths_of "$c" "$s"); do
      "$vec" -curve "$c" -schedule "$s" -channel-bits "$w" -n "$items" -seed "$seed" \
        -out "$dir/${c}_${s}_c$w.bin"
    done
  done
done
# the vectors of the kernels around the ladder, for the schedules whose
# finish runs on the GPU
finish_schedules="coz comb"
finish_items=$((items > 32 ? items : 32))
for c in $curves; do
  for s in $finish_schedules; do
    for w in $widths; do
      for k in unpack prepare finish pack; do
        "$vec" -$k -curve "$c" -schedule "$s" -channel-bits "$w" -n "$finish_items" -seed "$seed" \
          -out "$dir/${c}_${k}_${s}_c$w.bin"
      done
      if [[ $s == coz ]]; then
        for k in verify verifyunpack verifypack; do
          "$vec" -$k -curve "$c" -schedule coz -channel-bits "$w" -n "$finish_items" -seed "$seed" \
            -out "$dir/${c}_${k}_coz_c$w.bin"
        done
      fi
      if [[ $s == comb ]]; then
        for k in signunpack signpack; do
          "$vec" -$k -curve "$c" -schedule comb -channel-bits "$w" -n "$finish_items" -seed "$seed" \
            -out "$dir/${c}_${k}_comb_c$w.bin"
        done
      fi
    done
  done
done
echo "kernels-check: vectors, $items items per file ($finish_items for the kernels around the ladder), in $(($(date +%s) - start)) s"

log=$dir/emulate.log
: > "$log"
status=0
# runs the emulator on one file: KEY (the file and log's name), then the
# emulator's SELECTOR and ITEMS
run() {
  local key=$1 t0 result
  t0=$(date +%s)
  if "$emu" "$2" "$dir/$key.bin" "$3" --seed "$seed" $failfast > "$dir/$key.log" 2>&1; then
    result=ok
  else
    result=FAILED status=1
  fi
  cat "$dir/$key.log" >> "$log"
  echo "kernels-check: $key: $(grep -c ': bit-exact$' "$dir/$key.log" || true) runs bit-exact, $result, $(($(date +%s) - t0)) s"
  [[ $result == ok ]]
}
# runs the emulator on every file of KERNEL (unpack, prepare, pack, ladder,
# finish, verify, verifyunpack, verifypack, signunpack or signpack), one a
# curve, schedule of SCHEDULES and width, at ITEMS items; the selectors of
# the kernels around the ladder name no schedule. With -q it runs none
# after a failure.
run_kernel() {
  local kernel=$1 c s w key selector
  [[ $status == 0 || -z $failfast ]] || return 0
  for c in $curves; do
    for s in $2; do
      for w in $(if [[ $kernel == ladder ]]; then widths_of "$c" "$s"; else echo "$widths"; fi); do
        if [[ $kernel == ladder ]]; then
          key=${c}_${s}_c$w selector=$key
        else
          key=${c}_${kernel}_${s}_c$w selector=${c}_${kernel}_c$w
        fi
        run "$key" "$selector" "$3" || [[ -z $failfast ]] || return 0
      done
    done
  done
}
run_kernel unpack "$finish_schedules" "$finish_items"
run_kernel verifyunpack coz "$finish_items"
run_kernel signunpack comb "$finish_items"
run_kernel prepare "$finish_schedules" "$finish_items"
run_kernel pack "$finish_schedules" "$finish_items"
run_kernel verifypack coz "$finish_items"
run_kernel signpack comb "$finish_items"
run_kernel ladder "$schedules" "$items"
run_kernel finish "$finish_schedules" "$finish_items"
run_kernel verify coz "$finish_items"

# a wide kernel given the constants of a base it does not take stops
# (require_wide_base): kernelvec -break-base writes P-256's with B̃ ending
# with 2^30 − 1 (top) or B's residues not stored twisted (twist), and every
# 30-bit entry point of its co-Z ladder must abort on them (the emulator's
# __trap) where it runs the right ones (above)
refuse_broken_bases() {
  local b e rc refused=yes
  [[ $status == 0 || -z $failfast ]] || return 0
  for b in top twist; do
    "$vec" -curve p256 -schedule coz -channel-bits 30 -n 32 -seed "$seed" -break-base "$b" -out "$dir/p256_coz_c30_break_$b.bin"
    for e in $(echo "$ladders" | grep -E '^ecm_ladder_p256_coz_[a-z]+_[a-z]+_c30$'); do
      rc=0  # the braces keep the shell's "Aborted" report of the expected abort out of the output
      { (ulimit -c 0; exec "$emu" p256_coz_c30 "$dir/p256_coz_c30_break_$b.bin" 32 --only "$e") > "$dir/break_${b}_$e.log" 2>&1; } 2>/dev/null || rc=$?
      if [[ $rc == 134 ]]; then  # SIGABRT
        echo "$e: refused the base broken at its $b" >> "$log"
      else
        echo "$e: NOT REFUSED: ran on a base broken at its $b (exit $rc)" | tee -a "$log"
        status=1
        refused=no
      fi
    done
  done
  echo "kernels-check: every 30-bit entry point of p256 coz refused both broken bases: $refused"
}
refuse_broken_bases

# every entry point the kernel declares ran, and passed
declared=$ladders
for k in unpack prepare finish verify pack verifyunpack verifypack signunpack signpack; do
  declared+=$'\n'$(grep -oE '^[[:space:]]*CURVE\([a-z0-9]+, [A-Za-z0-9]+, c[0-9]+' internal/kernels/schedule_gen.cuh |
    sed -E "s/^[[:space:]]*CURVE\\(([a-z0-9]+), [A-Za-z0-9]+, (c[0-9]+)/ecm_${k}_\\1_\\2/" | sort -u)
done
passed=$(awk '/: bit-exact$/ { print $1 }' "$log" | sort -u)
missing=$(comm -23 <(echo "$declared" | sort -u) <(echo "$passed"))

grep -E "MISMATCH|^[0-9]+ passed|no entry|error|Abort|Segmentation" "$log" | grep -v "^[0-9]* passed, 0 failed$" || true
runs=$(grep -c ': bit-exact$' "$log" || true)
bad=$(grep -cE '^ecm_(ladder|unpack|prepare|finish|verify|pack|verifyunpack|verifypack|signunpack|signpack)_.*: MISMATCH$' "$log" || true)
if [[ -n $missing && -z $failfast ]]; then
  echo "kernels-check: entry points that did not pass:"
  echo "$missing" | sed 's/^/  /'
  status=1
fi
echo "kernels-check: $(echo "$declared" | wc -l) entry points, $runs runs bit-exact, $bad mismatched, $items items each, in $(($(date +%s) - start)) s (log $log)"
exit $status
