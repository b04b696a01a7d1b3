#!/usr/bin/env bash
# device.sh builds, verifies and times the kernel on a GPU machine in one go:
# the fatbin and the harness, bit-exactness and throughput for every curve,
# compute-sanitizer, the SASS of the P-224 entry points, and the CPU peer
# (OpenSSL) on the same host. Full logs go to OUTDIR; a summary is printed last.
#
#   internal/kernels/harness/device.sh VECDIR OUTDIR
#
# VECDIR holds kernelvec files CURVE_SCHEDULE_CHANNELS.bin for the curves p224,
# p256, secp256k1, the schedules coz and paper and the channels c16 and c30.
set -u -o pipefail
vec=${1:?vector folder}
out=${2:?output folder}
mkdir -p "$out"
h=internal/kernels/harness/harness
fb=internal/kernels/ecmul.fatbin

{
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv
  nvcc --version | tail -2
} > "$out/peers.log" 2>&1

rm -f "$fb" "$h"
start=$(date +%s)
if ! make kernels-fatbin kernels-harness > "$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  exit 1
fi
echo "build: $(($(date +%s) - start)) s" | tee -a "$out/peers.log"
cp "$fb" "$out/ecmul.fatbin"

status=0
: > "$out/harness.log"
for s in coz paper; do
  for w in c16 c30; do
    "$h" "$fb" "p224_${s}_$w" "$vec/p224_${s}_$w.bin" >> "$out/harness.log" 2>&1 || status=1
    for c in p256 secp256k1; do
      "$h" "$fb" "${c}_${s}_$w" "$vec/${c}_${s}_$w.bin" --batches 262144,65536,1048576 >> "$out/harness.log" 2>&1 || status=1
    done
  done
done

{
  for s in coz paper; do
    for c in p224 p256 secp256k1; do
      for w in c16 c30; do
        compute-sanitizer --tool memcheck "$h" "$fb" "${c}_${s}_$w" "$vec/${c}_${s}_$w.bin" --quick 64
      done
    done
  done
  for w in c16 c30; do
    timeout 150 compute-sanitizer --tool racecheck "$h" "$fb" "p224_coz_$w" "$vec/p224_coz_$w.bin" --quick 4
    timeout 60 compute-sanitizer --tool synccheck "$h" "$fb" "p224_coz_$w" "$vec/p224_coz_$w.bin" --quick 4
  done
} > "$out/sanitizer.log" 2>&1 || status=1

for s in coz paper; do
  for e in shenoy_warp_c16 shenoy_block_c16 shenoy_tile_c16 kawamura_warp_c16 kawamura_block_c16 shenoy_warp_c30 shenoy_block_c30 shenoy_spread_c30; do
    echo "== ecm_ladder_p224_${s}_$e"
    cuobjdump -sass -arch sm_90 -fun "ecm_ladder_p224_${s}_$e" "$fb" 2>&1 | head -c 2000000
  done
done > "$out/sass.txt" 2>&1

{
  echo "== openssl speed -multi 16"
  openssl version
  openssl speed -seconds 2 -multi 16 ecdhp224 ecdhp256 2>/dev/null | tail -4
} >> "$out/peers.log" 2>&1

echo "== sm_90 registers and spills"
awk '/Compiling entry function/ { fn = $6; arch = $NF }
     arch ~ /sm_90/ && /spill/ { sp = $0 }
     arch ~ /sm_90/ && /Used/ { print fn, $5, "registers,", sp }' "$out/build.log" | sed "s/'//g" | sort -u
echo "== fatbin $(stat -c %s "$fb") bytes, entry names visible: $(grep -c -a ecm_ladder_ "$fb")"
echo "== sanitizer"
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed, [0-9]+ failed" "$out/sanitizer.log"
echo "== peers"
cat "$out/peers.log"
echo "== harness (bit-exactness)"
grep -E "^device|MISMATCH|registers|passed, [0-9]+ failed" "$out/harness.log"
echo "== harness (throughput: entry, threads, batch, ms, scalar mults/s)"
grep -E "^device|^ecm_ladder_[a-z0-9_]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9]+$" "$out/harness.log"
exit $status
